// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ingest pipeline of ingest.h.
 */
#include "mmuscope/ingest.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmuscope/decode.h"
#include "mmuscope/error.h"
#include "mmuscope/event.h"
#include "mmuscope/source.h"
#include "mmuscope/store.h"
#include "mmuscope/util.h"

/* Take each override the user gave over what the source says. */
static void merge_host(struct msc_host *host, const struct msc_host *o)
{
	if (o->vendor_source == MSC_HOST_OVERRIDE) {
		host->vendor = o->vendor;
		host->vendor_source = MSC_HOST_OVERRIDE;
	}
	if (o->kver_source == MSC_HOST_OVERRIDE) {
		memcpy(host->release, o->release, sizeof(host->release));
		host->kver = o->kver;
		host->kver_source = MSC_HOST_OVERRIDE;
	}
	if (o->nonpresent.from == MSC_LEARNT_OVERRIDE)
		host->nonpresent = o->nonpresent;
	if (o->frozen.from == MSC_LEARNT_OVERRIDE)
		host->frozen = o->frozen;
	if (o->role_access.from == MSC_LEARNT_OVERRIDE)
		host->role_access = o->role_access;
	if (o->source == MSC_HOST_OVERRIDE) {
		host->ept_ad |= o->ept_ad;
		host->tdp_mmu |= o->tdp_mmu;
		host->source = MSC_HOST_OVERRIDE;
	}
}

/**
 * msc_ingest_init - set up the pipeline for one capture
 * @ing: the pipeline
 * @src: where events come from; borrowed
 * @store: where they go; borrowed, opened for writing
 * @overrides: host facts from the user (msc_host_init() + msc_host_set()),
 *	or NULL
 *
 * Returns 0 or -ENOMEM.
 */
int msc_ingest_init(struct msc_ingest *ing, struct msc_source *src, struct msc_store *store,
		    const struct msc_host *overrides)
{
	*ing = (struct msc_ingest){ .src = src, .store = store };
	ing->host = msc_source_info(src)->host;
	if (overrides)
		merge_host(&ing->host, overrides);
	ing->held = malloc(MSC_INGEST_MAX_HOLD * sizeof(*ing->held));
	return ing->held ? 0 : -ENOMEM;
}

/* Nothing the first events could add: every layout fact was given. */
static bool host_known(const struct msc_host *h)
{
	return h->vendor_source > MSC_HOST_INFERRED && h->kver_source > MSC_HOST_INFERRED &&
	       h->nonpresent.from == MSC_LEARNT_OVERRIDE;
}

/* Remember that a store call failed, so the caller names the database. */
static int store_result(struct msc_ingest *ing, int r)
{
	if (r)
		ing->store_failed = true;
	return r;
}

/* Store a classified event and hand it to the tap. */
static int put(struct msc_ingest *ing, struct msc_event *ev)
{
	int r;

	ev->seq = (uint64_t)msc_store_next_seq(ing->store);	/* what the store numbers it */
	r = store_result(ing, msc_store_add_event(ing->store, ev));
	if (!r && ing->tap)
		r = store_result(ing, ing->tap(ing->tap_ctx, ev));	/* it writes the database */
	return r;
}

/*
 * The layout is decided: classify what was held (teardowns among it show
 * the frozen value), write the capture row and release the held events.
 */
static int start(struct msc_ingest *ing)
{
	int r = 0;

	if (!host_known(&ing->host))
		r = msc_host_guess_apply(&ing->guess, &ing->host, ing->note, sizeof(ing->note));
	if (r)
		return r;
	msc_classifier_init(&ing->classifier, &ing->host);
	for (size_t i = 0; i < ing->nr_held && !r; i++)
		r = msc_classifier_apply(&ing->classifier, &ing->held[i]);
	if (r)
		return r;
	msc_classifier_learnt(&ing->classifier, &ing->host);
	r = store_result(ing, msc_store_begin_capture(ing->store, msc_source_info(ing->src),
						      &ing->host, &ing->capture_id));
	if (r)
		return r;
	ing->started = true;
	for (size_t i = 0; i < ing->nr_held && !r; i++)
		r = put(ing, &ing->held[i]);
	ing->nr_held = 0;
	return r;
}

