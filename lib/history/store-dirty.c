// SPDX-License-Identifier: GPL-2.0-only
/*
 * A step's dirtied pages split by region (phase_region.dirtied_pages), from
 * the dirty_cell rows dirty.c wrote (schema/020-dirty-cells.sql).
 *
 * A harvest's rows are the collected (kind 0) rows of its VM within its
 * start_ts .. end_ts; a dirty pass's, the fast path's (kind 1).  The split
 * is only given where it is whole: a phase whose rows do not add up to its
 * own dirtied_pages (phase.c counted pages no window holds) gets NULL, not
 * a share that would be silently short.
 *
 * The rows are read in the regions' order (VM, address space, GFN), and
 * hregions_build() asks for each cell in that order: one pass.  A row's
 * phases are found by a binary search among its VM's and kind's windows,
 * sorted by start, walking back while a window before could still hold it.
 */
#include <errno.h>
#include <stdlib.h>

#include <sqlite3.h>

#include "tables.h"
#include "store-share.h"

struct dirty_row {
	uint64_t gfn;
	int64_t ts, pages;
	int32_t vm;
	uint8_t as_id, kind;
};

/* A dirty_cell row as read_rows() reads it */
#define DIRTY_CELL_COLUMNS(X, LAST)							\
	X(DC_VM, "vm") X(DC_AS_ID, "as_id") X(DC_GFN, "gfn") X(DC_TS, "ts")		\
	X(DC_KIND, "kind") LAST(DC_PAGES, "pages")
enum { DIRTY_CELL_COLUMNS(COL_ENUM, COL_ENUM) };

/* A dirtying phase's window; reach: the latest end of it and those before it in the order */
struct window {
	int64_t start, end, reach;
	int32_t vm;
	uint8_t kind;
	size_t phase;
};

struct hdirty_split {
	struct dirty_row *row;
	size_t nr_rows, next;
	struct window *win;
	size_t nr_win;
	int64_t *total;		/* per phase: the pages its windows held */
	const struct msc_phase *ph;
	size_t nr_phases;
};

static int kind_of(const struct msc_phase *p)
{
	if (p->dirtied < 0)
		return -1;
	return p->kind == MSC_PHASE_HARVEST ? HDIRTY_COLLECTED :
	       p->kind == MSC_PHASE_DIRTY_PASS ? HDIRTY_FIXED : -1;
}

