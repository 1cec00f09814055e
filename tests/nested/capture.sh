#!/bin/sh
# capture.sh - record a kvmmmu trace of the dirtylog workload in the nested
# 6.12 guest and store it as test data.
#
# Host:   capture.sh [-m MiB] [-s N] [-a KERNEL_ARGS] [-b KB] [-t SECONDS]
#                    [-d DIR] [-K] [-e EVENT]... NAME [DIRTYLOG_ARGS...]
#   -m, -s, -a, -t   as run.sh (guest memory, vCPUs, kernel command line,
#                    time bound); -a may be repeated
#   -b KB            per-CPU trace buffer (default 65536)
#   -d DIR           where NAME/ is written (default tests/data/traces)
#   -K               no kprobes (a kernel whose tracepoints replace them)
#   -e EVENT         also record SYSTEM/EVENT, which must exist in the
#                    guest (may be repeated; kernel/test/capture.sh passes
#                    the companion patch's events)
#   Boots the guest with run.sh (share: $NESTED_DIR/runs/NAME) and writes
#   DIR/NAME/: trace.dat, harness.log (workload stdout), uname,
#   qemu_cmd.txt, kvm_params.txt, kprobes.txt (which kprobes exist, or
#   which required events replace them), modules.txt (the kvm modules the
#   guest loaded), record.log (trace-cmd's output) and formats/ (the event
#   formats).
#
# Guest:  msc-capture --guest [-K] [-e EVENT]... BUF_KB [DIRTYLOG_ARGS...]
#   (this same file, installed by build-initramfs.sh) registers the kprobes
#   of group "lab" that exist in /proc/kallsyms, runs dirtylog under
#   trace-cmd record and leaves the files in $OUT (the 9p share).
#
# POSIX sh: the guest half runs under busybox.
set -eu

# TLB flush and dirty-log functions of 6.12 (no tracepoints exist for them)
KPROBES="kvm_flush_remote_tlbs kvm_flush_remote_tlbs_range
kvm_flush_remote_tlbs_memslot kvm_mmu_slot_try_split_huge_pages
kvm_mmu_try_split_huge_pages kvm_mmu_slot_remove_write_access
kvm_mmu_zap_collapsible_sptes kvm_tdp_mmu_zap_collapsible_sptes
kvm_arch_mmu_enable_log_dirty_pt_masked kvm_mmu_slot_leaf_clear_dirty
kvm_mmu_slot_apply_flags"

guest() {
	kprobes=$KPROBES
	events=""
	while [ $# -gt 0 ]; do
		case $1 in
		-K) kprobes="" ;;
		-e) events="$events $2"; shift ;;
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
	{
		for m in kvm kvm_amd; do
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

	# The workload's stdout goes to harness.log, trace-cmd's to record.log.
	# shellcheck disable=SC2086
	trace-cmd record -b "$buf_kb" -e kvmmmu -e kvm:kvm_page_fault \
		-e kvm:kvm_userspace_exit $extra $lab -o $work/trace.dat \
		sh -c 'dirtylog "$@" > '$work'/harness.log; echo $? > '$work'/rc' \
		dirtylog "$@" > $work/record.log 2>&1 || true
	cat $work/harness.log $work/record.log
	cp $work/harness.log $work/record.log "$out"/

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

MEM=2048
SMP=2
BUF_KB=65536
TIMEOUT=900
DEST=$TOP/tests/data/traces
APPEND=""
GUEST_OPTS=""
while getopts "m:s:a:b:t:d:Ke:h" opt; do
	case $opt in
	m) MEM=$OPTARG ;;
	s) SMP=$OPTARG ;;
	a) APPEND="$APPEND $OPTARG" ;;
	b) BUF_KB=$OPTARG ;;
	t) TIMEOUT=$OPTARG ;;
	d) DEST=$OPTARG ;;
	K) GUEST_OPTS="$GUEST_OPTS -K" ;;
	e) GUEST_OPTS="$GUEST_OPTS -e $OPTARG" ;;
	*) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { echo "capture.sh: missing NAME (try -h)" >&2; exit 2; }
NAME=$1
shift
RUN=$NESTED_DIR/runs/$NAME

set -- -m "$MEM" -s "$SMP" -t "$TIMEOUT" -o "$RUN" \
	${APPEND:+-a "$APPEND"} -- msc-capture --guest $GUEST_OPTS "$BUF_KB" "$@"
"$TOP/tests/nested/run.sh" "$@"

D=$DEST/$NAME
rm -rf "$D"
mkdir -p "$D"
for f in trace.dat harness.log uname qemu_cmd.txt kvm_params.txt kprobes.txt modules.txt \
	record.log; do
	[ -e "$RUN/$f" ] || { echo "capture.sh: $RUN/$f missing" >&2; exit 1; }
	cp "$RUN/$f" "$D/"
done
cp -r "$RUN/formats" "$D/"
chmod 0600 "$D/trace.dat"

echo "== $D"
ls -l "$D"
grep 'KVM stats after' "$D/harness.log" | sed 's/^mmuscope-dirtylog: /  /'
begins=$(grep -c '^mmuscope-dirtylog: phase=[a-z0-9_]* begin$' "$D/harness.log" || true)
ends=$(grep -c '^mmuscope-dirtylog: phase=[a-z0-9_]* end$' "$D/harness.log" || true)
stats=$(grep -c '^mmuscope-dirtylog: KVM stats after ' "$D/harness.log" || true)
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
