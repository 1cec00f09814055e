#!/bin/sh
# Golden `mmuscope report` outputs for every capture (UPDATE=1 rewrites
# them), and --json that parses.
. "$(dirname "$0")/lib.sh"

GOLDEN=$(dirname "$0")/../golden/report
for dir in "$TRACES"/*/; do
	name=$(basename "$dir")
	db=$T/$name.db
	check "$name: import" "$MSC" import -q "$dir/trace.dat" -o "$db"
	"$MSC" report "$db" >"$T/$name.txt" 2>&1
	check_golden "$name: report matches golden" "$T/$name.txt" "$GOLDEN/$name.txt"
	"$MSC" report --json "$db" >"$T/$name.json"
	check "$name: --json parses" python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$T/$name.json"
	[ -e "$dir/harness.log" ] &&	# the workload's log of KVM's counters
		check_match "$name: --json has KVM's counters" "$(cat "$T/$name.json")" '"kvm_stats": \[$'
	# a re-promotion starts where its disable ended: same census, same instant
	bad=$(sqlite3 "$db" "select count(*) from phase r join phase d
		on d.capture_id = r.capture_id and d.kind = 'disable' and d.end_ts = r.start_ts
		where r.kind = 're-promotion' and (r.before_4k, r.before_2m, r.before_1g)
		is not (d.after_4k, d.after_2m, d.after_1g)")
	check_match "$name: re-promotion starts from the disable's census" "$bad" '^0$'
done
check_fails "report on a database never analyzed fails" sh -c \
	"'$MSC' import -q --no-analyze '$TRACES/k612-npt_tdp_32m/trace.dat' -o '$T/raw.db' && '$MSC' report '$T/raw.db'"
check_match "... and says how to fix it" "$("$MSC" report "$T/raw.db" 2>&1)" "run 'mmuscope analyze"
done_testing
