#!/bin/sh
# test_pip.sh - the Python package as a new user installs it (TAP): in a fresh virtual
# environment, `pip install ./python` offline with nothing built beforehand compiles libclsort
# from this repository (python/backend/clsort_backend.py runs the Makefile) and carries it, and
# the README's first snippet works; `pip wheel ./python` holds the library and the shipped
# configs, with the library's version; CLSORT_LIBRARY still overrides the carried library; a
# machine without OpenCL platforms gets an exception that says so and what to install. NumPy is a
# declared dependency: the venv with system packages uses Debian's NumPy (offline); a venv
# without them gets NumPy from the index where the index can be reached (CLSORT_TEST_NETWORK=0
# never tries), and offline its install fails naming NumPy.
#
# Needs nothing from $BUILD (the package builds its own library). Environment: CLSORT_DEVICE
# (default cpu); PYTHON (default /usr/bin/python3, Debian's, which has numpy). Skipped when no
# python3 with numpy, venv and pip is found, and under the sanitizers (CLSORT_TEST_SAN).
BUILD=${BUILD:-build}
# The checks are about installed copies: a caller's PYTHONPATH or CLSORT_LIBRARY pointing at the
# source tree (as python/bench.py runs) would make them find the tree instead. The checks that
# test CLSORT_LIBRARY set it themselves.
unset PYTHONPATH CLSORT_LIBRARY
CLSORT_DEVICE=${CLSORT_DEVICE:-cpu}
export CLSORT_DEVICE
# pip runs the backend in place: no __pycache__ may appear in the source tree.
export PYTHONDONTWRITEBYTECODE=1
cd "$(dirname "$0")/.." || exit 2
n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }
check() { if eval "$2"; then ok "$1"; else notok "$1"; fi; }

if [ -n "$CLSORT_TEST_SAN" ]; then
    echo "1..0 # SKIP sanitizer build: the package builds its own uninstrumented library"
    exit 0
fi
python=""
for candidate in ${PYTHON:-/usr/bin/python3 python3}; do
    if "$candidate" -c "import numpy, venv, pip" >/dev/null 2>&1; then
        python=$candidate
        break
    fi
done
if [ -z "$python" ]; then
    echo "1..0 # SKIP no python3 with numpy, venv and pip (Debian: python3-numpy python3-venv python3-pip)"
    exit 0
fi
if ! command -v make >/dev/null 2>&1 || ! command -v cc >/dev/null 2>&1; then
    echo "1..0 # SKIP no make or cc: the package compiles libclsort (make deps)"
    exit 0
fi

tmp=$(mktemp -d /tmp/clsort-pip-test.XXXXXX) || exit 2
trap 'rm -rf "$tmp"' EXIT
# Offline: pip may not reach any index; its cache stays out of the way.
export PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1 PIP_FIND_LINKS=""
before=$(git status --porcelain --ignored python 2>/dev/null)
version=$(sed -n 's/^#define CLSORT_VERSION_STRING *"\(.*\)".*/\1/p' include/clsort.h)

# ---- 1. pip install ./python in a fresh venv, then import and sort ------------------------------
if "$python" -m venv --system-site-packages "$tmp/v" >"$tmp/venv.log" 2>&1; then
    ok "python3 -m venv --system-site-packages ($python)"
else
    notok "python3 -m venv --system-site-packages ($python)"
    sed 's/^/# /' "$tmp/venv.log"
fi
v=$tmp/v/bin/python
# A venv made with --system-site-packages from a python that is itself a venv sees the base
# interpreter's packages, not that venv's: where python3 is such a venv (/opt/torch/.venv, say)
# it can have no numpy, which the package imports and requires, and which pip cannot fetch
# offline. The package is then installed without its dependencies and the checks that import clsort are
# skipped, with the reason; they fail for real wherever the venv has numpy.
venv_numpy=$(cd "$tmp" && "$v" -c "import numpy" 2>&1 | tail -1)
nodeps=${venv_numpy:+--no-deps}
if "$tmp/v/bin/pip" install $nodeps ./python >"$tmp/pip.log" 2>&1; then
    ok "pip install ${nodeps:+$nodeps }./python (offline, nothing built beforehand)"
else
    notok "pip install ${nodeps:+$nodeps }./python (offline, nothing built beforehand)"
    tail -30 "$tmp/pip.log" | sed 's/^/# /'
