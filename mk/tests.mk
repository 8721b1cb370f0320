# mk/tests.mk - the test programs and `make test` (included by the top-level Makefile).

# ---- Tests ----
# Each tests/test_*.c is one program (TAP output); tests/run_tests.sh runs them all.
$(BUILD)/tests/%: tests/%.c $(wildcard tests/*.h) $(BUILD)/libclsort.a | $(BUILD)/tests
	$(CC) $(ALL_CFLAGS) $(HOST_INC) -Itests -o $@ $< $(BUILD)/libclsort.a $(LDLIBS)

# `make test` is the newcomer's check: the programs and suites tests/quick.list names, at the
# quick level (CLSORT_TEST_LEVEL=0), one check of every door, sized to pass within 10 minutes on
# 2 cores from cold PoCL and clsort caches (compiling kernels is most of a first run's time).
# `make check-long` is everything: every program and suite at the quick level (the whole
# suite make test ran before it was cut to the list), then the test programs again at the
# default level (the whole matrix: every type x value size x network x forced pass shape; the
# shell suites run the same at every level). .ci/run runs both. CLSORT_TEST_LEVEL in the
# environment overrides the first run's level. The programs run one at a time: two PoCL
# processes building the same kernels at once into one cache have aborted in PoCL
# (pocl_binary_get_kernels_metadata), so CLSORT_TEST_JOBS stays 1 on PoCL (check_gpu.sh runs
# several at once on NVIDIA's driver).
test: all tests
	BUILD=$(BUILD) CLSORT_TEST_LEVEL=$${CLSORT_TEST_LEVEL:-0} CLSORT_TEST_SH_SERIAL=1 \
		CLSORT_TEST_SET=tests/quick.list sh tests/run_tests.sh

check-long: all tests
	BUILD=$(BUILD) CLSORT_TEST_LEVEL=$${CLSORT_TEST_LEVEL:-0} CLSORT_TEST_SH_SERIAL=1 \
		sh tests/run_tests.sh
	BUILD=$(BUILD) CLSORT_TEST_LEVEL=1 CLSORT_TEST_LONG=1 CLSORT_TEST_PROGRAMS_ONLY=1 \
		sh tests/run_tests.sh

check-werror:
	$(MAKE) WERROR=1 all tests
