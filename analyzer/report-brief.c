// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmuscope report --brief`: what a developer pastes into a mail to a kernel
 * list, on one screen of 80 columns.  One line per step of the selftests'
 * loop, in their words, in a block per cycle of dirty logging (where it
 * began in trace-cmd's clock and since the first event, how much memory it
 * logged): the kernel's duration, the huge pages it split by size, the TLB
 * flushes, the faults by outcome and the share of the dirty-logged memory
 * mapped huge after it; then whether that memory was huge again after the
 * disable, and whether the rebuilt census agreed with KVM's counters.  A
 * step the test runs that left nothing in the trace has its line too.
 *
 * Every number carries its unit: times are ms with three decimals in the
 * columns (trace-cmd's seconds for a cycle's start), counts are whole and
 * grouped.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "mmuscope/history.h"
#include "mmuscope/util.h"
#include "report.h"

/* step, took (ms), huge pages split, flushes, faults, huge after: 80 columns at most */
#define STEP_FMT "%-28s %9s  %-11s %5s %-13s %s\n"

struct brief {
	FILE *f;
	const struct report_brief_in *in;
	uint64_t first_ts;
	unsigned int cycle;		/* the block printed last */
	bool flushes_untraced;		/* a step's flushes printed "n/t" */
	bool inexact;			/* a step's time printed "~" */
	uint64_t slack;			/* ... the most it may have been longer */
	/* the cycle's harvests so far: what each collected, said in one line */
	char dirtied[96];		/* "8,192 / 8,192" */
	uint64_t rated_pages, rated_ns;	/* those collected over a known window */
	struct report_cost cost;	/* the steps shown: what recording them cost */
};

/*
 * One line for the cycle's harvests: "  dirtied per harvest: 2,048 / 2,048
 * pages, 25,920,441 pages/s"; a first collection without a window (manual
 * protect, every page set) is "4,096 (all)" and out of the rate.  The
 * harvests that collected nothing are left out.
 */
static void dirty_line(struct brief *b)
{
	char r[32];

	if (!b->dirtied[0])
		return;
	fprintf(b->f, "  dirtied per harvest: %s pages", b->dirtied);
	if (b->rated_ns)
		fprintf(b->f, ", %s pages/s",
			cli_count((uint64_t)((double)b->rated_pages * 1e9 / (double)b->rated_ns), r,
				  sizeof(r)));
	fputc('\n', b->f);
	b->dirtied[0] = '\0';
	b->rated_pages = b->rated_ns = 0;
}

static void dirty_add(struct brief *b, const struct report_step *s)
{
	size_t o = strlen(b->dirtied);
	char n[32];

	/* under manual protect a GET collects nothing, its CLEAR does */
	if (s->dirtied <= 0 || o >= sizeof(b->dirtied))
		return;
	snprintf(b->dirtied + o, sizeof(b->dirtied) - o, "%s%s%s", o ? " / " : "",
		 cli_count((uint64_t)s->dirtied, n, sizeof(n)), s->dirty_window_ns ? "" : " (all)");
	if (s->dirty_window_ns) {
		b->rated_pages += (uint64_t)s->dirtied;
		b->rated_ns += s->dirty_window_ns;
	}
}

/* The share of the dirty-logged memory mapped huge, or "unmapped". */
static const char *huge_text(const struct brief *b, const struct report_step *s, char *buf,
			     size_t size)
{
	double pct = report_step_huge_pct(b->in->cells, s, true);

	if (pct < 0)
		snprintf(buf, size, "unmapped");
	else
		snprintf(buf, size, "%.1f%%", pct);
	return buf;
}

/* The huge pages split, by size: "16 x 2M", "1x1G 512x2M" (a 1G page gives 512 2M ones). */
static const char *splits_text(const struct msc_phase_counts *c, char *buf, size_t size)
{
	int64_t g = c->pages_split_level[3], m = c->pages_split_level[2];
	char a[32], d[32];

	if (!c->pages_split)
		snprintf(buf, size, "-");
	else if (g < 0 || m < 0)
		snprintf(buf, size, "%s: reanalyze", cli_count(c->pages_split, a, sizeof(a)));
	else if (g && m)
		snprintf(buf, size, "%sx1G %sx2M", cli_count((uint64_t)g, a, sizeof(a)),
			 cli_count((uint64_t)m, d, sizeof(d)));
	else
		snprintf(buf, size, "%s x %s", cli_count((uint64_t)(g ? g : m), a, sizeof(a)),
			 g ? "1G" : "2M");
	return buf;
}

