// SPDX-License-Identifier: GPL-2.0-only
/*
 * region_state stored as runs (schema/015-region-state-runs.sql): rows
 * given to the analyzer's writer come back from the view region_state, and
 * from msc_cell_states(), as the rows a table of one row each would hold:
 * a row at the time of the held row before it, of the same cell, replaces
 * it.  Runs join a cell's rows written one after another while the batch
 * holds them, and only those: never across another cell's row, a kind, a
 * commit, MSC_CELL_RUN_MAX rows or a time at or above 2^62.  Regions read
 * a cell's rows in time order whatever the order written.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "history/local.h"
#include "mmuscope/error.h"
#include "mmuscope/history.h"
#include "mmuscope/store.h"
#include "mmuscope/util.h"
#include "store-local.h"
#include "test.h"

#define MAX_ROWS 1024

static char dir[] = "/tmp/msc-t-region-runs.XXXXXX";
static char db_path[256];

/* The rows as a table of one row each holds them: the reference. */
struct table {
	struct msc_cell_state v[MAX_ROWS];
	bool held[MAX_ROWS];	/* replaceable: not committed since */
	size_t nr;
};

static struct table want;

static void put(struct hstore *hs, uint64_t gfn, uint8_t kind, uint16_t mapped,
		uint16_t writable, uint64_t ts)
{
	struct msc_region_cell c = {
		.gfn = gfn, .as_id = 0, .kind = kind, .mapped = mapped, .writable = writable,
	};
	struct msc_cell_state *last = want.nr ? &want.v[want.nr - 1] : NULL;

	check_int(hstore_add_region_state(hs, 1, &c, ts), ==, 0);
	if (!last || !want.held[want.nr - 1] || last->gfn != gfn || last->ts != ts) {
		last = &want.v[want.nr];
		want.held[want.nr++] = true;
	}
	*last = (struct msc_cell_state){
		.ts = ts, .gfn = gfn, .kind = kind, .mapped = mapped, .writable = writable,
	};
}

static void commit(struct hstore *hs)
{
	check_int(hstore_commit(hs), ==, 0);
	for (size_t i = 0; i < want.nr; i++)
		want.held[i] = false;
}

static void write_rows(void)
{
	struct msc_store *s;
	struct hstore *hs;

	check_int(msc_store_open(db_path, MSC_STORE_CREATE, &s), ==, 0);
	check_int(hstore_open(s, &hs), ==, 0);
	check_int(hstore_begin(hs), ==, 0);
	/* a write-protect sweep: cell 512 then 1024, each one run */
	for (unsigned int k = 0; k <= 16; k++)
		put(hs, 512, 1, 512, (uint16_t)(512 - 32 * k), 1000 + 10 * k);
	for (unsigned int k = 0; k <= 16; k++)
		put(hs, 1024, 1, 512, (uint16_t)(512 - 32 * k), 1200 + 7 * k);
	/* two cells faulted in turn: a run each row */
	for (unsigned int k = 1; k <= 3; k++) {
		put(hs, 0, 1, (uint16_t)(32 * k), (uint16_t)(32 * k), 2000 + k);
		put(hs, 1536, 1, (uint16_t)(32 * k), (uint16_t)(32 * k), 2000 + k);
	}
	/* the same time: the last row replaced, in a run and alone */
	put(hs, 2048, 1, 32, 32, 3000);
	put(hs, 2048, 1, 64, 64, 3010);
	put(hs, 2048, 1, 96, 96, 3010);
	put(hs, 2048, 2, 512, 512, 3010);	/* another kind: leaves the run */
	put(hs, 2048, 1, 512, 512, 3010);	/* replaces a run of one, kind and all */
	put(hs, 2048, 1, 480, 480, 3020);
	/* a commit ends the run: the next row at its time is a row of its own */
	commit(hs);
	put(hs, 2048, 1, 448, 448, 3020);
	put(hs, 2048, 1, 416, 416, 3030);
	/* a kind change, then more rows than a run holds */
	put(hs, 2048, 2, 512, 0, 3040);
	for (unsigned int k = 0; k < MSC_CELL_RUN_MAX + 5; k++)
		put(hs, 2560, 1, (uint16_t)(k % 512 + 1), 0, 4000 + k);
	/* times at and beyond 2^62 run alone; time going back joins */
	put(hs, 3072, 1, 1, 1, 5000);
	put(hs, 3072, 1, 2, 2, 4990);
	put(hs, 3072, 1, 3, 3, MSC_CELL_TS_LIMIT - 1);
	put(hs, 3072, 1, 4, 4, MSC_CELL_TS_LIMIT);
	put(hs, 3072, 1, 5, 5, UINT64_MAX);
	put(hs, 3072, 1, 6, 6, 5010);
	put(hs, 3072, 1, 7, 7, 5020);
	check_int(hstore_finish(hs, true), ==, 0);
	commit(hs);
	hstore_close(hs);
	msc_store_close(s);
}

