# Shared helpers for tests/cli/*.sh (POSIX sh).  Each check prints one TAP
# line; the script ends with `done_testing`.
#
#   . "$(dirname "$0")/lib.sh"
#   check "import exits 0" "$MSC" import "$trace" -o "$T/a.db"
#   check_eq "rows" "$(sqlite3 "$T/a.db" 'select count(*) from marker')" 25
#   done_testing
#
# $MSC is the mmuscope binary, $MSC_TEST_DATA the test data dir, $T a fresh
# temporary directory removed at exit.

: "${MSC:=$PWD/build/mmuscope}"
: "${MSC_TEST_DATA:=$PWD/tests/data}"
TRACES=$MSC_TEST_DATA/traces
T=$(mktemp -d "${TMPDIR:-/tmp}/msc-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
_n=0
_failed=0

ok() { _n=$((_n + 1)); echo "ok $_n - $*"; }
not_ok() { _n=$((_n + 1)); _failed=$((_failed + 1)); echo "not ok $_n - $*"; }
diag() { echo "# $*"; }

# skip_all REASON: the whole script is skipped, saying why
skip_all() {
	echo "ok 1 - # SKIP $*"
	echo "1..1"
	exit 0
}

# check DESC CMD...: the command exits 0
check() {
	_d=$1
	shift
	if _out=$("$@" 2>&1); then ok "$_d"; else
		not_ok "$_d"
		printf '%s\n' "$_out" | head -5 | sed 's/^/# /'
	fi
}

# check_fails DESC CMD...: the command exits non-zero
check_fails() {
	_d=$1
	shift
	if _out=$("$@" 2>&1); then
		not_ok "$_d (exited 0)"
		printf '%s\n' "$_out" | head -5 | sed 's/^/# /'
	else ok "$_d"; fi
}

# check_eq DESC GOT WANT
check_eq() {
	if [ "$2" = "$3" ]; then ok "$1"; else
		not_ok "$1"
		diag "got:  $2"
		diag "want: $3"
	fi
}

# check_match DESC TEXT REGEX (grep -E)
check_match() {
	if printf '%s\n' "$2" | grep -qE -- "$3"; then ok "$1"; else
		not_ok "$1"
		diag "no match for /$3/ in:"
		printf '%s\n' "$2" | head -5 | sed 's/^/# /'
	fi
}

# check_golden DESC FILE GOLDEN: compare, or rewrite with UPDATE=1
check_golden() {
	if [ "${UPDATE:-0}" = 1 ]; then
		mkdir -p "$(dirname "$3")"
		cp "$2" "$3"
		ok "$1 (golden updated)"
	elif diff -u "$3" "$2" >"$T/golden.diff" 2>&1; then ok "$1"; else
		not_ok "$1"
		head -20 "$T/golden.diff" | sed 's/^/# /'
	fi
}

done_testing() {
	echo "1..$_n"
	[ "$_failed" = 0 ]
}
