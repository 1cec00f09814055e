// SPDX-License-Identifier: GPL-2.0-only
/*
 * KVM's own counters of every VM on the host (or of one VMM process):
 * pages_4k/2m/1g and the remote TLB flush counts, the ground truth the
 * rebuilt census is checked against; and the page faults of the VM's
 * vCPUs (pf_taken, pf_fixed, pf_fast), which a light recording counts
 * with instead of tracing them.
 *
 * Two ways to read them (enum msc_kvm_via; by default debugfs when it is
 * mounted and readable, else the stats fds):
 *  - debugfs: KVM makes one directory per VM, <debugfs>/kvm/<pid>-<fd>/,
 *    holding one file per VM stat, and one per vCPU stat that sums it over
 *    the VM's vCPUs: an open (relative to <debugfs>/kvm, opened once a
 *    read to list the VMs), a read and a close per counter;
 *  - the binary stats fds the VMM holds (lib/kvm-statfd.c): only the VM's
 *    own process may ask KVM for one, but any process may read it, so the
 *    VMM's are copied (found in /proc/<pid>/fd as "anon_inode:kvm-vm-stats"
 *    and "anon_inode:kvm-vcpu-stats:<id>"): one pread() for the census, one
 *    per vCPU for the faults.  The upstream selftests (kvm_util, 7.x) and
 *    the project's workload hold them; a VMM that holds none (QEMU 7.2) has
 *    nothing to read this way.  A stats fd does not say which VM it is of:
 *    those of a process that holds one VM are that VM's, and a process that
 *    holds several VMs is not read.
 * Reading a VM already known allocates nothing; the tables grow when VMs
 * and vCPUs appear, and a scan of /proc lists each process's KVM fds, every
 * RESCAN_EVERY reads (less often where a scan is long: SCAN_SHARE); a
 * process the recording shows making a VM (its KVM_CREATE_VM's exit) is
 * looked at every read until its VM's census can be read (for at most
 * NEW_VMM_LOOKS reads), so that a VM is read before its first step however
 * soon that comes.
 *
 * KVM updates each counter on its own, and a split or a zap moves several
 * at once, so one read of the five census and flush counters can mix two
 * moments.  A sample is only returned once a read agrees with the one
 * before it (the VM's last sample, or another read now): a state KVM held
 * across both reads.  A VM whose counters move during every try is left
 * out of this sample.  The faults take no part: they move at every vCPU
 * fault, and are read once, after the census.
 *
 * The faults read from stats fds sum the vCPUs found so far: pf_vcpus says
 * how many, so that two reads are compared only over the same vCPUs.
 *
 * A read while the VM's VMM is inside one of the recorded KVM ioctls (a
 * dirty-log step) serves no step, since a step's census is the reads
 * before its start and after its end, and it takes CPU from that step.
 * Handed the recording's events (msc_kvm_sampler_note()), the sampler
 * leaves such a VM out of the reads until the ioctl's exit: a task is
 * inside one from its sys_enter_ioctl to its next sys_exit_ioctl.  Once
 * events were lost an exit may be among them, so nothing counts as inside
 * any more.
 */
#include "mmuscope/live.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/kvm.h>

#include "kvm-stats-local.h"
#include "mmuscope/event.h"
#include "mmuscope/util.h"

/*
 * Processes rescanned in /proc every this many reads (a scan reads every
 * fd), and never for more than 1 / SCAN_SHARE of the time: after a scan
 * that took D, the next waits until SCAN_SHARE x D has passed since that
 * one began.  A host of a hundred processes is scanned every RESCAN_EVERY
 * reads; one of thousands, whose scan costs more than a period, less often,
 * its new VMs found through their KVM_CREATE_VM meanwhile.
 */
