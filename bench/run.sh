#!/bin/sh
# bench/run.sh: the micro benchmark of the hooked file calls, natively and
# under each preload library, in interleaved rounds.
#
#   sh bench/run.sh [BUILD_DIR]          (what "make bench" runs)
#
# Every column runs the same program (BUILD_DIR/bench/micro), which times one
# operation inside the process and prints ns per operation; process start,
# the launcher's fork and exec and the shim's constructor are outside the
# timed loop.  The machine is shared and noisy, so: every round runs every
# column of an op back to back, each between two native runs (in an order
# that rotates each round); a column is judged by the median over rounds of
# its ratio to the mean of those two native runs, and the spread (min-max of
# the per-round ratios) is printed next to it.  Compare ratios from one run,
# never absolute times across runs.
#
# Columns
#   native            micro alone
#   shim              micro under sbpreload: through the launcher
#                     (BUILD_DIR/sbpreload -W WS -- micro ...), which sets
#                     LD_PRELOAD and SBPRELOAD_POLICY itself (and will apply
#                     the kernel layer once it exists); without a working launcher, the shim
#                     alone (LD_PRELOAD=libsbpreload.so SBPRELOAD_CONFIG=...)
#   shim_alone        the shim alone, when the shim column used the launcher:
#                     the difference between the two will be the kernel layer
#                     (today both run the same code: their difference is noise)
#   preload_empty     a preload library that only calls through (the floor)
#   preload_realpath  the same, calling realpath() on every path (naive)
#   fakechroot        libfakechroot.so, when installed (make bench-deps)
#
# Environment (all optional)
#   ROUNDS=11              rounds
#   OPS="open open_rel create rename mkdir"   (micro also has stat, access)
#   TARGET_MS=50           iterations per op are calibrated natively so one
#                          native run takes about this long
#   SBP_STAT=median|min    which of micro's per-run figures to compare: the
#                          median batch (default) or the fastest
#   ITER_<op>=N            fix the iterations of one op instead
#   COLUMNS_ONLY="..."     run only these columns (native always runs)
#   SBP_SHIM=PATH          the shim library; setting it skips the launcher
#                          (e.g. SBP_SHIM=build/bench/preload_empty.so to try
#                          the driver before the shim exists)
#   SBP_LAUNCHER=PATH      the launcher (default BUILD_DIR/sbpreload)
#   SBP_LAUNCHER_ARGS=...  its arguments before "--" (default: -W WS)
#   SBP_SHIM_MODE=auto|launcher|preload
#   SBP_FAKECHROOT=PATH    libfakechroot.so
#   SBP_RESULTS=PATH       the JSON (default bench/results/latest.json)
#   BUDGET_<op>=X          the shim's budget as a ratio (open, open_rel 1.10; others 1.05)
#
# Exit status: 0 when the benchmark ran (budgets OVER are reported, not
# failed); 1 when it could not run at all.
set -eu

B=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)

