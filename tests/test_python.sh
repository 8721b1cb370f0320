#!/bin/sh
# test_python.sh - the Python package's pytest suite (python/tests) against $BUILD/libclsort.so,
# as one TAP point, and a second: where the library has every key type and CLSORT_NAN_LARGEST,
# no test skipped for lack of them. Skips (TAP "# SKIP") when no Python with numpy and pytest is
# found (Debian: python3-numpy python3-pytest; python3-pyopencl for the device-array tests).
#
# Environment: BUILD (default build); CLSORT_DEVICE (default cpu); PYTHON (default python3, then
# /usr/bin/python3 when the first lacks numpy or pytest, as with a pyenv shim ahead of Debian's).

BUILD=${BUILD:-build}
CLSORT_DEVICE=${CLSORT_DEVICE:-cpu}
cd "$(dirname "$0")/.." || exit 2

has_deps() {
    command -v "$1" >/dev/null 2>&1 && "$1" -c "import numpy, pytest" >/dev/null 2>&1
}

# Under make check-sanitize the library is built with ASan: such a libclsort.so cannot be loaded
# into an uninstrumented python ("ASan runtime does not come first"), so the Python suite runs in
# make test only.
if [ -n "$CLSORT_TEST_SAN" ]; then
    echo "ok 1 # SKIP sanitizer build (CLSORT_TEST_SAN): an ASan libclsort.so cannot be loaded into python"
    echo "1..1"
    exit 0
fi

python=""
for candidate in ${PYTHON:-python3 /usr/bin/python3}; do
    if has_deps "$candidate"; then
        python=$candidate
        break
    fi
done
if [ -z "$python" ]; then
    echo "ok 1 # SKIP no python3 with numpy and pytest (Debian: python3-numpy python3-pytest)"
    echo "1..1"
    exit 0
fi
if [ ! -f "$BUILD/libclsort.so" ]; then
    echo "not ok 1 - pytest python/tests: $BUILD/libclsort.so is missing (make BUILD=$BUILD lib)"
    echo "1..1"
    exit 1
fi

# -rs prints why anything was skipped (no pyopencl, no segmented sort in the library);
# -p no:cacheprovider keeps the source tree free of .pytest_cache. The output becomes TAP comments.
output=$(CLSORT_LIBRARY=$(pwd)/$BUILD/libclsort.so CLSORT_DEVICE=$CLSORT_DEVICE \
    "$python" -B -m pytest -q -rs -p no:cacheprovider python/tests 2>&1)
rc=$?
printf '%s\n' "$output" | sed 's/^/# /'
if [ "$rc" = 0 ]; then
    echo "ok 1 - pytest python/tests ($python)"
else
    echo "not ok 1 - pytest python/tests ($python): exit status $rc"
fi

# The tests of the newer key types and of NumPy's order skip where the library lacks them; where
# it has them, none may skip for that reason (a detection gone wrong would hide them).
has=$(cd python && CLSORT_LIBRARY=$(pwd)/../$BUILD/libclsort.so CLSORT_DEVICE=$CLSORT_DEVICE \
    "$python" -B -c "
import clsort
from clsort import _keytypes as k
print(int(all(k.library_has(r[1]) for r in k.TABLE)
          and k.nan_largest_available(clsort.default_context())))" 2>&1)
if [ "$has" = 1 ]; then
    if printf '%s\n' "$output" | grep -q "has no key type\|has no CLSORT_NAN_LARGEST"; then
        rc=1
        echo "not ok 2 - the library has every key type and CLSORT_NAN_LARGEST, yet tests skipped"
    else
        echo "ok 2 - the tests of every key type and of NumPy's order ran"
    fi
else
    echo "ok 2 # SKIP the library lacks a key type or CLSORT_NAN_LARGEST ($has)"
fi
echo "1..2"
[ "$rc" = 0 ]
