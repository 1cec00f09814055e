#!/bin/sh
# The real program in a real terminal, as a user drives it: tmux runs
# `mmuscope view` at 80x24, keys go in with send-keys, the screen comes back
# with capture-pane.  Screens, scrubbing, resizing (also too small), help,
# the GFN prompt, no colour, q and Ctrl-C, and the terminal given back.
# (tmux comes with make check's dependency step.)
. "$(dirname "$0")/lib.sh"

SOCK=msc-tui-test-$$
trap 'tmux -L "$SOCK" kill-server 2>/dev/null; rm -rf "$T"' EXIT
tm() { tmux -L "$SOCK" "$@"; }
unset NO_COLOR MSC_TUI_SCRIPT MSC_TUI_NO_DISPLAY LINES COLUMNS
export ESCDELAY=1000	# a loaded machine must not split the arrow keys' escape sequences

# see SESSION DESC REGEX: the pane shows REGEX (grep -E) within a while
see() {
	_w=0
	while [ $_w -lt 300 ]; do
		_screen=$(tm capture-pane -p -t "$1" 2>/dev/null)
		if printf '%s\n' "$_screen" | grep -qE -- "$3"; then
			ok "$2"
			return
		fi
		sleep 0.1
		_w=$((_w + 1))
	done
	not_ok "$2"
	diag "no /$3/ on the screen:"
	printf '%s\n' "$_screen" | sed 's/^/# /'
}

# exited SESSION DESC STATUS: the program ended with STATUS
exited() {
	_w=0
	while [ ! -s "$T/$1.exit" ] && [ $_w -lt 300 ]; do
		sleep 0.1
		_w=$((_w + 1))
	done
	check_eq "$2" "$(cat "$T/$1.exit" 2>/dev/null)" "$3"
}

# start SESSION TERM: `mmuscope view` in a new 80x24 terminal
start() {
	tm new-session -d -s "$1" -x 80 -y 24 \
		"env TERM=$2 $MSC view $DB; echo \$? >$T/$1.exit; sleep 60"
}

command -v tmux >/dev/null || { not_ok "tmux is installed (make check installs it)"; done_testing; exit 1; }
DB=$T/k612.db
check "import" "$MSC" import -q "$TRACES/k612-npt_tdp_32m/trace.dat" -o "$DB"

start v screen-256color
see v "the overview comes up" '^Huge-page coverage over time'
see v "... with the census at the first dirty-log phase" 'census  4K 1  2M 16  1G 0 '
see v "... and the title bar" '^ mmuscope k612.db \| 6\.12\.117'
tm send-keys -t v 2
see v "2: the memory map" '^Memory map at 163\.941 ms'
see v "... 16 2M leaves before the split" '0x40000 M{16} *$'
tm send-keys -t v Right
see v "Right: one step later" '^Memory map at 175\.579 ms'
see v "... everything split and write-protected" '0x40000 %{16} *$'
tm send-keys -t v Left
see v "Left: back" '^Memory map at 163\.941 ms'

tm resize-window -t v -x 100 -y 30
see v "resized to 100x30: the status bar on the last line" '^ 1 Overview  \[2 Map\].*q quit *$'
check_eq "... 30 lines" "$(tm capture-pane -p -t v | wc -l)" 30
tm resize-window -t v -x 50 -y 12
see v "resized to 50x12: too small, says so" '^terminal too small: 50x12'
see v "... and what it needs" '^mmuscope needs at least 60x16'
tm resize-window -t v -x 80 -y 24
see v "back to 80x24: the map again" '^Memory map at 163\.941 ms'

tm send-keys -t v '?'
see v "?: the keys" '^  Left +time cursor one step back'
tm send-keys -t v PgDn
see v "... PgDn: the rest of them" '^  g +type a GFN \(hex\) to inspect'
tm send-keys -t v x
see v "any key closes the help" '^Memory map at'
tm send-keys -t v g 4 0 0 0 0
see v "g: the GFN prompt shows what is typed" 'GFN to inspect .*: 40000_'
tm send-keys -t v Enter
see v "Enter: the GFN inspector" '^GFN 0x40000 \(GPA 0x40000000, as 0\): 10 intervals'
tm send-keys -t v 1 End
see v "1, End: the overview at the end" '^cursor 814\.673 ms'
tm send-keys -t v Tab Tab
see v "Tab Tab: the phases" '^Phases: 20 '
tm send-keys -t v q
exited v "q: exits 0" 0
sleep 0.2
if tm capture-pane -p -t v | grep -q 'Huge-page coverage'; then
	not_ok "q: the terminal is given back (no TUI left on it)"
else
	ok "q: the terminal is given back (no TUI left on it)"
fi

start mono vt100
see mono "TERM=vt100 (no colour): the overview" '^Huge-page coverage over time'
see mono "... the same census" 'census  4K 1  2M 16  1G 0 '
tm send-keys -t mono C-c
exited mono "Ctrl-C: exits 0" 0
done_testing
