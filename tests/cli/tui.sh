#!/bin/sh
# The TUI (`mmuscope view`) headless: key scripts (tests/tui/*.script) run on
# the real captures, screens compared with tests/golden/tui/<capture>/
# (UPDATE=1 rewrites them), plus checks that do not trust the goldens: the
# screens agree with `mmuscope report` and KVM's own counters, a database
# nobody analyzed and one still being written show the same thing once
# caught up, no colour changes no text, bad input fails clearly.
. "$(dirname "$0")/lib.sh"

GOLDEN=$(dirname "$0")/../golden/tui
SCRIPTS=$(cd "$(dirname "$0")/../tui" && pwd)
export LINES=24 COLUMNS=80 TERM=xterm-256color LC_ALL=C.UTF-8
unset NO_COLOR MSC_TUI_SCRIPT MSC_TUI_NO_DISPLAY MSC_TUI_SCREEN_DIR

# view DB SCRIPT OUTDIR [ARGS...]: run a script headless, screens into OUTDIR
view() {
	_db=$1 _script=$2 _out=$3
	shift 3
	mkdir -p "$_out"
	"$MSC" view "$_db" --script "$SCRIPTS/$_script" --no-display --screen-dir "$_out" "$@"
}

# screens NAME SCRIPT...: import capture NAME, run the scripts, compare every screen
screens() {
	_name=$1
	shift
	_db=$T/$_name.db
	check "$_name: import" "$MSC" import -q "$TRACES/$_name/trace.dat" -o "$_db"
	for _s in "$@"; do
		check "$_name: $_s runs" view "$_db" "$_s.script" "$T/screens/$_name"
	done
	for _f in "$T/screens/$_name"/*.screen; do
		check_golden "$_name: $(basename "$_f" .screen) screen" "$_f" \
			"$GOLDEN/$_name/$(basename "$_f")"
	done
}

screens k612-npt_tdp_32m overview map phases gfn resize
screens k61-npt_tdp_32m overview map phases gfn
screens k612-npt_tdp_1g_hugetlb overview map gfn

# '/' jumps: the cursor lands where asked (a phase, a time, trace-cmd's time, the next match)
view "$T/k612-npt_tdp_32m.db" jump.script "$T/jump" >/dev/null 2>&1
cur() { sed -n 's/^cursor \([0-9.]* ms\).*/\1/p' "$T/jump/$1.screen" 2>/dev/null; }
check_eq "/disable: the cursor at the first phase named so" "$(cur disable)" \
	"$(sqlite3 "$T/k612-npt_tdp_32m.db" "select printf('%.3f ms', (min(p.start_ts) - a.first_ts) / 1e6)
		from phase p, analysis a where p.name like '%disable%' or p.kind like '%disable%'")"
check_eq "/250: 250 ms after the first event" "$(cur t250)" "250.000 ms"
check_eq "/@9.256041: that time in trace-cmd's clock (9.256041 s = 753.321 ms since the start)" \
	"$(cur abs)" "753.321 ms"
check_eq "/@9256041000: the same time in ns, as dump prints it" "$(cur absns)" "753.321 ms"
check_eq "/harvest then n: the second harvest" "$(cur harvest2)" \
	"$(sqlite3 "$T/k612-npt_tdp_32m.db" "select printf('%.3f ms', (p.start_ts - a.first_ts) / 1e6)
		from phase p, analysis a where p.kind = 'harvest' order by p.start_ts limit 1 offset 1")"
check_eq "/#5: phase 5's start" "$(cur id5)" \
	"$(sqlite3 "$T/k612-npt_tdp_32m.db" "select printf('%.3f ms', (p.start_ts - a.first_ts) / 1e6)
		from phase p, analysis a where p.id = 5")"
check_match "/gfn 40000: the GFN inspector" "$(head -2 "$T/jump/gfn.screen")" '^GFN 0x40000 '
check_match "/nonesuch: said so" "$(tail -1 "$T/jump/none.screen")" "no phase is called 'nonesuch'"

# 'v': the window on each VM's lifetime (the vm table's), then all again
"$MSC" import -q "$TRACES/k612st-split_hugetlb2m_16m/trace.dat" -o "$T/2vm.db" 2>/dev/null
view "$T/2vm.db" vm.script "$T/vm" >/dev/null 2>&1
win() { sed -n 's/^window \([^(]*\) (.*/\1/p' "$T/vm/$1.screen" 2>/dev/null; }
span() { sqlite3 "$T/2vm.db" "select printf('%.3f ms .. %.3f ms', (v.start_ts - a.first_ts) / 1e6,
	(v.end_ts - a.first_ts) / 1e6) from vm v, analysis a where v.id = $1"; }
check_eq "v: the window on VM 1's lifetime" "$(win vm1)" "$(span 1)"
check_eq "v again: on VM 2's" "$(win vm2)" "$(span 2)"
check_match "... then the whole capture again" "$(tail -1 "$T/vm/all.screen")" '^ all 2 VMs'

# 'c': the overview counts each task's part in turn (vCPUs first), then all again
db=$T/2vcpu.db
"$MSC" import -q "$TRACES/k612-npt_tdp_32m_2vcpu/trace.dat" -o "$db" 2>/dev/null
view "$db" task.script "$T/task" >/dev/null 2>&1
# count SCREEN WHAT: the window's count of WHAT on that screen, without commas
count() { sed -n "s/.* $2 *\([0-9,]*\) .*/\1/p" "$T/task/$1.screen" 2>/dev/null | tr -d , | head -1; }
# sums PID: its faults and SPTE changes over the capture (the whole window)
sums() { sqlite3 "$db" "select total(faults_slow + faults_fast) || ' ' || total(spte_changes)
	from task_activity where $1" | sed 's/\.0//g'; }
check_match "c: vCPU 0's part" "$(sed -n '/^window/p' "$T/task/task1.screen")" ', vCPU 0, dirtylog \(pid [0-9]+\)$'
check_eq "... its faults and SPTE changes" "$(count task1 faults) $(count task1 'spte changes')" \
	"$(sums "pid = (select pid from task_activity where vcpu = 0)")"
check_match "c again: vCPU 1's" "$(sed -n '/^window/p' "$T/task/task2.screen")" ', vCPU 1, dirtylog \(pid [0-9]+\)$'
check_eq "... its faults and SPTE changes" "$(count task2 faults) $(count task2 'spte changes')" \
	"$(sums "pid = (select pid from task_activity where vcpu = 1)")"
check_match "then the task that is no vCPU" "$(tail -1 "$T/task/task3.screen")" \
	'^ task 3 of 3: dirtylog \(pid [0-9]+\): 0 faults, 32,821 SPTE changes'
check_eq "... then all tasks: the three parts add up" \
	"$(( $(count task1 faults) + $(count task2 faults) + $(count task3 faults) ))" "$(count all faults)"
check_eq "... to the activity table's" "$(count all faults) $(count all 'spte changes')" \
	"$(sqlite3 "$db" "select total(faults_slow + faults_fast) || ' ' || total(spte_changes)
		from activity" | sed 's/\.0//g')"

# a capture of an MMU that traces no SPTE change: said plainly, no "equal" on zeros
"$MSC" import -q --text "$MSC_TEST_DATA/events/no-mmu.events" -o "$T/nommu.db" 2>/dev/null
view "$T/nommu.db" overview.script "$T/nommu" >/dev/null 2>&1
check_match "no SPTE changes: the overview says there is nothing to rebuild" \
	"$(cat "$T/nommu/overview.screen" 2>/dev/null)" '^  census  nothing to rebuild: no SPTE changes traced'
check_eq "... and compares no KVM counter with it" \
	"$(grep -c 'rebuilt there: equal' "$T/nommu/overview.screen" 2>/dev/null)" 0
screens k612-npt_tdp_eager0_16m overview map
screens k61-shadow_npt0_16m overview phases

S=$T/screens/k612-npt_tdp_32m
R=$("$MSC" report "$T/k612-npt_tdp_32m.db")

# --- what the screens say, checked against other sources ------------------
check_eq "phases: as many as the report lists" \
	"$(sed -n 's/^Phases: \([0-9]*\) .*/\1/p' "$S/phases.screen")" \
	"$(printf '%s\n' "$R" | grep -c '^\[[0-9]*\] ')"
check_match "phases: the enable phase's census after, as in the report" \
	"$(cat "$S/phases.screen")" 'census after   4K 8,193  2M 0  1G 0'
check_match "report agrees on that census" "$R" 'census after:  4K 8193  2M 0  1G 0'
check_match "overview: the census at the cursor is KVM's after populate" \
	"$(cat "$S/overview.screen")" 'census  4K 1  2M 16  1G 0 '
check_match "overview: ... and KVM's own counters there are equal" \
	"$(cat "$S/overview.screen")" 'KVM     after populate: 4K 1  2M 16  1G 0  \(rebuilt there: equal\)'
check_match "map: 16 2M leaves before dirty logging" "$(cat "$S/map.screen")" '0x40000 M{16}$'
check_match "map: all 16 split and write-protected after the replayed harvest" \
	"$(cat "$S/map-replayed.screen")" '0x40000 %{16}$'
check_match "map: half-way through the replay some are protected, some not" \
	"$(cat "$S/map-replay.screen")" '0x40000 %+#+$'
check_match "gfn: the 2M leaf of 0x40000 was split eagerly" "$(cat "$S/gfn.screen")" \
	' 2M +0xb000 W D +fault-map +eager-split'
check_match "gfn: its split child is marked untraced (s)" "$(cat "$S/gfn.screen")" \
	' 4K +0xb000 W D s +eager-split +write-protect'
check_match "too small: says so" "$(cat "$S/small.screen")" '^terminal too small: 50x12$'
check_eq "resize: 30 lines saved at 100x30" "$(wc -l <"$S/map-100x30.screen")" 30
check_match "help: lists the keys of every screen" "$(cat "$S/help.screen")" '^  g +type a GFN'
check_match "1G capture: the 1G leaf on the map" \
	"$(cat "$T/screens/k612-npt_tdp_1g_hugetlb/map.screen")" '0x40000 G{64}$'
check_match "shadow MMU: the census says it is approximate" \
	"$(cat "$T/screens/k61-shadow_npt0_16m/overview.screen")" 'approximate: shadow MMU'
check_match "shadow MMU: inferred phases say so" \
	"$(cat "$T/screens/k61-shadow_npt0_16m/phases.screen")" ' INF '

# --- lost events are shown, never hidden ---------------------------------
check "lost events: import the fixture" "$MSC" import -q --text \
	"$MSC_TEST_DATA/events/lost.events" -o "$T/lost.db"
check "lost events: overview" view "$T/lost.db" overview.script "$T/screens/lost"
check_match "lost events: in the title bar" "$(head -1 "$T/screens/lost/overview.screen")" \
	'LOST: 1 gaps, 100 events'
check_match "lost events: on the time axis" "$(cat "$T/screens/lost/overview.screen")" \
	'^        \+-*!'
check_match "lost events: after the cursor passes them" \
	"$(cat "$T/screens/lost/overview-zoom.screen")" 'after 1 LOST gap \(100 events\)'

# --- no colour: the same text ---------------------------------------------
mkdir -p "$T/mono"
check "TERM=vt100 NO_COLOR=1 runs" env TERM=vt100 NO_COLOR=1 "$MSC" view \
	"$T/k612-npt_tdp_32m.db" --script "$SCRIPTS/map.script" --no-display --screen-dir "$T/mono"
check "no colour: the map reads the same" diff "$S/map-replay.screen" "$T/mono/map-replay.screen"
check "--no-color: the same" "$MSC" view "$T/k612-npt_tdp_32m.db" --no-color \
	--script "$SCRIPTS/overview.script" --no-display --screen-dir "$T/mono"
check "--no-color: the overview reads the same" diff "$S/overview.screen" "$T/mono/overview.screen"

# --- a database nobody analyzed: the TUI analyzes it itself ---------------
check "follow: import --no-analyze" "$MSC" import -q --no-analyze \
	"$TRACES/k612-npt_tdp_32m/trace.dat" -o "$T/raw.db"
check "follow: runs" view "$T/raw.db" follow.script "$T/follow-raw"
check "follow: the analyzed database, same keys" view "$T/k612-npt_tdp_32m.db" follow.script \
	"$T/follow-done"
check_match "follow: says it analyzed every event" "$(head -1 "$T/follow-raw/follow.screen")" \
	'analyzed 66,107 events'
check "follow: the screen below the title is the analyzed one" diff \
	"$(tail -n +2 "$T/follow-raw/follow.screen" >"$T/a"; echo "$T/a")" \
	"$(tail -n +2 "$T/follow-done/follow.screen" >"$T/b"; echo "$T/b")"

# --- a capture still being written ----------------------------------------
# The first 30,000 events are committed, the capture is incomplete; once the
# TUI has caught up, a writer commits the rest and completes the capture, as
# `mmuscope record` does.  The TUI must pick both steps up.  (Runs are cut by
# their first seq, as the writer's commits never split one.)
cp "$T/raw.db" "$T/full.db"
cp "$T/raw.db" "$T/grow.db"
tables="spte_change_run huge_page_split page_table fault_run marker set_spte spte_requested mmio_spte
	zap_all_fast hva_range kprobe lost_events"
cut=30000
{
	echo "PRAGMA journal_mode=WAL; BEGIN;"
	for t in $tables; do echo "DELETE FROM $t WHERE seq > $cut;"; done
	echo "UPDATE capture SET last_seq = $cut, complete = 0, stored = $cut + 1 - first_seq,
		last_ts = (SELECT max(ts) FROM spte_change); COMMIT;"
} | sqlite3 "$T/grow.db" >/dev/null
view "$T/grow.db" growing.script "$T/grow" >"$T/grow.out" 2>&1 &
pid=$!
n=0
while [ ! -s "$T/grow/growing-1.screen" ] && [ $n -lt 600 ] && kill -0 $pid 2>/dev/null; do
	sleep 0.1
	n=$((n + 1))
done
{
	echo "ATTACH '$T/full.db' AS f; BEGIN;"
	for t in $tables; do echo "INSERT INTO main.$t SELECT * FROM f.$t WHERE seq > $cut;"; done
	echo "UPDATE main.capture SET (last_seq, last_ts, stored, records, complete) =
		(SELECT last_seq, last_ts, stored, records, complete FROM f.capture); COMMIT;"
} | sqlite3 "$T/grow.db"
wait $pid
check_eq "growing: the TUI ran to the end" "$?" 0
check_match "growing: first the committed part, live" "$(head -1 "$T/grow/growing-1.screen")" \
	'grow.db \| LIVE \| .* \| live: 30,001 events$'
check_match "growing: then everything, analyzed" "$(head -1 "$T/grow/growing-map.screen")" \
	'analyzed 66,107 events$'
check "growing: the analyzed database, same keys" view "$T/k612-npt_tdp_32m.db" growing.script \
	"$T/grow-done"
for s in phases map; do
	tail -n +2 "$T/grow/growing-$s.screen" >"$T/c"
	tail -n +2 "$T/grow-done/growing-$s.screen" >"$T/d"
	check "growing: the $s screen is the analyzed database's" diff "$T/d" "$T/c"
done

# --- bad input -------------------------------------------------------------
out=$("$MSC" view "$T/nonexistent.db" 2>&1)
check_eq "missing database: exit 1" "$?" 1
check_match "... says so" "$out" '^mmuscope view: .*/nonexistent.db: cannot open: No such file'
printf 'not a database\n' >"$T/junk.db"
out=$("$MSC" view "$T/junk.db" 2>&1)
check_match "not a database: says so" "$out" 'not an mmuscope database'
out=$("$MSC" view "$T/k612-npt_tdp_32m.db" --capture 9 2>&1)
check_match "no such capture: says so" "$out" 'no capture 9'
out=$("$MSC" view "$T/k612-npt_tdp_32m.db" </dev/null 2>&1)
check_match "no terminal: says so" "$out" 'needs a terminal'
check_fails "--no-display without --script fails" "$MSC" view "$T/k612-npt_tdp_32m.db" --no-display
printf ':frobnicate\n' >"$T/bad.script"
out=$("$MSC" view "$T/k612-npt_tdp_32m.db" --script "$T/bad.script" --no-display 2>&1)
check_match "bad script line: says which" "$out" 'script line 1: unknown command'
done_testing
