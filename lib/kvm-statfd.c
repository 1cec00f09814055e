// SPDX-License-Identifier: GPL-2.0-only
/*
 * KVM's binary stats of a VM or a vCPU (KVM_GET_STATS_FD), read from a
 * stats fd the VMM itself holds.
 *
 * Only the VM's own process may ask KVM for a stats fd (kvm_vm_ioctl()
 * refuses any other mm), but once made, a stats fd reads from anywhere: the
 * VMM's is copied with pidfd_getfd().  It starts with a header, then a
 * descriptor per stat (its name, and its offset in the data block), then
 * the data block of u64s, which KVM updates in place: a read is one pread()
 * of the part of the data block that holds the stats asked for, nothing
 * parsed and nothing allocated.
 *
 * A stats fd holds a reference on the VM: a VM whose VMM let go of it lives
 * on until our copy is closed, so the sampler checks at each read that the
 * VMM still holds the VM (kvm_same_file()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/kcmp.h>
#include <linux/kvm.h>

#include "kvm-stats-local.h"

/* The span read at once; stats further apart are read one by one. */
#define SPAN_MAX 64

/**
 * kvm_copy_fd - a copy of fd @fd of process @pid
 *
 * Returns the new fd, or a negative error: the process or fd is gone, or
 * not ours to copy (ptrace rules).
 */
int kvm_copy_fd(int pid, int fd)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0), r;

	if (pidfd < 0)
		return -errno;
	r = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	if (r < 0)
		r = -errno;
	close(pidfd);
	return r;
}

/* Where each of @names is in the data block: @sf->slot[] as byte offsets. */
static int find_stats(struct kvm_statfd *sf, const struct kvm_stats_header *h,
		      const char *const *names, int64_t *offset)
{
	size_t desc_size = sizeof(struct kvm_stats_desc) + h->name_size;
	char *descs;

	if (!h->num_desc || h->num_desc > 4096 || h->name_size > 4096)
		return -EIO;
	descs = malloc(desc_size * h->num_desc);
	if (!descs)
		return -ENOMEM;
	if (pread(sf->fd, descs, desc_size * h->num_desc, h->desc_offset) !=
	    (ssize_t)(desc_size * h->num_desc)) {
		free(descs);
		return -EIO;
	}
	for (int i = 0; i < sf->nr; i++)
		offset[i] = -1;
	for (uint32_t d = 0; d < h->num_desc; d++) {
		const struct kvm_stats_desc *desc = (void *)(descs + d * desc_size);

		for (int i = 0; i < sf->nr; i++)
			if (!strncmp(desc->name, names[i], h->name_size))
				offset[i] = desc->offset;
	}
	free(descs);
	return 0;
}

/* The span of the data block that holds every stat found. */
static void set_span(struct kvm_statfd *sf, uint32_t data_offset, const int64_t *offset)
{
	int64_t lo = -1, hi = -1;

	for (int i = 0; i < sf->nr; i++) {
		if (offset[i] < 0)
			continue;
		lo = lo < 0 || offset[i] < lo ? offset[i] : lo;
		hi = offset[i] > hi ? offset[i] : hi;
	}
	sf->at = (off_t)data_offset + (lo < 0 ? 0 : lo);
	sf->len = lo < 0 ? 0 : (unsigned int)((hi - lo) / 8 + 1);
	for (int i = 0; i < sf->nr; i++)
		sf->slot[i] = offset[i] < 0 ? -1 : (int)((offset[i] - lo) / 8);
}

/**
 * kvm_statfd_open - the stats fd @fd of process @pid, to read @names from
 * @sf: filled; closed with kvm_statfd_close()
 * @names: the stats to read, at most KVM_STATFD_MAX (one a kernel lacks
 *	reads as -1)
 *
 * Returns 0, or a negative error: the fd is gone or not ours to copy, or
 * it is not a KVM stats fd.
 */
int kvm_statfd_open(struct kvm_statfd *sf, int pid, int fd, const char *const *names, int nr)
{
	struct kvm_stats_header h;
	int64_t offset[KVM_STATFD_MAX];
	int r = 0;

	*sf = (struct kvm_statfd){ .fd = kvm_copy_fd(pid, fd), .nr = nr };
	if (sf->fd < 0)
		return sf->fd;
	if (pread(sf->fd, &h, sizeof(h), 0) != sizeof(h))
		r = -EIO;
	else
		r = find_stats(sf, &h, names, offset);
	if (r)
		kvm_statfd_close(sf);
	else
		set_span(sf, h.data_offset, offset);
	return r;
}

/**
 * kvm_statfd_read - the stats named at open, now
 * @values: one per name; -1 for a stat this kernel lacks
 *
 * Returns 0 or -EIO.
 */
int kvm_statfd_read(const struct kvm_statfd *sf, int64_t *values)
{
	uint64_t span[SPAN_MAX], v;

	if (sf->len <= SPAN_MAX) {
		if (sf->len && pread(sf->fd, span, 8 * sf->len, sf->at) != (ssize_t)(8 * sf->len))
			return -EIO;
		for (int i = 0; i < sf->nr; i++)
			values[i] = sf->slot[i] < 0 ? -1 : (int64_t)span[sf->slot[i]];
		return 0;
	}
	for (int i = 0; i < sf->nr; i++) {
		values[i] = -1;
		if (sf->slot[i] < 0)
			continue;
		if (pread(sf->fd, &v, 8, sf->at + 8 * (off_t)sf->slot[i]) != 8)
			return -EIO;
		values[i] = (int64_t)v;
	}
	return 0;
}

void kvm_statfd_close(struct kvm_statfd *sf)
{
	if (sf->fd >= 0)
		close(sf->fd);
	sf->fd = -1;
}

/**
 * kvm_same_file - does process @pid still hold our copy @file as its fd @fd?
 *
 * kcmp() tells a VM fd the VMM closed from a new VM it opened at the same
 * number.  Returns 1 or 0, or -ENOSYS on a kernel without CONFIG_KCMP
 * (the fd's link name is then all there is to go by).
 */
int kvm_same_file(int file, int pid, int fd)
{
	long r = syscall(SYS_kcmp, getpid(), pid, KCMP_FILE, file, fd);

	if (r < 0)
		return errno == ENOSYS ? -ENOSYS : 0;	/* else the process or its fd is gone */
	return r == 0;
}
