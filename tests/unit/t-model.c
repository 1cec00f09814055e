// SPDX-License-Identifier: GPL-2.0-only
/*
 * The page-table model alone (lib/history/model.c), without SQLite or any
 * floor above it: events are applied to a bare struct hmodel whose hooks
 * (struct hmodel_up) are this test's, and what the model hands up is
 * checked: its leaf counts, the 2M cells it says changed, the runs of
 * intervals it fills and the anomalies it cannot apply.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "history/model.h"
#include "mmuscope/host.h"
#include "mmuscope/util.h"
#include "test.h"

/* What the model handed up. */
static struct {
	unsigned int cells;			/* cell_changed calls */
	uint64_t last_cell;			/* ... the last one's first GFN */
	unsigned int anomalies;
	enum msc_anomaly_kind last_anomaly;
	struct msc_interval iv[1024];		/* the filled runs' intervals */
	unsigned int nr_iv;
	int64_t runs;				/* run_filled calls: the ids given */
} got;

/*
 * A 2M cell changed: counted, and its row "written" as the census would
 * for a cell with 4K leaves (what the range rule reads: hcell_row_holds_4k()).
 */
static int cell_changed(void *ctx, unsigned int as_id, struct hnode *n2, unsigned int i)
{
	struct hcell *c = hmodel_own_cell(ctx, n2, i);

	(void)as_id;
	if (!c)
		return -1;
	got.cells++;
	got.last_cell = n2->base + i * 512ULL;
	c->kind = c->mapped ? MSC_REGION_4K : MSC_REGION_UNMAPPED;
	c->flags |= HCELL_WRITTEN;
	c->q_kind = c->kind;
	c->q_mapped = hcell_quant(c->mapped);
	c->q_writable = hcell_quant(c->writable);
	return 0;
}

static int anomaly(void *ctx, enum msc_anomaly_kind kind, unsigned int as_id, uint64_t gfn,
		   unsigned int level, uint64_t old_spte, uint64_t new_spte, const char *fmt, ...)
{
	(void)ctx, (void)as_id, (void)gfn, (void)level, (void)old_spte, (void)new_spte, (void)fmt;
	got.anomalies++;
	got.last_anomaly = kind;
	return 0;
}

/* A run's intervals, as the tables would write them (the leaf rule of struct hrun). */
static int run_filled(void *ctx, const struct hrun *r, int64_t last_run, bool known,
		      int64_t *ret_id)
{
	uint64_t pages = msc_level_pages(r->level);

	(void)ctx, (void)last_run, (void)known;
	*ret_id = ++got.runs;
	for (unsigned int k = 0; k < r->n && got.nr_iv < ARRAY_SIZE(got.iv); k++) {
		uint64_t d = (uint64_t)(r->e[k].index - r->first);

		got.iv[got.nr_iv++] = (struct msc_interval){
			.gfn = r->base + r->e[k].index * pages, .level = r->level,
			.leaf = r->leaf, .writable = r->writable, .start_cause = r->start_cause,
			.end_cause = r->end_cause, .start_ts = r->e[k].start_ts,
			.end_ts = r->e[k].end_ts, .spte = r->spte + d * (pages << 12),
			.pfn = r->pfn + d * pages,
		};
	}
	return 0;
}

static const struct hmodel_up test_up = {
	.cell_changed = cell_changed, .anomaly = anomaly, .run_filled = run_filled,
};

static void model_init(struct hmodel *m)
{
	struct msc_host host;

	memset(m, 0, sizeof(*m));
	memset(&got, 0, sizeof(got));
	msc_host_init(&host);
	host.vendor = MSC_VENDOR_NPT;
	host.tdp_mmu = true;
	msc_spte_layout_init(&m->layout, &host);
	m->up = &test_up;
	m->up_ctx = m;
	m->vm_id = 1;
}

/* One traced change at @ts, applied as the front applies it (history.c). */
static int change(struct hmodel *m, uint64_t ts, uint64_t gfn, unsigned int level,
		  uint64_t old_spte, uint64_t new_spte, enum msc_map_cause cause)
{
	int r;

	m->ts = ts;
	hmodel_settle_begin(m);
	r = hmodel_change(m, 0, gfn, level, old_spte, new_spte, cause);
	return hmodel_settle(m) ?: r;
}

static const struct msc_interval *interval(uint64_t gfn, unsigned int level, uint64_t start)
{
	for (unsigned int i = 0; i < got.nr_iv; i++)
		if (got.iv[i].gfn == gfn && got.iv[i].level == level && got.iv[i].start_ts == start)
			return &got.iv[i];
	return NULL;
}

