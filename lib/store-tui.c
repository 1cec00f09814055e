// SPDX-License-Identifier: GPL-2.0-only
/*
 * The TUI's own read helpers (include/mmuscope/hview-extra.h): bulk reads
 * of region_state for the memory map, and KVM's sampled counters.  Read
 * only; every query is a rowid range or an index lookup.
 */
#include "mmuscope/hview-extra.h"

#include <errno.h>
#include <string.h>

#include "mmuscope/util.h"
#include "store-local.h"

/**
 * msc_tui_cell_states - the next region_state rows of a capture
 * @s: the store
 * @capture_id: the capture
 * @io_pos: in: the position after which to read (0: from the start);
 *	out: the position of the last row returned
 * @rows: room for @max rows
 * @ret_nr: rows returned; fewer than @max means the end was reached
 *
 * Rows come in insertion order (rowid), which is the order the analyzer
 * wrote them: for any one cell, time order.  Rows written later (a
 * capture still being analyzed) are found by calling again with the same
 * @io_pos.  Returns 0 or a negative error.
 */
int msc_tui_cell_states(struct msc_store *s, int64_t capture_id, int64_t *io_pos,
			struct msc_cell_state *rows, size_t max, size_t *ret_nr)
{
	sqlite3_stmt *st;
	size_t nr = 0;
	int r = msc_store_prepare(s, "SELECT rowid, ts, as_id, gfn, kind, mapped, writable "
				  "FROM region_state NOT INDEXED WHERE rowid > ?1 AND capture_id = ?2 "
				  "ORDER BY rowid LIMIT ?3", &st);

	if (r)
		return r;
	sqlite3_bind_int64(st, 1, *io_pos);
	sqlite3_bind_int64(st, 2, capture_id);
	sqlite3_bind_int64(st, 3, (int64_t)min(max, (size_t)INT64_MAX));
	while ((r = msc_store_step(s, st)) == 1) {
		*io_pos = sqlite3_column_int64(st, 0);
		rows[nr++] = (struct msc_cell_state){
			.ts = column_u64(st, 1),
			.as_id = (uint8_t)sqlite3_column_int(st, 2),
			.gfn = column_u64(st, 3),
			.kind = (uint8_t)sqlite3_column_int(st, 4),
			.mapped = (uint16_t)sqlite3_column_int(st, 5),
			.writable = (uint16_t)sqlite3_column_int(st, 6),
		};
	}
	sqlite3_finalize(st);
	if (r < 0)
		return r;
	*ret_nr = nr;
	return 0;
}

/**
 * msc_tui_cell_states_end - the position of the last region_state row
 *
 * For progress: msc_tui_cell_states() has read everything written so far
 * when its position reaches this one.  Returns 0 or a negative error.
 */
int msc_tui_cell_states_end(struct msc_store *s, int64_t *ret_pos)
{
	sqlite3_stmt *st;
	int r = msc_store_prepare(s, "SELECT max(rowid) FROM region_state", &st);

	if (r)
		return r;
	r = msc_store_step(s, st);
	*ret_pos = r == 1 ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	return r < 0 ? r : 0;
}

static int64_t column_count(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, i);
}

/**
 * msc_tui_kvm_sample_at - KVM's page counters at @ts, as `record` sampled them
 * @ret: the newest sample at or before @ts of each VM, summed; ret->vms 0
 *	when there is none (not a live capture, or before the first sample)
 *
 * One index lookup per VM.  Returns 0 or a negative error.
 */
int msc_tui_kvm_sample_at(struct msc_store *s, int64_t capture_id, uint64_t ts,
			  struct msc_tui_kvm_sample *ret)
{
	sqlite3_stmt *vms, *at;
	int r;

	memset(ret, 0, sizeof(*ret));
	r = msc_store_prepare(s, "SELECT DISTINCT vm FROM kvm_stats_sample WHERE capture_id = ?",
			      &vms);
	if (r)
		return r;
	r = msc_store_prepare(s, "SELECT ts, pages_4k, pages_2m, pages_1g FROM kvm_stats_sample "
			      "WHERE capture_id = ? AND vm = ? AND ts <= ? ORDER BY ts DESC LIMIT 1",
			      &at);
	if (r) {
		sqlite3_finalize(vms);
		return r;
	}
	sqlite3_bind_int64(vms, 1, capture_id);
	while ((r = msc_store_step(s, vms)) == 1) {
		sqlite3_bind_int64(at, 1, capture_id);
		sqlite3_bind_text(at, 2, (const char *)sqlite3_column_text(vms, 0), -1,
				  SQLITE_TRANSIENT);
		bind_u64(at, 3, ts);
		r = msc_store_step(s, at);
		if (r < 0)
			break;
		if (r == 0)
			continue;
		ret->ts = max(ret->ts, column_u64(at, 0));
		for (int l = 1; l <= 3; l++) {
			int64_t v = column_count(at, l);

			ret->pages[l] = v < 0 || ret->pages[l] < 0 ? -1 : ret->pages[l] + v;
		}
		ret->vms++;
		sqlite3_reset(at);
	}
	sqlite3_finalize(vms);
	sqlite3_finalize(at);
	return r < 0 ? r : 0;
}
