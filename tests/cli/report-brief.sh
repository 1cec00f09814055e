#!/bin/sh
# `report --brief`: one screen for a mail, 80 columns.  Golden outputs for
# every capture (UPDATE=1 rewrites them); the steps are --selftest's, with
# the same durations, in a block per cycle of dirty logging; every line fits
# 80 columns; the origin is the first event's time as `trace-cmd report`
# prints it; the huge pages split by size add up to the phase's
# pages_split; the huge share is of the dirty-logged memory, and "huge
# again" only where the census shows it; a capture with nothing to rebuild
# says so; and a database of schema 10 upgrades to know the split sizes.
. "$(dirname "$0")/lib.sh"

GOLDEN=$(dirname "$0")/../golden/report-brief
most=0
for dir in "$TRACES"/*/; do
	name=$(basename "$dir")
	db=$T/$name.db
	"$MSC" import -q "$dir/trace.dat" -o "$db" 2>/dev/null
	"$MSC" report --brief "$db" >"$T/$name.txt" 2>&1
	check_golden "$name: --brief matches golden" "$T/$name.txt" "$GOLDEN/$name.txt"
	n=$(wc -l <"$T/$name.txt")
	[ "$n" -gt "$most" ] && most=$n
	# the steps and their durations are those of --selftest, in ms; a step
	# that left nothing in the trace is "-" in one, "not traced" in the other
	"$MSC" report --selftest "$db" | grep ' time: ' | awk -F' time: ' '
		{ if ($2 == "not traced") { print $1 " -"; next }
		  sub(/s$/, "", $2); printf "%s %.3f\n", $1, $2 * 1000 }' >"$T/st"
	awk '/^(Populate|Enabling|Iteration|Disabling)/ {	# the step is 28 columns wide
		step = substr($0, 1, 28); sub(/ +$/, "", step); split(substr($0, 30), f, " +")
		took = f[f[1] == "" ? 2 : 1]; sub(/^~/, "", took)	# ~: a bound from the work
		printf "%s %s\n", step, took }' "$T/$name.txt" >"$T/br"
	check_eq "$name: the steps and durations of --selftest" "$(cat "$T/br")" "$(cat "$T/st")"
	check_eq "$name: every line fits 80 columns" \
		"$(awk 'length($0) > 80 { print NR ": " length($0) }' "$T/$name.txt")" ""
	# a block per cycle: as many as --selftest has (it says them when more than one)
	cycles=$("$MSC" report --selftest "$db" | grep -c '^Cycle ')
	[ "$cycles" -gt 0 ] && check_eq "$name: a block per cycle of dirty logging" \
		"$(grep -c '^Cycle [0-9]* at ' "$T/$name.txt")" "$cycles"
done
# (33: two cycles of two iterations, each with its line of dirtied pages, or
# two VMs' blocks, and the tracing cost's line)
check_match "every capture fits on one screen (at most 33 lines)" "$most" '^([0-9]|[12][0-9]|3[0-3])$'

# the origin is the first event's time as trace-cmd report prints it
db=$T/k612-npt_tdp_32m.db
first=$(trace-cmd report -N -i "$TRACES/k612-npt_tdp_32m/trace.dat" 2>/dev/null |
	sed -nE 's/^.* ([0-9]+\.[0-9]{6}): .*/\1/p' | sort -n | head -1)
check_match "the origin is trace-cmd's time of the first event" "$(sed -n 2p "$T/k612-npt_tdp_32m.txt")" \
	" events in [0-9.]+ s, the first at $first s \\(trace-cmd's clock\\)$"

check_eq "--json: each phase's start in trace-cmd's clock is first_ts + start_ns" \
	"$("$MSC" report --json "$db" | python3 -c '
