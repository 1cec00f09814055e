#!/bin/sh
# `mmuscope record --tracing-dir DIR` on a fake tracing tree made by
# `mmuscope synth --tracing-dir` (real 6.12 formats, a pre-made instance,
# raw ring-buffer pages): the live reader must store exactly what
# `mmuscope import` stores from the same synthetic run as a trace.dat.
# No kernel and no root needed.
. "$(dirname "$0")/lib.sh"

SYN="--guest-mib 64 --passes 2 --seed 7"

# wait_tree DIR: a feeding synth's tree is ready once its instance's FIFOs exist
wait_tree() {
	i=0
	while [ ! -p "$1/instances/mmuscope/per_cpu/cpu1/trace_pipe_raw" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

# shellcheck disable=SC2086
check "synth writes the reference trace.dat" "$MSC" synth -q -o "$T/ref.dat" $SYN
check "import stores it" "$MSC" import -q "$T/ref.dat" -o "$T/ref.db"
"$MSC" dump "$T/ref.db" | grep -v '^#' >"$T/ref.txt"

# shellcheck disable=SC2086
check "synth writes the same run as a fake tracing tree" \
	"$MSC" synth -q --tracing-dir "$T/tree" --instance mmuscope $SYN
out=$("$MSC" record --tracing-dir "$T/tree" -o "$T/live.db" 2>&1)
check_eq "record reads the tree to its end and exits 0" "$?" 0
check_match "... in the mode a test tree has" "$out" "phases and TLB flushes: inferred \(a test tree"
check_match "... with nothing skipped" "$out" "0 events lost"
check_eq "record stores no warning" "$(printf '%s\n' "$out" | grep -c warning)" 0
"$MSC" dump "$T/live.db" | grep -v '^#' >"$T/live.txt"
if cmp -s "$T/ref.txt" "$T/live.txt"; then
	ok "live path = trace.dat path: $(wc -l <"$T/live.txt") events, every field, same order"
else
	not_ok "live path = trace.dat path"
	diff "$T/ref.txt" "$T/live.txt" | head -5 | sed 's/^/# /'
fi
check_eq "the capture is complete, from tracefs" \
	"$(sqlite3 "$T/live.db" 'select complete, kind, lost from capture')" "1|tracefs|0"
check_match "a test tree is not this host: said so" "$out" "host: not this machine \(a test tree\): inferred from the events"
check_eq "... no fact of this host is stored as the tree's (uname, kernel, its /proc and /sys)" \
	"$(sqlite3 "$T/live.db" "select coalesce(uname, '') || '|' || coalesce(kernel_release, '') || '|' || (select count(*) from host_param where name like 'kernel.%' or name like 'kvm%' or name like 'cpu.%' or name like 'mem%' or name like 'thp%') from capture")" "||0"
check_eq "... nor its KVM counters: the host's VMs are not the tree's" \
	"$(sqlite3 "$T/live.db" "select count(*) from host_param where name = 'record.kvm_stats'")" 0
check_eq "... what recording cost this host's CPUs is stored (record.cpu_s)" \
	"$(sqlite3 "$T/live.db" "select count(*), min(value >= 0) from host_param where name = 'record.cpu_s'")" "1|1"
check_match "... and said" "$out" "recorder CPU [0-9]+\.[0-9][0-9] s"
out=$("$MSC" record --tracing-dir "$T/tree" -o "$T/bad.db" --kvm-stats nope 2>&1)
check_eq "--kvm-stats nope: refused (exit 2), nothing made" "$?|$(test -e "$T/bad.db" && echo made)" "2|"
check_match "... in one line naming the option and what it takes" "$out" \
	"^mmuscope record: --kvm-stats nope: expected auto, stats-fd or debugfs"
check_eq "... the SPTE layout is inferred from the events" \
	"$(sqlite3 "$T/live.db" 'select vendor, vendor_source from capture')" "npt|inferred"
check_eq "the tree's pre-made instance is left in place" \
	"$(test -d "$T/tree/instances/mmuscope" && echo yes)" yes
check_eq "analysis ran inline: census = KVM's counters at every phase" \
	"$(sqlite3 "$T/live.db" 'select count(*) > 0, sum(pages_4k is not census_4k or pages_2m is not census_2m) from kvm_stats')" "1|0"

# lost events: the kernel's missed-events marks become lost_events rows
# shellcheck disable=SC2086
"$MSC" synth -q --tracing-dir "$T/lost" --instance mmuscope --lost-events 500 $SYN
"$MSC" record -q --tracing-dir "$T/lost" -o "$T/lost.db" >/dev/null 2>&1
check_eq "500 dropped events are counted, never silent" \
	"$(sqlite3 "$T/lost.db" "select lost, (select sum(count) from lost_events where source = 'ring-buffer') from capture")" "500|500"
check_eq "the analysis marks the history after the gap" \
	"$(sqlite3 "$T/lost.db" 'select lost_events from analysis')" 500

# --trace-dat: the raw pages as read, re-importable
out=$("$MSC" record -q --tracing-dir "$T/tree" -o "$T/td.db" --trace-dat "$T/td.dat" 2>&1)
check_eq "record --trace-dat exits 0" "$?" 0
check "... and leaves no staging files" sh -c "! ls -d '$T'/td.dat.parts.* 2>/dev/null"
check "the trace.dat imports" "$MSC" import -q "$T/td.dat" -o "$T/td2.db"
"$MSC" dump "$T/td2.db" | grep -v '^#' >"$T/td2.txt"
check "... to the same events" cmp -s "$T/ref.txt" "$T/td2.txt"

# FIFOs: the reader waits for pages that trickle in
# shellcheck disable=SC2086
"$MSC" synth -q --tracing-dir "$T/fifo" --instance mmuscope --fifo --trickle 1 $SYN &
spid=$!
wait_tree "$T/fifo"
out=$("$MSC" record -q --tracing-dir "$T/fifo" -o "$T/fifo.db" 2>&1)
check_eq "record follows FIFOs to their end" "$?" 0
wait $spid
"$MSC" dump "$T/fifo.db" | grep -v '^#' | sort >"$T/fifo.txt"
sort "$T/ref.txt" >"$T/ref.sorted"
# synth's writers feed each CPU at its own pace, not in time order as a
# kernel fills its buffers, so only the content is compared here
check "... and stores every event of the run" cmp -s "$T/ref.sorted" "$T/fifo.txt"

# a storm above the decode rate: each CPU's pages come at 20,000 a second
# whether or not they are read, into a ring of 256 pages that drops when
# full (synth --page-rate, a kernel's ring buffer); the drain moves them to
# the spool as they come and the decoder follows behind.  Whether a page is
# dropped depends on the scheduler (make bench counts them on an idle
# machine); what holds under any load is checked: every stored event is
# one of the run, and every drop is marked, none where nothing dropped.
BURST="--guest-mib 512 --passes 2 --seed 7"
# shellcheck disable=SC2086
"$MSC" synth -q -o "$T/burst.dat" $BURST
"$MSC" import -q "$T/burst.dat" -o "$T/burst-ref.db"
"$MSC" dump "$T/burst-ref.db" | grep -v '^#' | sort >"$T/burst-ref.txt"
rm -f "$T/burst.dat"
burst() { # NAME RECORD-OPTIONS...: record a ring-buffer burst; synth's summary in NAME.synth
	name=$1
	shift
	rm -rf "$T/$name"
	# shellcheck disable=SC2086
	"$MSC" synth --tracing-dir "$T/$name" --instance mmuscope --fifo --page-rate 20000 \
		--ring-pages 256 $BURST >"$T/$name.synth" 2>&1 &
	bpid=$!
	wait_tree "$T/$name"
	"$MSC" record --tracing-dir "$T/$name" -o "$T/$name.db" "$@" >"$T/$name.out" 2>&1
	echo $? >"$T/$name.rc"
	wait $bpid
}
overwritten() { sed -nE 's/.* ([0-9]+) pages overwritten unread/\1/p' "$T/$1.synth"; }
# burst_stored NAME: every stored event is one of the run's, and the drops
# are marked: "right dropped-pages>0 marks>0 missing>0" the same way.  The
# class an SPTE change is given is left out: it is inferred from the events
# before it (a zapped table's children), which a drop may take away.
burst_stored() {
	"$MSC" dump "$T/$1.db" | grep -v '^#' | grep -v ' lost count=' |
		sed 's/ class=[^ ]*$//' | sort >"$T/$1.txt"
	sed 's/ class=[^ ]*$//' "$T/burst-ref.txt" | sort >"$T/burst-raw.txt"
	wrong=$(comm -13 "$T/burst-raw.txt" "$T/$1.txt" | wc -l)
	missing=$(comm -23 "$T/burst-raw.txt" "$T/$1.txt" | wc -l)
	marks=$(sqlite3 "$T/$1.db" "select count(*) from lost_events where source = 'ring-buffer'")
	echo "$([ "$wrong" = 0 ] && echo right || echo "$wrong wrong") $(( $(overwritten "$1") > 0 )) $(( marks > 0 )) $(( missing > 0 ))"
}
mkdir "$T/spool"
burst spooled --spool-dir "$T/spool"
check_eq "a burst through the spool: record exits 0" "$(cat "$T/spooled.rc")" 0
got=$(burst_stored spooled)
diag "spooled: $(overwritten spooled) pages dropped"
case $got in
"right 0 0 0") ok "... every event of the run is stored, none marked lost" ;;
"right 1 1 1") ok "... the ring buffers dropped pages (a busy machine): every stored event is right, the drops are marked" ;;
*) not_ok "... every stored event right, every drop marked (got: $got)" ;;
esac
check_match "... the summary says what went through the spool" "$(cat "$T/spooled.out")" \
	"spool: [0-9.]+ MiB through $T/spool, backlog at most [0-9.]+ [KM]iB, ring buffers drained in [0-9.]+ s"
