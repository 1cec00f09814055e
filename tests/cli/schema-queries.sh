#!/bin/sh
# Every query of schema/README.md gives the same result on a capture stored
# as runs (schema 9) as on the same capture stored a row per event
# (MSC_STORE_NO_RUNS: every run of one, the rows schema 8 held), on every
# capture of the repo and on a synthetic storm; `dump` prints the same;
# the documented aggregate fast path equals the count over the views.
. "$(dirname "$0")/lib.sh"
TOP=$(cd "$(dirname "$0")/../.." && pwd)

# The README's SQL: each ```sql block, and each indented block that starts
# with SELECT or a comment, one file per block.
awk -v dir="$T" '
	/^```sql/ { n++; out = dir "/q" n ".sql"; inblk = 1; next }
	inblk && /^```/ { inblk = 0; next }
	inblk { print > out; next }
	/^    / && !ind { line = substr($0, 5); if (line ~ /^(SELECT|select|--)/) {
		n++; out = dir "/q" n ".sql"; ind = 1 } }
	ind && /^    / { print substr($0, 5) > out; next }
	ind { ind = 0 }
' "$TOP/schema/README.md"
nq=$(ls "$T"/q*.sql 2>/dev/null | wc -l)
check_match "schema/README.md holds the queries" "$nq" '^[1-9][0-9]+$'

# run_queries DB OUT: every query's rows, sorted (a query without ORDER BY
# has no order), with :x a GFN the capture mapped
run_queries() {
	x=$(sqlite3 "$1" "select coalesce(min(gfn), 0) from spte_change_run where level = 1")
	: >"$2"
	for q in "$T"/q*.sql; do
		{
			echo "== $(basename "$q")"
			{ echo ".parameter set :x $x"; cat "$q"; } | sqlite3 "$1" 2>&1 | sort
		} >>"$2"
	done
}

compare() { # compare NAME TRACE
	rm -f "$T/rows.db" "$T/runs.db"
	if ! MSC_STORE_NO_RUNS=1 "$MSC" import -q "$2" -o "$T/rows.db" >/dev/null 2>&1 ||
	   ! "$MSC" import -q "$2" -o "$T/runs.db" >/dev/null 2>&1; then
		not_ok "$1: imports"
		return
	fi
	rows=$(sqlite3 "$T/rows.db" "select count(*) - coalesce(sum(n), 0) from spte_change_run")
	runs=$(sqlite3 "$T/runs.db" "select count(*) || ' rows for ' || coalesce(sum(n), 0) from spte_change_run")
	run_queries "$T/rows.db" "$T/a.txt"
	run_queries "$T/runs.db" "$T/b.txt"
	if [ "$rows" = 0 ] && cmp -s "$T/a.txt" "$T/b.txt" &&
	   ! grep -q "^Error\|^Parse error\|Runtime error" "$T/b.txt"; then
		ok "$1: $nq README queries agree ($runs SPTE changes)"
	else
		not_ok "$1: README queries differ (row DB: $rows not runs of one)"
		diff "$T/a.txt" "$T/b.txt" | head -8 | sed 's/^/# /'
		grep -m3 "Error" "$T/b.txt" | sed 's/^/# /'
	fi
	"$MSC" dump "$T/rows.db" >"$T/a.dump" 2>&1
	"$MSC" dump "$T/runs.db" >"$T/b.dump" 2>&1
	if cmp -s "$T/a.dump" "$T/b.dump" && [ -s "$T/b.dump" ]; then
		ok "$1: dump prints the same"
	else
		not_ok "$1: dump differs"
		diff "$T/a.dump" "$T/b.dump" | head -4 | sed 's/^/# /'
	fi
	a=$(sqlite3 "$T/runs.db" "select class, level, count(*) from spte_change group by 1, 2;
		select vcpu, kind, count(*) from fault group by 1, 2")
	b=$(sqlite3 "$T/runs.db" "select class, level, sum(n) from spte_change_run group by 1, 2;
		select vcpu, kind, sum(n) from fault_run group by 1, 2")
	check_eq "$1: counts from the runs' n equal the views'" "$b" "$a"
}

for trace in "$TRACES"/*/trace.dat; do
	compare "$(basename "$(dirname "$trace")")" "$trace"
done

# a storm the captures are too small for: 256 MiB, split and swept twice
"$MSC" synth -q -o "$T/storm.dat" --kprobes off --guest-mib 256 --passes 2 >/dev/null 2>&1
compare "synth 256 MiB" "$T/storm.dat"
n=$(sqlite3 "$T/runs.db" "select count(*) < sum(n) / 500 from spte_change_run")
check_eq "synth 256 MiB: SPTE changes in runs of 500 on average or more" "$n" 1

# a run row whose residuals are not its n: refused by name, by every reader
seq=$(sqlite3 "$T/runs.db" "select min(seq) from spte_change_run where n > 2")
n=$(sqlite3 "$T/runs.db" "select n from spte_change_run where seq = $seq")
sqlite3 "$T/runs.db" "update spte_change_run set at = '[0,1]' where seq = $seq"
want="runs.db: database error: spte_change_run: row $seq: at is not $n residuals\$"
check_fails "a damaged run row: dump fails" "$MSC" dump "$T/runs.db"
check_match "... saying which row of which table" "$("$MSC" dump "$T/runs.db" 2>&1 >/dev/null)" "$want"
check_match "... and so does analyze" "$("$MSC" analyze --rebuild "$T/runs.db" 2>&1)" "$want"
done_testing
