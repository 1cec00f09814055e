/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The views of `mmuscope report` that live in files of their own.
 */
#ifndef MSC_ANALYZER_REPORT_H
#define MSC_ANALYZER_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <stdbool.h>

#include "mmuscope/history.h"
#include "mmuscope/live.h"

struct msc_store;

/*
 * One step of the selftests' loop (dirty_log_perf_test's words: "Enabling
 * dirty logging", "Iteration 2 get dirty log"): the phases it spans, from
 * the first one's start to the last one's end, as the test times its loop
 * over the memslots.  A step the test runs but the trace shows nothing of
 * (no ioctl traced, no MMU work) is handed on too, not @seen.
 *
 * Steps come in cycles: a cycle begins at each enable (or, under manual
 * protect with the enable untraced, at the first harvest after a disable)
 * and ends with its disable; iterations count from 1 in each.  Its
 * dirty-logged memory is the GFN range its enables, harvests and disables
 * touched.
 */
struct report_step {
	char what[48];
	unsigned int cycle;			/* 1, 2, ...; 0: before the first */
	uint64_t start, end;
	const struct msc_phase *first, *last;	/* by start, by end; NULL when not seen */
	const struct msc_phase *settle;		/* a disable's re-promotion after it, or NULL */
	struct msc_phase_counts count;		/* summed over its phases */
	int64_t to_huge_ns;			/* a disable's; -1: not known */
	uint64_t gfn_first, gfn_last;		/* its cycle's memory; first > last: not known */
	uint64_t cycle_ts;			/* its cycle's first phase's start */
	struct msc_census cycle_before;		/* ... and the census before it */
	int64_t dirtied;			/* pages its harvests collected; -1: none */
	uint64_t dirty_window_ns;		/* ... written over this long; 0: not known */
	bool seen;				/* false: nothing of it in the trace */
	unsigned int iteration;			/* 1, 2, ... of its cycle; 0: not an iteration's */
	unsigned int iter_kind;			/* ... REPORT_ITER_DIRTY, _GET or _CLEAR */
};

/* The steps of an iteration, in the order the test runs them */
enum { REPORT_ITER_DIRTY, REPORT_ITER_GET, REPORT_ITER_CLEAR, REPORT_ITER_KINDS };

typedef void (*report_step_fn)(void *ctx, const struct report_step *s);

/* Are the step's start and end the kernel's own (its first phase's start, its last's end)? */
static inline bool report_step_exact(const struct report_step *s)
{
	return s->first && (s->first->exact & MSC_EXACT_START) && s->last &&
	       (s->last->exact & MSC_EXACT_END);
}

/* How much longer the step's call may have lasted than its bounds: their slack. */
static inline uint64_t report_step_slack(const struct report_step *s)
{
	uint64_t n = 0;

	if (s->first && !(s->first->exact & MSC_EXACT_START))
		n += s->first->slack_start_ns;
	if (s->last && !(s->last->exact & MSC_EXACT_END))
		n += s->last->slack_end_ns;
	return n;
}

void report_steps(const struct msc_phase *ph, size_t nr, int64_t vm, report_step_fn fn,
		  void *ctx);
unsigned int report_cycles(const struct msc_phase *ph, size_t nr, int64_t vm);
bool report_has_steps(const struct msc_phase *ph, size_t nr);
void report_dirty_range(const struct msc_phase *ph, size_t nr, uint64_t *ret_first,
			uint64_t *ret_last);

/*
 * The 2M cells of the dirty-logged memory over time (region_state), to
 * tell the huge share of that memory alone, not of every slot mapped.
 */
struct report_cell;

struct report_cells {
	struct report_cell *rows;	/* by cell, then in the order written */
	size_t nr, alloc;
};

/* Memory of a GFN range at one time, in 4K pages. */
struct report_huge {
	uint64_t mapped;		/* mapped */
	uint64_t huge;			/* of those, in 2M or 1G leaves */
};

int report_cells_load(struct report_cells *c, struct msc_store *s, int64_t capture_id,
		      uint64_t gfn_first, uint64_t gfn_last);
void report_cells_free(struct report_cells *c);
void report_cells_at(const struct report_cells *c, uint64_t gfn_first, uint64_t gfn_last,
		     uint64_t ts, struct report_huge *ret);
double report_step_huge_pct(const struct report_cells *c, const struct report_step *s,
			    bool after);
int report_huge_again(const struct report_cells *c, const struct report_step *s,
		      struct report_huge *ret_then, struct report_huge *ret_before);

/* What report --brief prints of one capture (cmd-report.c loads it). */
struct report_brief_in {
	const char *kernel, *vendor;
	const struct msc_history_summary *sum;
	const struct msc_phase *phases;		/* in start order */
	size_t nr_phases;
	const struct msc_vm *vms;
	size_t nr_vms;
	const struct msc_kvm_stats *stats;
	size_t nr_stats;
	const struct report_cells *cells;	/* the dirty-logged memory's */
};

void report_brief(FILE *f, const struct report_brief_in *in);
void report_json_str(FILE *f, const char *s);
double report_huge_pct(const struct msc_census *c);
void report_counts_add(struct msc_phase_counts *d, const struct msc_phase_counts *c);
const char *report_dirty_text(int64_t pages, uint64_t window_ns, char *buf, size_t size);

/* What recording a step cost it: report_tracing_cost() */
struct report_cost {
	uint64_t events;		/* recorded while it ran */
	uint64_t ns;			/* the time they are estimated to have added */
	unsigned int event_ns;		/* ... at this much each */
	const char *kernel;		/* the kernel that was measured ("6.12") */
};

void report_tracing_cost(const char *release, int64_t first_seq, int64_t last_seq,
			 uint64_t took_ns, struct report_cost *ret);
const char *report_cost_text(const struct report_cost *c, char *buf, size_t size);
void report_sort_phases(struct msc_phase *ph, size_t nr);

/*
 * KVM's own counters around one step (report-kvm.c).  A side with vms 0 is
 * not known: no read, or none between the step and @before_other's end
 * (@after_other's start), another step of its VM (0: none).
 */
struct report_kvm {
	struct msc_kvm_read before, after;
	int64_t before_other, after_other;
};

int report_kvm_load(struct msc_store *s, int64_t capture_id, const struct msc_vm *vms,
		    size_t nr_vms, const struct msc_phase *ph, size_t nr,
		    struct report_kvm **ret);
bool report_kvm_moved(const struct report_kvm *k);
void report_kvm_text(FILE *f, const struct report_kvm *k, const struct msc_phase *p);
void report_kvm_json(FILE *f, const struct report_kvm *k, const struct msc_phase *p);
void report_selftest(FILE *f, const struct msc_vm *vms, size_t nr_vms,
		     const struct msc_phase *ph, size_t nr);

#endif /* MSC_ANALYZER_REPORT_H */
