// SPDX-License-Identifier: GPL-2.0-only
/*
 * The VMs of a capture, one after the other: each has its own phases and
 * census (struct msc_vm).
 *
 * A VM begins, strongest first:
 *   - at its KVM_CREATE_VM (the ioctls traced: stable ABI on every kernel),
 *     which returns the VM's file descriptor;
 *   - where the companion patch's events name a VM id other than the
 *     current VM's;
 *   - inferred, without ioctls: at the first guest fault or SPTE installed
 *     after a teardown left nothing of the VM before mapped.
 * The first event of a capture opens a VM (the capture may begin inside
 * one), which a KVM_CREATE_VM before any MMU work takes over.  A VM ends
 * where the next begins.
 *
 * These are the VMs of one part (local.h): a VM created by an ioctl while
 * this part's still runs goes to another part (place.c).  Without the
 * ioctls the MMU events of a stock kernel name no VM, so two VMs running at
 * once cannot be told apart: a VM inferred while the one before still has
 * memory mapped is marked overlap (their census is the sum of both).  VM
 * ids are the front's, in the order the VMs began.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "local.h"
#include "mmuscope/util.h"

static struct msc_vm *cur_vm(struct msc_history *h)
{
	return h->st.cur_vm >= 0 ? &h->det.vms[h->st.cur_vm] : NULL;
}

/** hvm_current - the id of the VM the events are in now (0 before any) */
int64_t hvm_current(const struct msc_history *h)
{
	return h->st.cur_vm >= 0 ? h->det.vms[h->st.cur_vm].id : 0;
}

static struct msc_vm *vm_new(struct msc_history *h, enum msc_phase_source source,
			     uint64_t ts, int64_t seq)
{
	struct msc_vm *vm;

	if (h->det.nr_vms == h->det.alloc_vms) {
		size_t n = h->det.alloc_vms ? 2 * h->det.alloc_vms : 4;
		struct msc_vm *p = realloc(h->det.vms, n * sizeof(*p));

		if (!p)
			return NULL;
		h->det.vms = p;
		h->det.alloc_vms = n;
	}
	vm = &h->det.vms[h->det.nr_vms];
	*vm = (struct msc_vm){
		.id = ++h->front->vm_seq, .source = (uint8_t)source, .pid = -1, .fd = -1,
		.kernel_pid = -1, .start_ts = ts, .end_ts = ts, .start_seq = seq, .end_seq = seq,
	};
	h->st.cur_vm = (int32_t)h->det.nr_vms++;
	h->m.vm_id = vm->id;
	h->st.vm_used = 0;
	h->st.vm_gone = 0;
	return vm;
}

/*
 * A new VM begins at @ts/@seq (the event @ev shows it): *@ret.  A VM that
 * did nothing yet is the same VM, now known better; otherwise what the one
 * before had open ends here (@ends, the phase detector's: handed down by
 * the front, so that this file calls no detector above it).
 */
static int vm_begin(struct msc_history *h, const struct msc_event *ev, hvm_ends_fn ends,
		    enum msc_phase_source source, uint64_t ts, int64_t seq, struct msc_vm **ret)
{
	struct msc_vm *vm = cur_vm(h);
	struct msc_census c;
	bool overlap;
	int r;

	if (vm && !h->st.vm_used) {
		vm->source = (uint8_t)source;
		vm->start_ts = min(vm->start_ts, ts);
		vm->start_seq = min(vm->start_seq, seq);
		*ret = vm;
		return 0;
	}
	hcensus_total(h, &c);
	overlap = vm && !h->st.vm_gone && msc_census_mapped(&c);
	r = vm ? ends(h, ev) : 0;
	if (r)
		return r;
	vm = vm_new(h, source, ts, seq);
	if (!vm)
		return -ENOMEM;
	vm->overlap = overlap;
	*ret = vm;
	return 0;
}

/* The companion patch's VM id of @ev, 0 if it has none. */
static uint32_t kernel_vm(const struct msc_event *ev, int32_t *ret_pid)
{
	switch (ev->type) {
	case MSC_EV_TLB_FLUSH:
		*ret_pid = ev->tlb_flush.vm_pid;
		return ev->tlb_flush.vm_id;
	case MSC_EV_DIRTY_LOG:
		*ret_pid = ev->dirty_log.vm_pid;
		return ev->dirty_log.vm_id;
	case MSC_EV_SPLIT_SPAN:
	case MSC_EV_COLLAPSE_SPAN:
		*ret_pid = ev->span.vm_pid;
		return ev->span.vm_id;
	case MSC_EV_HARVEST:
		*ret_pid = ev->harvest.vm_pid;
		return ev->harvest.vm_id;
	default:
		return 0;
	}
}

