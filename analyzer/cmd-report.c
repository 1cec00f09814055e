// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmuscope report DB`: what the analysis found, per phase, in the spirit
 * of dirty_log_perf_test's output: census before and after each phase,
 * what it cost, KVM's own counters next to the rebuilt census, coverage
 * per region, anomalies.  --json gives the same for scripts, as one
 * document {"captures": [...]} whatever the number of captures.
 *
 * The output is stable (golden tests): times are relative to the
 * capture's first event, in the trace clock; no wall-clock time appears.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "tui/svg.h"
#include "mmuscope/error.h"
#include "mmuscope/event.h"
#include "mmuscope/history.h"
#include "mmuscope/live.h"
#include "mmuscope/store.h"
#include "mmuscope/util.h"
#include "report.h"

#define REPORT_ANOMALIES 20

/* A disable step: its phases, and whether its memory was huge again when the analysis said. */
struct settled {
	int64_t first, last, settle;	/* phase ids; settle 0: no re-promotion */
	int again;			/* report_huge_again() */
	struct report_huge then, before;
};

struct report {
	const char *db;
	bool json;		/* one document: {"captures": [capture, ...]} */
	size_t json_nr;		/* captures written into it so far */
	bool selftest;		/* --selftest: dirty_log_perf_test's step lines */
	bool brief;		/* --brief: one screen for a mail */
	const char *svg_dir;	/* --svg: write the pictures here too */
	struct svg_opts svg;	/* --at: the memory maps' times */
	FILE *f;
	struct msc_capture_row cap;
	struct report_loaded {	/* one capture's, freed and zeroed before the next */
		struct msc_hview *v;
		struct msc_history_summary sum;
		struct msc_phase *phases;
		size_t nr_phases;
		struct msc_vm *vms;
		size_t nr_vms;
		struct msc_region *regions;
		size_t nr_regions;
		struct msc_kvm_stats *stats;
		size_t nr_stats;
		struct msc_anomaly *anomalies;
		size_t nr_anomalies;
		struct msc_lost_mark *lost;
		size_t nr_lost;
		struct msc_task_row *tasks;	/* the task table's, by pid */
		size_t nr_tasks;
		struct report_cells cells;	/* the dirty-logged memory's */
		struct settled *settled;	/* each disable step's verdict */
		size_t nr_settled, alloc_settled;
		bool no_memory;
		int light;		/* record --light=N: N (0: no SPTE history); -1: not light */
		struct report_kvm *kvm;	/* KVM's counters around each phase; NULL: none read */
	} l;
};

/*
 * Text from the database, as a terminal may show it (it may hold anything);
 * valid until the end of the statement it is used in.
 */
#define ESC(s) msc_text_escape((s), (char[4 * sizeof(s) + 1]){ 0 }, 4 * sizeof(s) + 1)

static double ms(const struct report *rp, uint64_t ts)
{
	return ts >= rp->l.sum.first_ts ? (double)(ts - rp->l.sum.first_ts) / 1e6 : 0;
}

static void census_text(const struct msc_census *c, char *buf, size_t size)
{
	snprintf(buf, size, "4K %" PRId64 "  2M %" PRId64 "  1G %" PRId64, c->pages[1], c->pages[2],
		 c->pages[3]);
}

/* "(62.5% huge)", or "(nothing mapped)" */
static const char *huge_text(const struct msc_census *c, char *buf, size_t size)
{
	double pct = report_huge_pct(c);

	if (pct < 0)
		snprintf(buf, size, "nothing mapped");
	else
		snprintf(buf, size, "%.1f%% huge", pct);
	return buf;
}

/* Where a phase began: since the first event and in trace-cmd's clock. */
static const char *at_text(const struct report *rp, uint64_t ts, char *buf, size_t size)
{
	char abs[32];

	snprintf(buf, size, "%.3f ms (%s s)", ms(rp, ts), cli_trace_ts(ts, abs, sizeof(abs)));
	return buf;
}

/*
 * The costs of the phases of other kinds inside workload phase @w (its
 * VM's, between its start and end); false when there are none.
 */
static bool inner_work(const struct report *rp, const struct msc_phase *w,
		       struct msc_phase_counts *ret, int64_t *ret_first)
{
	bool any = false;

	for (size_t i = 0; i < rp->l.nr_phases; i++) {
		const struct msc_phase *p = &rp->l.phases[i];

		if (p->kind == MSC_PHASE_WORKLOAD || p->vm != w->vm || p->start_ts < w->start_ts ||
		    p->end_ts > w->end_ts)
			continue;
		if (any) {
			report_counts_add(ret, &p->count);
		} else {
			*ret = p->count;
			*ret_first = p->id;
			any = true;
		}
	}
	return any;
}

/*
 * A workload marker phase whose work is exactly that of the phases found
 * inside it (the usual case: the marker brackets the kernel's step) says
 * so in one line instead of repeating their numbers.
 */
static bool same_work(const struct report *rp, const struct msc_phase *w, int64_t *ret_first)
{
	const struct msc_phase_counts *c = &w->count;
	struct msc_phase_counts in;

	*ret_first = 0;
	if (w->kind != MSC_PHASE_WORKLOAD)
		return false;
	if (!inner_work(rp, w, &in, ret_first))	/* nothing inside: nothing done either? */
		return !c->spte_changes && !c->faults_slow && !c->faults_fast &&
		       !c->faults_spurious && c->flushes <= 0;
	return in.spte_changes == c->spte_changes && in.pages_split == c->pages_split &&
	       in.pages_promoted == c->pages_promoted && in.faults_slow == c->faults_slow &&
	       in.faults_fast == c->faults_fast && in.faults_spurious == c->faults_spurious &&
	       in.zaps == c->zaps && (c->flushes < 0 || in.flushes == c->flushes);
}

