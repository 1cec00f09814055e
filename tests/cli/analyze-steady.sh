#!/bin/sh
# Steady stretches (lib/history/phase.c): the analyzer takes an SPTE change
# like the one before it without asking the phase detector again, and
# attributes the stretch's costs at its end.  Every analysis table must be
# exactly what asking about every event (`analyze --per-event`) gives, on
# every capture in the repository and on synthetic traces of each kernel
# behaviour, and the stretches must be there to be checked.
. "$(dirname "$0")/lib.sh"

# every analysis table of DB, its rows in a total order, as "table count cksum"
digest() {
	for t in analysis phase vm census region_state activity task_activity anomaly region \
		 phase_region mapping kvm_stats_sample dirty_cell; do
		cols=$(sqlite3 "$1" "SELECT group_concat(name) FROM pragma_table_info('$t')")
		[ -n "$cols" ] || continue
		printf '%s %s\n' "$t" "$(sqlite3 "$1" "SELECT * FROM $t ORDER BY $cols" | cksum)"
	done
}

# steady NAME: analyze $T/NAME.db both ways; the tables (and the exit) must agree
steady() {
	cp "$T/$1.db" "$T/$1.per.db"
	out=$("$MSC" analyze --rebuild "$T/$1.db" 2>/dev/null)
	st=$?
	"$MSC" analyze -q --rebuild --per-event "$T/$1.per.db" 2>/dev/null
	st_per=$?
	k=$(printf '%s\n' "$out" | sed -n 's/^  \([0-9,]*\) events in steady stretches.*/\1/p' | tr -d ,)
	printf '%s\n' "$out" | sed -n 's/.* \([0-9,]*\) applied as ranges$/\1/p' | tr -d , >"$T/$1.ranged"
	check_eq "$1: the tables are those of asking about every event (${k:-no} steady)" \
		"exit $st $(digest "$T/$1.db")" "exit $st_per $(digest "$T/$1.per.db")"
	echo "${k:-0}" >"$T/$1.steady"
}

for d in "$TRACES"/*/; do
	name=$(basename "$d")
	"$MSC" import -q --no-analyze "$d/trace.dat" -o "$T/$name.db" 2>/dev/null || continue
	steady "$name"
done
for f in "$MSC_TEST_DATA"/events/*.events; do
	name=ev-$(basename "$f" .events)
	"$MSC" import -q --no-analyze --text "$f" -o "$T/$name.db" 2>/dev/null || continue
	steady "$name"
done

# synthetic storms: every kernel's behaviour, sizes, vendors, logging modes
i=0
while read -r args; do
	i=$((i + 1))
	# shellcheck disable=SC2086
	if ! "$MSC" synth -q -o "$T/s$i.dat" $args ||
	   ! "$MSC" import -q --no-analyze "$T/s$i.dat" -o "$T/synth$i.db"; then
		not_ok "synth$i: $args: no trace"
		continue
	fi
	diag "synth$i: $args"
	steady "synth$i"
done <<'EOF'
--guest-mib 64 --passes 2
--guest-gib 1 --backing 1g --kernel 7.3
--guest-mib 64 --vcpus 4 --clear-log on --kernel 6.18 --passes 2
--guest-mib 64 --backing 4k --vendor ept --pml on --kernel 6.1
--guest-mib 64 --eager-split off --kernel 6.13 --percent 50 --seed 3
--guest-mib 64 --lost-events 200 --kprobes off --cycles 2
EOF

# the stretches are there: enable's write-protection and the disable's
# children of removed tables are storms of one task
check_match "k612-npt_tdp_32m: its storms go in stretches" "$(cat "$T/k612-npt_tdp_32m.steady")" \
	'^[1-9][0-9]{3,}$'
check_match "synth1: most of the enable goes in stretches" "$(cat "$T/synth1.steady")" \
	'^[1-9][0-9]{4,}$'
# a dirty pass's faults go in the pass's stretches: more events are steady
# than there are SPTE changes, which were all that could be before
for name in synth1 synth3; do
	changes=$(sqlite3 "$T/$name.db" "SELECT count(*) FROM spte_change")
	check "$name: the dirty passes' faults go in stretches ($(cat "$T/$name.steady") steady, $changes SPTE changes)" \
		test "$(cat "$T/$name.steady")" -gt "$changes"
done
# ... and the model applies the write-protection storms as ranges (lib/history/model.c,
# "Ranges"), so the comparisons above are of ranges against changes one by one
check_match "k612-npt_tdp_32m: its write-protections are applied as ranges" \
	"$(cat "$T/k612-npt_tdp_32m.ranged")" '^[1-9][0-9]{3,}$'
check_match "synth3 (clear-log, 4 vCPUs): its storms are applied as ranges" \
	"$(cat "$T/synth3.ranged")" '^[1-9][0-9]{3,}$'
done_testing
