#!/bin/sh
# `mmuscope record` on this machine's real tracefs: a dedicated instance is
# created and removed, markers are recorded, signals stop it cleanly with
# every event stored, a killed recorder leaves a readable database, and
# every fault is named.  Needs root and a kernel with kvmmmu events; the
# whole script is skipped with the reason otherwise.
. "$(dirname "$0")/lib.sh"

TR=/sys/kernel/tracing
INST=msc-test-$$
I=$TR/instances/$INST

[ "$(id -u)" = 0 ] || skip_all "record needs root"
if [ ! -e "$TR/events/header_page" ]; then
	mount -t tracefs nodev "$TR" 2>/dev/null ||
		skip_all "tracefs cannot be mounted at $TR"
fi
[ -d "$TR/events/kvmmmu" ] || skip_all "this kernel has no kvmmmu events (kvm module not loaded)"
[ -d "$TR/instances/$INST" ] && rmdir "$I"

cleanup_instance() {
	[ -d "$I" ] && rmdir "$I" 2>/dev/null
	true
}
trap 'cleanup_instance; rm -rf "$T"' EXIT

# wait_for SECONDS CMD...: until CMD succeeds
wait_for() {
	_w=$(($1 * 10))
	shift
	while [ $_w -gt 0 ]; do
		"$@" 2>/dev/null && return 0
		sleep 0.1
		_w=$((_w - 1))
	done
	return 1
}
q() { sqlite3 "$1" "$2" 2>&1; }
# (sqlite3 would create a missing file, and record refuses to overwrite one)
has_capture() { [ -s "$1" ] && [ "$(sqlite3 "$1" 'select count(*) from capture' 2>/dev/null)" = 1 ]; }

# --- a recording with markers, stopped by --duration -----------------------
"$MSC" record -o "$T/a.db" --instance "$INST" --duration 3 >"$T/a.out" 2>&1 &
pid=$!
check "the instance appears" wait_for 5 test -e "$I/trace_marker"
check "the capture row is readable while recording (WAL)" wait_for 5 has_capture "$T/a.db"
check_eq "events are enabled in the instance" "$(cat "$I/events/kvmmmu/enable" 2>&1)" 1
check_eq "the top-level buffer is left alone" "$(grep -c 'kvmmmu' "$TR/set_event")" 0
for i in 1 2 3 4 5; do
	echo "msc-test: marker $i" >"$I/trace_marker"
done
copy=$(cat "$I/options/copy_trace_marker" 2>/dev/null || echo absent)
TOP_LINE="msc-test $$: via the top-level marker"
[ "$copy" = 1 ] && echo "$TOP_LINE" >"$TR/trace_marker"
wait $pid
check_eq "record exits 0" "$?" 0
check "the instance is removed at exit" test ! -e "$I"
check_match "it says which mode it runs in" "$(cat "$T/a.out")" \
	'phases and TLB flushes: (inferred|kprobes|tracepoints)'
check_eq "the capture is complete" "$(q "$T/a.db" 'select complete, kind from capture')" "1|tracefs"
check_eq "every marker is stored, in order" \
	"$(q "$T/a.db" "select group_concat(text, ',') from (select text from marker where text like 'msc-test: marker%' order by seq)")" \
	"msc-test: marker 1,msc-test: marker 2,msc-test: marker 3,msc-test: marker 4,msc-test: marker 5"
check_eq "the recording starts with its own marker" \
	"$(q "$T/a.db" 'select text from marker order by seq limit 1')" "mmuscope-record: start"
if [ "$copy" = 1 ]; then
	check_eq "top-level trace_marker lines are copied in (copy_trace_marker)" \
		"$(q "$T/a.db" "select count(*) from marker where text = '$TOP_LINE'")" 1
else
	ok "# SKIP copy_trace_marker: not in this kernel"
fi
check_eq "no event was lost" "$(q "$T/a.db" 'select lost, lost_marks, (select count(*) from lost_events) from capture')" "0|0|0"
check_eq "per CPU, the kernel's read count equals the records stored" \
	"$(q "$T/a.db" 'select count(*) from ring_buffer_cpu where read_events is not records')" 0
