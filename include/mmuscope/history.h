/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The analyzer: rebuild the guest's TDP page tables over time from the
 * stored events, and read what was rebuilt.
 *
 * Writing.  A struct msc_history is fed one classified event at a time, in
 * stream (seq) order, by `mmuscope analyze` (from msc_store_events_open())
 * or inline by import/record (through the ingest tap, see
 * msc_history_tap_new()).  It keeps a model of every address space's page
 * tables: (as_id, gfn, level) -> SPTE.  Each event's old_spte is
 * authoritative: where it disagrees with the model a resync is counted and
 * the model follows the event.  What the kernel does not trace is applied
 * by the model itself: the 512 children a split writes, fast_page_fault's
 * lockless fixes, and the frozen -> non-present step after a teardown.
 * What it rebuilds goes to the analysis tables of schema/002-analysis.sql:
 * mapping (per-entry intervals), census (leaf counts per size), phase
 * (dirty-log phases with their costs), anomaly, kvm_stats, region_state,
 * activity.  Analysis is incremental: msc_history_open() resumes after the
 * last analyzed event of the capture, and analyzing again gives the same
 * tables.
 *
 * Reading.  A struct msc_hview answers the questions of `mmuscope report`
 * and the TUI with index lookups on those tables (no scans of the event
 * tables, no SQL outside lib/store*.c).  Every array a read function
 * returns is the caller's, freed with free().
 *
 * Times are trace-clock nanoseconds, as in the event tables.  Levels are
 * 1 = 4K, 2 = 2M, 3 = 1G.
 */
#ifndef MSC_HISTORY_H
#define MSC_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mmuscope/tap.h"

#include "mmuscope/event.h"

struct msc_host;
struct msc_store;

#define MSC_HISTORY_MAX_LEVEL 3		/* leaf sizes counted: 4K, 2M, 1G */
#define MSC_TS_OPEN UINT64_MAX		/* end of an interval still open */

/*
 * What started or ended a mapping interval.  X(enum suffix, text name);
 * the names are stable (schema table map_cause, report, --json).
 */
#define MSC_MAP_CAUSES(X)                                                      \
	X(NONE, "-")                                                           \
	X(FAULT, "fault-map")		/* installed by a page fault */        \
	X(EAGER_SPLIT, "eager-split")	/* child of a split by an ioctl */     \
	X(FAULT_SPLIT, "fault-split")	/* child of a split in a fault */      \
	X(SPLIT, "split")		/* a huge leaf became a table */       \
	X(LINK, "link")			/* a new page table linked */          \
	X(WRITE_PROTECT, "write-protect")                                      \
	X(MAKE_WRITABLE, "make-writable")	/* slow path */                \
	X(FAST_FIX, "fast-fix")		/* fast_page_fault, lockless */        \
	X(CLEAR_DIRTY, "clear-dirty")                                          \
	X(AGE, "age")                                                          \
	X(ACCESS, "access-track")                                              \
	X(ZAP, "zap")			/* leaf or subtree zapped */           \
	X(ZAP_COLLAPSIBLE, "zap-collapsible")	/* dirty-log disable <= 6.12 */ \
	X(PROMOTE, "promote")		/* in-place recovery, >= 6.13 */       \
	X(NOTIFIER_UNMAP, "notifier-unmap")	/* mmu notifier (unmap_hva) */ \
	X(TEARDOWN, "teardown")		/* parent table removed */             \
	X(SHADOW_SET, "shadow-set")	/* shadow MMU kvm_mmu_set_spte */      \
	X(SHADOW_DROP, "shadow-drop")	/* shadow MMU: dropped by inference */ \
	X(RESYNC, "resync")		/* old_spte disagreed with the model */ \
	X(TRACE_START, "trace-start")	/* present before the trace began */   \
	X(OTHER, "other")

enum msc_map_cause {
#define X(name, str) MSC_CAUSE_##name,
	MSC_MAP_CAUSES(X)
#undef X
	MSC_CAUSE_NR,
};

/* Flags of an interval (mapping.flags). */
enum msc_interval_flags {
	MSC_IV_SYNTH = 1 << 0,		/* started by a change the kernel did not trace */
	MSC_IV_AFTER_LOST = 1 << 1,	/* began after a lost-events gap */
	MSC_IV_RESYNC = 1 << 2,		/* its value came from an event's old_spte */
};

