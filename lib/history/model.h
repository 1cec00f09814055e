/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lib/history/'s model of the page tables (model.c), the floor above the
 * tables: a radix tree per address space, one node per page table of 512
 * entries at one level, allocated on first touch.  An entry is two words:
 * the SPTE and the start of its current interval (trace time in the high
 * 56 bits, cause and flags in the low 8), 16 bytes per mapped 4K page.
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
 *
 * The model's state is struct hmodel, and its functions take nothing else:
 * it calls nothing above it but through the hooks its owner (the front)
 * hands it (struct hmodel_up): a 2M cell changed, an event it could not
 * apply, a run filled.
 */
#ifndef MSC_HISTORY_MODEL_H
#define MSC_HISTORY_MODEL_H

#include "tables.h"

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
#define HCELL_SPLIT (1U << 4)	/* counted in st.split_cells */
#define HCELL_STALE (1U << 5)	/* changed within a sixteenth since its last row */
#define HCELL_SETTLE (1U << 6)	/* in m.settle: recomputed when the event is applied */

struct hrun;
struct harena;

/*
 * HCHUNK_ENTRIES consecutive entries of a node: their SPTEs and start
 * words; at levels above 1 the nodes under them (NULL: none yet), and at
 * level 2 then their 2M cells, HCHUNK_ENTRIES struct hcell (hnode_cell()).
 * A chunk's size is hchunk_size(level).
 *
 * Invariant: a node's chunk none of whose entries was ever written is
 * m.empty_chunk, shared and read-only (non-present SPTEs, zero start
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

/* A 2M cell whose counters wait for the event being applied (model.c, "Cells"). */
struct hcellref {
	struct hnode *n2;
	uint16_t i;
};

/*
 * The way up, and the only one: what the model tells its owner, with the
 * owner's @ctx (struct hmodel's up_ctx).  A 2M cell changed under it (at
 * the model's ts); an event it could not apply; a run of intervals filled,
 * to be written with id *@ret_id (@last_run its node's last closed run, 0
 * none; @known: it begins where that ended).
 */
struct hmodel_up {
	int (*cell_changed)(void *ctx, unsigned int as_id, struct hnode *n2, unsigned int i);
	int (*anomaly)(void *ctx, enum msc_anomaly_kind kind, unsigned int as_id, uint64_t gfn,
		       unsigned int level, uint64_t old_spte, uint64_t new_spte,
		       const char *fmt, ...) __attribute__((format(printf, 8, 9)));
	int (*run_filled)(void *ctx, const struct hrun *run, int64_t last_run, bool known,
			  int64_t *ret_id);
};

/* The model's state: its trees, pending runs, the cells to settle. */
struct hmodel {
	/* what its owner gives it */
	struct msc_spte_layout layout;	/* how the capture's SPTEs read */
	const struct hmodel_up *up;
	void *up_ctx;
	/*
	 * The change being applied, as the owner sets it for each event: its
	 * (clamped) time, which a range's entries move to their own while
	 * applied; the VM the runs are of; whether it follows a lost-events
	 * gap; and whether the model is being rebuilt from an earlier run
	 * (nothing is written then).
	 */
	uint64_t ts;
	int64_t vm_id;
	bool after_lost, loading;

	struct hnode *root[HMAX_AS];
	struct hnode *cache[HMAX_AS][HTOP_LEVEL + 1];	/* last node used per level */
	uint64_t nodes;			/* allocated, for the memory figure */
	struct harena *arenas;		/* where the nodes and chunks are */
	struct hchunk *empty_chunk;	/* every node's chunk not written yet (read-only) */

	/* pending runs */
	struct hrun *oldest, *newest;	/* least / most recently used */
	struct hrun *free_runs;		/* written, kept for reuse */
	unsigned int nr_runs;		/* allocated, pending or free */
	size_t run_bytes, run_bytes_peak;	/* their memory, for the memory figure */

	struct hrange range;		/* changes not applied yet ("Ranges") */
	/*
	 * The 2M cells the event being applied changed ("Cells"), recomputed
	 * once each when it is applied: one region_state row per cell and
	 * time, however many of its entries the event wrote.
	 */
	bool settling;			/* an event is being applied: cells wait in settle */
	struct hcellref *settle;
	size_t nr_settle, alloc_settle;

	uint64_t ts_base;		/* entry start words hold ts - ts_base */
	/*
	 * Its count of its leaves: pages[as][level] leaves at that level (+1
	 * per leaf installed, -1 per leaf gone, +512 per split), and
	 * leaves_moved[as] set whenever they move, which the census reads and
	 * clears when it writes its row (hmodel_leaves_add()).
	 */
	int64_t pages[HMAX_AS][MSC_HISTORY_MAX_LEVEL + 1];
	bool leaves_moved[HMAX_AS];

