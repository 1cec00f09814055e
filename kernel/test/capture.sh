#!/bin/bash
# capture.sh - record the dirtylog workload on the PATCHED kernel in the
# nested 6.12 guest: kvm.ko and kvm-amd.ko built from kernel/*.patch by
# build-modules.sh, loaded by the rig's /init instead of Debian's.
#
# Usage: capture.sh [tests/nested/capture.sh options] NAME [DIRTYLOG_ARGS...]
#   the rig's capture.sh run on the patched modules' NESTED_DIR, without
#   kprobes (the new tracepoints replace them) and requiring the new events;
#   writes tests/data/traces/NAME/ (or -d DIR) with the rig's files.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)

# the companion patch's events: the guest fails if one is missing
NEW="kvm/kvm_flush_remote_tlbs kvmmmu/kvm_mmu_slot_dirty_logging_begin
kvmmmu/kvm_mmu_slot_dirty_logging_end kvmmmu/kvm_mmu_split_huge_pages
kvmmmu/kvm_mmu_zap_collapsible_sptes kvm/kvm_dirty_log_harvest"

read -r KREL _ < <("$TOP/kernel/test/build-modules.sh" -q)
export NESTED_DIR=${MSC_KERNEL_DIR:-$TOP/build/kernel/$KREL}/nested
args=(-K)
for e in $NEW; do
	args+=(-e "$e")
done
exec "$TOP/tests/nested/capture.sh" "${args[@]}" "$@"
