/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the owners of tables share with the event store (lib/store.c):
 * statements through the store (prepare, step, exec, the transaction it
 * batches in), batches of integer rows written many to an INSERT, and the
 * codecs of the run tables' texts.  Included by lib/store*.c (through
 * store-local.h), by lib/history/store*.c and by the live tables' readers;
 * struct msc_store itself stays the event store's (store-local.h).
 */
#ifndef MSC_STORE_SHARE_H
#define MSC_STORE_SHARE_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "mmuscope/store.h"
#include "mmuscope/util.h"

/*
 * A statement's column list and the index each column is read (or bound)
 * at come from one list: X(NAME, sql) for each column but the last,
 * LAST(NAME, sql) for the last; COLS(list) is the SQL (a literal),
 * PARAMS(list) as many "?", and an enum of the list with COL_ENUM gives
 * each NAME its index (a parameter's is that + 1).
 */
#define COL_ENUM(e, sql) e,
#define COL_SQL(e, sql) sql ", "
#define COL_LAST(e, sql) sql
#define COLS(list) list(COL_SQL, COL_LAST)
#define COL_PARAM(e, sql) "?, "
#define COL_PARAM_LAST(e, sql) "?"
#define PARAMS(list) list(COL_PARAM, COL_PARAM_LAST)

/* Events per transaction by default. */
#define MSC_STORE_BATCH 65536
/* Rows per INSERT statement. */
#define MSC_STORE_MULTI 32

/*
 * Rows of one table held back and written MSC_STORE_MULTI at a time (the
 * analysis tables): integer columns, and at most one text column (a batch
 * made by msc_store_rows_init_text()).  A registered batch is flushed
 * before every commit and dropped on rollback, like the event rows.
 */
#define MSC_ROWS_MAX_COLS 24

struct msc_store_rows {
	const char *head;		/* "INSERT INTO mapping VALUES" */
	const char *tail;		/* after the tuples (an upsert clause), or NULL */
	unsigned int ncols;
	sqlite3_stmt *multi, *one;
	unsigned int n;			/* rows held */
	int64_t v[MSC_STORE_MULTI][MSC_ROWS_MAX_COLS];
	uint32_t nulls[MSC_STORE_MULTI];	/* bit c: column c is NULL */
	struct msc_store_rows *next;	/* in the store's list */
	int text_col;			/* column bound from text; -1: none */
	char *text;			/* the held rows' texts, back to back */
	size_t text_alloc;
	size_t text_end[MSC_STORE_MULTI];	/* row i's text ends here in text */
};

int msc_store_error(struct msc_store *s, int rc);
int msc_store_step(struct msc_store *s, sqlite3_stmt *stmt);
int msc_store_exec(struct msc_store *s, const char *sql);
int msc_store_prepare(struct msc_store *s, const char *sql, sqlite3_stmt **ret);
int64_t msc_store_query_int(struct msc_store *s, const char *sql, int64_t dflt);
int msc_store_begin(struct msc_store *s);

/* Fill the zeroed array element @row from the current row of @st. */
typedef void (*msc_row_fill_fn)(sqlite3_stmt *st, void *row);

void *msc_store_collect_rows(struct msc_store *s, sqlite3_stmt *st, size_t size,
			     msc_row_fill_fn fill, size_t *nr, int *err);
void *msc_store_capture_rows(struct msc_store *s, int64_t capture_id, const char *sql,
			     size_t size, msc_row_fill_fn fill, size_t *nr, int *err);

/* The store's SQLite handle, for what must bypass its error mapping (a best effort). */
sqlite3 *msc_store_sqlite(struct msc_store *s);
void msc_store_set_errmsg(struct msc_store *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

void msc_store_rows_init(struct msc_store *s, struct msc_store_rows *r, const char *head,
			 unsigned int ncols);
void msc_store_rows_release(struct msc_store *s, struct msc_store_rows *r);
int msc_store_rows_flush(struct msc_store *s, struct msc_store_rows *r);
void msc_store_rows_init_text(struct msc_store *s, struct msc_store_rows *r, const char *head,
			      unsigned int ncols, unsigned int text_col);
int msc_store_rows_put_text(struct msc_store *s, struct msc_store_rows *r, uint32_t nulls,
			    const char *text, size_t len);

/*
 * The next row of a batch: fill v[0..ncols-1], then msc_store_rows_put()
 * with a mask of the NULL columns.
 */
static inline int64_t *msc_store_rows_slot(struct msc_store_rows *r)
{
	return r->v[r->n];
}

/*
 * msc_store_rows_put() without its flush of a full batch: the row stays
 * held (and the caller may still change it through msc_store_rows_last())
 * until the next commit or flush.  The caller flushes a full batch before
 * it takes the next slot.
 */
static inline int msc_store_rows_hold(struct msc_store *s, struct msc_store_rows *r,
				      uint32_t nulls)
{
	int ret = msc_store_begin(s);

	if (ret)
		return ret;
	r->nulls[r->n++] = nulls;
	return 0;
}

static inline int msc_store_rows_put(struct msc_store *s, struct msc_store_rows *r,
				     uint32_t nulls)
{
	int ret = msc_store_rows_hold(s, r, nulls);

	if (ret)
		return ret;
	return r->n == MSC_STORE_MULTI ? msc_store_rows_flush(s, r) : 0;
}

int msc_store_rows_hold_text(struct msc_store *s, struct msc_store_rows *r, uint32_t nulls,
			     const char *text, size_t len);
int msc_store_rows_splice_text(struct msc_store_rows *r, size_t keep, const char *text,
			       size_t len);

/* Room for @need bytes at *@buf, of *@alloc (doubled at least); 0 or -ENOMEM. */
static inline int msc_text_room(char **buf, size_t *alloc, size_t need)
{
	size_t a;
	char *p;

	if (need <= *alloc)
		return 0;
	a = max(2 * *alloc, need);
	p = realloc(*buf, a);
	if (!p)
		return -ENOMEM;
	*buf = p;
	*alloc = a;
	return 0;
}

/* The last row put, while the batch still holds it; NULL: none held. */
static inline int64_t *msc_store_rows_last(struct msc_store_rows *r)
{
	return r->n ? r->v[r->n - 1] : NULL;
}

/* INTEGER columns hold u64 bit patterns. */
static inline void bind_u64(sqlite3_stmt *st, int i, uint64_t v)
{
	sqlite3_bind_int64(st, i, (sqlite3_int64)v);
}

static inline uint64_t column_u64(sqlite3_stmt *st, int i)
{
	return (uint64_t)sqlite3_column_int64(st, i);
}

/* An integer column that may be NULL: @none then. */
static inline int64_t column_int_or(sqlite3_stmt *st, int i, int64_t none)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? none : sqlite3_column_int64(st, i);
}

