#!/bin/bash
# capture.sh - record the dirtylog workload on the PATCHED kernel in the
# nested guest of one series: kvm.ko and kvm-amd.ko built from
# kernel/<series>/*.patch by build-modules.sh, loaded by the rig's /init
# instead of Debian's.
#
# Usage: capture.sh [-s SERIES] [tests/nested/capture.sh options] NAME [DIRTYLOG_ARGS...]
#   -s SERIES  6.12 (default, or $MSC_KERNEL_SERIES) or 7.3; must come first
#   the rig's capture.sh run with -k <release> on the patched modules'
#   NESTED_DIR, without kprobes (the new tracepoints replace them) and
#   requiring the new events; writes tests/data/traces/NAME/ (or -d DIR)
#   with the rig's files.
set -euo pipefail
SER=${MSC_KERNEL_SERIES:-6.12}
if [ "${1:-}" = -s ]; then
	SER=${2:?-s needs a series}
	shift 2
fi
TOP=$(cd "$(dirname "$0")/../.." && pwd)

# the companion patch's events: the guest fails if one is missing.  The
# collapse pass is a zap of collapsible SPTEs up to 6.12, an in-place
# recovery of huge pages from 6.13 on.
case $SER in
6.12) COLLAPSE=kvmmmu/kvm_mmu_zap_collapsible_sptes ;;
*) COLLAPSE=kvmmmu/kvm_mmu_recover_huge_pages ;;
esac
NEW="kvm/kvm_flush_remote_tlbs kvmmmu/kvm_mmu_slot_dirty_logging_begin
kvmmmu/kvm_mmu_slot_dirty_logging_end kvmmmu/kvm_mmu_split_huge_pages
$COLLAPSE kvm/kvm_dirty_log_harvest"

read -r KREL _ < <("$TOP/kernel/test/build-modules.sh" -q -s "$SER")
[ -n "$KREL" ] || exit 1
export NESTED_DIR=${MSC_KERNEL_DIR:-$TOP/build/kernel/$KREL}/nested
args=(-K -k "$KREL")
for e in $NEW; do
	args+=(-e "$e")
done
exec "$TOP/tests/nested/capture.sh" "${args[@]}" "$@"
