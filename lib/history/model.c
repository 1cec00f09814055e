// SPDX-License-Identifier: GPL-2.0-only
/*
 * The analyzer's page-table model: a radix tree of 512-entry nodes per
 * address space, and the one place where an entry changes value.
 *
 * Invariant: every change of an entry goes through transition(), which
 * closes the interval of a present old value (into a pending run, see
 * lib/history/model.h), opens the new one, and keeps the census and the
 * 2M-cell counters equal to what the tree holds.  Frozen values are never
 * stored: the untraced frozen -> non-present step is applied at once (the
 * frozen entry belongs to a page table that is being freed).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "model.h"
#include "mmuscope/util.h"

static inline unsigned int idx_of(uint64_t gfn, unsigned int level)
{
	return (unsigned int)(gfn >> (9 * (level - 1))) & (HNODE_ENTRIES - 1);
}

static inline uint64_t node_span(unsigned int level)
{
	return 512ULL * msc_level_pages(level);
}

/*
 * Nodes and their chunks come from arenas of HARENA_SIZE bytes, mapped
 * anonymous and populated in the one call (zeroed by the kernel): a storm
 * makes a node for every 2M region it splits, tens of thousands, and one
 * mmap() per 2 MiB costs far less than a page fault per 4 KiB.  No
 * MADV_HUGEPAGE: where the kernel compacts memory for it on the fault
 * (defrag "madvise", Debian's default) the seed's replay took 3.9 s instead
 * of 3.5 s.  Nodes and chunks are never freed one by one; the arenas go
 * with the model (hmodel_free()).
 */
#define HARENA_SIZE (2UL << 20)

struct harena {
	struct harena *next;
	size_t used;		/* bytes handed out, this header included */
};

