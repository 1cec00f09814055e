// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmuscope report --selftest`: the lines dirty_log_perf_test prints
 * ("Populate memory time", "Enabling dirty logging time", "Iteration N dirty
 * memory / get dirty log / clear dirty log time", "Disabling dirty logging
 * time"), computed from the trace, so the two outputs can be laid side by
 * side; one block per VM.
 *
 * The steps are the VM's phases in time order, in cycles of dirty logging:
 * the populate pass before the first cycle; then per cycle its enables, per
 * iteration the vCPUs' dirty pass and the harvests after it (its gets and
 * clears, one per memslot; a harvest whose ioctl is not known is what the
 * workload's marker around it says, else a clear if harvests split pages,
 * which only a clear does, else a get), then its disables.  A cycle begins
 * at each enable, or at a harvest outside a cycle (under manual protect an
 * enable leaves no trace when the ioctls are not traced); iterations count
 * from 1 in each.  Where no vCPU pass is known (no fault and no KVM_RUN
 * traced), an iteration ends where the next get or clear cannot be the
 * same one's.  A step spans from its first phase's start to its last
 * phase's end, as the test times its loop over the memslots.  A step the
 * test must have run (an enable, an iteration's dirty pass and get, its
 * clear under manual protect) that left nothing in the trace is handed on
 * too, as not seen: its line says "not traced".
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "mmuscope/history.h"
#include "mmuscope/util.h"
#include "report.h"

/* One iteration's steps. */
struct iteration {
	struct report_step dirty, get, clear;
	bool got;			/* its get was seen */
	/*
	 * Its vCPUs' own resets of their full dirty rings (phase name
	 * "ring_full_reset"): part of the dirty pass, the pages they took
	 * back the harvest's, with the windows they were written in.
	 */
	bool ring_reset;		/* the last phase was one: the pass goes on */
	int64_t ring_dirtied;
	uint64_t ring_window_ns;
};

/* Where a VM's phases are in the cycles of dirty logging. */
struct cycler {
	bool in;			/* a cycle began */
	bool worked;			/* ... and has an iteration's work */
	bool off;			/* ... and its disable */
};

/* Walking a VM's phases: the cycle and iteration at hand, and whom to hand steps to. */
struct walk {
	report_step_fn fn;
	void *ctx;
	const struct msc_phase *ph;
	size_t nr;
	int64_t vm;
	bool manual, passes;
	struct cycler c;
	unsigned int cycle, n;		/* the cycle, its iteration (0: none yet) */
	bool populated;			/* the populate step was handed on */
	uint64_t gfn_first, gfn_last;	/* the cycle's dirty-logged memory */
	uint64_t cycle_ts;
	struct msc_census cycle_before;
	struct report_step populate, enable, disable;
	struct iteration it;
};

