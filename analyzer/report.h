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

/*
 * One step of the selftests' loop (dirty_log_perf_test's words: "Enabling
 * dirty logging", "Iteration 2 get dirty log"): the phases it spans, from
 * the first one's start to the last one's end, as the test times its loop
 * over the memslots.
 */
struct report_step {
	char what[48];
	uint64_t start, end;
	const struct msc_phase *first, *last;	/* by start, by end */
	struct msc_phase_counts count;		/* summed over its phases */
	int64_t to_huge_ns;			/* a disable's; -1: not known */
	bool seen;
};

typedef void (*report_step_fn)(void *ctx, const struct report_step *s);

void report_steps(const struct msc_phase *ph, size_t nr, int64_t vm, report_step_fn fn,
		  void *ctx);
bool report_has_steps(const struct msc_phase *ph, size_t nr);

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
};

void report_brief(FILE *f, const struct report_brief_in *in);
void report_json_str(FILE *f, const char *s);
double report_huge_pct(const struct msc_census *c);
void report_counts_add(struct msc_phase_counts *d, const struct msc_phase_counts *c);
void report_sort_phases(struct msc_phase *ph, size_t nr);
void report_selftest(FILE *f, const struct msc_vm *vms, size_t nr_vms,
		     const struct msc_phase *ph, size_t nr);

#endif /* MSC_ANALYZER_REPORT_H */
