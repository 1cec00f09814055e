# guest-capture.sh - guest half of kernel/test/capture.sh (POSIX sh, busybox).
# capture.sh prepends "set -- BUF_KB DIRTYLOG_ARGS..." and runs the result
# as the job of tests/nested/run.sh, in the 9p share ($OUT).
#
# Checks that the loaded kvm module is the patched one (its new events
# exist), records the dirtylog workload with trace-cmd (kvmmmu, the new
# kvm:kvm_flush_remote_tlbs, kvm_page_fault, kvm_userspace_exit) and leaves
# the same files as tests/nested/capture.sh: trace.dat, harness.log,
# record.log, kprobes.txt (no kprobes: the tracepoints replace them),
# formats/, plus modules.txt (what the guest loaded).
set -eu
buf_kb=$1
shift
out=${OUT:-$PWD}
t=/sys/kernel/tracing
work=/tmp/capture
mkdir -p $work

NEW="kvm/kvm_flush_remote_tlbs kvmmmu/kvm_mmu_slot_dirty_logging_begin
kvmmmu/kvm_mmu_slot_dirty_logging_end kvmmmu/kvm_mmu_split_huge_pages
kvmmmu/kvm_mmu_zap_collapsible_sptes"
: > "$out"/kprobes.txt
for e in $NEW; do
	if [ -e $t/events/$e/format ]; then
		echo "$e tracepoint (no kprobe needed)" >> "$out"/kprobes.txt
	else
		echo "$e missing: the loaded kvm module is not the patched one" >&2
		exit 1
	fi
done
{
	for m in kvm kvm_amd; do
		echo "$m srcversion=$(cat /sys/module/$m/srcversion 2>/dev/null)" \
		     "taint=$(cat /sys/module/$m/taint 2>/dev/null)"
	done
	grep -E '^kvm' /proc/modules
} > "$out"/modules.txt
cat "$out"/kprobes.txt "$out"/modules.txt

trace-cmd record -b "$buf_kb" -e kvmmmu -e kvm:kvm_page_fault \
	-e kvm:kvm_userspace_exit -e kvm:kvm_flush_remote_tlbs \
	-o $work/trace.dat \
	sh -c 'dirtylog "$@" > '$work'/harness.log; echo $? > '$work'/rc' \
	dirtylog "$@" > $work/record.log 2>&1 || true
cat $work/harness.log $work/record.log
cp $work/harness.log $work/record.log "$out"/

mkdir -p "$out"/formats
cp $t/events/header_page $t/events/header_event "$out"/formats/
for f in $t/events/kvmmmu/*/format $t/events/kvm/kvm_page_fault/format \
	 $t/events/kvm/kvm_userspace_exit/format \
	 $t/events/kvm/kvm_flush_remote_tlbs/format \
	 $t/events/ftrace/print/format; do
	e=${f%/format}
	d=$out/formats/$(basename "$(dirname "$e")")/$(basename "$e")
	mkdir -p "$d"
	cp "$f" "$d/format"
done
rc=$(cat $work/rc 2>/dev/null || echo 1)
[ -s $work/trace.dat ] || { echo "guest-capture: no trace.dat" >&2; exit 1; }
cp $work/trace.dat "$out"/trace.dat
exit "$rc"
