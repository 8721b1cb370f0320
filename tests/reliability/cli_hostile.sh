#!/bin/sh
# cli_hostile.sh - what another process or a careless pipeline can do to a running clsort, and
# what clsort must do then: a closed pipe on standard output ends it quietly, as sort(1) (killed by
# SIGPIPE, no message), with -S, --top and -u too; an input truncated or extended while it is
# sorted gives exit 3 and no output; -o naming a dangling symbolic link writes the link's target,
# as GNU sort; SIGKILL leaves no temporary output beside the destination; -m with more inputs
# than the descriptor limit merges in rounds, with the same output; --top on 320 MiB stays under
# 256 MiB of memory. TAP.
#
#   BUILD=build sh tests/reliability/cli_hostile.sh        (from the repository root)
set -u
cd "$(dirname "$0")/../.." || exit 2
. tests/reliability/common.inc
cd "$W" || exit 1
mkdir tmp
export TMPDIR="$W/tmp"
echo "# seed $SEED (replay with SEED=$SEED), device $CLSORT_DEVICE"

# expect_rc CODE DESC CMD...: stdout to out, stderr to err, the exit status checked.
expect_rc() {
    want=$1; desc=$2; shift 2
    "$@" >out 2>err
    got=$?
    if [ "$got" -eq "$want" ]; then pass "$desc"; else fail "$desc (exit $got, expected $want)"; fi
}

# ---- A closed pipe on standard output: quiet, as sort(1) ----------------------------------------
# 2 Mi records (8 MiB): far more than a pipe holds, so that head has closed it long before the end.
gen big.bin u32 4 0 2097152
for args in "" "-S 1M" "--top 1000000" "-u" "-s -S 2M"; do
    # shellcheck disable=SC2086 # the arguments are split on purpose
    sh -c "'$CLSORT' $args big.bin 2>err; echo \$? >rc" | head -c 1000 >head.out
    rc=$(cat rc)
    check "clsort $args | head -c 1000: killed by SIGPIPE or exit 0 (got $rc)" \
        sh -c "[ $rc = 141 ] || [ $rc = 0 ]"
    check "clsort $args | head -c 1000: no message" test ! -s err
    check "clsort $args | head -c 1000: head got its 1000 bytes" sh -c "[ \$(wc -c <head.out) = 1000 ]"
done
check "a closed pipe leaves no temporary file" sh -c "[ -z \"\$(ls -A \"\$TMPDIR\" 2>/dev/null | grep clsort)\" ]"

# ---- An input that changes size while it is sorted: exit 3, no output ---------------------------
# CLSORT_TEST_READ_FAULT=shrink:OFFSET truncates the named input just before the read that
# reaches OFFSET (clsort_fileio.h), as another process would.
gen sz.bin u32 4 0 200000
for args in "" "-S 64K" "--top 10" "-u"; do
    cp sz.bin s.bin
    # shellcheck disable=SC2086
    expect_rc 3 "input truncated while read ($args), -o FILE: exit 3" \
        env CLSORT_TEST_READ_FAULT=shrink:400000 "$CLSORT" $args -o s.out s.bin
    check "... one line saying the input changed size" sh -c "[ \$(wc -l <err) = 1 ] && grep -q 's.bin: the input changed size while it was sorted' err"
    check "... and no output" test ! -e s.out
    cp sz.bin s.bin
    # shellcheck disable=SC2086
    expect_rc 3 "input truncated while read ($args), standard output: exit 3" \
        env CLSORT_TEST_READ_FAULT=shrink:400000 "$CLSORT" $args s.bin
    check "... and nothing written" test ! -s out
done
cp sz.bin s.bin
expect_rc 3 "one of several inputs truncated: exit 3" \
    env CLSORT_TEST_READ_FAULT=shrink:400000 "$CLSORT" -o s.out sz.bin s.bin
check "... and no output" test ! -e s.out
# Extended after it was read: the FIFO of CLSORT_TEST_PAUSE_BEFORE_REPLACE holds clsort just
# before the replace (clsort_guard.h), where the test appends to the input.
rm -f pause.fifo; mkfifo pause.fifo
for args in "" "-S 64K" "--top 10"; do
    cp sz.bin s.bin
    # shellcheck disable=SC2086
    env CLSORT_TEST_PAUSE_BEFORE_REPLACE="$W/pause.fifo" "$CLSORT" $args -o s.out s.bin 2>err &
    pid=$!
    exec 3>pause.fifo
    head -c 4000 /dev/urandom >>s.bin
    exec 3>&-
    wait $pid
    rc=$?
    check "input extended while sorted ($args): exit 3 (got $rc)" [ $rc = 3 ]
    check "... no output, no temporary file" sh -c "test ! -e s.out && ! ls -A | grep -q clsort-"
done
cp sz.bin s.bin
expect_rc 0 "an input left alone still sorts" "$CLSORT" -o s.out s.bin
check "... to the reference" sh -c "'$REF' sort u32 4 0 <sz.bin | cmp -s - s.out"