static int64_t query(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int64_t v = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static bool same_row(const struct msc_cell_state *a, const struct msc_cell_state *b)
{
	return a->ts == b->ts && a->gfn == b->gfn && a->as_id == b->as_id && a->kind == b->kind &&
	       a->mapped == b->mapped && a->writable == b->writable;
}

/* The view holds the reference's rows, in its order. */
static void t_view(void)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	size_t i = 0, bad = 0;

	check_int(sqlite3_open(db_path, &db), ==, SQLITE_OK);
	check_int(sqlite3_prepare_v2(db, "SELECT ts, gfn, as_id, kind, mapped, writable FROM "
				     "region_state WHERE capture_id = 1", -1, &st, NULL), ==,
		  SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct msc_cell_state r = {
			.ts = (uint64_t)sqlite3_column_int64(st, 0),
			.gfn = (uint64_t)sqlite3_column_int64(st, 1),
			.as_id = (uint8_t)sqlite3_column_int(st, 2),
			.kind = (uint8_t)sqlite3_column_int(st, 3),
			.mapped = (uint16_t)sqlite3_column_int(st, 4),
			.writable = (uint16_t)sqlite3_column_int(st, 5),
		};

		bad += i >= want.nr || !same_row(&r, &want.v[i]);
		i++;
	}
	sqlite3_finalize(st);
	check_uint(i, ==, want.nr);
	check_uint(bad, ==, 0);
	/* the runs: 2 sweeps, 6 faults, 2048 in 4 runs, 2560 in 2, 3072 in 4 */
	check_int(query(db, "SELECT count(*) FROM region_state_run"), ==, 2 + 6 + 4 + 2 + 4);
	check_int(query(db, "SELECT sum(n) FROM region_state_run"), ==, (int64_t)want.nr);
	check_int(query(db, "SELECT max(n) FROM region_state_run"), ==, MSC_CELL_RUN_MAX);
	/* 3010's rows of kind 1, 2, 1 in turn: the last, in a run of its own, then 3020's */
	check_int(query(db, "SELECT count(*) FROM region_state_run WHERE gfn = 2048 AND ts = 3000 "
			"AND n = 1 AND at = '[[0,32,32]]'"), ==, 1);
	check_int(query(db, "SELECT count(*) FROM region_state_run WHERE gfn = 2048 AND ts = 3010 "
			"AND n = 2 AND kind = 1 AND at = '[[0,512,512],[10,480,480]]'"), ==, 1);
	check_int(query(db, "SELECT count(*) FROM region_state_run WHERE gfn = 3072 AND n = 3 "
			"AND at = '[[0,1,1],[-10,2,2],[4611686018427382903,3,3]]'"), ==, 1);
	/* the documented lookup of a cell's state at T */
	check_int(query(db, "SELECT writable FROM region_state WHERE gfn = 1024 AND capture_id = 1 "
			"AND as_id = 0 AND ts <= 1240 ORDER BY ts DESC LIMIT 1"), ==, 512 - 32 * 5);
	sqlite3_close(db);
}

