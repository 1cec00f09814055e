# kernel.mk - the companion kernel patch series (kernel/README.md); included
# by the top-level Makefile or used as `make -f kernel/kernel.mk ...`.
# One series per kernel base: kernel/6.12/000N-*.patch (Debian's
# linux-source-6.12) and kernel/7.3/000N-*.patch (Debian's linux-source-7.3).
#
#   kernel-modules       apply each series to its linux-source and build
#                        kvm.ko + kvm-amd.ko against Debian's headers for the
#                        rig's kernel of that series (cached in
#                        build/kernel/<release>)
#   check-kernel-patch   the whole proof, both series: checkpatch --strict on
#                        every patch, the series applies with git am, the
#                        modules build with the guest's vermagic, and in the
#                        nested guest of the series the patched modules load
#                        and the new events fire with values that agree with
#                        the workload and KVM's own counters
#   kernel-per-patch     git am + build + checkpatch after each patch of
#                        each series (kernel/test/per-patch.sh)
#   kernel-captures      re-record tests/data/traces/k612msc-* and k73msc-*
#                        on the patched kernels (the test data of the
#                        decoder integration)
# KERNEL_SERIES (default "6.12 7.3") limits all four to some series.

KERNEL_SRC := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
KERNEL_SERIES ?= 6.12 7.3

.PHONY: kernel-modules check-kernel-patch kernel-per-patch kernel-captures

kernel-modules:
	set -e; for s in $(KERNEL_SERIES); do $(KERNEL_SRC)/test/build-modules.sh -s $$s; done

check-kernel-patch:
	MSC_KERNEL_TESTS=1 MSC_KERNEL_SERIES="$(KERNEL_SERIES)" sh tests/cli/kernel-patch.sh

kernel-per-patch:
	set -e; for s in $(KERNEL_SERIES); do $(KERNEL_SRC)/test/per-patch.sh -s $$s; done

# the captures of a series are named k<series without dots>msc-*
kernel-captures: kernel-modules
	set -e; for s in $(KERNEL_SERIES); do \
	  c=k$$(echo $$s | tr -d .)msc; \
	  $(KERNEL_SRC)/test/capture.sh -s $$s $$c-npt_tdp_32m -m 32 -i 2; \
	  $(KERNEL_SRC)/test/capture.sh -s $$s $$c-npt_tdp_16m_clear -m 16 -c -i 2 -C 2; \
	  $(KERNEL_SRC)/test/capture.sh -s $$s -a msc.eager_split=0 $$c-npt_tdp_eager0_16m -m 16 -i 2; \
	done