check_eq "records read = records the capture counts" \
	"$(q "$T/a.db" 'select (select sum(records) from ring_buffer_cpu) = records from capture')" 1
check_match "the host profile is stored" \
	"$(q "$T/a.db" "select value from host_param where name = 'kernel.release'")" "^$(uname -r)\$"
check_eq "the trace clock is mono" "$(q "$T/a.db" 'select trace_clock from capture')" mono
check_eq "the marker writer is attributed to its process" \
	"$(q "$T/a.db" "select count(*) from task t join marker m on m.pid = t.pid where m.text like 'msc-test: marker%' and t.tgid is not null")" 5
check_eq "the database file is private (0600)" "$(stat -c %a "$T/a.db")" 600

# --- signals stop it cleanly ----------------------------------------------
for sig in INT TERM; do
	"$MSC" record -o "$T/$sig.db" --instance "$INST" -q >"$T/$sig.out" 2>&1 &
	pid=$!
	wait_for 5 has_capture "$T/$sig.db"
	echo "msc-test: before $sig" >"$I/trace_marker"
	sleep 0.3
	kill -$sig $pid
	wait $pid
	check_eq "SIG$sig: exit 0" "$?" 0
	check "SIG$sig: the instance is removed" test ! -e "$I"
	check_eq "SIG$sig: complete, with the marker written just before" \
		"$(q "$T/$sig.db" "select complete, (select count(*) from marker where text = 'msc-test: before $sig') from capture")" "1|1"
done

# --- --pid: the instance's pid filter follows the process ----------------------
sleep 30 &
vmm=$!
"$MSC" record -o "$T/pid.db" --instance "$INST" --pid $vmm -q >"$T/pid.out" 2>&1 &
pid=$!
wait_for 5 has_capture "$T/pid.db"
check_eq "--pid: the process's threads are in set_event_pid" "$(cat "$I/set_event_pid" 2>&1)" "$vmm"
check_eq "--pid: threads it creates later follow (event-fork)" \
	"$(cat "$I/options/event-fork" 2>&1)" 1
kill -INT $pid
wait $pid
check_eq "--pid: clean stop" "$(q "$T/pid.db" "select complete, value from capture, host_param where name = 'record.pid'")" "1|$vmm"
kill $vmm 2>/dev/null
wait $vmm 2>/dev/null

# --- SIGKILL: every committed event stays readable --------------------------
"$MSC" record -o "$T/k.db" --instance "$INST" --commit-ms 50 -q >"$T/k.out" 2>&1 &
pid=$!
wait_for 5 has_capture "$T/k.db" || diag "$(cat "$T/k.out")"
for i in 1 2 3; do echo "msc-test: committed $i" >"$I/trace_marker"; done
committed() { [ "$(sqlite3 "$T/k.db" "select count(*) from marker where text like 'msc-test: committed%'")" = 3 ]; }
check "markers become visible to readers while recording" wait_for 5 committed
kill -KILL $pid
wait $pid 2>/dev/null
check_eq "after SIGKILL the database opens with the committed events, incomplete" \
	"$(q "$T/k.db" "select complete, (select count(*) from marker where text like 'msc-test: committed%') from capture")" "0|3"
check "the killed recorder's instance is still there" test -d "$I"
out=$("$MSC" record -o "$T/k2.db" --instance "$INST" --duration 1 2>&1)
rc=$?
check_eq "a second recorder refuses the taken instance name" "$rc" 1
check_match "... and says how to recover" "$out" "instances/$INST exists: .*rmdir"
check "... and leaves no database behind" test ! -e "$T/k2.db"
rmdir "$I"

# --- faults ----------------------------------------------------------------
out=$("$MSC" record -o "$T/a.db" --instance "$INST" --duration 1 2>&1)
check_match "an existing database is refused" "$out" "a.db: database already exists"
out=$("$MSC" record -o "$T/p.db" --instance "$INST" --pid 999999999 --duration 1 2>&1)
check_match "a --pid that does not exist is named" "$out" "process 999999999 does not exist"
check "... and its instance is removed" test ! -e "$I"
out=$("$MSC" record -o "$T/t.db" --tracing-dir "$T/none" --duration 1 2>&1)
check_match "a directory that is not tracefs is named" "$out" "$T/none: no events/header_page"
out=$("$MSC" record -o "$T/n.db" --instance 'a/b' --duration 1 2>&1)
check_match "a bad instance name is refused" "$out" "instance name 'a/b'"