	uint64_t orphans;		/* teardown children of tables already gone (not stored) */
	uint64_t transitions;		/* transition()s so far */
	/*
	 * The table the last orphan was of: its next children are orphans too
	 * while no transition() happened since (its parent entry unchanged).
	 */
	struct {
		uint64_t mark;		/* transitions then + 1; 0: none */
		uint64_t base;
		uint8_t as_id, level;
	} orphan_of;
	bool resumed;			/* rebuilt from an earlier run's open intervals:
					   what they do not say was unseen */
	/* what it did, of this run: the front adds them to the summary's */
	struct {
		uint64_t intervals, frozen_completed, resyncs, ad_resyncs, synthesized, ranged;
	} count;
	/*
	 * 2M cells a range changed whose last region_state row still says
	 * what they hold (hcell_row_holds_4k()): updates the census did not
	 * need to see, counted with its own (hcensus_updates()).
	 */
	uint64_t cells_quiet;
};

/* A 2M cell's count of 4K pages as its region_state rows see it: sixteenths. */
static inline uint8_t hcell_quant(unsigned int n)
{
	return n == 0 ? 0 : n >= 512 ? 17 : (uint8_t)(1 + n / 32);
}

/* Does the 4K cell @c's last region_state row still say what it holds? */
static inline bool hcell_row_holds_4k(const struct hcell *c)
{
	return (c->flags & HCELL_WRITTEN) && c->q_kind == MSC_REGION_4K &&
	       c->q_mapped == hcell_quant(c->mapped) && c->q_writable == hcell_quant(c->writable);
}

/* @delta leaves at @level (lib/history/model.c only) */
static inline void hmodel_leaves_add(struct hmodel *m, unsigned int as_id, unsigned int level,
				     int delta)
{
	m->pages[as_id][level] += delta;
	m->leaves_moved[as_id] = true;
}

/* lib/history/model.c */
struct hnode *hmodel_node(struct hmodel *m, unsigned int as_id, uint64_t gfn,
			  unsigned int level, bool create);
void hmodel_free(struct hmodel *m);
int hmodel_set(struct hmodel *m, unsigned int as_id, uint64_t gfn, unsigned int level,
	       uint64_t new_spte, unsigned int cause, unsigned int flags);
int hmodel_change(struct hmodel *m, unsigned int as_id, uint64_t gfn, unsigned int level,
		  uint64_t old_spte, uint64_t new_spte, unsigned int cause);
int hmodel_split_children(struct hmodel *m, unsigned int as_id, uint64_t gfn,
			  unsigned int level, uint64_t huge, unsigned int cause);
bool hmodel_range_extend(struct hmodel *m, unsigned int as_id, uint64_t gfn,
			 unsigned int level, uint64_t old_spte, uint64_t new_spte,
			 unsigned int cause, uint64_t ts);
int hmodel_range_add(struct hmodel *m, unsigned int as_id, uint64_t gfn, unsigned int level,
		     uint64_t old_spte, uint64_t new_spte, unsigned int cause);
int hmodel_range_apply(struct hmodel *m);
void hmodel_settle_begin(struct hmodel *m);
int hmodel_settle(struct hmodel *m);
int hmodel_clear_below(struct hmodel *m, unsigned int as_id, uint64_t gfn,
		       unsigned int level, unsigned int cause, bool stale);
int hmodel_drop_range(struct hmodel *m, unsigned int as_id, uint64_t gfn, uint64_t end,
		      unsigned int min_level, unsigned int max_level, unsigned int cause);
int hmodel_detach(struct hmodel *m, unsigned int as_id, uint64_t gfn, unsigned int level);
int hmodel_find_leaf(struct hmodel *m, unsigned int as_id, uint64_t gfn,
		     unsigned int *ret_level);
bool hmodel_holds(struct hmodel *m, unsigned int as_id, uint64_t gfn, unsigned int level,
		  uint64_t spte);
int hmodel_chunk_new(struct hmodel *m, struct hnode *n, struct hchunk **slot);

const struct hcell *hmodel_cell(struct hmodel *m, unsigned int as_id, uint64_t gfn);
int hmodel_load_interval(struct hmodel *m, const struct msc_interval *iv);
void hmodel_mark_was_huge(struct hmodel *m, const struct msc_interval *iv);
int hmodel_close_all(struct hmodel *m);
typedef int (*hcell_fn)(void *ctx, struct hnode *n2, unsigned int i, struct hcell *c);
int hmodel_for_each_cell(struct hmodel *m, hcell_fn fn, void *ctx);


/*
 * hmodel_own - make entry @i of @n, its child slot and (level 2) its cell
 * writable: the chunk its node's own, no longer the empty one.  Returns 0
 * or -ENOMEM.
 */
static inline int hmodel_own(struct hmodel *m, struct hnode *n, unsigned int i)
{
	struct hchunk **slot = &n->chunk[i >> HCHUNK_SHIFT];

	return *slot != m->empty_chunk ? 0 : hmodel_chunk_new(m, n, slot);
}

/* Cell @i of the level-2 node @n2, to write; NULL: out of memory */
static inline struct hcell *hmodel_own_cell(struct hmodel *m, struct hnode *n2, unsigned int i)
{
	return hmodel_own(m, n2, i) ? NULL : hnode_cell(n2, i);
}

#endif /* MSC_HISTORY_MODEL_H */