/* msc_cell_states() reads the same rows, whole runs at a time. */
static void t_read(void)
{
	struct msc_cell_state rows[MSC_CELL_STATES_MIN];
	struct msc_store *s;
	int64_t pos = 0, end;
	size_t nr, got = 0, bad = 0, calls = 0;

	check_int(msc_store_open(db_path, MSC_STORE_READONLY, &s), ==, 0);
	check_int(msc_cell_states(s, 1, &pos, rows, MSC_CELL_STATES_MIN - 1, &nr), ==, -EINVAL);
	while (!msc_cell_states(s, 1, &pos, rows, MSC_CELL_STATES_MIN, &nr) && nr) {
		for (size_t i = 0; i < nr; i++)
			bad += got + i >= want.nr || !same_row(&rows[i], &want.v[got + i]);
		got += nr;
		calls++;
	}
	check_uint(got, ==, want.nr);
	check_uint(bad, ==, 0);
	check_uint(calls, >=, 3);	/* the full run never fits beside another */
	check_int(msc_cell_states_end(s, &end), ==, 0);
	check_int(pos, ==, end);
	msc_store_close(s);
}

/* A run whose text is not what the writer makes is refused, naming its row. */
static void t_refuse(void)
{
	static const struct {
		const char *at;
		int n;
	} bad[] = {
		{ "[[0,1,1],[5,2,2]", 2 }, { "[[1,1,1]]", 1 }, { "[[0,1,1]] ", 1 },
		{ "[[0,513,1]]", 1 }, { "[[0,1,2]]", 1 }, { "[[0,1,1],[x,1,1]]", 2 },
		{ "[[0,1,1],[4611686018427387904,1,1]]", 2 }, { "[0,1,1]", 1 },
		{ "[[0,1,1]]", 2 }, { "[[0,1,1],[1,1,1]]", 1 },
	};
	struct msc_cell_state rows[MSC_CELL_STATES_MIN];
	struct msc_store *s;
	char sql[256];
	sqlite3 *db;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		int64_t pos = 0;
		size_t nr;

		check_int(sqlite3_open(db_path, &db), ==, SQLITE_OK);
		snprintf(sql, sizeof(sql), "DELETE FROM region_state_run; INSERT INTO "
			 "region_state_run VALUES (1, 0, 512, 100, 1, %d, '%s', 1)", bad[i].n, bad[i].at);
		check_int(sqlite3_exec(db, sql, NULL, NULL, NULL), ==, SQLITE_OK);
		sqlite3_close(db);
		check_int(msc_store_open(db_path, MSC_STORE_READONLY, &s), ==, 0);
		if (!check_int(msc_cell_states(s, 1, &pos, rows, MSC_CELL_STATES_MIN, &nr), ==,
			       MSC_ERR_SQL))
			fprintf(stderr, "# %s\n", bad[i].at);
		check(strstr(msc_store_errmsg(s), "region_state_run: row ") != NULL);
		msc_store_close(s);
	}
}

/* Every column of a phase row 0 or '', but its ids and end time. */
static void add_phase(sqlite3 *db, int64_t end_ts)
{
	char sql[4096] = "INSERT INTO phase VALUES (", *p = sql + strlen(sql);
	sqlite3_stmt *st;

	check_int(sqlite3_prepare_v2(db, "SELECT name, type FROM pragma_table_info('phase')", -1,
				     &st, NULL), ==, SQLITE_OK);
	for (int i = 0; sqlite3_step(st) == SQLITE_ROW; i++) {
		const char *col = (const char *)sqlite3_column_text(st, 0);
		const char *type = (const char *)sqlite3_column_text(st, 1);

		p += snprintf(p, (size_t)(sql + sizeof(sql) - p), "%s%s", i ? ", " : "",
			      !strcmp(col, "capture_id") || !strcmp(col, "id") ? "1" :
			      !strcmp(col, "end_ts") ? "?1" : !strcmp(type, "TEXT") ? "''" : "0");
	}
	sqlite3_finalize(st);
	snprintf(p, (size_t)(sql + sizeof(sql) - p), ")");
	check_int(sqlite3_prepare_v2(db, sql, -1, &st, NULL), ==, SQLITE_OK);
	sqlite3_bind_int64(st, 1, end_ts);
	check_int(sqlite3_step(st), ==, SQLITE_DONE);
	sqlite3_finalize(st);
}

