#!/bin/bash
# bochs.sh - the Intel EPT twin of run.sh: boot one of Debian's kernels
# (6.12 by default, see fetch-kernel.sh) under Debian 12's Bochs 2.7, which
# emulates an Intel CPU with VMX, EPT, EPT A/D bits and PML (CPU model
# corei7_skylake_x), so that kvm_intel loads with ept=Y inside; run one job
# (see guest-init.sh, msc.out=disk) and bring the results out.
#
# Usage: bochs.sh [options] [-- COMMAND [ARG...]]
#   -k RELEASE   kernel release to boot (or $NESTED_KVER; default
#                $NESTED_DIR/kernel/current, the 6.12 one); fetched first
#                when it is not unpacked. 7.x needs -a clearcpuid=avx512f
#   -m MiB       guest memory (default 1024)
#   -s N         guest CPUs (default 1); Bochs runs them all in its one
#                thread, so more CPUs are no faster
#   -c MODEL     Bochs CPU model (default corei7_skylake_x)
#   -a ARGS      extra kernel command line, e.g. "msc.pml=0",
#                "msc.eptad=0", "clearcpuid=avx512f" (may be repeated)
#   -S SCRIPT    shell script to run in the guest
#   -e BINARY    extra binary for the initramfs (may be repeated)
#   -o DIR       output directory (default $NESTED_DIR/runs/last; emptied
#                first)
#   -t SECONDS   bound on the Bochs run (default 1200)
#   -D MiB       size of the results disk (default 128)
#   COMMAND      command to run in the guest instead of a script (as
#                run.sh: /usr/bin/dirtylog, /usr/bin/msc-capture)
# The initramfs is build-initramfs.sh's (the same rootfs as QEMU's) with
# the IDE disk modules added (ata_piix, sd_mod and their dependencies,
# unpacked once from the cached kernel package into
# $NESTED_DIR/kernel/<release>/bochs-modules/), kvm_amd and 9p dropped, and
# the job in /etc/msc/share/guest.sh. Bochs has no direct kernel boot: an
# isolinux ISO carries the kernel, the initramfs and the command line. The
# guest writes its output directory as a tar onto a raw IDE disk, which is
# unpacked into DIR. DIR also gets console.log (the serial console),
# bochsrc, kernel_cmdline.txt, bochs.log (Bochs's log, its first and last
# lines) and bochs_cmd.txt (the kernel package(s), the Bochs command line
# and the host wall time). Scratch lives in a mktemp directory under
# $NESTED_DIR, removed on exit. Exit status: the job's, 124 on timeout, 1
# otherwise.
set -euo pipefail
. "$(dirname "$0")/common.sh"

MEM=1024
SMP=1
CPU=corei7_skylake_x
APPEND=""
SCRIPT=""
EXTRA=()
OUTDIR=$NESTED_DIR/runs/last
TIMEOUT=1200
DISK_MB=128
KOPT=${NESTED_KVER:-}

usage() {
	sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
}

while getopts "k:m:s:c:a:S:e:o:t:D:h" opt; do
	case $opt in
	k) KOPT=$OPTARG ;;
	m) MEM=$OPTARG ;;
	s) SMP=$OPTARG ;;
	c) CPU=$OPTARG ;;
	a) APPEND="$APPEND $OPTARG" ;;
	S) SCRIPT=$OPTARG ;;
	e) EXTRA+=("$OPTARG") ;;
	o) OUTDIR=$OPTARG ;;
	t) TIMEOUT=$OPTARG ;;
	D) DISK_MB=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ -z "$SCRIPT" ] || [ $# = 0 ] || die "give either -S SCRIPT or a COMMAND, not both"
[ -z "$SCRIPT" ] || [ -f "$SCRIPT" ] || die "no script $SCRIPT"
case $MEM$SMP$DISK_MB$TIMEOUT in
*[!0-9]*) die "-m, -s, -D and -t take numbers" ;;
esac

need bochs-bin:bochs xorriso:xorriso timeout:coreutils tar:tar dpkg-deb:dpkg \
	depmod:kmod modprobe:kmod xz:xz-utils
