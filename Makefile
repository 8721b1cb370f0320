# clsort - sorting networks in OpenCL. `make` builds everything into build/.
# `make deps` installs what is missing (Debian, apt-get); `make` itself never installs anything.

CC      ?= cc
CXX     ?= c++
PREFIX  ?= /usr/local
BUILD   ?= build
WERROR  ?=
OPT     ?= -O2
CFLAGS  ?= $(OPT) -g
CXXFLAGS ?= $(OPT) -g
WARN     = -Wall -Wextra -Wpedantic $(if $(WERROR),-Werror)
SAN     ?=
ALL_CFLAGS   = -std=c11 $(WARN) $(SAN) -D_POSIX_C_SOURCE=200809L -Iinclude -Ihost -I$(BUILD) $(CFLAGS)
ALL_CXXFLAGS = -std=c++17 $(WARN) $(SAN) -Iinclude $(CXXFLAGS)
LDLIBS  = -lOpenCL -lpthread -lm

DEB_PKGS = opencl-headers ocl-icd-opencl-dev pocl-opencl-icd clinfo libinih-dev gnuplot-nox

KERNELS   = kernels/common.cl kernels/bitonic.cl kernels/oddeven_merge.cl kernels/transposition.cl
LIB_SRCS  = $(wildcard host/*.c)
LIB_OBJS  = $(LIB_SRCS:host/%.c=$(BUILD)/obj/%.o)
PIC_OBJS  = $(LIB_SRCS:host/%.c=$(BUILD)/pic/%.o)
CLI_SRCS  = $(wildcard tools/clsort_*.c)
TUNE_SRCS = $(wildcard tools/tune_*.c)
BENCH_SRCS = $(wildcard tools/bench_*.c)
BENCH_CXX  = $(wildcard tools/bench_*.cpp)
TEST_SRCS = $(wildcard tests/test_*.c)
TEST_BINS = $(TEST_SRCS:tests/%.c=$(BUILD)/tests/%)

TOOLS = $(if $(CLI_SRCS),$(BUILD)/clsort) $(if $(TUNE_SRCS),$(BUILD)/clsort-tune) \
        $(if $(BENCH_SRCS),$(BUILD)/clsort-bench)

.PHONY: all lib tools tests test deps demo clean install check-werror plots
all: lib tools

lib: $(BUILD)/libclsort.a $(BUILD)/libclsort.so
tools: $(TOOLS)
tests: $(TEST_BINS)

# Kernels are real .cl files, embedded as byte arrays by a tiny host program (no xxd needed).
$(BUILD)/embed: tools/embed.c | $(BUILD)
	$(CC) -std=c11 -O2 -o $@ $<
$(BUILD)/kernels_embedded.c: $(KERNELS) $(BUILD)/embed
	$(BUILD)/embed $@ $(KERNELS)

$(BUILD) $(BUILD)/obj $(BUILD)/pic $(BUILD)/tests:
	mkdir -p $@

$(BUILD)/obj/%.o: host/%.c $(wildcard host/*.h) include/clsort.h | $(BUILD)/obj
	$(CC) $(ALL_CFLAGS) -c -o $@ $<
$(BUILD)/pic/%.o: host/%.c $(wildcard host/*.h) include/clsort.h | $(BUILD)/pic
	$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden -c -o $@ $<
$(BUILD)/obj/kernels_embedded.o: $(BUILD)/kernels_embedded.c | $(BUILD)/obj
	$(CC) $(ALL_CFLAGS) -c -o $@ $<
$(BUILD)/pic/kernels_embedded.o: $(BUILD)/kernels_embedded.c | $(BUILD)/pic
	$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden -c -o $@ $<

$(BUILD)/libclsort.a: $(LIB_OBJS) $(BUILD)/obj/kernels_embedded.o
	rm -f $@ && ar rcs $@ $^
$(BUILD)/libclsort.so: $(PIC_OBJS) $(BUILD)/pic/kernels_embedded.o
	$(CC) -shared $(SAN) -Wl,-soname,libclsort.so.0 -o $@ $^ $(LDLIBS)

# Tools use only the public header and link the static library.
$(BUILD)/tobj:
	mkdir -p $@
$(BUILD)/tobj/%.o: tools/%.c $(wildcard tools/*.h) include/clsort.h | $(BUILD)/tobj
	$(CC) $(ALL_CFLAGS) -Itools -c -o $@ $<
$(BUILD)/tobj/%.o: tools/%.cpp | $(BUILD)/tobj
	$(CXX) $(ALL_CXXFLAGS) -Itools -c -o $@ $<
$(BUILD)/clsort: $(CLI_SRCS:tools/%.c=$(BUILD)/tobj/%.o) $(BUILD)/libclsort.a
	$(CC) $(SAN) -o $@ $^ $(LDLIBS)
$(BUILD)/clsort-tune: $(TUNE_SRCS:tools/%.c=$(BUILD)/tobj/%.o) $(BUILD)/libclsort.a
	$(CC) $(SAN) -o $@ $^ $(LDLIBS)
$(BUILD)/clsort-bench: $(BENCH_SRCS:tools/%.c=$(BUILD)/tobj/%.o) $(BENCH_CXX:tools/%.cpp=$(BUILD)/tobj/%.o) $(BUILD)/libclsort.a
	$(CXX) $(SAN) -o $@ $^ $(LDLIBS)

# Tests: each tests/test_*.c is one program (TAP output); tests/run_tests.sh runs them all.
$(BUILD)/tests/%: tests/%.c $(wildcard tests/*.h) $(BUILD)/libclsort.a | $(BUILD)/tests
	$(CC) $(ALL_CFLAGS) -Itests -o $@ $< $(BUILD)/libclsort.a $(LDLIBS)

test: all tests
	BUILD=$(BUILD) sh tests/run_tests.sh

check-werror:
	$(MAKE) WERROR=1 all tests

deps:
	@missing=""; for p in $(DEB_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then echo "installing:$$missing"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	else echo "deps: all present"; fi

demo: deps all
	sh tools/demo.sh $(BUILD)

install: all
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/bin \
	    $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/clsort/devices
	install -m 644 include/clsort.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 $(BUILD)/libclsort.a $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(BUILD)/libclsort.so $(DESTDIR)$(PREFIX)/lib/
	for t in $(TOOLS); do install -m 755 $$t $(DESTDIR)$(PREFIX)/bin/; done
	for m in docs/*.1; do [ -f $$m ] && install -m 644 $$m $(DESTDIR)$(PREFIX)/share/man/man1/; done; true
	for c in configs/*.ini; do [ -f $$c ] && install -m 644 $$c $(DESTDIR)$(PREFIX)/share/clsort/devices/; done; true

clean:
	rm -rf $(BUILD)

# Benchmark plots (clsort-bench): `make plots CSV=docs/bench-XXX.csv` renders docs/bench-XXX-<type>.png,
# keys/s against n on log-log axes, one line per network and per CPU reference (needs gnuplot).
PLOTDIR ?= docs
plots:
	@test -n "$(CSV)" || { echo "usage: make plots CSV=docs/bench-XXX.csv [PLOTDIR=docs]" >&2; exit 2; }
	@test -f "$(CSV)" || { echo "make plots: no such file: $(CSV)" >&2; exit 2; }
	@command -v gnuplot >/dev/null || { echo "make plots: gnuplot not found (make deps installs it)" >&2; exit 2; }
	mkdir -p $(PLOTDIR)
	gnuplot -e "csv='$(CSV)'; outdir='$(PLOTDIR)'" tools/bench_plot.gp
LDLIBS += -linih
