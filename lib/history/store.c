// SPDX-License-Identifier: GPL-2.0-only
/*
 * All SQL of the analysis tables (schema/002-analysis.sql): the analyzer's
 * row writers (hstore_*, private to lib/history/) and the read API of
 * history.h (msc_hview_*).
 *
 * Writes join the store's current transaction (msc_store_begin()); the
 * store's own batching or msc_history_analyze() commits.  Reads are index
 * lookups: census by (capture, as, ts), mapping_run by the base GFN of a
 * page table, region_state's runs by (gfn, capture, as, ts), activity and
 * phases by their primary keys.
 *
 * A run's intervals are its first entry's index and times (idx0, t0, e0),
 * their mean steps, and the JSON text of its entries column: each entry's
 * residuals from them (schema/010-mapping-steps.sql), an open run's start
 * in the end's place (schema/013-open-runs.sql).  An open run that starts
 * where a closed run of its page table ended, entry for entry, has no
 * entries but that run's id (prev), and reads that run's.  Written and read
 * here by hand (the hot path), expanded in SQL by the views mapping_entry
 * and mapping with json_each().
 */
#include "mmuscope/history.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "tables.h"
#include "mmuscope/error.h"
#include "mmuscope/util.h"
#include "store-share.h"

enum {
	ST_KVM_STATS, ST_ANOMALY, ST_NR,
};

static const char *const write_sql[ST_NR] = {
	[ST_KVM_STATS] = "INSERT OR REPLACE INTO kvm_stats (capture_id, seq, ts, phase, pages_4k, "
			 "pages_2m, pages_1g, census_4k, census_2m, census_1g, census_flags, stats, "
			 "vm) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
	[ST_ANOMALY] = "INSERT INTO anomaly (capture_id, seq, ts, kind, as_id, gfn, level, "
		       "old_spte, new_spte, detail, vm) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
};

/*
 * The bulk tables: integer rows (and mapping_run's text), in multi-row
 * batches.  Each INSERT names its columns, in the order its writer below
 * fills the row's v[].
 */
enum { B_RUN, B_CENSUS, B_REGION_STATE, B_ACTIVITY, B_TASK_ACTIVITY, B_DIRTY, B_NR };

#define RUN_ENTRIES_COL 14	/* mapping_run.entries */
#define RUN_E0_COL 18		/* mapping_run.e0 */
#define RUN_ID_COL 20		/* mapping_run.id */
#define RUN_PREV_COL 21		/* mapping_run.prev */
#define RUN_VM_COL 22		/* mapping_run.vm */
#define CELL_AT_COL 6		/* region_state_run.at */

static const struct {
	const char *head;
	unsigned int ncols;
	unsigned int text_col;	/* 0: none */
} batch_def[B_NR] = {
	[B_RUN] = { "INSERT INTO mapping_run (capture_id, as_id, gfn, level, leaf, first, spte, "
		    "pfn, writable, dirty, start_cause, end_cause, flags, n, entries, idx0, t0, "
		    "start_step, e0, end_step, id, prev, vm) VALUES", 23, RUN_ENTRIES_COL },
	[B_CENSUS] = { "INSERT INTO census (capture_id, as_id, ts, seq, pages_4k, pages_2m, "
		       "pages_1g, flags, vm) VALUES", 9 },
	[B_REGION_STATE] = { "INSERT INTO region_state_run (capture_id, as_id, gfn, ts, kind, n, "
			     "at, vm) VALUES", 8, CELL_AT_COL },
	/* the counters in enum hact order */
	[B_ACTIVITY] = { "INSERT INTO activity (capture_id, ts, spte_changes, maps, splits, "
			 "promotions, zaps, write_protects, faults_slow, faults_fast, flushes) VALUES",
			 2 + ACT_NR },
	[B_TASK_ACTIVITY] = { "INSERT INTO task_activity (capture_id, pid, ts, vcpu, spte_changes, "
			      "maps, splits, promotions, zaps, write_protects, faults_slow, "
			      "faults_fast, flushes) VALUES", 4 + ACT_NR },
	[B_DIRTY] = { "INSERT INTO dirty_cell (capture_id, vm, as_id, gfn, ts, kind, pages) VALUES",
		      7 },
};

/* A bucket's row written again adds to the one there (a resumed analysis). */
#define ACT_UPSERT											\
	"DO UPDATE SET spte_changes = spte_changes + excluded.spte_changes, maps = maps + "		\
	"excluded.maps, splits = splits + excluded.splits, promotions = promotions + "			\
	"excluded.promotions, zaps = zaps + excluded.zaps, write_protects = write_protects + "		\
	"excluded.write_protects, faults_slow = faults_slow + excluded.faults_slow, faults_fast = "	\
	"faults_fast + excluded.faults_fast, flushes = flushes + excluded.flushes"


/* "[i,s,e]," at most: three int64 of up to 20 characters */
#define ENTRY_TEXT_MAX 66

struct hstore {
	struct msc_store *s;	/* borrowed */
	sqlite3_stmt *st[ST_NR];
	struct msc_store_rows batch[B_NR];
	int64_t next_id;	/* of the next mapping_run row; 0: not read yet */
	sqlite3_stmt *prev_st;	/* a closed run by id, to check an open one against */
	struct hcell_log *cells;	/* every region_state row of cells_capture; NULL: not kept */
	int64_t cells_capture;
	/*
	 * The open region_state run is the last row batch[B_REGION_STATE]
	 * holds, when it is some cell's: its at text is cell_len bytes, its
	 * last element (at cell_ts) starts at cell_last.
	 */
	size_t cell_len, cell_last;
	uint64_t cell_ts;
	char entries[HNODE_ENTRIES * ENTRY_TEXT_MAX + 2];	/* a run's JSON */
};

/*
 * The indexes built after the bulk load: an index costs ~3,000
 * instructions a row to build, so only what lookups need.  mapping_run_gfn
 * has one entry per run; (level, n, first) after the page table's GFN let
 * a GFN's lookup skip the table's runs of one of other entries.  (The open
 * runs a resumed analysis needs are found by one scan.)
 */
static const char index_sql[] =
	"CREATE INDEX IF NOT EXISTS mapping_run_gfn ON mapping_run(gfn, level, n, first);"
	"CREATE INDEX IF NOT EXISTS region_state_gfn ON region_state_run(gfn, capture_id, as_id, ts)";
static const char index_drop_sql[] =
	"DROP INDEX IF EXISTS mapping_run_gfn; DROP INDEX IF EXISTS region_state_gfn";

/*
 * While mapping_run holds no row (a new file, or nothing left once a
 * rebuild has forgotten a file's only capture), the lookup indexes go: the
 * analysis writes without them and hstore_finish() builds them in one pass
 * (schema steps 13 and 14 make them with the tables).  Only speed depends on
 * this: where it fails (another statement is active), they are kept up.
 */
static void drop_indexes_if_empty(struct msc_store *s)
{
	sqlite3_stmt *st;
	bool empty;

	if (sqlite3_prepare_v2(msc_store_sqlite(s), "SELECT NOT EXISTS (SELECT 1 FROM mapping_run)",
			       -1, &st, NULL) != SQLITE_OK)
		return;
	empty = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (empty)
		sqlite3_exec(msc_store_sqlite(s), index_drop_sql, NULL, NULL, NULL);
}

int hstore_open(struct msc_store *s, struct hstore **ret)
{
	struct hstore *hs = calloc(1, sizeof(*hs));
	int r = 0;

	if (!hs)
		return -ENOMEM;
	hs->s = s;
	for (int i = 0; i < B_NR; i++) {
		if (batch_def[i].text_col)
			msc_store_rows_init_text(s, &hs->batch[i], batch_def[i].head,
						 batch_def[i].ncols, batch_def[i].text_col);
		else
			msc_store_rows_init(s, &hs->batch[i], batch_def[i].head,
					    batch_def[i].ncols);
	}
	/*
	 * A bucket is written when it ends, and the unfinished one when an
	 * analysis stops; a resumed analysis adds to that one.
	 */
	hs->batch[B_ACTIVITY].tail = "ON CONFLICT (capture_id, ts) " ACT_UPSERT;
	hs->batch[B_TASK_ACTIVITY].tail = "ON CONFLICT (capture_id, pid, ts) " ACT_UPSERT
					  ", vcpu = coalesce(excluded.vcpu, vcpu)";
	for (int i = 0; i < ST_NR && !r; i++)
		r = msc_store_prepare(s, write_sql[i], &hs->st[i]);
	if (r) {
		hstore_close(hs);
		return r;
	}
	drop_indexes_if_empty(s);
	*ret = hs;
	return 0;
}

void hstore_close(struct hstore *hs)
{
	if (!hs)
		return;
	for (int i = 0; i < ST_NR; i++)
		sqlite3_finalize(hs->st[i]);
	sqlite3_finalize(hs->prev_st);
	hcell_log_free(hs->cells);
	for (int i = 0; i < B_NR; i++)
		msc_store_rows_release(hs->s, &hs->batch[i]);
	free(hs);
}

int hstore_begin(struct hstore *hs)
{
	return msc_store_begin(hs->s);
}

int hstore_commit(struct hstore *hs)
{
	return msc_store_commit(hs->s);
}

/* Step a prepared write statement inside the store's transaction. */
static int put(struct hstore *hs, sqlite3_stmt *st)
{
	int r = msc_store_begin(hs->s);

	if (!r)
		r = msc_store_step(hs->s, st);
	sqlite3_clear_bindings(st);
	return r < 0 ? r : 0;
}

/* Write the rows the batches hold, before a statement reads their tables. */
static int flush_batches(struct hstore *hs)
{
	int r = 0;

	for (int i = 0; i < B_NR && !r; i++)
		r = msc_store_rows_flush(hs->s, &hs->batch[i]);
	return r;
}

/* Run one statement with the capture id bound to every ?1. */
static int exec_capture(struct hstore *hs, const char *sql, int64_t capture_id)
{
	sqlite3_stmt *st;
	int r = msc_store_begin(hs->s);

	if (!r)
		r = flush_batches(hs);
	if (!r)
		r = msc_store_prepare(hs->s, sql, &st);
	if (r)
		return r;
	sqlite3_bind_int64(st, 1, capture_id);
	r = msc_store_step(hs->s, st);
	sqlite3_finalize(st);
	return r < 0 ? r : 0;
}

/* Every table the analysis writes, each with a capture_id column. */
static const char *const analysis_tables[] = {
	"analysis", "mapping_run", "census", "kvm_stats", "phase", "region", "phase_region",
	"region_state_run", "activity", "task_activity", "anomaly", "vm", "dirty_cell",
};

/** hstore_drop - forget everything analyzed of a capture */
int hstore_drop(struct hstore *hs, int64_t capture_id)
{
	char sql[96];
	bool others = true;
	sqlite3_stmt *st;
	int r = msc_store_prepare(hs->s, "SELECT EXISTS (SELECT 1 FROM capture WHERE id != ?1)",
				  &st);

	if (r)
		return r;
	sqlite3_bind_int64(st, 1, capture_id);
	r = msc_store_step(hs->s, st);
	if (r == 1)
		others = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	r = r < 0 ? r : 0;

	/*
	 * The capture's rows are every row when it is the file's only one:
	 * SQLite then drops the tables' pages whole instead of row by row.
	 */
	for (size_t i = 0; i < ARRAY_SIZE(analysis_tables) && !r; i++) {
		snprintf(sql, sizeof(sql), others ? "DELETE FROM %s WHERE capture_id = ?1" :
			 "DELETE FROM %s", analysis_tables[i]);
		r = exec_capture(hs, sql, capture_id);
	}
	if (!r)
		drop_indexes_if_empty(hs->s);
	return r;
}