# ---- -o naming a dangling symbolic link: the link's target is written, as GNU sort does ---------
"$REF" sort u32 4 0 <sz.bin >sz.ref
rm -f tgt.bin dl.bin
ln -s tgt.bin dl.bin
expect_rc 0 "-o a dangling link" "$CLSORT" -o dl.bin sz.bin
check "... the link stays a link" test -L dl.bin
check "... its target holds the result" same tgt.bin sz.ref
mkdir -p sub
rm -f tgt2.bin sub/chain1 sub/chain2
ln -s ../tgt2.bin sub/chain2
ln -s chain2 sub/chain1
expect_rc 0 "-o a chain of links, relative to their directory, ending nowhere" "$CLSORT" -o sub/chain1 sz.bin
check "... both links stay, the last one's target holds the result" \
    sh -c "test -L sub/chain1 && test -L sub/chain2 && cmp -s tgt2.bin sz.ref"
rm -f loop1 loop2
ln -s loop2 loop1; ln -s loop1 loop2
expect_rc 3 "-o a loop of links is an error" "$CLSORT" -o loop1 sz.bin
check "... and leaves the links alone" sh -c "test -L loop1 && test -L loop2"

# ---- SIGKILL leaves no temporary output ---------------------------------------------------------
# Held just before the replace: the output is complete and its temporary file at its largest.
rm -f k.out
env CLSORT_TEST_PAUSE_BEFORE_REPLACE="$W/pause.fifo" "$CLSORT" -o k.out big.bin 2>err &
pid=$!
exec 3>pause.fifo
kill -9 $pid
wait $pid
exec 3>&-
if df --output=fstype . 2>/dev/null | grep -qE 'tmpfs|ext4|xfs|btrfs'; then
    check "SIGKILL before the replace leaves nothing beside the destination (O_TMPFILE)" \
        sh -c "! ls -A | grep -q 'k.out.clsort-' && test ! -e k.out"
else
    skip "this file system may not offer O_TMPFILE ($(df --output=fstype . | tail -1))"
fi

# ---- -m with more inputs than the descriptor limit: rounds, as GNU sort -m ----------------------
mkdir -p many
i=0
while [ $i -lt 300 ]; do
    gen many/p.$i u32 4 0 $((i % 7 * 13 + 1))
    "$REF" sort u32 4 0 <many/p.$i >many/s.$i
    rm many/p.$i
    i=$((i + 1))
done
cat many/s.* | "$REF" sort u32 4 0 >many.ref
expect_rc 0 "-m of 300 files under ulimit -n 64" sh -c "ulimit -n 64 && '$CLSORT' -m -o many.out many/s.*"
check "... the same output as one merge" same many.out many.ref
expect_rc 0 "-m of 300 files to standard output under ulimit -n 64" sh -c "ulimit -n 64 && '$CLSORT' -m many/s.* >many.out2"
check "... the same output" same many.out2 many.ref
cat many/s.* | "$REF" msort 4 u 0:u32 >many.uref
expect_rc 0 "-m -u of 300 files under ulimit -n 64" sh -c "ulimit -n 64 && '$CLSORT' -m -u -o many.out many/s.*"
check "... the same output as one merge" same many.out many.uref
check "the rounds leave no temporary file" sh -c "[ -z \"\$(ls -A \"\$TMPDIR\" 2>/dev/null | grep clsort)\" ] && ! ls -A | grep -q clsort-"

# ---- --top N streams: N records and bounded memory, whatever the input's size ------------------
# 320 MiB of u32: a --top that held its input would peak above 320 MiB; the stream holds a block,
# a chunk and N records (at most N records plus 256 MiB).
if [ -x /usr/bin/time ] && [ "$(df -Pk . | awk 'NR == 2 { print $4 }')" -gt 1500000 ]; then
    head -c 335544320 /dev/urandom >top.bin
    /usr/bin/time -f '%M' -o top.rss "$CLSORT" --top 1000 -o top.out top.bin 2>err
    rc=$?
    kb=$(tail -1 top.rss)
    check "--top 1000 of 320 MiB: exit 0 (got $rc)" [ "$rc" = 0 ]
    check "--top 1000 of 320 MiB: peak memory $((kb / 1024)) MiB, at most 256 MiB" [ "$kb" -le 262144 ]
    "$CLSORT" -o full.out top.bin
    check "--top 1000: the first 1000 records of the full sort" sh -c "head -c 4000 full.out | cmp -s - top.out"
    /usr/bin/time -f '%M' -o top.rss "$CLSORT" --top 1000 -r -s -o top.out top.bin 2>err
    kb=$(tail -1 top.rss)
    check "--top 1000 -r -s of 320 MiB: peak memory $((kb / 1024)) MiB, at most 256 MiB" [ "$kb" -le 262144 ]
    "$CLSORT" -r -o full.out top.bin
    check "--top 1000 -r: the first 1000 records of the full sort -r" sh -c "head -c 4000 full.out | cmp -s - top.out"
    rm -f top.bin full.out top.out
else
    skip "no /usr/bin/time or under 1.5 GB free for the --top memory case"
fi

finish
