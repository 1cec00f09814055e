#!/bin/bash
# build-initramfs.sh - build the nested guest's initramfs for one kernel
# release:
#
#   /init                      tests/nested/guest-init.sh
#   /bin/busybox + applets     from busybox-static
#   /lib/modules/<release>/    the modules unpacked by fetch-kernel.sh
#   /usr/bin/dirtylog          workload/dirtylog.c, built static
#   /usr/bin/msc-capture       tests/nested/capture.sh (its guest half)
#   /usr/bin/trace-cmd         the host's trace-cmd with its shared libraries
#   /usr/bin/<name>            every EXTRA binary, with its shared libraries
#
# With -Q also QEMU as a VMM inside the guest (qemu-vmm.sh):
#   /usr/bin/qemu-system-x86_64  the host's, with its shared libraries
#   /usr/share/seabios/, /usr/share/qemu/  the firmware -kernel needs
#   /usr/bin/msc-qemu-vmm      tests/nested/qemu-vmm.sh
#   /usr/share/msc-l2/vmlinuz  the L2 kernel: the release's own vmlinuz
#   /usr/share/msc-l2/initramfs.cpio.gz  busybox-static, /init =
#                              tests/nested/l2-init.sh
#
# Usage: build-initramfs.sh [-f] [-Q] [-k RELEASE] [EXTRA_BINARY...]
#   -f          rebuild even when the initramfs is up to date
#   -Q          add QEMU, its firmware, the L2 kernel and initramfs (above)
#   -k RELEASE  the kernel release (or $NESTED_KVER; default
#               $NESTED_DIR/kernel/current); fetched with fetch-kernel.sh
#               when it is not unpacked yet
# Output: $NESTED_DIR/kernel/<release>/initramfs.cpio.gz, one per release
# (rebuilt only when an input changed), so that kernels can alternate
# without a rebuild each time.
set -euo pipefail
. "$(dirname "$0")/common.sh"

FORCE=0
QEMU_VMM=0
KVER=${NESTED_KVER:-}
while [ $# -gt 0 ]; do
	case $1 in
	-f) FORCE=1; shift ;;
	-Q) QEMU_VMM=1; shift ;;
	-k) [ $# -ge 2 ] || die "-k needs a release"; KVER=$2; shift 2 ;;
	*) break ;;
	esac
done
EXTRA=()
for b in "$@"; do
	[ -f "$b" ] && [ -x "$b" ] || die "extra binary '$b' is not an executable file"
	EXTRA+=("$(cd "$(dirname "$b")" && pwd)/$(basename "$b")")
done

need_static_busybox
need cpio:cpio gzip:gzip depmod:kmod trace-cmd:trace-cmd gcc:gcc ldd:libc-bin
[ -e /usr/include/linux/kvm.h ] || need __no_such_command__:linux-libc-dev

if [ -n "$KVER" ]; then
	[ -e "$NESTED_DIR/kernel/$KVER/.complete" ] ||
		KVER=$("$NESTED_SRC/fetch-kernel.sh" "$KVER")
else
	KVER=$(kernel_current)
	if [ -z "$KVER" ] || [ ! -e "$NESTED_DIR/kernel/$KVER/.complete" ]; then
		KVER=$("$NESTED_SRC/fetch-kernel.sh")
	fi
fi
KDIR=$NESTED_DIR/kernel/$KVER
OUT=$KDIR/initramfs.cpio.gz
STAMP=$KDIR/initramfs.inputs

# The workload: static, so it needs nothing from the initramfs.
DIRTYLOG=$NESTED_DIR/dirtylog
SRC=$NESTED_TOP/workload/dirtylog.c
if [ ! -x "$DIRTYLOG" ] || [ "$SRC" -nt "$DIRTYLOG" ]; then
	msg "building $DIRTYLOG"
	mkdir -p "$NESTED_DIR"
	${CC:-gcc} -std=gnu17 -O2 -g -Wall -Wextra -static -pthread \
		-o "$DIRTYLOG" "$SRC"
fi

