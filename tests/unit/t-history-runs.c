// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mapping runs on a real capture (k612-npt_tdp_32m): an analysis resumed
 * again and again (as the TUI's follow mode does at each checkpoint: the
 * open runs are written, then reloaded into the model and deleted) gives
 * exactly the intervals of one analysis of all the events, GFN by GFN, and
 * the same activity counts.  An analysis stopped at each cut holds open
 * runs that read their start times from a closed run (prev, schema 13):
 * the analyzer's reader and the view mapping_entry give the same intervals
 * for every GFN, and rows a writer never makes are refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "mmuscope/error.h"
#include "mmuscope/history.h"
#include "mmuscope/host.h"
#include "mmuscope/ingest.h"
#include "mmuscope/source.h"
#include "mmuscope/store.h"
#include "test.h"

#define STEPS 7		/* analysis runs over the capture's events */

static char dir[] = "/tmp/msc-t-history-runs.XXXXXX";
static char db_once[256], db_steps[256], db_cut[256], db_refault[256];

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

/* Analyze the capture's events up to the @k-th of STEPS cuts (STEPS: all). */
static int analyze_to(struct msc_store *s, const struct msc_capture_row *cap, int k,
		      struct msc_history_summary *ret)
{
	int64_t n = cap->last_seq - cap->first_seq + 1;
	int64_t last = cap->first_seq + n * k / STEPS - 1;
	struct msc_event_cursor *cur = NULL;
	struct msc_history *h;
	struct msc_event ev;
	int r = msc_history_open(s, cap->id, NULL, NULL, &h);

	if (r)
		return r;
	r = msc_store_events_open(s, msc_history_resume_seq(h), last, &cur);
	while (!r && (r = msc_store_events_next(cur, &ev)) == 1)
		r = msc_history_feed(h, &ev);
	msc_store_events_close(cur);
	if (!r)
		r = msc_history_finish(h);
	if (!r)
		r = msc_store_commit(s);
	msc_history_get_summary(h, ret);
	msc_history_close(h);
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
		struct msc_history_summary sum;

