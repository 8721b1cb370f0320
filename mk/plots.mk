# mk/plots.mk - benchmark plots (gnuplot) (included by the top-level Makefile).

# ---- Plots ----
# Benchmark plots (clsort-bench): `make plots CSV=docs/bench-XXX.csv` renders docs/bench-XXX-<type>.png,
# keys/s against n on log-log axes, one line per network and per CPU reference (needs gnuplot).
PLOTDIR ?= docs
plots:
	@test -n "$(CSV)" || { echo "usage: make plots CSV=docs/bench-XXX.csv [PLOTDIR=docs]" >&2; exit 2; }
	@test -f "$(CSV)" || { echo "make plots: no such file: $(CSV)" >&2; exit 2; }
	@command -v gnuplot >/dev/null || { echo "make plots: gnuplot not found (make deps installs it)" >&2; exit 2; }
	mkdir -p $(PLOTDIR)
	gnuplot -e "csv='$(CSV)'; outdir='$(PLOTDIR)'" tools/clsort-bench/bench_plot.gp
