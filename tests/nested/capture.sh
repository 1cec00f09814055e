#!/bin/sh
# capture.sh - record a kvmmmu trace of the dirtylog workload in the nested
# guest (Debian 6.12 by default, any release fetch-kernel.sh unpacked with
# -k) and store it as test data.
#
# Host:   capture.sh [-E] [-k RELEASE] [-m MiB] [-s N] [-a KERNEL_ARGS]
#                    [-b KB] [-t SECONDS] [-d DIR] [-K] [-e EVENT]...
#                    [-x PROGRAM | -Q] [-I] NAME
#                    [DIRTYLOG_ARGS... | PROGRAM_ARGS... | QEMU_VMM_ARGS...]
#   -E               Intel EPT: boot under Bochs (bochs.sh, VMX + EPT, EPT
#                    A/D, PML; one CPU, default 1024 MiB, bound 1800 s)
#                    instead of QEMU's SVM + NPT; -a msc.pml=0,
#                    msc.eptad=0, msc.vmx=a=1,b=2 set kvm_intel parameters;
#                    a 7.x kernel needs -a clearcpuid=avx512f. NAME/ gets
#                    bochs_cmd.txt, bochsrc and kernel_cmdline.txt instead
#                    of qemu_cmd.txt
#   -k, -m, -s, -a, -t  as run.sh (kernel release, guest memory, vCPUs,
#                    kernel command line, time bound); -a may be repeated
#   -b KB            per-CPU trace buffer (default 65536)
#   -d DIR           where NAME/ is written (default tests/data/traces)
#   -K               no kprobes (a kernel whose tracepoints replace them)
#   -e EVENT         also record SYSTEM/EVENT, which must exist in the
#                    guest (may be repeated; kernel/test/capture.sh passes
#                    the companion patch's events)
#   -x PROGRAM       run PROGRAM with the arguments after NAME instead of
#                    dirtylog: a static binary (path on the host), put into
#                    the initramfs as /usr/bin/<basename> (run.sh -e) and
#                    started by that absolute path; its stdout and stderr go
#                    to selftest.log instead of harness.log, its command
#                    line to command.txt. A bare name that is not a file,
#                    e.g. dirty_log_perf_test, is taken from
#                    build-selftests.sh's cache of the release (built when
#                    missing)
#   -Q               QEMU is the VMM: the initramfs gets QEMU, its firmware,
#                    an L2 kernel and initramfs (run.sh -Q), and the job is
#                    /usr/bin/msc-qemu-vmm (qemu-vmm.sh) with the arguments
#                    after NAME: an L2 guest booted with -enable-kvm and
#                    migrated to "exec:cat > /dev/null" from the monitor.
#                    Implies -I; its output goes to selftest.log as with
#                    -x, L2's console and the HMP session to
#                    l2-console.log and monitor.log
#   -I               also record the KVM ioctls: syscalls:sys_enter_ioctl
#                    filtered on cmd to KVM_CREATE_VM, KVM_CREATE_VCPU,
#                    KVM_ENABLE_CAP,
#                    KVM_SET_USER_MEMORY_REGION(2), KVM_GET_DIRTY_LOG,
#                    KVM_CLEAR_DIRTY_LOG, KVM_RESET_DIRTY_RINGS and
#                    KVM_RUN (numbers from the
#                    release's headers: kvm_ioctls.txt of build-selftests.sh,
#                    copied to DIR/NAME/), and syscalls:sys_exit_ioctl
#                    unfiltered (it has no cmd; pair it with the enter of
#                    the same thread)
#   Boots the guest with run.sh (share: $NESTED_DIR/runs/NAME) and writes
#   DIR/NAME/: trace.dat, harness.log (workload stdout; selftest.log and
#   command.txt with -x, kvm_ioctls.txt with -I), uname,
#   qemu_cmd.txt, kvm_params.txt, kprobes.txt (which kprobes exist, or
#   which required events replace them), modules.txt (the kvm modules the
#   guest loaded), record.log (trace-cmd's output) and formats/ (the event
#   formats).
#
# Guest:  msc-capture --guest [-K] [-e EVENT]... [-x /PATH/PROGRAM]
#                    [-i IOCTL_FILTER] BUF_KB [ARGS...]
#   (this same file, installed by build-initramfs.sh) registers the kprobes
#   of group "lab" that exist in /proc/kallsyms, runs dirtylog (or PROGRAM)
#   under trace-cmd record, with sys_enter_ioctl (filter IOCTL_FILTER) and
#   sys_exit_ioctl when -i is given, and leaves the files in $OUT (the 9p
#   share).
#
# POSIX sh: the guest half runs under busybox.
set -eu

