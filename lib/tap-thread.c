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

#define TAP_BATCH 1024		/* events per hand-over */
#define TAP_SLOTS 8		/* batches in flight, one of them being filled */
#define TAP_COPY 64		/* bytes copied at least: a constant size is a few moves */

struct msc_tap_thread {
	struct msc_tap inner;		/* the real tap; its event() runs on the worker */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t more, room;
	struct msc_event (*batch)[TAP_BATCH];	/* TAP_SLOTS batches */
	size_t fill[TAP_SLOTS];		/* events in each full batch */
	unsigned int head, tail, count;	/* ring of full batches; tail is being filled */
	struct msc_event *next, *end;	/* in batch[tail]: the next event's slot, its end */
	int err;			/* the tap's first error (set by the worker) */
	bool closing;
};

static int tap_error(struct msc_tap_thread *t)
{
	return __atomic_load_n(&t->err, __ATOMIC_ACQUIRE);
}

static void *worker(void *arg)
{
	struct msc_tap_thread *t = arg;

	pthread_mutex_lock(&t->lock);
	for (;;) {
		unsigned int slot;
		size_t n;

		while (!t->count && !t->closing)
			pthread_cond_wait(&t->more, &t->lock);
		if (!t->count)
			break;
		slot = t->head;
		n = t->fill[slot];
		pthread_mutex_unlock(&t->lock);
		for (size_t i = 0; i < n && !tap_error(t); i++) {
			int r = t->inner.ops->event(t->inner.ctx, &t->batch[slot][i]);

			if (r)
				__atomic_store_n(&t->err, r, __ATOMIC_RELEASE);
		}
		pthread_mutex_lock(&t->lock);
		t->head = (t->head + 1) % TAP_SLOTS;
		t->count--;
		pthread_cond_signal(&t->room);
	}
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

static void destroy(struct msc_tap_thread *t)
{
	pthread_mutex_destroy(&t->lock);
	pthread_cond_destroy(&t->more);
	pthread_cond_destroy(&t->room);
	free(t->batch);
	free(t);
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
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->more, NULL);
	pthread_cond_init(&t->room, NULL);
	t->batch = malloc(sizeof(*t->batch) * TAP_SLOTS);
	if (!t->batch) {
		destroy(t);
		return -ENOMEM;
	}
	t->next = t->batch[0];
	t->end = t->batch[0] + TAP_BATCH;
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
	if (t->next == t->batch[t->tail])
		return;
	pthread_mutex_lock(&t->lock);
	t->fill[t->tail] = (size_t)(t->next - t->batch[t->tail]);
	t->tail = (t->tail + 1) % TAP_SLOTS;
	t->count++;
	pthread_cond_signal(&t->more);
	while (t->count == TAP_SLOTS)
		pthread_cond_wait(&t->room, &t->lock);
	pthread_mutex_unlock(&t->lock);
	t->next = t->batch[t->tail];
	t->end = t->next + TAP_BATCH;
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
	struct msc_event *slot = t->next;
	size_t size = msc_event_size(ev);
	int r = tap_error(t);

	_Static_assert(TAP_COPY <= sizeof(*ev), "a whole event holds TAP_COPY bytes");
	if (r)
		return r;
	/*
	 * The slot being filled is never the worker's: the ring keeps one free.
	 * Only what a reader may look at is copied (a sixth of the struct for
	 * an SPTE change); the rest of the slot is undefined, as a source's.
	 * A short event is copied as TAP_COPY bytes: moves, not a call.
	 */
	if (size <= TAP_COPY)
		memcpy(slot, ev, TAP_COPY);
	else
		memcpy(slot, ev, size);
	if (++t->next == t->end)
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
	pthread_mutex_lock(&t->lock);
	t->closing = true;
	pthread_cond_signal(&t->more);
	pthread_mutex_unlock(&t->lock);
	pthread_join(t->thread, NULL);
	r = tap_error(t);
	destroy(t);
	return r;
}
