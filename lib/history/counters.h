/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lib/history/'s counters, the floor above the model: the census (census.c:
 * the model's leaves by size, written as census rows; the 2M cells'
 * region_state rows) and the activity (activity.c: what each task did in
 * each bucket of time).  They read the model and write through the
 * tables; the detectors above count into them.
 */
#ifndef MSC_HISTORY_COUNTERS_H
#define MSC_HISTORY_COUNTERS_H

#include <stdarg.h>

#include "model.h"

#define HACT_BUCKET_NS 1000000ULL	/* the default activity bucket: 1 ms */
#define HTASK_SLOTS 1024		/* power of two, >= 4 x HNPF_SLOTS / 2 */

/* One task's counters in the activity bucket (lib/history/activity.c). */
struct htask_act {
	uint32_t key;			/* pid + 2; 0: a free slot */
	int32_t vcpu;			/* the vCPU its faults named, -1: none */
	uint64_t act[ACT_NR];
};

/* The activity bucket's tasks, by pid (activity.c). */
struct hactivity {
	struct htask_act tasks[HTASK_SLOTS];
	uint16_t task_used[HTASK_SLOTS / 2];	/* the slots taken, in the order taken */
	uint32_t nr_tasks;
	struct htask_act *task_last;	/* the slot found last, NULL */
};

/* The census's state (census.c). */
struct hcensus {
	uint64_t row_ts;		/* when the last census row was written */
	uint64_t cell_updates;		/* 2M cells recomputed so far */
	uint64_t cells_stale;		/* cells with HCELL_STALE */
	unsigned int flags;		/* MSC_CENSUS_* of its rows */
};

/* lib/history/census.c */

int hcensus_flush(struct msc_history *h, uint64_t now);
uint64_t hcensus_due_at(const struct msc_history *h);
void hcensus_total(const struct msc_history *h, struct msc_census *ret);
int hcensus_marker(struct msc_history *h, const struct msc_event *ev);
int hcensus_cell_update(struct msc_history *h, unsigned int as_id, struct hnode *n2,
			unsigned int i);
int hcensus_cells_exact(struct msc_history *h, uint64_t ts);
bool hcensus_parse_stats(const char *text, char *phase, size_t phase_size,
			 int64_t pages[MSC_HISTORY_MAX_LEVEL + 1]);

/* What hphase_cost() counts. */
enum {
	HCOST_SPTE, HCOST_SPLIT, HCOST_SPLIT_FAIL, HCOST_PAGES_SPLIT, HCOST_PROMOTE,
	HCOST_SYNTH, HCOST_FAULT_SLOW, HCOST_FAULT_FAST, HCOST_FAULT_SPURIOUS, HCOST_FLUSH,
	HCOST_ZAP, HCOST_REFAULT, HCOST_MAP, HCOST_WP, HCOST_FIXED,
};

/* lib/history/activity.c */
struct htask_act *hact_task_slot(struct hactivity *a, int32_t pid);
int hact_tick(struct msc_history *h, uint64_t ts, const struct msc_event *ev);

/* Task @pid's counters in the bucket: most often the last task's. */
static inline struct htask_act *hact_task(struct hactivity *a, int32_t pid)
{
	struct htask_act *t = a->task_last;

	return t && t->key == (uint32_t)pid + 2 ? t : hact_task_slot(a, pid);
}

/* Which activity counter an HCOST_* is, -1: none. */
static inline int hact_index(unsigned int what)
{
	switch (what) {
	case HCOST_SPTE: return ACT_SPTE;
	case HCOST_MAP: return ACT_MAPS;
	case HCOST_SPLIT: return ACT_SPLITS;
	case HCOST_PROMOTE: return ACT_PROMOTIONS;
	case HCOST_ZAP: return ACT_ZAPS;
	case HCOST_WP: return ACT_WP;
	case HCOST_FAULT_SLOW: return ACT_SLOW;
	case HCOST_FAULT_FAST: return ACT_FAST;
	case HCOST_FAULT_SPURIOUS: return ACT_FAST;	/* resolved by the fast path */
	case HCOST_FLUSH: return ACT_FLUSH;
	default: return -1;
	}
}

/*
 * hact_count - count @n of @what (HCOST_*) in the bucket's counters
 *	@bucket and in task @pid's
 */
static inline void hact_count(struct hactivity *a, uint64_t bucket[ACT_NR], int32_t pid,
			      unsigned int what, uint64_t n)
{
	int i = hact_index(what);

	if (i < 0)
		return;
	bucket[i] += n;
	hact_task(a, pid)->act[i] += n;
}

/* Pages dirtied in one 2M cell, gathered for a dirty_cell row (dirty.c). */

struct hdirty {
	int64_t vm;
	uint64_t cell;			/* gfn >> 9 */
	uint64_t ts;			/* of its first page */
	uint64_t pages;			/* 0: none gathered */
	uint64_t turn;			/* det.phase_turns then */
	uint8_t as_id, kind;
};

/* lib/history/dirty.c */
void hdirty_add_new(struct msc_history *h, unsigned int kind, unsigned int as_id, uint64_t gfn,
		    uint64_t pages, uint64_t ts);
int hdirty_flush(struct msc_history *h);

/* lib/history/anomaly.c */
int hanomaly_va(struct msc_history *h, enum msc_anomaly_kind kind, unsigned int as_id,
		uint64_t gfn, unsigned int level, uint64_t old_spte, uint64_t new_spte,
		const char *fmt, va_list ap) __attribute__((format(printf, 8, 0)));
int hanomaly(struct msc_history *h, enum msc_anomaly_kind kind, unsigned int as_id,
	     uint64_t gfn, unsigned int level, uint64_t old_spte, uint64_t new_spte,
	     const char *fmt, ...) __attribute__((format(printf, 8, 9)));

#endif /* MSC_HISTORY_COUNTERS_H */
