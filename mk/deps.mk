# mk/deps.mk - make deps / make deps-dev (Debian packages) and make demo (included by the top-level Makefile).

# ---- Dependencies ----
# `make deps` installs the packages of DEB_PKGS that are missing, `make deps-dev` those of
# DEB_PKGS and DEB_DEV_PKGS (apt-get, with sudo when not root).
define apt_install
	@missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then echo "installing:$$missing"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	else echo "$@: all present"; fi
endef
deps:
	$(call apt_install,$(DEB_PKGS))
deps-dev:
	$(call apt_install,$(DEB_PKGS) $(DEB_DEV_PKGS))

# ---- Demo ----
# `make demo`: sorts 64 MiB of random keys with $(BUILD)/clsort and checks the result (mk/demo.sh).
demo: deps all
	sh mk/demo.sh $(BUILD)
