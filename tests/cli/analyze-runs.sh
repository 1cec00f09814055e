#!/bin/sh
# Mapping intervals stored as runs (table mapping_run, view mapping): the
# view gives exactly the intervals the one-row-per-interval table gave on
# every real capture, a split's 512 children are one row that reads back
# as 512 intervals, runs evicted from the pending set are still whole, the
# write-protected intervals of a storm stopped after its sweep read their
# starts from the split children's ends (prev, schema 13) exactly at the
# events' times, and the fast "what happened to GFN X" query of
# schema/README.md answers like the slow one.
. "$(dirname "$0")/lib.sh"

q() { sqlite3 "$1" "$2"; }
# every interval of DB in a total order, as "count cksum" (the columns the
# table had: schema 19's vm is new)
digest() {
	sqlite3 "$1" "SELECT capture_id, as_id, gfn, level, leaf, start_ts, end_ts, spte, pfn,
		writable, dirty, start_cause, end_cause, flags FROM mapping
		ORDER BY capture_id, as_id, level, gfn, start_ts,
		end_ts IS NULL, end_ts, spte, start_cause, end_cause, flags" >"$T/digest"
	echo "$(wc -l <"$T/digest" | tr -d ' ') $(cksum <"$T/digest" | cut -d' ' -f1)"
}

# What the table mapping held, one row per interval, before runs (the same
# export made with the analyzer of commit 350d2d7).  Except on
# k612msc-npt_tdp_32m: there the kernel paused 6.8 ms between the disable's
# _begin and its first zap, which closed that analyzer's disable phase, so
# it ended the 16 zapped 2M tables by "zap", not "zap-collapsible" (those 16
# rows are the only difference; tests/cli/kernel-events.sh checks the fix).
# And except that the leaves of a table zapped parent first (6.1, 6.12) now
# end at the table SPTE's zap, not at their own teardown events after it
# (lib/history/model.c, "Removed tables"): the same intervals, those ends
# earlier (the digests below are of that analyzer).
while read -r name want; do
	case $name in
	ev-*)
		ev=${name#ev-}
		"$MSC" import -q --text "$MSC_TEST_DATA/events/$ev.events" -o "$T/$name.db" 2>/dev/null
		;;
	*)
		"$MSC" import -q "$TRACES/$name/trace.dat" -o "$T/$name.db" 2>/dev/null
		;;
	esac
	check_eq "$name: the view gives the intervals of the old table" "$(digest "$T/$name.db")" "$want"
done <<'EOF'
k61-npt_tdp_32m 49205 3414169684
k61-shadow_npt0_16m 4113 1470594111
k612-npt_tdp_16m_clear 32813 1534101149
k612-npt_tdp_1g_hugetlb 1049607 751331473
k612-npt_tdp_32m 49205 4202442825
k612-npt_tdp_32m_2vcpu 49205 2967046672
k612-npt_tdp_eager0_16m 20517 1191122688
k612msc-npt_tdp_16m_clear 32813 2578332366
k612msc-npt_tdp_32m 49205 889388554
k612msc-npt_tdp_eager0_16m 20517 424990102
ev-lost 4 234900190
ev-out-of-order 2 588304712
ev-midrun 4 3556757997
ev-bad-spte 1 1960611816
EOF

db=$T/k612-npt_tdp_32m.db
check_eq "runs: 49,205 intervals in 119 rows" "$(q "$db" "SELECT count(*), sum(n) FROM mapping_run")" "119|49205"
check_eq "runs: the analysis counts intervals, not rows" \
	"$(q "$db" "SELECT intervals FROM analysis")" "$(q "$db" "SELECT count(*) FROM mapping")"
check_eq "runs: a page-table entry is a run of one" \
	"$(q "$db" "SELECT count(*) FROM mapping_run WHERE leaf = 0 AND n != 1")" 0
check_eq "runs: open exactly when end_cause is 0" \
	"$(q "$db" "SELECT count(*) FROM mapping WHERE (end_ts IS NULL) != (end_cause = 0)")" 0
# analyzed inline in the events' database (no merge) as by the import thread
cp "$db" "$T/again.db"
check "analyze --rebuild in place" "$MSC" analyze -q --rebuild "$T/again.db"
check_eq "runs: analyzed in place, the same intervals" "$(digest "$T/again.db")" "49205 4202442825"
check_eq "runs: merged tables keep their index" \
	"$(q "$db" "SELECT count(*) FROM sqlite_schema WHERE name = 'mapping_run_gfn'")" 1