static void settle_step(void *ctx, const struct report_step *s)
{
	struct report *rp = ctx;
	struct settled *d;

	if (!s->seen || strcmp(s->what, "Disabling dirty logging"))
		return;
	if (rp->l.nr_settled == rp->l.alloc_settled) {
		size_t n = rp->l.alloc_settled ? 2 * rp->l.alloc_settled : 8;

		d = realloc(rp->l.settled, n * sizeof(*d));
		if (!d) {
			rp->l.no_memory = true;
			return;
		}
		rp->l.settled = d;
		rp->l.alloc_settled = n;
	}
	d = &rp->l.settled[rp->l.nr_settled++];
	*d = (struct settled){ .first = s->first->id, .last = s->last->id,
			       .settle = s->settle ? s->settle->id : 0 };
	d->again = report_huge_again(&rp->l.cells, s, &d->then, &d->before);
}

/* The disable steps of every VM, with whether each was huge again. */
static int settle_steps(struct report *rp)
{
	for (size_t v = 0; v < rp->l.nr_vms; v++)
		report_steps(rp->l.phases, rp->l.nr_phases, rp->l.vms[v].id, settle_step, rp);
	return rp->l.no_memory ? -ENOMEM : 0;
}

/*
 * A disable or re-promotion: all its regions huge again where the analysis
 * says, if the census there shows its memory's huge pages back.
 */
static void text_huge_again(struct report *rp, const struct msc_phase *p)
{
	const struct settled *d = NULL;

	for (size_t i = 0; i < rp->l.nr_settled; i++) {
		const struct settled *x = &rp->l.settled[i];

		if (x->first == p->id || x->last == p->id || x->settle == p->id)
			d = x;
	}
	if (p->to_huge_ns >= 0 && (!d || d->again > 0))
		fprintf(rp->f, "    disable -> all regions huge again: %.3f ms\n",
			(double)p->to_huge_ns / 1e6);
	else if (p->to_huge_ns >= 0)
		fprintf(rp->f, "    not huge again: the census holds %g of %g MiB huge "
			"%.3f ms after the disable began\n", (double)d->then.huge / 256,
			(double)d->before.huge / 256, (double)p->to_huge_ns / 1e6);
	else
		fprintf(rp->f, "    regions not all huge again before the next phase\n");
}

/* A phase's bounds where they are not the kernel's own (a re-promotion's are derived). */
static void bounds_text(FILE *f, const struct msc_phase *p)
{
	if (p->bounds == MSC_BOUNDS_EXACT || p->kind == MSC_PHASE_REPROMOTE)
		return;
	fprintf(f, ", %s: start ", p->bounds == MSC_BOUNDS_INFERRED ? "inferred" : "bounds");
	if (p->exact & MSC_EXACT_START)
		fprintf(f, "exact");
	else
		fprintf(f, "up to %.3f ms earlier", (double)p->slack_start_ns / 1e6);
	if (p->exact & MSC_EXACT_END)
		fprintf(f, ", end exact");
	else
		fprintf(f, ", end up to %.3f ms later", (double)p->slack_end_ns / 1e6);
}

/*
 * JSON: "dirtied_pages": N, "dirty_window_ns": W, "dirty_pages_per_s": R,
 * each null where the step sees no dirtying or the window is not known.
 */
static void json_dirtied(struct report *rp, FILE *f, const struct msc_phase *p)
{
	struct msc_coverage *cov = NULL;
	size_t nr = 0;

	if (p->dirtied < 0) {
		fprintf(f, ", \"dirtied_pages\": null, \"dirty_window_ns\": null, "
			"\"dirty_pages_per_s\": null");
		return;
	}
	fprintf(f, ", \"dirtied_pages\": %" PRId64 ", \"dirty_window_ns\": ", p->dirtied);
	if (p->dirty_window_ns)
		fprintf(f, "%" PRIu64 ", \"dirty_pages_per_s\": %.0f", p->dirty_window_ns,
			(double)p->dirtied * 1e9 / (double)p->dirty_window_ns);
	else
		fprintf(f, "null, \"dirty_pages_per_s\": null");
	/* by region: null where the split is not whole (schema/README.md, step 20) */
	fprintf(f, ", \"dirtied_by_region\": ");
	if (msc_hview_phase_coverage(rp->l.v, p->id, &cov, &nr) || !nr || cov[0].dirtied < 0) {
		fprintf(f, "null");
		free(cov);
		return;
	}
	fputc('[', f);
	for (size_t i = 0; i < nr; i++)
		fprintf(f, "%s{\"region\": %" PRId64 ", \"pages\": %" PRId64 "}", i ? ", " : "",
			cov[i].region_id, cov[i].dirtied);
	fputc(']', f);
	free(cov);
}

/* JSON: "recorded_events": N, "tracing_cost_ns": T (report_tracing_cost()) */
static void json_cost(const struct report *rp, FILE *f, const struct msc_phase *p)
{
	struct report_cost c;

	report_tracing_cost(rp->cap.kernel_release, p->start_seq, p->end_seq,
			    p->end_ts - p->start_ts, &c);
	fprintf(f, ", \"recorded_events\": %" PRIu64 ", \"tracing_cost_ns\": %" PRIu64, c.events,
		c.ns);
}

/* Does the phase's text say what it dirtied (a pass that wrote, any harvest)? */
static bool shows_dirtied(const struct msc_phase *p)
{
	return p->dirtied > 0 || (p->dirtied == 0 && p->kind == MSC_PHASE_HARVEST);
}

/* A phase's dirtied pages in one region: "dirtied 8,192, 28,455 pages/s" */
static const char *region_dirty_text(const struct msc_phase *p, int64_t pages, char *buf,
				     size_t size)
{
	char n[32], rate[32];

	cli_count((uint64_t)pages, n, sizeof(n));
	if (!p->dirty_window_ns || !pages)
		snprintf(buf, size, "%s %s", !p->dirty_window_ns && p->kind == MSC_PHASE_HARVEST ?
			 "collected" : "dirtied", n);
	else
		snprintf(buf, size, "dirtied %s, %s pages/s", n,
			 cli_count((uint64_t)((double)pages * 1e9 / (double)p->dirty_window_ns),
				   rate, sizeof(rate)));
	return buf;
}

