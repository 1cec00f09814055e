#!/bin/bash
# observer-table.sh MSC DIR - the table of observer.sh from the runs in DIR
# (observer-guest.sh's M-K.log, M-K.db): per step of dirty_log_perf_test,
# each mode's median time over its runs with the range (min-max), the
# medians' ratio to untraced, and the median number of events each
# recording stored inside the step; then the cost per traced event.
#
# Events of a step: those stored between its bounds (`mmuscope dump --from
# --to`): its ioctl's enter and exit for enable, get, clear and disable
# (phase bounds "exact"); the populate phase; for "Iteration N dirty
# memory", everything between the end of the harvest before it (the
# enable for N = 1) and the start of iteration N's get.
set -euo pipefail
MSC=$1
DIR=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# times: "mode run step seconds" (the test's own lines, sums left out)
for f in "$DIR"/*-[0-9]*.log; do
	b=$(basename "$f" .log)
	sed -n 's/^\(.*\) time: \([0-9.]*\)s$/\1|\2/p' "$f" | grep -v -e '^Total' -e 'over ' |
		awk -F'|' -v m="${b%-*}" -v k="${b##*-}" '{ gsub(/ /, "_", $1); print m, k, $1, $2 }'
done > "$TMP/times"

# events: "mode run step count"
for db in "$DIR"/*-[0-9]*.db; do
	[ -s "$db" ] || continue
	b=$(basename "$db" .db)
	sqlite3 -separator ' ' "$db" "SELECT kind, name, start_ts, end_ts FROM phase WHERE kind IN
		('populate', 'enable', 'harvest', 'disable') ORDER BY start_ts" |
	awk '
	$1 == "populate" && !pop { print "Populate_memory", $3, $4; pop = 1; last = $4; next }
	$1 == "enable" { print "Enabling_dirty_logging", $3, $4; last = $4; it = 0; next }
	$2 == "get_dirty_log" { it++; printf "Iteration_%d_dirty_memory %.0f %.0f\n", it, last + 1, $3 - 1
		print "Iteration_" it "_get_dirty_log", $3, $4; last = $4; next }
	$2 == "clear_dirty_log" { print "Iteration_" it "_clear_dirty_log", $3, $4; last = $4; next }
	$1 == "disable" && !dis { print "Disabling_dirty_logging", $3, $4; dis = 1 }' |
	while read -r step from to; do
		n=$("$MSC" dump "$db" --from "$from" --to "$to" | grep -vc '^#' || true)
		echo "${b%-*} ${b##*-} $step $n"
	done
done > "$TMP/events"

# the modes run, in this order (MODES="untraced light" has no full)
MODES=""
for m in untraced full light light2; do
	grep -q "^$m " "$TMP/times" && MODES="$MODES $m"
done
awk -v modes="$MODES" '
function med(a, n,   i, j, t) {
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
FILENAME ~ /times$/ { key = $1 SUBSEP $3; T[key, ++nt[key]] = $4 * 1000; if (!seen[$3]++) order[++ns] = $3; next }
{ key = $1 SUBSEP $3; E[key, ++ne[key]] = $4 }
END {
	nm = split(modes, md, " ")
	for (m = 1; m <= nm; m++) ix[md[m]] = m
	f = ix["full"]; l = ix["light"]; l2 = ix["light2"]
	head = "| step"; sep = "|---"
	for (m = 1; m <= nm; m++) { head = head " | " md[m] " ms"; sep = sep "|---" }
	for (m = 2; m <= nm; m++) { head = head " | " md[m] " / untraced"; sep = sep "|---:" }
	for (m = 2; m <= nm; m++) { head = head " | events " md[m]; sep = sep "|---:" }
	print head " |"; print sep "|"
	for (s = 1; s <= ns; s++) {
		st = order[s]; name = st; gsub(/_/, " ", name)
		line = "| " name
		for (m = 1; m <= nm; m++) {
			key = md[m] SUBSEP st; n = nt[key]
			delete a; lo = 1e18; hi = 0
			for (i = 1; i <= n; i++) { a[i] = T[key, i]; if (a[i] < lo) lo = a[i]; if (a[i] > hi) hi = a[i] }
			M[m] = n ? med(a, n) : 0
			line = line sprintf(" | %.3f (%.3f-%.3f)", M[m], lo, hi)
			N = n
		}
		for (m = 2; m <= nm; m++)
			line = line sprintf(" | %.2fx", M[1] ? M[m] / M[1] : 0)
		for (m = 2; m <= nm; m++) {
			key = md[m] SUBSEP st; n = ne[key]
			delete a
			for (i = 1; i <= n; i++) a[i] = E[key, i]
			EV[m] = n ? med(a, n) : 0
			line = line sprintf(" | %d", EV[m])
		}
		print line " |"
		if (f && l && EV[f] > 1000 && EV[f] > EV[l]) {
			c = (M[f] - M[l]) * 1e6 / (EV[f] - EV[l])
			cost = cost sprintf("  %s: (%.3f - %.3f) ms / (%d - %d) events = %.0f ns per event\n",
					    name, M[f], M[l], EV[f], EV[l], c)
		}
		if (f && l && l2 && EV[f] > 1000 && EV[f] > EV[l2]) {
			c = (M[l2] - M[l]) * 1e6 / (EV[f] - EV[l2])
			fcost = fcost sprintf("  %s: (%.3f - %.3f) ms / (%d - %d) hits = %.0f ns per hit\n",
					      name, M[l2], M[l], EV[f], EV[l2], c)
		}
	}
	printf "\nmedian (min-max) of %d runs per mode\n\n", N
	if (f && l) {
		print "cost per traced event, (full - light) / (events full - events light), steps with > 1,000 events:"
		printf "%s", cost
	}
	if (fcost != "") {
		print ""
		print "light2 over light, per SPTE-level hit its filter dropped, (light2 - light) / (events full - events light2):"
		printf "%s", fcost
	}
}' "$TMP/times" "$TMP/events"