/*
 * The residual text of the run tables (schema 9's spte_change_run.at and
 * fault_run.at, schema 10's mapping_run.entries): a JSON array with one
 * element per event or interval, its n residuals v[0..n-1] with the leading
 * zeros left out: the last alone as a number, else [v[i], ..., v[n-1]] from
 * the first that is not 0.  The views read it back the same way.  (An open
 * mapping run's element is (i, 0, s) since schema 13: lib/history/store.c.)
 */

/*
 * The decimal digits of @u: its bits times log10(2) is the count or one
 * more (@u | 1 has the same count: no power of ten above 1 is odd).
 */
static inline unsigned int msc_dec_digits(uint64_t u)
{
	static const uint64_t pow10[20] = {
		1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
		100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL,
		1000000000000ULL, 10000000000000ULL, 100000000000000ULL,
		1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL,
		1000000000000000000ULL, 10000000000000000000ULL,
	};
	unsigned int t = ((64U - (unsigned int)__builtin_clzll(u | 1)) * 1233U) >> 12;

	return t + 1 - ((u | 1) < pow10[t]);
}

/* Decimal @v at @p; returns its end.  Its digits are counted first, then written in pairs. */
static inline char *msc_put_dec(char *p, int64_t v)
{
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
	char *end;

	if (v < 0)
		*p++ = '-';
	end = p + msc_dec_digits(u);
	for (p = end; u >= 100; u /= 100) {
		p -= 2;
		memcpy(p, &pairs[2 * (u % 100)], 2);
	}
	if (u >= 10)
		memcpy(p - 2, &pairs[2 * u], 2);
	else
		p[-1] = (char)('0' + u);
	return end;
}

/* The decimal integer at @p into *@ret; returns its end, or NULL: none, or out of range. */
static inline const char *msc_get_dec(const char *p, int64_t *ret)
{
	bool neg = *p == '-';
	uint64_t v = 0;

	p += neg;
	if (*p < '0' || *p > '9')
		return NULL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - 9) / 10)
			return NULL;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (v > (uint64_t)INT64_MAX + neg)
		return NULL;
	*ret = neg ? (int64_t)(0 - v) : (int64_t)v;
	return p;
}

/* One element of @n residuals @v at @p (0 < n <= 4); returns its end. */
static inline char *msc_put_residuals(char *p, const int64_t *v, unsigned int n)
{
	unsigned int i = 0;

	while (i + 1 < n && !v[i])
		i++;
	if (i + 1 == n)
		return msc_put_dec(p, v[i]);
	*p++ = '[';
	for (; i < n; i++) {
		p = msc_put_dec(p, v[i]);
		*p++ = i + 1 < n ? ',' : ']';
	}
	return p;
}

/* One element of @n residuals at @p into @v; returns its end, or NULL: not one. */
static inline const char *msc_get_residuals(const char *p, int64_t *v, unsigned int n)
{
	int64_t got[4];
	unsigned int nr = 0;

	if (*p != '[') {
		memset(v, 0, (n - 1) * sizeof(*v));
		return msc_get_dec(p, &v[n - 1]);
	}
	do
		p = msc_get_dec(p + 1, &got[nr++]);
	while (p && *p == ',' && nr < n);
	if (!p || *p != ']' || nr < 2)
		return NULL;
	memset(v, 0, (n - nr) * sizeof(*v));
	memcpy(v + n - nr, got, nr * sizeof(*v));
	return p + 1;
}

/*
 * region_state_run (schema/015-region-state-runs.sql): a cell's rows
 * written one after another, at most MSC_CELL_RUN_MAX; element k of at is
 * [dt_k, mapped_k, writable_k].  A row with ts at or above
 * MSC_CELL_TS_LIMIT is a run of its own, so that |dt_k| < 2^62.
 */
#define MSC_CELL_RUN_MAX 128
#define MSC_CELL_TS_LIMIT (1ULL << 62)
#define MSC_CELL_ELEM_MAX 48	/* "[dt,mapped,writable]" and a separator */

/* Element [@dt, @mapped, @writable] at @p; returns its end. */
static inline char *msc_cell_elem_put(char *p, int64_t dt, unsigned int mapped,
				      unsigned int writable)
{
	*p++ = '[';
	p = msc_put_dec(p, dt);
	*p++ = ',';
	p = msc_put_dec(p, mapped);
	*p++ = ',';
	p = msc_put_dec(p, writable);
	*p++ = ']';
	return p;
}

#endif /* MSC_STORE_SHARE_H */