# Up to date when nothing newer than the output and the same input list.
inputs="kver=$KVER extra=${EXTRA[*]:-}"
[ "$QEMU_VMM" = 0 ] || inputs="$inputs qemu-vmm"
if [ "$FORCE" = 0 ] && [ -e "$OUT" ] && [ "$(cat "$STAMP" 2>/dev/null)" = "$inputs" ]; then
	stale=0
	for f in "$DIRTYLOG" "$NESTED_SRC/guest-init.sh" "$NESTED_SRC/capture.sh" \
		 "$0" "$KDIR/.complete" "$(command -v trace-cmd)" ${EXTRA[@]+"${EXTRA[@]}"} \
		 "$NESTED_SRC/qemu-vmm.sh" "$NESTED_SRC/l2-init.sh"; do
		[ "$f" -nt "$OUT" ] && stale=1
	done
	if [ $stale = 0 ]; then
		msg "initramfs up to date: $OUT"
		exit 0
	fi
fi

R=$KDIR/rootfs
rm -rf "$R"
mkdir -p "$R"/{bin,sbin,etc,proc,sys,dev,tmp,mnt/out,root,usr/bin,usr/sbin,lib/modules}

cp /bin/busybox "$R/bin/busybox"
for a in $("$R/bin/busybox" --list); do
	[ "$a" = busybox ] || ln -sf busybox "$R/bin/$a"
done

cp -a "$KDIR/modules/lib/modules/$KVER" "$R/lib/modules/"

# copy_bin FILE: into /usr/bin with the shared libraries ldd names.
copy_bin() {
	local lib

	cp -L "$1" "$R/usr/bin/$(basename "$1")"
	for lib in $(ldd "$1" 2>/dev/null | awk '/=> \// { print $3 } /^\t\/.*ld-linux/ { print $1 }'); do
		mkdir -p "$R$(dirname "$lib")"
		cp -L "$lib" "$R$lib"
	done
}
copy_bin "$(command -v trace-cmd)"
for b in ${EXTRA[@]+"${EXTRA[@]}"}; do
	copy_bin "$b"
done
# /lib64/ld-linux-x86-64.so.2 is what binaries name as interpreter
if [ -e "$R/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" ] && [ ! -e "$R/lib64/ld-linux-x86-64.so.2" ]; then
	mkdir -p "$R/lib64"
	cp -L /lib64/ld-linux-x86-64.so.2 "$R/lib64/"
fi

# QEMU as the VMM (-Q): -kernel boots need SeaBIOS, linuxboot_dma.bin and
# kvmvapic.bin (pvh.bin for an ELF kernel, qboot.rom for -bios); -nodefaults
# spares the VGA and NIC ROMs.
if [ "$QEMU_VMM" = 1 ]; then
	need qemu-system-x86_64:qemu-system-x86
	copy_bin "$(command -v qemu-system-x86_64)"
	mkdir -p "$R/usr/share/seabios" "$R/usr/share/qemu" "$R/usr/share/msc-l2"
	cp -L /usr/share/seabios/bios-256k.bin "$R/usr/share/seabios/"
	for f in linuxboot_dma.bin linuxboot.bin kvmvapic.bin pvh.bin qboot.rom; do
		cp -L "/usr/share/qemu/$f" "$R/usr/share/qemu/"
	done
	cp "$NESTED_SRC/qemu-vmm.sh" "$R/usr/bin/msc-qemu-vmm"
	chmod 755 "$R/usr/bin/msc-qemu-vmm"
	cp "$KDIR/vmlinuz" "$R/usr/share/msc-l2/vmlinuz"
	L2R=$KDIR/rootfs-l2
	rm -rf "$L2R"
	mkdir -p "$L2R"/{bin,sbin,proc,sys,dev,tmp,usr/bin,usr/sbin}
	cp /bin/busybox "$L2R/bin/busybox"
	for a in $("$L2R/bin/busybox" --list); do
		[ "$a" = busybox ] || ln -sf busybox "$L2R/bin/$a"
	done
	cp "$NESTED_SRC/l2-init.sh" "$L2R/init"
	chmod 755 "$L2R/init"
	(cd "$L2R" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -1) \
		> "$R/usr/share/msc-l2/initramfs.cpio.gz"
fi

cp "$DIRTYLOG" "$R/usr/bin/dirtylog"
cp "$NESTED_SRC/capture.sh" "$R/usr/bin/msc-capture"
cp "$NESTED_SRC/guest-init.sh" "$R/init"
chmod 755 "$R/init" "$R/usr/bin/msc-capture"
echo "root:x:0:0:root:/root:/bin/sh" > "$R/etc/passwd"

(cd "$R" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -1) > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
echo "$inputs" > "$STAMP"
msg "built $OUT ($(du -h "$OUT" | cut -f1), kernel $KVER${EXTRA[*]:+, extra: ${EXTRA[*]}}$([ "$QEMU_VMM" = 0 ] || echo ", QEMU as VMM"))"
