# bench_plot.gp - renders a clsort-bench CSV as PNG plots: for each key type, keys/s against n on
# log-log axes, one line per network (device time solid, end-to-end dashed) and per CPU reference
# (std::sort, qsort, and Highway's vqsort where clsort-bench was built with libhwy).
#
#   gnuplot -e "csv='docs/bench-h200.csv'; outdir='docs'" tools/clsort-bench/bench_plot.gp
#   (or: make plots CSV=docs/bench-h200.csv)
#
# Writes OUTDIR/<csv name without .csv>-<type>.png. Columns are found by their names in the CSV's
# header line, so added columns do not break the plots.

if (!exists("csv")) { print "bench_plot.gp: set csv='FILE.csv' with -e"; exit status 2 }
if (!exists("outdir")) { outdir = "docs" }

base = system(sprintf("basename '%s' .csv", csv))
device = system(sprintf("sed -n 's/^# device: \\([^|]*\\).*/\\1/p' '%s' | head -n 1", csv))
date = system(sprintf("sed -n 's/^# date: //p' '%s' | head -n 1", csv))

# An awk program that prints "n value" for the rows of type t (and network a, unless a is empty)
# whose column c is set, once per n: the CPU references repeat on every network's row.
sel(t, a, c) = sprintf("< awk -F, -v t='%s' -v a='%s' -v c='%s' '/^#/ {next} \
  !h { for (i = 1; i <= NF; i++) col[$i] = i; h = 1; next } \
  $col[\"type\"] == t && (a == \"\" || $col[\"algo\"] == a) && $col[c] != \"\" && !seen[$col[\"n\"]]++ \
  { print $col[\"n\"], $col[c] }' '%s'", t, a, c, csv)
# The types and networks present, in the order they first appear.
list(c) = system(sprintf("awk -F, '/^#/ {next} !h { for (i = 1; i <= NF; i++) col[$i] = i; h = 1; next } \
  !seen[$col[\"%s\"]]++ { printf \"%%s \", $col[\"%s\"] }' '%s'", c, c, csv))

types = list("type")
algos = list("algo")

set terminal pngcairo size 1000,760 enhanced font ",11"
set datafile separator whitespace
set logscale x 2
set logscale y 10
set format x "2^{%L}"
set xtics 4
set mxtics 2
set format y "10^{%L}"
set grid xtics ytics mytics
set key below maxrows 4 width 2
set xlabel "n (keys)"
set ylabel "keys/s"

do for [t in types] {
    set output sprintf("%s/%s-%s.png", outdir, base, t)
    set title sprintf("clsort-bench: %s on %s (%s)", t, device, date) noenhanced
    plot for [i = 1:words(algos)] sel(t, word(algos, i), "device_keys_per_s") \
             using 1:2 with linespoints lw 2 lc i pt 7 ps 0.6 title word(algos, i)." (device)", \
         for [i = 1:words(algos)] sel(t, word(algos, i), "e2e_keys_per_s") \
             using 1:2 with linespoints lw 1 dt 2 lc i pt 6 ps 0.6 title word(algos, i)." (end-to-end)", \
         sel(t, "", "stdsort_keys_per_s") using 1:2 with linespoints lw 2 lc rgb "black" pt 5 ps 0.6 \
             title "std::sort", \
         sel(t, "", "vqsort_keys_per_s") using 1:2 with linespoints lw 2 lc rgb "dark-red" pt 9 ps 0.6 \
             title "vqsort (Highway)", \
         sel(t, "", "qsort_keys_per_s") using 1:2 with linespoints lw 2 lc rgb "gray50" pt 4 ps 0.6 \
             title "qsort"
    print sprintf("wrote %s/%s-%s.png", outdir, base, t)
}
set output
