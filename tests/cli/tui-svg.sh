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
check_eq "svg: the chart and five maps, listed" "$(printf '%s\n' "$out" | sed "s|$T/svg/||" | tr '\n' ' ')" \
	"coverage.svg map-01.svg map-02.svg map-03.svg map-04.svg map-05.svg "

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
M1=$T/svg/map-01.svg
M2=$T/svg/map-02.svg
check_eq "map 1: at the start of enable (subtitle)" "$(xml "$M1" "texts[1].split('; ')[-1]")" \
	"start of enable (kprobe)"
check_eq "map 1: 16 cells are 2M leaves" \
	"$(xml "$M1" "sum(e.get('fill') == '#3a9b3a' for e in r.iter(N + 'rect') if e.find(N + 'title') is not None)")" 16
check_eq "map 2: at its end, 17 cells split, 16 write-protected" \
	"$(xml "$M2" "[t for t in texts if t.startswith('2M regions')][0]")" \
	"2M regions: 1G 0, 2M 0, split to 4K 17 (16 of them in write-protected cells), unmapped 0"
check_eq "map 2: ... 16 cells hatched (the legend's swatch has a stroke)" \
	"$(xml "$M2" "sum(e.get('fill') == 'url(#wp)' and not e.get('stroke') for e in r.iter(N + 'rect'))")" 16

out=$("$MSC" report --svg "$T/at" --at 163.941,459.772 "$DB")
check_eq "--at: two maps" "$(printf '%s\n' "$out" | grep -c 'map-')" 2
check_match "--at: the second at 459.772 ms" "$(xml "$T/at/map-02.svg" "texts[0]")" '^Memory map at 459\.772 ms$'
check_fails "--at junk fails" "$MSC" report --svg "$T/x" --at 12,zz "$DB"

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
