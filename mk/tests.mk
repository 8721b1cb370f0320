# mk/tests.mk - the test programs and `make test` (included by the top-level Makefile).

# ---- Tests ----
# Each tests/test_*.c is one program (TAP output); tests/run_tests.sh runs them all.
$(BUILD)/tests/%: tests/%.c $(wildcard tests/*.h) $(BUILD)/libclsort.a | $(BUILD)/tests
	$(CC) $(ALL_CFLAGS) $(HOST_INC) -Itests -o $@ $< $(BUILD)/libclsort.a $(LDLIBS)

test: all tests
	BUILD=$(BUILD) sh tests/run_tests.sh

check-werror:
	$(MAKE) WERROR=1 all tests
