// SPDX-License-Identifier: GPL-2.0-only
/*
 * The analyzer's front: open (or resume) the analysis of a capture, feed it
 * events, finish it.  Each event is dispatched here to the model
 * (lib/history/model.c), the census (lib/history/census.c) and the phase detector
 * (lib/history/phase.c).
 *
 * Invariant: events are applied in seq order and each at most once; time
 * never goes backwards inside the model (a late timestamp is clamped to the
 * last one and counted).
 */
#include "mmuscope/history.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "local.h"
#include "mmuscope/error.h"
#include "mmuscope/host.h"
#include "mmuscope/live.h"
#include "mmuscope/store.h"
#include "mmuscope/util.h"

#define OUT_OF_ORDER_NOTE_NS 1000000ULL	/* a skew above 1 ms is an anomaly row */
#define ANALYZE_COMMIT_EVERY 65536

/* Resuming: the tables hand back each interval that was open, the front gives it to the model. */
static int load_interval(const struct msc_interval *iv, void *m)
{
	return hmodel_load_interval(m, iv);
}

static int load_was_huge(const struct msc_interval *iv, void *m)
{
	hmodel_mark_was_huge(m, iv);
	return 0;
}

static int find_capture(struct msc_store *s, int64_t capture_id, struct msc_capture_row *ret)
{
	struct msc_capture_row *rows;
	size_t nr;
	int r = msc_store_get_captures(s, &rows, &nr);

	if (r)
		return r;
	r = -ENOENT;
	for (size_t i = 0; i < nr; i++) {
		if (rows[i].id == capture_id || (capture_id <= 0 && i == nr - 1)) {
			*ret = rows[i];
			r = 0;
		}
	}
	free(rows);
	return r;
}

/* Put the model back as the last run left it: its open intervals. */
static int resume(struct msc_history *h)
{
	struct msc_history_summary sum;
	struct hstate st;
	bool found;
	int r = hstore_load_analysis(h->hs, h->capture_id, &sum, &st, sizeof(st), &found);

	if (!r && found && (sum.last_seq < -1 || st.size != sizeof(st) ||
			    st.version != HSTATE_VERSION)) {
		r = hstore_drop(h->hs, h->capture_id);	/* an interrupted or older run */
		found = false;
	}
	if (r || !found)
		return r ?: hstore_keep_cells(h->hs, h->capture_id);
	h->sum = sum;
	h->sum.steady = 0;	/* of this run */
	h->st = st;
	h->m.ts_base = sum.first_ts;
	h->m.ts = sum.last_ts;
	h->census.row_ts = sum.last_ts;
	h->cur_seq = sum.last_seq;
	h->census.flags = sum.census_flags & MSC_CENSUS_PARTIAL;
	h->m.after_lost = sum.lost_marks > 0;
	r = hphase_load(h);
	if (!r)
		r = hstore_load_vms(h->hs, h->capture_id, &h->det.vms, &h->det.nr_vms);
	h->det.alloc_vms = h->det.nr_vms;
	h->m.loading = true;
	h->m.resumed = true;
	if (!r)
		r = hstore_load_open(h->hs, h->capture_id, load_interval, &h->m);
	if (!r)
		r = hstore_load_was_huge(h->hs, h->capture_id, load_was_huge, &h->m);
	if (!r)
		r = hphase_resume(h);
	for (size_t i = 0; i < h->det.nr_vms; i++)
		h->vm_seq = max(h->vm_seq, h->det.vms[i].id);
	if (h->st.cur_vm >= 0 && (size_t)h->st.cur_vm < h->det.nr_vms)
		h->m.vm_id = h->det.vms[h->st.cur_vm].id;
	h->fed_seq = h->sum.last_seq;
	h->m.loading = false;
	memset(h->m.leaves_moved, 0, sizeof(h->m.leaves_moved));
	if (!r)
		r = hstore_delete_open(h->hs, h->capture_id);
	return r;
}

/*
 * The model's way up (struct hmodel_up), with the part as its ctx.
 *
 * An event the model could not apply.  A SPTE present before the trace
 * began marks the census partial, and is told once.
 */
static int model_anomaly(void *ctx, enum msc_anomaly_kind kind, unsigned int as_id, uint64_t gfn,
			 unsigned int level, uint64_t old_spte, uint64_t new_spte, const char *fmt,
			 ...)
{
	struct msc_history *h = ctx;
	va_list ap;
	int r;

	if (kind == MSC_ANOMALY_PARTIAL) {
		h->census.flags |= MSC_CENSUS_PARTIAL;
		if (h->anomalies_by_kind[kind])
			return 0;
	}
	va_start(ap, fmt);
	r = hanomaly_va(h, kind, as_id, gfn, level, old_spte, new_spte, fmt, ap);
	va_end(ap);
	return r;
}

/* A 2M cell changed: the census recomputes it. */
static int model_cell_changed(void *ctx, unsigned int as_id, struct hnode *n2, unsigned int i)
{
	return hcensus_cell_update(ctx, as_id, n2, i);
}

/* A run of intervals filled: the tables write it. */
static int model_run_filled(void *ctx, const struct hrun *run, int64_t last_run, bool known,
			    int64_t *ret_id)
{
	const struct msc_history *h = ctx;

	return hstore_add_run(h->hs, h->capture_id, run, last_run, known, ret_id);
}

static const struct hmodel_up model_up = {
	.cell_changed = model_cell_changed,
	.anomaly = model_anomaly,
	.run_filled = model_run_filled,
};

/* The census's way up (struct hup), the same for every part. */
static const struct hup front_up = {
	.cell_huge = hphase_cell_huge,
};

/* A part with nothing analyzed yet, of the front @f's capture */
static void part_init(struct msc_history *h, struct msc_history *f)
{
	h->up = &front_up;
	h->m.up = &model_up;
	h->m.up_ctx = h;
	h->store = f->store;
	h->hs = f->hs;
	h->front = f;
	h->capture_id = f->capture_id;
	h->opts = f->opts;
	h->m.layout = f->m.layout;
	h->tdp_mmu = f->tdp_mmu;
	h->kver = f->kver;
	h->st.size = sizeof(h->st);
	h->st.version = HSTATE_VERSION;
	h->st.cur_dirty = h->st.cur_repromote = h->st.last_dirty = -1;
	h->st.cur_pass = h->st.cur_vm = -1;
	h->sum.capture_id = f->capture_id;
	h->sum.last_seq = -1;
	h->sum.tdp_mmu = h->tdp_mmu;
	h->cur_seq = -1;
	h->det.ended = f->det.ended;
}

