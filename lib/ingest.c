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
#include "mmuscope/live.h"
#include "mmuscope/source.h"
#include "mmuscope/store.h"
#include "mmuscope/util.h"
#include "event-desc.h"

/*
 * The tasks of the stored events: an open-addressing set (0 marks a free
 * slot, so pid 0, the idle task, is kept aside), at most half full.
 */
struct pid_set {
	int32_t *slot;
	size_t size, nr;	/* size: a power of two */
	int32_t last;		/* the last pid added: events come in runs */
	bool has_zero;
};

struct msc_ingest {
	struct msc_source *src;		/* borrowed */
	struct msc_store *store;	/* borrowed */
	struct msc_host host;		/* final once counts.started */
	struct msc_host_guess guess;
	struct msc_classifier classifier;
	struct msc_event *held;		/* events waiting for the layout */
	size_t nr_held;
	int64_t capture_id;
	struct msc_ingest_counts counts;
	struct msc_tap tap;
	struct pid_set pids;
	char note[256];			/* one remark on the inferred host, or "" */
};

static size_t pid_hash(int32_t pid, size_t size)
{
	return ((uint32_t)pid * 2654435761u) & (size - 1);
}

static int pid_set_grow(struct pid_set *p)
{
	size_t size = p->size ? 2 * p->size : 256;
	int32_t *slot = calloc(size, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	for (size_t i = 0; i < p->size; i++) {
		size_t h;

		if (!p->slot[i])
			continue;
		for (h = pid_hash(p->slot[i], size); slot[h]; h = (h + 1) & (size - 1))
			;
		slot[h] = p->slot[i];
	}
	free(p->slot);
	p->slot = slot;
	p->size = size;
	return 0;
}

/* pid_set_add() of a pid other than the last added (kept out of its caller's loop). */
static __attribute__((noinline)) int pid_set_insert(struct pid_set *p, int32_t pid)
{
	size_t h;

	p->last = pid;
	if (!pid) {
		p->has_zero = true;
		return 0;
	}
	if (2 * (p->nr + 1) > p->size && pid_set_grow(p))
		return -ENOMEM;
	for (h = pid_hash(pid, p->size); p->slot[h]; h = (h + 1) & (p->size - 1))
		if (p->slot[h] == pid)
			return 0;
	p->slot[h] = pid;
	p->nr++;
	return 0;
}

static inline int pid_set_add(struct pid_set *p, int32_t pid)
{
	if (pid == p->last && p->nr)
		return 0;
	return pid_set_insert(p, pid);
}

static int by_pid(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return x < y ? -1 : x > y;
}

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
	if (o->ept_sw.from == MSC_LEARNT_OVERRIDE)
		host->ept_sw = o->ept_sw;
	if (o->source == MSC_HOST_OVERRIDE) {
		host->ept_ad |= o->ept_ad;
		host->tdp_mmu |= o->tdp_mmu;
		host->source = MSC_HOST_OVERRIDE;
	}
}

/**
 * msc_ingest_new - set up the pipeline for one capture
 * @src: where events come from; borrowed
 * @store: where they go; borrowed, opened for writing
 * @overrides: host facts from the user (msc_host_init() + msc_host_set()),
 *	or NULL
 * @ret: the pipeline, freed with msc_ingest_free()
 *
 * Returns 0 or -ENOMEM.
 */
int msc_ingest_new(struct msc_source *src, struct msc_store *store,
		   const struct msc_host *overrides, struct msc_ingest **ret)
{
	struct msc_ingest *ing = calloc(1, sizeof(*ing));

	if (!ing)
		return -ENOMEM;
	ing->src = src;
	ing->store = store;
	ing->host = msc_source_info(src)->host;
	if (overrides)
		merge_host(&ing->host, overrides);
	ing->held = malloc(MSC_INGEST_MAX_HOLD * sizeof(*ing->held));
	if (!ing->held) {
		free(ing);
		return -ENOMEM;
	}
	*ret = ing;
	return 0;
}

/** msc_ingest_set_tap - who follows the stored events (before the first step) */
void msc_ingest_set_tap(struct msc_ingest *ing, const struct msc_tap *tap)
{
	ing->tap = *tap;
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
		ing->counts.store_failed = true;
	return r;
}

/* Store a classified event and hand it to the tap. */
static int put(struct msc_ingest *ing, struct msc_event *ev)
{
	int r;

	ev->seq = (uint64_t)msc_store_next_seq(ing->store);	/* what the store numbers it */
	if (pid_set_add(&ing->pids, ev->pid))
		return -ENOMEM;
	r = store_result(ing, msc_store_add_event(ing->store, ev));
	if (!r && ing->tap.ops)	/* a tap writes the database too */
		r = store_result(ing, ing->tap.ops->event(ing->tap.ctx, ev));
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
	ing->counts.started = true;
	if (ing->tap.ops) {
		struct msc_tap_begin b = { .capture_id = ing->capture_id,
					   .info = msc_source_info(ing->src), .host = &ing->host,
					   .store = ing->store };

		r = store_result(ing, ing->tap.ops->begin(ing->tap.ctx, &b));
	}
	for (size_t i = 0; i < ing->nr_held && !r; i++)
		r = put(ing, &ing->held[i]);
	ing->nr_held = 0;
	return r;
}