[ -e /usr/lib/ISOLINUX/isolinux.bin ] || need __no_such_command__:isolinux
[ -e /usr/lib/syslinux/modules/bios/ldlinux.c32 ] || need __no_such_command__:syslinux-common
# the BIOS images (dependencies of bochs)
[ -e /usr/share/bochs/BIOS-bochs-latest ] || need __no_such_command__:bochsbios
[ -e /usr/share/vgabios/vgabios.bin ] || need __no_such_command__:vgabios

"$NESTED_SRC/build-initramfs.sh" ${KOPT:+-k "$KOPT"} ${EXTRA[@]+"${EXTRA[@]}"}
KVER=${KOPT:-$(kernel_current)}
KDIR=$NESTED_DIR/kernel/$KVER
[ -e "$KDIR/vmlinuz" ] && [ -d "$KDIR/rootfs" ] || die "kernel or initramfs tree of $KVER missing"

# --- the IDE disk modules, from the cached kernel package --------------------
MODS=$KDIR/bochs-modules
if [ ! -e "$MODS/.complete" ]; then
	DEB=""
	for f in "$NESTED_DIR"/cache/linux-image-"$KVER"-unsigned_*.deb \
		 "$NESTED_DIR"/cache/linux-modules-"$KVER"_*.deb; do
		[ -e "$f" ] && { DEB=$f; break; }
	done
	[ -n "$DEB" ] || die "no module package of $KVER in $NESTED_DIR/cache"
	msg "unpacking the modules of $(basename "$DEB") into $MODS"
	rm -rf "$MODS"
	mkdir -p "$MODS/x" "$MODS/lib/modules"
	# 6.12: lib/modules/REL in the image package; 7.x: usr/lib/modules/REL
	dpkg-deb --fsys-tarfile "$DEB" | tar -x -C "$MODS/x" --wildcards '*/modules/*'
	for d in "$MODS/x/lib/modules/$KVER" "$MODS/x/usr/lib/modules/$KVER"; do
		[ -d "$d" ] && mv "$d" "$MODS/lib/modules/"
	done
	rm -rf "$MODS/x"
	[ -d "$MODS/lib/modules/$KVER" ] || die "no lib/modules/$KVER in $DEB"
	# 7.x: modules.builtin and friends come from linux-base (fetch-kernel.sh)
	for f in modules.builtin modules.builtin.modinfo modules.order; do
		[ -e "$MODS/lib/modules/$KVER/$f" ] ||
			cp "$KDIR/modules/lib/modules/$KVER/$f" "$MODS/lib/modules/$KVER/" 2>/dev/null || true
	done
	depmod -b "$MODS" "$KVER"
	touch "$MODS/.complete"
fi

mkdir -p "$OUTDIR" "$NESTED_DIR/tmp"
OUTDIR=$(cd "$OUTDIR" && pwd)
find "$OUTDIR" -mindepth 1 -delete
W=$(mktemp -d "$NESTED_DIR/tmp/bochs.XXXXXX")
BPID=""
cleanup() {
	[ -z "$BPID" ] || kill -TERM "$BPID" 2>/dev/null || true
	rm -rf "$W"
}
trap cleanup EXIT

# --- the initramfs: the rig's rootfs, IDE modules in, kvm_amd and 9p out -----
R=$W/rootfs
cp -a "$KDIR/rootfs" "$R"
MD=$R/lib/modules/$KVER
modprobe -d "$MODS" -S "$KVER" --show-depends -a ata_piix sd_mod |
awk '$1 == "insmod" { print $2 }' | sort -u | while read -r ko; do
	rel=${ko#"$MODS/lib/modules/$KVER/"}
	dst=$MD/${rel%.xz}
	[ -e "$dst" ] && continue
	mkdir -p "$(dirname "$dst")"
	case $ko in
	*.xz) xz -dc "$ko" > "$dst" ;;
	*) cp "$ko" "$dst" ;;
	esac
