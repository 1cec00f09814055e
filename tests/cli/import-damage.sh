#!/bin/sh
# Values no kernel traces (issue 33): a guest frame past 57-bit guest
# physical addresses (a fast_page_fault's GPA, a shadow set_spte's GFN) and
# a time from 2^63 ns on are damage.  Such an event is refused with a count
# and one warning and the import goes on: never "Cannot allocate memory"
# for the whole import, never times out of order by the thousands.
. "$(dirname "$0")/lib.sh"

base=$TRACES/k61-npt_tdp_32m/trace.dat
"$MSC" import -q "$base" -o "$T/a.db" && "$MSC" dump "$T/a.db" | grep -v ' kprobe ' >"$T/a.txt"
awk '!done && / fast_page_fault / { sub(/gpa=0x[0-9a-f]+/, "gpa=0x400000000000000"); done = 1 } 1' \
	"$T/a.txt" >"$T/gpa.txt"
awk '!done && / set_spte / { sub(/gfn=0x[0-9a-f]+/, "gfn=0x7fffffffffffffff"); done = 1 } 1' \
	"$T/a.txt" >"$T/gfn.txt"
awk '!done && / fast_page_fault / { $1 = "18446744073709551615"; done = 1 } 1' "$T/a.txt" >"$T/ts.txt"
all=$(grep -vc '^#' "$T/a.txt")
for c in "gpa|1 events name a guest frame past 57-bit guest physical addresses \(damaged\): not stored" \
	"gfn|1 events name a guest frame past 57-bit guest physical addresses \(damaged\): not stored" \
	"ts|1 events have a time from 2\^63 ns on \(damaged\): not stored"; do
	name=${c%%|*}
	"$MSC" import -q --text "$T/$name.txt" -o "$T/$name.db" >"$T/out" 2>"$T/err"
	check_eq "$name (text): imported, exit 0" "$?" 0
	check_match "$name (text): one warning names the file and the count" \
		"$(grep -v 'anomalies' "$T/err")" "^mmuscope import: warning: $T/$name.txt: ${c#*|}$"
	check_eq "$name (text): every other event stored" \
		"$("$MSC" dump "$T/$name.db" | grep -vc '^#')" "$((all - 1))"
	check_eq "$name (text): no times out of order" "$(grep -c 'out of timestamp order' "$T/err")" 0
done
# the same through a trace.dat (libtracecmd, the isolated reader)
"$MSC" synth --kernel 6.1 --from-events "$T/gpa.txt" -o "$T/gpa.dat" >/dev/null
"$MSC" import -q "$T/gpa.dat" -o "$T/gpa-dat.db" >"$T/out" 2>"$T/err"
check_eq "gpa (trace.dat): imported, exit 0" "$?" 0
check_match "gpa (trace.dat): one warning names the file and the count" \
	"$(grep -v 'anomalies' "$T/err")" \
	"^mmuscope import: warning: $T/gpa.dat: 1 events name a guest frame past 57-bit"
# ... and live: record refuses it too, and says so
"$MSC" synth --kernel 6.1 --from-events "$T/gpa.txt" --tracing-dir "$T/tree" --instance mmuscope \
	>/dev/null
"$MSC" record -q --tracing-dir "$T/tree" -o "$T/gpa-rec.db" >"$T/out" 2>"$T/err"
check_eq "gpa (record): recorded, exit 0" "$?" 0
check_match "gpa (record): one warning names the count" "$(grep -v 'anomalies' "$T/err")" \
	"^mmuscope record: warning: .*: 1 events name a guest frame past 57-bit"

# a page whose time is 2^64-1: its first record's time past 2^63, the
# others' wrapped to near 0.  Dropped, counted, marked lost where they
# were; no event out of order, no step of 18446744072685 ms
"$MSC" synth --kernel 6.1 --from-events "$T/gpa.txt" --compression none -o "$T/plain.dat" >/dev/null
python3 "$(dirname "$0")/../fuzz/mutate.py" "$T/plain.dat" "$T/in" page-time
f=$T/in/page-time-max.dat
"$MSC" import -q "$f" -o "$T/pt.db" >"$T/out" 2>"$T/err"
check_eq "page time 2^64-1: imported" "$?" 0
check_match "... a warning counts the records dropped" "$(cat "$T/err")" \
	"$f: ([0-9]+) records with a damaged time \(from 2\^63 ns on, or before their CPU's last\) were dropped: each run of them is marked lost"
n=$(sed -n "s/.*$(basename "$f"): \([0-9]*\) records with a damaged time.*/\1/p" "$T/err")
check_eq "... marked lost in the capture" "$(sqlite3 "$T/pt.db" 'select lost, lost_marks from capture')" "$n|0"
check_eq "... every event accounted for: stored, or counted lost" \
	"$(( $("$MSC" dump "$T/pt.db" | grep -vc -e '^#' -e ' lost ') + n ))" "$((all - 1))"	# the GPA past 2^57 refused
check_eq "... no event out of order" "$(grep -c 'out of timestamp order' "$T/err")" 0
done_testing
