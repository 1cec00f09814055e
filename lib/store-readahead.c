// SPDX-License-Identifier: GPL-2.0-only
/*
 * Stored events read ahead on a thread: an event cursor (store-read.c) on
 * a read-only connection of its own runs on a worker and hands its events
 * over in batches (event-ring.h), while the caller's connection writes.
 * Replay (msc_history_analyze()) spends a third of its time reading runs
 * back and expanding them; on two cores that now runs beside the analysis.
 *
 * The reader sees the database as it was when its read began (WAL: a read
 * transaction is a snapshot), so what the caller's connection writes
 * meanwhile is not among the events; callers write analysis tables only.
 * A read lasts READAHEAD_SPAN events; between two, what the caller
 * committed is checkpointed on a thread of its own (store-checkpoint.c).
 * Only a database in WAL mode shares reads with a writer, so the caller's
 * connection must be in it (msc_store_readahead_open() says -EAGAIN).
 *
 * Invariant: the events the caller gets are msc_store_events_next()'s on
 * the same range, in the same order, and then its error if it failed.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <sqlite3.h>

#include "event-ring.h"
#include "mmuscope/error.h"
#include "mmuscope/store.h"
#include "mmuscope/util.h"
#include "store-local.h"

/* Events read in one read transaction: the WAL is checkpointed between two. */
#define READAHEAD_SPAN (1 << 20)

struct msc_store_readahead {
	struct msc_store *s;		/* the caller's: the reader's error is told in it */
	struct msc_store *rs;		/* the reader's connection */
	struct msc_event_cursor *cur;	/* on rs; the worker's once it runs */
	struct store_checkpointer *ck;	/* the caller's checkpoints while it runs, or NULL */
	int64_t last_seq;
	pthread_t thread;
	struct event_ring ring;		/* the worker produces, the caller consumes */
	const char *next, *end;		/* the caller's: in the batch taken (none: equal) */
	bool taken;
	int err;			/* the cursor's error; written before the ring ends */
	bool running;
};

/*
 * The read of the span that ended with @seq is over: read on in a new
 * transaction, and have what the caller committed before it checkpointed
 * (store-checkpoint.c: no read holds it now).  Returns 0, 1 when @seq
 * ended the range, or the cursor's error.
 */
static int next_span(struct msc_store_readahead *ra, int64_t seq)
{
	int r = 1;

	msc_store_events_close(ra->cur);
	ra->cur = NULL;
	if (seq < ra->last_seq)
		r = msc_store_events_open(ra->rs, seq + 1, ra->last_seq, &ra->cur);
	if (ra->ck)
		store_checkpointer_ask(ra->ck);
	return r;
}

static void *reader(void *arg)
{
	struct msc_store_readahead *ra = arg;
	char *start = event_ring_filling(&ra->ring), *p = start;
	uint64_t k = 0;
	int r;

	/* each event is read in place: the fill point has room for a whole one */
	while ((r = msc_store_events_next(ra->cur, (struct msc_event *)p)) == 1) {
		const struct msc_event *ev = (const struct msc_event *)p;

		p += event_ring_step(ev);
		if (++k % READAHEAD_SPAN == 0 && (r = next_span(ra, (int64_t)ev->seq)))
			break;
		if (p - start < EVENT_RING_BYTES)
			continue;
		if (!event_ring_hand_over(&ra->ring, (size_t)(p - start))) {
			r = 0;	/* the caller closed early */
			break;
		}
		start = p = event_ring_filling(&ra->ring);
	}
	event_ring_hand_over(&ra->ring, (size_t)(p - start));
	ra->err = min(r, 0);
	event_ring_end(&ra->ring);
	return NULL;
}

/* Can another connection read while @s writes?  Only in WAL mode, shared locks. */
static bool shares_reads(struct msc_store *s)
{
	sqlite3_stmt *st;
	bool wal = false;

	if (s->flags & MSC_STORE_BULK)
		return false;	/* exclusive locking */
	if (sqlite3_prepare_v2(s->db, "PRAGMA journal_mode", -1, &st, NULL) != SQLITE_OK)
		return false;
	if (sqlite3_step(st) == SQLITE_ROW)
		wal = !strcasecmp((const char *)sqlite3_column_text(st, 0) ?: "", "wal");
	sqlite3_finalize(st);
	return wal;
}

/**
 * msc_store_readahead_open - walk stored events in seq order, read on a thread
 * @s: the store; it may write (analysis tables) while the events are read
 * @first_seq, @last_seq: the range, as msc_store_events_open()'s
 * @ret: the cursor, closed with msc_store_readahead_close()
 *
 * Returns 0; -EAGAIN when @s cannot share reads with another connection
 * (not in WAL mode), and the caller reads with msc_store_events_open();
 * or another negative error.
 */
int msc_store_readahead_open(struct msc_store *s, int64_t first_seq, int64_t last_seq,
			     struct msc_store_readahead **ret)
{
	struct msc_store_readahead *ra;
	int r;

	if (!shares_reads(s))
		return -EAGAIN;
	ra = calloc(1, sizeof(*ra));
	if (!ra)
		return -ENOMEM;
	ra->s = s;
	ra->last_seq = last_seq;
	r = event_ring_init(&ra->ring);
	if (!r)
		r = msc_store_open(s->path, MSC_STORE_READONLY | MSC_STORE_NO_CHECK, &ra->rs);
	if (r) {
		snprintf(s->errmsg, sizeof(s->errmsg), "%s", msc_store_open_errmsg());
	} else {
		r = msc_store_events_open(ra->rs, first_seq, last_seq, &ra->cur);
		if (r)
			snprintf(s->errmsg, sizeof(s->errmsg), "%s", ra->rs->errmsg);
	}
	if (!r) {
		/* none for a reader: without one the caller's commits checkpoint, later */
		store_checkpointer_start(s, &ra->ck);
		r = -pthread_create(&ra->thread, NULL, reader, ra);
		ra->running = !r;
	}
	if (r) {
		msc_store_readahead_close(ra);
		return r;
	}
	*ret = ra;
	return 0;
}

/**
 * msc_store_readahead_next - the next stored event
 * @ra: the cursor
 * @ret_ev: the event, valid until the next call; its seq is the stored seq
 *
 * Returns 1, 0 at the end, or a negative error (its detail in the caller's
 * store, msc_store_errmsg()).
 */
int msc_store_readahead_next(struct msc_store_readahead *ra, const struct msc_event **ret_ev)
{
	const struct msc_event *ev;

	if (ra->next == ra->end) {
		size_t n;

		if (ra->taken)
			event_ring_release(&ra->ring);
		n = event_ring_take(&ra->ring, &ra->next);
		ra->taken = n;
		ra->end = ra->next + n;
		if (!n) {
			if (ra->err < 0)
				snprintf(ra->s->errmsg, sizeof(ra->s->errmsg), "%s", ra->rs->errmsg);
			return ra->err;
		}
	}
	ev = (const struct msc_event *)ra->next;
	ra->next += event_ring_step(ev);
	*ret_ev = ev;
	return 1;
}

/** msc_store_readahead_close - stop the reader and free the cursor; NULL is fine */
void msc_store_readahead_close(struct msc_store_readahead *ra)
{
	if (!ra)
		return;
	if (ra->running) {
		event_ring_leave(&ra->ring);
		pthread_join(ra->thread, NULL);
	}
	msc_store_events_close(ra->cur);
	msc_store_close(ra->rs);
	store_checkpointer_stop(ra->ck);
	event_ring_destroy(&ra->ring);
	free(ra);
}
