#!/bin/sh
# The task table: every task of a capture's events gets a row, named as the
# capture names it.  A trace.dat's names are trace-cmd's saved command
# lines, the names `trace-cmd report` prints; a text file's come from its
# "#@ task" lines; a live recording's from /proc, or for a test tree (and a
# thread gone) from saved_cmdlines.  A name from a trace reaches the
# terminal escaped (TUI, report); dump writes the task lines that import
# back.
. "$(dirname "$0")/lib.sh"

q() { sqlite3 "$1" "$2"; }

# report_names TRACE: "pid|comm" of every task trace-cmd's report shows
# ("comm-pid [cpu] ..."; a name may hold spaces and dashes)
report_names() {
	trace-cmd report -i "$1" 2>/dev/null |
		sed -n 's/^ *\(.*\)-\([0-9][0-9]*\) *\[[0-9]*\].*/\2|\1/p' | sort -u -t'|' -k1,1n
}

# event_pids DB: the pids of its events (lost marks are no task)
event_pids() {
	"$MSC" dump "$1" | awk '!/^#/ && $3 >= 0 { print $3 }' | sort -un
}

if ! command -v trace-cmd >/dev/null; then
	ok "# SKIP trace-cmd is not installed"
	done_testing
	exit 0
fi

# a real capture: the names are those trace-cmd prints for the same pids
trace=$TRACES/k73-npt_tdp_32m_2vcpu/trace.dat
check "import of a real capture" "$MSC" import -q "$trace" -o "$T/real.db"
check_eq "every task of its events has a row" \
	"$(q "$T/real.db" 'select pid from task order by pid')" "$(event_pids "$T/real.db")"
check_eq "... named as trace-cmd report names it" \
	"$(q "$T/real.db" 'select pid || "|" || comm from task order by pid')" \
	"$(report_names "$trace" | grep -E "^($(event_pids "$T/real.db" | paste -sd'|'))\|")"
check_match "... a kernel thread among them" "$(q "$T/real.db" 'select comm from task')" '^kdamond\.0$'
check_eq "... its process is not known: trace-cmd does not save saved_tgids" \
	"$(q "$T/real.db" 'select count(*) from task where tgid is not null or vm is not null')" 0

# QEMU's threads: the vCPU threads' own names, spaces and all
check "synth writes a run of QEMU's threads" "$MSC" synth -q -o "$T/syn.dat" \
	--tracing-dir "$T/tree" --instance mmuscope --guest-mib 64 --vcpus 2 --seed 7
check "import stores it" "$MSC" import -q "$T/syn.dat" -o "$T/syn.db"
check_eq "the vCPU threads are \"CPU n/KVM\", as trace-cmd report names them" \
	"$(q "$T/syn.db" 'select pid || "|" || comm from task order by pid')" "$(report_names "$T/syn.dat")"
check_match "... (there are vCPU threads)" "$(q "$T/syn.db" 'select comm from task')" '^CPU 1/KVM$'

# a live recording of the same run (a test tree: its saved_cmdlines)
check "record reads the tree" "$MSC" record -q --tracing-dir "$T/tree" -o "$T/live.db"
check_eq "record names the threads as import does" \
	"$(q "$T/live.db" 'select pid || "|" || comm from task order by pid')" \
	"$(q "$T/syn.db" 'select pid || "|" || comm from task order by pid')"

# a text file: "#@ task PID TGID COMM", COMM escaped as dump escapes text
ev=$MSC_TEST_DATA/events/two-vms.events
{
	echo '#@ task 20 20 qemu-system-x86'
	# a hostile name: an escape sequence, quotes, a backslash, a newline
	printf '%s\n' "#@ task 30 - e\\x1b[2J\"q'\\\\\\n"
	cat "$ev"
	echo '#@ task 20 20 CPU 0/KVM'	# the last line of a pid says
} >"$T/tasks.events"
check "text import with task lines" "$MSC" import -q --text "$T/tasks.events" -o "$T/text.db"
check_eq "every task of its events has a row" \
	"$(q "$T/text.db" 'select pid from task order by pid')" "$(event_pids "$T/text.db")"
check_eq "... with the name and process its last line gives" \
	"$(q "$T/text.db" 'select pid, tgid, comm from task where pid = 20')" '20|20|CPU 0/KVM'
check_eq "... none for a task no line names" \
	"$(q "$T/text.db" 'select count(*) from task where pid = 31 and comm is null and tgid is null')" 1
check_eq "the hostile name is stored as it is" \
	"$(q "$T/text.db" 'select hex(comm), tgid is null from task where pid = 30')" \
	"$(printf 'e\033[2J"q'"'"'\\\n' | od -An -tx1 | tr -d ' \n' | tr a-f A-F)|1"
check_match "dump names the tasks, escaped" "$("$MSC" dump "$T/text.db" | grep '^#@ task 30 ')" \
	"^#@ task 30 - e\\\\x1b\\[2J\"q'\\\\\\\\\\\\n\$"
"$MSC" dump "$T/text.db" >"$T/dumped.events"
check "... and imports back" "$MSC" import -q --text "$T/dumped.events" -o "$T/back.db"
check_eq "... into the same task rows" "$(q "$T/back.db" 'select pid, tgid, hex(comm) from task')" \
	"$(q "$T/text.db" 'select pid, tgid, hex(comm) from task')"
mkdir -p "$T/screens"
"$MSC" view "$T/text.db" --script "$(dirname "$0")/../tui/task.script" --no-display \
	--screen-dir "$T/screens" >/dev/null 2>&1
check_eq "... and shown escaped by the TUI" \
	"$(sed -n 's/^window .*, vCPU 0, //p' "$T/screens/task1.screen")" \
	"e\\x1b[2J\"q'\\\\\\n (pid 30)"
check_eq "... no control character reaches the screen" \
	"$(cat "$T"/screens/*.screen | tr -d '\n' | LC_ALL=C grep -c '[[:cntrl:]]')" 0
check_match "report names the VM's creator by its name" "$("$MSC" report "$T/text.db")" \
	'KVM_CREATE_VM by CPU 0/KVM \(pid 20\), fd 5$'
printf '%s\n' '#@ task 20 - r\x1b]0;t\x07' | cat - "$ev" >"$T/osc.events"
"$MSC" import -q --text "$T/osc.events" -o "$T/osc.db" 2>/dev/null
"$MSC" report "$T/osc.db" >"$T/osc.txt" 2>&1
check_match "... escaped" "$(cat "$T/osc.txt")" 'KVM_CREATE_VM by r\\x1b\]0;t\\x07 \(pid 20\), fd 5$'
check_eq "... no control character in the report" \
	"$(tr -d '\n' <"$T/osc.txt" | LC_ALL=C grep -c '[[:cntrl:]]')" 0
printf '%s\n' '#@ task 20 20 bad\q' | cat - "$ev" >"$T/bad.events"
out=$("$MSC" import -q --text "$T/bad.events" -o "$T/bad.db" 2>&1)
check_eq "a task line that does not parse: refused" "$?" 1
check_match "... saying which line" "$out" 'bad\.events: .*: line 1: bad task line$'

done_testing
