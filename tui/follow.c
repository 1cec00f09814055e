// SPDX-License-Identifier: GPL-2.0-only
/*
 * Analyze a capture as it is being recorded, into a side store (see
 * follow.h).
 *
 * Invariant: every source event with seq < next_seq was fed, in seq order,
 * exactly once; h is open exactly while events were fed since the last
 * checkpoint (or will be, during a step).
 */
#include "follow.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmuscope/event.h"
#include "mmuscope/host.h"
#include "mmuscope/source.h"
#include "mmuscope/spte.h"
#include "mmuscope/store.h"
#include "mmuscope/util.h"

#define CHECKPOINT_EVERY_S 2.0		/* at least this often while behind */
#define CHECKPOINT_SHARE 5		/* ... but at most 1/5 of the time */

struct tui_follow {
	struct msc_store *src;		/* borrowed: the database being written */
	struct msc_store *side;		/* owned: the analysis */
	int64_t side_capture;
	struct msc_host host;		/* the source capture's, for the SPTE layout */
	struct msc_history *h;		/* open between checkpoints */
	int64_t next_seq;		/* first source seq not fed yet */
	bool fed;			/* fed since the last checkpoint */
	double last_checkpoint;		/* monotonic s */
	double checkpoint_cost;		/* s the last one took */
	struct msc_history_summary sum;	/* as of the last step */
	struct msc_lost_mark *lost;	/* LOST events seen */
	size_t nr_lost;
};

/* The host a stored capture was classified with (its row keeps the facts). */
/**
 * tui_follow_open - start following capture @cap of @src
 * @side_path: a file to create (0600) for the analysis; the caller removes it
 *
 * Returns 0 or a negative error.
 */
int tui_follow_open(struct msc_store *src, const struct msc_capture_row *cap,
		    const char *side_path, struct tui_follow **ret)
{
	struct msc_capture_info info = { .kind = "text" };
	struct tui_follow *f = calloc(1, sizeof(*f));
	int r;

	if (!f)
		return -ENOMEM;
	f->src = src;
	f->next_seq = cap->first_seq;
	f->last_checkpoint = msc_mono_s();
	msc_capture_host(cap, &f->host);
	snprintf(info.path, sizeof(info.path), "%s", cap->source);
	info.host = f->host;
	r = msc_store_open(side_path, MSC_STORE_CREATE | MSC_STORE_BULK, &f->side);
	if (!r)
		r = msc_store_begin_capture(f->side, &info, &f->host, &f->side_capture);
	if (!r)
		r = msc_store_commit(f->side);
	if (r) {
		tui_follow_close(f);
		return r;
	}
	*ret = f;
	return 0;
}

void tui_follow_close(struct tui_follow *f)
{
	if (!f)
		return;
	msc_history_close(f->h);
	msc_store_close(f->side);
	free(f->lost);
	free(f);
}

static int keep_lost(struct tui_follow *f, const struct msc_event *ev)
{
	struct msc_lost_mark *p = realloc(f->lost, (f->nr_lost + 1) * sizeof(*p));

	if (!p)
		return -ENOMEM;
	f->lost = p;
	f->lost[f->nr_lost++] = (struct msc_lost_mark){
		.ts = ev->ts, .cpu = (uint16_t)ev->cpu, .count = ev->lost.count,
	};
	return 0;
}

static int checkpoint(struct tui_follow *f)
{
	double t = msc_mono_s();
	int r = msc_history_finish(f->h);

	if (!r)
		r = msc_store_commit(f->side);
	msc_history_get_summary(f->h, &f->sum);
	msc_history_close(f->h);
	f->h = NULL;
	f->fed = false;
	f->last_checkpoint = msc_mono_s();
	f->checkpoint_cost = f->last_checkpoint - t;
	return r;
}

/* Feed the events [next_seq, last] until @deadline. */
static int feed(struct tui_follow *f, int64_t last, double deadline)
{
	struct msc_event_cursor *cur;
	struct msc_event ev;
	unsigned int n = 0;
	int r;

	if (!f->h) {
		r = msc_history_open(f->side, f->side_capture, &f->host, NULL, &f->h);
		if (r)
			return r;
	}
	r = msc_store_events_open(f->src, f->next_seq, last, &cur);
	if (r)
		return r;
	while ((r = msc_store_events_next(cur, &ev)) == 1) {
		if (ev.type == MSC_EV_LOST && (r = keep_lost(f, &ev)))
			break;
		r = msc_history_feed(f->h, &ev);
		if (r)
			break;
		f->next_seq = (int64_t)ev.seq + 1;
		f->fed = true;
		if (++n % 1024 == 0 && msc_mono_s() >= deadline)
			break;
	}
	msc_store_events_close(cur);
	msc_history_get_summary(f->h, &f->sum);
	return r < 0 ? r : 0;
}

/**
 * tui_follow_step - analyze what the source committed, for up to @budget_ms
 * @cap: the source's capture row as just read (its last_seq bounds the read)
 * @ret_checkpoint: set when a checkpoint ran (phases, regions and open
 *	intervals are now in the side store)
 *
 * Returns 0 or a negative error (the follower is then unusable).
 */
int tui_follow_step(struct tui_follow *f, const struct msc_capture_row *cap,
		    unsigned int budget_ms, bool *ret_checkpoint)
{
	double start = msc_mono_s(), since;
	int r = 0;

	*ret_checkpoint = false;
	if (cap->first_seq >= 0 && f->next_seq < cap->first_seq)
		f->next_seq = cap->first_seq;
	if (cap->last_seq >= 0 && f->next_seq <= cap->last_seq)
		r = feed(f, cap->last_seq, start + budget_ms / 1e3);
	if (!r && f->h && cap->complete && f->next_seq > cap->last_seq)
		msc_history_capture_ended(f->h);
	if (r || !f->fed)
		return r;
	since = msc_mono_s() - f->last_checkpoint;
	if (f->next_seq > cap->last_seq ||
	    since >= max(CHECKPOINT_EVERY_S, CHECKPOINT_SHARE * f->checkpoint_cost)) {
		*ret_checkpoint = true;
		r = checkpoint(f);
	}
	return r;
}

/** tui_follow_caught_up - every event of @cap is analyzed and checkpointed */
bool tui_follow_caught_up(const struct tui_follow *f, const struct msc_capture_row *cap)
{
	return !f->fed && f->next_seq > cap->last_seq;
}

struct msc_store *tui_follow_store(const struct tui_follow *f)
{
	return f->side;
}

int64_t tui_follow_capture(const struct tui_follow *f)
{
	return f->side_capture;
}

/** tui_follow_summary - what the analysis counted, up to the last event fed */
void tui_follow_summary(const struct tui_follow *f, struct msc_history_summary *ret)
{
	*ret = f->sum;
}

/** tui_follow_lost - the lost-event marks seen in the stream; borrowed */
const struct msc_lost_mark *tui_follow_lost(const struct tui_follow *f, size_t *ret_nr)
{
	*ret_nr = f->nr_lost;
	return f->lost;
}
