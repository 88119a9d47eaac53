#!/bin/sh
# Run the test suites of build dir $1; print each suite's Check summary and
# one closing line.  Exit non-zero when any suite fails.
B=$1; shift
export SBP_BUILD="$B"
export CK_DEFAULT_TIMEOUT=120
failed=0
for s in "$@"; do
	echo "== $s ($B)"
	if ! "$B/tests/test_$s"; then
		echo "FAILED: $s ($B)"
		failed=$((failed + 1))
	fi
done
if [ "$failed" -ne 0 ]; then
	echo "$failed test suite(s) failed in $B"
	exit 1
fi
echo "all test suites passed in $B"
