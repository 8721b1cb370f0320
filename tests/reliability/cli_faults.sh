#!/bin/sh
# cli_faults.sh - I/O fault injection for the clsort CLI: unreadable, missing and directory inputs,
# missing and read-only output directories, disk full (a 1 MiB tmpfs, /dev/full, a file-size
# limit) for the output and for the runs of an external sort. After every fault: exit status 3
# (docs/clsort.1), one line on stderr, the input unchanged, no temporary file left.
#
# Root is used for what it makes possible (running as nobody for permissions, tmpfs and read-only
# mounts in a private mount namespace); without it those cases are skipped with a note.
#   BUILD=build sh tests/reliability/cli_faults.sh     (from the repository root)
if [ "$(id -u)" = 0 ] && [ -z "${CLSORT_REL_NS:-}" ] && unshare -m true 2>/dev/null; then
    CLSORT_REL_NS=1 exec unshare -m --propagation private sh "$0" "$@"
fi
cd "$(dirname "$0")/../.." || exit 2
. tests/reliability/common.inc
echo "# cli_faults: seed $SEED, device $CLSORT_DEVICE, $(is_root && echo root || echo "not root")"
cd "$W" || exit 1
mkdir home tmp
chmod 777 home tmp
export TMPDIR="$W/tmp"

# as_nobody CMD...: runs CMD as nobody (root can read anything, so permission faults need it).
as_nobody() {
    setpriv --reuid=65534 --regid=65534 --clear-groups \
        env HOME="$W/home" XDG_CACHE_HOME="$W/home/.cache" TMPDIR="$W/tmp" "$@"
}
can_drop=0
if is_root && command -v setpriv >/dev/null && as_nobody "$CLSORT" --version >/dev/null 2>&1; then
    can_drop=1
fi

# fault DESC CMD...: expects exit 3 and exactly one line on stderr.
fault() {
    desc=$1; shift
    "$@" >out 2>err
    rc=$?
    lines=$(wc -l <err | tr -d ' ')
    if [ "$rc" -ne 3 ]; then
        fail "$desc: exit $rc, expected 3"
    elif [ "$lines" -ne 1 ]; then
        fail "$desc: $lines lines on stderr, expected 1"
    else
        pass "$desc: exit 3, one line ($(head -c 100 err))"
    fi
}
# nothing_left DIR NAMES...: DIR holds exactly NAMES (no .NAME.clsort-XXXXXX, no runs).
nothing_left() {
    d=$1; shift
    [ "$(ls -A "$d" | sort | tr '\n' ' ')" = "$(printf '%s\n' "$@" | sed '/^$/d' | sort | tr '\n' ' ')" ]
}

gen data.bin u32 4 0 300000
cp data.bin orig.bin
"$REF" sort u32 4 0 <data.bin >ref.bin
gen rec.bin u64 24 8 60000
"$REF" sort u64 24 8 <rec.bin >recref.bin

# ---- Input faults -----------------------------------------------------------------------------
fault "missing input" "$CLSORT" nosuch.bin
check "... creates nothing" nothing_left . data.bin orig.bin ref.bin rec.bin recref.bin home tmp out err
mkdir adir
fault "a directory as input" "$CLSORT" adir
rmdir adir
printf 'abcdefg' >odd.bin
cp odd.bin odd.orig
fault "size not a multiple of the record size" "$CLSORT" odd.bin
check "... input unchanged" same odd.bin odd.orig
rm -f odd.bin odd.orig
if [ "$can_drop" = 1 ]; then
    mkdir priv && chmod 755 priv && cp data.bin priv/secret.bin && chmod 000 priv/secret.bin
    fault "unreadable input (as nobody)" as_nobody "$CLSORT" -o "$W/tmp/out.bin" priv/secret.bin
    check "... no output, no temporary file" nothing_left tmp
    fault "unreadable input, in place (as nobody)" as_nobody "$CLSORT" -o priv/secret.bin priv/secret.bin
    chmod 644 priv/secret.bin
    check "... input unchanged" same priv/secret.bin orig.bin
    check "... nothing left beside it" nothing_left priv secret.bin
    rm -rf priv
else
    skip "unreadable input: needs root and setpriv to run as nobody (root reads any file)"
fi

# ---- Output directory faults ------------------------------------------------------------------
fault "missing output directory" "$CLSORT" -o nodir/out.bin data.bin
check "... input unchanged, nothing created" sh -c "cmp -s data.bin orig.bin && test ! -e nodir"
if [ "$can_drop" = 1 ]; then
    mkdir rodir && cp data.bin rodir/in.bin && chmod 644 rodir/in.bin && chmod 555 rodir
    fault "unwritable output directory, -o (as nobody)" as_nobody "$CLSORT" -o rodir/out.bin rodir/in.bin
    fault "unwritable directory, in place (as nobody)" as_nobody "$CLSORT" -o rodir/in.bin rodir/in.bin
    check "... input unchanged, nothing left" sh -c "cmp -s rodir/in.bin orig.bin && test \"\$(ls -A rodir)\" = in.bin"
    chmod 755 rodir && rm -rf rodir