done
find "$MD" \( -name 'kvm-amd.ko' -o -name 'ccp.ko' -o -name '9p*.ko' -o -name 'netfs.ko' \) -delete
depmod -b "$R" "$KVER"
mkdir -p "$R/etc/msc/share"
# quote ARG: one single-quoted word for /bin/sh
quote() {
	printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}
if [ -n "$SCRIPT" ]; then
	cp "$SCRIPT" "$R/etc/msc/share/guest.sh"
elif [ $# -gt 0 ]; then
	{
		printf '#!/bin/sh\nexec'
		for a in "$@"; do
			printf ' %s' "$(quote "$a")"
		done
		printf '\n'
	} > "$R/etc/msc/share/guest.sh"
fi
(cd "$R" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -1) > "$W/initrd.gz"
rm -rf "$R"

# --- a bootable ISO, the kernel command line in isolinux.cfg -----------------
KARGS="console=ttyS0,115200 loglevel=4 panic=-1 mitigations=off nokaslr tsc=reliable msc.out=disk${APPEND}"
case $KARGS in
*$'\n'*) die "a newline in the kernel command line" ;;
esac
ISO=$W/iso
mkdir -p "$ISO/isolinux"
cp /usr/lib/ISOLINUX/isolinux.bin /usr/lib/syslinux/modules/bios/ldlinux.c32 "$ISO/isolinux/"
cp "$KDIR/vmlinuz" "$ISO/vmlinuz"
mv "$W/initrd.gz" "$ISO/initrd.gz"
cat > "$ISO/isolinux/isolinux.cfg" <<EOF
DEFAULT msc
PROMPT 0
TIMEOUT 0
LABEL msc
  KERNEL /vmlinuz
  INITRD /initrd.gz
  APPEND $KARGS
EOF
xorriso -as mkisofs -quiet -o "$W/boot.iso" -b isolinux/isolinux.bin -c isolinux/boot.cat \
	-no-emul-boot -boot-load-size 4 -boot-info-table "$ISO" 2>/dev/null
rm -rf "$ISO"
msg "boot.iso $(du -h "$W/boot.iso" | cut -f1) (kernel $KVER)"

# --- the results disk: flat, CYL x 16 heads x 63 sectors ---------------------
CYL=$(( (DISK_MB * 1024 * 1024 + 16 * 63 * 512 - 1) / (16 * 63 * 512) ))
truncate -s $((CYL * 16 * 63 * 512)) "$W/out.img"

cat > "$W/bochsrc" <<EOF
# Bochs 2.7 (Debian 12): Intel VMX + EPT CPU; rfb display, no client waited
# for (Debian's build has no nogui); serial console to a file; no sound (its ALSA
# driver aborts, "buffer overflow detected", on a host without a default PCM)
display_library: rfb, options="timeout=0"
memory: guest=$MEM, host=$MEM
cpu: model=$CPU, count=$SMP, ips=100000000, reset_on_triple_fault=0, ignore_bad_msrs=1
clock: sync=none, time0=utc
romimage: file=/usr/share/bochs/BIOS-bochs-latest, options=fastboot
vgaromimage: file=/usr/share/vgabios/vgabios.bin
pci: enabled=1, chipset=i440fx
ata0: enabled=1, ioaddr1=0x1f0, ioaddr2=0x3f0, irq=14
ata1: enabled=1, ioaddr1=0x170, ioaddr2=0x370, irq=15
ata0-master: type=disk, mode=flat, path="out.img", cylinders=$CYL, heads=16, spt=63
ata1-master: type=cdrom, path="boot.iso", status=inserted
boot: cdrom
com1: enabled=1, mode=file, dev="console.log"
sound: driver=dummy
log: bochs.log
panic: action=fatal
error: action=report
info: action=report
debug: action=ignore
EOF
# Debian's bochs-bin has the internal debugger: it stops before the first
# instruction unless told to continue
echo c > "$W/debugger.rc"
cp "$W/bochsrc" "$OUTDIR/bochsrc"
echo "$KARGS" > "$OUTDIR/kernel_cmdline.txt"
BOCHS=(bochs-bin -q -f bochsrc -rc debugger.rc)
{
	if [ -s "$KDIR/packages" ] && ! grep -q '^linux-image-' "$KDIR/packages"; then
		echo "kernel: $(awk '{ print $1 }' "$KDIR/packages" | tr '\n' ' ')(Debian)"
	else
		echo "kernel: linux-image-$KVER-unsigned (Debian)"
	fi
	echo "bochs: $(dpkg-query -W -f '${Package} ${Version}' bochs 2>/dev/null || echo unknown)," \
	     "cpu model $CPU, $MEM MiB, $SMP CPU(s)"
	printf '%q ' timeout -k 10 "$TIMEOUT" "${BOCHS[@]}"
	echo
} > "$OUTDIR/bochs_cmd.txt"