/* A 2M leaf mapped, split into 512 4K leaves, one of them write-protected. */
static void t_map_split_protect(void)
{
	struct hmodel m;
	const struct msc_spte_layout *l = &m.layout;
	uint64_t huge, table, child, ro;
	const struct msc_interval *iv;

	model_init(&m);
	huge = l->present | l->writable | l->huge | (0x80000ULL << 12);
	table = l->present | l->writable | (0x1234ULL << 12);
	check_int(change(&m, 100, 0x200, 2, l->nonpresent, huge, MSC_CAUSE_FAULT), ==, 0);
	check_int(m.pages[0][2], ==, 1);
	check_uint(got.cells, ==, 1);
	check_uint(got.last_cell, ==, 0x200);

	/* the split: the leaf becomes a table, and the model writes its children */
	m.ts = 200;
	hmodel_settle_begin(&m);
	check_int(hmodel_change(&m, 0, 0x200, 2, huge, table, MSC_CAUSE_SPLIT), ==, 0);
	check_int(hmodel_split_children(&m, 0, 0x200, 2, huge, MSC_CAUSE_EAGER_SPLIT), ==, 0);
	check_int(hmodel_settle(&m), ==, 0);
	check_int(m.pages[0][2], ==, 0);
	check_int(m.pages[0][1], ==, 512);

	/* 4K entry 5 of it: the child of the huge page's frame + 5, write-protected */
	child = l->present | l->writable | ((0x80000ULL + 5) << 12);
	ro = child & ~l->writable;
	check_int(change(&m, 300, 0x205, 1, child, ro, MSC_CAUSE_WRITE_PROTECT), ==, 0);
	check_int(m.pages[0][1], ==, 512);
	check_uint(got.anomalies, ==, 0);

	m.ts = 400;
	check_int(hmodel_close_all(&m), ==, 0);
	/* the huge leaf's interval, then its child's two */
	iv = interval(0x200, 2, 100);
	if (check(iv != NULL)) {
		check(iv->leaf);
		check_uint(iv->end_ts, ==, 200);
		check_int(iv->end_cause, ==, MSC_CAUSE_SPLIT);
	}
	iv = interval(0x205, 1, 200);
	if (check(iv != NULL)) {
		check_uint(iv->pfn, ==, 0x80005);
		check(iv->writable);
		check_uint(iv->end_ts, ==, 300);
		check_int(iv->start_cause, ==, MSC_CAUSE_EAGER_SPLIT);
	}
	iv = interval(0x205, 1, 300);
	if (check(iv != NULL)) {
		check(!iv->writable);
		check_uint(iv->end_ts, ==, MSC_TS_OPEN);
	}
	check(interval(0x3ff, 1, 200) != NULL);	/* the last child, still open */
	iv = interval(0x200, 2, 200);	/* the table in its place, still linked */
	if (check(iv != NULL)) {
		check(!iv->leaf);
		check_uint(iv->pfn, ==, 0x1234);
	}
	hmodel_free(&m);
}

/* A change whose old value is not what the model holds: resynchronized, said once. */
static void t_resync(void)
{
	struct hmodel m;
	const struct msc_spte_layout *l = &m.layout;
	uint64_t a, b;

	model_init(&m);
	a = l->present | l->writable | (0x500ULL << 12);
	b = l->present | l->writable | (0x600ULL << 12);
	check_int(change(&m, 10, 0x10, 1, l->nonpresent, a, MSC_CAUSE_FAULT), ==, 0);
	check_int(m.pages[0][1], ==, 1);
	/* the kernel says the entry was b (another frame): the model held a */
	check_int(change(&m, 20, 0x10, 1, b, l->nonpresent, MSC_CAUSE_ZAP), ==, 0);
	check_uint(got.anomalies, ==, 1);
	check_int(got.last_anomaly, ==, MSC_ANOMALY_RESYNC);
	check_int(m.pages[0][1], ==, 0);
	hmodel_free(&m);
}

/*
 * A dirty-log pass write-protects the 512 4K leaves of a 2M cell, entry
 * after entry: the model takes them as one range (hmodel_range_add()) and
 * hands the cell up only where its row's sixteenths change; the other
 * updates it counts as quiet.  The intervals are those of 512 changes.
 */
static void t_range_protect(void)
{
	struct hmodel m;
	const struct msc_spte_layout *l = &m.layout;
	uint64_t table, leaf;
	const struct msc_interval *iv;
	unsigned int cells;

	model_init(&m);
	table = l->present | l->writable | (0x1234ULL << 12);
	check_int(change(&m, 1, 0x200, 2, l->nonpresent, table, MSC_CAUSE_FAULT), ==, 0);
	for (unsigned int i = 0; i < 512; i++) {
		leaf = l->present | l->writable | ((0x80000ULL + i) << 12);
		check_int(change(&m, 10 + i, 0x200 + i, 1, l->nonpresent, leaf, MSC_CAUSE_FAULT),
			  ==, 0);
	}
	check_int(m.pages[0][1], ==, 512);
	cells = got.cells;
	for (unsigned int i = 0; i < 512; i++) {
		leaf = l->present | l->writable | ((0x80000ULL + i) << 12);
		m.ts = 1000 + i;
		check_int(hmodel_range_add(&m, 0, 0x200 + i, 1, leaf, leaf & ~l->writable,
					   MSC_CAUSE_WRITE_PROTECT), ==, 1);
	}
	check_int(hmodel_range_apply(&m), ==, 0);
	check_uint(m.count.ranged, ==, 512);
	/* writable 511 .. 0: sixteenths 16 .. 1, then 0 */
	check_uint(got.cells - cells, ==, 17);
	check_uint(m.cells_quiet, ==, 512 - 17);
	check_uint(m.ts, ==, 1511);	/* the time of the last change, as before */
	check_int(m.pages[0][1], ==, 512);
	check_uint(got.anomalies, ==, 0);
	check_int(hmodel_close_all(&m), ==, 0);
	iv = interval(0x2a0, 1, 10 + 0xa0);
	if (check(iv != NULL)) {
		check(iv->writable);
		check_uint(iv->end_ts, ==, 1000 + 0xa0);
		check_int(iv->end_cause, ==, MSC_CAUSE_WRITE_PROTECT);
	}
	iv = interval(0x2a0, 1, 1000 + 0xa0);
	if (check(iv != NULL)) {
		check(!iv->writable);
		check_int(iv->start_cause, ==, MSC_CAUSE_WRITE_PROTECT);
		check_uint(iv->end_ts, ==, MSC_TS_OPEN);
	}
	hmodel_free(&m);
}

int main(void)
{
	TEST(t_map_split_protect(), "bare model: a 2M leaf mapped, split and one child protected");
	TEST(t_resync(), "bare model: an old value the model does not hold is a resync");
	TEST(t_range_protect(), "bare model: a cell's 512 leaves protected as one range, "
	     "handed up where its row changes");
	return test_done();
}