check_eq "... which leaves nothing in its directory" "$(ls -A "$T/spool")" ""
# the same burst read by the decoding loop itself (--no-spool): it drops
# far more (make bench compares the two), and again every drop is marked
burst direct --no-spool
got=$(burst_stored direct)
diag "direct: $(overwritten direct) pages dropped"
case $got in
"right 0 0 0" | "right 1 1 1") ok "without the spool: every stored event right, every drop marked" ;;
*) not_ok "without the spool: every stored event right, every drop marked (got: $got)" ;;
esac

# a spool whose disk cannot keep up (a 4 MiB tmpfs, for a 51 MiB run read
# from plain files as fast as they go): the pages it cannot take are
# counted, marked where they were, and said; the rest is stored
mkdir "$T/tiny"
if mount -t tmpfs -o size=4m,mode=0700 mmuscope-test "$T/tiny" 2>/dev/null; then
	trap 'umount "$T/tiny" 2>/dev/null; rm -rf "$T"' EXIT
	# shellcheck disable=SC2086
	"$MSC" synth -q --tracing-dir "$T/full" --instance mmuscope $BURST
	out=$("$MSC" record --tracing-dir "$T/full" -o "$T/full.db" --spool-dir "$T/tiny" 2>&1)
	check_eq "a full spool: record still exits 0" "$?" 0
	check_match "... saying how much it could not keep" "$out" \
		"warning: $T/tiny: the spool could not keep [0-9]+ pages \([0-9]+ events, marked as lost\): No space left on device"
	lost=$(sqlite3 "$T/full.db" "select coalesce(sum(count), 0) from lost_events where source = 'spool'")
	check_eq "... the loss is marked in the stream" "$(( lost > 0 ))" 1
	stored=$("$MSC" dump "$T/full.db" | grep -v '^#' | grep -vc ' lost count=')
	check_eq "... every event of the run is stored or counted as lost" \
		"$(( stored + lost ))" "$(wc -l <"$T/burst-ref.txt")"
	check_eq "... and the history after each gap is marked" \
		"$(sqlite3 "$T/full.db" 'select lost_events > 0 from analysis')" 1
	umount "$T/tiny"