static int cmp_window(const void *a, const void *b)
{
	const struct window *x = a, *y = b;

	if (x->vm != y->vm)
		return x->vm < y->vm ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int read_rows(struct msc_store *s, int64_t capture_id, struct hdirty_split *d)
{
	sqlite3_stmt *st;
	size_t alloc = 0;
	int r = msc_store_prepare(s, "SELECT " COLS(DIRTY_CELL_COLUMNS) " FROM dirty_cell "
				  "WHERE capture_id = ?1 ORDER BY vm, as_id, gfn, ts", &st);

	if (r)
		return r;
	sqlite3_bind_int64(st, 1, capture_id);
	while ((r = msc_store_step(s, st)) == 1) {
		if (d->nr_rows == alloc) {
			size_t n = alloc ? 2 * alloc : 1024;
			struct dirty_row *p = realloc(d->row, n * sizeof(*p));

			if (!p) {
				r = -ENOMEM;
				break;
			}
			d->row = p;
			alloc = n;
		}
		d->row[d->nr_rows++] = (struct dirty_row){
			.vm = sqlite3_column_int(st, DC_VM),
			.as_id = (uint8_t)sqlite3_column_int(st, DC_AS_ID),
			.gfn = (uint64_t)sqlite3_column_int64(st, DC_GFN),
			.ts = sqlite3_column_int64(st, DC_TS),
			.kind = (uint8_t)sqlite3_column_int(st, DC_KIND),
			.pages = sqlite3_column_int64(st, DC_PAGES),
		};
	}
	sqlite3_finalize(st);
	return r < 0 ? r : 0;
}

static int make_windows(struct hdirty_split *d)
{
	d->win = malloc((d->nr_phases ?: 1) * sizeof(*d->win));
	if (!d->win)
		return -ENOMEM;
	for (size_t p = 0; p < d->nr_phases; p++) {
		int kind = kind_of(&d->ph[p]);

		if (kind >= 0)
			d->win[d->nr_win++] = (struct window){
				.start = (int64_t)d->ph[p].start_ts, .end = (int64_t)d->ph[p].end_ts,
				.vm = (int32_t)d->ph[p].vm, .kind = (uint8_t)kind, .phase = p };
	}
	qsort(d->win, d->nr_win, sizeof(*d->win), cmp_window);
	for (size_t i = 0; i < d->nr_win; i++) {
		const struct window *before = i ? &d->win[i - 1] : NULL;
		bool same = before && before->vm == d->win[i].vm && before->kind == d->win[i].kind;

		d->win[i].reach = same && before->reach > d->win[i].end ? before->reach :
			d->win[i].end;
	}
	return 0;
}

/* Add @row's pages to @to[phase] of each phase whose window holds it. */
static void add_row(const struct hdirty_split *d, const struct dirty_row *row, int64_t *to)
{
	size_t lo = 0, hi = d->nr_win;

	/* the first window after every window of @row's VM and kind that starts by its time */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct window *w = &d->win[mid];

		if (w->vm < row->vm || (w->vm == row->vm && (w->kind < row->kind ||
		    (w->kind == row->kind && w->start <= row->ts))))
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0) {
		const struct window *w = &d->win[lo];

		if (w->vm != row->vm || w->kind != row->kind || w->reach < row->ts)
			break;
		if (w->end >= row->ts)
			to[w->phase] += row->pages;
	}
}

/** hdirty_split_open - read the capture's dirty_cell rows against its phases @ph */
int hdirty_split_open(struct msc_store *s, int64_t capture_id, const struct msc_phase *ph,
		      size_t nr_phases, struct hdirty_split **ret)
{
	struct hdirty_split *d = calloc(1, sizeof(*d));
	int r;

	if (!d)
		return -ENOMEM;
	d->ph = ph;
	d->nr_phases = nr_phases;
	d->total = calloc(nr_phases ?: 1, sizeof(*d->total));
	r = d->total ? read_rows(s, capture_id, d) : -ENOMEM;
	if (!r)
		r = make_windows(d);
	for (size_t i = 0; !r && i < d->nr_rows; i++)
		add_row(d, &d->row[i], d->total);
	if (r) {
		hdirty_split_free(d);
		return r;
	}
	*ret = d;
	return 0;
}

/**
 * hdirty_split_cell - add the pages dirtied in one cell to @dirt[phase]
 * @vm, @as_id, @gfn: the cell (its first GFN); cells are asked for in
 *	(VM, address space, GFN) order
 */
void hdirty_split_cell(struct hdirty_split *d, int32_t vm, unsigned int as_id, uint64_t gfn,
		       int64_t *dirt)
{
	for (; d->next < d->nr_rows; d->next++) {
		const struct dirty_row *row = &d->row[d->next];

		if (row->vm > vm || (row->vm == vm && (row->as_id > as_id ||
		    (row->as_id == as_id && row->gfn > gfn))))
			return;
		if (row->vm == vm && row->as_id == as_id && row->gfn == gfn)
			add_row(d, row, dirt);
	}
}

/** hdirty_split_whole - phase @p dirtied pages and its split by region adds up to them */
bool hdirty_split_whole(const struct hdirty_split *d, size_t p)
{
	return kind_of(&d->ph[p]) >= 0 && d->total[p] == d->ph[p].dirtied;
}

void hdirty_split_free(struct hdirty_split *d)
{
	if (!d)
		return;
	free(d->row);
	free(d->win);
	free(d->total);
	free(d);
}
