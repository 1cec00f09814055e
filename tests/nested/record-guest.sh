#!/bin/sh
# record-guest.sh - the guest half of `make check-kernel`: `mmuscope record`
# records the dirtylog workload on the guest's real KVM (SVM + NPT under
# QEMU, VMX + EPT under Bochs; TDP MMU), then the database comes out over
# the share (under Bochs: the results disk).
#
# Run by guest-init.sh (run.sh -S, bochs.sh -S) in the share directory $OUT,
# with /usr/bin/mmuscope added to the initramfs (-e build/mmuscope).
# DIRTYLOG_ARGS (check-kernel.sh prepends it) default to "-m 32 -i 2".
# Leaves in $OUT: vm.db, record.out (record's output), harness.log (the
# workload's stdout), record.rc, after.txt (instances and kprobe events
# left after record exited: both must be empty of ours).
#
# With RECORD_PID=1 (check-kernel.sh --pid prepends it) record follows one
# VM with --pid while a second VM (16 MiB, no markers) runs beside it: the
# recorded VM waits on a FIFO so that its pid is known before it starts,
# and threads it creates later (the vCPUs) must be followed.  other.log
# and other.rc are the second VM's.
#
# With RECORD_PROCS=2 (check-kernel.sh --procs prepends it) two dirtylog
# processes ($PROCS_ARGS each, default "-m 16 -i 2") create their VMs and
# vCPUs and wait (-W, one FIFO each) before record starts; record (no
# --pid) then finds two VMs that predate it.  Once record traces, the first
# is let go, the second once the first's populate has ended.  Leaves
# harness-1.log, harness-2.log, procs.txt ("<k> <pid>" per process) and
# record.rc "dirtylog-1=R dirtylog-2=R record=R" instead of harness.log.
#
# RECORD_OPTS (check-kernel.sh --light prepends "--light --kvm-stats=stats-fd") are added to
# record's options.
#
# POSIX sh: it runs under busybox.  The database is written to /tmp (tmpfs)
# and copied out afterwards: SQLite's WAL needs shared memory maps that a
# 9p share does not give.
set -u
OUT=${OUT:-$PWD}
I=/sys/kernel/tracing/instances/mmuscope
DB=/tmp/vm.db
DIRTYLOG_ARGS=${DIRTYLOG_ARGS:--m 32 -i 2}

# wait_log FILE PATTERN [PID]: until FILE has a line matching PATTERN, or
# PID is gone; false when it never came
wait_log() {
	n=0
	while ! grep -q "$2" "$1" 2>/dev/null && [ $n -lt 3000 ]; do
		[ -z "${3:-}" ] || kill -0 "$3" 2>/dev/null || break
		sleep 0.1
		n=$((n + 1))
	done
	grep -q "$2" "$1" 2>/dev/null
}

PID_OPT=""
if [ "${RECORD_PROCS:-0}" = 2 ]; then
	PROCS_ARGS=${PROCS_ARGS:--m 16 -i 2}
	: > "$OUT"/procs.txt
	for k in 1 2; do
		mkfifo /tmp/go-$k
		# shellcheck disable=SC2086
		dirtylog $PROCS_ARGS -W /tmp/go-$k -M $I/trace_marker \
			> "$OUT"/harness-$k.log 2>&1 &
		echo "$k $!" >> "$OUT"/procs.txt
	done
	p1=$(sed -n 's/^1 //p' "$OUT"/procs.txt)
	p2=$(sed -n 's/^2 //p' "$OUT"/procs.txt)
	# both VMs and their vCPUs exist before record starts
	wait_log "$OUT"/harness-1.log '^dirtylog: waiting' "$p1" &&
		wait_log "$OUT"/harness-2.log '^dirtylog: waiting' "$p2" ||
		echo "record-guest: a dirtylog did not reach its FIFO" >&2
fi
if [ "${RECORD_PID:-0}" = 1 ]; then
	mkfifo /tmp/go
	# shellcheck disable=SC2086,SC2016
	sh -c 'read -r go < /tmp/go; exec dirtylog "$@"' dirtylog $DIRTYLOG_ARGS \
		-M $I/trace_marker > "$OUT"/harness.log 2>&1 &
	vm=$!
	PID_OPT="--pid $vm"
fi
# shellcheck disable=SC2086
mmuscope record -o $DB --stats-ms 5 --buffer-kb 32768 $PID_OPT ${RECORD_OPTS:-} \
	> "$OUT"/record.out 2>&1 &
rec=$!
# recording has begun once record says how to stop it (kprobe registration
# alone takes seconds under TCG; the instance exists long before)
wait_log "$OUT"/record.out 'Ctrl-C stops' $rec
if [ "${RECORD_PROCS:-0}" = 2 ]; then
	# a writer's open() blocks until the reader's: only a live dirtylog,
	# one that reached its FIFO, is written to
	kill -0 "$p1" 2>/dev/null && echo go > /tmp/go-1
	# the second once the first has populated its slot
	wait_log "$OUT"/harness-1.log 'phase=populate end' "$p1"
	kill -0 "$p2" 2>/dev/null && echo go > /tmp/go-2
	wait "$p1"
	w1=$?
	wait "$p2"
	w2=$?
	wrc=$((w1 | w2))
elif [ -n "$PID_OPT" ]; then
	dirtylog -m 16 -i 1 -n > "$OUT"/other.log 2>&1 &
	other=$!
	echo go > /tmp/go
	wait $vm
	wrc=$?
	wait $other
	echo $? > "$OUT"/other.rc
else
	# shellcheck disable=SC2086
	dirtylog $DIRTYLOG_ARGS -M $I/trace_marker > "$OUT"/harness.log 2>&1
	wrc=$?
fi
sleep 0.5	# let the sampler see the VM gone
kill -INT $rec
wait $rec
rrc=$?
if [ "${RECORD_PROCS:-0}" = 2 ]; then
	echo "dirtylog-1=$w1 dirtylog-2=$w2 record=$rrc" > "$OUT"/record.rc
else
	echo "dirtylog=$wrc record=$rrc" > "$OUT"/record.rc
fi
{
	echo "instances: $(ls /sys/kernel/tracing/instances | tr '\n' ' ')"
	echo "kprobe_events: $(grep -c . /sys/kernel/tracing/kprobe_events 2>/dev/null)"
} > "$OUT"/after.txt
cat "$OUT"/record.out
cp $DB "$OUT"/vm.db 2>/dev/null
[ -e $DB-wal ] && cp $DB-wal "$OUT"/vm.db-wal
[ "$wrc" = 0 ] && [ "$rrc" = 0 ]