#define RESCAN_EVERY 10
#define SCAN_SHARE 100
/* Reads of one VM's census until two in a row agree. */
#define SETTLE_TRIES 4
/* Tasks inside a recorded KVM ioctl at once, at most: more are read anyway. */
#define MAX_INSIDE 64
/* Processes that made a VM and are looked at each read, at most (the rest: every RESCAN_EVERY). */
#define MAX_NEW_VMMS 16
/* Reads a process that made a VM is looked at without its VM's stats fd (QEMU 7.2 holds none). */
#define NEW_VMM_LOOKS 100

enum { ST_4K, ST_2M, ST_1G, ST_FLUSH, ST_FLUSH_REQ, NR_VM_STATS };
enum { PF_TAKEN, PF_FIXED, PF_FAST, NR_PF };

static const char *const vm_stats[NR_VM_STATS] = {
	[ST_4K] = "pages_4k",
	[ST_2M] = "pages_2m",
	[ST_1G] = "pages_1g",
	[ST_FLUSH] = "remote_tlb_flush",
	[ST_FLUSH_REQ] = "remote_tlb_flush_requests",
};

static const char *const pf_stats[NR_PF] = {
	[PF_TAKEN] = "pf_taken",
	[PF_FIXED] = "pf_fixed",
	[PF_FAST] = "pf_fast",
};

struct vcpu {
	int fd;				/* the VMM's vCPU stats fd */
	struct kvm_statfd stats;
};

struct vm {
	int pid, fd;			/* the VMM and its VM fd: "<pid>-<fd>" */
	ino_t ino;			/* debugfs: its directory's inode */
	int file;			/* stats fds: our copy of the VM fd (kcmp) */
	int stats_at;			/* ... the VMM's VM stats fd, -1: none */
	struct kvm_statfd stats;	/* ... our copy of it */
	struct vcpu *vcpus;		/* ... and of its vCPUs' */
	size_t nr_vcpus, cap_vcpus;
	int64_t last[NR_VM_STATS];	/* the census of its last sample */
	unsigned int readable;		/* the counters its last sample read (readable()) */
	bool has_last, seen;
};

/* A task inside a recorded KVM ioctl, its process and the request. */
struct inside {
	int32_t tid, tgid;
	uint32_t cmd;
};

struct msc_kvm_sampler {
	char kvm_dir[512];		/* "<debugfs>/kvm"; "": stats fds */
	char proc[256];
	int pid;			/* > 0: only this VMM */
	struct vm *vms;
	size_t nr_vms, cap;
	unsigned int reads;
	struct inside inside[MAX_INSIDE];	/* msc_kvm_sampler_note() */
	size_t nr_inside;
	struct new_vmm {		/* ... made a VM (stats fds, no --pid): no census yet */
		int pid;
		unsigned int looks;
	} new_vmms[MAX_NEW_VMMS];
	size_t nr_new_vmms;
	uint64_t skipped;		/* VM reads left out for an ioctl */
	uint64_t scan_due_ns;		/* CLOCK_MONOTONIC: no /proc scan before it */
	struct msc_kvm_scans scans;
};

static bool readable_dir(const char *path)
{
	DIR *d = opendir(path);

	if (d)
		closedir(d);
	return d != NULL;
}

/**
 * msc_kvm_sampler_open - prepare to read KVM's counters
 * @debugfs: where debugfs is mounted (NULL: /sys/kernel/debug)
 * @proc: where procfs is mounted (NULL: /proc)
 * @pid: > 0 to read only the VMs of this process
 * @via: where the counters come from (see the top of this file)
 * @ret: the sampler, closed with msc_kvm_sampler_close()
 *
 * Returns 0, -ENOMEM, or -ENOENT for MSC_KVM_VIA_DEBUGFS without a
 * readable <debugfs>/kvm.  A host without VMs is fine: reads return none.
 */
int msc_kvm_sampler_open(const char *debugfs, const char *proc, int pid, enum msc_kvm_via via,
			 struct msc_kvm_sampler **ret)
{
	struct msc_kvm_sampler *k = calloc(1, sizeof(*k));