/* KVM's counters around phase @p (one of rp->l.phases), NULL: none read */
static const struct report_kvm *phase_kvm(const struct report *rp, const struct msc_phase *p)
{
	return rp->l.kvm ? &rp->l.kvm[p - rp->l.phases] : NULL;
}

/* What text_phase() prints of a phase after its counts. */
static bool text_phase_tail(struct report *rp, const struct msc_phase *p)
{
	struct msc_harvest_sum h;

	if (shows_dirtied(p) && rp->l.light) {	/* light=0: no SPTE saw it */
		char d[128];

		/* a pass's are the fast path's fixes, a harvest's what it collected */
		fprintf(rp->f, "    %s %s\n", p->kind == MSC_PHASE_HARVEST ? "harvest:" : "written:",
			report_dirty_text(p->dirtied, p->dirty_window_ns, d, sizeof(d)));
	}
	if (p->kind != MSC_PHASE_WORKLOAD) {
		struct report_cost cost;
		char t[192];

		report_tracing_cost(rp->cap.kernel_release, p->start_seq, p->end_seq,
				    p->end_ts - p->start_ts, &cost);
		fprintf(rp->f, "    tracing cost: %s\n", report_cost_text(&cost, t, sizeof(t)));
	}
	if (p->region_split_ns && p->end_ts > p->start_ts)
		fprintf(rp->f, "    2M regions split: %.1f on average while it ran\n",
			(double)p->region_split_ns / (double)(p->end_ts - p->start_ts));
	/* the patch's harvest events: in the harvest phase and in the workload's own */
	if (!msc_hview_phase_harvest(rp->l.v, p, &h) && h.ioctls)
		fprintf(rp->f, "    kernel: %" PRIu64 " get + %" PRIu64 " clear, %" PRIu64
			" of %" PRIu64 " pages dirty, %" PRIu64 " re-armed, %.3f ms\n", h.gets,
			h.clears, h.dirty, h.pages, h.rearmed, (double)h.kernel_ns / 1e6);
	if ((p->kind == MSC_PHASE_DISABLE || p->kind == MSC_PHASE_REPROMOTE) && rp->l.light)
		text_huge_again(rp, p);
	return true;
}

/* One phase; false when it said in one line that its work is another's. */
static bool text_phase(struct report *rp, const struct msc_phase *p)
{
	char a[64], b[64], at[64], ha[32], hb[32], classes[512] = "";
	int64_t inner = 0;
	size_t o = 0;

	census_text(&p->before, a, sizeof(a));
	census_text(&p->after, b, sizeof(b));
	for (int c = 0; c < MSC_CLASS_NR; c++)
		if (p->count.by_class[c] && o < sizeof(classes))
			o += (size_t)snprintf(classes + o, sizeof(classes) - o, " %s=%" PRIu64,
					      msc_spte_class_name(c), p->count.by_class[c]);
	fprintf(rp->f, "[%" PRId64 "] %-12s %-24s (%s) at %s, took %.3f ms", p->id,
		msc_phase_kind_name(p->kind), ESC(p->name), msc_phase_source_name(p->source),
		at_text(rp, p->start_ts, at, sizeof(at)), (double)(p->end_ts - p->start_ts) / 1e6);
	bounds_text(rp->f, p);
	if (rp->l.nr_vms > 1)
		fprintf(rp->f, ", VM %" PRId64, p->vm);
	if (same_work(rp, p, &inner)) {
		const struct report_kvm *k = phase_kvm(rp, p);

		if (inner) {
			fprintf(rp->f, ": the work of [%" PRId64 "] below\n", inner);
		} else if (rp->l.light >= 0 && k && report_kvm_moved(k)) {
			/* a light recording's vCPU pass: KVM counted its faults */
			fprintf(rp->f, ": no MMU work traced\n");
			report_kvm_text(rp->f, k, p);
		} else {
			fprintf(rp->f, ": no MMU work\n");
		}
		return false;
	}
	fputc('\n', rp->f);
	if (!rp->l.light) {	/* no SPTE history: KVM's census, one split event per huge page */
		report_kvm_text(rp->f, phase_kvm(rp, p), p);
		fprintf(rp->f, "    huge pages split %" PRIu64 ", split failures %" PRIu64
			" (kvm_mmu_split_huge_page)\n", p->count.splits - min(p->count.splits,
			p->count.split_failures), p->count.split_failures);
		return text_phase_tail(rp, p);
	}
	fprintf(rp->f, "    census before%s: %s (%s)\n", rp->l.light > 0 ? " (sample)" : "", a,
		huge_text(&p->before, ha, sizeof(ha)));
	fprintf(rp->f, "    census after%s:  %s (%s)\n", rp->l.light > 0 ? " (sample)" : "", b,
		huge_text(&p->after, hb, sizeof(hb)));
	fprintf(rp->f, "    spte changes %" PRIu64 ":%s\n", p->count.spte_changes,
		classes[0] ? classes : " none");
	if (rp->l.light > 0)
		report_kvm_text(rp->f, phase_kvm(rp, p), p);
	fprintf(rp->f, "    pages split %" PRIu64, p->count.pages_split);
	if (p->count.pages_split && p->count.pages_split_level[2] >= 0 &&
	    p->count.pages_split_level[3] >= 0)
		fprintf(rp->f, " (%" PRId64 " x 2M, %" PRId64 " x 1G)", p->count.pages_split_level[2],
			p->count.pages_split_level[3]);
	fprintf(rp->f, ", promoted %" PRIu64 ", children synthesized %" PRIu64 ", split failures %"
		PRIu64 "\n", p->count.pages_promoted, p->count.children_synthesized,
		p->count.split_failures);
	fprintf(rp->f, "    faults slow %" PRIu64 ", fast %" PRIu64 ", spurious %" PRIu64
		", refaults after zap %" PRIu64 ", zaps %" PRIu64, p->count.faults_slow,
		p->count.faults_fast, p->count.faults_spurious, p->count.refaults, p->count.zaps);
	if (p->count.flushes >= 0)
		fprintf(rp->f, ", TLB flushes %" PRId64, p->count.flushes);
	fputc('\n', rp->f);
	return text_phase_tail(rp, p);
}

