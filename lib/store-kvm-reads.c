// SPDX-License-Identifier: GPL-2.0-only
/*
 * KVM's own counters at a moment, as `record` read them (kvm_stats_sample,
 * schema/003-live.sql and 021-kvm-reads.sql).
 *
 * A VM's rows are the reads that saw its counters change.  A read began at
 * read_start_ts and ended at ts (schema 23; before it, each read is taken
 * as the moment ts).  Between two rows R1 and R2 the counters held R1's
 * values from R1's read up to R2's previous read at least (that read saw no
 * change), and moved after that read began and before R2's ended.  A read
 * is before T when it ended at or before T, after T when it began at or
 * after T; a read across T is neither.  So:
 *  - before T: R1, the newest row that ended at or before T, read at the
 *    newest read known to end by T (R1's successor's previous read when it
 *    did, else R1's);
 *  - after T: the first read that began at or after T.  R2 is the first row
 *    that did; its previous read, when that also began at or after T, still
 *    saw R2's predecessor's values, which are then the answer; else R2's
 *    own.  When no row began after T, the newest row (nothing changed up
 *    to the recording's end; its read time is not kept).
 * No rule here depends on how often the sampler ran, nor how long a read
 * took.
 */
#include "mmuscope/live.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmuscope/util.h"
#include "store-share.h"

/* A kvm_stats_sample row as fetch() reads it: the counters, in struct kvm_row's v[] order */
#define KVM_ROW_COLUMNS(X, LAST)							\
	X(KR_TS, "ts") X(KR_START, "coalesce(read_start_ts, ts)")			\
	X(KR_PREVIOUS, "previous_read_ts")						\
	X(KR_PREVIOUS_START, "coalesce(previous_read_start_ts, previous_read_ts)")	\
	X(KR_V0, "pages_4k")								\
	X(KR_2M, "pages_2m") X(KR_1G, "pages_1g") X(KR_FLUSHES, "remote_tlb_flush_requests") \
	X(KR_PF_TAKEN, "pf_taken") X(KR_PF_FIXED, "pf_fixed") X(KR_PF_FAST, "pf_fast")	\
	LAST(KR_PF_VCPUS, "pf_vcpus")
enum { KVM_ROW_COLUMNS(COL_ENUM, COL_ENUM) };

/* One row: its read's end and start, the read before it's (0: unknown), its counters. */
struct kvm_row {
	uint64_t ts, start, previous, previous_start;
	int64_t v[8];			/* pages[1..3], flushes, pf_taken, pf_fixed, pf_fast,
					   pf_vcpus */
};

_Static_assert(sizeof(((struct kvm_row *)0)->v) / sizeof(int64_t) == KR_PF_VCPUS - KR_V0 + 1,
	       "a counter column for each of struct kvm_row's v[]");

static int64_t column_count(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, i);
}

/* 1 with @row filled, 0 when there is none, or a store error. */
static int fetch(struct msc_store *s, sqlite3_stmt *st, int64_t capture_id, const char *vm,
		 uint64_t ts, struct kvm_row *row)
{
	int r;

	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, capture_id);
	sqlite3_bind_text(st, 2, vm, -1, SQLITE_TRANSIENT);
	bind_u64(st, 3, ts);
	r = msc_store_step(s, st);
	if (r != 1)
		return r;
	row->ts = column_u64(st, KR_TS);
	row->start = column_u64(st, KR_START);
	row->previous = sqlite3_column_type(st, KR_PREVIOUS) == SQLITE_NULL ?
			0 : column_u64(st, KR_PREVIOUS);
	row->previous_start = row->previous ? column_u64(st, KR_PREVIOUS_START) : 0;
	for (int i = 0; i < (int)ARRAY_SIZE(row->v); i++)
		row->v[i] = column_count(st, KR_V0 + i);
	return 1;
}

static void add(struct msc_kvm_read *ret, const struct kvm_row *row, uint64_t read_ts)
{
	int64_t *to[8] = { &ret->pages[1], &ret->pages[2], &ret->pages[3], &ret->flushes,
			   &ret->faults, &ret->faults_fixed, &ret->faults_fast, &ret->fault_vcpus };

	for (int i = 0; i < 8; i++)
		*to[i] = row->v[i] < 0 || *to[i] < 0 ? -1 : *to[i] + row->v[i];
	ret->ts = max(ret->ts, read_ts);
	ret->vms++;
}

/* A capture's KVM counter rows, its statements prepared once. */
struct msc_kvm_reads {
	struct msc_store *s;
	int64_t capture_id;
	sqlite3_stmt *older, *newer, *started;	/* the row that ended by ?, the first that
						   ended at or after ?, began at or after ? */
	char (*vms)[32];		/* the VMs sampled (kvm_stats_sample.vm) */
	size_t nr_vms;
};

/* One VM's counters before or after @ts, added into @ret. */
static int read_vm(struct msc_kvm_reads *k, const char *vm, uint64_t ts, bool after,
		   struct msc_kvm_read *ret)
{
	struct kvm_row r1, r2;
	int has1, has2;