/*
 * The analysis table's columns, in the order they are written and read:
 * each read at its AN_ index and bound at AN_ + 1.  state is the resume
 * blob (the front's struct hstate).
 */
#define ANALYSIS_COLUMNS(X, LAST)							\
	X(AN_LAST_SEQ, "last_seq") X(AN_FIRST_TS, "first_ts") X(AN_LAST_TS, "last_ts")	\
	X(AN_EVENTS, "events") X(AN_SPTE_EVENTS, "spte_events") X(AN_RESYNCS, "resyncs")	\
	X(AN_AD_RESYNCS, "ad_resyncs") X(AN_SYNTHESIZED, "synthesized")			\
	X(AN_FAST_APPLIED, "fast_applied") X(AN_FROZEN_COMPLETED, "frozen_completed")	\
	X(AN_OUT_OF_ORDER, "out_of_order") X(AN_LOST_MARKS, "lost_marks")		\
	X(AN_LOST_EVENTS, "lost_events") X(AN_ANOMALIES, "anomalies")			\
	X(AN_INTERVALS, "intervals") X(AN_TDP_MMU, "tdp_mmu")				\
	X(AN_CENSUS_FLAGS, "census_flags") X(AN_UNPLACED, "unplaced")			\
	X(AN_STATE, "state") LAST(AN_CAPTURE_ID, "capture_id")

enum { ANALYSIS_COLUMNS(COL_ENUM, COL_ENUM) };

/** hstore_mark_running - an analysis is under way: an interrupted one restarts */
int hstore_mark_running(struct hstore *hs, int64_t capture_id)
{
	return exec_capture(hs,
			    "INSERT INTO analysis (capture_id, last_seq, events, spte_events, resyncs,"
			    " ad_resyncs, synthesized, fast_applied, frozen_completed, out_of_order,"
			    " lost_marks, lost_events, anomalies, intervals, tdp_mmu, census_flags)"
			    " VALUES (?1, -2, 0,0,0,0,0,0,0,0,0,0,0,0,0,0)"
			    " ON CONFLICT(capture_id) DO UPDATE SET last_seq = -2",
			    capture_id);
}

/* The summary in @st's current row (a SELECT of COLS(ANALYSIS_COLUMNS)) */
static void read_summary(sqlite3_stmt *st, struct msc_history_summary *s)
{
	s->last_seq = sqlite3_column_int64(st, AN_LAST_SEQ);
	s->first_ts = column_u64(st, AN_FIRST_TS);
	s->last_ts = column_u64(st, AN_LAST_TS);
	s->events = column_u64(st, AN_EVENTS);
	s->spte_events = column_u64(st, AN_SPTE_EVENTS);
	s->resyncs = column_u64(st, AN_RESYNCS);
	s->ad_resyncs = column_u64(st, AN_AD_RESYNCS);
	s->synthesized = column_u64(st, AN_SYNTHESIZED);
	s->fast_applied = column_u64(st, AN_FAST_APPLIED);
	s->frozen_completed = column_u64(st, AN_FROZEN_COMPLETED);
	s->out_of_order = column_u64(st, AN_OUT_OF_ORDER);
	s->lost_marks = column_u64(st, AN_LOST_MARKS);
	s->lost_events = column_u64(st, AN_LOST_EVENTS);
	s->anomalies = column_u64(st, AN_ANOMALIES);
	s->intervals = column_u64(st, AN_INTERVALS);
	s->tdp_mmu = sqlite3_column_int(st, AN_TDP_MMU);
	s->census_flags = (unsigned int)sqlite3_column_int(st, AN_CENSUS_FLAGS);
	s->unplaced = column_u64(st, AN_UNPLACED);
}

static int load_summary(struct msc_store *s, int64_t capture_id, struct msc_history_summary *sum,
			void *state, size_t state_size, bool *ret_found)
{
	char sql[512];
	sqlite3_stmt *st;
	int r;

	snprintf(sql, sizeof(sql), "SELECT %s FROM analysis WHERE capture_id = ?", COLS(ANALYSIS_COLUMNS));
	r = msc_store_prepare(s, sql, &st);
	if (r)
		return r;
	sqlite3_bind_int64(st, 1, capture_id);
	r = msc_store_step(s, st);
	*ret_found = r == 1;
	if (r == 1) {
		memset(sum, 0, sizeof(*sum));
		sum->capture_id = capture_id;
		read_summary(st, sum);
		if (state) {
			int n = sqlite3_column_bytes(st, AN_STATE);

			memset(state, 0, state_size);
			if (n == (int)state_size)
				memcpy(state, sqlite3_column_blob(st, AN_STATE), state_size);
		}
	}
	sqlite3_finalize(st);
	return r < 0 ? r : 0;
}

/**
 * hstore_load_analysis - where an earlier run of the analysis stopped
 * @state: its state blob, of @state_size bytes; zeroed when the blob is
 *	of another size (the caller's format says the rest)
 */
int hstore_load_analysis(struct hstore *hs, int64_t capture_id,
			 struct msc_history_summary *sum, void *state, size_t state_size,
			 bool *ret_found)
{
	return load_summary(hs->s, capture_id, sum, state, state_size, ret_found);
}

/**
 * hstore_save_analysis - the analysis reached sum->last_seq; keep its state
 * @state: what a later run resumes from, @state_size bytes; NULL: nothing
 *	(it starts over)
 */
int hstore_save_analysis(struct hstore *hs, const struct msc_history_summary *sum,
			 const void *state, size_t state_size)
{
	char sql[512];
	sqlite3_stmt *st;
	int r = msc_store_begin(hs->s);

	snprintf(sql, sizeof(sql), "INSERT OR REPLACE INTO analysis (%s) VALUES (%s)",
		 COLS(ANALYSIS_COLUMNS), PARAMS(ANALYSIS_COLUMNS));
	if (!r)
		r = msc_store_prepare(hs->s, sql, &st);
	if (r)
		return r;
#define B(col) (AN_##col + 1)
	sqlite3_bind_int64(st, B(CAPTURE_ID), sum->capture_id);
	sqlite3_bind_int64(st, B(LAST_SEQ), sum->last_seq);
	bind_u64(st, B(FIRST_TS), sum->first_ts);
	bind_u64(st, B(LAST_TS), sum->last_ts);
	bind_u64(st, B(EVENTS), sum->events);
	bind_u64(st, B(SPTE_EVENTS), sum->spte_events);
	bind_u64(st, B(RESYNCS), sum->resyncs);
	bind_u64(st, B(AD_RESYNCS), sum->ad_resyncs);
	bind_u64(st, B(SYNTHESIZED), sum->synthesized);
	bind_u64(st, B(FAST_APPLIED), sum->fast_applied);
	bind_u64(st, B(FROZEN_COMPLETED), sum->frozen_completed);
	bind_u64(st, B(OUT_OF_ORDER), sum->out_of_order);
	bind_u64(st, B(LOST_MARKS), sum->lost_marks);
	bind_u64(st, B(LOST_EVENTS), sum->lost_events);
	bind_u64(st, B(ANOMALIES), sum->anomalies);
	bind_u64(st, B(INTERVALS), sum->intervals);
	sqlite3_bind_int(st, B(TDP_MMU), sum->tdp_mmu);
	sqlite3_bind_int(st, B(CENSUS_FLAGS), (int)sum->census_flags);
	bind_u64(st, B(UNPLACED), sum->unplaced);
	if (state)
		sqlite3_bind_blob(st, B(STATE), state, (int)state_size, SQLITE_TRANSIENT);
#undef B
	r = msc_store_step(hs->s, st);
	sqlite3_finalize(st);
	return r < 0 ? r : 0;
}

/* ---- mapping_run ---- */

/*
 * The row's steps of a run: its first entry's values and their mean steps.
 * An open run keeps each start residual in the end's place: element k is
 * [i_k, s_k, e_k] for a closed run and [i_k, 0, s_k] for an open one (the
 * leading zeros left out), so that a closed run's entries read as an open
 * run's give that run's ends as starts (prev, schema 13).
 */
struct run_steps {
	int64_t idx0, t0, e0, start_step, end_step;
	bool open;
	bool borrowed;		/* open, reading prev's entries: their s_k are prev's */
};

static void run_steps(const struct hrun *run, struct run_steps *ret)
{
	const struct hrun_entry *e = run->e, *last = &run->e[run->n - 1];
	int64_t n1 = run->n > 1 ? run->n - 1 : 1;

	ret->open = e->end_ts == MSC_TS_OPEN;
	ret->borrowed = false;
	ret->idx0 = e->index;
	ret->t0 = (int64_t)e->start_ts;
	ret->e0 = ret->open ? 0 : (int64_t)e->end_ts;
	ret->start_step = ((int64_t)last->start_ts - ret->t0) / n1;
	ret->end_step = ret->open ? 0 : ((int64_t)last->end_ts - ret->e0) / n1;
}

/*
 * The next interval of a run's entries text: element @k at *@pp (at its
 * start, or at the ',' after the previous one), made from the row's steps.
 * Returns 1 and advances *@pp, 0 at the closing ']', MSC_ERR_SQL when the
 * text is not what hstore_add_run() writes.
 */
static int next_entry(const char **pp, int64_t k, const struct run_steps *st,
		      struct hrun_entry *e)
{
	const char *p = *pp;
	int64_t v[3], index;

	if (*p == ']')
		return 0;
	if (k ? *p++ != ',' : *p++ != '[')
		return MSC_ERR_SQL;
	if (*p == ']' && !k)
		return 0;
	p = msc_get_residuals(p, v, 3);
	if (!p || (st->open && !st->borrowed && v[1]))
		return MSC_ERR_SQL;
	/* unsigned: a row no writer made only wraps */
	index = (int64_t)((uint64_t)st->idx0 + (uint64_t)k + (uint64_t)v[0]);
	if (index < 0 || index >= HNODE_ENTRIES)
		return MSC_ERR_SQL;
	e->index = (uint16_t)index;
	e->start_ts = (uint64_t)st->t0 + (uint64_t)k * (uint64_t)st->start_step +
		      (uint64_t)v[st->open ? 2 : 1];
	e->end_ts = st->open ? MSC_TS_OPEN :
		    (uint64_t)st->e0 + (uint64_t)k * (uint64_t)st->end_step + (uint64_t)v[2];
	*pp = p;
	return 1;
}

/* A closed run read back: is an open run its continuation (ends_are_starts())? */
#define PREV_COLUMNS(X, LAST)								\
	X(PC_CAPTURE_ID, "capture_id") X(PC_AS_ID, "as_id") X(PC_GFN, "gfn")		\
	X(PC_LEVEL, "level") X(PC_N, "n") X(PC_ENTRIES, "entries") X(PC_IDX0, "idx0")	\
	X(PC_T0, "t0") X(PC_START_STEP, "start_step") X(PC_E0, "e0")			\
	LAST(PC_END_STEP, "end_step")
enum { PREV_COLUMNS(COL_ENUM, COL_ENUM) };

/*
 * Whether the open @run starts where the closed run @id of its node ended,
 * entry for entry (the id then becomes its prev): 1 yes, with that run's
 * steps in *@ret, 0 no, or a negative error.  The run is read back from the
 * table, so a prev is only ever written after the equality was seen.
 */