# A 2M leaf split by a task that is not a vCPU: 512 synthesized children,
# then (second file) write-protected one after another.
prologue() {
	echo '#@ release 6.12.0'
	echo '#@ host vendor=npt,nonpresent=0x8000000000000000'
	echo '1000 0 10 page_fault vcpu=0 gpa=0x40000000 error_code=0x6 rip=0x1000'
	echo '1100 0 10 spte_changed as=0 gfn=0x40000 level=2 old=0x8000000000000000 new=0x40000ee7 class=map'
	echo '2000 1 30 spte_changed as=0 gfn=0x40000 level=2 old=0x40000ee7 new=0x102f7c827 class=split'
}
prologue >"$T/split.events"
{
	prologue
	awk 'BEGIN { for (i = 0; i < 512; i++)
		printf "%d 1 30 spte_changed as=0 gfn=%#x level=1 old=%#x new=%#x class=write-protect\n",
			3000 + i, 262144 + i, 1073745511 + i * 4096, 1073745509 + i * 4096 }'
} >"$T/sweep.events"
"$MSC" import -q --text "$T/split.events" -o "$T/split.db" 2>/dev/null
"$MSC" import -q --text "$T/sweep.events" -o "$T/sweep.db" 2>/dev/null
db=$T/split.db
check_eq "split: the 512 children are one open run" \
	"$(q "$db" "SELECT n, gfn, first, printf('%#x', spte), start_cause, end_cause, flags FROM mapping_run WHERE level = 1")" \
	"512|262144|0|0x40000e67|2|0|1"
check_eq "split: the run reads back as 512 intervals" \
	"$(q "$db" "SELECT count(*), count(DISTINCT gfn), printf('%#x-%#x', min(gfn), max(gfn)), min(start_ts), max(start_ts) FROM mapping WHERE level = 1 AND end_ts IS NULL")" \
	"512|512|0x40000-0x401ff|2000|2000"
check_eq "split: child i maps the huge page's frame + i" \
	"$(q "$db" "SELECT count(*) FROM mapping WHERE level = 1 AND (pfn != gfn OR spte != (pfn << 12 | 0xe67))")" 0
check_eq "split: the 2M leaf and the table" \
	"$(q "$db" "SELECT group_concat(what || ' ' || started_by || ' ' || ended_by, ', ') FROM (SELECT * FROM gfn_history WHERE level = 2 ORDER BY start_ts)")" \
	"2M fault-map eager-split, table eager-split -"
db=$T/sweep.db
check_eq "sweep: the closed and the open intervals, one run each" \
	"$(q "$db" "SELECT group_concat(n || ' ' || start_cause || '-' || end_cause, ', ') FROM (SELECT * FROM mapping_run WHERE level = 1 ORDER BY end_cause)")" \
	"512 6-0, 512 2-6"
check_eq "sweep: child i ends at 3000 + i, write-protected" \
	"$(q "$db" "SELECT count(*) FROM mapping WHERE level = 1 AND start_cause = 2 AND end_ts = 3000 + gfn - 262144 AND flags = 1 AND writable = 1")" 512
check_eq "sweep: then read-only until the end" \
	"$(q "$db" "SELECT count(*) FROM mapping WHERE level = 1 AND start_ts = 3000 + gfn - 262144 AND end_ts IS NULL AND spte = (pfn << 12 | 0xe65) AND writable = 0")" 512
check_eq "sweep: intervals counted" "$(q "$db" "SELECT intervals FROM analysis")" 1026

# 1000 page tables, two 4K leaves each: the first leaves are write-protected
# table after table (1000 runs pending: the oldest are written early), then
# the second ones in reverse order (the still pending runs take them).
{
	echo '#@ release 6.12.0'
	echo '#@ host vendor=npt,nonpresent=0x8000000000000000'
	awk 'BEGIN {
		for (t = 0; t < 1000; t++) for (i = 0; i < 2; i++)
			printf "%d 0 10 spte_changed as=0 gfn=%#x level=1 old=0x8000000000000000 new=%#x class=map\n",
				1000 + 2 * t + i, 65536 + 512 * t + i, (65536 + 512 * t + i) * 4096 + 3687
		for (t = 0; t < 1000; t++)
			printf "%d 1 30 spte_changed as=0 gfn=%#x level=1 old=%#x new=%#x class=write-protect\n",
				5000 + t, 65536 + 512 * t, (65536 + 512 * t) * 4096 + 3687, (65536 + 512 * t) * 4096 + 3685
		for (t = 999; t >= 0; t--)
			printf "%d 1 30 spte_changed as=0 gfn=%#x level=1 old=%#x new=%#x class=write-protect\n",
				7000 - t, 65537 + 512 * t, (65537 + 512 * t) * 4096 + 3687, (65537 + 512 * t) * 4096 + 3685
	}'
} >"$T/evict.events"
"$MSC" import -q --text "$T/evict.events" -o "$T/evict.db" 2>/dev/null
db=$T/evict.db
check_eq "evicted runs: every interval is there" \
	"$(q "$db" "SELECT start_cause || '-' || end_cause, count(*), count(DISTINCT gfn) FROM mapping GROUP BY 1 ORDER BY 1")" \
	"$(printf '1-6|2000|2000\n6-0|2000|2000')"
check_eq "evicted runs: each interval ends when its event says" \
	"$(q "$db" "SELECT count(*) FROM mapping WHERE end_cause = 6 AND end_ts != CASE gfn % 512
		WHEN 0 THEN 5000 + (gfn - 65536) / 512 ELSE 7000 - (gfn - 65537) / 512 END")" 0
