#!/bin/sh
# `mmuscope record --light` on a fake tracing tree (`mmuscope synth
# --tracing-dir`): which events it enables (no per-SPTE event), and with
# --light=N the sample filter it writes for each per-SPTE and per-page
# event (1 in N 2M cells by GFN bits); the
# host_param rows that say so, report's light line, no anomaly, and the
# TUI opening the capture.  The tree's pages are not filtered (no kernel
# here): the kernel's filter itself is exercised in the nested rig
# (tests/nested/observer.sh).  No kernel, no root.
. "$(dirname "$0")/lib.sh"

SYN="--guest-mib 64 --passes 2 --seed 7"
EV=$T/tree/instances/mmuscope/events

# enabled TREE: "system/event" of every event enabled in the instance
enabled() {
	for f in "$1"/instances/mmuscope/events/*/*/enable; do
		[ "$(cat "$f")" = 1 ] || continue
		d=${f%/enable}
		echo "${d#"$1"/instances/mmuscope/events/}"
	done | sort | tr '\n' ' '
}

# shellcheck disable=SC2086
check "synth writes a fake tracing tree" "$MSC" synth -q --tracing-dir "$T/tree" --instance mmuscope $SYN
out=$("$MSC" record --light --tracing-dir "$T/tree" -o "$T/l0.db" 2>&1)
check_eq "record --light exits 0" "$?" 0
check_match "... says it keeps no SPTE history" "$out" "light: no SPTE history: ioctls, splits"
check_eq "... enables the events of one per call or huge page, nothing per SPTE" "$(enabled "$T/tree")" \
	"kvmmmu/kvm_mmu_split_huge_page kvmmmu/kvm_mmu_zap_all_fast "
check_eq "... and filters nothing" "$(cat "$EV"/*/*/filter | sort -u)" none
# (a test tree's capture row waits for an SPTE change to show the layout: with
# none, it comes at the end, after record stores its parameters; a host's is
# written at once, and tests/nested/observer.sh reports on such captures)

# shellcheck disable=SC2086
"$MSC" synth -q --tracing-dir "$T/tree" --instance mmuscope $SYN
out=$("$MSC" record --light=64 --tracing-dir "$T/tree" -o "$T/l.db" 2>&1)
check_eq "record --light=64 exits 0" "$?" 0
check_match "... says what it samples" "$out" "light: SPTE history of 1 in 64 2M cells"
check_eq "... enables the sampled events and the whole ones, nothing else" "$(enabled "$T/tree")" \
	"kvm/kvm_page_fault kvmmmu/fast_page_fault kvmmmu/kvm_mmu_get_page kvmmmu/kvm_mmu_prepare_zap_page kvmmmu/kvm_mmu_set_spte kvmmmu/kvm_mmu_split_huge_page kvmmmu/kvm_mmu_spte_requested kvmmmu/kvm_mmu_zap_all_fast kvmmmu/kvm_tdp_mmu_spte_changed "
check_eq "SPTE changes: 1 in 64 2M cells by GFN bits 9-14" \
	"$(cat "$EV/kvmmmu/kvm_tdp_mmu_spte_changed/filter")" '!(gfn & 0x7e00)'
check_eq "... page tables made and removed: the same cells" \
	"$(cat "$EV/kvmmmu/kvm_mmu_get_page/filter") $(cat "$EV/kvmmmu/kvm_mmu_prepare_zap_page/filter")" \
	'!(gfn & 0x7e00) !(gfn & 0x7e00)'
check_eq "... faults by their GPA: the same cells" \
	"$(cat "$EV/kvmmmu/fast_page_fault/filter") $(cat "$EV/kvm/kvm_page_fault/filter")" \
	'!(cr2_or_gpa & 0x7e00000) !(fault_address & 0x7e00000)'
check_eq "splits (one per huge page) are kept whole" \
	"$(cat "$EV/kvmmmu/kvm_mmu_split_huge_page/filter")" none
check_eq "the capture says what was sampled (host_param)" \
	"$(sqlite3 "$T/l.db" "select group_concat(name || '=' || value, ' ') from (select * from host_param where name in ('record.light', 'record.sample') order by name)")" \
	"record.light=64 record.sample=2M cells with gfn & 0x7e00 == 0"
check_match "report: one line says it is light" "$("$MSC" report "$T/l.db")" \
	"^light recording: SPTE history of 1 in 64 2M cells only; census from KVM's counters"
