// SPDX-License-Identifier: GPL-2.0-only
/*
 * Batches of events handed between two threads (event-ring.h).  count is
 * the full batches the consumer has not released, the one it holds among
 * them; the producer fills batch[tail] while count < EVENT_RING_SLOTS.
 */
#include "event-ring.h"

#include <errno.h>
#include <stdlib.h>

#define WAKE (EVENT_RING_SLOTS / 2)	/* batches a waiting side is woken for */

int event_ring_init(struct event_ring *r)
{
	*r = (struct event_ring){ 0 };
	r->batch = malloc(EVENT_RING_SLOTS * EVENT_RING_SPAN);
	if (!r->batch)
		return -ENOMEM;
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->more, NULL);
	pthread_cond_init(&r->room, NULL);
	return 0;
}

void event_ring_destroy(struct event_ring *r)
{
	if (!r->batch)
		return;
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->more);
	pthread_cond_destroy(&r->room);
	free(r->batch);
	r->batch = NULL;
}

/*
 * The batch being filled holds @bytes: hand it to the consumer, and when
 * the ring is full wait for half of it.  Returns false, having handed
 * nothing more, once the consumer left.  An empty batch is kept.
 */
bool event_ring_hand_over(struct event_ring *r, size_t bytes)
{
	bool left;

	pthread_mutex_lock(&r->lock);
	if (bytes && !r->left) {
		r->fill[r->tail] = bytes;
		r->tail = (r->tail + 1) % EVENT_RING_SLOTS;
		if (++r->count == WAKE)
			pthread_cond_signal(&r->more);
	}
	if (r->count == EVENT_RING_SLOTS)
		while (r->count > EVENT_RING_SLOTS - WAKE && !r->left)
			pthread_cond_wait(&r->room, &r->lock);
	left = r->left;
	pthread_mutex_unlock(&r->lock);
	return !left;
}

/* Nothing more comes: event_ring_take() returns 0 after the last batch. */
void event_ring_end(struct event_ring *r)
{
	pthread_mutex_lock(&r->lock);
	r->ended = true;
	pthread_cond_signal(&r->more);
	pthread_mutex_unlock(&r->lock);
}

/*
 * The next full batch, in hand-over order: its bytes returned, its start
 * in *@ret; 0 once the producer ended and every batch was taken.  With
 * none ready it waits for half the ring (or the end).  The batch is the
 * consumer's until event_ring_release().
 */
size_t event_ring_take(struct event_ring *r, const char **ret)
{
	size_t n = 0;

	pthread_mutex_lock(&r->lock);
	if (!r->count)
		while (r->count < WAKE && !r->ended)
			pthread_cond_wait(&r->more, &r->lock);
	if (r->count) {
		n = r->fill[r->head];
		*ret = r->batch + r->head * EVENT_RING_SPAN;
	}
	pthread_mutex_unlock(&r->lock);
	return n;
}

/* The batch taken last is done with: the producer may fill it again. */
void event_ring_release(struct event_ring *r)
{
	pthread_mutex_lock(&r->lock);
	r->head = (r->head + 1) % EVENT_RING_SLOTS;
	if (--r->count == EVENT_RING_SLOTS - WAKE)
		pthread_cond_signal(&r->room);
	pthread_mutex_unlock(&r->lock);
}

/* The consumer takes nothing more: a producer waiting for room stops. */
void event_ring_leave(struct event_ring *r)
{
	pthread_mutex_lock(&r->lock);
	r->left = true;
	pthread_cond_signal(&r->room);
	pthread_mutex_unlock(&r->lock);
}
