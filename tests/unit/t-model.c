// SPDX-License-Identifier: GPL-2.0-only
/*
 * The page-table model alone (lib/history/model.c), without SQLite or any
 * floor above it: events are applied to a bare struct msc_history whose
 * hooks (struct hup) are this test's, and what the model hands up is
 * checked: its leaf counts, the 2M cells it says changed, the runs of
 * intervals it fills and the anomalies it cannot apply.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "history/local.h"
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

static int cell_changed(struct msc_history *h, unsigned int as_id, struct hnode *n2,
			unsigned int i)
{
	struct hcell *c = hmodel_own_cell(h, n2, i);

	(void)as_id;
	if (!c)
		return -1;
	got.cells++;
	got.last_cell = n2->base + i * 512ULL;
	return 0;
}

static int anomaly(struct msc_history *h, enum msc_anomaly_kind kind, unsigned int as_id,
		   uint64_t gfn, unsigned int level, uint64_t old_spte, uint64_t new_spte,
		   const char *fmt, ...)
{
	(void)h, (void)as_id, (void)gfn, (void)level, (void)old_spte, (void)new_spte, (void)fmt;
	got.anomalies++;
	got.last_anomaly = kind;
	return 0;
}

static void cell_huge(struct msc_history *h, struct hcell *c, bool huge)
{
	(void)h, (void)c, (void)huge;
}

/* A run's intervals, as the tables would write them (the leaf rule of struct hrun). */
static int run_filled(struct msc_history *h, const struct hrun *r, int64_t last_run, bool known,
		      int64_t *ret_id)
{
	uint64_t pages = msc_level_pages(r->level);

	(void)h, (void)last_run, (void)known;
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

static const struct hup test_up = {
	.cell_changed = cell_changed, .anomaly = anomaly, .cell_huge = cell_huge,
	.run_filled = run_filled,
};

static void model_init(struct msc_history *h)
{
	struct msc_host host;

	memset(h, 0, sizeof(*h));
	memset(&got, 0, sizeof(got));
	msc_host_init(&host);
	host.vendor = MSC_VENDOR_NPT;
	host.tdp_mmu = true;
	msc_spte_layout_init(&h->layout, &host);
	h->up = &test_up;
	h->tdp_mmu = true;
	h->vm_id = 1;
}

/* One traced change at @ts, applied as the front applies it (history.c). */
static int change(struct msc_history *h, uint64_t ts, uint64_t gfn, unsigned int level,
		  uint64_t old_spte, uint64_t new_spte, enum msc_map_cause cause)
{
	int r;

	h->last_ts = ts;
	hmodel_settle_begin(h);
	r = hmodel_change(h, 0, gfn, level, old_spte, new_spte, cause);
	return hmodel_settle(h) ?: r;
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
	struct msc_history h;
	const struct msc_spte_layout *l = &h.layout;
	uint64_t huge, table, child, ro;
	const struct msc_interval *iv;

	model_init(&h);
	huge = l->present | l->writable | l->huge | (0x80000ULL << 12);
	table = l->present | l->writable | (0x1234ULL << 12);
	check_int(change(&h, 100, 0x200, 2, l->nonpresent, huge, MSC_CAUSE_FAULT), ==, 0);
	check_int(h.m.pages[0][2], ==, 1);
	check_uint(got.cells, ==, 1);
	check_uint(got.last_cell, ==, 0x200);

	/* the split: the leaf becomes a table, and the model writes its children */
	h.last_ts = 200;
	hmodel_settle_begin(&h);
	check_int(hmodel_change(&h, 0, 0x200, 2, huge, table, MSC_CAUSE_SPLIT), ==, 0);
	check_int(hmodel_split_children(&h, 0, 0x200, 2, huge, MSC_CAUSE_EAGER_SPLIT), ==, 0);
	check_int(hmodel_settle(&h), ==, 0);
	check_int(h.m.pages[0][2], ==, 0);
	check_int(h.m.pages[0][1], ==, 512);

	/* 4K entry 5 of it: the child of the huge page's frame + 5, write-protected */
	child = l->present | l->writable | ((0x80000ULL + 5) << 12);
	ro = child & ~l->writable;
	check_int(change(&h, 300, 0x205, 1, child, ro, MSC_CAUSE_WRITE_PROTECT), ==, 0);
	check_int(h.m.pages[0][1], ==, 512);
	check_uint(got.anomalies, ==, 0);

	h.last_ts = 400;
	check_int(hmodel_close_all(&h), ==, 0);
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
	hmodel_free(&h);
}

/* A change whose old value is not what the model holds: resynchronized, said once. */
static void t_resync(void)
{
	struct msc_history h;
	const struct msc_spte_layout *l = &h.layout;
	uint64_t a, b;

	model_init(&h);
	a = l->present | l->writable | (0x500ULL << 12);
	b = l->present | l->writable | (0x600ULL << 12);
	check_int(change(&h, 10, 0x10, 1, l->nonpresent, a, MSC_CAUSE_FAULT), ==, 0);
	check_int(h.m.pages[0][1], ==, 1);
	/* the kernel says the entry was b (another frame): the model held a */
	check_int(change(&h, 20, 0x10, 1, b, l->nonpresent, MSC_CAUSE_ZAP), ==, 0);
	check_uint(got.anomalies, ==, 1);
	check_int(got.last_anomaly, ==, MSC_ANOMALY_RESYNC);
	check_int(h.m.pages[0][1], ==, 0);
	hmodel_free(&h);
}

int main(void)
{
	TEST(t_map_split_protect(), "bare model: a 2M leaf mapped, split and one child protected");
	TEST(t_resync(), "bare model: an old value the model does not hold is a resync");
	return test_done();
}
