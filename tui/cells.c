// SPDX-License-Identifier: GPL-2.0-only
/*
 * Memory-map cells over time (see cells.h).
 *
 * Invariant: each line's entries are sorted by ts (rows arrive in time
 * order per cell; a late one is inserted in place), and the hash is never
 * more than half full.
 */
#include "cells.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "mmuscope/history.h"
#include "mmuscope/util.h"

/* One state of a cell: from ts on, until the next entry. */
struct cell_entry {
	uint64_t ts;
	uint16_t mapped, writable;
	uint8_t kind;
};

/* One 2M cell and its states; key 0 marks a free slot. */
struct cell_line {
	uint64_t key;			/* (as_id << 52 | gfn >> 9) + 1 */
	int64_t vm;			/* ... of this VM's tables */
	struct cell_entry *e;
	uint32_t nr, alloc;
};

#define CELLS_CHUNK 65536		/* rows asked of the store at a time */

static uint64_t cell_key(uint8_t as_id, uint64_t gfn)
{
	return ((uint64_t)as_id << 52 | gfn >> 9) + 1;
}

static size_t slot_of(const struct tui_cells *c, uint64_t key, int64_t vm)
{
	/* Fibonacci hashing: neighbouring cells spread over the table */
	return (size_t)(((key + (uint64_t)vm * 0x2545f4914f6cdd1dULL) *
			 0x9e3779b97f4a7c15ULL) >> 32) & (c->cap - 1);
}

static struct cell_line *find(const struct tui_cells *c, uint64_t key, int64_t vm)
{
	if (!c->cap)
		return NULL;
	for (size_t i = slot_of(c, key, vm);; i = (i + 1) & (c->cap - 1)) {
		if (c->lines[i].key == key && c->lines[i].vm == vm)
			return &c->lines[i];
		if (!c->lines[i].key)
			return NULL;
	}
}

static int grow(struct tui_cells *c)
{
	size_t cap = c->cap ? c->cap * 2 : 1024;
	struct cell_line *old = c->lines, *lines = calloc(cap, sizeof(*lines));
	size_t old_cap = c->cap;

	if (!lines)
		return -ENOMEM;
	c->lines = lines;
	c->cap = cap;
	for (size_t i = 0; i < old_cap; i++) {
		size_t j;

		if (!old[i].key)
			continue;
		for (j = slot_of(c, old[i].key, old[i].vm); lines[j].key; j = (j + 1) & (cap - 1))
			;
		lines[j] = old[i];
	}
	free(old);
	return 0;
}

static struct cell_line *find_or_add(struct tui_cells *c, uint64_t key, int64_t vm)
{
	struct cell_line *l = find(c, key, vm);
	size_t i;

	if (l)
		return l;
	if ((c->nr + 1) * 2 > c->cap && grow(c))
		return NULL;
	for (i = slot_of(c, key, vm); c->lines[i].key; i = (i + 1) & (c->cap - 1))
		;
	c->lines[i].key = key;
	c->lines[i].vm = vm;
	c->nr++;
	return &c->lines[i];
}

void tui_cells_init(struct tui_cells *c)
{
	memset(c, 0, sizeof(*c));
}

void tui_cells_free(struct tui_cells *c)
{
	for (size_t i = 0; i < c->cap; i++)
		free(c->lines[i].e);
	free(c->lines);
	tui_cells_init(c);
}

static int append(struct cell_line *l, const struct msc_cell_state *row)
{
	struct cell_entry e = {
		.ts = row->ts, .mapped = row->mapped, .writable = row->writable, .kind = row->kind,
	};
	uint32_t at = l->nr;

	if (l->nr == l->alloc) {
		uint32_t alloc = l->alloc ? l->alloc * 2 : 4;
		struct cell_entry *p = realloc(l->e, alloc * sizeof(*p));

		if (!p)
			return -ENOMEM;
		l->e = p;
		l->alloc = alloc;
	}
	while (at && l->e[at - 1].ts > e.ts)	/* rare: a row written late */
		at--;
	memmove(&l->e[at + 1], &l->e[at], (l->nr - at) * sizeof(e));
	l->e[at] = e;
	l->nr++;
	return 0;
}

