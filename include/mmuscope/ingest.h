/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Ingest: source -> host inference -> classification -> store, the one
 * pipeline behind both `mmuscope import` and `mmuscope record`.
 *
 * Until the host's SPTE layout is known (from the source, an override, or
 * enough evidence in the first events) events are held in a bounded buffer;
 * then the capture row is written and the buffer flushed, so every stored
 * event is classified with the final layout.  An optional tap sees each
 * classified event right after it is stored (the analyzer can follow the
 * stream without reading it back).
 */
#ifndef MSC_INGEST_H
#define MSC_INGEST_H

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

int msc_ingest_init(struct msc_ingest *ing, struct msc_source *src, struct msc_store *store,
		    const struct msc_host *overrides);
int msc_ingest_step(struct msc_ingest *ing, size_t max_events);
int msc_ingest_finish(struct msc_ingest *ing);
void msc_ingest_release(struct msc_ingest *ing);

#endif /* MSC_INGEST_H */
