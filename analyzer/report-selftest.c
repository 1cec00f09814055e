// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmuscope report --selftest`: the lines dirty_log_perf_test prints
 * ("Populate memory time", "Enabling dirty logging time", "Iteration N dirty
 * memory / get dirty log / clear dirty log time", "Disabling dirty logging
 * time"), computed from the trace, so the two outputs can be laid side by
 * side; one block per VM.
 *
 * The steps are the VM's phases in time order: the populate pass before
 * the first dirty-log step, the enables, then per iteration the vCPUs'
 * dirty pass and the harvests after it (its gets and clears, one per
 * memslot; a harvest whose ioctl is not known counts as a clear if
 * harvests split pages, which only a clear does, else as a get), then the
 * disables.  Where no vCPU pass is known (no fault and no KVM_RUN traced),
 * an iteration ends where the next get or clear cannot be the same one's.  A step spans from its
 * first phase's start to its last phase's end, as the test times its loop
 * over the memslots.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "mmuscope/history.h"
#include "report.h"

/* One iteration's steps. */
struct iteration {
	struct report_step dirty, get, clear;
	bool got;			/* its get was seen */
};

/* What walking a VM's phases hands each step to. */
struct walk {
	report_step_fn fn;
	void *ctx;
};

static void step_add(struct report_step *s, const struct msc_phase *p)
{
	if (!s->seen) {
		s->start = p->start_ts;
		s->end = p->end_ts;
		s->first = s->last = p;
		s->count = p->count;
		s->to_huge_ns = p->to_huge_ns;
		s->seen = true;
		return;
	}
	if (p->start_ts < s->start) {
		s->start = p->start_ts;
		s->first = p;
	}
	if (p->end_ts > s->end) {
		s->end = p->end_ts;
		s->last = p;
	}
	report_counts_add(&s->count, &p->count);
	if (p->to_huge_ns > s->to_huge_ns)
		s->to_huge_ns = p->to_huge_ns;
}

static void emit(const struct walk *w, const char *what, struct report_step *s)
{
	if (!s->seen)
		return;
	snprintf(s->what, sizeof(s->what), "%s", what);
	w->fn(w->ctx, s);
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

static bool iteration_seen(const struct iteration *it)
{
	return it->dirty.seen || it->get.seen || it->clear.seen;
}

static void emit_iteration(const struct walk *w, unsigned int n, struct iteration *it)
{
	static const char *const what[] = { "dirty memory", "get dirty log", "clear dirty log" };
	struct report_step *steps[] = { &it->dirty, &it->get, &it->clear };
	char line[48];

	for (size_t i = 0; i < 3; i++) {
		snprintf(line, sizeof(line), "Iteration %u %s", n, what[i]);
		emit(w, line, steps[i]);
	}
}

/*
 * Where the vCPUs' passes are not known, a harvest that cannot be the same
 * iteration's: a get after its get or clears.
 */
static bool next_iteration(const struct iteration *it, const struct msc_phase *p, bool clear,
			   bool manual)
{
	if (!clear)
		return it->got || it->clear.seen;
	/* gets leave no trace under manual protect: a clear after clears is the next */
	return it->clear.seen && !it->got && manual && !strcmp(p->name, "harvest") &&
	       !it->dirty.seen;
}

/* The steps before the first iteration. */
static void emit_ahead(const struct walk *w, struct report_step *populate,
		       struct report_step *enable)
{
	emit(w, "Populate memory", populate);
	emit(w, "Enabling dirty logging", enable);
}

/* Iteration @n + 1 begins: the one before is handed on, or before the first the steps ahead. */
static void next(const struct walk *w, struct iteration *it, unsigned int *n,
		 struct report_step *populate, struct report_step *enable)
{
	if (iteration_seen(it))
		emit_iteration(w, *n, it);
	*it = (struct iteration){ 0 };
	if (!(*n)++)
		emit_ahead(w, populate, enable);
}

/**
 * report_steps - the selftests' steps of VM @vm, in the order the test runs them
 * @ph: the capture's phases, in start order
 * @fn: called with each step seen (valid for the call)
 */
void report_steps(const struct msc_phase *ph, size_t nr, int64_t vm, report_step_fn fn,
		  void *ctx)
{
	const struct walk w = { .fn = fn, .ctx = ctx };
	struct report_step populate = { 0 }, enable = { 0 }, disable = { 0 };
	struct iteration it = { 0 };
	unsigned int n = 0;
	bool manual = false, logging = false, passes = false;

	for (size_t i = 0; i < nr; i++) {
		manual |= ph[i].vm == vm && ph[i].kind == MSC_PHASE_HARVEST && ph[i].count.splits;
		passes |= ph[i].vm == vm && ph[i].kind == MSC_PHASE_DIRTY_PASS;
	}
	for (size_t i = 0; i < nr; i++) {
		const struct msc_phase *p = &ph[i];
		bool clear;

		if (p->vm != vm)
			continue;
		switch (p->kind) {
		case MSC_PHASE_POPULATE:
			if (!logging)
				step_add(&populate, p);
			break;
		case MSC_PHASE_ENABLE:
			if (!logging || !iteration_seen(&it))
				step_add(&enable, p);
			logging = true;
			break;
		case MSC_PHASE_DIRTY_PASS:
			next(&w, &it, &n, &populate, &enable);
			step_add(&it.dirty, p);
			break;
		case MSC_PHASE_HARVEST:
			clear = is_clear(p, manual);
			if (!n || (!passes && next_iteration(&it, p, clear, manual)))
				next(&w, &it, &n, &populate, &enable);
			step_add(clear ? &it.clear : &it.get, p);
			it.got |= !clear;
			logging = true;
			break;
		case MSC_PHASE_DISABLE:
			step_add(&disable, p);
			break;
		default:
			break;
		}
	}
	if (!n)
		emit_ahead(&w, &populate, &enable);
	if (iteration_seen(&it))
		emit_iteration(&w, n, &it);
	emit(&w, "Disabling dirty logging", &disable);
}

/** report_has_steps - whether the phases hold a dirty-log step at all */
bool report_has_steps(const struct msc_phase *ph, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		if (ph[i].kind == MSC_PHASE_ENABLE || ph[i].kind == MSC_PHASE_HARVEST ||
		    ph[i].kind == MSC_PHASE_DISABLE)
			return true;
	return false;
}

static void print_step(void *ctx, const struct report_step *s)
{
	fprintf(ctx, "%s time: %.9fs\n", s->what, (double)(s->end - s->start) / 1e9);
}

/**
 * report_selftest - the selftest's step lines of one capture, per VM
 * @f: where to print
 * @vms: the capture's VMs
 * @nr_vms: how many
 * @ph: its phases, in start order
 * @nr: how many
 */
void report_selftest(FILE *f, const struct msc_vm *vms, size_t nr_vms,
		     const struct msc_phase *ph, size_t nr)
{
	if (!report_has_steps(ph, nr)) {
		fprintf(f, "no dirty-log step in this capture\n");
		return;
	}
	for (size_t v = 0; v < nr_vms; v++) {
		if (nr_vms > 1)
			fprintf(f, "%sVM %" PRId64 "\n", v ? "\n" : "", vms[v].id);
		report_steps(ph, nr, vms[v].id, print_step, f);
	}
}