static void text_coverage(struct report *rp, const struct msc_phase *p)
{
	struct msc_coverage *cov;
	size_t nr;

	if (msc_hview_phase_coverage(rp->l.v, p->id, &cov, &nr))
		return;
	for (size_t i = 0; i < nr; i++) {
		const struct msc_region *g = NULL;
		struct msc_census c = { 0 };
		char h[32], d[128];

		for (size_t k = 0; k < rp->l.nr_regions; k++)
			if (rp->l.regions[k].id == cov[i].region_id)
				g = &rp->l.regions[k];
		if (!g)
			continue;
		for (int l = 1; l <= 3; l++)
			c.pages[l] = (int64_t)cov[i].pages[l];
		fprintf(rp->f, "    region %#" PRIx64 "-%#" PRIx64 ": 4K %" PRIu64 " 2M %" PRIu64
			" 1G %" PRIu64 ", %s", g->gfn_first, g->gfn_end - 1, cov[i].pages[1],
			cov[i].pages[2], cov[i].pages[3], huge_text(&c, h, sizeof(h)));
		if (cov[i].dirtied >= 0 && p->dirtied > 0)
			fprintf(rp->f, "; %s", region_dirty_text(p, cov[i].dirtied, d, sizeof(d)));
		fputc('\n', rp->f);
	}
	free(cov);
}

/* "dirtylog (pid 329)", the thread's name escaped, or "pid 329" when it has none */
static const char *task_text(const struct report *rp, int pid, char *buf, size_t size)
{
	const struct msc_task_row *k = NULL;

	for (size_t i = 0; i < rp->l.nr_tasks && !k; i++)
		if (rp->l.tasks[i].pid == pid && rp->l.tasks[i].comm[0])
			k = &rp->l.tasks[i];
	if (k)
		snprintf(buf, size, "%s (pid %d)", ESC(k->comm), pid);
	else
		snprintf(buf, size, "pid %d", pid);
	return buf;
}

/* One VM: where it began, what the kernel calls it, whether its census is its own. */
static void text_vm(struct report *rp, const struct msc_vm *vm)
{
	char who[4 * sizeof(rp->l.tasks->comm) + 32];

	fprintf(rp->f, "  %" PRId64 ": %.3f-%.3f ms, ", vm->id, ms(rp, vm->start_ts),
		ms(rp, vm->end_ts));
	if (vm->source == MSC_PHASE_SRC_IOCTL)
		fprintf(rp->f, "KVM_CREATE_VM by %s, fd %d", task_text(rp, vm->pid, who, sizeof(who)),
			vm->fd);
	else if (vm->id == 1 && vm->source == MSC_PHASE_SRC_INFERRED)
		fprintf(rp->f, "from the capture's start");
	else if (vm->source == MSC_PHASE_SRC_INFERRED)
		fprintf(rp->f, "inferred: faults after a teardown left nothing mapped");
	else
		fprintf(rp->f, "the kernel's VM id changed");
	if (vm->kernel_id)
		fprintf(rp->f, ", kernel VM id %u by %s", vm->kernel_id,
			task_text(rp, vm->kernel_pid, who, sizeof(who)));
	fputc('\n', rp->f);
	if (vm->overlap)
		fprintf(rp->f, "     OVERLAP: began while VM %" PRId64 " had memory mapped; the census "
			"counts both\n", vm->id - 1);
}

/* Do the regions and KVM's counters name more than one VM? */
static bool several_vms(const struct report *rp)
{
	int64_t first = rp->l.nr_regions ? rp->l.regions[0].vm :
			rp->l.nr_stats ? rp->l.stats[0].vm : 0;

	for (size_t i = 0; i < rp->l.nr_regions; i++)
		if (rp->l.regions[i].vm != first)
			return true;
	for (size_t i = 0; i < rp->l.nr_stats; i++)
		if (rp->l.stats[i].vm != first)
			return true;
	return false;
}

/* "VM n, " before what is one VM's, where the capture's tables are several VMs'; else "" */
static const char *vm_tag(const struct report *rp, int64_t vm, char *buf, size_t size)
{
	if (!several_vms(rp))
		return "";
	snprintf(buf, size, "VM %" PRId64 ", ", vm);
	return buf;
}

/* record --light=N's N (host_param record.light; 0: no SPTE history), -1: not light. */
static int light_of(struct msc_store *s, int64_t capture_id, int *ret)
{
	char buf[32];
	int r = msc_store_get_param(s, capture_id, "record.light", buf, sizeof(buf));

	*ret = r > 0 ? (int)strtol(buf, NULL, 10) : -1;
	return r < 0 ? r : 0;
}