fi
npcheck() {
    if [ -z "$venv_numpy" ]; then check "$1" "$2"
    else n=$((n + 1)); echo "ok $n # SKIP $1: the venv cannot import numpy ($venv_numpy)"; fi
}
npcheck "... the snippet: clsort.sort(a) == np.sort(a) for 10^6 float32" \
    '(cd "$tmp" && env -u CLSORT_LIBRARY "$v" -c "import clsort, numpy as np; a = np.random.rand(10**6).astype(np.float32); assert (clsort.sort(a) == np.sort(a)).all()")'
# pip took the NumPy it found (the base interpreter's) instead of fetching one into the venv.
npcheck "... uses the base interpreter's NumPy, none installed into the venv" \
    '[ -z "$(ls -d "$tmp"/v/lib/python3*/site-packages/numpy 2>/dev/null)" ]'
# Where pip put the package, found without importing it (which needs numpy).
site=$(cd "$tmp" && "$v" -c "import importlib.util as u; print(u.find_spec('clsort').submodule_search_locations[0])")
npcheck "... loads the library it carries (clsort/lib/libclsort.so.0)" \
    '[ "$(cd "$tmp" && env -u CLSORT_LIBRARY "$v" -c "import clsort; print(clsort.library_path())")" = "$site/lib/libclsort.so.0" ]'
npcheck "... clsort.__version__ is the library's ($version), and the installed distribution's" \
    '[ "$(cd "$tmp" && env -u CLSORT_LIBRARY "$v" -c "import clsort, importlib.metadata as m; print(clsort.__version__, m.version(\"clsort\"))")" = "$version $version" ]'
# host/planning/config.c looks for PREFIX/share/clsort/devices beside PREFIX/lib/libclsort.so.N.
check "... carries the shipped configs where the library looks (clsort/share/clsort/devices)" \
    '[ -n "$site" ] && [ "$(ls "$site/share/clsort/devices")" = "$(ls configs | grep "\.ini$")" ]'
npcheck "... CLSORT_LIBRARY overrides the carried library" \
    '(cd "$tmp" && CLSORT_LIBRARY=/nonexistent/libclsort.so.0 "$v" -c "import clsort; clsort.library_path()" 2>&1 | grep -q "/nonexistent/libclsort.so.0 (CLSORT_LIBRARY)")'
# ocl-icd's loader reads its vendors from OCL_ICD_VENDORS: an empty directory means no platform.
mkdir -p "$tmp/novendors"
OCL_ICD_VENDORS=$tmp/novendors "$v" -c "import clsort; clsort.Context()" >"$tmp/nodev.log" 2>&1
npcheck "... no OpenCL platform: the exception says so and what to install" \
    'grep -q "no OpenCL platform" "$tmp/nodev.log" && grep -q "ICD loader" "$tmp/nodev.log" && grep -q "PoCL" "$tmp/nodev.log"' ||
    sed 's/^/# /' "$tmp/nodev.log"

# ---- 2. pip wheel: what the wheel holds ---------------------------------------------------------
if "$python" -m pip wheel --no-deps -w "$tmp/wheels" ./python >"$tmp/wheel.log" 2>&1; then
    ok "pip wheel ./python"
else
    notok "pip wheel ./python"
    tail -30 "$tmp/wheel.log" | sed 's/^/# /'
fi
whl=$(ls "$tmp"/wheels/clsort-"$version"-*.whl 2>/dev/null | head -1)
check "... named for this platform and the library's version ($version)" '[ -n "$whl" ] && ! echo "$whl" | grep -q -- "-any.whl"'
check "... holds the modules, libclsort.so.0 and the configs" \
    '"$python" -c "
