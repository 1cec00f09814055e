// SPDX-License-Identifier: GPL-2.0-only
/*
 * KVM's own counters of every VM on the host (or of one VMM process):
 * pages_4k/2m/1g and the remote TLB flush counts, the ground truth the
 * rebuilt census is checked against; and the page faults of the VM's
 * vCPUs (pf_taken, pf_fixed, pf_fast), which a light recording counts
 * with instead of tracing them.
 *
 * Two ways to read them, tried in this order:
 *  - debugfs: KVM makes one directory per VM, <debugfs>/kvm/<pid>-<fd>/,
 *    holding one file per VM stat, and one per vCPU stat that sums it
 *    over the VM's vCPUs;
 *  - the binary stats fd (KVM_GET_STATS_FD): each VM fd is found in
 *    /proc/<pid>/fd ("anon_inode:kvm-vm"), copied with pidfd_getfd() just
 *    long enough to ask for its stats fd, which is then read with pread().
 *    A stats fd pins the VM, so it is closed as soon as the VMM no longer
 *    holds the VM fd.  A VM's stats fd has no vCPU stat: the faults are
 *    read from debugfs only.
 * Nothing here allocates per sample; the VM table grows when VMs appear.
 *
 * KVM updates each counter on its own, and a split or a zap moves several
 * at once, so one read of five counters can mix two moments (debugfs reads
 * them from five files).  A sample is only returned once two reads in a row
 * of those five agree: it is a state KVM was really in.  A VM whose
 * counters move during every try is left out of this sample.  The fault
 * counters take no part: they move at every vCPU fault, and are those of
 * the last try.
 */
#include "mmuscope/live.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/kvm.h>

#include "mmuscope/util.h"

/* VMs rescanned in /proc every this many samples (the scan reads every fd). */
#define RESCAN_EVERY 10
/* Reads of one VM's counters until two in a row agree. */
#define SETTLE_TRIES 4

enum { ST_4K, ST_2M, ST_1G, ST_FLUSH, ST_FLUSH_REQ, ST_PF_TAKEN, ST_PF_FIXED, ST_PF_FAST,
       NR_STATS };

static const char *const stat_names[NR_STATS] = {
	[ST_4K] = "pages_4k",
	[ST_2M] = "pages_2m",
	[ST_1G] = "pages_1g",
	[ST_FLUSH] = "remote_tlb_flush",
	[ST_FLUSH_REQ] = "remote_tlb_flush_requests",
	[ST_PF_TAKEN] = "pf_taken",
	[ST_PF_FIXED] = "pf_fixed",
	[ST_PF_FAST] = "pf_fast",
};

struct vm {
	int pid, fd;			/* the VMM and its VM fd */
	int stats_fd;			/* stats-fd method: KVM's stats fd */
	uint32_t data_offset;
	int64_t offset[NR_STATS];	/* of each stat in the data block, -1 absent */
	bool seen;			/* still held by the VMM at the last check */
};

struct msc_kvm_sampler {
	char kvm_dir[512];		/* "<debugfs>/kvm", "" for the stats-fd method */
	char proc[256];
	int pid;			/* > 0: only this VMM */
	struct vm *vms;
	size_t nr_vms, cap;
	unsigned int reads;
};

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/**
 * msc_kvm_sampler_open - prepare to read KVM's counters
 * @debugfs: where debugfs is mounted (NULL: /sys/kernel/debug)
 * @proc: where procfs is mounted (NULL: /proc)
 * @pid: > 0 to read only the VMs of this process
 * @ret: the sampler, closed with msc_kvm_sampler_close()
 *
 * Returns 0 or -ENOMEM.  A host without VMs is fine: reads return none.
 */
int msc_kvm_sampler_open(const char *debugfs, const char *proc, int pid,
			 struct msc_kvm_sampler **ret)
{
	struct msc_kvm_sampler *k = calloc(1, sizeof(*k));

	if (!k)
		return -ENOMEM;
	snprintf(k->kvm_dir, sizeof(k->kvm_dir), "%s/kvm", debugfs ? debugfs : "/sys/kernel/debug");
	if (!is_dir(k->kvm_dir))
		k->kvm_dir[0] = '\0';
	snprintf(k->proc, sizeof(k->proc), "%s", proc ? proc : "/proc");
	k->pid = pid;
	*ret = k;
	return 0;
}

