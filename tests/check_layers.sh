#!/bin/sh
# check_layers.sh - the include structure of host/ and tools/ (docs/design.md, "Modules"), read
# from the #include "..." lines (TAP). Checks:
#   - every host file lies in a layer folder (host/<layer>/, the layer named by the folder) and
#     file names are unique across them (the library compiles with one -I per layer);
#   - each host file includes only headers of its own layer or below;
#   - no include cycle among host headers, and none among host modules (x.c and x.h count as one
#     module, so two files that include each other's headers form a cycle);
#   - the tools' layers, read from their folders as for host/ (TOOL_LAYERS below): every tools
#     file lies in a layer folder, names are unique across them, each file includes only its own
#     layer or below, and a program's folder includes no other program's; an include resolves
#     against the including file's folder, then tools/*/;
#   - the same two cycle checks over tools/;
#   - no cycle among tools/ modules by their calls: a program's shared header (bench.h, tune.h)
#     declares the functions of several files, so includes alone do not show that two files call
#     each other; this check reads the functions each .c defines and the names each one uses.
# Headers outside host/ and tools/ (include/clsort.h, kernels/key_types.h, generated or system
# ones) are leaves.
# Usage: sh tests/check_layers.sh [ROOT] (default: the repository holding this script).

cd "${1:-$(dirname "$0")/..}" || exit 2

# The layers of host/ are its folders, highest first; a file may include headers of its own
# layer or below. The same order is HOST_DIRS in the Makefile and the table in docs/design.md.
LAYER_DIRS='api dispatch planning execution programs device core'

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
# A layer's number: 0 for core (the bottom), counting up to api; empty for an unknown folder.
layer_of_dir() {
    printf '%s\n' $LAYER_DIRS | awk -v d="$1" '{ names[NR] = $1 } END { for (i = 1; i <= NR; ++i) if (names[i] == d) print NR - i }'
}
# The folder (layer) holding a header name, searched as the compiler does (HOST_INC).
dir_of_header() {
    for d in $LAYER_DIRS; do
        [ -e "host/$d/$1" ] && { echo "$d"; return; }
    done
}

