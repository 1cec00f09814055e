// SPDX-License-Identifier: GPL-2.0-only
/*
 * The census (leaf SPTEs per size), KVM's own counters from the workload's
 * "KVM stats after <phase>" markers, and the 2M-cell states of the memory
 * map.
 *
 * Invariant: h->m.pages[as][level], the model's count of its leaves
 * (hmodel_leaves_add()), is on the TDP MMU what kvm_update_page_stats()
 * counts (+1 per leaf installed, -1 per leaf gone, +512 per split).
 * Census rows are coalesced: one per address space per census bucket, and
 * always one right before a marker, so every "KVM stats" point is exact.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "local.h"
#include "mmuscope/util.h"

#define DEFAULT_CENSUS_BUCKET_NS 100000ULL	/* 100 us: a few thousand rows per second of trace */

static unsigned int census_flags(const struct msc_history *h)
{
	return h->census.flags | (h->tdp_mmu ? 0 : MSC_CENSUS_APPROX) |
	       (h->m.after_lost ? MSC_CENSUS_AFTER_LOST : 0);
}

static uint64_t census_bucket_ns(const struct msc_history *h)
{
	return h->opts.census_bucket_ns ?: DEFAULT_CENSUS_BUCKET_NS;
}

/** hcensus_due - would hcensus_flush(@now) write (or look for) rows? */
static bool hcensus_due(const struct msc_history *h, uint64_t now)
{
	uint64_t bucket = census_bucket_ns(h);

	return !h->m.loading && (now == MSC_TS_OPEN || now - h->census.row_ts >= bucket);
}

/** hcensus_due_at - the first time hcensus_due() is true for, as things are now */
uint64_t hcensus_due_at(const struct msc_history *h)
{
	uint64_t bucket = census_bucket_ns(h);

	if (h->m.loading || h->census.row_ts > MSC_TS_OPEN - bucket)
		return MSC_TS_OPEN;
	return h->census.row_ts + bucket;
}

/**
 * hcensus_flush - write a census row for each address space that changed
 * @now: time of the next event; the row (for the changes up to the last
 *	one) is written when its bucket is over.  MSC_TS_OPEN: write now.
 */
int hcensus_flush(struct msc_history *h, uint64_t now)
{
	int r = 0;

	if (!hcensus_due(h, now))
		return 0;
	for (unsigned int a = 0; a < HMAX_AS && !r; a++) {
		if (!h->m.leaves_moved[a])
			continue;
		r = hstore_add_census(h->hs, h->capture_id, h->m.vm_id, a, h->m.ts, h->cur_seq,
				      h->m.pages[a], census_flags(h));
		h->m.leaves_moved[a] = false;
		h->census.row_ts = h->m.ts;
	}
	h->sum.census_flags = census_flags(h);
	return r;
}

/** hcensus_total - the census now, all address spaces together */
void hcensus_total(const struct msc_history *h, struct msc_census *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->ts = h->m.ts;
	for (unsigned int a = 0; a < HMAX_AS; a++)
		for (unsigned int l = 1; l <= MSC_HISTORY_MAX_LEVEL; l++)
			ret->pages[l] += h->m.pages[a][l];
	ret->flags = census_flags(h);
}

/**
 * hcensus_parse_stats - read a "KVM stats after <phase>: name=value ..." text
 * @text: a marker's text (any prefix before "KVM stats after" is ignored)
 * @phase: the phase name, trimmed
 * @pages: pages_4k/2m/1g into [1]..[3]; -1 where absent
 *
 * Returns false when @text is not such a line.
 */
bool hcensus_parse_stats(const char *text, char *phase, size_t phase_size,
			 int64_t pages[MSC_HISTORY_MAX_LEVEL + 1])
{
	static const char *const names[] = { NULL, "pages_4k", "pages_2m", "pages_1g" };
	const char *p = strstr(text, "KVM stats after "), *colon, *end;
	size_t len;

	if (!p)
		return false;
	p += strlen("KVM stats after ");
	colon = strchr(p, ':');
	if (!colon)
		return false;
	end = colon;
	while (end > p && isspace((unsigned char)end[-1]))
		end--;
	len = min((size_t)(end - p), phase_size - 1);
	memcpy(phase, p, len);
	phase[len] = '\0';
	for (unsigned int l = 0; l <= MSC_HISTORY_MAX_LEVEL; l++)
		pages[l] = -1;
	for (p = colon + 1; *p;) {
		char name[64];
		size_t n;

		while (isspace((unsigned char)*p))
			p++;
		n = strcspn(p, "= \t");
		if (!n || p[n] != '=') {
			p += n ? n : 1;
			continue;
		}
		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		p += n + 1;
		for (unsigned int l = 1; l <= MSC_HISTORY_MAX_LEVEL; l++)
			if (!strcmp(name, names[l]))
				pages[l] = strtoll(p, NULL, 10);
		p += strcspn(p, " \t");
	}
	return pages[1] >= 0 || pages[2] >= 0 || pages[3] >= 0;
}

