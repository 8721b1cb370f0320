#!/bin/sh
# run_tests.sh - runs the clsort test suite (`make test` calls it with BUILD set): every
# $BUILD/tests/test_* program (TAP), the strict compile of tests/header_check.c, then
# tests/cli/run_cli_tests.sh, run_pipeline_tests.sh and fuzz_runs.sh if present and any other
# tests/*.sh; prints a summary and exits 1 if anything failed.
#
# Environment: BUILD (default build); CLSORT_DEVICE (default cpu); CLSORT_TEST_SEED to replay;
# CLSORT_TEST_LEVEL=0/1/2 for quick/default/thorough sizes (`make test` runs 0, `make check-long`
# 1); CLSORT_TEST_TIMEOUT (seconds per program, default 900; test_segments 1800, and 3600 with
# CLSORT_TEST_LONG=1, as `make check-long` sets); CLSORT_TEST_ONLY (a pattern: run only the
# programs whose name has it);
# CLSORT_TEST_JOBS (programs run at once, default 1: on PoCL each program already uses every core,
# and two PoCL processes building the same kernels into one cache at once have aborted in PoCL;
# check_gpu.sh runs several at once on a GPU machine, where the host's cores sit idle otherwise);
# CLSORT_TEST_SH_SERIAL=1 runs the shell suites one at a time even with several jobs;
# CLSORT_TEST_SET (a file naming programs and suites, one per line, `#` comments: `make test`
# gives tests/quick.list) runs only those.
# With more than one job, each program's output is printed whole when it ends, in suite order.

BUILD=${BUILD:-build}
CLSORT_DEVICE=${CLSORT_DEVICE:-cpu}
export BUILD CLSORT_DEVICE
CC=${CC:-cc}
CXX=${CXX:-c++}
# The per-program limit catches a program that hangs. test_segments builds more programs than any
# other (every network, key width, value size and pass form); at the default level on two cores
# with PoCL's cache cold its compiles alone take about half an hour, so the long suite gives it
# twice the short one's limit.
limit_of() { # name -> seconds
    if [ -n "${CLSORT_TEST_TIMEOUT:-}" ]; then
        echo "$CLSORT_TEST_TIMEOUT"
    elif [ "$1" = test_segments ] && [ -n "${CLSORT_TEST_LONG:-}" ]; then
        echo 3600
    elif [ "$1" = test_segments ]; then
        echo 1800
    else
        echo 900
    fi
}
jobs=${CLSORT_TEST_JOBS:-1}
case $jobs in '' | *[!0-9]*) jobs=1 ;; esac

cd "$(dirname "$0")/.." || exit 2
logs=$BUILD/test-logs
mkdir -p "$logs" || exit 2

passed=0
failed=0
failures=""
suite_start=$(date +%s)

# Whether a program or suite belongs to the set CLSORT_TEST_SET names (every one without it).
in_set() { # name
    [ -z "${CLSORT_TEST_SET:-}" ] && return 0
    sed 's/#.*//' "$CLSORT_TEST_SET" | tr -s ' \t' '\n\n' | grep -qx "$1"
}
if [ -n "${CLSORT_TEST_SET:-}" ] && [ ! -f "$CLSORT_TEST_SET" ]; then
    echo "CLSORT_TEST_SET: no such file: $CLSORT_TEST_SET"
    exit 2
fi

