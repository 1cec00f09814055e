/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Private to lib/history/: the analyzer's model
 * of the page tables, its phase detector, and the row writers of the
 * analysis tables (implemented in lib/history/store.c, the only file with SQL).
 *
 * The model is a radix tree per address space, one node per page table of
 * 512 entries at one level, allocated on first touch.  An entry is two
 * words: the SPTE and the start of its current interval (trace time in the
 * high 56 bits, cause and flags in the low 8), 16 bytes per mapped 4K page.
 * Level-2 nodes also keep, per 2M cell, the counters the memory map needs.
 * A node's entries are in chunks of HCHUNK_ENTRIES, each allocated when one
 * of its entries is first written: a node holding one entry costs a chunk,
 * not 512 entries (struct hchunk).
 *
 * Intervals are written in runs (table mapping_run): the intervals of one
 * node's entries that share everything but their times gather in a pending
 * run, written when it holds 512 intervals, when the node has no entry
 * left, when it is the least recently used of HRUN_MAX_PENDING pending
 * runs (or of the node's HRUN_NODE_MAX) and another is needed, or at the
 * end of the analysis.
 */
#ifndef MSC_HISTORY_LOCAL_H
#define MSC_HISTORY_LOCAL_H

#include <stdbool.h>
#include <stdint.h>

#include "mmuscope/history.h"
#include "mmuscope/spte.h"

struct msc_store;

#define HNODE_ENTRIES 512
#define HMAX_AS 2		/* as_id 0 normal, 1 SMM */
#define HTOP_LEVEL 5		/* the tree's top node holds level-5 entries */
#define HGFN_END (1ULL << (9 * HTOP_LEVEL))	/* GFNs the tree covers: 57-bit addresses */

/* Low byte of an entry's start word. */
#define HSTART_CAUSE_MASK 0x1fU
#define HSTART_SEEN (1U << 5)	/* the entry was written by an event at least once */
#define HSTART_LOST (1U << 6)	/* the interval began after a lost-events gap */
#define HSTART_SYNTH (1U << 7)	/* the interval began by an untraced change */

/* Per 2M cell, in the level-2 node covering it. */
struct hcell {
	uint16_t mapped;	/* 4K leaves present under the 2M entry */
	uint16_t writable;	/* ... of which writable */
	uint8_t kind;		/* enum msc_region_kind last computed */
	uint8_t q_mapped, q_writable, q_kind;	/* what the last region_state row said */
	uint8_t flags;		/* HCELL_* */
	uint16_t w_mapped, w_writable;	/* ... exactly (HCELL_STALE: not what the cell has) */
	uint64_t split_since;	/* trace time it stopped being huge */
};

#define HCELL_WRITTEN (1U << 0)	/* a region_state row exists */
#define HCELL_WAS_HUGE (1U << 1)	/* mapped huge at some point */
#define HCELL_AWAITING (1U << 2)	/* re-promotion not done yet */
#define HCELL_ZAPPED (1U << 3)	/* leaves zapped; faults here are refaults */
#define HCELL_SPLIT (1U << 4)	/* counted in h->split_cells */
#define HCELL_STALE (1U << 5)	/* changed within a sixteenth since its last row */
#define HCELL_SETTLE (1U << 6)	/* in h->settle: recomputed when the event is applied */

struct hrun;
struct harena;

/*
 * HCHUNK_ENTRIES consecutive entries of a node: their SPTEs and start
 * words; at levels above 1 the nodes under them (NULL: none yet), and at
 * level 2 then their 2M cells, HCHUNK_ENTRIES struct hcell (hnode_cell()).
 * A chunk's size is hchunk_size(level).
 *
 * Invariant: a node's chunk none of whose entries was ever written is
 * h->empty_chunk, shared and read-only (non-present SPTEs, zero start
 * words, no child, zero cells): whatever writes an entry, a child or a
 * cell makes the chunk its node's own first (hmodel_own()).  So
 * the model's memory grows with the entries written, not with how far
 * apart they are.
 */
#define HCHUNK_SHIFT 5
#define HCHUNK_ENTRIES (1U << HCHUNK_SHIFT)
#define HCHUNK_MASK (HCHUNK_ENTRIES - 1)
#define HNODE_CHUNKS (HNODE_ENTRIES / HCHUNK_ENTRIES)

struct hchunk {
	uint64_t spte[HCHUNK_ENTRIES];
	uint64_t start[HCHUNK_ENTRIES];
	struct hnode *child[];		/* level > 1 */
};

static inline size_t hchunk_size(unsigned int level)
{
	return sizeof(struct hchunk) +
	       (level > 1 ? HCHUNK_ENTRIES * sizeof(struct hnode *) : 0) +
	       (level == 2 ? HCHUNK_ENTRIES * sizeof(struct hcell) : 0);
}

struct hnode {
	uint8_t level;		/* level of the entries */
	uint8_t as_id;
	uint16_t present;	/* entries present (leaf or table) */
	uint64_t base;		/* first GFN covered */
	struct hnode *parent;
	struct hrun *runs;	/* pending runs of its entries' intervals */
	struct hchunk *chunk[HNODE_CHUNKS];	/* entry i: chunk[i / HCHUNK_ENTRIES] */
	struct hcell *cell;	/* level 1: its 2M cell, in its parent's chunk (chunks stay put) */
	int64_t last_run;	/* id of its last closed mapping_run row written; 0 none */
	/*
	 * When last_run was written, its entries were last_first ..
	 * last_first + last_n - 1 in that order, and each one's interval
	 * began at its end there; starts_set (the writes to start[]) was
	 * last_stamp then.  last_n 0: not so.
	 */
	uint64_t starts_set, last_stamp;
	uint16_t last_first, last_n;
	/*
	 * Its table is being removed while its parent entry still points to
	 * it (children traced first, 7.x: model.c, "Removed tables"): since
	 * detached_ts the live tree's mapping is the parent's next value.
	 */
	bool detached;
	uint64_t detached_ts;
};

/* Entry @i's SPTE, start word, child (levels above 1) */
static inline uint64_t hnode_spte(const struct hnode *n, unsigned int i)
{
	return n->chunk[i >> HCHUNK_SHIFT]->spte[i & HCHUNK_MASK];
}

static inline uint64_t hnode_start(const struct hnode *n, unsigned int i)
{
	return n->chunk[i >> HCHUNK_SHIFT]->start[i & HCHUNK_MASK];
}

static inline struct hnode *hnode_child(const struct hnode *n, unsigned int i)
{
	return n->chunk[i >> HCHUNK_SHIFT]->child[i & HCHUNK_MASK];
}

/*
 * The 2M cell of entry @i of the level-2 node @n2.  Read-only while its
 * chunk is the empty one: hmodel_own() it before writing.
 */
static inline struct hcell *hnode_cell(const struct hnode *n2, unsigned int i)
{
	struct hchunk *ch = n2->chunk[i >> HCHUNK_SHIFT];

	return (struct hcell *)&ch->child[HCHUNK_ENTRIES] + (i & HCHUNK_MASK);
}

/* Pending runs at most (the least recently used is written first), per node. */
#define HRUN_MAX_PENDING 256
#define HRUN_NODE_MAX 8

/* One interval of a run: entry @index of the run's node. */
struct hrun_entry {
	uint64_t start_ts, end_ts;	/* end_ts MSC_TS_OPEN: still open */
	uint16_t index;
};

/*
 * Intervals of entries of one node that share causes, flags and the leaf
 * rule: entry i's spte is spte + (i - first) * the level's page size, its
 * pfn pfn + (i - first) * its 4K pages; every other bit is equal.  An open
 * run (end_cause NONE) holds only open intervals and a closed one none.
 */
struct hrun {
	struct hnode *node;		/* the model's: its entries' node */
	uint64_t base;			/* ... which covers GFNs from base, */
	uint8_t as_id, level;		/* ... of address space as_id, at level */
	int64_t vm;			/* the VM its intervals are of (h->vm_id then) */
	struct hrun *next;		/* in node->runs, or in the free list */
	struct hrun *older, *newer;	/* in the list of pending runs, by last use */
	uint64_t spte, pfn;		/* of entry @first */
	uint16_t first;
	bool leaf, writable;
	int8_t dirty;			/* -1: the layout has no D bit */
	uint8_t start_cause, end_cause, flags;
	uint16_t n, alloc;		/* intervals in e, room in e */
	struct hrun_entry *e;
	/*
	 * gapless: entry k is first + k.  exact: each interval's end reads
	 * back from the start word set at it (model.c, start_word()).
	 * stamp0: the node's starts_set when the run began.
	 */
	bool gapless, exact;
	uint64_t stamp0;
};

/*
 * A range (model.c, "Ranges"): traced changes of consecutive 4K entries of
 * one node, each from a present leaf that the model holds to a present
 * leaf or to nothing, not applied to the model yet.  Entry first + k
 * becomes spte[k] (the layout's non-present value for nothing) at ts[k]
 * with @cause.
 */
struct hrange {
	struct hnode *node;		/* NULL: no range pending */
	uint16_t first, nr;
	uint8_t as_id, cause;
	uint64_t ts[HNODE_ENTRIES];
	uint64_t spte[HNODE_ENTRIES];
};

/* Changes of 4K SPTEs by one task, of one class, counted at once (hphase_cost_changes()) */
struct hchanges {
	uint64_t n;			/* 0: none */
	uint64_t gfn_first, gfn_last;
	int32_t pid;
	int what;			/* the HCOST_* each counts besides HCOST_SPTE; -1: none */
	uint8_t class;
	uint8_t level;			/* of every entry (a range is one table's) */
};

/* Pages dirtied in one 2M cell, gathered for a dirty_cell row (dirty.c). */
enum { HDIRTY_COLLECTED, HDIRTY_FIXED };	/* dirty_cell.kind */

struct hdirty {
	int64_t vm;
	uint64_t cell;			/* gfn >> 9 */
	uint64_t ts;			/* of its first page */
	uint64_t pages;			/* 0: none gathered */
	uint64_t turn;			/* h->phase_turns then */
	uint8_t as_id, kind;
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
	uint64_t split_integral0;	/* h->split_integral at the start */
	uint64_t cell_mark;		/* h->cell_updates when its end was settled */
	struct hcost cost;		/* attributed so far */
	struct hcost pending;		/* since the last activity (dirty-log phases) */
	int32_t pid;			/* a marker's: the task that began it; 0 unknown */
};

/* What must survive between two analyze runs besides the tables. */
#define HNPF_SLOTS 512		/* power of two, above any VM's vCPU count */

/* The activity tables' counters, in the order of their columns. */
enum hact {
	ACT_SPTE, ACT_MAPS, ACT_SPLITS, ACT_PROMOTIONS, ACT_ZAPS, ACT_WP, ACT_SLOW, ACT_FAST,
	ACT_FLUSH,
	ACT_NR
};

#define HACT_BUCKET_NS 1000000ULL	/* the default activity bucket: 1 ms */
#define HVCPU_SLOTS 1024		/* power of two, twice the vCPUs of the largest VM */
#define HSWEEP_LEVELS 6		/* SPTE levels 1 to 5 */
#define HTASK_SLOTS 1024		/* power of two, >= 4 x HNPF_SLOTS / 2 */

/* One task's counters in the activity bucket (lib/history/activity.c). */
struct htask_act {
	uint32_t key;			/* pid + 2; 0: a free slot */
	int32_t vcpu;			/* the vCPU its faults named, -1: none */
	uint64_t act[ACT_NR];
};

/*
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

struct hstore;
struct hplace;

/*
 * One part of an analysis: the page tables, census and phases of one VM at
 * a time.  VMs that follow one another share a part; a VM created while
 * another still runs gets a part of its own (lib/history/place.c).  The
 * part msc_history_open() returns is the front: it places every event in
 * its part, owns the store writer the parts share, and writes what they
 * share (phases, VMs, regions, the analysis row).
 */
/*
 * What a lower floor hands up, and the only way it does: the front
 * (history.c) installs these, as SQLite's btree hands the pager its
 * callbacks.  The model tells of a 2M cell changed under it (the census
 * writes its row), of an event it could not apply (the anomaly log) and of
 * a run of intervals filled (the tables write it); the census tells the
 * phase detector of a cell that became, or stopped being, mapped huge.
 */
struct hup {
	int (*cell_changed)(struct msc_history *h, unsigned int as_id, struct hnode *n2,
			    unsigned int i);
	int (*anomaly)(struct msc_history *h, enum msc_anomaly_kind kind, unsigned int as_id,
		       uint64_t gfn, unsigned int level, uint64_t old_spte, uint64_t new_spte,
		       const char *fmt, ...) __attribute__((format(printf, 8, 9)));
	void (*cell_huge)(struct msc_history *h, struct hcell *c, bool huge);
	/*
	 * a run of intervals filled: written with id *@ret_id; @last_run its
	 * node's last closed run (0 none), @known: it begins where that ended
	 */
	int (*run_filled)(struct msc_history *h, const struct hrun *run, int64_t last_run,
			  bool known, int64_t *ret_id);
};

struct msc_history {
	const struct hup *up;		/* the front's hooks, the same in every part */
	struct msc_store *store;	/* borrowed */
	struct hstore *hs;		/* the front's */
	struct msc_history *front;	/* the front (itself for the front) */
	int64_t vm_id;			/* the VM the part's tables are of now (vm.c) */
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
	struct msc_spte_layout layout;
	bool tdp_mmu;
	unsigned int kver;

	struct hnode *root[HMAX_AS];
	struct hnode *cache[HMAX_AS][HTOP_LEVEL + 1];	/* last node used per level */
	uint64_t nodes;			/* allocated, for the memory figure */
	struct harena *arenas;		/* where the nodes and chunks are (model.c) */
	struct hchunk *empty_chunk;	/* every node's chunk not written yet (read-only) */
	bool loading;			/* resuming: rebuild state, write no rows */

	/* pending runs (lib/history/model.c) */
	struct hrun *oldest, *newest;	/* least / most recently used */
	struct hrun *free_runs;		/* written, kept for reuse */
	unsigned int nr_runs;		/* allocated, pending or free */
	size_t run_bytes, run_bytes_peak;	/* their memory, for the memory figure */

	struct hrange range;		/* changes not applied yet (model.c, "Ranges") */
	struct hchanges extended;	/* the costs of those history.c's feed_extends() took */
	/*
	 * The 2M cells the event being applied changed (model.c, "Cells"),
	 * recomputed once each when it is applied: one region_state row per
	 * cell and time, however many of its entries the event wrote.
	 */
	bool settling;			/* an event is being applied: cells wait in settle */
	struct hcellref {
		struct hnode *n2;
		uint16_t i;
	} *settle;
	size_t nr_settle, alloc_settle;

	uint64_t ts_base;		/* entry start words hold ts - ts_base */
	uint64_t last_ts;		/* last (clamped) event time */
	int64_t cur_seq;
	bool after_lost;

	/* census */
	int64_t pages[HMAX_AS][MSC_HISTORY_MAX_LEVEL + 1];
	bool census_dirty[HMAX_AS];
	uint64_t census_row_ts;		/* when the last census row was written */
	uint64_t cell_updates;		/* 2M cells recomputed so far */
	uint64_t cells_stale;		/* cells with HCELL_STALE */
	unsigned int census_flags;

	/* phases */
	struct hphase *phases;
	size_t nr_phases, alloc_phases;
	struct hstate st;
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
	struct hdirty dirty;		/* the dirty_cell row being gathered */

	/* the activity bucket's tasks, by pid (activity.c) */
	struct htask_act tasks[HTASK_SLOTS];
	uint16_t task_used[HTASK_SLOTS / 2];	/* the slots taken, in the order taken */
	uint32_t nr_tasks;
	struct htask_act *task_last;	/* the slot found last, NULL */

	struct msc_history_summary sum;
	uint64_t anomalies_by_kind[MSC_ANOMALY_KIND_NR];
	int err;			/* first store error; feeding stops */
	uint64_t orphans;		/* teardown children of tables already gone (not stored) */
	uint64_t transitions;		/* transition()s so far */
	/*
	 * The table the last orphan was of: its next children are orphans too
	 * while no transition() happened since (its parent entry unchanged).
	 */
	struct {
		uint64_t mark;		/* h->transitions then + 1; 0: none */
		uint64_t base;
		uint8_t as_id, level;
	} orphan_of;
	bool resumed;			/* the model was rebuilt from an earlier run's open
					   intervals: what they do not say was unseen */
};

/* lib/history/model.c */
struct hnode *hmodel_node(struct msc_history *h, unsigned int as_id, uint64_t gfn,
			  unsigned int level, bool create);
void hmodel_free(struct msc_history *h);
int hmodel_set(struct msc_history *h, unsigned int as_id, uint64_t gfn, unsigned int level,
	       uint64_t new_spte, unsigned int cause, unsigned int flags);
int hmodel_change(struct msc_history *h, unsigned int as_id, uint64_t gfn, unsigned int level,
		  uint64_t old_spte, uint64_t new_spte, unsigned int cause);
int hmodel_split_children(struct msc_history *h, unsigned int as_id, uint64_t gfn,
			  unsigned int level, uint64_t huge, unsigned int cause);
bool hmodel_range_extend(struct msc_history *h, unsigned int as_id, uint64_t gfn,
			 unsigned int level, uint64_t old_spte, uint64_t new_spte,
			 unsigned int cause, uint64_t ts);
int hmodel_range_add(struct msc_history *h, unsigned int as_id, uint64_t gfn, unsigned int level,
		     uint64_t old_spte, uint64_t new_spte, unsigned int cause);
int hmodel_range_apply(struct msc_history *h);
void hmodel_settle_begin(struct msc_history *h);
int hmodel_settle(struct msc_history *h);
int hmodel_clear_below(struct msc_history *h, unsigned int as_id, uint64_t gfn,
		       unsigned int level, unsigned int cause, bool stale);
int hmodel_drop_range(struct msc_history *h, unsigned int as_id, uint64_t gfn, uint64_t end,
		      unsigned int min_level, unsigned int max_level, unsigned int cause);
int hmodel_detach(struct msc_history *h, unsigned int as_id, uint64_t gfn, unsigned int level);
int hmodel_find_leaf(struct msc_history *h, unsigned int as_id, uint64_t gfn,
		     unsigned int *ret_level);
bool hmodel_holds(struct msc_history *h, unsigned int as_id, uint64_t gfn, unsigned int level,
		  uint64_t spte);
int hmodel_chunk_new(struct msc_history *h, struct hnode *n, struct hchunk **slot);

/*
 * hmodel_own - make entry @i of @n, its child slot and (level 2) its cell
 * writable: the chunk its node's own, no longer the empty one.  Returns 0
 * or -ENOMEM.
 */
/*
 * The model's count of its leaves: h->pages[as][level] leaves at that level
 * (+1 per leaf installed, -1 per leaf gone, +512 per split), and
 * h->census_dirty[as] set whenever they move, which the census reads and
 * clears when it writes its row.
 */
static inline void hmodel_leaves_add(struct msc_history *h, unsigned int as_id, unsigned int level,
				     int delta)
{
	h->pages[as_id][level] += delta;
	h->census_dirty[as_id] = true;
}

static inline int hmodel_own(struct msc_history *h, struct hnode *n, unsigned int i)
{
	struct hchunk **slot = &n->chunk[i >> HCHUNK_SHIFT];

	return *slot != h->empty_chunk ? 0 : hmodel_chunk_new(h, n, slot);
}

/* Cell @i of the level-2 node @n2, to write; NULL: out of memory */
static inline struct hcell *hmodel_own_cell(struct msc_history *h, struct hnode *n2,
					    unsigned int i)
{
	return hmodel_own(h, n2, i) ? NULL : hnode_cell(n2, i);
}
const struct hcell *hmodel_cell(struct msc_history *h, unsigned int as_id, uint64_t gfn);
int hmodel_load_interval(struct msc_history *h, const struct msc_interval *iv);
void hmodel_mark_was_huge(struct msc_history *h, const struct msc_interval *iv);
int hmodel_close_all(struct msc_history *h);
typedef int (*hcell_fn)(struct msc_history *h, struct hnode *n2, unsigned int i,
			struct hcell *c, void *ctx);
int hmodel_for_each_cell(struct msc_history *h, hcell_fn fn, void *ctx);

/* lib/history/census.c */

/* A 2M cell's count of 4K pages as its region_state rows see it: sixteenths. */
static inline uint8_t hcensus_quant(unsigned int n)
{
	return n == 0 ? 0 : n >= 512 ? 17 : (uint8_t)(1 + n / 32);
}


int hcensus_flush(struct msc_history *h, uint64_t now);
uint64_t hcensus_due_at(const struct msc_history *h);
void hcensus_total(const struct msc_history *h, struct msc_census *ret);
int hcensus_marker(struct msc_history *h, const struct msc_event *ev);
int hcensus_cell_update(struct msc_history *h, unsigned int as_id, struct hnode *n2,
			unsigned int i);
int hcensus_cells_exact(struct msc_history *h, uint64_t ts);
bool hcensus_parse_stats(const char *text, char *phase, size_t phase_size,
			 int64_t pages[MSC_HISTORY_MAX_LEVEL + 1]);

/* A vCPU's fault: its NPF exit or fast_page_fault */
static inline bool hev_fault(const struct msc_event *ev)
{
	return ev->type == MSC_EV_PAGE_FAULT || ev->type == MSC_EV_FAST_PF;
}

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

/* What hphase_cost() counts. */
enum {
	HCOST_SPTE, HCOST_SPLIT, HCOST_SPLIT_FAIL, HCOST_PAGES_SPLIT, HCOST_PROMOTE,
	HCOST_SYNTH, HCOST_FAULT_SLOW, HCOST_FAULT_FAST, HCOST_FAULT_SPURIOUS, HCOST_FLUSH,
	HCOST_ZAP, HCOST_REFAULT, HCOST_MAP, HCOST_WP, HCOST_FIXED,
};

/* lib/history/activity.c */
struct htask_act *hact_task_slot(struct msc_history *h, int32_t pid);
int hact_tick(struct msc_history *h, uint64_t ts, const struct msc_event *ev);

static inline uint64_t hact_bucket_ns(const struct msc_history *h)
{
	return h->opts.activity_bucket_ns ?: HACT_BUCKET_NS;
}

/* Task @pid's counters in the bucket: most often the last task's. */
static inline struct htask_act *hact_task(struct msc_history *h, int32_t pid)
{
	struct htask_act *t = h->task_last;

	return t && t->key == (uint32_t)pid + 2 ? t : hact_task_slot(h, pid);
}

/* Which activity counter an HCOST_* is, -1: none. */
static inline int hact_index(unsigned int what)
{
	switch (what) {
	case HCOST_SPTE: return ACT_SPTE;
	case HCOST_MAP: return ACT_MAPS;
	case HCOST_SPLIT: return ACT_SPLITS;
	case HCOST_PROMOTE: return ACT_PROMOTIONS;
	case HCOST_ZAP: return ACT_ZAPS;
	case HCOST_WP: return ACT_WP;
	case HCOST_FAULT_SLOW: return ACT_SLOW;
	case HCOST_FAULT_FAST: return ACT_FAST;
	case HCOST_FAULT_SPURIOUS: return ACT_FAST;	/* resolved by the fast path */
	case HCOST_FLUSH: return ACT_FLUSH;
	default: return -1;
	}
}

/* hact_count - count @n of @what (HCOST_*) for the bucket and for task @pid */
static inline void hact_count(struct msc_history *h, int32_t pid, unsigned int what, uint64_t n)
{
	int a = hact_index(what);

	if (a < 0)
		return;
	h->st.act[a] += n;
	hact_task(h, pid)->act[a] += n;
}

/* lib/history/dirty.c */
void hdirty_add_new(struct msc_history *h, unsigned int kind, unsigned int as_id, uint64_t gfn,
		    uint64_t pages, uint64_t ts);
int hdirty_flush(struct msc_history *h);

/* Does the row being gathered take pages of 2M cell @cell, @kind, @as_id (dirty.c)? */
static inline bool hdirty_takes(const struct msc_history *h, unsigned int kind,
				unsigned int as_id, uint64_t cell)
{
	const struct hdirty *d = &h->dirty;

	return d->pages && d->cell == cell && d->kind == kind && d->as_id == as_id &&
	       d->turn == h->phase_turns && d->vm == h->vm_id;
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

/* lib/history/anomaly.c */
int hanomaly(struct msc_history *h, enum msc_anomaly_kind kind, unsigned int as_id,
	     uint64_t gfn, unsigned int level, uint64_t old_spte, uint64_t new_spte,
	     const char *fmt, ...) __attribute__((format(printf, 8, 9)));

/* lib/history/store-regions.c: regions, from region_state rows kept as written */
struct hcell_log;
struct hcell_log *hcell_log_new(void);
void hcell_log_free(struct hcell_log *l);
int hcell_log_put(struct hcell_log *l, const struct msc_region_cell *c, uint64_t ts,
		  bool replace);
int hregions_build(struct msc_store *s, int64_t capture_id, struct hcell_log *log,
		   const struct msc_phase *ph, size_t nr_phases);

/* lib/history/store-dirty.c: a step's dirtied pages by region */
struct hdirty_split;
int hdirty_split_open(struct msc_store *s, int64_t capture_id, const struct msc_phase *ph,
		      size_t nr_phases, struct hdirty_split **ret);
void hdirty_split_cell(struct hdirty_split *d, int32_t vm, unsigned int as_id, uint64_t gfn,
		       int64_t *dirt);
bool hdirty_split_whole(const struct hdirty_split *d, size_t p);
void hdirty_split_free(struct hdirty_split *d);

/* lib/history/store.c: rows of the analysis tables */
int hstore_open(struct msc_store *s, struct hstore **ret);
void hstore_close(struct hstore *hs);
int hstore_begin(struct hstore *hs);
int hstore_commit(struct hstore *hs);
int hstore_drop(struct hstore *hs, int64_t capture_id);
int hstore_keep_cells(struct hstore *hs, int64_t capture_id);
int hstore_mark_running(struct hstore *hs, int64_t capture_id);
int hstore_load_analysis(struct hstore *hs, int64_t capture_id,
			 struct msc_history_summary *sum, struct hstate *st, bool *ret_found);
int hstore_save_analysis(struct hstore *hs, const struct msc_history_summary *sum,
			 const struct hstate *st);
/* An interval read back, handed up to the one who asked (the front). */
typedef int (*hinterval_fn)(const struct msc_interval *iv, void *ctx);

int hstore_load_open(struct hstore *hs, int64_t capture_id, hinterval_fn fn, void *ctx);
int hstore_load_was_huge(struct hstore *hs, int64_t capture_id, hinterval_fn fn, void *ctx);
int hstore_delete_open(struct hstore *hs, int64_t capture_id);
int hstore_add_run(struct hstore *hs, int64_t capture_id, const struct hrun *run,
		   int64_t last_run, bool ends_known, int64_t *ret_id);
int hstore_add_census(struct hstore *hs, int64_t capture_id, int64_t vm, unsigned int as_id,
		      uint64_t ts, int64_t seq, const int64_t *pages, unsigned int flags);
int hstore_add_kvm_stats(struct hstore *hs, int64_t capture_id,
			 const struct msc_kvm_stats *k, const char *text);
int hstore_add_region_state(struct hstore *hs, int64_t capture_id,
			    const struct msc_region_cell *c, uint64_t ts);
int hstore_add_dirty_cell(struct hstore *hs, int64_t capture_id, const struct hdirty *d);
int hstore_put_activity(struct hstore *hs, int64_t capture_id, uint64_t ts,
			const uint64_t act[ACT_NR]);
int hstore_put_task_activity(struct hstore *hs, int64_t capture_id, uint64_t ts,
			     const struct htask_act *t);
int hstore_add_anomaly(struct hstore *hs, int64_t capture_id, const struct msc_anomaly *a);
int hstore_put_phases(struct hstore *hs, int64_t capture_id, const struct msc_phase *p,
		      const bool *open, size_t nr);
int hstore_read_phases(struct msc_store *s, int64_t capture_id, struct msc_phase **ret,
		       bool **ret_open, size_t *ret_nr);
int hstore_put_vms(struct hstore *hs, int64_t capture_id, const struct msc_vm *vms, size_t nr);
int hstore_load_vms(struct hstore *hs, int64_t capture_id, struct msc_vm **ret,
		    size_t *ret_nr);
int hstore_build_regions(struct hstore *hs, int64_t capture_id);
int hstore_finish(struct hstore *hs, bool indexes);

#endif /* MSC_HISTORY_LOCAL_H */