/* A part for a VM created while every other part's runs: *@ret its index */
static int part_new(struct msc_history *f, int *ret)
{
	struct msc_history **v = realloc(f->parts, (f->nr_parts + 1) * sizeof(*v));
	struct msc_history *h;

	if (!v)
		return -ENOMEM;
	f->parts = v;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	part_init(h, f);
	*ret = (int)f->nr_parts;
	v[f->nr_parts++] = h;
	return 0;
}

/* Tell @p each thread's process, as the capture's task table has it (a recording's: saved tgids) */
static int load_processes(struct msc_store *s, int64_t capture_id, struct hplace *p)
{
	struct msc_task_row *t;
	size_t nr;
	int r = msc_store_get_tasks(s, capture_id, &t, &nr);

	if (r)
		return r;
	for (size_t i = 0; !r && i < nr; i++)
		r = hplace_set_task(p, t[i].pid, t[i].tgid);
	free(t);
	return r;
}

/**
 * msc_history_open - start or resume the analysis of one capture
 * @s: the store, writable
 * @capture_id: the capture; <= 0: the last one
 * @host: the host its events were classified with, or NULL to take it from
 *	the capture row
 * @opts: options, or NULL for the defaults
 * @ret: the history, freed with msc_history_close()
 *
 * A capture analyzed before resumes after its last analyzed event (or
 * starts over with opts->rebuild, or when the last run did not finish).
 * Returns 0 or a negative error.
 */
int msc_history_open(struct msc_store *s, int64_t capture_id, const struct msc_host *host,
		     const struct msc_history_opts *opts, struct msc_history **ret)
{
	struct msc_capture_row cap;
	struct msc_history *h;
	struct msc_host hh;
	int r;

	r = find_capture(s, capture_id, &cap);
	if (r)
		return r;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->store = s;
	h->capture_id = cap.id;
	if (opts)
		h->opts = *opts;
	if (!host) {
		msc_capture_host(&cap, &hh);
		host = &hh;
	}
	msc_spte_layout_init(&h->m.layout, host);
	h->tdp_mmu = host->tdp_mmu || cap.tdp_mmu;
	h->kver = host->kver;
	part_init(h, h);
	h->fed_seq = -1;
	h->parts = malloc(sizeof(*h->parts));
	r = h->parts ? hplace_new(&h->place) : -ENOMEM;
	if (!r) {
		h->parts[0] = h;
		h->nr_parts = 1;
		r = hstore_open(s, &h->hs);
	}
	if (!r)
		r = load_processes(s, h->capture_id, h->place);
	h->by_process = hplace_processes(h->place) > 0;
	if (!r && h->opts.rebuild)
		r = hstore_drop(h->hs, h->capture_id);
	if (!r)
		r = resume(h);
	if (!r)
		r = hstore_mark_running(h->hs, h->capture_id);
	if (r) {
		msc_history_close(h);
		return r;
	}
	*ret = h;
	return 0;
}

/** msc_history_resume_seq - the first seq not analyzed yet */
int64_t msc_history_resume_seq(const struct msc_history *h)
{
	return h->fed_seq + 1;
}

static unsigned int split_cause(const struct msc_history *h, const struct msc_event *ev)
{
	return hphase_is_vcpu(h, ev->pid) ? MSC_CAUSE_FAULT_SPLIT : MSC_CAUSE_EAGER_SPLIT;
}

static unsigned int cause_of(const struct msc_history *h, const struct msc_event *ev,
			     enum msc_spte_class class)
{
	switch (class) {
	case MSC_CLASS_MAP: return MSC_CAUSE_FAULT;
	case MSC_CLASS_UNMAP: return MSC_CAUSE_ZAP;
	case MSC_CLASS_LINK: return MSC_CAUSE_LINK;
	case MSC_CLASS_ZAP_SUBTREE:
		return hphase_in_disable(h) ? MSC_CAUSE_ZAP_COLLAPSIBLE : MSC_CAUSE_ZAP;
	case MSC_CLASS_SPLIT: return split_cause(h, ev);
	case MSC_CLASS_PROMOTE: return MSC_CAUSE_PROMOTE;
	case MSC_CLASS_WRITE_PROTECT: return MSC_CAUSE_WRITE_PROTECT;
	case MSC_CLASS_MAKE_WRITABLE: return MSC_CAUSE_MAKE_WRITABLE;
	case MSC_CLASS_CLEAR_DIRTY: return MSC_CAUSE_CLEAR_DIRTY;
	case MSC_CLASS_AGE: return MSC_CAUSE_AGE;
	case MSC_CLASS_ACCESS_TRACK: return MSC_CAUSE_ACCESS;
	case MSC_CLASS_TEARDOWN_CHILD: return MSC_CAUSE_TEARDOWN;
	default: return MSC_CAUSE_OTHER;
	}
}

/* A value no known SPTE layout produces (docs/kvm-mmu.md, "Special values"). */
static bool bad_value(const struct msc_history *h, uint64_t v)
{
	const struct msc_spte_layout *l = &h->m.layout;

	if (v == l->nonpresent || v == l->frozen || msc_spte_mmio(l, v))
		return false;
	if (!msc_spte_present(l, v))
		return true;
	/* NPT (x86 PTE format): present SPTEs have P, and bits 52..62 are unused */
	if (l->vendor == MSC_VENDOR_NPT && (!(v & 1) || (v & (0x7ffULL << 52))))
		return true;
	return false;
}

/*
 * The classifier tells a teardown child by its removed table, whatever value
 * it receives: a non-present value other than the layout's frozen one is
 * the frozen value of this kernel (one the capture row could not know yet,
 * when the first teardown came after the layout was decided).  The capture
 * row gets it at the end of the import, so a replay starts with it.
 */
static void learn_frozen(struct msc_history *h, const struct msc_ev_spte *s)
{
	const struct msc_spte_layout *l = &h->m.layout;
	uint64_t v = s->new_spte;

	if (s->class != MSC_CLASS_TEARDOWN_CHILD || v == l->frozen || v == l->nonpresent ||
	    msc_spte_present(l, v) || msc_spte_mmio(l, v))
		return;
	h->m.layout.frozen = v;
}

