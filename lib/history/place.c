// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which VM each event is of, when VMs run at once: the part it goes to
 * (struct msc_history, local.h).
 *
 * The MMU events of a stock kernel name no VM.  What the kernel guarantees
 * places them, strongest first:
 *   - a task inside a KVM ioctl works for the VM of the ioctl's file: a VM
 *     fd (KVM_CREATE_VM's return) or a vCPU fd (KVM_CREATE_VCPU's return
 *     on a VM fd): KVM_RUN's faults, a memslot's or a dirty log's work;
 *   - a change of a present SPTE is of the VM whose tables hold its frame
 *     (hmodel_holds()): a frame is one VM's memory or page table;
 *   - else the VM its task worked for last (a vCPU thread whose KVM_RUN
 *     is not traced, once one of its changes was placed by value; a VMM
 *     thread's markers after its VM's ioctls).
 * With one part every event is the first part's and nothing is asked.
 * With several, what none of these places goes to the first part and is
 * counted (hplace_unplaced()).
 *
 * A part holds one VM at a time.  KVM_CREATE_VM's VM goes to the first
 * part whose VM is gone or never began by an ioctl (hvm_free()) and that no
 * other KVM_CREATE_VM under way has taken, else to a part of its own
 * (HPLACE_NEW): VMs that follow one another share a part, as they did
 * before VMs at once were told apart.
 *
 * Events name threads, not processes, so a file is known by its number:
 * of the VMs a number was returned for, a task's ioctl goes to the one it
 * worked for last, else to the newest (a number reused after a close).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "local.h"
#include "mmuscope/util.h"

enum { CREATING_NONE, CREATING_VM, CREATING_VCPU };

/* A task seen in a KVM ioctl or placed by value; pid 0 (idle) is a free slot. */
struct ptask {
	int32_t pid;
	int32_t last;		/* the part it worked for last; -1 none */
	int32_t in;		/* the part of the KVM ioctl it is in; -1 none */
	uint8_t creating;	/* CREATING_*: what its ioctl's return is */
};

/* A file descriptor KVM returned, and the part of its VM. */
struct pfd {
	int32_t fd;
	uint32_t part;
};

struct hplace {
	struct ptask *task;	/* open addressing by pid, at most half full */
	uint32_t task_slots, nr_tasks;
	struct pfd *fd;		/* in the order returned */
	size_t nr_fds, alloc_fds;
	uint32_t *creating;	/* per part: KVM_CREATE_VMs under way into it */
	uint32_t alloc_parts;
	uint64_t unplaced;
};

int hplace_new(struct hplace **ret)
{
	struct hplace *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	*ret = p;
	return 0;
}

void hplace_free(struct hplace *p)
{
	if (!p)
		return;
	free(p->task);
	free(p->fd);
	free(p->creating);
	free(p);
}

/** hplace_unplaced - events of several parts that nothing placed */
uint64_t hplace_unplaced(const struct hplace *p)
{
	return p->unplaced;
}

static struct ptask *task_slot(struct ptask *v, uint32_t slots, int32_t pid)
{
	uint32_t i = ((uint32_t)pid * 2654435761U) & (slots - 1);

	while (v[i].pid && v[i].pid != pid)
		i = (i + 1) & (slots - 1);
	return &v[i];
}

