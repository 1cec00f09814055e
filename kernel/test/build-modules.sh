#!/bin/bash
# build-modules.sh - apply one series, kernel/<series>/000N-*.patch, to
# Debian's linux-source-<series> and build the patched kvm.ko and kvm-amd.ko
# out of tree against Debian's headers for the kernel the nested rig boots
# for that series (tests/nested/fetch-kernel.sh --series).
#
# Usage: build-modules.sh [-q] [-s SERIES]
#   -q         print only the result line
#   -s SERIES  6.12 (default, or $MSC_KERNEL_SERIES) or 7.3
#
# The packages (linux-source-<series>, linux-headers-<release>, its -common
# and linux-kbuild-<version>, all at the version of the rig's kernel) are
# fetched with `apt-get download` through a private apt state,
# build/kernel/apt/<series>/, into build/kernel/debs/, and unpacked with
# dpkg-deb -x: nothing is installed, the machine's apt configuration is
# never changed.
#
# Everything is cached under $MSC_KERNEL_DIR (default build/kernel/<release>):
#   headers/    the headers and kbuild packages unpacked as a root
#               (usr/src/linux-headers-<release>, usr/lib/linux-kbuild-*),
#               its absolute paths pointed into headers/; kbuild programs
#               linked against a newer glibc than the host's are wrapped to
#               run with a private libc6 (headers/libc/)
#   src/        the part of the linux-source tarball KVM needs, unpacked
#   tree/       src/ with the series applied; the out-of-tree build of
#               arch/x86/kvm (and ../../../virt/kvm) happens in place
#   modules/    kvm.ko, kvm-amd.ko (debug info stripped), vermagic.txt
#   nested/     a NESTED_DIR for tests/nested/run.sh -k <release>: the
#               rig's kernel and modules with kvm.ko and kvm-amd.ko
#               replaced by ours
# and build/kernel/series-<series> names the release last built.
# A rerun with an unchanged series and unchanged headers does nothing.  When
# the series changes, only the files the old and new series touch are
# restored and re-patched, so kbuild recompiles just what depends on them.
#
# The compiler is the one the kernel was built with (the headers'
# .kernelvariables) when the host has it, else the host's gcc with the
# kernel options that depend on the newer compiler's features turned off on
# the make command line (e.g. -fmin-function-alignment, gcc 14).  Module
# BTF is skipped when pahole is missing or older than the kernel's.
#
# Prints "<release> <kvm.ko path>" on success.
set -euo pipefail
QUIET=0
SER=""
while getopts "qs:" opt; do
	case $opt in
	q) QUIET=1 ;;
	s) SER=$OPTARG ;;
	*) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
. "$(dirname "$0")/common.sh"
TOP=$KTOP
series_init "$SER"
command -v patch >/dev/null || die "patch is missing (apt-get install patch)"

# The release the rig boots, and the Debian version of its packages.
rig_release
RIG=$NESTED_DIR/kernel/$KREL

prepare_headers
prepare_src

# ---- tree/: src/ + the series
TREE=$KDIR/tree
SERIES=$( { cat $PATCHES "$0" "$TOP/kernel/test/common.sh" "$HDR/Module.symvers"
	    echo "${MAKE_ARGS[*]}"; "$CC" --version; } | sha256sum | cut -d' ' -f1)
touched() { # files a series names, relative to the tree
	sed -n 's|^+++ b/||p' "$@" | sort -u
}
if [ "$(cat "$TREE/.series" 2>/dev/null)" != "$SERIES" ]; then
	if [ ! -d "$TREE" ]; then
		cp -a "$SRC" "$TREE"
		rm -f "$TREE/.complete"
	fi
	# Restore what the previous series changed, then apply the new one.
	# A file the new series leaves as the old one did gets its old mtime
	# back, so kbuild does not rebuild what depends on it.
	OLD=$KDIR/.old-tree
	rm -rf "$OLD"
	ALL=$(cat "$TREE/.touched" 2>/dev/null; touched $PATCHES)
	for f in $ALL; do
		if [ -e "$TREE/$f" ]; then
			mkdir -p "$OLD/$(dirname "$f")"
			cp -p "$TREE/$f" "$OLD/$f"
		fi
		if [ -e "$SRC/$f" ]; then cp -p "$SRC/$f" "$TREE/$f"; else rm -f "$TREE/$f"; fi
	done
	for p in $PATCHES; do
		msg "applying $KSERIES/$(basename "$p")"
		patch -d "$TREE" -p1 -F0 -s --no-backup-if-mismatch < "$p" ||
			die "$KSERIES/$(basename "$p") does not apply to $SRCPKG $DEBVER"
	done
	for f in $ALL; do
		if [ -e "$OLD/$f" ] && cmp -s "$OLD/$f" "$TREE/$f"; then
			touch -r "$OLD/$f" "$TREE/$f"
		fi
	done
	rm -rf "$OLD"
	touched $PATCHES > "$TREE/.touched"
	write_kbuild "$TREE"
	rm -f "$KDIR/modules/.series"
	echo "$SERIES" > "$TREE/.series"
fi

# ---- modules/: build (incremental) and keep stripped copies
MOD=$KDIR/modules
if [ "$(cat "$MOD/.series" 2>/dev/null)" != "$SERIES" ]; then
	msg "building kvm.ko and kvm-amd.ko against linux-headers-$KREL"
	T0=$(date +%s)
	kvm_make "$TREE" -s >&2 ||
		die "module build failed"
	mkdir -p "$MOD"
	for m in kvm kvm-amd; do
		strip --strip-debug -o "$MOD/$m.ko" "$TREE/arch/x86/kvm/$m.ko"
	done
	modinfo -F vermagic "$MOD/kvm.ko" > "$MOD/vermagic.txt"
	want=$(modinfo -F vermagic "$RIG/modules/lib/modules/$KREL/kernel/arch/x86/kvm/kvm.ko")
	[ "$(cat "$MOD/vermagic.txt")" = "$want" ] ||
		die "vermagic '$(cat "$MOD/vermagic.txt")' is not the guest's '$want'"
	echo "$SERIES" > "$MOD/.series"
	msg "built in $(( $(date +%s) - T0 )) s"
	rm -f "$KDIR/nested/kernel/$KREL/.complete"
fi

# ---- nested/: a NESTED_DIR whose kernel carries our modules
N=$KDIR/nested
NK=$N/kernel/$KREL
if [ ! -e "$NK/.complete" ]; then
	[ -e "$RIG/.complete" ] || die "the rig's kernel is not unpacked: $RIG"
	rm -rf "$NK"
	mkdir -p "$NK"
	cp -a "$RIG/vmlinuz" "$RIG/modules" "$NK/"
	for f in config packages; do
		[ -e "$RIG/$f" ] && cp -a "$RIG/$f" "$NK/"
	done
	KO=$NK/modules/lib/modules/$KREL/kernel/arch/x86/kvm
	cp "$MOD/kvm.ko" "$KO/kvm.ko"
	cp "$MOD/kvm-amd.ko" "$KO/kvm-amd.ko"
	echo "$KREL" > "$N/kernel/current"
	echo "$KREL" > "$N/kernel/series-$RIG_SERIES"
	touch "$NK/.complete"
fi
echo "$KREL" > "$TOP/build/kernel/series-$KSERIES"
echo "$KREL $MOD/kvm.ko"
