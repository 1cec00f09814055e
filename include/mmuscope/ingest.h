/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Ingest: source -> host inference -> classification -> store, the one
 * pipeline behind both `mmuscope import` and `mmuscope record`.
 *
 * Until the host's SPTE layout is known (from the source, an override, or
 * enough evidence in the first events) events are held in a bounded buffer;
 * then the capture row is written and the buffer flushed, so every stored
 * event is classified with the final layout.  An optional tap sees each
 * classified event right after it is stored, with the seq it was stored
 * under (the analyzer can follow the stream without reading it back).
 */
#ifndef MSC_INGEST_H
#define MSC_INGEST_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmuscope/event.h"
#include "mmuscope/host.h"

struct msc_event;
struct msc_source;
struct msc_store;

/* Events held back at most while the SPTE layout is being inferred. */
#define MSC_INGEST_MAX_HOLD 65536

typedef int (*msc_event_fn)(void *ctx, const struct msc_event *ev);

struct msc_ingest {
	struct msc_source *src;		/* borrowed */
	struct msc_store *store;	/* borrowed */
	struct msc_host host;		/* final once @started */
	struct msc_host_guess guess;
	struct msc_classifier classifier;
	struct msc_event *held;		/* events waiting for the layout */
	size_t nr_held;
	bool started;			/* capture row written */
	bool done;			/* source exhausted */
	int64_t capture_id;
	uint64_t events;		/* events handed out by the source */
	uint64_t by_type[MSC_EV_NR];	/* ... per enum msc_event_type */
	bool store_failed;		/* the error came from the store, not the source */
	msc_event_fn tap;
	void *tap_ctx;
	char note[256];			/* one remark on the inferred host, or "" */
};

/*
 * A tap on a thread of its own (lib/tap-thread.c): set ing->tap to
 * msc_tap_thread_push and ing->tap_ctx to the struct below.
 */
#define MSC_TAP_BATCH 1024	/* events per hand-over */
#define MSC_TAP_SLOTS 8		/* batches in flight, one of them being filled */

struct msc_tap_thread {
	msc_event_fn fn;		/* the real tap, run by the worker */
	void *ctx;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t more, room;
	struct msc_event (*batch)[MSC_TAP_BATCH];	/* MSC_TAP_SLOTS batches */
	size_t fill[MSC_TAP_SLOTS];	/* events in each full batch */
	unsigned int head, tail, count;	/* ring of full batches; tail is being filled */
	size_t cur_n;			/* events in the batch being filled */
	int err;			/* the tap's first error (set by the worker) */
	bool closing, running;
};

int msc_tap_thread_start(struct msc_tap_thread *t, msc_event_fn fn, void *ctx);
int msc_tap_thread_push(void *ctx, const struct msc_event *ev);
int msc_tap_thread_finish(struct msc_tap_thread *t);

int msc_ingest_init(struct msc_ingest *ing, struct msc_source *src, struct msc_store *store,
		    const struct msc_host *overrides);
int msc_ingest_step(struct msc_ingest *ing, size_t max_events);
int msc_ingest_finish(struct msc_ingest *ing);
void msc_ingest_release(struct msc_ingest *ing);

#endif /* MSC_INGEST_H */
