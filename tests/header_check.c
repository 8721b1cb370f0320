/* header_check.c - proves that clsort.h stands on its own and is strictly clean: tests/run_tests.sh
 * compiles this file alone with `cc -std=c11 -pedantic -Werror -Wall -Wextra -Iinclude -c` (and as
 * C++ when a C++ compiler is present). Not named test_*.c, so the Makefile's flags never apply. */
#include <clsort.h>