/* What a change of @class counts besides HCOST_SPTE, first; -1: nothing. */
static int class_cost(const struct msc_history *h, enum msc_spte_class class,
		      unsigned int level, uint64_t old_spte)
{
	switch (class) {
	case MSC_CLASS_MAP: return HCOST_MAP;
	case MSC_CLASS_PROMOTE: return HCOST_PROMOTE;
	case MSC_CLASS_WRITE_PROTECT: return HCOST_WP;
	case MSC_CLASS_UNMAP:
	case MSC_CLASS_ZAP_SUBTREE: return HCOST_ZAP;
	case MSC_CLASS_TEARDOWN_CHILD:
		return msc_spte_leaf(&h->m.layout, level, old_spte) ? HCOST_ZAP : -1;
	default: return -1;
	}
}

static int apply_spte(struct msc_history *h, const struct msc_event *ev)
{
	const struct msc_ev_spte *s = &ev->spte;
	enum msc_spte_class class = s->class;
	unsigned int cause;
	int r, what;

	learn_frozen(h, s);
	if (s->gfn >= HGFN_END)
		return hanomaly(h, MSC_ANOMALY_BAD_SPTE, s->as_id, s->gfn, s->level, s->old_spte,
				s->new_spte, "spte_changed of gfn %#llx, beyond any guest physical "
				"address: not applied", (unsigned long long)s->gfn);
	if (s->as_id >= HMAX_AS || s->level < 1 || s->level > HTOP_LEVEL ||
	    (s->gfn & (msc_level_pages(s->level) - 1)) || bad_value(h, s->old_spte) ||
	    bad_value(h, s->new_spte))
		return hanomaly(h, MSC_ANOMALY_BAD_SPTE, s->as_id, s->gfn, s->level, s->old_spte,
				s->new_spte, "spte_changed %#llx -> %#llx fits no known SPTE layout "
				"(level %u; non-present is %#llx, frozen %#llx): not applied",
				(unsigned long long)s->old_spte, (unsigned long long)s->new_spte,
				s->level, (unsigned long long)h->m.layout.nonpresent,
				(unsigned long long)h->m.layout.frozen);
	if (class == MSC_CLASS_NONE)
		class = msc_spte_classify(&h->m.layout, s->level, s->old_spte, s->new_spte, false);
	hphase_cost(h, ev, HCOST_SPTE, 1);
	/* the pages phase.c counts as collected, by cell (dirty.c) */
	if (s->class == MSC_CLASS_WRITE_PROTECT || s->class == MSC_CLASS_CLEAR_DIRTY)
		hdirty_add(h, HDIRTY_COLLECTED, s->as_id, s->gfn, msc_level_pages(s->level),
			   h->m.ts);
	if (s->old_spte == h->m.layout.frozen && h->m.layout.frozen != h->m.layout.nonpresent) {
		r = hanomaly(h, MSC_ANOMALY_LEFT_FROZEN, s->as_id, s->gfn, s->level, s->old_spte,
			     s->new_spte, "SPTE still frozen when changed again");
		if (r)
			return r;
	}
	if (class == MSC_CLASS_ANOMALY && msc_spte_leaf(&h->m.layout, s->level, s->old_spte) &&
	    msc_spte_leaf(&h->m.layout, s->level, s->new_spte)) {
		r = hanomaly(h, MSC_ANOMALY_PFN_CHANGE, s->as_id, s->gfn, s->level, s->old_spte,
			     s->new_spte, "present leaf changed pfn %#llx -> %#llx",
			     (unsigned long long)msc_spte_pfn(&h->m.layout, s->old_spte),
			     (unsigned long long)msc_spte_pfn(&h->m.layout, s->new_spte));
		if (r)
			return r;
	}
	cause = cause_of(h, ev, class);
	/* in a stretch, a storm's changes of one node are applied as a range */
	r = h->det.stretch ? hmodel_range_add(&h->m, s->as_id, s->gfn, s->level, s->old_spte,
					   s->new_spte, cause) : 0;
	if (!r)
		r = hmodel_change(&h->m, s->as_id, s->gfn, s->level, s->old_spte, s->new_spte, cause);
	if (r < 0)
		return r;
	what = class_cost(h, class, s->level, s->old_spte);
	if (what >= 0)
		hphase_cost(h, ev, (unsigned int)what, 1);
	switch (class) {
	case MSC_CLASS_SPLIT:
		hphase_cost(h, ev, HCOST_PAGES_SPLIT, 1);
		hphase_cost(h, ev, HCOST_SYNTH, HNODE_ENTRIES);
		return hmodel_split_children(&h->m, s->as_id, s->gfn, s->level, s->old_spte, cause);
	case MSC_CLASS_LINK:
	case MSC_CLASS_MAP:
		return hmodel_clear_below(&h->m, s->as_id, s->gfn, s->level, MSC_CAUSE_RESYNC, true);
	default:
		return 0;
	}
}

/*
 * Each NPF exit is counted once, by its outcome.  An exit waits in h->st.npf
 * until its vCPU's next event: a fast_page_fault that fixed or found
 * spurious the same GFN resolved it (counted there); anything else means
 * the slow path took it.  An exit the table has no room for is slow.
 */
#define NPF_MASK (HNPF_SLOTS - 1)

/* The slot of @pid's waiting exit, or the free slot where it would go. */
static uint32_t npf_slot(const struct msc_history *h, int32_t pid)
{
	uint32_t i = (uint32_t)pid & NPF_MASK;

	while (h->st.npf[i].pid && h->st.npf[i].pid != pid)
		i = (i + 1) & NPF_MASK;
	return i;
}

/* Free slot @i, moving up the entries its probe sequence passes over. */
static void npf_remove(struct msc_history *h, uint32_t i)
{
	for (uint32_t j = (i + 1) & NPF_MASK; h->st.npf[j].pid; j = (j + 1) & NPF_MASK) {
		uint32_t home = (uint32_t)h->st.npf[j].pid & NPF_MASK;

		/* j's entry may move to i unless its home lies in (i, j] */
		if (((j - home) & NPF_MASK) >= ((j - i) & NPF_MASK)) {
			h->st.npf[i] = h->st.npf[j];
			i = j;
		}
	}
	h->st.npf[i].pid = 0;
	h->st.nr_npf--;
}