static void text_report(struct report *rp)
{
	char tag[32];
	const struct msc_history_summary *s = &rp->l.sum;
	unsigned int equal = 0, checked = 0;
	char origin[32];

	fprintf(rp->f, "capture %" PRId64 ": kernel %s, %s layout, %s\n", rp->cap.id,
		rp->cap.kernel_release[0] ? ESC(rp->cap.kernel_release) : "unknown",
		ESC(rp->cap.vendor), s->tdp_mmu ? "TDP MMU" : "legacy/shadow MMU (census approximate)");
	fprintf(rp->f, "first event at %s s (trace-cmd's clock); \"ms\" below counts from there\n",
		cli_trace_ts(s->first_ts, origin, sizeof(origin)));
	if (!rp->cap.complete)
		fprintf(rp->f, "INCOMPLETE: the %s did not finish (interrupted or failed): the "
			"history ends where its events do\n", rp->cap.kind[0] && !strcmp(rp->cap.kind,
			"tracefs") ? "recording" : "import");
	fprintf(rp->f, "events %" PRIu64 " (spte changes %" PRIu64 ") over %.3f ms; mapping "
		"intervals %" PRIu64 "\n", s->events, s->spte_events, ms(rp, s->last_ts), s->intervals);
	fprintf(rp->f, "rebuilt: %" PRIu64 " split children synthesized, %" PRIu64 " fast-path "
		"fixes applied, %" PRIu64 " frozen SPTEs completed; resyncs %" PRIu64
		" (A/D-only %" PRIu64 ")\n", s->synthesized, s->fast_applied, s->frozen_completed,
		s->resyncs, s->ad_resyncs);
	if (s->lost_marks)
		fprintf(rp->f, "LOST EVENTS: %" PRIu64 " gaps, %" PRIu64 " events: history after "
			"them is marked\n", s->lost_marks, s->lost_events);
	if (rp->l.light > 0)
		fprintf(rp->f, "light recording: SPTE history of 1 in %d 2M cells only; census from "
			"KVM's counters (kvm_stats_sample)\n", rp->l.light);
	else if (!rp->l.light)
		fprintf(rp->f, "light recording: no SPTE history (step times, splits; census from "
			"KVM's counters, kvm_stats_sample)\n");
	if (s->census_flags & MSC_CENSUS_PARTIAL)
		fprintf(rp->f, "PARTIAL: the trace began after SPTEs were installed\n");
	if (s->unplaced)
		fprintf(rp->f, "UNPLACED: %" PRIu64 " events of VMs at once that nothing placed in "
			"a VM went to the first (KVM_RUN or KVM_CREATE_VCPU not traced)\n",
			s->unplaced);
	if (!s->spte_events && !s->intervals && rp->l.light < 0)
		fprintf(rp->f, "NOTHING TO REBUILD: no SPTE changes in this capture (shadow paging or "
			"PVM, or no KVM activity): every census below is empty\n");

	fprintf(rp->f, "\nregions:\n");
	for (size_t i = 0; i < rp->l.nr_regions; i++)
		fprintf(rp->f, "  %" PRId64 ": %sas %u gfn %#" PRIx64 "-%#" PRIx64 " (%" PRIu64
			" MiB, %s)\n", rp->l.regions[i].id, vm_tag(rp, rp->l.regions[i].vm, tag,
			sizeof(tag)), rp->l.regions[i].as_id, rp->l.regions[i].gfn_first,
			rp->l.regions[i].gfn_end - 1,
			(rp->l.regions[i].gfn_end - rp->l.regions[i].gfn_first) / 256,
			rp->l.regions[i].exact ? "memslot" : "inferred from GFNs seen");

	fprintf(rp->f, "\nVMs:\n");
	for (size_t i = 0; i < rp->l.nr_vms; i++)
		text_vm(rp, &rp->l.vms[i]);

	fprintf(rp->f, "\nphases:\n");
	for (size_t i = 0; i < rp->l.nr_phases; i++) {
		if (text_phase(rp, &rp->l.phases[i]))
			text_coverage(rp, &rp->l.phases[i]);
	}

	fprintf(rp->f, "\nKVM's counters vs rebuilt census (pages_4k pages_2m pages_1g):\n");
	for (size_t i = 0; i < rp->l.nr_stats; i++) {
		const struct msc_kvm_stats *k = &rp->l.stats[i];
		bool same = true;

		for (int l = 1; l <= 3; l++)
			same &= k->kvm[l] < 0 || k->kvm[l] == k->census[l];
		checked++;
		equal += same;
		fprintf(rp->f, "  %safter %-24s kvm %" PRId64 " %" PRId64 " %" PRId64 "  rebuilt %"
			PRId64 " %" PRId64 " %" PRId64 "  %s", vm_tag(rp, k->vm, tag, sizeof(tag)),
			ESC(k->phase), k->kvm[1], k->kvm[2], k->kvm[3], k->census[1], k->census[2],
			k->census[3], same ? "equal" : "DIFFER:");
		if (!same)
			fprintf(rp->f, " %+" PRId64 " %+" PRId64 " %+" PRId64,
				k->census[1] - k->kvm[1], k->census[2] - k->kvm[2],
				k->census[3] - k->kvm[3]);
		fputc('\n', rp->f);
	}
	if (!s->spte_events && !s->intervals && checked)
		fprintf(rp->f, "  not compared: nothing was rebuilt\n");
	else if (rp->l.light >= 0 && checked)
		fprintf(rp->f, "  not compared: a light recording rebuilds its sample only\n");
	else
		fprintf(rp->f, "  %u of %u points equal%s\n", equal, checked,
			s->tdp_mmu ? "" : " (approximate census: shadow MMU removals are untraced)");

	fprintf(rp->f, "\nanomalies: %" PRIu64 "\n", s->anomalies);
	for (size_t i = 0; i < rp->l.nr_anomalies; i++) {
		const struct msc_anomaly *a = &rp->l.anomalies[i];

		fprintf(rp->f, "  %.3f ms seq %" PRId64 " %s", ms(rp, a->ts), a->seq,
			msc_anomaly_kind_name(a->kind));
		if (a->level)
			fprintf(rp->f, " gfn %#" PRIx64 " level %u", a->gfn, a->level);
		fprintf(rp->f, ": %s\n", ESC(a->detail));
	}
	for (size_t i = 0; i < rp->l.nr_lost; i++)
		fprintf(rp->f, "  lost events at %.3f ms on cpu %u: %" PRIu64 "\n",
			ms(rp, rp->l.lost[i].ts), rp->l.lost[i].cpu, rp->l.lost[i].count);
}

static void json_census(FILE *f, const char *name, const struct msc_census *c)
{
	fprintf(f, "\"%s\": {\"pages_4k\": %" PRId64 ", \"pages_2m\": %" PRId64 ", \"pages_1g\": %"
		PRId64 "}", name, c->pages[1], c->pages[2], c->pages[3]);
}