/*
 * No event stored names a guest frame past 57-bit guest physical addresses
 * (5-level paging: GFNs below 2^45) nor a time from 2^63 ns on (292 years
 * of uptime; durations are signed): such a value is damage, not something
 * a kernel traces.  The event is refused and counted (counts.bad_frame,
 * bad_ts); the import goes on.  spte_changed is the exception for frames:
 * the analyzer stores it as a BAD_SPTE anomaly, which says more.
 */
#define GFN_END (1ULL << 45)
#define TS_END (1ULL << 63)

static bool refused(struct msc_ingest *ing, const struct msc_event *ev)
{
	uint64_t first, last;

	if (ev->ts >= TS_END) {
		ing->counts.bad_ts++;
		return true;
	}
	if (ev->type != MSC_EV_SPTE_CHANGED && msc_event_gfns(ev, &first, &last) &&
	    (first >= GFN_END || last >= GFN_END || last < first)) {
		ing->counts.bad_frame++;
		return true;
	}
	return false;
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
		if (r <= 0)
			return r;
		if (refused(ing, &ev))
			continue;
		ing->counts.events++;
		ing->counts.by_type[ev.type]++;
		if (ing->counts.started) {
			r = msc_classifier_apply(&ing->classifier, &ev);
			if (!r)
				r = put(ing, &ev);
			if (r)
				return r;
			continue;
		}
		msc_host_guess_add(&ing->guess, &ev);
		/* as a source's, the event is its header and payload: copied so */
		memcpy(&ing->held[ing->nr_held++], &ev, msc_event_size(&ev));
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

	if (!ing->counts.started) {
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

/**
 * msc_ingest_add - store an event that is not the source's (a loss the
 *	recorder noticed) after the events stepped so far, and hand it to
 *	the tap
 *
 * Before the capture has begun it is held with the source's events.  Not
 * counted in msc_ingest_get_counts().  Returns 0 or a negative error.
 */
int msc_ingest_add(struct msc_ingest *ing, const struct msc_event *ev)
{
	struct msc_event e = *ev;
	int r;

	if (ing->counts.started)
		return put(ing, &e);
	if (ing->nr_held == MSC_INGEST_MAX_HOLD && (r = start(ing)))
		return r;
	if (ing->counts.started)
		return put(ing, &e);
	ing->held[ing->nr_held++] = e;
	return 0;
}

/** msc_ingest_get_counts - what was seen so far */
void msc_ingest_get_counts(const struct msc_ingest *ing, struct msc_ingest_counts *ret)
{
	*ret = ing->counts;
	ret->unexplained = ing->classifier.unexplained;
}

/**
 * msc_ingest_get_pids - the tasks the stored events came from
 * @ing: the pipeline
 * @ret: the pids, ascending (a lost mark's -1 too); the caller frees it
 * @ret_nr: how many
 *
 * Returns 0 or -ENOMEM.
 */
int msc_ingest_get_pids(const struct msc_ingest *ing, int **ret, size_t *ret_nr)
{
	const struct pid_set *p = &ing->pids;
	int *pids = malloc((p->nr + 1) * sizeof(*pids));
	size_t nr = 0;

	if (!pids)
		return -ENOMEM;
	if (p->has_zero)
		pids[nr++] = 0;
	for (size_t i = 0; i < p->size; i++)
		if (p->slot[i])
			pids[nr++] = p->slot[i];
	qsort(pids, nr, sizeof(*pids), by_pid);
	*ret = pids;
	*ret_nr = nr;
	return 0;
}

/**
 * msc_ingest_add_tasks - store a task row for every task of the stored
 *	events: its process and name as the source knows them
 * @ing: the pipeline, its source read to the end (before msc_ingest_finish())
 * @vm_of: the VM of a process (its kvm_stats_sample.vm), or NULL: none known
 * @ctx: for @vm_of
 *
 * A lost mark's pid (-1) is no task.  Returns 0 or a negative error.
 */
int msc_ingest_add_tasks(struct msc_ingest *ing, const char *(*vm_of)(void *ctx, int tgid),
			 void *ctx)
{
	struct msc_source_task task;
	int *pids = NULL, r = 0;
	size_t nr = 0;

	if (!ing->counts.started)
		r = start(ing);
	if (!r)
		r = msc_ingest_get_pids(ing, &pids, &nr);
	for (size_t i = 0; !r && i < nr; i++) {
		if (pids[i] < 0)
			continue;
		msc_source_get_task(ing->src, pids[i], &task);
		r = store_result(ing, msc_store_add_task(ing->store, pids[i], task.tgid, task.comm,
							 task.tgid > 0 && vm_of ?
							 vm_of(ctx, task.tgid) : NULL));
	}
	free(pids);
	return r;
}

/** msc_ingest_host - the host the events are classified for (final once started) */
const struct msc_host *msc_ingest_host(const struct msc_ingest *ing)
{
	return &ing->host;
}

/** msc_ingest_layout - the SPTE layout the events are classified with */
const struct msc_spte_layout *msc_ingest_layout(const struct msc_ingest *ing)
{
	return &ing->classifier.layout;
}

/** msc_ingest_note - one remark on the inferred host, or "" */
const char *msc_ingest_note(const struct msc_ingest *ing)
{
	return ing->note;
}

/** msc_ingest_free - free the pipeline; NULL is fine */
void msc_ingest_free(struct msc_ingest *ing)
{
	if (!ing)
		return;
	msc_classifier_release(&ing->classifier);
	free(ing->pids.slot);
	free(ing->held);
	free(ing);
}