static int create_vm(struct msc_history *h, const struct msc_event *ev, hvm_ends_fn ends)
{
	struct msc_vm *vm;
	int r;

	if (!ev->ioctl.exit) {
		h->st.create_open = 1;
		h->st.create_pid = ev->pid;
		h->st.create_ts = ev->ts;
		h->st.create_seq = (int64_t)ev->seq;
		return 0;
	}
	h->st.create_open = 0;
	if (ev->ioctl.ret < 0)
		return 0;	/* no VM */
	r = vm_begin(h, ev, ends, MSC_PHASE_SRC_IOCTL, h->st.create_ts, h->st.create_seq, &vm);
	if (r)
		return r;
	vm->pid = h->st.create_pid;
	vm->fd = (int32_t)ev->ioctl.ret;
	return 0;
}

/**
 * hvm_free - may a VM created now take this part: is its VM gone, or one
 *	the capture began in (not an ioctl's) with nothing mapped?
 */
bool hvm_free(const struct msc_history *h)
{
	const struct msc_vm *vm = h->st.cur_vm >= 0 ? &h->det.vms[h->st.cur_vm] : NULL;
	struct msc_census c;

	if (!vm || h->st.vm_gone)
		return true;
	if (vm->source == MSC_PHASE_SRC_IOCTL)
		return false;
	hcensus_total(h, &c);
	return !msc_census_mapped(&c);
}

/** hvm_by_ioctl - does the part hold a VM that KVM_CREATE_VM made, not gone? */
bool hvm_by_ioctl(const struct msc_history *h)
{
	const struct msc_vm *vm = h->st.cur_vm >= 0 ? &h->det.vms[h->st.cur_vm] : NULL;

	return vm && !h->st.vm_gone && vm->source == MSC_PHASE_SRC_IOCTL;
}

/**
 * hvm_event - does a VM begin with @ev?  Called before the phases see it;
 * @ends closes what the VM before had open (hphase_vm_begins())
 */
int hvm_event(struct msc_history *h, const struct msc_event *ev, hvm_ends_fn ends)
{
	struct msc_vm *vm = cur_vm(h);
	int32_t kpid = -1;
	uint32_t kid;
	int r;

	if (!vm && !vm_new(h, MSC_PHASE_SRC_INFERRED, ev->ts, (int64_t)ev->seq))
		return -ENOMEM;
	vm = cur_vm(h);
	if (ev->type == MSC_EV_IOCTL) {
		const char *name = msc_kvm_ioctl_name(ev->ioctl.cmd);

		if (!ev->ioctl.exit && name)
			h->st.ioctls_seen = 1;
		if (name && !strcmp(name, "KVM_CREATE_VM") && !ev->ioctl.exit)
			return create_vm(h, ev, ends);
		if (ev->ioctl.exit && h->st.create_open && ev->pid == h->st.create_pid)
			return create_vm(h, ev, ends);
		return 0;
	}
	kid = kernel_vm(ev, &kpid);
	if (kid && vm->kernel_id && kid != vm->kernel_id) {
		r = vm_begin(h, ev, ends, MSC_PHASE_SRC_TRACEPOINT, ev->ts, (int64_t)ev->seq, &vm);
		if (r)
			return r;
	}
	if (kid && !vm->kernel_id) {
		vm->kernel_id = kid;
		vm->kernel_pid = kpid;
	}
	if (!h->st.vm_gone || (ev->type != MSC_EV_PAGE_FAULT &&
			       (ev->type != MSC_EV_SPTE_CHANGED ||
				(ev->spte.class != MSC_CLASS_MAP && ev->spte.class != MSC_CLASS_LINK))))
		return 0;
	/* a guest fault or memory installed after a teardown: a new VM (unless KVM_CREATE_VM says) */
	h->st.vm_gone = 0;
	if (h->st.ioctls_seen)
		return 0;
	return vm_begin(h, ev, ends, MSC_PHASE_SRC_INFERRED, ev->ts, (int64_t)ev->seq, &vm);
}

/**
 * hvm_census - the last SPTE change fed is applied: a teardown of the current
 *	VM that left nothing mapped ends what it had
 *
 * hvm_commit() asks it after each SPTE change; history.c again once a range
 * of changes, each committed before the model applied it, is applied.
 */
void hvm_census(struct msc_history *h)
{
	struct msc_vm *vm = cur_vm(h);
	const struct hphase *ph = h->st.last_dirty >= 0 ? &h->det.phases[h->st.last_dirty] : NULL;
	struct msc_census c;

	if (!vm || !ph || ph->p.kind != MSC_PHASE_TEARDOWN || ph->p.vm != vm->id)
		return;
	hcensus_total(h, &c);
	h->st.vm_gone = !msc_census_mapped(&c);
}

/**
 * hvm_commit - @ev was applied: the current VM reaches it; a teardown that
 *	left nothing mapped ends what the VM had
 */
void hvm_commit(struct msc_history *h, const struct msc_event *ev)
{
	struct msc_vm *vm = cur_vm(h);

	if (!vm)
		return;
	vm->end_ts = h->m.ts;
	vm->end_seq = (int64_t)ev->seq;
	if (ev->type != MSC_EV_SPTE_CHANGED)
		return;
	h->st.vm_used = 1;	/* phase_new() marks it too */
	hvm_census(h);
}
