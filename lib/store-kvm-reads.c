// SPDX-License-Identifier: GPL-2.0-only
/*
 * KVM's own counters at a moment, as `record` read them (kvm_stats_sample,
 * schema/003-live.sql and 021-kvm-reads.sql).
 *
 * A VM's rows are the reads that saw its counters change.  Between two
 * rows R1 and R2 the counters held R1's values from R1.ts up to
 * R2.previous_read_ts at least (that read saw no change), and moved
 * somewhere in (R2.previous_read_ts, R2.ts].  So:
 *  - before T: R1, the newest row at or before T, read at the newest read
 *    known at or before T (R2.previous_read_ts when that is, else R1.ts);
 *  - after T: the first read at or after T.  That is R2.previous_read_ts
 *    when it is at or after T (it still saw R1), else R2's own read; and
 *    when no row follows T, R1 (nothing changed up to the recording's end,
 *    its read time is not kept).
 * No rule here depends on how often the sampler ran.
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
	X(KR_TS, "ts") X(KR_PREVIOUS, "previous_read_ts") X(KR_V0, "pages_4k")		\
	X(KR_2M, "pages_2m") X(KR_1G, "pages_1g") X(KR_FLUSHES, "remote_tlb_flush_requests") \
	X(KR_PF_TAKEN, "pf_taken") X(KR_PF_FIXED, "pf_fixed") X(KR_PF_FAST, "pf_fast")	\
	LAST(KR_PF_VCPUS, "pf_vcpus")
enum { KVM_ROW_COLUMNS(COL_ENUM, COL_ENUM) };

/* One row: its read time, the read before it (0: unknown) and its counters. */
struct kvm_row {
	uint64_t ts, previous;
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
	row->previous = sqlite3_column_type(st, KR_PREVIOUS) == SQLITE_NULL ?
			0 : column_u64(st, KR_PREVIOUS);
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

/* One VM's counters before or after @ts, added into @ret. */
static int read_vm(struct msc_store *s, sqlite3_stmt *older, sqlite3_stmt *newer,
		   int64_t capture_id, const char *vm, uint64_t ts, bool after,
		   struct msc_kvm_read *ret)
{
	struct kvm_row r1, r2;
	int has1, has2;

	/* after: R1 the newest row before @ts, R2 the first at or after it */
	has1 = fetch(s, older, capture_id, vm, after && ts ? ts - 1 : ts, &r1);
	if (has1 < 0)
		return has1;
	has2 = fetch(s, newer, capture_id, vm, after ? ts : ts + 1, &r2);
	if (has2 < 0)
		return has2;
	if (!after) {
		if (has1)
			add(ret, &r1, has2 && r2.previous <= ts && r2.previous > r1.ts ?
				      r2.previous : r1.ts);
	} else if (has2 && has1 && r2.previous >= ts) {
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

/* A capture's KVM counter rows, its statements prepared once. */
struct msc_kvm_reads {
	struct msc_store *s;
	int64_t capture_id;
	sqlite3_stmt *older, *newer;
	char (*vms)[32];		/* the VMs sampled (kvm_stats_sample.vm) */
	size_t nr_vms;
};

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
		return read_vm(k->s, k->older, k->newer, k->capture_id, vm, ts, after, ret);
	for (size_t i = 0; i < k->nr_vms && !r; i++)
		r = read_vm(k->s, k->older, k->newer, k->capture_id, k->vms[i], ts, after, ret);
	return r;
}
