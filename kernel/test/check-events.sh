#!/bin/sh
# check-events.sh - check the new tracepoints of kernel/<series>/*.patch in
# a capture made on the patched kernel (kernel/test/capture.sh): they fired,
# and every value agrees with the workload (harness.log), the module
# parameters (kvm_params.txt), KVM's own counters (the "KVM stats after"
# markers) and the per-SPTE kvmmmu events of the same trace.
#
# Usage: check-events.sh CAPTURE_DIR
# Prints TAP lines ("ok N - ..."); exit status 0 when all pass.
# Fields are read by name from `trace-cmd report -R` (raw field=value).
# The guest's release (the capture's uname) picks the collapse pass the
# kernel has: kvm_mmu_zap_collapsible_sptes up to 6.12, from 6.13 on
# kvm_mmu_recover_huge_pages (huge pages recovered in place).
set -u
D=${1:?usage: check-events.sh CAPTURE_DIR}
NAME=$(basename "$D")
[ -s "$D/trace.dat" ] || { echo "not ok 1 - $NAME: no trace.dat"; exit 1; }

# the workload's slot and mode, from its own log
set -- $(sed -n 's/^dirtylog: slot \([0-9]*\) MiB at GPA \(0x[0-9a-f]*\) .*/\1 \2/p' "$D/harness.log")
MIB=${1:-0} GPA=${2:-0}
INIT=$(sed -n 's/^dirtylog: manual_protect .*initially_set=\([01]\).*/\1/p' "$D/harness.log")
EAGER=$(sed -n 's/^kvm\.eager_page_split=//p' "$D/kvm_params.txt")
# pages each KVM_GET_DIRTY_LOG reported: "get_dirty_log_1=4096 ..."
DIRTY=$(sed -n 's/^dirtylog: \(get_dirty_log_[0-9]*\) dirty_pages=\([0-9]*\)\/.*/\1=\2/p' "$D/harness.log" | tr '\n' ' ')
# the guest kernel's release: "6.12.117+deb12-amd64" -> 6 12
# shellcheck disable=SC2046
set -- $(sed -n '1s/^\([0-9]*\)\.\([0-9]*\).*/\1 \2/p' "$D/uname" 2>/dev/null)
if [ "${1:-6}" -gt 6 ] || { [ "${1:-6}" = 6 ] && [ "${2:-12}" -ge 13 ]; }; then
	COLLAPSE=kvm_mmu_recover_huge_pages
else
	COLLAPSE=kvm_mmu_zap_collapsible_sptes
fi

trace-cmd report -R -i "$D/trace.dat" 2>/dev/null | awk -v name="$NAME" \
	-v mib="$MIB" -v gpa="$GPA" -v init="${INIT:-0}" -v eager="$EAGER" -v dirty="$DIRTY" \
	-v collapse="$COLLAPSE" '