static void npf_settle(struct msc_history *h, const struct msc_event *ev)
{
	uint32_t i = npf_slot(h, ev->pid);

	if (!h->st.npf[i].pid)
		return;
	if (ev->type != MSC_EV_FAST_PF || ev->fast_pf.result == MSC_FPF_OTHER ||
	    ev->fast_pf.gpa >> 12 != h->st.npf[i].gfn)
		hphase_cost(h, ev, HCOST_FAULT_SLOW, 1);
	npf_remove(h, i);
}

static void npf_pending(struct msc_history *h, const struct msc_event *ev)
{
	uint32_t i;

	if (!ev->pid || h->st.nr_npf >= HNPF_SLOTS / 2) {
		hphase_cost(h, ev, HCOST_FAULT_SLOW, 1);	/* no room to wait: slow */
		return;
	}
	i = npf_slot(h, ev->pid);
	h->st.npf[i].pid = ev->pid;
	h->st.npf[i].gfn = ev->pf.gpa >> 12;
	h->st.nr_npf++;
}

/* The exits still waiting at the end of the capture went the slow path. */
static void npf_flush(struct msc_history *h)
{
	for (uint32_t i = 0; i < HNPF_SLOTS; i++)
		if (h->st.npf[i].pid) {
			struct msc_event exit = { .type = MSC_EV_PAGE_FAULT, .pid = h->st.npf[i].pid };

			h->st.npf[i].pid = 0;
			hphase_cost(h, &exit, HCOST_FAULT_SLOW, 1);
		}
	h->st.nr_npf = 0;
}

static int apply_fast_pf(struct msc_history *h, const struct msc_event *ev)
{
	const struct msc_ev_fast_pf *f = &ev->fast_pf;
	uint64_t gfn = f->gpa >> 12;
	unsigned int level;

	if (f->result == MSC_FPF_OTHER)
		return 0;
	hphase_cost(h, ev, f->result == MSC_FPF_FIXED ? HCOST_FAULT_FAST : HCOST_FAULT_SPURIOUS, 1);
	if (f->result != MSC_FPF_FIXED || f->old_spte == f->new_spte)
		return 0;
	if (!hmodel_find_leaf(&h->m, 0, gfn, &level))
		level = (f->old_spte & h->m.layout.huge) ? 2 : 1;
	/* a write to a page protected for dirty logging: the guest dirtied it */
	if (!(f->old_spte & h->m.layout.writable) && (f->new_spte & h->m.layout.writable)) {
		hphase_cost(h, ev, HCOST_FIXED, msc_level_pages(level));
		hdirty_add(h, HDIRTY_FIXED, 0, gfn & ~(msc_level_pages(level) - 1),
			   msc_level_pages(level), h->m.ts);
	}
	h->sum.fast_applied++;
	return hmodel_change(&h->m, 0, gfn & ~(msc_level_pages(level) - 1), level, f->old_spte,
			     f->new_spte, MSC_CAUSE_FAST_FIX);
}

static int apply_page_fault(struct msc_history *h, const struct msc_event *ev)
{
	uint64_t gfn = ev->pf.gpa >> 12;
	const struct hcell *c = hmodel_cell(&h->m, 0, gfn);
	unsigned int level;

	npf_pending(h, ev);
	if (c && (c->flags & HCELL_ZAPPED) && !hmodel_find_leaf(&h->m, 0, gfn, &level))
		hphase_cost(h, ev, HCOST_REFAULT, 1);
	return 0;
}

/*
 * Shadow MMU: kvm_mmu_set_spte is the only install event, and most removals
 * are untraced.  A leaf set under a huge leaf means the huge one was
 * dropped; a huge leaf set over smaller ones means their table is gone.
 */
static int apply_set_spte(struct msc_history *h, const struct msc_event *ev)
{
	const struct msc_ev_set_spte *s = &ev->set_spte;
	uint64_t gfn = s->gfn & ~(msc_level_pages(s->level) - 1);
	int r = 0;

	if (h->tdp_mmu || s->level < 1 || s->level > MSC_HISTORY_MAX_LEVEL)
		return 0;	/* the TDP MMU traces the same install as spte_changed */
	for (unsigned int l = s->level + 1; l <= MSC_HISTORY_MAX_LEVEL && !r; l++)
		r = hmodel_drop_range(&h->m, 0, gfn, gfn + 1, l, l, MSC_CAUSE_SHADOW_DROP);
	if (!r && s->level > 1)
		r = hmodel_drop_range(&h->m, 0, gfn, gfn + msc_level_pages(s->level), 1,
				      s->level - 1, MSC_CAUSE_SHADOW_DROP);
	if (!r)
		r = hmodel_set(&h->m, 0, gfn, s->level, s->spte, MSC_CAUSE_SHADOW_SET, 0);
	if (!r)
		hphase_cost(h, ev, HCOST_MAP, 1);
	return r;
}

/*
 * Shadow MMU: a direct page table zapped drops the leaves it held.  TDP
 * MMU: a table's removal begins (model.c, "Removed tables").
 */
static int apply_zap_page(struct msc_history *h, const struct msc_event *ev)
{
	struct msc_sp_role role;
	uint64_t span;

	msc_sp_role_decode(&h->m.layout, ev->sp.role, &role);
	if (h->tdp_mmu)
		return role.smm < HMAX_AS && role.level >= 1 ?
		       hmodel_detach(&h->m, role.smm, ev->sp.gfn, role.level) : 0;
	if (!role.direct || role.level < 1 || role.level > MSC_HISTORY_MAX_LEVEL ||
	    role.smm >= HMAX_AS)
		return 0;
	span = HNODE_ENTRIES * msc_level_pages(role.level);
	hphase_cost(h, ev, HCOST_ZAP, 1);
	return hmodel_drop_range(&h->m, role.smm, ev->sp.gfn, ev->sp.gfn + span, role.level,
				 role.level, MSC_CAUSE_SHADOW_DROP);
}

