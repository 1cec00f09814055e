/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lib/history/'s detectors, the floor above the counters: the dirty-log
 * phases and the vCPUs' passes (phase.c, with the steady stretches that
 * take a storm's events without asking again), the VMs (vm.c) and the
 * pages each step dirtied (dirty.c).  They count into the counters, read
 * the model, and write through the tables; the front feeds them.
 */
#ifndef MSC_HISTORY_DETECT_H
#define MSC_HISTORY_DETECT_H

#include "counters.h"

/* Changes of 4K SPTEs by one task, of one class, counted at once (hphase_cost_changes()) */
struct hchanges {
	uint64_t n;			/* 0: none */
	uint64_t gfn_first, gfn_last;
	int32_t pid;
	int what;			/* the HCOST_* each counts besides HCOST_SPTE; -1: none */
	uint8_t class;
	uint8_t level;			/* of every entry (a range is one table's) */
};

/* Counters attributed to a phase (or to the pending tail of one). */
struct hcost {
	struct msc_phase_counts count;	/* flushes counted from 0 */
	int64_t last_seq;
	uint64_t last_ts;
};

/* A phase being built; turned into struct msc_phase when written. */
struct hphase {
	struct msc_phase p;
	bool open;
	uint64_t split_integral0;	/* st.split_integral at the start */
	uint64_t cell_mark;		/* census.cell_updates when its end was settled */
	struct hcost cost;		/* attributed so far */
	struct hcost pending;		/* since the last activity (dirty-log phases) */
	int32_t pid;			/* a marker's: the task that began it; 0 unknown */
};

/* A vCPU's fault: its NPF exit or fast_page_fault */
static inline bool hev_fault(const struct msc_event *ev)
{
	return ev->type == MSC_EV_PAGE_FAULT || ev->type == MSC_EV_FAST_PF;
}

/* The detectors' state besides what a resume keeps (struct hstate). */
struct hdetect {
	struct hphase *phases;
	size_t nr_phases, alloc_phases;
	struct msc_vm *vms;		/* every VM so far, by id - 1 */
	size_t nr_vms, alloc_vms;
	bool pass_hit;			/* the event being fed is vCPU activity of the open pass */
	bool sweep_hit;			/* the event being fed is activity of the open
					   dirty-log phase: commit its pending costs */
	bool end_dirty;		/* the event ends the open dirty-log phase (patch end event) */
	bool ended;		/* no event follows the last one fed (msc_history_capture_ended) */
	/*
	 * Steady stretches (phase.c, "Steady stretches"): an SPTE change of the
	 * task, class and level of the one just fed, which the phase detector
	 * took as more of the open phase's activity, is taken the same way
	 * without asking it again; so is a vCPU's fault after a pass event.
	 * The stretch's costs gather in `batch' and reach the open phases when
	 * it ends: before any other event is fed, before the set of open
	 * phases changes, and before anything is written.
	 */
	uint8_t steady;			/* HSTEADY_*: how the last event fed was taken; 0 */
	int32_t steady_pid;		/* ... its task, class and level */
	uint8_t steady_class, steady_level;	/* MSC_CLASS_NR, 0: a fault */
	uint8_t stretch;		/* HSTEADY_* of the stretch under way; 0: none */
	uint64_t prev_ts;		/* the time of the event before the one being fed */
	uint64_t *steady_walk;		/* a sweep's stretch: its walk's position, NULL none */
	int32_t ev_pid;			/* the task of the event the detector saw last */
	bool ev_vcpu;			/* ... a vCPU (hphase_is_vcpu()) */
	bool kp_hit;			/* ... a kprobe inside the open sweep (st.kp_open) */
	uint64_t steady_until;		/* when it ends at the latest; 0: not known yet */
	struct hcost batch;		/* its costs so far */
	uint64_t phase_turns;		/* phases begun or ended so far (dirty.c) */
};

/* lib/history/phase.c */
#define HSTEADY_SWEEP 1U	/* activity of the open dirty-log phase: it reaches the event */
#define HSTEADY_PASS 2U		/* a vCPU event of the open pass: the pass reaches it */

bool hphase_steady(struct msc_history *h, const struct msc_event *ev);
void hphase_steady_event(struct msc_history *h, const struct msc_event *ev);
void hphase_stretch_end(struct msc_history *h);
void hphase_cost_changes(struct msc_history *h, const struct hchanges *c);
void hphase_cost(struct msc_history *h, const struct msc_event *ev, unsigned int what,
		 uint64_t n);
int hphase_event(struct msc_history *h, const struct msc_event *ev);
void hphase_cell_huge(struct msc_history *h, struct hcell *c, bool huge);
int hphase_tick(struct msc_history *h, uint64_t ts, const struct msc_event *ev);
int hphase_capture_end(struct msc_history *h);
int hphase_commit(struct msc_history *h);
int hphase_resume(struct msc_history *h);
int hphase_load(struct msc_history *h);
int hphase_rows(const struct hphase *ph, size_t nr, struct msc_phase **ret_p, bool **ret_open);
void hphase_finish(struct msc_history *h);
bool hphase_in_disable(const struct msc_history *h);
bool hphase_is_vcpu(const struct msc_history *h, int32_t pid);
bool hphase_vcpus_full(const struct msc_history *h);
int hphase_vm_begins(struct msc_history *h, const struct msc_event *ev);

/* lib/history/vm.c */
/* What a VM's beginning ends of the one before (hphase_vm_begins()). */
typedef int (*hvm_ends_fn)(struct msc_history *h, const struct msc_event *ev);

int hvm_event(struct msc_history *h, const struct msc_event *ev, hvm_ends_fn ends);
void hvm_commit(struct msc_history *h, const struct msc_event *ev);
void hvm_census(struct msc_history *h);
int64_t hvm_current(const struct msc_history *h);
bool hvm_by_ioctl(const struct msc_history *h);
bool hvm_free(const struct msc_history *h);

/* lib/history/place.c: which part each event goes to */
struct hplace;

#define HPLACE_ALL (-1)		/* every part */
#define HPLACE_NEW (-2)		/* a part of its own: a VM created beside others */

int hplace_new(struct hplace **ret);
void hplace_free(struct hplace *p);
int hplace_event(struct hplace *p, struct msc_history *const *parts, uint32_t nr_parts,
		 const struct msc_event *ev);
void hplace_created(struct hplace *p, const struct msc_event *ev, uint32_t part);
int hplace_set_task(struct hplace *p, int32_t pid, int32_t tgid);
uint32_t hplace_processes(const struct hplace *p);
uint64_t hplace_unplaced(const struct hplace *p);

#endif /* MSC_HISTORY_DETECT_H */