# database locked by another writer
(echo "BEGIN IMMEDIATE; SELECT 1;"; sleep 4) | sqlite3 "$T/a.db" >/dev/null 2>&1 &
lockpid=$!
sleep 0.5
out=$("$MSC" record -o "$T/a.db" --append --instance "$INST" --duration 1 2>&1)
check_match "a database another process writes is refused" "$out" "database is locked"
check "... before any instance is made" test ! -e "$I"
kill $lockpid 2>/dev/null
wait $lockpid 2>/dev/null

# disk full: a file size limit turns into EFBIG
(
	ulimit -f 2048
	"$MSC" record -o "$T/full.db" --instance "$INST" --commit-ms 50 -q >"$T/full.out" 2>&1 &
	rpid=$!
	wait_for 5 test -e "$I/trace_marker"
	i=0
	while [ $i -lt 50000 ] && kill -0 $rpid 2>/dev/null; do
		{ echo "msc-test: filling the disk with marker number $i and some padding text" >"$I/trace_marker"; } 2>/dev/null
		i=$((i + 1))
	done
	kill -INT $rpid 2>/dev/null
	wait $rpid
	echo "rc=$?" >>"$T/full.out"
)
check_match "a full disk is reported as such" "$(cat "$T/full.out")" "full.db: disk full"
check_match "... with a non-zero exit" "$(cat "$T/full.out")" "rc=1"
check "... and the instance is removed" test ! -e "$I"
check_match "... and what was committed stays readable" \
	"$(q "$T/full.db" 'select count(*) > 0 from marker')" "^1$"

# not root
if command -v setpriv >/dev/null 2>&1; then
	mkdir -p "$T/nobody" && chmod 777 "$T/nobody"
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$MSC" record -o "$T/nobody/x.db" --instance "$INST" --duration 1 2>&1)
	check_match "without root the error says so" "$out" "needs root|Permission denied"
	check "... and leaves no database" test ! -e "$T/nobody/x.db"
else
	ok "# SKIP setpriv is missing: not-root case"
fi

# --- a real KVM workload, where /dev/kvm works ------------------------------
DL=""
for d in "${MSC%/mmuscope}/nested/dirtylog" "$PWD/build/nested/dirtylog"; do
	[ -x "$d" ] && DL=$d && break
done
if [ -z "$DL" ] && command -v cc >/dev/null 2>&1 && [ -f workload/dirtylog.c ]; then
	cc -O2 -pthread -o "$T/dirtylog" workload/dirtylog.c 2>/dev/null && DL=$T/dirtylog
fi
if [ -c /dev/kvm ] && [ -n "$DL" ] && "$DL" -m 2 -n >/dev/null 2>&1; then
	"$MSC" record -o "$T/w.db" --instance "$INST" -q >"$T/w.out" 2>&1 &
	pid=$!
	wait_for 5 has_capture "$T/w.db" || diag "$(cat "$T/w.out")"
	"$DL" -m 4 -M "$I/trace_marker" >"$T/w.log" 2>&1
	sleep 0.3
	kill -INT $pid
	wait $pid
	check_eq "dirtylog under record: exit 0" "$?" 0
	n=$(grep -c '^mmuscope-dirtylog: ' "$T/w.log")
	check_eq "every workload marker line is stored" \
		"$(q "$T/w.db" "select count(*) from marker where text like 'mmuscope-dirtylog: %'")" "$n"
	check_eq "the phase markers pair up" \
		"$(q "$T/w.db" "select (select count(*) from marker where text like '%phase=% begin') = (select count(*) from marker where text like '%phase=% end')")" 1
	check_eq "no event was lost" "$(q "$T/w.db" 'select lost + lost_marks from capture')" 0
else
	ok "# SKIP no usable /dev/kvm here for the workload"
fi

done_testing
