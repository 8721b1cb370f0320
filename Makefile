# clsort - sorting networks in OpenCL. `make` builds everything into build/.
# `make deps` installs what building and running need (Debian, apt-get), `make deps-dev` that plus
# the test tools; `make` itself never installs anything. `make install` / `make uninstall` take
# PREFIX, LIBDIR (e.g. /usr/lib/x86_64-linux-gnu), BINDIR, INCLUDEDIR, DATADIR, MANDIR and DESTDIR.

CC      ?= cc
CXX     ?= c++
BUILD   ?= build
WERROR  ?=
OPT     ?= -O2
CFLAGS  ?= $(OPT) -g
CXXFLAGS ?= $(OPT) -g
WARN     = -Wall -Wextra -Wpedantic $(if $(WERROR),-Werror)
SAN     ?=
ALL_CFLAGS   = -std=c11 $(WARN) $(SAN) -D_POSIX_C_SOURCE=200809L -Iinclude -I$(BUILD) $(CFLAGS)
# The library's layers, one folder each under host/, highest first (docs/design.md, "Layers";
# tests/check_layers.sh reads a file's layer from its folder). Only the library and the white-box
# tests see them: the tools compile against include/ alone, so the compiler enforces that they use
# the public API.
HOST_DIRS    = host/api host/planning host/execution host/programs host/device host/core
HOST_INC     = $(addprefix -I,$(HOST_DIRS))
HOST_HDRS    = $(wildcard $(addsuffix /*.h,$(HOST_DIRS)))
vpath %.c $(HOST_DIRS)
vpath %.cc $(HOST_DIRS)
ALL_CXXFLAGS = -std=c++17 $(WARN) $(SAN) -Iinclude $(CXXFLAGS)
LDLIBS  = -lOpenCL -lpthread -lm -linih
# Highway's vqsort is the library's host sort where its header is found (Debian: libhwy-dev, in
# DEB_PKGS); else the library's own radix sort. `make HAVE_HWY=` builds without it. With it the
# library needs libhwy_contrib, libhwy and libstdc++ (clsort.pc and the CMake package say so).
# (-include, not an echoed '#include': GNU make 4.3 passes a backslash-escaped '#' through to the
# shell, the preprocessor took '\#include' for text and every machine seemed to have Highway.)
ifeq ($(origin HAVE_HWY),undefined)
HAVE_HWY := $(shell $(CXX) -E -x c++ -include hwy/contrib/sort/vqsort.h /dev/null >/dev/null 2>&1 && echo 1)
endif
HWY_LIBS  = $(if $(HAVE_HWY),-lhwy_contrib -lhwy -lstdc++)
LDLIBS   += $(HWY_LIBS)

# The version comes from include/clsort.h, the only place it is written.
version_part = $(shell sed -n 's/^\#define CLSORT_VERSION_$(1) *\([0-9][0-9]*\).*/\1/p' include/clsort.h)
VERSION_MAJOR := $(call version_part,MAJOR)
VERSION_MINOR := $(call version_part,MINOR)
VERSION_PATCH := $(call version_part,PATCH)
VERSION       := $(VERSION_MAJOR).$(VERSION_MINOR).$(VERSION_PATCH)
# The shared library as the dynamic loader and the linker want it: the real file, the soname link
# that programs record (libclsort.so.0) and the development link that -lclsort finds.
SO_REAL = libclsort.so.$(VERSION)
SO_NAME = libclsort.so.$(VERSION_MAJOR)
SO_DEV  = libclsort.so

# Install places (GNU names). The runtime finds the shipped configs relative to the library or
# the program, so these need not be known when building; CLSORT_DATADIR is only a last resort.
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DATADIR    ?= $(PREFIX)/share
MANDIR     ?= $(DATADIR)/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
CMAKEDIR   ?= $(LIBDIR)/cmake/clsort
CONFIGDIR   = $(DATADIR)/clsort/devices
LDCONFIG   ?= ldconfig

# What building and running need (a C and C++ compiler assumed); `make deps`.
DEB_PKGS = opencl-headers ocl-icd-opencl-dev pocl-opencl-icd libinih-dev libhwy-dev
# Tests, fuzzing, sanitizers, plots, the Python package's tests, the install test (pkg-config,
# cmake) and the MPI tool; `make deps-dev` installs them with DEB_PKGS.
DEB_DEV_PKGS = clinfo clang libclang-rt-dev valgrind gnuplot-nox python3-numpy python3-pytest \
               python3-pyopencl python3-pip pkg-config cmake openmpi-bin libopenmpi-dev

# The kernel parts; kernels/manifest.h says which programs concatenate which, in what order.
KERNELS   = kernels/manifest.h kernels/common.cl kernels/rows.cl kernels/tile.cl \
            kernels/bitonic_sort.cl kernels/bitonic_merge.cl kernels/bitonic_global.cl \
            kernels/bitonic_wide.cl kernels/oddeven_merge.cl kernels/transposition.cl \
            kernels/segmented.cl kernels/topk.cl
LIB_SRCS  = $(wildcard $(addsuffix /*.c,$(HOST_DIRS)))
LIB_OBJS  = $(patsubst %.c,$(BUILD)/obj/%.o,$(notdir $(LIB_SRCS))) $(if $(HAVE_HWY),$(BUILD)/obj/hostsort_hwy.o)
PIC_OBJS  = $(patsubst %.c,$(BUILD)/pic/%.o,$(notdir $(LIB_SRCS))) $(if $(HAVE_HWY),$(BUILD)/pic/hostsort_hwy.o)
# One folder per program under tools/ (docs/design.md, "Source layout").
CLI_SRCS   = $(wildcard tools/clsort/*.c)
TUNE_SRCS  = $(wildcard tools/clsort-tune/*.c)
BENCH_SRCS = $(wildcard tools/clsort-bench/*.c)
BENCH_CXX  = $(wildcard tools/clsort-bench/*.cpp)
TEST_SRCS = $(wildcard tests/test_*.c)
TEST_BINS = $(TEST_SRCS:tests/%.c=$(BUILD)/tests/%)

# clsort-mpi (issue 15) is built only where an MPI compiler wrapper is on PATH; `make` without
# MPI builds everything else. `make MPICC=` leaves it out.
MPICC    ?= $(shell command -v mpicc 2>/dev/null)
MPI_SRCS  = $(wildcard tools/clsort-mpi/*.c)
# What the tools share (tools/common/: messages, signals and temporary files, units and the size
# parser, keys, device lists, the shared options), one static library that clsort and clsort-mpi
# link. The records and the file I/O still live in tools/clsort (their write path is being
# reworked there): clsort-mpi takes those three objects from it until they join tools/common.
COMMON_SRCS  = $(wildcard tools/common/*.c)
TOOLS_LIB    = $(BUILD)/libclsort-tools.a
MPI_CLI_OBJS = $(addprefix $(BUILD)/tobj/clsort/,clsort_records.o clsort_fileio.o clsort_pwrite.o)

TOOLS = $(if $(CLI_SRCS),$(BUILD)/clsort) $(if $(TUNE_SRCS),$(BUILD)/clsort-tune) \
        $(if $(BENCH_SRCS),$(BUILD)/clsort-bench) $(if $(MPICC),$(if $(MPI_SRCS),$(BUILD)/clsort-mpi))

.PHONY: all lib tools tests test deps deps-dev demo clean install uninstall check-werror plots
all: lib tools

lib: $(BUILD)/libclsort.a $(BUILD)/$(SO_DEV)
tools: $(TOOLS)
tests: $(TEST_BINS)

# ---- The library ----
# Kernels are real .cl files, embedded as byte arrays by a tiny build-time program in mk/ (no xxd
# needed).
$(BUILD)/embed: mk/embed.c | $(BUILD)
	$(CC) -std=c11 -O2 -o $@ $<
$(BUILD)/kernels_embedded.c: $(KERNELS) $(BUILD)/embed
	$(BUILD)/embed $@ $(KERNELS)

$(BUILD) $(BUILD)/obj $(BUILD)/pic $(BUILD)/tests:
	mkdir -p $@

$(BUILD)/obj/%.o: %.c $(HOST_HDRS) include/clsort.h | $(BUILD)/obj
	$(CC) $(ALL_CFLAGS) $(HOST_INC) -c -o $@ $<
$(BUILD)/pic/%.o: %.c $(HOST_HDRS) include/clsort.h | $(BUILD)/pic
	$(CC) $(ALL_CFLAGS) $(HOST_INC) -fPIC -fvisibility=hidden -c -o $@ $<
# The data directory compiled in is the last place the runtime looks for shipped configs.
$(BUILD)/obj/config.o $(BUILD)/pic/config.o: ALL_CFLAGS += -DCLSORT_DATADIR='"$(CONFIGDIR)"'
$(BUILD)/obj/hostsort.o $(BUILD)/pic/hostsort.o: ALL_CFLAGS += $(if $(HAVE_HWY),-DCLSORT_HAVE_HWY=1)
$(BUILD)/obj/hostsort_hwy.o: hostsort_hwy.cc | $(BUILD)/obj
	$(CXX) $(ALL_CXXFLAGS) -c -o $@ $<
$(BUILD)/pic/hostsort_hwy.o: hostsort_hwy.cc | $(BUILD)/pic
	$(CXX) $(ALL_CXXFLAGS) -fPIC -fvisibility=hidden -c -o $@ $<
$(BUILD)/obj/kernels_embedded.o: $(BUILD)/kernels_embedded.c | $(BUILD)/obj
	$(CC) $(ALL_CFLAGS) $(HOST_INC) -c -o $@ $<
$(BUILD)/pic/kernels_embedded.o: $(BUILD)/kernels_embedded.c | $(BUILD)/pic
	$(CC) $(ALL_CFLAGS) $(HOST_INC) -fPIC -fvisibility=hidden -c -o $@ $<

$(BUILD)/libclsort.a: $(LIB_OBJS) $(BUILD)/obj/kernels_embedded.o
	rm -f $@ && ar rcs $@ $^
$(BUILD)/$(SO_REAL): $(PIC_OBJS) $(BUILD)/pic/kernels_embedded.o
	$(CC) -shared $(SAN) -Wl,-soname,$(SO_NAME) -o $@ $^ $(LDLIBS)
$(BUILD)/$(SO_NAME): $(BUILD)/$(SO_REAL)
	ln -sf $(SO_REAL) $@
$(BUILD)/$(SO_DEV): $(BUILD)/$(SO_NAME)
	ln -sf $(SO_NAME) $@

# ---- The tools ----
# Tools use only the public header, tools/common/ and their own folder, and link the static
# library. Each program's objects go to $(BUILD)/tobj/<program>/; one rule per program and
# language: $(call tool_rule,PROGRAM,COMPILER,FLAGS,SUFFIX[,MORE_INCLUDES]).
define tool_rule
$(BUILD)/tobj/$(1)/%.o: tools/$(1)/%.$(4) $(wildcard tools/$(1)/*.h) $(wildcard tools/common/*.h) include/clsort.h
	@mkdir -p $$(@D)
	$(2) $(3) -Itools/$(1) -Itools/common $(5) -c -o $$@ $$<
endef
$(foreach p,common clsort clsort-tune clsort-bench,$(eval $(call tool_rule,$(p),$$(CC),$$(ALL_CFLAGS),c)))
$(eval $(call tool_rule,clsort-bench,$$(CXX),$$(ALL_CXXFLAGS),cpp))
$(eval $(call tool_rule,clsort-mpi,$$(MPICC),$$(ALL_CFLAGS),c,-Itools/clsort))
$(MPI_SRCS:tools/%.c=$(BUILD)/tobj/%.o): $(wildcard tools/clsort/*.h)
$(BUILD)/tobj/clsort-bench/bench_vqsort.o: ALL_CXXFLAGS += $(if $(HAVE_HWY),-DCLSORT_HAVE_HWY=1)

$(TOOLS_LIB): $(COMMON_SRCS:tools/%.c=$(BUILD)/tobj/%.o)
	rm -f $@ && ar rcs $@ $^
$(BUILD)/clsort: $(CLI_SRCS:tools/%.c=$(BUILD)/tobj/%.o) $(TOOLS_LIB) $(BUILD)/libclsort.a
	$(CC) $(SAN) -o $@ $^ $(LDLIBS)
$(BUILD)/clsort-mpi: $(MPI_SRCS:tools/%.c=$(BUILD)/tobj/%.o) $(MPI_CLI_OBJS) $(TOOLS_LIB) $(BUILD)/libclsort.a
	$(MPICC) $(SAN) -o $@ $^ $(LDLIBS)
$(BUILD)/clsort-tune: $(TUNE_SRCS:tools/%.c=$(BUILD)/tobj/%.o) $(BUILD)/libclsort.a
	$(CC) $(SAN) -o $@ $^ $(LDLIBS)
$(BUILD)/clsort-bench: $(BENCH_SRCS:tools/%.c=$(BUILD)/tobj/%.o) $(BENCH_CXX:tools/%.cpp=$(BUILD)/tobj/%.o) $(BUILD)/libclsort.a
	$(CXX) $(SAN) -o $@ $^ $(LDLIBS)

# ---- Tests ----
# Each tests/test_*.c is one program (TAP output); tests/run_tests.sh runs them all.
$(BUILD)/tests/%: tests/%.c $(wildcard tests/*.h) $(BUILD)/libclsort.a | $(BUILD)/tests
	$(CC) $(ALL_CFLAGS) $(HOST_INC) -Itests -o $@ $< $(BUILD)/libclsort.a $(LDLIBS)

test: all tests
	BUILD=$(BUILD) sh tests/run_tests.sh

check-werror:
	$(MAKE) WERROR=1 all tests

# ---- Install ----
# Everything goes under $(DESTDIR); the paths written into clsort.pc and the CMake package are
# those without it, where the files will be in the end. uninstall removes exactly these files
# (same variables), then the directories that belong to clsort alone.
MANPAGES = $(wildcard docs/*.1)
CONFIGS  = $(wildcard configs/*.ini)
# Requires.private names the .pc files of OpenCL and inih when this machine has them (Debian
# does), so that `pkg-config --static` follows their own link lines; else the libraries go to
# Libs.private by name.
PC_HAVE_DEPS := $(shell pkg-config --exists OpenCL inih 2>/dev/null && echo yes)
PC_REQUIRES_PRIVATE = $(if $(PC_HAVE_DEPS),OpenCL inih)
PC_LIBS_PRIVATE     = $(if $(PC_HAVE_DEPS),,-lOpenCL -linih) -lpthread -lm $(HWY_LIBS)
# The CMake package's static target: the same libraries where the library has vqsort.
CMAKE_HWY_LIBS      = $(if $(HAVE_HWY),;hwy_contrib;hwy;stdc++)
# clsort.h includes <CL/cl.h>: its headers' .pc goes to Requires when there is one.
PC_REQUIRES := $(shell pkg-config --exists OpenCL-Headers 2>/dev/null && echo OpenCL-Headers)

$(BUILD)/clsort.pc: mk/clsort.pc.in include/clsort.h FORCE | $(BUILD)
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' \
	    -e 's|@VERSION@|$(VERSION)|g' -e 's|@REQUIRES@|$(PC_REQUIRES)|g' \
	    -e 's|@REQUIRES_PRIVATE@|$(PC_REQUIRES_PRIVATE)|g' -e 's|@LIBS_PRIVATE@|$(PC_LIBS_PRIVATE)|g' \
	    mk/clsort.pc.in >$@
$(BUILD)/clsortConfig.cmake: mk/clsortConfig.cmake.in include/clsort.h FORCE | $(BUILD)
	sed -e 's|@LIBDIR@|$(LIBDIR)|g' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@SO_REAL@|$(SO_REAL)|g' \
	    -e 's|@SO_NAME@|$(SO_NAME)|g' -e 's|@HWY_LIBS@|$(CMAKE_HWY_LIBS)|g' mk/clsortConfig.cmake.in >$@
$(BUILD)/clsortConfigVersion.cmake: mk/clsortConfigVersion.cmake.in include/clsort.h | $(BUILD)
	sed -e 's|@VERSION@|$(VERSION)|g' mk/clsortConfigVersion.cmake.in >$@
FORCE:

install: all $(BUILD)/clsort.pc $(BUILD)/clsortConfig.cmake $(BUILD)/clsortConfigVersion.cmake
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(BINDIR) \
	    $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(CONFIGDIR) $(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(CMAKEDIR)
	install -m 644 include/clsort.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 644 $(BUILD)/libclsort.a $(DESTDIR)$(LIBDIR)/
	install -m 755 $(BUILD)/$(SO_REAL) $(DESTDIR)$(LIBDIR)/
	ln -sf $(SO_REAL) $(DESTDIR)$(LIBDIR)/$(SO_NAME)
	ln -sf $(SO_NAME) $(DESTDIR)$(LIBDIR)/$(SO_DEV)
	install -m 644 $(BUILD)/clsort.pc $(DESTDIR)$(PKGCONFIGDIR)/
	install -m 644 $(BUILD)/clsortConfig.cmake $(BUILD)/clsortConfigVersion.cmake $(DESTDIR)$(CMAKEDIR)/
	$(if $(TOOLS),install -m 755 $(TOOLS) $(DESTDIR)$(BINDIR)/)
	$(if $(MANPAGES),install -m 644 $(MANPAGES) $(DESTDIR)$(MANDIR)/man1/)
	$(if $(CONFIGS),install -m 644 $(CONFIGS) $(DESTDIR)$(CONFIGDIR)/)
	@# A library put straight into a system directory is found only once the loader's cache
	@# knows it; a staged install (DESTDIR) leaves that to the package.
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v $(LDCONFIG) >/dev/null 2>&1; then \
	  echo "$(LDCONFIG)"; $(LDCONFIG) || true; fi

uninstall:
	rm -f $(DESTDIR)$(INCLUDEDIR)/clsort.h $(DESTDIR)$(LIBDIR)/libclsort.a \
	    $(DESTDIR)$(LIBDIR)/$(SO_REAL) $(DESTDIR)$(LIBDIR)/$(SO_NAME) $(DESTDIR)$(LIBDIR)/$(SO_DEV) \
	    $(DESTDIR)$(PKGCONFIGDIR)/clsort.pc \
	    $(DESTDIR)$(CMAKEDIR)/clsortConfig.cmake $(DESTDIR)$(CMAKEDIR)/clsortConfigVersion.cmake \
	    $(addprefix $(DESTDIR)$(BINDIR)/,$(notdir $(TOOLS))) \
	    $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MANPAGES))) \
	    $(addprefix $(DESTDIR)$(CONFIGDIR)/,$(notdir $(CONFIGS)))
	rmdir $(DESTDIR)$(CONFIGDIR) $(DESTDIR)$(DATADIR)/clsort $(DESTDIR)$(CMAKEDIR) 2>/dev/null || true

clean:
	rm -rf $(BUILD)

# ---- Dependencies ----
# `make deps` installs the packages of DEB_PKGS that are missing, `make deps-dev` those of
# DEB_PKGS and DEB_DEV_PKGS (apt-get, with sudo when not root).
define apt_install
	@missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then echo "installing:$$missing"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	else echo "$@: all present"; fi
endef
deps:
	$(call apt_install,$(DEB_PKGS))
deps-dev:
	$(call apt_install,$(DEB_PKGS) $(DEB_DEV_PKGS))

# ---- Demo ----
# `make demo`: sorts 64 MiB of random keys with $(BUILD)/clsort and checks the result (mk/demo.sh).
demo: deps all
	sh mk/demo.sh $(BUILD)

# ---- Plots ----
# Benchmark plots (clsort-bench): `make plots CSV=docs/bench-XXX.csv` renders docs/bench-XXX-<type>.png,
# keys/s against n on log-log axes, one line per network and per CPU reference (needs gnuplot).
PLOTDIR ?= docs
plots:
	@test -n "$(CSV)" || { echo "usage: make plots CSV=docs/bench-XXX.csv [PLOTDIR=docs]" >&2; exit 2; }
	@test -f "$(CSV)" || { echo "make plots: no such file: $(CSV)" >&2; exit 2; }
	@command -v gnuplot >/dev/null || { echo "make plots: gnuplot not found (make deps installs it)" >&2; exit 2; }
	mkdir -p $(PLOTDIR)
	gnuplot -e "csv='$(CSV)'; outdir='$(PLOTDIR)'" tools/clsort-bench/bench_plot.gp

# ---- Reliability (issue 6; docs/testing.md): sanitizers, valgrind, fuzzing, fault injection ----
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
FUZZ_BUILD ?= build-fuzz
FUZZ_TIME  ?= 60
FUZZ_SAN   ?= -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZERS     = args config records
FUZZ_CFLAGS = -std=c11 -g -O1 $(FUZZ_SAN) -D_POSIX_C_SOURCE=200809L -Iinclude $(HOST_INC) -Itools/clsort -Itools/common \
              -I$(FUZZ_BUILD)

# The library for the harnesses, built with clang by a sub-make (coverage without a main).
fuzz-lib:
	$(MAKE) BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) SAN="$(FUZZ_SAN) -fsanitize=fuzzer-no-link" OPT=-O1 $(FUZZ_BUILD)/libclsort.a
FUZZ_CLI    = tools/clsort
FUZZ_COMMON = tools/common
$(FUZZ_BUILD)/fuzz_args: tests/fuzz/fuzz_args.c $(FUZZ_CLI)/clsort_args.c $(FUZZ_COMMON)/clsort_keys.c \
                         $(FUZZ_COMMON)/clsort_messages.c $(FUZZ_COMMON)/clsort_options.c $(FUZZ_COMMON)/clsort_units.c $(FUZZ_BUILD)/libclsort.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $(filter %.c,$^) $(FUZZ_BUILD)/libclsort.a $(LDLIBS)
$(FUZZ_BUILD)/fuzz_config: tests/fuzz/fuzz_config.c host/planning/config.c $(FUZZ_BUILD)/libclsort.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_BUILD)/libclsort.a $(LDLIBS)
$(FUZZ_BUILD)/fuzz_records: tests/fuzz/fuzz_records.c $(FUZZ_CLI)/clsort_records.c $(FUZZ_CLI)/clsort_fileio.c \
                            $(FUZZ_COMMON)/clsort_signals.c $(FUZZ_COMMON)/clsort_messages.c \
                            $(FUZZ_CLI)/clsort_progress.c $(FUZZ_COMMON)/clsort_units.c host/execution/hostsort.c
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
