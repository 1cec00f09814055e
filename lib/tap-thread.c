// SPDX-License-Identifier: GPL-2.0-only
/*
 * A tap run on its own thread: the producer (the ingest loop) hands events
 * over in batches through a small ring, the worker calls the real tap on
 * them.  On a two-core machine this lets the analysis (its model and its
 * own database writes) run beside decoding and storing the events.
 *
 * Invariant: the worker calls the tap on every event pushed, in push order,
 * until the tap fails; after a failure it drops what comes and the producer
 * sees the error at its next push or at msc_tap_thread_finish().
 */
#include "mmuscope/tap.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "mmuscope/event.h"
#include "event-desc.h"
#include "event-ring.h"

#define TAP_COPY 64		/* bytes copied at least: a constant size is a few moves */

struct msc_tap_thread {
	struct msc_tap inner;		/* the real tap; its event() runs on the worker */
	pthread_t thread;
	struct event_ring ring;		/* the caller produces, the worker consumes */
	char *start, *next;		/* the batch being filled, where the next event goes */
	int err;			/* the tap's first error (set by the worker) */
};

static int tap_error(struct msc_tap_thread *t)
{
	return __atomic_load_n(&t->err, __ATOMIC_ACQUIRE);
}

static void *worker(void *arg)
{
	struct msc_tap_thread *t = arg;
	const char *p, *end;
	size_t n;

	while ((n = event_ring_take(&t->ring, &p))) {
		for (end = p + n; p < end && !tap_error(t);) {
			const struct msc_event *ev = (const struct msc_event *)p;
			int r = t->inner.ops->event(t->inner.ctx, ev);

			if (r)
				__atomic_store_n(&t->err, r, __ATOMIC_RELEASE);
			p += event_ring_step(ev);
		}
		event_ring_release(&t->ring);
	}
	return NULL;
}

static void destroy(struct msc_tap_thread *t)
{
	event_ring_destroy(&t->ring);
	free(t);
}

/* Point the producer at the batch being filled. */
static void filling(struct msc_tap_thread *t)
{
	t->start = t->next = event_ring_filling(&t->ring);
}

/**
 * msc_tap_thread_start - run the tap @inner on a thread of its own
 * @inner: the tap; its event() runs on the worker only, its begin() on the
 *	caller's thread before any event reaches the worker
 * @ret: the thread; msc_tap_thread_tap() is the tap to give the pipeline,
 *	msc_tap_thread_finish() stops and frees it
 *
 * Returns 0 or -errno.
 */
int msc_tap_thread_start(const struct msc_tap *inner, struct msc_tap_thread **ret)
{
	struct msc_tap_thread *t = calloc(1, sizeof(*t));
	int r;

	if (!t)
		return -ENOMEM;
	t->inner = *inner;
	r = event_ring_init(&t->ring);
	if (r) {
		free(t);
		return r;
	}
	filling(t);
	r = pthread_create(&t->thread, NULL, worker, t);
	if (r) {
		destroy(t);
		return -r;
	}
	*ret = t;
	return 0;
}

/* Hand the batch being filled to the worker; waits while the ring is full. */
static void hand_over(struct msc_tap_thread *t)
{
	event_ring_hand_over(&t->ring, (size_t)(t->next - t->start));
	filling(t);
}

/* The worker has taken no event yet: its tap is the caller's to begin. */
static int thread_begin(void *ctx, const struct msc_tap_begin *b)
{
	struct msc_tap_thread *t = ctx;

	return t->inner.ops->begin(t->inner.ctx, b);
}

/* Queue @ev for the worker; returns the error its tap returned on an earlier event. */
static int thread_push(void *ctx, const struct msc_event *ev)
{
	struct msc_tap_thread *t = ctx;
	size_t size = msc_event_size(ev);
	int r = tap_error(t);

	_Static_assert(TAP_COPY <= sizeof(*ev), "a whole event holds TAP_COPY bytes");
	if (r)
		return r;
	/*
	 * Only what a reader may look at is copied (a sixth of the struct for
	 * an SPTE change), packed (event-ring.h: the fill point has room for a
	 * whole event).  A short event is copied as TAP_COPY bytes: moves, not
	 * a call; the next event overwrites what is past its size.
	 */
	if (size <= TAP_COPY)
		memcpy(t->next, ev, TAP_COPY);
	else
		memcpy(t->next, ev, size);
	t->next += event_ring_step(ev);
	if (t->next - t->start >= EVENT_RING_BYTES)
		hand_over(t);
	return 0;
}

static const struct msc_tap_ops thread_ops = {
	.begin = thread_begin,
	.event = thread_push,
};

/** msc_tap_thread_tap - the tap that hands events to the thread */
struct msc_tap msc_tap_thread_tap(struct msc_tap_thread *t)
{
	return (struct msc_tap){ .ops = &thread_ops, .ctx = t };
}

/**
 * msc_tap_thread_finish - let the worker take everything pushed, stop it
 *	and free the thread; NULL is fine
 *
 * Returns 0 or the tap's first error.  The inner tap's context is the
 * caller's again (no thread touches it) once this returns.
 */
int msc_tap_thread_finish(struct msc_tap_thread *t)
{
	int r;

	if (!t)
		return 0;
	hand_over(t);
	event_ring_end(&t->ring);
	pthread_join(t->thread, NULL);
	r = tap_error(t);
	destroy(t);
	return r;
}