static int apply_event(struct msc_history *h, const struct msc_event *ev)
{
	switch (ev->type) {
	case MSC_EV_SPTE_CHANGED:
		h->sum.spte_events++;
		h->tdp_mmu = h->sum.tdp_mmu = true;	/* only the TDP MMU traces these */
		return apply_spte(h, ev);
	case MSC_EV_SPLIT:
		if (ev->split.err) {
			hphase_cost(h, ev, HCOST_SPLIT_FAIL, 1);
			return hanomaly(h, MSC_ANOMALY_SPLIT_FAILED, 0, ev->split.gfn,
					(unsigned int)ev->split.level, ev->split.spte, 0,
					"huge page split failed with errno %d", ev->split.err);
		}
		hphase_cost(h, ev, HCOST_SPLIT, 1);
		return 0;
	case MSC_EV_FAST_PF:
		return apply_fast_pf(h, ev);
	case MSC_EV_PAGE_FAULT:
		return apply_page_fault(h, ev);
	case MSC_EV_SET_SPTE:
		return apply_set_spte(h, ev);
	case MSC_EV_ZAP_PAGE:
		return apply_zap_page(h, ev);
	case MSC_EV_MARKER:
		return hcensus_marker(h, ev);
	case MSC_EV_KPROBE:
		if (!strcmp(ev->kprobe.name, "kvm_flush_remote_tlbs"))
			hphase_cost(h, ev, HCOST_FLUSH, 1);
		return 0;
	case MSC_EV_TLB_FLUSH:
		/* the patch's event: one per request, as KVM's remote_tlb_flush_requests */
		if (ev->tlb_flush.all)
			hphase_cost(h, ev, HCOST_FLUSH, 1);
		return 0;
	case MSC_EV_LOST:
		h->sum.lost_marks++;
		h->sum.lost_events += ev->lost.count;
		h->m.after_lost = true;
		return hanomaly(h, MSC_ANOMALY_AFTER_LOST, 0, 0, 0, 0, 0,
				"cpu %u lost %llu events: later history may have holes", ev->cpu,
				(unsigned long long)ev->lost.count);
	default:
		return 0;
	}
}

/* Apply @ev to the model; the 2M cells it changed are recomputed at its end. */
static int apply(struct msc_history *h, const struct msc_event *ev)
{
	int r;

	hmodel_settle_begin(&h->m);
	r = apply_event(h, ev);
	return hmodel_settle(&h->m) ?: r;
}

/*
 * Apply the model's pending range (model.c, "Ranges").  Its changes were
 * committed one by one before the model had them: what the VM's state
 * reads of the census is read again.
 */
static int range_apply(struct msc_history *h)
{
	bool pending = h->m.range.node;
	int r = hmodel_range_apply(&h->m);

	if (!r && pending)
		hvm_census(h);
	return r;
}

/*
 * The costs of the changes feed_extends() took, counted.  They are sums and
 * a GFN range, and nothing reads them before the next event that goes
 * another way (feed() counts them first) or the end (msc_history_finish()).
 */
static void extended_count(struct msc_history *h)
{
	if (!h->extended.n)
		return;
	hphase_cost_changes(h, &h->extended);
	h->extended.n = 0;
}

/*
 * A storm's change that extends the pending range (model.c, "Ranges"):
 * what feed_steady() does for it, in fewer steps.  A range pending, the
 * last event fed went into it, in this stretch; of apply_spte()'s checks
 * only the values' can fail for the next entry of the range's node, and
 * learn_frozen() learns nothing from values bad_value() accepts.  Returns
 * false, having changed nothing, for an event that does not go so.
 */
static bool feed_extends(struct msc_history *h, const struct msc_event *ev)
{
	const struct msc_ev_spte *s = &ev->spte;
	enum msc_spte_class class = s->class;
	struct hchanges *c = &h->extended;
	int what;

	/* the classes apply_spte() does more for than the change */
	if (!h->m.range.node || ev->type != MSC_EV_SPTE_CHANGED || h->st.nr_npf ||
	    class == MSC_CLASS_NONE || class == MSC_CLASS_ANOMALY || class == MSC_CLASS_SPLIT ||
	    class == MSC_CLASS_LINK || class == MSC_CLASS_MAP)
		return false;
	if (s->old_spte == h->m.layout.frozen || bad_value(h, s->old_spte) ||
	    bad_value(h, s->new_spte) || !hphase_steady(h, ev) ||
	    !hmodel_range_extend(&h->m, s->as_id, s->gfn, s->level, s->old_spte, s->new_spte,
				 cause_of(h, ev, class), ev->ts))
		return false;
	/* feed_steady(), apply_event() and apply_spte() from here */
	hphase_steady_event(h, ev);
	h->m.ts = ev->ts;
	h->cur_seq = (int64_t)ev->seq;
	h->sum.spte_events++;
	what = class_cost(h, class, s->level, s->old_spte);
	if (class == MSC_CLASS_WRITE_PROTECT || class == MSC_CLASS_CLEAR_DIRTY)
		hdirty_add(h, HDIRTY_COLLECTED, s->as_id, s->gfn, msc_level_pages(s->level),
			   h->m.ts);
	if (c->n && (c->pid != ev->pid || c->class != class || c->what != what ||
		       c->level != s->level))
		extended_count(h);
	if (!c->n)
		*c = (struct hchanges){ .gfn_first = s->gfn, .gfn_last = s->gfn, .pid = ev->pid,
					.what = what, .class = (uint8_t)class, .level = s->level };
	c->n++;
	c->gfn_first = min(c->gfn_first, s->gfn);
	c->gfn_last = max(c->gfn_last, s->gfn);
	hvm_commit(h, ev);
	h->sum.events++;
	h->sum.steady++;
	h->sum.last_seq = (int64_t)ev->seq;
	h->sum.last_ts = ev->ts;
	return true;
}

/*
 * An SPTE change of a steady stretch (phase.c): what feed() does, with the
 * phase detector's part known beforehand.
 */
static int feed_steady(struct msc_history *h, const struct msc_event *ev)
{
	int r;

	hphase_steady_event(h, ev);
	h->m.ts = ev->ts;
	h->cur_seq = (int64_t)ev->seq;
	if (h->st.nr_npf)
		npf_settle(h, ev);
	r = apply(h, ev);
	if (r)
		return r;
	hvm_commit(h, ev);
	h->sum.events++;
	h->sum.steady++;
	h->sum.last_seq = (int64_t)ev->seq;
	h->sum.last_ts = ev->ts;
	return 0;
}

