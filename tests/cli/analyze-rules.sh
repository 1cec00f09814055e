#!/bin/sh
# The analyzer's rules, one small event file each (tests/data/events/), so a
# broken rule fails by name:
#   - in-place huge-page recovery (6.13+), children frozen before or after
#     the table SPTE becomes a huge leaf, with a FROZEN_SPTE no table knows:
#     the value is learnt, the census follows KVM, no re-promotion follows;
#     the 4K leaves end and the huge leaf begins at the table's removal,
#     and the region is never unmapped in between;
#   - 7.x's zap of a table (children traced first): the region is unmapped
#     at the removal, in one step, not child by child;
#   - a 6.12 zap whose region a vCPU refaults huge before the removed
#     table's children are traced: the children are the removed table's,
#     no resync, the huge leaf stays;
#   - a disable whose ioctl thread is preempted for 40 ms is one disable;
#   - an eager split's split event 8 ms after its SPTE change is counted in
#     its enable;
#   - every NPF exit is counted once, by what became of it;
#   - a VM destroyed while a re-promotion waits ends it, in a teardown phase;
#   - the memslots of one step are one phase (two enable ioctls, two disable
#     ioctls), the memslot deletion after them a teardown;
#   - with the KVM ioctls traced each dirty-log phase is its ioctl, exactly,
#     its kind from the work inside (a memslot update with none is the
#     manual-protect enable once a harvest follows), its late flush its own;
#   - the vCPUs' passes between the steps are phases (populate, dirty-pass,
#     re-populate), bounded by their KVM_RUN where traced, else by their
#     first and last fault, each with its faults and census;
#   - an event whose old SPTE is not the model's is one resync: counted, an
#     anomaly naming both values, and the model follows the event;
#   - each VM has its own phases: a VM begins at KVM_CREATE_VM, or without
#     ioctls at the first fault after a teardown left nothing mapped (also
#     when the teardown's children are traced after their table went); one
#     created while the one before still has memory mapped is an overlap.
. "$(dirname "$0")/lib.sh"

EV=$MSC_TEST_DATA/events
q() { sqlite3 "$T/$1.db" "$2"; }
imp() { "$MSC" import -q --text "$EV/$1.events" -o "$T/$1.db" 2>"$T/$1.err"; }

f=fault-collide
check "$f: imports" imp "$f"
check_eq "$f: three vCPUs in one table slot, resolved out of order: 3 slow, 3 fast, 3 spurious" \
	"$(q "$f" "SELECT faults_slow || ' ' || faults_fast || ' ' || faults_spurious FROM phase WHERE name = 'faults'")" \
	"3 3 3"

for order in children-first parent-first; do
	f=recover-$order
	check "$f: imports" imp "$f"
	check_eq "$f: FROZEN_SPTE learnt from the 512 children, not the release's 0x...1a0" \
		"$(q "$f" "SELECT printf('%#x', frozen_spte) || ' ' || frozen_from FROM capture")" \
		"0x8000000000000320 events (512)"
	check_eq "$f: census equals the counters at every point" \
		"$(q "$f" "SELECT count(*) || '/' || sum(diff_4k = 0 AND diff_2m = 0 AND diff_1g = 0) FROM kvm_stats_check")" "3/3"
	check_eq "$f: nothing left unapplied" "$(q "$f" "SELECT count(*) FROM anomaly")" 0
	check_eq "$f: the table SPTE became a huge leaf: one promotion in the disable" \
		"$(q "$f" "SELECT pages_promoted || ' ' || after_4k || ' ' || after_2m FROM phase WHERE kind = 'disable'")" \
		"1 0 1"
	check_eq "$f: huge again when the disable ends: no re-promotion, time to huge is the disable's" \
		"$(q "$f" "SELECT (SELECT count(*) FROM phase WHERE kind = 're-promotion') || ' ' ||
			(SELECT to_huge_ns <= end_ts - start_ts FROM phase WHERE kind = 'disable')")" "0 1"
	# the removal: the prepare_zap_page (children first) or the table SPTE's change (parent first)
	removal="(SELECT min(ts) FROM (SELECT ts FROM page_table WHERE op = 'zap' UNION ALL
		SELECT ts FROM spte_change WHERE class = 'promote'))"
	check_eq "$f: the 512 4K leaves end, and the 2M leaf begins, at the table's removal" \
		"$(q "$f" "SELECT (SELECT count(*) FROM mapping WHERE level = 1 AND end_ts = $removal) || ' ' ||
			(SELECT count(*) FROM mapping WHERE level = 2 AND leaf AND end_ts IS NULL AND start_ts = $removal)")" \
		"512 1"
	check_eq "$f: the census never shows the region unmapped after the populate" \
		"$(q "$f" "SELECT min(pages_4k + 512 * pages_2m) FROM census WHERE ts >= (SELECT ts FROM kvm_stats WHERE phase = 'populate')")" \
		512