/**
 * msc_ingest_step - move up to @max_events events from source to store
 *
 * Returns 1 when the source may have more, 0 when it is exhausted (call
 * msc_ingest_finish()), or a negative error.
 */
int msc_ingest_step(struct msc_ingest *ing, size_t max_events)
{
	struct msc_event ev;
	int r;

	for (size_t n = 0; n < max_events; n++) {
		r = msc_source_next(ing->src, &ev);
		if (r <= 0) {
			if (!r)
				ing->done = true;
			return r;
		}
		ing->events++;
		ing->by_type[ev.type]++;
		if (ing->started) {
			r = msc_classifier_apply(&ing->classifier, &ev);
			if (!r)
				r = put(ing, &ev);
			if (r)
				return r;
			continue;
		}
		msc_host_guess_add(&ing->guess, &ev);
		ing->held[ing->nr_held++] = ev;
		if (host_known(&ing->host) || msc_host_guess_settled(&ing->guess, &ing->host) ||
		    ing->nr_held == MSC_INGEST_MAX_HOLD) {
			r = start(ing);
			if (r)
				return r;
		}
	}
	return 1;
}

static int store_params(struct msc_ingest *ing)
{
	const struct msc_host *h = &ing->host;
	char buf[128];
	int r;

	r = msc_store_set_param(ing->store, "profile.vendor", msc_vendor_name(h->vendor));
	if (!r)
		r = msc_store_set_param(ing->store, "profile.vendor_source",
					msc_host_source_name(h->vendor_source));
	if (!r) {
		snprintf(buf, sizeof(buf), "%#llx",
			 (unsigned long long)ing->classifier.layout.nonpresent);
		r = msc_store_set_param(ing->store, "profile.nonpresent", buf);
	}
	if (!r)
		r = msc_store_set_param(ing->store, "profile.era_source",
					msc_host_source_name(h->kver_source));
	if (!r && h->vendor == MSC_VENDOR_EPT)
		r = msc_store_set_param(ing->store, "profile.ept_ad", h->ept_ad ? "Y" : "N");
	snprintf(buf, sizeof(buf), "ept=%llu npt=%llu np63=%llu np0=%llu role3=%llu role4=%llu",
		 (unsigned long long)ing->guess.ept_votes, (unsigned long long)ing->guess.npt_votes,
		 (unsigned long long)ing->guess.np63_votes, (unsigned long long)ing->guess.np0_votes,
		 (unsigned long long)ing->guess.role3_votes,
		 (unsigned long long)ing->guess.role4_votes);
	if (!r)
		r = msc_store_set_param(ing->store, "profile.evidence", buf);
	if (!r && ing->note[0])
		r = msc_store_set_param(ing->store, "profile.note", ing->note);
	return r;
}

/**
 * msc_ingest_finish - store what is held, the event counts and host facts,
 *	and mark the capture complete
 *
 * Call only after msc_ingest_step() returned 0 (the whole source is
 * stored).  Returns 0 or a negative error.
 */
int msc_ingest_finish(struct msc_ingest *ing)
{
	struct msc_event_stat stat;
	uint64_t records = 0;
	int r = 0, s;

	if (!ing->started) {
		r = start(ing);
		if (r)
			return r;
	}
	for (size_t i = 0; !r && (s = msc_source_get_stat(ing->src, i, &stat)) != -ENOENT; i++) {
		if (s <= 0)
			continue;
		records += stat.count;
		r = store_result(ing, msc_store_add_stat(ing->store, &stat));
	}
	msc_classifier_learnt(&ing->classifier, &ing->host);
	if (!r)
		r = store_result(ing, msc_store_set_capture_host(ing->store, &ing->host));
	if (!r)
		r = store_result(ing, store_params(ing));
	if (!r)
		r = store_result(ing, msc_store_end_capture(ing->store, records));
	return r;
}

void msc_ingest_release(struct msc_ingest *ing)
{
	msc_classifier_release(&ing->classifier);
	free(ing->held);
	ing->held = NULL;
}