/* Phase @i of the capture, as one JSON object (after a comma unless the first) */
static void json_phase(struct report *rp, FILE *f, size_t i)
{
	const struct msc_history_summary *s = &rp->l.sum;
	const struct msc_phase *p = &rp->l.phases[i];
	struct msc_harvest_sum h;
	char origin[32];

	fprintf(f, "%s\n  {\"id\": %" PRId64 ", \"vm\": %" PRId64 ", \"kind\": \"%s\", "
		"\"source\": \"%s\", \"name\": ", i ? "," : "", p->id, p->vm,
		msc_phase_kind_name(p->kind), msc_phase_source_name(p->source));
	report_json_str(f, p->name);
	/* where it began in trace-cmd's clock too, as trace-cmd report prints it */
	fprintf(f, ", \"start\": \"%s\"", cli_trace_ts(p->start_ts, origin, sizeof(origin)));
	fprintf(f, ", \"bounds\": \"%s\", \"slack_start_ns\": %" PRIu64
		", \"slack_end_ns\": %" PRIu64, msc_phase_bounds_name(p->bounds),
		p->slack_start_ns, p->slack_end_ns);
	json_dirtied(rp, f, p);
	json_cost(rp, f, p);
	fprintf(f, ", \"start_ns\": %" PRIu64 ", \"duration_ns\": %" PRIu64
		", \"spte_changes\": %" PRIu64 ", \"by_class\": {",
		p->start_ts - s->first_ts, p->end_ts - p->start_ts, p->count.spte_changes);
	for (int c = 0, n = 0; c < MSC_CLASS_NR; c++)
		if (p->count.by_class[c])
			fprintf(f, "%s\"%s\": %" PRIu64, n++ ? ", " : "",
				msc_spte_class_name(c), p->count.by_class[c]);
	fprintf(f, "}, \"splits\": %" PRIu64 ", \"split_failures\": %" PRIu64
		", \"pages_split\": %" PRIu64 ", \"pages_promoted\": %" PRIu64
		", \"children_synthesized\": %" PRIu64 ", \"faults_slow\": %" PRIu64
		", \"faults_fast\": %" PRIu64 ", \"faults_spurious\": %" PRIu64
		", \"tlb_flushes\": ", p->count.splits,
		p->count.split_failures, p->count.pages_split, p->count.pages_promoted, p->count.children_synthesized,
		p->count.faults_slow, p->count.faults_fast, p->count.faults_spurious);
	if (p->count.flushes >= 0)
		fprintf(f, "%" PRId64, p->count.flushes);
	else
		fprintf(f, "null");
	for (int l = 2; l <= 3; l++) {
		fprintf(f, ", \"pages_split_%s\": ", l == 2 ? "2m" : "1g");
		if (p->count.pages_split_level[l] >= 0)
			fprintf(f, "%" PRId64, p->count.pages_split_level[l]);
		else
			fprintf(f, "null");
	}
	fprintf(f, ", \"zaps\": %" PRIu64 ", \"refaults\": %" PRIu64
		", \"region_split_ns\": %" PRIu64 ", \"to_huge_ns\": ", p->count.zaps, p->count.refaults,
		p->region_split_ns);
	if (p->to_huge_ns >= 0)
		fprintf(f, "%" PRId64, p->to_huge_ns);
	else
		fprintf(f, "null");
	fprintf(f, ", \"harvest\": ");
	if (!msc_hview_phase_harvest(rp->l.v, p, &h) && h.ioctls)
		fprintf(f, "{\"get\": %" PRIu64 ", \"clear\": %" PRIu64 ", \"pages\": %" PRIu64
			", \"dirty\": %" PRIu64 ", \"rearmed\": %" PRIu64
			", \"kernel_ns\": %" PRIu64 "}", h.gets, h.clears, h.pages, h.dirty,
			h.rearmed, h.kernel_ns);
	else
		fprintf(f, "null");
	fprintf(f, ", ");
	json_census(f, "census_before", &p->before);
	fprintf(f, ", ");
	json_census(f, "census_after", &p->after);
	report_kvm_json(f, phase_kvm(rp, p), p);
	fprintf(f, "}");
}

