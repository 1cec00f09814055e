#!/bin/sh
# `mmuscope record` on a real KVM with Intel EPT: tests/nested/check-kernel.sh
# -E boots Debian's 6.12 kernel under Bochs (tests/nested/bochs.sh: an
# emulated Intel CPU with VMX, EPT, EPT A/D and PML; kvm_intel ept=Y
# eptad=Y pml=Y), records `dirtylog -m 8 -i 2` inside and applies the same
# checks as record-kernel.sh's NPT runs (zero lost events, KVM's counters
# equal to the census after every phase, phases seen), with the EPT layout
# read live and, PML being on, no fast page fault in the dirty passes.
# 2-6 min (Bochs emulates about 50 M instructions per host second; 119 s
# with the host idle).
# Skipped, with the reason, where Bochs or the kernel package cannot be
# installed, without root, or with MSC_SKIP_KERNEL=1 or MSC_SKIP_EPT=1.
. "$(dirname "$0")/lib.sh"

[ "${MSC_SKIP_KERNEL:-0}" = 1 ] && skip_all "MSC_SKIP_KERNEL=1"
[ "${MSC_SKIP_EPT:-0}" = 1 ] && skip_all "MSC_SKIP_EPT=1"
[ "$(id -u)" = 0 ] || skip_all "the nested rig installs packages and needs root"
NESTED=$(cd "$(dirname "$0")/../nested" && pwd)
# the rig's own installers: a failure here means "cannot be had", not a bug
pkgs=""
command -v bochs-bin >/dev/null 2>&1 || pkgs="$pkgs bochs"
[ -e /usr/share/bochs/BIOS-bochs-latest ] || pkgs="$pkgs bochsbios"
[ -e /usr/share/vgabios/vgabios.bin ] || pkgs="$pkgs vgabios"
command -v xorriso >/dev/null 2>&1 || pkgs="$pkgs xorriso"
[ -e /usr/lib/ISOLINUX/isolinux.bin ] || pkgs="$pkgs isolinux"
[ -e /usr/lib/syslinux/modules/bios/ldlinux.c32 ] || pkgs="$pkgs syslinux-common"
if [ -n "$pkgs" ]; then
	# shellcheck disable=SC2086
	(DEBIAN_FRONTEND=noninteractive apt-get install -y -q $pkgs >/dev/null 2>&1 ||
	 { apt-get update -q >/dev/null 2>&1 &&
	   DEBIAN_FRONTEND=noninteractive apt-get install -y -q $pkgs >/dev/null 2>&1; })
	command -v bochs-bin >/dev/null 2>&1 && command -v xorriso >/dev/null 2>&1 &&
		[ -e /usr/share/bochs/BIOS-bochs-latest ] && [ -e /usr/share/vgabios/vgabios.bin ] &&
		[ -e /usr/lib/ISOLINUX/isolinux.bin ] &&
		[ -e /usr/lib/syslinux/modules/bios/ldlinux.c32 ] ||
		skip_all "Bochs cannot be installed (apt-get install$pkgs failed)"
fi
K612=$("$NESTED/fetch-kernel.sh" --series 6.12 2>"$T/fetch.log") ||
	skip_all "no Debian 6.12 kernel package: $(tail -n 1 "$T/fetch.log")"
# 6.12 explicitly: kernel/current is the 6.12 release fetch-kernel.sh picked
"$NESTED/check-kernel.sh" -E -k "$K612" "$MSC" 2>&1 | grep -v '^check-kernel: ' |
	sed 's/^\(not \)\{0,1\}ok [0-9]* - /&EPT run: /'