/* A cycle's block begins: where, and how much memory it logged. */
static void cycle_head(struct brief *b, const struct report_step *s)
{
	char at[32];

	fprintf(b->f, "Cycle %u at %s s, %.3f ms after the first event", s->cycle,
		cli_trace_ts(s->cycle_ts, at, sizeof(at)),
		(double)(s->cycle_ts - b->first_ts) / 1e6);
	if (s->gfn_first <= s->gfn_last)
		fprintf(b->f, ", %g MiB logged", (double)(s->gfn_last - s->gfn_first + 1) / 256);
	fprintf(b->f, ":\n");
}

/* After a disable: whether its memory was huge again, as the census says. */
static void huge_again(struct brief *b, const struct report_step *s)
{
	struct report_huge then, before;
	int r = report_huge_again(b->in->cells, s, &then, &before);
	char at[32];

	if (r > 0)
		fprintf(b->f, "  huge again %.3f ms after the disable began, at %s s\n",
			(double)s->to_huge_ns / 1e6,
			cli_trace_ts(s->start + (uint64_t)s->to_huge_ns, at, sizeof(at)));
	else if (!r && s->to_huge_ns >= 0)
		fprintf(b->f, "  not huge again: %g of %g MiB huge %.3f ms after the disable began\n",
			(double)then.huge / 256, (double)before.huge / 256,
			(double)s->to_huge_ns / 1e6);
	else if (!r)
		fprintf(b->f, "  not huge again by the end of the capture\n");
}

/* What recording step @s cost it, added to the steps' (one line at the end) */
static void cost_add(struct brief *b, const struct report_step *s, uint64_t took_ns)
{
	struct report_cost c;

	if (!s->first || !s->last)
		return;
	report_tracing_cost(b->in->kernel, s->first->start_seq, s->last->end_seq, took_ns, &c);
	b->cost.events += c.events;
	b->cost.ns += c.ns;
	b->cost.event_ns = c.event_ns;
	b->cost.kernel = c.kernel;
}

/* Step @s's line, @took_ns its time in the kernel */
static void print_line(struct brief *b, const struct report_step *s, uint64_t took_ns)
{
	const struct msc_phase_counts *c = &s->count;
	char took[32], sp[64], fl[32], slow[32], fast[32], spur[32], faults[100], h[16];

	if (s->cycle && s->cycle != b->cycle)
	{
		dirty_line(b);
		cycle_head(b, s);
	}
	b->cycle = s->cycle;
	if (!strcmp(s->what, "Disabling dirty logging"))
		dirty_line(b);	/* under the cycle's last harvest */
	if (!s->seen) {
		fprintf(b->f, "%-28s %9s  %s\n", s->what, "-", "no ioctl traced, no MMU work");
		return;
	}
	if (c->flushes < 0) {	/* said once under the table */
		snprintf(fl, sizeof(fl), "n/t");
		b->flushes_untraced = true;
	}
	else
		cli_count((uint64_t)c->flushes, fl, sizeof(fl));
	snprintf(faults, sizeof(faults), "%s/%s/%s", cli_count(c->faults_slow, slow, sizeof(slow)),
		 cli_count(c->faults_fast, fast, sizeof(fast)),
		 cli_count(c->faults_spurious, spur, sizeof(spur)));
	/* "~": a bound is not the kernel's (said once under the table) */
	snprintf(took, sizeof(took), "%s%.3f", report_step_exact(s) ? "" : "~",
		 (double)took_ns / 1e6);
	if (!report_step_exact(s)) {
		b->inexact = true;
		b->slack = max(b->slack, report_step_slack(s));
	}
	fprintf(b->f, STEP_FMT, s->what, took, splits_text(c, sp, sizeof(sp)), fl, faults,
		huge_text(b, s, h, sizeof(h)));
	cost_add(b, s, took_ns);
	if (!strcmp(s->what, "Disabling dirty logging"))
		huge_again(b, s);
	dirty_add(b, s);
}

