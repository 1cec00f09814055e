#!/bin/sh
# qemu-vmm.sh - QEMU as the VMM inside the nested (L1) guest: boots an L2
# Linux guest with -enable-kvm on L1's KVM, lets it dirty its memory, then
# migrates it from the HMP monitor to "exec:cat > /dev/null" (KVM dirty
# logging enabled, harvested with KVM_GET_DIRTY_LOG / KVM_CLEAR_DIRTY_LOG
# each iteration), resumes it (QEMU 7.2 defers the end of dirty logging
# until the VM runs again) and quits.
#
# Installed by build-initramfs.sh -Q as /usr/bin/msc-qemu-vmm with QEMU,
# its libraries and firmware, the L2 kernel (/usr/share/msc-l2/vmlinuz,
# the L1 kernel's own) and the L2 initramfs (/usr/share/msc-l2/
# initramfs.cpio.gz, /init = l2-init.sh); capture.sh -Q runs it under
# trace-cmd record.
#
# Usage: msc-qemu-vmm [-m MiB] [-s N] [-c CPU] [-M MACHINE] [-a ARGS]
#                     [-w SECONDS] [-t SECONDS] [-n]
#   -m MiB      L2 memory (default 256)
#   -s N        L2 vCPUs (default 1)
#   -c CPU      -cpu of L2 (default host)
#   -M MACHINE  -machine (default pc)
#   -a ARGS     more L2 kernel command line (may be repeated); the base is
#               "console=ttyS0 loglevel=4 panic=-1 pti=off nokaslr
#               mitigations=off"
#   -w SECONDS  how long L2 writes memory before the migration (default 5)
#   -t SECONDS  bound on L2's boot and on the migration (default 900)
#   -n          no "KVM stats after" markers (default: the VM is stopped
#               for a moment after boot, after the migration and after the
#               resumed run, and the VM's debugfs counters pages_4k,
#               pages_2m, pages_1g, remote_tlb_flush,
#               remote_tlb_flush_requests are written to trace_marker as
#               "mmuscope-dirtylog: KVM stats after <point>: ...")
# Leaves l2-console.log (L2's serial console) and monitor.log (the HMP
# session) in $OUT (or the current directory) and prints their tails.
#
# POSIX sh: it runs under busybox.
set -u

MEM=256
SMP=1
CPU=host
MACHINE=pc
APPEND=""
WRITE_S=5
BOUND=900
STATS=1
while getopts "m:s:c:M:a:w:t:n" opt; do
	case $opt in
	m) MEM=$OPTARG ;;
	s) SMP=$OPTARG ;;
	c) CPU=$OPTARG ;;
	M) MACHINE=$OPTARG ;;
	a) APPEND="$APPEND $OPTARG" ;;
	w) WRITE_S=$OPTARG ;;
	t) BOUND=$OPTARG ;;
	n) STATS=0 ;;
	*) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
out=${OUT:-$PWD}
work=/tmp/qemu-vmm
L2=/usr/share/msc-l2
MARKER=/sys/kernel/tracing/trace_marker
rm -rf $work
mkdir -p $work

# log MSG: to stdout, and to the console so that the host sees the
# progress live (the capture's logs come out only at the end)
log() {
	echo "msc-qemu-vmm[$(cut -d' ' -f1 /proc/uptime)]: $*"
	echo "msc-qemu-vmm[$(cut -d' ' -f1 /proc/uptime)]: $*" > /dev/console 2>/dev/null
}

# wait_for FILE PATTERN SECONDS: until grep finds PATTERN in FILE; says
# every minute how far FILE got
wait_for() {
	n=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		[ $n -lt $(($3 * 2)) ] || return 1
		kill -0 "$qpid" 2>/dev/null || return 1
		sleep 0.5
		n=$((n + 1))
		[ $((n % 120)) != 0 ] ||
			log "waiting for $2: $(wc -c < "$1") bytes, last: $(tail -n 1 "$1" | tr -d '\r' | cut -c1-100)"
	done
}

hmp() {
	log "hmp: $*"
	echo "$*" >&3
}

