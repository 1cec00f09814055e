#!/bin/sh
# ioctl-times.sh - the KVM ioctls of a capture made with capture.sh -I, how
# long each took (from its sys_enter_ioctl / sys_exit_ioctl pair) and which
# events its thread produced inside it.
#
# Usage: ioctl-times.sh [-a | -c] TRACE.dat | CAPTURE_DIR
#   -a  also list every call: enter time, duration, thread, ioctl, fd,
#       return value and the events of the same thread between its enter
#       and exit ("inside", NAME=COUNT in order of first appearance)
#   -c  (a dirty_log_perf_test capture) instead, each time the test printed
#       in selftest.log next to the trace's: "Populate memory time" and
#       "Iteration N dirty memory time" against the span of the KVM_RUN
#       round (first enter to last exit), the enable and disable against the
#       KVM_SET_USER_MEMORY_REGION2 calls between the populate round and the
#       first iteration and the first one after the last round, get and
#       clear dirty log against the KVM_GET_DIRTY_LOG / KVM_CLEAR_DIRTY_LOG
#       calls after each round (summed over the slots)
# Prints "segments": runs of consecutive calls (in enter order) of the same
# ioctl, with the number of calls, the first enter, the last exit, the span
# between them, the sum of the calls' durations, the threads and the events
# inside. A KVM_RUN segment is one round of the vCPU threads; consecutive
# KVM_SET_USER_MEMORY_REGION(2) calls share a segment only when the same
# marker events happened inside them (kvm_mmu_slot_try_split_huge_pages and
# kvm_mmu_slot_remove_write_access: enable; kvm_mmu_zap_collapsible_sptes,
# 6.12, or kvm_mmu_recover_huge_pages, 6.13+: disable; kvm_mmu_zap_all_fast:
# delete; and the patched kernel's tracepoints), which parts a disable from
# the memslot deletes of the VM's teardown just after it. KVM_RUN calls that return -EINTR at once are left
# out of the segments and counted apart: they are the selftests'
# vcpu_run_complete_io() (KVM_RUN with immediate_exit = 1, which completes
# the ucall's port I/O), twice per ucall (assert_on_unhandled_exception() in
# _vcpu_run() and the test each call get_ucall()).
#
# Pairing: sys_enter_ioctl is recorded for the KVM ioctls only (filtered on
# cmd), sys_exit_ioctl for every ioctl (it has no cmd); an exit belongs to
# the last unanswered enter of the same thread (a thread is in one syscall
# at a time) and exits of threads with no such enter are other ioctls.
# Names come from kvm_ioctls.txt next to trace.dat (capture.sh -I copies
# it), else from the built-in table (the numbers are ABI, the same in 6.12
# and 7.3). Timestamps are the guest's trace clock, in seconds.
set -eu
ALL=0
CMP=0
case ${1:-} in
-a) ALL=1; shift ;;
-c) CMP=1; shift ;;
esac
[ $# = 1 ] || { sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
T=$1
[ -d "$T" ] && T=$T/trace.dat
[ -f "$T" ] || { echo "ioctl-times.sh: no $T" >&2; exit 2; }
MAP=$(dirname "$T")/kvm_ioctls.txt
[ -f "$MAP" ] || MAP=/dev/null

segments() {
trace-cmd report -t -i "$T" 2>/dev/null |
awk -v all="$ALL" -v map="$MAP" '
BEGIN {
	# the numbers of <linux/kvm.h>, for traces without kvm_ioctls.txt
	split("ae01 KVM_CREATE_VM 4068aea3 KVM_ENABLE_CAP 4020ae46 KVM_SET_USER_MEMORY_REGION " \
	      "40a0ae49 KVM_SET_USER_MEMORY_REGION2 4010ae42 KVM_GET_DIRTY_LOG " \
	      "c018aec0 KVM_CLEAR_DIRTY_LOG ae80 KVM_RUN", t, " ")
	for (i = 1; i < 14; i += 2) name[t[i]] = t[i + 1]
	while ((getline l < map) > 0) {
		split(l, f, " ")
		v = tolower(f[2]); sub(/^0x0*/, "", v)
		name[v] = f[1]
	}
	n = 0
	# what a memslot update did: enable (split, write-protect), disable
	# (zap collapsible, 6.12; recover huge pages, 6.13+), delete (zap all)
	marks = "^(kvm_mmu_slot_try_split_huge_pages|kvm_mmu_slot_remove_write_access|" \
		"kvm_mmu_zap_collapsible_sptes|kvm_mmu_recover_huge_pages|kvm_mmu_zap_all_fast|" \
		"kvm_mmu_slot_dirty_logging_begin|kvm_mmu_split_huge_pages)$"
}
function hex(s) { s = tolower(s); sub(/,$/, "", s); sub(/^0x0*/, "", s); return s == "" ? "0" : s }
{
	# COMM-PID [CPU] TS: EVENT: ...; COMM may hold spaces and dashes
	for (i = 1; i <= NF; i++) if ($i ~ /^\[[0-9]+\]$/) break
	if (i > NF) next
	pid = $(i - 1); sub(/.*-/, "", pid)
	ts = $(i + 1); sub(/:$/, "", ts)
	ev = $(i + 2)
	if (ev == "sys_enter_ioctl:") {
		fd = hex($(i + 4)); cmd = hex($(i + 6))
		n++
		c_ts[n] = ts; c_pid[n] = pid; c_fd[n] = fd
		c_name[n] = (cmd in name) ? name[cmd] : "0x" cmd
		c_ret[n] = "?"; c_dur[n] = -1; c_in[n] = ""
		open_[pid] = n
	} else if (ev == "sys_exit_ioctl:") {
		if (!(pid in open_)) next
		k = open_[pid]; delete open_[pid]
		c_dur[k] = ts - c_ts[k]; c_end[k] = ts
		r = hex($(i + 3))
		c_ret[k] = (r == "fffffffffffffffc") ? "-EINTR" : (r ~ /^ffffffff/ ? "-err" : "0x" r)
	} else if (pid in open_) {
		k = open_[pid]; sub(/:$/, "", ev)
		if (!((k, ev) in cnt_in)) c_in[k] = c_in[k] " " ev
		cnt_in[k, ev]++
	}
}
function inside(k,   a, m, j, s) {
	m = split(c_in[k], a, " "); s = ""
	for (j = 1; j <= m; j++) s = s (j > 1 ? " " : "") a[j] "=" cnt_in[k, a[j]]
	return s == "" ? "-" : s
}
END {
	vm = 0
	if (all) printf "# %-16s %11s %6s %-28s %3s %-7s %s\n", "enter", "dur_s", "pid", "ioctl", "fd", "ret", "inside"
	for (k = 1; k <= n; k++) {
		if (c_name[k] == "KVM_CREATE_VM") vm++
		c_vm[k] = vm
		if (all) printf "%-18s %11.6f %6s %-28s %3s %-7s %s\n", c_ts[k], c_dur[k], c_pid[k], c_name[k], c_fd[k], c_ret[k], inside(k)
	}
	printf "# segments: vm seg ioctl calls first_enter last_exit span_s sum_s threads inside\n"
	s = 0; cur = ""; eintr = 0; unpaired = 0
	for (k = 1; k <= n; k++) {
		if (c_dur[k] < 0) { unpaired++; continue }
		if (c_name[k] == "KVM_RUN" && c_ret[k] == "-EINTR") { eintr++; continue }
		key = c_vm[k] " " c_name[k]
		if (c_name[k] ~ /^KVM_SET_USER_MEMORY_REGION/) {
			m = split(c_in[k], a, " ")
			for (j = 1; j <= m; j++) if (a[j] ~ marks) key = key " " a[j]
		}
		if (key != cur) {
			if (cur != "") flush()
			cur = key; s++; cnt = 0; sum = 0; first = c_ts[k]; last = 0; pids = ""; ins = ""
			delete seen; delete segin
		}
		cnt++; sum += c_dur[k]
		if (c_end[k] > last) last = c_end[k]
		if (!(c_pid[k] in seen)) { seen[c_pid[k]] = 1; pids = pids (pids == "" ? "" : ",") c_pid[k] }
		m = split(c_in[k], a, " ")
		for (j = 1; j <= m; j++) {
			if (!(a[j] in segin)) ins = ins " " a[j]
			segin[a[j]] += cnt_in[k, a[j]]
		}
	}
	if (cur != "") flush()
	printf "# %d calls, %d KVM_RUN returning -EINTR at once (not in the segments), %d without exit\n", n, eintr, unpaired
}
function flush(   a, m, j, str) {
	split(cur, a, " ")
	m = split(ins, b, " "); str = ""
	for (j = 1; j <= m; j++) str = str (j > 1 ? " " : "") b[j] "=" segin[b[j]]
	printf "%2d %3d %-28s %4d %18s %18s %10.6f %10.6f %s %s\n", a[1], s, a[2], cnt, first, last, last - first, sum, pids, str == "" ? "-" : str
}'
}

[ "$CMP" = 1 ] || { segments; exit 0; }
LOG=$(dirname "$T")/selftest.log
[ -f "$LOG" ] || { echo "ioctl-times.sh: no $LOG" >&2; exit 2; }
{ cat "$LOG"; echo "#segments"; segments; } | awk '
function add(k, v) { tr[k] += v; seen_[k] = 1 }
/^#segments/ { seg = 1; next }
!seg && / time: [0-9.]+s$/ {
	k = $0; sub(/ time: .*/, "", k); v = $NF; sub(/s$/, "", v)
	pr[k] = v; order[++no] = k; next
}
!seg || /^#/ { next }
{
	name = $3; span = $7; sum = $8
	if (name == "KVM_RUN") {
		round++
		add(round == 1 ? "Populate memory" : "Iteration " (round - 1) " dirty memory", span)
		after_run = 1
	} else if (name == "KVM_GET_DIRTY_LOG" && round > 1) {
		add("Iteration " (round - 1) " get dirty log", sum)
	} else if (name == "KVM_CLEAR_DIRTY_LOG" && round > 1) {
		add("Iteration " (round - 1) " clear dirty log", sum)
	} else if (name ~ /^KVM_SET_USER_MEMORY_REGION/ && round == 1 && !en) {
		add("Enabling dirty logging", sum); en = 1
	} else if (name ~ /^KVM_SET_USER_MEMORY_REGION/ && round > 1 && after_run && !dis && $0 ~ /(zap_collapsible|recover_huge)/) {
		add("Disabling dirty logging", sum); dis = 1
	}
}
END {
	printf "%-32s %12s %12s %9s\n", "# printed", "test_s", "trace_s", "diff_ms"
	for (i = 1; i <= no; i++) {
		k = order[i]
		if (k in seen_) printf "%-32s %12.6f %12.6f %9.3f\n", k, pr[k], tr[k], (pr[k] - tr[k]) * 1000
		else printf "%-32s %12.6f %12s\n", k, pr[k], "-"
	}
}'
