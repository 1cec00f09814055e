#!/bin/bash
# fetch-kernel.sh - download Debian's newest 6.12 kernel image package and
# unpack what the nested guest needs into $NESTED_DIR/kernel/<release>/:
#
#   vmlinuz                          the kernel
#   modules/lib/modules/<release>/   kvm, kvm_amd, kvm_intel, 9p, virtio and
#                                    netfs modules plus their dependencies,
#                                    decompressed (.ko), with modules.dep
#
# and records the release in $NESTED_DIR/kernel/current. The .deb is kept
# in $NESTED_DIR/cache/. Idempotent: a complete unpack is never redone, and
# nothing is downloaded when the .deb is cached.
#
# Usage: fetch-kernel.sh [PACKAGE]
#   PACKAGE (or $NESTED_KPKG) overrides the choice, e.g.
#   linux-image-6.12.117+deb12-amd64-unsigned. By default the newest
#   linux-image-6.12.*-amd64-unsigned known to apt-cache is taken (apt-get
#   update is run only when apt knows none).
set -euo pipefail
. "$(dirname "$0")/common.sh"

MODULES="kvm kvm_amd kvm_intel 9p 9pnet_virtio virtio_pci netfs"
PKG_RE='^linux-image-6\.12\.[0-9]+\+deb[0-9]+-amd64-unsigned$'

need apt-get:apt dpkg-deb:dpkg depmod:kmod modprobe:kmod xz:xz-utils

pick_pkg() {
	apt-cache pkgnames linux-image-6.12. 2>/dev/null | grep -E "$PKG_RE" |
		sort -V | tail -n 1
}

PKG=${1:-${NESTED_KPKG:-}}
if [ -z "$PKG" ]; then
	PKG=$(pick_pkg)
	if [ -z "$PKG" ]; then
		msg "apt knows no 6.12 image; running apt-get update"
		apt-get update -q >&2 || true
		PKG=$(pick_pkg)
	fi
	if [ -z "$PKG" ]; then
		# offline and nothing in the lists: fall back to the cache
		KVER=$(kernel_current)
		[ -n "$KVER" ] && [ -e "$NESTED_DIR/kernel/$KVER/.complete" ] ||
			die "no linux-image-6.12.*-amd64-unsigned package found"
		msg "using cached kernel $KVER"
		echo "$KVER"
		exit 0
	fi
fi
KVER=${PKG#linux-image-}
KVER=${KVER%-unsigned}
KDIR=$NESTED_DIR/kernel/$KVER
CACHE=$NESTED_DIR/cache

if [ -e "$KDIR/.complete" ]; then
	echo "$KVER" > "$NESTED_DIR/kernel/current"
	echo "$KVER"
	exit 0
fi

mkdir -p "$CACHE"
DEB=$(ls "$CACHE/${PKG}"_*.deb 2>/dev/null | sort -V | tail -n 1 || true)
if [ -z "$DEB" ] || ! dpkg-deb -I "$DEB" >/dev/null 2>&1; then
	msg "downloading $PKG"
	rm -f "$CACHE/${PKG}"_*.deb
	(cd "$CACHE" && apt-get download -q "$PKG" >&2) ||
		die "apt-get download $PKG failed"
	DEB=$(ls "$CACHE/${PKG}"_*.deb | sort -V | tail -n 1)
fi
msg "unpacking $(basename "$DEB")"

STAGE=$NESTED_DIR/kernel/.stage-$KVER
rm -rf "$STAGE" "$KDIR"
mkdir -p "$STAGE" "$KDIR"
trap 'rm -rf "$STAGE"' EXIT
dpkg-deb -x "$DEB" "$STAGE"

VMLINUZ=$(ls "$STAGE"/boot/vmlinuz-"$KVER" "$STAGE"/usr/lib/linux-image-"$KVER"/vmlinuz 2>/dev/null | head -n 1 || true)
[ -n "$VMLINUZ" ] || die "no vmlinuz-$KVER in $DEB"
cp "$VMLINUZ" "$KDIR/vmlinuz"

# Modules live in lib/modules or usr/lib/modules depending on the release.
if [ -d "$STAGE/lib/modules/$KVER" ]; then
	SROOT=$STAGE
else
	[ -d "$STAGE/usr/lib/modules/$KVER" ] || die "no modules for $KVER in $DEB"
	mkdir -p "$STAGE/modroot/lib"
	mv "$STAGE/usr/lib/modules" "$STAGE/modroot/lib/modules"
	SROOT=$STAGE/modroot
fi
depmod -b "$SROOT" "$KVER"

MROOT=$KDIR/modules
MDIR=$MROOT/lib/modules/$KVER
mkdir -p "$MDIR"
for m in $MODULES; do
	modprobe -d "$SROOT" -S "$KVER" --show-depends "$m" ||
		die "module $m not found in $KVER"
done | awk '$1 == "insmod" { print $2 }' | sort -u | while read -r ko; do
	rel=${ko#"$SROOT/lib/modules/$KVER/"}
	out=$MDIR/${rel%.xz}
	mkdir -p "$(dirname "$out")"
	case $ko in
	*.xz) xz -dc "$ko" > "$out" ;;
	*.zst) zstd -qdc "$ko" > "$out" ;;
	*) cp "$ko" "$out" ;;
	esac
done
for f in modules.order modules.builtin modules.builtin.modinfo; do
	[ -e "$SROOT/lib/modules/$KVER/$f" ] && cp "$SROOT/lib/modules/$KVER/$f" "$MDIR/"
done
# modules.order names .ko.xz files; depmod only needs it for ordering.
sed -i 's/\.ko\.\(xz\|zst\)$/.ko/' "$MDIR/modules.order" 2>/dev/null || true
depmod -b "$MROOT" "$KVER"
[ -e "$STAGE/boot/config-$KVER" ] && cp "$STAGE/boot/config-$KVER" "$KDIR/config"

touch "$KDIR/.complete"
echo "$KVER" > "$NESTED_DIR/kernel/current"
msg "kernel $KVER ready in $KDIR ($(find "$MDIR" -name '*.ko' | wc -l) modules)"
echo "$KVER"