static int feed(struct msc_history *h, const struct msc_event *ev)
{
	uint64_t ts = ev->ts;
	int r;

	if (h->det.steady && feed_extends(h, ev))
		return 0;
	extended_count(h);
	if (h->det.steady && hphase_steady(h, ev))
		return feed_steady(h, ev);
	h->det.steady_until = 0;	/* the detector sees this event */
	r = range_apply(h);
	if (r)
		return r;
	hphase_stretch_end(h);
	if (!h->sum.events && h->sum.last_seq < 0) {
		h->m.ts_base = h->m.ts = h->census.row_ts = ts;
		h->sum.first_ts = ts;
	}
	if (ts < h->m.ts) {
		h->sum.out_of_order++;
		if (h->m.ts - ts > OUT_OF_ORDER_NOTE_NS) {
			r = hanomaly(h, MSC_ANOMALY_OUT_OF_ORDER, 0, 0, 0, 0, 0,
				     "timestamp %llu is %llu ns before the previous event's",
				     (unsigned long long)ts, (unsigned long long)(h->m.ts - ts));
			if (r)
				return r;
		}
		ts = h->m.ts;
	}
	r = hcensus_flush(h, ts);
	if (!r)
		r = hphase_tick(h, ts, ev);
	if (r)
		return r;
	h->m.ts = ts;
	h->cur_seq = (int64_t)ev->seq;
	if (h->st.nr_npf)
		npf_settle(h, ev);
	r = hvm_event(h, ev, hphase_vm_begins);
	if (!r)
		r = hphase_event(h, ev);
	if (!r)
		r = apply(h, ev);
	if (!r)
		r = hphase_commit(h);
	if (r)
		return r;
	hvm_commit(h, ev);
	h->sum.events++;
	h->sum.last_seq = (int64_t)ev->seq;
	h->sum.last_ts = ts;
	/* what the next event may go as steadily (h->det.steady is the detector's word) */
	if (h->opts.per_event || (ev->type != MSC_EV_SPTE_CHANGED && !hev_fault(ev))) {
		h->det.steady = 0;
		return 0;
	}
	h->det.steady_pid = ev->pid;
	h->det.steady_class = MSC_CLASS_NR;	/* after a fault, no SPTE change goes as it did */
	if (ev->type == MSC_EV_SPTE_CHANGED) {
		h->det.steady_class = ev->spte.class;
		h->det.steady_level = ev->spte.level;
	}
	return 0;
}

/* @ev to the part (or parts) it is of: the front's placement (place.c) */
static __attribute__((noinline)) int feed_placed(struct msc_history *h,
						 const struct msc_event *ev)
{
	int part = hplace_event(h->place, h->parts, h->nr_parts, ev);
	int r = 0;

	if (part == HPLACE_NEW) {
		r = part_new(h, &part);
		if (!r)
			hplace_created(h->place, ev, (uint32_t)part);
	}
	if (part == HPLACE_ALL) {
		for (uint32_t i = 0; i < h->nr_parts && !r; i++)
			r = feed(h->parts[i], ev);
		h->dup_events += h->nr_parts - 1;
		return r;
	}
	return r ?: part < 0 ? part : feed(h->parts[part], ev);
}

/**
 * msc_history_feed - apply one event
 * @h: the history
 * @ev: the next event of the capture, classified (its seq is the stored
 *	seq); events at or before the resume point are skipped
 *
 * Returns 0 or a negative error; after an error every call returns it.
 */
int msc_history_feed(struct msc_history *h, const struct msc_event *ev)
{
	int r;

	if (h->err)
		return h->err;
	if ((int64_t)ev->seq <= h->fed_seq)
		return 0;
	h->fed_seq = (int64_t)ev->seq;
	/* one part: only an ioctl can make another (or, where the task table names
	 * processes, a process whose VM predates the capture) */
	if (h->nr_parts == 1 && ev->type != MSC_EV_IOCTL && !h->by_process)
		r = feed(h, ev);
	else
		r = feed_placed(h, ev);
	if (r)
		h->err = r;
	return r;
}

/**
 * msc_history_capture_ended - no event follows the last one fed
 *
 * What waits for a later event to be decided (an NPF exit's outcome) is
 * decided at msc_history_finish() instead of kept for a resumed analysis.
 */
void msc_history_capture_ended(struct msc_history *h)
{
	for (uint32_t i = 0; i < h->nr_parts; i++)
		h->parts[i]->det.ended = true;
}

/**
 * msc_history_finish - write what is still in memory and the resume point
 *
 * Open intervals, phases, regions, the last census and activity rows, the
 * analysis row, and the indexes.  The caller commits (the store's
 * transaction is left open for import's own commit) -- msc_history_analyze()
 * does.  Returns 0 or a negative error.
 */
/* What one part has in memory, settled: its phases ready to write. */
static int part_finish(struct msc_history *h)
{
	int r;

	extended_count(h);
	r = range_apply(h);
	hphase_stretch_end(h);
	if (!r && h->det.ended) {
		npf_flush(h);
		r = hphase_capture_end(h);
	}
	if (!r)
		r = hcensus_flush(h, MSC_TS_OPEN);
	if (!r)
		r = hphase_tick(h, h->m.ts + hact_bucket_ns(h), NULL);
	if (!r)
		hphase_finish(h);
	if (!r)
		r = hdirty_flush(h);
	return r ?: hmodel_close_all(&h->m);
}

static int by_start(const void *a, const void *b)
{
	const struct hphase *x = a, *y = b;

	if (x->p.start_seq != y->p.start_seq)
		return x->p.start_seq < y->p.start_seq ? -1 : 1;
	return x->p.vm < y->p.vm ? -1 : x->p.vm > y->p.vm;
}