static int task_grow(struct hplace *p)
{
	uint32_t slots = p->task_slots ? 2 * p->task_slots : 64;
	struct ptask *v = calloc(slots, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (uint32_t i = 0; i < p->task_slots; i++)
		if (p->task[i].pid)
			*task_slot(v, slots, p->task[i].pid) = p->task[i];
	free(p->task);
	p->task = v;
	p->task_slots = slots;
	return 0;
}

/* @pid's entry; a new one when @create (NULL: out of memory), else NULL when unseen */
static struct ptask *task_get(struct hplace *p, int32_t pid, bool create)
{
	struct ptask *t;

	if (!pid)
		return NULL;
	if (p->task_slots) {
		t = task_slot(p->task, p->task_slots, pid);
		if (t->pid || !create)
			return t->pid ? t : NULL;
	} else if (!create) {
		return NULL;
	}
	if (2 * (p->nr_tasks + 1) > p->task_slots && task_grow(p))
		return NULL;
	t = task_slot(p->task, p->task_slots, pid);
	*t = (struct ptask){ .pid = pid, .last = -1, .in = -1 };
	p->nr_tasks++;
	return t;
}

static int fd_add(struct hplace *p, int32_t fd, uint32_t part)
{
	if (p->nr_fds == p->alloc_fds) {
		size_t n = p->alloc_fds ? 2 * p->alloc_fds : 16;
		struct pfd *v = realloc(p->fd, n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->fd = v;
		p->alloc_fds = n;
	}
	p->fd[p->nr_fds++] = (struct pfd){ .fd = fd, .part = part };
	return 0;
}

/* The part of file @fd for task @t: the one it worked for last, else the newest; -1 */
static int fd_part(const struct hplace *p, int32_t fd, const struct ptask *t)
{
	int part = -1;

	for (size_t i = p->nr_fds; i-- > 0;) {
		if (p->fd[i].fd != fd)
			continue;
		if (part < 0)
			part = (int)p->fd[i].part;
		if ((int)p->fd[i].part == t->last)
			return t->last;
	}
	return part;
}

static int reserve(struct hplace *p, uint32_t part, int delta)
{
	if (part >= p->alloc_parts) {
		uint32_t n = max(2 * p->alloc_parts, part + 1);
		uint32_t *v = realloc(p->creating, n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		memset(v + p->alloc_parts, 0, (n - p->alloc_parts) * sizeof(*v));
		p->creating = v;
		p->alloc_parts = n;
	}
	p->creating[part] += (uint32_t)delta;
	return 0;
}

/* A part a VM created now may take: its own VM gone, none taking it yet */
static int free_part(const struct hplace *p, struct msc_history *const *parts, uint32_t nr)
{
	for (uint32_t i = 0; i < nr; i++)
		if (hvm_free(parts[i]) && (i >= p->alloc_parts || !p->creating[i]))
			return (int)i;
	return HPLACE_NEW;
}

/* A task that entered KVM_CREATE_VM goes on in @part. */
static int creates(struct hplace *p, struct ptask *t, uint32_t part)
{
	t->in = (int32_t)part;
	t->creating = CREATING_VM;
	return reserve(p, part, 1);
}

/**
 * hplace_created - the front made part @part for the KVM_CREATE_VM @ev,
 *	which hplace_event() returned HPLACE_NEW for
 */
void hplace_created(struct hplace *p, const struct msc_event *ev, uint32_t part)
{
	struct ptask *t = task_get(p, ev->pid, false);

	if (t)
		(void)creates(p, t, part);	/* its exit finds the part unreserved: no harm */
}

/* The exit of @t's ioctl: a file it created is its VM's */
static int ioctl_exit(struct hplace *p, struct ptask *t, const struct msc_event *ev)
{
	int part = t->in;
	int r = 0;

	if (part < 0)
		return t->last >= 0 ? t->last : 0;
	if (t->creating == CREATING_VM && (uint32_t)part < p->alloc_parts &&
	    p->creating[part])
		p->creating[part]--;
	if (t->creating && ev->ioctl.ret >= 0 && ev->ioctl.ret <= INT32_MAX)
		r = fd_add(p, (int32_t)ev->ioctl.ret, (uint32_t)part);
	t->creating = CREATING_NONE;
	t->in = -1;
	t->last = part;
	return r ?: part;
}

static int place_ioctl(struct hplace *p, struct msc_history *const *parts, uint32_t nr,
		       const struct msc_event *ev)
{
	const char *name;
	struct ptask *t;
	int part, r;

	if (ev->ioctl.exit) {
		t = task_get(p, ev->pid, false);
		return t ? ioctl_exit(p, t, ev) : 0;
	}
	name = msc_kvm_ioctl_name(ev->ioctl.cmd);
	if (!name)
		return 0;	/* not KVM's: no KVM work follows */
	t = task_get(p, ev->pid, true);
	if (!t)
		return ev->pid ? -ENOMEM : 0;
	if (!strcmp(name, "KVM_CREATE_VM")) {
		part = free_part(p, parts, nr);
		if (part == HPLACE_NEW)
			return HPLACE_NEW;
		r = creates(p, t, (uint32_t)part);
		return r ?: part;
	}
	part = fd_part(p, ev->ioctl.fd, t);
	if (part < 0)	/* a VM from before the capture, or /dev/kvm's */
		return t->last >= 0 ? t->last : 0;
	t->in = part;
	t->last = part;
	if (!strcmp(name, "KVM_CREATE_VCPU"))
		t->creating = CREATING_VCPU;
	return part;
}

/* The part whose tables hold @spte's frame at @gfn/@level: one only, or @t's; -1 */
static int holder(struct msc_history *const *parts, uint32_t nr, const struct ptask *t,
		  unsigned int as_id, uint64_t gfn, unsigned int level, uint64_t spte)
{
	int found = -1;

	if (!msc_spte_present(&parts[0]->layout, spte))
		return -1;
	for (uint32_t i = 0; i < nr; i++) {
		if (!hmodel_holds(parts[i], as_id, gfn, level, spte))
			continue;
		if (t && t->last == (int32_t)i)
			return (int)i;
		if (found >= 0)
			return -1;	/* two VMs map one frame: the task decides */
		found = (int)i;
	}
	return found;
}

/* The part an event's old value places it in; -1: none */
static int by_value(struct msc_history *const *parts, uint32_t nr, const struct ptask *t,
		    const struct msc_event *ev)
{
	int part = -1;

	if (ev->type == MSC_EV_SPTE_CHANGED)
		return holder(parts, nr, t, ev->spte.as_id, ev->spte.gfn, ev->spte.level,
			      ev->spte.old_spte);
	if (ev->type != MSC_EV_FAST_PF || ev->fast_pf.result != MSC_FPF_FIXED)
		return -1;
	for (unsigned int l = 1; l <= MSC_HISTORY_MAX_LEVEL && part < 0; l++) {
		uint64_t gfn = (ev->fast_pf.gpa >> 12) & ~(msc_level_pages(l) - 1);

		part = holder(parts, nr, t, 0, gfn, l, ev->fast_pf.old_spte);
	}
	return part;
}

/**
 * hplace_event - the part @ev goes to
 * @parts: the analysis's parts, @nr of them
 *
 * Returns its index, HPLACE_ALL (a gap in the trace: every part's history
 * has it), HPLACE_NEW (a VM created while every part's runs: the front
 * makes a part, then tells hplace_created()), or -ENOMEM.
 */
int hplace_event(struct hplace *p, struct msc_history *const *parts, uint32_t nr,
		 const struct msc_event *ev)
{
	struct ptask *t;
	int part;

	if (ev->type == MSC_EV_IOCTL)
		return place_ioctl(p, parts, nr, ev);
	if (nr == 1)
		return 0;
	if (ev->type == MSC_EV_LOST)
		return HPLACE_ALL;
	t = task_get(p, ev->pid, false);
	if (t && t->in >= 0)
		return t->in;
	part = by_value(parts, nr, t, ev);
	if (part >= 0) {
		if (t || (t = task_get(p, ev->pid, true)))
			t->last = part;
		return part;
	}
	if (t && t->last >= 0)
		return t->last;
	p->unplaced++;
	return 0;
}
