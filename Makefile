# sbpreload — build, test, install.
#
#   make            build the launcher and the shim into build/
#   make check      install missing packages (as root), build, run every test
#   make demo       a short scripted session under the built-in default policy
#   make bench      overhead microbenchmark (not part of check)
#   make install    PREFIX=/usr/local DESTDIR=
#   make deps       apt-get install the Debian packages below (as root)

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
MANDIR ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share/sbpreload
DESTDIR ?=

CC ?= gcc
# V=1 shows the full commands.
Q := $(if $(filter 1,$(V)),,@)
B ?= build
VERSION := 0.1.0

# Debian packages this needs, and the pkg-config names they provide.
DEB_PACKAGES := libseccomp-dev libinih-dev check pkg-config
PKGS := libseccomp inih check

PKG_OK := $(shell pkg-config --exists $(PKGS) 2>/dev/null && echo yes)

WARN := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wno-format-nonliteral -Wno-format-truncation
CFLAGS ?= -O2 -g
BASE_CFLAGS := -std=gnu11 $(WARN) -D_GNU_SOURCE -DSBP_VERSION='"$(VERSION)"' -Icore -I$(B)
# Sanitizers: SAN for the launcher and the tests, SHIM_SAN for the shim
# (see tests/tests.mk: check-san).
SAN ?=
SHIM_SAN ?=
ALL_CFLAGS := $(BASE_CFLAGS) $(CFLAGS) $(SAN)
# libc declares most path arguments nonnull, which would let the compiler
# drop the shim's own NULL checks: programs do pass NULL, and must get the
# kernel's EFAULT, not a crash in a hook.
SHIM_CFLAGS := $(BASE_CFLAGS) $(CFLAGS) $(SHIM_SAN) -fPIC -fvisibility=hidden -fno-stack-protector \
	-fno-delete-null-pointer-checks '-D__attribute_nonnull__(params)='

CORE_SRC := core/globmatch.c core/path.c core/policy.c core/config.c core/journal.c
SHIM_SRC := shim/shim.c shim/resolve.c shim/report.c shim/pincache.c
LAUNCHER_SRC := launcher/main.c launcher/run.c

INIH_STATIC := $(shell pkg-config --variable=libdir inih 2>/dev/null)/libinih.a

# Keep intermediate objects (no "rm ..." after the test summary, faster
# rebuilds).
.SECONDARY:

.PHONY: all check demo bench install uninstall clean deps
ifneq ($(PKG_OK),yes)
# Something is missing: install it (as root) or say what to install, then
# run the same goal again with pkg-config able to find everything.
all check demo bench install:
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "sbpreload: installing missing Debian packages: $(DEB_PACKAGES)"; \
		$(MAKE) --no-print-directory deps || exit 1; \
	else \
		echo "sbpreload: missing build dependencies (pkg-config: $(PKGS))."; \
		echo "  Install them with:  sudo apt-get install $(DEB_PACKAGES)"; \
		echo "  or run:             sudo make deps"; \
		exit 1; \
	fi
	@$(MAKE) --no-print-directory $@
else
all: $(B)/libsbpreload.so $(B)/sbpreload
endif

deps:
	@if [ "$$(id -u)" != 0 ]; then echo "make deps: run as root (apt-get)"; exit 1; fi
	DEBIAN_FRONTEND=noninteractive apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(DEB_PACKAGES) \
		gcc make python3 git util-linux

$(B)/.dir:
	@mkdir -p $(B)/core $(B)/shim $(B)/launcher $(B)/tests $(B)/bench
	@touch $@

# The built-in default policy is conf/default.ini itself.
$(B)/core/default_ini.o: core/default_ini.S conf/default.ini | $(B)/.dir
	@echo "  CC      $@"
	$(Q)$(CC) -c -fPIC -DDEFAULT_INI='"conf/default.ini"' $< -o $@

# The core is built twice: into the shim (PIC, hidden) and into the
# launcher and the tests.
$(B)/core/%.pic.o: core/%.c core/*.h | $(B)/.dir
	@echo "  CC      $@"
	$(Q)$(CC) $(SHIM_CFLAGS) $$(pkg-config --cflags inih) -c $< -o $@

$(B)/core/%.o: core/%.c core/*.h | $(B)/.dir
	@echo "  CC      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $$(pkg-config --cflags inih) -c $< -o $@

$(B)/shim/%.o: shim/%.c shim/*.h shim/hooks.def core/*.h | $(B)/.dir
	@echo "  CC      $@"
	$(Q)$(CC) $(SHIM_CFLAGS) -c $< -o $@

$(B)/launcher/%.o: launcher/%.c launcher/*.h core/*.h | $(B)/.dir
	@echo "  CC      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $$(pkg-config --cflags inih libseccomp) -c $< -o $@

SHIM_CORE_OBJ := $(CORE_SRC:core/%.c=$(B)/core/%.pic.o) $(B)/core/default_ini.o
CORE_OBJ := $(CORE_SRC:core/%.c=$(B)/core/%.o) $(B)/core/default_ini.o
SHIM_OBJ := $(SHIM_SRC:shim/%.c=$(B)/shim/%.o)
LAUNCHER_OBJ := $(LAUNCHER_SRC:launcher/%.c=$(B)/launcher/%.o)

# The shim exports only the hooked functions (shim/exports.map is made from
# the hook table) and carries inih inside it: no extra library to load in
# every process.
$(B)/shim/exports.map: shim/hooks.def | $(B)/.dir
	@{ echo '{ global:'; sed -n 's/^HOOK([^,]*, *\([A-Za-z0-9_]*\),.*/  \1;/p' $<; \
	   echo '  sbp_hooked_names; sbp_hooked_count;'; echo 'local: *; };'; } > $@

$(B)/libsbpreload.so: $(SHIM_OBJ) $(SHIM_CORE_OBJ) $(B)/shim/exports.map
	@echo "  CC      $@"
	$(Q)$(CC) $(SHIM_CFLAGS) -shared -fPIC -Wl,-z,now -Wl,-z,relro -Wl,--version-script=$(B)/shim/exports.map \
		-o $@ $(SHIM_OBJ) $(SHIM_CORE_OBJ) $(INIH_STATIC) -ldl

$(B)/sbpreload: $(LAUNCHER_OBJ) $(CORE_OBJ)
	@echo "  CC      $@"
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ $$(pkg-config --libs inih libseccomp)

ifeq ($(PKG_OK),yes)
include tests/tests.mk
include bench/bench.mk

demo: all
	@sh tests/demo.sh $(B)

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(DATADIR)
	install -m 0755 $(B)/sbpreload $(DESTDIR)$(BINDIR)/sbpreload
	install -m 0644 $(B)/libsbpreload.so $(DESTDIR)$(LIBDIR)/libsbpreload.so
	install -m 0644 docs/sbpreload.1 $(DESTDIR)$(MANDIR)/man1/sbpreload.1
	install -d $(DESTDIR)$(DATADIR)/examples
	install -m 0644 conf/*.ini $(DESTDIR)$(DATADIR)/
	install -m 0644 conf/examples/*.ini $(DESTDIR)$(DATADIR)/examples/
endif

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/sbpreload $(DESTDIR)$(LIBDIR)/libsbpreload.so \
		$(DESTDIR)$(MANDIR)/man1/sbpreload.1
	rm -rf $(DESTDIR)$(DATADIR)

clean:
	rm -rf build build-san