done

f=zap-children-first
check "$f: imports" imp "$f"
check_eq "$f: census equals the counters at every point, nothing unapplied" \
	"$(q "$f" "SELECT count(*) FROM kvm_stats_check WHERE diff_4k OR diff_2m OR diff_1g")|$(q "$f" "SELECT count(*) FROM anomaly")" "0|0"
check_eq "$f: the 512 4K leaves and their table end at its prepare_zap_page" \
	"$(q "$f" "SELECT count(*) || ' ' || count(DISTINCT level) FROM mapping WHERE end_ts = (SELECT ts FROM page_table WHERE op = 'zap')")" \
	"513 2"
check_eq "$f: the census goes from 512 4K pages to none in one step" \
	"$(q "$f" "SELECT group_concat(pages_4k, ' ') FROM (SELECT pages_4k FROM census WHERE ts >= (SELECT ts FROM page_table WHERE op = 'zap') ORDER BY ts)")" \
	0

f=refault-detached
check "$f: imports" imp "$f"
check_eq "$f: no resync: the late children are the removed tables'" \
	"$(q "$f" "SELECT resyncs || ' ' || anomalies FROM analysis")|$(q "$f" "SELECT count(*) FROM anomaly")" "0 0|0"
check_eq "$f: every frozen child completed" \
	"$(q "$f" "SELECT frozen_completed FROM analysis")" 1024
check_eq "$f: the refaulted 2M leaves stay mapped to the end" \
	"$(q "$f" "SELECT group_concat(printf('%#x', gfn), ' ') FROM mapping WHERE level = 2 AND leaf AND end_ts IS NULL
		AND start_ts = (SELECT max(ts) FROM spte_change c WHERE c.gfn = mapping.gfn AND c.class = 'map')")" \
	"0x40000 0x40200"
check_eq "$f: each table's 4K leaves end at its table SPTE's zap" \
	"$(q "$f" "SELECT group_concat(n, ' ') FROM (SELECT count(*) n FROM mapping m JOIN spte_change c ON c.level = 2
		AND c.class = 'zap-subtree' AND m.gfn / 512 = c.gfn / 512 AND m.end_ts = c.ts WHERE m.level = 1 GROUP BY c.gfn)")" \
	"512 512"
check_eq "$f: census equals the counters at every point" \
	"$(q "$f" "SELECT count(*) || '/' || sum(diff_4k = 0 AND diff_2m = 0 AND diff_1g = 0) FROM kvm_stats_check")" "3/3"
check_eq "$f: census after the disable: the two 2M leaves" \
	"$(q "$f" "SELECT pages_4k || ' ' || pages_2m FROM census ORDER BY ts DESC LIMIT 1")" "0 2"

f=disable-preempted
check "$f: imports" imp "$f"
check_eq "$f: one disable, not cut at the 40 ms pause" \
	"$(q "$f" "SELECT count(*) FROM phase WHERE kind = 'disable'")" 1
check_eq "$f: the disable zaps both regions; the vCPU's maps meanwhile are not its work" \
	"$(q "$f" "SELECT classes FROM phase WHERE kind = 'disable'")" "zap-subtree=2 teardown-child=1024"
check_eq "$f: ... they are its pass's, counted once" \
	"$(q "$f" "SELECT classes FROM phase WHERE kind = 're-populate'")" "map=4"
check_eq "$f: ... and inside the workload's disable_dirty_logging" \
	"$(q "$f" "SELECT d.end_ts <= w.end_ts AND d.end_ts - d.start_ts > 40000000 FROM phase d, phase w
		WHERE d.kind = 'disable' AND w.name = 'disable_dirty_logging'")" 1
check_eq "$f: census equals the counters at every point" \
	"$(q "$f" "SELECT count(*) FROM kvm_stats_check WHERE diff_4k OR diff_2m OR diff_1g")" 0

