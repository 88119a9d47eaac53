# bench/bench.mk: "make bench", included by the top Makefile (B, ALL_CFLAGS,
# CC and $(B)/.dir come from there).
#
#   make bench              the micro benchmark: native vs the shim (through
#                           the launcher) vs reference preload libraries, in
#                           interleaved rounds; prints medians, ratios and the
#                           shim's budget verdicts, writes bench/results/latest.json
#   make bench ROUNDS=5     fewer rounds (see bench/run.sh for the other knobs)
#   make bench-tools        build only the benchmark's own programs
#   make bench-deps         install the peers Debian packages (fakechroot), as root

BENCH_TOOLS := $(B)/bench/micro $(B)/bench/preload_empty.so $(B)/bench/preload_realpath.so
FAKECHROOT_DEB := fakechroot

.PHONY: bench bench-tools bench-deps

bench: $(B)/libsbpreload.so $(B)/sbpreload $(BENCH_TOOLS)
	sh bench/run.sh $(B)

bench-tools: $(BENCH_TOOLS)

# Only libc calls, so what a preload library adds to them is what is timed.
$(B)/bench/micro: bench/micro.c | $(B)/.dir
	$(CC) $(ALL_CFLAGS) -o $@ $<

# The reference preload libraries: the floor (call through) and the naive
# symlink check (realpath on every path).
$(B)/bench/preload_%.so: bench/preload_%.c bench/preload_hooks.h | $(B)/.dir
	$(CC) $(ALL_CFLAGS) -fPIC -shared -o $@ $< -ldl

bench-deps:
	@if [ "$$(id -u)" != 0 ]; then echo "make bench-deps: run as root (apt-get)"; exit 1; fi
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(FAKECHROOT_DEB)
