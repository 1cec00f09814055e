// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-VM metrics of an analyzed capture, in Prometheus's text exposition
 * format (version 0.0.4), for a fleet's monitoring (docs/FLEET.md): each
 * host's file, read by node_exporter's textfile collector.
 *
 * Every sample is labelled host, kernel and (per VM) vm, the analysis's VM
 * id.  What each metric is of, and which are absent when, is in metrics[]'s
 * help text, the one description of each: the HELP line says it, the docs
 * quote it.  A value the capture cannot give (no flush traced, no disable
 * yet) is left out, never written as 0.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mmuscope/history.h"
#include "mmuscope/live.h"
#include "mmuscope/spte.h"
#include "mmuscope/util.h"
#include "metrics.h"
#include "report.h"

enum {
	M_INFO, M_MAPPED, M_HUGE, M_STEP, M_HUGE_AGAIN, M_SPLITS, M_FLUSHES, M_LOST,
	M_ANOMALIES, M_NR,
};

static const struct {
	const char *name, *type, *help;
} metrics[M_NR] = {
	[M_INFO] = { "mmuscope_capture_info", "gauge",
		     "The capture the metrics are of: 1, labelled with its TDP vendor (npt, ept)" },
	[M_MAPPED] = { "mmuscope_vm_mapped_bytes", "gauge",
		       "Guest memory the VM's TDP MMU maps at the last analyzed event, by page size" },
	[M_HUGE] = { "mmuscope_vm_huge_ratio", "gauge",
		     "Share of the VM's dirty-logged memory (all of its memory if it never logged) "
		     "mapped by 2M and 1G pages at the end of its last step that left memory "
		     "mapped" },
	[M_STEP] = { "mmuscope_vm_dirty_log_step_seconds", "gauge",
		     "How long the VM's last dirty-log step of each kind took (enable, harvest, "
		     "disable)" },
	[M_HUGE_AGAIN] = { "mmuscope_vm_huge_again_seconds", "gauge",
			   "From the VM's last disable until its memory was all huge again; absent "
			   "while it is not" },
	[M_SPLITS] = { "mmuscope_vm_pages_split_total", "counter",
		       "Huge pages split in the VM's steps and vCPU passes" },
	[M_FLUSHES] = { "mmuscope_vm_tlb_flushes_total", "counter",
			"Remote TLB flushes in the VM's steps and vCPU passes; absent where the "
			"capture traced none" },
	[M_LOST] = { "mmuscope_lost_events_total", "counter",
		     "Events the kernel's ring buffer lost while recording (the history after "
		     "them is marked)" },
	[M_ANOMALIES] = { "mmuscope_anomalies_total", "counter",
			  "Events the analysis could not apply or did not expect" },
};

/* The dirty-log steps whose last duration is a metric, and their label */
static const struct {
	uint8_t kind;
	const char *step;
} steps[] = {
	{ MSC_PHASE_ENABLE, "enable" },
	{ MSC_PHASE_HARVEST, "harvest" },
	{ MSC_PHASE_DISABLE, "disable" },
};

/* One VM's figures; -1 (or NAN for the ratio) where the capture does not give them */
struct vm_figures {
	int64_t vm;
	struct msc_census census;
	double huge_ratio;			/* < 0: nothing mapped there */
	int64_t step_ns[ARRAY_SIZE(steps)];
	int64_t huge_again_ns;
	uint64_t splits;
	int64_t flushes;
	bool any;				/* it had steps or memory: shown */
};

struct figures {
	struct msc_capture_row cap;
	struct msc_history_summary sum;
	struct vm_figures *vm;
	size_t nr_vms;
	bool light;				/* record --light: KVM's counters, not a census */
};

