/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Private to lib/history/: its front (history.c), the floor that opens,
 * resumes, feeds and finishes an analysis, and the one place that
 * sequences the floors below it, each of which calls only downward and
 * keeps its own state:
 *
 *	front		local.h		struct msc_history (one part of an analysis)
 *	detectors	detect.h	struct hdetect (place.c, phase.c, vm.c)
 *	counters	counters.h	struct hcensus, hactivity, hdirty (census.c,
 *					activity.c, dirty.c, anomaly.c)
 *	model		model.h		struct hmodel (model.c)
 *	tables		tables.h	the rows (store*.c, names.c: the only SQL)
 *
 * What a lower floor must tell one above goes through the hooks the front
 * hands it (struct hmodel_up, struct hup) or is returned.
 */
#ifndef MSC_HISTORY_LOCAL_H
#define MSC_HISTORY_LOCAL_H

#include "detect.h"

#define HNPF_SLOTS 512		/* power of two, above any VM's vCPU count */
#define HVCPU_SLOTS 1024	/* power of two, twice the vCPUs of the largest VM */
#define HSWEEP_LEVELS 6		/* SPTE levels 1 to 5 */

/*
 * What must survive between two analyze runs besides the tables, of every
 * floor: the analysis row's state blob.
 *
 * The version of struct hstate, kept in the analysis row's state blob with
 * its size: a blob of another version or size is not read (the analysis
 * starts over).  Raise it whenever a field of struct hstate changes its
 * place, size or meaning.
 */
#define HSTATE_VERSION 2

struct hstate {
	uint32_t size;			/* sizeof(struct hstate) */
	uint32_t version;		/* HSTATE_VERSION */
	uint8_t dirty_active;
	uint8_t flush_probes;		/* remote TLB flushes are traced (kprobe or tracepoint) */
	uint8_t dirty_log_open;		/* a patch _begin awaits its _end: the phase goes on */
	int32_t cur_dirty;		/* index of the open dirty-log phase, -1 */
	int32_t cur_repromote;		/* index of the open re-promotion phase, -1 */
	uint32_t awaiting;		/* cells waiting to be huge again */
	uint64_t disable_start;
	uint64_t huge_again_ts;		/* when the last awaiting cell became huge */
	int32_t last_dirty;		/* index of the last dirty-log phase, -1 */
	uint32_t faults_since_sweep;	/* vCPU faults since the last sweep activity */
	int32_t sweep_pid;		/* the task doing the open dirty-log phase's work */
	uint8_t sweep_task_moved;	/* ... did something else since its last activity */
	int32_t ioctl_pid;		/* the task in the KVM ioctl that bounds the open phase */
	uint8_t ioctl_open;		/* ... until its sys_exit_ioctl */
	/*
	 * Where the open sweep's walk is, per class of its work (split,
	 * write-protect, clear-dirty; per level too off the TDP MMU), as
	 * phase.c's walk_key(), 0 none: KVM walks a memslot's GFNs upward,
	 * level by level (rmaps) or parent before children (the TDP
	 * iterator), so a change at or below it is the next walk.
	 */
	uint64_t sweep_at[3][HSWEEP_LEVELS];
	uint64_t sweep_split_top;	/* ... the highest split */
	uint8_t sweep_whole;		/* ... protected below its splits: an enable's walk */
	/* a kprobe of the open sweep's kind and task: this call's, or the next's start */
	uint8_t kp_open, kp_kind;
	int32_t kp_pid;
	uint64_t kp_ts;
	int64_t kp_seq;
	/*
	 * A table's removal by a task that is not a vCPU, before any phase of
	 * its work opened: 7.x traces the removed table's children before the
	 * change that removed it (__handle_changed_spte()), so the phase that
	 * change opens (a disable's recovery, a teardown) began here.
	 */
	uint8_t pre_open;
	int32_t pre_pid;
	uint64_t pre_ts, pre_integral, pre_slack;
	int64_t pre_seq;
	struct msc_census pre_before;
	struct hcost pre;		/* what the task's removals cost since */
	/*
	 * A memslot ioctl right after an enable's or disable's, by the same
	 * task with nothing in between, continues that step (one slot after
	 * the other) until its work shows it is not the same: then the step
	 * ends where the previous ioctl ended (these), the rest is its own.
	 */
	uint8_t grp_pending;		/* a continued step, its work not seen yet */
	uint64_t grp_end_ts, grp_start_ts, grp_split_ns, grp_start_integral;
	int64_t grp_end_seq, grp_start_seq;
	struct msc_census grp_after;
	uint64_t split_integral;	/* sum over time of split cells, ns */
	uint64_t split_cells;		/* cells huge before and not huge now */
	/*
	 * Tasks seen taking page faults or entering KVM_RUN: an open-addressing
	 * set by pid (0, the idle task, never runs a vCPU: a free slot), full
	 * at half its slots.
	 */
	int32_t vcpu_pids[HVCPU_SLOTS];
	uint32_t nr_vcpu_pids;
	uint64_t act_bucket;		/* start of the activity bucket being summed */
	uint64_t act[ACT_NR];		/* its counters */
	/*
	 * NPF exits (kvm:kvm_page_fault) whose outcome is not known yet: the
	 * vCPU's next event says it (its fast_page_fault fixing the same GFN:
	 * the fast path; anything else: the slow path).  At most one per vCPU,
	 * an open-addressing table by pid (pid 0, the idle task, never faults
	 * a guest: it marks a free slot).
	 */
	struct {
		int32_t pid;
		uint64_t gfn;
	} npf[HNPF_SLOTS];
	uint32_t nr_npf;
	/*
	 * The vCPUs' pass between two dirty-log steps (populate, dirty pass,
	 * re-populate): open from the first vCPU event after a step to the
	 * last one before the next.
	 */
	int32_t cur_pass;		/* index of the open pass, -1 */
	uint8_t vm_disabled;		/* the VM disabled dirty logging since its last enable */
	/* VMs (lib/history/vm.c) */
	int32_t cur_vm;			/* index in msc_history.vms, -1 before the first event */
	uint8_t vm_used;		/* the current VM has phases or SPTE changes */
	uint8_t vm_gone;		/* ... and a teardown left none of its memory mapped */
	uint8_t ioctls_seen;		/* KVM ioctls are traced: VMs begin at KVM_CREATE_VM */
	uint8_t create_open;		/* a KVM_CREATE_VM awaits its exit */
	int32_t create_pid;
	uint64_t create_ts;
	int64_t create_seq;
};


