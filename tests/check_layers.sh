#!/bin/sh
# check_layers.sh - the include structure of host/ and tools/ (docs/design.md, "Modules"), read
# from the #include "..." lines (TAP). Checks:
#   - every host file has a layer in the table below, and every file in the table exists;
#   - each host file includes only headers of its own layer or below;
#   - no include cycle among host headers, and none among host modules (x.c and x.h count as one
#     module, so two files that include each other's headers form a cycle);
#   - the same two cycle checks over tools/, walked recursively; an include resolves against the
#     including file's folder, then tools/*/, then tools/.
# Headers outside host/ and tools/ (include/clsort.h, generated or system ones) are leaves.
# Usage: sh tests/check_layers.sh [ROOT] (default: the repository holding this script).

cd "${1:-$(dirname "$0")/..}" || exit 2

# The layers of host/, highest first; a file may include headers of its own layer or below.
# Keep this table the same as the one in docs/design.md.
LAYERS='
5 api       api_sort.c api_sort.h api_context.c api_tuning.c api_memory.c api_segments.c api_topk.c
4 planning  plan.c plan.h schedule.c schedule.h params.c params.h config.c config.h
3 execution run.c run.h scratch.c scratch.h hostsort.c hostsort.h transfer.c transfer.h segments.c segments.h topk.c topk.h
2 programs  program.c program.h cache.c cache.h
1 device    device.c device.h
0 core      core.h errors.c plan_types.h kernels.c kernels.h util.h util.c names.c parcopy.c parcopy.h trust.h trust.c
'

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=1; echo "not ok $n - $1"; }
point() { # status description [details]
    if [ "$1" = 0 ]; then ok "$2"; else not_ok "$2"; [ -n "$3" ] && printf '%s\n' "$3" | sed 's/^/# /'; fi
}

tmp=${TMPDIR:-/tmp}/check_layers.$$
mkdir -p "$tmp" || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

# The quoted includes of a file, one name a line. Only real directives: a comment that mentions
# "#include" starts with something else.
includes() {
    sed -n 's/^[ 	]*#[ 	]*include[ 	]*"\([^"]*\)".*/\1/p' "$1"
}

# Prints "cycle: a -> b -> a" for the first cycle of the graph in file $1 ("from to" lines).
find_cycle() {
    awk '
        { if ($1 != $2) { adj[$1] = adj[$1] " " $2 } }
        function visit(v,    i, k, m, next_) {
            state[v] = 1
            stack[++depth] = v
            m = split(adj[v], next_, " ")
            for (i = 1; i <= m; ++i) {
                if (state[next_[i]] == 1) {
                    path = ""
                    for (k = 1; k <= depth; ++k)
                        if (stack[k] == next_[i] || path != "")
                            path = path stack[k] " -> "
                    print "cycle: " path next_[i]
                    return 1
                }
                if (!state[next_[i]] && visit(next_[i]))
                    return 1
            }
            state[v] = 2
            --depth
            return 0
        }
        END { for (v in adj) if (!state[v] && visit(v)) exit 0 }
    ' "$1"
}

# ---- host/ ----------------------------------------------------------------------------------
layer_of() { # file name in host/ -> its layer number, empty if not in the table
    printf '%s\n' "$LAYERS" | awk -v f="$1" '{ for (i = 3; i <= NF; ++i) if ($i == f) print $1 }'
}

missing=""
for f in host/*.c host/*.h; do
    [ -e "$f" ] || continue
    [ -n "$(layer_of "${f#host/}")" ] || missing="$missing ${f#host/}"
done
point "$([ -z "$missing" ]; echo $?)" "every host file has a layer in the table" \
    "not in the table:$missing"

stale=""
for name in $(printf '%s\n' "$LAYERS" | awk 'NF { for (i = 3; i <= NF; ++i) print $i }'); do
    [ -e "host/$name" ] || stale="$stale $name"
done
point "$([ -z "$stale" ]; echo $?)" "every file in the layer table exists in host/" \
    "in the table but not in host/:$stale"

: >"$tmp/host_headers"
: >"$tmp/host_modules"
for f in host/*.c host/*.h; do
    [ -e "$f" ] || continue
    name=${f#host/}
    mine=$(layer_of "$name")
    bad=""
    for inc in $(includes "$f"); do
        [ -e "host/$inc" ] || continue # the public header or a generated one: a leaf
        case $name in *.h) echo "$name $inc" >>"$tmp/host_headers" ;; esac
        echo "${name%.*} ${inc%.*}" >>"$tmp/host_modules"
        theirs=$(layer_of "$inc")
        if [ -n "$mine" ] && [ -n "$theirs" ] && [ "$theirs" -gt "$mine" ]; then
            bad="$bad $inc (layer $theirs)"
        fi
    done
    point "$([ -z "$bad" ]; echo $?)" "host/$name (layer ${mine:-?}) includes only its layer or below" \
        "includes a higher layer:$bad"
done

cycle=$(find_cycle "$tmp/host_headers")
point "$([ -z "$cycle" ]; echo $?)" "no include cycle among host headers" "$cycle"
cycle=$(find_cycle "$tmp/host_modules")
point "$([ -z "$cycle" ]; echo $?)" "no cycle among host modules (x.c + x.h)" "$cycle"

# ---- tools/ ---------------------------------------------------------------------------------
: >"$tmp/tool_headers"
: >"$tmp/tool_modules"
find tools -type f \( -name '*.c' -o -name '*.h' -o -name '*.cpp' \) 2>/dev/null | sort \
    >"$tmp/tool_files"
while read -r f; do
    dir=$(dirname "$f")
    for inc in $(includes "$f"); do
        target=""
        for cand in "$dir/$inc" tools/*/"$inc" "tools/$inc"; do
            if [ -f "$cand" ]; then
                target=$cand
                break
            fi
        done
        [ -n "$target" ] || continue # include/clsort.h, a generated or an outside header
        # One spelling per file: folder resolved, "./" and "../" gone.
        target=$(cd "$(dirname "$target")" && pwd -P)/$(basename "$target")
        target=${target#"$(pwd -P)/"}
        case $f in *.h) echo "$f $target" >>"$tmp/tool_headers" ;; esac
        echo "${f%.*} ${target%.*}" >>"$tmp/tool_modules"
    done
done <"$tmp/tool_files"

cycle=$(find_cycle "$tmp/tool_headers")
point "$([ -z "$cycle" ]; echo $?)" "no include cycle among tools/ headers" "$cycle"
cycle=$(find_cycle "$tmp/tool_modules")
point "$([ -z "$cycle" ]; echo $?)" "no cycle among tools/ modules (x.c + x.h)" "$cycle"

echo "1..$n"
exit $failed