static int ends_are_starts(struct hstore *hs, int64_t capture_id, const struct hrun *run,
			   int64_t id, struct run_steps *ret)
{
	struct msc_store_rows *b = &hs->batch[B_RUN];
	sqlite3_stmt *st;
	const char *p;
	struct hrun_entry e;
	int64_t k = 0;
	int r;

	/* still held in the batch: written first (held rows have the newest ids) */
	if (b->n && id >= b->v[0][RUN_ID_COL] && (r = msc_store_rows_flush(hs->s, b)))
		return r;
	if (!hs->prev_st) {
		r = msc_store_prepare(hs->s, "SELECT " COLS(PREV_COLUMNS) " FROM mapping_run "
				      "WHERE id = ? AND e0 IS NOT NULL AND entries IS NOT NULL",
				      &hs->prev_st);
		if (r)
			return r;
	}
	st = hs->prev_st;
	sqlite3_bind_int64(st, 1, id);
	r = msc_store_step(hs->s, st);
	if (r != 1)
		goto out;
	r = 0;
	if (sqlite3_column_int64(st, PC_CAPTURE_ID) != capture_id ||
	    sqlite3_column_int(st, PC_AS_ID) != run->as_id ||
	    column_u64(st, PC_GFN) != run->base || sqlite3_column_int(st, PC_LEVEL) != run->level ||
	    sqlite3_column_int64(st, PC_N) != run->n)
		goto out;
	p = (const char *)sqlite3_column_text(st, PC_ENTRIES);
	*ret = (struct run_steps){
		.idx0 = sqlite3_column_int64(st, PC_IDX0), .t0 = sqlite3_column_int64(st, PC_T0),
		.start_step = sqlite3_column_int64(st, PC_START_STEP),
		.e0 = sqlite3_column_int64(st, PC_E0), .end_step = sqlite3_column_int64(st, PC_END_STEP),
	};
	while ((r = next_entry(&p, k, ret, &e)) == 1) {
		if (k >= run->n || e.index != run->e[k].index || e.end_ts != run->e[k].start_ts)
			break;
		k++;
	}
	if (r >= 0)
		r = !r && k == run->n;
	/* read as the open run's own: prev's e0 and end_step are its t0 and start_step */
	ret->open = ret->borrowed = true;
	ret->t0 = ret->e0;
	ret->start_step = ret->end_step;
	ret->e0 = ret->end_step = 0;
out:
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return r < 0 ? r : r == 1;
}

/* The id the next row of mapping_run gets: one more than any the table has. */
static int next_run_id(struct hstore *hs, int64_t *ret)
{
	sqlite3_stmt *st;
	int r;

	if (!hs->next_id) {
		r = msc_store_prepare(hs->s, "SELECT max(id) FROM mapping_run", &st);
		if (r)
			return r;
		r = msc_store_step(hs->s, st);
		if (r == 1)
			hs->next_id = column_int_or(st, 0, 0) + 1;
		sqlite3_finalize(st);
		if (r < 0)
			return r;
		if (r != 1)
			return MSC_ERR_SQL;
	}
	*ret = hs->next_id++;
	return 0;
}

/*
 * hstore_add_run - write a run (of one or more intervals)
 * @last_run: the id of its node's last closed run; 0 none
 * @ends_known: the caller knows that the open @run starts where @last_run
 *	ended, entry for entry (it is not read back then)
 * @ret_id: the run's id (a closed run is its node's next last_run)
 *
 * An open run that starts where @last_run ended (ends_are_starts()) is
 * written without entries, with it as prev.
 */
int hstore_add_run(struct hstore *hs, int64_t capture_id, const struct hrun *run,
		   int64_t last_run, bool ends_known, int64_t *ret_id)
{
	struct msc_store_rows *b = &hs->batch[B_RUN];
	int64_t *v, id, prev = 0;
	struct run_steps st;
	uint32_t nulls = 0;
	char *p = hs->entries;
	int r;

	run_steps(run, &st);
	if (st.open && run->n > 1 && last_run) {
		/* known: prev's steps are the run's own (its ends are these starts) */
		st.borrowed = ends_known;
		r = ends_known ? 1 : ends_are_starts(hs, capture_id, run, last_run, &st);
		if (r < 0)
			return r;
		if (r)
			prev = last_run;
		else
			run_steps(run, &st);
	}
	r = next_run_id(hs, &id);
	if (r)
		return r;
	*ret_id = id;
	v = msc_store_rows_slot(b);
	v[0] = capture_id;
	v[1] = run->as_id;
	v[2] = (int64_t)run->base;
	v[3] = run->level;
	v[4] = run->leaf;
	v[5] = run->first;
	v[6] = (int64_t)run->spte;
	v[7] = (int64_t)run->pfn;
	v[8] = run->writable;
	v[9] = run->dirty;
	if (run->dirty < 0)
		nulls |= 1u << 9;
	v[10] = run->start_cause;
	v[11] = run->end_cause;
	v[12] = run->flags;
	v[13] = run->n;
	v[15] = st.idx0;
	v[16] = st.t0;
	v[17] = st.start_step;
	v[18] = st.e0;
	if (st.open)
		nulls |= 1u << RUN_E0_COL;
	v[19] = st.end_step;
	v[RUN_ID_COL] = id;
	v[RUN_PREV_COL] = prev;
	v[RUN_VM_COL] = run->vm;
	if (prev) {
		nulls |= 1u << RUN_ENTRIES_COL;
		return msc_store_rows_put_text(hs->s, b, nulls, p, 0);
	}
	nulls |= 1u << RUN_PREV_COL;
	*p++ = '[';
	for (unsigned int k = 0; k < run->n; k++) {
		const struct hrun_entry *e = &run->e[k];
		int64_t s = (int64_t)e->start_ts - st.t0 - (int64_t)k * st.start_step;
		int64_t d[3] = {
			e->index - st.idx0 - (int64_t)k,
			st.open ? 0 : s,
			st.open ? s : (int64_t)e->end_ts - st.e0 - (int64_t)k * st.end_step,
		};

		if (k)
			*p++ = ',';
		p = msc_put_residuals(p, d, 3);
	}
	*p++ = ']';
	return msc_store_rows_put_text(hs->s, b, nulls, hs->entries, (size_t)(p - hs->entries));
}

/* A run's row and its prev's entries when it has none (run_intervals()) */
#define RUN_COLUMNS(X, LAST)								\
	X(RC_AS_ID, "r.as_id") X(RC_GFN, "r.gfn") X(RC_LEVEL, "r.level")		\
	X(RC_LEAF, "r.leaf") X(RC_FIRST, "r.first") X(RC_SPTE, "r.spte")		\
	X(RC_PFN, "r.pfn") X(RC_WRITABLE, "r.writable") X(RC_DIRTY, "r.dirty")		\
	X(RC_START_CAUSE, "r.start_cause") X(RC_END_CAUSE, "r.end_cause")		\
	X(RC_FLAGS, "r.flags") X(RC_ENTRIES, "coalesce(r.entries, p.entries)")		\
	X(RC_IDX0, "r.idx0") X(RC_T0, "r.t0") X(RC_START_STEP, "r.start_step")		\
	X(RC_E0, "r.e0") X(RC_END_STEP, "r.end_step") LAST(RC_PREV, "r.prev")
enum { RUN_COLUMNS(COL_ENUM, COL_ENUM) };
#define RUN_COLS COLS(RUN_COLUMNS)
#define RUN_FROM "mapping_run r LEFT JOIN mapping_run p ON p.id = r.prev"

/*
 * Call @fn for each interval of the run in the current row of @st (RUN_COLS),
 * or only for those of entry @only when it is >= 0.
 */
static int run_intervals(sqlite3_stmt *st, int only, hinterval_fn fn, void *ctx)
{
	const char *p = (const char *)sqlite3_column_text(st, RC_ENTRIES);
	struct msc_interval iv = {
		.as_id = (uint8_t)sqlite3_column_int(st, RC_AS_ID),
		.level = (uint8_t)sqlite3_column_int(st, RC_LEVEL),
		.leaf = sqlite3_column_int(st, RC_LEAF),
		.writable = sqlite3_column_int(st, RC_WRITABLE),
		.dirty = (int8_t)column_int_or(st, RC_DIRTY, -1),
		.start_cause = (uint8_t)sqlite3_column_int(st, RC_START_CAUSE),
		.end_cause = (uint8_t)sqlite3_column_int(st, RC_END_CAUSE),
		.flags = (uint8_t)sqlite3_column_int(st, RC_FLAGS),
	};
	uint64_t base = column_u64(st, RC_GFN), spte = column_u64(st, RC_SPTE);
	uint64_t pfn = column_u64(st, RC_PFN);
	int64_t first = sqlite3_column_int64(st, RC_FIRST);
	uint64_t pages = msc_level_pages(iv.level);
	struct run_steps steps = {
		.idx0 = sqlite3_column_int64(st, RC_IDX0), .t0 = sqlite3_column_int64(st, RC_T0),
		.start_step = sqlite3_column_int64(st, RC_START_STEP),
		.e0 = sqlite3_column_int64(st, RC_E0),
		.end_step = sqlite3_column_int64(st, RC_END_STEP),
		.open = sqlite3_column_type(st, RC_E0) == SQLITE_NULL,
		.borrowed = sqlite3_column_type(st, RC_PREV) != SQLITE_NULL,
	};
	struct hrun_entry e;
	int64_t k = 0;
	int r;

	/* no text (its prev is gone), or a prev on a closed run: not what a writer made */
	if (!p || (steps.borrowed && !steps.open))
		return MSC_ERR_SQL;
	while ((r = next_entry(&p, k++, &steps, &e)) == 1) {
		uint64_t d = (uint64_t)(e.index - first);	/* the leaf rule, mod 2^64 */

		if (only >= 0 && e.index != only)
			continue;
		iv.gfn = base + e.index * pages;
		iv.start_ts = e.start_ts;
		iv.end_ts = e.end_ts;
		iv.spte = spte + d * (pages << 12);
		iv.pfn = pfn + d * pages;
		r = fn(&iv, ctx);
		if (r)
			return r;
	}
	return r;
}

/* Every interval of the capture's runs that @where selects, to @fn. */
static int load_runs(struct hstore *hs, int64_t capture_id, const char *where,
		     hinterval_fn fn, void *ctx)
{
	char sql[1024];
	sqlite3_stmt *st;
	int r;

	snprintf(sql, sizeof(sql),
		 "SELECT " RUN_COLS " FROM " RUN_FROM " WHERE r.capture_id = ? AND %s", where);
	r = msc_store_prepare(hs->s, sql, &st);
	if (r)
		return r;
	sqlite3_bind_int64(st, 1, capture_id);
	while ((r = msc_store_step(hs->s, st)) == 1) {
		r = run_intervals(st, -1, fn, ctx);
		if (r)
			break;
	}
	sqlite3_finalize(st);
	return r < 0 ? r : 0;
}

/**
 * hstore_load_open - the open intervals of the last run, upper levels
 *	first, to @fn (the front feeds them back to the model)
 */
int hstore_load_open(struct hstore *hs, int64_t capture_id, hinterval_fn fn, void *ctx)
{
	return load_runs(hs, capture_id, "r.end_cause = 0 ORDER BY r.level DESC, r.as_id, r.gfn",
			 fn, ctx);
}

/**
 * hstore_load_was_huge - the huge leaves of the last run that are gone, to
 *	@fn (after hstore_load_open(): for the cells the model has again)
 */
