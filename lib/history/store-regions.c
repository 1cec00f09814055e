// SPDX-License-Identifier: GPL-2.0-only
/*
 * Regions and each phase's coverage of them (schema/002-analysis.sql:
 * region, phase_region), built once the capture's region_state rows are
 * written.
 *
 * A region is an island of consecutive 2M cells of one address space of one
 * VM, the cells being those region_state has rows for; regions are numbered
 * from 1 in (vm, as_id, gfn) order.  A phase's coverage of a region of its
 * VM sums, over its
 * cells, the state each was in at the phase's end: the cell's last row with
 * ts <= end_ts, the last written of equal ones (schema/README.md,
 * "region_state").  A cell with no such row adds nothing, and a region
 * none of whose cells has one gets no phase_region row.  A harvest's or
 * dirty pass's dirtied pages are split by region too (store-dirty.c).
 *
 * The rows are sorted here by cell and time: one pass then answers every
 * phase, where one index seek per phase and cell in SQL cost ~14,000
 * instructions each.  An analysis that wrote every row of its capture kept
 * them as it wrote them (struct hcell_log), so they are not read back; one
 * that resumed another reads them once, in the order written.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "tables.h"
#include "mmuscope/history.h"
#include "mmuscope/util.h"
#include "store-share.h"

#define CELLS_CHUNK 65536	/* rows read back at a time */

/*
 * A region_state row; @order is its place in the order written (the run
 * table's rowid, then the run's rows), which breaks ts ties.  ts is
 * compared as SQL compares it: a signed integer.
 */
struct cell_row {
	uint64_t gfn;
	int64_t ts;
	uint32_t order;
	int32_t vm;
	uint16_t mapped;
	uint8_t as_id;
	uint8_t kind;
};

/* The address space of one VM a row is of: the order of regions */
static uint64_t space_of(const struct cell_row *r)
{
	return (uint64_t)(uint32_t)r->vm << 8 | r->as_id;
}

/* Rows in the table's order (v[i].order == i) until hregions_build() sorts them */
struct hcell_log {
	struct cell_row *v;
	size_t nr, alloc;
};

/* Coverage of one region at one phase's end */
struct coverage {
	int64_t pages_4k, pages_2m, pages_1g;
	bool any;	/* a cell of the region had a row by then */
};

