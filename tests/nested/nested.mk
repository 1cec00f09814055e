# nested.mk - the nested-KVM rig (tests/nested/README.md), to be included
# from the top-level Makefile or used as `make -f tests/nested/nested.mk`.
#
#   nested-kernel        download and unpack Debian's newest 6.12 kernel
#                        (NESTED_KSERIES=7: the newest 7.x)
#   nested-initramfs     busybox + modules + dirtylog + trace-cmd initramfs
#   check-kernel-smoke   boot it; check /dev/kvm, kvm_amd npt=Y,
#                        kvm tdp_mmu=Y and one dirtylog run
#   check-kernel         `mmuscope record` of dirtylog on the guest's real
#                        KVM; checks the database on the host
#                        (check-kernel.sh; needs build/mmuscope)
#   check-kernel-ept     check-kernel under Bochs: Intel VMX + EPT (+ A/D
#                        bits, PML), kvm_intel ept=Y (check-kernel.sh -E,
#                        bochs.sh; 2-6 min; needs build/mmuscope)
#   nested-selftests     the KVM selftests dirty_log_perf_test and
#                        x86/dirty_log_page_splitting_test of the series'
#                        linux-source, static (build-selftests.sh)
#
# NESTED_KSERIES (6.12, the default, or 7) picks the kernel series of all
# of them, e.g. `make -f tests/nested/nested.mk check-kernel-smoke
# NESTED_KSERIES=7`. Every cached or built file lives under $(NESTED_DIR).

NESTED_DIR ?= build/nested
NESTED_SRC := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
NESTED_ENV = NESTED_DIR=$(abspath $(NESTED_DIR))
NESTED_SMOKE = $(abspath $(NESTED_DIR))/runs/smoke
NESTED_MSC ?= build/mmuscope
NESTED_KSERIES ?= 6.12
# the release fetch-kernel.sh picks for the series (fetching it if needed)
NESTED_KREL = $$($(NESTED_ENV) $(NESTED_SRC)/fetch-kernel.sh --series $(NESTED_KSERIES))

nested-kernel:
	$(NESTED_ENV) $(NESTED_SRC)/fetch-kernel.sh --series $(NESTED_KSERIES)

nested-initramfs: nested-kernel
	$(NESTED_ENV) $(NESTED_SRC)/build-initramfs.sh -k "$(NESTED_KREL)"

check-kernel-smoke: nested-initramfs
	$(NESTED_ENV) $(NESTED_SRC)/run.sh -k "$(NESTED_KREL)" -t 300 -o $(NESTED_SMOKE) \
		-- dirtylog -m 16 -i 1
	@cd $(NESTED_SMOKE) && \
	fail() { echo "check-kernel-smoke: FAIL: $$*"; exit 1; }; \
	grep -qx 'dev_kvm=yes' probe.txt || fail "no /dev/kvm in the guest"; \
	grep -qx 'kvm_amd.npt=Y' kvm_params.txt || fail "kvm_amd npt is not Y"; \
	grep -qx 'kvm.tdp_mmu=Y' kvm_params.txt || fail "kvm tdp_mmu is not Y"; \
	grep -qx 'mmuscope-dirtylog: KVM stats after populate: pages_4k=1 pages_2m=8 pages_1g=0 .*' \
		output.log || fail "populate did not map 8 x 2M (output.log)"; \
	grep -qx 'mmuscope-dirtylog: phase=teardown end' output.log || \
		fail "dirtylog did not finish (output.log)"; \
	echo "check-kernel-smoke: ok ($$(cat uname); $$(tail -n 1 qemu_cmd.txt))"

# $(PROG) is the top Makefile's binary when this file is included from it.
check-kernel: $(if $(PROG),$(PROG)) nested-kernel
	@[ -x $(NESTED_MSC) ] || { echo "check-kernel: no $(NESTED_MSC): run make first"; exit 1; }
	$(NESTED_ENV) $(NESTED_SRC)/check-kernel.sh -k "$(NESTED_KREL)" $(abspath $(NESTED_MSC))

# NESTED_KSERIES=7 boots the newest 7.x, which under Bochs needs AVX-512
# hidden from the guest (clearcpuid=avx512f, given here)
check-kernel-ept: $(if $(PROG),$(PROG)) nested-kernel
	@[ -x $(NESTED_MSC) ] || { echo "check-kernel-ept: no $(NESTED_MSC): run make first"; exit 1; }
	$(NESTED_ENV) $(NESTED_SRC)/check-kernel.sh -E -k "$(NESTED_KREL)" \
		$(if $(filter 7%,$(NESTED_KSERIES)),-a clearcpuid=avx512f) $(abspath $(NESTED_MSC))

nested-selftests: nested-kernel
	$(NESTED_ENV) $(NESTED_SRC)/build-selftests.sh -k "$(NESTED_KREL)"

.PHONY: nested-kernel nested-initramfs check-kernel-smoke check-kernel check-kernel-ept nested-selftests
