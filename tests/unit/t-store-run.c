// SPDX-License-Identifier: GPL-2.0-only
/*
 * Storms stored as runs (lib/store-run.c, schema 9): every event reads back
 * exactly, through the cursor and through the views, however the runs
 * interleave, and whatever values would overflow the views' arithmetic.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "lib/schema.h"
#include "lib/store-local.h"
#include "mmuscope/error.h"
#include "mmuscope/event.h"
#include "mmuscope/host.h"
#include "mmuscope/source.h"
#include "mmuscope/store.h"
#include "test.h"

static char dir[] = "/tmp/msc-t-store-run.XXXXXX";

static const char *path(const char *name)
{
	static char buf[256];

	snprintf(buf, sizeof(buf), "%s/%s", dir, name);
	return buf;
}

#define MAX_EVENTS 80000

static struct msc_event evs[MAX_EVENTS];
static size_t nr_evs;

static struct msc_event *add(int type, uint64_t ts, uint16_t cpu, int32_t pid)
{
	struct msc_event *ev = &evs[nr_evs++];

	memset(ev, 0, sizeof(*ev));
	ev->type = type;
	ev->ts = ts;
	ev->cpu = cpu;
	ev->pid = pid;
	return ev;
}

static struct msc_event *spte(uint64_t ts, uint16_t cpu, uint64_t gfn, uint64_t old,
			      uint64_t new, int class)
{
	struct msc_event *ev = add(MSC_EV_SPTE_CHANGED, ts, cpu, 100 + cpu);

	ev->spte.gfn = gfn;
	ev->spte.level = 1;
	ev->spte.old_spte = old;
	ev->spte.new_spte = new;
	ev->spte.class = (uint8_t)class;
	return ev;
}

/* Store evs[] as one capture (committing every @batch events; 0: once). */
static int store(const char *name, unsigned int batch)
{
	struct msc_capture_info info = { .kind = "text", .path = "unit", .nr_cpus = 4 };
	struct msc_store *s;
	struct msc_host h;
	int64_t id;
	int r;

	remove(path(name));
	r = msc_store_open(path(name), MSC_STORE_CREATE, &s);
	if (r)
		return r;
	msc_host_init(&h);
	h.vendor = MSC_VENDOR_NPT;
	h.kver = MSC_KVER(6, 12, 0);
	msc_store_set_batch(s, batch);
	r = msc_store_begin_capture(s, &info, &h, &id);
	for (size_t i = 0; !r && i < nr_evs; i++)
		r = msc_store_add_event(s, &evs[i]);
	if (!r)
		r = msc_store_end_capture(s, nr_evs);
	msc_store_close(s);
	return r;
}

/* A walk of the events: the cursor's, or the read-ahead one's (@ahead). */
struct walk {
	struct msc_event_cursor *c;
	struct msc_store_readahead *ra;
	struct msc_event buf;
};

static int walk_open(struct msc_store *s, bool ahead, int64_t first, int64_t last,
		     struct walk *w)
{
	*w = (struct walk){ 0 };
	return ahead ? msc_store_readahead_open(s, first, last, &w->ra) :
		       msc_store_events_open(s, first, last, &w->c);
}

static int walk_next(struct walk *w, const struct msc_event **ret)
{
	*ret = &w->buf;
	return w->ra ? msc_store_readahead_next(w->ra, ret) : msc_store_events_next(w->c, &w->buf);
}

static void walk_close(struct walk *w)
{
	msc_store_readahead_close(w->ra);
	msc_store_events_close(w->c);
}

/* evs[first..last] read back from @name in order, each equal, either way; false otherwise. */
static bool reads_back(const char *name, int64_t first, int64_t last)
{
	char want[MSC_EVENT_LINE_MAX], got[MSC_EVENT_LINE_MAX];
	const struct msc_event *ev;
	bool ok = true;

	for (int ahead = 0; ahead < 2 && ok; ahead++) {
		struct msc_store *s;
		struct walk w;
		int64_t i = first;
		int r;

		if (!check_int(msc_store_open(path(name), MSC_STORE_READONLY, &s), ==, 0))
			return false;
		if (!check_int(walk_open(s, ahead, first, last, &w), ==, 0)) {
			msc_store_close(s);
			return false;
		}
		while (ok && (r = walk_next(&w, &ev)) > 0) {
			ok = check_int(ev->seq, ==, i) && check_uint(ev->ts, ==, evs[i].ts) &&
			     check_int(ev->cpu, ==, evs[i].cpu) && check_int(ev->pid, ==, evs[i].pid);
			msc_event_format(&evs[i], want, sizeof(want));
			msc_event_format(ev, got, sizeof(got));
			ok = ok && check_str(got, want);
			i++;
		}
		walk_close(&w);
		msc_store_close(s);
		ok = ok && check_int(r, ==, 0) && check_int(i, ==, last + 1);
	}
	return ok;
}