/* One interval of one page-table entry: a leaf or a page table. */
struct msc_interval {
	uint64_t gfn;			/* base GFN of the entry's range */
	uint8_t as_id;
	uint8_t level;			/* 1 4K, 2 2M, 3 1G, 4/5 upper tables */
	bool leaf;			/* false: points to a page table */
	bool writable;
	int8_t dirty;			/* 1/0, -1 when the layout has no D bit */
	uint8_t start_cause;		/* enum msc_map_cause */
	uint8_t end_cause;		/* enum msc_map_cause; NONE while open */
	uint8_t flags;			/* enum msc_interval_flags */
	uint64_t start_ts, end_ts;	/* end_ts MSC_TS_OPEN: still mapped */
	uint64_t spte;			/* the value during the interval */
	uint64_t pfn;			/* host frame (leaf) or table frame */
};

/* Census flags. */
enum msc_census_flags {
	MSC_CENSUS_APPROX = 1 << 0,	/* legacy/shadow MMU: leaf removals partly untraced */
	MSC_CENSUS_PARTIAL = 1 << 1,	/* trace began after SPTEs were installed */
	MSC_CENSUS_AFTER_LOST = 1 << 2,	/* events were lost before this point */
};

/* Leaf SPTEs per size at one time, all address spaces together. */
struct msc_census {
	uint64_t ts;
	int64_t pages[MSC_HISTORY_MAX_LEVEL + 1];	/* [1] 4K, [2] 2M, [3] 1G; [0] unused */
	unsigned int flags;		/* enum msc_census_flags */
};

/* Guest memory mapped, in 4K pages, and the share of it mapped huge. */
static inline uint64_t msc_census_mapped(const struct msc_census *c)
{
	return (uint64_t)c->pages[1] + 512ULL * (uint64_t)c->pages[2] +
	       262144ULL * (uint64_t)c->pages[3];
}

#define MSC_PHASE_KINDS(X)                                                     \
	X(WORKLOAD, "workload")		/* phase=NAME begin/end markers */     \
	X(ENABLE, "enable")		/* dirty logging enabled: split + protect */ \
	X(HARVEST, "harvest")		/* get/clear dirty log sweep */        \
	X(DISABLE, "disable")		/* zap collapsible / in-place recovery */ \
	X(REPROMOTE, "re-promotion")	/* until each region is huge again */  \
	X(MEMSLOT, "memslot")		/* a memslot update without dirty-log work */ \
	X(TEARDOWN, "teardown")		/* the VM's tables go: memslots deleted, VM destroyed */ \
	X(POPULATE, "populate")		/* vCPUs touch memory before dirty logging */ \
	X(DIRTY_PASS, "dirty-pass")	/* vCPUs run while dirty logging is on */ \
	X(REPOPULATE, "re-populate")	/* vCPUs touch memory again after a disable */

enum msc_phase_kind {
#define X(name, str) MSC_PHASE_##name,
	MSC_PHASE_KINDS(X)
#undef X
	MSC_PHASE_KIND_NR,
};

/* The kernel's dirty-log and memslot work, not the workload's or its vCPUs'. */
static inline bool msc_phase_is_dirty_log(unsigned int kind)
{
	return kind != MSC_PHASE_WORKLOAD && kind != MSC_PHASE_POPULATE &&
	       kind != MSC_PHASE_DIRTY_PASS && kind != MSC_PHASE_REPOPULATE;
}

/* The steps whose work shows what the guest dirtied (struct msc_phase.dirtied). */
static inline bool msc_phase_sees_dirtying(unsigned int kind)
{
	return kind == MSC_PHASE_HARVEST || kind == MSC_PHASE_DIRTY_PASS;
}

/* How a phase was found (weakest last). */
#define MSC_PHASE_SOURCES(X)                                                   \
	X(MARKER, "marker")		/* the workload said so */             \
	X(TRACEPOINT, "tracepoint")	/* companion patch tracepoints: exact */ \
	X(IOCTL, "ioctl")		/* bounded by its KVM ioctl: exact */  \
	X(KPROBE, "kprobe")		/* kprobe on the KVM function: exact start */ \
	X(INFERRED, "inferred")		/* from SPTE change patterns */

/*
 * How far a phase's start and end are the call's own: "exact" both (the
 * ioctl's enter and exit, the patch's _begin and _end, a workload's
 * markers), "bounded" one of them (a kprobe at the function's entry), or
 * "inferred" from the work alone.  A bound that is not exact may lie as
 * far out as the quiet time before the phase's first activity (the start)
 * or after its last (the end): the slack of each.
 */
