/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Private to the event store (lib/store*.c): struct msc_store, its rows,
 * runs, checks and checkpointer.  What it shares with the other owners of
 * tables (the analyzer's lib/history/store*.c, the live tables) is
 * store-share.h.  Prepared statements belong to the store: prepared at
 * open (or on first use), finalized at close.
 */
#ifndef MSC_STORE_LOCAL_H
#define MSC_STORE_LOCAL_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "event-desc.h"
#include "mmuscope/event.h"
#include "mmuscope/spte.h"
#include "mmuscope/store.h"
#include "mmuscope/util.h"
#include "store-share.h"

/*
 * What a run's row holds besides its first event (store-run.c): its length,
 * the mean steps of seq and ts, each STEP field's step (by field index),
 * and where its residuals' JSON text lies in the type's run text.
 */
struct msc_run_row {
	uint32_t n;
	int64_t seq_step, ts_step;
	int64_t step[MSC_EVENT_MAX_FIELDS];
	uint32_t at_off, at_len;	/* at_len 0: NULL (n = 1) */
};

struct msc_store_runs;

struct msc_store {
	sqlite3 *db;
	char *path;
	unsigned int flags;		/* enum msc_store_flags */
	int writer_fd;			/* holds the writer lock (msc_store_writer_lock); -1 */
	bool in_txn;
	unsigned int pending;		/* events added since the last commit */
	unsigned int batch;		/* commit every batch events; 0: only when asked */
	sqlite3_stmt *insert_one[MSC_EV_NR];	/* one-row INSERT per event type */
	sqlite3_stmt *insert_multi[MSC_EV_NR];	/* MSC_STORE_MULTI-row INSERT */
	struct msc_store_row *row[MSC_EV_NR];	/* each type's row, compiled on first use */
	struct msc_event (*held)[MSC_STORE_MULTI];	/* per type: rows not yet written */
	unsigned int nr_held[MSC_EV_NR];
	/* types stored as runs: the held rows' runs, the open runs (store-run.c) */
	struct msc_run_row *held_run[MSC_EV_NR];
	struct msc_store_runs *runs[MSC_EV_NR];
	struct msc_store_rows *rows;	/* registered row batches */
	/* writes the held rows of a type: store.c's, handed to store-run.c */
	int (*flush_type)(struct msc_store *s, int type);

	/* the capture being written, 0 when none */
	int64_t capture_id;
	struct msc_spte_layout layout;	/* its host's, for page roles */
	int64_t next_seq;		/* seq of the next stored row */
	int64_t first_seq;		/* of the current capture, -1 before its first row */
	uint64_t first_ts, last_ts;
	uint64_t stored, lost, lost_marks;

	long fail_after;		/* fault injection: 0 off, n: n-th step fails */
	bool no_runs;			/* tests: $MSC_STORE_NO_RUNS, every run of one */
	char errmsg[512];
};

/* An event type's row in the store's schema (store-row.c). */
struct msc_store_row;

int msc_store_row_compile(struct msc_store *s, int type, struct msc_store_row **ret);
const char *msc_store_row_table(int type);
void msc_store_row_free(struct msc_store_row *row);
int msc_store_row_prepare(struct msc_store *s, const struct msc_store_row *row, unsigned int n,
			  sqlite3_stmt **ret);
unsigned int msc_store_row_params(const struct msc_store_row *row);
void msc_store_row_bind(sqlite3_stmt *st, int i, const struct msc_store_row *row,
			const struct msc_event *ev, const struct msc_spte_layout *l,
			const struct msc_run_row *run, const char *run_text);

/* A run's events lie within this many seqs of its first (store-read.c reads back so far). */
#define MSC_RUN_SPAN 65536

int msc_store_run_add(struct msc_store *s, const struct msc_event *ev, int64_t seq);
int msc_store_runs_close(struct msc_store *s);
void msc_store_runs_drop(struct msc_store *s);
void msc_store_runs_free(struct msc_store *s);
const char *msc_store_run_text(const struct msc_store *s, int type);
void msc_store_run_text_reset(struct msc_store *s, int type);
int msc_store_flush_type(struct msc_store *s, int type);

/* store-check.c: what is checked before a file is answered from */
int msc_store_check_file(const char *path, bool writer, char *msg, size_t size);
int msc_store_check_schema(struct msc_store *s, unsigned int version);
int msc_store_quick_check(struct msc_store *s);
void msc_store_watch(sqlite3 *db);
bool msc_store_interrupted(void);
void msc_store_set_open_errmsg(const char *msg);


/* A writer's WAL checkpoints on a thread of their own (store-checkpoint.c) */
struct store_checkpointer;

int store_checkpointer_start(struct msc_store *s, struct store_checkpointer **ret);
void store_checkpointer_ask(struct store_checkpointer *c);
void store_checkpointer_stop(struct store_checkpointer *c);

#endif /* MSC_STORE_LOCAL_H */