	if (!after) {
		/* R1 the newest row that ended by @ts, R2 the row after it */
		has1 = fetch(k->s, k->older, k->capture_id, vm, ts, &r1);
		has2 = has1 > 0 ? fetch(k->s, k->newer, k->capture_id, vm, ts + 1, &r2) : 0;
		if (has1 > 0 && has2 >= 0)
			add(ret, &r1, has2 && r2.previous <= ts && r2.previous > r1.ts ?
				      r2.previous : r1.ts);
		return min(has1, has2) < 0 ? min(has1, has2) : 0;
	}
	/* R2 the first row that began at or after @ts, R1 the row before it */
	has2 = fetch(k->s, k->started, k->capture_id, vm, ts, &r2);
	has1 = fetch(k->s, k->older, k->capture_id, vm, has2 > 0 ? r2.ts - 1 : UINT64_MAX >> 1,
		     &r1);
	if (min(has1, has2) < 0)
		return min(has1, has2);
	if (has2 && has1 && r2.previous && r2.previous_start >= ts) {
		add(ret, &r1, r2.previous);
	} else if (has2) {
		add(ret, &r2, r2.ts);
	} else if (has1) {
		add(ret, &r1, 0);
		ret->unchanged++;
	}
	return 0;
}

/* A VM's name (kvm_stats_sample.vm) from the current row of @st */
static void fill_vm(sqlite3_stmt *st, void *row)
{
	char (*name)[32] = row;

	snprintf(*name, sizeof(*name), "%s", (const char *)sqlite3_column_text(st, 0));
}

/**
 * msc_kvm_reads_open - ready to read a capture's KVM counters at moments
 * @ret: closed with msc_kvm_reads_close()
 *
 * Returns 0 or a negative error.
 */
int msc_kvm_reads_open(struct msc_store *s, int64_t capture_id, struct msc_kvm_reads **ret)
{
	struct msc_kvm_reads *k = calloc(1, sizeof(*k));
	int r;

	if (!k)
		return -ENOMEM;
	k->s = s;
	k->capture_id = capture_id;
	r = msc_store_prepare(s, "SELECT " COLS(KVM_ROW_COLUMNS) " FROM kvm_stats_sample "
			      "WHERE capture_id = ? AND vm = ? AND ts <= ? ORDER BY ts DESC LIMIT 1",
			      &k->older);
	if (!r)
		r = msc_store_prepare(s, "SELECT " COLS(KVM_ROW_COLUMNS) " FROM kvm_stats_sample "
				      "WHERE capture_id = ? AND vm = ? AND ts >= ? ORDER BY ts LIMIT 1",
				      &k->newer);
	if (!r)
		r = msc_store_prepare(s, "SELECT " COLS(KVM_ROW_COLUMNS) " FROM kvm_stats_sample "
				      "WHERE capture_id = ?1 AND vm = ?2 AND ts >= ?3 AND "
				      "coalesce(read_start_ts, ts) >= ?3 ORDER BY ts LIMIT 1",
				      &k->started);
	if (!r)
		k->vms = msc_store_capture_rows(s, capture_id, "SELECT DISTINCT vm FROM "
						"kvm_stats_sample WHERE capture_id = ?",
						sizeof(*k->vms), fill_vm, &k->nr_vms, &r);
	if (r < 0) {
		msc_kvm_reads_close(k);
		return r;
	}
	*ret = k;
	return 0;
}

void msc_kvm_reads_close(struct msc_kvm_reads *k)
{
	if (!k)
		return;
	sqlite3_finalize(k->older);
	sqlite3_finalize(k->newer);
	sqlite3_finalize(k->started);
	free(k->vms);
	free(k);
}

/** msc_kvm_reads_vms - how many VMs the capture sampled (0: not a recording's) */
size_t msc_kvm_reads_vms(const struct msc_kvm_reads *k)
{
	return k->nr_vms;
}

/**
 * msc_kvm_read_at - KVM's counters just before or just after a moment
 * @k: the capture's counters (msc_kvm_reads_open())
 * @vm: the VM's debugfs name ("<pid>-<fd>"), NULL: every VM sampled, summed
 * @ts: the moment
 * @after: false: as last read at or before @ts; true: as first read at or
 *	after it
 * @ret: the counters; ret->vms 0 when no VM had been read (not a
 *	recording, or before its first read); -1 where not exported
 *
 * Two index lookups per VM.  Returns 0 or a negative error.
 */
int msc_kvm_read_at(struct msc_kvm_reads *k, const char *vm, uint64_t ts, bool after,
		    struct msc_kvm_read *ret)
{
	int r = 0;

	memset(ret, 0, sizeof(*ret));
	if (vm)
		return read_vm(k, vm, ts, after, ret);
	for (size_t i = 0; i < k->nr_vms && !r; i++)
		r = read_vm(k, k->vms[i], ts, after, ret);
	return r;
}