#define MSC_PHASE_BOUNDS(X)                                                    \
	X(INFERRED, "inferred")                                                \
	X(BOUNDED, "bounded")                                                  \
	X(EXACT, "exact")

#define MSC_EXACT_START 1
#define MSC_EXACT_END 2

enum msc_phase_bounds {
#define X(name, str) MSC_BOUNDS_##name,
	MSC_PHASE_BOUNDS(X)
#undef X
	MSC_BOUNDS_NR,
};

enum msc_phase_source {
#define X(name, str) MSC_PHASE_SRC_##name,
	MSC_PHASE_SOURCES(X)
#undef X
	MSC_PHASE_SRC_NR,
};

/*
 * What a phase did, counted: a written phase's, and the analyzer's while it
 * builds one (lib/history/phase.c), so the two cannot drift apart.
 */
struct msc_phase_counts {
	uint64_t gfn_first, gfn_last;	/* GFN range the phase touched; first > last: none */
	uint64_t spte_changes;
	uint64_t by_class[MSC_CLASS_NR];	/* spte_changed per enum msc_spte_class */
	uint64_t splits, split_failures;
	uint64_t pages_split;		/* huge leaves turned into tables */
	int64_t pages_split_level[4];	/* ... [2] 2M, [3] 1G; -1: not known (schema < 11) */
	uint64_t pages_promoted;	/* tables turned back into huge leaves */
	uint64_t children_synthesized;
	/*
	 * Page faults by outcome, each counted once: the slow path (an NPF exit
	 * the fast path did not resolve), fixed by the fast path, spurious (the
	 * fast path found nothing to do).  With kvm:kvm_page_fault traced their
	 * sum is the NPF exits.
	 */
	uint64_t faults_slow, faults_fast, faults_spurious;
	int64_t flushes;		/* kvm_flush_remote_tlbs*; -1 when not traced */
	uint64_t zaps;			/* leaves and tables zapped */
	uint64_t refaults;		/* faults on GFNs zapped earlier in the trace */
	uint64_t pages_fixed;		/* 4K pages the fast path made writable again */
	uint64_t pages_collected;	/* 4K pages write-protected or D-cleared (a harvest's) */
};

/* A phase and what it cost. */
struct msc_phase {
	int64_t id;
	int64_t vm;			/* the VM it belongs to (struct msc_vm.id) */
	uint8_t kind;			/* enum msc_phase_kind */
	uint8_t source;			/* enum msc_phase_source */
	char name[64];			/* marker name, or the kind's name */
	uint64_t start_ts, end_ts;
	int64_t start_seq, end_seq;
	struct msc_phase_counts count;
	uint64_t region_split_ns;	/* sum over 2M regions of time spent split */
	int64_t to_huge_ns;		/* re-promotion: disable start -> all huge; -1 never */
	struct msc_census before, after;
	uint8_t bounds;			/* enum msc_phase_bounds */
	uint8_t exact;			/* MSC_EXACT_START | MSC_EXACT_END: which bounds are */
	uint64_t slack_start_ns;	/* how much earlier the start may lie; 0 exact */
	uint64_t slack_end_ns;		/* how much later the end may lie; 0 exact */
	/*
	 * The dirty rate: 4K pages the guest dirtied that this step saw, -1
	 * for a step that sees none (msc_phase_sees_dirtying()), over
	 * @dirty_window_ns (0: not known).  A vCPU pass sees the pages the
	 * fast path made writable again during it; a harvest the pages it
	 * collected (protected again, or with PML its D bit cleared): those
	 * written since the collection before, as KVM's bitmap says.
	 */
	int64_t dirtied;
	uint64_t dirty_window_ns;
};

/*
 * One VM of the capture.  VMs follow one another: a VM begins at its
 * KVM_CREATE_VM (ioctls traced), where the companion patch's vm id changes,
 * or (inferred) at the first guest fault or SPTE installed after a teardown
 * emptied the tables; it ends where the next begins.  The events name no VM on a stock
 * kernel, so VMs that run at once are one census: @overlap says so.
 */
