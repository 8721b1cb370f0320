#!/bin/sh
# cli-files.sh - docs/perf.md's "Files": the wall time of whole clsort commands on files of random
# u32 keys beside cat and cp of the same file, in one command: a small file on tmpfs and on the
# disk (-o out in, and --no-fsync), a big file in one run and in runs of -S 2G, -m of 16 sorted
# parts; with MULTI set (gpu:all, or all for two PoCL devices under POCL_DEVICES="pthread
# pthread") also files on the disk on those devices (-d MULTI) and, where mpirun is, through
# clsort-mpi on two ranks, each output compared with one device's.
#
#   sh docs/bench/cli-files.sh [DEVICE]
#
# DEVICE: clsort's device (default gpu). Results in $OUT (default /tmp/clsort-bench-out/cli-files).
# Reads ROUNDS (median of, default 3), SMALL_MIB (default 1024), BIG_MIB (default 16384),
# SHM (a tmpfs folder, default /dev/shm/clsort-bench), DISK (a folder on the disk, default
# /tmp/clsort-bench; -S 2G puts its runs there), MULTI (default: none), MULTI_MIB (the files for
# MULTI, default "4096 BIG_MIB") and PARTS (which parts run: any of small, big, merge, multi;
# default all but multi, and multi where MULTI is set) and EXTRA (more clsort options for the
# sorts of the small and multi parts, e.g. "-a bitonic").

DEV=${1:-gpu}
. "$(dirname "$0")/env.sh"
ROUNDS=${ROUNDS:-3}
SMALL=${SMALL_MIB:-1024}
BIG=${BIG_MIB:-16384}
SHM=${SHM:-/dev/shm/clsort-bench}
DISK=${DISK:-/tmp/clsort-bench}
C=$PWD/$B/clsort
T=$OUT/times.txt
: > "$T"
EXTRA=${EXTRA:-}
PARTS=${PARTS:-small big merge${MULTI:+ multi}}
mkdir -p "$SHM" "$DISK" || exit 2
part() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }

# tm LABEL CMD...: the wall time of one command, in $T as "LABEL SECONDS rc N"; -v's lines kept.
tm() {
    label=$1; shift
    echo "== $label: $*" >> "$OUT/verbose.txt"
    s=$(date +%s.%N); "$@" 2>> "$OUT/verbose.txt"; rc=$?; e=$(date +%s.%N)
    echo "$label $(awk "BEGIN { printf \"%.3f\", $e - $s }") rc $rc" >> "$T"
}
settle() { sync; sleep 0.5; }
gen() { head -c "$(($2 << 20))" /dev/urandom > "$1"; }
sorted() { "$C" -c -t u32 "$1" && echo "$2: sorted" >> "$OUT/log.txt" || note "$2: NOT SORTED"; }

if part small; then
gen "$SHM/small" "$SMALL"; gen "$DISK/small" "$SMALL"; settle
"$C" -d "$DEV" -t u32 -o "$SHM/warm" "$SHM/small"; rm -f "$SHM/warm"  # the kernels built
r=1
while [ $r -le "$ROUNDS" ]; do
    for fs in "$SHM" "$DISK"; do
        P=$([ "$fs" = "$SHM" ] && echo tmpfs || echo disk)
        tm "$P-small-cat" sh -c "cat '$fs/small' > /dev/null"
        tm "$P-small-cp" cp "$fs/small" "$fs/copy"; rm -f "$fs/copy"; settle
        tm "$P-small-clsort" "$C" -v $EXTRA -d "$DEV" -t u32 -o "$fs/out" "$fs/small"
        [ $r = 1 ] && sorted "$fs/out" "$P-small"; rm -f "$fs/out"; settle
        tm "$P-small-clsort-no-fsync" "$C" -v $EXTRA --no-fsync -d "$DEV" -t u32 -o "$fs/out" "$fs/small"
        rm -f "$fs/out"; settle
    done
    r=$((r + 1))
done
rm -f "$SHM/small" "$DISK/small"
fi