static int cmp_row(const void *a, const void *b)
{
	const struct cell_row *x = a, *y = b;

	if (space_of(x) != space_of(y))
		return space_of(x) < space_of(y) ? -1 : 1;
	if (x->gfn != y->gfn)
		return x->gfn < y->gfn ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

#define RADIX_BITS 8
#define RADIX (1U << RADIX_BITS)

/* One pass of a stable radix sort of @n rows, by the digit of @key at @shift. */
static void radix_pass(const struct cell_row *src, struct cell_row *dst, size_t n,
		       uint64_t (*key)(const struct cell_row *), unsigned int shift)
{
	size_t at[RADIX + 1] = { 0 };

	for (size_t i = 0; i < n; i++)
		at[((key(&src[i]) >> shift) & (RADIX - 1)) + 1]++;
	for (unsigned int d = 1; d <= RADIX; d++)
		at[d] += at[d - 1];
	for (size_t i = 0; i < n; i++)
		dst[at[(key(&src[i]) >> shift) & (RADIX - 1)]++] = src[i];
}

static uint64_t gfn_key(const struct cell_row *r)
{
	return r->gfn;
}

static uint64_t space_key(const struct cell_row *r)
{
	return space_of(r);
}

/*
 * Sort @l's rows into cmp_row()'s order.  They are in the order written
 * (v[i].order == i): a stable radix sort by gfn, then by VM and address space,
 * keeps each cell's rows in that order, which is time order unless a row
 * was written with an earlier time than one before it; a cell whose rows
 * are not in time order is sorted whole.  Only the digits some rows differ
 * in take a pass.  Returns 0 or -ENOMEM.
 */
static int sort_rows(struct hcell_log *l)
{
	static uint64_t (*const keys[])(const struct cell_row *) = { gfn_key, space_key };
	struct cell_row *tmp = malloc(l->nr * sizeof(*tmp)), *src = l->v, *dst = tmp;
	size_t n = l->nr;

	if (!tmp)
		return -ENOMEM;
	for (size_t k = 0; k < ARRAY_SIZE(keys); k++) {
		uint64_t differ = 0, first = keys[k](&src[0]);

		for (size_t i = 1; i < n; i++)
			differ |= keys[k](&src[i]) ^ first;
		for (unsigned int shift = 0; shift < 64; shift += RADIX_BITS) {
			struct cell_row *t = src;

			if (!((differ >> shift) & (RADIX - 1)))
				continue;
			radix_pass(src, dst, n, keys[k], shift);
			src = dst;
			dst = t;
		}
	}
	if (src != l->v)
		memcpy(l->v, src, n * sizeof(*src));
	free(tmp);
	for (size_t i = 0, j; i < n; i = j) {
		bool sorted = true;

		for (j = i + 1; j < n && l->v[j].gfn == l->v[i].gfn &&
		     space_of(&l->v[j]) == space_of(&l->v[i]); j++)
			sorted &= l->v[j].ts >= l->v[j - 1].ts;
		if (!sorted)
			qsort(&l->v[i], j - i, sizeof(*l->v), cmp_row);
	}
	return 0;
}

/* Room for one more row at the end of @l. */
static struct cell_row *log_room(struct hcell_log *l)
{
	if (l->nr == l->alloc) {
		size_t n = l->alloc ? 2 * l->alloc : 4096;
		struct cell_row *p = n <= UINT32_MAX ? realloc(l->v, n * sizeof(*p)) : NULL;

		if (!p)
			return NULL;
		l->v = p;
		l->alloc = n;
	}
	return &l->v[l->nr];
}

struct hcell_log *hcell_log_new(void)
{
	return calloc(1, sizeof(struct hcell_log));
}

void hcell_log_free(struct hcell_log *l)
{
	if (l)
		free(l->v);
	free(l);
}

/**
 * hcell_log_put - keep a row as the table gets it
 * @replace: the row replaces the last one kept (same cell and time)
 */
int hcell_log_put(struct hcell_log *l, const struct msc_region_cell *c, uint64_t ts,
		  bool replace)
{
	struct cell_row *row;

	if (replace && l->nr) {
		row = &l->v[l->nr - 1];
	} else {
		row = log_room(l);
		if (!row)
			return -ENOMEM;
		row->order = (uint32_t)l->nr++;
	}
	row->gfn = c->gfn;
	row->ts = (int64_t)ts;
	row->mapped = c->mapped;
	row->as_id = c->as_id;
	row->vm = (int32_t)c->vm;
	row->kind = c->kind;
	return 0;
}

static int read_rows(struct msc_store *s, int64_t capture_id, struct hcell_log *l)
{
	struct msc_cell_state *rows = malloc(CELLS_CHUNK * sizeof(*rows));
	int64_t pos = 0;
	size_t nr;
	int r;

	if (!rows)
		return -ENOMEM;
	while (!(r = msc_cell_states(s, capture_id, &pos, rows, CELLS_CHUNK, &nr)) && nr) {
		for (size_t i = 0; i < nr && !r; i++) {
			struct msc_region_cell c = {
				.as_id = rows[i].as_id,
				.vm = rows[i].vm,
				.gfn = rows[i].gfn,
				.kind = rows[i].kind,
				.mapped = rows[i].mapped,
			};

			r = hcell_log_put(l, &c, rows[i].ts, false);
		}
		if (r)
			break;
	}
	free(rows);
	return r;
}

/* The cell's rows are @row[0..@n): add its state at each phase's end to @cov */
static void cover_cell(const struct cell_row *row, size_t n, const struct msc_phase *ph,
		       size_t nr_phases, struct coverage *cov)
{
	for (size_t p = 0; p < nr_phases; p++) {
		const struct cell_row *last = NULL;

		if (ph[p].vm != row->vm)
			continue;	/* another VM's tables */
		/* rows are few per cell: a walk, as the SQL's seek did */
		for (size_t k = 0; k < n && row[k].ts <= (int64_t)ph[p].end_ts; k++)
			last = &row[k];
		if (!last)
			continue;
		cov[p].any = true;
		if (last->kind == MSC_REGION_4K)
			cov[p].pages_4k += last->mapped;
		else if (last->kind == MSC_REGION_2M)
			cov[p].pages_2m++;
		else if (last->kind == MSC_REGION_1G)
			cov[p].pages_1g++;
	}
}

/* The region's rows; @dirt[p]: phase p's pages dirtied in it, written where @split has them whole */
static int put_region(struct msc_store *s, sqlite3_stmt *reg, sqlite3_stmt *pr,
		      int64_t capture_id, int64_t id, const struct cell_row *first,
		      uint64_t gfn_end, const struct msc_phase *ph, size_t nr_phases,
		      const struct coverage *cov, const int64_t *dirt,
		      const struct hdirty_split *split)
{
	int r;

	sqlite3_bind_int64(reg, 1, capture_id);
	sqlite3_bind_int64(reg, 2, id);
	sqlite3_bind_int64(reg, 3, first->as_id);
	sqlite3_bind_int64(reg, 4, (int64_t)first->gfn);
	sqlite3_bind_int64(reg, 5, (int64_t)gfn_end);
	sqlite3_bind_int64(reg, 6, first->vm);
	r = msc_store_step(s, reg);
	sqlite3_reset(reg);
	for (size_t p = 0; p < nr_phases && r >= 0; p++) {
		if (!cov[p].any)
			continue;
		sqlite3_bind_int64(pr, 1, capture_id);
		sqlite3_bind_int64(pr, 2, ph[p].id);
		sqlite3_bind_int64(pr, 3, id);
		sqlite3_bind_int64(pr, 4, cov[p].pages_4k);
		sqlite3_bind_int64(pr, 5, cov[p].pages_2m);
		sqlite3_bind_int64(pr, 6, cov[p].pages_1g);
		if (hdirty_split_whole(split, p))
			sqlite3_bind_int64(pr, 7, dirt[p]);
		else
			sqlite3_bind_null(pr, 7);
		r = msc_store_step(s, pr);
		sqlite3_reset(pr);
	}
	return r < 0 ? r : 0;
}

static int null_dirtied(struct msc_store *s, int64_t capture_id, int64_t phase_id)
{
	sqlite3_stmt *st;
	int r = msc_store_prepare(s, "UPDATE phase_region SET dirtied_pages = NULL "
				  "WHERE capture_id = ?1 AND phase_id = ?2", &st);

	if (r)
		return r;
	sqlite3_bind_int64(st, 1, capture_id);
	sqlite3_bind_int64(st, 2, phase_id);
	r = msc_store_step(s, st);
	sqlite3_finalize(st);
	return r < 0 ? r : 0;
}

/**
 * hregions_build - write the capture's regions and phase_region rows
 *
 * @log: every region_state row of the capture as written (left sorted), or
 *	NULL to read them from the table
 * @ph: the capture's phases, by id (hstore_read_phases())
 *
 * The caller has deleted the capture's old ones and written every
 * region_state row.  Returns 0 or a negative error.
 */
int hregions_build(struct msc_store *s, int64_t capture_id, struct hcell_log *log,
		   const struct msc_phase *ph, size_t nr_phases)
{
	struct hcell_log read = { 0 };
	struct hdirty_split *split = NULL;
	struct coverage *cov = NULL;
	int64_t *dirt = NULL, *split_sum = NULL;
	sqlite3_stmt *reg = NULL, *pr = NULL;
	size_t nr_rows, i = 0;
	const struct cell_row *row;
	int64_t id = 0;
	int r = log ? 0 : read_rows(s, capture_id, &read);

	if (!log)
		log = &read;
	if (!r && log->nr)
		r = sort_rows(log);
	row = log->v;
	nr_rows = log->nr;
	if (!r)
		r = hdirty_split_open(s, capture_id, ph, nr_phases, &split);
	if (!r && (!(cov = calloc(nr_phases ?: 1, sizeof(*cov))) ||
		   !(dirt = calloc(nr_phases ?: 1, sizeof(*dirt))) ||
		   !(split_sum = calloc(nr_phases ?: 1, sizeof(*split_sum)))))
		r = -ENOMEM;
	if (!r)
		r = msc_store_prepare(s, "INSERT INTO region (capture_id, id, as_id, gfn_first, "
				      "gfn_end, exact, vm) VALUES (?1, ?2, ?3, ?4, ?5, 0, ?6)", &reg);
	if (!r)
		r = msc_store_prepare(s, "INSERT INTO phase_region (capture_id, phase_id, region_id, "
				      "pages_4k, pages_2m, pages_1g, dirtied_pages) VALUES (?1, ?2, ?3, "
				      "?4, ?5, ?6, ?7)", &pr);
	/* each turn: one region, from row[i], its cells' rows adjacent */
	while (!r && i < nr_rows) {
		const struct cell_row *first = &row[i];
		uint64_t gfn = first->gfn;

		memset(cov, 0, (nr_phases ?: 1) * sizeof(*cov));
		memset(dirt, 0, (nr_phases ?: 1) * sizeof(*dirt));
		for (;;) {
			size_t k = i;

			while (k < nr_rows && space_of(&row[k]) == space_of(first) && row[k].gfn == gfn)
				k++;
			cover_cell(&row[i], k - i, ph, nr_phases, cov);
			hdirty_split_cell(split, row[i].vm, row[i].as_id, gfn, dirt);
			i = k;
			if (i == nr_rows || space_of(&row[i]) != space_of(first) ||
			    row[i].gfn / HCELL_GFNS != gfn / HCELL_GFNS + 1)
				break;
			gfn = row[i].gfn;
		}
		r = put_region(s, reg, pr, capture_id, ++id, first, gfn + HCELL_GFNS, ph,
			       nr_phases, cov, dirt, split);
		for (size_t p = 0; p < nr_phases; p++)
			split_sum[p] += cov[p].any ? dirt[p] : 0;
	}
	/* pages in cells of no region (none ever mapped): the split is not whole */
	for (size_t p = 0; !r && p < nr_phases; p++)
		if (hdirty_split_whole(split, p) && split_sum[p] != ph[p].dirtied)
			r = null_dirtied(s, capture_id, ph[p].id);
	sqlite3_finalize(reg);
	sqlite3_finalize(pr);
	hdirty_split_free(split);
	free(split_sum);
	free(dirt);
	free(cov);
	free(read.v);
	return r;
}
