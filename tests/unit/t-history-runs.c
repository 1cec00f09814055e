// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mapping runs on a real capture (k612-npt_tdp_32m): an analysis resumed
 * again and again (as the TUI's follow mode does at each checkpoint: the
 * open runs are written, then reloaded into the model and deleted) gives
 * exactly the intervals of one analysis of all the events, GFN by GFN, and
 * the same activity counts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmuscope/history.h"
#include "mmuscope/ingest.h"
#include "mmuscope/source.h"
#include "mmuscope/store.h"
#include "test.h"

#define STEPS 7		/* analysis runs over the capture's events */

static char dir[] = "/tmp/msc-t-history-runs.XXXXXX";
static char db_once[256], db_steps[256];

/* Store the capture's events, analyzed by nobody. */
static int import(const char *db)
{
	char trace[512];
	struct msc_source *src;
	struct msc_store *s;
	struct msc_ingest *ing;
	int r;

	snprintf(trace, sizeof(trace), "%s/traces/k612-npt_tdp_32m/trace.dat", test_data_dir());
	r = msc_source_open_tracedat(trace, &src, NULL, 0);
	if (r)
		return r;
	r = msc_store_open(db, MSC_STORE_CREATE, &s);
	if (r) {
		msc_source_close(src);
		return r;
	}
	r = msc_ingest_new(src, s, NULL, &ing);
	if (r) {
		msc_store_close(s);
		msc_source_close(src);
		return r;
	}
	while ((r = msc_ingest_step(ing, 4096)) > 0)
		;
	if (!r)
		r = msc_ingest_finish(ing);
	if (!r)
		r = msc_store_finish(s);
	msc_ingest_free(ing);
	msc_store_close(s);
	msc_source_close(src);
	return r;
}

/*
 * Analyze in STEPS runs, each up to a later event; *@ret_cuts gets the
 * last event time of each run but the last.
 */
static int analyze_in_steps(const char *db, uint64_t ret_cuts[STEPS - 1])
{
	struct msc_capture_row *caps;
	struct msc_store *s;
	size_t nr;
	int r = msc_store_open(db, 0, &s);

	if (r)
		return r;
	r = msc_store_get_captures(s, &caps, &nr);
	for (int k = 0; !r && k < STEPS; k++) {
		int64_t n = caps[0].last_seq - caps[0].first_seq + 1;
		int64_t last = caps[0].first_seq + n * (k + 1) / STEPS - 1;
		struct msc_event_cursor *cur = NULL;
		struct msc_history *h;
		struct msc_history_summary sum;
		struct msc_event ev;

		r = msc_history_open(s, caps[0].id, NULL, NULL, &h);
		if (r)
			break;
		r = msc_store_events_open(s, msc_history_resume_seq(h), last, &cur);
		while (!r && (r = msc_store_events_next(cur, &ev)) == 1)
			r = msc_history_feed(h, &ev);
		msc_store_events_close(cur);
		if (!r)
			r = msc_history_finish(h);
		if (!r)
			r = msc_store_commit(s);
		msc_history_get_summary(h, &sum);
		if (k < STEPS - 1)
			ret_cuts[k] = sum.last_ts;
		msc_history_close(h);
	}
	if (!r)
		free(caps);
	msc_store_close(s);
	return r;
}

static bool same_interval(const struct msc_interval *a, const struct msc_interval *b)
{
	return a->gfn == b->gfn && a->as_id == b->as_id && a->level == b->level &&
	       a->leaf == b->leaf && a->writable == b->writable && a->dirty == b->dirty &&
	       a->start_cause == b->start_cause && a->end_cause == b->end_cause &&
	       a->flags == b->flags && a->start_ts == b->start_ts && a->end_ts == b->end_ts &&
	       a->spte == b->spte && a->pfn == b->pfn;
}

/* Each task's part of the activity adds up across the cuts too, and the tasks' parts to the whole. */
static void same_tasks(struct msc_hview *v1, struct msc_hview *v2,
		       const struct msc_history_summary *sum)
{
	struct msc_task *t1 = NULL, *t2 = NULL;
	size_t n1 = 0, n2 = 0;
	uint64_t spte = 0, faults = 0, vcpus = 0;
	struct msc_counters all;

	check_int(msc_hview_tasks(v1, &t1, &n1), ==, 0);
	check_int(msc_hview_tasks(v2, &t2, &n2), ==, 0);
	check_int(msc_hview_counters(v1, sum->first_ts, sum->last_ts + 1, &all), ==, 0);
	if (check_uint(n2, ==, n1))
		for (size_t i = 0; i < n1; i++) {
			struct msc_counters c1, c2;

			check_int(t2[i].pid, ==, t1[i].pid);
			check_int(t2[i].vcpu, ==, t1[i].vcpu);
			check_int(msc_hview_task_counters(v1, t1[i].pid, sum->first_ts,
							  sum->last_ts + 1, &c1), ==, 0);
			check_int(msc_hview_task_counters(v2, t1[i].pid, sum->first_ts,
							  sum->last_ts + 1, &c2), ==, 0);
			check_uint(c2.spte_changes, ==, c1.spte_changes);
			check_uint(c2.faults_slow, ==, c1.faults_slow);
			check_uint(c2.faults_fast, ==, c1.faults_fast);
			check_uint(c1.spte_changes, ==, t1[i].spte_changes);
			spte += c1.spte_changes;
			faults += c1.faults_slow + c1.faults_fast;
			vcpus += t1[i].vcpu >= 0;
		}
	check_uint(spte, ==, all.spte_changes);
	check_uint(faults, ==, all.faults_slow + all.faults_fast);
	check_uint(vcpus, ==, 1);	/* the selftest's one vCPU */
	free(t1);
	free(t2);
}

