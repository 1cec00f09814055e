#!/bin/sh
# The dirty rate, measured passively: each harvest's dirtied pages are the
# pages it collected (protected again; with PML, its D bit cleared), which
# must be the dirty pages KVM's own bitmap gave the workload
# ("get_dirty_log_N dirty_pages=X/Y" in harness.log), harvest for harvest,
# on every real capture that has them (NPT and EPT, PML on and off, manual
# protect).  Then scenarios that dirty a share of the memory (synth
# --percent), and the report's views of it: full, --brief and --json.
. "$(dirname "$0")/lib.sh"
MSC_FORMATS_DIR=$MSC_TEST_DATA/formats
export MSC_FORMATS_DIR

HARVESTS="SELECT dirtied_pages FROM phase WHERE kind = 'harvest' AND dirtied_pages > 0
	ORDER BY start_ts"
# with several VMs at once, each VM's harvests in turn (VMs by id, their
# lines in the order of the workload's "vm=N" whose first harvest came first)
HARVESTS_BY_VM="SELECT group_concat(d, ' ') FROM (SELECT vm, dirtied_pages AS d, start_ts
	FROM phase WHERE kind = 'harvest' AND dirtied_pages > 0 ORDER BY vm, start_ts)
	GROUP BY vm ORDER BY min(start_ts)"

# the steps whose split by region (phase_region.dirtied_pages) is missing
# (NULL) or does not add up to the step's dirtied pages
SPLIT_WRONG="SELECT p.id FROM phase p WHERE p.dirtied_pages IS NOT NULL AND
	(SELECT count(*) FROM phase_region r WHERE r.phase_id = p.id AND r.dirtied_pages IS NULL)
	+ abs(p.dirtied_pages - (SELECT total(dirtied_pages) FROM phase_region r
	WHERE r.phase_id = p.id)) > 0"

n=0
for dir in "$TRACES"/*/; do
	name=$(basename "$dir")
	[ -f "$dir/harness.log" ] && grep -q ' dirty_pages=' "$dir/harness.log" || continue
	"$MSC" import -q "$dir/trace.dat" -o "$T/c.db" 2>/dev/null
	what="each harvest's dirtied pages are KVM's dirty bitmap's"
	if grep -q ' ring_full_exits=[1-9]' "$dir/harness.log"; then
		what="the VMM's own resets take back what the vCPUs' left"
		# a full dirty ring: each vCPU's reset at KVM_EXIT_DIRTY_RING_FULL is a
		# harvest too; all of them take back what the rings held ("entries=",
		# a page pushed again after a reset counted again), the VMM's own the
		# rest ("last_reset=")
		check_eq "$name: the harvests take back every ring entry ($(sed -n \
			's/.* dirty_pages=.* entries=\([0-9]*\) .*/\1/p' "$dir/harness.log" | tr '\n' '+')0)" \
			"$(sqlite3 "$T/c.db" "SELECT sum(dirtied_pages) FROM phase WHERE kind = 'harvest'")" \
			"$(( $(sed -n 's/.* dirty_pages=.* entries=\([0-9]*\) .*/\1/p' "$dir/harness.log" | paste -sd+ -) ))"
		want=$(sed -n 's/.* last_reset=\([0-9]*\).*/\1/p' "$dir/harness.log" | tr '\n' ' ')
		got=$(sqlite3 "$T/c.db" "SELECT dirtied_pages FROM phase p WHERE kind = 'harvest' AND
			EXISTS (SELECT 1 FROM ioctl i WHERE i.seq = p.start_seq AND i.pid =
			(SELECT pid FROM ioctl_call WHERE name = 'KVM_CREATE_VM')) ORDER BY start_ts" |
			tr '\n' ' ')
	elif grep -q ' vm=[0-9]* get_dirty_log' "$dir/harness.log"; then
		# "vm=N get_dirty_log_K dirty_pages=X/Y": each VM's lines, VMs by first harvest
		want=$(awk '/ dirty_pages=/ { v = $2; if (!(v in seen)) { seen[v] = 1; order[n++] = v }
			x = $0; sub(/.* dirty_pages=/, "", x); sub(/\/.*/, "", x)
			pages[v] = pages[v] (pages[v] == "" ? "" : " ") x }
			END { for (i = 0; i < n; i++) print pages[order[i]] }' "$dir/harness.log" |
			tr '\n' '|')
		got=$(sqlite3 "$T/c.db" "$HARVESTS_BY_VM" | tr '\n' '|')
	else
		want=$(sed -n 's/.* dirty_pages=\([0-9]*\)\/.*/\1/p' "$dir/harness.log" | tr '\n' ' ')
		got=$(sqlite3 "$T/c.db" "$HARVESTS" | tr '\n' ' ')
	fi
	check_eq "$name: $what ($want)" "$got" "$want"
	check_eq "$name: each step's dirtied pages, split by region, add up to its own" \
		"$(sqlite3 "$T/c.db" "$SPLIT_WRONG")" ""
	rm -f "$T/c.db"
	n=$((n + 1))
