// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the analyzer's pure parts: the "KVM stats after" parser
 * (both workload formats seen in the captures), the census helpers and the
 * stable names that are file format; and the removed tables of the model
 * (lib/history/model.c) across an analysis resumed inside a removal.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "history/local.h"
#include "mmuscope/ingest.h"
#include "mmuscope/source.h"
#include "mmuscope/store.h"
#include "test.h"

static void t_stats_k61(void)
{
	int64_t p[MSC_HISTORY_MAX_LEVEL + 1];
	char phase[64];

	check(hcensus_parse_stats("kvm_dirtylog_harness: KVM stats after enable dirty logging  : "
				  "pages_4k=8193 pages_2m=0 pages_1g=0 remote_tlb_flush_requests=1",
				  phase, sizeof(phase), p));
	check_str(phase, "enable dirty logging");
	check_int(p[1], ==, 8193);
	check_int(p[2], ==, 0);
	check_int(p[3], ==, 0);
}

static void t_stats_k612(void)
{
	int64_t p[MSC_HISTORY_MAX_LEVEL + 1];
	char phase[64];

	check(hcensus_parse_stats("mmuscope-dirtylog: KVM stats after populate: pages_4k=1 "
				  "pages_2m=0 pages_1g=1 remote_tlb_flush=0", phase, sizeof(phase), p));
	check_str(phase, "populate");
	check_int(p[1], ==, 1);
	check_int(p[3], ==, 1);
	check(!hcensus_parse_stats("mmuscope-dirtylog: phase=populate begin", phase,
				   sizeof(phase), p));
	check(!hcensus_parse_stats("KVM stats after x: remote_tlb_flush=3", phase, sizeof(phase), p));
}

static void t_census_mapped(void)
{
	struct msc_census c = { .pages = { 0, 1, 16, 1 } };

	check_uint(msc_census_mapped(&c), ==, 1 + 16 * 512 + 262144);
}

static void t_names(void)
{
	check_str(msc_map_cause_name(MSC_CAUSE_EAGER_SPLIT), "eager-split");
	check_str(msc_map_cause_name(MSC_CAUSE_TRACE_START), "trace-start");
	check_str(msc_phase_kind_name(MSC_PHASE_REPROMOTE), "re-promotion");
	check_str(msc_phase_source_name(MSC_PHASE_SRC_INFERRED), "inferred");
	check_str(msc_anomaly_kind_name(MSC_ANOMALY_LEFT_FROZEN), "left-frozen");
	check_str(msc_region_kind_name(MSC_REGION_4K), "4K");
	/* schema/002-analysis.sql's map_cause ids are the enum values */
	check_int(MSC_CAUSE_OTHER, ==, 21);
	check_int(MSC_CAUSE_RESYNC, ==, 19);
}

static char dir[] = "/tmp/msc-t-history.XXXXXX";

/* Store the events of tests/data/events/@name.events in @db, analyzed by nobody. */
static int import_events(const char *name, const char *db)
{
	struct msc_source *src;
	struct msc_ingest *ing;
	struct msc_store *s;
	char path[512];
	int r;

	snprintf(path, sizeof(path), "%s/events/%s.events", test_data_dir(), name);
	r = msc_source_open_text(path, &src, NULL, 0);
	if (r)
		return r;
	r = msc_store_open(db, MSC_STORE_CREATE, &s);
	if (!r) {
		r = msc_ingest_new(src, s, NULL, &ing);
		while (!r && (r = msc_ingest_step(ing, 4096)) > 0)
			;
		if (!r)
			r = msc_ingest_finish(ing);
		if (!r)
			r = msc_store_finish(s);
		msc_ingest_free(ing);
		msc_store_close(s);
	}
	msc_source_close(src);
	return r;
}

