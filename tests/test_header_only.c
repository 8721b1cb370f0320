/* test_header_only.c - a program that includes nothing but clsort.h: the header must be complete
 * on its own (the strict -std=c11 -pedantic -Werror compile of the same kind is tests/header_check.c,
 * run by tests/run_tests.sh). Checks the header's compile-time contract and that the library linked
 * is the version the header describes. Prints TAP through puts, which C11 (7.1.4) allows declaring
 * without its header. */
#include <clsort.h>

int puts(const char *s);

_Static_assert(CLSORT_OK == 0, "CLSORT_OK is 0");
_Static_assert(CLSORT_VERSION_NUMBER ==
                   CLSORT_VERSION_MAJOR * 10000 + CLSORT_VERSION_MINOR * 100 + CLSORT_VERSION_PATCH,
               "version number matches its parts");
_Static_assert((CLSORT_DESCENDING & CLSORT_STABLE) == 0 &&
                   (CLSORT_DESCENDING & CLSORT_NO_HOST_FALLBACK) == 0 &&
                   (CLSORT_STABLE & CLSORT_NO_HOST_FALLBACK) == 0,
               "flags are distinct bits");
_Static_assert(CLSORT_U32 == 0 && CLSORT_F64 == 5 && CLSORT_AUTO == 0 &&
                   CLSORT_ODD_EVEN_TRANSPOSITION == 3 && CLSORT_RADIX == 4,
               "enumerations as documented");

/* The X-macro list yields the seven documented codes. */
#define CLSORT_COUNT_(name, value, msg) +1
enum { status_count = 0 CLSORT_STATUS_MAP(CLSORT_COUNT_) };
_Static_assert(status_count == 7, "seven status codes");

static int streq(const char *a, const char *b)
{
    if (!a || !b)
        return 0;
    while (*a && *a == *b)
        ++a, ++b;
    return *a == *b;
}

int main(void)
{
    int failed = 0;
    const int version_ok = clsort_version_number() == CLSORT_VERSION_NUMBER;
    const int string_ok = streq(clsort_version_string(), CLSORT_VERSION_STRING);
    puts(version_ok ? "ok 1 - clsort_version_number() matches the header"
                    : "not ok 1 - clsort_version_number() does not match the header");
    puts(string_ok ? "ok 2 - clsort_version_string() matches the header"
                   : "not ok 2 - clsort_version_string() does not match the header");
    failed += !version_ok + !string_ok;
    int names_ok = 1;
#define CLSORT_CHECK_NAME_(name, value, msg)                                                      \
    names_ok &= streq(clsort_status_name(value), #name) && streq(clsort_strerror(value), msg);
    CLSORT_STATUS_MAP(CLSORT_CHECK_NAME_)
    puts(names_ok ? "ok 3 - every status has its name and message"
                  : "not ok 3 - a status name or message differs from the header's list");
    failed += !names_ok;
    puts("1..3");
    return failed ? 1 : 0;
}