# TLB flush and dirty-log functions of 6.12 (no tracepoints exist for them),
# then the in-place huge page recovery of 6.13+ that replaced the zap of
# collapsible SPTEs; those missing from kallsyms are skipped
KPROBES="kvm_flush_remote_tlbs kvm_flush_remote_tlbs_range
kvm_flush_remote_tlbs_memslot kvm_mmu_slot_try_split_huge_pages
kvm_mmu_try_split_huge_pages kvm_mmu_slot_remove_write_access
kvm_mmu_zap_collapsible_sptes kvm_tdp_mmu_zap_collapsible_sptes
kvm_arch_mmu_enable_log_dirty_pt_masked kvm_mmu_slot_leaf_clear_dirty
kvm_mmu_slot_apply_flags kvm_mmu_recover_huge_pages
kvm_tdp_mmu_recover_huge_pages"

guest() {
	kprobes=$KPROBES
	events=""
	prog=""
	ioctls=""
	while [ $# -gt 0 ]; do
		case $1 in
		-K) kprobes="" ;;
		-e) events="$events $2"; shift ;;
		-x) prog=$2; shift ;;
		-i) ioctls=$2; shift ;;
		*) break ;;
		esac
		shift
	done
	buf_kb=$1
	shift
	out=${OUT:-$PWD}
	t=/sys/kernel/tracing
	work=/tmp/capture
	lab=""
	extra=""
	found=""

	mkdir -p $work
	: > "$out"/kprobes.txt
	for e in $events; do
		if [ ! -e $t/events/$e/format ]; then
			echo "msc-capture: $e: no such event in this kernel" \
			     "(is the patched kvm module loaded?)" >&2
			return 1
		fi
		echo "$e tracepoint (no kprobe needed)" >> "$out"/kprobes.txt
		extra="$extra -e ${e%%/*}:${e#*/}"
	done
	if [ -n "$ioctls" ]; then
		for e in syscalls/sys_enter_ioctl syscalls/sys_exit_ioctl; do
			[ -e $t/events/$e/format ] || {
				echo "msc-capture: $e: no such event (CONFIG_FTRACE_SYSCALLS?)" >&2
				return 1
			}
		done
		echo "syscalls/sys_enter_ioctl tracepoint, filter: $ioctls" >> "$out"/kprobes.txt
		echo "syscalls/sys_exit_ioctl tracepoint, no filter" >> "$out"/kprobes.txt
		events="$events syscalls/sys_enter_ioctl syscalls/sys_exit_ioctl"
	fi
	if [ -n "$prog" ] && [ ! -x "$prog" ]; then
		echo "msc-capture: $prog: no such program in the initramfs" >&2
		return 1
	fi
	{
		for m in kvm kvm_amd kvm_intel; do
			[ -d /sys/module/$m ] || continue
			echo "$m srcversion=$(cat /sys/module/$m/srcversion 2>/dev/null)" \
			     "taint=$(cat /sys/module/$m/taint 2>/dev/null)"
		done
		grep -E '^kvm' /proc/modules || true
	} > "$out"/modules.txt
	# one pass over kallsyms: it is big and slow to read under TCG
	[ -z "$kprobes" ] || found=$(awk -v list="$kprobes" '
		BEGIN { n = split(list, a); for (i = 1; i <= n; i++) want[a[i]] = 1 }
		$3 in want { print $3 }' /proc/kallsyms | sort -u | tr '\n' ' ')
	for f in $kprobes; do
		case " $found " in
		*" $f "*) ;;
		*)
			echo "$f missing" >> "$out"/kprobes.txt
			continue
			;;
		esac
		if echo "p:lab/$f $f" >> $t/kprobe_events 2>/dev/null; then
			echo "$f registered" >> "$out"/kprobes.txt
			lab="-e lab"
		else
			echo "$f failed" >> "$out"/kprobes.txt
		fi
	done
	cat "$out"/kprobes.txt "$out"/modules.txt

	# The workload's stdout goes to harness.log (a -x program's stdout and
	# stderr to selftest.log), trace-cmd's to record.log.
	if [ -n "$prog" ]; then
		log=selftest.log
		set -- sh -c '"$0" "$@" > '$work'/selftest.log 2>&1; echo $? > '$work'/rc' \
			"$prog" "$@"
	else
		log=harness.log
		set -- sh -c 'dirtylog "$@" > '$work'/harness.log; echo $? > '$work'/rc' \
			dirtylog "$@"
	fi
	# -f filters the event named just before it
	[ -z "$ioctls" ] || set -- -e syscalls:sys_enter_ioctl -f "$ioctls" \
		-e syscalls:sys_exit_ioctl "$@"
	# shellcheck disable=SC2086
	trace-cmd record -b "$buf_kb" -e kvmmmu -e kvm:kvm_page_fault \
		-e kvm:kvm_userspace_exit $extra $lab -o $work/trace.dat \
		"$@" > $work/record.log 2>&1 || true
	cat $work/$log $work/record.log
	cp $work/$log $work/record.log "$out"/

	# the format files, to compare kernels without opening trace.dat
	mkdir -p "$out"/formats
	cp $t/events/header_page $t/events/header_event "$out"/formats/
	for f in $t/events/kvmmmu/*/format $t/events/lab/*/format \
		 $(for e in $events; do echo $t/events/$e/format; done) \
		 $t/events/kvm/kvm_page_fault/format \
		 $t/events/kvm/kvm_userspace_exit/format \
		 $t/events/ftrace/print/format; do
		[ -e "$f" ] || continue
		e=${f%/format}
		d=$out/formats/$(basename "$(dirname "$e")")/$(basename "$e")
		mkdir -p "$d"
		cp "$f" "$d/format"
	done
	rc=$(cat $work/rc 2>/dev/null || echo 1)
	[ -s $work/trace.dat ] || { echo "msc-capture: no trace.dat" >&2; return 1; }
	cp $work/trace.dat "$out"/trace.dat
	return "$rc"
}

