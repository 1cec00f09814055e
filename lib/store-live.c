// SPDX-License-Identifier: GPL-2.0-only
/*
 * The store's live-recording tables (schema/003-live.sql): KVM counter
 * samples, per-CPU ring-buffer counters, thread -> process attribution.
 * (Events lost by the kernel's own count are MSC_EV_LOST events with their
 * counter as source, stored by msc_store_add_event().)
 *
 * Every function writes into the capture being stored (between
 * msc_store_begin_capture() and msc_store_end_capture()) inside the open
 * batch transaction; msc_store_commit() makes the rows visible.
 */
#include "mmuscope/live.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmuscope/util.h"
#include "store-local.h"

static int prepare(struct msc_store *s, const char *sql, sqlite3_stmt **ret)
{
	int r;

	if (!s->capture_id)
		return -EINVAL;
	r = msc_store_begin(s);
	return r ? r : msc_store_prepare(s, sql, ret);
}

static int step_once(struct msc_store *s, sqlite3_stmt *st)
{
	int r = msc_store_step(s, st);

	sqlite3_finalize(st);
	return r < 0 ? r : 0;
}

static void bind_count(sqlite3_stmt *st, int i, int64_t v)
{
	if (v < 0)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_int64(st, i, v);
}

/**
 * msc_store_add_kvm_sample - store one VM's KVM counters
 * @s: the store, with a capture open
 * @read: when they were read: the read began and ended then (ts is its end)
 * @previous: the VM's read before this one, which saw its row before
 *	(schema/021-kvm-reads.sql, 023-kvm-read-start.sql); { 0, 0 }: none
 * @k: the counters; -1 values are stored as NULL
 *
 * Returns 0, -EINVAL without an open capture, or a store error.
 */
int msc_store_add_kvm_sample(struct msc_store *s, struct msc_kvm_read_span read,
			     struct msc_kvm_read_span previous, const struct msc_kvm_sample *k)
{
	sqlite3_stmt *st;
	int r = prepare(s, "INSERT INTO kvm_stats_sample (capture_id, ts, vm, pid, pages_4k, "
			"pages_2m, pages_1g, remote_tlb_flush, remote_tlb_flush_requests, "
			"previous_read_ts, pf_taken, pf_fixed, pf_fast, pf_vcpus, read_start_ts, "
			"previous_read_start_ts) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", &st);

	if (r)
		return r;
	sqlite3_bind_int64(st, 1, s->capture_id);
	bind_u64(st, 2, read.end);
	sqlite3_bind_text(st, 3, k->vm, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 4, k->pid);
	bind_count(st, 5, k->pages_4k);
	bind_count(st, 6, k->pages_2m);
	bind_count(st, 7, k->pages_1g);
	bind_count(st, 8, k->remote_tlb_flush);
	bind_count(st, 9, k->remote_tlb_flush_requests);
	if (previous.end)
		bind_u64(st, 10, previous.end);
	bind_count(st, 11, k->pf_taken);
	bind_count(st, 12, k->pf_fixed);
	bind_count(st, 13, k->pf_fast);
	bind_count(st, 14, k->pf_vcpus);
	bind_u64(st, 15, read.start);
	if (previous.end)
		bind_u64(st, 16, previous.start);
	return step_once(s, st);
}

/** msc_store_add_cpu_stats - store a CPU's ring-buffer counters at the end */
int msc_store_add_cpu_stats(struct msc_store *s, const struct msc_live_cpu_stats *c)
{
	sqlite3_stmt *st;
	int r = prepare(s, "INSERT OR REPLACE INTO ring_buffer_cpu (capture_id, cpu, records, pages, "
			"marked, unknown_marks, overrun, commit_overrun, dropped, read_events, "
			"entries) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
			&st);

	if (r)
		return r;
	sqlite3_bind_int64(st, 1, s->capture_id);
	sqlite3_bind_int(st, 2, c->cpu);
	bind_u64(st, 3, c->records);
	bind_u64(st, 4, c->pages);
	bind_u64(st, 5, c->marked);
	bind_u64(st, 6, c->unknown_marks);
	if (c->has_kernel_stats) {
		bind_u64(st, 7, c->overrun);
		bind_u64(st, 8, c->commit_overrun);
		bind_u64(st, 9, c->dropped);
		bind_u64(st, 10, c->read_events);
		bind_u64(st, 11, c->entries);
	}
	return step_once(s, st);
}

