#!/bin/sh
# The companion kernel patch's events (kernel/, docs/kernel-events.md) on the
# captures made with the patched 6.12 kernel: stored, exact against KVM's own
# counters and the per-SPTE events, and used by the analyzer for exact
# phases and flushes.
. "$(dirname "$0")/lib.sh"

q() { sqlite3 "$db" "$1"; }

for name in k612msc-npt_tdp_32m k612msc-npt_tdp_16m_clear k612msc-npt_tdp_eager0_16m; do
	dat=$TRACES/$name/trace.dat
	[ -f "$dat" ] || { not_ok "$name: capture missing"; continue; }
	db=$T/$name.db
	check "$name: imports" "$MSC" import -q "$dat" -o "$db"

	# Flushes: at every "KVM stats after" marker, the full flushes traced so
	# far equal KVM's remote_tlb_flush_requests.
	q "select ts, text from marker where text like '%KVM stats after%'" |
		while IFS='|' read -r ts text; do
			want=$(printf '%s\n' "$text" | sed -n 's/.*remote_tlb_flush_requests=\([0-9]*\).*/\1/p')
			got=$(q "select count(*) from tlb_flush where \"all\" = 1 and ts <= $ts")
			[ "$got" = "$want" ] || echo "$text: $got flushes traced, KVM says $want"
		done >"$T/flush.diff"
	check_eq "$name: full flushes equal remote_tlb_flush_requests at every marker" \
		"$(cat "$T/flush.diff")" ""

	# Every dirty-log toggle has one begin and one end, end after begin.
	check_eq "$name: dirty-logging begin/end pairs" \
		"$(q "select count(*) from dirty_logging b where op = 'begin' and exists (select 1 from dirty_logging e where e.op = 'end' and e.seq = (select min(seq) from dirty_logging x where x.seq > b.seq))")" \
		"$(q "select count(*) from dirty_logging where op = 'end'")"

	# Split spans account for every split event (per level).
	check_eq "$name: split spans count every kvm_mmu_split_huge_page" \
		"$(q "select total(split_2m) || ' ' || total(split_1g) from split_span")" \
		"$(q "select count(*) filter (where level = 2) || '.0 ' || count(*) filter (where level = 3) || '.0' from huge_page_split")"

	# A collapse pass zaps exactly the 2M tables the SPTE events show inside it.
	check_eq "$name: collapse spans equal the level-2 subtree zaps they enclose" \
		"$(q "select group_concat(c.zapped_2m, ' ') from collapse_span c")" \
		"$(q "select group_concat(n, ' ') from (select (select count(*) from spte_change s where s.class = 'zap-subtree' and s.level = 2 and s.seq < c.seq and s.seq > (select max(seq) from dirty_logging d where d.seq < c.seq and d.op = 'begin')) as n from collapse_span c order by c.seq)")"

	# VM attribution: the VM the events name is the workload's process.
	check_eq "$name: one VM, created by the workload's process" \
		"$(q "select count(*) || ' ' || min(vm_pid) from kernel_vm")" \
		"1 $(q "select pid from marker where text like '%phase=setup begin' limit 1")"

	# The analyzer takes enable/disable from the tracepoints: inside the
	# workload's own phases, and the report says where they came from.
	check_eq "$name: every enable/disable phase is exact (tracepoint)" \
		"$(q "select count(*) from phase where kind in ('enable', 'disable') and source != 'tracepoint'")" 0
	check_eq "$name: tracepoint phases sit inside the workload's enable/disable phases" \
		"$(q "select count(*) from phase p where p.source = 'tracepoint' and p.kind in ('enable','disable') and not exists (select 1 from phase w where w.kind = 'workload' and w.name like case p.kind when 'enable' then 'enable%' else 'disable%' end and p.start_ts >= w.start_ts and p.end_ts <= w.end_ts)")" 0
	# Harvests: one per GET/CLEAR_DIRTY_LOG, inside the workload's phase of
	# that ioctl; a re-protecting one write-protected each dirty page (a
	# traced 4K write-protection); each is an exact harvest phase.
	check_eq "$name: one harvest per dirty-log ioctl, inside its workload phase" \
		"$(q "select count(*) from harvest h where exists (select 1 from phase w where w.kind = 'workload' and w.name glob h.op || '_dirty_log_[0-9]*' and h.ts between w.start_ts and w.end_ts)")" \
		"$(q "select count(*) from phase where kind = 'workload' and name glob '*_dirty_log_[0-9]*'")"
	check_eq "$name: re-protected pages equal the write-protections inside each harvest" \
		"$(q "select group_concat(h.dirty * h.protect, ' ') from harvest h order by h.seq")" \
		"$(q "select group_concat(n, ' ') from (select (select count(*) from spte_change s where s.class = 'write-protect' and s.level = 1 and s.seq < h.seq and s.seq > (select max(seq) from marker m where m.seq < h.seq and m.text like '%_dirty_log_% begin')) as n from harvest h order by h.seq)")"
	check_eq "$name: every harvest phase is exact, one per harvest event, with the kernel's duration" \
		"$(q "select (select count(*) from phase p join harvest h on h.ts = p.end_ts where p.kind = 'harvest' and p.source = 'tracepoint' and p.end_ts - p.start_ts = h.duration_ns) || ' ' || (select count(*) from phase where kind = 'harvest')")" \
		"$(q "select count(*) || ' ' || count(*) from harvest")"
	check_eq "$name: flushes per phase add up to KVM's count" \
		"$(q "select sum(flushes) from phase where kind = 'workload'")" \
		"$(q "select max(cast(substr(text, instr(text, 'remote_tlb_flush_requests=') + 26) as integer)) from marker where text like '%remote_tlb_flush_requests=%'")"
