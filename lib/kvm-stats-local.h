/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * KVM's binary stats fd (KVM_GET_STATS_FD, Documentation/virt/kvm/api.rst)
 * of a VM or of one vCPU, copied from the VMM that holds it:
 * lib/kvm-statfd.c.  Private to lib/kvm-*.c.
 */
#ifndef MSC_KVM_STATS_LOCAL_H
#define MSC_KVM_STATS_LOCAL_H

#include <stdint.h>
#include <sys/types.h>

/* The most stats one kvm_statfd reads. */
#define KVM_STATFD_MAX 8

/*
 * The stats named at open, read with one pread() of the span of the data
 * block that holds them all.
 */
struct kvm_statfd {
	int fd;				/* KVM's stats fd, -1: none */
	int nr;				/* stats named at open */
	off_t at;			/* where the span starts in the stats fd */
	unsigned int len;		/* u64s in the span */
	int slot[KVM_STATFD_MAX];	/* each stat's u64 in the span, -1 absent */
};

int kvm_copy_fd(int pid, int fd);
int kvm_statfd_open(struct kvm_statfd *sf, int pid, int fd, const char *const *names, int nr);
int kvm_statfd_read(const struct kvm_statfd *sf, int64_t *values);
void kvm_statfd_close(struct kvm_statfd *sf);
int kvm_same_file(int file, int pid, int fd);

#endif