/**
 * msc_store_add_task - store which process a traced thread belongs to
 * @s: the store, with a capture open
 * @pid: the thread
 * @tgid: its process, < 0 when unknown
 * @comm: its name, NULL or "" when unknown
 * @vm: the VM of its process, NULL when none or ambiguous
 */
int msc_store_add_task(struct msc_store *s, int pid, int tgid, const char *comm, const char *vm)
{
	sqlite3_stmt *st;
	int r = prepare(s, "INSERT OR REPLACE INTO task (capture_id, pid, tgid, comm, vm) "
			"VALUES (?,?,?,?,?)", &st);

	if (r)
		return r;
	sqlite3_bind_int64(st, 1, s->capture_id);
	sqlite3_bind_int(st, 2, pid);
	if (tgid >= 0)
		sqlite3_bind_int(st, 3, tgid);
	if (comm && *comm)
		sqlite3_bind_text(st, 4, comm, -1, SQLITE_TRANSIENT);
	if (vm && *vm)
		sqlite3_bind_text(st, 5, vm, -1, SQLITE_TRANSIENT);
	return step_once(s, st);
}


static void copy_column(sqlite3_stmt *st, int i, char *buf, size_t size)
{
	const char *v = (const char *)sqlite3_column_text(st, i);

	snprintf(buf, size, "%s", v ? v : "");
}

/**
 * msc_store_get_tasks - the task rows of a capture, by pid
 * @s: the store
 * @capture_id: the capture
 * @ret: the rows; the caller frees them
 * @ret_nr: how many
 *
 * Returns 0 or a store error.
 */
int msc_store_get_tasks(struct msc_store *s, int64_t capture_id, struct msc_task_row **ret,
			size_t *ret_nr)
{
	struct msc_task_row *rows = NULL, *p;
	size_t nr = 0;
	sqlite3_stmt *st;
	int r = msc_store_prepare(s, "SELECT pid, tgid, comm, vm FROM task WHERE capture_id = ? "
				  "ORDER BY pid", &st);

	if (r)
		return r;
	sqlite3_bind_int64(st, 1, capture_id);
	while ((r = msc_store_step(s, st)) == 1) {
		p = realloc(rows, (nr + 1) * sizeof(*rows));
		if (!p) {
			r = -ENOMEM;
			break;
		}
		rows = p;
		p = &rows[nr++];
		p->pid = sqlite3_column_int(st, 0);
		p->tgid = (int)column_int_or(st, 1, -1);
		copy_column(st, 2, p->comm, sizeof(p->comm));
		copy_column(st, 3, p->vm, sizeof(p->vm));
	}
	sqlite3_finalize(st);
	if (r < 0) {
		free(rows);
		return r;
	}
	*ret = rows;
	*ret_nr = nr;
	return 0;
}

/**
 * msc_store_get_param - one host_param value of a capture (record.light, ...)
 * @s: the store
 * @capture_id: the capture
 * @name: the parameter
 * @buf: its value, "" when the capture has none
 * @size: room in @buf
 *
 * Returns 1 when the capture has it, 0 when not, or a store error.
 */
int msc_store_get_param(struct msc_store *s, int64_t capture_id, const char *name, char *buf,
			size_t size)
{
	sqlite3_stmt *st;
	int r = msc_store_prepare(s, "SELECT value FROM host_param WHERE capture_id = ? AND name = ?",
				  &st);

	buf[0] = '\0';
	if (r)
		return r;
	sqlite3_bind_int64(st, 1, capture_id);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT);
	r = msc_store_step(s, st);
	if (r == 1)
		copy_column(st, 0, buf, size);
	sqlite3_finalize(st);
	return r < 0 ? r : r == 1;
}
