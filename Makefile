# clsort - sorting networks in OpenCL. `make` builds everything into build/.
# `make deps` installs what building and running need (Debian, apt-get), `make deps-dev` that plus
# the test tools; `make` itself never installs anything. `make install` / `make uninstall` take
# PREFIX, LIBDIR (e.g. /usr/lib/x86_64-linux-gnu), BINDIR, INCLUDEDIR, DATADIR, MANDIR and DESTDIR.
#
# This file is the table of contents; each concern is one file under mk/:
#   mk/config.mk       compilers and flags, the version, install places, packages, source lists
#   mk/library.mk      libclsort.a and libclsort.so from host/'s layer folders (mk/config.mk's
#                      HOST_DIRS: api, dispatch, planning, execution, programs, device, core)
#                      and the embedded kernels/
#   mk/tools.mk        clsort, clsort-tune, clsort-bench, clsort-mpi and their shared layers
#   mk/tests.mk        the test programs; `make test` runs tests/run_tests.sh
#   mk/install.mk      `make install`, `make uninstall`, clsort.pc, the CMake package
#   mk/deps.mk         `make deps`, `make deps-dev`, `make demo`
#   mk/plots.mk        `make plots`
#   mk/reliability.mk  `make check-sanitize`, `check-valgrind`, `fuzz`, `check-reliability`,
#                      `check-gpu`

include mk/config.mk

.PHONY: all lib tools man tests test check-long deps deps-dev demo clean install uninstall check-werror plots
all: lib tools man

lib: $(BUILD)/libclsort.a $(BUILD)/$(SO_DEV)
tools: $(TOOLS)
man: $(MANPAGES)
tests: $(TEST_BINS)

clean:
	rm -rf $(BUILD)

include mk/library.mk
include mk/tools.mk
include mk/tests.mk
include mk/install.mk
include mk/deps.mk
include mk/plots.mk
include mk/reliability.mk