struct msc_vm {
	int64_t id;			/* 1, 2, ... in the capture */
	uint8_t source;			/* enum msc_phase_source: IOCTL, TRACEPOINT or INFERRED */
	bool overlap;			/* began while the VM before still had memory mapped */
	int32_t pid;			/* KVM_CREATE_VM's task; -1 unknown */
	int32_t fd;			/* the VM's file descriptor (its return value); -1 */
	uint32_t kernel_id;		/* the companion patch's vm_id; 0 none seen */
	int32_t kernel_pid;		/* ... and its vm_pid (kvm->userspace_pid); -1 */
	uint64_t start_ts, end_ts;
	int64_t start_seq, end_seq;
};

/*
 * The name KVM gives @vm's debugfs directory and `record` its counters
 * (kvm_stats_sample.vm): "<pid>-<fd>" of KVM_CREATE_VM's thread and
 * result; NULL when the capture did not see it created.
 */
static inline const char *msc_vm_stats_name(const struct msc_vm *vm, char *buf, size_t size)
{
	if (vm->pid < 0 || vm->fd < 0)
		return NULL;
	snprintf(buf, size, "%d-%d", vm->pid, vm->fd);
	return buf;
}

/* State of one 2M region of guest memory at one time (memory-map cell). */
enum msc_region_kind {
	MSC_REGION_UNMAPPED,		/* nothing mapped */
	MSC_REGION_4K,			/* a page table: mapped 4K pages, see mapped */
	MSC_REGION_2M,			/* one 2M leaf */
	MSC_REGION_1G,			/* part of a 1G leaf */
};

struct msc_region_cell {
	uint64_t gfn;			/* first GFN, 2M aligned */
	int64_t vm;			/* the VM whose tables these are */
	uint8_t as_id;
	uint8_t kind;			/* enum msc_region_kind */
	uint16_t mapped;		/* 4K pages mapped (512 for 2M/1G) */
	uint16_t writable;		/* of those, writable (0 for a protected huge leaf) */
};

/* A contiguous GFN range of guest memory (from the GFNs seen). */
struct msc_region {
	int64_t id;
	uint8_t as_id;
	uint64_t gfn_first, gfn_end;	/* [first, end) */
	bool exact;			/* from memslot events; false: inferred */
	int64_t vm;			/* the VM whose memory it is */
};

/* Leaf coverage of one region at one time. */
struct msc_coverage {
	int64_t region_id;
	uint64_t pages[MSC_HISTORY_MAX_LEVEL + 1];	/* leaves per size in the region */
	int64_t dirtied;	/* the phase's dirtied pages (msc_phase.dirtied) in it; -1 none */
};

/* The companion patch's harvest events of one phase (table harvest). */
struct msc_harvest_sum {
	uint64_t ioctls;		/* KVM_GET_DIRTY_LOG + KVM_CLEAR_DIRTY_LOG */
	uint64_t gets, clears;
	uint64_t pages;			/* pages the ioctls covered */
	uint64_t dirty;			/* found dirty */
	uint64_t rearmed;		/* of which dirty tracking was re-armed */
	uint64_t kernel_ns;		/* their duration_ns, summed */
};

/* Activity counted over a time window. */
struct msc_counters {
	uint64_t t0, t1;		/* the window actually covered (bucket bounds) */
	uint64_t spte_changes, maps, splits, promotions, zaps;
	uint64_t write_protects, faults_slow, faults_fast;
	int64_t flushes;		/* -1: the capture has no flush events */
};

/* A task's activity over the capture (task_activity). */
struct msc_task {
	int32_t pid;
	int32_t vcpu;			/* the lowest vCPU id its faults named, -1: none */
	uint32_t vcpus;			/* how many vCPU ids they named */
	uint64_t first_ts, last_ts;	/* its first and last activity bucket */
	uint64_t spte_changes, faults;
	char comm[16];			/* "" when the capture does not say */
};

#define MSC_ANOMALY_KINDS(X)                                                   \
	X(PFN_CHANGE, "pfn-change")	/* present leaf changed its pfn */     \
	X(SPLIT_FAILED, "split-failed")	/* kvm_mmu_split_huge_page errno != 0 */ \
	X(LEFT_FROZEN, "left-frozen")	/* a frozen SPTE seen outside a teardown */ \
	X(AFTER_LOST, "after-lost")	/* events were lost: history may have holes */ \
	X(RESYNC, "resync")		/* old_spte disagreed with the model */ \
	X(BAD_SPTE, "bad-spte")		/* value fits no known layout */       \
	X(OUT_OF_ORDER, "out-of-order")	/* timestamp went backwards */         \
	X(PARTIAL, "partial")		/* trace began after SPTEs existed */

