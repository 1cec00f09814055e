#!/bin/sh
# l2-init.sh - /init of the L2 guest that QEMU runs inside the L1 guest
# (qemu-vmm.sh, build-initramfs.sh -Q): a busybox initramfs that prints
# "MSC-L2-READY" on the serial console and then writes its memory forever,
# so that the VMM's dirty logging has pages to find.
#
# Kernel command line: msc.l2_mb=N, the MiB rewritten per pass (default 32),
# in files of 1 MiB on a tmpfs; msc.l2_passes=N, stop writing after N
# passes and idle (default 0: write until QEMU ends).
#
# POSIX sh: it runs under busybox.
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /w
mount -t tmpfs -o size=90% tmpfs /w
mb=$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^msc.l2_mb=//p' | tail -n 1)
mb=${mb:-32}
passes=$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^msc.l2_passes=//p' | tail -n 1)
passes=${passes:-0}
echo "msc-l2: $(uname -r), $(sed -n 's/^MemTotal: *//p' /proc/meminfo), writing $mb MiB per pass"
echo "MSC-L2-READY"
pass=0
while :; do
	i=0
	while [ $i -lt "$mb" ]; do
		dd if=/dev/zero of=/w/$i bs=64k count=16 conv=notrunc 2>/dev/null
		i=$((i + 1))
	done
	pass=$((pass + 1))
	echo "msc-l2: pass $pass"
	if [ "$pass" = "$passes" ]; then
		echo "msc-l2: idle"
		while :; do sleep 1000; done
	fi
done
