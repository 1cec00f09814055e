# kernel.mk - the companion kernel patch series (kernel/README.md); included
# by the top-level Makefile or used as `make -f kernel/kernel.mk ...`.
#
#   kernel-modules       apply kernel/000N-*.patch to Debian's linux-source-6.12
#                        and build kvm.ko + kvm-amd.ko against Debian's headers
#                        for the rig's kernel (cached in build/kernel/<release>)
#   check-kernel-patch   the whole proof: checkpatch --strict on every patch,
#                        the series applies, the modules build with the guest's
#                        vermagic, and in the nested 6.12 guest the patched
#                        modules load and the new events fire with values that
#                        agree with the workload and KVM's own counters
#   kernel-captures      re-record tests/data/traces/k612msc-* on the patched
#                        kernel (the test data of the decoder integration)

KERNEL_SRC := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))

.PHONY: kernel-modules check-kernel-patch kernel-captures

kernel-modules:
	$(KERNEL_SRC)/test/build-modules.sh

check-kernel-patch:
	MSC_KERNEL_TESTS=1 sh tests/cli/kernel-patch.sh

kernel-captures: kernel-modules
	$(KERNEL_SRC)/test/capture.sh k612msc-npt_tdp_32m -m 32 -i 2
	$(KERNEL_SRC)/test/capture.sh k612msc-npt_tdp_16m_clear -m 16 -c -i 2 -C 2
	$(KERNEL_SRC)/test/capture.sh -a msc.eager_split=0 k612msc-npt_tdp_eager0_16m -m 16 -i 2
