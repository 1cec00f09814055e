// SPDX-License-Identifier: GPL-2.0-only
/*
 * The memory map's cells read back in bulk (mmuscope/history.h,
 * msc_cell_states()): region_state's runs, for the TUI, the report and a
 * resumed analysis.  Read only; every query is a rowid range or an index
 * lookup.
 */
#include "mmuscope/history.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "mmuscope/error.h"
#include "mmuscope/util.h"
#include "store-share.h"

_Static_assert(MSC_CELL_STATES_MIN >= MSC_CELL_RUN_MAX, "a run fits msc_cell_states()' room");

/*
 * The @n rows of a region_state_run row (schema/015-region-state-runs.sql)
 * of @cell (its as_id, gfn and kind), from its first row's ts @ts0 and its
 * at text @p, into @rows.  Returns 0, or MSC_ERR_SQL when the text is not
 * what the analyzer writes.
 */
static int cell_run_rows(const struct msc_cell_state *cell, const char *p, int64_t n, int64_t ts0,
			 struct msc_cell_state *rows)
{
	int64_t v[3];

	if (!p || *p != '[' || n < 1 || n > MSC_CELL_RUN_MAX ||
	    (n > 1 && (ts0 < 0 || (uint64_t)ts0 >= MSC_CELL_TS_LIMIT)))
		return MSC_ERR_SQL;
	for (int64_t k = 0; k < n; k++) {
		if (*p++ != (k ? ',' : '[') || *p++ != '[')
			return MSC_ERR_SQL;
		for (int i = 0; i < 3; i++) {
			p = msc_get_dec(p, &v[i]);
			if (!p || *p++ != (i < 2 ? ',' : ']'))
				return MSC_ERR_SQL;
		}
		/* dt_0 = 0; a later row's ts as the view computes it, within 2^62 */
		if ((k ? v[0] <= -(int64_t)MSC_CELL_TS_LIMIT || v[0] >= (int64_t)MSC_CELL_TS_LIMIT :
		     v[0] != 0) || v[1] < 0 || v[1] > 512 || v[2] < 0 || v[2] > v[1])
			return MSC_ERR_SQL;
		rows[k] = *cell;
		rows[k].ts = (uint64_t)(ts0 + v[0]);
		rows[k].mapped = (uint16_t)v[1];
		rows[k].writable = (uint16_t)v[2];
	}
	return *p == ']' && !p[1] ? 0 : MSC_ERR_SQL;
}

/* A region_state_run row as msc_cell_states() reads it */
#define CELL_RUN_COLUMNS(X, LAST)							\
	X(CR_ROWID, "rowid") X(CR_TS, "ts") X(CR_AS_ID, "as_id") X(CR_GFN, "gfn")	\
	X(CR_KIND, "kind") X(CR_N, "n") X(CR_AT, "at") LAST(CR_VM, "vm")
enum { CELL_RUN_COLUMNS(COL_ENUM, COL_ENUM) };

/**
 * msc_cell_states - the next region_state rows of a capture
 * @s: the store
 * @capture_id: the capture
 * @io_pos: in: the position after which to read (0: from the start);
 *	out: the position of the last row returned
 * @rows: room for @max rows, at least MSC_CELL_STATES_MIN
 * @ret_nr: rows returned; 0 means the end was reached
 *
 * Rows come in the order the analyzer wrote them: for any one cell, time
 * order.  They are read a run (region_state_run row) at a time, as many
 * whole runs as fit, so fewer than @max may come before the end.  Rows
 * written later (a capture still being analyzed) are found by calling
 * again with the same @io_pos.  Returns 0 or a negative error.
 */
int msc_cell_states(struct msc_store *s, int64_t capture_id, int64_t *io_pos,
		    struct msc_cell_state *rows, size_t max, size_t *ret_nr)
{
	sqlite3_stmt *st;
	size_t nr = 0;
	int r;

	if (max < MSC_CELL_STATES_MIN)
		return -EINVAL;
	r = msc_store_prepare(s, "SELECT " COLS(CELL_RUN_COLUMNS) " FROM region_state_run "
			      "NOT INDEXED WHERE rowid > ?1 AND capture_id = ?2 ORDER BY rowid",
			      &st);
	if (r)
		return r;
	sqlite3_bind_int64(st, 1, *io_pos);
	sqlite3_bind_int64(st, 2, capture_id);
	while ((r = msc_store_step(s, st)) == 1) {
		int64_t n = sqlite3_column_int64(st, CR_N);
		struct msc_cell_state cell = {
			.as_id = (uint8_t)sqlite3_column_int(st, CR_AS_ID),
			.gfn = column_u64(st, CR_GFN),
			.kind = (uint8_t)sqlite3_column_int(st, CR_KIND),
			.vm = sqlite3_column_int64(st, CR_VM),
		};

		if (n >= 1 && (uint64_t)n > max - nr)
			break;	/* read by the next call */
		if (cell_run_rows(&cell, (const char *)sqlite3_column_text(st, CR_AT), n,
				  sqlite3_column_int64(st, CR_TS), &rows[nr])) {
			msc_store_set_errmsg(s, "region_state_run: row %lld: at is not %lld rows",
					     (long long)sqlite3_column_int64(st, CR_ROWID), (long long)n);
			r = MSC_ERR_SQL;
			break;
		}
		nr += (size_t)n;
		*io_pos = sqlite3_column_int64(st, CR_ROWID);
	}
	sqlite3_finalize(st);
	if (r < 0)
		return r;
	*ret_nr = nr;
	return 0;
}

/**
 * msc_cell_states_end - the position of the last region_state row
 *
 * For progress: msc_cell_states() has read everything written so far when
 * its position reaches this one.  Returns 0 or a negative error.
 */
int msc_cell_states_end(struct msc_store *s, int64_t *ret_pos)
{
	sqlite3_stmt *st;
	int r = msc_store_prepare(s, "SELECT max(rowid) FROM region_state_run", &st);

	if (r)
		return r;
	r = msc_store_step(s, st);
	*ret_pos = r == 1 ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	return r < 0 ? r : 0;
}