/** tui_cells_add - keep @nr region_state rows; returns 0 or -ENOMEM */
int tui_cells_add(struct tui_cells *c, const struct msc_cell_state *rows, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		struct cell_line *l = find_or_add(c, cell_key(rows[i].as_id, rows[i].gfn),
						  rows[i].vm);

		if (!l || append(l, &rows[i]))
			return -ENOMEM;
		c->rows++;
	}
	return 0;
}

/**
 * tui_cells_load - read up to @max_rows more rows of the analysis
 *
 * Sets c->loaded once everything written so far is read; call again later
 * to follow an analysis that grows.  Returns 0 or a negative error.
 */
int tui_cells_load(struct tui_cells *c, struct msc_store *s, int64_t capture_id, size_t max_rows)
{
	struct msc_cell_state *rows = malloc(CELLS_CHUNK * sizeof(*rows));
	int r;

	if (!rows)
		return -ENOMEM;
	r = msc_cell_states_end(s, &c->end);
	c->loaded = false;
	while (!r && max_rows) {
		size_t n;

		r = msc_cell_states(s, capture_id, &c->pos, rows,
				    min(max(max_rows, (size_t)MSC_CELL_STATES_MIN), (size_t)CELLS_CHUNK), &n);
		if (!r)
			r = tui_cells_add(c, rows, n);
		max_rows -= min(max_rows, n);
		if (!r && !n) {
			c->loaded = true;
			break;
		}
	}
	if (!r && c->pos >= c->end)
		c->loaded = true;
	free(rows);
	return r;
}

/** tui_cells_progress - share of the rows written so far that is read, 0..1 */
double tui_cells_progress(const struct tui_cells *c)
{
	if (c->loaded || c->end <= 0)
		return 1;
	return (double)c->pos / (double)c->end;
}

/**
 * tui_cells_at - the 2M cell of (@as_id, @gfn) of VM @vm at @ts
 *
 * A cell with no state at or before @ts is unmapped.
 */
void tui_cells_at(const struct tui_cells *c, int64_t vm, uint8_t as_id, uint64_t gfn,
		  uint64_t ts, struct msc_region_cell *ret)
{
	const struct cell_line *l = find(c, cell_key(as_id, gfn), vm);
	uint32_t lo = 0, hi;

	*ret = (struct msc_region_cell){ .gfn = gfn & ~511ULL, .as_id = as_id, .vm = vm };
	if (!l)
		return;
	/* the last entry with e.ts <= ts: lo ends one past it */
	hi = l->nr;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (l->e[mid].ts <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return;
	ret->kind = l->e[lo - 1].kind;
	ret->mapped = l->e[lo - 1].mapped;
	ret->writable = l->e[lo - 1].writable;
}

/** tui_region_cells - cells of @k 2M regions each that region @g takes */
uint64_t tui_region_cells(const struct msc_region *g, unsigned int k)
{
	uint64_t twomeg = (g->gfn_end + 511) / 512 - g->gfn_first / 512;

	return (twomeg + k - 1) / k;
}

/**
 * tui_cells_region - region @g at @ts as cells of @k 2M regions each
 * @ret: tui_region_cells(@g, @k) cells, filled
 */
void tui_cells_region(const struct tui_cells *c, const struct msc_region *g, unsigned int k,
		      uint64_t ts, struct fmt_cell *ret)
{
	uint64_t first = g->gfn_first & ~511ULL, nr = (g->gfn_end + 511) / 512 - g->gfn_first / 512;

	memset(ret, 0, tui_region_cells(g, k) * sizeof(*ret));
	for (uint64_t i = 0; i < nr; i++) {
		struct msc_region_cell rc;

		tui_cells_at(c, g->vm, g->as_id, first + i * 512, ts, &rc);
		fmt_cell_add(&ret[i / k], &rc);
	}
}
