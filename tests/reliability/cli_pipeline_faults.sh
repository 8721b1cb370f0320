#!/bin/sh
# cli_pipeline_faults.sh - I/O faults in the middle of clsort's streaming pipeline:
# small chunks (CLSORT_CLI_CHUNK_SIZE) so that the fault lands after many chunks went to the
# device and came back: disk full for the output and for the runs (a 1 MiB tmpfs, root only),
# /dev/full, a file-size limit, and a ragged last file of several. After each: exit 3, one line on
# stderr, the same exit code and message as the host-memory path (CLSORT_CLI_PIPELINE=0), the
# input unchanged, no temporary file or run left.
#   BUILD=build sh tests/reliability/cli_pipeline_faults.sh     (from the repository root)
if [ "$(id -u)" = 0 ] && [ -z "${CLSORT_REL_NS:-}" ] && unshare -m true 2>/dev/null; then
    CLSORT_REL_NS=1 exec unshare -m --propagation private sh "$0" "$@"
fi
cd "$(dirname "$0")/../.." || exit 2
. tests/reliability/common.inc
echo "# cli_pipeline_faults: seed $SEED, device $CLSORT_DEVICE, $(is_root && echo root || echo "not root")"
cd "$W" || exit 1
mkdir tmp
export TMPDIR="$W/tmp"
export CLSORT_CLI_CHUNK_SIZE=8K
# AUTO gives a CPU device's runs to the host's own sort (b02610c), never to the pipeline that
# these faults are about: every command names the network.
printf '#!/bin/sh\nexec "%s" -a bitonic "$@"\n' "$CLSORT" >"$W/bitonic.sh"
chmod +x "$W/bitonic.sh"
CLSORT=$W/bitonic.sh

# fault DESC CMD...: exit 3, one line on stderr, through the pipeline (-v is not used: one line),
# and the host path gives the same exit status and message.
fault() {
    desc=$1; shift
    "$@" >out 2>err
    rc=$?
    CLSORT_CLI_PIPELINE=0 "$@" >out.h 2>err.h
    rch=$?
    lines=$(wc -l <err | tr -d ' ')
    if [ "$rc" -ne 3 ]; then
        fail "$desc: exit $rc, expected 3"
    elif [ "$lines" -ne 1 ]; then
        fail "$desc: $lines lines on stderr, expected 1"
    elif [ "$rch" -ne "$rc" ] || ! cmp -s err err.h; then
        fail "$desc: the host path says otherwise (exit $rch: $(head -c 100 err.h))"
    else
        pass "$desc: exit 3, as the host path ($(head -c 100 err))"
    fi
}

gen data.bin u32 4 0 300000
cp data.bin orig.bin
"$REF" sort u32 4 0 <data.bin >ref.bin
"$CLSORT" -v -o check.bin data.bin 2>err
check "the pipeline sorts data.bin (-v says pipeline)" sh -c "grep -q 'pipeline [0-9]* pinned chunks of 8.0 KiB' err && cmp -s check.bin ref.bin"
rm -f check.bin

fault "disk full: -o /dev/full after many chunks" "$CLSORT" -o /dev/full data.bin
check "... input unchanged" same data.bin orig.bin
( ulimit -f 1000 2>/dev/null || exit 9; exec "$CLSORT" -o big.bin data.bin ) >out 2>err
rc=$?
if [ "$rc" = 9 ]; then
    skip "file-size limit: ulimit -f is not available"
else
    check "file-size limit in the middle of the output (exit $rc, expected 3: $(head -c 80 err))" test "$rc" = 3
    check "... no partial output or temporary file" sh -c "test ! -e big.bin && ! ls -A | grep -q clsort-"
fi
( ulimit -f 200 2>/dev/null || exit 9; exec "$CLSORT" -S 400K -T "$W/tmp" -o big.bin data.bin ) >out 2>err
rc=$?
if [ "$rc" = 9 ]; then
    skip "file-size limit on runs: ulimit -f is not available"
else
    check "file-size limit on a run file after many chunks (exit $rc, expected 3: $(head -c 80 err))" test "$rc" = 3
    check "... no output, no run left" sh -c "test ! -e big.bin && test -z \"\$(ls -A tmp)\""
fi

if is_root && mkdir small && mount -t tmpfs -o size=1m tmpfs small 2>/dev/null; then
    head -c 700000 data.bin >small/in.bin # its sorted copy beside it does not fit
    cp small/in.bin small.orig
    fault "disk full: in-place pipeline sort on a 1 MiB tmpfs" "$CLSORT" -o small/in.bin small/in.bin
    check "... input unchanged, no temporary file" sh -c "cmp -s small/in.bin small.orig && test \"\$(ls -A small)\" = in.bin"
    fault "disk full: the pipeline's runs on a 1 MiB tmpfs" "$CLSORT" -S 256K -T small -o out.bin data.bin
    check "... no output, no run left" sh -c "test ! -e out.bin && test \"\$(ls -A small)\" = in.bin"
    umount small
    rm -f small.orig
else
    skip "disk full on a size-limited tmpfs: needs root (mount -t tmpfs -o size=1m)"
fi
rmdir small 2>/dev/null

fault "a ragged piped input after 1.3 MB went through the device" \
    sh -c "head -c 100001 data.bin | '$CLSORT' -o out.bin data.bin -"
check "... no output" test ! -e out.bin

# Read faults in the middle of a regular input read by several threads (CLSORT_TEST_READ_FAULT,
# clsort_fileio.h): the same exit code and message as the host path's sequential read().
for r in 1 2 3; do
    export CLSORT_CLI_READERS=$r
    CLSORT_TEST_READ_FAULT=eio:600000 fault "$r reader(s): EIO at byte 600000 of 1.2 MB" \
        "$CLSORT" -o out.bin data.bin
    check "... no output" test ! -e out.bin
    # The file shrinks under the readers, to a whole number of keys and ragged: what was read is
    # neither the old file nor the new one, so no output (exit 3), as on the host path.
    CLSORT_TEST_READ_FAULT=shrink:500000 fault "$r reader(s): the input shrinks to 500000 bytes mid-read" \
        sh -c "cp orig.bin shrink.bin && exec '$CLSORT' -o out.bin shrink.bin"
    check "... no output, no temporary file" sh -c "test ! -e out.bin && ! ls -A | grep -q clsort-"
    CLSORT_TEST_READ_FAULT=shrink:500001 fault "$r reader(s): the input shrinks to 500001 bytes (ragged) mid-read" \
        sh -c "cp orig.bin shrink.bin && exec '$CLSORT' -o out.bin shrink.bin"
    check "... no output, no temporary file" sh -c "test ! -e out.bin && ! ls -A | grep -q clsort-"
    unset CLSORT_CLI_READERS
done
rm -f shrink.bin

check "data.bin never changed" same data.bin orig.bin
"$CLSORT" -o data.bin data.bin 2>err
check "and it still sorts afterwards" same data.bin ref.bin
finish