f=late-split
check "$f: imports" imp "$f"
check_eq "$f: one enable with both splits" \
	"$(q "$f" "SELECT count(*) || ' ' || sum(splits) FROM phase WHERE kind = 'enable'")" "1 2"

f=fault-outcomes
check "$f: imports" imp "$f"
check_eq "$f: NPF exits by outcome: slow 2, fast 1, spurious 1 inside the phase" \
	"$(q "$f" "SELECT faults_slow || ' ' || faults_fast || ' ' || faults_spurious FROM phase WHERE name = 'faults'")" \
	"2 1 1"
check_eq "$f: stored as 5 exits and 3 fast-path verdicts on them" \
	"$(q "$f" "SELECT group_concat(kind || '=' || n, ' ') FROM (SELECT kind, count(*) AS n FROM fault GROUP BY kind ORDER BY kind)")" \
	"fast-fixed=1 fast-other=1 fast-spurious=1 npf=5"
check_eq "$f: the exit the capture ended on is slow, counted once in the activity table" \
	"$(q "$f" "SELECT total(faults_slow) || ' ' || total(faults_fast) FROM activity")" "3.0 2.0"
f=teardown
check "$f: imports" imp "$f"
check_eq "$f: disable, re-promotion ended by the VM's teardown, not huge again" \
	"$(q "$f" "SELECT group_concat(kind || ':' || coalesce(to_huge_ns, 'never'), ' ') FROM (SELECT kind, to_huge_ns FROM phase WHERE kind != 'workload' ORDER BY start_ts)")" \
	"populate:never enable:never disable:never re-promotion:never teardown:never"
check_eq "$f: the re-promotion ends where the teardown begins" \
	"$(q "$f" "SELECT r.end_ts <= t.start_ts AND r.open = 0 FROM phase r, phase t WHERE r.kind = 're-promotion' AND t.kind = 'teardown'")" 1

for f in ioctl-phases ioctl-phases-manual; do
	check "$f: imports" imp "$f"
	check_eq "$f: every phase starts and ends with its ioctl" \
		"$(q "$f" "SELECT count(*) || '/' || sum(EXISTS (SELECT 1 FROM ioctl_call c
			WHERE c.start_ts = p.start_ts AND c.end_ts = p.end_ts)) FROM phase p WHERE source = 'ioctl'")" "5/5"
	check_eq "$f: memslot creation, enable, two harvests, disable: named by their work" \
		"$(q "$f" "SELECT group_concat(kind, ' ') FROM (SELECT kind FROM phase WHERE source = 'ioctl' ORDER BY start_ts)")" \
		"memslot enable harvest harvest disable"
	check_eq "$f: the harvest preempted for 30 ms is one harvest, its late flush counted" \
		"$(q "$f" "SELECT count(*) || ' ' || min(flushes) FROM phase WHERE kind = 'harvest'")" "2 1"
	check_eq "$f: census equals the counters at every point, nothing unapplied" \
		"$(q "$f" "SELECT count(*) FROM kvm_stats_check WHERE diff_4k OR diff_2m OR diff_1g")|$(q "$f" "SELECT count(*) FROM anomaly")" "0|0"
done
check_eq "ioctl-phases-manual: the first CLEAR splits, and it is a harvest" \
	"$(q ioctl-phases-manual "SELECT kind || ' ' || splits FROM phase WHERE splits > 0")" "harvest 1"
check_eq "ioctl-phases-manual: the enable under manual protect did no MMU work" \
	"$(q ioctl-phases-manual "SELECT spte_changes || ' ' || after_2m FROM phase WHERE kind = 'enable'")" "0 1"
f=ioctl-two-slots
check "$f: imports" imp "$f"
check_eq "$f: one enable and one disable for the two memslots; the re-promotion ends at the teardown" \
	"$(q "$f" "SELECT group_concat(kind || ':' || spte_changes, ' ') FROM (SELECT kind, spte_changes FROM phase
		WHERE kind != 'workload' ORDER BY start_ts)")" "populate:4 enable:1026 disable:1026 re-promotion:0 teardown:1"
check_eq "$f: census equals the counters at every point" \
	"$(q "$f" "SELECT count(*) FROM kvm_stats_check WHERE diff_4k OR diff_2m OR diff_1g")" 0