/*
 * What the counters hand up, and the only way they do: the front
 * (history.c) installs it, as it hands the model its struct hmodel_up
 * (model.h), as SQLite's btree hands the pager its callbacks.  The census
 * tells the phase detector of a cell that became, or stopped being, mapped
 * huge.
 */
struct hup {
	void (*cell_huge)(struct msc_history *h, struct hcell *c, bool huge);
};

/*
 * One part of an analysis: the page tables, census and phases of one VM at
 * a time.  VMs that follow one another share a part; a VM created while
 * another still runs gets a part of its own (lib/history/place.c).  The
 * part msc_history_open() returns is the front: it places every event in
 * its part, owns the store writer the parts share, and writes what they
 * share (phases, VMs, regions, the analysis row).
 */
struct msc_history {
	const struct hup *up;		/* the front's hooks, the same in every part */
	struct msc_store *store;	/* borrowed */
	struct hstore *hs;		/* the front's */
	struct msc_history *front;	/* the front (itself for the front) */
	/* the front only */
	struct msc_history **parts;	/* parts[0] is the front */
	uint32_t nr_parts;
	struct hplace *place;		/* where each event goes */
	bool by_process;		/* the task table names processes: every event is placed */
	int64_t vm_seq;			/* VM ids given so far */
	int64_t fed_seq;		/* the last event fed; -1 none */
	uint64_t dup_events;		/* fed to more parts than one: counted once */
	int64_t capture_id;
	struct msc_history_opts opts;
	bool tdp_mmu;
	unsigned int kver;

	/* the event being fed */
	int64_t cur_seq;
	struct hchanges extended;	/* the costs of those history.c's feed_extends() took */

	/* the floors, each its own */
	struct hmodel m;		/* model.h */
	struct hcensus census;		/* counters.h */
	struct hactivity activity;	/* counters.h */
	struct hdirty dirty;		/* counters.h: the dirty_cell row being gathered */
	struct hdetect det;		/* detect.h */
	struct hstate st;		/* what a resume keeps, of every floor */

	struct msc_history_summary sum;
	uint64_t anomalies_by_kind[MSC_ANOMALY_KIND_NR];
	int err;			/* first store error; feeding stops */
};

/* 2M cells updated so far: recomputed by the census, or left as their row says by the model */
static inline uint64_t hcensus_updates(const struct msc_history *h)
{
	return h->census.cell_updates + h->m.cells_quiet;
}

/* lib/history/activity.c: how long a bucket of the activity tables is */
static inline uint64_t hact_bucket_ns(const struct msc_history *h)
{
	return h->opts.activity_bucket_ns ?: HACT_BUCKET_NS;
}

/* Does the row being gathered take pages of 2M cell @cell, @kind, @as_id (dirty.c)? */
static inline bool hdirty_takes(const struct msc_history *h, unsigned int kind,
				unsigned int as_id, uint64_t cell)
{
	const struct hdirty *d = &h->dirty;

	return d->pages && d->cell == cell && d->kind == kind && d->as_id == as_id &&
	       d->turn == h->det.phase_turns && d->vm == h->m.vm_id;
}

/*
 * hdirty_add - @pages 4K pages from @gfn were dirtied (collected or fixed,
 * @kind) at @ts.  Most often they are more of the cell the row gathers: a
 * harvest walks its GFNs in order.
 */
static inline void hdirty_add(struct msc_history *h, unsigned int kind, unsigned int as_id,
			      uint64_t gfn, uint64_t pages, uint64_t ts)
{
	if ((gfn + pages - 1) >> 9 == gfn >> 9 && hdirty_takes(h, kind, as_id, gfn >> 9))
		h->dirty.pages += pages;
	else
		hdirty_add_new(h, kind, as_id, gfn, pages, ts);
}


#endif /* MSC_HISTORY_LOCAL_H */