int hstore_load_was_huge(struct hstore *hs, int64_t capture_id, hinterval_fn fn, void *ctx)
{
	return load_runs(hs, capture_id, "r.level >= 2 AND r.end_cause != 0", fn, ctx);
}

/** hstore_delete_open - delete the open runs (end_cause 0 exactly while open) */
int hstore_delete_open(struct hstore *hs, int64_t capture_id)
{
	return exec_capture(hs, "DELETE FROM mapping_run WHERE capture_id = ?1 AND end_cause = 0",
			    capture_id);
}

int hstore_add_census(struct hstore *hs, int64_t capture_id, int64_t vm, unsigned int as_id,
		      uint64_t ts, int64_t seq, const int64_t *pages, unsigned int flags)
{
	struct msc_store_rows *b = &hs->batch[B_CENSUS];
	int64_t *v = msc_store_rows_slot(b);

	v[0] = capture_id;
	v[1] = as_id;
	v[2] = (int64_t)ts;
	v[3] = seq;
	for (int l = 1; l <= MSC_HISTORY_MAX_LEVEL; l++)
		v[3 + l] = pages[l];
	v[7] = flags;
	v[8] = vm;
	return msc_store_rows_put(hs->s, b, 0);
}

int hstore_add_kvm_stats(struct hstore *hs, int64_t capture_id,
			 const struct msc_kvm_stats *k, const char *text)
{
	sqlite3_stmt *st = hs->st[ST_KVM_STATS];

	sqlite3_bind_int64(st, 1, capture_id);
	sqlite3_bind_int64(st, 2, k->seq);
	bind_u64(st, 3, k->ts);
	sqlite3_bind_text(st, 4, k->phase, -1, SQLITE_TRANSIENT);
	for (int l = 1; l <= MSC_HISTORY_MAX_LEVEL; l++) {
		if (k->kvm[l] >= 0)
			sqlite3_bind_int64(st, 4 + l, k->kvm[l]);
		sqlite3_bind_int64(st, 7 + l, k->census[l]);
	}
	sqlite3_bind_int(st, 11, (int)k->census_flags);
	sqlite3_bind_text(st, 12, text, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 13, k->vm);
	return put(hs, st);
}

/*
 * The open run's element from @keep on becomes @c at @ts, the run's last:
 * "[dt,mapped,writable]]" after a separator when @sep.
 */
static int cell_run_put(struct hstore *hs, struct msc_store_rows *b, const int64_t *v,
			size_t keep, bool sep, const struct msc_region_cell *c, uint64_t ts)
{
	char text[MSC_CELL_ELEM_MAX + 2], *p = text;
	int r;

	if (sep)
		*p++ = ',';
	p = msc_cell_elem_put(p, (int64_t)(ts - (uint64_t)v[3]), c->mapped, c->writable);
	*p++ = ']';
	r = msc_store_rows_splice_text(b, keep, text, (size_t)(p - text));
	if (r)
		return r;
	hs->cell_last = keep + sep;
	hs->cell_len = keep + (size_t)(p - text);
	hs->cell_ts = ts;
	return 0;
}

/* A new run of one row: the state @c at @ts, after a full batch is written. */
static int cell_run_new(struct hstore *hs, struct msc_store_rows *b, int64_t capture_id,
			const struct msc_region_cell *c, uint64_t ts)
{
	int64_t *v;
	int r = b->n == MSC_STORE_MULTI ? msc_store_rows_flush(hs->s, b) : 0;

	if (r)
		return r;
	v = msc_store_rows_slot(b);
	v[0] = capture_id;
	v[1] = c->as_id;
	v[2] = (int64_t)c->gfn;
	v[3] = (int64_t)ts;
	v[4] = c->kind;
	v[5] = 1;
	v[7] = c->vm;
	r = msc_store_rows_hold_text(hs->s, b, 0, "[", 1);
	return r ?: cell_run_put(hs, b, v, 1, false, c, ts);
}

/*
 * A region_state row: it joins the open run when that is the same cell's
 * and kind's (schema 15).  A cell's row at the same time as the row held
 * before it replaces that row: the state at T is a cell's last row with
 * ts <= T, so the states a cell passes through within one timestamp (a
 * split's children crossing every sixteenth at once) are never the state
 * at any time.
 */
int hstore_add_region_state(struct hstore *hs, int64_t capture_id,
			    const struct msc_region_cell *c, uint64_t ts)
{
	struct msc_store_rows *b = &hs->batch[B_REGION_STATE];
	int64_t *v = msc_store_rows_last(b);
	bool open = v && v[0] == capture_id && v[1] == c->as_id && v[2] == (int64_t)c->gfn &&
		    v[7] == c->vm;
	bool same = open && hs->cell_ts == ts;
	int r = 0;

	if (same && (v[5] == 1 || v[4] == c->kind)) {
		/* the last row replaced; a run of one takes the new kind */
		v[4] = c->kind;
		r = cell_run_put(hs, b, v, hs->cell_last, false, c, ts);
	} else if (!same && open && v[4] == c->kind && v[5] < MSC_CELL_RUN_MAX &&
		   ts < MSC_CELL_TS_LIMIT && (uint64_t)v[3] < MSC_CELL_TS_LIMIT) {
		r = cell_run_put(hs, b, v, hs->cell_len - 1, true, c, ts);
		if (!r)
			v[5]++;
	} else {
		/* a new run; a last row this one replaces (another kind) leaves its own */
		if (same && !(r = msc_store_rows_splice_text(b, hs->cell_last - 1, "]", 1)))
			v[5]--;
		if (!r)
			r = cell_run_new(hs, b, capture_id, c, ts);
	}
	if (!r && hs->cells && capture_id == hs->cells_capture)
		return hcell_log_put(hs->cells, c, ts, same);
	return r;
}

/**
 * hstore_keep_cells - keep the capture's region_state rows as they are
 *	written, for hstore_build_regions(), if the table has none of it yet
 */
int hstore_keep_cells(struct hstore *hs, int64_t capture_id)
{
	sqlite3_stmt *st;
	int r = msc_store_prepare(hs->s, "SELECT EXISTS (SELECT 1 FROM region_state_run "
				  "WHERE capture_id = ?1)", &st);

	if (r)
		return r;
	sqlite3_bind_int64(st, 1, capture_id);
	r = msc_store_step(hs->s, st);
	if (r == 1 && !sqlite3_column_int(st, 0)) {
		hcell_log_free(hs->cells);
		hs->cells = hcell_log_new();
		hs->cells_capture = capture_id;
		if (!hs->cells)
			r = -ENOMEM;
	}
	sqlite3_finalize(st);
	return r < 0 ? r : 0;
}

/**
 * hstore_add_dirty_cell - a dirty_cell row: @pages 4K pages of 2M cell
 *	@cell (gfn >> 9) of VM @vm dirtied, @kind (HDIRTY_*), the first at @ts
 */
int hstore_add_dirty_cell(struct hstore *hs, int64_t capture_id, int64_t vm, unsigned int as_id,
			  uint64_t cell, uint64_t ts, unsigned int kind, uint64_t pages)
{
	struct msc_store_rows *b = &hs->batch[B_DIRTY];
	int64_t *v = msc_store_rows_slot(b);

	v[0] = capture_id;
	v[1] = vm;
	v[2] = as_id;
	v[3] = (int64_t)(cell << 9);
	v[4] = (int64_t)ts;
	v[5] = kind;
	v[6] = (int64_t)pages;
	return msc_store_rows_put(hs->s, b, 0);
}

int hstore_put_activity(struct hstore *hs, int64_t capture_id, uint64_t ts,
			const uint64_t act[ACT_NR])
{
	struct msc_store_rows *b = &hs->batch[B_ACTIVITY];
	int64_t *v = msc_store_rows_slot(b);

	v[0] = capture_id;
	v[1] = (int64_t)ts;
	for (int i = 0; i < ACT_NR; i++)
		v[2 + i] = (int64_t)act[i];
	return msc_store_rows_put(hs->s, b, 0);
}

/* A task_activity row: task @pid's counters in the bucket at @ts (@vcpu -1: none) */
int hstore_put_task_activity(struct hstore *hs, int64_t capture_id, uint64_t ts, int32_t pid,
			     int32_t vcpu, const uint64_t act[ACT_NR])
{
	struct msc_store_rows *b = &hs->batch[B_TASK_ACTIVITY];
	int64_t *v = msc_store_rows_slot(b);
	uint32_t nulls = vcpu < 0 ? 1U << 3 : 0;

	v[0] = capture_id;
	v[1] = pid;
	v[2] = (int64_t)ts;
	v[3] = vcpu;
	for (int i = 0; i < ACT_NR; i++)
		v[4 + i] = (int64_t)act[i];
	return msc_store_rows_put(hs->s, b, nulls);
}

int hstore_add_anomaly(struct hstore *hs, int64_t capture_id, const struct msc_anomaly *a)
{
	sqlite3_stmt *st = hs->st[ST_ANOMALY];

	sqlite3_bind_int64(st, 1, capture_id);
	sqlite3_bind_int64(st, 2, a->seq);
	bind_u64(st, 3, a->ts);
	sqlite3_bind_text(st, 4, msc_anomaly_kind_name(a->kind), -1, SQLITE_STATIC);
	if (a->level) {
		sqlite3_bind_int(st, 5, a->as_id);
		bind_u64(st, 6, a->gfn);
		sqlite3_bind_int(st, 7, a->level);
		bind_u64(st, 8, a->old_spte);
		bind_u64(st, 9, a->new_spte);
	}
	sqlite3_bind_text(st, 10, a->detail, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 11, a->vm);
	return put(hs, st);
}

/*
 * The phase table's columns, in the order they are written and read: each
 * is read at its PH_ index and bound at PH_ + 1, so no writer or reader
 * counts positions.
 */
#define PHASE_COLUMNS(X, LAST)								\
	X(PH_ID, "id") X(PH_KIND, "kind") X(PH_SOURCE, "source") X(PH_NAME, "name")	\
	X(PH_OPEN, "open") X(PH_START_TS, "start_ts") X(PH_END_TS, "end_ts")		\
	X(PH_START_SEQ, "start_seq") X(PH_END_SEQ, "end_seq")				\
	X(PH_GFN_FIRST, "gfn_first") X(PH_GFN_LAST, "gfn_last")				\
	X(PH_SPTE_CHANGES, "spte_changes") X(PH_CLASSES, "classes")			\
	X(PH_SPLITS, "splits") X(PH_SPLIT_FAILURES, "split_failures")			\
	X(PH_PAGES_SPLIT, "pages_split") X(PH_PAGES_PROMOTED, "pages_promoted")		\
	X(PH_CHILDREN_SYNTHESIZED, "children_synthesized")				\
	X(PH_FAULTS_SLOW, "faults_slow") X(PH_FAULTS_FAST, "faults_fast")		\
	X(PH_FLUSHES, "flushes") X(PH_ZAPS, "zaps") X(PH_REFAULTS, "refaults")		\
	X(PH_REGION_SPLIT_NS, "region_split_ns") X(PH_TO_HUGE_NS, "to_huge_ns")		\
	X(PH_BEFORE_4K, "before_4k") X(PH_BEFORE_2M, "before_2m")			\
	X(PH_BEFORE_1G, "before_1g") X(PH_AFTER_4K, "after_4k")				\
	X(PH_AFTER_2M, "after_2m") X(PH_AFTER_1G, "after_1g")				\
	X(PH_CENSUS_FLAGS, "census_flags") X(PH_FAULTS_SPURIOUS, "faults_spurious")	\
	X(PH_VM, "vm") X(PH_PAGES_SPLIT_2M, "pages_split_2m")				\
	X(PH_PAGES_SPLIT_1G, "pages_split_1g") X(PH_BOUNDS, "bounds")			\
	X(PH_SLACK_START_NS, "slack_start_ns") X(PH_SLACK_END_NS, "slack_end_ns")	\
	X(PH_DIRTIED_PAGES, "dirtied_pages") X(PH_DIRTY_WINDOW_NS, "dirty_window_ns")	\
	LAST(PH_CAPTURE_ID, "capture_id")