else
    skip "unwritable output directory: needs root and setpriv (root writes anywhere)"
fi
if is_root && mkdir romnt && cp data.bin romnt/in.bin && mount --bind romnt romnt 2>/dev/null &&
    mount -o remount,bind,ro romnt 2>/dev/null; then
    fault "read-only mount, in place (root)" "$CLSORT" -o romnt/in.bin romnt/in.bin
    check "... input unchanged, nothing left" sh -c "cmp -s romnt/in.bin orig.bin && test \"\$(ls -A romnt)\" = in.bin"
    fault "read-only mount, -o (root)" "$CLSORT" -o romnt/out.bin data.bin
    umount romnt
    rm -rf romnt
elif is_root && command -v chattr >/dev/null && mkdir -p imm && cp data.bin imm/in.bin &&
    chattr +i imm 2>/dev/null; then
    fault "immutable directory (chattr +i), in place (root)" "$CLSORT" -o imm/in.bin imm/in.bin
    check "... input unchanged, nothing left" sh -c "cmp -s imm/in.bin orig.bin && test \"\$(ls -A imm)\" = in.bin"
    chattr -i imm
    rm -rf imm
else
    rm -rf romnt imm
    skip "read-only output directory: no read-only bind mount and no chattr +i here"
fi

# ---- Disk full --------------------------------------------------------------------------------
fault "disk full: -o /dev/full" "$CLSORT" -o /dev/full data.bin
check "... input unchanged" same data.bin orig.bin
if is_root && mkdir small && mount -t tmpfs -o size=1m tmpfs small 2>/dev/null; then
    head -c 700000 data.bin >small/in.bin # 700 KB: its sorted copy beside it does not fit
    cp small/in.bin small.orig
    fault "disk full: in-place sort on a 1 MiB tmpfs" "$CLSORT" -o small/in.bin small/in.bin
    check "... input unchanged" same small/in.bin small.orig
    check "... no temporary file left" sh -c "test \"\$(ls -A small)\" = in.bin"
    fault "disk full: -o onto a 1 MiB tmpfs" "$CLSORT" -o small/out.bin data.bin
    check "... no partial output or temporary file" sh -c "test \"\$(ls -A small)\" = in.bin"
    cp rec.bin rec.orig
    fault "disk full: external sort's runs on a 1 MiB tmpfs" "$CLSORT" -R 24 -k 8 -t u64 -S 64K -T small -o rec.bin rec.bin
    check "... input unchanged" same rec.bin rec.orig
    check "... no run left" sh -c "test \"\$(ls -A small)\" = in.bin"
    # -m in 4 parts stores into a mapping of the output whose blocks each part allocates as it
    # goes: the file system fills up there, not in a store (which would be SIGBUS).
    "$CLSORT" -o sorted.bin data.bin && head -c 600000 sorted.bin >m1.bin && tail -c +600001 sorted.bin >m2.bin
    CLSORT_CLI_MERGE_THREADS=4 fault "disk full: -m in 4 parts into a mapping on a 1 MiB tmpfs" \
        "$CLSORT" -m -o small/m.out m1.bin m2.bin
    check "... no partial output or temporary file" sh -c "test \"\$(ls -A small)\" = in.bin"
    CLSORT_CLI_MERGE_THREADS=4 "$CLSORT" -v -m -o m.out m1.bin m2.bin 2>err
    check "... the same merge elsewhere runs in 4 parts" grep -q "in 4 parts on as many threads" err
    rm -f sorted.bin m1.bin m2.bin m.out
    umount small
    rm -f small.orig rec.orig
else
    skip "disk full on a size-limited tmpfs: needs root (mount -t tmpfs -o size=1m)"
fi
rmdir small 2>/dev/null
( ulimit -f 1000 2>/dev/null || exit 9; exec "$CLSORT" -o big.bin data.bin ) >out 2>err
rc=$?
if [ "$rc" = 9 ]; then
    skip "file-size limit: ulimit -f is not available"
else
    check "file-size limit (ulimit -f 1000, 512 KB): exit $rc, expected 3 ($(head -c 80 err))" test "$rc" = 3
    check "... no partial output or temporary file" sh -c "test ! -e big.bin && ! ls -A | grep -q clsort-"
fi

# ---- After all that: the originals are still whole ---------------------------------------------
check "data.bin never changed" same data.bin orig.bin
"$CLSORT" -o data.bin data.bin 2>err
check "and it still sorts afterwards" same data.bin ref.bin
finish
