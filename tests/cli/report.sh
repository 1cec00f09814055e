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

# text from the database is shown with its control characters escaped, and
# a capture that did not finish says so
printf '%s\n' '#@ release 6.12.0' '#@ host vendor=npt' \
	'1000 0 20 marker text=x: phase=\x1b[2Jred\x07 begin' \
	'1500 0 30 spte_changed as=0 gfn=0x40000 level=2 old=0x8000000000000000 new=0x40000ee7' \
	'2000 0 20 marker text=x: phase=\x1b[2Jred\x07 end' >"$T/esc.events"
check "a marker whose phase name holds escape sequences imports" \
	"$MSC" import -q --text "$T/esc.events" -o "$T/esc.db"
check_eq "... the name is stored as it was" \
	"$(sqlite3 "$T/esc.db" "select hex(name) from phase")" "1B5B324A72656407"
out=$("$MSC" report "$T/esc.db")
check_eq "report escapes it: no control character reaches the terminal" \
	"$(printf '%s\n' "$out" | tr -d '\n' | LC_ALL=C grep -c '[[:cntrl:]]')" 0
check_match "... and shows it readably" "$out" '\\x1b\[2Jred\\x07'
# a reader never migrates: an older schema and an empty file say what they are
cp "$T/esc.db" "$T/old.db"
sqlite3 "$T/old.db" "PRAGMA user_version = 7"
check_match "report on an older schema: called older, with the fix" "$("$MSC" report "$T/old.db" 2>&1)" \
	"old.db: cannot open database: database schema is older than this program \(.mmuscope analyze. upgrades it\)$"
sqlite3 "$T/empty.db" "PRAGMA user_version = 0"
check_match "report on an empty SQLite file: not an mmuscope database" "$("$MSC" report "$T/empty.db" 2>&1)" \
	"empty.db: cannot open database: not an mmuscope database$"
sqlite3 "$T/esc.db" "update capture set complete = 0"
check_match "an incomplete capture: report says so" "$("$MSC" report "$T/esc.db")" "^INCOMPLETE: "
check_match "... and --json carries it" "$("$MSC" report --json "$T/esc.db")" '"complete": false'

# --json is one document whatever the number of captures: {"captures": [...]}
two=$T/two.db
"$MSC" import -q "$TRACES/k612-npt_tdp_32m/trace.dat" -o "$two" 2>/dev/null
"$MSC" import -q --append "$TRACES/k73-npt_tdp_32m/trace.dat" -o "$two" 2>/dev/null
"$MSC" report --json "$two" >"$T/two.json"
check "--json of two captures: one document (json.tool)" python3 -m json.tool "$T/two.json" /dev/null
captures() { python3 -c 'import json, sys; print([c["capture"] for c in json.load(sys.stdin)["captures"]])'; }
check_eq "... holding both captures, in order" "$(captures <"$T/two.json")" "[1, 2]"
check_eq "-c 2: the same shape, one capture" "$("$MSC" report --json -c 2 "$two" | captures)" "[2]"
check_eq "one capture: the same shape" \
	"$("$MSC" report --json "$T/k612-npt_tdp_32m.db" | captures)" "[1]"
check_eq "... each capture's object is the one it has alone" \
	"$("$MSC" report --json -c 1 "$two" | python3 -c 'import json, sys; c = json.load(sys.stdin)["captures"][0]; print(c["kernel"], len(c["phases"]))')" \
	"$("$MSC" report --json "$T/k612-npt_tdp_32m.db" | python3 -c 'import json, sys; c = json.load(sys.stdin)["captures"][0]; print(c["kernel"], len(c["phases"]))')"
done_testing