enum msc_anomaly_kind {
#define X(name, str) MSC_ANOMALY_##name,
	MSC_ANOMALY_KINDS(X)
#undef X
	MSC_ANOMALY_KIND_NR,
};

struct msc_anomaly {
	uint64_t ts;
	int64_t seq;			/* the event that showed it */
	uint8_t kind;			/* enum msc_anomaly_kind */
	uint8_t as_id;
	uint8_t level;
	uint64_t gfn;
	uint64_t old_spte, new_spte;	/* or model value / event value for a resync */
	int64_t vm;			/* the VM whose tables it is of (struct msc_vm.id) */
	char detail[128];
};

/* A gap in the trace (from lost_events). */
struct msc_lost_mark {
	uint64_t ts;
	uint16_t cpu;
	uint64_t count;			/* 0: unknown size */
};

/* KVM's own page counters at a "KVM stats after <phase>" marker, and ours. */
struct msc_kvm_stats {
	uint64_t ts;
	int64_t seq;
	char phase[64];
	int64_t kvm[MSC_HISTORY_MAX_LEVEL + 1];		/* pages_4k/2m/1g as KVM said */
	int64_t census[MSC_HISTORY_MAX_LEVEL + 1];	/* the rebuilt census there */
	unsigned int census_flags;	/* enum msc_census_flags */
	int64_t vm;			/* the VM of the marker's task: whose census */
};

/* What an analysis of a capture did, and how far it got. */
struct msc_history_summary {
	int64_t capture_id;
	int64_t last_seq;		/* events up to here are analyzed; -1 none */
	uint64_t first_ts, last_ts;
	uint64_t events, spte_events;
	uint64_t resyncs;		/* old_spte disagreed (structure or pfn) */
	uint64_t ad_resyncs;		/* ... only in A/D (hardware) or X bits */
	uint64_t synthesized;		/* split children written by the model */
	uint64_t fast_applied;		/* fast_page_fault fixes applied */
	uint64_t frozen_completed;	/* frozen -> non-present steps applied */
	uint64_t out_of_order;		/* events whose ts went backwards */
	uint64_t lost_marks, lost_events;
	uint64_t anomalies;
	uint64_t intervals;		/* mapping rows */
	uint64_t unplaced;		/* events of several VMs at once placed in none */
	bool tdp_mmu;			/* false: shadow MMU, census approximate */
	unsigned int census_flags;	/* flags of the last census */
	uint64_t steady;		/* events of this run taken in steady stretches (not stored) */
	uint64_t ranged;		/* ... of them applied to the model as ranges (not stored) */
};

/* ---- writing ---- */

struct msc_history;

/* Options of msc_history_open(); zero is the default of each field. */
struct msc_history_opts {
	uint64_t census_bucket_ns;	/* coalesce census rows this close; 0: 100 us */
	uint64_t activity_bucket_ns;	/* activity table bucket; 0: 1 ms */
	bool rebuild;			/* drop the capture's analysis and start over */
	bool infer_only;		/* ignore kprobe events: phases by inference only */
	bool defer_indexes;		/* leave the analysis indexes to msc_history_merge() */
	bool per_event;			/* ask the phase detector about every event (no
					   steady stretches): to check the two agree */
};

int msc_history_open(struct msc_store *s, int64_t capture_id, const struct msc_host *host,
		     const struct msc_history_opts *opts, struct msc_history **ret);
int msc_history_feed(struct msc_history *h, const struct msc_event *ev);
int msc_history_finish(struct msc_history *h);
void msc_history_capture_ended(struct msc_history *h);
void msc_history_close(struct msc_history *h);
int64_t msc_history_resume_seq(const struct msc_history *h);
void msc_history_get_summary(const struct msc_history *h, struct msc_history_summary *ret);

/*
 * Inline analysis during import/record: a tap (tap.h) that opens the
 * history when the capture begins and feeds it every stored event.
 */
struct msc_history_tap;

int msc_history_tap_new(struct msc_store *apart, const struct msc_history_opts *opts,
			struct msc_history_tap **ret);
struct msc_tap msc_history_tap_tap(struct msc_history_tap *t);
int msc_history_tap_finish(struct msc_history_tap *t, struct msc_history_summary *ret);
int msc_history_tap_checkpoint(struct msc_history_tap *t);
void msc_history_tap_free(struct msc_history_tap *t);