else
	ok "# SKIP a full spool: no tmpfs mount here (not root)"
fi

# a recorder killed outright leaves no spool behind
# shellcheck disable=SC2086
"$MSC" synth -q --tracing-dir "$T/kill" --instance mmuscope --fifo --trickle 20 $SYN &
kpid=$!
wait_tree "$T/kill"
"$MSC" record -q --tracing-dir "$T/kill" -o "$T/kill.db" --spool-dir "$T/spool" >/dev/null 2>&1 &
rpid=$!
sleep 1
kill -9 $rpid
wait $rpid 2>/dev/null
kill $kpid 2>/dev/null
wait $kpid 2>/dev/null
check_eq "a recorder killed with SIGKILL leaves nothing in the spool's directory" \
	"$(ls -A "$T/spool")" ""

# one writer for the writer's whole life: while a recording runs (its pages
# trickle in; between its commits SQLite holds no lock) no import may
# replace the database or append to it, and the recording loses nothing
# shellcheck disable=SC2086
"$MSC" synth -q --tracing-dir "$T/slow" --instance mmuscope --fifo --trickle 20 $SYN &
spid=$!
wait_tree "$T/slow"
"$MSC" record -q --tracing-dir "$T/slow" -o "$T/slow.db" >"$T/slow.out" 2>&1 &
rpid=$!
i=0	# the recorder has its database
while ! { [ -s "$T/slow.db" ] && sqlite3 -readonly "$T/slow.db" 'select 1 from capture' 2>/dev/null | grep -q 1; } &&
	[ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
for mode in --force --append; do
	out=$("$MSC" import -q $mode "$T/ref.dat" -o "$T/slow.db" 2>&1)
	check_eq "import $mode onto a live recording: refused (exit 1)" "$?" 1
	check_match "... saying who has it" "$out" "slow.db: (cannot open database: )?database is locked by another process$"
done
wait $rpid
check_eq "the recording ends well" "$?" 0
wait $spid
check_eq "... with every event in its one capture, intact" \
	"$(sqlite3 "$T/slow.db" 'pragma integrity_check; select count(*), sum(complete) from capture')" "ok
1|1"
"$MSC" dump "$T/slow.db" | grep -v '^#' | sort >"$T/slow.txt"
check "... the same events as the run" cmp -s "$T/ref.sorted" "$T/slow.txt"

# faults
out=$("$MSC" record --tracing-dir "$T/tree" --instance other -o "$T/x.db" 2>&1)
check_match "an instance the tree does not have is named" "$out" "instances/other: a test tree needs the instance"
check "... and no database is left" test ! -e "$T/x.db"
out=$("$MSC" record --tracing-dir "$T/tree" --spool-dir "$T/no-such-dir" -o "$T/x.db" 2>&1)
check_eq "a spool directory that cannot hold files: exit 1" "$?" 1
check_match "... named, with why" "$out" "no-such-dir: cannot make a spool file there: No such file or directory"
check "... and no database is left" test ! -e "$T/x.db"
check_eq "--spool-dir with --no-spool: a usage error" \
	"$("$MSC" record --tracing-dir "$T/tree" --spool-dir "$T" --no-spool -o "$T/x.db" >/dev/null 2>&1; echo $?)" 2
mkdir -p "$T/nokvm/events" && cp "$T/tree/events/header_page" "$T/nokvm/events/"
out=$("$MSC" record --tracing-dir "$T/nokvm" -o "$T/y.db" 2>&1)
check_match "a kernel without kvmmmu events is named" "$out" "no kvmmmu events in this kernel"

done_testing
