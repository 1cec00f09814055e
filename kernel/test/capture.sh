#!/bin/bash
# capture.sh - record the dirtylog workload on the PATCHED kernel in the
# nested 6.12 guest: kvm.ko and kvm-amd.ko built from kernel/*.patch by
# build-modules.sh, loaded by the rig's /init instead of Debian's.
#
# Usage: capture.sh [-m MiB] [-s N] [-a KERNEL_ARGS]... [-b KB] [-t SECONDS]
#                   [-d DIR] NAME [DIRTYLOG_ARGS...]
#   options as tests/nested/capture.sh; writes DIR/NAME/ (default
#   tests/data/traces/NAME/) with the same files as the rig's captures:
#   trace.dat harness.log uname qemu_cmd.txt kvm_params.txt kprobes.txt
#   record.log formats/, plus modules.txt.
# The guest half is guest-capture.sh.  Exit status: the guest job's.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$TOP/kernel/test

MEM=2048
SMP=2
BUF_KB=65536
TIMEOUT=900
DEST=$TOP/tests/data/traces
APPEND=()
while getopts "m:s:a:b:t:d:h" opt; do
	case $opt in
	m) MEM=$OPTARG ;;
	s) SMP=$OPTARG ;;
	a) APPEND+=(-a "$OPTARG") ;;
	b) BUF_KB=$OPTARG ;;
	t) TIMEOUT=$OPTARG ;;
	d) DEST=$OPTARG ;;
	*) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { echo "capture.sh: missing NAME (try -h)" >&2; exit 2; }
NAME=$1
shift

read -r KREL _ < <("$HERE/build-modules.sh" -q)
KDIR=${MSC_KERNEL_DIR:-$TOP/build/kernel/$KREL}
export NESTED_DIR=$KDIR/nested
RUN=$NESTED_DIR/runs/$NAME
mkdir -p "$NESTED_DIR/runs"

# the job: guest-capture.sh with its arguments set
JOB=$NESTED_DIR/runs/$NAME.guest.sh
{
	printf 'set --'
	for a in "$BUF_KB" "$@"; do
		printf " '%s'" "$(printf '%s' "$a" | sed "s/'/'\\\\''/g")"
	done
	printf '\n'
	cat "$HERE/guest-capture.sh"
} > "$JOB"

"$TOP/tests/nested/run.sh" -m "$MEM" -s "$SMP" -t "$TIMEOUT" -o "$RUN" \
	${APPEND[@]+"${APPEND[@]}"} -S "$JOB" > "$RUN.console" 2>&1 || {
	rc=$?
	tail -n 30 "$RUN.console" >&2
	echo "capture.sh: guest run failed ($rc); console in $RUN.console" >&2
	exit $rc
}

D=$DEST/$NAME
rm -rf "$D"
mkdir -p "$D"
for f in trace.dat harness.log uname qemu_cmd.txt kvm_params.txt kprobes.txt record.log modules.txt; do
	[ -e "$RUN/$f" ] || { echo "capture.sh: $RUN/$f missing" >&2; exit 1; }
	cp "$RUN/$f" "$D/"
done
cp -r "$RUN/formats" "$D/"
chmod 0600 "$D/trace.dat"
echo "capture.sh: $D ($(du -h "$D/trace.dat" | cut -f1); $(tail -n 1 "$D/qemu_cmd.txt"))"
