#!/bin/sh
# Pictures for bug reports (`mmuscope report --svg DIR DB`): well-formed SVG whose marks say what the analysis says, on a
# real capture: the phases, KVM's own counters (all equal), the memory map
# before and after enabling dirty logging, lost events.
. "$(dirname "$0")/lib.sh"

DB=$T/k612.db
check "import" "$MSC" import -q "$TRACES/k612-npt_tdp_32m/trace.dat" -o "$DB"
out=$("$MSC" report --svg "$T/svg" "$DB")
check_eq "svg: exit 0" "$?" 0
out=$(printf '%s\n' "$out" | grep '\.svg$')
# a map before dirty logging begins, then after every dirty-log phase, named for it
check_eq "svg: the chart and a map after every dirty-log phase, named by phase and time" \
	"$(printf '%s\n' "$out" | sed "s|$T/svg/||" | tr '\n' ' ')" \
	"coverage.svg map-01-before-enable-163.9ms.svg map-02-after-enable-171.9ms.svg map-03-after-harvest-466.7ms.svg map-04-after-harvest-752.3ms.svg map-05-after-disable-762.5ms.svg map-06-after-re-promotion-769.1ms.svg map-07-after-teardown-778.7ms.svg "

# xml FILE EXPR: evaluate a Python expression over the parsed SVG (root r, ns N)
xml() {
	python3 - "$1" "$2" <<'EOF'
import sys, xml.etree.ElementTree as ET
N = '{http://www.w3.org/2000/svg}'
r = ET.parse(sys.argv[1]).getroot()
texts = [t.text or '' for t in r.iter(N + 'text')]
titles = [t.text or '' for t in r.iter(N + 'title')]
print(eval(sys.argv[2]))
EOF
}

