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
	check_match "$name: --json has KVM's counters" "$(cat "$T/$name.json")" '"kvm_stats": \[$'
done
check_fails "report on a database never analyzed fails" sh -c \
	"'$MSC' import -q --no-analyze '$TRACES/k612-npt_tdp_32m/trace.dat' -o '$T/raw.db' && '$MSC' report '$T/raw.db'"
check_match "... and says how to fix it" "$("$MSC" report "$T/raw.db" 2>&1)" "run 'mmuscope analyze"
done_testing