stray=""
for f in host/* host/*/*/*; do
    [ -f "$f" ] && stray="$stray $f"
done
point "$([ -z "$stray" ]; echo $?)" "every host file lies in a layer folder (host/<layer>/)" \
    "outside the layer folders:$stray"
unknown=""
for d in host/*/; do
    d=${d%/}
    [ -n "$(layer_of_dir "${d#host/}")" ] || unknown="$unknown $d"
done
point "$([ -z "$unknown" ]; echo $?)" "every folder under host/ is a known layer" \
    "not a layer ($LAYER_DIRS):$unknown"
dups=$(for f in host/*/*; do basename "$f"; done | sort | uniq -d | tr '\n' ' ')
point "$([ -z "$dups" ]; echo $?)" "file names are unique across host/ (one include path per layer)" \
    "in several layers: $dups"

: >"$tmp/host_headers"
: >"$tmp/host_modules"
for f in host/*/*.c host/*/*.h host/*/*.cc; do
    [ -e "$f" ] || continue
    rel=${f#host/}
    dir=${rel%%/*}
    name=${rel#*/}
    mine=$(layer_of_dir "$dir")
    mine=${mine:-0} # an unknown folder: reported above
    bad=""
    for inc in $(includes "$f"); do
        theirs_dir=$(dir_of_header "$inc")
        [ -n "$theirs_dir" ] || continue # the public header or a generated one: a leaf
        case $name in *.h) echo "$name $inc" >>"$tmp/host_headers" ;; esac
        echo "${name%.*} ${inc%.*}" >>"$tmp/host_modules"
        theirs=$(layer_of_dir "$theirs_dir")
        if [ "$theirs" -gt "$mine" ]; then
            bad="$bad $theirs_dir/$inc"
        fi
    done
    point "$([ -z "$bad" ]; echo $?)" "host/$rel includes only its layer ($dir) or below" \
        "includes a higher layer:$bad"
done

cycle=$(find_cycle "$tmp/host_headers")
point "$([ -z "$cycle" ]; echo $?)" "no include cycle among host headers" "$cycle"
cycle=$(find_cycle "$tmp/host_modules")
point "$([ -z "$cycle" ]; echo $?)" "no cycle among host modules (x.c + x.h)" "$cycle"

# ---- tools/ ---------------------------------------------------------------------------------
# The tools' layers, highest first: the entry points, the programs (one folder each, side by
# side: none includes another's), the merges, and what all of them share. The same order is in
# mk/tools.mk's include paths and docs/design.md's drawing.
TOOL_LAYERS='main programs merge lib'
TOOL_PROGRAMS='clsort clsort-mpi clsort-bench clsort-tune'

# A tools folder's layer number: 0 for lib, counting up to main; empty for an unknown folder.
tool_layer_of_dir() {
    case " $TOOL_PROGRAMS " in *" $1 "*) set -- programs ;; esac
    printf '%s\n' $TOOL_LAYERS | awk -v d="$1" '{ names[NR] = $1 } END { for (i = 1; i <= NR; ++i) if (names[i] == d) print NR - i }'
}

: >"$tmp/tool_headers"
: >"$tmp/tool_modules"
find tools -type f \( -name '*.c' -o -name '*.h' -o -name '*.cpp' \) 2>/dev/null | sort \
    >"$tmp/tool_files"
stray=$(awk -F/ 'NF != 3 { printf " %s", $0 }' "$tmp/tool_files")
point "$([ -z "$stray" ]; echo $?)" "every tools source lies in a layer folder (tools/<folder>/)" \
    "outside the layer folders:$stray"
unknown=""
for d in tools/*/; do
    d=${d%/}
    [ -n "$(tool_layer_of_dir "${d#tools/}")" ] || unknown="$unknown $d"
done
point "$([ -z "$unknown" ]; echo $?)" "every folder under tools/ is a known layer or program" \
    "not a layer ($TOOL_LAYERS; programs: $TOOL_PROGRAMS):$unknown"
dups=$(while read -r f; do basename "$f"; done <"$tmp/tool_files" | sort | uniq -d | tr '\n' ' ')
point "$([ -z "$dups" ]; echo $?)" "file names are unique across tools/" "in several folders: $dups"

while read -r f; do
    dir=$(dirname "$f")
    mine_dir=${dir#tools/}
    mine=$(tool_layer_of_dir "$mine_dir")
    mine=${mine:-0} # an unknown folder: reported above
    bad=""
    for inc in $(includes "$f"); do
        target=""
        for cand in "$dir/$inc" tools/*/"$inc"; do
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
        theirs_dir=$(dirname "$target")
        theirs_dir=${theirs_dir#tools/}
        theirs=$(tool_layer_of_dir "$theirs_dir")
        if [ "${theirs:-0}" -gt "$mine" ]; then
            bad="$bad $theirs_dir/$inc"
        elif [ "${theirs:-0}" = "$mine" ] && [ "$theirs_dir" != "$mine_dir" ] && [ "$mine_dir" != main ]; then
            bad="$bad $theirs_dir/$inc (another program)"
        fi
    done
    point "$([ -z "$bad" ]; echo $?)" "$f includes only its layer ($mine_dir) or below" \
        "includes a higher layer:$bad"
done <"$tmp/tool_files"

cycle=$(find_cycle "$tmp/tool_headers")
point "$([ -z "$cycle" ]; echo $?)" "no include cycle among tools/ headers" "$cycle"
cycle=$(find_cycle "$tmp/tool_modules")
point "$([ -z "$cycle" ]; echo $?)" "no cycle among tools/ modules (x.c + x.h)" "$cycle"

# Calls: module A -> module B when A's .c or .cpp uses a function that B's defines (a definition:
# a line at column 0, not static, with "name(" and no ";" at its end). Comments and strings are
# dropped first; a name defined in several modules tells nothing and is skipped.
strip_code() {
    awk '
        {
            line = $0; out = ""
            while (line != "") {
                if (in_comment) {
                    i = index(line, "*/")
                    if (!i) { line = ""; break }
                    line = substr(line, i + 2); in_comment = 0; continue
                }
                c = index(line, "/*"); d = index(line, "//"); q = index(line, "\"")
                first = 0
                if (c && (!first || c < first)) first = c
                if (d && (!first || d < first)) first = d
                if (q && (!first || q < first)) first = q
                if (!first) { out = out line; break }
                out = out substr(line, 1, first - 1)
                if (first == c) { line = substr(line, c + 2); in_comment = 1 }
                else if (first == d) { break }
                else {
                    rest = substr(line, q + 1)
                    while ((e = index(rest, "\"")) && substr(rest, e - 1, 1) == "\\")
                        rest = substr(rest, e + 1)
                    line = e ? substr(rest, e + 1) : ""
                }
            }
            print out
        }' "$1"
}
: >"$tmp/tool_code"
grep -E '\.(c|cpp)$' "$tmp/tool_files" | while read -r f; do
    strip_code "$f" | sed "s|^|${f%.*} |" >>"$tmp/tool_code"
done
awk '
    NR == FNR {
        m = $1; line = substr($0, length(m) + 2)
        if (line ~ /^[A-Za-z_]/ && line !~ /^(static|typedef|struct|enum|union|extern|return|else)[^A-Za-z0-9_]/ &&
            line ~ /\(/ && line !~ /;[ \t]*$/) {
            head = substr(line, 1, index(line, "(") - 1)
            k = split(head, w, /[^A-Za-z0-9_]+/)
            name = w[k]
            if (name != "" && name != "main") {
                if ((name in def) && def[name] != m) def[name] = "-"
                else def[name] = m
            }
        }
        next
    }
    {
        m = $1; line = substr($0, length(m) + 2)
        k = split(line, w, /[^A-Za-z0-9_]+/)
        for (i = 1; i <= k; ++i)
            if ((w[i] in def) && def[w[i]] != "-" && def[w[i]] != m && !seen[m " " def[w[i]]]++)
                print m, def[w[i]]
    }
' "$tmp/tool_code" "$tmp/tool_code" >"$tmp/tool_calls"
cycle=$(find_cycle "$tmp/tool_calls")
point "$([ -z "$cycle" ]; echo $?)" "no cycle among tools/ modules by their calls" "$cycle"

echo "1..$n"
exit $failed
