# mk/install.mk - make install / make uninstall, clsort.pc and the CMake package (included by the top-level Makefile).

# ---- Install ----
# Everything goes under $(DESTDIR); the paths written into clsort.pc and the CMake package are
# those without it, where the files will be in the end. uninstall removes exactly these files
# (same variables), then the directories that belong to clsort alone and those that install
# created (it lists them in INSTALLED_DIRS, so that a directory that was there before, such as
# an empty /usr/local/bin, stays).
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

# The man pages with the version of include/clsort.h (MANPAGES, mk/config.mk) and, as their
# date, the last commit's that touched the docs (none outside a git checkout).
MAN_DATE ?= $(shell git log -1 --format=%cs -- docs 2>/dev/null)
$(BUILD)/man/%.1: docs/%.1 include/clsort.h
	@mkdir -p $(@D)
	sed -e 's|@VERSION@|$(VERSION)|g' -e 's|@DATE@|$(MAN_DATE)|g' $< >$@

# The directories install puts files in, and the list of those it had to create; not for a
# staged install (DESTDIR), whose package owns its directories and must not ship the list.
INSTALL_DIRS  = $(LIBDIR) $(INCLUDEDIR) $(BINDIR) $(MANDIR)/man1 $(CONFIGDIR) $(PKGCONFIGDIR) $(CMAKEDIR)
INSTALLED_DIRS = $(DATADIR)/clsort/installed-dirs
# The loader's cache matters only where the loader looks without being told: the system's
# library directories and those /etc/ld.so.conf names. A private prefix (a home directory, a
# test's temporary one) is found through LD_LIBRARY_PATH or an rpath, and rewriting the
# machine's cache for it is no business of make install.
LDCONFIG_DIRS = /lib /lib64 /usr/lib /usr/lib64 /lib/$(MULTIARCH) /usr/lib/$(MULTIARCH)
MULTIARCH    := $(shell $(CC) -print-multiarch 2>/dev/null)

install: all $(BUILD)/clsort.pc $(BUILD)/clsortConfig.cmake $(BUILD)/clsortConfigVersion.cmake
	@new=; for d in $(INSTALL_DIRS); do \
	  while [ "$$d" != / ] && [ "$$d" != . ] && [ ! -d "$(DESTDIR)$$d" ]; do \
	    new="$$new $$d"; d=$$(dirname "$$d"); done; done; \
	  echo "install -d $(addprefix $(DESTDIR),$(INSTALL_DIRS))"; \
	  install -d $(addprefix $(DESTDIR),$(INSTALL_DIRS)) && \
	  if [ -z "$(DESTDIR)" ]; then \
	    { cat "$(INSTALLED_DIRS)" 2>/dev/null; printf '%s\n' $$new; } | \
	      sed '/^$$/d' | sort -u >"$(INSTALLED_DIRS).tmp" && \
	    mv "$(INSTALLED_DIRS).tmp" "$(INSTALLED_DIRS)"; fi
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
	@# knows it; a staged install (DESTDIR) leaves that to the package, a private prefix to
	@# LD_LIBRARY_PATH (LDCONFIG_DIRS above).
	@sys=; for d in $(LDCONFIG_DIRS); do [ "$$d" = "$(LIBDIR)" ] && sys=1; done; \
	  grep -qsx '$(LIBDIR)/*' /etc/ld.so.conf /etc/ld.so.conf.d/*.conf && sys=1; \
	  if [ -n "$$sys" ] && [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && \
	     command -v $(LDCONFIG) >/dev/null 2>&1; then echo "$(LDCONFIG)"; $(LDCONFIG) || true; fi

uninstall:
	rm -f $(DESTDIR)$(INCLUDEDIR)/clsort.h $(DESTDIR)$(LIBDIR)/libclsort.a \
	    $(DESTDIR)$(LIBDIR)/$(SO_REAL) $(DESTDIR)$(LIBDIR)/$(SO_NAME) $(DESTDIR)$(LIBDIR)/$(SO_DEV) \
	    $(DESTDIR)$(PKGCONFIGDIR)/clsort.pc \
	    $(DESTDIR)$(CMAKEDIR)/clsortConfig.cmake $(DESTDIR)$(CMAKEDIR)/clsortConfigVersion.cmake \
	    $(addprefix $(DESTDIR)$(BINDIR)/,$(notdir $(TOOLS))) \
	    $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MANPAGES))) \
	    $(addprefix $(DESTDIR)$(CONFIGDIR)/,$(notdir $(CONFIGS)))
	@created=$$(cat "$(DESTDIR)$(INSTALLED_DIRS)" 2>/dev/null); rm -f "$(DESTDIR)$(INSTALLED_DIRS)"; \
	  for d in $(CONFIGDIR) $(DATADIR)/clsort $(CMAKEDIR) \
	      $$(printf '%s\n' $$created | sort -r); do \
	    rmdir "$(DESTDIR)$$d" 2>/dev/null && echo "rmdir $(DESTDIR)$$d"; done; true
