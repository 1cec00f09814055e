// SPDX-License-Identifier: GPL-2.0-only
/*
 * The huge share of the dirty-logged memory alone.  The census counts
 * every slot the VM mapped: a 2 MiB code slot mapped huge reads "100%
 * huge" after a disable that left the test's slot unmapped.  So the views
 * read the 2M cells of the GFN range dirty logging touched (region_state,
 * through msc_cell_states(), history.h) and tell that range's share at a
 * step's start and end, and whether the huge pages a cycle split are back
 * where the analysis says they are huge again.
 */
#include <errno.h>
#include <stdlib.h>

#include "mmuscope/history.h"
#include "mmuscope/util.h"
#include "report.h"

#define CELLS_CHUNK 4096	/* region_state rows read at a time */

/* One region_state row of the range, and where it was in the rows written. */
struct report_cell {
	uint64_t gfn, ts;
	size_t order;
	uint8_t as_id, kind;
	uint16_t mapped;
};

static int by_cell(const void *a, const void *b)
{
	const struct report_cell *x = a, *y = b;

	if (x->as_id != y->as_id)
		return x->as_id < y->as_id ? -1 : 1;
	if (x->gfn != y->gfn)
		return x->gfn < y->gfn ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int keep(struct report_cells *c, const struct msc_cell_state *row, size_t order)
{
	if (c->nr == c->alloc) {
		size_t n = c->alloc ? 2 * c->alloc : 256;
		struct report_cell *p = realloc(c->rows, n * sizeof(*p));

		if (!p)
			return -ENOMEM;
		c->rows = p;
		c->alloc = n;
	}
	c->rows[c->nr++] = (struct report_cell){
		.gfn = row->gfn, .ts = row->ts, .order = order, .as_id = row->as_id,
		.kind = row->kind, .mapped = row->mapped,
	};
	return 0;
}

/**
 * report_cells_load - the 2M cells of GFNs [@gfn_first, @gfn_last] over time
 * @c: zeroed, or loaded before (then replaced)
 *
 * Nothing is read when the range is empty (first > last): every share
 * asked of it then comes from the census.  Returns 0 or a negative error.
 */
int report_cells_load(struct report_cells *c, struct msc_store *s, int64_t capture_id,
		      uint64_t gfn_first, uint64_t gfn_last)
{
	struct msc_cell_state *rows;
	int64_t pos = 0;
	size_t order = 0, n;
	int r = 0;

	c->nr = 0;
	if (gfn_first > gfn_last)
		return 0;
	rows = malloc(CELLS_CHUNK * sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	do {
		r = msc_cell_states(s, capture_id, &pos, rows, CELLS_CHUNK, &n);
		for (size_t i = 0; !r && i < n; i++, order++)
			if (rows[i].gfn + 511 >= gfn_first && rows[i].gfn <= gfn_last)
				r = keep(c, &rows[i], order);
	} while (!r && n);
	free(rows);
	if (!r)
		qsort(c->rows, c->nr, sizeof(*c->rows), by_cell);
	return r;
}

void report_cells_free(struct report_cells *c)
{
	free(c->rows);
	*c = (struct report_cells){ 0 };
}

/**
 * report_cells_at - what of GFNs [@gfn_first, @gfn_last] is mapped at @ts
 *
 * A cell counts with its last state at or before @ts; one with none is
 * unmapped.
 */
void report_cells_at(const struct report_cells *c, uint64_t gfn_first, uint64_t gfn_last,
		     uint64_t ts, struct report_huge *ret)
{
	*ret = (struct report_huge){ 0 };
	for (size_t i = 0; i < c->nr;) {
		const struct report_cell *now = NULL;
		size_t k = i;

		for (; k < c->nr && c->rows[k].gfn == c->rows[i].gfn &&
		       c->rows[k].as_id == c->rows[i].as_id; k++)
			if (c->rows[k].ts <= ts)
				now = &c->rows[k];
		i = k;
		if (!now || now->gfn + 511 < gfn_first || now->gfn > gfn_last)
			continue;
		ret->mapped += now->kind == MSC_REGION_UNMAPPED ? 0 : now->mapped;
		if (now->kind == MSC_REGION_2M || now->kind == MSC_REGION_1G)
			ret->huge += now->mapped;
	}
}

/* The share of @h huge, in percent; -1: nothing mapped */
static double huge_pct(const struct report_huge *h)
{
	return h->mapped ? 100.0 * (double)h->huge / (double)h->mapped : -1;
}

/**
 * report_step_huge_pct - the share of @s's dirty-logged memory mapped huge,
 *	in percent, before it began or (@after) when it ended; -1: none mapped
 *
 * Without cells of that memory (its range not known, or nothing read), the
 * share of all memory mapped, from the census.
 */
double report_step_huge_pct(const struct report_cells *c, const struct report_step *s,
			    bool after)
{
	struct report_huge h;

	if (!s->seen)
		return -1;
	if (!c || !c->nr || s->gfn_first > s->gfn_last)
		return report_huge_pct(after ? &s->last->after : &s->first->before);
	report_cells_at(c, s->gfn_first, s->gfn_last, after ? s->end : s->start - 1, &h);
	return huge_pct(&h);
}

/**
 * report_huge_again - whether disable @s's memory is huge again when the
 *	analysis says (@s->to_huge_ns after its start)
 * @ret_then: its memory then (4K pages mapped, of them huge)
 * @ret_before: ... and before its cycle began
 *
 * Huge again: as much of it huge as before the cycle, and some.  Without
 * cells of that memory, the census after the re-promotion (or the disable)
 * against the census before the cycle, in huge pages.  Returns 1 when huge
 * again, 0 when not (or never said), -1 when @s was not seen.
 */
int report_huge_again(const struct report_cells *c, const struct report_step *s,
		      struct report_huge *ret_then, struct report_huge *ret_before)
{
	const struct msc_census *before = &s->cycle_before;

	*ret_then = *ret_before = (struct report_huge){ 0 };
	if (!s->seen)
		return -1;
	if (c && c->nr && s->gfn_first <= s->gfn_last) {
		report_cells_at(c, s->gfn_first, s->gfn_last, s->cycle_ts - 1, ret_before);
		if (s->to_huge_ns >= 0)
			report_cells_at(c, s->gfn_first, s->gfn_last,
					s->start + (uint64_t)s->to_huge_ns, ret_then);
		else
			report_cells_at(c, s->gfn_first, s->gfn_last, s->end, ret_then);
	} else {
		const struct msc_census *after = s->settle ? &s->settle->after : &s->last->after;

		ret_then->mapped = msc_census_mapped(after);
		ret_then->huge = ret_then->mapped - (uint64_t)after->pages[1];
		ret_before->mapped = msc_census_mapped(before);
		ret_before->huge = ret_before->mapped - (uint64_t)before->pages[1];
	}
	return s->to_huge_ns >= 0 && ret_then->huge && ret_then->huge >= ret_before->huge;
}
