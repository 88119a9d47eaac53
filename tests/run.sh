#!/bin/sh
# Run the test suites of build dir $1: each prints its Check summary; the
# last line adds them up ("N passed, N failed").  Exit non-zero when any
# suite fails.
B=$1; shift
export SBP_BUILD="$B"
export CK_DEFAULT_TIMEOUT=120
failed_suites=0 passed=0 failed=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for s in "$@"; do
	echo "== $s ($B)"
	"$B/tests/test_$s" > "$out" 2>&1
	rc=$?
	cat "$out"
	# "100%: Checks: 23, Failures: 0, Errors: 0"
	set -- $(sed -n 's/.*Checks: \([0-9]*\), Failures: \([0-9]*\), Errors: \([0-9]*\).*/\1 \2 \3/p' "$out" | tail -n 1)
	if [ $# -eq 3 ]; then
		passed=$((passed + $1 - $2 - $3))
		failed=$((failed + $2 + $3))
	fi
	if [ "$rc" -ne 0 ] || [ $# -ne 3 ]; then
		echo "FAILED: $s ($B)"
		failed_suites=$((failed_suites + 1))
		[ $# -eq 3 ] || failed=$((failed + 1))
	fi
done
echo "$(basename "$B"): $passed passed, $failed failed"
[ "$failed_suites" -eq 0 ]