static void *arena_map(void)
{
	void *p = mmap(NULL, HARENA_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* @size bytes of zeroed memory, 16-byte aligned, for a node or a chunk. */
static void *arena_alloc(struct hmodel *m, size_t size)
{
	struct harena *a = m->arenas;

	size = (size + 15) & ~(size_t)15;
	if (!a || a->used + size > HARENA_SIZE) {
		a = arena_map();
		if (!a)
			return NULL;
		a->next = m->arenas;
		a->used = (sizeof(*a) + 15) & ~(size_t)15;
		m->arenas = a;
	}
	a->used += size;
	return (char *)a + a->used - size;
}

static void arenas_free(struct hmodel *m)
{
	while (m->arenas) {
		struct harena *a = m->arenas;

		m->arenas = a->next;
		munmap(a, HARENA_SIZE);
	}
}

/*
 * The chunk every node has until one of its entries is written: a page of
 * its own, read-only once filled, so that a write that forgot hmodel_own()
 * faults instead of changing every node.
 */
static struct hchunk *empty_chunk(struct hmodel *m)
{
	size_t size = hchunk_size(2);
	struct hchunk *ch;

	if (m->empty_chunk)
		return m->empty_chunk;
	ch = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ch == MAP_FAILED)
		return NULL;
	for (unsigned int i = 0; i < HCHUNK_ENTRIES; i++)
		ch->spte[i] = m->layout.nonpresent;
	if (mprotect(ch, size, PROT_READ)) {
		munmap(ch, size);
		return NULL;
	}
	m->empty_chunk = ch;
	return ch;
}

static struct hnode *node_new(struct hmodel *m, unsigned int as_id, unsigned int level,
			      uint64_t base, struct hnode *parent)
{
	struct hchunk *empty = empty_chunk(m);
	struct hnode *n = empty ? arena_alloc(m, sizeof(*n)) : NULL;

	if (!n)
		return NULL;
	n->level = (uint8_t)level;
	n->as_id = (uint8_t)as_id;
	n->base = base;
	n->parent = parent;
	for (unsigned int c = 0; c < HNODE_CHUNKS; c++)
		n->chunk[c] = empty;
	m->nodes++;
	return n;
}

/**
 * hmodel_chunk_new - give @n a chunk of its own for *@slot, the empty one
 *	(for hmodel_own())
 *
 * Returns 0 or -ENOMEM.
 */
int hmodel_chunk_new(struct hmodel *m, struct hnode *n, struct hchunk **slot)
{
	struct hchunk *ch = arena_alloc(m, hchunk_size(n->level));

	if (!ch)
		return -ENOMEM;
	if (m->layout.nonpresent)
		for (unsigned int i = 0; i < HCHUNK_ENTRIES; i++)
			ch->spte[i] = m->layout.nonpresent;
	*slot = ch;
	return 0;
}

static inline void set_spte(struct hnode *n, unsigned int i, uint64_t spte)
{
	n->chunk[i >> HCHUNK_SHIFT]->spte[i & HCHUNK_MASK] = spte;
}

/**
 * hmodel_node - the node holding the level-@level entry covering @gfn
 * @create: allocate missing nodes; otherwise NULL when absent
 *
 * Returns NULL when absent, out of memory, or @gfn is beyond the tree.
 */
struct hnode *hmodel_node(struct hmodel *m, unsigned int as_id, uint64_t gfn,
			  unsigned int level, bool create)
{
	struct hnode *n, *child;

	if (as_id >= HMAX_AS || level < 1 || level > HTOP_LEVEL ||
	    gfn >= node_span(HTOP_LEVEL))
		return NULL;
	n = m->cache[as_id][level];
	if (n && gfn - n->base < node_span(level))
		return n;
	if (!m->root[as_id]) {
		if (!create)
			return NULL;
		m->root[as_id] = node_new(m, as_id, HTOP_LEVEL, 0, NULL);
		if (!m->root[as_id])
			return NULL;
	}
	n = m->root[as_id];
	for (unsigned int l = HTOP_LEVEL; l > level; l--) {
		unsigned int i = idx_of(gfn, l);

		child = hnode_child(n, i);
		if (!child) {
			if (!create || hmodel_own(m, n, i))
				return NULL;
			child = node_new(m, as_id, l - 1, gfn & ~(node_span(l - 1) - 1), n);
			if (!child)
				return NULL;
			n->chunk[i >> HCHUNK_SHIFT]->child[i & HCHUNK_MASK] = child;
			if (l == 2)
				child->cell = hnode_cell(n, i);
		}
		n = child;
	}
	m->cache[as_id][level] = n;
	return n;
}

static void runs_free(struct hrun *r, bool pending)
{
	while (r) {
		struct hrun *next = pending ? r->newer : r->next;

		free(r->e);
		free(r);
		r = next;
	}
}

void hmodel_free(struct hmodel *m)
{
	for (unsigned int a = 0; a < HMAX_AS; a++)
		m->root[a] = NULL;
	arenas_free(m);	/* the nodes and their chunks: nothing else */
	if (m->empty_chunk)
		munmap(m->empty_chunk, hchunk_size(2));
	m->empty_chunk = NULL;
	m->nodes = 0;
	memset(m->cache, 0, sizeof(m->cache));
	runs_free(m->oldest, true);
	runs_free(m->free_runs, false);
	m->oldest = m->newest = m->free_runs = NULL;
	free(m->settle);
	m->settle = NULL;
	m->nr_settle = m->alloc_settle = 0;
	m->nr_runs = 0;
	m->run_bytes = 0;
}

static inline bool is_present(const struct hmodel *m, uint64_t spte)
{
	return msc_spte_present(&m->layout, spte);
}

static inline bool is_leaf(const struct hmodel *m, unsigned int level, uint64_t spte)
{
	return msc_spte_leaf(&m->layout, level, spte);
}

/* ---- runs: intervals of one node's entries written as one row ---- */

static void lru_unlink(struct hmodel *m, struct hrun *r)
{
	if (r->older)
		r->older->newer = r->newer;
	else
		m->oldest = r->newer;
	if (r->newer)
		r->newer->older = r->older;
	else
		m->newest = r->older;
	r->older = r->newer = NULL;
}

static void lru_push(struct hmodel *m, struct hrun *r)
{
	r->older = m->newest;
	r->newer = NULL;
	if (m->newest)
		m->newest->newer = r;
	else
		m->oldest = r;
	m->newest = r;
}

/* The start time interval_of() reads from the start word @sw */
static inline uint64_t start_ts(const struct hmodel *m, uint64_t sw)
{
	return (sw >> 8) + m->ts_base;
}

/* A start word holds ts - ts_base in bits 8..63: up to this, it reads back */
#define START_TS_MAX ((1ULL << 56) - 1)

/* The start word for time @ts, with @flags in bits 0..7 */
static inline uint64_t start_word(const struct hmodel *m, uint64_t ts, unsigned int flags)
{
	return ((ts - m->ts_base) << 8) | flags;
}

/*
 * Entry @i's next interval begins: @sw, as interval_of() reads it.  Set
 * before the interval it ends is written, so that a run written meanwhile
 * sees where its entries' next intervals begin (run_row()).
 */
static inline void chunk_set_start(struct hnode *n, struct hchunk *ch, unsigned int j,
				   uint64_t sw)
{
	ch->start[j] = sw;
	n->starts_set++;
}

static inline void set_start(struct hnode *n, unsigned int i, uint64_t sw)
{
	chunk_set_start(n, n->chunk[i >> HCHUNK_SHIFT], i & HCHUNK_MASK, sw);
}

/*
 * Write @r's row.  A closed run becomes its node's last_run, and the node
 * notes whether each of its entries' next interval began where the run
 * ended: so when the run is gapless and exact and no start but its own
 * ones (one before each interval it took, the first's before it began) was
 * set since it began.
 *
 * An open run (written at the end, from the starts then) begins where
 * last_run ended, entry for entry, when it holds the same entries in the
 * same order and no start was set since that note: the store then need not
 * read last_run back to see it.
 */
static int run_row(struct hmodel *m, const struct hrun *r)
{
	struct hnode *n = r->node;
	bool open = r->e[0].end_ts == MSC_TS_OPEN;
	bool known = open && r->gapless && n->last_n == r->n && n->last_first == r->first &&
		     n->starts_set == n->last_stamp;
	int64_t id;
	int ret = m->up->run_filled(m->up_ctx, r, n->last_run, known, &id);

	if (!ret && !open) {
		bool own = r->gapless && r->exact && n->starts_set - r->stamp0 == r->n - 1U;

		n->last_run = id;
		n->last_n = own ? r->n : 0;
		n->last_first = r->first;
		n->last_stamp = n->starts_set;
	}
	return ret;
}

/* Write a pending run and keep it for reuse. */
static int run_write(struct hmodel *m, struct hrun *r)
{
	struct hrun **p = &r->node->runs;
	int ret = run_row(m, r);

	while (*p != r)
		p = &(*p)->next;
	*p = r->next;
	lru_unlink(m, r);
	r->node = NULL;
	r->n = 0;
	r->next = m->free_runs;
	m->free_runs = r;
	return ret;
}

/* Write the pending runs of node @n. */
static int node_write_runs(struct hmodel *m, struct hnode *n)
{
	int r = 0;

	while (n->runs && !r)
		r = run_write(m, n->runs);
	return r;
}

/* Does interval @iv of entry @i belong in @r?  Only leaves gather. */
static bool run_fits(const struct hmodel *m, const struct hrun *r, unsigned int i,
		     const struct msc_interval *iv)
{
	int64_t d = (int64_t)i - r->first;

	/* equal bits outside the address: equal leaf, writable, dirty */
	return iv->leaf && r->vm == m->vm_id && r->start_cause == iv->start_cause &&
	       r->end_cause == iv->end_cause &&
	       r->flags == iv->flags && !((iv->spte ^ r->spte) & ~m->layout.addr) &&
	       iv->pfn == r->pfn + (uint64_t)(d * (int64_t)msc_level_pages(iv->level));
}

static void run_init(const struct hmodel *m, struct hrun *r, struct hnode *n,
		     unsigned int i, const struct msc_interval *iv)
{
	r->node = n;
	r->base = n->base;
	r->as_id = n->as_id;
	r->level = n->level;
	r->vm = m->vm_id;
	r->first = (uint16_t)i;
	r->spte = iv->spte;
	r->pfn = iv->pfn;
	r->leaf = iv->leaf;
	r->writable = iv->writable;
	r->dirty = iv->dirty;
	r->start_cause = iv->start_cause;
	r->end_cause = iv->end_cause;
	r->flags = iv->flags;
	r->n = 0;
	r->gapless = r->exact = true;
	r->stamp0 = n->starts_set;
}

/* A run for a new signature: a free one, a new one, or the least recently used. */
static int run_get(struct hmodel *m, struct hrun **ret)
{
	struct hrun *r;
	int err;

	if (!m->free_runs && m->nr_runs >= HRUN_MAX_PENDING &&
	    (err = run_write(m, m->oldest)))
		return err;
	r = m->free_runs;
	if (r) {
		m->free_runs = r->next;
	} else {
		r = calloc(1, sizeof(*r));
		if (!r)
			return -ENOMEM;
		m->nr_runs++;
		m->run_bytes += sizeof(*r);
	}
	*ret = r;
	return 0;
}

static int run_append(struct hmodel *m, struct hrun *r, unsigned int i,
		      const struct msc_interval *iv)
{
	if (r->n == r->alloc) {
		unsigned int alloc = r->alloc ? 2U * r->alloc : 8;
		struct hrun_entry *e = realloc(r->e, alloc * sizeof(*e));

		if (!e)
			return -ENOMEM;
		m->run_bytes += (alloc - r->alloc) * sizeof(*e);
		m->run_bytes_peak = max(m->run_bytes_peak, m->run_bytes);
		r->e = e;
		r->alloc = (uint16_t)alloc;
	}
	r->gapless &= i == r->first + r->n;
	r->exact &= iv->end_ts - m->ts_base <= START_TS_MAX;
	r->e[r->n++] = (struct hrun_entry){ iv->start_ts, iv->end_ts, (uint16_t)i };
	if (r->n == HNODE_ENTRIES)
		return run_write(m, r);
	if (m->newest != r) {
		lru_unlink(m, r);
		lru_push(m, r);
	}
	return 0;
}

/*
 * Add interval @iv of entry @i of @n to its run; a page table's is written
 * at once.  n->runs is kept most recently used first: past HRUN_NODE_MAX
 * (scattered host frames: no run grows) its last one is written.
 */
static int run_add(struct hmodel *m, struct hnode *n, unsigned int i,
		   const struct msc_interval *iv)
{
	struct hrun **p, *r, *last = NULL;
	unsigned int nr = 0;
	int err;

	if (!iv->leaf) {
		struct hrun_entry e = { iv->start_ts, iv->end_ts, (uint16_t)i };
		struct hrun one = { 0 };

		run_init(m, &one, n, i, iv);
		one.e = &e;
		one.n = 1;
		one.exact = false;	/* not appended: unchecked */
		return run_row(m, &one);
	}
	for (p = &n->runs; (r = *p); p = &r->next, nr++) {
		if (run_fits(m, r, i, iv)) {
			*p = r->next;
			r->next = n->runs;
			n->runs = r;
			return run_append(m, r, i, iv);
		}
		last = r;
	}
	if (nr >= HRUN_NODE_MAX && (err = run_write(m, last)))
		return err;
	err = run_get(m, &r);
	if (err)
		return err;
	run_init(m, r, n, i, iv);
	r->next = n->runs;
	n->runs = r;
	lru_push(m, r);
	return run_append(m, r, i, iv);
}

/* Write every pending run, least recently used first. */
static int flush_runs(struct hmodel *m)
{
	int r = 0;

	while (m->oldest && !r)
		r = run_write(m, m->oldest);
	return r;
}

/*
 * The interval of entry @i, @spte from @sw, which ends at @end_ts
 * (MSC_TS_OPEN: open).
 */
static void interval_of(const struct hmodel *m, const struct hnode *n, unsigned int i,
			uint64_t spte, uint64_t sw, uint64_t end_ts, unsigned int end_cause,
			struct msc_interval *iv)
{
	unsigned int cause = sw & HSTART_CAUSE_MASK;

	*iv = (struct msc_interval){
		.gfn = n->base + i * msc_level_pages(n->level),
		.as_id = n->as_id,
		.level = n->level,
		.leaf = is_leaf(m, n->level, spte),
		.writable = spte & m->layout.writable,
		.dirty = m->layout.dirty ? !!(spte & m->layout.dirty) : -1,
		.start_cause = (uint8_t)cause,
		.end_cause = (uint8_t)end_cause,
		.start_ts = start_ts(m, sw),
		.end_ts = end_ts,
		.spte = spte,
		.pfn = msc_spte_pfn(&m->layout, spte),
	};
	if (sw & HSTART_SYNTH)
		iv->flags |= MSC_IV_SYNTH;
	if (sw & HSTART_LOST)
		iv->flags |= MSC_IV_AFTER_LOST;
	if (cause == MSC_CAUSE_RESYNC || cause == MSC_CAUSE_TRACE_START)
		iv->flags |= MSC_IV_RESYNC;
}

/* Write the interval of entry @i, @spte from @sw, which ends at @end_ts (MSC_TS_OPEN: open). */
static int emit(struct hmodel *m, struct hnode *n, unsigned int i, uint64_t spte,
		uint64_t sw, uint64_t end_ts, unsigned int end_cause)
{
	struct msc_interval iv;

	if (m->loading)
		return 0;
	interval_of(m, n, i, spte, sw, end_ts, end_cause, &iv);
	m->count.intervals++;
	return run_add(m, n, i, &iv);
}

/* The 2M cell covering entry @i of @n (levels 1 and 2); NULL for others. */
static struct hcell *cell_of(struct hmodel *m, struct hnode *n, unsigned int i,
			     struct hnode **ret_n2, unsigned int *ret_i2)
{
	struct hnode *n2;

	if (n->level == 2) {
		*ret_n2 = n;
		*ret_i2 = i;
		return hnode_cell(n, i);
	}
	if (n->level != 1)
		return NULL;
	n2 = n->parent;
	*ret_n2 = n2;
	*ret_i2 = idx_of(n->base, 2);
	return n->cell;
}

/*
 * Cells.  An event changes one entry, or many at one time: a split's 512
 * children, a subtree cleared, a 1G leaf's 512 cells.  While it is applied
 * (between hmodel_settle_begin() and hmodel_settle()) the 2M cells it
 * changes only gather in m->settle, each once, and are recomputed at its
 * end, in the order they were first changed: a cell has one region_state
 * row per time, the state the event left it in, and the phase detector
 * hears of a cell becoming huge or split once.
 */

/* Cell @i of @n2 changed: recompute it now, or when the event is applied. */
static int cell_changed(struct hmodel *m, struct hnode *n2, unsigned int i)
{
	struct hcell *c;

	if (!m->settling)
		return m->up->cell_changed(m->up_ctx, n2->as_id, n2, i);
	if (hmodel_own(m, n2, i))
		return -ENOMEM;
	c = hnode_cell(n2, i);
	if (c->flags & HCELL_SETTLE)
		return 0;
	if (m->nr_settle == m->alloc_settle) {
		size_t alloc = m->alloc_settle ? 2 * m->alloc_settle : 64;
		struct hcellref *p = realloc(m->settle, alloc * sizeof(*p));

		if (!p)
			return -ENOMEM;
		m->settle = p;
		m->alloc_settle = alloc;
	}
	c->flags |= HCELL_SETTLE;
	m->settle[m->nr_settle++] = (struct hcellref){ n2, (uint16_t)i };
	return 0;
}

/** hmodel_settle_begin - an event is being applied: its cells wait */
void hmodel_settle_begin(struct hmodel *m)
{
	m->settling = true;
}

/** hmodel_settle - the event is applied: recompute the cells it changed */
int hmodel_settle(struct hmodel *m)
{
	int r = 0;

	m->settling = false;
	for (size_t k = 0; k < m->nr_settle; k++) {
		struct hcellref *c = &m->settle[k];

		hnode_cell(c->n2, c->i)->flags &= ~HCELL_SETTLE;
		if (!r)
			r = m->up->cell_changed(m->up_ctx, c->n2->as_id, c->n2, c->i);
	}
	m->nr_settle = 0;
	return r;
}

/*
 * Set entry @i of @n to @new_spte at the current time, closing the
 * interval of the old value with @cause and opening one for the new.
 */
static int transition(struct hmodel *m, struct hnode *n, unsigned int i,
		      uint64_t new_spte, unsigned int cause, unsigned int start_flags)
{
	unsigned int level = n->level, j = i & HCHUNK_MASK;
	int r = hmodel_own(m, n, i);
	struct hchunk *ch = n->chunk[i >> HCHUNK_SHIFT];	/* chunks never move */
	uint64_t old_spte = ch->spte[j], sw = ch->start[j];
	bool was_p = is_present(m, old_spte), is_p = is_present(m, new_spte);
	bool was_leaf = was_p && is_leaf(m, level, old_spte);
	bool is_leaf_ = is_p && is_leaf(m, level, new_spte);

	m->transitions++;
	if (r)
		return r;
	if (level > 1 && ch->child[j])
		ch->child[j]->detached = false;	/* the entry pointing to it changes */
	chunk_set_start(n, ch, j, start_word(m, m->ts, HSTART_SEEN |
					     (cause & HSTART_CAUSE_MASK) | start_flags |
					     (m->after_lost ? HSTART_LOST : 0)));
	if (was_p)
		r = emit(m, n, i, old_spte, sw, m->ts, cause);
	if (new_spte == m->layout.frozen && m->layout.frozen != m->layout.nonpresent)
		m->count.frozen_completed++;
	if (!is_p)
		new_spte = m->layout.nonpresent;
	ch->spte[j] = new_spte;
	n->present = (uint16_t)(n->present + is_p - was_p);
	if (!n->present && n->runs && !r)
		r = node_write_runs(m, n);	/* the table is gone: its runs are complete */
	if (level <= MSC_HISTORY_MAX_LEVEL) {
		if (was_leaf)
			hmodel_leaves_add(m, n->as_id, level, -1);
		if (is_leaf_)
			hmodel_leaves_add(m, n->as_id, level, 1);
	}
	if (level == 1 && n->parent) {
		struct hnode *n2 = NULL;
		unsigned int i2 = 0;
		struct hcell *c = cell_of(m, n, i, &n2, &i2);
		bool was_w = was_leaf && (old_spte & m->layout.writable);
		bool is_w = is_leaf_ && (new_spte & m->layout.writable);

		if (was_leaf != is_leaf_ || was_w != is_w) {
			c->mapped = (uint16_t)(c->mapped + is_leaf_ - was_leaf);
			c->writable = (uint16_t)(c->writable + is_w - was_w);
			if (was_leaf && !is_leaf_)
				c->flags |= HCELL_ZAPPED;
			if (!r)
				r = cell_changed(m, n2, i2);
		}
	} else if (level == 2 && (was_p != is_p || was_leaf != is_leaf_ ||
				  ((old_spte ^ new_spte) & m->layout.writable))) {
		if (was_leaf && !is_leaf_)
			hnode_cell(n, i)->flags |= HCELL_ZAPPED;	/* in ch */
		if (!r)
			r = cell_changed(m, n, i);
	} else if (level == 3 && (was_leaf || is_leaf_) &&
		   (was_leaf != is_leaf_ || ((old_spte ^ new_spte) & m->layout.writable))) {
		struct hnode *n2 = hmodel_node(m, n->as_id, n->base + i * msc_level_pages(3), 2,
					       true);

		if (!n2)
			return -ENOMEM;
		for (unsigned int k = 0; k < HNODE_ENTRIES && !r; k++)
			r = cell_changed(m, n2, k);
	}
	return r;
}

/**
 * hmodel_set - write an entry without an old value to check (shadow MMU,
 *	synthesized changes)
 */
int hmodel_set(struct hmodel *m, unsigned int as_id, uint64_t gfn, unsigned int level,
	       uint64_t new_spte, unsigned int cause, unsigned int flags)
{
	struct hnode *n = hmodel_node(m, as_id, gfn, level, true);

	if (!n)
		return -ENOMEM;
	return transition(m, n, idx_of(gfn, level), new_spte, cause, flags);
}

/* Bits hardware (A/D) or the NX-hugepage mitigation change behind KVM's back. */
static uint64_t soft_bits(const struct hmodel *m)
{
	return m->layout.accessed | m->layout.dirty | m->layout.exec | m->layout.nx;
}

/* The model's value differs from the event's old value: follow the event. */
static int reconcile(struct hmodel *m, struct hnode *n, unsigned int i, uint64_t old_spte)
{
	uint64_t cur = hnode_spte(n, i);
	bool cur_p = is_present(m, cur), old_p = is_present(m, old_spte);
	uint64_t gfn = n->base + i * msc_level_pages(n->level);

	if (!cur_p && !old_p)
		return 0;	/* frozen, MMIO and non-present are all "nothing mapped" */
	if (cur_p && old_p && !((cur ^ old_spte) & ~soft_bits(m))) {
		m->count.ad_resyncs++;
		set_spte(n, i, old_spte);	/* same mapping (its chunk is its own), A/D bits */
		return 0;
	}
	if (!cur_p && !(hnode_start(n, i) & HSTART_SEEN)) {
		int r = transition(m, n, i, old_spte, MSC_CAUSE_TRACE_START, 0);

		/* present since before the trace: its interval starts at the trace start */
		set_start(n, i, hnode_start(n, i) & 0xff);
		m->count.resyncs++;
		return r ?: m->up->anomaly(m->up_ctx, MSC_ANOMALY_PARTIAL, n->as_id, gfn, n->level, cur,
					   old_spte, "SPTE present before the trace began: the "
					   "capture started after the guest was populated");
	}
	m->count.resyncs++;
	return m->up->anomaly(m->up_ctx, MSC_ANOMALY_RESYNC, n->as_id, gfn, n->level, cur, old_spte,
			"model had %#llx, event says %#llx", (unsigned long long)cur,
			(unsigned long long)old_spte) ?:
	       transition(m, n, i, old_spte, MSC_CAUSE_RESYNC, 0);
}

/*
 * Removed tables.  KVM removes a page table by changing the entry that
 * points to it (the parent) and, in handle_removed_pt(), tracing
 * kvm_mmu_prepare_zap_page and its 512 children made frozen, recursively
 * (docs/kvm-mmu.md, "What the TDP MMU trace shows").  Up to 6.12 the
 * parent's change is traced first; in 7.x __handle_changed_spte() calls
 * handle_removed_pt() before it traces the parent, though the parent was
 * written first (recover_huge_pages_range() installs the huge leaf by
 * tdp_mmu_set_spte_atomic(), then the children are traced).
 *
 * Invariants: the live tree's mapping changes at the parent's change only.
 * A table whose parent entry stops pointing to a table has nothing below
 * it in the model from that change on: the children KVM traces after it
 * (orphans) change nothing.  A table whose removal begins while the model's
 * parent entry still points to it (its prepare_zap_page, or its first
 * child) is detached: its children change nothing either, and when the
 * parent's change comes its leaves' intervals end, and the parent's new
 * value's begins, at the removal (detached_ts).  The mark lives in the
 * node, at most one per node, and goes with the next change of the parent
 * entry, whatever makes it.
 */

/* The detached node @n is, or lies under; NULL: none. */
static struct hnode *detached_root(struct hnode *n)
{
	struct hnode *d = NULL;

	for (; n; n = n->parent)
		if (n->detached)
			d = n;	/* the outermost removal */
	return d;
}

/* Does the entry pointing to @n point to a table?  false: there is none. */
static bool parent_is_table(const struct hmodel *m, const struct hnode *n)
{
	uint64_t pe;

	if (!n->parent)
		return false;
	pe = hnode_spte(n->parent, idx_of(n->base, n->level + 1));
	return is_present(m, pe) && !is_leaf(m, n->level + 1, pe);
}

/**
 * hmodel_detach - a kvm_mmu_prepare_zap_page of the table of level-@level
 *	entries from @gfn: detach it when the model's parent entry still
 *	points to it (the removal is traced before the parent's change)
 */
int hmodel_detach(struct hmodel *m, unsigned int as_id, uint64_t gfn, unsigned int level)
{
	struct hnode *n;

	/* (no range is pending: a prepare_zap_page is never steady, history.c applied it) */
	if (level >= HTOP_LEVEL)
		return 0;
	n = hmodel_node(m, as_id, gfn, level, false);
	if (!n || n->base != gfn || detached_root(n) || !parent_is_table(m, n))
		return 0;
	n->detached = true;
	n->detached_ts = m->ts;
	return 0;
}

/* The untraced step of a teardown child to non-present, counted as transition() does. */
static void teardown_done(struct hmodel *m, uint64_t new_spte)
{
	if (new_spte == m->layout.frozen && m->layout.frozen != m->layout.nonpresent)
		m->count.frozen_completed++;
}

/*
 * A teardown child (entry @i of @n) of a detached table, or of one already
 * gone: returns 1 when it changes nothing in the live tree, 0 when it is
 * applied as any change, or a negative error.  @child: classified so (a
 * change to the frozen value without its prepare_zap_page is not, and
 * begins no removal).
 */
static int teardown_child(struct hmodel *m, struct hnode *n, unsigned int i,
			  uint64_t old_spte, uint64_t new_spte, bool child)
{
	struct hnode *p = n->parent;
	int r;

	if (!p)
		return 0;
	if (!detached_root(n)) {
		unsigned int pi = idx_of(n->base, n->level + 1);

		if (!parent_is_table(m, n)) {
			/*
			 * The table went with its parent's change.  A parent never
			 * seen changing is one from before the trace, unless an
			 * earlier run saw it (a resumed model has no non-present
			 * entry's start).
			 */
			if (!(hnode_start(p, pi) & HSTART_SEEN) && !m->resumed)
				return 0;
			m->orphans++;
			teardown_done(m, new_spte);
			m->orphan_of.mark = m->transitions + 1;
			m->orphan_of.base = n->base;
			m->orphan_of.as_id = (uint8_t)n->as_id;
			m->orphan_of.level = (uint8_t)n->level;
			return 1;
		}
		if (!child || hnode_spte(n, i) != old_spte)
			return 0;
		/* the first child of a table whose parent is not traced yet */
		n->detached = true;
		n->detached_ts = m->ts;
	}
	if (hnode_spte(n, i) != old_spte) {
		r = reconcile(m, n, i, old_spte);
		if (r)
			return r;
	}
	teardown_done(m, new_spte);
	return 1;
}

/*
 * Remove everything under @n (the table an entry stopped pointing to) with
 * @cause: each entry at @ts, or at its own start if later (a resync in a
 * detached table).  Sets m->ts; the caller restores it.
 */
static int clear_table(struct hmodel *m, struct hnode *n, uint64_t ts, unsigned int cause)
{
	int r = 0;

	n->detached = false;
	for (unsigned int i = 0; i < HNODE_ENTRIES && n->present && !r; i++) {
		uint64_t spte;

		if (n->chunk[i >> HCHUNK_SHIFT] == m->empty_chunk) {
			i |= HCHUNK_MASK;	/* nothing there */
			continue;
		}
		spte = hnode_spte(n, i);
		if (!is_present(m, spte))
			continue;
		if (n->level > 1 && !is_leaf(m, n->level, spte) && hnode_child(n, i))
			r = clear_table(m, hnode_child(n, i), ts, cause);
		m->ts = max(ts, start_ts(m, hnode_start(n, i)));
		if (!r)
			r = transition(m, n, i, m->layout.nonpresent, cause, 0);
	}
	return r;
}

/*
 * Entry @i of @n changes from @old_spte to @new_spte at the current time,
 * or, when it points to the detached table @d, at the removal: its table's
 * entries end first.
 */
static int change_entry(struct hmodel *m, struct hnode *n, unsigned int i,
			uint64_t old_spte, uint64_t new_spte, unsigned int cause)
{
	struct hnode *d = n->level > 1 ? hnode_child(n, i) : NULL;
	uint64_t now = m->ts, cur = hnode_spte(n, i);
	bool was_table = is_present(m, old_spte) && !is_leaf(m, n->level, old_spte);
	bool is_table = is_present(m, new_spte) && !is_leaf(m, n->level, new_spte);
	int r = 0;

	if (d && d->detached && is_present(m, cur) && !is_leaf(m, n->level, cur)) {
		r = clear_table(m, d, d->detached_ts, MSC_CAUSE_TEARDOWN);
		m->ts = max(d->detached_ts, start_ts(m, hnode_start(n, i)));
	}
	if (!r && cur != old_spte)
		r = reconcile(m, n, i, old_spte);
	if (!r)
		r = transition(m, n, i, new_spte, cause, 0);
	/* a table left the live tree: what was under it goes with it */
	if (!r && d && was_table && !is_table)
		r = clear_table(m, d, now, MSC_CAUSE_TEARDOWN);
	m->ts = now;
	return r;
}

/**
 * hmodel_change - apply one traced change (old -> new) of an entry
 *
 * The event's @old_spte is authoritative: a model that disagrees is
 * resynchronized first (counted, and an anomaly row for real conflicts).
 * A teardown child (@cause MSC_CAUSE_TEARDOWN, or a change to the frozen
 * value) of a removed table is the removed table's ("Removed tables" above).
 */
int hmodel_change(struct hmodel *m, unsigned int as_id, uint64_t gfn, unsigned int level,
		  uint64_t old_spte, uint64_t new_spte, unsigned int cause)
{
	struct hnode *n;
	unsigned int i;
	int r;

	/* the next child of the table the last orphan was of: nothing to look up */
	if (cause == MSC_CAUSE_TEARDOWN && m->orphan_of.mark == m->transitions + 1 &&
	    as_id == m->orphan_of.as_id && level == m->orphan_of.level &&
	    gfn - m->orphan_of.base < msc_level_pages(level + 1)) {
		m->orphans++;
		teardown_done(m, new_spte);
		return 0;
	}
	n = hmodel_node(m, as_id, gfn, level, true);
	if (!n)
		return -ENOMEM;
	i = idx_of(gfn, level);
	if (cause == MSC_CAUSE_TEARDOWN ||
	    (new_spte == m->layout.frozen && m->layout.frozen != m->layout.nonpresent)) {
		r = teardown_child(m, n, i, old_spte, new_spte, cause == MSC_CAUSE_TEARDOWN);
		if (r)
			return min(r, 0);
	}
	return change_entry(m, n, i, old_spte, new_spte, cause);
}

/*
 * Ranges.  In a steady stretch (phase.c) the storms change one node's 4K
 * entries one after the other, each from the present leaf the model holds
 * to another present leaf (write-protection, clearing D bits) or to nothing
 * (the children of a removed table).  hmodel_range_add() keeps such changes
 * in m->range instead of applying them, and hmodel_range_apply() applies
 * them in one pass over the node: the intervals go to the run the last one
 * went to while they fit it, the census is counted once, and the node's one
 * 2M cell is recomputed only where its region_state row can change and once
 * at the end, for its staleness.  The tables come out as change by change
 * (tests/cli/analyze-steady.sh compares them with `analyze --per-event').
 *
 * Invariant: while a range is pending nothing reads or changes the model
 * but hmodel_range_add(); history.c applies it before it feeds an event
 * the range does not take and before anything is written.
 */

/*
 * Can the changes under cell @i2 of @n2 go in a range?  It must be a 4K
 * cell (no huge leaf over it) and stay one until nothing under it is
 * mapped, and no change under it may tell the phase detector anything
 * (hphase_cell_huge() has nothing to do for it).
 */
static bool range_cell_ok(const struct hmodel *m, const struct hnode *n2, unsigned int i2)
{
	const struct hcell *c = hnode_cell(n2, i2);
	uint64_t e3 = n2->parent ? hnode_spte(n2->parent, idx_of(n2->base, 3)) :
				   m->layout.nonpresent;

	return c->kind == MSC_REGION_4K && !is_leaf(m, 2, hnode_spte(n2, i2)) &&
	       !is_leaf(m, 3, e3) && (c->flags & (HCELL_WAS_HUGE | HCELL_SPLIT)) != HCELL_WAS_HUGE;
}

/*
 * @new_spte as a range keeps it: the non-present value for nothing (the
 * frozen value's untraced step to it counted here, as transition() does).
 */
static uint64_t range_value(struct hmodel *m, uint64_t new_spte)
{
	if (is_present(m, new_spte))
		return new_spte;
	if (new_spte == m->layout.frozen && m->layout.frozen != m->layout.nonpresent)
		m->count.frozen_completed++;
	return m->layout.nonpresent;
}

/**
 * hmodel_range_extend - take a change at @ts of the entry after the pending
 *	range's last
 *
 * It is taken when it changes the next 4K entry of the range's node, of the
 * range's address space, from the present leaf the model holds, with the
 * range's cause.  Returns whether it was; nothing changes when it was not.
 */
bool hmodel_range_extend(struct hmodel *m, unsigned int as_id, uint64_t gfn,
			 unsigned int level, uint64_t old_spte, uint64_t new_spte,
			 unsigned int cause, uint64_t ts)
{
	struct hrange *rg = &m->range;
	struct hnode *n = rg->node;
	unsigned int i = rg->first + rg->nr;

	/* (a value without the present bit is only nothing where the layout has one) */
	if (!n || i >= HNODE_ENTRIES || gfn != n->base + i || level != 1 || as_id != rg->as_id ||
	    cause != rg->cause || hnode_spte(n, i) != old_spte || !is_present(m, old_spte) ||
	    (!m->layout.present && !is_present(m, new_spte)))
		return false;
	rg->ts[rg->nr] = ts;
	rg->spte[rg->nr++] = range_value(m, new_spte);
	return true;
}

/**
 * hmodel_range_add - take a traced change into the pending range
 *
 * Returns 1 when it is taken; 0 when the caller must apply it itself
 * (hmodel_change()), the pending range being applied by then; or a negative
 * error.
 */
int hmodel_range_add(struct hmodel *m, unsigned int as_id, uint64_t gfn, unsigned int level,
		     uint64_t old_spte, uint64_t new_spte, unsigned int cause)
{
	struct hrange *rg = &m->range;
	struct hnode *n;
	unsigned int i;
	int r;

	if (hmodel_range_extend(m, as_id, gfn, level, old_spte, new_spte, cause, m->ts))
		return 1;
	r = hmodel_range_apply(m);
	/* a value without the present bit is only nothing where the layout has one */
	if (!m->layout.present && !is_present(m, new_spte))
		return r;
	if (r || level != 1 || m->loading || !is_present(m, old_spte))
		return r;
	n = hmodel_node(m, as_id, gfn, 1, false);
	i = idx_of(gfn, 1);
	if (!n || !n->parent || hnode_spte(n, i) != old_spte || detached_root(n) ||
	    !range_cell_ok(m, n->parent, idx_of(n->base, 2)))
		return 0;
	*rg = (struct hrange){ .node = n, .first = (uint16_t)i, .nr = 1, .as_id = (uint8_t)as_id,
			       .cause = (uint8_t)cause };
	rg->ts[0] = m->ts;
	rg->spte[0] = range_value(m, new_spte);
	return 1;
}

/*
 * Close entry @i's interval (@spte from @sw) at @end_ts into *@run when it
 * fits, else as emit() does.
 */
static int range_emit(struct hmodel *m, struct hnode *n, unsigned int i, uint64_t spte,
		      uint64_t sw, uint64_t end_ts, unsigned int end_cause, struct hrun **run)
{
	struct msc_interval iv;
	int r;

	interval_of(m, n, i, spte, sw, end_ts, end_cause, &iv);
	m->count.intervals++;
	/* *run, still the node's, is the first of n->runs: run_add() would take it */
	if (*run && (*run)->node == n && run_fits(m, *run, i, &iv))
		return run_append(m, *run, i, &iv);
	r = run_add(m, n, i, &iv);
	*run = n->runs;
	return r;
}

/** hmodel_range_apply - apply the pending range, if any */
int hmodel_range_apply(struct hmodel *m)
{
	struct hrange *rg = &m->range;
	struct hnode *n = rg->node, *n2 = NULL;
	uint64_t now = m->ts, skipped_ts = 0, wbit = m->layout.writable;
	unsigned int i2 = 0, removed = 0, lost = m->after_lost ? HSTART_LOST : 0;
	struct hrun *run = NULL;
	struct hcell *c;
	bool table, stale = false;	/* stale: the cell's last update was skipped */
	int r = 0;

	if (!n)
		return 0;
	rg->node = NULL;
	m->count.ranged += rg->nr;
	c = cell_of(m, n, rg->first, &n2, &i2);
	table = is_present(m, hnode_spte(n2, i2));	/* the cell stays 4K while this or c->mapped */
	for (unsigned int k = 0; k < rg->nr && !r; k++) {
		unsigned int i = rg->first + k, j = i & HCHUNK_MASK;
		struct hchunk *ch = n->chunk[i >> HCHUNK_SHIFT];	/* present: its own */
		uint64_t spte = rg->spte[k], old = ch->spte[j], sw = ch->start[j];
		bool gone = spte == m->layout.nonpresent;
		bool was_w = old & wbit, is_w = !gone && (spte & wbit);

		chunk_set_start(n, ch, j, start_word(m, rg->ts[k], HSTART_SEEN |
						     (rg->cause & HSTART_CAUSE_MASK) | lost));
		r = range_emit(m, n, i, old, sw, rg->ts[k], rg->cause, &run);
		ch->spte[j] = spte;
		if (gone) {
			removed++;
			n->present--;
			c->mapped--;
			c->flags |= HCELL_ZAPPED;
			if (!n->present && n->runs && !r)
				r = node_write_runs(m, n);	/* the table is gone */
		} else if (was_w == is_w) {
			continue;
		}
		if (r)
			break;
		c->writable = (uint16_t)(c->writable + is_w - was_w);
		/* no row is written while the cell's 4K sixteenths stay */
		if ((table || c->mapped) && hcell_row_holds_4k(c)) {
			m->cells_quiet++;
			stale = true;
			skipped_ts = rg->ts[k];
			continue;
		}
		m->ts = rg->ts[k];
		r = m->up->cell_changed(m->up_ctx, rg->as_id, n2, i2);
		stale = false;
	}
	m->pages[rg->as_id][1] -= removed;
	m->leaves_moved[rg->as_id] = true;
	if (!r && stale) {
		/* the last skipped update, done: the cell's staleness is its values' */
		m->cells_quiet--;
		m->ts = skipped_ts;
		r = m->up->cell_changed(m->up_ctx, rg->as_id, n2, i2);
	}
	m->ts = now;
	return r;
}

/**
 * hmodel_clear_below - remove everything under the entry (@gfn, @level)
 * @cause: end cause of the removed intervals
 * @stale: what is removed should not have been there (counted as resyncs)
 */
int hmodel_clear_below(struct hmodel *m, unsigned int as_id, uint64_t gfn,
		       unsigned int level, unsigned int cause, bool stale)
{
	struct hnode *n;
	int r = 0;

	if (level < 2)
		return 0;
	n = hmodel_node(m, as_id, gfn, level - 1, false);
	if (!n || !n->present)
		return 0;
	for (unsigned int i = 0; i < HNODE_ENTRIES && !r; i++) {
		if (!is_present(m, hnode_spte(n, i)))
			continue;
		if (!is_leaf(m, n->level, hnode_spte(n, i)))
			r = hmodel_clear_below(m, as_id, n->base + i * msc_level_pages(n->level),
					       n->level, cause, stale);
		if (stale)
			m->count.resyncs++;
		if (!r)
			r = transition(m, n, i, m->layout.nonpresent, cause, 0);
	}
	return r;
}

/*
 * The children of a split into @n, which has no entry present (the table
 * is new), in one pass: what 512 transition()s from non-present would do,
 * the census and the 2M cells (a 4K node's one, a 2M node's 512) counted
 * once.  Returns 1; 0, having changed nothing, when a child would not be a
 * present leaf (a layout whose special values it could meet), for the
 * caller to make them one by one; or a negative error.
 */
static int fill_children(struct hmodel *m, struct hnode *n, uint64_t huge, uint64_t step,
			 unsigned int cause)
{
	unsigned int level = n->level;
	uint64_t sw = start_word(m, m->ts, HSTART_SEEN | HSTART_SYNTH |
				 (cause & HSTART_CAUSE_MASK) | (m->after_lost ? HSTART_LOST : 0));
	uint64_t clear = level == 1 ? m->layout.huge : 0;
	struct hcell *c;
	int r = 0;

	if (n->present || level > 2 || (level == 1 && !n->parent))
		return 0;
	for (unsigned int i = 0; i < HNODE_ENTRIES; i++) {
		uint64_t child = (huge | (i * step)) & ~clear;

		if (!is_leaf(m, level, child) || child == m->layout.frozen)
			return 0;
	}
	for (unsigned int k = 0; k < HNODE_CHUNKS; k++)
		if (hmodel_own(m, n, k * HCHUNK_ENTRIES))
			return -ENOMEM;
	for (unsigned int i = 0; i < HNODE_ENTRIES; i++) {
		set_spte(n, i, (huge | (i * step)) & ~clear);
		set_start(n, i, sw);
	}
	n->present = HNODE_ENTRIES;
	hmodel_leaves_add(m, n->as_id, level, HNODE_ENTRIES);
	if (level == 2) {
		for (unsigned int i = 0; i < HNODE_ENTRIES && !r; i++)
			r = cell_changed(m, n, i);
		return r ?: 1;
	}
	c = n->cell;
	c->mapped = (uint16_t)(c->mapped + HNODE_ENTRIES);
	if (huge & m->layout.writable)
		c->writable = (uint16_t)(c->writable + HNODE_ENTRIES);
	return cell_changed(m, n->parent, idx_of(n->base, 2)) ?: 1;
}

/**
 * hmodel_split_children - write the 512 children a split creates
 * @gfn, @level: the huge entry that became a page table
 * @huge: its value before the split
 *
 * Mirrors make_small_spte() / make_huge_page_split_spte(): the child
 * address is the huge address plus i pages of the lower level, and PS is
 * cleared at 4K.  The kernel writes these before linking the table and does
 * not trace them.
 */
int hmodel_split_children(struct hmodel *m, unsigned int as_id, uint64_t gfn,
			  unsigned int level, uint64_t huge, unsigned int cause)
{
	unsigned int cl = level - 1;
	uint64_t step = msc_level_pages(cl) << 12;
	struct hnode *n;
	int r = 0;

	if (level < 2)
		return 0;
	r = hmodel_clear_below(m, as_id, gfn, level, MSC_CAUSE_RESYNC, true);
	n = r ? NULL : hmodel_node(m, as_id, gfn, cl, true);
	if (!n)
		return r ?: -ENOMEM;
	m->count.synthesized += HNODE_ENTRIES;
	r = fill_children(m, n, huge, step, cause);
	if (r)
		return min(r, 0);
	for (unsigned int i = 0; i < HNODE_ENTRIES && !r; i++) {
		uint64_t child = huge | (i * step);

		if (cl == 1)
			child &= ~m->layout.huge;
		r = transition(m, n, i, child, cause, HSTART_SYNTH);
	}
	return r;
}

/**
 * hmodel_drop_range - remove every leaf of levels @min_level..@max_level in [gfn, end)
 *
 * For the shadow MMU, whose leaf removals are mostly untraced.
 */
int hmodel_drop_range(struct hmodel *m, unsigned int as_id, uint64_t gfn, uint64_t end,
		      unsigned int min_level, unsigned int max_level, unsigned int cause)
{
	int r = 0;

	for (unsigned int l = max_level; l >= min_level && l >= 1 && !r; l--) {
		uint64_t g = gfn & ~(msc_level_pages(l) - 1);

		while (g < end && !r) {
			struct hnode *n = hmodel_node(m, as_id, g, l, false);
			uint64_t next = (g & ~(node_span(l) - 1)) + node_span(l);

			if (n && n->present) {
				for (; g < end && g < next && !r; g += msc_level_pages(l)) {
					unsigned int i = idx_of(g, l);

					if (is_leaf(m, l, hnode_spte(n, i)))
						r = transition(m, n, i, m->layout.nonpresent, cause, 0);
				}
			}
			g = next;
		}
	}
	return r;
}

/**
 * hmodel_find_leaf - the level of the leaf mapping @gfn, lowest first
 *
 * Returns 1 and sets *@ret_level, or 0 when nothing maps @gfn.
 */
int hmodel_find_leaf(struct hmodel *m, unsigned int as_id, uint64_t gfn,
		     unsigned int *ret_level)
{
	for (unsigned int l = 1; l <= MSC_HISTORY_MAX_LEVEL; l++) {
		struct hnode *n = hmodel_node(m, as_id, gfn, l, false);

		if (n && is_leaf(m, l, hnode_spte(n, idx_of(gfn, l)))) {
			*ret_level = l;
			return 1;
		}
	}
	return 0;
}

/**
 * hmodel_holds - does the level-@level entry of @gfn hold a present SPTE of
 *	@spte's frame (the pending range's value, where it has one)?
 *
 * A frame is its VM's alone (a page of its memory or of its page tables),
 * so the tables that hold it are that VM's: the front places a change by
 * the value it replaces (place.c).
 */
bool hmodel_holds(struct hmodel *m, unsigned int as_id, uint64_t gfn, unsigned int level,
		  uint64_t spte)
{
	struct hnode *n = hmodel_node(m, as_id, gfn, level, false);
	unsigned int i;
	uint64_t v;

	if (!n)
		return false;
	i = idx_of(gfn, level);
	v = hnode_spte(n, i);
	if (m->range.node == n && i - m->range.first < m->range.nr)
		v = m->range.spte[i - m->range.first];
	return msc_spte_present(&m->layout, v) &&
	       msc_spte_pfn(&m->layout, v) == msc_spte_pfn(&m->layout, spte);
}

/** hmodel_cell - the counters of the 2M cell of @gfn, to read; NULL: no such cell */
const struct hcell *hmodel_cell(struct hmodel *m, unsigned int as_id, uint64_t gfn)
{
	struct hnode *n2 = hmodel_node(m, as_id, gfn, 2, false);

	return n2 ? hnode_cell(n2, idx_of(gfn, 2)) : NULL;
}

/**
 * hmodel_load_interval - put an open interval of an earlier run back
 *
 * Called with m->loading set, so nothing is written.  Its row is deleted
 * (hstore_delete_open()) and written again when it ends or at the next
 * finish: it leaves the count of intervals until then.
 */
int hmodel_load_interval(struct hmodel *m, const struct msc_interval *iv)
{
	struct hnode *n = hmodel_node(m, iv->as_id, iv->gfn, iv->level, true);
	unsigned int i, flags = 0;
	int r;

	if (!n)
		return -ENOMEM;
	i = idx_of(iv->gfn, iv->level);
	r = transition(m, n, i, iv->spte, iv->start_cause, 0);
	if (iv->flags & MSC_IV_SYNTH)
		flags |= HSTART_SYNTH;
	if (iv->flags & MSC_IV_AFTER_LOST)
		flags |= HSTART_LOST;
	set_start(n, i, start_word(m, max(iv->start_ts, m->ts_base), HSTART_SEEN |
				   (iv->start_cause & HSTART_CAUSE_MASK) | flags));
	m->count.intervals--;
	return r;
}

/**
 * hmodel_mark_was_huge - a huge leaf of an earlier run, long gone
 *
 * Only its 2M cells' HCELL_WAS_HUGE is restored (cells that exist: a region
 * with nothing mapped now has none), so that a disable after a resume knows
 * which regions it must see huge again.
 */
void hmodel_mark_was_huge(struct hmodel *m, const struct msc_interval *iv)
{
	uint64_t cells = iv->level >= 3 ? msc_level_pages(iv->level) / 512 : 1;

	for (uint64_t i = 0; iv->level >= 2 && i < cells; i++) {
		uint64_t gfn = iv->gfn + i * 512;
		struct hnode *n2 = hmodel_node(m, iv->as_id, gfn, 2, false);

		/* no memory for the chunk: the flag is lost, as for a cell that is not there */
		if (n2 && !hmodel_own(m, n2, idx_of(gfn, 2)))
			hnode_cell(n2, idx_of(gfn, 2))->flags |= HCELL_WAS_HUGE;
	}
}

static int close_node(struct hmodel *m, struct hnode *n)
{
	int r = 0;

	if (!n)
		return 0;
	for (unsigned int i = 0; i < HNODE_ENTRIES && !r; i++) {
		if (n->chunk[i >> HCHUNK_SHIFT] == m->empty_chunk) {
			i |= HCHUNK_MASK;	/* nothing there */
			continue;
		}
		if (n->level > 1 && hnode_child(n, i))
			r = close_node(m, hnode_child(n, i));
		if (!r && is_present(m, hnode_spte(n, i)))
			r = emit(m, n, i, hnode_spte(n, i), hnode_start(n, i), MSC_TS_OPEN,
				 MSC_CAUSE_NONE);
	}
	return r ?: node_write_runs(m, n);
}

/**
 * hmodel_close_all - write every pending run, then an open interval for
 *	every present entry
 *
 * The open runs are the last rows written, so a resumed analysis that
 * deletes and rewrites them leaves the rows in the same order.
 */
int hmodel_close_all(struct hmodel *m)
{
	int r = flush_runs(m);

	for (unsigned int a = 0; a < HMAX_AS && !r; a++)
		r = close_node(m, m->root[a]);
	return r;
}

static int cells_node(struct hmodel *m, struct hnode *n, hcell_fn fn, void *ctx)
{
	int r = 0;

	if (!n)
		return 0;
	if (n->level == 2) {
		for (unsigned int i = 0; i < HNODE_ENTRIES && !r; i++) {
			struct hcell tmp;

			if (n->chunk[i >> HCHUNK_SHIFT] != m->empty_chunk) {
				r = fn(ctx, n, i, hnode_cell(n, i));
				continue;
			}
			/* a zero cell (its padding too: compared whole): a copy, kept if @fn changed it */
			memset(&tmp, 0, sizeof(tmp));
			r = fn(ctx, n, i, &tmp);
			if (!r && memcmp(&tmp, hnode_cell(n, i), sizeof(tmp))) {
				r = hmodel_own(m, n, i);
				if (!r)
					*hnode_cell(n, i) = tmp;
			}
		}
		return r;
	}
	for (unsigned int i = 0; i < HNODE_ENTRIES && !r && n->level > 2; i++)
		r = cells_node(m, hnode_child(n, i), fn, ctx);
	return r;
}

/** hmodel_for_each_cell - call @fn for every 2M cell the model has, by GFN */
int hmodel_for_each_cell(struct hmodel *m, hcell_fn fn, void *ctx)
{
	int r = 0;

	for (unsigned int a = 0; a < HMAX_AS && !r; a++)
		r = cells_node(m, m->root[a], fn, ctx);
	return r;
}