static void json_report(struct report *rp)
{
	const struct msc_history_summary *s = &rp->l.sum;
	FILE *f = rp->f;
	char origin[32];

	if (rp->json_nr++)
		fprintf(f, ",\n");
	fprintf(f, "{\"capture\": %" PRId64 ", \"kernel\": ", rp->cap.id);
	report_json_str(f, rp->cap.kernel_release);
	fprintf(f, ", \"vendor\": ");
	report_json_str(f, rp->cap.vendor);
	fprintf(f, ", \"complete\": %s, \"tdp_mmu\": %s, \"census_approximate\": %s,\n",
		rp->cap.complete ? "true" : "false", s->tdp_mmu ? "true" : "false",
		s->tdp_mmu ? "false" : "true");
	/* record --light=N: N, 0 no SPTE history; null: a full capture */
	if (rp->l.light >= 0)
		fprintf(f, " \"light\": %d,\n", rp->l.light);
	else
		fprintf(f, " \"light\": null,\n");
	/* every *_ns below counts from the first event; here it is, in the trace clock */
	fprintf(f, " \"first_ts\": %" PRIu64 ", \"first_event\": \"%s\",\n", s->first_ts,
		cli_trace_ts(s->first_ts, origin, sizeof(origin)));
	fprintf(f, " \"summary\": {\"events\": %" PRIu64 ", \"spte_events\": %" PRIu64
		", \"intervals\": %" PRIu64 ", \"synthesized\": %" PRIu64 ", \"fast_applied\": %"
		PRIu64 ", \"frozen_completed\": %" PRIu64 ", \"resyncs\": %" PRIu64
		", \"ad_resyncs\": %" PRIu64 ", \"out_of_order\": %" PRIu64 ", \"lost_marks\": %"
		PRIu64 ", \"lost_events\": %" PRIu64 ", \"anomalies\": %" PRIu64
		", \"unplaced\": %" PRIu64 ", \"duration_ns\": %" PRIu64 "},\n", s->events,
		s->spte_events, s->intervals, s->synthesized, s->fast_applied, s->frozen_completed,
		s->resyncs, s->ad_resyncs, s->out_of_order, s->lost_marks, s->lost_events,
		s->anomalies, s->unplaced, s->last_ts - s->first_ts);
	fprintf(f, " \"vms\": [");
	for (size_t i = 0; i < rp->l.nr_vms; i++) {
		const struct msc_vm *vm = &rp->l.vms[i];

		fprintf(f, "%s\n  {\"id\": %" PRId64 ", \"source\": \"%s\", \"overlap\": %s, "
			"\"start_ns\": %" PRIu64 ", \"end_ns\": %" PRIu64, i ? "," : "", vm->id,
			msc_phase_source_name(vm->source), vm->overlap ? "true" : "false",
			vm->start_ts - s->first_ts, vm->end_ts - s->first_ts);
		if (vm->pid >= 0)
			fprintf(f, ", \"pid\": %d, \"fd\": %d", vm->pid, vm->fd);
		if (vm->kernel_id)
			fprintf(f, ", \"kernel_vm_id\": %u, \"kernel_vm_pid\": %d", vm->kernel_id,
				vm->kernel_pid);
		fprintf(f, "}");
	}
	fprintf(f, "],\n \"phases\": [");
	for (size_t i = 0; i < rp->l.nr_phases; i++)
		json_phase(rp, f, i);
	fprintf(f, "],\n \"kvm_stats\": [");
	for (size_t i = 0; i < rp->l.nr_stats; i++) {
		const struct msc_kvm_stats *k = &rp->l.stats[i];

		fprintf(f, "%s\n  {\"vm\": %" PRId64 ", \"after\": ", i ? "," : "", k->vm);
		report_json_str(f, k->phase);
		fprintf(f, ", \"kvm\": [%" PRId64 ", %" PRId64 ", %" PRId64 "], \"census\": [%" PRId64
			", %" PRId64 ", %" PRId64 "]}", k->kvm[1], k->kvm[2], k->kvm[3], k->census[1],
			k->census[2], k->census[3]);
	}
	fprintf(f, "],\n \"anomalies\": [");
	for (size_t i = 0; i < rp->l.nr_anomalies; i++) {
		const struct msc_anomaly *a = &rp->l.anomalies[i];

		fprintf(f, "%s\n  {\"seq\": %" PRId64 ", \"vm\": %" PRId64 ", \"kind\": \"%s\", "
			"\"gfn\": %" PRIu64 ", \"level\": %u, \"detail\": ", i ? "," : "", a->seq,
			a->vm, msc_anomaly_kind_name(a->kind), a->gfn, a->level);
		report_json_str(f, a->detail);
		fprintf(f, "}");
	}
	fprintf(f, "]}");
}

static void report_free(struct report *rp)
{
	free(rp->l.phases);
	free(rp->l.vms);
	free(rp->l.regions);
	free(rp->l.stats);
	free(rp->l.anomalies);
	free(rp->l.lost);
	free(rp->l.tasks);
	free(rp->l.settled);
	free(rp->l.kvm);
	report_cells_free(&rp->l.cells);
	msc_hview_close(rp->l.v);
}


static int report_capture(struct report *rp, struct msc_store *s, const struct msc_capture_row *c)
{
	int r;

	memset(&rp->l.sum, 0, sizeof(rp->l.sum));
	rp->cap = *c;
	r = msc_hview_open(s, c->id, &rp->l.v);
	if (!r)
		r = msc_hview_summary(rp->l.v, &rp->l.sum);
	if (!r)
		r = msc_hview_phases(rp->l.v, &rp->l.phases, &rp->l.nr_phases);
	if (!r)
		r = msc_hview_vms(rp->l.v, &rp->l.vms, &rp->l.nr_vms);
	if (!r)
		r = msc_hview_regions(rp->l.v, &rp->l.regions, &rp->l.nr_regions);
	if (!r)
		r = msc_hview_kvm_stats(rp->l.v, &rp->l.stats, &rp->l.nr_stats);
	if (!r)
		r = msc_hview_anomalies(rp->l.v, REPORT_ANOMALIES, &rp->l.anomalies, &rp->l.nr_anomalies);
	if (!r)
		r = msc_hview_lost_marks(rp->l.v, &rp->l.lost, &rp->l.nr_lost);
	if (!r)
		r = msc_store_get_tasks(s, c->id, &rp->l.tasks, &rp->l.nr_tasks);
	if (!r)
		r = light_of(s, c->id, &rp->l.light);
	if (!r && rp->svg_dir) {	/* the pictures' times, before anything is printed */
		struct svg_opts o = rp->svg;

		if (svg_check_times(&o, rp->l.sum.first_ts, rp->l.sum.last_ts - rp->l.sum.first_ts)) {
			cli_error("%s: capture %lld: %s", rp->db, (long long)c->id, o.error);
			r = 1;
		}
	}
	if (!r)
		report_sort_phases(rp->l.phases, rp->l.nr_phases);
	if (!r && !rp->selftest && !rp->brief)
		r = report_kvm_load(s, c->id, rp->l.vms, rp->l.nr_vms, rp->l.phases,
				    rp->l.nr_phases, &rp->l.kvm);
	if (!r && !rp->selftest) {
		uint64_t first, last;

		report_dirty_range(rp->l.phases, rp->l.nr_phases, &first, &last);
		r = report_cells_load(&rp->l.cells, s, c->id, first, last);
	}
	if (!r && !rp->selftest && !rp->brief)
		r = settle_steps(rp);
	if (!r && rp->selftest) {
		report_selftest(rp->f, rp->l.vms, rp->l.nr_vms, rp->l.phases, rp->l.nr_phases);
	} else if (!r && rp->brief) {
		const struct report_brief_in in = {
			.kernel = rp->cap.kernel_release[0] ? ESC(rp->cap.kernel_release) : "unknown",
			.vendor = ESC(rp->cap.vendor), .sum = &rp->l.sum,
			.phases = rp->l.phases, .nr_phases = rp->l.nr_phases,
			.vms = rp->l.vms, .nr_vms = rp->l.nr_vms,
			.stats = rp->l.stats, .nr_stats = rp->l.nr_stats,
			.cells = &rp->l.cells,
		};

		report_brief(rp->f, &in);
	} else if (!r) {
		if (rp->json)
			json_report(rp);
		else
			text_report(rp);
	}
	report_free(rp);
	rp->l = (struct report_loaded){ 0 };
	return r;
}

