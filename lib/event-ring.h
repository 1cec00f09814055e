/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Batches of events handed from one thread to another (lib/event-ring.c):
 * the producer packs events into the batch at the ring's tail and hands it
 * over, the consumer takes the one at its head and releases it when it is
 * done.  A tap thread (tap-thread.c) consumes on its worker; a read-ahead
 * cursor (store-readahead.c) produces on its.
 *
 * An event takes event_ring_step() bytes of its batch: its msc_event_size()
 * rounded up to keep the next one aligned.  A batch is handed over once it
 * holds EVENT_RING_BYTES; past that it has room for one whole struct
 * msc_event, so the producer may write one whole at its fill point, and the
 * consumer reads each in place, as a struct msc_event whose bytes past its
 * size are undefined (as a source's are).  Packed, an SPTE change is two
 * cache lines crossing between the cores, not six.
 *
 * Invariant: the batch being filled is never one the consumer holds, so
 * neither side locks per event: the lock is taken once a batch, and a side
 * waiting for the other is woken when half the ring is ready for it.
 */
#ifndef MSC_EVENT_RING_H
#define MSC_EVENT_RING_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "event-desc.h"
#include "mmuscope/event.h"

#define EVENT_RING_BYTES (32 * 1024)	/* packed bytes per hand-over, at least */
#define EVENT_RING_SLOTS 8		/* batches in flight, the one being filled among them */
#define EVENT_RING_SPAN (EVENT_RING_BYTES + sizeof(struct msc_event))

struct event_ring {
	pthread_mutex_t lock;
	pthread_cond_t more, room;
	char *batch;			/* EVENT_RING_SLOTS batches of EVENT_RING_SPAN bytes */
	size_t fill[EVENT_RING_SLOTS];	/* bytes of each full batch */
	unsigned int head, tail, count;	/* full batches from head; tail is being filled */
	bool ended;			/* the producer hands over nothing more */
	bool left;			/* the consumer takes nothing more */
};

int event_ring_init(struct event_ring *r);
void event_ring_destroy(struct event_ring *r);

/* The bytes @ev takes in a batch. */
static inline size_t event_ring_step(const struct msc_event *ev)
{
	return (msc_event_size(ev) + _Alignof(struct msc_event) - 1) &
	       ~(_Alignof(struct msc_event) - 1);
}

/* The producer's side: the batch being filled starts here. */
static inline char *event_ring_filling(struct event_ring *r)
{
	return r->batch + r->tail * EVENT_RING_SPAN;
}

bool event_ring_hand_over(struct event_ring *r, size_t bytes);
void event_ring_end(struct event_ring *r);

/* The consumer's side */
size_t event_ring_take(struct event_ring *r, const char **ret);
void event_ring_release(struct event_ring *r);
void event_ring_leave(struct event_ring *r);

#endif /* MSC_EVENT_RING_H */
