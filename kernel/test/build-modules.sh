#!/bin/bash
# build-modules.sh - apply kernel/000N-*.patch to Debian's linux-source-6.12
# and build the patched kvm.ko and kvm-amd.ko out of tree against Debian's
# linux-headers for the kernel the nested rig boots (tests/nested/).
#
# Usage: build-modules.sh [-q]
#   -q  print only the result line
#
# Everything is cached under $MSC_KERNEL_DIR (default build/kernel/<release>):
#   src/        the part of the linux-source tarball KVM needs, unpatched
#   tree/       src/ with the series applied; the out-of-tree build of
#               arch/x86/kvm (and ../../../virt/kvm) happens in place
#   modules/    kvm.ko, kvm-amd.ko (debug info stripped), vermagic.txt
#   nested/     a NESTED_DIR for tests/nested/run.sh: the rig's kernel and
#               modules with kvm.ko and kvm-amd.ko replaced by ours
# A rerun with an unchanged series and unchanged headers does nothing.  When
# the series changes, only the files the old and new series touch are
# restored and re-patched, so kbuild recompiles just what depends on them.
#
# Needs root for apt-get when linux-source-6.12 or the headers are missing.
# Prints "<release> <kvm.ko path>" on success.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/../.." && pwd)
QUIET=0
[ "${1:-}" = -q ] && QUIET=1
export NESTED_DIR=${NESTED_DIR:-$TOP/build/nested}

msg() { [ $QUIET = 1 ] || echo "kernel: $*" >&2; }
die() { echo "kernel: error: $*" >&2; exit 1; }

# The release the rig boots, and the Debian version of its image package.
KREL=$("$TOP/tests/nested/fetch-kernel.sh" 2>/dev/null) || die "tests/nested/fetch-kernel.sh failed"
DEB=$(ls "$NESTED_DIR"/cache/linux-image-"$KREL"-unsigned_*.deb 2>/dev/null | sort -V | tail -n 1 || true)
if [ -n "$DEB" ]; then
	DEBVER=$(dpkg-deb -f "$DEB" Version)
else
	DEBVER=$(apt-cache show "linux-image-$KREL-unsigned" 2>/dev/null | sed -n 's/^Version: //p' | head -n 1)
fi
[ -n "$DEBVER" ] || die "no Debian version for linux-image-$KREL-unsigned"

KDIR=${MSC_KERNEL_DIR:-$TOP/build/kernel/$KREL}
HDR=/usr/src/linux-headers-$KREL
TARBALL=/usr/src/linux-source-6.12.tar.xz
RIG=$NESTED_DIR/kernel/$KREL

# apt_need PKG=VERSION...: install the packages not installed at that version
apt_need() {
	local pv missing=""

	for pv in "$@"; do
		[ "$(dpkg-query -W -f='${Version}' "${pv%%=*}" 2>/dev/null || true)" = "${pv#*=}" ] ||
			missing="$missing $pv"
	done
	[ -z "$missing" ] && return 0
	[ "$(id -u)" = 0 ] || die "missing packages, run: apt-get install$missing"
	msg "installing$missing"
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing >&2 ||
	{ apt-get update -q >&2 &&
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing >&2; } ||
	die "could not install$missing"
}
apt_need "linux-source-6.12=$DEBVER" "linux-headers-$KREL=$DEBVER"
command -v patch >/dev/null || apt_need "patch=$(apt-cache policy patch | sed -n 's/ *Candidate: //p')"

# ---- src/: the unpacked subset of the source, once per source version
SRC=$KDIR/src
if [ "$(cat "$SRC/.complete" 2>/dev/null)" != "$DEBVER" ]; then
	msg "unpacking $TARBALL ($DEBVER)"
	rm -rf "$SRC" "$KDIR/tree"
	mkdir -p "$SRC"
	tar -xJf "$TARBALL" -C "$SRC" --strip-components=1 \
		--wildcards 'linux-source-6.12/arch/x86/kvm/*' 'linux-source-6.12/virt/kvm/*' \
		'linux-source-6.12/include/linux/kvm_host.h' \
		'linux-source-6.12/include/linux/kvm_types.h' \
		'linux-source-6.12/include/trace/events/kvm.h' \
		'linux-source-6.12/arch/x86/include/asm/kvm_host.h' \
		'linux-source-6.12/scripts/checkpatch.pl' 'linux-source-6.12/scripts/spelling.txt' \
		'linux-source-6.12/scripts/const_structs.checkpatch'
	echo "$DEBVER" > "$SRC/.complete"
fi

# ---- tree/: src/ + the series
PATCHES=$(ls "$TOP"/kernel/[0-9][0-9][0-9][0-9]-*.patch)
TREE=$KDIR/tree
SERIES=$(cat $PATCHES "$0" "$HDR/Module.symvers" | sha256sum | cut -d' ' -f1)
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
		msg "applying $(basename "$p")"
		patch -d "$TREE" -p1 -F0 -s --no-backup-if-mismatch < "$p" ||
			die "$(basename "$p") does not apply to linux-source-6.12 $DEBVER"
	done
	for f in $ALL; do
		if [ -e "$OLD/$f" ] && cmp -s "$OLD/$f" "$TREE/$f"; then
			touch -r "$OLD/$f" "$TREE/$f"
		fi
	done
	rm -rf "$OLD"
	touched $PATCHES > "$TREE/.touched"
	# Kbuild for the out-of-tree build: arch/x86/kvm/Makefile with the
	# source tree's paths; patched headers come first (NOSTDINC_FLAGS
	# precedes the headers package's include path on every command line).
	# include/trace/define_trace.h includes TRACE_INCLUDE_PATH relative to
	# itself: -I include/trace lets "../../arch/x86/kvm/trace.h" resolve.
	{
		echo "# generated by kernel/test/build-modules.sh"
		echo "NOSTDINC_FLAGS += -I$TREE/include -I$TREE/arch/x86/include -I$TREE/include/trace"
		# kvm-intel is not needed: the guest is AMD (TCG has no VMX)
		sed -e "s|\$(srctree)/arch/x86/kvm|$TREE/arch/x86/kvm|" \
		    -e "s|\$(srctree)/virt/kvm|$TREE/virt/kvm|" \
		    -e "/^obj-\$(CONFIG_KVM_INTEL)/d" \
		    "$TREE/arch/x86/kvm/Makefile"
	} > "$TREE/arch/x86/kvm/Kbuild"
	rm -f "$KDIR/modules/.series"
	echo "$SERIES" > "$TREE/.series"
fi

# ---- modules/: build (incremental) and keep stripped copies
MOD=$KDIR/modules
if [ "$(cat "$MOD/.series" 2>/dev/null)" != "$SERIES" ]; then
	msg "building kvm.ko and kvm-amd.ko against $HDR"
	T0=$(date +%s)
	make -s -j"$(nproc)" -C "$HDR" M="$TREE/arch/x86/kvm" modules >&2 ||
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
	[ -e "$RIG/config" ] && cp -a "$RIG/config" "$NK/"
	KO=$NK/modules/lib/modules/$KREL/kernel/arch/x86/kvm
	cp "$MOD/kvm.ko" "$KO/kvm.ko"
	cp "$MOD/kvm-amd.ko" "$KO/kvm-amd.ko"
	echo "$KREL" > "$N/kernel/current"
	touch "$NK/.complete"
fi
echo "$KREL $MOD/kvm.ko"
