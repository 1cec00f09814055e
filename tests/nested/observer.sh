#!/bin/bash
# observer.sh - the observer effect, measured: the upstream
# dirty_log_perf_test's own printed times untraced, under `mmuscope record`
# and under `mmuscope record --light`, in one boot of the nested rig
# (QEMU TCG, SVM + NPT; with -E Bochs, Intel VMX + EPT), RUNS runs of
# each, interleaved (observer-guest.sh).  A benchmark: `make bench` runs it
# (BENCH=observer), `make check` never does.
#
# Usage: observer.sh [-E] [-k RELEASE] [-a ARGS] [-r RUNS] [-l LIGHT_OPT] [-t SECONDS]
#                    [-o DIR] [MSC] [-- TEST ARGS]
#   MSC         the mmuscope binary (default build/mmuscope)
#   -E          boot under Bochs (bochs.sh: kvm_intel, EPT, PML, one CPU)
#               instead of QEMU (run.sh); Bochs is slow: give a small
#               TEST ARGS, e.g. -- -v 1 -b 8M -s anonymous_thp -i 2
#   -k RELEASE  kernel release (default the rig's current one, 6.12)
#   -a ARGS     extra kernel command line (may be repeated), e.g.
#               clearcpuid=avx512f, which 7.x needs under Bochs
#   -r RUNS     runs of each mode (default 3)
#   -l OPT      record's light option (default --light)
#   -t SECONDS  bound on the boot (default 3000; with -E 14400)
#   -o DIR      where the runs go (default $NESTED_DIR/runs/observer, with
#               -E $NESTED_DIR/runs/observer-ept)
#   MODES in the environment picks the modes (default "untraced full
#   light"; e.g. MODES="untraced light"); MODES="untraced full light
#   light2" LIGHT2="record options" adds a fourth mode (a variant of the
#   light recording);
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
OUTDIR=""
TIMEOUT=""
EPT=0
KARGS=()
KOPT=${NESTED_KVER:-}
while getopts "Ek:a:r:l:t:o:" opt; do
	case $opt in
	E) EPT=1 ;;
	k) KOPT=$OPTARG ;;
	a) KARGS+=(-a "$OPTARG") ;;
	r) RUNS=$OPTARG ;;
	l) LIGHT=$OPTARG ;;
	t) TIMEOUT=$OPTARG ;;
	o) OUTDIR=$OPTARG ;;
	*) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ $EPT = 1 ]; then
	: "${OUTDIR:=$NESTED_DIR/runs/observer-ept}" "${TIMEOUT:=14400}"
else
	: "${OUTDIR:=$NESTED_DIR/runs/observer}" "${TIMEOUT:=3000}"
fi
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
msg "observer: $RUNS x (${MODES:-untraced full light}; light $LIGHT) of dirty_log_perf_test $TEST_ARGS$([ $EPT = 1 ] && echo ', under Bochs')"
if [ $EPT = 1 ]; then
	# the results come back as a tar on an IDE disk: room for every .db
	"$NESTED_SRC/bochs.sh" ${KOPT:+-k "$KOPT"} ${KARGS[@]+"${KARGS[@]}"} -t "$TIMEOUT" -D 1024 \
		-e "$MSC" -e "$S/dirty_log_perf_test" -S "$JOB" -o "$OUTDIR" > "$OUTDIR.log" 2>&1 ||
		die "the boot failed: see $OUTDIR.log"
else
	"$NESTED_SRC/run.sh" ${KOPT:+-k "$KOPT"} ${KARGS[@]+"${KARGS[@]}"} -t "$TIMEOUT" -e "$MSC" \
		-e "$S/dirty_log_perf_test" -S "$JOB" -o "$OUTDIR" > "$OUTDIR.log" 2>&1 ||
		die "the boot failed: see $OUTDIR.log"
fi
"$NESTED_SRC/observer-table.sh" "$MSC" "$OUTDIR"
