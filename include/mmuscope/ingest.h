/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Ingest: source -> host inference -> classification -> store, the one
 * pipeline behind both `mmuscope import` and `mmuscope record`.
 *
 * Until the host's SPTE layout is known (from the source, an override, or
 * enough evidence in the first events) events are held in a bounded buffer;
 * then the capture row is written and the buffer flushed, so every stored
 * event is classified with the final layout.  An optional tap (tap.h) is
 * told when the capture begins and sees each classified event right after
 * it is stored, with the seq it was stored under (the analyzer can follow
 * the stream without reading it back).
 */
#ifndef MSC_INGEST_H
#define MSC_INGEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmuscope/event.h"
#include "mmuscope/host.h"
#include "mmuscope/tap.h"

struct msc_event;
struct msc_source;
struct msc_store;

/* Events held back at most while the SPTE layout is being inferred. */
#define MSC_INGEST_MAX_HOLD 65536

/* The pipeline of one capture; opaque. */
struct msc_ingest;

/* What the pipeline has seen so far. */
struct msc_ingest_counts {
	uint64_t events;		/* events the source handed out */
	uint64_t by_type[MSC_EV_NR];	/* ... per enum msc_event_type */
	uint64_t unexplained;		/* installs over a non-present value no layout explains */
	uint64_t bad_frame;		/* refused: a guest frame past 57-bit addresses */
	uint64_t bad_ts;		/* refused: a time from 2^63 ns on */
	bool started;			/* the capture row is written, the host final */
	bool store_failed;		/* the last error came from the store, not the source */
};

int msc_ingest_new(struct msc_source *src, struct msc_store *store,
		   const struct msc_host *overrides, struct msc_ingest **ret);
void msc_ingest_set_tap(struct msc_ingest *ing, const struct msc_tap *tap);
int msc_ingest_step(struct msc_ingest *ing, size_t max_events);
int msc_ingest_add(struct msc_ingest *ing, const struct msc_event *ev);
int msc_ingest_finish(struct msc_ingest *ing);
void msc_ingest_free(struct msc_ingest *ing);

void msc_ingest_get_counts(const struct msc_ingest *ing, struct msc_ingest_counts *ret);
const struct msc_host *msc_ingest_host(const struct msc_ingest *ing);
const struct msc_spte_layout *msc_ingest_layout(const struct msc_ingest *ing);
const char *msc_ingest_note(const struct msc_ingest *ing);
int msc_ingest_get_pids(const struct msc_ingest *ing, int **ret, size_t *ret_nr);
int msc_ingest_add_tasks(struct msc_ingest *ing, const char *(*vm_of)(void *ctx, int tgid),
			 void *ctx);

#endif /* MSC_INGEST_H */
