// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the report's views (cmd-report.c, report-*.c, cmd-diff.c) print alike.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "mmuscope/history.h"
#include "mmuscope/util.h"

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
	d->pages_fixed += c->pages_fixed;
	d->pages_collected += c->pages_collected;
}

/**
 * report_dirty_text - what a harvest collected (struct msc_phase.dirtied):
 *	"8,192 pages dirtied (32.0 MiB) over 301.263 ms: 27,192 pages/s"
 *
 * Without a window (the first collection after an enable that protected
 * nothing: every page is reported, written or not) "4,096 pages collected
 * (16.0 MiB), no window before it".  Returns @buf.
 */
const char *report_dirty_text(int64_t pages, uint64_t window_ns, char *buf, size_t size)
{
	char n[32], rate[32];

	cli_count((uint64_t)pages, n, sizeof(n));
	if (!window_ns) {
		snprintf(buf, size, "%s pages collected (%.1f MiB), no window before it", n,
			 (double)pages / 256);
		return buf;
	}
	snprintf(buf, size, "%s pages dirtied (%.1f MiB) over %.3f ms: %s pages/s", n,
		 (double)pages / 256, (double)window_ns / 1e6,
		 cli_count((uint64_t)((double)pages * 1e9 / (double)window_ns), rate, sizeof(rate)));
	return buf;
}

/*
 * What one recorded event costs a step, per kernel: BENCHMARKS.md, "The
 * observer effect" (tests/nested/observer.sh), the median over the steps
 * that change many SPTEs (two CLEARs and the disable) of (full - light) /
 * (their events' difference), in the nested rig under QEMU TCG, where the
 * recorder competes with the guest for its CPUs.  On hardware an event
 * costs less: the estimate is an upper bound.  A kernel not measured takes
 * the nearest that was (6.13 on recover huge pages in place, as 7.3 does).
 */
static const struct {
	unsigned int major, minor;
	unsigned int event_ns;
	const char *name;
} event_cost[] = {
	{ 6, 12, 4400, "6.12" },	/* 4.4, 3.0, 5.6 us */
	{ 7, 3, 5300, "7.3" },		/* 5.3, 2.6, 6.7 us */
};

/**
 * report_tracing_cost - the events recorded while a step ran (seqs
 *	@first_seq .. @last_seq) and the time they are estimated to have added
 *	to it, at most its own @took_ns
 * @release: the capture's kernel release ("6.12.118+deb12-amd64")
 */
void report_tracing_cost(const char *release, int64_t first_seq, int64_t last_seq,
			 uint64_t took_ns, struct report_cost *ret)
{
	unsigned int major = 0, minor = 0;
	size_t k = 0;

	if (sscanf(release, "%u.%u", &major, &minor) == 2 && (major > 6 || (major == 6 && minor > 12)))
		k = 1;
	*ret = (struct report_cost){ .event_ns = event_cost[k].event_ns,
				     .kernel = event_cost[k].name };
	if (first_seq < 0 || last_seq < first_seq)
		return;
	ret->events = (uint64_t)(last_seq - first_seq + 1);
	ret->ns = min(ret->events * ret->event_ns, took_ns);
}

/** report_cost_text - "16,739 events recorded while it ran, up to 73.652 ms at 4.4 us each (6.12's ...)" */
const char *report_cost_text(const struct report_cost *c, char *buf, size_t size)
{
	char n[32];

	snprintf(buf, size, "%s events recorded while it ran, up to %.3f ms at %.1f us each "
		 "(%s's in the nested rig: BENCHMARKS.md)", cli_count(c->events, n, sizeof(n)),
		 (double)c->ns / 1e6, c->event_ns / 1e3, c->kernel);
	return buf;
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
