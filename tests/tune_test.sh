#!/bin/sh
# tune_test.sh - a `clsort-tune --quick` on the CPU device (PoCL) into a temporary CLSORT_CONFIG_DIR,
# then checks that the runtime uses the config it wrote: `clsort --list-devices` shows its path,
# a sort with it is correct, and no warning is given. TAP output; the user's home is never touched.
BUILD=${BUILD:-build}
cd "$(dirname "$0")/.." || exit 2
n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }
check() { if eval "$2"; then ok "$1"; else notok "$1"; fi; }

if [ ! -x "$BUILD/clsort-tune" ]; then
    echo "1..0 # SKIP $BUILD/clsort-tune not built"
    exit 0
fi
tmp=$(mktemp -d /tmp/clsort-tune-test.XXXXXX) || exit 2
trap 'rm -rf "$tmp"' EXIT
export CLSORT_CONFIG_DIR="$tmp/conf" CLSORT_CACHE_DIR="$tmp/cache" HOME="$tmp/home"
unset XDG_CONFIG_HOME XDG_CACHE_HOME
dev=${CLSORT_DEVICE:-cpu}

start=$(date +%s)
"$BUILD/clsort-tune" -d "$dev" --quick >"$tmp/out.txt" 2>"$tmp/err.txt"
rc=$?
secs=$(($(date +%s) - start))
sed 's/^/# /' "$tmp/out.txt"
check "clsort-tune --quick exits 0 (took $secs s)" '[ $rc = 0 ]'
# On a failure, what the tuner said (under the sanitizers, the report that set the exit code).
if [ $rc != 0 ]; then
    echo "# exit status $rc; the end of its standard error:"
    tail -60 "$tmp/err.txt" | sed 's/^/# /'
fi
check "--quick finishes in under 2 minutes" '[ $secs -lt 120 ]'
conf=$(ls "$CLSORT_CONFIG_DIR"/*.ini 2>/dev/null | head -1)
check "a config was written into CLSORT_CONFIG_DIR" '[ -n "$conf" ] && [ -s "$conf" ]'
check "the summary names the config" 'grep -q "config written to $conf" "$tmp/out.txt"'
check "the config has tuned sections" 'grep -q "^\[bitonic\.32\.keys\]" "$conf"'
check "the config has an [auto] section with host_fallback_max" \
    'grep -q "^\[auto\]" "$conf" && grep -q "^host_fallback_max = [0-9]" "$conf"'
check "no temporary file left" '[ -z "$(ls "$CLSORT_CONFIG_DIR" | grep tmp)" ]'

if [ -x "$BUILD/clsort" ]; then
    "$BUILD/clsort" --list-devices >"$tmp/list.txt" 2>&1
    check "clsort --list-devices shows the tuned config in use" 'grep -qF "$conf" "$tmp/list.txt"'
fi

# A tiny C check through the public API: the context reports the config, warns about nothing,
# and sorts correctly with it.
cat >"$tmp/check.c" <<'CEOF'
#include <clsort.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
    clsort_ctx *ctx;
    if (clsort_create(&ctx, argv[1]) != CLSORT_OK) return 2;
    clsort_device_info i;
    clsort_get_device_info(ctx, &i);
    printf("source %s\n", i.config_source);
    printf("warnings [%s]\n", clsort_warnings(ctx));
    int bad = strcmp(i.config_source, argv[2]) != 0 || *clsort_warnings(ctx) != 0;
    const size_t n = (size_t)1 << 15;
    unsigned *k = malloc(n * sizeof *k);
    unsigned long long sum = 0, sum2 = 0;
    for (size_t j = 0; j < n; ++j) { k[j] = (unsigned)(j * 2654435761u) ^ (unsigned)(j >> 3); sum += k[j]; }
    for (int a = 0; a < 4; ++a) {
        for (size_t j = 0; j < n; ++j) k[j] = (unsigned)(j * 2654435761u) ^ (unsigned)(j >> 3);
        if (clsort_sort(ctx, k, n, CLSORT_U32, (clsort_algorithm)a, 0) != CLSORT_OK) bad = 1;
        sum2 = 0;
        for (size_t j = 0; j < n; ++j) { sum2 += k[j]; if (j && k[j - 1] > k[j]) bad = 1; }
        if (sum2 != sum) bad = 1;
    }
    printf("%s\n", bad ? "bad" : "good");
    free(k);
    clsort_destroy(ctx);
    return bad;
}
CEOF
# CLSORT_TEST_SAN: the sanitizer flags the library was built with (make check-sanitize).
# A library built with Highway's host sort needs its libraries too (mk/config.mk, HWY_LIBS).
HWY=""; if ar t "$BUILD/libclsort.a" 2>/dev/null | grep -q hostsort_hwy; then HWY="-lhwy_contrib -lhwy -lstdc++"; fi
${CC:-cc} -std=c11 $CLSORT_TEST_SAN -Iinclude -o "$tmp/check" "$tmp/check.c" "$BUILD/libclsort.a" \
    -lOpenCL -lpthread -lm -linih $HWY \
    >"$tmp/cc.txt" 2>&1
[ -x "$tmp/check" ] || sed 's/^/# cc: /' "$tmp/cc.txt" | head -5
check "the check program builds" '[ -x "$tmp/check" ]'
"$tmp/check" "$dev" "$conf" >"$tmp/check.txt" 2>&1
crc=$?
sed 's/^/# /' "$tmp/check.txt"
check "the runtime uses the tuned config, without warnings, and sorts correctly" '[ $crc = 0 ]'
echo "1..$n"
[ $fails = 0 ]