done

db=$T/k612msc-npt_tdp_32m.db
check_eq "enable span: eager split of the 32M slot's 16 2M pages, reason from the format" \
	"$(q "select reason, reason_code, split_2m, failed, start_gfn, end_gfn - start_gfn from split_span")" "enable|0|16|0|262144|8192"
# skipped counts visits: at least the 1G table over the slot, again after a yield
check_eq "disable: zap-collapsible of 16 2M tables with 16 flushes" \
	"$(q "select zapped_2m, skipped >= 1, flushes from collapse_span")" "16|1|16"
check_eq "harvests: two KVM_GET_DIRTY_LOG of the 32M slot, all 8192 pages dirty, re-protected, flushed" \
	"$(q "select group_concat(op || ' ' || start_gfn || ' ' || npages || ' ' || dirty || ' ' || protect || flush, ', ') from harvest")" \
	"get 262144 8192 8192 11, get 262144 8192 8192 11"
# each harvest, in its harvest phase; the workload's get_dirty_log_N says it is that one's work
check_eq "report: the phases of a harvest say what the kernel harvested" \
	"$("$MSC" report "$db" | grep -c '^    kernel: 1 get + 0 clear, 8192 of 8192 pages dirty, 8192 re-armed, ')" 2
check_eq "... and the workload's steps around them point there" \
	"$("$MSC" report "$db" | grep -c '^\[[0-9]*\] workload  *get_dirty_log_[12] .*: the work of \[[0-9]*\] below$')" 2
check_eq "report --json: the same (null in phases without harvests)" \
	"$("$MSC" report --json "$db" | grep -o '"harvest": {[^}]*}' | sed 's/"kernel_ns": [0-9]*/ns/' | sort | uniq -c | tr -s ' ')" \
	' 4 "harvest": {"get": 1, "clear": 0, "pages": 8192, "dirty": 8192, "rearmed": 8192, ns}'
# the kernel paused 6.8 ms between _begin and the first zap: the phase
# spans it (nothing closes a phase between _begin and _end)
check_eq "disable: the kernel's pause before the first zap stays inside the phase" \
	"$(q "select (select count(*) from phase where kind = 'disable') || ' ' || (select min(s.ts) - d.ts > 5000000 from spte_change s where s.class = 'zap-subtree' and s.ts > d.ts) from dirty_logging d where d.op = 'begin' and (d.new_flags & 1) = 0")" "1 1"
check_eq "disable: the 16 zapped 2M tables end by zap-collapsible" \
	"$(q "select count(*) from mapping m join map_cause c on c.id = m.end_cause where m.level = 2 and m.leaf = 0 and c.name = 'zap-collapsible'")" 16
check_eq "the disable phase's duration is the kernel's (within the end event's own cost)" \
	"$(q "select (p.end_ts - p.start_ts) between d.duration_ns and d.duration_ns + 2000000 from phase p, dirty_logging d where p.kind = 'disable' and d.op = 'end' and (d.new_flags & 1) = 0")" 1

db=$T/k612msc-npt_tdp_16m_clear.db
check_eq "manual protect: no split at enable, CLEAR_DIRTY_LOG splits (harvest spans)" \
	"$(q "select reason, count(*), sum(split_2m) from split_span group by reason")" "clear|16|16"
check_eq "manual protect: harvests found from the clear spans" \
	"$(q "select count(*) > 0 from phase where kind = 'harvest' and source = 'tracepoint'")" 1
check_eq "manual protect: each GET re-protects nothing, each CLEAR re-protects and flushes" \
	"$(q "select op, count(*), sum(dirty), sum(protect), sum(flush) from harvest group by op")" \
	"clear|4|16384|4|4
get|4|16384|0|0"

db=$T/k612msc-npt_tdp_eager0_16m.db
check_eq "eager split off: fault-path split spans from the vCPU thread" \
	"$(q "select reason, count(*), sum(split_2m) from split_span group by reason")" "fault|8|8"

# --infer-only ignores them: the phases are found from SPTE patterns alone.
db=$T/k612msc-npt_tdp_32m.db
check "analyze --rebuild --infer-only" "$MSC" analyze -q --rebuild --infer-only "$db"
check_eq "inferred phases replace the exact ones" \
	"$(q "select group_concat(distinct source) from phase where kind in ('enable', 'disable')")" "inferred"

done_testing