# stats POINT: the VM's debugfs counters as a "KVM stats after POINT"
# marker (call it with the VM stopped, or the counters move meanwhile)
stats() {
	[ "$STATS" = 1 ] || return 0
	d=""
	for x in /sys/kernel/debug/kvm/"$qpid"-*; do
		[ -d "$x" ] && d=$x
	done
	[ -n "$d" ] || { log "no debugfs directory for pid $qpid"; return 0; }
	line=""
	for s in pages_4k pages_2m pages_1g remote_tlb_flush remote_tlb_flush_requests; do
		[ -r "$d/$s" ] && line="$line${line:+ }$s=$(cat "$d/$s")"
	done
	echo "mmuscope-dirtylog: KVM stats after $1: $line" > $MARKER
	log "KVM stats after $1: $line"
}

finish() {
	cp $work/l2-console.log "$out"/l2-console.log 2>/dev/null
	cp $work/monitor.log "$out"/monitor.log 2>/dev/null
	log "== l2-console.log (tail)"
	tail -n 40 $work/l2-console.log 2>/dev/null | sed 's/^/  l2| /'
	log "== monitor.log (tail)"
	tr -d '\r' < $work/monitor.log 2>/dev/null | grep -v '^ *$' | tail -n 40 | sed 's/^/  mon| /'
}

mkfifo $work/mon.in $work/mon.out
APPEND="console=ttyS0 loglevel=4 panic=-1 pti=off nokaslr mitigations=off$APPEND"
set -- qemu-system-x86_64 -enable-kvm -machine "$MACHINE" -cpu "$CPU" \
	-m "$MEM" -smp "$SMP" -nodefaults -no-user-config -display none \
	-no-reboot -kernel $L2/vmlinuz -initrd $L2/initramfs.cpio.gz \
	-append "$APPEND" -serial file:$work/l2-console.log \
	-monitor pipe:$work/mon
log "starting: $*"
"$@" > $work/qemu.log 2>&1 &
qpid=$!
# QEMU opens both FIFOs read-write, so these opens do not wait long
exec 3> $work/mon.in
cat $work/mon.out > $work/monitor.log &
catpid=$!
log "qemu pid $qpid"

rc=0
if ! wait_for $work/l2-console.log MSC-L2-READY "$BOUND"; then
	log "L2 did not come up within ${BOUND}s"
	hmp "info status"
	hmp "info registers"
	sleep 2
	rc=1
else
	log "L2 is up"
	sleep "$WRITE_S"
	if [ "$STATS" = 1 ]; then
		hmp stop
		sleep 1
		stats booted
		hmp cont
	fi
	hmp "migrate_set_parameter max-bandwidth 1G"
	hmp "migrate -d \"exec:cat > /dev/null\""
	n=0
	while :; do
		hmp "info migrate"
		sleep 2
		if grep -q 'Migration status: completed' $work/monitor.log; then
			log "migration completed"
			break
		fi
		if grep -q 'Migration status: \(failed\|cancelled\)' $work/monitor.log; then
			log "migration failed"
			rc=1
			break
		fi
		n=$((n + 2))
		if [ $n -ge "$BOUND" ] || ! kill -0 $qpid 2>/dev/null; then
			log "migration did not complete"
			hmp "info registers"
			sleep 2
			rc=1
			break
		fi
	done
	if [ $rc = 0 ]; then
		# the VM stays stopped after the migration, dirty logging still on
		stats migrated
		hmp cont
		sleep "$WRITE_S"
		hmp stop
		sleep 1
		stats resumed
		hmp "info status"
		sleep 1
	fi
fi
hmp quit
n=0
while kill -0 $qpid 2>/dev/null && [ $n -lt 30 ]; do
	sleep 1
	n=$((n + 1))
done
kill $qpid 2>/dev/null
wait $qpid
log "qemu exit status $?"
exec 3>&-
kill $catpid 2>/dev/null
cat $work/qemu.log
finish
grep -q 'MSC-L2-READY' $work/l2-console.log 2>/dev/null || rc=1
grep -q -i 'oops\|panic\|BUG:' $work/l2-console.log 2>/dev/null && {
	log "L2 console shows an oops or panic"
	rc=1
}
exit $rc