	if (!k)
		return -ENOMEM;
	snprintf(k->kvm_dir, sizeof(k->kvm_dir), "%s/kvm", debugfs ? debugfs : "/sys/kernel/debug");
	if (via == MSC_KVM_VIA_STATS_FD || !readable_dir(k->kvm_dir))
		k->kvm_dir[0] = '\0';
	if (via == MSC_KVM_VIA_DEBUGFS && !k->kvm_dir[0]) {
		free(k);
		return -ENOENT;
	}
	snprintf(k->proc, sizeof(k->proc), "%s", proc ? proc : "/proc");
	k->pid = pid;
	*ret = k;
	return 0;
}

static void drop_vm(struct msc_kvm_sampler *k, size_t i)
{
	struct vm *vm = &k->vms[i];

	for (size_t c = 0; c < vm->nr_vcpus; c++)
		kvm_statfd_close(&vm->vcpus[c].stats);
	free(vm->vcpus);
	kvm_statfd_close(&vm->stats);
	if (vm->file >= 0)
		close(vm->file);
	*vm = k->vms[--k->nr_vms];
}

void msc_kvm_sampler_close(struct msc_kvm_sampler *k)
{
	if (!k)
		return;
	while (k->nr_vms)
		drop_vm(k, k->nr_vms - 1);
	free(k->vms);
	free(k);
}

/** msc_kvm_sampler_method - "debugfs" or "stats-fd" */
const char *msc_kvm_sampler_method(const struct msc_kvm_sampler *k)
{
	return k->kvm_dir[0] ? "debugfs" : "stats-fd";
}

/* ---- the ioctls in flight ---- */

