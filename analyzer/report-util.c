// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the report's views (cmd-report.c, report-*.c, cmd-diff.c) print alike.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "mmuscope/history.h"

#include "report.h"

/** report_huge_pct - the share of mapped memory mapped huge, in percent; -1: nothing mapped */
double report_huge_pct(const struct msc_census *c)
{
	uint64_t all = msc_census_mapped(c);

	return all ? 100.0 * (double)(all - (uint64_t)c->pages[1]) / (double)all : -1;
}

/**
 * report_counts_add - @c's counts into @d: sums, the union of the GFN ranges,
 *	and "not known" (-1) where either does not know
 */
void report_counts_add(struct msc_phase_counts *d, const struct msc_phase_counts *c)
{
	d->gfn_first = d->gfn_first <= d->gfn_last && d->gfn_first < c->gfn_first ? d->gfn_first
									      : c->gfn_first;
	d->gfn_last = d->gfn_last > c->gfn_last ? d->gfn_last : c->gfn_last;
	d->spte_changes += c->spte_changes;
	for (int i = 0; i < MSC_CLASS_NR; i++)
		d->by_class[i] += c->by_class[i];
	d->splits += c->splits;
	d->split_failures += c->split_failures;
	d->pages_split += c->pages_split;
	for (int l = 2; l <= 3; l++)
		d->pages_split_level[l] = d->pages_split_level[l] < 0 || c->pages_split_level[l] < 0 ?
					  -1 : d->pages_split_level[l] + c->pages_split_level[l];
	d->pages_promoted += c->pages_promoted;
	d->children_synthesized += c->children_synthesized;
	d->faults_slow += c->faults_slow;
	d->faults_fast += c->faults_fast;
	d->faults_spurious += c->faults_spurious;
	d->flushes = d->flushes < 0 || c->flushes < 0 ? -1 : d->flushes + c->flushes;
	d->zaps += c->zaps;
	d->refaults += c->refaults;
}

static int by_start(const void *a, const void *b)
{
	const struct msc_phase *x = a, *y = b;

	if (x->start_ts != y->start_ts)
		return x->start_ts < y->start_ts ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/** report_sort_phases - phases in time order (ids are in the order they were found) */
void report_sort_phases(struct msc_phase *ph, size_t nr)
{
	qsort(ph, nr, sizeof(*ph), by_start);
}

/** report_json_str - @s as a JSON string */
void report_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}
