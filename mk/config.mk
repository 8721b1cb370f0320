# mk/config.mk - compilers, flags, the version, install places, Debian packages and the source lists (included by the top-level Makefile).

CC      ?= cc
CXX     ?= c++
BUILD   ?= build
WERROR  ?=
OPT     ?= -O2
CFLAGS  ?= $(OPT) -g
CXXFLAGS ?= $(OPT) -g
WARN     = -Wall -Wextra -Wpedantic $(if $(WERROR),-Werror)
SAN     ?=
ALL_CFLAGS   = -std=c11 $(WARN) $(SAN) -D_POSIX_C_SOURCE=200809L -Iinclude -I$(BUILD) $(CFLAGS)
# The library's layers, one folder each under host/, highest first (docs/design.md, "Layers";
# tests/check_layers.sh reads a file's layer from its folder). Only the library and the white-box
# tests see them: the tools compile against include/ alone, so the compiler enforces that they use
# the public API.
HOST_DIRS    = host/api host/dispatch host/planning host/execution host/programs host/device host/core
HOST_INC     = $(addprefix -I,$(HOST_DIRS))
HOST_HDRS    = $(wildcard $(addsuffix /*.h,$(HOST_DIRS)))
vpath %.c $(HOST_DIRS)
vpath %.cc $(HOST_DIRS)
ALL_CXXFLAGS = -std=c++17 $(WARN) $(SAN) -Iinclude $(CXXFLAGS)
LDLIBS  = -lOpenCL -lpthread -lm -linih
# Highway's vqsort is the library's host sort where its header is found (Debian: libhwy-dev, in
# DEB_PKGS); else the library's own radix sort. `make HAVE_HWY=` builds without it. With it the
# library needs libhwy_contrib, libhwy and libstdc++ (clsort.pc and the CMake package say so).
# (-include, not an echoed '#include': GNU make 4.3 passes a backslash-escaped '#' through to the
# shell, the preprocessor took '\#include' for text and every machine seemed to have Highway.)
ifeq ($(origin HAVE_HWY),undefined)
HAVE_HWY := $(shell $(CXX) -E -x c++ -include hwy/contrib/sort/vqsort.h /dev/null >/dev/null 2>&1 && echo 1)
endif
HWY_LIBS  = $(if $(HAVE_HWY),-lhwy_contrib -lhwy -lstdc++)
LDLIBS   += $(HWY_LIBS)

# The version comes from include/clsort.h, the only place it is written.
version_part = $(shell sed -n 's/^\#define CLSORT_VERSION_$(1) *\([0-9][0-9]*\).*/\1/p' include/clsort.h)
VERSION_MAJOR := $(call version_part,MAJOR)
VERSION_MINOR := $(call version_part,MINOR)
VERSION_PATCH := $(call version_part,PATCH)
VERSION       := $(VERSION_MAJOR).$(VERSION_MINOR).$(VERSION_PATCH)
# The shared library as the dynamic loader and the linker want it: the real file, the soname link
# that programs record (libclsort.so.0) and the development link that -lclsort finds.
SO_REAL = libclsort.so.$(VERSION)
SO_NAME = libclsort.so.$(VERSION_MAJOR)
SO_DEV  = libclsort.so

# Install places (GNU names). The runtime finds the shipped configs relative to the library or
# the program, so these need not be known when building; CLSORT_DATADIR is only a last resort.
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DATADIR    ?= $(PREFIX)/share
MANDIR     ?= $(DATADIR)/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
CMAKEDIR   ?= $(LIBDIR)/cmake/clsort
CONFIGDIR   = $(DATADIR)/clsort/devices
LDCONFIG   ?= ldconfig

# What building and running need (a C and C++ compiler assumed); `make deps`.
DEB_PKGS = opencl-headers ocl-icd-opencl-dev pocl-opencl-icd libinih-dev libhwy-dev
# Tests, fuzzing, sanitizers, plots, the Python package's tests, the install test (pkg-config,
# cmake), the MPI tool and strace (the CLI tests count --no-fsync's sync calls with it); `make
# deps-dev` installs them with DEB_PKGS.
DEB_DEV_PKGS = clinfo clang libclang-rt-dev valgrind gnuplot-nox python3-numpy python3-pytest \
               python3-pyopencl python3-pip pkg-config cmake openmpi-bin libopenmpi-dev strace

# The kernel parts, from kernels/manifest.h: every P(name) of its CLSORT_PARTS_* lists is
# kernels/name.cl (or .h: the manifest itself and key_types), embedded as clsort__src_name. A part
# the manifest names without its file stops the build here rather than at link time.
KERNEL_PARTS := $(sort $(shell sed -n '/^\#define CLSORT_PARTS_/,/[^\\]$$/p' kernels/manifest.h | \
                               grep -o '\<P([a-z0-9_]*)' | sed 's/^P(//; s/)$$//'))
KERNELS := $(foreach p,$(KERNEL_PARTS),$(or $(wildcard kernels/$(p).cl kernels/$(p).h),\
             $(error kernels/manifest.h names the part $(p), but kernels/ has no $(p).cl or $(p).h)))
LIB_SRCS  = $(wildcard $(addsuffix /*.c,$(HOST_DIRS)))
LIB_OBJS  = $(patsubst %.c,$(BUILD)/obj/%.o,$(notdir $(LIB_SRCS))) $(if $(HAVE_HWY),$(BUILD)/obj/hostsort_hwy.o)
PIC_OBJS  = $(patsubst %.c,$(BUILD)/pic/%.o,$(notdir $(LIB_SRCS))) $(if $(HAVE_HWY),$(BUILD)/pic/hostsort_hwy.o)
# The tools in layers (docs/design.md, "The tools' layers"), highest first: the entry points
# (tools/main/), one folder per program (tools/clsort, clsort-mpi, clsort-bench, clsort-tune),
# the merges (tools/merge/) and what all of them share (tools/lib/). A program is its entry point
# and its folder, linked with the shared layers' archive.
CLI_SRCS   = $(wildcard tools/clsort/*.c) tools/main/clsort_main.c
TUNE_SRCS  = $(wildcard tools/clsort-tune/*.c) tools/main/tune_main.c
BENCH_SRCS = $(wildcard tools/clsort-bench/*.c) tools/main/bench_main.c
BENCH_CXX  = $(wildcard tools/clsort-bench/*.cpp)
TEST_SRCS = $(wildcard tests/test_*.c)
TEST_BINS = $(TEST_SRCS:tests/%.c=$(BUILD)/tests/%)

# clsort-mpi is built only where an MPI compiler wrapper is on PATH; `make` without
# MPI builds everything else. `make MPICC=` leaves it out.
MPICC    ?= $(shell command -v mpicc 2>/dev/null)
MPI_SRCS  = $(wildcard tools/clsort-mpi/*.c) tools/main/mpi_main.c
# The shared layers, one static library that every program links: tools/lib/ (records, files and
# output, options, sizes, key names, clocks, messages, signals) and tools/merge/.
TOOLS_LIB_SRCS = $(wildcard tools/lib/*.c) $(wildcard tools/merge/*.c)
TOOLS_LIB      = $(BUILD)/libclsort-tools.a

# The man pages: docs/*.1 hold @VERSION@ where the version goes; the build writes them to
# $(BUILD)/man/ with include/clsort.h's version (mk/install.mk), and those are what is installed.
MAN_SRCS = $(wildcard docs/*.1)
MANPAGES = $(MAN_SRCS:docs/%=$(BUILD)/man/%)

TOOLS = $(if $(CLI_SRCS),$(BUILD)/clsort) $(if $(TUNE_SRCS),$(BUILD)/clsort-tune) \
        $(if $(BENCH_SRCS),$(BUILD)/clsort-bench) $(if $(MPICC),$(if $(MPI_SRCS),$(BUILD)/clsort-mpi))
