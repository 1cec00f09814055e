#!/bin/sh
# guest-init.sh - /init of the nested (L1) guest's busybox initramfs.
#
# Mounts the pseudo file systems and the 9p share (mount tag "out", the host
# output directory), loads kvm and kvm_amd (or kvm_intel) with the module
# parameters given on the kernel command line, mounts tracefs, runs the job,
# leaves the results on the share and always powers off.
#
# Under Bochs (bochs.sh, Intel VMX + EPT) there is no 9p: with msc.out=disk
# the output directory is /tmp/out, filled first with what the initramfs
# holds in /etc/msc/share/ (the job script, as the share would), and at the
# end written as one tar, raw, onto the first IDE disk (ata_piix + sd_mod),
# then "msc-init[UPTIME]: MSC-DONE" is printed for the host.
#
# Kernel command line (all optional):
#   msc.npt=0|1          kvm_amd npt= (kvm_intel ept=), default 1
#   msc.tdp_mmu=0|1      kvm tdp_mmu=, default 1
#   msc.eager_split=0|1  kvm eager_page_split=, default 1
#   msc.kvm=a=1,b=2      more kvm module parameters
#   msc.pml=0|1          kvm_intel pml= (default: the module's, Y with PML)
#   msc.eptad=0|1        kvm_intel eptad= (default: the module's)
#   msc.vmx=a=1,b=2      more kvm_intel parameters
#   msc.out=9p|disk      where the results go (default 9p)
#   msc.cmd=prog,arg,..  command to run (commas become spaces)
#   msc.script=FILE      script on the share to run (default guest.sh)
# msc.cmd wins over msc.script; with neither, only the probe runs.
#
# Written to the share: guest.log (this script's log), output.log (the
# job's stdout and stderr), rc (the job's exit status, or "nokvm"),
# probe.txt, kvm_params.txt, uname, cmdline, dmesg.txt.
# The job runs in the share directory with OUT set to it.

export PATH=/usr/bin:/usr/sbin:/bin:/sbin
OUT=/mnt/out

up() {
	cut -d' ' -f1 /proc/uptime
}

log() {
	echo "msc-init[$(up)]: $*"
}

getarg() {
	v=$(tr ' ' '\n' < /proc/cmdline | sed -n "s/^$1=//p" | tail -n 1)
	echo "${v:-$2}"
}

mount_all() {
	mount -t proc proc /proc
	mount -t sysfs sysfs /sys
	mount -t devtmpfs devtmpfs /dev 2>/dev/null
	mkdir -p /dev/pts /dev/shm
	mount -t tmpfs tmpfs /tmp
	mount -t tracefs tracefs /sys/kernel/tracing
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	mkdir -p /dev/hugepages
	mount -t hugetlbfs hugetlbfs /dev/hugepages 2>/dev/null
}

mount_share() {
	modprobe virtio_pci 2>/dev/null
	modprobe 9pnet_virtio && modprobe 9p || return 1
	mkdir -p $OUT
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 out $OUT
}

# the results disk of msc.out=disk: the first sd disk (ata_piix, sd_mod)
find_disk() {
	modprobe ata_piix && modprobe sd_mod || return 1
	i=0
	while [ $i -lt 30 ]; do
		for d in /dev/sd[a-z]; do
			[ -b "$d" ] && { DISK=$d; return 0; }
		done
		sleep 1
		i=$((i + 1))
	done
	return 1
}

# save_disk: the output directory as one tar, raw, on $DISK
save_disk() {
	if [ -z "$DISK" ]; then
		log "no results disk: results lost"
		return 1
	fi
	(cd $OUT && tar cf /tmp/results.tar .) || { log "tar failed"; return 1; }
	size=$(wc -c < /tmp/results.tar)
	disk=$(( $(cat /sys/class/block/"${DISK#/dev/}"/size) * 512 ))
	if [ "$size" -gt "$disk" ]; then
		log "results ($size bytes) larger than $DISK ($disk bytes): lost"
		return 1
	fi
	dd if=/tmp/results.tar of="$DISK" bs=64k conv=fsync 2>/dev/null &&
	log "results written to $DISK: $size bytes"
}