/* A label value as the text format wants it: \, " and newline escaped */
static void label(FILE *f, const char *name, const char *value, bool first)
{
	fprintf(f, "%s%s=\"", first ? "" : ",", name);
	for (const char *p = value; *p; p++) {
		if (*p == '\\' || *p == '"')
			fputc('\\', f);
		if (*p == '\n')
			fputs("\\n", f);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

/* "NAME{host=..,kernel=..[,vm=N]" without the closing brace */
static void sample_head(FILE *f, int m, const struct msc_metrics_opts *o,
			const struct figures *g, int64_t vm)
{
	char n[24];

	fprintf(f, "%s{", metrics[m].name);
	label(f, "host", o->host, true);
	label(f, "kernel", g->cap.kernel_release, false);
	if (vm) {
		snprintf(n, sizeof(n), "%" PRId64, vm);
		label(f, "vm", n, false);
	}
}

static void family(FILE *f, int m)
{
	fprintf(f, "# HELP %s %s.\n# TYPE %s %s\n", metrics[m].name, metrics[m].help,
		metrics[m].name, metrics[m].type);
}

/* The regions of @vm's memory the dirty log covered: those its enables' GFNs reach */
static bool logged(const struct msc_region *r, const struct msc_phase *ph, size_t nr, int64_t vm)
{
	bool any = false;

	for (size_t i = 0; i < nr; i++) {
		const struct msc_phase *p = &ph[i];

		if (p->vm != vm || p->kind != MSC_PHASE_ENABLE || p->source == MSC_PHASE_SRC_MARKER ||
		    p->count.gfn_first > p->count.gfn_last)
			continue;
		any = true;
		if (p->count.gfn_first < r->gfn_end && p->count.gfn_last >= r->gfn_first)
			return true;
	}
	return !any;	/* never logged: all of its memory */
}

static int huge_ratio(struct msc_hview *v, struct vm_figures *m, const struct msc_phase *last,
		      const struct msc_phase *ph, size_t nr_ph, const struct msc_region *rg,
		      size_t nr_rg)
{
	struct msc_coverage *cov;
	double huge = 0, all = 0;
	size_t nr;
	int r;

	m->huge_ratio = -1;
	if (!last)
		return 0;
	r = msc_hview_phase_coverage(v, last->id, &cov, &nr);
	if (r)
		return r;
	for (size_t i = 0; i < nr; i++) {
		const struct msc_region *g = NULL;

		for (size_t k = 0; k < nr_rg && !g; k++)
			if (rg[k].id == cov[i].region_id)
				g = &rg[k];
		if (!g || g->vm != m->vm || !logged(g, ph, nr_ph, m->vm))
			continue;
		huge += (double)cov[i].pages[2] * 512 + (double)cov[i].pages[3] * 262144;
		all += (double)cov[i].pages[1];
	}
	all += huge;
	if (all > 0)
		m->huge_ratio = huge / all;
	free(cov);
	return 0;
}

/* @m's steps: the last of each kind, the counts, the time to huge again */
static void vm_steps(struct vm_figures *m, const struct msc_phase *ph, size_t nr, bool light)
{
	const struct msc_phase *disable = NULL;

	for (size_t k = 0; k < ARRAY_SIZE(steps); k++)
		m->step_ns[k] = -1;
	m->huge_again_ns = -1;
	m->flushes = -1;
	for (size_t i = 0; i < nr; i++) {
		const struct msc_phase *p = &ph[i];

		/* the kernel's work: a workload's marker phases hold the same events again */
		if (p->vm != m->vm || p->source == MSC_PHASE_SRC_MARKER ||
		    p->kind == MSC_PHASE_WORKLOAD)
			continue;
		m->any = true;
		/* a light recording's: one split event per huge page, no SPTE history */
		m->splits += light ? p->count.splits - min(p->count.splits, p->count.split_failures)
				   : p->count.pages_split;
		if (p->count.flushes >= 0)
			m->flushes = max(m->flushes, (int64_t)0) + p->count.flushes;
		for (size_t k = 0; k < ARRAY_SIZE(steps); k++)
			if (p->kind == steps[k].kind)
				m->step_ns[k] = (int64_t)(p->end_ts - p->start_ts);
		if (p->kind == MSC_PHASE_DISABLE && (!disable || p->start_ts >= disable->start_ts))
			disable = p;
	}
	/* 6.12 hands the disable's work over to a re-promotion, which says when */
	for (size_t i = 0; disable && i < nr; i++) {
		const struct msc_phase *p = &ph[i];

		if (p->vm == m->vm && (p->kind == MSC_PHASE_DISABLE || p->kind == MSC_PHASE_REPROMOTE) &&
		    p->start_ts >= disable->start_ts && p->to_huge_ns >= 0)
			m->huge_again_ns = max(m->huge_again_ns, p->to_huge_ns);
	}
}

/* @vm's last phase that left memory mapped (a teardown's leaves none) */
static const struct msc_phase *last_phase(const struct msc_phase *ph, size_t nr, int64_t vm)
{
	const struct msc_phase *last = NULL;

	for (size_t i = 0; i < nr; i++)
		if (ph[i].vm == vm && msc_census_mapped(&ph[i].after) &&
		    (!last || ph[i].end_ts >= last->end_ts))
			last = &ph[i];
	return last;
}

/*
 * A light recording rebuilds no census (or a sample's): @m's memory,
 * huge share and flushes are then KVM's own, as last read.  The huge share
 * is then of all its memory, the dirty-logged part not being known.  None
 * when the VM cannot be told among several sampled.
 */
static int from_kvm(struct msc_kvm_reads *kr, const struct msc_vm *vm, size_t nr_vms,
		    struct vm_figures *m)
{
	char buf[32];
	const char *name = msc_vm_stats_name(vm, buf, sizeof(buf));
	struct msc_kvm_read k;
	int r = msc_kvm_read_at(kr, name, INT64_MAX - 1, false, &k);

	for (int l = 1; l <= 3; l++)
		m->census.pages[l] = -1;
	m->huge_ratio = -1;
	if (r || !k.vms || (!name && (k.vms > 1 || nr_vms > 1)))
		return r;
	for (int l = 1; l <= 3; l++)
		m->census.pages[l] = k.pages[l];
	if (k.pages[1] >= 0 && k.pages[2] >= 0 && k.pages[3] >= 0 &&
	    report_huge_pct(&m->census) >= 0)
		m->huge_ratio = report_huge_pct(&m->census) / 100;
	m->flushes = k.flushes;
	m->any = true;
	return 0;
}

static int gather(struct msc_store *s, struct msc_hview *v, struct figures *g)
{
	struct msc_phase *ph = NULL;
	struct msc_region *rg = NULL;
	struct msc_vm *vms = NULL;
	struct msc_kvm_reads *kr = NULL;	/* a light recording's: KVM's counters */
	size_t nr_ph = 0, nr_rg = 0, nr_vms = 0;
	int r = msc_hview_summary(v, &g->sum);

	if (!r && g->light)
		r = msc_kvm_reads_open(s, g->cap.id, &kr);
	if (!r)
		r = msc_hview_phases(v, &ph, &nr_ph);
	if (!r)
		r = msc_hview_regions(v, &rg, &nr_rg);
	if (!r)
		r = msc_hview_vms(v, &vms, &nr_vms);
	if (!r && !(g->vm = calloc(nr_vms ?: 1, sizeof(*g->vm))))
		r = -ENOMEM;
	for (size_t i = 0; !r && i < nr_vms; i++) {
		struct vm_figures *m = &g->vm[g->nr_vms++];

		m->vm = vms[i].id;
		vm_steps(m, ph, nr_ph, g->light);
		if (kr) {
			r = from_kvm(kr, &vms[i], nr_vms, m);
			continue;
		}
		/* its last rows: also while a recording's analysis is under way */
		r = msc_hview_vm_census_at(v, m->vm, INT64_MAX, &m->census);
		if (!r)
			r = huge_ratio(v, m, last_phase(ph, nr_ph, m->vm), ph, nr_ph, rg, nr_rg);
		m->any |= msc_census_mapped(&m->census) > 0;
	}
	msc_kvm_reads_close(kr);
	free(ph);
	free(rg);
	free(vms);
	return r;
}

static void write_vm_families(FILE *f, const struct msc_metrics_opts *o, const struct figures *g)
{
	static const char *const size[] = { [1] = "4k", [2] = "2m", [3] = "1g" };

	family(f, M_MAPPED);
	for (size_t i = 0; i < g->nr_vms; i++)
		for (int l = 1; l <= 3 && g->vm[i].any && g->vm[i].census.pages[l] >= 0; l++) {
			sample_head(f, M_MAPPED, o, g, g->vm[i].vm);
			label(f, "size", size[l], false);
			fprintf(f, "} %" PRIu64 "\n", (uint64_t)max(g->vm[i].census.pages[l],
								   (int64_t)0) * msc_level_pages(l) * 4096);
		}
	family(f, M_HUGE);
	for (size_t i = 0; i < g->nr_vms; i++)
		if (g->vm[i].any && g->vm[i].huge_ratio >= 0) {
			sample_head(f, M_HUGE, o, g, g->vm[i].vm);
			fprintf(f, "} %.6f\n", g->vm[i].huge_ratio);
		}
	family(f, M_STEP);
	for (size_t i = 0; i < g->nr_vms; i++)
		for (size_t k = 0; k < ARRAY_SIZE(steps); k++)
			if (g->vm[i].step_ns[k] >= 0) {
				sample_head(f, M_STEP, o, g, g->vm[i].vm);
				label(f, "step", steps[k].step, false);
				fprintf(f, "} %.9f\n", (double)g->vm[i].step_ns[k] / 1e9);
			}
	family(f, M_HUGE_AGAIN);
	for (size_t i = 0; i < g->nr_vms; i++)
		if (g->vm[i].huge_again_ns >= 0) {
			sample_head(f, M_HUGE_AGAIN, o, g, g->vm[i].vm);
			fprintf(f, "} %.9f\n", (double)g->vm[i].huge_again_ns / 1e9);
		}
	family(f, M_SPLITS);
	for (size_t i = 0; i < g->nr_vms; i++)
		if (g->vm[i].any) {
			sample_head(f, M_SPLITS, o, g, g->vm[i].vm);
			fprintf(f, "} %" PRIu64 "\n", g->vm[i].splits);
		}
	family(f, M_FLUSHES);
	for (size_t i = 0; i < g->nr_vms; i++)
		if (g->vm[i].any && g->vm[i].flushes >= 0) {
			sample_head(f, M_FLUSHES, o, g, g->vm[i].vm);
			fprintf(f, "} %" PRId64 "\n", g->vm[i].flushes);
		}
}

/**
 * msc_metrics_write - the metrics of capture @capture_id (<= 0: the last)
 *	of @s, analyzed, to @f
 *
 * Returns 0, a negative error (MSC_ERR_NO_KVM: nothing analyzed), or
 * -EIO when @f could not be written.
 */
int msc_metrics_write(struct msc_store *s, int64_t capture_id,
		      const struct msc_metrics_opts *o, FILE *f)
{
	struct figures g = { 0 };
	struct msc_capture_row *caps = NULL;
	struct msc_hview *v = NULL;
	size_t nr = 0;
	int r = msc_store_get_captures(s, &caps, &nr);

	for (size_t i = 0; !r && i < nr; i++)
		if (capture_id <= 0 ? i + 1 == nr : caps[i].id == capture_id)
			g.cap = caps[i];
	free(caps);
	if (!r && !g.cap.id)
		r = -ENOENT;
	if (!r)
		r = msc_hview_open(s, g.cap.id, &v);
	if (!r) {
		char buf[16];

		r = msc_store_get_param(s, g.cap.id, "record.light", buf, sizeof(buf));
		g.light = r == 1;
		r = r < 0 ? r : 0;
	}
	if (!r)
		r = gather(s, v, &g);
	if (!r) {
		family(f, M_INFO);
		sample_head(f, M_INFO, o, &g, 0);
		label(f, "vendor", g.cap.vendor, false);
		fprintf(f, "} 1\n");
		write_vm_families(f, o, &g);
		family(f, M_LOST);
		sample_head(f, M_LOST, o, &g, 0);
		/* the recorder counts them, the analysis too (its lost marks): one number */
		fprintf(f, "} %" PRIu64 "\n", max(g.cap.lost, g.sum.lost_events));
		family(f, M_ANOMALIES);
		sample_head(f, M_ANOMALIES, o, &g, 0);
		fprintf(f, "} %" PRIu64 "\n", g.sum.anomalies);
		if (fflush(f) || ferror(f))
			r = -EIO;
	}
	free(g.vm);
	msc_hview_close(v);
	return r;
}
