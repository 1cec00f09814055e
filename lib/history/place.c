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
 *     thread's markers after its VM's ioctls);
 *   - else, where the capture says which process each thread is of (a
 *     recording's task table: hplace_set_task()), the VM of its process:
 *     the one its threads created or worked on, when that is one VM.  A
 *     process whose threads fault or call a VM's ioctl before any VM is
 *     known of it runs a VM from before the capture: it gets a part of its
 *     own (QEMU, Firecracker, cloud-hypervisor: a VM per process).
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
	int32_t tgid;		/* its process; 0 unknown */
	uint8_t creating;	/* CREATING_*: what its ioctl's return is */
};

/* A process (tgid) of the capture's task table, and the part of its VM */
struct pproc {
	int32_t tgid;		/* 0: a free slot */
	int32_t part;		/* -1 none yet; PROC_SEVERAL: its threads work for several */
};

#define PROC_SEVERAL (-2)

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
	struct ppart {
		uint32_t creating;	/* KVM_CREATE_VMs under way into it */
		int32_t owner;		/* the process whose VM it holds; 0 none */
	} *part;		/* per part (its index in the front's parts[]) */
	uint32_t alloc_parts;
	struct pproc *proc;	/* open addressing by tgid, at most half full */
	uint32_t proc_slots, nr_procs;
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
	free(p->part);
	free(p->proc);
	free(p);
}

/** hplace_unplaced - events of several parts that nothing placed */
uint64_t hplace_unplaced(const struct hplace *p)
{
	return p->unplaced;
}

static uint32_t hash_slot(int32_t key, uint32_t slots)
{
	return ((uint32_t)key * 2654435761U) & (slots - 1);
}

static struct ptask *task_slot(struct ptask *v, uint32_t slots, int32_t pid)
{
	uint32_t i = hash_slot(pid, slots);

	while (v[i].pid && v[i].pid != pid)
		i = (i + 1) & (slots - 1);
	return &v[i];
}

static struct pproc *proc_slot(struct pproc *v, uint32_t slots, int32_t tgid)
{
	uint32_t i = hash_slot(tgid, slots);

	while (v[i].tgid && v[i].tgid != tgid)
		i = (i + 1) & (slots - 1);
	return &v[i];
}

/* Process @tgid's entry, made when new; NULL: out of memory */
static struct pproc *proc_get(struct hplace *p, int32_t tgid)
{
	struct pproc *e;

	if (p->proc_slots) {
		e = proc_slot(p->proc, p->proc_slots, tgid);
		if (e->tgid)
			return e;
	}
	if (2 * (p->nr_procs + 1) > p->proc_slots) {
		uint32_t slots = p->proc_slots ? 2 * p->proc_slots : 16;
		struct pproc *v = calloc(slots, sizeof(*v));

		if (!v)
			return NULL;
		for (uint32_t i = 0; i < p->proc_slots; i++)
			if (p->proc[i].tgid)
				*proc_slot(v, slots, p->proc[i].tgid) = p->proc[i];
		free(p->proc);
		p->proc = v;
		p->proc_slots = slots;
	}
	e = proc_slot(p->proc, p->proc_slots, tgid);
	*e = (struct pproc){ .tgid = tgid, .part = -1 };
	p->nr_procs++;
	return e;
}