static void drop_vm(struct msc_kvm_sampler *k, size_t i)
{
	if (k->vms[i].stats_fd >= 0)
		close(k->vms[i].stats_fd);
	k->vms[i] = k->vms[--k->nr_vms];
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

static int64_t read_number(const char *path)
{
	char buf[32];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return strtoll(buf, NULL, 10);
}

static void sample_init(struct msc_kvm_sample *s, int pid, int fd)
{
	*s = (struct msc_kvm_sample){ .pid = pid, .pages_4k = -1, .pages_2m = -1,
				      .pages_1g = -1, .remote_tlb_flush = -1,
				      .remote_tlb_flush_requests = -1, .pf_taken = -1,
				      .pf_fixed = -1, .pf_fast = -1 };
	snprintf(s->vm, sizeof(s->vm), "%d-%d", pid, fd);
}

static int64_t *sample_field(struct msc_kvm_sample *s, int i)
{
	int64_t *f[NR_STATS] = { &s->pages_4k, &s->pages_2m, &s->pages_1g,
				 &s->remote_tlb_flush, &s->remote_tlb_flush_requests,
				 &s->pf_taken, &s->pf_fixed, &s->pf_fast };

	return f[i];
}

/* Where one VM's counters are read from: a debugfs directory, or a stats fd. */
struct vm_source {
	const struct msc_kvm_sampler *k;
	const char *dir;		/* debugfs: "<pid>-<fd>" */
	const struct vm *vm;		/* stats fd */
};

/* One read of every counter (those a kernel lacks stay -1). */
static void read_vm(const struct vm_source *src, struct msc_kvm_sample *s)
{
	const struct vm *vm = src->vm;
	char path[1024];

	for (int i = 0; i < NR_STATS; i++) {
		uint64_t v;

		if (src->dir) {
			snprintf(path, sizeof(path), "%s/%s/%s", src->k->kvm_dir, src->dir,
				 stat_names[i]);
			*sample_field(s, i) = read_number(path);
		} else if (vm->offset[i] >= 0 &&
			   pread(vm->stats_fd, &v, sizeof(v),
				 (off_t)vm->data_offset + vm->offset[i]) == sizeof(v)) {
			*sample_field(s, i) = (int64_t)v;
		}
	}
}

/* The counters a split or a zap moves together (not the faults). */
static bool same_counts(const struct msc_kvm_sample *a, const struct msc_kvm_sample *b)
{
	return a->pages_4k == b->pages_4k && a->pages_2m == b->pages_2m &&
	       a->pages_1g == b->pages_1g && a->remote_tlb_flush == b->remote_tlb_flush &&
	       a->remote_tlb_flush_requests == b->remote_tlb_flush_requests;
}

/*
 * The counters of one VM once two reads in a row agree; false when they
 * moved during every try.
 */
static bool read_settled(const struct vm_source *src, int pid, int fd, struct msc_kvm_sample *s)
{
	struct msc_kvm_sample again;

	sample_init(s, pid, fd);
	read_vm(src, s);
	for (int i = 1; i < SETTLE_TRIES; i++) {
		sample_init(&again, pid, fd);
		read_vm(src, &again);
		bool settled = same_counts(&again, s);

		*s = again;	/* the faults: the newest read's */
		if (settled)
			return true;
	}
	return false;
}

/* debugfs: one directory per VM, one file per stat. */
static int read_debugfs(struct msc_kvm_sampler *k, struct msc_kvm_sample *ret, size_t max)
{
	struct dirent *de;
	size_t n = 0;
	int pid, fd;
	DIR *d = opendir(k->kvm_dir);

	if (!d)
		return 0;	/* kvm unloaded: no VMs */
	while (n < max && (de = readdir(d))) {
		struct vm_source src = { .k = k, .dir = de->d_name };

		if (sscanf(de->d_name, "%d-%d", &pid, &fd) != 2 || (k->pid > 0 && pid != k->pid))
			continue;
		n += read_settled(&src, pid, fd, &ret[n]);
	}
	closedir(d);
	return (int)n;
}

static bool holds_vm(const struct msc_kvm_sampler *k, int pid, int fd)
{
	char path[512], link[64];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%d/fd/%d", k->proc, pid, fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return false;
	link[n] = '\0';
	return !strcmp(link, "anon_inode:kvm-vm");
}

/* Ask KVM for the stats fd of a VM fd another process holds. */
static int open_stats(struct vm *vm)
{
	struct kvm_stats_header h;
	char *descs = NULL;
	size_t desc_size;
	int pidfd, vmfd, sfd, r = -EIO;

	pidfd = (int)syscall(SYS_pidfd_open, vm->pid, 0);
	if (pidfd < 0)
		return -errno;
	vmfd = (int)syscall(SYS_pidfd_getfd, pidfd, vm->fd, 0);
	r = vmfd < 0 ? -errno : 0;
	close(pidfd);
	if (r)
		return r;
	sfd = ioctl(vmfd, KVM_GET_STATS_FD, NULL);
	r = sfd < 0 ? -errno : 0;
	close(vmfd);	/* only the stats fd is kept */
	if (r)
		return r;
	if (pread(sfd, &h, sizeof(h), 0) != sizeof(h))
		goto err;
	desc_size = sizeof(struct kvm_stats_desc) + h.name_size;
	descs = malloc(desc_size * h.num_desc);
	if (!descs || pread(sfd, descs, desc_size * h.num_desc, h.desc_offset) !=
			      (ssize_t)(desc_size * h.num_desc))
		goto err;
	for (int i = 0; i < NR_STATS; i++)
		vm->offset[i] = -1;
	for (uint32_t d = 0; d < h.num_desc; d++) {
		const struct kvm_stats_desc *desc = (void *)(descs + d * desc_size);

		for (int i = 0; i < NR_STATS; i++)
			if (!strncmp(desc->name, stat_names[i], h.name_size))
				vm->offset[i] = desc->offset;
	}
	free(descs);
	vm->data_offset = h.data_offset;
	vm->stats_fd = sfd;
	return 0;
err:
	free(descs);
	close(sfd);
	return -EIO;
}

static bool known(const struct msc_kvm_sampler *k, int pid, int fd)
{
	for (size_t i = 0; i < k->nr_vms; i++)
		if (k->vms[i].pid == pid && k->vms[i].fd == fd)
			return true;
	return false;
}

static int add_vm(struct msc_kvm_sampler *k, int pid, int fd)
{
	struct vm vm = { .pid = pid, .fd = fd, .stats_fd = -1 };

	if (open_stats(&vm))
		return 0;	/* gone, or not ours to read: skip it */
	if (k->nr_vms == k->cap) {
		size_t n = k->cap ? 2 * k->cap : 8;
		struct vm *a = realloc(k->vms, n * sizeof(*a));

		if (!a) {
			close(vm.stats_fd);
			return -ENOMEM;
		}
		k->vms = a;
		k->cap = n;
	}
	k->vms[k->nr_vms++] = vm;
	return 0;
}

/* Find the VM fds of one process. */
static int scan_pid(struct msc_kvm_sampler *k, int pid)
{
	char path[512];
	struct dirent *de;
	int r = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%d/fd", k->proc, pid);
	d = opendir(path);
	if (!d)
		return 0;
	while (!r && (de = readdir(d))) {
		int fd;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		fd = atoi(de->d_name);
		if (!known(k, pid, fd) && holds_vm(k, pid, fd))
			r = add_vm(k, pid, fd);
	}
	closedir(d);
	return r;
}

static int scan(struct msc_kvm_sampler *k)
{
	struct dirent *de;
	int r = 0;
	DIR *d;

	if (k->pid > 0)
		return scan_pid(k, k->pid);
	d = opendir(k->proc);
	if (!d)
		return -errno;
	while (!r && (de = readdir(d)))
		if (isdigit((unsigned char)de->d_name[0]) && atoi(de->d_name) != getpid())
			r = scan_pid(k, atoi(de->d_name));
	closedir(d);
	return r;
}

static int read_stats_fds(struct msc_kvm_sampler *k, struct msc_kvm_sample *ret, size_t max)
{
	size_t n = 0;
	int r;

	/* a VM the VMM let go of must not be kept alive by our stats fd */
	for (size_t i = k->nr_vms; i-- > 0;)
		if (!holds_vm(k, k->vms[i].pid, k->vms[i].fd))
			drop_vm(k, i);
	/* one VMM's fds are cheap to list: look for new VMs every time */
	if (k->pid > 0 || k->reads++ % RESCAN_EVERY == 0) {
		r = scan(k);
		if (r)
			return r;
	}
	for (size_t i = 0; i < k->nr_vms && n < max; i++) {
		struct vm_source src = { .k = k, .vm = &k->vms[i] };

		n += read_settled(&src, k->vms[i].pid, k->vms[i].fd, &ret[n]);
	}
	return (int)n;
}


/**
 * msc_kvm_sampler_read - the counters of every VM now
 * @k: the sampler
 * @ret: one sample per VM
 * @max: room in @ret
 *
 * Returns the number of VMs read (0 when none runs, or when every VM's
 * counters moved during each try), or a negative error.
 */
int msc_kvm_sampler_read(struct msc_kvm_sampler *k, struct msc_kvm_sample *ret, size_t max)
{
	if (k->kvm_dir[0])
		return read_debugfs(k, ret, max);
	return read_stats_fds(k, ret, max);
}