import json, sys
d = json.load(sys.stdin)["captures"][0]
print(all(p["start"] == "%d.%06d" % divmod((d["first_ts"] + p["start_ns"]) // 1000, 1000000)
          for p in d["phases"]) and len(d["phases"]) > 0)')" True

# split sizes: 1G pages give 512 2M pages each, which are split in turn
db=$T/k612-npt_tdp_1g_hugetlb.db
check_eq "pages split by size add up to pages_split" \
	"$(sqlite3 "$db" "SELECT count(*) FROM phase WHERE pages_split != pages_split_2m + pages_split_1g")" 0
check_match "a 1G split reads as both sizes" "$(cat "$T/k612-npt_tdp_1g_hugetlb.txt")" \
	'^Enabling dirty logging +~?[0-9.]+  1x1G 512x2M '

# two cycles of enable/disable: each its own block, its iterations from 1,
# each with its enable and its disable
out=$(cat "$T/k73-npt_tdp_32m_2vcpu.txt")
check_eq "two cycles: two blocks, each enable, 2 iterations, disable" \
	"$(printf '%s\n' "$out" | awk '/^Cycle/ { c++ } /^(Enabling|Iteration|Disabling)/ { n[c]++ }
		/^Iteration 3/ { bad++ } END { print c, n[1], n[2], bad + 0 }')" "2 6 6 0"
check_eq "... --selftest says the cycles where the workload marked them" \
	"$("$MSC" report --selftest "$T/k73-npt_tdp_32m_2vcpu.db" | grep -c '^Cycle [12]$')" \
	"$(grep -c 'cycle=[0-9]* begin' "$TRACES/k73-npt_tdp_32m_2vcpu/harness.log")"

# a step's time is marked '~' where a bound is the work's, not the kernel's
check_eq "ioctls traced: the dirty-log steps' times are the kernel's (no '~')" \
	"$(grep -cE '^(Enabling|Iteration [0-9]+ [gc]|Disabling).* ~[0-9]' "$T/k612st-perf_thp_32m.txt")" 0
check_eq "ioctls not traced: every step seen is marked '~', the slack said below" \
	"$(grep -cE '^[A-Z][a-z].* +~[0-9]' "$T/k612st-perf_thp_32m_noioctl.txt") \
$(grep -c '^  ~: a bound from the work, not the kernel: up to [0-9.]* ms longer$' \
	"$T/k612st-perf_thp_32m_noioctl.txt")" \
	"$(grep -cE '^[A-Z][a-z].* [ ~][0-9]+\.[0-9]{3}  ' "$T/k612st-perf_thp_32m_noioctl.txt") 1"

# the huge share is of the dirty-logged memory: a 6.12 disable leaves the
# test's slot unmapped (a 2M code slot elsewhere stays huge)
check_match "6.12's zap-collapsible disable: the dirty-logged memory unmapped" \
	"$(cat "$T/k612st-perf_thp_32m.txt")" '^Disabling dirty logging .* unmapped$'
check_match "... and not huge again by the end of the capture" \
	"$(cat "$T/k612st-perf_thp_32m.txt")" '^  not huge again by the end of the capture$'

# huge again only where the census shows it: an analysis that says so of
# memory the census holds unmapped is not believed
cp "$T/k612st-perf_thp_32m.db" "$T/claim.db"
sqlite3 "$T/claim.db" "UPDATE phase SET to_huge_ns = 8000000 WHERE kind IN ('disable', 're-promotion')"
check_match "a time to huge again the census does not show: not huge again" \
	"$("$MSC" report --brief "$T/claim.db")" \
	'^  not huge again: 0 of 32 MiB huge 8\.000 ms after the disable began$'
check_eq "... nor in the full report" \
	"$("$MSC" report "$T/claim.db" | grep -c 'all regions huge again')" 0

# flushes a capture did not trace: a phrase under the table, not a '?' for a value
"$MSC" import -q --text "$MSC_TEST_DATA/events/teardown.events" -o "$T/nofl.db" 2>/dev/null
out=$("$MSC" report --brief "$T/nofl.db")
check_eq "untraced flushes: no '?' for a value" "$(printf '%s\n' "$out" | grep -c ' ? ')" 0
check_match "... 'n/t' in the column, said once under the table" "$out" \
	'^  n/t: TLB flushes not traced in this capture'

# nothing to rebuild: said plainly
"$MSC" import -q --text "$MSC_TEST_DATA/events/no-mmu.events" -o "$T/none.db" 2>/dev/null
check_match "a capture without SPTE changes says there is nothing to rebuild" \
	"$("$MSC" report --brief "$T/none.db" 2>&1)" 'no SPTE changes in this capture .*: nothing to rebuild'
check_match "... and so does the full report" "$("$MSC" report "$T/none.db" 2>&1)" '^NOTHING TO REBUILD: no SPTE changes'
check_fails "--brief and --json exclude each other" "$MSC" report --brief --json "$db"

# a database of schema 10: no split sizes, region_state a table (schema 15
# makes it runs), no phase bounds (16), no dirty ring (17), no EPT software
# bits and dirty rate (18), no VM of the tables' rows (19, whose views go
# back to 13's), no dirtied pages by cell and region (20); analyze upgrades
# it and starts over
cp "$T/k612-npt_tdp_1g_hugetlb.db" "$T/old.db"
# the views of a step, as its file creates them
view_sql() { # FILE VIEW
	sed -n "/^CREATE VIEW $2 AS/,/;\$/p" "$(dirname "$0")/../../schema/$1"
}
sqlite3 "$T/old.db" "DROP VIEW gfn_history; DROP VIEW mapping; DROP VIEW vm_census;
	DROP VIEW kvm_stats_check; DROP INDEX census_ts;
	ALTER TABLE mapping_run DROP COLUMN vm; ALTER TABLE census DROP COLUMN vm;
	ALTER TABLE kvm_stats DROP COLUMN vm; ALTER TABLE region DROP COLUMN vm;
	ALTER TABLE anomaly DROP COLUMN vm; ALTER TABLE analysis DROP COLUMN unplaced;
	CREATE INDEX census_ts ON census(capture_id, as_id, ts);
	$(view_sql 013-open-runs.sql mapping) $(view_sql 013-open-runs.sql gfn_history)
	$(view_sql 008-vm.sql vm_census) $(view_sql 002-analysis.sql kvm_stats_check)
	ALTER TABLE phase DROP COLUMN pages_split_2m;
	ALTER TABLE phase DROP COLUMN pages_split_1g; DROP TABLE task_activity;
	ALTER TABLE phase DROP COLUMN bounds; ALTER TABLE phase DROP COLUMN slack_start_ns;
	ALTER TABLE phase DROP COLUMN slack_end_ns;
	CREATE TABLE rs AS SELECT capture_id, as_id, gfn, ts, kind, mapped, writable
	FROM region_state; DROP VIEW region_state;
	DROP TABLE region_state_run; ALTER TABLE rs RENAME TO region_state; DROP TABLE dirty_ring;
	ALTER TABLE capture DROP COLUMN ept_sw; ALTER TABLE capture DROP COLUMN ept_sw_from;
	ALTER TABLE phase DROP COLUMN dirtied_pages; ALTER TABLE phase DROP COLUMN dirty_window_ns;
	DROP TABLE dirty_cell; ALTER TABLE phase_region DROP COLUMN dirtied_pages;
	ALTER TABLE kvm_stats_sample DROP COLUMN previous_read_ts;
	ALTER TABLE kvm_stats_sample DROP COLUMN pf_taken;
	ALTER TABLE kvm_stats_sample DROP COLUMN pf_fixed;
	ALTER TABLE kvm_stats_sample DROP COLUMN pf_fast; ALTER TABLE kvm_stats_sample DROP COLUMN pf_vcpus;
	ALTER TABLE kvm_stats_sample DROP COLUMN read_start_ts;
	ALTER TABLE kvm_stats_sample DROP COLUMN previous_read_start_ts;
	PRAGMA user_version = 10"
check "analyze upgrades a schema 10 database" "$MSC" analyze -q "$T/old.db"
check_eq "... and, its resume state dropped, knows the split sizes" \
	"$(sqlite3 "$T/old.db" "SELECT pages_split_1g, pages_split_2m FROM phase WHERE kind = 'enable'")" "1|512"
check_eq "... and each task's activity (schema 12)" \
	"$(sqlite3 "$T/old.db" "SELECT total(spte_changes) FROM task_activity")" \
	"$(sqlite3 "$T/old.db" "SELECT total(spte_changes) FROM activity")"

# a cycle of many iterations (a migration's): the first two and the last two
# shown, those between folded into a line per step, their times added up
MSC_FORMATS_DIR=$MSC_TEST_DATA/formats "$MSC" synth -q -o "$T/many.dat" --kernel 6.12 \
	--guest-mib 16 --passes 9 || not_ok "synth --passes 9"
"$MSC" import -q -f "$T/many.dat" -o "$T/many.db" 2>/dev/null
"$MSC" report --brief "$T/many.db" >"$T/many.txt"
check_eq "9 iterations: 1, 2, 3-7 folded, 8, 9" \
	"$(sed -n 's/^\(Iteration [0-9]*\|Iter\. [0-9-]*\) .*/\1/p' "$T/many.txt" | uniq | tr '\n' ',')" \
	"Iteration 1,Iteration 2,Iter. 3-7,Iteration 8,Iteration 9,"
check_eq "... the folded dirty memory is the sum of its passes' times" \
	"$(awk '/^Iter\. 3-7 dirty memory/ { sub(/^~/, "", $5); print $5 }' "$T/many.txt")" \
	"$(sqlite3 "$T/many.db" "SELECT printf('%.3f', sum(end_ts - start_ts) / 1e6) FROM (SELECT *
		FROM phase WHERE kind = 'dirty-pass' ORDER BY start_ts LIMIT 5 OFFSET 2)")"
check_match "... on one screen" "$(wc -l <"$T/many.txt")" '^([0-9]|[12][0-9]|3[0-3])$'
done_testing
