#!/bin/sh
# Dirty-log phases from what the kernel does, never from a pause: one named
# check per rule on a small event file (tests/data/events/gen-rules.py), and
# every event file gives the same phases with its times divided by 100 (a
# fast host) or multiplied by 10 (a slow emulator).
. "$(dirname "$0")/lib.sh"

EV=$MSC_TEST_DATA/events
q() { sqlite3 "$T/$1.db" "$2"; }
imp() { "$MSC" import -q --force --text "$2" -o "$T/$1.db" 2>"$T/$1.err"; }
steps() { q "$1" "SELECT group_concat(kind || ':' || spte_changes, ' ') FROM
	(SELECT kind, spte_changes FROM phase WHERE kind IN ('enable', 'harvest', 'disable',
	 'teardown') ORDER BY id)"; }

f=quick-harvests-pml
check "$f: imports" imp "$f" "$EV/$f.events"
check_eq "$f: PML harvests 1 us apart stay apart: each walk comes back (no fault between)" \
	"$(steps "$f")" "enable:2052 harvest:64 harvest:64 harvest:64"

f=quick-harvests
check "$f: imports" imp "$f" "$EV/$f.events"
check_eq "$f: write-protecting harvests 1 us apart stay apart" \
	"$(steps "$f")" "enable:2052 harvest:64 harvest:64 harvest:64"
check_eq "$f: the enable of two slots splits after it protected the first, and is one enable" \
	"$(q "$f" "SELECT classes FROM phase WHERE kind = 'enable'")" "split=4 write-protect=2048"
check_eq "$f: the vCPU's fast-path fixes are its passes', no harvest counts them" \
	"$(q "$f" "SELECT sum(faults_fast) FROM phase WHERE kind = 'dirty-pass'") \
$(q "$f" "SELECT sum(faults_fast) FROM phase WHERE kind IN ('enable', 'harvest')")" "192 0"
check_eq "$f: ... and the passes hold none of the ioctl thread's write-protects" \
	"$(q "$f" "SELECT total(spte_changes) FROM phase WHERE kind = 'dirty-pass'")" "0.0"

f=late-flush
check "$f: imports" imp "$f" "$EV/$f.events"
check_eq "$f: the harvest ends at its flush, 64 ms after its last write-protect" \
	"$(q "$f" "SELECT h.end_seq = k.seq, h.flushes FROM phase h, kprobe k
		WHERE h.kind = 'harvest' AND k.name = 'kvm_flush_remote_tlbs'")" "1|1"

f=marker-harvests
check "$f: imports" imp "$f" "$EV/$f.events"
check_eq "$f: a marker of the ioctl thread (user space) ends its call" \
	"$(steps "$f")" "enable:2052 harvest:64 harvest:64"

f=ioctl-syncs
check "$f: imports" imp "$f" "$EV/$f.events"
check_eq "$f: one GET per memslot: each sync is one step, the next begins where the walk comes back" \
	"$(q "$f" "SELECT group_concat(name || ':' || spte_changes, ' ') FROM
		(SELECT name, spte_changes FROM phase WHERE kind = 'harvest' ORDER BY id)")" \
	"get_dirty_log:32 get_dirty_log:32 get_dirty_log:32"
check_eq "$f: ... from the first GET's enter to the last GET's exit" \
	"$(q "$f" "SELECT group_concat(p.start_seq = (SELECT min(seq) FROM ioctl WHERE seq > p.start_seq - 1)
		AND p.end_seq = (SELECT max(seq) FROM ioctl WHERE seq <= p.end_seq), ' ')
		FROM phase p WHERE kind = 'harvest'")" "1 1 1"

check_eq "$f: each sync's bounds are exact: its first GET's enter, its last GET's exit" \
	"$(q "$f" "SELECT group_concat(bounds || ':' || slack_start_ns || ':' || slack_end_ns, ' ')
		FROM phase WHERE kind = 'harvest'")" "exact:0:0 exact:0:0 exact:0:0"

# the same with events lost on the ioctl's CPU before the last sync's exit:
# that exit may be another call's, so the sync's end is not exact
awk '$2 == 0 && $3 == 20 && $4 == "ioctl" && $5 == "exit=1" { last = NR }
	{ line[NR] = $0 }
	END { for (i = 1; i <= NR; i++) {
		if (i == last) { split(line[i], w, " "); print w[1] - 10 " 0 0 lost count=3" }
		print line[i] } }' "$EV/$f.events" >"$T/ioctl-lost.events"
check "ioctl-lost: imports" imp ioctl-lost "$T/ioctl-lost.events"
check_eq "ioctl-lost: an exit after lost events ends no call exactly" \
	"$(q ioctl-lost "SELECT group_concat(bounds, ' ') FROM phase WHERE kind = 'harvest'")" \
	"exact exact bounded"

f=quick-harvests
check_eq "$f: inferred bounds say how far out the calls may lie: the quiet time around them (none after the last event)" \
	"$(q "$f" "SELECT group_concat(bounds || ':' || slack_start_ns || ':' || slack_end_ns, ' ')
		FROM phase WHERE kind = 'harvest'")" \
	"inferred:1010:1010 inferred:1010:1010 inferred:1010:0"

f=recover-children-first
check "$f: imports" imp "$f" "$EV/$f.events"
check_eq "$f: a kprobe at the function's entry bounds the start, the end is inferred" \
	"$(q "$f" "SELECT bounds, slack_start_ns, slack_end_ns FROM phase WHERE kind = 'disable'")" \
	"bounded|0|100"

f=kprobe-harvests
check "$f: imports" imp "$f" "$EV/$f.events"
check_eq "$f: a kprobe per mask: one call while the walk goes on, the next begins at its own kprobe" \
	"$(q "$f" "SELECT group_concat(spte_changes || '@' || start_seq, ' ') FROM phase
		WHERE kind = 'harvest'")" \
	"$(q "$f" "SELECT '128@' || min(seq) || ' 64@' || max(seq) FROM kprobe")"
check_eq "... harvest 1 ends at its last change, not at the kprobe after it" \
	"$(q "$f" "SELECT h.end_seq < (SELECT max(seq) FROM kprobe WHERE seq < (SELECT max(seq) FROM kprobe))
		FROM phase h WHERE h.kind = 'harvest' ORDER BY id LIMIT 1")" 1

# 7.x traces a removed table's children before the change that removed it
f=recover-children-first
grep -v ' kprobe ' "$EV/$f.events" >"$T/$f.events"
check "$f, no kprobes: imports" imp "$f" "$T/$f.events"
check_eq "$f: the disable opens at the table's removal, before its children" \
	"$(q "$f" "SELECT p.start_seq = z.seq, p.classes, p.before_4k, p.before_2m FROM phase p,
		page_table z WHERE p.kind = 'disable' AND z.op = 'zap'")" \
	"1|promote=1 teardown-child=512|512|0"

# time scaling: the same phases at any speed
for path in "$EV"/*.events; do
	f=$(basename "$path" .events)
	imp "$f.x1" "$path" || { not_ok "$f: imports"; continue; }
	want=$(q "$f.x1" "SELECT kind, source, name, start_seq, end_seq, spte_changes, classes
		FROM phase ORDER BY id")
	for scale in 0.01 10; do
		awk -v s="$scale" '/^[0-9]/ { $1 = sprintf("%.0f", $1 * s) } { print }' \
			"$path" >"$T/$f.$scale.events"
		imp "$f.$scale" "$T/$f.$scale.events"
		check_eq "$f: the same phases with every time x$scale" \
			"$(q "$f.$scale" "SELECT kind, source, name, start_seq, end_seq, spte_changes,
				classes FROM phase ORDER BY id")" "$want"
	done
done

done_testing