if [ "${1:-}" = --guest ]; then
	shift
	guest "$@"
	exit
fi

# ---------------------------------------------------------------- host ---
TOP=$(cd "$(dirname "$0")/../.." && pwd)
NESTED_DIR=${NESTED_DIR:-build/nested}
case $NESTED_DIR in
/*) ;;
*) NESTED_DIR=$TOP/$NESTED_DIR ;;
esac
export NESTED_DIR

MEM=""
SMP=2
BUF_KB=65536
PROG=""
VMM=0
IOCTLS=0
TIMEOUT=""
EPT=0
DEST=$TOP/tests/data/traces
APPEND=""
GUEST_OPTS=""
KVER=${NESTED_KVER:-}
while getopts "Ek:m:s:a:b:t:d:Ke:x:QIh" opt; do
	case $opt in
	E) EPT=1 ;;
	k) KVER=$OPTARG ;;
	m) MEM=$OPTARG ;;
	s) SMP=$OPTARG ;;
	a) APPEND="$APPEND $OPTARG" ;;
	b) BUF_KB=$OPTARG ;;
	t) TIMEOUT=$OPTARG ;;
	d) DEST=$OPTARG ;;
	K) GUEST_OPTS="$GUEST_OPTS -K" ;;
	e) GUEST_OPTS="$GUEST_OPTS -e $OPTARG" ;;
	x) PROG=$OPTARG ;;
	Q) VMM=1; IOCTLS=1 ;;
	I) IOCTLS=1 ;;
	*) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { echo "capture.sh: missing NAME (try -h)" >&2; exit 2; }
NAME=$1
shift
RUN=$NESTED_DIR/runs/$NAME
[ -n "$TIMEOUT" ] || { [ "$EPT" = 1 ] && TIMEOUT=1800 || TIMEOUT=900; }

# the release: for the selftests' cache and the ioctl numbers
rel() {
	if [ -n "$KVER" ]; then
		"$TOP/tests/nested/fetch-kernel.sh" "$KVER"
	else
		cat "$NESTED_DIR/kernel/current" 2>/dev/null ||
			"$TOP/tests/nested/fetch-kernel.sh"
	fi
}
SELFTESTS=""
selftests() {
	[ -n "$SELFTESTS" ] ||
		SELFTESTS=$("$TOP/tests/nested/build-selftests.sh" -k "$(rel)") || exit 1
}
RUN_OPTS=""
IOCTL_FILTER=""
if [ -n "$PROG" ]; then
	if [ ! -f "$PROG" ]; then
		case $PROG in
		*/*) echo "capture.sh: no program $PROG" >&2; exit 2 ;;
		esac
		selftests
		PROG=$SELFTESTS/$PROG
		[ -f "$PROG" ] || { echo "capture.sh: no $PROG" >&2; exit 2; }
	fi
	PROG=$(cd "$(dirname "$PROG")" && pwd)/$(basename "$PROG")
	RUN_OPTS="-e $PROG"
	GUEST_OPTS="$GUEST_OPTS -x /usr/bin/$(basename "$PROG")"
