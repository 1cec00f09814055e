#!/bin/sh
# The TUI at every size from 60x16 to 200x60 (and at 80x24 on every
# capture) never shows a number cut: each is whole (as the same screens at
# 400 columns show it), rounded, with a K/M/G suffix, or '#'s; no unit is
# cut, and no line loses its end off the screen's edge
# (tests/cli/tui-numbers.py).  Every phase's pane and the help are among
# the screens (tests/tui/sizes.script).
. "$(dirname "$0")/lib.sh"

SCRIPT=$(cd "$(dirname "$0")/../tui" && pwd)/sizes.script
export TERM=xterm-256color LC_ALL=C.UTF-8
unset NO_COLOR MSC_TUI_SCRIPT MSC_TUI_NO_DISPLAY MSC_TUI_SCREEN_DIR
# every size on three captures; 80x24, the size the screens are laid out for, on every capture
full=" k612-npt_tdp_32m k612-npt_tdp_1g_hugetlb k612st-split_hugetlb2m_16m "
for dir in "$TRACES"/*/; do
	name=$(basename "$dir")
	db=$T/$name.db
	"$MSC" import -q "$TRACES/$name/trace.dat" -o "$db" 2>/dev/null
	dirs=
	sizes="400x60 80x24"
	case $full in *" $name "*) sizes="400x60 60x16 70x20 80x24 100x30 120x40 160x50 200x60" ;; esac
	for size in $sizes; do
		out=$T/$name/$size
		mkdir -p "$out"
		LINES=${size#*x} COLUMNS=${size%x*} "$MSC" view "$db" --script "$SCRIPT" --no-display \
			--screen-dir "$out" >/dev/null 2>&1
		[ "$size" = 400x60 ] || dirs="$dirs $out"
	done
	# shellcheck disable=SC2086
	check_eq "$name: at every size, every number whole" \
		"$(python3 "$(dirname "$0")/tui-numbers.py" "$T/$name/400x60" $dirs 2>&1 | sed "s|$T/||")" ""
	check_eq "$name: ... on all $(ls "$T/$name/400x60" | wc -l) screens of each size" \
		"$(for d in $dirs; do ls "$d" | wc -l; done | sort -u)" "$(ls "$T/$name/400x60" | wc -l)"
	# the GFN inspector's and the phase table's time columns: one unit each
	check_eq "$name: one unit per time column (GFN intervals, phases)" "$(python3 - "$T/$name"/*/gfn.screen "$T/$name"/*/phases.screen <<'PY'
import re, sys
for path in sys.argv[1:]:
    units = {}
    for line in open(path):
        m = re.match(r'^[> ] +(\d[\d.]*) (s|ms|us) +(?:(\d[\d.]*) (s|ms|us)|-) ', line)
        if m:  # an interval row: start and end
            units.setdefault('start', set()).add(m.group(2))
            if m.group(4):
                units.setdefault('end', set()).add(m.group(4))
        m = re.match(r'^ +\d+ \S+ +\S+ +\S+ +(\d[\d.]*) (s|ms) +(\d[\d.]*) (s|ms|us) ', line)
        if m:  # a phase row: start and took
            units.setdefault('start', set()).add(m.group(2))
            units.setdefault('took', set()).add(m.group(4))
    for col, u in units.items():
        if len(u) > 1:
            print(path.split('/')[-2], path.split('/')[-1], col, sorted(u))
PY
)" ""
done
done_testing