for f in vcpu-passes vcpu-passes-kvm-run; do
	check "$f: imports" imp "$f"
	check_eq "$f: the passes between the steps, each of its kind" \
		"$(q "$f" "SELECT group_concat(kind, ' ') FROM (SELECT kind FROM phase ORDER BY start_ts, id)")" \
		"memslot populate enable dirty-pass harvest dirty-pass harvest disable re-promotion re-populate"
	check_eq "$f: each pass's NPF exits (slow/fast) and census after (4K/2M), as KVM counted" \
		"$(q "$f" "SELECT group_concat(faults_slow || '/' || faults_fast || ':' || after_4k || '/' || after_2m, ' ')
			FROM (SELECT * FROM phase WHERE kind IN ('populate', 'dirty-pass', 're-populate') ORDER BY start_ts)")" \
		"1/0:0/1 0/8:512/0 0/8:512/0 1/0:0/1"
	check_eq "$f: census equals the counters at every point, nothing unapplied" \
		"$(q "$f" "SELECT count(*) FROM kvm_stats_check WHERE diff_4k OR diff_2m OR diff_1g")/$(q "$f" "SELECT count(*) FROM anomaly")" "0/0"
	check_eq "$f: huge again inside the re-populate" \
		"$(q "$f" "SELECT d.start_ts + d.to_huge_ns BETWEEN p.start_ts AND p.end_ts FROM phase d, phase p
			WHERE d.kind = 'disable' AND p.kind = 're-populate'")" 1
done
check_eq "vcpu-passes: no KVM_RUN: each pass from its first fault to its vCPU's last event, inferred" \
	"$(q vcpu-passes "WITH v(ts) AS (SELECT ts FROM fault UNION ALL SELECT ts FROM spte_change WHERE pid = 30)
		SELECT count(*) || '/' || sum(source = 'inferred'
			AND start_ts = (SELECT min(ts) FROM fault WHERE ts BETWEEN p.start_ts AND p.end_ts)
			AND end_ts = (SELECT max(ts) FROM v WHERE ts BETWEEN p.start_ts AND p.end_ts))
		FROM phase p WHERE kind IN ('populate', 'dirty-pass', 're-populate')")" "4/4"
check_eq "vcpu-passes-kvm-run: each pass is its KVM_RUN, exactly" \
	"$(q vcpu-passes-kvm-run "SELECT count(*) || '/' || sum(source = 'ioctl' AND EXISTS (SELECT 1 FROM ioctl_call c
		WHERE c.name = 'KVM_RUN' AND c.start_ts = p.start_ts AND c.end_ts = p.end_ts))
		FROM phase p WHERE kind IN ('populate', 'dirty-pass', 're-populate')")" "4/4"
"$MSC" report --selftest "$T/vcpu-passes-kvm-run.db" > "$T/selftest.out"
check_eq "vcpu-passes-kvm-run: report --selftest: the test's lines, a dirty pass its KVM_RUN's 9 us" \
	"$(grep -c . "$T/selftest.out") $(grep 'Iteration 2 dirty memory' "$T/selftest.out")" \
	"7 Iteration 2 dirty memory time: 0.000009000s"

for f in two-vms two-vms-inferred two-vms-overlap two-vms-unplaced; do
	check "$f: imports" imp "$f"
done
check_eq "two-vms: a VM per KVM_CREATE_VM, its fd" \
	"$(q two-vms "SELECT group_concat(id || ':' || source || ':' || fd || ':' || overlap, ' ') FROM vm")" \
	"1:ioctl:5:0 2:ioctl:6:0"
check_eq "two-vms-inferred: no ioctls: the second VM begins at its first fault after the teardown" \
	"$(q two-vms-inferred "SELECT group_concat(v.id || ':' || v.source || ':' || (v.start_ts = (SELECT min(ts) FROM fault
		WHERE pid = 31)), ' ') FROM vm v")" "1:inferred:0 2:inferred:1"
for f in two-vms two-vms-inferred; do
	check_eq "$f: each VM its own phases and census" \
		"$(q "$f" "SELECT group_concat(vm || ':' || kind || ':' || after_2m, ' ') FROM (SELECT * FROM phase ORDER BY start_ts)")" \
		"1:populate:1 1:teardown:0 2:populate:2"
	check_eq "$f: the census of each VM at its end" \
		"$(q "$f" "SELECT group_concat(vm || ':' || pages_2m, ' ') FROM (SELECT vm, pages_2m, max(seq) FROM vm_census GROUP BY vm)")" \
		"1:0 2:2"
