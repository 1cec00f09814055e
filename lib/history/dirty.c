// SPDX-License-Identifier: GPL-2.0-only
/*
 * The dirty rate per region: the pages each step dirtied, per 2M cell
 * (schema/020-dirty-cells.sql, dirty_cell).  The phases count the same
 * pages as sums (struct msc_phase_counts: pages_collected, pages_fixed);
 * here they are kept by cell, so that the regions built at the end can
 * split a step's count (store-regions.c).
 *
 * Invariants: every page phase.c counts as collected or fixed is added
 * here once, with the event's time.  A row gathers one cell's pages of one
 * kind while no phase began or ended (h->det.phase_turns): so a row lies
 * within every phase window its pages were counted in, and a step's rows
 * are those of its VM and kind within its start_ts .. end_ts.  A harvest
 * walks its GFNs in order, so a row is most often a cell's whole share.
 */
#include "local.h"
#include "mmuscope/util.h"

#define CELL_SHIFT 9	/* 2M cells: 512 4K pages */

/* The row being gathered goes to the store. */
int hdirty_flush(struct msc_history *h)
{
	struct hdirty *d = &h->dirty;
	int r;

	if (!d->pages)
		return 0;
	r = hstore_add_dirty_cell(h->hs, h->capture_id, d->vm, d->as_id, d->cell, d->ts, d->kind,
				  d->pages);
	d->pages = 0;
	return r;
}

static void add_cell(struct msc_history *h, unsigned int kind, unsigned int as_id,
		     uint64_t cell, uint64_t pages, uint64_t ts)
{
	struct hdirty *d = &h->dirty;
	int r;

	if (hdirty_takes(h, kind, as_id, cell)) {
		d->pages += pages;
		return;
	}
	r = hdirty_flush(h);
	if (r && !h->front->err)
		h->front->err = r;	/* feeding stops at the next event */
	*d = (struct hdirty){ .vm = h->m.vm_id, .cell = cell, .ts = ts, .pages = pages,
			      .turn = h->det.phase_turns, .as_id = (uint8_t)as_id,
			      .kind = (uint8_t)kind };
}

/**
 * hdirty_add_new - hdirty_add() of pages the row being gathered does not
 *	take: a row of their own (a huge page's pages go to each of its cells)
 *
 * Nothing is kept while an analysis resumes (its rows are in the table
 * already).
 */
void hdirty_add_new(struct msc_history *h, unsigned int kind, unsigned int as_id, uint64_t gfn,
		    uint64_t pages, uint64_t ts)
{
	uint64_t end = gfn + pages;

	if (h->m.loading)
		return;
	while (gfn < end) {
		uint64_t cell = gfn >> CELL_SHIFT;
		uint64_t n = min(end, (cell + 1) << CELL_SHIFT) - gfn;

		add_cell(h, kind, as_id, cell, n, ts);
		gfn += n;
	}
}
