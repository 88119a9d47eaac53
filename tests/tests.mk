# Tests (included by the top Makefile).
#
#   unit      the policy core on its own: tables of cases (Check)
#   hooks     every hooked function, allowed and denied, as real processes
#             through tests/probe.c built four ways (plain, LFS, fortified, both)
#   programs  real programs, symlinks, '..', dirfds, /proc paths, races
#   launcher  the sbpreload command line, exit codes, signals, a terminal
#
# "make check" runs them all, then again under ASan and UBSan (build-san/).

TEST_SUITES := unit hooks programs launcher
TEST_BINS := $(TEST_SUITES:%=$(B)/tests/test_%)
PROBES := $(B)/tests/probe $(B)/tests/probe-lfs $(B)/tests/probe-fort $(B)/tests/probe-lfs-fort
TEST_HELPERS := $(B)/tests/flipper

$(B)/tests/%.o: tests/%.c tests/*.h core/*.h | $(B)/.dir
	@echo "  CC      $@"
	$(Q)$(CC) $(ALL_CFLAGS) -Itests $$(pkg-config --cflags check) -c $< -o $@

$(B)/tests/test_%: $(B)/tests/test_%.o $(B)/tests/util.o $(CORE_OBJ)
	@echo "  CC      $@"
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ $$(pkg-config --libs check inih) -lpthread

# The probe calls one libc function as a program compiled that way would.
# Programs run under the shim get the shim's sanitizers (ASan cannot come after a preload).
PROBE_CFLAGS := -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -g $(SHIM_SAN)
$(B)/tests/probe: tests/probe.c | $(B)/.dir
	@echo "  CC      $@"
	$(Q)$(CC) $(PROBE_CFLAGS) -O0 -U_FORTIFY_SOURCE -o $@ $<
$(B)/tests/probe-lfs: tests/probe.c | $(B)/.dir
	@echo "  CC      $@"
	$(Q)$(CC) $(PROBE_CFLAGS) -O0 -U_FORTIFY_SOURCE -D_FILE_OFFSET_BITS=64 -o $@ $<
$(B)/tests/probe-fort: tests/probe.c | $(B)/.dir
	@echo "  CC      $@"
	$(Q)$(CC) $(PROBE_CFLAGS) -O2 -U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=2 -o $@ $<
$(B)/tests/probe-lfs-fort: tests/probe.c | $(B)/.dir
	@echo "  CC      $@"
	$(Q)$(CC) $(PROBE_CFLAGS) -O2 -U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=2 -D_FILE_OFFSET_BITS=64 -o $@ $<

$(B)/tests/flipper: tests/flipper.c | $(B)/.dir
	@echo "  CC      $@"
	$(Q)$(CC) $(PROBE_CFLAGS) -O2 -o $@ $< -lpthread

tests: all $(TEST_BINS) $(PROBES) $(TEST_HELPERS)

.PHONY: tests check-run check-san
check-run: tests
	@sh tests/run.sh $(B) $(TEST_SUITES)

# The same suites built with AddressSanitizer and UndefinedBehaviorSanitizer.
# The shim gets UBSan only: ASan must be the first library of a process,
# which a preload library inside arbitrary programs cannot be.
check-san:
	@$(MAKE) --no-print-directory B=build-san SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
		SHIM_SAN="-fsanitize=undefined -fno-sanitize-recover=all" tests
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 sh tests/run.sh build-san $(TEST_SUITES)

# make install into a scratch DESTDIR, then the installed launcher must
# find the installed shim (../lib from bin/) and refuse a write.
.PHONY: check-install
check-install: all
	@d=$$(mktemp -d) && w=$$(mktemp -d) && \
	$(MAKE) --no-print-directory install DESTDIR=$$d PREFIX=/usr/local >/dev/null && \
	out=$$(cd $$w && $$d/usr/local/bin/sbpreload -- sh -c 'echo x > /etc/sbpreload-install-check; echo y > ok' 2>&1); \
	ok=0; echo "$$out" | grep -q "denied write '/etc/sbpreload-install-check'" && [ -f $$w/ok ] && \
		[ ! -e /etc/sbpreload-install-check ] && [ -f $$d/usr/local/share/man/man1/sbpreload.1 ] && ok=1; \
	rm -rf $$d $$w; \
	if [ $$ok = 1 ]; then echo "install: 1 passed, 0 failed"; else echo "$$out"; echo "install: 0 passed, 1 failed"; exit 1; fi

check: check-install check-run check-san