/*
 * Analysis written to a database of its own (tap.store, e.g. by a tap
 * thread beside the import) joins the events' database at the end.
 */
int msc_history_merge(struct msc_store *dst, const char *analysis_path);

int msc_history_analyze(struct msc_store *s, int64_t capture_id,
			const struct msc_history_opts *opts, struct msc_history_summary *ret);
int msc_history_by_process(struct msc_store *s, int64_t capture_id,
			   struct msc_history_summary *ret);

/* ---- reading ---- */

struct msc_hview;

int msc_hview_open(struct msc_store *s, int64_t capture_id, struct msc_hview **ret);
void msc_hview_close(struct msc_hview *v);

int msc_hview_summary(struct msc_hview *v, struct msc_history_summary *ret);
int msc_hview_census_at(struct msc_hview *v, uint64_t ts, struct msc_census *ret);
int msc_hview_vm_census_at(struct msc_hview *v, int64_t vm, uint64_t ts, struct msc_census *ret);
int msc_hview_phases(struct msc_hview *v, struct msc_phase **ret, size_t *ret_nr);
int msc_hview_regions(struct msc_hview *v, struct msc_region **ret, size_t *ret_nr);
int msc_hview_phase_coverage(struct msc_hview *v, int64_t phase_id, struct msc_coverage **ret,
			     size_t *ret_nr);
int msc_hview_phase_harvest(struct msc_hview *v, const struct msc_phase *p,
			    struct msc_harvest_sum *ret);

int msc_hview_gfn_history(struct msc_hview *v, int64_t vm, uint8_t as_id, uint64_t gfn,
			  struct msc_interval **ret, size_t *ret_nr);
int msc_hview_counters(struct msc_hview *v, uint64_t t0, uint64_t t1, struct msc_counters *ret);
int msc_hview_task_counters(struct msc_hview *v, int32_t pid, uint64_t t0, uint64_t t1,
			    struct msc_counters *ret);
int msc_hview_tasks(struct msc_hview *v, struct msc_task **ret, size_t *ret_nr);
int msc_hview_lost_marks(struct msc_hview *v, struct msc_lost_mark **ret, size_t *ret_nr);
int msc_hview_anomalies(struct msc_hview *v, size_t max, struct msc_anomaly **ret,
			size_t *ret_nr);
int msc_hview_kvm_stats(struct msc_hview *v, struct msc_kvm_stats **ret, size_t *ret_nr);
int msc_hview_vms(struct msc_hview *v, struct msc_vm **ret, size_t *ret_nr);

const char *msc_map_cause_name(enum msc_map_cause cause);
const char *msc_phase_kind_name(enum msc_phase_kind kind);
const char *msc_phase_source_name(enum msc_phase_source source);
const char *msc_phase_bounds_name(enum msc_phase_bounds bounds);
const char *msc_anomaly_kind_name(enum msc_anomaly_kind kind);
const char *msc_region_kind_name(enum msc_region_kind kind);

/*
 * The memory map's cells, read in bulk (lib/history/store-cells.c): asking
 * region_state for each 2M cell costs two index lookups per cell, so
 * redrawing a 96 GiB guest (49,152 cells) at every scrub step would take far
 * longer than a frame.  A reader takes the region_state rows of a capture
 * once, in chunks (in the order written, which is time order per cell; a
 * resumed analysis reads them so too), and answers "the cells at T" from
 * memory; a capture still being analyzed is followed by asking only for
 * the rows after the last one read.  Arrays returned are the caller's.
 */
/* One region_state row: the state of a 2M cell from @ts on. */
struct msc_cell_state {
	uint64_t ts;
	uint64_t gfn;			/* 2M aligned */
	int64_t vm;
	uint8_t as_id;
	uint8_t kind;			/* enum msc_region_kind */
	uint16_t mapped;		/* 4K pages mapped (512 for a huge leaf) */
	uint16_t writable;		/* of those, writable */
};

/* The least room msc_cell_states() takes: a run's rows (schema 15). */
#define MSC_CELL_STATES_MIN 128

int msc_cell_states(struct msc_store *s, int64_t capture_id, int64_t *io_pos,
		    struct msc_cell_state *rows, size_t max, size_t *ret_nr);
int msc_cell_states_end(struct msc_store *s, int64_t *ret_pos);

#endif /* MSC_HISTORY_H */
