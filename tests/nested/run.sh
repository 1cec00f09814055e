#!/bin/bash
# run.sh - boot one of Debian's kernels (6.12 by default, see
# fetch-kernel.sh) under QEMU TCG with an SVM+NPT vCPU, run one job inside
# (see guest-init.sh) and bring the results out.
#
# Usage: run.sh [options] [-- COMMAND [ARG...]]
#   -k RELEASE   kernel release to boot, e.g. 7.3.4+deb13-amd64 (or
#                $NESTED_KVER; default $NESTED_DIR/kernel/current, the
#                6.12 one); fetched first when it is not unpacked
#   -m MiB       guest memory (default 2048)
#   -s N         guest vCPUs, -smp (default 2)
#   -c CPU       QEMU -cpu (default EPYC,+svm,+npt)
#   -a ARGS      extra kernel command line, e.g. "msc.eager_split=0" or
#                "hugepagesz=1G hugepages=1" (may be repeated)
#   -S SCRIPT    shell script to run in the guest (copied to the share)
#   -e BINARY    extra binary for the initramfs (may be repeated)
#   -Q           QEMU as a VMM in the initramfs, with the L2 kernel and
#                initramfs (build-initramfs.sh -Q; run it with
#                /usr/bin/msc-qemu-vmm, qemu-vmm.sh)
#   -o DIR       output directory shared over 9p (default
#                $NESTED_DIR/runs/last; emptied first)
#   -t SECONDS   bound on the QEMU run (default 600)
#   COMMAND      command to run in the guest instead of a script; the
#                workload is /usr/bin/dirtylog, the capture helper
#                /usr/bin/msc-capture
# Missing pieces (kernel, initramfs) are built first. The QEMU command line
# and the host wall time go to DIR/qemu_cmd.txt, the serial console to
# DIR/console.log. Exit status: the job's, 124 on timeout, 1 otherwise.
set -euo pipefail
. "$(dirname "$0")/common.sh"

MEM=2048
SMP=2
CPU=EPYC,+svm,+npt
APPEND=""
SCRIPT=""
EXTRA=()
QEMU_VMM=""
OUTDIR=$NESTED_DIR/runs/last
TIMEOUT=600
KOPT=${NESTED_KVER:-}

usage() {
	sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
}

while getopts "k:m:s:c:a:S:e:Qo:t:h" opt; do
	case $opt in
	k) KOPT=$OPTARG ;;
	m) MEM=$OPTARG ;;
	s) SMP=$OPTARG ;;
	c) CPU=$OPTARG ;;
	a) APPEND="$APPEND $OPTARG" ;;
	S) SCRIPT=$OPTARG ;;
	e) EXTRA+=("$OPTARG") ;;
	Q) QEMU_VMM=-Q ;;
	o) OUTDIR=$OPTARG ;;
	t) TIMEOUT=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ -z "$SCRIPT" ] || [ $# = 0 ] || die "give either -S SCRIPT or a COMMAND, not both"
[ -z "$SCRIPT" ] || [ -f "$SCRIPT" ] || die "no script $SCRIPT"

need qemu-system-x86_64:qemu-system-x86 timeout:coreutils

"$NESTED_SRC/build-initramfs.sh" ${QEMU_VMM:+"$QEMU_VMM"} ${KOPT:+-k "$KOPT"} ${EXTRA[@]+"${EXTRA[@]}"}
KVER=${KOPT:-$(kernel_current)}
KERNEL=$NESTED_DIR/kernel/$KVER/vmlinuz
INITRD=$NESTED_DIR/kernel/$KVER/initramfs.cpio.gz
[ -e "$KERNEL" ] && [ -e "$INITRD" ] || die "kernel or initramfs missing"

mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
find "$OUTDIR" -mindepth 1 -delete

# quote ARG: one single-quoted word for /bin/sh
quote() {
	printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}
if [ -n "$SCRIPT" ]; then
	cp "$SCRIPT" "$OUTDIR/guest.sh"
elif [ $# -gt 0 ]; then
	{
		printf '#!/bin/sh\nexec'
		for a in "$@"; do
			printf ' %s' "$(quote "$a")"
		done
		printf '\n'
	} > "$OUTDIR/guest.sh"
fi

APPEND="console=ttyS0 loglevel=4 panic=-1 mitigations=off${APPEND}"
# One TCG thread for all vCPUs: with a thread per vCPU (QEMU 7.2's default),
# a vCPU now and then runs a stale int3 of the kernel's text patching
# (text_poke_bp() when tracing flips a static key, e.g. record-tgid's
# sched_switch probe) and the guest dies with "Oops: int3" in __schedule.
QEMU=(qemu-system-x86_64 -accel "tcg,thread=${MSC_TCG_THREAD:-single}" -cpu "$CPU" -m "$MEM" -smp "$SMP"
	-kernel "$KERNEL" -initrd "$INITRD" -append "$APPEND"
	-display none -serial stdio -monitor none -no-reboot
	-virtfs "local,path=$OUTDIR,mount_tag=out,security_model=none,id=out")
{
	if [ -s "$NESTED_DIR/kernel/$KVER/packages" ] &&
	   ! grep -q '^linux-image-' "$NESTED_DIR/kernel/$KVER/packages"; then
		echo "kernel: $(awk '{ print $1 }' "$NESTED_DIR/kernel/$KVER/packages" | tr '\n' ' ')(Debian)"
	else
		echo "kernel: linux-image-$KVER-unsigned (Debian)"
	fi
	printf '%q ' timeout -k 10 "$TIMEOUT" "${QEMU[@]}"
	echo
} > "$OUTDIR/qemu_cmd.txt"

msg "booting $KVER: -cpu $CPU -m $MEM -smp $SMP, output in $OUTDIR"
T0=$(date +%s.%N)
set +e
timeout -k 10 "$TIMEOUT" "${QEMU[@]}" < /dev/null 2>&1 | tee "$OUTDIR/console.log"
QRC=${PIPESTATUS[0]}
set -e
T1=$(date +%s.%N)
WALL=$(awk -v a="$T0" -v b="$T1" 'BEGIN { printf "%.1f", b - a }')
echo "host wall time: ${WALL}s (qemu exit status $QRC)" | tee -a "$OUTDIR/qemu_cmd.txt"

if [ "$QRC" = 124 ] || [ "$QRC" = 137 ]; then
	msg "QEMU timed out after ${TIMEOUT}s"
	exit 124
fi
RC=$(cat "$OUTDIR/rc" 2>/dev/null || echo missing)
case $RC in
0) exit 0 ;;
[0-9]*) msg "guest job failed with status $RC"; exit "$RC" ;;
*) msg "guest job did not complete (rc: $RC)"; exit 1 ;;
esac