/* The pictures of one capture, in the directory (one subdirectory per capture when several). */
static int write_svg(struct report *rp, struct msc_store *s, const struct msc_capture_row *c,
		     bool subdir)
{
	struct svg_opts o = rp->svg;	/* each capture chooses its own map times */
	char dir[4096];
	int r;

	snprintf(dir, sizeof(dir), subdir ? "%s/capture-%lld" : "%s", rp->svg_dir, (long long)c->id);
	r = svg_write_report(s, c->id, dir, &o, rp->json ? stderr : stdout);
	/* a picture that cannot be written names its place; what cannot be read, the database */
	if (r && o.error[0])
		cli_error("%s: %s", r == -ERANGE || r == -EINVAL ? rp->db : dir, o.error);
	else if (r)
		cli_error("%s: %s", rp->db, msc_strerror(r));
	return r ? 1 : 0;
}

/* The options into @rp, @ret_in, @ret_only; 2 (usage) on a bad one */
static int parse_args(int argc, char **argv, struct report *rp, const char **ret_in,
		      long long *ret_only)
{
	static const struct option longopts[] = {
		{ "capture", required_argument, NULL, 'c' },
		{ "input", required_argument, NULL, 'i' },
		{ "json", no_argument, NULL, 'j' },
		{ "svg", required_argument, NULL, 's' },
		{ "at", required_argument, NULL, 'a' },
		{ "from", required_argument, NULL, 'F' },
		{ "to", required_argument, NULL, 'T' },
		{ "selftest", no_argument, NULL, 't' },
		{ "brief", no_argument, NULL, 'b' },
		{ 0 }
	};
	const char *at = NULL, *window = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "c:i:", longopts, NULL)) != -1) {
		if (c == 'c') {
			if (!cli_capture_id(optarg, ret_only))
				return 2;
		} else if (c == 'i') {
			*ret_in = optarg;
		} else if (c == 'j') {
			rp->json = true;
		} else if (c == 't') {
			rp->selftest = true;
		} else if (c == 'b') {
			rp->brief = true;
		} else if (c == 's') {
			rp->svg_dir = optarg;
		} else if (c == 'a' && svg_parse_times(optarg, &rp->svg)) {
			cli_error("--at %s: expected milliseconds since the capture start, or "
				  "@TIME in trace-cmd's clock (" CLI_TS_HELP "), comma separated "
				  "(at most %d)", optarg, SVG_MAX_MAPS);
			return 2;
		} else if (c == 'a') {
			at = optarg;
		} else if ((c == 'F' || c == 'T') &&
			   svg_parse_ms(optarg, c == 'F' ? &rp->svg.from : &rp->svg.to, &rp->svg.abs,
					c == 'F' ? SVG_ABS_FROM : SVG_ABS_TO)) {
			cli_error("--%s %s: expected milliseconds since the capture start, or @TIME "
				  "in trace-cmd's clock (" CLI_TS_HELP ")", c == 'F' ? "from" : "to", optarg);
			return 2;
		} else if (c == 'F' || c == 'T') {
			window = optarg;
		} else {
			return 2;
		}
	}
	if (rp->json + rp->selftest + rp->brief > 1) {
		cli_error("--json, --selftest and --brief exclude each other");
		return 2;
	}
	if (at && !rp->svg_dir) {
		cli_error("--at %s: the memory maps' times: give --svg DIR too", at);
		return 2;
	}
	if (window && !rp->svg_dir) {
		cli_error("--from/--to %s: the pictures' window: give --svg DIR too", window);
		return 2;
	}
	return 0;
}

int cmd_report(int argc, char **argv)
{
	struct report rp = { .f = stdout };
	struct msc_capture_row *caps = NULL;
	struct msc_store *s;
	const char *in = NULL;
	long long only = 0;
	size_t nr = 0, done = 0;
	int r;

	if (parse_args(argc, argv, &rp, &in, &only))
		return 2;
	rp.db = cli_input(argc, argv, in, NULL, "database");
	if (!rp.db)
		return 2;
	r = msc_store_open(rp.db, MSC_STORE_READONLY, &s);
	if (r) {
		cli_error("%s: cannot open database: %s", rp.db, cli_db_strerror(NULL, r));
		return 1;
	}
	r = msc_store_get_captures(s, &caps, &nr);
	if (!r && !cli_has_capture(rp.db, caps, nr, only)) {
		free(caps);
		msc_store_close(s);
		return 1;
	}
	/* --json: one document whatever the count, even when a capture fails half-way */
	if (rp.json)
		fprintf(rp.f, "{\"captures\": [\n");
	for (size_t i = 0; !r && i < nr; i++) {
		if (only && caps[i].id != only)
			continue;
		r = report_capture(&rp, s, &caps[i]);
		if (!r && rp.svg_dir)
			r = write_svg(&rp, s, &caps[i], nr > 1 && !only);
		if (r == -ENOENT) {
			cli_error("%s: capture %lld was not analyzed (run 'mmuscope analyze %s')",
				  rp.db, (long long)caps[i].id, rp.db);
			r = 1;
			break;
		}
		done++;
	}
	if (rp.json)
		fprintf(rp.f, "%s]}\n", rp.json_nr ? "\n" : "");
	if (r < 0)
		cli_store_error(rp.db, s, r);
	else if (!r && !done)
		cli_error("%s: no analyzed capture", rp.db);
	free(caps);
	msc_store_close(s);
	return r || !done ? 1 : 0;
}