enum { PHASE_COLUMNS(COL_ENUM, COL_ENUM) };

static void format_classes(const uint64_t *by_class, char *buf, size_t size)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int i = 0; i < MSC_CLASS_NR && o < size; i++)
		if (by_class[i])
			o += (size_t)snprintf(buf + o, size - o, "%s%s=%llu", o ? " " : "",
					      msc_spte_class_name(i),
					      (unsigned long long)by_class[i]);
}

static void parse_classes(const char *text, uint64_t *by_class)
{
	char name[32];
	unsigned long long n;
	int len;

	while (text && sscanf(text, " %31[^=]=%llu%n", name, &n, &len) == 2) {
		int c = msc_spte_class_lookup(name);

		if (c >= 0)
			by_class[c] = n;
		text += len;
	}
}

/* Bind phase @p's values, each at its column's PH_ index + 1. */
static void bind_phase(sqlite3_stmt *st, const struct msc_phase *p, bool open,
		       const char *classes)
{
#define B(col) (PH_##col + 1)
	sqlite3_bind_int64(st, B(ID), p->id);
	sqlite3_bind_text(st, B(KIND), msc_phase_kind_name(p->kind), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, B(SOURCE), msc_phase_source_name(p->source), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, B(NAME), p->name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, B(OPEN), open);
	bind_u64(st, B(START_TS), p->start_ts);
	bind_u64(st, B(END_TS), p->end_ts);
	sqlite3_bind_int64(st, B(START_SEQ), p->start_seq);
	sqlite3_bind_int64(st, B(END_SEQ), p->end_seq);
	if (p->count.gfn_first <= p->count.gfn_last) {
		bind_u64(st, B(GFN_FIRST), p->count.gfn_first);
		bind_u64(st, B(GFN_LAST), p->count.gfn_last);
	}
	bind_u64(st, B(SPTE_CHANGES), p->count.spte_changes);
	sqlite3_bind_text(st, B(CLASSES), classes, -1, SQLITE_TRANSIENT);
	bind_u64(st, B(SPLITS), p->count.splits);
	bind_u64(st, B(SPLIT_FAILURES), p->count.split_failures);
	bind_u64(st, B(PAGES_SPLIT), p->count.pages_split);
	bind_u64(st, B(PAGES_PROMOTED), p->count.pages_promoted);
	bind_u64(st, B(CHILDREN_SYNTHESIZED), p->count.children_synthesized);
	bind_u64(st, B(FAULTS_SLOW), p->count.faults_slow);
	bind_u64(st, B(FAULTS_FAST), p->count.faults_fast);
	if (p->count.flushes >= 0)
		sqlite3_bind_int64(st, B(FLUSHES), p->count.flushes);
	bind_u64(st, B(ZAPS), p->count.zaps);
	bind_u64(st, B(REFAULTS), p->count.refaults);
	bind_u64(st, B(REGION_SPLIT_NS), p->region_split_ns);
	if (p->to_huge_ns >= 0)
		sqlite3_bind_int64(st, B(TO_HUGE_NS), p->to_huge_ns);
	for (int l = 1; l <= 3; l++) {
		sqlite3_bind_int64(st, B(BEFORE_4K) + l - 1, p->before.pages[l]);
		sqlite3_bind_int64(st, B(AFTER_4K) + l - 1, p->after.pages[l]);
	}
	sqlite3_bind_int(st, B(CENSUS_FLAGS), (int)p->after.flags);
	bind_u64(st, B(FAULTS_SPURIOUS), p->count.faults_spurious);
	sqlite3_bind_int64(st, B(VM), p->vm);
	if (p->count.pages_split_level[2] >= 0)
		sqlite3_bind_int64(st, B(PAGES_SPLIT_2M), p->count.pages_split_level[2]);
	if (p->count.pages_split_level[3] >= 0)
		sqlite3_bind_int64(st, B(PAGES_SPLIT_1G), p->count.pages_split_level[3]);
	sqlite3_bind_text(st, B(BOUNDS), msc_phase_bounds_name(p->bounds), -1, SQLITE_STATIC);
	bind_u64(st, B(SLACK_START_NS), p->slack_start_ns);
	bind_u64(st, B(SLACK_END_NS), p->slack_end_ns);
	if (p->dirtied >= 0)
		sqlite3_bind_int64(st, B(DIRTIED_PAGES), p->dirtied);
	if (p->dirtied >= 0 && p->dirty_window_ns)
		bind_u64(st, B(DIRTY_WINDOW_NS), p->dirty_window_ns);
#undef B
}

/**
 * hstore_put_phases - replace the capture's phases by @p
 * @open: whether each is still open
 */
int hstore_put_phases(struct hstore *hs, int64_t capture_id, const struct msc_phase *p,
		      const bool *open, size_t nr)
{
	sqlite3_stmt *st = NULL;
	char sql[2048];
	int r = exec_capture(hs, "DELETE FROM phase WHERE capture_id = ?1", capture_id);

	snprintf(sql, sizeof(sql), "INSERT INTO phase (%s) VALUES (%s)", COLS(PHASE_COLUMNS),
		 PARAMS(PHASE_COLUMNS));
	if (!r)
		r = msc_store_prepare(hs->s, sql, &st);
	for (size_t i = 0; i < nr && !r; i++) {
		char classes[512];

		format_classes(p[i].count.by_class, classes, sizeof(classes));
		sqlite3_clear_bindings(st);
		bind_phase(st, &p[i], open[i], classes);
		sqlite3_bind_int64(st, PH_CAPTURE_ID + 1, capture_id);
		r = put(hs, st);
	}
	sqlite3_finalize(st);
	return r;
}

/* The phase in @st's current row (a SELECT of COLS(PHASE_COLUMNS)): each column at its PH_ index. */
static void read_phase(sqlite3_stmt *st, struct msc_phase *p, bool *ret_open)
{
	const char *kind = (const char *)sqlite3_column_text(st, PH_KIND);
	const char *source = (const char *)sqlite3_column_text(st, PH_SOURCE);
	const char *bounds = (const char *)sqlite3_column_text(st, PH_BOUNDS);

	memset(p, 0, sizeof(*p));
	p->id = sqlite3_column_int64(st, PH_ID);
	for (int k = 0; k < MSC_PHASE_KIND_NR; k++)
		if (kind && !strcmp(kind, msc_phase_kind_name(k)))
			p->kind = (uint8_t)k;
	for (int k = 0; k < MSC_PHASE_SRC_NR; k++)
		if (source && !strcmp(source, msc_phase_source_name(k)))
			p->source = (uint8_t)k;
	snprintf(p->name, sizeof(p->name), "%s", (const char *)sqlite3_column_text(st, PH_NAME));
	*ret_open = sqlite3_column_int(st, PH_OPEN);
	p->start_ts = column_u64(st, PH_START_TS);
	p->end_ts = column_u64(st, PH_END_TS);
	p->start_seq = sqlite3_column_int64(st, PH_START_SEQ);
	p->end_seq = sqlite3_column_int64(st, PH_END_SEQ);
	p->count.gfn_first = UINT64_MAX;
	if (sqlite3_column_type(st, PH_GFN_FIRST) != SQLITE_NULL) {
		p->count.gfn_first = column_u64(st, PH_GFN_FIRST);
		p->count.gfn_last = column_u64(st, PH_GFN_LAST);
	}
	p->count.spte_changes = column_u64(st, PH_SPTE_CHANGES);
	parse_classes((const char *)sqlite3_column_text(st, PH_CLASSES), p->count.by_class);
	p->count.splits = column_u64(st, PH_SPLITS);
	p->count.split_failures = column_u64(st, PH_SPLIT_FAILURES);
	p->count.pages_split = column_u64(st, PH_PAGES_SPLIT);
	p->count.pages_promoted = column_u64(st, PH_PAGES_PROMOTED);
	p->count.children_synthesized = column_u64(st, PH_CHILDREN_SYNTHESIZED);
	p->count.faults_slow = column_u64(st, PH_FAULTS_SLOW);
	p->count.faults_fast = column_u64(st, PH_FAULTS_FAST);
	p->count.flushes = column_int_or(st, PH_FLUSHES, -1);
	p->count.zaps = column_u64(st, PH_ZAPS);
	p->count.refaults = column_u64(st, PH_REFAULTS);
	p->region_split_ns = column_u64(st, PH_REGION_SPLIT_NS);
	p->to_huge_ns = column_int_or(st, PH_TO_HUGE_NS, -1);
	for (int l = 1; l <= 3; l++) {
		p->before.pages[l] = sqlite3_column_int64(st, PH_BEFORE_4K + l - 1);
		p->after.pages[l] = sqlite3_column_int64(st, PH_AFTER_4K + l - 1);
	}
	p->after.flags = p->before.flags = (unsigned int)sqlite3_column_int(st, PH_CENSUS_FLAGS);
	p->count.faults_spurious = column_u64(st, PH_FAULTS_SPURIOUS);
	p->vm = sqlite3_column_int64(st, PH_VM);
	p->count.pages_split_level[2] = column_int_or(st, PH_PAGES_SPLIT_2M, -1);
	p->count.pages_split_level[3] = column_int_or(st, PH_PAGES_SPLIT_1G, -1);
	for (int k = 0; k < MSC_BOUNDS_NR; k++)
		if (!strcmp(bounds ?: "", msc_phase_bounds_name(k)))
			p->bounds = (uint8_t)k;
	p->slack_start_ns = column_u64(st, PH_SLACK_START_NS);
	p->slack_end_ns = column_u64(st, PH_SLACK_END_NS);
	p->dirtied = column_int_or(st, PH_DIRTIED_PAGES, -1);
	p->dirty_window_ns = column_u64(st, PH_DIRTY_WINDOW_NS);
	/* which bound is exact: a bounded phase's start (a kprobe at its entry) */
	p->exact = p->bounds == MSC_BOUNDS_EXACT ? MSC_EXACT_START | MSC_EXACT_END :
		   p->bounds == MSC_BOUNDS_BOUNDED ? (p->slack_start_ns ? MSC_EXACT_END : MSC_EXACT_START) : 0;
	p->before.ts = p->start_ts;
	p->after.ts = p->end_ts;
}

/**
 * hstore_read_phases - the capture's phases, by id
 * @ret_open: whether each is still open, or NULL
 */