static int by_id(const void *a, const void *b)
{
	const struct msc_vm *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Write phases @ph (the rows of table phase) and VMs @vm. */
static int write_phases(struct msc_history *f, const struct hphase *ph, size_t nr_ph,
			const struct msc_vm *vm, size_t nr_vm)
{
	struct msc_phase *p = NULL;
	bool *open = NULL;
	int r = hphase_rows(ph, nr_ph, &p, &open);

	if (!r)
		r = hstore_put_phases(f->hs, f->capture_id, p, open, nr_ph) ?:
		    hstore_put_vms(f->hs, f->capture_id, vm, nr_vm);
	free(p);
	free(open);
	return r;
}

/*
 * The phases and VMs of every part.  Several parts' phases are numbered
 * again in the order they began (ids are a part's own while it runs).
 */
static int put_phases(struct msc_history *f)
{
	struct hphase *ph;
	struct msc_vm *vm;
	size_t nr_ph = 0, nr_vm = 0;
	int r;

	if (f->nr_parts == 1)
		return write_phases(f, f->det.phases, f->det.nr_phases, f->det.vms, f->det.nr_vms);
	for (uint32_t i = 0; i < f->nr_parts; i++) {
		nr_ph += f->parts[i]->det.nr_phases;
		nr_vm += f->parts[i]->det.nr_vms;
	}
	ph = malloc((nr_ph ?: 1) * sizeof(*ph));
	vm = malloc((nr_vm ?: 1) * sizeof(*vm));
	r = ph && vm ? 0 : -ENOMEM;
	nr_ph = nr_vm = 0;
	for (uint32_t i = 0; i < f->nr_parts && !r; i++) {
		const struct msc_history *h = f->parts[i];

		memcpy(ph + nr_ph, h->det.phases, h->det.nr_phases * sizeof(*ph));
		memcpy(vm + nr_vm, h->det.vms, h->det.nr_vms * sizeof(*vm));
		nr_ph += h->det.nr_phases;
		nr_vm += h->det.nr_vms;
	}
	if (!r) {
		qsort(ph, nr_ph, sizeof(*ph), by_start);
		for (size_t i = 0; i < nr_ph; i++)
			ph[i].p.id = (int64_t)i + 1;
		qsort(vm, nr_vm, sizeof(*vm), by_id);
		r = write_phases(f, ph, nr_ph, vm, nr_vm);
	}
	free(ph);
	free(vm);
	return r;
}

/**
 * msc_history_finish - write what is still in memory and the resume point
 *
 * Open intervals, phases, regions, the last census and activity rows, the
 * analysis row, and the indexes.  The caller commits (the store's
 * transaction is left open for import's own commit) -- msc_history_analyze()
 * does.  An analysis of several VMs at once, or placed by process (which
 * process owns which part is not kept), keeps no state to resume from:
 * the next run starts over.  Returns 0 or a negative error.
 */
int msc_history_finish(struct msc_history *h)
{
	struct msc_history_summary sum;
	int r = h->err;

	for (uint32_t i = 0; i < h->nr_parts && !r; i++)
		r = part_finish(h->parts[i]);
	if (!r)
		r = put_phases(h);
	if (!r)
		r = hstore_build_regions(h->hs, h->capture_id);
	msc_history_get_summary(h, &sum);
	sum.census_flags = 0;	/* as the parts keep it: their last rows' */
	for (uint32_t i = 0; i < h->nr_parts; i++)
		sum.census_flags |= h->parts[i]->sum.census_flags;
	if (!r)
		r = hstore_save_analysis(h->hs, &sum, h->nr_parts == 1 && !h->by_process ?
					 &h->st : NULL, sizeof(h->st));
	if (!r)
		r = hstore_finish(h->hs, !h->opts.defer_indexes);
	if (r)
		h->err = r;
	return r;
}

static void part_summary(const struct msc_history *h, struct msc_history_summary *ret)
{
	*ret = h->sum;
	ret->intervals += h->m.count.intervals;
	ret->frozen_completed += h->m.count.frozen_completed;
	ret->resyncs += h->m.count.resyncs;
	ret->ad_resyncs += h->m.count.ad_resyncs;
	ret->synthesized += h->m.count.synthesized;
	ret->ranged += h->m.count.ranged;
	ret->census_flags = h->census.flags | (h->tdp_mmu ? 0 : MSC_CENSUS_APPROX) |
			    (h->m.after_lost ? MSC_CENSUS_AFTER_LOST : 0);
}

/*
 * msc_history_get_summary - what the analysis counted so far: its parts'
 * counts added up (a gap in the trace, which each part has, once)
 */
void msc_history_get_summary(const struct msc_history *h, struct msc_history_summary *ret)
{
	part_summary(h, ret);
	for (uint32_t i = 1; i < h->nr_parts; i++) {
		struct msc_history_summary s;

		part_summary(h->parts[i], &s);
		if (s.events && (!ret->events || s.first_ts < ret->first_ts))
			ret->first_ts = s.first_ts;
		ret->last_ts = max(ret->last_ts, s.last_ts);
		ret->events += s.events;
		ret->spte_events += s.spte_events;
		ret->resyncs += s.resyncs;
		ret->ad_resyncs += s.ad_resyncs;
		ret->synthesized += s.synthesized;
		ret->fast_applied += s.fast_applied;
		ret->frozen_completed += s.frozen_completed;
		ret->out_of_order += s.out_of_order;
		ret->anomalies += s.anomalies;
		ret->intervals += s.intervals;
		ret->tdp_mmu |= s.tdp_mmu;
		ret->census_flags |= s.census_flags;
		ret->steady += s.steady;
		ret->ranged += s.ranged;
	}
	ret->events -= h->dup_events;
	ret->last_seq = h->fed_seq;
	ret->unplaced = hplace_unplaced(h->place);
}

/* Free part @h's memory (not the store writer). */
static void part_free(struct msc_history *h)
{
	hmodel_free(&h->m);
	free(h->det.phases);
	free(h->det.vms);
}

/** msc_history_close - free the history; NULL is fine.  Nothing is written. */
void msc_history_close(struct msc_history *h)
{
	if (!h)
		return;
	for (uint32_t i = 1; i < h->nr_parts; i++) {
		part_free(h->parts[i]);
		free(h->parts[i]);
	}
	free(h->parts);
	hplace_free(h->place);
	part_free(h);
	hstore_close(h->hs);
	free(h);
}

struct msc_history_tap {
	struct msc_store *apart;	/* where the analysis goes, or NULL: the events' */
	struct msc_history *h;		/* NULL until the capture begins */
	struct msc_history_opts opts;
};

/**
 * msc_history_tap_new - analysis that follows a capture as it is stored
 * @apart: a new database of its own for the analysis (merged in later with
 *	msc_history_merge()), or NULL: the events' database
 * @opts: options or NULL
 * @ret: the tap; msc_history_tap_tap() is what the pipeline calls
 *
 * Returns 0 or -ENOMEM.
 */
int msc_history_tap_new(struct msc_store *apart, const struct msc_history_opts *opts,
			struct msc_history_tap **ret)
{
	struct msc_history_tap *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	t->apart = apart;
	if (opts)
		t->opts = *opts;
	*ret = t;
	return 0;
}

/*
 * The capture row is written and its host final: open the history.  Apart,
 * the analysis database gets the capture's row under the same id first, so
 * the analysis tables can join the events' later.
 */
static int tap_begin(void *ctx, const struct msc_tap_begin *b)
{
	struct msc_history_tap *t = ctx;
	struct msc_store *s = t->apart ? t->apart : b->store;
	int64_t id;
	int r;

	if (t->apart) {
		r = msc_store_begin_capture(t->apart, b->info, b->host, &id);
		if (r)
			return r;
		if (id != b->capture_id)
			return -EINVAL;	/* only a new database's first capture can be apart */
	}
	return msc_history_open(s, b->capture_id, b->host, &t->opts, &t->h);
}

static int tap_event(void *ctx, const struct msc_event *ev)
{
	struct msc_history_tap *t = ctx;

	return msc_history_feed(t->h, ev);
}

static const struct msc_tap_ops history_tap_ops = {
	.begin = tap_begin,
	.event = tap_event,
};

/** msc_history_tap_tap - the tap to give the ingest pipeline */
struct msc_tap msc_history_tap_tap(struct msc_history_tap *t)
{
	return (struct msc_tap){ .ops = &history_tap_ops, .ctx = t };
}

/**
 * msc_history_tap_finish - finish the analysis once the capture is stored
 * @t: the tap
 * @ret: what the analysis counted of the events (all zero when the
 *	capture never began), or NULL
 *
 * Returns 0 or a negative error.
 */
int msc_history_tap_finish(struct msc_history_tap *t, struct msc_history_summary *ret)
{
	int r = 0;

	if (ret)
		memset(ret, 0, sizeof(*ret));
	if (!t->h)
		return 0;
	if (ret)
		msc_history_get_summary(t->h, ret);
	msc_history_capture_ended(t->h);	/* import and record end here */
	r = msc_history_finish(t->h);
	msc_history_close(t->h);
	t->h = NULL;
	return r;
}

/**
 * msc_history_by_process - analyze the capture again when its task table
 *	names processes, which the inline analysis could not know
 * @capture_id: the capture (<= 0: the last)
 * @ret: what the analysis counted, when it ran again (may be NULL)
 *
 * import and record store who each thread is (its process: the kernel's
 * saved tgids) after the events, so their inline analysis placed none by
 * process (place.c).  Where two processes or more are named, the capture's
 * VMs may predate it, one per process: the capture is analyzed again from
 * the start.  Returns 1 when it was, 0 when there was no need, or a
 * negative error.
 */
int msc_history_by_process(struct msc_store *s, int64_t capture_id,
			   struct msc_history_summary *ret)
{
	const struct msc_history_opts opts = { .rebuild = true };
	struct msc_capture_row cap;
	struct hplace *p = NULL;
	uint32_t procs = 0;
	int r = find_capture(s, capture_id, &cap);

	if (!r)
		r = hplace_new(&p);
	if (!r)
		r = load_processes(s, cap.id, p);
	if (!r)
		procs = hplace_processes(p);
	hplace_free(p);
	if (r || procs < 2)
		return r;
	r = msc_history_analyze(s, cap.id, &opts, ret);
	return r ?: 1;
}

/**
 * msc_history_tap_checkpoint - write the phases and VMs found so far, the
 *	open ones as they stand, for readers while the capture goes on
 *	(record --metrics-dir); their dirty rates and regions come at the end.
 *	The caller commits.  Returns 0 or a negative error.
 */
int msc_history_tap_checkpoint(struct msc_history_tap *t)
{
	return t->h && !t->h->err ? put_phases(t->h) : 0;
}

/** msc_history_tap_free - free the tap (and a history not finished); NULL is fine */
void msc_history_tap_free(struct msc_history_tap *t)
{
	if (!t)
		return;
	msc_history_close(t->h);
	free(t);
}

/*
 * The events of [first, last] to msc_history_feed(), read ahead on a thread
 * where the store allows (msc_store_readahead_open()), else here.
 */
static int feed_range(struct msc_history *h, struct msc_store *s, int64_t first, int64_t last)
{
	struct msc_store_readahead *ra = NULL;
	struct msc_event_cursor *cur = NULL;
	const struct msc_event *ev;
	struct msc_event buf;
	uint64_t n = 0;
	int r;

	r = msc_store_readahead_open(s, first, last, &ra);
	if (r == -EAGAIN)
		r = msc_store_events_open(s, first, last, &cur);
	while (!r) {
		if (ra) {
			r = msc_store_readahead_next(ra, &ev);
		} else {
			r = msc_store_events_next(cur, &buf);
			ev = &buf;
		}
		if (r != 1)
			break;
		r = msc_history_feed(h, ev);
		if (!r && ++n % ANALYZE_COMMIT_EVERY == 0)
			r = hstore_commit(h->hs);
	}
	msc_store_readahead_close(ra);
	msc_store_events_close(cur);
	return r;
}

/**
 * msc_history_analyze - analyze the events of a capture not analyzed yet
 * @s: the store, writable
 * @capture_id: the capture (<= 0: the last)
 * @opts: options or NULL
 * @ret: what the analysis counted (may be NULL)
 *
 * Returns 0, MSC_ERR_NO_KVM when the capture has no kvm events at all, or
 * a negative error.
 */
int msc_history_analyze(struct msc_store *s, int64_t capture_id,
			const struct msc_history_opts *opts, struct msc_history_summary *ret)
{
	struct msc_capture_row cap;
	struct msc_history *h = NULL;
	int r;

	r = find_capture(s, capture_id, &cap);
	if (!r)
		r = msc_history_open(s, cap.id, NULL, opts, &h);
	if (r)
		return r;
	if (cap.first_seq >= 0)
		r = feed_range(h, s, max(cap.first_seq, msc_history_resume_seq(h)), cap.last_seq);
	if (!r && cap.complete)
		msc_history_capture_ended(h);
	if (!r)
		r = msc_history_finish(h);
	if (!r)
		r = hstore_commit(h->hs);
	if (ret)
		msc_history_get_summary(h, ret);
	msc_history_close(h);
	return r;
}