say() { printf '%s\n' "$*"; }
warn() { printf 'bench: %s\n' "$*" >&2; }
abspath() { case $1 in /*) say "$1" ;; *) say "$(pwd)/$1" ;; esac; }

MICRO=$(abspath "${SBP_MICRO:-$B/bench/micro}")
SHIM=$(abspath "${SBP_SHIM:-$B/libsbpreload.so}")
LAUNCHER=$(abspath "${SBP_LAUNCHER:-$B/sbpreload}")
EMPTY=$(abspath "${SBP_EMPTY:-$B/bench/preload_empty.so}")
REALPATH=$(abspath "${SBP_REALPATH:-$B/bench/preload_realpath.so}")
FAKECHROOT=${SBP_FAKECHROOT:-/usr/lib/x86_64-linux-gnu/fakechroot/libfakechroot.so}
ROUNDS=${ROUNDS:-11}
OPS=${OPS:-open open_rel create rename mkdir}
TARGET_MS=${TARGET_MS:-50}
STAT=${SBP_STAT:-median}
RESULTS=${SBP_RESULTS:-$here/results/latest.json}
SHIM_MODE=${SBP_SHIM_MODE:-auto}

case $ROUNDS in '' | *[!0-9]* | 0) warn "ROUNDS must be a positive number"; exit 1 ;; esac
case $TARGET_MS in '' | *[!0-9]* | 0) warn "TARGET_MS must be a positive number"; exit 1 ;; esac
[ -x "$MICRO" ] || { warn "no $MICRO: run 'make $B/bench/micro' first"; exit 1; }

# "native" must be native even when this runs inside a sandbox or a preload.
if [ -n "${LD_PRELOAD:-}" ]; then
	warn "LD_PRELOAD was set ($LD_PRELOAD); unset for the native column"
fi
unset LD_PRELOAD SBPRELOAD_POLICY SBPRELOAD_CONFIG || true

WS=$(mktemp -d "${TMPDIR:-/tmp}/sbpbench.XXXXXX")
trap 'rm -rf "$WS"' EXIT
trap 'exit 130' INT TERM
TREE=$WS/tree
LARGS=${SBP_LAUNCHER_ARGS:--W $WS}
# The shim alone reads its policy from an INI: the built-in default, with
# the workspace set to the benchmark's.
printf '[sandbox]\nworkspace = %s\n' "$WS" >"$WS/bench.ini"

# run COLUMN MICRO-ARGS...: micro under COLUMN; stdout is micro's.
run() {
	col=$1
	shift
	case $col in
	native) "$MICRO" "$@" ;;
	shim)
		if [ "$SHIM_MODE" = launcher ]; then
			# shellcheck disable=SC2086 # LARGS is a list of words
			"$LAUNCHER" $LARGS -- "$MICRO" "$@"
		else
			env LD_PRELOAD="$SHIM" SBPRELOAD_CONFIG="$WS/bench.ini" "$MICRO" "$@"
		fi
		;;
	shim_alone) env LD_PRELOAD="$SHIM" SBPRELOAD_CONFIG="$WS/bench.ini" "$MICRO" "$@" ;;
	preload_empty) env LD_PRELOAD="$EMPTY" "$MICRO" "$@" ;;
	preload_realpath) env LD_PRELOAD="$REALPATH" "$MICRO" "$@" ;;
	fakechroot) env LD_PRELOAD="$FAKECHROOT" "$MICRO" "$@" ;;
	esac
}

# check COLUMN: micro's setup works under it and "open" resolves to the
# preload library, not to libc (a column that silently runs native would
# pass every budget).  Prints the providing object; fails with a reason.
check() {
	if ! run "$1" setup 0 "$TREE" >"$WS/check.out" 2>"$WS/check.err"; then
		sed 's/^/    /' "$WS/check.err" | tail -5 >&2
		say "setup under it failed"
		return 1
	fi
	run "$1" whoami 0 "$TREE" >"$WS/whoami.$1" 2>"$WS/check.err" || true
	obj=$(awk '$1 == "open" { print $2 }' "$WS/whoami.$1")
	case $obj in
	'') sed 's/^/    /' "$WS/check.err" | tail -5 >&2; say "micro whoami printed nothing"; return 1 ;;
	*/libc.so*) say "open() still resolves to $obj: the library is not loaded"; return 1 ;;
	esac
	say "$obj"
}

# ---- which columns, and how the shim column runs ----

want() { [ -z "${COLUMNS_ONLY:-}" ] || case " $COLUMNS_ONLY " in *" $1 "*) true ;; *) false ;; esac; }

COLS=native
NOTES=
note() { NOTES="$NOTES$*
"; say "  $*"; }

say "sbpreload micro benchmark: $ROUNDS rounds, ops: $OPS"
if [ "$SHIM_MODE" = auto ]; then
	if [ -n "${SBP_SHIM:-}" ]; then
		SHIM_MODE=preload
	elif [ -x "$LAUNCHER" ]; then
		SHIM_MODE=launcher
	else
		SHIM_MODE=preload
		note "no launcher at $LAUNCHER: the shim column is the shim alone (LD_PRELOAD)"
	fi
fi
SHIM_CMD=
if want shim; then
	if [ "$SHIM_MODE" = launcher ]; then
		if obj=$(check shim); then
			SHIM_CMD="$LAUNCHER $LARGS -- micro OP ITER DIR"
		else
			note "the launcher does not run micro ($obj); falling back to the shim alone"
			SHIM_MODE=preload
		fi
	fi
	if [ "$SHIM_MODE" = preload ]; then
		if [ ! -f "$SHIM" ]; then
			note "no shim at $SHIM: no shim column (build it, or set SBP_SHIM)"
		elif obj=$(check shim); then
			SHIM_CMD="LD_PRELOAD=$SHIM SBPRELOAD_CONFIG=bench.ini micro OP ITER DIR"
		else
			note "the shim does not run micro ($obj): no shim column"
		fi
	fi
	if [ -n "$SHIM_CMD" ]; then
		COLS="$COLS shim"
		note "shim: $SHIM_CMD  (open() from $obj)"
		case $obj in
		*libsbpreload*) ;;
		*) note "WARNING: the shim column is not libsbpreload.so but $obj: its verdicts say nothing about sbpreload" ;;
		esac
	fi
fi
if want shim_alone && [ "$SHIM_MODE" = launcher ] && [ -f "$SHIM" ]; then
	if obj=$(check shim_alone); then
		COLS="$COLS shim_alone"
		note "shim_alone: LD_PRELOAD=$SHIM (no kernel layer)"
	else
		note "the shim alone does not run micro ($obj): no shim_alone column"
	fi
fi
for col in preload_empty preload_realpath fakechroot; do
	want $col || continue
	case $col in
	preload_empty) lib=$EMPTY ;;
	preload_realpath) lib=$REALPATH ;;
	fakechroot) lib=$FAKECHROOT ;;
	esac
	if [ ! -f "$lib" ]; then
		if [ $col = fakechroot ]; then
			note "fakechroot: not installed ($lib; 'make bench-deps' installs it)"
		else
			note "$col: missing ($lib)"
		fi
		continue
	fi
	if obj=$(check $col); then
		COLS="$COLS $col"
	else
		note "$col: does not run micro ($obj)"
	fi
