#!/bin/bash
# observer.sh - the observer effect, measured: the upstream
# dirty_log_perf_test's own printed times untraced, under `mmuscope record`
# and under `mmuscope record --light`, in one boot of the nested rig
# (QEMU TCG, SVM + NPT), RUNS runs of each, interleaved
# (observer-guest.sh).  A benchmark: `make bench` runs it
# (BENCH=observer), `make check` never does.
#
# Usage: observer.sh [-k RELEASE] [-r RUNS] [-l LIGHT_OPT] [-o DIR] [MSC] [-- TEST ARGS]
#   MSC         the mmuscope binary (default build/mmuscope)
#   -r RUNS     runs of each mode (default 3)
#   -l OPT      record's light option (default --light)
#   -o DIR      where the runs go (default $NESTED_DIR/runs/observer)
#   MODES="untraced full light light2" LIGHT2="record options" in the
#   environment adds a fourth mode (a variant of the light recording);
#   LIGHT2_OFF="kvmmmu/kvm_tdp_mmu_spte_changed ..." turns those events
#   of the variant off once record runs (to measure what they cost)
#   TEST ARGS   dirty_log_perf_test's (default -v 2 -b 32M -s anonymous_thp -i 2)
# Prints, per step, the median and range of each mode's times, the ratios
# of the medians to untraced, and the median number of events each
# recording stored inside the step (the ioctl's bounds, `mmuscope dump
# --from --to`); then the cost per traced event (observer-table.sh).
set -euo pipefail
. "$(dirname "$0")/common.sh"

RUNS=3
LIGHT=--light
OUTDIR=$NESTED_DIR/runs/observer
KOPT=${NESTED_KVER:-}
while getopts "k:r:l:o:" opt; do
	case $opt in
	k) KOPT=$OPTARG ;;
	r) RUNS=$OPTARG ;;
	l) LIGHT=$OPTARG ;;
	o) OUTDIR=$OPTARG ;;
	*) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
MSC=build/mmuscope
if [ $# -gt 0 ] && [ "$1" != -- ]; then
	MSC=$1
	shift
fi
[ "${1:-}" = -- ] && shift
TEST_ARGS=${*:--v 2 -b 32M -s anonymous_thp -i 2}
MSC=$(cd "$(dirname "$MSC")" && pwd)/$(basename "$MSC")
[ -x "$MSC" ] || die "no mmuscope binary $MSC (make first)"

S=$("$NESTED_SRC/build-selftests.sh" ${KOPT:+-k "$KOPT"})
mkdir -p "$OUTDIR"
JOB=$OUTDIR.job.sh
{
	echo "RUNS=$RUNS"
	echo "TEST_ARGS='$TEST_ARGS'"
	echo "LIGHT='$LIGHT'"
	echo "MODES='${MODES:-untraced full light}'"
	echo "LIGHT2='${LIGHT2:-}'"
	echo "LIGHT2_OFF='${LIGHT2_OFF:-}'"
	cat "$NESTED_SRC/observer-guest.sh"
} > "$JOB"
msg "observer: $RUNS x (untraced, full, light $LIGHT) of dirty_log_perf_test $TEST_ARGS"
"$NESTED_SRC/run.sh" ${KOPT:+-k "$KOPT"} -t 3000 -e "$MSC" -e "$S/dirty_log_perf_test" \
	-S "$JOB" -o "$OUTDIR" > "$OUTDIR.log" 2>&1 || die "the boot failed: see $OUTDIR.log"
"$NESTED_SRC/observer-table.sh" "$MSC" "$OUTDIR"