if part big; then
gen "$SHM/big" "$BIG"; settle
r=1
while [ $r -le "$ROUNDS" ]; do
    tm tmpfs-big-cat sh -c "cat '$SHM/big' > /dev/null"
    tm tmpfs-big-cp cp "$SHM/big" "$SHM/copy"; rm -f "$SHM/copy"; settle
    tm tmpfs-big-clsort "$C" -v -d "$DEV" -t u32 -o "$SHM/out" "$SHM/big"
    [ $r = 1 ] && sorted "$SHM/out" tmpfs-big; rm -f "$SHM/out"; settle
    r=$((r + 1))
done
tm tmpfs-big-clsort-S2G "$C" -v -d "$DEV" -t u32 -S 2G -T "$DISK" -o "$SHM/out" "$SHM/big"
sorted "$SHM/out" tmpfs-big-S2G; rm -f "$SHM/out" "$SHM/big"; settle
fi

# -m of 16 sorted parts, each of BIG/16.
if part merge; then
i=0; parts=""
while [ $i -lt 16 ]; do
    gen "$SHM/in" $((BIG / 16)); "$C" -d "$DEV" -t u32 -o "$SHM/part$i" "$SHM/in"
    parts="$parts $SHM/part$i"; i=$((i + 1))
done
rm -f "$SHM/in"; settle
r=1
while [ $r -le "$ROUNDS" ]; do
    tm tmpfs-merge16-cat sh -c "cat $parts > '$SHM/cat'"; rm -f "$SHM/cat"; settle
    tm tmpfs-merge16-clsort "$C" -v -m -t u32 -o "$SHM/out" $parts
    [ $r = 1 ] && sorted "$SHM/out" tmpfs-merge16; rm -f "$SHM/out"; settle
    r=$((r + 1))
done
rm -f $parts
fi

if part multi && [ -n "${MULTI:-}" ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    # mpirun's own environment may have lost the ICD's variables: the ranks get their values.
    x=""
    for v in OCL_ICD_VENDORS OCL_ICD_FILENAMES LD_LIBRARY_PATH; do
        eval "val=\${$v:-}"; [ -n "$val" ] && x="$x -x $v=$val"
    done
    [ -n "${POCL_DEVICES:-}" ] && x="$x -x POCL_DEVICES"
    for mib in ${MULTI_MIB:-4096 $BIG}; do
        f=$DISK/multi; gen "$f" "$mib"; settle; cat "$f" > /dev/null
        r=1
        while [ $r -le "$ROUNDS" ]; do
            tm "disk-$mib-cat" sh -c "cat '$f' > /dev/null"
            tm "disk-$mib-cp" cp "$f" "$DISK/copy"; rm -f "$DISK/copy"; settle
            tm "disk-$mib-one" "$C" -v $EXTRA -d "$DEV" -t u32 -o "$DISK/one" "$f"; settle
            tm "disk-$mib-multi" "$C" -v $EXTRA -d "$MULTI" -t u32 -o "$DISK/all" "$f"
            cmp -s "$DISK/one" "$DISK/all" || note "disk-$mib: -d $MULTI DIFFERS from one device"
            rm -f "$DISK/all"; settle
            if command -v mpirun > /dev/null 2>&1 && [ -x "$B/clsort-mpi" ]; then
                tm "disk-$mib-mpi-2" mpirun --allow-run-as-root -n 2 $x "$PWD/$B/clsort-mpi" -v $EXTRA \
                    -d "$MULTI" -t u32 -o "$DISK/mpi" "$f"
                cmp -s "$DISK/one" "$DISK/mpi" || note "disk-$mib: clsort-mpi DIFFERS from one device"
            fi
            rm -f "$DISK/one" "$DISK/mpi"; settle
            r=$((r + 1))
        done
        rm -f "$f"
    done
fi
rmdir "$SHM" "$DISK" 2>/dev/null

note "== medians, s (label, median, every round)"
awk '{ v[$1] = v[$1] " " $2; if ($4 != 0) bad[$1] = 1 }
     END { for (k in v) { n = split(v[k], a, " ");
               for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
               printf "%-28s %8s  (%s)%s\n", k, a[int((n + 1) / 2)], v[k], bad[k] ? " FAILED" : "" } }' "$T" |
    sort | tee -a "$OUT/log.txt"
note "== -v of the last runs"
grep -E '^clsort(-mpi)?: (rank 0: )?(setup|read|route|sort|runs|merge|exchange|write|total) ' "$OUT/verbose.txt" |
    tail -24 | cut -c1-150 | tee -a "$OUT/log.txt"