/* Analyze @db's events up to time @until (all: UINT64_MAX), resuming where the last run ended. */
static int analyze_until(const char *db, uint64_t until)
{
	struct msc_event_cursor *cur = NULL;
	struct msc_capture_row *caps;
	struct msc_history *h;
	struct msc_store *s;
	struct msc_event ev;
	size_t nr;
	int r = msc_store_open(db, 0, &s);

	if (r)
		return r;
	r = msc_store_get_captures(s, &caps, &nr);
	if (r)
		goto out;
	r = msc_history_open(s, caps[0].id, NULL, NULL, &h);
	if (!r) {
		r = msc_store_events_open(s, msc_history_resume_seq(h), caps[0].last_seq, &cur);
		while (!r && (r = msc_store_events_next(cur, &ev)) == 1 && ev.ts <= until)
			r = msc_history_feed(h, &ev);
		msc_store_events_close(cur);
		if (r == 1 || !r) {
			if (until == UINT64_MAX)
				msc_history_capture_ended(h);
			r = msc_history_finish(h);
		}
		if (!r)
			r = msc_store_commit(s);
		msc_history_close(h);
	}
	free(caps);
out:
	msc_store_close(s);
	return r;
}

/* Run @sql on @db; the first column of its first row as text, in @buf ("" no row) */
static const char *sql_text(const char *db, const char *sql, char *buf, size_t size)
{
	sqlite3_stmt *st = NULL;
	sqlite3 *sdb;

	snprintf(buf, size, "error");
	if (sqlite3_open(db, &sdb) != SQLITE_OK)
		return buf;
	if (sqlite3_prepare_v2(sdb, sql, -1, &st, NULL) == SQLITE_OK) {
		int r = sqlite3_step(st);

		if (r == SQLITE_ROW)
			snprintf(buf, size, "%s", (const char *)sqlite3_column_text(st, 0) ?: "");
		else if (r == SQLITE_DONE)
			buf[0] = '\0';
	}
	sqlite3_finalize(st);
	sqlite3_close(sdb);
	return buf;
}

/* Every interval of @db folded into one line, and the resyncs and anomalies */
#define DIGEST "SELECT count(*) || ' ' || total(((gfn * 7 + level) * 31 + start_ts) * 17 + " \
	"coalesce(end_ts, -1) + spte % 1000003 + start_cause * 5 + end_cause) || ' ' || " \
	"(SELECT resyncs || ' ' || anomalies FROM analysis) FROM mapping"

/*
 * refault-detached.events (6.12): analyzed in one run, and in two cut
 * between the first table SPTE's zap and its children (the cut's model
 * knows no non-present entry's start): the same intervals, no resync.
 */
static void t_orphans_resumed(void)
{
	char once[300], twice[300], a[256], b[256];

	snprintf(once, sizeof(once), "%s/once.db", dir);
	snprintf(twice, sizeof(twice), "%s/twice.db", dir);
	if (!check_int(import_events("refault-detached", once), ==, 0) ||
	    !check_int(import_events("refault-detached", twice), ==, 0))
		return;
	check_int(analyze_until(once, UINT64_MAX), ==, 0);
	check_int(analyze_until(twice, 2002950), ==, 0);	/* after the prepare_zap_page */
	check_int(analyze_until(twice, UINT64_MAX), ==, 0);
	sql_text(once, DIGEST, a, sizeof(a));
	sql_text(twice, DIGEST, b, sizeof(b));
	check_str(b, a);
	check(strstr(a, " 0 0") != NULL);	/* no resync, no anomaly */
	check_str(sql_text(twice, "SELECT frozen_completed FROM analysis", b, sizeof(b)), "1024");
}

/*
 * recover-children-first.events (7.3): a run cut among the children of the
 * detached table (the mark is not kept): the next run's first child
 * detaches it again.  The region is never unmapped, nothing resyncs, and
 * the leaves end where the huge leaf begins, at that child.
 */
