#!/bin/sh
# check_gpu.sh - the whole suite on the first GPU (`make check-gpu`; docs/testing.md). Not part of
# `make test` (run_tests.sh skips it): without a GPU it says so and exits 2.
#
# 1. Builds (make all tests). If .gpu-debs/ holds Debian's libinih packages and the system has no
#    ini.h (the GPU machine's image, docs/gpu.md), unpacks them into /tmp/inih and points the
#    compiler, linker and loader there.
# 2. If no GPU is visible to OpenCL but NVIDIA's driver (libnvidia-opencl.so.1) is installed,
#    registers it for this run: /tmp/icd/nvidia.icd and OCL_ICD_VENDORS=/tmp/icd.
# 3. Runs tests/run_tests.sh with CLSORT_DEVICE=gpu, CLSORT_TEST_JOBS programs at once (default
#    half the cores, at most 8).
# Environment: BUILD (default build), MAKE, JOBS (default: all cores), and what run_tests.sh
# reads (CLSORT_TEST_ONLY, CLSORT_TEST_LEVEL, CLSORT_TEST_SEED, CLSORT_DEBUG, ...).

cd "$(dirname "$0")/.." || exit 2
BUILD=${BUILD:-build}
MAKE=${MAKE:-make}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
export BUILD

if [ ! -e /usr/include/ini.h ] && ls .gpu-debs/*.deb >/dev/null 2>&1; then
    for f in .gpu-debs/*.deb; do dpkg -x "$f" /tmp/inih || exit 2; done
    C_INCLUDE_PATH=/tmp/inih/usr/include${C_INCLUDE_PATH:+:$C_INCLUDE_PATH}
    LIBRARY_PATH=/tmp/inih/usr/lib/x86_64-linux-gnu${LIBRARY_PATH:+:$LIBRARY_PATH}
    LD_LIBRARY_PATH=/tmp/inih/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    export C_INCLUDE_PATH LIBRARY_PATH LD_LIBRARY_PATH
    echo "check_gpu: libinih from .gpu-debs/ (unpacked into /tmp/inih)"
fi
"$MAKE" -j"$JOBS" BUILD="$BUILD" all tests >"${TMPDIR:-/tmp}/check_gpu_build.$$.log" 2>&1 || {
    tail -30 "${TMPDIR:-/tmp}/check_gpu_build.$$.log"
    echo "check_gpu: the build failed (no ini.h? see docs/gpu.md for libinih)" >&2
    exit 2
}
rm -f "${TMPDIR:-/tmp}/check_gpu_build.$$.log"

gpus() { "$BUILD/clsort" --list-devices 2>/dev/null | grep -B1 '^ *type gpu' | grep -v '^ *type\|^--'; }

nvidia_installed() {
    ldconfig -p 2>/dev/null | grep -q 'libnvidia-opencl\.so\.1' && return 0
    for d in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib /usr/local/nvidia/lib64; do
        [ -e "$d/libnvidia-opencl.so.1" ] && return 0
    done
    return 1
}

if [ -z "$(gpus)" ] && nvidia_installed; then
    mkdir -p /tmp/icd && echo libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd || exit 2
    OCL_ICD_VENDORS=/tmp/icd
    export OCL_ICD_VENDORS
    echo "check_gpu: registered NVIDIA's OpenCL driver for this run (OCL_ICD_VENDORS=/tmp/icd)"
fi
found=$(gpus)
if [ -z "$found" ]; then
    echo "check_gpu: no GPU is visible to OpenCL here (devices: $("$BUILD/clsort" --list-devices 2>&1 | grep -c '^[0-9]')); nothing run. See docs/gpu.md." >&2
    exit 2
fi
echo "check_gpu: GPU(s): $(echo "$found" | tr '\n' ';')the suite runs on the first"
CLSORT_DEVICE=gpu
# The programs run several at once (run_tests.sh, CLSORT_TEST_JOBS): one at a time the GPU sits
# idle through every program's process start, context creation and host-side checking, and the
# whole suite took several times longer. Half the cores, at most 8.
if [ -z "${CLSORT_TEST_JOBS:-}" ]; then
    CLSORT_TEST_JOBS=$((JOBS / 2))
    [ "$CLSORT_TEST_JOBS" -gt 8 ] && CLSORT_TEST_JOBS=8
    [ "$CLSORT_TEST_JOBS" -lt 1 ] && CLSORT_TEST_JOBS=1
fi
export CLSORT_DEVICE CLSORT_TEST_JOBS
exec sh tests/run_tests.sh
