#!/bin/sh
# `mmuscope diff A B`: the same workload on 6.12 and 7.3 pairs step by step
# (6.12's zap-collapsible disable with 7.3's in-place recovery), with each
# side's times those of its own --selftest; a capture against itself changes
# nothing; two captures of one database compare as two databases; what has
# no partner is listed; two cycles of dirty logging pair cycle by cycle; the
# huge share is of the dirty-logged memory; --json says the same.
. "$(dirname "$0")/lib.sh"

for n in k612-npt_tdp_32m k73-npt_tdp_32m k612st-split_hugetlb2m_16m k73st-perf_hugetlb2m_32m; do
	"$MSC" import -q "$TRACES/$n/trace.dat" -o "$T/$n.db" 2>/dev/null
done
a=$T/k612-npt_tdp_32m.db
b=$T/k73-npt_tdp_32m.db
out=$("$MSC" diff "$a" "$b")
check_match "6.12 against 7.3: the disable is zap-collapsible against in-place recovery" "$out" \
	'^  how: zap-collapsible \(refaulted huge later\) -> in-place recovery$'
check_eq "... every step has its partner" "$(printf '%s\n' "$out" | grep -c 'not paired')" 0
# each side's step times are its own --selftest's (in ms here: every step is under 1 s)
for side in a b; do
	eval db=\$$side
	"$MSC" report --selftest "$db" |
		awk -F' time: ' '{ sub(/s$/, "", $2); printf "%s %.3f\n", $1, $2 * 1000 }' >"$T/st.$side"
	printf '%s\n' "$out" | sed -nE 's/^(.*) time: ([0-9.]+) ms -> ([0-9.]+) ms.*/\1 \2 \3/p' |
		awk -v s=$side '{ t = s == "a" ? $(NF - 1) : $NF; NF -= 2; print $0, t }' >"$T/diff.$side"
	check_eq "$side's times are its --selftest's" "$(cat "$T/diff.$side")" "$(cat "$T/st.$side")"
done
a1=$(awk '/^Disabling/ { print $NF }' "$T/st.a")
b1=$(awk '/^Disabling/ { print $NF }' "$T/st.b")
ratio=$(awk -v x="$a1" -v y="$b1" 'BEGIN { printf "%.2f", y / x }')
check_match "the ratio is B's over A's" "$out" \
	"^Disabling dirty logging time: $a1 ms -> $b1 ms \\($ratio""x\\)$"

self=$("$MSC" diff "$a" "$a")
check_eq "a capture against itself: every ratio 1.00x" \
	"$(printf '%s\n' "$self" | grep ' time: ' | grep -vc '(1.00x)$')" 0

# two captures of one database
"$MSC" import -q "$TRACES/k612-npt_tdp_32m/trace.dat" -o "$T/both.db" 2>/dev/null
"$MSC" import -q --append "$TRACES/k73-npt_tdp_32m/trace.dat" -o "$T/both.db" 2>/dev/null
check_eq "two captures of one database compare as the two databases" \
	"$("$MSC" diff "$T/both.db" -c 1 -c 2 | sed 1,2d)" "$(printf '%s\n' "$out" | sed 1,2d)"

# two VMs against one
two=$("$MSC" diff "$T/k612st-split_hugetlb2m_16m.db" "$T/k73st-perf_hugetlb2m_32m.db")
check_match "what has no partner is listed" "$two" '^  Disabling dirty logging of VM 2 in A only$'
check_match "... on both sides" "$two" '^  Iteration 1 clear dirty log of VM 1 in B only$'
json=$("$MSC" diff --json "$T/k612st-split_hugetlb2m_16m.db" "$T/k73st-perf_hugetlb2m_32m.db")
check_eq "--json: the same pairs and leftovers" \
	"$(printf '%s\n' "$json" | python3 -c 'import json, sys; d = json.load(sys.stdin); print(len(d["steps"]), len(d["unpaired"]))')" \
	"$(printf '%s\n' "$two" | grep -c ' time: ') $(printf '%s\n' "$two" | grep -c ' only$')"

# a disable one side never saw end huge again: the other side's time, not a placeholder
for n in k612st-perf_thp_32m k73st-perf_thp_32m; do
	"$MSC" import -q "$TRACES/$n/trace.dat" -o "$T/$n.db" 2>/dev/null
done
thp=$("$MSC" diff "$T/k612st-perf_thp_32m.db" "$T/k73st-perf_thp_32m.db")
check_match "time to huge again, reached on one side only: that side's time" "$thp" \
	'^  time to huge again: not reached -> [0-9]+\.[0-9]{3} ms$'
check_eq "... no placeholder for a value anywhere" \
	"$(printf '%s\n' "$out" "$two" "$thp" | grep -cE ': (known|\?)( |$)| -> (known|\?)$')" 0

# two cycles of enable/disable: steps pair per cycle (cycle 1's disable with
# cycle 1's), each disable is its own cycle's, iterations count from 1
for n in k612-npt_tdp_32m_2vcpu k73-npt_tdp_32m_2vcpu; do
	"$MSC" import -q "$TRACES/$n/trace.dat" -o "$T/$n.db" 2>/dev/null
done
c2=$T/k73-npt_tdp_32m_2vcpu.db
self=$("$MSC" diff "$c2" "$c2")
check_eq "two cycles against themselves: a block per cycle, every step paired, 1.00x" \
	"$(printf '%s\n' "$self" | grep -c '^Cycle [12]:$') $(printf '%s\n' "$self" | grep -c ' time: .*(1.00x)$') $(printf '%s\n' "$self" | grep -c 'not paired')" \
	"2 13 0"
check_eq "... no iteration beyond the cycle's own" "$(printf '%s\n' "$self" | grep -c '^Iteration 3')" 0
one=$("$MSC" diff "$T/k612-npt_tdp_32m_2vcpu.db" "$c2")
dis=$("$MSC" report --selftest "$c2" | awk -F' time: ' '/^Disabling/ { sub(/s$/, "", $2); printf "%.3f\n", $2 * 1000; exit }')
check_match "one cycle against two: the disable is cycle 1's, not one spanning both" "$one" \
	"^Disabling dirty logging time: [0-9.]+ ms -> $dis ms "
check_eq "... cycle 2's steps have no partner" \
	"$(printf '%s\n' "$one" | grep -c ' of cycle 2, VM 1 in B only$')" 6
check_match "the huge share after is of the dirty-logged memory: 6.12 leaves it unmapped" "$one" \
	'^  mapped huge after: nothing mapped -> 100\.0%$'
json=$("$MSC" diff --json "$c2" "$c2")
check_eq "--json: each pair names its cycle" \
	"$(printf '%s\n' "$json" | python3 -c 'import json, sys; d = json.load(sys.stdin); print(sorted(set(s["cycle"] for s in d["steps"])))')" \
	"[0, 1, 2]"

check_match "one database needs two captures" "$("$MSC" diff "$a" 2>&1)" \
	'^mmuscope diff: need A.db and B.db, or one database and -c A -c B$'
check_match "a capture the database lacks: said as elsewhere" "$("$MSC" diff -c 5 "$a" "$b" 2>&1)" \
	"^mmuscope diff: $a: no capture 5 \\(its captures are 1 to 1\\)$"
"$MSC" import -q --no-analyze "$TRACES/k612-npt_tdp_32m/trace.dat" -o "$T/raw.db" 2>/dev/null
check_match "a database never analyzed: how to fix it" "$("$MSC" diff "$T/raw.db" "$b" 2>&1)" \
	"was not analyzed \\(run 'mmuscope analyze"
done_testing
