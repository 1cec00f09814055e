#!/bin/sh
# VMs that run at once (docs/kvm-mmu.md, "VMs at once"), on the real
# captures of the workload's -V N (harness.log says vms=N): each VM is an
# analysis of its own.  Its census equals KVM's own per-VM counters at every
# point its task logged them, every event is placed in its VM, no SPTE
# change of one VM lands in the other's tables, and each VM has the steps
# of its own dirty-log cycle.
. "$(dirname "$0")/lib.sh"

n=0
for dir in "$TRACES"/*/; do
	name=$(basename "$dir")
	vms=$(sed -n 's/^dirtylog: .* vms=\([0-9]*\).*/\1/p' "$dir/harness.log" 2>/dev/null)
	[ -n "$vms" ] || continue
	iters=$(sed -n 's/^dirtylog: .* iterations=\([0-9]*\).*/\1/p' "$dir/harness.log")
	cycle="enable,$(for i in $(seq "$iters"); do printf 'harvest,'; done)disable"
	db=$T/$name.db
	check "$name: imports" "$MSC" import -q "$dir/trace.dat" -o "$db"
	q() { sqlite3 "$db" "$1"; }
	check_eq "$name: a VM per KVM_CREATE_VM" \
		"$(q "SELECT count(*) FROM vm WHERE source = 'ioctl'")" "$vms"
	check_eq "$name: each VM's census is KVM's own at every point" \
		"$(q "SELECT count(*) || ' of ' || count(*) FROM kvm_stats")" \
		"$(q "SELECT sum(pages_4k = census_4k AND pages_2m = census_2m AND pages_1g = census_1g) ||
			' of ' || count(*) FROM kvm_stats")"
	check_eq "$name: KVM's counters are each VM's: as many points per VM" \
		"$(q "SELECT count(DISTINCT n) || ' ' || count(*) FROM (SELECT vm, count(*) AS n
			FROM kvm_stats k WHERE EXISTS (SELECT 1 FROM vm v WHERE v.id = k.vm AND
			v.source = 'ioctl') GROUP BY vm)")" "1 $vms"
	check_eq "$name: every event placed, nothing resynced, no anomaly" \
		"$(q "SELECT unplaced || ' ' || resyncs || ' ' || anomalies FROM analysis")" "0 0 0"
	check_eq "$name: each VM its own cycle: an enable, a harvest per iteration, a disable" \
		"$(q "SELECT group_concat(steps, ' ') FROM (SELECT vm, group_concat(kind, ',') AS steps
			FROM (SELECT vm, kind FROM phase WHERE source = 'ioctl' AND kind IN ('enable',
			'harvest', 'disable') ORDER BY vm, start_ts) GROUP BY vm)")" \
		"$(for i in $(seq "$vms"); do printf '%s ' "$cycle"; done | sed 's/ $//')"
	check_match "$name: report names the VM of each of KVM's counters" \
		"$("$MSC" report "$db")" '^  VM [0-9]+, after get_dirty_log_2 +kvm'
	n=$((n + 1))
done
[ "$n" -gt 0 ] || not_ok "no capture of several VMs at once"
done_testing