static void step_extend(struct report_step *s, const struct msc_phase *p)
{
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

/* Phase @p is (part of) step @s: its time, counts and what its harvests collected. */
static void step_add(struct report_step *s, const struct msc_phase *p)
{
	if (!s->seen) {
		s->start = p->start_ts;
		s->end = p->end_ts;
		s->first = s->last = p;
		s->count = p->count;
		s->to_huge_ns = p->to_huge_ns;
		s->dirtied = -1;
		s->seen = true;
	} else {
		step_extend(s, p);
	}
	if (p->kind == MSC_PHASE_HARVEST && p->dirtied >= 0) {
		s->dirtied = max(s->dirtied, 0) + p->dirtied;
		s->dirty_window_ns = max(s->dirty_window_ns, p->dirty_window_ns);
	}
}

/* Hands step @s on as @what; one not seen only if the test must have run it (@must). */
static void emit(const struct walk *w, const char *what, struct report_step *s, bool must)
{
	if (!s->seen && !must)
		return;
	if (!s->seen) {
		s->to_huge_ns = -1;
		s->dirtied = -1;
	}
	snprintf(s->what, sizeof(s->what), "%s", what);
	s->cycle = w->cycle;
	s->gfn_first = w->gfn_first;
	s->gfn_last = w->gfn_last;
	s->cycle_ts = w->cycle_ts;
	s->cycle_before = w->cycle_before;
	w->fn(w->ctx, s);
}

/*
 * The workload's marker around harvest @p names it ("get_dirty_log_2",
 * "clear_dirty_log_2"): 'g' or 'c', 0 when none does.  Its markers do not
 * nest: the one around @p is its VM's last to begin before it.
 */
static char harvest_marker(const struct walk *w, const struct msc_phase *p)
{
	for (size_t i = (size_t)(p - w->ph); i-- > 0;) {
		const struct msc_phase *m = &w->ph[i];

		if (m->kind != MSC_PHASE_WORKLOAD || m->vm != p->vm)
			continue;
		if (m->end_ts < p->end_ts)
			return 0;
		if (!strncmp(m->name, "get_dirty_log", 13))
			return 'g';
		return strncmp(m->name, "clear_dirty_log", 15) ? 0 : 'c';
	}
	return 0;
}

/*
 * A harvest found without its ioctl: what the workload's marker around it
 * says, else a clear where some harvest split pages (only
 * KVM_CLEAR_DIRTY_LOG splits, under manual protect), else a get.
 */
static bool is_clear(const struct walk *w, const struct msc_phase *p)
{
	char m;

	if (!strcmp(p->name, "clear_dirty_log"))
		return true;
	if (!strcmp(p->name, "get_dirty_log"))
		return false;
	m = harvest_marker(w, p);
	return m ? m == 'c' : w->manual;
}

static bool iteration_seen(const struct iteration *it)
{
	return it->dirty.seen || it->get.seen || it->clear.seen;
}

/* An iteration's steps; the test runs each (a clear only under manual protect). */
static void emit_iteration(const struct walk *w, struct iteration *it)
{
	static const char *const what[] = { "dirty memory", "get dirty log", "clear dirty log" };
	struct report_step *steps[] = { &it->dirty, &it->get, &it->clear };
	struct report_step *harvest = it->clear.seen ? &it->clear : &it->get;
	char line[48];

	if (it->ring_dirtied > 0) {
		harvest->dirtied = max(harvest->dirtied, 0) + it->ring_dirtied;
		harvest->dirty_window_ns += it->ring_window_ns;
	}

	for (size_t i = 0; i < REPORT_ITER_KINDS; i++) {
		steps[i]->iteration = w->n;
		steps[i]->iter_kind = (unsigned int)i;
		snprintf(line, sizeof(line), "Iteration %u %s", w->n, what[i]);
		emit(w, line, steps[i], i < 2 || w->manual);
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

/* Iteration @w->n + 1 of the cycle begins: the one before is handed on, or the enable. */
static void next(struct walk *w)
{
	if (!w->n)
		emit(w, "Enabling dirty logging", &w->enable, true);
	else if (iteration_seen(&w->it))
		emit_iteration(w, &w->it);
	w->it = (struct iteration){ 0 };
	w->n++;
}

/* The cycle at hand ends: what is left of it is handed on. */
static void end_cycle(struct walk *w)
{
	if (!w->cycle)
		return;
	if (!w->n)
		emit(w, "Enabling dirty logging", &w->enable, true);
	else if (iteration_seen(&w->it))
		emit_iteration(w, &w->it);
	emit(w, "Disabling dirty logging", &w->disable, false);
}

static bool is_step(unsigned int kind)
{
	return kind == MSC_PHASE_ENABLE || kind == MSC_PHASE_HARVEST || kind == MSC_PHASE_DISABLE;
}

/*
 * Whether @p is the vCPUs' pass over memory while dirty logging is on: a
 * dirty pass, or one found as a re-populate inside a cycle (after its
 * harvests, before its disable).
 */
static bool dirty_pass(const struct cycler *c, const struct msc_phase *p)
{
	return p->kind == MSC_PHASE_DIRTY_PASS ||
	       (p->kind == MSC_PHASE_REPOPULATE && c->in && c->worked && !c->off);
}

/*
 * Whether @p begins a cycle: an enable after the cycle's work or disable, a
 * harvest or disable outside a cycle, a harvest after a disable (under
 * manual protect an enable leaves no trace when the ioctls are not traced).
 * Follows @c along.
 */
static bool cycle_begins(struct cycler *c, const struct msc_phase *p)
{
	bool begins;

	if (p->kind == MSC_PHASE_ENABLE)
		begins = !c->in || c->worked || c->off;
	else if (p->kind == MSC_PHASE_HARVEST)
		begins = !c->in || c->off;
	else
		begins = p->kind == MSC_PHASE_DISABLE && !c->in;
	if (begins)
		*c = (struct cycler){ .in = true };
	if (c->in && !c->off)
		c->worked |= p->kind == MSC_PHASE_HARVEST || dirty_pass(c, p);
	c->off |= c->in && p->kind == MSC_PHASE_DISABLE;
	return begins;
}

/* @c's GFN range into [@first, @last] (first > last: empty) */
static void range_add(uint64_t *first, uint64_t *last, const struct msc_phase_counts *c)
{
	if (c->gfn_first > c->gfn_last)
		return;
	if (*first > *last) {
		*first = c->gfn_first;
		*last = c->gfn_last;
	}
	*first = min(*first, c->gfn_first);
	*last = max(*last, c->gfn_last);
}

/* The cycle that phase @i begins: the GFN range its dirty-log phases touched. */
static void cycle_range(const struct walk *w, size_t i, uint64_t *first, uint64_t *last)
{
	struct cycler c = w->c;

	*first = 1;
	*last = 0;
	for (size_t k = i; k < w->nr; k++) {
		const struct msc_phase *p = &w->ph[k];

		if (p->vm != w->vm)
			continue;
		if (k > i && cycle_begins(&c, p))
			break;
		if (is_step(p->kind))
			range_add(first, last, &p->count);
	}
}

/* Phase @i begins cycle @w->cycle + 1; before the first, the populate step. */
static void begin_cycle(struct walk *w, size_t i)
{
	end_cycle(w);
	w->cycle++;
	w->n = 0;
	w->enable = w->disable = (struct report_step){ 0 };
	w->it = (struct iteration){ 0 };
	cycle_range(w, i, &w->gfn_first, &w->gfn_last);
	w->cycle_ts = w->ph[i].start_ts;
	w->cycle_before = w->ph[i].before;
	if (!w->populated) {
		unsigned int cycle = w->cycle;

		w->cycle = 0;	/* before the first cycle, its memory */
		emit(w, "Populate memory", &w->populate, false);
		w->cycle = cycle;
		w->populated = true;
	}
}

static void walk_phase(struct walk *w, size_t i)
{
	const struct msc_phase *p = &w->ph[i];
	bool clear;

	if (cycle_begins(&w->c, p))
		begin_cycle(w, i);
	switch (dirty_pass(&w->c, p) ? MSC_PHASE_DIRTY_PASS : p->kind) {
	case MSC_PHASE_POPULATE:
		if (!w->cycle)
			step_add(&w->populate, p);
		break;
	case MSC_PHASE_ENABLE:
		if (!w->n)
			step_add(&w->enable, p);
		break;
	case MSC_PHASE_DIRTY_PASS:
		if (!w->c.in || w->c.off)
			break;
		if (!w->it.ring_reset)
			next(w);
		w->it.ring_reset = false;
		step_add(&w->it.dirty, p);
		break;
	case MSC_PHASE_HARVEST:
		if (!strcmp(p->name, "ring_full_reset") && w->n && w->it.dirty.seen) {
			step_extend(&w->it.dirty, p);	/* the vCPU stopped in its pass */
			w->it.ring_reset = true;
			w->it.ring_dirtied += max(p->dirtied, (int64_t)0);
			w->it.ring_window_ns += p->dirty_window_ns;
			break;
		}
		clear = is_clear(w, p);
		if (!w->n || (!w->passes && next_iteration(&w->it, p, clear, w->manual)))
			next(w);
		step_add(clear ? &w->it.clear : &w->it.get, p);
		w->it.got |= !clear;
		break;
	case MSC_PHASE_DISABLE:
		step_add(&w->disable, p);
		break;
	case MSC_PHASE_REPROMOTE:
		if (w->cycle && w->c.off)
			w->disable.settle = p;
		break;
	default:
		break;
	}
}

/**
 * report_steps - the selftests' steps of VM @vm, in the order the test runs them
 * @ph: the capture's phases, in start order
 * @fn: called with each step (valid for the call)
 */
void report_steps(const struct msc_phase *ph, size_t nr, int64_t vm, report_step_fn fn,
		  void *ctx)
{
	struct walk w = { .fn = fn, .ctx = ctx, .ph = ph, .nr = nr, .vm = vm };

	for (size_t i = 0; i < nr; i++) {
		if (ph[i].vm != vm || ph[i].kind != MSC_PHASE_HARVEST)
			continue;
		w.manual |= ph[i].count.splits || !strcmp(ph[i].name, "clear_dirty_log") ||
			    harvest_marker(&w, &ph[i]) == 'c';
	}
	for (size_t i = 0; i < nr; i++)
		w.passes |= ph[i].vm == vm && ph[i].kind == MSC_PHASE_DIRTY_PASS;
	for (size_t i = 0; i < nr; i++)
		if (ph[i].vm == vm)
			walk_phase(&w, i);
	if (!w.populated) {
		w.gfn_first = 1;	/* no cycle: no dirty-logged memory */
		w.gfn_last = 0;
		emit(&w, "Populate memory", &w.populate, false);
	}
	end_cycle(&w);
}

/** report_cycles - how many cycles of dirty logging VM @vm went through */
unsigned int report_cycles(const struct msc_phase *ph, size_t nr, int64_t vm)
{
	struct cycler c = { 0 };
	unsigned int n = 0;

	for (size_t i = 0; i < nr; i++)
		n += ph[i].vm == vm && cycle_begins(&c, &ph[i]);
	return n;
}

/**
 * report_dirty_range - the GFNs the capture's dirty-log phases touched, all VMs
 * @ret_first: the first; greater than @ret_last when none
 */
void report_dirty_range(const struct msc_phase *ph, size_t nr, uint64_t *ret_first,
			uint64_t *ret_last)
{
	*ret_first = 1;
	*ret_last = 0;
	for (size_t i = 0; i < nr; i++)
		if (is_step(ph[i].kind))
			range_add(ret_first, ret_last, &ph[i].count);
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

/* What --selftest prints: each VM's step lines, its cycles' when it had more than one. */
struct selftest {
	FILE *f;
	unsigned int cycles, cycle;
};

static void print_step(void *ctx, const struct report_step *s)
{
	struct selftest *t = ctx;

	if (t->cycles > 1 && s->cycle != t->cycle)
		fprintf(t->f, "Cycle %u\n", s->cycle);
	t->cycle = s->cycle;
	if (s->seen)
		fprintf(t->f, "%s time: %.9fs\n", s->what, (double)(s->end - s->start) / 1e9);
	else
		fprintf(t->f, "%s time: not traced\n", s->what);
}

/**
 * report_selftest - the selftest's step lines of one capture, per VM
 * @f: where to print
 * @vms: the capture's VMs
 * @nr_vms: how many
 * @ph: its phases, in start order
 * @nr: how many
 *
 * A step the test runs that left nothing in the trace (no ioctl traced and
 * no MMU work: a get dirty log under manual protect) says "not traced"
 * for its time, so that the lines pair with the test's one for one.
 */
void report_selftest(FILE *f, const struct msc_vm *vms, size_t nr_vms,
		     const struct msc_phase *ph, size_t nr)
{
	if (!report_has_steps(ph, nr)) {
		fprintf(f, "no dirty-log step in this capture\n");
		return;
	}
	for (size_t v = 0; v < nr_vms; v++) {
		struct selftest t = { .f = f, .cycles = report_cycles(ph, nr, vms[v].id) };

		if (nr_vms > 1)
			fprintf(f, "%sVM %" PRId64 "\n", v ? "\n" : "", vms[v].id);
		report_steps(ph, nr, vms[v].id, print_step, &t);
	}
}