import sys, zipfile
names = set(zipfile.ZipFile(sys.argv[1]).namelist())
need = {\"clsort/__init__.py\", \"clsort/api.py\", \"clsort/lib/libclsort.so.0\"}
need |= {\"clsort/%s.py\" % m for m in (\"_lib\", \"_keytypes\", \"_args\", \"_hostarrays\", \"_opencl\")}
assert need <= names, need - names
assert any(n.startswith(\"clsort/share/clsort/devices/\") and n.endswith(\".ini\") for n in names)
" "$whl"'

check "... declares NumPy as a dependency (Requires-Dist)" \
    '"$python" -c "
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
meta = z.read(next(n for n in z.namelist() if n.endswith(\".dist-info/METADATA\"))).decode()
assert any(l.startswith(\"Requires-Dist: numpy\") and \"extra\" not in l for l in meta.splitlines()), meta
" "$whl"'

# ---- 3. A venv without system packages: NumPy comes from the index --------------------------
"$python" -m venv "$tmp/bare" >"$tmp/bare-venv.log" 2>&1
b=$tmp/bare/bin/python
if [ "${CLSORT_TEST_NETWORK:-1}" != 0 ] &&
    env -u PIP_NO_INDEX timeout 60 "$b" -m pip index versions numpy >"$tmp/probe.log" 2>&1; then
    env -u PIP_NO_INDEX "$tmp/bare/bin/pip" install ./python >"$tmp/bare.log" 2>&1
    check "venv without system packages: pip install ./python fetches NumPy, and the import works" \
        '(cd "$tmp" && "$b" -c "import clsort, numpy as np, sys; assert np.__file__.startswith(sys.prefix), np.__file__; a = np.random.rand(1000); assert (clsort.sort(a) == np.sort(a)).all()")' ||
        tail -20 "$tmp/bare.log" | sed 's/^/# /'
else
    n=$((n + 1))
    echo "ok $n # SKIP venv without system packages, online: the package index cannot be reached (or CLSORT_TEST_NETWORK=0)"
fi
# Offline the same install must fail, naming NumPy: the dependency is declared, not assumed.
"$tmp/bare/bin/pip" uninstall -y clsort numpy >/dev/null 2>&1
"$tmp/bare/bin/pip" install ./python >"$tmp/bare-offline.log" 2>&1 && bare_rc=0 || bare_rc=$?
check "venv without system packages, offline: pip install ./python fails naming numpy" \
    '[ "$bare_rc" != 0 ] && grep -qi "numpy" "$tmp/bare-offline.log"' ||
    tail -10 "$tmp/bare-offline.log" | sed 's/^/# /'

# ---- 4. Where the sources cannot be found ------------------------------------------------------
cp -r python "$tmp/lonely"
rm -rf "$tmp/lonely/tests"
CLSORT_SOURCE_DIR="" "$python" -m pip wheel --no-deps -w "$tmp/w2" "$tmp/lonely" >"$tmp/lonely.log" 2>&1
check "python/ copied out of the checkout: a clear error" 'grep -q "cannot find the library.s sources" "$tmp/lonely.log"' ||
    tail -10 "$tmp/lonely.log" | sed 's/^/# /'
CLSORT_BUILD_LIBRARY=0 "$python" -m pip wheel --no-deps -w "$tmp/w3" ./python >"$tmp/pure.log" 2>&1
check "CLSORT_BUILD_LIBRARY=0: a pure-Python wheel (for packagers of the library)" '[ -n "$(ls "$tmp"/w3/clsort-*-py3-none-any.whl 2>/dev/null)" ]' ||
    tail -10 "$tmp/pure.log" | sed 's/^/# /'
# An sdist carries the library's sources (csrc/): a wheel built from it, far from the checkout,
# carries the library too.
mkdir -p "$tmp/sdist"
sdist=$(cd python && "$python" -c "import sys; sys.path.insert(0, 'backend'); import clsort_backend as b; print(b.build_sdist(sys.argv[1]))" "$tmp/sdist" 2>"$tmp/sdist.log")
(cd "$tmp/sdist" && tar xzf "$sdist" 2>>"$tmp/sdist.log" &&
    "$python" -m pip wheel --no-deps -w "$tmp/sdist/w" "./${sdist%.tar.gz}" >>"$tmp/sdist.log" 2>&1)
check "an sdist carries the sources: its wheel holds libclsort" \
    '[ -n "$sdist" ] && "$python" -c "
import sys, zipfile
assert \"clsort/lib/libclsort.so.0\" in zipfile.ZipFile(sys.argv[1]).namelist()
" "$(ls "$tmp"/sdist/w/clsort-*.whl 2>/dev/null | head -1)"' || tail -10 "$tmp/sdist.log" | sed 's/^/# /'
check "the source tree is left as it was" '[ "$(git status --porcelain --ignored python 2>/dev/null)" = "$before" ]'

echo "1..$n"
[ "$fails" = 0 ]
