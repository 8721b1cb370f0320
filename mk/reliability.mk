# mk/reliability.mk - sanitizers, valgrind, fuzzing, fault injection and the GPU suite (included by the top-level Makefile).

# ---- Reliability (docs/testing.md): sanitizers, valgrind, fuzzing, fault injection -------------
# None of these run in `make test`; .ci/run calls them with the time bounds given here.
#   make check-sanitize     library, tools and tests with ASan+UBSan in build-san/, whole suite
#   make check-valgrind     a short memcheck of the CLI (build/clsort)
#   make fuzz               libFuzzer harnesses (clang), FUZZ_TIME seconds each, then the corpus
#   make check-reliability  fault injection: CLI I/O faults and signals, OpenCL faults, threads,
#                           long run, data-oblivious launch sequence
#   make check-gpu          the whole suite on the first GPU (registers NVIDIA's OpenCL driver if
#                           needed); fails when there is no GPU
.PHONY: check-sanitize check-valgrind fuzz fuzz-lib fuzz-build fuzz-regress check-reliability check-gpu

SAN_BUILD  ?= build-san
SAN_FLAGS  ?= -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# Leaks are checked (detect_leaks=1); tests/sanitize/lsan.supp names only PoCL, LLVM and ocl-icd
# frames. The ICD loader and PoCL are not instrumented, so their allocations made through
# interceptors are seen, but their own bookkeeping (per-process device state, LLVM's global
# caches, the ICD vendor list) is kept until exit on purpose. use_sigaltstack=0: PoCL's LLVM gives
# a thread that first builds a program (clsort's context thread) an alternate signal stack from
# malloc, which ASan would try to munmap when the thread ends (a CHECK failure, not our bug).
SAN_ENV = ASAN_OPTIONS=detect_leaks=1:use_sigaltstack=0:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=0:check_initialization_order=1:halt_on_error=1:malloc_fill_byte=171 \
          LSAN_OPTIONS=suppressions=$(CURDIR)/tests/sanitize/lsan.supp:print_suppressions=0 \
          UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:suppressions=$(CURDIR)/tests/sanitize/ubsan.supp

check-sanitize:
	$(MAKE) BUILD=$(SAN_BUILD) SAN="$(SAN_FLAGS)" OPT=-O1 all tests
	$(SAN_ENV) CLSORT_TEST_SAN="$(SAN_FLAGS)" CLSORT_TEST_TIMEOUT=$${CLSORT_TEST_TIMEOUT:-1800} BUILD=$(SAN_BUILD) sh tests/run_tests.sh

# Memcheck of the CLI on small inputs: an in-place sort, pairs through -R/-k, an external sort
# with runs, and -c. PoCL/ocl-icd noise is suppressed by tests/sanitize/valgrind.supp.
check-valgrind: all
	sh tests/sanitize/valgrind_cli.sh $(BUILD)

# libFuzzer harnesses (tests/fuzz/fuzz_*.c) built with clang into build-fuzz/. The checked-in
# corpus (tests/fuzz/corpus/<harness>/) is only read; new inputs go to build-fuzz/corpus/ and
# crashes to build-fuzz/crashes/. A crash is a failure: add the input to
# tests/fuzz/regressions/<harness>/ and fix the bug; fuzz-regress replays those and the corpus.
FUZZ_CC    ?= clang
# The library's C++ part (Highway's vqsort) needs the same compiler family for -fsanitize=fuzzer-no-link.
FUZZ_CXX   ?= clang++
FUZZ_BUILD ?= build-fuzz
FUZZ_TIME  ?= 60
FUZZ_SAN   ?= -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZERS     = args config records
FUZZ_CFLAGS = -std=c11 -g -O1 $(FUZZ_SAN) -D_POSIX_C_SOURCE=200809L -Iinclude $(HOST_INC) -Itools/clsort -Itools/merge -Itools/lib \
              -I$(FUZZ_BUILD)

# The library for the harnesses, built with clang by a sub-make (coverage without a main).
fuzz-lib:
	$(MAKE) BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) CXX=$(FUZZ_CXX) SAN="$(FUZZ_SAN) -fsanitize=fuzzer-no-link" OPT=-O1 $(FUZZ_BUILD)/libclsort.a