static int64_t query(const char *name, const char *sql)
{
	sqlite3_stmt *st;
	sqlite3 *db;
	int64_t v = -1;

	if (sqlite3_open_v2(path(name), &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	else
		fprintf(stderr, "# %s: %s\n", sql, sqlite3_errmsg(db));
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

/* The view spte_change holds evs[]'s SPTE changes exactly: as many rows, none differing. */
static bool view_matches(const char *name)
{
	sqlite3_stmt *st;
	sqlite3 *db;
	size_t rows = 0, want = 0;
	bool ok = true;

	for (size_t i = 0; i < nr_evs; i++)
		want += evs[i].type == MSC_EV_SPTE_CHANGED;
	if (!check_int(sqlite3_open_v2(path(name), &db, SQLITE_OPEN_READONLY, NULL), ==,
		       SQLITE_OK))
		return false;
	check_int(sqlite3_prepare_v2(db, "SELECT seq, ts, cpu, pid, gfn, old_spte, new_spte "
				     "FROM spte_change ORDER BY seq", -1, &st, NULL), ==,
		  SQLITE_OK);
	while (ok && sqlite3_step(st) == SQLITE_ROW) {
		int64_t seq = sqlite3_column_int64(st, 0);
		const struct msc_event *ev = &evs[seq];

		ok = check(seq >= 0 && (size_t)seq < nr_evs) &&
		     check_int(ev->type, ==, MSC_EV_SPTE_CHANGED) &&
		     check_int(sqlite3_column_type(st, 1), ==, SQLITE_INTEGER) &&
		     check_uint(sqlite3_column_int64(st, 1), ==, ev->ts) &&
		     check_int(sqlite3_column_int64(st, 2), ==, ev->cpu) &&
		     check_int(sqlite3_column_int64(st, 3), ==, ev->pid) &&
		     check_uint(sqlite3_column_int64(st, 4), ==, ev->spte.gfn) &&
		     check_int(sqlite3_column_type(st, 5), ==, SQLITE_INTEGER) &&
		     check_uint(sqlite3_column_int64(st, 5), ==, ev->spte.old_spte) &&
		     check_uint(sqlite3_column_int64(st, 6), ==, ev->spte.new_spte);
		rows++;
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	return ok && check_int(rows, ==, want);
}

/* A write-protect sweep on one CPU: 3000 events, three rows of at most 1024. */
static void t_sweep(void)
{
	nr_evs = 0;
	for (uint64_t i = 0; i < 3000; i++)
		spte(1000000 + i * 61 + (i * 7919) % 13, 2, 0x40000 + i, 0x13800e67 + (i << 12),
		     0x13800e65 + (i << 12), MSC_CLASS_WRITE_PROTECT);
	check_int(store("sweep.db", 0), ==, 0);
	check_int(query("sweep.db", "SELECT count(*) FROM spte_change_run"), ==, 3);
	check_int(query("sweep.db", "SELECT sum(n) FROM spte_change_run"), ==, 3000);
	check_int(query("sweep.db", "SELECT count(*) FROM spte_change"), ==, 3000);
	reads_back("sweep.db", 0, 2999);
	view_matches("sweep.db");
}

/*
 * Two vCPUs faulting in turn, a marker between, a timestamp going back, a
 * sweep in descending GFNs: each stream is its own run, and the events
 * interleave back in seq order.
 */
static void t_interleaved(void)
{
	nr_evs = 0;
	for (uint64_t i = 0; i < 600; i++) {
		for (uint16_t v = 0; v < 2; v++) {
			struct msc_event *ev = add(MSC_EV_PAGE_FAULT, 5000 + i * 400 + v * 3, v,
						   200 + v);

			ev->pf.vcpu = v;
			ev->pf.gpa = 0x80000000ULL * (v + 1) + (i << 12);
			ev->pf.error_code = 6;
			ev->pf.rip = 0x401000;
			ev = add(MSC_EV_FAST_PF, 5001 + i * 400 + v * 3, v, 200 + v);
			ev->fast_pf.vcpu = v;
			ev->fast_pf.gpa = 0x80000000ULL * (v + 1) + (i << 12);
			ev->fast_pf.error_code = 6;
			ev->fast_pf.old_spte = 0x8000000013800e65ULL + (i << 12);
			ev->fast_pf.new_spte = 0x8000000013800e67ULL + (i << 12);
			ev->fast_pf.ret = 1;
			ev->fast_pf.result = MSC_FPF_FIXED;
		}
		if (i == 300)
			snprintf(add(MSC_EV_MARKER, 5000 + i * 400, 3, 9)->marker.text,
				 sizeof(evs[0].marker.text), "phase=x begin");
		spte(i == 400 ? 100 : 5002 + i * 400, 3, 0x90000 - i, 0x8000000000000000ULL,
		     0x2000e67 - (i << 12), MSC_CLASS_MAP);
	}
	check_int(store("mix.db", 0), ==, 0);
	/* per vCPU one npf run and one fast run, and one sweep */
	check_int(query("mix.db", "SELECT count(*) FROM fault_run"), ==, 4);
	check_int(query("mix.db", "SELECT count(*) FROM spte_change_run"), ==, 1);
	check_int(query("mix.db", "SELECT count(*) FROM fault WHERE kind = 'npf' AND vcpu = 1 "
			"AND gpa = 0x100000000 + (300 << 12) AND rip = 0x401000"), ==, 1);
	check_int(query("mix.db", "SELECT count(*) FROM fault WHERE kind = 'npf' AND "
			"old_spte IS NULL"), ==, 1200);
	reads_back("mix.db", 0, (int64_t)nr_evs - 1);
	view_matches("mix.db");
	/* a range that starts and ends inside runs */
	reads_back("mix.db", 777, 1555);
	reads_back("mix.db", 3, 3);
}

/*
 * Values whose steps would overflow the views' signed arithmetic, or cross
 * bit 63, are not joined; the rows still read back exact.
 */
static void t_overflow(void)
{
	nr_evs = 0;
	/* crosses from INT64_MAX's side to bit 63 set */
	for (uint64_t i = 0; i < 4; i++)
		spte(10 + i, 0, 0x1000 + i, 0x7ffffffffffff000ULL + (i << 12), 0, MSC_CLASS_UNMAP);
	/* a step that k * step overflows: 0, 2^62, 2^63 (wraps) */
	for (uint64_t i = 0; i < 3; i++)
		spte(20 + i, 1, 0x2000 + i, i << 62, 5, MSC_CLASS_OTHER);
	/* -2^62, 0, 2^62: each value fits, but 2 * 2^62 does not */
	for (uint64_t i = 0; i < 3; i++)
		spte(25 + i, 3, 0x4000 + i, (uint64_t)(-(1LL << 62)) + (i << 62), 5, MSC_CLASS_OTHER);
	/* timestamps from 2^62 on: each a run of its own */
	for (uint64_t i = 0; i < 3; i++)
		spte((1ULL << 62) - 1 + i, 4, 0x5000 + i, 0, 5, MSC_CLASS_OTHER);
	/* negative values (bit 63) stepping down: fine */
	for (uint64_t i = 0; i < 5; i++)
		spte(30 + i, 2, 0x3000 + i, 0x8000000000100000ULL - (i << 12), 7, MSC_CLASS_OTHER);
	check_int(store("ovf.db", 0), ==, 0);
	check_int(query("ovf.db", "SELECT count(*) FROM spte_change_run WHERE cpu = 0"), ==, 2);
	check_int(query("ovf.db", "SELECT count(*) FROM spte_change_run WHERE cpu = 1"), ==, 2);
	check_int(query("ovf.db", "SELECT count(*) FROM spte_change_run WHERE cpu = 2"), ==, 1);
	check_int(query("ovf.db", "SELECT count(*) FROM spte_change_run WHERE cpu = 3"), ==, 2);
	check_int(query("ovf.db", "SELECT count(*) FROM spte_change_run WHERE cpu = 4"), ==, 3);
	reads_back("ovf.db", 0, (int64_t)nr_evs - 1);
	view_matches("ovf.db");
}

/*
 * A run never spans more than 65536 seqs, nor a commit: the reader looks
 * back that far only.
 */
static void t_span_and_commit(void)
{
	nr_evs = 0;
	spte(1, 0, 0x100, 0, 0x1000, MSC_CLASS_MAP);
	for (int i = 0; i < 70000; i++)
		snprintf(add(MSC_EV_MARKER, 2 + (uint64_t)i, 1, 5)->marker.text,
			 sizeof(evs[0].marker.text), "m%d", i);
	spte(80000, 0, 0x101, 0, 0x2000, MSC_CLASS_MAP);
	spte(80001, 0, 0x102, 0, 0x3000, MSC_CLASS_MAP);
	check_int(store("span.db", 0), ==, 0);
	check_int(query("span.db", "SELECT count(*) FROM spte_change_run"), ==, 2);
	reads_back("span.db", 69000, (int64_t)nr_evs - 1);

	nr_evs = 0;
	for (uint64_t i = 0; i < 200; i++)
		spte(10 + i, 0, 0x100 + i, 0, 0x1000 + (i << 12), MSC_CLASS_MAP);
	check_int(store("commit.db", 100), ==, 0);
	check_int(query("commit.db", "SELECT count(*) FROM spte_change_run"), ==, 2);
	reads_back("commit.db", 0, 199);
}

/* A run row whose residuals are not n integers or pairs is refused, naming its table and row. */
static void t_bad_row(void)
{
	static const char *const bad[] = {
		"[0,1,2]", "[0,1,2,3,4,5,6,7,8,9,10]", "[0,1,2,3,4,5,6,7,8,99999999999999999999]",
		"[0,1,2,3,4,5,6,7,8,[1,2]", "[0,1,2,3,4,5,6,7,8,[1]]", "[0,1,2,3,4,5,6,7,8,x]",
		"[0,1,2,3,4,5,6,7,8,9] ", "0,1,2,3,4,5,6,7,8,9", "[0,1,2,3,4,5,6,7,8,-]",
	};

	nr_evs = 0;
	for (uint64_t i = 0; i < 10; i++)
		spte(10 + i, 0, 0x100 + i, 0, 0x1000 + (i << 12), MSC_CLASS_MAP);
	check_int(store("bad.db", 0), ==, 0);
	check(reads_back("bad.db", 0, 9));
	for (size_t b = 0; b < sizeof(bad) / sizeof(bad[0]) * 2; b++) {
		const char *at = bad[b / 2];
		const struct msc_event *ev;
		struct msc_store *s;
		struct walk w;
		char sql[128];
		sqlite3 *db;
		int r;

		check_int(sqlite3_open(path("bad.db"), &db), ==, SQLITE_OK);
		snprintf(sql, sizeof(sql), "UPDATE spte_change_run SET at = '%s'", at);
		check_int(sqlite3_exec(db, sql, NULL, NULL, NULL), ==, SQLITE_OK);
		sqlite3_close(db);
		/* the read-ahead cursor tells its reader's error in the caller's store */
		check_int(msc_store_open(path("bad.db"), MSC_STORE_READONLY, &s), ==, 0);
		r = walk_open(s, b % 2, 0, INT64_MAX, &w);
		while (!r && (r = walk_next(&w, &ev)) > 0)
			;
		if (!check_int(r, ==, MSC_ERR_SQL))
			fprintf(stderr, "# at = %s, read ahead %zu\n", at, b % 2);
		check_str(msc_store_errmsg(s), "spte_change_run: row 0: at is not 10 residuals");
		walk_close(&w);
		msc_store_close(s);
	}

	/*
	 * A bad row met after ten good events: the reader's error, after as many
	 * events as the cursor gives (it opens the next row with the tenth).
	 */
	for (uint64_t i = 0; i < 10; i++)
		spte(20 + i, 1, 0x200 + i, 0, 0x1000 + (i << 12), MSC_CLASS_UNMAP);
	check_int(store("bad2.db", 0), ==, 0);
	check(reads_back("bad2.db", 0, 19));
	for (int ahead = 0, first_n = -1; ahead < 2; ahead++) {
		const struct msc_event *ev;
		struct msc_store *s;
		struct walk w;
		sqlite3 *db;
		int r, n = 0;

		check_int(sqlite3_open(path("bad2.db"), &db), ==, SQLITE_OK);
		check_int(sqlite3_exec(db, "UPDATE spte_change_run SET at = '[1]' WHERE seq = 10",
				       NULL, NULL, NULL), ==, SQLITE_OK);
		sqlite3_close(db);
		check_int(msc_store_open(path("bad2.db"), MSC_STORE_READONLY, &s), ==, 0);
		r = walk_open(s, ahead, 0, INT64_MAX, &w);
		if (!r)
			while ((r = walk_next(&w, &ev)) > 0)
				n++;
		check_int(r, ==, MSC_ERR_SQL);
		check_int(n, >=, 9);
		if (first_n >= 0)
			check_int(n, ==, first_n);
		first_n = n;
		check_str(msc_store_errmsg(s), "spte_change_run: row 10: at is not 10 residuals");
		walk_close(&w);
		msc_store_close(s);
	}
}

/*
 * The read-ahead cursor closed with its reader waiting for room, and on a
 * store that cannot share its reads (not WAL): the caller is told to read
 * itself.  span.db holds more events than the ring.
 */
static void t_readahead_close(void)
{
	struct msc_store_readahead *ra = NULL;
	const struct msc_event *ev;
	struct msc_store *s;
	sqlite3 *db;

	check_int(msc_store_open(path("span.db"), MSC_STORE_READONLY, &s), ==, 0);
	check_int(msc_store_readahead_open(s, 0, INT64_MAX, &ra), ==, 0);
	for (int i = 0; i < 10 && ra; i++)
		if (check_int(msc_store_readahead_next(ra, &ev), ==, 1))
			check_int(ev->seq, ==, i);
	msc_store_readahead_close(ra);
	msc_store_close(s);

	check_int(sqlite3_open(path("span.db"), &db), ==, SQLITE_OK);
	check_int(sqlite3_exec(db, "PRAGMA journal_mode = DELETE", NULL, NULL, NULL), ==,
		  SQLITE_OK);
	sqlite3_close(db);
	check_int(msc_store_open(path("span.db"), MSC_STORE_READONLY, &s), ==, 0);
	ra = NULL;
	check_int(msc_store_readahead_open(s, 0, INT64_MAX, &ra), ==, -EAGAIN);
	check(!ra);
	msc_store_close(s);
}

/* The rows of @sql in @name, "|"-separated, rows ";"-terminated, into @buf. */
static const char *rows(const char *name, const char *sql, char *buf, size_t size)
{
	sqlite3_stmt *st;
	sqlite3 *db;
	size_t len = 0;

	buf[0] = '\0';
	if (sqlite3_open_v2(path(name), &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		return buf;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		snprintf(buf, size, "%s", sqlite3_errmsg(db));
	else
		while (sqlite3_step(st) == SQLITE_ROW)
			for (int c = 0; c < sqlite3_column_count(st); c++) {
				const char *t = (const char *)sqlite3_column_text(st, c);

				len += (size_t)snprintf(buf + len, size - len, "%s%s",
							t ? t : "-",
							c + 1 < sqlite3_column_count(st) ? "|" : ";");
			}
	sqlite3_finalize(st);
	sqlite3_close(db);
	return buf;
}

/*
 * A database of schema 8 (a row per event, absolute interval times) is
 * migrated: its events, through the views and the cursor, and its mapping
 * intervals read the same.
 */
static void t_migrate(void)
{
	static const char old_rows[] =
		"INSERT INTO capture (id, source, kind, started, first_seq, last_seq, complete) "
		"VALUES (1, 'x', 'text', 'now', 0, 2, 1);"
		"INSERT INTO spte_change VALUES (0, 100, 1, 7, 0, 262144, 2, 0, 322125543, 'map');"
		"INSERT INTO fault VALUES (1, 101, 1, 7, 'npf', 0, 1073745920, 6, 4096, NULL, NULL, "
		"NULL);"
		"INSERT INTO spte_change VALUES (2, 99, 0, 8, 0, 5, 1, -9223372036854775808, 4097, "
		"'map');"
		"INSERT INTO mapping_run (capture_id, as_id, gfn, level, leaf, first, spte, pfn, "
		"writable, dirty, start_cause, end_cause, flags, n, entries) VALUES "
		"(1, 0, 262144, 1, 1, 0, 322125543, 78643, 1, 1, 2, 6, 1, 3, "
		"'[[0,100,200],[1,100,210],[5,150,260]]'),"
		"(1, 0, 0, 2, 1, 2, 4096, 1, 0, NULL, 1, 0, 0, 1, '[[2,300,null]]');";
	char sql[1024], buf[1024];
	sqlite3 *db;
	char *err = NULL;

	remove(path("old.db"));
	check_int(sqlite3_open(path("old.db"), &db), ==, SQLITE_OK);
	for (unsigned int i = 0; i < msc_schema_nr_steps && msc_schema_steps[i].version <= 8;
	     i++)
		check_int(sqlite3_exec(db, msc_schema_steps[i].sql, NULL, NULL, &err), ==,
			  SQLITE_OK);
	snprintf(sql, sizeof(sql), "PRAGMA user_version = 8; PRAGMA application_id = %d; %s",
		 0x6d736331, old_rows);
	if (!check_int(sqlite3_exec(db, sql, NULL, NULL, &err), ==, SQLITE_OK))
		fprintf(stderr, "# %s\n", err);
	sqlite3_free(err);
	sqlite3_close(db);

	nr_evs = 0;
	spte(100, 1, 0x40000, 0, 0x13333ee7, MSC_CLASS_MAP)->pid = 7;
	evs[nr_evs] = (struct msc_event){ .type = MSC_EV_PAGE_FAULT, .ts = 101, .cpu = 1,
					  .pid = 7, .pf = { .gpa = 0x40001000, .error_code = 6,
							    .rip = 0x1000 } };
	nr_evs++;
	spte(99, 0, 5, 0x8000000000000000ULL, 4097, MSC_CLASS_MAP)->pid = 8;
	evs[2].spte.level = 1;
	evs[0].spte.level = 2;
	{
		struct msc_store *s;

		check_int(msc_store_open(path("old.db"), 0, &s), ==, 0);
		msc_store_close(s);
	}
	check_int(query("old.db", "PRAGMA user_version"), ==, msc_schema_steps[
		  msc_schema_nr_steps - 1].version);
	reads_back("old.db", 0, 2);
	view_matches("old.db");
	check_str(rows("old.db", "SELECT gfn, level, start_ts, end_ts, spte, pfn FROM mapping "
		       "ORDER BY start_ts, gfn", buf, sizeof(buf)),
		  "262144|1|100|200|322125543|78643;262145|1|100|210|322129639|78644;"
		  "262149|1|150|260|322146023|78648;1024|2|300|-|4096|1;");
}

/*
 * A database of schema 12: its open runs' elements [i, s, 0] become
 * [i, 0, s] (the start in the end's place), closed runs stay as they are,
 * ids are the old rowids, and the view gives the same intervals.
 */
static void t_migrate_open(void)
{
	static const char old_rows[] =
		"INSERT INTO mapping_run (capture_id, as_id, gfn, level, leaf, first, spte, pfn, "
		"writable, dirty, start_cause, end_cause, flags, n, entries, idx0, t0, start_step, "
		"e0, end_step) VALUES "
		"(1, 0, 262144, 1, 1, 0, 322125543, 78643, 1, 1, 2, 6, 1, 3, "
		"'[0,[5,1],[1,-2,3]]', 0, 100, 0, 200, 10),"
		"(1, 0, 262144, 1, 1, 0, 322125541, 78643, 0, 1, 6, 0, 0, 4, "
		"'[0,[7,0],[1,4,0],[1,-1,0]]', 0, 200, 10, NULL, 0),"
		"(1, 0, 0, 2, 1, 2, 4096, 1, 0, NULL, 1, 0, 0, 1, '[0]', 2, 300, 0, NULL, 0);"
		"INSERT INTO region_state VALUES (1, 0, 512, 100, 1, 1, 1), (1, 0, 0, 90, 2, 512, 0),"
		"(1, 0, 512, 130, 1, 32, 32), (2, 1, 512, -5, 3, 512, 512);";
	static const char cells[] =
		"SELECT capture_id, as_id, gfn, ts, kind, mapped, writable FROM region_state";
	static const char intervals[] =
		"SELECT gfn, level, start_ts, end_ts, spte, pfn FROM mapping ORDER BY start_ts, gfn";
	char sql[2048], before[1024], after[1024], buf[256];
	sqlite3 *db;
	char *err = NULL;

	remove(path("old12.db"));
	check_int(sqlite3_open(path("old12.db"), &db), ==, SQLITE_OK);
	for (unsigned int i = 0; i < msc_schema_nr_steps && msc_schema_steps[i].version <= 12;
	     i++)
		check_int(sqlite3_exec(db, msc_schema_steps[i].sql, NULL, NULL, &err), ==,
			  SQLITE_OK);
	/* as an analysis finished at step 12 leaves it */
	snprintf(sql, sizeof(sql), "PRAGMA user_version = 12; PRAGMA application_id = %d; %s"
		 "CREATE INDEX region_state_gfn ON region_state(capture_id, as_id, gfn, ts);",
		 0x6d736331, old_rows);
	if (!check_int(sqlite3_exec(db, sql, NULL, NULL, &err), ==, SQLITE_OK))
		fprintf(stderr, "# %s\n", err);
	sqlite3_free(err);
	sqlite3_close(db);
	rows("old12.db", intervals, before, sizeof(before));
	check_str(before, "262147|1|98|223|322137831|78646;262144|1|100|200|322125543|78643;"
		  "262145|1|105|211|322129639|78644;262144|1|200|-|322125541|78643;"
		  "262145|1|217|-|322129637|78644;262147|1|224|-|322137829|78646;"
		  "262148|1|229|-|322141925|78647;1024|2|300|-|4096|1;");
	{
		struct msc_store *s;

		check_int(msc_store_open(path("old12.db"), 0, &s), ==, 0);
		msc_store_close(s);
	}
	check_int(query("old12.db", "PRAGMA user_version"), ==, msc_schema_steps[
		  msc_schema_nr_steps - 1].version);
	check_str(rows("old12.db", intervals, after, sizeof(after)), before);
	check_str(rows("old12.db", "SELECT id, entries, prev FROM mapping_run ORDER BY id", buf,
		       sizeof(buf)),
		  "1|[0,[5,1],[1,-2,3]]|-;2|[0,7,[1,0,4],[1,0,-1]]|-;3|[0]|-;");
	check_int(query("old12.db", "SELECT count(*) FROM sqlite_schema "
			"WHERE name = 'mapping_run_gfn'"), ==, 1);
	/*
	 * step 14: the region_state lookups' index leads with the GFN; step 15:
	 * each row a run of one, read back in the order written
	 */
	check_str(rows("old12.db", "SELECT tbl_name FROM sqlite_schema WHERE name = "
		       "'region_state_gfn'", buf, sizeof(buf)), "region_state_run;");
	check_str(rows("old12.db", "SELECT name FROM pragma_index_info('region_state_gfn') "
		       "ORDER BY seqno", buf, sizeof(buf)), "gfn;capture_id;as_id;ts;");
	check_str(rows("old12.db", cells, buf, sizeof(buf)),
		  "1|0|512|100|1|1|1;1|0|0|90|2|512|0;1|0|512|130|1|32|32;2|1|512|-5|3|512|512;");
	check_str(rows("old12.db", "SELECT n, at FROM region_state_run", buf, sizeof(buf)),
		  "1|[[0,1,1]];1|[[0,512,0]];1|[[0,32,32]];1|[[0,512,512]];");
}

/* The numbers of the runs' text as printf writes them, at every digit count's edges. */
static void check_dec(int64_t v)
{
	char got[32], want[32];

	*msc_put_dec(got, v) = 0;
	snprintf(want, sizeof(want), "%lld", (long long)v);
	check_str(got, want);
}

static void t_put_dec(void)
{
	check_dec(0);
	check_dec(INT64_MAX);
	check_dec(INT64_MIN);
	check_dec(INT64_MIN + 1);
	for (int64_t p = 1; p <= INT64_MAX / 10; p *= 10) {
		for (int64_t d = -1; d <= 1; d++) {
			check_dec(p * 10 + d);
			check_dec(-(p * 10 + d));
		}
	}
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	TEST(t_put_dec(), "the runs' numbers are written as printf writes them");
	TEST(t_sweep(), "a sweep is stored as runs of at most 1024 and reads back exactly");
	TEST(t_interleaved(), "interleaved streams are runs of their own and merge back in order");
	TEST(t_overflow(), "steps the views' arithmetic would overflow are not joined");
	TEST(t_span_and_commit(), "runs span at most 65536 seqs and no commit");
	TEST(t_bad_row(), "a run row with the wrong residuals is refused by name");
	TEST(t_readahead_close(), "the read-ahead cursor stops early, and only reads beside WAL writers");
	TEST(t_migrate(), "a schema 8 database's events and intervals read the same migrated");
	TEST(t_migrate_open(), "a schema 12 database's open runs keep their starts migrated, its index led by gfn");
	return test_done();
}