# A TAP stream passes when the program exited 0, printed no "not ok" (other than TODO), did not
# bail out, and ran as many points as its plan says. Output without any TAP passes on exit 0.
tap_verdict() { # log exit_status -> prints "pass|fail points detail"
    awk -v rc="$2" '
        /^ok/ { n++ }
        /^not ok/ { n++; if ($0 !~ /# *TODO/) bad++ }
        /^Bail out!/ { bail = 1 }
        /^1\.\.[0-9]+/ { plan = substr($1, 4) + 0; planned = 1 }
        END {
            why = ""
            if (rc != 0) why = why " exit status " rc
            if (bad) why = why " " bad " not ok"
            if (bail) why = why " bailed out"
            if (planned && plan != n) why = why " plan " plan " but ran " n
            if (!planned && n > 0) why = why " no plan (crashed?)"
            printf "%s %d%s\n", (why == "" ? "pass" : "fail"), n, why
        }' "$1"
}

# Runs one command, streaming its output and keeping a log; records the verdict.
run_one() { # name command...
    name=$1
    shift
    log=$logs/$name.log
    start=$(date +%s)
    limit=$(limit_of "$name")
    echo "=== $name"
    if [ "$1" != header_check ] && command -v timeout >/dev/null 2>&1; then
        set -- timeout "$limit" "$@"
    fi
    { "$@" 2>&1; echo $? >"$log.rc"; } | tee "$log"
    rc=$(cat "$log.rc")
    rm -f "$log.rc"
    [ "$rc" = 124 ] && echo "# $name: killed after ${limit} s" | tee -a "$log"
    secs=$(($(date +%s) - start))
    record "$name" "$rc" "$secs"
}

# Adds one finished program's verdict to the summary.
record() { # name exit_status seconds
    name=$1
    log=$logs/$name.log
    rc=$2
    secs=$3
    echo "# $name: ${secs} s"
    verdict=$(tap_verdict "$log" "$rc")
    set -- $verdict
    if [ "$1" = pass ]; then
        passed=$((passed + 1))
        summary="$summary
PASS  $name ($2 points, ${secs} s)"
    else
        failed=$((failed + 1))
        shift 2
        summary="$summary
FAIL  $name (${secs} s):$*  [log: $log]"
        failures="$failures $name"
    fi
}

summary=""

# With CLSORT_TEST_JOBS > 1, programs are queued (a command file each, in suite order) and run
# by xargs -P; run_queue prints their logs and verdicts in queue order once all have ended.
: >"$logs/queue"
queue_one() { # name command...
    if [ "$jobs" -le 1 ] || [ "$2" = header_check ]; then
        run_one "$@"
        return
    fi
    name=$1
    shift
    {
        printf 'exec'
        [ "$1" != header_check ] && command -v timeout >/dev/null 2>&1 &&
            printf " timeout %s" "$(limit_of "$name")"
        for a in "$@"; do printf " '%s'" "$(printf '%s' "$a" | sed "s/'/'\\\\''/g")"; done
        echo
    } >"$logs/$name.cmd"
    echo "$name" >>"$logs/queue"
}
run_queue() {
    [ -s "$logs/queue" ] || return 0
    echo "=== running $(wc -l <"$logs/queue" | tr -d ' ') programs, $jobs at a time"
    # shellcheck disable=SC2016
    xargs -P "$jobs" -I{} sh -c 'd=$1; s=$(date +%s); sh "$d/{}.cmd" >"$d/{}.log" 2>&1; echo "$? $(($(date +%s) - s))" >"$d/{}.end"' \
        sh "$logs" <"$logs/queue"
    while read -r name; do
        echo "=== $name"
        cat "$logs/$name.log"
        set -- $(cat "$logs/$name.end" 2>/dev/null || echo "1 0")
        [ "$1" = 124 ] && echo "# $name: killed after $(limit_of "$name") s" | tee -a "$logs/$name.log"
        record "$name" "$1" "$2"
        rm -f "$logs/$name.cmd" "$logs/$name.end"
    done <"$logs/queue"
    : >"$logs/queue"
}

# 1. The test programs.
found=0
for t in "$BUILD"/tests/test_*; do
    [ -f "$t" ] && [ -x "$t" ] || continue
    name=$(basename "$t")
    case $name in *.*) continue ;; esac
    if [ -n "$CLSORT_TEST_ONLY" ]; then
        case $name in *"$CLSORT_TEST_ONLY"*) ;; *) continue ;; esac
    fi
    in_set "$name" || continue
    found=$((found + 1))
    queue_one "$name" "$t"
done
if [ "$found" = 0 ] && [ -z "$CLSORT_TEST_ONLY" ]; then
    echo "no test programs in $BUILD/tests (run make tests first)"
    failed=$((failed + 1))
    summary="$summary
FAIL  no test programs in $BUILD/tests"
fi

# 2. The header on its own, strictly: as C11 (and as C++ when there is a C++ compiler).
header_check() {
    n=1
    if "$CC" -std=c11 -pedantic -Werror -Wall -Wextra -Iinclude -c tests/header_check.c \
        -o "$BUILD/header_check.o"; then
        echo "ok $n - clsort.h alone: $CC -std=c11 -pedantic -Werror -Wall -Wextra"
    else
        echo "not ok $n - clsort.h alone: $CC -std=c11 -pedantic -Werror -Wall -Wextra"
    fi
    rm -f "$BUILD/header_check.o"
    if command -v "$CXX" >/dev/null 2>&1; then
        n=2
        if "$CXX" -x c++ -std=c++11 -pedantic -Werror -Wall -Wextra -Iinclude -c \
            tests/header_check.c -o "$BUILD/header_check_cxx.o"; then
            echo "ok $n - clsort.h alone: $CXX -x c++ -std=c++11 -pedantic -Werror -Wall -Wextra"
        else
            echo "not ok $n - clsort.h alone: $CXX -x c++ -std=c++11 -pedantic -Werror -Wall -Wextra"
        fi
        rm -f "$BUILD/header_check_cxx.o"
    fi
    echo "1..$n"
}
if in_set header_check &&
    { [ -z "$CLSORT_TEST_ONLY" ] || case header_check in *"$CLSORT_TEST_ONLY"*) true ;; *) false ;; esac; }; then
    run_one header_check header_check
fi

# 3. The CLI tests, then any other suites added as tests/*.sh. CLSORT_TEST_PROGRAMS_ONLY=1 (make
# check-long) leaves them out: they run the same at every level (fuzz_runs.sh aside, which .ci/run
# runs at level 2 of its own), and make test has run them. With CLSORT_TEST_SH_SERIAL=1
# (make test) the test programs above run CLSORT_TEST_JOBS at a time but these one at a time:
# several of them time signals and pipes, which a loaded machine makes late.
if [ "${CLSORT_TEST_SH_SERIAL:-}" = 1 ]; then
    run_queue
    jobs=1
fi
if [ -z "$CLSORT_TEST_ONLY" ] && [ "${CLSORT_TEST_PROGRAMS_ONLY:-}" != 1 ]; then
    for s in tests/cli/run_cli_tests.sh tests/cli/run_pipeline_tests.sh tests/cli/fuzz_runs.sh \
        tests/*.sh; do
        [ -f "$s" ] || continue
        # check_gpu.sh runs this whole suite on a GPU (make check-gpu): not one of its parts.
        case $(basename "$s") in run_tests.sh | check_gpu.sh) continue ;; esac
        in_set "$(basename "$s" .sh)" && queue_one "$(basename "$s" .sh)" sh "$s"
    done
fi

run_queue

total=$(($(date +%s) - suite_start))
echo
echo "=== summary (CLSORT_DEVICE=$CLSORT_DEVICE, ${total} s)$summary"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ] || { echo "failed:$failures"; exit 1; }
exit 0
