#!/bin/sh
# `mmuscope record` on a real KVM: tests/nested/check-kernel.sh boots
# Debian's 6.12 kernel under QEMU (SVM + NPT), records the dirtylog workload
# inside and checks the database (zero lost events, KVM's counters equal to
# the census at every phase, phases seen), then once more recording one of
# two VMs with --pid, then two processes whose VMs exist before record
# starts (--procs; each placed in its VM by the analyzer), then a light
# recording (--light: the steps, splits and KVM's counters around them, no
# SPTE history), then the plain and the light run again on Debian's newest
# 7.x kernel (fetch-kernel.sh --series 7; their TAP lines say "7.x run:",
# "7.x --light run:").  About 6 x 20 s once the kernels are cached.
# Skipped, with the reason, where QEMU or the kernel package cannot be
# installed, without root, or with MSC_SKIP_KERNEL=1; the 7.x run alone is
# skipped where no 7.x package can be had.
. "$(dirname "$0")/lib.sh"

[ "${MSC_SKIP_KERNEL:-0}" = 1 ] && skip_all "MSC_SKIP_KERNEL=1"
[ "$(id -u)" = 0 ] || skip_all "the nested rig installs packages and needs root"
NESTED=$(cd "$(dirname "$0")/../nested" && pwd)
# the rig's own installers: a failure here means "cannot be had", not a bug
if ! command -v qemu-system-x86_64 >/dev/null 2>&1; then
	(DEBIAN_FRONTEND=noninteractive apt-get install -y -q qemu-system-x86 >/dev/null 2>&1 ||
	 { apt-get update -q >/dev/null 2>&1 &&
	   DEBIAN_FRONTEND=noninteractive apt-get install -y -q qemu-system-x86 >/dev/null 2>&1; })
	command -v qemu-system-x86_64 >/dev/null 2>&1 || skip_all "qemu-system-x86 cannot be installed"
fi
"$NESTED/fetch-kernel.sh" >"$T/fetch.log" 2>&1 ||
	skip_all "no Debian 6.12 kernel package: $(tail -n 1 "$T/fetch.log")"
"$NESTED/check-kernel.sh" "$MSC" 2>&1 | grep -v '^check-kernel: '
# again with `record --pid` on one of two VMs
"$NESTED/check-kernel.sh" --pid "$MSC" 2>&1 | grep -v '^check-kernel: \|^1\.\.' |
	sed 's/^\(not \)\{0,1\}ok [0-9]* - /&--pid run: /'
# two processes whose VMs predate the recording (the production case)
"$NESTED/check-kernel.sh" --procs "$MSC" 2>&1 | grep -v '^check-kernel: \|^1\.\.' |
	sed 's/^\(not \)\{0,1\}ok [0-9]* - /&--procs run: /'
# record --light: KVM's counters stand in for the SPTE history
"$NESTED/check-kernel.sh" --light "$MSC" 2>&1 | grep -v '^check-kernel: \|^1\.\.' |
	sed 's/^\(not \)\{0,1\}ok [0-9]* - /&--light run: /'
# the plain run on the newest 7.x (in-place huge page recovery on disable)
if K7=$("$NESTED/fetch-kernel.sh" --series 7 2>"$T/fetch7.log"); then
	"$NESTED/check-kernel.sh" -k "$K7" "$MSC" 2>&1 | grep -v '^check-kernel: \|^1\.\.' |
		sed 's/^\(not \)\{0,1\}ok [0-9]* - /&7.x run: /'
	# and the light recording there: the counters around a disable that recovers in place
	"$NESTED/check-kernel.sh" --light -k "$K7" "$MSC" 2>&1 | grep -v '^check-kernel: \|^1\.\.' |
		sed 's/^\(not \)\{0,1\}ok [0-9]* - /&7.x --light run: /'
else
	echo "ok 1 - 7.x run: # SKIP no Debian 7.x kernel package: $(tail -n 1 "$T/fetch7.log")"
fi
