#!/bin/sh
# mmuscope analyze on the real captures: the rebuilt census equals KVM's
# own counters at every "KVM stats after" marker (TDP MMU), the shadow
# capture is marked approximate, detected dirty-log phases line up with the
# workload's phase markers, split children / fast-path fixes / frozen
# children are rebuilt, and "what happened to GFN X" answers on real data.
. "$(dirname "$0")/lib.sh"

q() { sqlite3 "$1" "$2"; }

for dir in "$TRACES"/*/; do
	name=$(basename "$dir")
	db=$T/$name.db
	check "$name: import with inline analysis" "$MSC" import -q "$dir/trace.dat" -o "$db"
	# the upstream selftests' captures (k*st-*) have no workload markers:
	# tests/cli/selftests.sh checks their phases against the ioctls
	markers=0
	[ -e "$dir/harness.log" ] && markers=1
	if [ $markers = 1 ]; then
		want=$(grep -c 'KVM stats after' "$dir/harness.log")
		got=$(q "$db" "SELECT count(*) FROM kvm_stats")
		check_eq "$name: one census check per KVM stats marker" "$got" "$want"
	fi
	case $name in
	*shadow*)
		check_eq "$name: census marked approximate" \
			"$(q "$db" "SELECT min(census_flags & 1) FROM kvm_stats")" 1
		check_match "$name: report shows the distance to KVM's counters" \
			"$("$MSC" report "$db")" 'DIFFER: \+4096 \+0 \+0'
		continue
		;;
	esac
	check_eq "$name: census equals pages_4k/2m/1g at every marker" \
		"$(q "$db" "SELECT count(*) FROM kvm_stats_check WHERE diff_4k OR diff_2m OR diff_1g")" 0
	check_eq "$name: each phase's regions add up to its census after (exact at the phase's end)" \
		"$(q "$db" "SELECT count(*) FROM phase p JOIN (SELECT phase_id, sum(pages_4k) k, sum(pages_2m) m,
			sum(pages_1g) / 512 g FROM phase_region GROUP BY phase_id) c ON c.phase_id = p.id
			WHERE c.k != p.after_4k OR c.m != p.after_2m OR c.g != p.after_1g")" 0
	# store-regions.c builds both in C; schema/README.md defines them in SQL
	# (of each VM's own tables: VMs at once map the same GFNs)
	check_eq "$name: regions are the islands of 2M cells region_state has rows for" \
		"$(q "$db" "WITH w AS (SELECT capture_id, vm, as_id, min(gfn) f, max(gfn) + 512 e
			FROM (SELECT capture_id, vm, as_id, gfn, gfn / 512 - row_number() OVER
			(PARTITION BY capture_id, vm, as_id ORDER BY gfn) AS grp FROM (SELECT DISTINCT
			capture_id, vm, as_id, gfn FROM region_state)) GROUP BY capture_id, vm, as_id, grp)
			SELECT (SELECT count(*) FROM (SELECT * FROM w EXCEPT SELECT capture_id, vm, as_id,
			gfn_first, gfn_end FROM region)) + (SELECT count(*) FROM region) - (SELECT count(*) FROM w)")" 0
	check_eq "$name: phase_region sums each cell's last region_state row by the phase's end" \
		"$(q "$db" "WITH w AS (SELECT p.capture_id, p.id phase_id, r.id region_id,
			sum(CASE WHEN s.kind = 1 THEN s.mapped ELSE 0 END) k,
			sum(s.kind = 2) m, sum(s.kind = 3) g
			FROM phase p JOIN region r ON r.capture_id = p.capture_id AND r.vm = p.vm
			JOIN (SELECT DISTINCT capture_id, vm, as_id, gfn FROM region_state) c
			ON c.capture_id = r.capture_id AND c.vm = r.vm AND c.as_id = r.as_id
			AND c.gfn >= r.gfn_first AND c.gfn < r.gfn_end JOIN region_state s
			ON s.capture_id = c.capture_id AND s.vm = c.vm AND s.as_id = c.as_id
			AND s.gfn = c.gfn AND s.ts = (SELECT max(y.ts) FROM region_state y
			WHERE y.capture_id = c.capture_id AND y.vm = c.vm AND y.as_id = c.as_id
			AND y.gfn = c.gfn AND y.ts <= p.end_ts)
			GROUP BY p.capture_id, p.id, r.id)
			SELECT (SELECT count(*) FROM (SELECT * FROM w EXCEPT SELECT capture_id, phase_id,
			region_id, pages_4k, pages_2m, pages_1g FROM phase_region))
			+ (SELECT count(*) FROM phase_region) - (SELECT count(*) FROM w)")" 0
	# store-dirty.c splits a step's dirtied pages in C; schema/README.md in SQL
	check_eq "$name: a step's dirtied pages by region are its dirty_cell rows there" \
		"$(q "$db" "WITH w AS (SELECT p.id phase_id, r.id region_id, total(d.pages) n
			FROM phase p JOIN region r ON r.capture_id = p.capture_id AND r.vm = p.vm
			JOIN dirty_cell d ON d.capture_id = p.capture_id AND d.vm = p.vm
			AND d.as_id = r.as_id AND d.gfn >= r.gfn_first AND d.gfn < r.gfn_end
			AND d.ts BETWEEN p.start_ts AND p.end_ts
			AND d.kind = (CASE p.kind WHEN 'harvest' THEN 0 ELSE 1 END)
			WHERE p.kind IN ('harvest', 'dirty-pass') GROUP BY p.id, r.id)
			SELECT count(*) FROM phase p JOIN phase_region pr ON pr.phase_id = p.id
			LEFT JOIN w ON w.phase_id = pr.phase_id AND w.region_id = pr.region_id
			WHERE p.dirtied_pages IS NOT NULL AND (pr.dirtied_pages IS NULL
			OR coalesce(w.n, 0) != pr.dirtied_pages)")" 0
	check_eq "$name: ... and add up to the step's own" \
		"$(q "$db" "SELECT count(*) FROM phase p WHERE p.dirtied_pages !=
			(SELECT total(dirtied_pages) FROM phase_region r WHERE r.phase_id = p.id)")" 0
	# an event writes a cell's state once: a split's 512 children or a zapped
	# subtree leave one row at its time, the one "state at T" reads
	check_eq "$name: one region_state row per 2M cell and time" \
		"$(q "$db" "SELECT count(*) FROM (SELECT 1 FROM region_state
			GROUP BY capture_id, vm, as_id, gfn, ts HAVING count(*) > 1)")" 0
	check_eq "$name: a cell split 2M -> 4K reads all 512 pages mapped at the split" \
		"$(q "$db" "SELECT count(*) FROM spte_change c JOIN region_state r ON r.gfn = c.gfn
			AND r.ts = c.ts WHERE c.class = 'split' AND c.level = 2
			AND (r.kind != 1 OR r.mapped != 512)")" 0
	check_eq "$name: exact census (not approximate)" \
		"$(q "$db" "SELECT coalesce(max(census_flags & 1), 0) FROM kvm_stats")" 0
	check_eq "$name: no bad-spte anomaly, no change left unclassified" \
		"$(q "$db" "SELECT (SELECT count(*) FROM anomaly WHERE kind = 'bad-spte') ||
			'|' || (SELECT count(*) FROM spte_change WHERE class = 'anomaly')")" "0|0"
	# the special values come from the capture's own events, never a table
	check_match "$name: non-present, frozen and role width learnt from events" \
		"$(q "$db" "SELECT nonpresent_from || ' ' || frozen_from || ' ' || role_access_from FROM capture")" \
		'^events \([0-9]+\) events \([0-9]+\) events \([0-9]+\)$'
	case $name in
	k7*) want_frozen=0x80000000000001a0 want_bits=4 ;;
	k61-*) want_frozen=0x5a0 want_bits=3 ;;
	*) want_frozen=0x80000000000005a0 want_bits=3 ;;
	esac
	check_eq "$name: FROZEN_SPTE and the role's access width of its kernel" \
		"$(q "$db" "SELECT printf('%#x', frozen_spte) || ' ' || role_access_bits FROM capture")" \
		"$want_frozen $want_bits"

	check_eq "$name: no resync on a complete trace" \
		"$(q "$db" "SELECT resyncs FROM analysis")" 0
	check_eq "$name: every fast-path fix applied" \
		"$(q "$db" "SELECT fast_applied FROM analysis")" \
		"$(q "$db" "SELECT count(*) FROM fault WHERE kind = 'fast-fixed' AND old_spte != new_spte")"
	# every child of a split is synthesized (512 per split event)
	check_eq "$name: 512 children synthesized per split" \
		"$(q "$db" "SELECT synthesized FROM analysis")" \
		"$(q "$db" "SELECT 512 * count(*) FROM huge_page_split WHERE errno = 0")"
	# frozen children: the untraced frozen -> non-present step, once per frozen event
	check_eq "$name: every frozen SPTE completed" \
		"$(q "$db" "SELECT frozen_completed FROM analysis")" \
		"$(q "$db" "SELECT count(*) FROM spte_change WHERE new_spte = (SELECT frozen_spte FROM capture)")"
	# detected phases lie inside the workload phase of the matching name
	[ $markers = 1 ] || continue
	for mode in kprobe infer; do
		[ $mode = infer ] && "$MSC" analyze -q --rebuild --infer-only "$db"
		bad=$(q "$db" "SELECT count(*) FROM phase d WHERE d.kind IN ('enable','harvest','disable')
			AND NOT EXISTS (SELECT 1 FROM phase w WHERE w.kind = 'workload'
			  AND d.start_ts >= w.start_ts AND d.end_ts <= w.end_ts
			  AND ((d.kind = 'enable' AND w.name LIKE 'enable%')
			    OR (d.kind = 'harvest' AND (w.name LIKE 'get_dirty_log%' OR w.name LIKE 'clear_dirty_log%'
			      OR w.name LIKE 'reset_dirty_rings%'))
			    OR (d.kind = 'enable' AND w.name LIKE 'clear_dirty_log%')
			    OR (d.kind = 'harvest' AND d.name = 'ring_full_reset' AND w.name LIKE 'dirty_pass%')
			    OR (d.kind = 'disable' AND w.name LIKE 'disable%')))")
		check_eq "$name: $mode phases line up with the workload's markers" "$bad" 0
		n=$(q "$db" "SELECT count(*) FROM phase WHERE kind = 'disable'")
		check_eq "$name: $mode one disable per disable_dirty_logging" "$n" \
			"$(q "$db" "SELECT count(*) FROM phase WHERE name LIKE 'disable%' AND kind = 'workload'")"
		bad=$(q "$db" "SELECT count(*) FROM phase d WHERE d.kind = 're-promotion' AND NOT EXISTS
			(SELECT 1 FROM phase w WHERE w.kind = 'workload' AND w.name = 'repopulate'
			 AND d.end_ts BETWEEN w.start_ts AND w.end_ts)")
		check_eq "$name: $mode re-promotion ends in repopulate" "$bad" 0
	done
	check_eq "$name: inferred phases say so" \
		"$(q "$db" "SELECT count(*) FROM phase WHERE kind != 'workload' AND source != 'inferred'")" 0
done

# The 1G capture: a 1G split gives 512 2M children, each later split to 4K.
db=$T/k612-npt_tdp_1g_hugetlb.db
check_eq "1G: 512 intermediate 2M children synthesized" \
	"$(q "$db" "SELECT count(*) FROM gfn_history WHERE what = '2M' AND started_by = 'eager-split'")" 512
check_eq "1G: 262144 4K children synthesized" \
	"$(q "$db" "SELECT count(*) FROM gfn_history WHERE level = 1 AND started_by = 'eager-split'")" 262144
check_eq "1G: split children flagged synthesized" \
	"$(q "$db" "SELECT count(*) FROM mapping WHERE flags & 1 AND start_cause = 2")" 262656
check_eq "1G: disable -> huge again measured" \
	"$(q "$db" "SELECT to_huge_ns > 0 FROM phase WHERE kind = 'disable'")" 1

# What happened to GFN 0x40005 (k612-npt_tdp_32m): the documented query.
db=$T/k612-npt_tdp_32m.db
hist=$(q "$db" "SELECT what, started_by, ended_by FROM gfn_history
	WHERE capture_id = 1 AND as_id = 0 AND ((level = 1 AND gfn = 0x40005)
	   OR (level = 2 AND gfn = (0x40005 & ~511)) OR (level = 3 AND gfn = (0x40005 & ~262143)))
	ORDER BY start_ts, level DESC" | tr '\n' ' ')
check_eq "gfn 0x40005: its whole history" "$hist" \
"table|link|zap 2M|fault-map|eager-split table|eager-split|zap-collapsible 4K|eager-split|write-protect 4K|write-protect|fast-fix 4K|fast-fix|write-protect 4K|write-protect|fast-fix 4K|fast-fix|write-protect 4K|write-protect|teardown 2M|fault-map|zap "

done_testing
