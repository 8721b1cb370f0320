#!/bin/sh
# test_install.sh - `make install` as a user and a packager meet it (TAP): installs into temporary
# prefixes (plain, multiarch LIBDIR, DESTDIR staging), checks the files and links, builds the
# README's C example exactly as the README says (pkg-config), a static link through
# `pkg-config --static`, a CMake project with find_package(clsort), installs the Python package
# with pip; checks that the installed library and tools and a copy of the build tree find their
# shipped configs, and that `make uninstall` leaves nothing behind. Needs the tree built (make).
#
# Environment: BUILD (default build); CLSORT_DEVICE (default cpu). Skipped under the sanitizers
# (CLSORT_TEST_SAN): an instrumented library does not link into plain programs.
BUILD=${BUILD:-build}
# The checks are about installed copies: a caller's PYTHONPATH or CLSORT_LIBRARY pointing at the
# source tree (as python/bench.py runs) would make them find the tree instead (as they did under
# check-gpu). The checks that test CLSORT_LIBRARY set it themselves.
unset PYTHONPATH CLSORT_LIBRARY
CLSORT_DEVICE=${CLSORT_DEVICE:-cpu}
export CLSORT_DEVICE
cd "$(dirname "$0")/.." || exit 2
root=$(pwd -P)
n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }
check() { if eval "$2"; then ok "$1"; else notok "$1"; fi; }
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }

if [ -n "$CLSORT_TEST_SAN" ]; then
    echo "1..0 # SKIP sanitizer build: the install test needs an uninstrumented library"
    exit 0
fi
if [ ! -f "$BUILD/libclsort.a" ] || [ ! -x "$BUILD/clsort" ]; then
    echo "1..0 # SKIP $BUILD is not built (make)"
    exit 0
fi
for tool in pkg-config cc; do
    if ! command -v $tool >/dev/null 2>&1; then
        echo "1..0 # SKIP no $tool (make deps-dev)"
        exit 0
    fi
done

# -P: the runtime reports real paths, so the expected ones must be real too.
tmp=$(cd "$(mktemp -d /tmp/clsort-install-test.XXXXXX)" && pwd -P) || exit 2
trap 'rm -rf "$tmp"' EXIT
# No user config may hide the shipped ones; the program cache stays where it is (speed).
export CLSORT_CONFIG_DIR="$tmp/userconf"
# LDCONFIG=true: a test must not rewrite the system's loader cache.
mk() { make --no-print-directory BUILD="$BUILD" LDCONFIG=true "$@" >>"$tmp/make.log" 2>&1; }
fail_log() { tail -20 "$tmp/make.log" | sed 's/^/# /'; }

major=$(sed -n 's/^#define CLSORT_VERSION_MAJOR *\([0-9]*\).*/\1/p' include/clsort.h)
minor=$(sed -n 's/^#define CLSORT_VERSION_MINOR *\([0-9]*\).*/\1/p' include/clsort.h)
patch=$(sed -n 's/^#define CLSORT_VERSION_PATCH *\([0-9]*\).*/\1/p' include/clsort.h)
real=libclsort.so.$major.$minor.$patch

# Files and links of an install: prefix libdir.
check_files() {
    p=$1
    lib=$2
    check "$p: $lib/$real is a file" '[ -f "$lib/$real" ] && [ ! -L "$lib/$real" ]'
    check "$p: $lib/libclsort.so.$major -> $real" '[ "$(readlink "$lib/libclsort.so.$major")" = "$real" ]'
    check "$p: $lib/libclsort.so -> libclsort.so.$major" \
        '[ "$(readlink "$lib/libclsort.so")" = "libclsort.so.$major" ]'
    if command -v readelf >/dev/null 2>&1; then
        check "$p: the soname is libclsort.so.$major" \
            'readelf -d "$lib/$real" | grep -q "SONAME.*\[libclsort.so.$major\]"'
    fi
    check "$p: libclsort.a, clsort.h, clsort.pc, the CMake package" \
        '[ -f "$lib/libclsort.a" ] && [ -f "$p/include/clsort.h" ] && [ -f "$lib/pkgconfig/clsort.pc" ] &&
         [ -f "$lib/cmake/clsort/clsortConfig.cmake" ] && [ -f "$lib/cmake/clsort/clsortConfigVersion.cmake" ]'
    check "$p: the tools, man pages and every shipped config" \
        '[ -x "$p/bin/clsort" ] && [ -f "$p/share/man/man1/clsort.1" ] &&
         [ "$(ls "$p/share/clsort/devices" | wc -l)" = "$(ls configs/*.ini | wc -l)" ]'
}