/*
 * A cycle of many iterations (a QEMU migration's, to convergence) shows its
 * first ITER_HEAD and last ITER_TAIL; the ones between fold into a line per
 * kind of step, their times and counts added up ("Iter. 3-14 ...").
 */
#define ITER_HEAD 2
#define ITER_TAIL 2

static const char *const iter_kinds[REPORT_ITER_KINDS] = {
	"dirty memory", "get dirty log", "clear dirty log",
};

/* One VM's steps, kept to print (report_steps() hands them over one by one). */
struct steps {
	struct report_step *v;
	size_t n, alloc;
	bool oom;
};

static void keep_step(void *ctx, const struct report_step *s)
{
	struct steps *st = ctx;

	if (st->n == st->alloc) {
		size_t n = st->alloc ? 2 * st->alloc : 32;
		struct report_step *v = realloc(st->v, n * sizeof(*v));

		if (!v) {
			st->oom = true;
			return;
		}
		st->v = v;
		st->alloc = n;
	}
	st->v[st->n++] = *s;
}

/* The last iteration of @s's cycle among @st's steps */
static unsigned int last_iteration(const struct steps *st, const struct report_step *s)
{
	unsigned int last = 0;

	for (size_t i = 0; i < st->n; i++)
		if (st->v[i].cycle == s->cycle)
			last = max(last, st->v[i].iteration);
	return last;
}

/* Folded iterations, per kind: their steps added up, and the time each took */
struct fold {
	unsigned int from, to;		/* 0: nothing folded */
	struct report_step s[ARRAY_SIZE(iter_kinds)];
	uint64_t took_ns[ARRAY_SIZE(iter_kinds)];
	bool any[ARRAY_SIZE(iter_kinds)];
};

static void fold_add(struct fold *f, unsigned int it, size_t k, const struct report_step *s)
{
	struct report_step *d = &f->s[k];

	if (!f->from)
		f->from = it;
	f->to = it;
	if (!f->any[k] || !d->seen) {
		uint64_t took = f->took_ns[k];

		*d = *s;
		f->took_ns[k] = took;
		if (d->dirtied <= 0) {	/* what collected nothing has no window either */
			d->dirtied = -1;
			d->dirty_window_ns = 0;
		}
	} else if (s->seen) {
		report_counts_add(&d->count, &s->count);
		if (s->start < d->start) {
			d->start = s->start;
			d->first = s->first;
		}
		if (s->end > d->end) {
			d->end = s->end;
			d->last = s->last;
		}
		if (s->dirtied > 0) {
			d->dirtied = max(d->dirtied, (int64_t)0) + s->dirtied;
			d->dirty_window_ns += s->dirty_window_ns;
		}
	}
	f->any[k] = true;
	if (s->seen)
		f->took_ns[k] += s->end - s->start;
}

static void fold_print(struct brief *b, struct fold *f)
{
	for (size_t k = 0; f->from && k < ARRAY_SIZE(iter_kinds); k++) {
		if (!f->any[k])
			continue;
		snprintf(f->s[k].what, sizeof(f->s[k].what), "Iter. %u-%u %s", f->from, f->to,
			 iter_kinds[k]);
		print_line(b, &f->s[k], f->took_ns[k]);
	}
	memset(f, 0, sizeof(*f));
}

/* One VM's step lines, a long cycle's middle iterations folded */
static void print_steps(struct brief *b, const struct steps *st)
{
	struct fold f = { 0 };

	for (size_t i = 0; i < st->n; i++) {
		const struct report_step *s = &st->v[i];
		unsigned int it = s->iteration, last = it ? last_iteration(st, s) : 0;

		if (it > ITER_HEAD && last > ITER_HEAD + ITER_TAIL + 1 && it <= last - ITER_TAIL) {
			fold_add(&f, it, s->iter_kind, s);
			continue;
		}
		fold_print(b, &f);
		print_line(b, s, s->end - s->start);
	}
	fold_print(b, &f);
}

/**
 * report_brief - one capture on one screen
 * @f: where to print
 * @in: what the report loaded of it
 */
