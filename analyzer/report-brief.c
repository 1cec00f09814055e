// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmuscope report --brief`: what a developer pastes into a mail to a kernel
 * list, on one screen.  One line per step of the selftests' loop, in their
 * words, with the kernel's duration, where it began (in trace-cmd's clock
 * and since the first event), the huge pages it split by size, the TLB
 * flushes, the faults by outcome and the share of mapped memory huge before
 * and after; then the time to huge again after the disable and whether the
 * rebuilt census agreed with KVM's counters.
 *
 * Every number carries its unit: times are ms with three decimals in the
 * columns (trace-cmd's seconds for the start), counts are whole and grouped.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "mmuscope/history.h"
#include "report.h"

#define STEP_FMT "%-28s %13s "	/* the step, its start in trace-cmd's clock */

struct brief {
	FILE *f;
	uint64_t first_ts;
	bool flushes_untraced;		/* a step's flushes printed "n/t" */
};

/* The share of mapped memory mapped huge, or "-" when nothing is mapped. */
static const char *huge_text(const struct msc_census *c, char *buf, size_t size)
{
	double pct = report_huge_pct(c);

	if (pct < 0)
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.1f%%", pct);
	return buf;
}

/*
 * The huge pages split, as the chain they make: "1 x 1G -> 512 x 2M ->
 * 262,144 x 4K" (a 1G page gives 512 2M ones, which are split in turn).
 */
static const char *splits_text(const struct msc_phase_counts *c, char *buf, size_t size)
{
	int64_t g = c->pages_split_level[3], m = c->pages_split_level[2];
	char a[32], b[32], d[32];

	if (!c->pages_split)
		snprintf(buf, size, "-");
	else if (g < 0 || m < 0)
		snprintf(buf, size, "%s (sizes: reanalyze)", cli_count(c->pages_split, a, sizeof(a)));
	else if (g && m)
		snprintf(buf, size, "%s x 1G -> %s x 2M -> %s x 4K", cli_count((uint64_t)g, a, sizeof(a)),
			 cli_count((uint64_t)m, b, sizeof(b)), cli_count(512 * (uint64_t)m, d, sizeof(d)));
	else if (g)
		snprintf(buf, size, "%s x 1G -> %s x 2M", cli_count((uint64_t)g, a, sizeof(a)),
			 cli_count(512 * (uint64_t)g, b, sizeof(b)));
	else
		snprintf(buf, size, "%s x 2M -> %s x 4K", cli_count((uint64_t)m, a, sizeof(a)),
			 cli_count(512 * (uint64_t)m, b, sizeof(b)));
	return buf;
}

static void print_step(void *ctx, const struct report_step *s)
{
	struct brief *b = ctx;
	const struct msc_phase_counts *c = &s->count;
	char at[32], sp[96], fl[32], slow[32], fast[32], spur[32], faults[100], h0[16], h1[16];

	if (c->flushes < 0) {	/* said once under the table */
		snprintf(fl, sizeof(fl), "n/t");
		b->flushes_untraced = true;
	}
	else
		cli_count((uint64_t)c->flushes, fl, sizeof(fl));
	snprintf(faults, sizeof(faults), "%s/%s/%s", cli_count(c->faults_slow, slow, sizeof(slow)),
		 cli_count(c->faults_fast, fast, sizeof(fast)),
		 cli_count(c->faults_spurious, spur, sizeof(spur)));
	fprintf(b->f, STEP_FMT "%10.3f %10.3f  %-35s %7s  %-19s %6s -> %s\n", s->what,
		cli_trace_ts(s->start, at, sizeof(at)), (double)(s->start - b->first_ts) / 1e6,
		(double)(s->end - s->start) / 1e6, splits_text(c, sp, sizeof(sp)), fl, faults,
		huge_text(&s->first->before, h0, sizeof(h0)), huge_text(&s->last->after, h1, sizeof(h1)));
	if (!strcmp(s->what, "Disabling dirty logging")) {
		if (s->to_huge_ns >= 0)
			fprintf(b->f, STEP_FMT "%10.3f %10.3f  (from the disable's start)\n",
				"  all huge again", cli_trace_ts(s->start + (uint64_t)s->to_huge_ns, at,
							    sizeof(at)),
				(double)(s->start + (uint64_t)s->to_huge_ns - b->first_ts) / 1e6,
				(double)s->to_huge_ns / 1e6);
		else
			fprintf(b->f, "  not all huge again by the end of the capture\n");
	}
}

/**
 * report_brief - one capture on one screen
 * @f: where to print
 * @in: what the report loaded of it
 */
void report_brief(FILE *f, const struct report_brief_in *in)
{
	const struct msc_history_summary *s = in->sum;
	struct brief b = { .f = f, .first_ts = s->first_ts };
	char a[32], t[32];
	unsigned int equal = 0;

	fprintf(f, "capture %" PRId64 ": kernel %s, %s, %s; %s events in %.3f s\n", s->capture_id,
		in->kernel, in->vendor, s->tdp_mmu ? "TDP MMU" : "shadow MMU (census approximate)",
		cli_count(s->events, a, sizeof(a)), (double)(s->last_ts - s->first_ts) / 1e9);
	fprintf(f, "first event at %s s (trace-cmd's clock): \"since\" counts from there\n",
		cli_trace_ts(s->first_ts, t, sizeof(t)));
	if (!s->spte_events && !s->intervals) {
		fprintf(f, "no SPTE changes in this capture (shadow paging, or no KVM activity): "
			"nothing to rebuild\n");
		return;
	}
	if (!s->tdp_mmu)
		fprintf(f, "legacy/shadow MMU: its leaf removals are partly untraced, the huge "
			"shares are approximate\n");
	if (!report_has_steps(in->phases, in->nr_phases)) {
		fprintf(f, "no dirty-log step in this capture\n");
		return;
	}
	for (size_t v = 0; v < in->nr_vms; v++) {
		fputc('\n', f);
		if (in->nr_vms > 1)
			fprintf(f, "VM %" PRId64 ":\n", in->vms[v].id);
		fprintf(f, STEP_FMT "%10s %10s  %-35s %7s  %-19s %s\n", "step", "start (s)",
			"since (ms)", "took (ms)", "huge pages split", "flushes",
			"faults slow/fast/sp", "huge before -> after");
		report_steps(in->phases, in->nr_phases, in->vms[v].id, print_step, &b);
	}
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
	if (in->nr_stats)
		fprintf(f, "KVM's own counters: %u of %zu points equal the rebuilt census\n", equal,
			in->nr_stats);
	fprintf(f, "anomalies %s", cli_count(s->anomalies, a, sizeof(a)));
	if (s->lost_marks)
		fprintf(f, "; LOST EVENTS: %s gaps, history after them is marked",
			cli_count(s->lost_marks, t, sizeof(t)));
	fputc('\n', f);
}