fi
if [ "$VMM" = 1 ]; then
	[ -z "$PROG" ] || { echo "capture.sh: -Q and -x exclude each other" >&2; exit 2; }
	[ "$EPT" = 0 ] || { echo "capture.sh: -Q runs under QEMU only" >&2; exit 2; }
	RUN_OPTS="-Q"
	GUEST_OPTS="$GUEST_OPTS -x /usr/bin/msc-qemu-vmm"
fi
if [ "$IOCTLS" = 1 ]; then
	selftests
	# a request with bit 31 set also as an int passes it, sign-extended
	# (QEMU's): msc_kvm_ioctl_filter() in lib/event.c
	IOCTL_FILTER=$(awk '{ printf "%s%s", (NR > 1 ? " || " : ""), "cmd == " $2
		if (length($2) == 10 && index("89abcdef", substr($2, 3, 1)))
			printf " || cmd == 0xffffffff%s", substr($2, 3) }' \
		"$SELFTESTS/kvm_ioctls.txt")
	[ -n "$IOCTL_FILTER" ] || { echo "capture.sh: no $SELFTESTS/kvm_ioctls.txt" >&2; exit 1; }
fi

# the -x program's command line, for command.txt
PROG_CMD=""
[ -z "$PROG" ] || PROG_CMD="/usr/bin/$(basename "$PROG")${*:+ $*}"
[ "$VMM" = 0 ] || PROG_CMD="/usr/bin/msc-qemu-vmm${*:+ $*}"
# shellcheck disable=SC2086
set -- ${KVER:+-k "$KVER"} -t "$TIMEOUT" -o "$RUN" \
	${APPEND:+-a "$APPEND"} $RUN_OPTS -- msc-capture --guest $GUEST_OPTS \
	${IOCTL_FILTER:+-i "$IOCTL_FILTER"} "$BUF_KB" "$@"