for f in "$T"/svg/*.svg; do
	check "$(basename "$f"): well-formed XML" python3 -c \
		"import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])" "$f"
done
C=$T/svg/coverage.svg
check_eq "coverage: 1G, 2M and 4K bands" "$(xml "$C" "[t for t in titles if t in ('1G', '2M', '4K')]")" \
	"['1G', '2M', '4K']"
check_eq "coverage: the kprobe phases are named" \
	"$(xml "$C" "sorted(set(t for t in texts if t[:2] in ('E ', 'H ', 'D ')))")" \
	"['D disable', 'E enable', 'H harvest']"
check_eq "coverage: KVM's counters at the 9 stats markers, all equal" \
	"$(xml "$C" "sum('(rebuilt census equal)' in t for t in titles)")" 9
check_eq "coverage: the workload's phases under the axis" \
	"$(xml "$C" "'dirty_pass_1' in texts and 'populate' in texts")" True
check_eq "coverage: the memory axis ticks at round sizes (1-2-5)" \
	"$(xml "$C" "[t for t in texts if t.endswith('iB') or t == '0']")" \
	"['0', '10 MiB', '20 MiB', '30 MiB', '40 MiB']"
# labels above the plot: none overlaps another of its row, none leaves the picture
check_eq "coverage: the phase labels never collide and stay inside" "$(xml "$C" "(
[(a.get('y'), a.text) for a in r.iter(N + 'text') for b in r.iter(N + 'text')
 if a is not b and a.get('font-weight') == 'bold' and b.get('font-weight') == 'bold'
 and a.get('y') == b.get('y') and float(a.get('x')) <= float(b.get('x'))
 < float(a.get('x')) + 7 * len(a.text)] +
[t.text for t in r.iter(N + 'text') if t.get('font-weight') == 'bold'
 and float(t.get('x')) + 7 * len(t.text) > float(r.get('width'))])")" "[]"
check_eq "coverage: every dirty-log band has a label, if only its letter" \
	"$(xml "$C" "len([t for t in texts if t[:1] in 'EHDRMTehdrmt' and (len(t) == 1 or t[1] == ' ')])")" \
	"$(sqlite3 "$DB" "select count(*) from phase where kind in ('enable', 'harvest', 'disable', 're-promotion', 'memslot', 'teardown')")"
M1=$T/svg/map-01-before-enable-163.9ms.svg
M2=$T/svg/map-02-after-enable-171.9ms.svg
check_eq "map 1: at the start of enable (subtitle)" "$(xml "$M1" "texts[1].split('; ')[-1]")" \
	"start of enable (kprobe)"
check_eq "map 1: 16 cells are 2M leaves" \
	"$(xml "$M1" "sum(e.get('fill') == '#3a9b3a' for e in r.iter(N + 'rect') if e.find(N + 'title') is not None)")" 16
check_eq "map 2: at its end, 17 cells split, 16 write-protected" \
	"$(xml "$M2" "[t for t in texts if t.startswith('2M regions')][0]")" \
	"2M regions: 17 split to 4K (16 of them write-protected)"
check_eq "map tooltips carry no padding" "$(xml "$M2" "sum(t.endswith(' ') for t in titles)")" 0
check_eq "map 2: ... 16 cells hatched (the legend's swatch has a stroke)" \
	"$(xml "$M2" "sum(e.get('fill') == 'url(#wp)' and not e.get('stroke') for e in r.iter(N + 'rect'))")" 16

out=$("$MSC" report --svg "$T/at" --at 163.941,459.772 "$DB")
check_eq "--at: two maps" "$(printf '%s\n' "$out" | grep -c 'map-')" 2
check_match "--at: the second at 459.772 ms" "$(xml "$T/at/map-02-at-459.8ms.svg" "texts[0]")" \
	'^Memory map at 459\.772 ms$'
# the one time base: @TIME in trace-cmd's clock (s or ns) is the same instant as ms since the start
out=$("$MSC" report --svg "$T/abs" --at 163.941,@8.66.6 "$DB" 2>&1)
check_match "--at @8.66.6 (not a time): refused, saying both forms" "$out" \
	"^mmuscope report: --at .*: expected milliseconds since the capture start, or @TIME"
out=$("$MSC" report --svg "$T/abs" --at 163.941,@8.666661,@8666661000 "$DB" | grep '\.svg$' | sed "s|$T/abs/||" | tr '\n' ' ')
check_eq "--at 163.941, @8.666661 (s) and @8666661000 (ns): one instant" "$out" \
	"coverage.svg map-01-at-163.9ms.svg map-02-at-163.9ms.svg map-03-at-163.9ms.svg "
check_eq "... the same picture" "$(cmp "$T/abs/map-01-at-163.9ms.svg" "$T/abs/map-03-at-163.9ms.svg" 2>&1 | wc -l)" 0
out=$("$MSC" report --svg "$T/absw" --from @9.243 --to @9.303 "$DB" | grep '\.svg$' | sed "s|$T/absw/||" | tr '\n' ' ')
check_eq "--from/--to @TIME: the window of --from 740 --to 800" "$out" \
	"coverage.svg map-01-after-harvest-752.3ms.svg map-02-after-disable-762.5ms.svg map-03-after-re-promotion-769.1ms.svg map-04-after-teardown-778.7ms.svg "
check_match "--at before the capture's start: refused, saying its start" \
	"$("$MSC" report --svg "$T/absx" --at @1.5 "$DB" 2>&1)" "--at @1.500000: before the capture's start \(@8.502720\)$"
out=$("$MSC" report --svg "$T/deep/er/pics" --at 163.941 "$DB" 2>&1)
check_eq "--svg DIR: its missing parents are made, as mkdir -p" "$? $(ls "$T/deep/er/pics" | tr '\n' ' ')" \
	"0 coverage.svg map-01-at-163.9ms.svg "
: >"$T/afile"
check_match "--svg under a file: refused, naming the directory" \
	"$("$MSC" report --svg "$T/afile/pics" "$DB" 2>&1)" "^mmuscope report: $T/afile/pics: cannot create"
check_fails "--at junk fails" "$MSC" report --svg "$T/x" --at 12,zz "$DB"
out=$("$MSC" report --svg "$T/x" --at 99999 "$DB" 2>&1)
check_eq "--at after the capture's end: refused, nothing else printed" "$?:$out" \
	"1:mmuscope report: $DB: capture 1: --at 99999: after the capture's end (814.673 ms)"
check_eq "... and no picture written" "$(ls "$T/x" 2>/dev/null)" ""

# a window on the disable: the chart's axis spans it, its maps lie in it
out=$("$MSC" report --svg "$T/win" --from 740 --to 800 "$DB")
check_eq "--from/--to: the maps of the phases that end in the window" \
	"$(printf '%s\n' "$out" | grep -o 'map-[^/]*$' | tr '\n' ' ')" \
	"map-01-after-harvest-752.3ms.svg map-02-after-disable-762.5ms.svg map-03-after-re-promotion-769.1ms.svg map-04-after-teardown-778.7ms.svg "
check_eq "--from/--to: the time axis runs from 740 to 800 ms" \
	"$(xml "$T/win/coverage.svg" "[t for t in texts if t.endswith('ms')][::6]")" "['740ms', '800ms']"
check_match "--to before --from: refused" "$("$MSC" report --svg "$T/y" --from 50 --to 10 "$DB" 2>&1)" \
	'--to must come after --from$'
check_match "--from without --svg: refused" "$("$MSC" report --from 50 "$DB" 2>&1)" 'give --svg DIR too$' 

check "lost events: import the fixture" "$MSC" import -q --text "$MSC_TEST_DATA/events/lost.events" \
	-o "$T/lost.db"
check "lost events: svg" "$MSC" report --svg "$T/lost" "$T/lost.db"
check_eq "lost events: marked on the chart" "$(xml "$T/lost/coverage.svg" "'LOST 100' in texts")" True
check_match "lost events: said in the subtitle" "$(xml "$T/lost/coverage.svg" "texts[1]")" 'LOST EVENTS'

check "not analyzed: import --no-analyze" "$MSC" import -q --no-analyze \
	"$TRACES/k612-npt_tdp_32m/trace.dat" -o "$T/raw.db"
out=$("$MSC" report --svg "$T/raw" "$T/raw.db" 2>&1)
check_eq "not analyzed: exit 1" "$?" 1
check_match "... says what to do" "$out" "was not analyzed \\(run 'mmuscope analyze"
if command -v rsvg-convert >/dev/null; then
	check "rsvg-convert renders the chart" rsvg-convert -o "$T/c.png" "$C"
fi
done_testing