# Nothing left under $1: no file, no link, and no directory that install created (all of them
# here, $1 itself too when install created it: $2 = gone). A staged install (DESTDIR) leaves its
# directories to the package: no file and no directory of clsort's own stay there.
check_empty() {
    top=$1
    if [ "${2:-}" = gone ]; then
        check "$top: uninstall removes every directory install created, the prefix too" '[ ! -e "$top" ]'
        return
    fi
    check "$top: uninstall leaves no file or link" '[ -d "$top" ] && [ -z "$(find "$top" ! -type d)" ]'
    check "$top: uninstall removes the directories of clsort alone" \
        '[ -z "$(find "$top" -type d \( -name clsort -o -path "*/cmake/clsort" \))" ]'
}

# ---- 1. A plain install under a temporary PREFIX --------------------------------------------
p=$tmp/p
# A private prefix is no business of the loader's cache: the LDCONFIG given must not run.
printf '#!/bin/sh\n: >"%s/ldconfig-ran"\n' "$tmp" >"$tmp/fake-ldconfig"
chmod +x "$tmp/fake-ldconfig"
make --no-print-directory BUILD="$BUILD" LDCONFIG="$tmp/fake-ldconfig" install PREFIX="$p" \
    >>"$tmp/make.log" 2>&1 || fail_log
check "make install PREFIX=$p" '[ -d "$p/lib" ]'
check "make install into a private prefix does not run ldconfig" '[ ! -e "$tmp/ldconfig-ran" ]'
check_files "$p" "$p/lib"
ver=$major.$minor.$patch
for page in clsort clsort-mpi clsort-bench clsort-tune; do
    check "$page.1 installed and built say clsort $ver (include/clsort.h)" \
        'grep -q "^\.TH .*\"clsort $ver\"" "$p/share/man/man1/$page.1" &&
         grep -q "^\.TH .*\"clsort $ver\"" "$BUILD/man/$page.1" && ! grep -q "@[A-Z]*@" "$p/share/man/man1/$page.1"'
done
check "clsort.pc names the prefix and the version" \
    'grep -qx "prefix=$p" "$p/lib/pkgconfig/clsort.pc" &&
     grep -qx "Version: $major.$minor.$patch" "$p/lib/pkgconfig/clsort.pc"'
export PKG_CONFIG_PATH="$p/lib/pkgconfig"
check "pkg-config --static lists what a static link needs" \
    'libs=$(pkg-config --static --libs clsort) && for l in -lclsort -lOpenCL -lpthread -lm -linih; do
         case " $libs " in *" $l "*) ;; *) false ;; esac || exit 1; done'

# ---- 2. The README's example, built exactly as the README says -------------------------------
mkdir -p "$tmp/ex"
awk '/^## Using the library/ { on = 1 } on && /^```c$/ { code = 1; next } code && /^```$/ { exit }
     code { print }' README.md >"$tmp/ex/example.c"
