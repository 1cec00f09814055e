// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmuscope report --selftest`: the lines dirty_log_perf_test prints
 * ("Populate memory time", "Enabling dirty logging time", "Iteration N dirty
 * memory / get dirty log / clear dirty log time", "Disabling dirty logging
 * time"), computed from the trace, so the two outputs can be laid side by
 * side.
 *
 * The steps are read off the dirty-log phases in time order: the enables
 * before the first harvest, then per iteration the vCPUs' pass (the page
 * faults from the end of the step before to the start of the iteration's
 * first harvest, or its KVM_RUN calls where they were traced) and its
 * harvests (a get and its clears; a harvest whose ioctl is not known counts
 * as a clear if harvests split pages, which only a clear does, else as the
 * get), then the disables.  A step spans
 * from its first phase's start to its last phase's end, as the test times
 * its loop over the memslots.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "mmuscope/history.h"
#include "report.h"

/* One step: the span of its phases, and whether it has any. */
struct step {
	uint64_t start, end;
	bool seen;
};

static void step_add(struct step *s, uint64_t start, uint64_t end)
{
	if (!s->seen || start < s->start)
		s->start = start;
	if (!s->seen || end > s->end)
		s->end = end;
	s->seen = true;
}

static void print_step(FILE *f, const char *what, const struct step *s)
{
	if (s->seen)
		fprintf(f, "%s time: %.9fs\n", what, (double)(s->end - s->start) / 1e9);
}

static bool is_dirty_log(const struct msc_phase *p)
{
	return p->kind == MSC_PHASE_ENABLE || p->kind == MSC_PHASE_HARVEST ||
	       p->kind == MSC_PHASE_DISABLE;
}

/*
 * The vCPUs' pass in the events (@seq0, @seq1): its KVM_RUN calls where the
 * ioctls were traced with them, else its first and last page fault.
 */
static int pass(struct msc_hview *v, int64_t seq0, int64_t seq1, struct step *ret)
{
	struct msc_vcpu_span fs;
	int r = msc_hview_vcpu_span(v, seq0 + 1, seq1 - 1, true, &fs);

	if (!r && !fs.n)
		r = msc_hview_vcpu_span(v, seq0 + 1, seq1 - 1, false, &fs);
	*ret = (struct step){ 0 };
	if (!r && fs.n)
		step_add(ret, fs.first_ts, fs.last_ts);
	return r;
}

/*
 * A harvest found without its ioctl: a clear where some harvest split pages
 * (only KVM_CLEAR_DIRTY_LOG splits, under manual protect), else a get.
 */
static bool is_clear(const struct msc_phase *p, bool manual)
{
	if (!strcmp(p->name, "clear_dirty_log"))
		return true;
	return strcmp(p->name, "get_dirty_log") && manual;
}

/**
 * report_selftest - the selftest's step lines of one capture
 * @f: where to print
 * @v: the capture's view
 * @ph: its phases, in start order
 * @nr: how many
 * @first_seq: the capture's first seq
 *
 * Returns 0 or a negative error.
 */
int report_selftest(FILE *f, struct msc_hview *v, const struct msc_phase *ph, size_t nr,
		    int64_t first_seq)
{
	struct step populate, enable = { 0 }, disable = { 0 }, dirty, get, clear;
	int64_t last_seq = first_seq - 1;
	unsigned int iteration = 0;
	bool manual = false;
	size_t i = 0;
	int r;

	for (size_t k = 0; k < nr; k++)
		manual |= ph[k].kind == MSC_PHASE_HARVEST && ph[k].splits;
	while (i < nr && !is_dirty_log(&ph[i]))
		i++;
	if (i == nr) {
		fprintf(f, "no dirty-log step in this capture\n");
		return 0;
	}
	r = pass(v, last_seq, ph[i].start_seq, &populate);
	if (r)
		return r;
	print_step(f, "Populate memory", &populate);
	for (; i < nr && (ph[i].kind == MSC_PHASE_ENABLE || !is_dirty_log(&ph[i])); i++)
		if (ph[i].kind == MSC_PHASE_ENABLE) {
			step_add(&enable, ph[i].start_ts, ph[i].end_ts);
			last_seq = ph[i].end_seq;
		}
	print_step(f, "Enabling dirty logging", &enable);
	while (i < nr && ph[i].kind != MSC_PHASE_DISABLE) {
		char what[64];

		if (ph[i].kind != MSC_PHASE_HARVEST) {
			i++;
			continue;
		}
		/* no enable seen (manual protect, no ioctls): populate ran into it */
		r = iteration || enable.seen ? pass(v, last_seq, ph[i].start_seq, &dirty) : 0;
		if (r)
			return r;
		if (!iteration && !enable.seen)
			dirty = (struct step){ 0 };
		get = clear = (struct step){ 0 };
		/* a get, then its clears; a new get is the next iteration */
		for (bool got = false, any = false; i < nr && ph[i].kind != MSC_PHASE_DISABLE; i++) {
			bool c = ph[i].kind == MSC_PHASE_HARVEST && is_clear(&ph[i], manual);

			if (ph[i].kind != MSC_PHASE_HARVEST)
				continue;
			if ((!c && got) || (c && any && !got && manual && !strcmp(ph[i].name, "harvest")))
				break;	/* the next iteration's get, or its clear when gets leave no trace */
			got |= !c;
			any = true;
			step_add(c ? &clear : &get, ph[i].start_ts, ph[i].end_ts);
			last_seq = ph[i].end_seq;
		}
		iteration++;
		snprintf(what, sizeof(what), "Iteration %u dirty memory", iteration);
		print_step(f, what, &dirty);
		snprintf(what, sizeof(what), "Iteration %u get dirty log", iteration);
		print_step(f, what, &get);
		snprintf(what, sizeof(what), "Iteration %u clear dirty log", iteration);
		print_step(f, what, &clear);
	}
	for (; i < nr && (ph[i].kind == MSC_PHASE_DISABLE || !is_dirty_log(&ph[i])); i++)
		if (ph[i].kind == MSC_PHASE_DISABLE)
			step_add(&disable, ph[i].start_ts, ph[i].end_ts);
	print_step(f, "Disabling dirty logging", &disable);
	return 0;
}
