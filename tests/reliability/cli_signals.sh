#!/bin/sh
# cli_signals.sh - SIGINT, SIGTERM and SIGHUP at many moments of an in-place sort and of an
# external sort (runs under -T, k-way merge), SIGKILL for the runs, and SIGBUS (taken by a handler
# of its own). After each: the input is whole or completely sorted, no temporary file or run is
# left, and the exit status is the documented one: death by the signal (a shell sees 128 + signal
# number; docs/clsort.1), or 0 when the run had already finished.
#
# Moments: fractions of an uninterrupted run's time (start-up, reading, sorting, writing, after
# the end), plus two found by watching the process: the moment the temporary output file exists
# (writing), and the moment the external sort holds several runs open (merging).
#   BUILD=build sh tests/reliability/cli_signals.sh     (from the repository root)
cd "$(dirname "$0")/../.." || exit 2
. tests/reliability/common.inc
echo "# cli_signals: seed $SEED, device $CLSORT_DEVICE"
cd "$W" || exit 1
mkdir intr runs tmp
export TMPDIR="$W/tmp"

signum() { case $1 in INT) echo 2 ;; TERM) echo 15 ;; HUP) echo 1 ;; KILL) echo 9 ;; BUS) echo 7 ;; esac; } # BUS: Linux

# wait_for COND PID: polls COND (a shell command) every 5 ms while PID lives; 0 if it came true.
wait_for() {
    i=0
    while [ $i -lt 4000 ]; do
        kill -0 "$2" 2>/dev/null || return 1
        sh -c "$1" 2>/dev/null && return 0
        sleep 0.005
        i=$((i + 1))
    done
    return 1
}

# one_interrupt NAME SIG ORIG REF RUNDIR WHEN ARGS...: starts an in-place sort of a copy of ORIG,
# sends SIG at WHEN (seconds, or "tmpfile" / "runs"), and checks the outcome.
one_interrupt() {
    name=$1; sig=$2; orig=$3; ref=$4; rundir=$5; when=$6; shift 6
    cp "$orig" intr/data.bin
    "$REF" exec "$CLSORT" "$@" -o intr/data.bin intr/data.bin 2>err &
    pid=$!
    case $when in
    # The temporary output: named .data.bin.clsort-XXXXXX, or (O_TMPFILE) open without a name,
    # which /proc shows as "intr/#INODE (deleted)".
    tmpfile) wait_for "ls -A intr | grep -q clsort- || ls -l /proc/$pid/fd 2>/dev/null | grep -q '/intr/#[0-9]* (deleted)'" $pid
        what="once the temporary output exists" ;;
    runs) wait_for "test \$(ls -l /proc/$pid/fd | grep -c '$rundir/.*(deleted)') -ge 2" $pid
        what="while several runs are open" ;;
    *) sleep "$when"; what="after ${when}s" ;;
    esac
    kill -s "$sig" $pid 2>/dev/null
    wait $pid
    rc=$?
    want=$((128 + $(signum "$sig")))
    if cmp -s intr/data.bin "$ref"; then state=sorted; elif cmp -s intr/data.bin "$orig"; then state=whole; else state=damaged; fi
    check "$name: SIG$sig $what: input $state, exit $rc" \
        sh -c "[ $state != damaged ] && { [ $rc = $want ] || { [ $rc = 0 ] && [ $state = sorted ]; }; }"
    if [ "$sig" = KILL ]; then
        # SIGKILL cannot be caught: runs vanish (they are unlinked at once), and so does the
        # temporary output where it has no name yet (O_TMPFILE); elsewhere it may stay.
        check "$name: SIG$sig $what: no run left" sh -c "test -z \"\$(ls -A '$rundir')\""
        rm -f intr/.data.bin.clsort-*
    else
        check "$name: SIG$sig $what: no temporary file or run left" \
            sh -c "test \"\$(ls -A intr)\" = data.bin && test -z \"\$(ls -A '$rundir')\""
        # A signal sent at once can arrive before main has even started (the dynamic loader maps
        # libOpenCL, Highway and libstdc++ first: a few ms, more under load), when no handler can
        # exist yet; the process then dies silently by the default action, which is still a clean
        # outcome (checked above). From 20 ms on the message is required.
        case $when in 0.00[0-9] | 0.01[0-9]) early=1 ;; *) early=0 ;; esac
        if [ "$rc" = "$want" ] && [ "$sig" != KILL ] && ! { [ $early = 1 ] && ! [ -s err ]; }; then
            check "$name: SIG$sig $what: says it was interrupted" grep -q interrupted err
        fi
    fi
}

interrupt_series() { # NAME ORIG REF RUNDIR SIGNALS ARGS...
    name=$1; orig=$2; ref=$3; rundir=$4; sigs=$5; shift 5
    # The first run may compile kernels (a cold cache); time the second.
    cp "$orig" intr/data.bin
    "$CLSORT" "$@" -o intr/data.bin intr/data.bin 2>err
    cp "$orig" intr/data.bin
    t0=$(now_ms); "$CLSORT" "$@" -o intr/data.bin intr/data.bin 2>err; t1=$(now_ms)
    ms=$((t1 - t0)); [ "$ms" -lt 50 ] && ms=50
    check "$name: uninterrupted run sorts ($ms ms)" same intr/data.bin "$ref"
    for sig in $sigs; do
        for pct in 0 5 20 45 70 90 120; do
            d=$((ms * pct / 100))
            one_interrupt "$name" "$sig" "$orig" "$ref" "$rundir" "$(printf '%d.%03d' $((d / 1000)) $((d % 1000)))" "$@"
        done
    done
}

gen big.bin u32 4 0 1000000
"$REF" sort u32 4 0 <big.bin >bigref.bin
interrupt_series "in-place sort" big.bin bigref.bin tmp "INT TERM"
one_interrupt "in-place sort" HUP big.bin bigref.bin tmp 0.300
for sig in INT TERM; do
    one_interrupt "in-place sort" $sig big.bin bigref.bin tmp tmpfile
done
# SIGBUS (what touching a mapped file cut short by another process raises) is taken by a handler,
# not the signal thread: the same cleanup and the same line.
one_interrupt "in-place sort" BUS big.bin bigref.bin tmp tmpfile

gen bigrec.bin u32 12 4 200000
"$REF" sort u32 12 4 <bigrec.bin >bigrecref.bin
set -- -R 12 -k 4 -s -S 256K -T "$W/runs"
interrupt_series "external sort" bigrec.bin bigrecref.bin "$W/runs" "INT TERM" "$@"
for sig in INT TERM HUP KILL; do
    one_interrupt "external sort" $sig bigrec.bin bigrecref.bin "$W/runs" runs "$@"
done
for sig in INT TERM BUS; do
    one_interrupt "external sort" $sig bigrec.bin bigrecref.bin "$W/runs" tmpfile "$@"
done
one_interrupt "external sort" BUS bigrec.bin bigrecref.bin "$W/runs" runs "$@"
finish