int hstore_read_phases(struct msc_store *s, int64_t capture_id, struct msc_phase **ret,
		       bool **ret_open, size_t *ret_nr)
{
	struct msc_phase *v = NULL, *p;
	bool *open = NULL, *o;
	size_t nr = 0;
	sqlite3_stmt *st;
	char sql[2048];
	int r;

	snprintf(sql, sizeof(sql), "SELECT %s FROM phase WHERE capture_id = ? ORDER BY id",
		 COLS(PHASE_COLUMNS));
	r = msc_store_prepare(s, sql, &st);
	if (r)
		return r;
	sqlite3_bind_int64(st, 1, capture_id);
	while ((r = msc_store_step(s, st)) == 1) {
		p = realloc(v, (nr + 1) * sizeof(*v));
		o = p ? realloc(open, (nr + 1) * sizeof(*open)) : NULL;
		if (p)
			v = p;
		if (!o) {
			r = -ENOMEM;
			break;
		}
		open = o;
		read_phase(st, &v[nr], &open[nr]);
		nr++;
	}
	sqlite3_finalize(st);
	if (r < 0) {
		free(v);
		free(open);
		return r;
	}
	*ret = v;
	*ret_nr = nr;
	if (ret_open)
		*ret_open = open;
	else
		free(open);
	return 0;
}

/**
 * hstore_build_regions - regions from the 2M cells seen, and each phase's
 *	coverage of them at its end (store-regions.c)
 */
int hstore_build_regions(struct hstore *hs, int64_t capture_id)
{
	struct msc_phase *ph = NULL;
	size_t nr = 0;
	int r = exec_capture(hs, "DELETE FROM region WHERE capture_id = ?1", capture_id);

	if (!r)
		r = exec_capture(hs, "DELETE FROM phase_region WHERE capture_id = ?1", capture_id);
	if (!r)
		r = hstore_read_phases(hs->s, capture_id, &ph, NULL, &nr);
	if (!r)
		r = hregions_build(hs->s, capture_id,
				   capture_id == hs->cells_capture ? hs->cells : NULL, ph, nr);
	free(ph);
	/* sorted now: a later build reads the table */
	hcell_log_free(hs->cells);
	hs->cells = NULL;
	return r;
}

/** hstore_finish - write what is held; the indexes unless they are deferred */
int hstore_finish(struct hstore *hs, bool indexes)
{
	int r = msc_store_begin(hs->s);

	if (!r)
		r = flush_batches(hs);
	if (!r && indexes)
		r = msc_store_exec(hs->s, index_sql);
	return r;
}

/* Table @t's columns in @schema, quoted, in their order: into @buf ("" none) */
static int columns_of(struct msc_store *dst, const char *t, const char *schema, char *buf,
		      size_t size)
{
	sqlite3_stmt *st;
	int r = msc_store_prepare(dst, "SELECT group_concat('\"' || replace(name, '\"', '\"\"') || "
				  "'\"', ', ') FROM pragma_table_info(?, ?)", &st);

	buf[0] = '\0';
	if (r)
		return r;
	sqlite3_bind_text(st, 1, t, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, schema, -1, SQLITE_STATIC);
	r = msc_store_step(dst, st);
	if (r == 1 && sqlite3_column_text(st, 0) &&
	    snprintf(buf, size, "%s", (const char *)sqlite3_column_text(st, 0)) >= (int)size)
		r = -E2BIG;
	sqlite3_finalize(st);
	return r < 0 ? r : buf[0] ? 0 : MSC_ERR_SQL;	/* no such table: not a file of ours */
}

/*
 * Copy table @t of the attached analysis into main.  Both files are this
 * program's, so their columns are the same, in the same order: then the
 * copy is SQLite's transfer of whole records (INSERT ... SELECT *), about
 * 30 instructions an event cheaper than one row at a time.  Where they are
 * not, it goes column by name.  @t is one of the constants above, never
 * data; the column names come quoted from the files' own schemas.
 */
static int merge_table(struct msc_store *dst, const char *t)
{
	char mine[2048], theirs[2048], sql[4500];
	int r = columns_of(dst, t, "main", mine, sizeof(mine));

	if (!r)
		r = columns_of(dst, t, "analysis", theirs, sizeof(theirs));
	if (r)
		return r;
	if (!strcmp(mine, theirs))
		snprintf(sql, sizeof(sql), "INSERT INTO main.%s SELECT * FROM analysis.%s", t, t);
	else
		snprintf(sql, sizeof(sql), "INSERT INTO main.%s (%s) SELECT %s FROM analysis.%s", t,
			 mine, mine, t);
	return msc_store_exec(dst, sql);
}

/**
 * msc_history_merge - bring an analysis written to its own database in
 * @dst: the events' database: new, its analysis tables still empty
 * @analysis_path: the analysis database (same schema), finished and closed
 *
 * Into empty tables SQLite copies the rows as they are (its transfer
 * optimization), much faster than inserting them; the indexes are built
 * after (copying them costs as much as building them).  Returns 0 or a
 * negative error.
 */
int msc_history_merge(struct msc_store *dst, const char *analysis_path)
{
	sqlite3_stmt *st;
	int r = msc_store_commit(dst);

	if (!r)
		r = msc_store_prepare(dst, "ATTACH ? AS analysis", &st);
	if (r)
		return r;
	sqlite3_bind_text(st, 1, analysis_path, -1, SQLITE_STATIC);
	r = msc_store_step(dst, st);
	sqlite3_finalize(st);
	if (r < 0)
		return r;
	r = msc_store_exec(dst, "BEGIN");
	/* built after (schema steps 13 and 14 make them with the tables) */
	r = r ?: msc_store_exec(dst, "DROP INDEX IF EXISTS main.mapping_run_gfn;"
				"DROP INDEX IF EXISTS main.region_state_gfn");
	for (size_t i = 0; i < ARRAY_SIZE(analysis_tables) && !r; i++)
		r = merge_table(dst, analysis_tables[i]);
	r = r ?: msc_store_exec(dst, index_sql);
	r = r ?: msc_store_exec(dst, "COMMIT");
	if (r)
		msc_store_exec(dst, "ROLLBACK");
	msc_store_exec(dst, "DETACH analysis");
	return r;
}

/* ---- the read API of history.h ---- */

struct msc_hview {
	struct msc_store *s;	/* borrowed */
	int64_t capture_id;
	/* the address spaces of each VM with census rows */
	struct {
		int64_t vm;
		uint8_t as_id;
	} *spaces;
	size_t nr_spaces;
	sqlite3_stmt *census_at;
};

/**
 * msc_hview_open - read what the analysis of a capture rebuilt
 * @s: the store (read-only is fine)
 * @capture_id: the capture; <= 0: the last one analyzed
 * @ret: the view, closed with msc_hview_close()
 *
 * Returns 0, -ENOENT when the capture was never analyzed, or a negative
 * error.
 */
