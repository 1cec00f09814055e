#!/bin/sh
# Run every test and print one summary line: "N passed, N failed".
#
#   unit tests:  build/tests/t-*            (TAP: "ok N - ..." / "not ok N - ...")
#   CLI tests:   tests/cli/*.sh             (same output, via tests/cli/lib.sh)
#   layering:    scripts/check-layering.sh
#   comments:    scripts/check-comments.sh  (no comment cites a function that is gone)
#
# A test binary or script that dies without printing its plan counts as one
# failure.  MSC_BUILD selects the build dir (default build).  UPDATE=1 makes
# golden tests rewrite their expected files.
set -u
cd "$(dirname "$0")/.." || exit 1
MSC_BUILD=${MSC_BUILD:-build}
export MSC_BUILD MSC_TEST_DATA="$PWD/tests/data" MSC=$PWD/$MSC_BUILD/mmuscope
log=$MSC_BUILD/test-log.txt
mkdir -p "$MSC_BUILD"
: >"$log"
passed=0
failed=0

run() { # run NAME CMD...
	name=$1
	shift
	out=$("$@" 2>&1)
	rc=$?
	printf '%s\n' "# --- $name (exit $rc)" "$out" >>"$log"
	p=$(printf '%s\n' "$out" | grep -c '^ok ')
	f=$(printf '%s\n' "$out" | grep -c '^not ok ')
	printf '%s\n' "$out" | grep -E '^(not ok|# )' | sed "s|^|$name: |"
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		echo "$name: exited $rc without a failing test"
		f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	printf '%-28s %4d passed, %d failed\n' "$name" "$p" "$f"
}

for t in "$MSC_BUILD"/tests/t-*; do
	[ -x "$t" ] && run "$(basename "$t")" "$t"
done
for t in tests/cli/*.sh; do
	[ "$(basename "$t")" = lib.sh ] && continue
	[ -f "$t" ] && run "$(basename "$t" .sh)" sh "$t"
done
run layering scripts/check-layering.sh
run comments scripts/check-comments.sh
run headers scripts/check-headers.sh

echo "full log: $log"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