done

# ---- iterations: calibrated natively, so one native run takes ~TARGET_MS ----

ITERS=
for op in $OPS; do
	eval "fixed=\${ITER_$op:-}"
	if [ -n "$fixed" ]; then
		iter=$fixed
	else
		if ! out=$("$MICRO" "$op" 500 "$TREE"); then
			warn "micro $op fails natively"
			exit 1
		fi
		iter=$(say "$out" | awk -v t="$TARGET_MS" '$1 == "micro" {
			n = int(t * 1e6 / ($4 > 1 ? $4 : 1) / 50) * 50
			if (n < 250) n = 250
			if (n > 5000000) n = 5000000
			print n }')
	fi
	ITERS="$ITERS $op=$iter"
done
say "  iterations:$ITERS"
say "  columns: $COLS"

# An op whose function the shim does not hook measures libc in its columns:
# say so, rather than let it pass silently.
UNHOOKED=
for col in shim shim_alone; do
	[ -f "$WS/whoami.$col" ] || continue
	case " $COLS " in *" $col "*) ;; *) continue ;; esac
	for op in $OPS; do
		case $op in open | open_rel | create) fn=open ;; *) fn=$op ;; esac
		if awk -v f="$fn" '$1 == f && $2 ~ /\/libc\.so/ { found = 1 } END { exit !found }' "$WS/whoami.$col"; then
			note "$col: $fn() is not hooked (resolves to libc): its $op row measures libc"
			UNHOOKED="$UNHOOKED $col:$op"
		fi
	done
done

# ---- the rounds ----
#
# Each round, for each op: native, then every other column with a native run
# after each (N C1 N C2 N ...), the columns in an order that rotates each
# round.  The noise on a shared VM drifts over tenths of seconds, so each
# column is compared with the two native runs right beside it in time.

RAW=$WS/raw
: >"$RAW"
case $STAT in median) field=4 ;; min) field=5 ;; *) warn "SBP_STAT must be median or min"; exit 1 ;; esac
others=${COLS#native}
start=$(date +%s)
r=1
# once COLUMN OP ITER: one run, one raw line "ROUND OP SEQ COLUMN NS".
once() {
	if out=$(run "$1" "$2" "$3" "$TREE" 2>"$WS/err"); then
		ns=$(say "$out" | awk -v f="$field" '$1 == "micro" { v = $f } END { print v }')
	else
		ns=
		warn "$1 $2 round $r failed:"
		sed 's/^/    /' "$WS/err" | tail -3 >&2
	fi
	say "$r $2 $seq $1 ${ns:-fail}" >>"$RAW"
	seq=$((seq + 1))
}
while [ "$r" -le "$ROUNDS" ]; do
	[ -t 2 ] && printf '\r  round %d/%d ' "$r" "$ROUNDS" >&2
	order=$(say "$others" | awk -v k="$r" '{ for (i = 0; i < NF; i++) printf "%s ", $((i + k - 1) % NF + 1) }')
	for op in $OPS; do
		iter=$(say "$ITERS" | tr ' ' '\n' | sed -n "s/^$op=//p")
		seq=0
		once native "$op" "$iter"
		for col in $order; do
			once "$col" "$op" "$iter"
			once native "$op" "$iter"
		done
	done
	r=$((r + 1))
done
elapsed=$(($(date +%s) - start))
[ -t 2 ] && printf '\r                \r' >&2

# ---- medians, ratios, budgets; the table and the JSON ----

mkdir -p "$(dirname "$RESULTS")"
export SBP_META_DATE SBP_META_MACHINE SBP_META_KERNEL SBP_META_NPROC SBP_META_COMMIT \
	SBP_META_NOTES SBP_META_UNHOOKED SBP_META_OPS SBP_META_COLS SBP_META_ITERS SBP_META_SHIM_CMD
SBP_META_DATE=$(date -u +%Y-%m-%dT%H:%M:%SZ)
SBP_META_MACHINE=$(uname -a)
SBP_META_KERNEL=$(uname -r)
SBP_META_NPROC=$(nproc)
SBP_META_COMMIT=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || say unknown)
if ! git -C "$top" diff --quiet HEAD -- 2>/dev/null; then SBP_META_COMMIT="$SBP_META_COMMIT-dirty"; fi
SBP_META_NOTES=$NOTES
SBP_META_UNHOOKED=$UNHOOKED
SBP_META_OPS=$OPS
SBP_META_COLS=$COLS
SBP_META_ITERS=$ITERS
SBP_META_SHIM_CMD=$SHIM_CMD

awk -v rounds="$ROUNDS" -v json="$RESULTS.tmp" -v elapsed="$elapsed" -v stat="$STAT" \
	-f "$here/stats.awk" "$RAW"
mv "$RESULTS.tmp" "$RESULTS"
say "  results: $RESULTS"
