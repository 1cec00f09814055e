/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lib/history/'s bottom floor, the tables: the format of each analysis
 * table, its writers and readers (lib/history/store*.c, the only files
 * with SQL), the regions built from the rows, the name tables.  It calls
 * no floor above it and knows none of their state: what they hand it are
 * rows (a run of intervals, a phase's row, counters), and what it reads
 * back for a resume goes to the callback it is handed (hinterval_fn).
 */
#ifndef MSC_HISTORY_TABLES_H
#define MSC_HISTORY_TABLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmuscope/history.h"
#include "mmuscope/spte.h"

struct msc_store;
struct hstore;
struct hnode;

#define HNODE_ENTRIES 512	/* entries of a page table (a run's, index 0..511) */
#define HCELL_GFNS 512		/* 4K pages (GFNs) of a 2M cell: the regions' grain */

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
	int64_t vm;			/* the VM its intervals are of (h->m.vm_id then) */
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

/* The activity tables' counters, in the order of their columns. */
enum hact {
	ACT_SPTE, ACT_MAPS, ACT_SPLITS, ACT_PROMOTIONS, ACT_ZAPS, ACT_WP, ACT_SLOW, ACT_FAST,
	ACT_FLUSH,
	ACT_NR
};

/* dirty_cell.kind */
enum { HDIRTY_COLLECTED, HDIRTY_FIXED };

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
			 struct msc_history_summary *sum, void *state, size_t state_size,
			 bool *ret_found);
int hstore_save_analysis(struct hstore *hs, const struct msc_history_summary *sum,
			 const void *state, size_t state_size);
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
int hstore_add_dirty_cell(struct hstore *hs, int64_t capture_id, int64_t vm, unsigned int as_id,
			  uint64_t cell, uint64_t ts, unsigned int kind, uint64_t pages);
int hstore_put_activity(struct hstore *hs, int64_t capture_id, uint64_t ts,
			const uint64_t act[ACT_NR]);
int hstore_put_task_activity(struct hstore *hs, int64_t capture_id, uint64_t ts, int32_t pid,
			     int32_t vcpu, const uint64_t act[ACT_NR]);
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

#endif /* MSC_HISTORY_TABLES_H */