FUZZ_CLI    = tools/clsort
FUZZ_LIB    = tools/lib
$(FUZZ_BUILD)/fuzz_args: tests/fuzz/fuzz_args.c $(FUZZ_CLI)/clsort_args.c $(FUZZ_LIB)/clsort_keys.c \
                         $(FUZZ_LIB)/clsort_messages.c $(FUZZ_LIB)/clsort_options.c $(FUZZ_LIB)/clsort_units.c $(FUZZ_BUILD)/libclsort.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $(filter %.c,$^) $(FUZZ_BUILD)/libclsort.a $(LDLIBS)
$(FUZZ_BUILD)/fuzz_config: tests/fuzz/fuzz_config.c host/planning/config.c $(FUZZ_BUILD)/libclsort.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_BUILD)/libclsort.a $(LDLIBS)
$(FUZZ_BUILD)/fuzz_records: tests/fuzz/fuzz_records.c $(FUZZ_LIB)/clsort_records.c $(FUZZ_LIB)/clsort_fileio.c $(FUZZ_LIB)/clsort_pwrite.c \
                            $(FUZZ_LIB)/clsort_signals.c $(FUZZ_LIB)/clsort_messages.c \
                            $(FUZZ_LIB)/clsort_progress.c $(FUZZ_LIB)/clsort_units.c host/execution/hostsort.c
	@mkdir -p $(FUZZ_BUILD)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $^ -lpthread

fuzz-build: fuzz-lib
	$(MAKE) $(FUZZERS:%=$(FUZZ_BUILD)/fuzz_%)

fuzz-regress: fuzz-build
	@for h in $(FUZZERS); do \
	  files=$$(find tests/fuzz/corpus/$$h tests/fuzz/regressions/$$h -type f 2>/dev/null); \
	  [ -n "$$files" ] || continue; \
	  echo "fuzz-regress $$h: $$(echo "$$files" | wc -l) inputs"; \
	  $(FUZZ_BUILD)/fuzz_$$h -close_fd_mask=2 $$files >$(FUZZ_BUILD)/regress-$$h.log 2>&1 || \
	    { tail -30 $(FUZZ_BUILD)/regress-$$h.log; exit 1; }; \
	done

fuzz: fuzz-regress
	@for h in $(FUZZERS); do \
	  mkdir -p $(FUZZ_BUILD)/corpus/$$h $(FUZZ_BUILD)/crashes; \
	  echo "fuzz $$h: $(FUZZ_TIME) s"; \
	  $(FUZZ_BUILD)/fuzz_$$h -max_total_time=$(FUZZ_TIME) -timeout=10 -rss_limit_mb=2048 \
	    -max_len=4096 -close_fd_mask=2 -print_final_stats=1 \
	    -artifact_prefix=$(FUZZ_BUILD)/crashes/$$h- \
	    $(FUZZ_BUILD)/corpus/$$h tests/fuzz/corpus/$$h >$(FUZZ_BUILD)/fuzz-$$h.log 2>&1 || \
	    { tail -40 $(FUZZ_BUILD)/fuzz-$$h.log; echo "fuzz $$h: FAILED, input in $(FUZZ_BUILD)/crashes/"; exit 1; }; \
	  grep -E "stat::number_of_executed_units|stat::new_units_added" $(FUZZ_BUILD)/fuzz-$$h.log | tr '\n' ' '; echo; \
	done

# The suite on the first GPU (tests/check_gpu.sh builds, registers the NVIDIA driver when it is
# installed but not registered, and runs tests/run_tests.sh with CLSORT_DEVICE=gpu; exit 2 when
# no GPU is visible). Not part of `make test`. Run it whenever kernels or the runtime change.
check-gpu:
	MAKE="$(MAKE)" BUILD=$(BUILD) sh tests/check_gpu.sh

# Fault injection on the CLI (tests/reliability/*.sh, need root for some cases, else skip with a
# note) with the tools of `make all`.
check-reliability: all
	@rc=0; for s in tests/reliability/*.sh; do \
	  echo "=== $$s"; BUILD=$(BUILD) sh $$s || rc=1; \
	done; exit $$rc