done
# the same with the first VM's memory in 4K pages: its teardown (6.12: the
# table SPTEs first) takes the 4K leaves with the tables, and the storm of
# children after it changes nothing; the VM is gone at the root's zap
f=two-vms-4k-inferred
check "$f: imports" imp "$f"
check_eq "$f: the teardown's 4K children, traced after their table went, change nothing" \
	"$(q "$f" "SELECT resyncs || ' ' || anomalies FROM analysis") $(q "$f" "SELECT count(*) FROM mapping
		WHERE level = 1 AND end_ts = (SELECT min(ts) FROM spte_change WHERE class = 'zap-subtree')")" \
	"0 0 496"
check_eq "$f: the second VM begins at its first fault after the teardown" \
	"$(q "$f" "SELECT group_concat(v.id || ':' || v.source || ':' || (v.start_ts = (SELECT min(ts) FROM fault
		WHERE pid = 31)), ' ') FROM vm v")" "1:inferred:0 2:inferred:1"
check_eq "$f: the census of each VM at its end" \
	"$(q "$f" "SELECT group_concat(vm || ':' || pages_4k || ':' || pages_2m, ' ') FROM (SELECT vm, pages_4k, pages_2m, max(seq) FROM vm_census GROUP BY vm)")" \
	"1:0:0 2:0:2"
f=two-vms-overlap
check_eq "$f: created while the first still runs: its own tables, census and phases" \
	"$(q "$f" "SELECT group_concat(id || ':' || overlap, ' ') FROM vm") $(q "$f" "SELECT group_concat(vm || ':' || kind || ':' || after_2m, ' ') FROM phase")" \
	"1:0 2:0 1:populate:1 2:populate:2"
check_eq "$f: the same GFNs in two VMs: each VM's rows, nothing resynced or unplaced" \
	"$(q "$f" "SELECT group_concat(vm || ':' || n, ' ') FROM (SELECT vm, count(*) AS n FROM mapping WHERE gfn = 0x40000 AND level = 2 GROUP BY vm)") $(q "$f" "SELECT resyncs || ' ' || anomalies || ' ' || unplaced FROM analysis")" \
	"1:1 2:1 0 0 0"
check_eq "$f: KVM's counters of each VM equal its census" \
	"$(q "$f" "SELECT group_concat(vm || ':' || pages_2m || '=' || census_2m, ' ') FROM kvm_stats")" \
	"1:1=1 2:2=2"
check_match "$f: report names each region's and counter's VM" "$("$MSC" report "$T/$f.db")" \
	'VM 2, after populate_vm2 +kvm 0 2 0  rebuilt 0 2 0  equal'
f=two-vms-unplaced
check_eq "$f: no KVM_RUN nor KVM_CREATE_VCPU: the second VM's vCPU events are counted unplaced" \
	"$(q "$f" "SELECT unplaced FROM analysis") $(q "$f" "SELECT census_2m FROM kvm_stats WHERE vm = 2")" \
	"7 0"
check_match "$f: ... and the report says so" "$("$MSC" report "$T/$f.db")" \
	'^UNPLACED: 7 events of VMs at once'
check_match "$f: ... and --json" "$("$MSC" report --json "$T/$f.db")" '"unplaced": 7,'
f=resync
check "$f: imports" imp "$f"
check_eq "$f: one resync, counted and named with both values" \
	"$(q "$f" "SELECT resyncs FROM analysis") $(q "$f" "SELECT kind || ': ' || detail FROM anomaly")" \
	"1 resync: model had 0x40000ee7, event says 0x50000ee7"
check_eq "$f: the model follows the event: the installed leaf ends there, the event's is the next" \
	"$(q "$f" "SELECT group_concat(printf('%#x', m.spte) || ' ' || s.name || '-' || e.name, ', ')
		FROM (SELECT * FROM mapping WHERE gfn = 262144 AND level = 2 ORDER BY start_ts, end_ts) m
		JOIN map_cause s ON s.id = m.start_cause JOIN map_cause e ON e.id = m.end_cause")" \
	"0x40000ee7 fault-map-resync, 0x50000ee7 resync-write-protect, 0x50000ee5 write-protect-zap"
done_testing