static void t_detached_resumed(void)
{
	char db[300], buf[256];

	snprintf(db, sizeof(db), "%s/recover.db", dir);
	if (!check_int(import_events("recover-children-first", db), ==, 0))
		return;
	check_int(analyze_until(db, 2003000), ==, 0);	/* 40 of 512 children */
	check_int(analyze_until(db, UINT64_MAX), ==, 0);
	check_str(sql_text(db, "SELECT resyncs || ' ' || anomalies || ' ' || frozen_completed "
			   "FROM analysis", buf, sizeof(buf)), "0 0 512");
	check_str(sql_text(db, "SELECT min(pages_4k + 512 * pages_2m) FROM census WHERE ts >= 1700",
			   buf, sizeof(buf)), "512");
	check_str(sql_text(db, "SELECT count(*) || ' ' || (SELECT start_ts FROM mapping WHERE "
			   "level = 2 AND leaf AND end_ts IS NULL) FROM mapping WHERE level = 1 "
			   "AND end_ts = 2003010", buf, sizeof(buf)), "512 2003010");
}

/* Where an analysis of @db would resume: the seq of its next event to analyze. */
static int64_t resume_seq(const char *db)
{
	struct msc_capture_row *caps = NULL;
	struct msc_history *h;
	struct msc_store *s;
	int64_t seq = -2;
	size_t nr;

	if (msc_store_open(db, 0, &s))
		return -2;
	if (!msc_store_get_captures(s, &caps, &nr) && nr &&
	    !msc_history_open(s, caps[0].id, NULL, NULL, &h)) {
		seq = msc_history_resume_seq(h);
		msc_history_close(h);
	}
	free(caps);
	msc_store_close(s);
	return seq;
}

/*
 * The resume state is versioned (local.h, HSTATE_VERSION): a blob of the
 * right size but another version is not read; the analysis starts over.
 */
static void t_state_versioned(void)
{
	char db[300];
	sqlite3_stmt *st;
	sqlite3 *sdb;
	int64_t resumed, first;
	size_t n = 0;

	snprintf(db, sizeof(db), "%s/state.db", dir);
	if (!check_int(import_events("refault-detached", db), ==, 0))
		return;
	first = resume_seq(db);
	check_int(analyze_until(db, UINT64_MAX), ==, 0);
	resumed = resume_seq(db);
	check(resumed > first);		/* resumes after what was analyzed */
	/* the same blob, but its version (the second u32) another */
	if (!check_int(sqlite3_open(db, &sdb), ==, SQLITE_OK))
		return;
	check_int(sqlite3_prepare_v2(sdb, "SELECT state FROM analysis", -1, &st, NULL), ==, SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW) {
		const void *b = sqlite3_column_blob(st, 0);
		size_t len = (size_t)sqlite3_column_bytes(st, 0);
		unsigned char *copy = malloc(len);

		if (check(b && copy && len >= 8)) {	/* u32 size, u32 version, ... */
			sqlite3_stmt *up;

			memcpy(copy, b, len);
			copy[4] ^= 0x80;
			n = len;
			sqlite3_prepare_v2(sdb, "UPDATE analysis SET state = ?", -1, &up, NULL);
			sqlite3_bind_blob(up, 1, copy, (int)len, SQLITE_TRANSIENT);
			check_int(sqlite3_step(up), ==, SQLITE_DONE);
			sqlite3_finalize(up);
		}
		free(copy);
	}
	sqlite3_finalize(st);
	sqlite3_close(sdb);
	check(n > 0);
	check_int(resume_seq(db), ==, first);	/* not read: from the start again */
}

int main(void)
{
	TEST(t_stats_k61(), "KVM stats line of the 6.1 harness (names with spaces)");
	TEST(t_stats_k612(), "KVM stats line of the 6.12 workload; other markers are not");
	TEST(t_census_mapped(), "mapped memory from the census");
	TEST(t_names(), "stable names and map_cause ids");
	if (!mkdtemp(dir))
		return 1;
	TEST(t_orphans_resumed(), "late children of a zapped table: no resync, also resumed between");
	TEST(t_detached_resumed(), "a detached table resumed among its children: never unmapped");
	TEST(t_state_versioned(), "a resume state of another version is not read: it starts over");
	for (unsigned int i = 0; i < 4; i++) {
		static const char *const dbs[] = { "once.db", "twice.db", "recover.db", "state.db" };
		char path[300];

		snprintf(path, sizeof(path), "%s/%s", dir, dbs[i]);
		unlink(path);
	}
	rmdir(dir);
	return test_done();
}
