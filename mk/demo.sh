#!/bin/sh
# demo.sh - `make demo`: sort 64 MiB of random u32 keys with build/clsort on the default device,
# check the result with `clsort -c`, and say what happened.
#   sh mk/demo.sh [BUILD-DIR]
set -eu

BUILD=${1:-build}
CLSORT=$BUILD/clsort
if [ ! -x "$CLSORT" ]; then
    echo "demo: $CLSORT is not built; run make first" >&2
    exit 1
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/clsort-demo.XXXXXX")
trap 'rm -rf "$dir"' EXIT HUP INT TERM
file=$dir/keys.u32
bytes=67108864

echo "== clsort demo: $((bytes / 1048576)) MiB of random u32 keys ($((bytes / 4)) keys)"
"$CLSORT" --list-devices | sed 's/^/   /'
head -c $bytes /dev/urandom >"$file"
if "$CLSORT" -c "$file" 2>/dev/null; then
    echo "demo: the random input is already sorted?" >&2
fi

echo "== clsort -v -o $file.sorted $file"
start=$(date +%s%N 2>/dev/null || date +%s)
"$CLSORT" -v -o "$file.sorted" "$file" 2>"$dir/log" || { cat "$dir/log" >&2; exit 1; }
end=$(date +%s%N 2>/dev/null || date +%s)
sed 's/^clsort: /   /' "$dir/log"

echo "== clsort -c $file.sorted"
if "$CLSORT" -c "$file.sorted"; then
    echo "   sorted: yes (exit 0)"
else
    echo "   sorted: NO" >&2
    exit 1
fi

case $start$end in
*N*) ;;
*)
    ms=$(((end - start) / 1000000))
    [ "$ms" -gt 0 ] || ms=1
    echo "== wall time of the whole command: ${ms} ms," \
        "$((bytes / 4 / ms / 1000)).$((bytes / 4 / ms % 1000 / 100)) Mkeys/s end to end"
    ;;
esac