load_kvm() {
	npt=$(getarg msc.npt 1)
	tdp=$(getarg msc.tdp_mmu 1)
	eager=$(getarg msc.eager_split 1)
	extra=$(getarg msc.kvm "" | tr ',' ' ')

	log "modprobe kvm tdp_mmu=$tdp eager_page_split=$eager $extra"
	# shellcheck disable=SC2086
	modprobe kvm tdp_mmu="$tdp" eager_page_split="$eager" $extra || return 1
	if grep -q -m 1 AuthenticAMD /proc/cpuinfo; then
		log "modprobe kvm_amd npt=$npt"
		modprobe kvm_amd npt="$npt"
	else
		pml=$(getarg msc.pml "")
		eptad=$(getarg msc.eptad "")
		vmx=$(getarg msc.vmx "" | tr ',' ' ')
		log "modprobe kvm_intel ept=$npt${pml:+ pml=$pml}${eptad:+ eptad=$eptad}${vmx:+ $vmx}"
		# shellcheck disable=SC2086
		modprobe kvm_intel ept="$npt" ${pml:+pml="$pml"} ${eptad:+eptad="$eptad"} $vmx
	fi
}

save_params() {
	for f in /sys/module/kvm*/parameters/*; do
		[ -r "$f" ] || continue
		m=${f#/sys/module/}
		m=${m%%/*}
		v=$(cat "$f" 2>/dev/null) || continue
		echo "$m.$(basename "$f")=$v"
	done > $OUT/kvm_params.txt
}

probe() {
	{
		echo "kernel=$(uname -r)"
		echo "cpu_vendor=$(sed -n 's/^vendor_id[^:]*: //p' /proc/cpuinfo | head -n 1)"
		echo "cpu_model=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)"
		echo "cpu_virt_flags=$(grep -m 1 '^flags' /proc/cpuinfo | tr ' ' '\n' |
			grep -E '^(svm|npt|vmx|ept|ept_ad|vpid|nrip_save|vgif|pdpe1gb|flushbyasid|decodeassists)$' |
			tr '\n' ' ')"
		vmxf=$(sed -n 's/^vmx flags[^:]*: //p' /proc/cpuinfo | head -n 1)
		[ -z "$vmxf" ] || echo "vmx_flags=$vmxf"
		echo "nproc=$(nproc)"
		echo "mem_total_kb=$(sed -n 's/^MemTotal: *\([0-9]*\).*/\1/p' /proc/meminfo)"
		echo "hugepages_1g=$(cat /sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages 2>/dev/null || echo 0)"
		echo "hugepages_2m=$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages 2>/dev/null || echo 0)"
		echo "thp_enabled=$(cat /sys/kernel/mm/transparent_hugepage/enabled)"
		echo "modules=$(lsmod | awk 'NR > 1 { print $1 }' | sort | tr '\n' ' ')"
		if [ -c /dev/kvm ]; then
			echo "dev_kvm=yes"
		else
			echo "dev_kvm=no"
		fi
	} > $OUT/probe.txt
	cat $OUT/probe.txt
}

run_job() {
	cmd=$(getarg msc.cmd "" | tr ',' ' ')
	script=$(getarg msc.script guest.sh)

	if [ ! -c /dev/kvm ]; then
		log "no /dev/kvm; job not run"
		echo nokvm > $OUT/rc
		return
	fi
	cd $OUT || return
	export OUT
	if [ -n "$cmd" ]; then
		log "running: $cmd"
		# shellcheck disable=SC2086
		$cmd > $OUT/output.log 2>&1
	elif [ -f "$OUT/$script" ]; then
		log "running script $script"
		sh "$OUT/$script" > $OUT/output.log 2>&1
	else
		log "nothing to run (probe only)"
		echo 0 > $OUT/rc
		return
	fi
	rc=$?
	echo $rc > $OUT/rc
	cd /
	sed 's/^/  | /' $OUT/output.log
	log "job exit status $rc"
}

main() {
	log "kernel $(uname -r), cmdline: $(cat /proc/cmdline)"
	load_kvm || log "loading KVM failed"
	probe
	save_params
	uname -r > $OUT/uname
	cat /proc/cmdline > $OUT/cmdline
	run_job
	dmesg > $OUT/dmesg.txt
}

mount_all
DISK=""
if [ "$(getarg msc.out 9p)" = disk ]; then
	OUT=/tmp/out
	mkdir -p $OUT
	[ ! -d /etc/msc/share ] || cp -a /etc/msc/share/. $OUT/
	find_disk || log "no IDE disk for the results"
elif ! mount_share; then
	echo "msc-init: 9p share not available; results are lost"
	OUT=/tmp/out
	mkdir -p $OUT
fi
# A subshell, so that nothing in main can end init without a power off.
( main ) 2>&1 | tee $OUT/guest.log
if [ "$(getarg msc.out 9p)" = disk ]; then
	save_disk
	log "MSC-DONE"
fi
log "powering off"
sync
umount $OUT 2>/dev/null
poweroff -f
# poweroff failed: init exits, the kernel panics, panic=-1 + -no-reboot ends QEMU
echo o > /proc/sysrq-trigger