if [ "$EPT" = 1 ]; then
	"$TOP/tests/nested/bochs.sh" -m "${MEM:-1024}" "$@"
	HOST_FILES="bochs_cmd.txt bochsrc kernel_cmdline.txt"
else
	"$TOP/tests/nested/run.sh" -m "${MEM:-2048}" -s "$SMP" "$@"
	HOST_FILES=qemu_cmd.txt
fi

D=$DEST/$NAME
rm -rf "$D"
mkdir -p "$D"
LOG=harness.log
[ -z "$PROG_CMD" ] || LOG=selftest.log
for f in trace.dat $LOG uname $HOST_FILES kvm_params.txt kprobes.txt modules.txt \
	record.log; do
	[ -e "$RUN/$f" ] || { echo "capture.sh: $RUN/$f missing" >&2; exit 1; }
	cp "$RUN/$f" "$D/"
done
cp -r "$RUN/formats" "$D/"
if [ "$VMM" = 1 ]; then
	for f in l2-console.log monitor.log; do
		[ ! -e "$RUN/$f" ] || cp "$RUN/$f" "$D/"
	done
fi
[ -z "$IOCTL_FILTER" ] || cp "$SELFTESTS/kvm_ioctls.txt" "$D/"
[ -z "$PROG_CMD" ] || echo "$PROG_CMD" > "$D/command.txt"
chmod 0600 "$D/trace.dat"

echo "== $D"
ls -l "$D"
if [ -n "$PROG_CMD" ]; then
	cat "$D/selftest.log"
	if command -v trace-cmd >/dev/null 2>&1; then
		trace-cmd report -i "$D/trace.dat" > "$RUN/report.txt" 2>/dev/null
		echo "events: $(wc -l < "$RUN/report.txt"), dropped-event notes:" \
		     "$(grep -c 'EVENTS DROPPED' "$RUN/report.txt" || true)," \
		     "trace.dat $(du -h "$D/trace.dat" | cut -f1)"
		trace-cmd report --stat -i "$D/trace.dat" 2>/dev/null |
			awk '/^CPU: / { c = $2 } /^(overrun|dropped events):/ {
				printf "  cpu %s %s\n", c, $0 }'
		awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[a-z_0-9]+:$/ && $i !~ /^\[/) {
			n[$i]++; break } } END { for (e in n) printf "  %8d %s\n", n[e], e }' \
			"$RUN/report.txt" | sort -k2
	fi
	exit 0
fi
grep 'KVM stats after' "$D/harness.log" | sed 's/^mmuscope-dirtylog: /  /'
begins=$(grep -c '^mmuscope-dirtylog: \(vm=[0-9]* \)\{0,1\}phase=[a-z0-9_]* begin$' "$D/harness.log" || true)
ends=$(grep -c '^mmuscope-dirtylog: \(vm=[0-9]* \)\{0,1\}phase=[a-z0-9_]* end$' "$D/harness.log" || true)
stats=$(grep -c '^mmuscope-dirtylog: \(vm=[0-9]* \)\{0,1\}KVM stats after ' "$D/harness.log" || true)
echo "phases: $begins begin, $ends end, $stats stats lines; trace.dat $(du -h "$D/trace.dat" | cut -f1)"
[ "$begins" = "$ends" ] && [ "$begins" -gt 0 ] ||
	{ echo "capture.sh: unbalanced or missing phase markers" >&2; exit 1; }
if command -v trace-cmd >/dev/null 2>&1; then
	trace-cmd report -i "$D/trace.dat" > "$RUN/report.txt" 2>/dev/null
	echo "events: $(wc -l < "$RUN/report.txt"), marker lines in trace:" \
	     "$(grep -c 'tracing_mark_write: mmuscope-dirtylog:' "$RUN/report.txt" || true)," \
	     "dropped-event notes: $(grep -c 'EVENTS DROPPED' "$RUN/report.txt" || true)"
	echo "== trace-cmd report -i $D/trace.dat | tail -n 3"
	tail -n 3 "$RUN/report.txt"
fi