/* The part of @t's process: its one VM's; -1 none known (or several, or no process) */
static int proc_part(const struct hplace *p, const struct ptask *t)
{
	const struct pproc *e;

	if (!t || !t->tgid || !p->proc_slots)
		return -1;
	e = proc_slot(p->proc, p->proc_slots, t->tgid);
	return e->tgid && e->part >= 0 ? e->part : -1;
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

/* Room for the per-part entries up to @part */
static int parts_room(struct hplace *p, uint32_t part)
{
	uint32_t n = max(2 * p->alloc_parts, part + 1);
	struct ppart *v;

	if (part < p->alloc_parts)
		return 0;
	v = realloc(p->part, n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	memset(v + p->alloc_parts, 0, (n - p->alloc_parts) * sizeof(*v));
	p->part = v;
	p->alloc_parts = n;
	return 0;
}

/* Part @i's entry; none made yet: no process, nothing under way */
static struct ppart part_of(const struct hplace *p, uint32_t i)
{
	return i < p->alloc_parts ? p->part[i] : (struct ppart){ 0 };
}

static int reserve(struct hplace *p, uint32_t part, int delta)
{
	int r = parts_room(p, part);

	if (!r)
		p->part[part].creating += (uint32_t)delta;
	return r;
}

/*
 * @t's process works for @part's VM: the process's VM, unless it already
 * had another (several VMs in one process: its threads are placed by
 * their own ioctls and values only).
 */
static int proc_bind(struct hplace *p, const struct ptask *t, uint32_t part)
{
	struct pproc *e;
	int r;

	if (!t->tgid)
		return 0;
	e = proc_get(p, t->tgid);
	r = e ? parts_room(p, part) : -ENOMEM;
	if (r)
		return r;
	if (e->part < 0 && e->part != PROC_SEVERAL)
		e->part = (int32_t)part;
	else if (e->part != (int32_t)part)
		e->part = PROC_SEVERAL;
	if (!p->part[part].owner)
		p->part[part].owner = t->tgid;
	return 0;
}

/*
 * A part a VM created now by a task of process @tgid may take: its own VM
 * gone, none taking it yet, and no other process's VM from before the
 * capture in it (one that has not mapped anything yet is not gone).
 */
static int free_part(const struct hplace *p, struct msc_history *const *parts, uint32_t nr,
		     int32_t tgid)
{
	for (uint32_t i = 0; i < nr; i++) {
		struct ppart e = part_of(p, i);

		if (hvm_free(parts[i]) && !e.creating &&
		    (!e.owner || e.owner == tgid || parts[i]->st.vm_gone))
			return (int)i;
	}
	return HPLACE_NEW;
}

/*
 * The part a VM from before the capture, of @t's process, goes to: a part
 * no process has and no VM created in the capture holds (the first part,
 * while the capture's first VM is not told apart yet), else a new one.
 */
static int unowned_part(const struct hplace *p, struct msc_history *const *parts, uint32_t nr)
{
	for (uint32_t i = 0; i < nr; i++) {
		struct ppart e = part_of(p, i);

		if (!e.owner && !e.creating && !hvm_by_ioctl(parts[i]))
			return (int)i;
	}
	return HPLACE_NEW;
}

/* A task that entered KVM_CREATE_VM goes on in @part. */
static int creates(struct hplace *p, struct ptask *t, uint32_t part)
{
	t->in = (int32_t)part;
	t->creating = CREATING_VM;
	return reserve(p, part, 1);
}

/* @t's process runs a VM from before the capture, in @part (its own now) */
static int predates(struct hplace *p, struct ptask *t, uint32_t part)
{
	t->last = (int32_t)part;
	return proc_bind(p, t, part);
}

/**
 * hplace_created - the front made part @part for @ev, which hplace_event()
 *	returned HPLACE_NEW for: a KVM_CREATE_VM, or the first work of a
 *	process whose VM predates the capture
 */
void hplace_created(struct hplace *p, const struct msc_event *ev, uint32_t part)
{
	struct ptask *t = task_get(p, ev->pid, false);

	if (!t)
		return;
	/* out of memory here leaves the part unreserved or unowned: placed by value */
	if (ev->type == MSC_EV_IOCTL && !ev->ioctl.exit &&
	    !strcmp(msc_kvm_ioctl_name(ev->ioctl.cmd) ?: "", "KVM_CREATE_VM"))
		(void)creates(p, t, part);
	else
		(void)predates(p, t, part);
}

/**
 * hplace_set_task - thread @pid is of process @tgid (the capture's task
 *	table); told before the first event.  Returns 0 or -ENOMEM.
 */
int hplace_set_task(struct hplace *p, int32_t pid, int32_t tgid)
{
	struct ptask *t = task_get(p, pid, true);

	if (!t)
		return pid ? -ENOMEM : 0;
	t->tgid = tgid > 0 ? tgid : 0;
	return t->tgid && !proc_get(p, t->tgid) ? -ENOMEM : 0;
}

/** hplace_processes - the processes the capture's threads are of (0: it does not say) */
uint32_t hplace_processes(const struct hplace *p)
{
	return p->nr_procs;
}

/* The exit of @t's ioctl: a file it created is its VM's */
static int ioctl_exit(struct hplace *p, struct ptask *t, const struct msc_event *ev)
{
	int part = t->in;
	int r = 0;

	if (part < 0)
		return t->last >= 0 ? t->last : 0;
	if (t->creating == CREATING_VM && (uint32_t)part < p->alloc_parts &&
	    p->part[part].creating)
		p->part[part].creating--;
	if (t->creating && ev->ioctl.ret >= 0 && ev->ioctl.ret <= INT32_MAX)
		r = fd_add(p, (int32_t)ev->ioctl.ret, (uint32_t)part);
	if (!r && t->creating == CREATING_VM && ev->ioctl.ret >= 0)
		r = proc_bind(p, t, (uint32_t)part);
	t->creating = CREATING_NONE;
	t->in = -1;
	t->last = part;
	return r ?: part;
}

/*
 * A VM ioctl on a file no return of the capture named: a VM from before
 * the capture (or /dev/kvm's, whose KVM_CHECK_EXTENSION is all mmuscope
 * knows of it).  Its process's VM, else a part of the process's own.
 */
static int ioctl_predating(struct hplace *p, struct msc_history *const *parts, uint32_t nr,
			   struct ptask *t, const char *name)
{
	int part = proc_part(p, t), r;

	if (part < 0 && t->tgid && strcmp(name, "KVM_CHECK_EXTENSION")) {
		part = unowned_part(p, parts, nr);
		if (part == HPLACE_NEW)
			return HPLACE_NEW;
		r = predates(p, t, (uint32_t)part);
		if (r)
			return r;
	}
	if (part < 0)
		return t->last >= 0 ? t->last : 0;
	t->in = part;
	t->last = part;
	return part;
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
		part = free_part(p, parts, nr, t->tgid);
		if (part == HPLACE_NEW)
			return HPLACE_NEW;
		r = creates(p, t, (uint32_t)part);
		return r ?: part;
	}
	part = fd_part(p, ev->ioctl.fd, t);
	if (part < 0)
		return ioctl_predating(p, parts, nr, t, name);
	r = proc_bind(p, t, (uint32_t)part);
	if (r)
		return r;
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

	if (!msc_spte_present(&parts[0]->m.layout, spte))
		return -1;
	for (uint32_t i = 0; i < nr; i++) {
		if (!hmodel_holds(&parts[i]->m, as_id, gfn, level, spte))
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

/*
 * The first thing a vCPU of a VM from before the capture does that no value
 * places: a fault, or a map of a non-present entry.  (A kernel thread ages,
 * zaps or recovers present entries, which values place: it never gets a
 * part for its own process.)
 */
static bool begins_vcpu_work(const struct msc_history *h, const struct msc_event *ev)
{
	if (ev->type == MSC_EV_PAGE_FAULT || ev->type == MSC_EV_FAST_PF)
		return true;
	return ev->type == MSC_EV_SPTE_CHANGED && !msc_spte_present(&h->m.layout, ev->spte.old_spte);
}

/* @t's process has no VM known: its VM predates the capture */
static int first_work(struct hplace *p, struct msc_history *const *parts, uint32_t nr,
		      struct ptask *t)
{
	int part = unowned_part(p, parts, nr);
	int r;

	if (part == HPLACE_NEW)
		return HPLACE_NEW;
	r = predates(p, t, (uint32_t)part);
	return r ?: part;
}

/**
 * hplace_event - the part @ev goes to
 * @parts: the analysis's parts, @nr of them
 *
 * Returns its index, HPLACE_ALL (a gap in the trace: every part's history
 * has it), HPLACE_NEW (a VM created while every part's runs, or one of a
 * process from before the capture: the front makes a part, then tells
 * hplace_created()), or -ENOMEM.
 */
int hplace_event(struct hplace *p, struct msc_history *const *parts, uint32_t nr,
		 const struct msc_event *ev)
{
	struct ptask *t;
	int part;

	if (ev->type == MSC_EV_IOCTL)
		return place_ioctl(p, parts, nr, ev);
	if (nr == 1 && !p->nr_procs)
		return 0;
	if (ev->type == MSC_EV_LOST)
		return HPLACE_ALL;
	t = task_get(p, ev->pid, false);
	if (t && t->in >= 0)
		return t->in;
	part = nr > 1 ? by_value(parts, nr, t, ev) : -1;
	if (part >= 0) {
		if (t || (t = task_get(p, ev->pid, true)))
			t->last = part;
		return part;
	}
	if (t && t->last >= 0)
		return t->last;
	part = proc_part(p, t);
	if (part >= 0)
		return part;
	if (t && t->tgid && begins_vcpu_work(parts[0], ev))
		return first_work(p, parts, nr, t);
	if (nr == 1)
		return 0;
	p->unplaced++;
	return 0;
}