line=$(awk '/^## Using the library/ { on = 1 } on && /^```sh$/ { sh = 1; next } sh && /^```$/ { exit }
            sh && /^cc / { print; exit }' README.md)
check "README: a C example and a cc line with pkg-config" \
    '[ -s "$tmp/ex/example.c" ] && case "$line" in *"pkg-config"*clsort*) true ;; *) false ;; esac'
echo "# $line"
(cd "$tmp/ex" && eval "$line") >"$tmp/ex/cc.log" 2>&1
check "README example builds with: $line" '[ -x "$tmp/ex/example" ]' || sed 's/^/# /' "$tmp/ex/cc.log"
LD_LIBRARY_PATH="$p/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$tmp/ex/example" >"$tmp/ex/run.log" 2>&1
check "README example runs against $p/lib" '[ $? = 0 ]' || sed 's/^/# /' "$tmp/ex/run.log"
check "README example prints its sorted array" '[ "$(cat "$tmp/ex/run.log")" = "3.5 2.25 0 -0 -1" ]'
if command -v ldd >/dev/null 2>&1; then
    check "... and loads $p/lib/libclsort.so.$major" \
        'LD_LIBRARY_PATH="$p/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ldd "$tmp/ex/example" | grep -q "libclsort.so.$major => $p/lib/"'
fi

# ---- 3. A static link through pkg-config --static ----------------------------------------------
# A directory with only the archive, first on the path, so that -lclsort takes libclsort.a and
# the rest of the line must supply everything the archive needs.
mkdir -p "$tmp/static"
ln -s "$p/lib/libclsort.a" "$tmp/static/libclsort.a"
cc -o "$tmp/ex/example_static" "$tmp/ex/example.c" $(pkg-config --cflags clsort) -L"$tmp/static" \
    $(pkg-config --static --libs clsort) >"$tmp/ex/static.log" 2>&1
check "static link: cc example.c -L<only libclsort.a> \$(pkg-config --static --libs clsort)" \
    '[ -x "$tmp/ex/example_static" ]' || sed 's/^/# /' "$tmp/ex/static.log"
if command -v readelf >/dev/null 2>&1; then
    check "... does not need libclsort.so" '! readelf -d "$tmp/ex/example_static" | grep -q libclsort'
fi
check "... and runs" '"$tmp/ex/example_static" >/dev/null 2>&1'

# ---- 4. The shipped configs are found from the installed library and tools ---------------------
# A probe through the shared library: the device's config file name (clsort_config_path's last
# part) and the config in use.
cat >"$tmp/ex/probe.c" <<'EOF'
#include <clsort.h>
#include <stdio.h>
#include <string.h>
int main(void)
{
    clsort_ctx *ctx;
    clsort_device_info info;
    char path[4096];
    if (clsort_create(&ctx, NULL) != CLSORT_OK)
        return 1;
    if (clsort_config_path(ctx, path, sizeof path) != CLSORT_OK ||
        clsort_get_device_info(ctx, &info) != CLSORT_OK)
        return 1;
    printf("%s\n%s\n", strrchr(path, '/') + 1, info.config_source);
    clsort_destroy(ctx);
    return 0;
}
EOF
cc -o "$tmp/ex/probe" "$tmp/ex/probe.c" $(pkg-config --cflags --libs clsort) 2>"$tmp/ex/probe.log"
file=$(LD_LIBRARY_PATH="$p/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$tmp/ex/probe" | head -1)
check "probe: the device's config file name ($file)" '[ -n "$file" ]'
# This machine's device may have a shipped config; else a valid one is added for the test.
added=""
if [ -n "$file" ] && [ ! -f "configs/$file" ]; then
    added=$file
    printf '[bitonic.32.keys]\nwg_size = 32\nvec_step = 2\ntile = 1024\nkeys_per_item = 4\n' \
        >"$tmp/test-config.ini"
else
    cp "configs/$file" "$tmp/test-config.ini" 2>/dev/null
fi
[ -z "$added" ] || cp "$tmp/test-config.ini" "$p/share/clsort/devices/$added"
want=$p/share/clsort/devices/$file
check "the installed libclsort.so finds $want" \
    '[ "$(LD_LIBRARY_PATH="$p/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$tmp/ex/probe" | sed -n 2p)" = "$want" ]'
check "the installed clsort (static) finds it: --list-devices" \
    '"$p/bin/clsort" --list-devices 2>&1 | grep -qF "config $want"'
check "the statically linked README example shares the lookup (probe, static)" \
    'cc -o "$tmp/ex/probe_static" "$tmp/ex/probe.c" $(pkg-config --cflags clsort) -L"$tmp/static" \
        $(pkg-config --static --libs clsort) && mkdir -p "$p/bin" && cp "$tmp/ex/probe_static" "$p/bin/" &&
     [ "$("$p/bin/probe_static" | sed -n 2p)" = "$want" ]'
rm -f "$p/bin/probe_static"
[ -z "$added" ] || rm -f "$p/share/clsort/devices/$added"

# A copy of the build tree: build/clsort finds the tree's configs/.
mkdir -p "$tmp/tree/build" "$tmp/tree/configs"
cp "$BUILD/clsort" "$tmp/tree/build/"
check "a build tree without configs/$file does not use the tree (control)" \
    '! "$tmp/tree/build/clsort" --list-devices 2>&1 | grep -qF "config $tmp/tree/"'
cp "$tmp/test-config.ini" "$tmp/tree/configs/$file"
check "a build tree's build/clsort finds configs/$file" \
    '"$tmp/tree/build/clsort" --list-devices 2>&1 | grep -qF "config $tmp/tree/configs/$file"'
check "CLSORT_CONFIG_DIR still comes first" \
    'mkdir -p "$CLSORT_CONFIG_DIR" && cp "$tmp/test-config.ini" "$CLSORT_CONFIG_DIR/$file" &&
     "$tmp/tree/build/clsort" --list-devices 2>&1 | grep -qF "config $CLSORT_CONFIG_DIR/$file"'
rm -rf "$CLSORT_CONFIG_DIR"

# ---- 5. CMake: find_package(clsort) and clsort::clsort ----------------------------------------
if command -v cmake >/dev/null 2>&1; then
    mkdir -p "$tmp/cm"
    cp "$tmp/ex/example.c" "$tmp/cm/"
    cat >"$tmp/cm/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.10)
project(clsort_consumer C)
find_package(clsort 0.1 REQUIRED)
add_executable(x example.c)
target_link_libraries(x clsort::clsort)
add_executable(x_static example.c)
target_link_libraries(x_static clsort::clsort_static)
EOF
    (cmake -S "$tmp/cm" -B "$tmp/cm/b" -DCMAKE_PREFIX_PATH="$p" && cmake --build "$tmp/cm/b") \
        >"$tmp/cm/log" 2>&1
    check "CMake: find_package(clsort) + target_link_libraries(x clsort::clsort) builds" \
        '[ -x "$tmp/cm/b/x" ] && [ -x "$tmp/cm/b/x_static" ]' || tail -20 "$tmp/cm/log" | sed 's/^/# /'
    check "... x runs (RPATH from the imported target) and x_static too" \
        '"$tmp/cm/b/x" >/dev/null 2>&1 && "$tmp/cm/b/x_static" >/dev/null 2>&1'
    check "... and a newer major version is refused" \
        'sed -i "s/find_package(clsort 0.1 REQUIRED)/find_package(clsort 99 REQUIRED)/" "$tmp/cm/CMakeLists.txt" &&
         ! cmake -S "$tmp/cm" -B "$tmp/cm/b2" -DCMAKE_PREFIX_PATH="$p" >/dev/null 2>&1'
else
    skip "no cmake (make deps-dev)"
fi

# ---- 6. The Python package: pip install offline, finding the installed library -----------------
python=""
for candidate in ${PYTHON:-python3 /usr/bin/python3}; do
    if "$candidate" -c "import numpy, pip" >/dev/null 2>&1; then
        python=$candidate
        break
    fi
done
if [ -n "$python" ]; then
    # --no-index: no network at all; the package has no build requirements (python/pyproject.toml).
    # CLSORT_BUILD_LIBRARY=0: the package without its own libclsort, as a distribution that
    # packages the library builds it (tests/test_pip.sh covers the package that carries one).
    CLSORT_BUILD_LIBRARY=0 PIP_FIND_LINKS="" "$python" -m pip install -q --no-index --no-deps \
        --disable-pip-version-check --no-cache-dir --target "$tmp/py" ./python >"$tmp/pip.log" 2>&1
    check "pip install --no-index --target ... ./python ($python)" '[ -f "$tmp/py/clsort/_lib.py" ]' ||
        tail -20 "$tmp/pip.log" | sed 's/^/# /'
    check "... no build output left in python/" '[ -z "$(ls -d python/build python/*.egg-info 2>/dev/null)" ]'
    check "... finds the installed library through the loader's path" \
        '[ "$(cd "$tmp" && LD_LIBRARY_PATH="$p/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" PYTHONPATH="$tmp/py" "$python" -c "import clsort; print(clsort.library_path())")" = libclsort.so.$major ] ||
         [ "$(cd "$tmp" && LD_LIBRARY_PATH="$p/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" PYTHONPATH="$tmp/py" "$python" -c "import clsort; print(clsort.library_path())")" = "$p/lib/libclsort.so.$major" ]'
    check "... CLSORT_LIBRARY overrides, and sorts" \
        '[ "$(cd "$tmp" && CLSORT_LIBRARY="$p/lib/libclsort.so.$major" PYTHONPATH="$tmp/py" "$python" -c "
import numpy as np, clsort
a = clsort.sort(np.array([3, 1, 2], dtype=np.uint32))
print(clsort.library_path(), a.tolist())")" = "$p/lib/libclsort.so.$major [1, 2, 3]" ]'
    # README's Python example as written, on this machine's device (a GPU or not).
    awk '/^## Using it from Python/ { on = 1 } on && /^```python$/ { code = 1; next }
         code && /^```$/ { exit } code { print }' README.md >"$tmp/readme_example.py"
    check "README's Python example runs on this machine ($CLSORT_DEVICE)" \
        '(cd "$tmp" && CLSORT_LIBRARY="$p/lib/libclsort.so.$major" PYTHONPATH="$tmp/py" \
             "$python" readme_example.py) >"$tmp/readme_py.log" 2>&1' || sed 's/^/# /' "$tmp/readme_py.log" | tail -5
else
    skip "no python3 with numpy and pip (make deps-dev)"
fi

# ---- 7. uninstall ------------------------------------------------------------------------------
mk uninstall PREFIX="$p" || fail_log
check_empty "$p" gone

# ---- 8. A multiarch LIBDIR ---------------------------------------------------------------------
m=$tmp/m
triplet=$(cc -print-multiarch 2>/dev/null)
mlib=$m/lib/${triplet:-x86_64-linux-gnu}
mk install PREFIX="$m" LIBDIR="$mlib" || fail_log
check_files "$m" "$mlib"
check "multiarch: clsort.pc names libdir=$mlib" 'grep -qx "libdir=$mlib" "$mlib/pkgconfig/clsort.pc"'
cp "$tmp/test-config.ini" "$m/share/clsort/devices/$file.test" 2>/dev/null
[ -z "$added" ] || mv "$m/share/clsort/devices/$file.test" "$m/share/clsort/devices/$added"
rm -f "$m/share/clsort/devices/$file.test"
check "multiarch: the library in $mlib finds $m/share/clsort/devices/$file" \
    '[ "$(LD_LIBRARY_PATH="$mlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$tmp/ex/probe" | sed -n 2p)" = "$m/share/clsort/devices/$file" ]'
[ -z "$added" ] || rm -f "$m/share/clsort/devices/$added"
mk uninstall PREFIX="$m" LIBDIR="$mlib" || fail_log
check_empty "$m" gone
# A directory that was there before install stays, even empty (a fresh /usr/local/bin).
mkdir -p "$m/bin"
mk install PREFIX="$m" && mk uninstall PREFIX="$m" || fail_log
check "uninstall keeps an empty directory that was there before install" \
    '[ -d "$m/bin" ] && [ -z "$(find "$m" -mindepth 1 ! -path "$m/bin")" ]'
rm -rf "$m"

# ---- 9. DESTDIR staging, as a package build does it -------------------------------------------
d=$tmp/d
mk install DESTDIR="$d" PREFIX=/usr || fail_log
check "DESTDIR: files land under DESTDIR/usr" '[ -f "$d/usr/lib/$real" ] && [ -x "$d/usr/bin/clsort" ]'
check "DESTDIR: clsort.pc and the CMake package name /usr, not DESTDIR" \
    'grep -qx "prefix=/usr" "$d/usr/lib/pkgconfig/clsort.pc" && ! grep -q "$d" "$d/usr/lib/pkgconfig/clsort.pc" &&
     ! grep -q "$d" "$d/usr/lib/cmake/clsort/clsortConfig.cmake"'
mk uninstall DESTDIR="$d" PREFIX=/usr || fail_log
check_empty "$d"

echo "1..$n"
[ "$fails" = 0 ]