check_eq "evicted runs: some tables' closed intervals are in two rows, some in one" \
	"$(q "$db" "SELECT min(c), max(c) FROM (SELECT count(*) c FROM mapping_run WHERE end_cause = 6 GROUP BY gfn)")" "1|2"
check_eq "evicted runs: the open intervals, one run per table" \
	"$(q "$db" "SELECT count(*), min(n), max(n) FROM mapping_run WHERE end_cause = 0")" "1000|2|2"

# A 1 GiB guest on a 1G page split to 4K by enabling dirty logging, and
# stopped there: the sweep's write-protected intervals are open, each run
# of them without entries of its own, its prev the run of split children
# the sweep ended.
"$MSC" synth -q -o "$T/storm.dat" --kprobes off --guest-gib 1 --backing 1g --vcpus 2 \
	--stop-after enable_dirty_logging >/dev/null 2>&1
"$MSC" import -q "$T/storm.dat" -o "$T/storm.db" 2>/dev/null
db=$T/storm.db
check_eq "storm: 512 open runs of 512 read the children's ends" \
	"$(q "$db" "SELECT count(*), sum(r.n) FROM mapping_run r JOIN mapping_run p ON p.id = r.prev
		WHERE r.entries IS NULL AND r.e0 IS NULL AND r.start_cause = 6 AND p.end_cause = 6
		AND p.start_cause = 2 AND p.gfn = r.gfn AND p.level = 1")" "512|262144"
check_eq "storm: only open runs have a prev" \
	"$(q "$db" "SELECT count(*) FROM mapping_run WHERE prev IS NOT NULL AND e0 IS NOT NULL")" 0
wp="SELECT gfn, ts FROM spte_change WHERE class = 'write-protect' AND level = 1"
check_eq "storm: each write-protection ends a child at its time, starts an interval at it" \
	"$(q "$db" "SELECT count(*) FROM ($wp EXCEPT SELECT gfn, end_ts FROM mapping
			WHERE level = 1 AND end_cause = 6);
		SELECT count(*) FROM ($wp EXCEPT SELECT gfn, start_ts FROM mapping
			WHERE level = 1 AND start_cause = 6 AND end_ts IS NULL);
		SELECT count(*) = ($(echo "$wp" | sed 's/gfn, ts/count(*)/')) FROM mapping
			WHERE level = 1 AND start_cause = 6" | tr '\n' ' ')" "0 0 1 "

# The two "what happened to GFN X" queries of the documentation: the slow
# one over the view, the fast one over mapping_run by its index.
doc_query() { # the Nth indented block of the section
	awk -v want="$1" '/^#+ What happened to GFN X/ { on = 1; next } /^#/ { on = 0 }
		on && /^    / { if (!inb) n++; inb = 1; if (n == want) print substr($0, 5); next }
		{ inb = 0 }' "$(dirname "$0")/../../schema/README.md"
}
slow=$(doc_query 1)
fast=$(doc_query 2)
check_match "docs: the fast query reads mapping_entry" "$fast" 'FROM mapping_entry r'
db=$T/k612-npt_tdp_32m.db
x=$(printf %d 0x40005)
check_eq "docs: gfn 0x40005, its whole history by the fast query" \
	"$(sqlite3 "$db" ".parameter set :x $x" "$fast" | cut -d'|' -f1,7,8 | tr '\n' ' ')" \
"table|link|zap 2M|fault-map|eager-split table|eager-split|zap-collapsible 4K|eager-split|write-protect 4K|write-protect|fast-fix 4K|fast-fix|write-protect 4K|write-protect|fast-fix 4K|fast-fix|write-protect 4K|write-protect|teardown 2M|fault-map|zap "
check_eq "docs: the fast query uses the index" \
	"$(sqlite3 "$db" ".parameter set :x $x" "EXPLAIN QUERY PLAN $fast" | grep -c 'SEARCH r USING INDEX mapping_run_gfn')" 1
for spec in k612-npt_tdp_32m:0x0,0x5,0x1ff,0x40000,0x40005,0x401ff,0x40200,0x40a37,0x47fff \
	k612-npt_tdp_1g_hugetlb:0x40000,0x40001,0x401ff,0x40200,0x5a5a5,0x7ffff \
	storm:0x40000,0x40001,0x401ff,0x4a5a5,0x7ffff; do
	name=${spec%%:*}
	bad=
	for g in $(echo "${spec#*:}" | tr ',' ' '); do
		x=$(printf %d "$g")
		a=$(sqlite3 "$T/$name.db" ".parameter set :x $x" "$slow")
		b=$(sqlite3 "$T/$name.db" ".parameter set :x $x" "$fast")
		[ -n "$a" ] && [ "$a" = "$b" ] || bad="$bad $g"
	done
	check_eq "docs: $name: the fast query answers like the view" "$bad" ""
done

done_testing