/*
 * A phase's coverage takes each cell's last row by its end in time, not in
 * the order written: a cell whose rows were written out of time order is
 * sorted, among cells (and address spaces) that are not.
 */
static void t_regions_order(void)
{
	static const struct {
		uint8_t as_id;
		uint64_t gfn, ts;
		uint16_t mapped;
	} rows[] = {
		{ 0, 512, 100, 10 }, { 0, 0, 110, 64 }, { 1, 0, 120, 5 }, { 0, 512, 300, 30 },
		{ 0, 512, 200, 20 }, { 0, 0, 400, 128 }, { 0, 1 << 20, 150, 7 },
	};
	struct hcell_log *log = hcell_log_new();
	char path[300], buf[256];
	struct msc_store *s;
	sqlite3 *db;

	snprintf(path, sizeof(path), "%s/o.db", dir);
	check_int(msc_store_open(path, MSC_STORE_CREATE, &s), ==, 0);
	check_int(sqlite3_open(path, &db), ==, SQLITE_OK);
	add_phase(db, 250);
	sqlite3_close(db);
	for (size_t i = 0; log && i < ARRAY_SIZE(rows); i++) {
		struct msc_region_cell c = {
			.gfn = rows[i].gfn, .as_id = rows[i].as_id, .kind = MSC_REGION_4K,
			.mapped = rows[i].mapped,
		};

		check_int(hcell_log_put(log, &c, rows[i].ts, false), ==, 0);
	}
	{
		struct msc_phase *ph = NULL;
		size_t nr = 0;

		check_int(hstore_read_phases(s, 1, &ph, NULL, &nr), ==, 0);
		check_int(hregions_build(s, 1, log, ph, nr), ==, 0);
		free(ph);
	}
	hcell_log_free(log);
	msc_store_close(s);
	check_int(sqlite3_open(path, &db), ==, SQLITE_OK);
	{
		sqlite3_stmt *st;
		char *p = buf;

		check_int(sqlite3_prepare_v2(db, "SELECT r.as_id, r.gfn_first, r.gfn_end, "
					     "pr.pages_4k FROM region r JOIN phase_region pr ON "
					     "pr.region_id = r.id ORDER BY r.id", -1, &st, NULL), ==,
			  SQLITE_OK);
		while (sqlite3_step(st) == SQLITE_ROW && p < buf + sizeof(buf) - 64)
			p += sprintf(p, "%d|%lld|%lld|%lld;", sqlite3_column_int(st, 0),
				     (long long)sqlite3_column_int64(st, 1),
				     (long long)sqlite3_column_int64(st, 2),
				     (long long)sqlite3_column_int64(st, 3));
		sqlite3_finalize(st);
	}
	/* cells 0 and 512 by 250: 64 and 20 (written before 300's 30, 200 is later) */
	check_str(buf, "0|0|1024|84;0|1048576|1049088|7;1|0|512|5;");
	sqlite3_close(db);
	for (const char *const *x = (const char *const[]){ "", "-wal", "-shm", NULL }; *x; x++) {
		char f[320];

		snprintf(f, sizeof(f), "%s%s", path, *x);
		unlink(f);
	}
}

int main(void)
{
	check(mkdtemp(dir) != NULL);
	snprintf(db_path, sizeof(db_path), "%s/r.db", dir);
	TEST(write_rows(), "the analyzer's writer takes every kind of row");
	TEST(t_view(), "the view gives each row as written; runs only where they may join");
	TEST(t_read(), "msc_cell_states() reads the same rows, whole runs at a time");
	TEST(t_refuse(), "a run whose text the writer never makes is refused by its row");
	TEST(t_regions_order(), "a phase covers each cell's last row by its end in time");
	for (const char *const *x = (const char *const[]){ "", "-wal", "-shm", NULL }; *x; x++) {
		char f[300];

		snprintf(f, sizeof(f), "%s%s", db_path, *x);
		unlink(f);
	}
	rmdir(dir);
	return test_done();
}
