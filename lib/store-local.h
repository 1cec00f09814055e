/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Private to lib/store*.c: struct msc_store and helpers every store file
 * shares.  Prepared statements belong to the store: prepared at open (or on
 * first use), finalized at close.
 */
#ifndef MSC_STORE_LOCAL_H
#define MSC_STORE_LOCAL_H

#include <stdbool.h>
#include <stdint.h>

#include <sqlite3.h>

#include "mmuscope/event.h"
#include "mmuscope/store.h"

/* Events per transaction by default. */
#define MSC_STORE_BATCH 65536
/* Rows per INSERT statement. */
#define MSC_STORE_MULTI 32

struct msc_store {
	sqlite3 *db;
	char *path;
	unsigned int flags;		/* enum msc_store_flags */
	bool in_txn;
	unsigned int pending;		/* events added since the last commit */
	unsigned int batch;		/* commit every batch events; 0: only when asked */
	sqlite3_stmt *insert_one[MSC_EV_NR];	/* one-row INSERT per event type */
	sqlite3_stmt *insert_multi[MSC_EV_NR];	/* MSC_STORE_MULTI-row INSERT */
	struct msc_event (*held)[MSC_STORE_MULTI];	/* per type: rows not yet written */
	unsigned int nr_held[MSC_EV_NR];

	/* the capture being written, 0 when none */
	int64_t capture_id;
	unsigned int kver;		/* its kernel, for page roles */
	int64_t next_seq;		/* seq of the next stored row */
	int64_t first_seq;		/* of the current capture, -1 before its first row */
	uint64_t first_ts, last_ts;
	uint64_t stored, lost, lost_marks;

	long fail_after;		/* fault injection: 0 off, n: n-th step fails */
	char errmsg[512];
};

int msc_store_error(struct msc_store *s, int rc);
int msc_store_step(struct msc_store *s, sqlite3_stmt *stmt);
int msc_store_exec(struct msc_store *s, const char *sql);
int msc_store_prepare(struct msc_store *s, const char *sql, sqlite3_stmt **ret);
int msc_store_begin(struct msc_store *s);

/* INTEGER columns hold u64 bit patterns. */
static inline void bind_u64(sqlite3_stmt *st, int i, uint64_t v)
{
	sqlite3_bind_int64(st, i, (sqlite3_int64)v);
}

static inline uint64_t column_u64(sqlite3_stmt *st, int i)
{
	return (uint64_t)sqlite3_column_int64(st, i);
}

#endif /* MSC_STORE_LOCAL_H */
