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

# The TUI with one VM chosen ('v'): its own census, where the host's is
# both VMs' (the 6.12 capture at VM 2's "KVM stats after dirty_pass_1")
db=$T/k612-npt_2vm_16m.db
if [ -f "$db" ]; then
	at=$(sqlite3 "$db" "SELECT ts FROM kvm_stats WHERE vm = 2 AND phase = 'dirty_pass_1'")
	printf '1\nvv\n/@%s<Enter>\n:save-screen vm.screen\n' "$at" >"$T/vm.script"
	printf '1\n/@%s<Enter>\n:save-screen all.screen\n' "$at" >"$T/all.script"
	mkdir -p "$T/scr"
	for s in vm all; do
		LINES=24 COLUMNS=80 TERM=xterm "$MSC" view "$db" --script "$T/$s.script" \
			--no-display --screen-dir "$T/scr"
	done
	census() { sed -n 's/^  census  4K \([0-9,]*\) .*/\1/p' "$T/scr/$1.screen" | tr -d ,; }
	check_eq "TUI, VM 2 chosen: its own census, KVM's there" "$(census vm)" \
		"$(sqlite3 "$db" "SELECT pages_4k FROM kvm_stats WHERE vm = 2 AND phase = 'dirty_pass_1'")"
	check_match "... says so" "$(cat "$T/scr/vm.screen")" '^Huge-page coverage over time of VM 2: '
	check_match "... and KVM's counters are its own, equal to it" "$(cat "$T/scr/vm.screen")" \
		'^  KVM     after dirty_pass_1: 4K 4,097 .*\(rebuilt there: equal\)$'
	check_eq "TUI, all VMs: the host's census, both VMs' at that time" "$(census all)" \
		"$(sqlite3 "$db" "SELECT sum(pages_4k) FROM census c WHERE ts = (SELECT max(ts) FROM
			census d WHERE d.vm = c.vm AND d.as_id = c.as_id AND d.ts <= $at)")"
fi

# VMs from before the capture, one per process: the 6.12 two-VM capture as
# if both VMs had been created before it began (its KVM_CREATE_VM and
# KVM_CREATE_VCPU calls taken out) and each VM ran in a process of its own,
# as a recording's task table says (the kernel's saved tgids).  VM 0's
# threads are 343 (its VMM thread) and 345 (its vCPU), VM 1's 344 and 346:
# so the capture's own ioctls placed them.  Nothing else tells the two VMs
# apart (same GFNs, same sizes): placed by process, each VM's census equals
# its counters; with the vCPUs swapped between the processes, or without
# processes, it cannot.
src=$TRACES/k612-npt_2vm_16m
if [ -d "$src" ]; then
	"$MSC" import -q "$src/trace.dat" -o "$T/2vm.db"
	"$MSC" dump "$T/2vm.db" >"$T/2vm.txt"
	# tasks PID=TGID...: the dump without the VMs' creation, its task lines so
	predate() {
		awk -v map="$1" 'BEGIN { n = split(map, m, " ")
				for (i = 1; i <= n; i++) { split(m[i], kv, "="); tg[kv[1]] = kv[2] } }
			/^#@ task / { if ($3 in tg) $4 = tg[$3]; print; next }
			$4 == "ioctl" && ($0 ~ /cmd=0xae01 / || $0 ~ /cmd=0xae41 /) { skip[$3] = 1; next }
			$4 == "ioctl" && $5 == "exit=1" && skip[$3] { skip[$3] = 0; next }
			{ print }' "$T/2vm.txt"
	}
	predate "343=343 344=344 345=343 346=344" >"$T/procs.txt"
	predate "343=343 344=344 345=344 346=343" >"$T/swapped.txt"
	predate "" >"$T/noproc.txt"
	check_eq "predating: no KVM_CREATE_VM or KVM_CREATE_VCPU left" \
		"$(grep -c 'cmd=0xae01 \|cmd=0xae41 ' "$T/procs.txt")" 0
	# the import stores the task table after its inline analysis, then
	# analyzes again by process (msc_history_by_process())
	for v in procs swapped noproc; do
		"$MSC" import -q --text "$T/$v.txt" -o "$T/$v.db" 2>/dev/null
	done
	q() { sqlite3 "$T/$1.db" "$2"; }
	check_eq "predating, a VM per process: two VMs, each census KVM's own at every point" \
		"$(q procs "SELECT count(DISTINCT vm) FROM census") $(q procs "SELECT sum(pages_4k =
			census_4k AND pages_2m = census_2m AND pages_1g = census_1g) || '/' || count(*)
			FROM kvm_stats")" "2 18/18"
	check_eq "... every event placed, no anomaly" \
		"$(q procs "SELECT unplaced || ' ' || anomalies FROM analysis")" "0 0"
	check_eq "... analyzed again: the same (placed by process, it keeps no state)" \
		"$("$MSC" analyze -q "$T/procs.db"; q procs "SELECT count(DISTINCT vm) || ' ' ||
			unplaced || ' ' || anomalies FROM census, analysis")" "2 0 0"
	check_match "with the vCPUs in the other processes: anomalies" \
		"$(q swapped "SELECT anomalies FROM analysis")" '^[1-9][0-9]*$'
	check_eq "without processes: one VM (they cannot be told apart)" \
		"$(q noproc "SELECT count(DISTINCT vm) FROM census")" 1
fi
[ "$n" -gt 0 ] || not_ok "no capture of several VMs at once"
done_testing