		r = analyze_to(s, &caps[0], k + 1, &sum);
		if (k < STEPS - 1)
			ret_cuts[k] = sum.last_ts;
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

/* Run @sql on @db; the first column of its first row (0: no row), or -1. */
static int64_t sql_int(const char *db, const char *sql)
{
	sqlite3 *sdb;
	sqlite3_stmt *st = NULL;
	int64_t v = -1;

	if (sqlite3_open(db, &sdb) != SQLITE_OK)
		return -1;
	if (sqlite3_prepare_v2(sdb, sql, -1, &st, NULL) == SQLITE_OK) {
		int r = sqlite3_step(st);

		v = r == SQLITE_ROW ? sqlite3_column_int64(st, 0) : r == SQLITE_DONE ? 0 : -1;
	}
	if (v < 0)
		fprintf(stderr, "# %s: %s\n", sql, sqlite3_errmsg(sdb));
	sqlite3_finalize(st);
	sqlite3_close(sdb);
	return v;
}

/*
 * Regions and phase_region of @db, each row folded into one number: each
 * resumed analysis builds them from every region_state row of the capture,
 * the ones earlier runs wrote included.
 */
static int64_t regions_sum(const char *db)
{
	return sql_int(db, "SELECT (SELECT total(((id * 1000003 + as_id) * 7919 + gfn_first) * "
		       "31 + gfn_end) FROM region) + (SELECT total(((phase_id * 1000003 + "
		       "region_id) * 7919 + pages_4k) * 31 + pages_2m * 17 + pages_1g) FROM "
		       "phase_region) + 1e9 * (SELECT count(*) FROM region) + "
		       "1e6 * (SELECT count(*) FROM phase_region)");
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
	check_int(regions_sum(db_steps), ==, regions_sum(db_once));
	check_int(regions_sum(db_once), >, 1000000000);
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

			check_int(msc_hview_gfn_history(v1, 0, regions[g].as_id, gfn, &a, &na), ==, 0);
			check_int(msc_hview_gfn_history(v2, 0, regions[g].as_id, gfn, &b, &nb), ==, 0);
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

/* Intervals in one total order, to compare two lists as sets. */
static int cmp_all(const void *pa, const void *pb)
{
	const struct msc_interval *a = pa, *b = pb;
	const uint64_t x[] = { a->level, a->gfn, a->start_ts, a->end_ts, a->spte, a->pfn,
			       a->start_cause, a->end_cause, a->flags, a->leaf, a->writable,
			       (uint64_t)(int64_t)a->dirty };
	const uint64_t y[] = { b->level, b->gfn, b->start_ts, b->end_ts, b->spte, b->pfn,
			       b->start_cause, b->end_cause, b->flags, b->leaf, b->writable,
			       (uint64_t)(int64_t)b->dirty };

	for (size_t i = 0; i < sizeof(x) / sizeof(x[0]); i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

/* The intervals covering @gfn as the view mapping_entry expands them (README's fast query). */
static int view_gfn(sqlite3_stmt *st, int64_t capture_id, uint64_t gfn,
		    struct msc_interval **ret, size_t *ret_nr)
{
	struct msc_interval *v = NULL, *p;
	size_t nr = 0;
	int r;

	sqlite3_bind_int64(st, 1, capture_id);
	sqlite3_bind_int64(st, 2, (int64_t)gfn);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		p = realloc(v, (nr + 1) * sizeof(*v));
		if (!p)
			break;
		v = p;
		v[nr] = (struct msc_interval){
			.gfn = (uint64_t)sqlite3_column_int64(st, 0),
			.level = (uint8_t)sqlite3_column_int(st, 1),
			.leaf = sqlite3_column_int(st, 2),
			.start_ts = (uint64_t)sqlite3_column_int64(st, 3),
			.end_ts = sqlite3_column_type(st, 4) == SQLITE_NULL ? MSC_TS_OPEN :
				  (uint64_t)sqlite3_column_int64(st, 4),
			.spte = (uint64_t)sqlite3_column_int64(st, 5),
			.pfn = (uint64_t)sqlite3_column_int64(st, 6),
			.writable = sqlite3_column_int(st, 7),
			.dirty = (int8_t)(sqlite3_column_type(st, 8) == SQLITE_NULL ? -1 :
					  sqlite3_column_int(st, 8)),
			.start_cause = (uint8_t)sqlite3_column_int(st, 9),
			.end_cause = (uint8_t)sqlite3_column_int(st, 10),
			.flags = (uint8_t)sqlite3_column_int(st, 11),
		};
		nr++;
	}
	sqlite3_reset(st);
	*ret = v;
	*ret_nr = nr;
	return r == SQLITE_DONE ? 0 : -1;
}

static const char view_gfn_sql[] =
	"SELECT r.gfn + r.idx * (1 << (9 * (r.level - 1))), r.level, r.leaf, r.start_ts, "
	"r.end_ts, r.spte + (r.idx - r.first) * (4096 << (9 * (r.level - 1))), "
	"r.pfn + (r.idx - r.first) * (1 << (9 * (r.level - 1))), r.writable, r.dirty, "
	"r.start_cause, r.end_cause, r.flags FROM mapping_entry r "
	"WHERE r.capture_id = ?1 AND r.as_id = 0 AND r.level <= 3 "
	"AND r.gfn IN (?2 & ~511, ?2 & ~262143, ?2 & ~134217727) "
	"AND r.gfn = ?2 & ~((1 << (9 * r.level)) - 1) "
	"AND (r.n > 1 OR r.first = (?2 >> (9 * (r.level - 1))) & 511) "
	"AND r.idx = (?2 >> (9 * (r.level - 1))) & 511";

/*
 * Every GFN_STRIDE-th GFN of @db reads the same through
 * msc_hview_gfn_history() and the view; returns the GFNs read.
 */
#define GFN_STRIDE 5

static uint64_t reader_is_view(const char *db, int64_t capture_id)
{
	struct msc_store *s = NULL;
	struct msc_hview *v = NULL;
	struct msc_region *regions = NULL;
	size_t nr_regions = 0;
	sqlite3 *sdb = NULL;
	sqlite3_stmt *st = NULL;
	uint64_t gfns = 0;

	if (!check_int(msc_store_open(db, MSC_STORE_READONLY, &s), ==, 0) ||
	    !check_int(msc_hview_open(s, capture_id, &v), ==, 0) ||
	    !check_int(msc_hview_regions(v, &regions, &nr_regions), ==, 0) ||
	    !check_int(sqlite3_open_v2(db, &sdb, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK) ||
	    !check_int(sqlite3_prepare_v2(sdb, view_gfn_sql, -1, &st, NULL), ==, SQLITE_OK))
		goto out;
	for (size_t g = 0; g < nr_regions; g++) {
		for (uint64_t gfn = regions[g].gfn_first; gfn < regions[g].gfn_end;
		     gfn += GFN_STRIDE) {
			struct msc_interval *a = NULL, *b = NULL;
			size_t na = 0, nb = 0;
			bool same;

			same = !msc_hview_gfn_history(v, 0, 0, gfn, &a, &na) &&
			       !view_gfn(st, capture_id, gfn, &b, &nb) && na == nb;
			if (same) {
				qsort(a, na, sizeof(*a), cmp_all);
				qsort(b, nb, sizeof(*b), cmp_all);
				for (size_t i = 0; same && i < na; i++)
					same = !cmp_all(&a[i], &b[i]);
			}
			free(a);
			free(b);
			if (!check(same)) {
				fprintf(stderr, "# %s: gfn %#llx\n", db, (unsigned long long)gfn);
				goto out;
			}
			gfns++;
		}
	}
out:
	sqlite3_finalize(st);
	sqlite3_close(sdb);
	free(regions);
	msc_hview_close(v);
	msc_store_close(s);
	return gfns;
}

/* The error of reading @gfn's history after @sql changed the runs. */
static int history_after(const char *db, const char *sql, uint64_t gfn)
{
	struct msc_store *s = NULL;
	struct msc_hview *v = NULL;
	struct msc_interval *iv = NULL;
	size_t nr = 0;
	int r;

	if (sql_int(db, sql) < 0)
		return -1;
	r = msc_store_open(db, MSC_STORE_READONLY, &s);
	if (!r)
		r = msc_hview_open(s, 0, &v);
	if (!r)
		r = msc_hview_gfn_history(v, 0, 0, gfn, &iv, &nr);
	free(iv);
	msc_hview_close(v);
	msc_store_close(s);
	return r;
}

/*
 * An analysis stopped at each cut: its open runs, those without entries of
 * their own (prev) among them, read the same through the analyzer's reader
 * and through the view; then rows no writer makes are refused.
 */
static void t_open_prev(void)
{
	struct msc_capture_row *caps = NULL;
	int64_t prevs = 0, opens = 0, id, gfn;
	char sql[256];
	size_t nr;

	for (int k = 1; k < STEPS; k++) {
		struct msc_history_summary sum;
		struct msc_store *s;

		unlink(db_cut);
		if (!check_int(import(db_cut), ==, 0) ||
		    !check_int(msc_store_open(db_cut, 0, &s), ==, 0))
			return;
		check_int(msc_store_get_captures(s, &caps, &nr), ==, 0);
		check_int(analyze_to(s, &caps[0], k, &sum), ==, 0);
		msc_store_close(s);
		prevs += sql_int(db_cut, "SELECT count(*) FROM mapping_run WHERE prev IS NOT NULL "
				 "AND entries IS NULL AND e0 IS NULL");
		opens += sql_int(db_cut, "SELECT count(*) FROM mapping_run WHERE e0 IS NULL");
		check_int(sql_int(db_cut, "SELECT count(*) FROM mapping_run r JOIN mapping_run p "
				  "ON p.id = r.prev WHERE p.e0 IS NULL OR r.e0 IS NOT NULL OR "
				  "p.n != r.n OR p.gfn != r.gfn OR p.level != r.level"), ==, 0);
		check_uint(reader_is_view(db_cut, caps[0].id), >=, (8192 + 512) / GFN_STRIDE);
		free(caps);
		caps = NULL;
	}
	check_int(prevs, >, 0);		/* write-protect sweeps were cut */
	check_int(opens, >, prevs);	/* and other open runs have entries */

	/* the last cut's database: runs no writer makes */
	id = sql_int(db_cut, "SELECT max(id) FROM mapping_run WHERE prev IS NOT NULL AND level = 1");
	gfn = sql_int(db_cut, "SELECT gfn + idx0 FROM mapping_run WHERE prev IS NOT NULL "
		      "AND level = 1 ORDER BY id DESC");
	if (!check_int(id, >, 0))
		return;
	/* its prev is gone */
	snprintf(sql, sizeof(sql), "UPDATE mapping_run SET prev = -1 WHERE id = %lld",
		 (long long)id);
	check_int(history_after(db_cut, sql, (uint64_t)gfn), ==, MSC_ERR_SQL);
	/* an open run's own element with a start in the middle */
	snprintf(sql, sizeof(sql), "UPDATE mapping_run SET prev = NULL, n = 2, "
		 "entries = '[0,[1,2,3]]' WHERE id = %lld", (long long)id);
	check_int(history_after(db_cut, sql, (uint64_t)gfn), ==, MSC_ERR_SQL);
	snprintf(sql, sizeof(sql), "UPDATE mapping_run SET entries = '[0,[1,0,3]]' "
		 "WHERE id = %lld", (long long)id);
	check_int(history_after(db_cut, sql, (uint64_t)gfn), ==, 0);
	/* a closed run with a prev */
	snprintf(sql, sizeof(sql), "UPDATE mapping_run SET prev = id - 1, e0 = 5 "
		 "WHERE id = %lld", (long long)id);
	check_int(history_after(db_cut, sql, (uint64_t)gfn), ==, MSC_ERR_SQL);
}

/* An SPTE change of one event at @ts, stored in @s's capture */
static int put_spte(struct msc_store *s, uint64_t ts, uint64_t gfn, unsigned int level,
		    uint64_t old, uint64_t new, int class)
{
	struct msc_event ev = {
		.type = MSC_EV_SPTE_CHANGED, .ts = ts, .pid = 100,
		.spte = { .gfn = gfn, .old_spte = old, .new_spte = new, .level = (uint8_t)level,
			  .class = (uint8_t)class },
	};

	return msc_store_add_event(s, &ev);
}

/* The times of table @t's events: mapping entry @k, zapping it, mapping it again */
#define T_MAP(t, k) (1000000000 + 100000 * (t) + 1000 + (k))
#define T_ZAP(t, k) (1000000000 + 100000 * (t) + 10000 + 2 * (k) + (k) % 3)	/* uneven */
#define T_REMAP(t, k) (1000000000 + 100000 * (t) + 20000 + 3 * (k))

/*
 * Two 4K tables' entries mapped, zapped and mapped again.  Table 0 zaps all
 * 512, so its zap's run is written when it fills; table 1 zaps and maps
 * again 511, so that run is written at the end, after the maps.  Either
 * way the open intervals at the end are one run of the zap run's entries
 * (the node's last written), but they began at their own faults, not where
 * the zap ended them: the analyzer must not take that run's ends as their
 * starts (starts were set since that run began).
 */
static void t_refault(void)
{
	struct msc_capture_info info = { .kind = "text", .path = "unit", .nr_cpus = 1 };
	/* as 6.12 writes them: non-present, a table, a writable dirty 4K leaf */
	const uint64_t np = 0x8000000000000000ULL, table = 0x827, leaf = 0xe67;
	const uint64_t base[2] = { 0x200, 0x400 }, nr[2] = { 512, 511 };
	struct msc_history_summary sum;
	struct msc_hview *v = NULL;
	struct msc_store *s;
	struct msc_host host;
	uint64_t wrong = 0, events = 0;
	int64_t id;
	int r;

	unlink(db_refault);
	if (!check_int(msc_store_open(db_refault, MSC_STORE_CREATE, &s), ==, 0))
		return;
	msc_host_init(&host);
	host.vendor = MSC_VENDOR_NPT;
	host.kver = MSC_KVER(6, 12, 0);
	host.tdp_mmu = true;
	r = msc_store_begin_capture(s, &info, &host, &id);
	for (uint64_t t = 0; t < 2 && !r; t++) {
		uint64_t pfn = 0x5000 + 0x1000 * t;

		/* the 2M entry becomes a table */
		r = put_spte(s, T_MAP(t, 0) - 1, base[t], 2, np, table | ((0x4000 + t) << 12),
			     MSC_CLASS_LINK);
		for (uint64_t k = 0; k < 512 && !r; k++)
			r = put_spte(s, T_MAP(t, k), base[t] + k, 1, np, leaf | ((pfn + k) << 12),
				     MSC_CLASS_MAP);
		for (uint64_t k = 0; k < nr[t] && !r; k++)
			r = put_spte(s, T_ZAP(t, k), base[t] + k, 1, leaf | ((pfn + k) << 12), np,
				     MSC_CLASS_UNMAP);
		for (uint64_t k = 0; k < nr[t] && !r; k++)
			r = put_spte(s, T_REMAP(t, k), base[t] + k, 1, np,
				     leaf | ((pfn + 0x800 + k) << 12), MSC_CLASS_MAP);
		events += 1 + 512 + 2 * nr[t];
	}
	if (!r)
		r = msc_store_end_capture(s, (int64_t)events);
	check_int(r, ==, 0);
	check_int(msc_history_analyze(s, 0, NULL, &sum), ==, 0);
	check_int(sql_int(db_refault, "SELECT count(*) FROM mapping_run WHERE level = 1 AND "
			  "e0 IS NULL AND n >= 511"), ==, 2);
	if (!check_int(msc_hview_open(s, 0, &v), ==, 0))
		goto out;
	for (uint64_t t = 0; t < 2; t++) {
		for (uint64_t k = 0; k < nr[t]; k++) {
			const struct msc_interval *a = NULL, *b = NULL;	/* its two 4K intervals */
			struct msc_interval *iv = NULL;
			size_t n = 0, n4k = 0;

			check_int(msc_hview_gfn_history(v, 0, 0, base[t] + k, &iv, &n), ==, 0);
			for (size_t j = 0; j < n; j++) {
				if (iv[j].level != 1)
					continue;
				a = n4k++ ? a : &iv[j];
				b = &iv[j];
			}
			wrong += n4k != 2 || a->end_ts != T_ZAP(t, k) ||
				 b->start_ts != T_REMAP(t, k) || b->end_ts != MSC_TS_OPEN;
			free(iv);
		}
	}
	check_uint(wrong, ==, 0);
out:
	msc_hview_close(v);
	msc_store_close(s);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	snprintf(db_once, sizeof(db_once), "%s/once.db", dir);
	snprintf(db_steps, sizeof(db_steps), "%s/steps.db", dir);
	snprintf(db_cut, sizeof(db_cut), "%s/cut.db", dir);
	snprintf(db_refault, sizeof(db_refault), "%s/refault.db", dir);
	TEST(t_resume(), "an analysis resumed over open runs at 6 cuts equals one analysis");
	TEST(t_open_prev(), "open runs read their starts from a closed run: reader and view agree");
	TEST(t_refault(), "entries mapped again after their zap's run was written keep their own starts");
	unlink(db_once);
	unlink(db_steps);
	unlink(db_cut);
	unlink(db_refault);
	rmdir(dir);
	return test_done();
}