int msc_hview_open(struct msc_store *s, int64_t capture_id, struct msc_hview **ret)
{
	struct msc_hview *v;
	sqlite3_stmt *st;
	int r;

	r = msc_store_prepare(s, capture_id > 0 ?
			      "SELECT capture_id FROM analysis WHERE capture_id = ? AND last_seq >= -1" :
			      "SELECT max(capture_id) FROM analysis WHERE last_seq >= -1 AND ? <= 0", &st);
	if (r)
		return r;
	sqlite3_bind_int64(st, 1, capture_id);
	r = msc_store_step(s, st);
	if (r == 1 && sqlite3_column_type(st, 0) != SQLITE_NULL)
		capture_id = sqlite3_column_int64(st, 0);
	else if (r >= 0)
		r = -ENOENT;
	sqlite3_finalize(st);
	if (r < 0)
		return r;
	v = calloc(1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	v->s = s;
	v->capture_id = capture_id;
	r = msc_store_prepare(s, "SELECT DISTINCT vm, as_id FROM census WHERE capture_id = ?",
			      &st);
	if (!r) {
		sqlite3_bind_int64(st, 1, capture_id);
		while ((r = msc_store_step(s, st)) == 1) {
			void *p = realloc(v->spaces, (v->nr_spaces + 1) * sizeof(*v->spaces));

			if (!p) {
				r = -ENOMEM;
				break;
			}
			v->spaces = p;
			v->spaces[v->nr_spaces].vm = sqlite3_column_int64(st, 0);
			v->spaces[v->nr_spaces++].as_id = (uint8_t)sqlite3_column_int(st, 1);
		}
		sqlite3_finalize(st);
	}
	if (r >= 0)
		r = msc_store_prepare(s, "SELECT ts, pages_4k, pages_2m, pages_1g, flags FROM census "
				      "WHERE capture_id = ? AND as_id = ? AND ts <= ? AND vm = ? "
				      "ORDER BY ts DESC, seq DESC LIMIT 1", &v->census_at);
	if (r < 0) {
		msc_hview_close(v);
		return r;
	}
	*ret = v;
	return 0;
}

void msc_hview_close(struct msc_hview *v)
{
	if (!v)
		return;
	sqlite3_finalize(v->census_at);
	free(v->spaces);
	free(v);
}

/** msc_hview_summary - the analysis row of the capture */
int msc_hview_summary(struct msc_hview *v, struct msc_history_summary *ret)
{
	bool found;
	int r = load_summary(v->s, v->capture_id, ret, NULL, 0, &found);

	if (!r && !found)
		r = -ENOENT;
	return r;
}

/**
 * msc_hview_census_at - the census after the changes up to @ts, every VM's
 *
 * One index lookup per address space of each VM: a VM's census is its own
 * tables' (a VM gone has none left).  Returns 0 or a negative error.
 */
int msc_hview_census_at(struct msc_hview *v, uint64_t ts, struct msc_census *ret)
{
	return msc_hview_vm_census_at(v, 0, ts, ret);
}

/** msc_hview_vm_census_at - msc_hview_census_at() of VM @vm alone (0: every VM's) */
int msc_hview_vm_census_at(struct msc_hview *v, int64_t vm, uint64_t ts, struct msc_census *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->ts = ts;
	for (size_t a = 0; a < v->nr_spaces; a++) {
		sqlite3_stmt *st = v->census_at;
		int r;

		if (vm && v->spaces[a].vm != vm)
			continue;
		sqlite3_bind_int64(st, 1, v->capture_id);
		sqlite3_bind_int(st, 2, v->spaces[a].as_id);
		bind_u64(st, 3, ts);
		sqlite3_bind_int64(st, 4, v->spaces[a].vm);
		r = msc_store_step(v->s, st);
		if (r == 1) {
			for (int l = 1; l <= MSC_HISTORY_MAX_LEVEL; l++)
				ret->pages[l] += sqlite3_column_int64(st, l);
			ret->flags |= (unsigned int)sqlite3_column_int(st, 4);
			sqlite3_reset(st);
		}
		if (r < 0)
			return r;
	}
	return 0;
}

/** msc_hview_phases - every phase, by id (start order) */
int msc_hview_phases(struct msc_hview *v, struct msc_phase **ret, size_t *ret_nr)
{
	return hstore_read_phases(v->s, v->capture_id, ret, NULL, ret_nr);
}

#define REGION_COLUMNS(X, LAST)							\
	X(GC_ID, "id") X(GC_AS_ID, "as_id") X(GC_FIRST, "gfn_first") X(GC_END, "gfn_end")	\
	X(GC_EXACT, "exact") LAST(GC_VM, "vm")
enum { REGION_COLUMNS(COL_ENUM, COL_ENUM) };

static void fill_region(sqlite3_stmt *st, void *row)
{
	*(struct msc_region *)row = (struct msc_region){
		.id = sqlite3_column_int64(st, GC_ID),
		.as_id = (uint8_t)sqlite3_column_int(st, GC_AS_ID),
		.gfn_first = column_u64(st, GC_FIRST), .gfn_end = column_u64(st, GC_END),
		.exact = sqlite3_column_int(st, GC_EXACT), .vm = sqlite3_column_int64(st, GC_VM),
	};
}

/** msc_hview_regions - the GFN regions of the capture */
int msc_hview_regions(struct msc_hview *v, struct msc_region **ret, size_t *ret_nr)
{
	int r;

	*ret = msc_store_capture_rows(v->s, v->capture_id, "SELECT " COLS(REGION_COLUMNS) " FROM region "
			    "WHERE capture_id = ? ORDER BY id", sizeof(**ret), fill_region, ret_nr, &r);
	return r;
}

#define COVERAGE_COLUMNS(X, LAST)							\
	X(PR_REGION, "region_id") X(PR_4K, "pages_4k") X(PR_2M, "pages_2m")		\
	X(PR_1G, "pages_1g") LAST(PR_DIRTIED, "dirtied_pages")
enum { COVERAGE_COLUMNS(COL_ENUM, COL_ENUM) };

static void fill_coverage(sqlite3_stmt *st, void *row)
{
	struct msc_coverage *c = row;

	c->region_id = sqlite3_column_int64(st, PR_REGION);
	for (int l = 1; l <= 3; l++)
		c->pages[l] = column_u64(st, PR_4K + l - 1);
	/* a 1G leaf shows in each of its 512 cells */
	c->pages[3] /= 512;
	c->dirtied = column_int_or(st, PR_DIRTIED, -1);
}

/**
 * msc_hview_phase_coverage - leaves per size in each region at a phase's end,
 *	and the pages the phase dirtied in it
 */
int msc_hview_phase_coverage(struct msc_hview *v, int64_t phase_id, struct msc_coverage **ret,
			     size_t *ret_nr)
{
	sqlite3_stmt *st;
	int r = msc_store_prepare(v->s, "SELECT " COLS(COVERAGE_COLUMNS) " FROM phase_region "
				  "WHERE capture_id = ? AND phase_id = ? ORDER BY region_id", &st);

	if (r)
		return r;
	sqlite3_bind_int64(st, 1, v->capture_id);
	sqlite3_bind_int64(st, 2, phase_id);
	*ret = msc_store_collect_rows(v->s, st, sizeof(**ret), fill_coverage, ret_nr, &r);
	return r;
}

/**
 * msc_hview_phase_harvest - what the harvest events between a phase's first
 *	and last event say (all zero on a kernel without the patch)
 */
int msc_hview_phase_harvest(struct msc_hview *v, const struct msc_phase *p,
			    struct msc_harvest_sum *ret)
{
	sqlite3_stmt *st;
	int r = msc_store_prepare(v->s, "SELECT count(*), total(op = 'get'), total(op = 'clear'), "
				  "total(npages), total(dirty), total(dirty * protect), "
				  "total(duration_ns) FROM harvest WHERE seq BETWEEN ? AND ?", &st);

	*ret = (struct msc_harvest_sum){ 0 };
	if (r)
		return r;
	sqlite3_bind_int64(st, 1, p->start_seq);
	sqlite3_bind_int64(st, 2, p->end_seq);
	r = sqlite3_step(st);
	if (r == SQLITE_ROW) {
		uint64_t *f[] = { &ret->ioctls, &ret->gets, &ret->clears, &ret->pages,
				  &ret->dirty, &ret->rearmed, &ret->kernel_ns };

		for (int i = 0; i < (int)ARRAY_SIZE(f); i++)
			*f[i] = (uint64_t)sqlite3_column_double(st, i);
		r = 0;
	} else {
		r = msc_store_error(v->s, r);
	}
	sqlite3_finalize(st);
	return r;
}

struct gfn_rows {
	struct msc_interval *rows;
	size_t nr, alloc;
};

static int gfn_row(const struct msc_interval *iv, void *ctx)
{
	struct gfn_rows *g = ctx;

	if (g->nr == g->alloc) {
		size_t alloc = g->alloc ? 2 * g->alloc : 16;
		struct msc_interval *p = realloc(g->rows, alloc * sizeof(*p));

		if (!p)
			return -ENOMEM;
		g->rows = p;
		g->alloc = alloc;
	}
	g->rows[g->nr++] = *iv;
	return 0;
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

/* By start, the larger entry first, then (ties of zero-length intervals) by end. */
static int cmp_interval(const void *pa, const void *pb)
{
	const struct msc_interval *a = pa, *b = pb;

	return cmp_u64(a->start_ts, b->start_ts) ?: (b->level - a->level) ?:
	       cmp_u64(a->end_ts, b->end_ts) ?: (a->start_cause - b->start_cause) ?:
	       (a->end_cause - b->end_cause) ?: cmp_u64(a->spte, b->spte);
}

/**
 * msc_hview_gfn_history - what happened to one GFN of VM @vm (0: of any):
 *	the intervals of the 4K, 2M and 1G entries covering it, by start time
 *
 * Per level, two seeks on mapping_run_gfn in the page table holding the
 * entry: the entry's runs of one, and the table's runs of more (the
 * table's single rows of other entries, e.g. the 512 page-table entries
 * of a 2M table, are never read).
 */
int msc_hview_gfn_history(struct msc_hview *v, int64_t vm, uint8_t as_id, uint64_t gfn,
			  struct msc_interval **ret, size_t *ret_nr)
{
	struct gfn_rows g = { 0 };
	sqlite3_stmt *st;
	int r = msc_store_prepare(v->s, "SELECT " RUN_COLS " FROM " RUN_FROM " "
				  "WHERE r.gfn = ?3 AND r.level = ?4 AND r.n = 1 AND r.first = ?5 "
				  "AND r.capture_id = ?1 AND r.as_id = ?2 AND (?6 = 0 OR r.vm = ?6) "
				  "UNION ALL SELECT " RUN_COLS " FROM " RUN_FROM " "
				  "WHERE r.gfn = ?3 AND r.level = ?4 AND r.n > 1 "
				  "AND r.capture_id = ?1 AND r.as_id = ?2 AND (?6 = 0 OR r.vm = ?6)", &st);

	if (r)
		return r;
	for (unsigned int l = 1; l <= 3 && r >= 0; l++) {
		int index = (int)((gfn >> (9 * (l - 1))) & (HNODE_ENTRIES - 1));

		sqlite3_bind_int64(st, 1, v->capture_id);
		sqlite3_bind_int(st, 2, as_id);
		bind_u64(st, 3, gfn & ~(msc_level_pages(l + 1) - 1));
		sqlite3_bind_int(st, 4, (int)l);
		sqlite3_bind_int(st, 5, index);
		sqlite3_bind_int64(st, 6, vm);
		while ((r = msc_store_step(v->s, st)) == 1) {
			r = run_intervals(st, index, gfn_row, &g);
			if (r) {
				sqlite3_reset(st);
				break;
			}
		}
	}
	sqlite3_finalize(st);
	if (r < 0) {
		free(g.rows);
		return r;
	}
	if (g.nr)
		qsort(g.rows, g.nr, sizeof(*g.rows), cmp_interval);
	*ret = g.rows;
	*ret_nr = g.nr;
	return 0;
}

/* The activity counters of a span: their sums, and whether flushes are traced */
#define COUNTER_COLUMNS(X, LAST)							\
	X(CC_T0, "min(ts)") X(CC_T1, "max(ts)") X(CC_SPTE, "total(spte_changes)")	\
	X(CC_MAPS, "total(maps)") X(CC_SPLITS, "total(splits)")			\
	X(CC_PROMOTIONS, "total(promotions)") X(CC_ZAPS, "total(zaps)")		\
	X(CC_WP, "total(write_protects)") X(CC_SLOW, "total(faults_slow)")		\
	X(CC_FAST, "total(faults_fast)") X(CC_FLUSHES, "total(flushes)")		\
	LAST(CC_FLUSHES_KNOWN, "(SELECT count(*) FROM phase WHERE capture_id = ?1 "	\
			       "AND flushes IS NOT NULL)")
enum { COUNTER_COLUMNS(COL_ENUM, COL_ENUM) };
#define COUNTERS_SQL(table, where)							\
	"SELECT " COLS(COUNTER_COLUMNS) " FROM " table					\
	" WHERE capture_id = ?1 AND ts BETWEEN ?2 AND ?3" where

static int counters(struct msc_hview *v, const char *sql, const int32_t *pid, uint64_t t0,
		    uint64_t t1, struct msc_counters *ret)
{
	sqlite3_stmt *st;
	int r = msc_store_prepare(v->s, sql, &st);

	if (r)
		return r;
	sqlite3_bind_int64(st, 1, v->capture_id);
	bind_u64(st, 2, t0);
	bind_u64(st, 3, t1);
	if (pid)
		sqlite3_bind_int(st, 4, *pid);
	r = msc_store_step(v->s, st);
	if (r == 1) {
		*ret = (struct msc_counters){
			.t0 = column_u64(st, CC_T0), .t1 = column_u64(st, CC_T1),
			.spte_changes = (uint64_t)sqlite3_column_double(st, CC_SPTE),
			.maps = (uint64_t)sqlite3_column_double(st, CC_MAPS),
			.splits = (uint64_t)sqlite3_column_double(st, CC_SPLITS),
			.promotions = (uint64_t)sqlite3_column_double(st, CC_PROMOTIONS),
			.zaps = (uint64_t)sqlite3_column_double(st, CC_ZAPS),
			.write_protects = (uint64_t)sqlite3_column_double(st, CC_WP),
			.faults_slow = (uint64_t)sqlite3_column_double(st, CC_SLOW),
			.faults_fast = (uint64_t)sqlite3_column_double(st, CC_FAST),
			.flushes = sqlite3_column_int(st, CC_FLUSHES_KNOWN) ?
				   (int64_t)sqlite3_column_double(st, CC_FLUSHES) : -1,
		};
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return r < 0 ? r : 0;
}

/**
 * msc_hview_counters - activity in [t0, t1], at activity-bucket resolution
 */
int msc_hview_counters(struct msc_hview *v, uint64_t t0, uint64_t t1, struct msc_counters *ret)
{
	return counters(v, COUNTERS_SQL("activity", ""), NULL, t0, t1, ret);
}

/**
 * msc_hview_task_counters - the activity of task @pid in [t0, t1]
 *
 * Its part of msc_hview_counters(): what the events of @pid cost.
 */
int msc_hview_task_counters(struct msc_hview *v, int32_t pid, uint64_t t0, uint64_t t1,
			    struct msc_counters *ret)
{
	return counters(v, COUNTERS_SQL("task_activity", " AND pid = ?4"), &pid, t0, t1, ret);
}

/* A task's activity over the capture, and its name */
#define TASK_COLUMNS(X, LAST)								\
	X(TC_PID, "a.pid") X(TC_VCPU, "min(a.vcpu)") X(TC_VCPUS, "count(DISTINCT a.vcpu)")	\
	X(TC_FIRST_TS, "min(a.ts)") X(TC_LAST_TS, "max(a.ts)")				\
	X(TC_SPTE, "total(a.spte_changes)") X(TC_FAULTS, "total(a.faults_slow + a.faults_fast)") \
	LAST(TC_COMM, "(SELECT t.comm FROM task t WHERE t.capture_id = a.capture_id "	\
		      "AND t.pid = a.pid)")
enum { TASK_COLUMNS(COL_ENUM, COL_ENUM) };

static void fill_task(sqlite3_stmt *st, void *row)
{
	const char *comm = (const char *)sqlite3_column_text(st, TC_COMM);
	struct msc_task *t = row;

	*t = (struct msc_task){
		.pid = sqlite3_column_int(st, TC_PID),
		.vcpu = sqlite3_column_type(st, TC_VCPU) == SQLITE_NULL ? -1 :
			sqlite3_column_int(st, TC_VCPU),
		.vcpus = (uint32_t)sqlite3_column_int(st, TC_VCPUS),
		.first_ts = column_u64(st, TC_FIRST_TS), .last_ts = column_u64(st, TC_LAST_TS),
		.spte_changes = (uint64_t)sqlite3_column_double(st, TC_SPTE),
		.faults = (uint64_t)sqlite3_column_double(st, TC_FAULTS),
	};
	snprintf(t->comm, sizeof(t->comm), "%s", comm ? comm : "");
}

/**
 * msc_hview_tasks - the tasks that did anything, vCPUs first (by vCPU id),
 *	then the others by pid
 */
int msc_hview_tasks(struct msc_hview *v, struct msc_task **ret, size_t *ret_nr)
{
	int r;

	*ret = msc_store_capture_rows(v->s, v->capture_id,
			    "SELECT " COLS(TASK_COLUMNS) " "
			    "FROM task_activity a WHERE a.capture_id = ?1 GROUP BY a.pid "
			    "ORDER BY min(a.vcpu) IS NULL, min(a.vcpu), a.pid",
			    sizeof(**ret), fill_task, ret_nr, &r);
	return r;
}

static void fill_lost_mark(sqlite3_stmt *st, void *row)
{
	*(struct msc_lost_mark *)row = (struct msc_lost_mark){ .ts = column_u64(st, 0),
		.cpu = (uint16_t)sqlite3_column_int(st, 1), .count = column_u64(st, 2) };
}

/** msc_hview_lost_marks - the lost-event gaps of the capture */
int msc_hview_lost_marks(struct msc_hview *v, struct msc_lost_mark **ret, size_t *ret_nr)
{
	int r;

	*ret = msc_store_capture_rows(v->s, v->capture_id, "SELECT l.ts, l.cpu, l.count FROM lost_events l, "
			    "capture c WHERE c.id = ? AND l.seq BETWEEN c.first_seq AND c.last_seq "
			    "ORDER BY l.seq", sizeof(**ret), fill_lost_mark, ret_nr, &r);
	return r;
}

#define ANOMALY_COLUMNS(X, LAST)							\
	X(AC_SEQ, "seq") X(AC_TS, "ts") X(AC_KIND, "kind") X(AC_AS_ID, "as_id")		\
	X(AC_GFN, "gfn") X(AC_LEVEL, "level") X(AC_OLD, "old_spte") X(AC_NEW, "new_spte")	\
	X(AC_DETAIL, "detail") LAST(AC_VM, "vm")
enum { ANOMALY_COLUMNS(COL_ENUM, COL_ENUM) };

static void fill_anomaly(sqlite3_stmt *st, void *row)
{
	const char *kind = (const char *)sqlite3_column_text(st, AC_KIND);
	struct msc_anomaly *a = row;

	a->seq = sqlite3_column_int64(st, AC_SEQ);
	a->ts = column_u64(st, AC_TS);
	for (int k = 0; k < MSC_ANOMALY_KIND_NR; k++)
		if (kind && !strcmp(kind, msc_anomaly_kind_name(k)))
			a->kind = (uint8_t)k;
	a->as_id = (uint8_t)sqlite3_column_int(st, AC_AS_ID);
	a->gfn = column_u64(st, AC_GFN);
	a->level = (uint8_t)sqlite3_column_int(st, AC_LEVEL);
	a->old_spte = column_u64(st, AC_OLD);
	a->new_spte = column_u64(st, AC_NEW);
	snprintf(a->detail, sizeof(a->detail), "%s",
		 (const char *)sqlite3_column_text(st, AC_DETAIL));
	a->vm = sqlite3_column_int64(st, AC_VM);
}

/** msc_hview_anomalies - the first @max anomaly rows, by seq */
int msc_hview_anomalies(struct msc_hview *v, size_t max, struct msc_anomaly **ret,
			size_t *ret_nr)
{
	sqlite3_stmt *st;
	int r = msc_store_prepare(v->s, "SELECT " COLS(ANOMALY_COLUMNS) " FROM anomaly "
				  "WHERE capture_id = ? ORDER BY seq, rowid LIMIT ?", &st);

	if (r)
		return r;
	sqlite3_bind_int64(st, 1, v->capture_id);
	sqlite3_bind_int64(st, 2, (int64_t)min(max, (size_t)INT64_MAX));
	*ret = msc_store_collect_rows(v->s, st, sizeof(**ret), fill_anomaly, ret_nr, &r);
	return r;
}

#define KVM_STATS_COLUMNS(X, LAST)						\
	X(KC_SEQ, "seq") X(KC_TS, "ts") X(KC_PHASE, "phase") X(KC_KVM_4K, "pages_4k")	\
	X(KC_KVM_2M, "pages_2m") X(KC_KVM_1G, "pages_1g") X(KC_CENSUS_4K, "census_4k")	\
	X(KC_CENSUS_2M, "census_2m") X(KC_CENSUS_1G, "census_1g")			\
	X(KC_FLAGS, "census_flags") LAST(KC_VM, "vm")
enum { KVM_STATS_COLUMNS(COL_ENUM, COL_ENUM) };

static void fill_kvm_stats(sqlite3_stmt *st, void *row)
{
	struct msc_kvm_stats *k = row;

	k->seq = sqlite3_column_int64(st, KC_SEQ);
	k->ts = column_u64(st, KC_TS);
	snprintf(k->phase, sizeof(k->phase), "%s", (const char *)sqlite3_column_text(st, KC_PHASE));
	for (int l = 1; l <= 3; l++) {
		k->kvm[l] = column_int_or(st, KC_KVM_4K + l - 1, -1);
		k->census[l] = sqlite3_column_int64(st, KC_CENSUS_4K + l - 1);
	}
	k->census_flags = (unsigned int)sqlite3_column_int(st, KC_FLAGS);
	k->vm = sqlite3_column_int64(st, KC_VM);
}

/* The vm table's columns: read at their VC_ index, bound at VC_ + 2 (after capture_id) */
#define VM_COLUMNS(X, LAST)								\
	X(VC_ID, "id") X(VC_SOURCE, "source") X(VC_OVERLAP, "overlap") X(VC_PID, "pid")	\
	X(VC_FD, "fd") X(VC_KERNEL_ID, "kernel_vm_id") X(VC_KERNEL_PID, "kernel_vm_pid")	\
	X(VC_START_TS, "start_ts") X(VC_END_TS, "end_ts") X(VC_START_SEQ, "start_seq")	\
	LAST(VC_END_SEQ, "end_seq")
enum { VM_COLUMNS(COL_ENUM, COL_ENUM) };
#define VM_COLS COLS(VM_COLUMNS)

static void bind_or_null(sqlite3_stmt *st, int c, int64_t v, bool known)
{
	if (known)
		sqlite3_bind_int64(st, c, v);
	else
		sqlite3_bind_null(st, c);
}

/** hstore_put_vms - replace the capture's VMs by @vms */
int hstore_put_vms(struct hstore *hs, int64_t capture_id, const struct msc_vm *vms, size_t nr)
{
	sqlite3_stmt *st = NULL;
	int r = exec_capture(hs, "DELETE FROM vm WHERE capture_id = ?1", capture_id);

	if (!r)
		r = msc_store_prepare(hs->s, "INSERT INTO vm (capture_id, " VM_COLS ") VALUES "
				      "(?,?,?,?,?,?,?,?,?,?,?,?)", &st);
	for (size_t i = 0; i < nr && !r; i++) {
		const struct msc_vm *vm = &vms[i];

#define B(col) (col + 2)
		sqlite3_bind_int64(st, 1, capture_id);
		sqlite3_bind_int64(st, B(VC_ID), vm->id);
		sqlite3_bind_text(st, B(VC_SOURCE), msc_phase_source_name(vm->source), -1,
				  SQLITE_STATIC);
		sqlite3_bind_int(st, B(VC_OVERLAP), vm->overlap);
		bind_or_null(st, B(VC_PID), vm->pid, vm->pid >= 0);
		bind_or_null(st, B(VC_FD), vm->fd, vm->fd >= 0);
		bind_or_null(st, B(VC_KERNEL_ID), vm->kernel_id, vm->kernel_id);
		bind_or_null(st, B(VC_KERNEL_PID), vm->kernel_pid, vm->kernel_id);
		bind_u64(st, B(VC_START_TS), vm->start_ts);
		bind_u64(st, B(VC_END_TS), vm->end_ts);
		sqlite3_bind_int64(st, B(VC_START_SEQ), vm->start_seq);
		sqlite3_bind_int64(st, B(VC_END_SEQ), vm->end_seq);
#undef B
		r = put(hs, st);
	}
	sqlite3_finalize(st);
	return r;
}

static void fill_vm(sqlite3_stmt *st, void *row)
{
	const char *source = (const char *)sqlite3_column_text(st, VC_SOURCE);
	struct msc_vm *vm = row;

	vm->id = sqlite3_column_int64(st, VC_ID);
	vm->source = MSC_PHASE_SRC_INFERRED;
	for (int k = 0; k < MSC_PHASE_SRC_NR; k++)
		if (source && !strcmp(source, msc_phase_source_name(k)))
			vm->source = (uint8_t)k;
	vm->overlap = sqlite3_column_int(st, VC_OVERLAP);
	vm->pid = (int32_t)column_int_or(st, VC_PID, -1);
	vm->fd = (int32_t)column_int_or(st, VC_FD, -1);
	vm->kernel_id = (uint32_t)column_int_or(st, VC_KERNEL_ID, 0);
	vm->kernel_pid = (int32_t)column_int_or(st, VC_KERNEL_PID, -1);
	vm->start_ts = column_u64(st, VC_START_TS);
	vm->end_ts = column_u64(st, VC_END_TS);
	vm->start_seq = sqlite3_column_int64(st, VC_START_SEQ);
	vm->end_seq = sqlite3_column_int64(st, VC_END_SEQ);
}

static int load_vms(struct msc_store *s, int64_t capture_id, struct msc_vm **ret, size_t *ret_nr)
{
	int r;

	*ret_nr = 0;
	*ret = msc_store_capture_rows(s, capture_id, "SELECT " VM_COLS " FROM vm WHERE capture_id = ? "
			    "ORDER BY id", sizeof(**ret), fill_vm, ret_nr, &r);
	return r;
}

/** hstore_load_vms - the VMs of an earlier run, to be continued */
int hstore_load_vms(struct hstore *hs, int64_t capture_id, struct msc_vm **ret, size_t *ret_nr)
{
	return load_vms(hs->s, capture_id, ret, ret_nr);
}

/** msc_hview_vms - the capture's VMs, in order */
int msc_hview_vms(struct msc_hview *v, struct msc_vm **ret, size_t *ret_nr)
{
	return load_vms(v->s, v->capture_id, ret, ret_nr);
}

/** msc_hview_kvm_stats - KVM's counters at each stats marker, next to the census */
int msc_hview_kvm_stats(struct msc_hview *v, struct msc_kvm_stats **ret, size_t *ret_nr)
{
	int r;

	*ret = msc_store_capture_rows(v->s, v->capture_id, "SELECT " COLS(KVM_STATS_COLUMNS) " FROM kvm_stats "
			    "WHERE capture_id = ? ORDER BY seq", sizeof(**ret), fill_kvm_stats,
			    ret_nr, &r);
	return r;
}
