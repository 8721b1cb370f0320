# mk/install.mk - make install / make uninstall, clsort.pc and the CMake package (included by the top-level Makefile).

# ---- Install ----
# Everything goes under $(DESTDIR); the paths written into clsort.pc and the CMake package are
# those without it, where the files will be in the end. uninstall removes exactly these files
# (same variables), then the directories that belong to clsort alone.
MANPAGES = $(wildcard docs/*.1)
CONFIGS  = $(wildcard configs/*.ini)
# Requires.private names the .pc files of OpenCL and inih when this machine has them (Debian
# does), so that `pkg-config --static` follows their own link lines; else the libraries go to
# Libs.private by name.
PC_HAVE_DEPS := $(shell pkg-config --exists OpenCL inih 2>/dev/null && echo yes)
PC_REQUIRES_PRIVATE = $(if $(PC_HAVE_DEPS),OpenCL inih)
PC_LIBS_PRIVATE     = $(if $(PC_HAVE_DEPS),,-lOpenCL -linih) -lpthread -lm $(HWY_LIBS)
# The CMake package's static target: the same libraries where the library has vqsort.
CMAKE_HWY_LIBS      = $(if $(HAVE_HWY),;hwy_contrib;hwy;stdc++)
# clsort.h includes <CL/cl.h>: its headers' .pc goes to Requires when there is one.
PC_REQUIRES := $(shell pkg-config --exists OpenCL-Headers 2>/dev/null && echo OpenCL-Headers)

$(BUILD)/clsort.pc: mk/clsort.pc.in include/clsort.h FORCE | $(BUILD)
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' \
	    -e 's|@VERSION@|$(VERSION)|g' -e 's|@REQUIRES@|$(PC_REQUIRES)|g' \
	    -e 's|@REQUIRES_PRIVATE@|$(PC_REQUIRES_PRIVATE)|g' -e 's|@LIBS_PRIVATE@|$(PC_LIBS_PRIVATE)|g' \
	    mk/clsort.pc.in >$@
$(BUILD)/clsortConfig.cmake: mk/clsortConfig.cmake.in include/clsort.h FORCE | $(BUILD)
	sed -e 's|@LIBDIR@|$(LIBDIR)|g' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@SO_REAL@|$(SO_REAL)|g' \
	    -e 's|@SO_NAME@|$(SO_NAME)|g' -e 's|@HWY_LIBS@|$(CMAKE_HWY_LIBS)|g' mk/clsortConfig.cmake.in >$@
$(BUILD)/clsortConfigVersion.cmake: mk/clsortConfigVersion.cmake.in include/clsort.h | $(BUILD)
	sed -e 's|@VERSION@|$(VERSION)|g' mk/clsortConfigVersion.cmake.in >$@
FORCE:

install: all $(BUILD)/clsort.pc $(BUILD)/clsortConfig.cmake $(BUILD)/clsortConfigVersion.cmake
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(BINDIR) \
	    $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(CONFIGDIR) $(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(CMAKEDIR)
	install -m 644 include/clsort.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 644 $(BUILD)/libclsort.a $(DESTDIR)$(LIBDIR)/
	install -m 755 $(BUILD)/$(SO_REAL) $(DESTDIR)$(LIBDIR)/
	ln -sf $(SO_REAL) $(DESTDIR)$(LIBDIR)/$(SO_NAME)
	ln -sf $(SO_NAME) $(DESTDIR)$(LIBDIR)/$(SO_DEV)
	install -m 644 $(BUILD)/clsort.pc $(DESTDIR)$(PKGCONFIGDIR)/
	install -m 644 $(BUILD)/clsortConfig.cmake $(BUILD)/clsortConfigVersion.cmake $(DESTDIR)$(CMAKEDIR)/
	$(if $(TOOLS),install -m 755 $(TOOLS) $(DESTDIR)$(BINDIR)/)
	$(if $(MANPAGES),install -m 644 $(MANPAGES) $(DESTDIR)$(MANDIR)/man1/)
	$(if $(CONFIGS),install -m 644 $(CONFIGS) $(DESTDIR)$(CONFIGDIR)/)
	@# A library put straight into a system directory is found only once the loader's cache
	@# knows it; a staged install (DESTDIR) leaves that to the package.
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v $(LDCONFIG) >/dev/null 2>&1; then \
	  echo "$(LDCONFIG)"; $(LDCONFIG) || true; fi

uninstall:
	rm -f $(DESTDIR)$(INCLUDEDIR)/clsort.h $(DESTDIR)$(LIBDIR)/libclsort.a \
	    $(DESTDIR)$(LIBDIR)/$(SO_REAL) $(DESTDIR)$(LIBDIR)/$(SO_NAME) $(DESTDIR)$(LIBDIR)/$(SO_DEV) \
	    $(DESTDIR)$(PKGCONFIGDIR)/clsort.pc \
	    $(DESTDIR)$(CMAKEDIR)/clsortConfig.cmake $(DESTDIR)$(CMAKEDIR)/clsortConfigVersion.cmake \
	    $(addprefix $(DESTDIR)$(BINDIR)/,$(notdir $(TOOLS))) \
	    $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MANPAGES))) \
	    $(addprefix $(DESTDIR)$(CONFIGDIR)/,$(notdir $(CONFIGS)))
	rmdir $(DESTDIR)$(CONFIGDIR) $(DESTDIR)$(DATADIR)/clsort $(DESTDIR)$(CMAKEDIR) 2>/dev/null || true
