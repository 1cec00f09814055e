#!/bin/sh
# mmuscope import on every real capture: exactly the per-event counts that
# `trace-cmd report` gives for the same file (computed here, from the same
# file), every trace.dat file version, the dump round trip, golden dumps.
. "$(dirname "$0")/lib.sh"

GOLDEN=$(dirname "$0")/../golden/dump

# "name count" per event, as trace-cmd report prints them (plugins off).
report_counts() {
	trace-cmd report -N -i "$1" 2>/dev/null |
		sed -nE 's/^.*\[[0-9]+\] +[0-9]+\.[0-9]+: ([^: ]+):.*$/\1/p' |
		sort | uniq -c | awk '{print $2, $1}'
}

db_counts() {
	sqlite3 "$1" "select name, sum(count) from capture_event group by name order by name"
}

for dir in "$TRACES"/*; do
	name=$(basename "$dir")
	dat=$dir/trace.dat
	[ -f "$dat" ] || continue
	db=$T/$name.db
	check "$name: imports" "$MSC" import -q "$dat" -o "$db"
	check_eq "$name: database is mode 0600" "$(stat -c %a "$db")" 600
	report_counts "$dat" | sort >"$T/want"
	db_counts "$db" | tr '|' ' ' | sort >"$T/got"
	check_eq "$name: per-event counts equal trace-cmd report's" \
		"$(cat "$T/got")" "$(cat "$T/want")"
	# every spte_changed is one row, every fault one row, nothing else mixed in
	check_eq "$name: spte_change rows" \
		"$(sqlite3 "$db" 'select count(*) from spte_change')" \
		"$(awk '$1 == "kvm_tdp_mmu_spte_changed" {print $2}' "$T/want" | grep . || echo 0)"
	check_eq "$name: fault rows" \
		"$(sqlite3 "$db" 'select count(*) from fault')" \
		"$(awk '$1 == "kvm_page_fault" || $1 == "fast_page_fault" {n += $2} END {print n + 0}' "$T/want")"
	check_eq "$name: every spte change has a class" \
		"$(sqlite3 "$db" "select count(*) from spte_change where class in ('-', '') or class is null")" 0
	dropped=$(trace-cmd report -N -i "$dat" 2>/dev/null | grep -c 'EVENTS DROPPED')
	check_eq "$name: lost-event marks equal the report's DROPPED lines" \
		"$(sqlite3 "$db" 'select count(*) from lost_events')" "$dropped"
	check_eq "$name: capture is complete" "$(sqlite3 "$db" 'select complete from capture')" 1
	# dump -> text import -> dump gives the same events
	"$MSC" dump "$db" >"$T/dump1"
	"$MSC" import -q --text "$T/dump1" -o "$T/$name-text.db" &&
		"$MSC" dump "$T/$name-text.db" | grep -v '^# capture' >"$T/dump2"
	grep -v '^# capture' "$T/dump1" >"$T/dump1b"
	check "$name: dump round-trips through a text import" cmp -s "$T/dump1b" "$T/dump2"
done

# The era is told by the data: 6.1 stores non-present 0, 6.12 bit 63.
check_eq "6.1 capture: non-present 0, frozen 0x5a0" \
	"$(sqlite3 "$T/k61-npt_tdp_32m.db" "select printf('%x %x %s', nonpresent_spte, frozen_spte, vendor) from capture")" \
	"0 5a0 npt"
check_eq "6.12 capture: non-present bit 63" \
	"$(sqlite3 "$T/k612-npt_tdp_32m.db" "select printf('%x %x %s', nonpresent_spte, frozen_spte, vendor) from capture")" \
	"8000000000000000 80000000000005a0 npt"
# Both eras classify the same workload the same way (same phases, same counts).
classes() { sqlite3 "$1" "select class, level, count(*) from spte_change group by 1, 2"; }
check_eq "6.1 classes of the 32M run" "$(classes "$T/k61-npt_tdp_32m.db" | tr '\n' ' ')" \
	"link|2|1 link|3|2 link|4|1 map|1|1 map|2|32 split|2|16 teardown-child|1|8193 teardown-child|2|17 write-protect|1|24576 zap-subtree|2|16 zap-subtree|3|2 zap-subtree|4|1 "
check_eq "6.12 classes of the 32M run" "$(classes "$T/k612-npt_tdp_32m.db" | tr '\n' ' ')" \
	"link|2|1 link|3|2 link|4|1 map|1|1 map|2|32 split|2|16 teardown-child|1|8192 unmap|1|1 unmap|2|16 write-protect|1|24576 zap-subtree|2|17 zap-subtree|3|2 zap-subtree|4|1 "
check_eq "fast_page_fault fixed on 6.1 (ret 4) and 6.12 (ret 5)" \
	"$(sqlite3 "$T/k61-npt_tdp_32m.db" "select kind, ret, count(*) from fault where kind like 'fast%' group by 1, 2") $(sqlite3 "$T/k612-npt_tdp_32m.db" "select kind, ret, count(*) from fault where kind like 'fast%' group by 1, 2")" \
	"fast-fixed|4|16384 fast-fixed|5|16384"

# --host overrides what the data says; the capture records where each fact came from.
check "--host override imports" "$MSC" import -q --host vendor=ept,release=6.12.0 \
	"$TRACES/k61-npt_tdp_32m/trace.dat" -o "$T/override.db"
check_eq "--host override: recorded as such" \
	"$(sqlite3 "$T/override.db" "select vendor, vendor_source, era_source, printf('%x', nonpresent_spte) from capture")" \
	"ept|override|override|8000000000000000"

# Every file version trace-cmd writes imports to the same events.
src=$TRACES/k61-npt_tdp_32m/trace.dat
trace-cmd convert -i "$src" -o "$T/v6.dat" --file-version 6 >/dev/null 2>&1
trace-cmd convert -i "$src" -o "$T/v7.dat" --compression none >/dev/null 2>&1
"$MSC" dump "$T/k61-npt_tdp_32m.db" | grep -v '^# capture' >"$T/ref"
for v in v6 v7; do
	check "$v file: imports" "$MSC" import -q "$T/$v.dat" -o "$T/$v.db"
	"$MSC" dump "$T/$v.db" | grep -v '^# capture' >"$T/$v.dump"
	check "$v file: same events as the zstd v7 original" cmp -s "$T/ref" "$T/$v.dump"
done
check_eq "file version and compression recorded" \
	"$(sqlite3 "$T/v6.db" 'select file_version, ifnull(compression, "none") from capture') $(sqlite3 "$T/k61-npt_tdp_32m.db" 'select file_version, compression from capture')" \
	"6|none 7|zstd"

# The per-CPU streams merge in trace-cmd's order: 8 vCPUs on 16 host CPUs,
# with hundreds of records of equal time on different CPUs (the earliest
# first; of equal times, the lowest CPU's first)
"$MSC" synth -q -o "$T/v8.dat" --guest-mib 256 --vcpus 8 --cpus 16 --passes 2
"$MSC" import -q "$T/v8.dat" -o "$T/v8.db" 2>/dev/null
trace-cmd report -N -t -i "$T/v8.dat" 2>/dev/null |
	sed -nE 's/^ .*\[([0-9]+)\] +([0-9]+)\.([0-9]{9}):.*/\2\3 \1/p' |
	awk '{ printf "%d %d\n", $1, $2 }' >"$T/v8.report"
"$MSC" dump "$T/v8.db" | grep -v '^#' | awk '{ print $1, $2 }' >"$T/v8.order"
check_eq "a 16-CPU trace: records of equal time on several CPUs" \
	"$(awk '{ print $1 }' "$T/v8.report" | uniq -d | wc -l | awk '{ print ($1 > 100) }') $(awk '{ print $2 }' "$T/v8.report" | sort -u | wc -l)" "1 9"
check "... are stored in trace-cmd report's order, every one" cmp -s "$T/v8.report" "$T/v8.order"

# Golden dumps: the head of each era's capture and the shadow-MMU capture.
for name in k61-npt_tdp_32m k612-npt_tdp_32m k61-shadow_npt0_16m; do
	"$MSC" dump "$T/$name.db" | sed -e "s|^# capture 1: .*/\(traces/[^ ]*\)|# capture 1: \1|" |
		head -120 >"$T/$name.golden"
	check_golden "$name: dump golden (first 120 lines)" "$T/$name.golden" "$GOLDEN/$name.head"
done

done_testing