static void t_resume(void)
{
	uint64_t cuts[STEPS - 1];
	struct msc_store *s1 = NULL, *s2 = NULL;
	struct msc_hview *v1 = NULL, *v2 = NULL;
	struct msc_counters c1, c2;
	struct msc_history_summary sum1, sum2;
	struct msc_region *regions = NULL;
	size_t nr_regions = 0;
	uint64_t gfns = 0, intervals = 0, across = 0;

	if (!check_int(import(db_once), ==, 0) || !check_int(import(db_steps), ==, 0))
		return;
	check_int(msc_store_open(db_once, 0, &s1), ==, 0);
	check_int(msc_history_analyze(s1, 0, NULL, &sum1), ==, 0);
	check_int(analyze_in_steps(db_steps, cuts), ==, 0);
	check_int(msc_store_open(db_steps, MSC_STORE_READONLY, &s2), ==, 0);
	if (!check_int(msc_hview_open(s1, 0, &v1), ==, 0) ||
	    !check_int(msc_hview_open(s2, 0, &v2), ==, 0))
		goto out;
	check_int(msc_hview_summary(v2, &sum2), ==, 0);
	check_uint(sum2.intervals, ==, sum1.intervals);
	/* the activity counted in the buckets each cut fell into adds up */
	check_int(msc_hview_counters(v1, sum1.first_ts, sum1.last_ts + 1, &c1), ==, 0);
	check_int(msc_hview_counters(v2, sum1.first_ts, sum1.last_ts + 1, &c2), ==, 0);
	check_uint(c2.spte_changes, ==, c1.spte_changes);
	check_uint(c1.spte_changes, ==, 32858);
	check_uint(c2.write_protects, ==, c1.write_protects);
	check_uint(c2.faults_fast, ==, c1.faults_fast);
	check_uint(c2.faults_slow, ==, c1.faults_slow);
	check_uint(c2.maps, ==, c1.maps);
	same_tasks(v1, v2, &sum1);
	check_int(msc_hview_regions(v1, &regions, &nr_regions), ==, 0);
	check_uint(nr_regions, >, 0);
	for (size_t g = 0; g < nr_regions; g++) {
		for (uint64_t gfn = regions[g].gfn_first; gfn < regions[g].gfn_end; gfn++) {
			struct msc_interval *a = NULL, *b = NULL;
			size_t na = 0, nb = 0;
			bool same;

			check_int(msc_hview_gfn_history(v1, regions[g].as_id, gfn, &a, &na), ==, 0);
			check_int(msc_hview_gfn_history(v2, regions[g].as_id, gfn, &b, &nb), ==, 0);
			same = na == nb;
			for (size_t i = 0; same && i < na; i++) {
				same = same_interval(&a[i], &b[i]);
				/* open at a cut: written open, reloaded, closed later */
				for (int k = 0; k < STEPS - 1; k++)
					across += a[i].start_ts <= cuts[k] && a[i].end_ts > cuts[k];
			}
			gfns++;
			intervals += na;
			free(a);
			free(b);
			if (!check(same))	/* the first GFN whose history differs */
				goto out;
		}
	}
	check_uint(gfns, ==, 8192 + 512);	/* 32 MiB of guest memory and the low 2 MiB */
	check_uint(intervals, >, 8192 * 8);
	check_uint(across, >, 8192);	/* intervals did span the cuts */
out:
	free(regions);
	msc_hview_close(v1);
	msc_hview_close(v2);
	msc_store_close(s1);
	msc_store_close(s2);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	snprintf(db_once, sizeof(db_once), "%s/once.db", dir);
	snprintf(db_steps, sizeof(db_steps), "%s/steps.db", dir);
	TEST(t_resume(), "an analysis resumed over open runs at 6 cuts equals one analysis");
	unlink(db_once);
	unlink(db_steps);
	rmdir(dir);
	return test_done();
}
