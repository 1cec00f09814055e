// SPDX-License-Identifier: GPL-2.0-only
/*
 * The activity tables: what the MMU did per activity bucket
 * (activity_bucket_ns, 1 ms by default), for all tasks together (activity)
 * and for each task (task_activity), the counts the TUI's window shows.
 *
 * Invariants: a cost is counted once for the bucket and once for its task,
 * so a bucket's task rows add up to its activity row.  A bucket is written
 * when the first event after it is fed, and the unfinished one when an
 * analysis stops; the rows of a bucket written twice add up (the store's
 * upsert), which is how a resumed analysis goes on with its bucket.  The
 * bucket's tasks are an open-addressing table by pid, never more than half
 * full: before an event is fed, a table a quarter full is written early,
 * and no event brings more than a quarter of the slots in new tasks (an
 * event's costs are its own task's; at the end, those of the NPF exits
 * still waiting, one per vCPU, fewer than HNPF_SLOTS / 2).
 */
#include <string.h>

#include "local.h"

/* Task @pid's slot, found or taken (hact_task() has looked at the last one found). */
struct htask_act *hact_task_slot(struct hactivity *a, int32_t pid)
{
	uint32_t key = (uint32_t)pid + 2;	/* pids are >= -1 (a lost mark's) */
	uint32_t i = (key * 2654435761U) & (HTASK_SLOTS - 1);
	struct htask_act *t;

	while (a->tasks[i].key && a->tasks[i].key != key)
		i = (i + 1) & (HTASK_SLOTS - 1);
	t = &a->tasks[i];
	if (!t->key) {
		t->key = key;
		t->vcpu = -1;
		a->task_used[a->nr_tasks++] = (uint16_t)i;
	}
	a->task_last = t;
	return t;
}

static bool any(const uint64_t act[ACT_NR])
{
	for (int i = 0; i < ACT_NR; i++)
		if (act[i])
			return true;
	return false;
}

/* Write the bucket's task rows so far (unless resuming) and empty the table. */
static int write_tasks(struct msc_history *h)
{
	int r = 0;

	for (uint32_t k = 0; k < h->activity.nr_tasks; k++) {
		struct htask_act *t = &h->activity.tasks[h->activity.task_used[k]];

		if (!r && !h->m.loading && (any(t->act) || t->vcpu >= 0))
			r = hstore_put_task_activity(h->hs, h->capture_id, h->st.act_bucket,
						     (int32_t)(t->key - 2), t->vcpu, t->act);
		memset(t, 0, sizeof(*t));
	}
	h->activity.nr_tasks = 0;
	h->activity.task_last = NULL;
	return r;
}

/**
 * hact_tick - time moves to @ts: write the bucket that ended
 * @ev: the event about to be fed (its task's vCPU is noted), or NULL
 */
int hact_tick(struct msc_history *h, uint64_t ts, const struct msc_event *ev)
{
	uint64_t bucket = hact_bucket_ns(h);
	int r = 0;

	if (ts - h->st.act_bucket >= bucket || ts < h->st.act_bucket) {
		if (!h->m.loading && any(h->st.act))
			r = hstore_put_activity(h->hs, h->capture_id, h->st.act_bucket, h->st.act);
		if (!r)
			r = write_tasks(h);
		memset(h->st.act, 0, sizeof(h->st.act));
		h->st.act_bucket = ts - ts % bucket;
	} else if (h->activity.nr_tasks >= HTASK_SLOTS / 4) {
		r = write_tasks(h);
	}
	if (ev && ev->type == MSC_EV_PAGE_FAULT)
		hact_task(&h->activity, ev->pid)->vcpu = (int32_t)ev->pf.vcpu;
	else if (ev && ev->type == MSC_EV_FAST_PF)
		hact_task(&h->activity, ev->pid)->vcpu = ev->fast_pf.vcpu;
	return r;
}