/** hcensus_marker - a marker: settle the census, keep KVM's counters next to it */
int hcensus_marker(struct msc_history *h, const struct msc_event *ev)
{
	struct msc_kvm_stats k = { .ts = ev->ts, .seq = (int64_t)ev->seq };
	struct msc_census c;
	const char *colon;
	int r = hcensus_flush(h, MSC_TS_OPEN);

	if (r || !hcensus_parse_stats(ev->marker.text, k.phase, sizeof(k.phase), k.kvm))
		return r;
	hcensus_total(h, &c);
	memcpy(k.census, c.pages, sizeof(k.census));
	k.census_flags = c.flags;
	k.vm = h->m.vm_id;
	colon = strchr(strstr(ev->marker.text, "KVM stats after "), ':');
	colon++;
	while (isspace((unsigned char)*colon))
		colon++;
	return hstore_add_kvm_stats(h->hs, h->capture_id, &k, colon);
}

static int put_cell(struct msc_history *h, struct hcell *c, const struct msc_region_cell *rc,
		    uint64_t ts);

/**
 * hcensus_cell_update - recompute one 2M cell after a change under it
 * @n2: the level-2 node, @i: the cell's index in it
 *
 * Writes a region_state row when the cell's kind changes or its mapped or
 * writable share crosses a sixteenth, and tells the phase detector when the
 * cell stops or starts being mapped huge.
 */
int hcensus_cell_update(struct msc_history *h, unsigned int as_id, struct hnode *n2,
			unsigned int i)
{
	const struct msc_spte_layout *l = &h->m.layout;
	uint64_t e2 = hnode_spte(n2, i), e3 = l->nonpresent;
	struct msc_region_cell rc = {
		.gfn = n2->base + i * 512ULL, .as_id = (uint8_t)as_id, .vm = h->m.vm_id,
	};
	struct hcell *c;

	c = hmodel_own_cell(&h->m, n2, i);
	if (!c)
		return -ENOMEM;
	if (n2->parent)
		e3 = hnode_spte(n2->parent, (n2->base >> 18) & (HNODE_ENTRIES - 1));
	if (msc_spte_leaf(l, 3, e3)) {
		rc.kind = MSC_REGION_1G;
		rc.mapped = 512;
		rc.writable = (e3 & l->writable) ? 512 : 0;
	} else if (msc_spte_leaf(l, 2, e2)) {
		rc.kind = MSC_REGION_2M;
		rc.mapped = 512;
		rc.writable = (e2 & l->writable) ? 512 : 0;
	} else if (msc_spte_present(l, e2) || c->mapped) {
		rc.kind = MSC_REGION_4K;
		rc.mapped = c->mapped;
		rc.writable = c->writable;
	}
	c->kind = rc.kind;
	h->census.cell_updates++;
	h->up->cell_huge(h, c, rc.kind == MSC_REGION_2M || rc.kind == MSC_REGION_1G);
	if (!(c->flags & HCELL_WRITTEN) && rc.kind == MSC_REGION_UNMAPPED)
		return 0;	/* never mapped: not part of guest memory seen */
	if ((c->flags & HCELL_WRITTEN) && c->q_kind == rc.kind &&
	    c->q_mapped == hcell_quant(rc.mapped) && c->q_writable == hcell_quant(rc.writable)) {
		bool stale = c->w_mapped != rc.mapped || c->w_writable != rc.writable;

		if (stale != !!(c->flags & HCELL_STALE)) {
			c->flags ^= HCELL_STALE;
			h->census.cells_stale += stale ? 1 : -1;
		}
		return 0;
	}
	return put_cell(h, c, &rc, h->m.ts);
}

/* The cell's state as a region_state row at @ts. */
static int put_cell(struct msc_history *h, struct hcell *c, const struct msc_region_cell *rc,
		    uint64_t ts)
{
	if (c->flags & HCELL_STALE) {
		c->flags &= ~HCELL_STALE;
		h->census.cells_stale--;
	}
	c->flags |= HCELL_WRITTEN;
	c->q_kind = rc->kind;
	c->q_mapped = hcell_quant(rc->mapped);
	c->q_writable = hcell_quant(rc->writable);
	c->w_mapped = rc->mapped;
	c->w_writable = rc->writable;
	if (h->m.loading)
		return 0;
	return hstore_add_region_state(h->hs, h->capture_id, rc, ts);
}

/* The part whose cells are made exact, and when. */
struct exact_at {
	struct msc_history *h;
	uint64_t ts;
};

static int exact_cell(void *ctx, struct hnode *n2, unsigned int i, struct hcell *c)
{
	const struct exact_at *at = ctx;
	struct msc_region_cell rc = {
		.gfn = n2->base + i * 512ULL, .as_id = n2->as_id, .kind = c->kind,
		.mapped = c->mapped, .writable = c->writable, .vm = at->h->m.vm_id,
	};

	if (!(c->flags & HCELL_STALE))
		return 0;
	return put_cell(at->h, c, &rc, at->ts);
}

/**
 * hcensus_cells_exact - write, at @ts, the cells whose last row is off by
 *	less than the sixteenth rows are written at: the state at a phase's
 *	end is then exact.  No cell may have changed since @ts.
 *
 * Only cells mapped 4K can be stale: a huge cell's row says 512.
 */
int hcensus_cells_exact(struct msc_history *h, uint64_t ts)
{
	return h->census.cells_stale ?
	       hmodel_for_each_cell(&h->m, exact_cell, &(struct exact_at){ h, ts }) : 0;
}
