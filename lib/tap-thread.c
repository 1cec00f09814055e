// SPDX-License-Identifier: GPL-2.0-only
/*
 * An ingest tap run on its own thread: the producer (the ingest loop) hands
 * events over in batches through a small ring, the worker calls the real tap
 * on them.  On a two-core machine this lets the analysis (its model and its
 * own database writes) run beside decoding and storing the events.
 *
 * Invariant: the worker calls the tap on every event pushed, in push order,
 * until the tap fails; after a failure it drops what comes and the producer
 * sees the error at its next push or at msc_tap_thread_finish().
 */
#include "mmuscope/ingest.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mmuscope/event.h"

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
			int r = t->fn(t->ctx, &t->batch[slot][i]);

			if (r)
				__atomic_store_n(&t->err, r, __ATOMIC_RELEASE);
		}
		pthread_mutex_lock(&t->lock);
		t->head = (t->head + 1) % MSC_TAP_SLOTS;
		t->count--;
		pthread_cond_signal(&t->room);
	}
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

/**
 * msc_tap_thread_start - run @fn(@ctx, ev) on a thread of its own
 * @t: the thread's state, owned by the caller
 * @fn: the tap; it runs on the worker only
 * @ctx: its context
 *
 * Use msc_tap_thread_push() as the ingest tap with @t as its context.
 * Returns 0 or -errno.
 */
int msc_tap_thread_start(struct msc_tap_thread *t, msc_event_fn fn, void *ctx)
{
	int r;

	memset(t, 0, sizeof(*t));
	t->fn = fn;
	t->ctx = ctx;
	t->batch = malloc(sizeof(*t->batch) * MSC_TAP_SLOTS);
	if (!t->batch)
		return -ENOMEM;
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->more, NULL);
	pthread_cond_init(&t->room, NULL);
	r = pthread_create(&t->thread, NULL, worker, t);
	if (r) {
		free(t->batch);
		t->batch = NULL;
		return -r;
	}
	t->running = true;
	return 0;
}

/* Hand the batch being filled to the worker; waits while the ring is full. */
static void hand_over(struct msc_tap_thread *t)
{
	if (!t->cur_n)
		return;
	pthread_mutex_lock(&t->lock);
	t->fill[t->tail] = t->cur_n;
	t->tail = (t->tail + 1) % MSC_TAP_SLOTS;
	t->count++;
	pthread_cond_signal(&t->more);
	while (t->count == MSC_TAP_SLOTS)
		pthread_cond_wait(&t->room, &t->lock);
	pthread_mutex_unlock(&t->lock);
	t->cur_n = 0;
}

/**
 * msc_tap_thread_push - an ingest tap: queue @ev for the worker
 * @ctx: the struct msc_tap_thread
 *
 * Returns 0, or the error the worker's tap returned on an earlier event.
 */
int msc_tap_thread_push(void *ctx, const struct msc_event *ev)
{
	struct msc_tap_thread *t = ctx;

	int r = tap_error(t);

	if (r)
		return r;
	/* the slot being filled is never the worker's: the ring keeps one free */
	t->batch[t->tail][t->cur_n++] = *ev;
	if (t->cur_n == MSC_TAP_BATCH)
		hand_over(t);
	return 0;
}

/**
 * msc_tap_thread_finish - let the worker take everything pushed, and stop it
 *
 * Returns 0 or the tap's first error.  The tap's context is the caller's
 * again (no thread touches it) once this returns.
 */
int msc_tap_thread_finish(struct msc_tap_thread *t)
{
	if (!t->running)
		return tap_error(t);
	hand_over(t);
	pthread_mutex_lock(&t->lock);
	t->closing = true;
	pthread_cond_signal(&t->more);
	pthread_mutex_unlock(&t->lock);
	pthread_join(t->thread, NULL);
	t->running = false;
	pthread_mutex_destroy(&t->lock);
	pthread_cond_destroy(&t->more);
	pthread_cond_destroy(&t->room);
	free(t->batch);
	t->batch = NULL;
	return tap_error(t);
}
