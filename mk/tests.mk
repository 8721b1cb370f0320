# mk/tests.mk - the test programs and `make test` (included by the top-level Makefile).

# ---- Tests ----
# Each tests/test_*.c is one program (TAP output); tests/run_tests.sh runs them all.
$(BUILD)/tests/%: tests/%.c $(wildcard tests/*.h) $(BUILD)/libclsort.a | $(BUILD)/tests
	$(CC) $(ALL_CFLAGS) $(HOST_INC) -Itests -o $@ $< $(BUILD)/libclsort.a $(LDLIBS)

# `make test` is the newcomer's check: every program at its quick level (CLSORT_TEST_LEVEL=0),
# sized so that PoCL's first compiles of every program fit in minutes on two cores; PoCL compiles
# on one core, so the test programs run two at a time there (the shell suites one at a time).
TEST_JOBS := $(shell n=$$(nproc 2>/dev/null || echo 1); [ "$$n" -ge 2 ] && echo 2 || echo 1)
# `make check-long` is the whole matrix at the default level (every type x value size x network
# x forced pass shape); .ci/run runs both. CLSORT_TEST_LEVEL in the environment overrides either.
test: all tests
	BUILD=$(BUILD) CLSORT_TEST_LEVEL=$${CLSORT_TEST_LEVEL:-0} \
		CLSORT_TEST_JOBS=$${CLSORT_TEST_JOBS:-$(TEST_JOBS)} CLSORT_TEST_SH_SERIAL=1 \
		sh tests/run_tests.sh

check-long: all tests
	BUILD=$(BUILD) CLSORT_TEST_LEVEL=$${CLSORT_TEST_LEVEL:-1} CLSORT_TEST_LONG=1 \
		sh tests/run_tests.sh

check-werror:
	$(MAKE) WERROR=1 all tests