done
[ "$n" -gt 0 ] || not_ok "no capture with KVM's dirty page counts"

# By region, against the events themselves: QEMU's first CLEAR protects
# pages of four of its regions; each region's share is the write-protected
# 4K pages the capture's spte_change rows hold in its GFNs, in the
# harvest's events.
if [ -d "$TRACES/k612-qemu_migrate" ]; then
	"$MSC" import -q "$TRACES/k612-qemu_migrate/trace.dat" -o "$T/q.db" 2>/dev/null
	sqlite3 "$T/q.db" "CREATE TEMP VIEW h AS SELECT * FROM phase WHERE kind = 'harvest'
		AND dirtied_pages > 0;
		SELECT r.gfn_first, pr.dirtied_pages FROM h JOIN phase_region pr ON pr.phase_id = h.id
		JOIN region r ON r.id = pr.region_id WHERE pr.dirtied_pages > 0 ORDER BY r.gfn_first" \
		>"$T/q.got"
	sqlite3 "$T/q.db" "SELECT r.gfn_first, sum(1 << (9 * (c.level - 1))) FROM phase h
		JOIN spte_change c ON c.seq BETWEEN h.start_seq AND h.end_seq
		JOIN region r ON c.as_id = r.as_id AND c.gfn >= r.gfn_first AND c.gfn < r.gfn_end
		WHERE h.kind = 'harvest' AND h.dirtied_pages > 0 AND c.class = 'write-protect'
		GROUP BY r.id ORDER BY r.gfn_first" >"$T/q.want"
	check_eq "k612-qemu_migrate: dirtied pages by region are the harvest's protections there" \
		"$(cat "$T/q.got")" "$(cat "$T/q.want")"
	check_eq "k612-qemu_migrate: the harvest dirtied pages in 4 regions" \
		"$(wc -l <"$T/q.got")" 4
	check_match "report: each region's share of the harvest, with its rate" \
		"$("$MSC" report "$T/q.db")" \
		'region 0x1000-0x55ff: .*; collected 17,920$'
	check_match "report --json: the harvest's pages by region" \
		"$("$MSC" report --json "$T/q.db")" \
		'"dirtied_by_region": \[\{"region": [0-9]+, "pages": 3548\}, \{"region": [0-9]+, "pages": 17920\}'
fi

# synth: every 4th page written (25%) of 16 MiB, 4096 pages: 1024 per pass
for sc in "npt" "ept --pml on" "ept --pml on --clear-log on" "npt --clear-log on"; do
	# shellcheck disable=SC2086
	"$MSC" synth -q -o "$T/s.dat" --kernel 6.12 --guest-mib 16 --passes 3 --percent 25 \
		--vendor $sc || not_ok "synth --vendor $sc"
	"$MSC" import -q -f "$T/s.dat" -o "$T/s.db" 2>/dev/null
	got=$(sqlite3 "$T/s.db" "$HARVESTS" | tr '\n' ' ')
	case $sc in
	# INITIALLY_SET: the first collection takes every page, as KVM's bitmap does
	*clear-log*) want="4096 1024 1024 " ;;
	*) want="1024 1024 1024 " ;;
	esac
	check_eq "synth --vendor $sc --percent 25: dirtied pages per harvest" "$got" "$want"
done

# the views: the last scenario's database (NPT, manual protect)
"$MSC" report --json "$T/s.db" >"$T/s.json"
check_match "report --json: a harvest's dirtied pages and rate" "$(cat "$T/s.json")" \
	'"kind": "harvest".*"dirtied_pages": 1024, "dirty_window_ns": [1-9][0-9]*, "dirty_pages_per_s": [1-9]'
check_match "report --json: a workload phase has none" "$(grep '"kind": "workload"' "$T/s.json")" \
	'"dirtied_pages": null, "dirty_window_ns": null, "dirty_pages_per_s": null'
check_match "report --brief: each harvest's pages and the pages/s, a line per cycle" \
	"$("$MSC" report --brief "$T/s.db")" \
	'^  dirtied per harvest: 4,096 \(all\) / 1,024 / 1,024 pages, [0-9,]+ pages/s$'
check_match "report: the phase says it too" "$("$MSC" report "$T/s.db")" \
	'^    harvest: 1,024 pages dirtied \(4\.0 MiB\) over [0-9.]+ ms: [0-9,]+ pages/s$'
check_match "report: the first collection of manual protect has no window" \
	"$("$MSC" report "$T/s.db")" \
	'^    harvest: 4,096 pages collected \(16\.0 MiB\), no window before it$'
done_testing
