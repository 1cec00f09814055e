#!/bin/sh
# `mmuscope top` without KVM: the recorder runs as a child on a fake tracing
# directory written by `mmuscope synth`, the TUI shows what it stores.
# Screens are checked against the database the recorder leaves (-o), which
# `mmuscope report` reads independently; temporary files are removed; a
# recorder that cannot start makes top fail with the recorder's message.
. "$(dirname "$0")/lib.sh"

SCRIPTS=$(cd "$(dirname "$0")/../tui" && pwd)
export LINES=24 COLUMNS=80 TERM=xterm-256color LC_ALL=C.UTF-8
unset NO_COLOR MSC_TUI_SCRIPT MSC_TUI_NO_DISPLAY MSC_TUI_SCREEN_DIR

cat >"$T/top.script" <<'EOF'
:wait-idle
:save-screen overview.screen
3
:save-screen phases.screen
2
:save-screen map.screen
EOF
check "synth: a fake tracing directory" "$MSC" synth --tracing-dir "$T/fake" --instance mmuscope \
	--guest-mib 64 -q
mkdir -p "$T/tmp" "$T/s"
check "top -o DB runs to the end of the recording" env TMPDIR="$T/tmp" "$MSC" top -o "$T/top.db" \
	--tracing-dir "$T/fake" --no-kprobes --stats-ms 0 --script "$T/top.script" --no-display \
	--screen-dir "$T/s"
check_eq "the recorder left its database, 0600" "$(stat -c %a "$T/top.db" 2>&1)" 600
# as record leaves it: its WAL folded in, so the file alone is the recording
# (checked before anything else opens it: a writer's close would fold it too)
check_eq "... its WAL folded in: no top.db-wal, or an empty one" \
	"$(stat -c %s "$T/top.db-wal" 2>/dev/null || echo 0)" 0
mkdir "$T/copy"
cp "$T/top.db" "$T/copy/top.db"
check_match "... a copy of top.db alone opens, with every event" \
	"$("$MSC" report "$T/copy/top.db" 2>&1 | sed -n 3p)" '^events [1-9][0-9]* '
check_eq "... complete" "$(sqlite3 "$T/top.db" 'SELECT complete FROM capture')" 1
stored=$(sqlite3 "$T/top.db" "SELECT printf('%,d', stored) FROM capture")
# the TUI follows the recording and says how many it analyzed; on a loaded
# machine the recorder may have finished (and analyzed it all) before the
# TUI first looked, which then reads it as a finished database: "analyzed"
title=$(head -1 "$T/s/overview.screen")
case $title in
*"| analyzed")
	check_eq "title: top, the database, analyzed (found finished): every event" \
		"$(sqlite3 "$T/top.db" "SELECT a.last_seq = c.last_seq FROM analysis a, capture c")" 1
	;;
*)
	check_match "title: top, the database, every event analyzed" "$title" \
		"^ mmuscope top top.db \\| .* \\| analyzed $stored events\$"
	;;
esac
R=$("$MSC" report "$T/top.db")
check_eq "phases: as many as the report of the recorded database" \
	"$(sed -n 's/^Phases: \([0-9]*\) .*/\1/p' "$T/s/phases.screen")" \
	"$(printf '%s\n' "$R" | grep -c '^\[[0-9]*\] ')"
check_match "overview: KVM's counters from the workload's markers, equal" \
	"$(cat "$T/s/overview.screen")" 'KVM     after .*\(rebuilt there: equal\)'
check_match "map: the 64 MiB region" "$(cat "$T/s/map.screen")" 'gfn 0x40000-0x43fff, 64\.0 MiB'
check_eq "temporary files removed" "$(ls -A "$T/tmp")" ""

mkdir -p "$T/tmp2" "$T/s2"
check "top without -o runs" env TMPDIR="$T/tmp2" "$MSC" top --tracing-dir "$T/fake" --no-kprobes \
	--stats-ms 0 --script "$T/top.script" --no-display --screen-dir "$T/s2"
check_eq "... and leaves no database behind" "$(ls -A "$T/tmp2")" ""

out=$(env TMPDIR="$T/tmp2" "$MSC" top --tracing-dir "$T/none" --script "$T/top.script" \
	--no-display 2>&1)
check_eq "no tracing directory: top exits 1" "$?" 1
check_match "... with the recorder's own message" "$out" '^mmuscope record: .*none'
check_eq "... and cleans up" "$(ls -A "$T/tmp2")" ""
out=$(env TMPDIR="$T/tmp2" "$MSC" top --tracing-dir "$T/fake" --spool-dir "$T/no-such-dir" \
	--script "$T/top.script" --no-display 2>&1)
check_eq "--spool-dir goes to the recorder: one it cannot use makes top exit 1" "$?" 1
check_match "... with the recorder's message naming it" "$out" \
	"no-such-dir: cannot make a spool file there: No such file or directory"
out=$(env TMPDIR="$T/tmp2" "$MSC" top --tracing-dir "$T/fake" -p 999999999 \
	--script "$T/top.script" --no-display 2>&1)
check_eq "top -p goes to the recorder as record -p does: no such process, exit 1" "$?" 1
check_match "... with the recorder's message about its pid filter" "$out" \
	'^mmuscope record: .*(options/event-fork|process 999999999)'
check_fails "top takes no database argument" "$MSC" top "$T/top.db"
done_testing
