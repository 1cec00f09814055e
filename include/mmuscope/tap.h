/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A tap: what follows a capture's events as they are stored.
 *
 * Whoever stores a capture (the ingest pipeline, lib/ingest.c) calls
 * begin() once, when the capture row is written and its host is final, and
 * then event() for each event stored, in stream order, with the seq it was
 * stored under.  The analyzer is one (msc_history_tap_new()); a tap thread
 * runs another on a thread of its own.
 */
#ifndef MSC_TAP_H
#define MSC_TAP_H

#include <stdint.h>

struct msc_capture_info;
struct msc_event;
struct msc_host;
struct msc_store;

struct msc_tap_begin {
	int64_t capture_id;
	const struct msc_capture_info *info;	/* what the source says */
	const struct msc_host *host;		/* final */
	struct msc_store *store;		/* the events' database */
};

struct msc_tap_ops {
	int (*begin)(void *ctx, const struct msc_tap_begin *b);
	int (*event)(void *ctx, const struct msc_event *ev);
};

struct msc_tap {
	const struct msc_tap_ops *ops;	/* NULL: no tap */
	void *ctx;
};

/*
 * A tap run on a thread of its own (lib/tap-thread.c): events are handed to
 * it in batches, begin() runs on the caller's thread before any of them.
 */
struct msc_tap_thread;

int msc_tap_thread_start(const struct msc_tap *inner, struct msc_tap_thread **ret);
struct msc_tap msc_tap_thread_tap(struct msc_tap_thread *t);
int msc_tap_thread_finish(struct msc_tap_thread *t);

#endif /* MSC_TAP_H */