check_match "... and does not set KVM's counters against the sample's census" \
	"$("$MSC" report "$T/l.db")" "not compared: a light recording rebuilds its sample only"
check_match "report --json: \"light\": 64" "$("$MSC" report --json "$T/l.db")" '"light": 64,'
check_eq "no anomaly" "$(sqlite3 "$T/l.db" 'select anomalies from analysis')" 0
mkdir "$T/screens"
printf ':save-screen overview\nq\n' >"$T/open.script"
check "the TUI opens it (headless)" "$MSC" view "$T/l.db" --script "$T/open.script" \
	--no-display --screen-dir "$T/screens"

# --light=N: another power of two; anything else is refused, nothing left
# shellcheck disable=SC2086
"$MSC" synth -q --tracing-dir "$T/t16" --instance mmuscope $SYN
check "record --light=16" "$MSC" record -q --light=16 --tracing-dir "$T/t16" -o "$T/l16.db"
check_eq "... filters 1 in 16 cells" \
	"$(cat "$T/t16/instances/mmuscope/events/kvmmmu/kvm_tdp_mmu_spte_changed/filter")" '!(gfn & 0x1e00)'
out=$("$MSC" record -q --light=12 --tracing-dir "$T/t16" -o "$T/l12.db" 2>&1)
check_eq "--light=12 fails" "$?" 1
check_match "... saying why" "$out" "--light=12: expected a power of two"
check_eq "... and leaves no database" "$(test -e "$T/l12.db" && echo kept)" ""

# a full recording of the same tree: every kvmmmu event, no filter, no record.light
# shellcheck disable=SC2086
"$MSC" synth -q --tracing-dir "$T/full" --instance mmuscope $SYN
check "record (full)" "$MSC" record -q --tracing-dir "$T/full" -o "$T/f.db"
check_eq "... filters nothing" \
	"$(cat "$T/full/instances/mmuscope/events/kvmmmu/kvm_tdp_mmu_spte_changed/filter")" none
check_eq "... and is not light" \
	"$(sqlite3 "$T/f.db" "select count(*) from host_param where name like 'record.light%'")" 0
check "report has no light line" sh -c "! '$MSC' report '$T/f.db' | grep -q '^light recording'"
check_match "report --json: \"light\": null" "$("$MSC" report --json "$T/f.db")" '"light": null,'

# The sample's history is whole: real captures cut by the filter's rule
# (what the kernel keeps of --light=4: !(gfn & 0x600), !(gpa & 0x600000))
# analyze without a resync or an anomaly, and every leaf of a sampled cell
# has the same history as in the full capture.
cat >"$T/sample.awk" <<'AWK'
function hex(s,   i, v) { v = 0; s = tolower(s); sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v }
function field(k,   i) { for (i = 5; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2)
	return "" }
function kept(v, shift) { return int(v / (512 * 2 ^ shift)) % n == 0 }
/^#/ { print; next }
$4 ~ /^(spte_changed|get_page|prepare_zap_page|spte_requested|set_spte)$/ { if (kept(hex(field("gfn")), 0)) print; next }
$4 ~ /^(fast_page_fault|page_fault)$/ { if (kept(hex(field("gpa")), 12)) print; next }
{ print }
AWK
Q="select as_id, gfn, level, start_ts, end_ts, spte, start_cause, end_cause from mapping
   where leaf and level <= 2 and (gfn / 512) % 4 = 0 order by 1, 2, 3, 4"
for tr in k612st-perf_thp_32m k73st-perf_thp_32m k612-npt_tdp_32m; do
	"$MSC" import -q "$TRACES/$tr/trace.dat" -o "$T/$tr-full.db"
	"$MSC" dump "$T/$tr-full.db" | awk -v n=4 -f "$T/sample.awk" >"$T/$tr.txt"
	"$MSC" import -q --text "$T/$tr.txt" -o "$T/$tr-1in4.db"
	check_eq "$tr cut to 1 in 4 cells: no resync, no anomaly" \
		"$(sqlite3 "$T/$tr-1in4.db" 'select resyncs, anomalies from analysis')" "0|0"
	check_eq "... every sampled leaf as in the full capture" \
		"$(sqlite3 "$T/$tr-1in4.db" "$Q" | cksum) $(sqlite3 "$T/$tr-1in4.db" "select count(*) > 100 from ($Q)")" \
		"$(sqlite3 "$T/$tr-full.db" "$Q" | cksum) 1"
done
done_testing