function hex(s,    i, c, v) {		# "0x1f" or "1f" -> number (< 2^53)
	sub(/^0x/, "", s)
	v = 0
	for (i = 1; i <= length(s); i++) {
		c = index("0123456789abcdef", substr(s, i, 1))
		if (!c)
			return -1
		v = v * 16 + c - 1
	}
	return v
}
function bit(v, b) { return int(v / 2 ^ b) % 2 }
BEGIN {
	for (i = 1; i <= split(dirty, w, " "); i++) {
		split(w[i], kv, "=")
		reported[kv[1]] = kv[2]
	}
}
function low12(s) { return hex(substr(s, length(s) - 2)) }
function fail(msg) { if (!(msg in failed)) { failed[msg] = 1; nfail++; order[nfail] = msg } }
function check(ok, desc) {
	n++
	if (ok)
		print "ok " n " - " name ": " desc
	else
		print "not ok " n " - " name ": " desc
	bad += !ok
}
# one line: "comm-pid [cpu] ts: event: k=v k=v ..."
{
	if (!match($0, /\[[0-9]+\] +[0-9.]+: [a-z_0-9]+:/))
		next
	head = substr($0, 1, RSTART - 1)
	sub(/ +$/, "", head)
	pid = head
	sub(/.*-/, "", pid)
	split(substr($0, RSTART, RLENGTH), h, " ")
	ts = h[2]
	sub(/:$/, "", ts)
	ev = h[3]
	sub(/:$/, "", ev)
	rest = substr($0, RSTART + RLENGTH)
	delete f
	if (ev == "print") {
		buf = rest
		sub(/.*buf=/, "", buf)
	} else {
		nf = split(rest, kv, " ")
		for (i = 1; i <= nf; i++)
			if ((e = index(kv[i], "=")))
				f[substr(kv[i], 1, e - 1)] = substr(kv[i], e + 1)
	}
}
ev == "print" && buf ~ /^mmuscope-dirtylog: phase=/ {
	split(buf, w, /[= ]/)
	ph = w[3]
	main_pid = pid
	if (w[4] == "begin") {
		phase = ph
		if (ph ~ /_dirty_log_/) {
			ioctls++
			wp = 0
		}
		if (ph ~ /^enable_dirty_logging|^disable_dirty_logging/)
			toggles++
	} else
		phase = ""
	next
}
ev == "print" && buf ~ /^mmuscope-dirtylog: KVM stats after / {
	stats++
	for (i = 1; i <= split(buf, w, " "); i++) {
		if (w[i] ~ /^pages_2m=/) { sub(/.*=/, "", w[i]); pages_2m = w[i] + 0 }
		if (w[i] ~ /^remote_tlb_flush=/) { sub(/.*=/, "", w[i]); rtf = w[i] + 0 }
		if (w[i] ~ /^remote_tlb_flush_requests=/) { sub(/.*=/, "", w[i]); rtfr = w[i] + 0 }
	}
	if (flush_all != rtfr || flush_done != rtf)
		flush_bad++
	if (flush_all != rtfr)
		fail("after " buf ": " flush_all " full flushes traced, KVM counted " rtfr " requests")
	if (flush_done != rtf)
		fail("after " buf ": " flush_done " flushes with a kick traced, KVM counted " rtf)
	# 2M pages KVM gained in a disable: those recovered (none by a zap)
	if (buf ~ / after disable_dirty_logging:/ && pages_2m - last_2m != disable_2m)
		fail("after " buf ": KVM gained " pages_2m - last_2m " 2M pages, " disable_2m + 0 " recovered")
	disable_2m = 0
	last_2m = pages_2m
	next
}
# kprobes of the same name (group lab in the rig'"'"'s captures) have no vm_id
ev ~ /^kvm_flush_remote_tlbs$|^kvm_mmu_slot_dirty_logging|^kvm_mmu_split_huge_pages$|^kvm_mmu_zap_collapsible_sptes$|^kvm_mmu_recover_huge_pages$|^kvm_dirty_log_harvest$/ && !("vm_id" in f) {
	next
}
ev ~ /^kvm_flush_remote_tlbs$|^kvm_mmu_slot_dirty_logging|^kvm_mmu_split_huge_pages$|^kvm_mmu_zap_collapsible_sptes$|^kvm_mmu_recover_huge_pages$|^kvm_dirty_log_harvest$/ {
	count[ev]++
	if (vm_id == "")
		vm_id = f["vm_id"]
	if (f["vm_id"] != vm_id || f["vm_id"] < 1)
		fail(ev " at " ts ": vm_id " f["vm_id"] ", first was " vm_id)
	vm_pids[f["vm_pid"]] = 1
}
ev == "kvm_flush_remote_tlbs" {
	if (f["all"] == 1) {
		flush_all++
		if (f["kicked"] == 1 || f["arch_flush"] == 1)
			flush_done++
	}
	if (f["range"] == 0 && (hex(f["start_gfn"]) != 0 || f["nr_pages"] != 0))
		fail("full flush at " ts " names a range")
	if (f["caller"] == "" || f["caller"] ~ /^0x0*$/)
		fail("flush at " ts " has no caller")
	flushes_by[pid]++
	last_flush[pid] = f["range"] " " hex(f["start_gfn"]) " " f["nr_pages"]
	next
}
ev == "kvm_mmu_slot_dirty_logging_begin" {
	if (open_begin)
		fail("begin at " ts " while another is open")
	open_begin = 1
	for (k in f)
		bf[k] = f[k]
	on = f["new_flags"] % 2
	if (f["old_flags"] % 2 == on)
		fail("begin at " ts ": flags " f["old_flags"] " -> " f["new_flags"] " do not toggle dirty logging")
	if (phase != (on ? "enable_dirty_logging" : "disable_dirty_logging"))
		fail("log " (on ? "on" : "off") " at " ts " in phase \"" phase "\"")
	if (hex(f["base_gfn"]) != hex(gpa) / 4096 || f["npages"] != mib * 256)
		fail("slot gfn " f["base_gfn"] " pages " f["npages"] " is not the workload slot " gpa " / " mib " MiB")
	if (f["as_id"] != 0 || f["change"] != 3)
		fail("as_id " f["as_id"] " change " f["change"] " (want 0 and KVM_MR_FLAGS_ONLY 3)")
	if (f["eager_split"] != (eager == "Y") || f["initially_set"] != init || f["pml"] != 0)
		fail("eager_split " f["eager_split"] " initially_set " f["initially_set"] " pml " f["pml"] " (want " (eager == "Y") " " init " 0)")
	zap_flushes0 = flushes_by[pid]
	zap_seen = 0
	pairs++
	next
}
ev == "kvm_mmu_slot_dirty_logging_end" {
	if (!open_begin)
		fail("end at " ts " without begin")
	open_begin = 0
	for (k in bf)
		if (k != "duration_ns" && bf[k] != f[k])
			fail("end at " ts ": " k " " f[k] " differs from begin " bf[k])
	if (f["duration_ns"] <= 0)
		fail("end at " ts ": duration_ns " f["duration_ns"])
	if (!(f["new_flags"] % 2) && zap_seen != 1)
		fail("disable at " ts ": " zap_seen " " collapse " events")
	next
}
ev == "kvm_mmu_split_huge_page" {
	if (f["errno"] == 0)
		pend[pid, f["level"]]++
	else
		pend[pid, "failed"]++
	splits++
	next
}
ev == "kvm_mmu_split_huge_pages" {
	r = f["reason"]
	spans[r]++
	if (f["split_2m"] != pend[pid, 2] + 0 || f["split_1g"] != pend[pid, 3] + 0 || f["failed"] != pend[pid, "failed"] + 0)
		fail("span at " ts " counts 1g " f["split_1g"] " 2m " f["split_2m"] " failed " f["failed"] ", its pid traced " pend[pid, 3] + 0 "/" pend[pid, 2] + 0 "/" pend[pid, "failed"] + 0)
	accounted += f["split_2m"] + f["split_1g"] + f["failed"]
	pend[pid, 2] = pend[pid, 3] = pend[pid, "failed"] = 0
	want = r == 0 ? "^enable_dirty_logging$" : r == 1 ? "^clear_dirty_log_" : "^dirty_pass_"
	if (phase !~ want)
		fail("split reason " r " at " ts " in phase \"" phase "\"")
	if (r == 0 && f["split_2m"] != last_2m)
		fail("enable split " f["split_2m"] " 2M pages, KVM had " last_2m)
	if (f["duration_ns"] <= 0 || f["target_level"] < 1)
		fail("span at " ts ": duration_ns " f["duration_ns"] " target_level " f["target_level"])
	if (r == 2 && f["end_gfn"] - 0 == 0)
		fail("fault span at " ts " has no range")
	next
}
# a harvest: a present 4K leaf write-protected (W is bit 1 on NPT and EPT)
ev == "kvm_tdp_mmu_spte_changed" && phase ~ /_dirty_log_/ && f["level"] == 1 {
	o = low12(f["old_spte"]); nw = low12(f["new_spte"])
	if (bit(o, 11) && bit(nw, 11) && bit(o, 1) && !bit(nw, 1))
		wp++
	next
}
ev == "kvm_dirty_log_harvest" {
	op = f["clear"] == 1 ? "clear" : "get"
	prot = f["protect"] == 1
	harvests[op]++
	want = phase
	sub(/^clear_/, "get_", want)
	if (phase !~ ("^" op "_dirty_log_[0-9]+$"))
		fail(op " harvest at " ts " in phase \"" phase "\"")
	if (!(want in reported) || f["dirty"] + 0 != reported[want] + 0)
		fail(op " harvest at " ts ": dirty " f["dirty"] ", the workload got " reported[want] " pages from " want)
	if (hex(f["start_gfn"]) != hex(gpa) / 4096 || f["npages"] != mib * 256 || f["as_id"] != 0)
		fail(op " harvest at " ts ": as " f["as_id"] " gfn " f["start_gfn"] " pages " f["npages"] " is not the workload slot")
	if (prot != (op == "clear" || !init) || (f["flush"] == 1) != (prot && f["dirty"] > 0))
		fail(op " harvest at " ts ": protect " f["protect"] " flush " f["flush"] " (initially_set " init ", dirty " f["dirty"] ")")
	if (wp != (prot ? f["dirty"] + 0 : 0))
		fail(op " harvest at " ts ": " wp " 4K SPTEs write-protected for " f["dirty"] " dirty pages")
	if (f["duration_ns"] <= 0)
		fail(op " harvest at " ts ": duration_ns " f["duration_ns"])
	protected += prot ? f["dirty"] : 0
	next
}
ev == "kvm_tdp_mmu_spte_changed" && open_begin && !(bf["new_flags"] % 2) {
	# disable: a 4K table (level 2, present, not huge) zapped, or
	# replaced by a present 2M leaf; the same at level 3 for 1G
	o = low12(f["old_spte"]); nw = low12(f["new_spte"])
	if (f["level"] == 2 && bit(o, 11) && !bit(o, 7) && !bit(nw, 11) && f["new_spte"] != "80000000000005a0")
		zapped2++
	if (bit(o, 11) && !bit(o, 7) && bit(nw, 11) && bit(nw, 7))
		recovered[f["level"]]++
	next
}
ev == "kvm_mmu_zap_collapsible_sptes" || ev == "kvm_mmu_recover_huge_pages" {
	zap_seen++
	if (ev != collapse)
		fail(ev " at " ts ": this kernel'"'"'s collapse pass is " collapse)
}
ev == "kvm_mmu_recover_huge_pages" {
	if (f["recovered_2m"] != recovered[2] + 0 || f["recovered_1g"] != recovered[3] + 0)
		fail("recovery at " ts ": recovered 1g " f["recovered_1g"] " 2m " f["recovered_2m"] ", spte_changed shows " recovered[3] + 0 " 1G and " recovered[2] + 0 " 2M tables replaced by a huge leaf")
	n_rec = f["recovered_2m"] + f["recovered_1g"]
	nfl = f["flushes"] + 0
	# one memslot flush when something was recovered, plus one per yield
	# that had recovered something; never one for nothing
	if (nfl != flushes_by[pid] - zap_flushes0 || (n_rec > 0) != (nfl > 0) || nfl > n_rec)
		fail("recovery at " ts ": flushes " f["flushes"] ", " flushes_by[pid] - zap_flushes0 " kvm_flush_remote_tlbs traced, " n_rec " pages recovered")
	if (n_rec > 0 && last_flush[pid] != "1 " hex(bf["base_gfn"]) " " bf["npages"])
		fail("recovery at " ts ": the last flush is \"" last_flush[pid] "\", not the memslot")
	if (f["start_gfn"] != bf["base_gfn"] || hex(f["end_gfn"]) != hex(bf["base_gfn"]) + bf["npages"] || f["slot_id"] != bf["slot_id"])
		fail("recovery at " ts ": slot " f["slot_id"] " " f["start_gfn"] "-" f["end_gfn"] " is not the toggled slot")
	if (f["duration_ns"] <= 0)
		fail("recovery at " ts ": duration_ns " f["duration_ns"])
	recovered_total += f["recovered_2m"]
	disable_2m = f["recovered_2m"]
	zaps++
	delete recovered
	next
}
ev == "kvm_mmu_zap_collapsible_sptes" {
	if (f["zapped_2m"] != zapped2 || f["zapped_1g"] != 0)
		fail("zap at " ts ": zapped 1g " f["zapped_1g"] " 2m " f["zapped_2m"] ", spte_changed shows " zapped2 " 4K tables zapped")
	if (f["flushes"] != f["zapped_2m"] + f["zapped_1g"] || f["flushes"] != flushes_by[pid] - zap_flushes0)
		fail("zap at " ts ": flushes " f["flushes"] ", " flushes_by[pid] - zap_flushes0 " kvm_flush_remote_tlbs traced")
	if (f["start_gfn"] != bf["base_gfn"] || hex(f["end_gfn"]) != hex(bf["base_gfn"]) + bf["npages"] || f["slot_id"] != bf["slot_id"])
		fail("zap at " ts ": slot " f["slot_id"] " " f["start_gfn"] "-" f["end_gfn"] " is not the toggled slot")
	if (f["duration_ns"] <= 0)
		fail("zap at " ts ": duration_ns " f["duration_ns"])
	zaps++
	zapped2 = 0
	next
}
END {
	check(count["kvm_flush_remote_tlbs"] > 0 && count["kvm_mmu_slot_dirty_logging_begin"] > 0 &&
	      count["kvm_mmu_split_huge_pages"] > 0 && count[collapse] > 0 &&
	      count["kvm_dirty_log_harvest"] > 0,
	      "the new events fired (flush " count["kvm_flush_remote_tlbs"] ", dirty-logging " count["kvm_mmu_slot_dirty_logging_begin"] "+" count["kvm_mmu_slot_dirty_logging_end"] ", split spans " count["kvm_mmu_split_huge_pages"] ", " (collapse == "kvm_mmu_recover_huge_pages" ? "recovery " : "zap ") count[collapse] ", harvest " count["kvm_dirty_log_harvest"] ")")
	npids = 0
	for (p in vm_pids)
		npids++
	check(vm_id >= 1 && npids == 1 && (main_pid in vm_pids), "one VM: vm_id " vm_id ", vm_pid is the workload pid " main_pid)
	check(stats > 0 && !flush_bad, "kvm_flush_remote_tlbs: " flush_all " full flushes = KVM remote_tlb_flush_requests after each of " stats " phases")
	check(pairs == toggles && pairs == count["kvm_mmu_slot_dirty_logging_end"] && !open_begin,
	      "dirty-logging begin/end: " pairs " pairs for " toggles " enable/disable phases")
	check(accounted == splits && splits > 0, "split spans account for all " splits " kvm_mmu_split_huge_page events (enable " spans[0] + 0 ", clear " spans[1] + 0 ", fault " spans[2] + 0 ")")
	check(zaps > 0 && zaps * 2 == toggles, "one " collapse " per disable (" zaps (collapse == "kvm_mmu_recover_huge_pages" ? ", " recovered_total + 0 " 2M pages recovered" : "") ")")
	check(ioctls > 0 && harvests["get"] + harvests["clear"] == ioctls,
	      "one kvm_dirty_log_harvest per dirty-log ioctl (" harvests["get"] + 0 " get, " harvests["clear"] + 0 " clear), " protected + 0 " pages re-protected, each a traced write-protection")
	check(nfail == 0, "every field agrees with the workload, KVM stats and kvmmmu events")
	for (i = 1; i <= nfail && i <= 10; i++)
		print "# " order[i]
	exit bad != 0
}'