/* File @path (relative to @dir) into @buf, NUL-terminated; false when it cannot be read. */
static bool read_small(int dir, const char *path, char *buf, size_t size)
{
	int fd = openat(dir, path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return true;
}

/* The process of task @tid (/proc/<tid>/status's Tgid), -1 when it is gone. */
static int32_t tgid_of(const struct msc_kvm_sampler *k, int32_t tid)
{
	char path[300], buf[512], *t;

	snprintf(path, sizeof(path), "%s/%d/status", k->proc, tid);
	if (!read_small(AT_FDCWD, path, buf, sizeof(buf)))
		return -1;
	t = strstr(buf, "\nTgid:");
	return t ? (int32_t)strtol(t + 6, NULL, 10) : -1;
}

/**
 * msc_kvm_sampler_note - an event of the recording, in stream order: the
 *	sampler follows which VMMs are inside a recorded KVM ioctl
 * @k: the sampler
 * @ev: the event; only ioctls and lost events matter
 */
void msc_kvm_sampler_note(struct msc_kvm_sampler *k, const struct msc_event *ev)
{
	size_t i;

	if (ev->type == MSC_EV_LOST) {
		k->nr_inside = 0;	/* an exit may be among them */
		return;
	}
	if (ev->type != MSC_EV_IOCTL || (ev->ioctl.exit && !k->nr_inside))
		return;
	for (i = 0; i < k->nr_inside && k->inside[i].tid != ev->pid; i++)
		;
	if (i < k->nr_inside) {	/* its exit, or an enter whose exit was not seen */
		if (ev->ioctl.exit && k->inside[i].cmd == KVM_CREATE_VM && ev->ioctl.ret >= 0 &&
		    !k->kvm_dir[0] && k->pid <= 0 && k->nr_new_vmms < MAX_NEW_VMMS)
			k->new_vmms[k->nr_new_vmms++] = (struct new_vmm){ .pid = k->inside[i].tgid };
		k->inside[i] = k->inside[--k->nr_inside];
	}
	if (ev->ioctl.exit || k->nr_inside == MAX_INSIDE)
		return;
	k->inside[k->nr_inside] = (struct inside){ .tid = ev->pid, .tgid = tgid_of(k, ev->pid),
						   .cmd = ev->ioctl.cmd };
	k->nr_inside += k->inside[k->nr_inside].tgid > 0;
}

/* Is a task of VMM @pid inside a recorded KVM ioctl? */
static bool vmm_inside(const struct msc_kvm_sampler *k, int pid)
{
	for (size_t i = 0; i < k->nr_inside; i++)
		if (k->inside[i].tgid == pid)
			return true;
	return false;
}

/** msc_kvm_sampler_scans - the scans of /proc for stats fds, and what they took */
void msc_kvm_sampler_scans(const struct msc_kvm_sampler *k, struct msc_kvm_scans *ret)
{
	*ret = k->scans;
}

/** msc_kvm_sampler_skipped - the VM reads left out while their VMM was in an ioctl */
uint64_t msc_kvm_sampler_skipped(const struct msc_kvm_sampler *k)
{
	return k->skipped;
}

/* ---- reading one VM ---- */

/* File @name of @vm's directory in <debugfs>/kvm (@kvm): a number, -1 when not there. */
static int64_t read_number(int kvm, const struct vm *vm, const char *name)
{
	char buf[32], path[64];

	snprintf(path, sizeof(path), "%d-%d/%s", vm->pid, vm->fd, name);
	return read_small(kvm, path, buf, sizeof(buf)) ? strtoll(buf, NULL, 10) : -1;
}

/* The census and flushes; @kvm: <debugfs>/kvm, -1 for the stats fds */
static void read_census(int kvm, const struct vm *vm, int64_t *v)
{
	if (kvm >= 0) {
		for (int i = 0; i < NR_VM_STATS; i++)
			v[i] = read_number(kvm, vm, vm_stats[i]);
		return;
	}
	if (vm->stats.fd < 0 || kvm_statfd_read(&vm->stats, v))
		for (int i = 0; i < NR_VM_STATS; i++)
			v[i] = -1;
}

/*
 * The census and flushes of one VM once a read agrees with the one before
 * it: the VM's last sample first (nothing moved since), then each other;
 * false when they moved during every try.
 */
static bool read_settled(int kvm, struct vm *vm, int64_t *v)
{
	int64_t again[NR_VM_STATS];

	read_census(kvm, vm, v);
	if (vm->has_last && !memcmp(v, vm->last, sizeof(vm->last)))
		return true;
	for (int i = 1; i < SETTLE_TRIES; i++) {
		read_census(kvm, vm, again);
		if (!memcmp(again, v, sizeof(again))) {
			memcpy(vm->last, v, sizeof(vm->last));
			vm->has_last = true;
			return true;
		}
		memcpy(v, again, sizeof(again));
	}
	return false;
}

/*
 * The faults summed over the VM's vCPUs, @v[i] -1 when not known.
 * Returns over how many vCPUs: -1 for KVM's own sum over all (debugfs).
 */
static int64_t read_faults(int kvm, const struct vm *vm, int64_t *v)
{
	int64_t one[NR_PF];

	for (int i = 0; i < NR_PF; i++)
		v[i] = kvm >= 0 ? read_number(kvm, vm, pf_stats[i]) : -1;
	if (kvm >= 0 || !vm->nr_vcpus)
		return -1;
	for (int i = 0; i < NR_PF; i++)
		v[i] = 0;
	for (size_t c = 0; c < vm->nr_vcpus; c++) {
		if (kvm_statfd_read(&vm->vcpus[c].stats, one)) {
			for (int i = 0; i < NR_PF; i++)
				v[i] = -1;
			return -1;
		}
		for (int i = 0; i < NR_PF; i++)
			v[i] = one[i] < 0 || v[i] < 0 ? -1 : v[i] + one[i];
	}
	return (int64_t)vm->nr_vcpus;
}

/* The counters a read got: bit i census counter i, bit NR_VM_STATS + i fault i. */
static unsigned int readable(const int64_t *v, const int64_t *pf)
{
	unsigned int mask = 0;

	for (int i = 0; i < NR_VM_STATS; i++)
		mask |= (v[i] >= 0) << i;
	for (int i = 0; i < NR_PF; i++)
		mask |= (pf[i] >= 0) << (NR_VM_STATS + i);
	return mask;
}

/*
 * One VM's sample; false when its census moved during every try, or when
 * its counters are coming or going: no census counter read (its debugfs
 * directory listed before KVM made its files, or after it removed them),
 * or one its last sample read is gone (KVM never removes one of a live VM).
 */
static bool sample_vm(int kvm, struct vm *vm, struct msc_kvm_sample *s)
{
	int64_t v[NR_VM_STATS], pf[NR_PF], pf_vcpus;
	unsigned int got;

	if (!read_settled(kvm, vm, v))
		return false;
	pf_vcpus = read_faults(kvm, vm, pf);
	got = readable(v, pf);
	if (!(got & ((1U << NR_VM_STATS) - 1)) || (vm->readable & ~got))
		return false;
	vm->readable = got;
	*s = (struct msc_kvm_sample){
		.pid = vm->pid,
		.pages_4k = v[ST_4K], .pages_2m = v[ST_2M], .pages_1g = v[ST_1G],
		.remote_tlb_flush = v[ST_FLUSH], .remote_tlb_flush_requests = v[ST_FLUSH_REQ],
		.pf_taken = pf[PF_TAKEN], .pf_fixed = pf[PF_FIXED], .pf_fast = pf[PF_FAST],
		.pf_vcpus = pf_vcpus,
	};
	snprintf(s->vm, sizeof(s->vm), "%d-%d", vm->pid, vm->fd);
	return true;
}

/* ---- the VMs ---- */

static struct vm *find_vm(struct msc_kvm_sampler *k, int pid, int fd)
{
	for (size_t i = 0; i < k->nr_vms; i++)
		if (k->vms[i].pid == pid && k->vms[i].fd == fd)
			return &k->vms[i];
	return NULL;
}

/* A new entry of the VM table, or NULL without memory. */
static struct vm *new_vm(struct msc_kvm_sampler *k, int pid, int fd)
{
	if (msc_grow((void **)&k->vms, k->nr_vms, &k->cap, sizeof(*k->vms)))
		return NULL;
	k->vms[k->nr_vms] = (struct vm){ .pid = pid, .fd = fd, .file = -1,
					 .stats_at = -1, .stats.fd = -1, .seen = true };
	return &k->vms[k->nr_vms++];
}

/*
 * debugfs: the VMs are its directories, "<pid>-<fd>"; a directory whose
 * inode changed is another VM (KVM reuses the name when the VMM reuses the
 * fd).  Returns 0 with <debugfs>/kvm open in *@ret (NULL: kvm unloaded, no
 * VMs), or -ENOMEM.
 */
static int list_debugfs(struct msc_kvm_sampler *k, DIR **ret)
{
	struct dirent *de;
	int pid, fd, r = 0;
	DIR *d = opendir(k->kvm_dir);

	for (size_t i = 0; i < k->nr_vms; i++)
		k->vms[i].seen = false;
	while (d && !r && (de = readdir(d))) {
		struct vm *vm;

		if (sscanf(de->d_name, "%d-%d", &pid, &fd) != 2 || (k->pid > 0 && pid != k->pid))
			continue;
		vm = find_vm(k, pid, fd);
		if (vm && vm->ino == de->d_ino) {
			vm->seen = true;
			continue;
		}
		if (vm)
			continue;	/* another VM of that name: dropped below, new next time */
		vm = new_vm(k, pid, fd);
		if (!vm) {
			r = -ENOMEM;
			break;
		}
		vm->ino = de->d_ino;
	}
	for (size_t i = k->nr_vms; i-- > 0;)
		if (!k->vms[i].seen)
			drop_vm(k, i);
	*ret = d;
	return r;
}

enum fd_kind { FD_OTHER, FD_VM, FD_VM_STATS, FD_VCPU_STATS };

/* What fd @fd of process @pid is to KVM. */
static enum fd_kind kvm_fd_kind(const struct msc_kvm_sampler *k, int pid, int fd)
{
	char path[512], link[64];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%d/fd/%d", k->proc, pid, fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return FD_OTHER;
	link[n] = '\0';
	if (!strcmp(link, "anon_inode:kvm-vm"))
		return FD_VM;
	if (!strcmp(link, "anon_inode:kvm-vm-stats"))
		return FD_VM_STATS;
	return !strncmp(link, "anon_inode:kvm-vcpu-stats:", 26) ? FD_VCPU_STATS : FD_OTHER;
}

/* The KVM fds of one process, by kind. */
struct fd_list {
	int *fds[FD_VCPU_STATS + 1];
	size_t nr[FD_VCPU_STATS + 1], cap[FD_VCPU_STATS + 1];
};

static int list_fds(const struct msc_kvm_sampler *k, int pid, struct fd_list *l)
{
	char path[512];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%d/fd", k->proc, pid);
	d = opendir(path);
	if (!d)
		return 0;	/* gone, or not ours to list */
	while ((de = readdir(d))) {
		int fd = isdigit((unsigned char)de->d_name[0]) ? atoi(de->d_name) : -1;
		enum fd_kind kind = fd < 0 ? FD_OTHER : kvm_fd_kind(k, pid, fd);

		if (kind == FD_OTHER)
			continue;
		if (msc_grow((void **)&l->fds[kind], l->nr[kind], &l->cap[kind], sizeof(int))) {
			closedir(d);
			return -ENOMEM;
		}
		l->fds[kind][l->nr[kind]++] = fd;
	}
	closedir(d);
	return 0;
}

static int add_vcpu(struct vm *vm, int fd)
{
	struct vcpu c = { .fd = fd };

	for (size_t i = 0; i < vm->nr_vcpus; i++)
		if (vm->vcpus[i].fd == fd)
			return 0;
	if (kvm_statfd_open(&c.stats, vm->pid, fd, pf_stats, NR_PF))
		return 0;	/* gone meanwhile */
	if (msc_grow((void **)&vm->vcpus, vm->nr_vcpus, &vm->cap_vcpus, sizeof(c))) {
		kvm_statfd_close(&c.stats);
		return -ENOMEM;
	}
	vm->vcpus[vm->nr_vcpus++] = c;
	return 0;
}

/*
 * The stats fds of a process that holds one VM: the VM's.  Its first VM
 * stats fd gives the census; each vCPU stats fd, the faults.
 */
static int take_stats(struct msc_kvm_sampler *k, int pid, const struct fd_list *l)
{
	struct vm *vm = find_vm(k, pid, l->fds[FD_VM][0]);
	int r = 0;

	if (!vm) {
		vm = new_vm(k, pid, l->fds[FD_VM][0]);
		if (!vm)
			return -ENOMEM;
		vm->file = kvm_copy_fd(pid, vm->fd);
		if (vm->file < 0) {
			drop_vm(k, k->nr_vms - 1);
			return 0;	/* gone meanwhile, or not ours to copy */
		}
	}
	if (vm->stats_at < 0 && l->nr[FD_VM_STATS] &&
	    !kvm_statfd_open(&vm->stats, pid, l->fds[FD_VM_STATS][0], vm_stats, NR_VM_STATS))
		vm->stats_at = l->fds[FD_VM_STATS][0];
	for (size_t i = 0; !r && i < l->nr[FD_VCPU_STATS]; i++)
		r = add_vcpu(vm, l->fds[FD_VCPU_STATS][i]);
	return r;
}

static int scan_pid(struct msc_kvm_sampler *k, int pid)
{
	struct fd_list l = { 0 };
	int r = list_fds(k, pid, &l);

	/* stats fds say not which of several VMs they are of */
	if (!r && l.nr[FD_VM] == 1 && (l.nr[FD_VM_STATS] || l.nr[FD_VCPU_STATS]))
		r = take_stats(k, pid, &l);
	for (int i = 0; i <= FD_VCPU_STATS; i++)
		free(l.fds[i]);
	return r;
}

/* Stats fds: the VMs (and their stats fds) in every /proc/<pid>/fd; timed (SCAN_SHARE). */
static int scan_proc(struct msc_kvm_sampler *k)
{
	uint64_t start = msc_mono_ns(), took;
	struct dirent *de;
	int r = 0;
	DIR *d;

	d = opendir(k->proc);
	if (!d)
		return -errno;
	while (!r && (de = readdir(d)))
		if (isdigit((unsigned char)de->d_name[0]) && atoi(de->d_name) != getpid())
			r = scan_pid(k, atoi(de->d_name));
	closedir(d);
	took = msc_mono_ns() - start;
	k->scan_due_ns = start + SCAN_SHARE * took;
	k->scans.nr++;
	k->scans.ns += took;
	k->scans.max_ns = max(k->scans.max_ns, took);
	return r;
}

/* Does the VMM still hold, as its fd, the VM file we copied (@vm->file)? */
static bool still_held(const struct msc_kvm_sampler *k, const struct vm *vm)
{
	int r = kvm_same_file(vm->file, vm->pid, vm->fd);

	return r >= 0 ? r : kvm_fd_kind(k, vm->pid, vm->fd) == FD_VM;
}

/*
 * Has a VM of process @pid its census to read (its VM stats fd)?  Its vCPUs'
 * stats fds may come first (the workload makes its vCPUs, then asks for the
 * VM's), and they hold no census.
 */
static bool vmm_has_census(const struct msc_kvm_sampler *k, int pid)
{
	for (size_t i = 0; i < k->nr_vms; i++)
		if (k->vms[i].pid == pid && k->vms[i].stats_at >= 0)
			return true;
	return false;
}

/*
 * Stats fds: the VMs to read now.  A VM the VMM let go of must not be kept
 * alive by our copies: it is dropped before anything is looked for.
 */
static int find_stats_fds(struct msc_kvm_sampler *k)
{
	unsigned int read = k->reads++;

	for (size_t i = k->nr_vms; i-- > 0;)
		if (!still_held(k, &k->vms[i]))
			drop_vm(k, i);
	/* one VMM's fds are cheap to list: look at each read until it has a VM */
	if (k->pid > 0)
		return read % RESCAN_EVERY == 0 || !k->nr_vms ? scan_pid(k, k->pid) : 0;
	if (read % RESCAN_EVERY == 0 && msc_mono_ns() >= k->scan_due_ns)
		return scan_proc(k);
	/*
	 * so is a process that just made a VM (its KVM_CREATE_VM seen), until
	 * its census can be read, it is gone, or NEW_VMM_LOOKS reads found none
	 */
	for (size_t i = k->nr_new_vmms; i-- > 0;) {
		struct new_vmm *v = &k->new_vmms[i];
		int r = scan_pid(k, v->pid);
		char path[300];

		if (r)
			return r;
		snprintf(path, sizeof(path), "%s/%d", k->proc, v->pid);
		if (vmm_has_census(k, v->pid) || ++v->looks == NEW_VMM_LOOKS || access(path, F_OK))
			*v = k->new_vmms[--k->nr_new_vmms];
	}
	return 0;
}

/**
 * msc_kvm_sampler_read - the counters of every VM now
 * @k: the sampler
 * @ret: one sample per VM
 * @max: room in @ret
 *
 * A VM whose VMM is inside a recorded KVM ioctl is not read (see the top).
 *
 * Returns the number of VMs read (0 when none runs, or when every VM's
 * counters moved during each try), or a negative error.
 */
int msc_kvm_sampler_read(struct msc_kvm_sampler *k, struct msc_kvm_sample *ret, size_t max)
{
	DIR *d = NULL;
	size_t n = 0;
	int r = k->kvm_dir[0] ? list_debugfs(k, &d) : find_stats_fds(k);

	for (size_t i = 0; !r && i < k->nr_vms && n < max; i++) {
		if (vmm_inside(k, k->vms[i].pid))
			k->skipped++;
		else
			n += sample_vm(d ? dirfd(d) : -1, &k->vms[i], &ret[n]);
	}
	if (d)
		closedir(d);
	return r ? r : (int)n;
}
