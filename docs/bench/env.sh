# env.sh - what every benchmark scenario does first (sourced, not run): go to the repository's
# root, make the build possible and the GPU visible, build, and record the machine.
#
# Sets B (the build folder), OUT (where results go: $OUT if set, else /tmp/clsort-bench-out/<scenario>),
# and the functions note (a line on the terminal and in $OUT/log.txt), anchor (an anchor's source)
# and col (CSV columns by name).
# Reads: BUILD (default build), JOBS (default: all cores).

BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
case ${ANCHORS:--} in -|/*) ;; *) ANCHORS=$(cd "$ANCHORS" && pwd) || exit 2 ;; esac
cd "$BENCH_DIR/../.." || exit 2
B=${BUILD:-build}
SCENARIO=$(basename "$0" .sh)
OUT=${OUT:-${TMPDIR:-/tmp}/clsort-bench-out/$SCENARIO}
mkdir -p "$OUT" || exit 2
: > "$OUT/log.txt"

note() { echo "$*" | tee -a "$OUT/log.txt"; }

# anchor NAME: the path of an anchor's source, from the folder the scenario was given ($ANCHORS,
# "-" for none) or else from docs/bench/anchors; nothing when neither holds it or ANCHORS is "-".
anchor() {
    [ "${ANCHORS:--}" = - ] && return 0
    for d in "$ANCHORS" "$BENCH_DIR/anchors"; do
        [ -f "$d/$1" ] && { echo "$d/$1"; return 0; }
    done
}

# col FILE NAME...: the named columns of a CSV file whose header line is the first that does not
# start with '#', comma-separated, one line per data line.
col() {
    f=$1; shift
    awk -F, -v want="$*" '
        /^#/ { next }
        !hdr { n = split(want, w, " "); for (i = 1; i <= NF; i++) idx[$i] = i; hdr = 1; next }
        { line = ""; for (j = 1; j <= n; j++) line = line (j > 1 ? "," : "") $(idx[w[j]]); print line }' "$f"
}

# The GPU machine's image has no libinih: Debian's packages carried in .gpu-debs/ (docs/gpu.md).
if [ ! -e /usr/include/ini.h ] && ls .gpu-debs/*.deb >/dev/null 2>&1; then
    for f in .gpu-debs/*.deb; do dpkg -x "$f" /tmp/inih || exit 2; done
    C_INCLUDE_PATH=/tmp/inih/usr/include${C_INCLUDE_PATH:+:$C_INCLUDE_PATH}
    LIBRARY_PATH=/tmp/inih/usr/lib/x86_64-linux-gnu${LIBRARY_PATH:+:$LIBRARY_PATH}
    LD_LIBRARY_PATH=/tmp/inih/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    export C_INCLUDE_PATH LIBRARY_PATH LD_LIBRARY_PATH
fi

# NVIDIA's OpenCL driver installed but not registered with the ICD loader (docs/gpu.md).
if [ -z "${OCL_ICD_VENDORS:-}" ] && ldconfig -p 2>/dev/null | grep -q 'libnvidia-opencl\.so\.1'; then
    mkdir -p /tmp/icd && echo libnvidia-opencl.so.1 > /tmp/icd/nvidia.icd
    OCL_ICD_VENDORS=/tmp/icd
    export OCL_ICD_VENDORS
fi

make -j"${JOBS:-$(nproc 2>/dev/null || echo 2)}" BUILD="$B" all > "$OUT/build.txt" 2>&1 || {
    tail -30 "$OUT/build.txt"; echo "$SCENARIO: the build failed" >&2; exit 2; }

{
    echo "scenario $SCENARIO, tree $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo "date $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    "$B/clsort" --version 2>&1 | head -1
    command -v nvidia-smi >/dev/null 2>&1 &&
        nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
    lscpu 2>/dev/null | grep -E '^Model name|^CPU\(s\)'
    "$B/clsort" --list-devices 2>&1
} > "$OUT/machine.txt"
cat "$OUT/machine.txt" >> "$OUT/log.txt"