# --- boot, bounded; once the guest says MSC-DONE it is stopped (our PID) -----
msg "booting $KVER under Bochs ($CPU x $SMP, $MEM MiB), bound ${TIMEOUT}s, output in $OUTDIR"
T0=$(date +%s.%N)
(cd "$W" && exec timeout -k 10 "$TIMEOUT" "${BOCHS[@]}" < /dev/null > bochs.stdout 2>&1) &
BPID=$!
seen=0
done_at=""
while kill -0 "$BPID" 2>/dev/null; do
	sleep 2
	# the guest's progress lines, as they come
	n=$(grep -ac 'msc-init\[' "$W/console.log" 2>/dev/null || true)
	if [ "${n:-0}" -gt "$seen" ]; then
		grep -a 'msc-init\[' "$W/console.log" | tail -n +$((seen + 1)) | head -n $((n - seen)) |
			sed 's/\r$//; s/^/bochs: /' >&2
		seen=$n
	fi
	if [ -z "$done_at" ] && grep -aq 'MSC-DONE' "$W/console.log" 2>/dev/null; then
		done_at=$(date +%s)
	fi
	# the guest powers off itself (ACPI ends Bochs); give it 20 s after DONE
	if [ -n "$done_at" ] && [ $(( $(date +%s) - done_at )) -ge 20 ]; then
		msg "guest done; stopping Bochs"
		kill -TERM "$BPID" 2>/dev/null || true
		break
	fi
	if [ "$(stat -c %s "$W/bochs.log" 2>/dev/null || echo 0)" -gt 300000000 ]; then
		msg "bochs.log over 300 MB; stopping Bochs"
		kill -TERM "$BPID" 2>/dev/null || true
		break
	fi
done
set +e
wait "$BPID"
BRC=$?
set -e
BPID=""
T1=$(date +%s.%N)
WALL=$(awk -v a="$T0" -v b="$T1" 'BEGIN { printf "%.1f", b - a }')
echo "host wall time: ${WALL}s (bochs exit status $BRC)" | tee -a "$OUTDIR/bochs_cmd.txt" >&2

sed 's/\r$//' "$W/console.log" > "$OUTDIR/console.log" 2>/dev/null || true
if [ -e "$W/bochs.log" ]; then
	{ head -n 200 "$W/bochs.log"; echo "[...]"; tail -n 100 "$W/bochs.log"; } > "$OUTDIR/bochs.log"
fi
if [ -z "$done_at" ] && { [ "$BRC" = 124 ] || [ "$BRC" = 137 ]; }; then
	msg "Bochs timed out after ${TIMEOUT}s"
	exit 124
fi
# the results: a tar written raw from the disk's first sector (the rest is
# zeros, which end the archive)
if ! tar -x -C "$OUTDIR" -f "$W/out.img" 2>"$W/tar.err"; then
	msg "no results on the disk: $(head -n 1 "$W/tar.err")"
	exit 1
fi
RC=$(cat "$OUTDIR/rc" 2>/dev/null || echo missing)
case $RC in
0) exit 0 ;;
[0-9]*) msg "guest job failed with status $RC"; exit "$RC" ;;
*) msg "guest job did not complete (rc: $RC)"; exit 1 ;;
esac