void report_brief(FILE *f, const struct report_brief_in *in)
{
	const struct msc_history_summary *s = in->sum;
	struct brief b = { .f = f, .in = in, .first_ts = s->first_ts };
	char a[32], t[32];
	unsigned int equal = 0, with_steps = 0;
	struct steps *vm_steps;

	fprintf(f, "capture %" PRId64 ": kernel %s, %s, %s\n", s->capture_id, in->kernel,
		in->vendor, s->tdp_mmu ? "TDP MMU" : "shadow MMU");
	fprintf(f, "%s events in %.3f s, the first at %s s (trace-cmd's clock)\n",
		cli_count(s->events, a, sizeof(a)), (double)(s->last_ts - s->first_ts) / 1e9,
		cli_trace_ts(s->first_ts, t, sizeof(t)));
	if (!s->spte_events && !s->intervals) {
		fprintf(f, "no SPTE changes in this capture (shadow paging, or no KVM activity): "
			"nothing to rebuild\n");
		return;
	}
	if (!s->tdp_mmu)
		fprintf(f, "shadow MMU: leaf removals partly untraced, census and huge shares "
			"approximate\n");
	if (!report_has_steps(in->phases, in->nr_phases)) {
		fprintf(f, "no dirty-log step in this capture\n");
		return;
	}
	vm_steps = calloc(in->nr_vms ? in->nr_vms : 1, sizeof(*vm_steps));
	if (!vm_steps) {
		fprintf(f, "out of memory\n");
		return;
	}
	fprintf(f, "\n" STEP_FMT, "step", "took (ms)", "huge split", "flush", "faults s/f/sp",
		"huge");
	for (size_t v = 0; v < in->nr_vms; v++) {
		vm_steps[v] = (struct steps){ 0 };
		report_steps(in->phases, in->nr_phases, in->vms[v].id, keep_step, &vm_steps[v]);
		with_steps += vm_steps[v].n > 0;
	}
	for (size_t v = 0, shown = 0; v < in->nr_vms; v++) {
		if (!vm_steps[v].n)
			continue;	/* a VM the capture began in, gone before any step */
		if (with_steps > 1)
			fprintf(f, "%sVM %" PRId64 ":\n", shown++ ? "\n" : "", in->vms[v].id);
		if (vm_steps[v].oom)
			fprintf(f, "  (out of memory: some steps not shown)\n");
		b.cycle = 0;
		print_steps(&b, &vm_steps[v]);
		dirty_line(&b);
		free(vm_steps[v].v);
	}
	free(vm_steps);
	fprintf(f, "  huge: of the dirty-logged memory, after; faults: slow/fast path/spurious\n");
	if (b.cost.events) {
		char n[32];

		/* the steps' events, at the rig's cost on the kernel (report_tracing_cost()) */
		fprintf(f, "  tracing cost: %s events recorded, up to %.1f ms (%.1f us each: %s's)\n",
			cli_count(b.cost.events, n, sizeof(n)), (double)b.cost.ns / 1e6,
			b.cost.event_ns / 1e3, b.cost.kernel);
	}
	if (b.inexact)
		fprintf(f, "  ~: a bound from the work, not the kernel: up to %.3f ms longer\n",
			(double)b.slack / 1e6);
	if (b.flushes_untraced)
		fprintf(f, "  n/t: TLB flushes not traced in this capture (no flush events, no "
			"kprobe on them)\n");
	for (size_t i = 0; i < in->nr_stats; i++) {
		bool same = true;

		for (int l = 1; l <= 3; l++)
			same &= in->stats[i].kvm[l] < 0 || in->stats[i].kvm[l] == in->stats[i].census[l];
		equal += same;
	}
	fputc('\n', f);
	/* one line: the brief stays on one screen */
	if (in->nr_stats)
		fprintf(f, "KVM's own counters: %u of %zu points equal the rebuilt census; ", equal,
			in->nr_stats);
	fprintf(f, "anomalies %s", cli_count(s->anomalies, a, sizeof(a)));
	if (s->lost_marks)
		fprintf(f, "; LOST EVENTS: %s gaps, history after them is marked",
			cli_count(s->lost_marks, t, sizeof(t)));
	fputc('\n', f);
}
