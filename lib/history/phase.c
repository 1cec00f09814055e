// SPDX-License-Identifier: GPL-2.0-only
/*
 * Phases: the workload's own (phase=NAME begin/end markers) and the
 * dirty-log phases detected from the events, with what each cost.
 *
 * Dirty-log phases on a stock kernel are sweeps: the changes one task that
 * is not a vCPU (the ioctl caller) makes in one call.  A sweep of splits /
 * write-protects / clear-dirty is an enable when dirty logging is off, a
 * harvest when it is on; a sweep of 2M+ subtree zaps or promotions is a
 * disable.  What ends a sweep is what the kernel does, never a pause (see
 * docs/kvm-mmu.md, "Telling the steps apart without a clock"): its walk
 * coming back (walk_event()), its task leaving the kernel (a marker, an
 * ioctl), work of another kind or task, a disable's task doing something
 * else; 7.x traces a removed table's children before the change that opens
 * the disable or teardown, which then begins at the removal (prelude()).
 *
 * Where the KVM ioctls are traced (syscalls:sys_enter/exit_ioctl, stable ABI
 * on every kernel) a dirty-log phase is the ioctl: it starts at the enter
 * and ends at the exit, and its kind comes from the MMU work inside it
 * (KVM_GET/CLEAR_DIRTY_LOG: harvest; a memslot update: enable for splits
 * and write-protection, disable for zapped or recovered tables, and a
 * memslot phase for none, which the first harvest after it calls the enable
 * it was under manual protect).  The memslots of one step (an enable's or
 * disable's updates, one sync's GETs or CLEARs) are one phase.
 *
 * The VM going away (the top-level tables zapped, or the VMM's own task
 * unmapping while dirty logging is off) is a teardown phase: a re-promotion
 * still open then ends where it begins, not huge again.  A kprobe on the
 * KVM function that starts the work makes the phase's start and kind
 * exact.  The companion patch's tracepoints make phases exact: _begin/_end
 * bound an enable or disable, a harvest event ends its harvest and says how
 * long it took.  After a disable, re-promotion lasts until every 2M region
 * that was huge before is huge again.  Each phase says how exact its bounds
 * are (phase_bounds()).
 *
 * Every event is counted by at most one kernel phase: a dirty-log step
 * counts its task's work, the vCPUs' pass theirs (counts()).
 *
 * Costs of a dirty-log phase are the events between its first and last
 * activity: events after the last activity wait in `pending` and join the
 * phase only if more activity follows.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "local.h"
#include "mmuscope/util.h"

/* The slot of @pid in the vCPU set: its own, or the free one it would take. */
static uint32_t vcpu_slot(const struct msc_history *h, int32_t pid)
{
	uint32_t i = (uint32_t)pid * 2654435761u;

	for (;; i++) {
		int32_t p = h->st.vcpu_pids[i & (HVCPU_SLOTS - 1)];

		if (p == pid || !p)
			return i & (HVCPU_SLOTS - 1);
	}
}

bool hphase_is_vcpu(const struct msc_history *h, int32_t pid)
{
	return pid > 0 && h->st.vcpu_pids[vcpu_slot(h, pid)] == pid;
}

/* No room to learn another vCPU: a fault of an unknown task may be one. */
bool hphase_vcpus_full(const struct msc_history *h)
{
	return h->st.nr_vcpu_pids >= HVCPU_SLOTS / 2;
}

static void cost_add(struct hcost *c, unsigned int what, uint64_t n)
{
	switch (what) {
	case HCOST_SPTE: c->count.spte_changes += n; break;
	case HCOST_SPLIT: c->count.splits += n; break;
	case HCOST_SPLIT_FAIL: c->count.split_failures += n; break;
	case HCOST_PAGES_SPLIT: c->count.pages_split += n; break;
	case HCOST_PROMOTE: c->count.pages_promoted += n; break;
	case HCOST_SYNTH: c->count.children_synthesized += n; break;
	case HCOST_FAULT_SLOW: c->count.faults_slow += n; break;
	case HCOST_FAULT_FAST: c->count.faults_fast += n; break;
	case HCOST_FAULT_SPURIOUS: c->count.faults_spurious += n; break;
	case HCOST_FLUSH: c->count.flushes += n; break;
	case HCOST_ZAP: c->count.zaps += n; break;
	case HCOST_REFAULT: c->count.refaults += n; break;
	case HCOST_FIXED: c->count.pages_fixed += n; break;
	default: break;
	}
}

static void cost_merge(struct hcost *dst, const struct hcost *src)
{
	dst->count.spte_changes += src->count.spte_changes;
	for (int i = 0; i < MSC_CLASS_NR; i++)
		dst->count.by_class[i] += src->count.by_class[i];
	dst->count.splits += src->count.splits;
	dst->count.split_failures += src->count.split_failures;
	dst->count.pages_split += src->count.pages_split;
	for (int l = 2; l <= 3; l++)
		dst->count.pages_split_level[l] += src->count.pages_split_level[l];
	dst->count.pages_promoted += src->count.pages_promoted;
	dst->count.children_synthesized += src->count.children_synthesized;
	dst->count.faults_slow += src->count.faults_slow;
	dst->count.faults_fast += src->count.faults_fast;
	dst->count.faults_spurious += src->count.faults_spurious;
	dst->count.flushes += src->count.flushes;
	dst->count.zaps += src->count.zaps;
	dst->count.refaults += src->count.refaults;
	dst->count.pages_fixed += src->count.pages_fixed;
	dst->count.pages_collected += src->count.pages_collected;
	if (src->count.gfn_first <= src->count.gfn_last) {
		dst->count.gfn_first = min(dst->count.gfn_first, src->count.gfn_first);
		dst->count.gfn_last = dst->count.gfn_first <= dst->count.gfn_last ? max(dst->count.gfn_last, src->count.gfn_last)
								: src->count.gfn_last;
	}
}

static void cost_reset(struct hcost *c)
{
	memset(c, 0, sizeof(*c));
	c->count.gfn_first = UINT64_MAX;
}

/* GFNs @first to @last were changed */
static void cost_gfns(struct hcost *c, uint64_t first, uint64_t last)
{
	if (c->count.gfn_first > c->count.gfn_last) {
		c->count.gfn_first = first;
		c->count.gfn_last = last;
	} else {
		c->count.gfn_first = min(c->count.gfn_first, first);
		c->count.gfn_last = max(c->count.gfn_last, last);
	}
}

/* A leaf's dirty state collected: protected again, or its D bit cleared (PML). */
static bool collects(unsigned int class)
{
	return class == MSC_CLASS_WRITE_PROTECT || class == MSC_CLASS_CLEAR_DIRTY;
}

static void cost_event(struct hcost *c, const struct msc_event *ev, unsigned int what, uint64_t n)
{
	cost_add(c, what, n);
	if (what == HCOST_PAGES_SPLIT && ev && ev->type == MSC_EV_SPTE_CHANGED &&
	    (ev->spte.level == 2 || ev->spte.level == 3))
		c->count.pages_split_level[ev->spte.level] += (int64_t)n;
	if (what == HCOST_SPTE && ev && ev->type == MSC_EV_SPTE_CHANGED) {
		c->count.by_class[ev->spte.class < MSC_CLASS_NR ? ev->spte.class : MSC_CLASS_OTHER]++;
		cost_gfns(c, ev->spte.gfn, ev->spte.gfn + msc_level_pages(ev->spte.level) - 1);
		if (collects(ev->spte.class))
			c->count.pages_collected += msc_level_pages(ev->spte.level);
	}
}

static void cost_changes(struct hcost *c, const struct hchanges *ch)
{
	cost_add(c, HCOST_SPTE, ch->n);
	c->count.by_class[ch->class < MSC_CLASS_NR ? ch->class : MSC_CLASS_OTHER] += (int64_t)ch->n;
	cost_gfns(c, ch->gfn_first, ch->gfn_last);
	if (collects(ch->class))
		c->count.pages_collected += ch->n * msc_level_pages(ch->level);
	if (ch->what >= 0)
		cost_add(c, (unsigned int)ch->what, ch->n);
}

/*
 * Does phase @i end at its last activity, its costs since waiting in
 * `pending' for the next (the open dirty-log phase, the vCPUs' pass)?
 */
static bool trails(const struct msc_history *h, size_t i)
{
	return (int32_t)i == h->st.cur_dirty || (int32_t)i == h->st.cur_pass;
}

/*
 * Does open phase @i count the work of a vCPU (@vcpu) or of another task?
 * The vCPUs' pass counts only theirs and a dirty-log step only the other
 * tasks' (its ioctl's): no event is counted by two kernel phases.
 */
static bool counts(const struct msc_history *h, size_t i, bool vcpu)
{
	if ((int32_t)i == h->st.cur_pass)
		return vcpu;
	if ((int32_t)i == h->st.cur_dirty)
		return !vcpu;
	return true;
}

#define PID_NONE (-1)		/* work of no task: every open phase counts it */
#define PID_VCPUS (-2)		/* work of several vCPUs */

/*
 * @c, the work of task @pid (or PID_*), a vCPU or not (@vcpu), into the
 * open phases that count it (the trailing ones' pending) and the prelude.
 */
static void cost_attribute(struct msc_history *h, int32_t pid, bool vcpu, const struct hcost *c)
{
	for (size_t i = 0; i < h->det.nr_phases; i++) {
		struct hphase *ph = &h->det.phases[i];

		if (ph->open && (pid == PID_NONE || counts(h, i, vcpu)))
			cost_merge(trails(h, i) ? &ph->pending : &ph->cost, c);
	}
	if (h->st.pre_open && pid == h->st.pre_pid)
		cost_merge(&h->st.pre, c);
}

/** hphase_cost - count @n of @what for the open phases and the activity table */
void hphase_cost(struct msc_history *h, const struct msc_event *ev, unsigned int what,
		 uint64_t n)
{
	int32_t pid = ev ? ev->pid : PID_NONE;
	bool vcpu;

	hact_count(&h->activity, h->st.act, pid, what, n);
	if (h->det.stretch) {
		cost_event(&h->det.batch, ev, what, n);
		return;
	}
	vcpu = pid == h->det.ev_pid ? h->det.ev_vcpu : pid >= 0 && hphase_is_vcpu(h, pid);
	for (size_t i = 0; i < h->det.nr_phases; i++) {
		struct hphase *ph = &h->det.phases[i];

		if (ph->open && (pid == PID_NONE || counts(h, i, vcpu)))
			cost_event(trails(h, i) ? &ph->pending : &ph->cost, ev, what, n);
	}
	if (h->st.pre_open && pid == h->st.pre_pid)
		cost_event(&h->st.pre, ev, what, n);
}

/** hphase_cost_changes - what hphase_cost() counts for each of the changes @c, at once */
void hphase_cost_changes(struct msc_history *h, const struct hchanges *c)
{
	struct hcost one;

	hact_count(&h->activity, h->st.act, c->pid, HCOST_SPTE, c->n);
	if (c->what >= 0)
		hact_count(&h->activity, h->st.act, c->pid, (unsigned int)c->what, c->n);
	if (h->det.stretch) {
		cost_changes(&h->det.batch, c);
		return;
	}
	cost_reset(&one);
	cost_changes(&one, c);
	cost_attribute(h, c->pid, c->pid >= 0 && hphase_is_vcpu(h, c->pid), &one);
}

/*
 * The stretch's costs so far go where hphase_cost() would have put them
 * one by one.  A stretch is the vCPUs' (a pass's) or one task's (a
 * sweep's, h->det.steady_pid).  Costs are sums and a GFN range, so the order
 * they come in does not matter.
 */
static void stretch_attribute(struct msc_history *h)
{
	bool pass = h->det.stretch == HSTEADY_PASS;

	if (!h->det.stretch)
		return;
	cost_attribute(h, pass ? PID_VCPUS : h->det.steady_pid, pass, &h->det.batch);
	cost_reset(&h->det.batch);
}

static struct hphase *phase_new(struct msc_history *h, enum msc_phase_kind kind,
				enum msc_phase_source source, const char *name,
				const struct msc_event *ev)
{
	struct hphase *ph;

	stretch_attribute(h);
	if (h->det.nr_phases == h->det.alloc_phases) {
		size_t n = h->det.alloc_phases ? 2 * h->det.alloc_phases : 16;
		struct hphase *p = realloc(h->det.phases, n * sizeof(*p));

		if (!p)
			return NULL;
		h->det.phases = p;
		h->det.alloc_phases = n;
	}
	ph = &h->det.phases[h->det.nr_phases];
	memset(ph, 0, sizeof(*ph));
	h->det.phase_turns++;
	ph->open = true;
	ph->p.id = (int64_t)++h->det.nr_phases;
	ph->p.vm = hvm_current(h);
	h->st.vm_used = 1;
	ph->p.kind = (uint8_t)kind;
	ph->p.source = (uint8_t)source;
	snprintf(ph->p.name, sizeof(ph->p.name), "%s", name ? name : msc_phase_kind_name(kind));
	ph->p.start_ts = ph->p.end_ts = h->m.ts;
	ph->p.start_seq = ph->p.end_seq = ev ? (int64_t)ev->seq : h->cur_seq;
	ph->p.to_huge_ns = -1;
	/* the call began after the event before this one */
	ph->p.slack_start_ns = h->m.ts - min(h->det.prev_ts, h->m.ts);
	ph->split_integral0 = h->st.split_integral;
	hcensus_total(h, &ph->p.before);
	ph->p.after = ph->p.before;
	cost_reset(&ph->cost);
	cost_reset(&ph->pending);
	return ph;
}

/* The phase's end moves to now; what it cost is what was counted so far. */
static void phase_settle(struct msc_history *h, struct hphase *ph)
{
	ph->p.end_ts = h->m.ts;
	ph->p.end_seq = h->cur_seq;
	ph->p.region_split_ns = h->st.split_integral - ph->split_integral0;
	ph->cell_mark = hcensus_updates(h);
	hcensus_total(h, &ph->p.after);
}

/*
 * @ph is over: where no cell changed since its end, the memory map's rows
 * are made exact there (its per-region coverage is read from them).
 */
static int phase_closed(struct msc_history *h, struct hphase *ph)
{
	stretch_attribute(h);
	h->det.phase_turns++;
	ph->open = false;
	if (ph->cell_mark != hcensus_updates(h) || h->m.loading)
		return 0;
	return hcensus_cells_exact(h, ph->p.end_ts);
}

static struct hphase *cur_dirty(struct msc_history *h)
{
	return h->st.cur_dirty >= 0 ? &h->det.phases[h->st.cur_dirty] : NULL;
}

/* The last dirty-log phase, open or not. */
static struct hphase *last_dirty(struct msc_history *h)
{
	return h->st.last_dirty >= 0 ? &h->det.phases[h->st.last_dirty] : NULL;
}

static int mark_awaiting_now(void *ctx, struct hnode *n2, unsigned int i, struct hcell *c)
{
	struct msc_history *h = ctx;

	if ((c->flags & HCELL_WAS_HUGE) && c->kind != MSC_REGION_2M && c->kind != MSC_REGION_1G &&
	    !(c->flags & HCELL_AWAITING)) {
		c->flags |= HCELL_AWAITING;
		h->st.awaiting++;
	}
	return 0;
}

static void set_to_huge(struct msc_history *h, int64_t ns)
{
	for (size_t i = 0; i < h->det.nr_phases; i++)
		if (h->det.phases[i].p.kind == MSC_PHASE_DISABLE &&
		    h->det.phases[i].p.start_ts == h->st.disable_start)
			h->det.phases[i].p.to_huge_ns = ns;
}

static void close_repromote(struct msc_history *h, bool done)
{
	struct hphase *rp;

	if (h->st.cur_repromote < 0)
		return;
	stretch_attribute(h);	/* a cell became huge in a stretch: what it cost so far */
	rp = &h->det.phases[h->st.cur_repromote];
	rp->open = false;
	phase_settle(h, rp);
	if (done) {
		rp->p.end_ts = h->st.huge_again_ts;
		rp->p.to_huge_ns = (int64_t)(h->st.huge_again_ts - h->st.disable_start);
		set_to_huge(h, rp->p.to_huge_ns);
	}
	h->st.cur_repromote = -1;
}

/*
 * The step @ph of the VM's dirty logging (an enable, a disable, a teardown)
 * began: the re-promotion @rp (an index, -1: none) that was open ended
 * there, not huge again, where the step began (its ioctl's enter, its
 * prelude), not where its work showed.
 */
static void repromote_cut(struct msc_history *h, int32_t rp, const struct hphase *ph)
{
	struct hphase *q = rp >= 0 ? &h->det.phases[rp] : NULL;

	if (!q || q->p.end_seq < ph->p.start_seq)
		return;
	q->p.end_seq = max(q->p.start_seq, ph->p.start_seq - 1);
	q->p.end_ts = max(q->p.start_ts, min(q->p.end_ts, ph->p.start_ts));
	q->p.after = ph->p.before;
	q->p.region_split_ns = ph->split_integral0 - min(q->split_integral0, ph->split_integral0);
}

/*
 * Close the open dirty-log phase.  A disable hands over to re-promotion,
 * which inherits the events after the disable's last activity.
 */
static int close_dirty(struct msc_history *h, const struct msc_event *ev)
{
	struct hphase *ph = cur_dirty(h), *rp;
	struct msc_census dis_after;
	struct hcost tail;
	uint64_t dis_end, dis_integral;
	int64_t dis_seq;
	int r;

	if (!ph)
		return 0;
	h->st.cur_dirty = -1;
	r = phase_closed(h, ph);
	if (r || ph->p.kind != MSC_PHASE_DISABLE)
		return r;
	dis_end = ph->p.end_ts;
	if (!h->sum.spte_events && !h->sum.intervals && !h->m.count.intervals)
		return 0;	/* no SPTE seen (record --light): when it is huge again is not known */
	if (!h->st.awaiting && h->st.huge_again_ts <= dis_end) {
		/*
		 * Every region came back inside the disable (in-place recovery,
		 * 6.13+) or none was split: there is no re-promotion, the
		 * disable itself is the time to huge.  (A disable closes when a
		 * later event shows it is over, so the regions may also have
		 * come back after it: that is a re-promotion, closed below.)
		 */
		if (h->st.huge_again_ts < h->st.disable_start)
			h->st.huge_again_ts = dis_end;
		set_to_huge(h, (int64_t)(h->st.huge_again_ts - h->st.disable_start));
		return 0;
	}
	dis_seq = ph->p.end_seq;
	dis_after = ph->p.after;
	dis_integral = ph->split_integral0 + ph->p.region_split_ns;
	tail = ph->pending;
	rp = phase_new(h, MSC_PHASE_REPROMOTE, MSC_PHASE_SRC_INFERRED, NULL, ev);	/* moves ph */
	if (!rp)
		return -ENOMEM;
	/* re-promotion starts where the disable's last activity left off */
	rp->p.start_ts = dis_end;
	rp->p.start_seq = dis_seq;
	rp->p.before = dis_after;
	rp->split_integral0 = dis_integral;
	rp->cost = tail;
	rp->cost.count.gfn_first = min(rp->cost.count.gfn_first, UINT64_MAX);
	h->st.cur_repromote = (int32_t)(rp->p.id - 1);
	if (!h->st.awaiting)
		close_repromote(h, true);	/* huge again already, after the disable */
	return 0;
}

/**
 * hphase_cell_huge - a 2M cell became (or stopped being) mapped huge
 */
void hphase_cell_huge(struct msc_history *h, struct hcell *c, bool huge)
{
	if (huge) {
		c->flags |= HCELL_WAS_HUGE;
		c->flags &= ~HCELL_ZAPPED;
		if (c->flags & HCELL_SPLIT) {
			c->flags &= ~HCELL_SPLIT;
			h->st.split_cells--;
		}
		if (c->flags & HCELL_AWAITING) {
			c->flags &= ~HCELL_AWAITING;
			if (h->st.awaiting && !--h->st.awaiting && !h->m.loading) {
				h->st.huge_again_ts = h->m.ts;
				set_to_huge(h, (int64_t)(h->m.ts - h->st.disable_start));
				close_repromote(h, true);
			}
		}
	} else if ((c->flags & (HCELL_WAS_HUGE | HCELL_SPLIT)) == HCELL_WAS_HUGE) {
		c->flags |= HCELL_SPLIT;
		c->split_since = h->m.ts;
		h->st.split_cells++;
	}
}

/* A new VM: a cell is huge again for its memory only, split only once it was huge. */
static int forget_cell(void *ctx, struct hnode *n2, unsigned int i, struct hcell *c)
{
	c->flags &= ~(HCELL_SPLIT | HCELL_AWAITING | HCELL_ZAPPED);
	if (c->kind != MSC_REGION_2M && c->kind != MSC_REGION_1G)
		c->flags &= ~HCELL_WAS_HUGE;
	return 0;
}

/* @ph is a phase of @kind after all, named for it. */
static void set_kind(struct hphase *ph, enum msc_phase_kind kind)
{
	ph->p.kind = (uint8_t)kind;
	snprintf(ph->p.name, sizeof(ph->p.name), "%s", msc_phase_kind_name(kind));
}

/* @ph is now a phase of @kind: what dirty logging is, what a disable awaits. */
static int become(struct msc_history *h, struct hphase *ph, enum msc_phase_kind kind)
{
	set_kind(ph, kind);
	if (kind == MSC_PHASE_MEMSLOT)
		return 0;
	h->st.dirty_active = kind == MSC_PHASE_ENABLE || kind == MSC_PHASE_HARVEST;
	/* a harvest too: an enable with INITIALLY_SET does no work to be seen */
	if (h->st.dirty_active)
		h->st.vm_disabled = 0;
	if (kind != MSC_PHASE_DISABLE)
		return 0;
	h->st.vm_disabled = 1;
	h->st.disable_start = ph->p.start_ts;
	h->st.awaiting = 0;
	return hmodel_for_each_cell(&h->m, mark_awaiting_now, h);
}

static void learn_vcpu(struct msc_history *h, int32_t pid)
{
	uint32_t i = vcpu_slot(h, pid);

	if (pid <= 0 || h->st.vcpu_pids[i] == pid || hphase_vcpus_full(h))
		return;
	h->st.vcpu_pids[i] = pid;
	h->st.nr_vcpu_pids++;
	if (pid == h->det.ev_pid)
		h->det.ev_vcpu = true;
}

/* The vCPUs' pass is over: it ended at its last vCPU event. */
static int close_pass(struct msc_history *h)
{
	struct hphase *ph = h->st.cur_pass >= 0 ? &h->det.phases[h->st.cur_pass] : NULL;

	h->st.cur_pass = -1;
	return ph ? phase_closed(h, ph) : 0;
}

/* What the vCPUs' pass that begins now is, from the VM's dirty-log steps so far. */
static enum msc_phase_kind pass_kind(const struct msc_history *h)
{
	if (h->st.vm_disabled)
		return MSC_PHASE_REPOPULATE;
	return h->st.dirty_active ? MSC_PHASE_DIRTY_PASS : MSC_PHASE_POPULATE;
}

/*
 * A vCPU event (a fault, its KVM_RUN enter or exit @run): the pass goes on
 * to it, or begins with it.  A pass begun with KVM_RUN is bounded by the
 * ioctls; an exit with no pass open ends a run begun before the step.
 */
static int vcpu_event(struct msc_history *h, const struct msc_event *ev, bool run)
{
	struct hphase *ph;

	if (h->st.cur_pass < 0) {
		if (run && ev->ioctl.exit)
			return 0;
		ph = phase_new(h, pass_kind(h), run ? MSC_PHASE_SRC_IOCTL : MSC_PHASE_SRC_INFERRED,
			       NULL, ev);
		if (!ph)
			return -ENOMEM;
		ph->p.start_ts = min(ev->ts, h->m.ts);
		if (run)
			ph->p.exact = MSC_EXACT_START;
		h->st.cur_pass = (int32_t)(ph->p.id - 1);
	} else {
		ph = &h->det.phases[h->st.cur_pass];
		h->det.steady = HSTEADY_PASS;
	}
	/* a pass that ends at a vCPU's KVM_RUN exit ends exactly there */
	if (run && ev->ioctl.exit)
		ph->p.exact |= MSC_EXACT_END;
	else
		ph->p.exact &= ~MSC_EXACT_END;
	h->det.pass_hit = true;
	return 0;
}

/**
 * hphase_vm_begins - a new VM begins with @ev: what the one before had open
 *	ends, and its dirty-log state and huge-page memory are forgotten
 */
int hphase_vm_begins(struct msc_history *h, const struct msc_event *ev)
{
	int r = close_dirty(h, ev) ?: close_pass(h);

	if (r)
		return r;
	close_repromote(h, false);
	h->st.last_dirty = -1;
	h->st.dirty_active = h->st.vm_disabled = 0;
	h->st.grp_pending = h->st.ioctl_open = 0;
	h->st.faults_since_sweep = 0;
	h->st.awaiting = h->st.split_cells = 0;
	return hmodel_for_each_cell(&h->m, forget_cell, NULL);
}

/*
 * A task that is not a vCPU removes a table (@ev, its prepare_zap_page)
 * with no phase of such work of its own open: the prelude of the phase
 * the removing change will open, when 7.x traces it after the children
 * (a disable's recovery or zap, a teardown's zap).  Up to 6.12 that change
 * comes first and the removal is inside its phase already.
 */
static void prelude(struct msc_history *h, const struct msc_event *ev)
{
	const struct hphase *ph = cur_dirty(h);

	if (h->st.pre_open || hphase_is_vcpu(h, ev->pid) ||
	    (ph && ev->pid == h->st.sweep_pid &&
	     (ph->p.kind == MSC_PHASE_DISABLE || ph->p.kind == MSC_PHASE_TEARDOWN)))
		return;
	h->st.pre_open = 1;
	h->st.pre_pid = ev->pid;
	h->st.pre_ts = h->m.ts;
	h->st.pre_slack = h->m.ts - min(h->det.prev_ts, h->m.ts);
	h->st.pre_seq = (int64_t)ev->seq;
	h->st.pre_integral = h->st.split_integral;
	hcensus_total(h, &h->st.pre_before);
	cost_reset(&h->st.pre);
}

/* The prelude is the start of @ph, which its task's removing change opened. */
static void take_prelude(struct msc_history *h, struct hphase *ph)
{
	ph->p.start_ts = h->st.pre_ts;
	ph->p.start_seq = h->st.pre_seq;
	ph->p.slack_start_ns = h->st.pre_slack;
	ph->p.before = h->st.pre_before;
	ph->split_integral0 = h->st.pre_integral;
	ph->cost = h->st.pre;
}

static int open_dirty(struct msc_history *h, const struct msc_event *ev,
		      enum msc_phase_kind kind, enum msc_phase_source source)
{
	bool step = kind == MSC_PHASE_ENABLE || kind == MSC_PHASE_DISABLE ||
		    kind == MSC_PHASE_TEARDOWN;
	struct hphase *ph;
	int32_t rp;
	int r = close_dirty(h, ev) ?: close_pass(h);

	if (r)
		return r;
	rp = step ? h->st.cur_repromote : -1;
	if (step)
		close_repromote(h, false);
	ph = phase_new(h, kind, source, NULL, ev);
	if (!ph)
		return -ENOMEM;
	ph->p.start_ts = ev->ts > h->m.ts ? h->m.ts : ev->ts;
	if (source != MSC_PHASE_SRC_INFERRED)	/* the ioctl's enter, a kprobe, _begin */
		ph->p.exact = MSC_EXACT_START;
	h->st.cur_dirty = h->st.last_dirty = (int32_t)(ph->p.id - 1);
	h->st.sweep_pid = ev ? ev->pid : -1;
	h->st.sweep_task_moved = 0;
	memset(h->st.sweep_at, 0, sizeof(h->st.sweep_at));
	h->st.sweep_split_top = 0;
	h->st.sweep_whole = 0;
	h->det.sweep_hit = true;
	h->st.faults_since_sweep = 0;
	if ((kind == MSC_PHASE_DISABLE || kind == MSC_PHASE_TEARDOWN) && h->st.pre_open &&
	    ev->pid == h->st.pre_pid)
		take_prelude(h, ph);
	h->st.pre_open = 0;
	if (h->st.kp_open && ev->pid == h->st.kp_pid && kind == h->st.kp_kind) {
		/* the kprobe began this call */
		ph->p.start_ts = h->st.kp_ts;
		ph->p.start_seq = h->st.kp_seq;
		ph->p.source = MSC_PHASE_SRC_KPROBE;
		ph->p.exact = MSC_EXACT_START;
	}
	h->st.kp_open = 0;
	repromote_cut(h, rp, ph);
	return become(h, ph, kind);
}

/* Are the open dirty-log phase's bounds the kernel's (the ioctl, the patch's _begin/_end)? */
static bool sweep_bounded(const struct msc_history *h)
{
	return h->st.dirty_log_open || h->st.ioctl_open;
}

/*
 * Walks.  An enable, a harvest and a clear walk a memslot's SPTEs upward
 * and change none twice: kvm_tdp_mmu_try_split_huge_pages(),
 * kvm_tdp_mmu_wrprot_slot(), kvm_tdp_mmu_clear_dirty_slot() and
 * kvm_tdp_mmu_clear_dirty_pt_masked() with the TDP iterator (pre-order: a
 * parent before its children, GFNs upward, so (GFN, then level downward)
 * only grows), the shadow MMU's walk_slot_rmaps() level by level, GFNs
 * upward within each.  So a change of one class (and, off the TDP MMU, one
 * level) at or below the last one of the open sweep is the next walk, and
 * so is one by another task: that is what ends a sweep, not a pause (the
 * ioctl thread is preempted for any time; a real host's dirty pass lasts
 * 3 ms, an emulator's 300).  The position is walk_key(), 0: none yet.
 */
static int walk_class(enum msc_spte_class c)
{
	switch (c) {
	case MSC_CLASS_SPLIT: return 0;
	case MSC_CLASS_WRITE_PROTECT: return 1;
	case MSC_CLASS_CLEAR_DIRTY: return 2;
	default: return -1;
	}
}

static uint64_t *walk_at(struct msc_history *h, const struct msc_event *ev)
{
	int c = ev->type == MSC_EV_SPTE_CHANGED ? walk_class(ev->spte.class) : -1;

	if (c < 0)
		return NULL;
	return &h->st.sweep_at[c][h->tdp_mmu ? 0 : min(ev->spte.level, HSWEEP_LEVELS - 1)];
}

/* (as_id, GFN, level downward) + 1: a GFN has at most 57 - 12 bits (decode refuses more) */
static uint64_t walk_key(const struct msc_event *ev)
{
	uint64_t at = (uint64_t)ev->spte.as_id << 52 | ev->spte.gfn;

	return (at << 3 | (7 - min(ev->spte.level, 7u))) + 1;
}

/*
 * Is @ev, a change of a walk's class by a task that is not a vCPU, part of
 * another walk than the open sweep's?  Inside the kernel's bounds the
 * bounds say.
 */
static bool another_walk(struct msc_history *h, const struct msc_event *ev)
{
	const uint64_t *at = walk_at(h, ev);

	if (!at || !cur_dirty(h) || sweep_bounded(h))
		return false;
	return ev->pid != h->st.sweep_pid || walk_key(ev) <= *at;
}

/*
 * The open sweep's walk reached @ev.  Protection that starts below where
 * the splits got to is an enable's (it splits the whole memslot first,
 * then protects it from its start), not a CLEAR's (which splits and
 * protects one 64-page mask after the other): see clear_not_enable().
 */
static void walk_reach(struct msc_history *h, const struct msc_event *ev)
{
	uint64_t *at = walk_at(h, ev), key = walk_key(ev);

	if (!at)
		return;
	if (ev->spte.class == MSC_CLASS_SPLIT)
		h->st.sweep_split_top = max(h->st.sweep_split_top, key);
	else if (key < h->st.sweep_split_top)
		h->st.sweep_whole = 1;
	*at = key;
}

/* What a disable's task does while disabling (the rest ends the disable). */
static bool disable_work(const struct msc_event *ev)
{
	switch (ev->type) {
	case MSC_EV_SPTE_CHANGED:	/* tables zapped or made huge, and their children */
		return (ev->spte.class == MSC_CLASS_ZAP_SUBTREE && ev->spte.level < 4) ||
		       ev->spte.class == MSC_CLASS_PROMOTE ||
		       ev->spte.class == MSC_CLASS_TEARDOWN_CHILD;
	case MSC_EV_ZAP_PAGE:
	case MSC_EV_KPROBE:	/* its own probes and flushes; another phase's kind opens that phase */
	case MSC_EV_TLB_FLUSH:
	case MSC_EV_COLLAPSE_SPAN:
	case MSC_EV_DIRTY_LOG:
	case MSC_EV_LOST:
		return true;
	default:
		return false;
	}
}

static int split_step(struct msc_history *h, const struct msc_event *ev, enum msc_phase_kind kind);

/* One event of dirty-log activity of @kind (by kprobe or by inference). */
static int activity(struct msc_history *h, const struct msc_event *ev,
		    enum msc_phase_kind kind, enum msc_phase_source source)
{
	struct hphase *ph = cur_dirty(h);

	if (kind == MSC_PHASE_HARVEST && !h->st.dirty_active && source == MSC_PHASE_SRC_INFERRED)
		kind = MSC_PHASE_ENABLE;
	/* inside a KVM ioctl all work is its phase's; a memslot update's work names it */
	if (ph && h->st.ioctl_open) {
		bool same = !h->st.grp_pending && ph->p.kind != MSC_PHASE_MEMSLOT;
		int r = 0;

		/* splits and write-protection in a memslot update are its enable */
		if (kind == MSC_PHASE_HARVEST && ph->p.kind != MSC_PHASE_HARVEST)
			kind = MSC_PHASE_ENABLE;
		if (h->st.grp_pending) {
			/* a continued step: the same work goes on, other work is its own */
			h->st.grp_pending = 0;
			if (kind != ph->p.kind && (r = split_step(h, ev, kind)))
				return r;
			ph = cur_dirty(h);
		}
		if (ph->p.kind == MSC_PHASE_MEMSLOT) {
			if (kind == MSC_PHASE_ENABLE || kind == MSC_PHASE_DISABLE ||
			    kind == MSC_PHASE_TEARDOWN) {
				int32_t rp = h->st.cur_repromote;

				close_repromote(h, false);
				repromote_cut(h, rp, ph);
			}
			r = become(h, ph, kind);
		}
		if (ph->p.kind == kind && source < ph->p.source)
			ph->p.source = (uint8_t)source;
		h->det.sweep_hit = true;
		h->st.faults_since_sweep = 0;
		if (same)
			h->det.steady = HSTEADY_SWEEP;
		return r;
	}
	/*
	 * A kprobe of the open sweep's kind and task enters a function the
	 * sweep calls more than once (kvm_arch_mmu_enable_log_dirty_pt_masked()
	 * once per 64-page mask): the same call if the work after it goes on
	 * with the walk, the next call's start if it comes back (open_dirty()).
	 */
	if (ph && source == MSC_PHASE_SRC_KPROBE && ph->p.kind == kind &&
	    ev->pid == h->st.sweep_pid && !h->st.dirty_log_open) {
		h->st.kp_open = 1;
		h->st.kp_ts = ev->ts;
		h->st.kp_pid = ev->pid;
		h->st.kp_kind = (uint8_t)kind;
		h->st.kp_seq = (int64_t)ev->seq;
		h->det.kp_hit = true;
		return 0;
	}
	/* between the patch's _begin and _end, all activity is that phase's */
	if (ph && (h->st.dirty_log_open ||
		   (ev->pid == h->st.sweep_pid &&
		    (ph->p.kind == kind ||
		     (source == MSC_PHASE_SRC_INFERRED && kind != MSC_PHASE_DISABLE &&
		      ph->p.kind != MSC_PHASE_DISABLE))))) {
		/* a kprobe or tracepoint of the same kind confirms an inferred phase */
		if (ph->p.kind == kind && source < ph->p.source)
			ph->p.source = (uint8_t)source;
		h->det.sweep_hit = true;
		h->st.faults_since_sweep = 0;
		h->det.steady = HSTEADY_SWEEP;
		return 0;
	}
	return open_dirty(h, ev, kind, source);
}

static enum msc_phase_kind kprobe_kind(const char *name)
{
	static const struct {
		const char *name;
		enum msc_phase_kind kind;
	} probes[] = {
		{ "kvm_mmu_slot_try_split_huge_pages", MSC_PHASE_ENABLE },
		{ "kvm_mmu_slot_remove_write_access", MSC_PHASE_ENABLE },
		{ "kvm_mmu_slot_leaf_clear_dirty", MSC_PHASE_ENABLE },
		{ "kvm_arch_mmu_enable_log_dirty_pt_masked", MSC_PHASE_HARVEST },
		{ "kvm_mmu_zap_collapsible_sptes", MSC_PHASE_DISABLE },
		{ "kvm_tdp_mmu_zap_collapsible_sptes", MSC_PHASE_DISABLE },
		{ "kvm_mmu_recover_huge_pages", MSC_PHASE_DISABLE },
		{ "kvm_tdp_mmu_recover_huge_pages", MSC_PHASE_DISABLE },
	};

	for (size_t i = 0; i < ARRAY_SIZE(probes); i++)
		if (!strcmp(name, probes[i].name))
			return probes[i].kind;
	return MSC_PHASE_WORKLOAD;	/* not a phase probe */
}

/* "...phase=NAME begin|end" */
static int workload_marker(struct msc_history *h, const struct msc_event *ev)
{
	const char *p = strstr(ev->marker.text, "phase="), *sp;
	char name[64];
	size_t n;

	if (!p)
		return 0;
	p += strlen("phase=");
	n = strcspn(p, " \t");
	snprintf(name, sizeof(name), "%.*s", (int)min(n, sizeof(name) - 1), p);
	sp = p + n;
	while (*sp == ' ' || *sp == '\t')
		sp++;
	if (!strncmp(sp, "begin", 5)) {
		struct hphase *ph = phase_new(h, MSC_PHASE_WORKLOAD, MSC_PHASE_SRC_MARKER, name, ev);

		if (!ph)
			return -ENOMEM;
		ph->p.start_ts = ev->ts;
		ph->p.exact = MSC_EXACT_START | MSC_EXACT_END;	/* the workload's own */
		ph->pid = ev->pid;
		return 0;
	}
	if (strncmp(sp, "end", 3))
		return 0;
	/* the latest open one of the name: its task's own if it has one */
	for (int own = 1; own >= 0; own--) {
		for (size_t i = h->det.nr_phases; i-- > 0;) {
			struct hphase *ph = &h->det.phases[i];

			if (ph->open && ph->p.kind == MSC_PHASE_WORKLOAD &&
			    !strcmp(ph->p.name, name) && (!own || ph->pid == ev->pid)) {
				phase_settle(h, ph);
				ph->p.end_seq = (int64_t)ev->seq;
				return phase_closed(h, ph);
			}
		}
	}
	return 0;
}

/*
 * A remote TLB flush (kprobe or the patch's tracepoint): flushes are traced.
 * The ioctl's closing flush belongs to its sweep: made by the sweep's own
 * task before it did anything else, however long after its last change (it
 * may have been preempted in between).
 */
static void flush_seen(struct msc_history *h, const struct msc_event *ev)
{
	h->st.flush_probes = 1;
	if (cur_dirty(h) && ev->pid == h->st.sweep_pid && !h->st.sweep_task_moved)
		h->det.sweep_hit = true;
}

/*
 * A harvest event ends its phase and says how long the harvest took: the
 * phase began then (a GET that re-protects nothing has no earlier event),
 * but not before the dirty-log phase ahead of it ended.
 */
static void harvest_began(struct msc_history *h, struct hphase *ph, const struct msc_event *ev)
{
	uint64_t start = ev->ts - min(ev->harvest.duration_ns, ev->ts);

	if (ph->p.kind != MSC_PHASE_HARVEST)
		return;
	for (struct hphase *q = ph; q-- > h->det.phases;) {
		if (q->p.kind == MSC_PHASE_ENABLE || q->p.kind == MSC_PHASE_HARVEST ||
		    q->p.kind == MSC_PHASE_DISABLE) {
			start = max(start, q->p.end_ts);
			break;
		}
	}
	ph->p.start_ts = min(ph->p.start_ts, start);
}

/*
 * The VM's tables going away: its top-level tables zapped (VM destroy), or
 * with dirty logging off the VMM's own task unmapping or zapping (memslot
 * deletion; a notifier's unmaps come from other tasks), and what follows
 * in that teardown.
 */
static bool is_teardown(const struct msc_history *h, const struct msc_event *ev)
{
	const struct hphase *ph = h->st.cur_dirty >= 0 && !h->st.grp_pending ?
				  &h->det.phases[h->st.cur_dirty] : NULL;	/* a continued step may end */
	enum msc_spte_class c = ev->spte.class;
	bool zap = c == MSC_CLASS_UNMAP || c == MSC_CLASS_ZAP_SUBTREE;

	if (ph && ph->p.kind == MSC_PHASE_TEARDOWN)
		return (zap || c == MSC_CLASS_TEARDOWN_CHILD) && ev->pid == h->st.sweep_pid;
	if (c == MSC_CLASS_ZAP_SUBTREE && ev->spte.level >= 4)
		return true;
	if (ph && ph->p.kind == MSC_PHASE_MEMSLOT && h->st.ioctl_open)
		return zap;	/* a memslot update that zaps: the memslot is deleted */
	return zap && !h->st.dirty_active && h->st.last_dirty >= 0 && ev->pid == h->st.sweep_pid &&
	       !ph;
}

/*
 * An inferred enable that splits after it write-protected (with PML:
 * cleared D bits) is a KVM_CLEAR_DIRTY_LOG under manual protect: an enable
 * splits the whole slot first and write-protects it after, a clear splits
 * and protects one 64-page mask after the other
 * (kvm_arch_mmu_enable_log_dirty_pt_masked()).  The
 * enable itself did no MMU work and left no trace.  An enable of several
 * memslots splits again after it protected the first, but it protected
 * that one below its splits (walk_reach()).
 */
/* Did the counts protect a leaf, or clear its D bit (PML)?  (Stored, so kept on resume.) */
static bool protected(const struct msc_phase_counts *c)
{
	return c->by_class[MSC_CLASS_WRITE_PROTECT] || c->by_class[MSC_CLASS_CLEAR_DIRTY];
}

static bool clear_not_enable(struct msc_history *h)
{
	struct hphase *ph = cur_dirty(h);

	if (!ph || ph->p.kind != MSC_PHASE_ENABLE || ph->p.source != MSC_PHASE_SRC_INFERRED ||
	    h->st.ioctl_open || h->st.sweep_whole ||
	    !(protected(&ph->cost.count) || protected(&ph->pending.count)))
		return false;
	h->det.sweep_hit = true;
	h->st.faults_since_sweep = 0;
	return true;
}

/*
 * A vCPU's own KVM_RESET_DIRTY_RINGS: its ring filled (KVM_EXIT_DIRTY_RING_FULL),
 * and it took back what user space had collected before running on.
 */
#define HARVEST_RING_FULL "ring_full_reset"

/* A harvest's step name, as the selftests and QEMU name the steps. */
static const char *harvest_name(const char *ioctl)
{
	if (strstr(ioctl, "RESET"))
		return "reset_dirty_rings";
	return strstr(ioctl, "CLEAR") ? "clear_dirty_log" : "get_dirty_log";
}

/* The phase a KVM ioctl (@name, NULL: not KVM's) is, before the work inside says more. */
static enum msc_phase_kind ioctl_kind(const char *name)
{
	if (!name)
		return MSC_PHASE_WORKLOAD;
	if (!strcmp(name, "KVM_GET_DIRTY_LOG") || !strcmp(name, "KVM_CLEAR_DIRTY_LOG") ||
	    !strcmp(name, "KVM_RESET_DIRTY_RINGS"))
		return MSC_PHASE_HARVEST;
	if (!strncmp(name, "KVM_SET_USER_MEMORY_REGION", 26))
		return MSC_PHASE_MEMSLOT;
	return MSC_PHASE_WORKLOAD;	/* not a dirty-log step */
}

/*
 * A harvest after a memslot update that did no MMU work while dirty
 * logging looked off: that update turned logging on under manual protect
 * (KVM_DIRTY_LOG_INITIALLY_SET), which has nothing to split or protect.
 */
static void manual_protect_enable(struct msc_history *h)
{
	struct hphase *last = last_dirty(h);

	if (h->st.dirty_active || !last || last->p.kind != MSC_PHASE_MEMSLOT ||
	    last->cost.count.spte_changes)
		return;
	set_kind(last, MSC_PHASE_ENABLE);
	h->st.dirty_active = true;
	h->st.vm_disabled = 0;
	/* the vCPUs ran under dirty logging since */
	for (struct hphase *ph = &h->det.phases[h->det.nr_phases]; ph-- > last;)
		if (ph->p.kind == MSC_PHASE_POPULATE)
			set_kind(ph, MSC_PHASE_DIRTY_PASS);
}

/*
 * The next ioctl (@kind, @name) of the step that just ended, one memslot
 * after the other (its task, nothing in between, no vCPU fault since): the
 * step goes on, and the re-promotion a disable handed over to is taken
 * back.  Memslot updates continue an enable or a disable; a GET or CLEAR
 * the same call's harvest, one sync (QEMU and the selftests harvest each
 * memslot by its own ioctl), until its walk comes back (walk_event()).
 */
static bool continue_step(struct msc_history *h, const struct msc_event *ev,
			  enum msc_phase_kind kind, const char *name)
{
	struct hphase *last = last_dirty(h);
	bool memslot = kind == MSC_PHASE_MEMSLOT;

	if (!last || cur_dirty(h) || last->p.source != MSC_PHASE_SRC_IOCTL ||
	    ev->pid != h->st.sweep_pid || h->st.sweep_task_moved || h->st.faults_since_sweep)
		return false;
	if (memslot ? last->p.kind != MSC_PHASE_ENABLE && last->p.kind != MSC_PHASE_DISABLE :
		      last->p.kind != MSC_PHASE_HARVEST || strcmp(last->p.name, harvest_name(name)))
		return false;
	if (h->st.cur_repromote == (int32_t)h->det.nr_phases - 1 &&
	    h->det.phases[h->det.nr_phases - 1].p.start_ts == last->p.end_ts) {
		h->det.nr_phases--;		/* the re-promotion it handed over to: not yet */
		h->st.cur_repromote = -1;
	}
	h->st.grp_pending = 1;
	last->p.exact &= ~MSC_EXACT_END;	/* until this ioctl's exit */
	h->st.grp_end_ts = last->p.end_ts;
	h->st.grp_end_seq = last->p.end_seq;
	h->st.grp_after = last->p.after;
	h->st.grp_split_ns = last->p.region_split_ns;
	h->st.grp_start_ts = ev->ts;
	h->st.grp_start_seq = (int64_t)ev->seq;
	h->st.grp_start_integral = h->st.split_integral;
	last->open = true;
	h->st.cur_dirty = h->st.last_dirty;
	h->det.sweep_hit = true;
	return true;
}

/*
 * The continued step's next ioctl does other work (@kind): the step ends
 * where the previous ioctl ended, this ioctl is a phase of its own.
 */
static int split_step(struct msc_history *h, const struct msc_event *ev, enum msc_phase_kind kind)
{
	struct hphase *ph = cur_dirty(h);
	char name[sizeof(ph->p.name)];
	struct hcost mine;
	int32_t rp;
	int r;

	h->st.grp_pending = 0;
	snprintf(name, sizeof(name), "%s", ph->p.name);
	mine = ph->pending;
	cost_reset(&ph->pending);
	ph->p.end_ts = h->st.grp_end_ts;
	ph->p.end_seq = h->st.grp_end_seq;
	ph->p.after = h->st.grp_after;
	ph->p.region_split_ns = h->st.grp_split_ns;
	ph->p.exact |= MSC_EXACT_END;	/* the previous ioctl's exit */
	ph->pending.last_ts = h->st.grp_end_ts;
	r = close_dirty(h, ev);
	rp = h->st.cur_repromote;	/* the disable handed over to it */
	if (!r)
		r = open_dirty(h, ev, kind, MSC_PHASE_SRC_IOCTL);
	if (r)
		return r;
	ph = cur_dirty(h);
	if (kind == MSC_PHASE_HARVEST)	/* the next sync: the same ioctl */
		snprintf(ph->p.name, sizeof(ph->p.name), "%s", name);
	ph->p.start_ts = h->st.grp_start_ts;
	ph->p.start_seq = h->st.grp_start_seq;
	ph->p.before = h->st.grp_after;
	ph->split_integral0 = h->st.grp_start_integral;
	ph->pending = mine;
	if (h->st.cur_repromote != rp)	/* this step ended it */
		repromote_cut(h, rp, ph);
	return 0;
}

/*
 * sys_enter_ioctl of a dirty-log step opens its phase there (or continues
 * the step before it); the exit of the same task ends it there, the
 * kernel's own bounds.
 */
static int ioctl_event(struct msc_history *h, const struct msc_event *ev)
{
	const char *name = msc_kvm_ioctl_name(ev->ioctl.cmd);
	enum msc_phase_kind kind;
	struct hphase *ph;
	int r;

	if (ev->ioctl.exit) {
		if (!h->st.ioctl_open || ev->pid != h->st.ioctl_pid)	/* a KVM_RUN's? */
			return h->st.cur_pass >= 0 && hphase_is_vcpu(h, ev->pid) ?
			       vcpu_event(h, ev, true) : 0;
		h->st.ioctl_open = 0;
		/* a continued update whose ioctl did no MMU work: a memslot update */
		if (h->st.grp_pending && cur_dirty(h)->p.kind != MSC_PHASE_HARVEST &&
		    (r = split_step(h, ev, MSC_PHASE_MEMSLOT)))
			return r;
		h->st.grp_pending = 0;
		/* the phase takes in everything up to here, and ends */
		h->det.sweep_hit = h->det.end_dirty = cur_dirty(h) != NULL;
		return 0;
	}
	if (name && !strcmp(name, "KVM_RUN")) {
		learn_vcpu(h, ev->pid);
		h->st.faults_since_sweep++;
		return vcpu_event(h, ev, true);
	}
	kind = ioctl_kind(name);
	if (kind == MSC_PHASE_WORKLOAD)
		return 0;
	h->st.grp_pending = 0;
	h->st.ioctl_open = 0;
	if (!continue_step(h, ev, kind, name)) {
		if (kind == MSC_PHASE_HARVEST)
			manual_protect_enable(h);
		r = open_dirty(h, ev, kind, MSC_PHASE_SRC_IOCTL);
		if (r)
			return r;
		ph = cur_dirty(h);
		ph->p.start_ts = ev->ts;
		if (kind == MSC_PHASE_HARVEST)
			snprintf(ph->p.name, sizeof(ph->p.name), "%s",
				 hphase_is_vcpu(h, ev->pid) ? HARVEST_RING_FULL : harvest_name(name));
	}
	h->st.ioctl_open = 1;
	h->st.ioctl_pid = ev->pid;
	return 0;
}

static int phase_event(struct msc_history *h, const struct msc_event *ev);

/**
 * hphase_event - let the phase detector see an event before the model does
 *
 * Opens and closes phases; sets h->det.sweep_hit when the event is activity of
 * the open dirty-log phase (hphase_commit() then takes its costs in).
 */
int hphase_event(struct msc_history *h, const struct msc_event *ev)
{
	int r = phase_event(h, ev);

	/* what the sweep's task does besides the sweep */
	if (!r && ev->pid == h->st.sweep_pid)
		h->st.sweep_task_moved = !h->det.sweep_hit && !h->det.kp_hit;
	/*
	 * The kprobe's task did something else (the sweep went on: the kprobe
	 * was inside it; or the task left it): it starts no later call.
	 */
	if (h->st.kp_open && ev->pid == h->st.kp_pid && !h->det.kp_hit)
		h->st.kp_open = 0;
	/* the prelude lasts while its task removes tables */
	if (h->st.pre_open && ev->pid == h->st.pre_pid && ev->type != MSC_EV_ZAP_PAGE &&
	    !(ev->type == MSC_EV_SPTE_CHANGED && ev->spte.class == MSC_CLASS_TEARDOWN_CHILD))
		h->st.pre_open = 0;
	return r;
}

/*
 * Does @ev show the open sweep's task out of the kernel (a trace marker is
 * written from user space, an ioctl entered or left), the sweep over?
 * Where the kernel's bounds are traced they say it.
 */
static bool sweep_left(const struct msc_history *h, const struct msc_event *ev)
{
	return (ev->type == MSC_EV_MARKER || ev->type == MSC_EV_IOCTL) && h->st.cur_dirty >= 0 &&
	       ev->pid == h->st.sweep_pid && !sweep_bounded(h);
}

/* A split, write-protect or clear-dirty by a task that is not a vCPU. */
static int walk_event(struct msc_history *h, const struct msc_event *ev)
{
	const uint64_t *at = walk_at(h, ev);
	int r = another_walk(h, ev) ? close_dirty(h, ev) : 0;

	/* a continued GET or CLEAR whose walk comes back: the next sync */
	if (!r && h->st.grp_pending && at && walk_key(ev) <= *at)
		r = split_step(h, ev, MSC_PHASE_HARVEST);
	if (r)
		return r;
	if (ev->spte.class == MSC_CLASS_SPLIT && clear_not_enable(h))
		r = become(h, cur_dirty(h), MSC_PHASE_HARVEST);
	else
		r = activity(h, ev, MSC_PHASE_HARVEST, MSC_PHASE_SRC_INFERRED);
	if (r || !h->det.sweep_hit)
		return r;
	walk_reach(h, ev);
	/* a stretch of this walk goes on while its keys grow (hphase_steady()) */
	if (h->det.steady == HSTEADY_SWEEP && !sweep_bounded(h))
		h->det.steady_walk = walk_at(h, ev);
	return 0;
}

/* A kprobe: a step's function (its kind), or a flush */
static int kprobe_event(struct msc_history *h, const struct msc_event *ev)
{
	enum msc_phase_kind kind = kprobe_kind(ev->kprobe.name);

	if (!strncmp(ev->kprobe.name, "kvm_flush_remote_tlbs", 21) ||
	    !strcmp(ev->kprobe.name, "kvm_arch_flush_remote_tlbs_memslot"))
		flush_seen(h, ev);
	if (kind == MSC_PHASE_WORKLOAD || h->opts.infer_only)
		return 0;
	return activity(h, ev, kind, MSC_PHASE_SRC_KPROBE);
}

/* The companion patch: dirty logging turned on or off, exactly */
static int dirty_log_event(struct msc_history *h, const struct msc_event *ev)
{
	bool on = ev->dirty_log.new_flags & 1, was = ev->dirty_log.old_flags & 1;
	int r;

	if (on == was || h->opts.infer_only)
		return 0;
	h->st.dirty_log_open = 0;
	if (ev->dirty_log.end) {
		/* the work ends here: the phase closes once this event is counted */
		h->det.sweep_hit = h->det.end_dirty = cur_dirty(h) != NULL;
		return 0;
	}
	r = activity(h, ev, on ? MSC_PHASE_ENABLE : MSC_PHASE_DISABLE, MSC_PHASE_SRC_TRACEPOINT);
	h->st.dirty_log_open = !r;
	return r;
}

/* The companion patch: one GET or CLEAR_DIRTY_LOG ends here, exactly */
static int harvest_event(struct msc_history *h, const struct msc_event *ev)
{
	int r;

	if (h->opts.infer_only)
		return 0;
	r = activity(h, ev, MSC_PHASE_HARVEST, MSC_PHASE_SRC_TRACEPOINT);
	if (r || !cur_dirty(h))
		return r;
	harvest_began(h, cur_dirty(h), ev);
	cur_dirty(h)->p.exact |= MSC_EXACT_START;
	h->det.end_dirty = true;
	return 0;
}

/*
 * An event other than an SPTE change: what it tells of the phases.  @ioctl:
 * its task does no vCPU's work now (phase_event()).
 */
static int kernel_event(struct msc_history *h, const struct msc_event *ev, bool ioctl)
{
	switch (ev->type) {
	case MSC_EV_PAGE_FAULT:
		learn_vcpu(h, ev->pid);
		h->st.faults_since_sweep++;
		return vcpu_event(h, ev, false);
	case MSC_EV_FAST_PF:
		h->st.faults_since_sweep++;
		return vcpu_event(h, ev, false);
	case MSC_EV_MARKER:
		/* its task is out of the ioctl: the exit was not recorded */
		if (h->st.ioctl_open && ev->pid == h->st.ioctl_pid)
			h->st.ioctl_open = 0;
		return workload_marker(h, ev);
	case MSC_EV_IOCTL:
		return h->opts.infer_only ? 0 : ioctl_event(h, ev);
	case MSC_EV_KPROBE:
		return kprobe_event(h, ev);
	case MSC_EV_TLB_FLUSH:
		flush_seen(h, ev);
		return 0;
	case MSC_EV_DIRTY_LOG:
		return dirty_log_event(h, ev);
	case MSC_EV_LOST:
		/*
		 * The _end may be among the lost, and so may the open ioctl's
		 * exit: a later exit of its task would be another call's.  Quiet
		 * gaps close phases again, without an exact end.
		 */
		h->st.dirty_log_open = 0;
		h->st.ioctl_open = 0;
		return 0;
	case MSC_EV_SPLIT_SPAN:
		/* a CLEAR_DIRTY_LOG split pass is a harvest; enable passes sit in their enable */
		if (h->opts.infer_only || strcmp(ev->span.reason_name, "clear"))
			return 0;
		return activity(h, ev, MSC_PHASE_HARVEST, MSC_PHASE_SRC_TRACEPOINT);
	case MSC_EV_COLLAPSE_SPAN:
		if (h->opts.infer_only)
			return 0;
		return activity(h, ev, MSC_PHASE_DISABLE, MSC_PHASE_SRC_TRACEPOINT);
	case MSC_EV_HARVEST:
		return harvest_event(h, ev);
	case MSC_EV_SPLIT:
		/* it follows its SPTE change: the sweep of its task, however late */
		if (cur_dirty(h) && ev->pid == h->st.sweep_pid) {
			h->det.sweep_hit = true;
			return 0;
		}
		if (ioctl && cur_dirty(h))
			return activity(h, ev, cur_dirty(h)->p.kind, MSC_PHASE_SRC_INFERRED);
		return 0;
	case MSC_EV_ZAP_PAGE:
		if (ioctl)
			prelude(h, ev);
		return 0;
	default:
		return 0;
	}
}

/* An SPTE change: a vCPU's, or a sweep's (@ioctl: an ioctl's, a kernel thread's) */
static int spte_event(struct msc_history *h, const struct msc_event *ev, bool ioctl)
{
	if (!ioctl)
		return vcpu_event(h, ev, false);
	switch (ev->spte.class) {
	case MSC_CLASS_SPLIT:
	case MSC_CLASS_WRITE_PROTECT:
	case MSC_CLASS_CLEAR_DIRTY:
		return walk_event(h, ev);
	case MSC_CLASS_ZAP_SUBTREE:
		/* while logging, or in the memslot ioctls of a disable (its next slot) */
		if (ev->spte.level >= 2 && ev->spte.level < 4 &&
		    (h->st.dirty_active || (h->st.ioctl_open && cur_dirty(h) &&
					    cur_dirty(h)->p.kind == MSC_PHASE_DISABLE)))
			return activity(h, ev, MSC_PHASE_DISABLE, MSC_PHASE_SRC_INFERRED);
		break;
	case MSC_CLASS_PROMOTE:
		return activity(h, ev, MSC_PHASE_DISABLE, MSC_PHASE_SRC_INFERRED);
	default:
		break;
	}
	if (is_teardown(h, ev))
		return activity(h, ev, MSC_PHASE_TEARDOWN, MSC_PHASE_SRC_INFERRED);
	/* a disable's zaps are followed by the children of the tables: part of the sweep */
	if (cur_dirty(h) && cur_dirty(h)->p.kind == MSC_PHASE_DISABLE &&
	    ev->spte.class == MSC_CLASS_TEARDOWN_CHILD && !h->st.grp_pending) {
		h->det.sweep_hit = true;
		h->det.steady = HSTEADY_SWEEP;
	}
	return 0;
}

static int phase_event(struct msc_history *h, const struct msc_event *ev)
{
	/*
	 * A vCPU's thread inside a dirty-log ioctl does that ioctl's work, in
	 * the ioctl (a full dirty ring's KVM_RESET_DIRTY_RINGS between two
	 * KVM_RUNs): the task is no vCPU while it is there.
	 */
	bool ioctl = !hphase_is_vcpu(h, ev->pid) ||
		     (h->st.ioctl_open && ev->pid == h->st.ioctl_pid);
	struct hphase *open = cur_dirty(h);
	int r;

	h->det.sweep_hit = h->det.kp_hit = false;
	h->det.steady = 0;
	h->det.ev_pid = ev->pid;
	h->det.ev_vcpu = !ioctl;
	h->det.steady_walk = NULL;
	if (open && !sweep_bounded(h) && ev->pid == h->st.sweep_pid &&
	    ((open->p.kind == MSC_PHASE_DISABLE && !disable_work(ev)) || sweep_left(h, ev)) &&
	    (r = close_dirty(h, ev)))
		return r;
	if (ev->type == MSC_EV_SPTE_CHANGED)
		return spte_event(h, ev, ioctl);
	return kernel_event(h, ev, ioctl);
}

/* A trailing phase's activity: what waited is its cost, its end is now. */
static void reach(struct msc_history *h, struct hphase *ph)
{
	cost_merge(&ph->cost, &ph->pending);
	cost_reset(&ph->pending);
	ph->pending.last_ts = h->m.ts;
	ph->p.slack_end_ns = 0;		/* until the next event (end_slack()) */
	phase_settle(h, ph);
}

/** hphase_commit - the event just applied was activity: the phase reaches it */
int hphase_commit(struct msc_history *h)
{
	struct hphase *ph = cur_dirty(h);
	bool end = h->det.end_dirty;

	h->det.end_dirty = false;
	if (h->det.pass_hit && h->st.cur_pass >= 0)
		reach(h, &h->det.phases[h->st.cur_pass]);
	h->det.pass_hit = false;
	if (!ph || !h->det.sweep_hit)
		return 0;
	reach(h, ph);
	h->det.sweep_hit = false;
	if (!end)
		return 0;
	ph->p.exact |= MSC_EXACT_END;	/* the ioctl's exit, _end, the harvest event */
	return close_dirty(h, NULL);
}

bool hphase_in_disable(const struct msc_history *h)
{
	return h->st.cur_dirty >= 0 && h->det.phases[h->st.cur_dirty].p.kind == MSC_PHASE_DISABLE;
}

/*
 * The open phase @i (-1: none) reached the last event fed: its call may
 * have gone on until @ts, the time of the next.
 */
static void end_slack(struct msc_history *h, int32_t i, uint64_t ts)
{
	struct hphase *ph = i >= 0 ? &h->det.phases[i] : NULL;

	if (ph && ph->p.end_seq == h->cur_seq && ts >= ph->p.end_ts)
		ph->p.slack_end_ns = ts - ph->p.end_ts;
}

/**
 * hphase_tick - time moves to @ts: integrate split time, write the
 *	activity bucket that ended
 * @h: the history
 * @ts: the time of @ev
 * @ev: the event about to be fed, or NULL
 *
 * Time ends no phase: what the kernel does does (phase_event()).
 */
int hphase_tick(struct msc_history *h, uint64_t ts, const struct msc_event *ev)
{
	if (ts > h->m.ts)
		h->st.split_integral += h->st.split_cells * (ts - h->m.ts);
	if (ev) {
		end_slack(h, h->st.cur_dirty, ts);
		end_slack(h, h->st.cur_pass, ts);
		h->det.prev_ts = h->m.ts;
	}
	return hact_tick(h, ts, ev);
}

/*
 * Steady stretches.  An SPTE change the phase detector took as more of the
 * open phase's activity, changing nothing else (activity() going on with
 * the open dirty-log phase, vcpu_event() with the open pass: h->det.steady),
 * makes the next change of the same task, class and level go the same way,
 * as long as time does not end something first (the census or activity
 * bucket) and a sweep's walk goes on upward (another_walk()).  After a vCPU event of the open pass,
 * a vCPU's fault (NPF exit or fast_page_fault) goes on with the pass too,
 * unless it is the sweep's task's or something else would see it (see
 * fault_steady()).  Such an event (hphase_steady()) skips
 * the detector: hphase_steady_event() does what it would have done besides
 * taking the change in, its costs gather in h->det.batch (hphase_cost()), and
 * the phase reaches the stretch's last change once, at its end
 * (hphase_stretch_end()).  Nothing reads the costs or a phase's end in
 * between: the stretch ends before any other event is fed and before
 * anything is written, and its costs are attributed before the set of open
 * phases changes (stretch_attribute()).  `analyze --per-event' turns this
 * off; tests/cli/analyze-steady.sh checks that the tables are the same.
 */

/*
 * A fault after a vCPU event of the open pass: phase_event() would only
 * count it and go on with the pass (vcpu_event()), as long as it does not
 * end a disable or move the sweep's task (not the sweep's task), teach it a
 * vCPU (a known one, or no room), begin a VM (vm_gone: hvm_event()), or
 * find a range pending or the activity bucket's task table due to be
 * written (hact_tick()).  hphase_steady() has checked the time.
 */
static bool fault_steady(const struct msc_history *h, const struct msc_event *ev)
{
	if (h->det.steady != HSTEADY_PASS || h->st.cur_pass < 0 || ev->pid == h->st.sweep_pid ||
	    h->st.vm_gone || h->m.range.node || h->activity.nr_tasks >= HTASK_SLOTS / 4)
		return false;
	return ev->type != MSC_EV_PAGE_FAULT || hphase_is_vcpu(h, ev->pid) ||
	       hphase_vcpus_full(h);
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/*
 * The time the stretch ends at, whatever its events are: the activity or
 * the census bucket ends.  What it depends on changes only when the
 * detector sees an event, and feed() forgets it then (h->det.steady_until = 0).
 */
static uint64_t stretch_until(const struct msc_history *h)
{
	return min(hcensus_due_at(h), add_sat(h->st.act_bucket, hact_bucket_ns(h)));
}

/** hphase_steady - would @ev, next after the last event fed, go as that one did? */
bool hphase_steady(struct msc_history *h, const struct msc_event *ev)
{
	uint64_t ts = ev->ts;

	if (!h->det.steady_until)
		h->det.steady_until = stretch_until(h);
	/* act_bucket <= last_ts: the bucket began before */
	if (ts < h->m.ts || ts >= h->det.steady_until)
		return false;
	if (hev_fault(ev))
		return fault_steady(h, ev);
	if (ev->type != MSC_EV_SPTE_CHANGED || ev->pid != h->det.steady_pid ||
	    ev->spte.class != h->det.steady_class || ev->spte.level != h->det.steady_level)
		return false;
	if (h->st.vm_gone && (ev->spte.class == MSC_CLASS_MAP || ev->spte.class == MSC_CLASS_LINK))
		return false;	/* hvm_event(): a new VM */
	if (h->det.steady == HSTEADY_PASS)
		return h->st.cur_pass >= 0;
	/* the sweep's walk goes on upward (its task, class and level are the stretch's) */
	if (h->det.steady_walk)
		return walk_key(ev) > *h->det.steady_walk;
	return cur_dirty(h) != NULL;
}

/** hphase_steady_event - what hphase_tick() and hphase_event() do with a steady @ev */
void hphase_steady_event(struct msc_history *h, const struct msc_event *ev)
{
	if (ev->ts > h->m.ts)
		h->st.split_integral += h->st.split_cells * (ev->ts - h->m.ts);
	if (!h->det.stretch) {
		h->det.stretch = h->det.steady;
		cost_reset(&h->det.batch);
	}
	if (ev->pid == h->st.sweep_pid)
		h->st.sweep_task_moved = h->det.steady != HSTEADY_SWEEP;
	/* walk_reach() for a stretch: its first key was the lowest */
	if (h->det.steady_walk) {
		*h->det.steady_walk = walk_key(ev);
		if (ev->spte.class == MSC_CLASS_SPLIT)
			h->st.sweep_split_top = *h->det.steady_walk;
	}
	if (h->det.steady == HSTEADY_PASS && h->st.cur_pass >= 0)	/* vcpu_event() */
		h->det.phases[h->st.cur_pass].p.exact &= ~MSC_EXACT_END;
	if (hev_fault(ev)) {
		/* phase_event() and hact_tick() */
		h->st.faults_since_sweep++;
		hact_task(&h->activity, ev->pid)->vcpu = ev->type == MSC_EV_PAGE_FAULT ?
					      (int32_t)ev->pf.vcpu : ev->fast_pf.vcpu;
	}
}

/** hphase_stretch_end - the stretch's costs reach its phases; they reach its last event */
void hphase_stretch_end(struct msc_history *h)
{
	uint8_t reached = h->det.stretch;

	if (!reached)
		return;
	stretch_attribute(h);
	h->det.stretch = 0;
	if ((reached & HSTEADY_PASS) && h->st.cur_pass >= 0)
		reach(h, &h->det.phases[h->st.cur_pass]);
	if ((reached & HSTEADY_SWEEP) && h->st.cur_dirty >= 0)
		reach(h, &h->det.phases[h->st.cur_dirty]);
}

/*
 * A cell the disable (@ctx) went over, or one that was huge and is not now,
 * still has to become huge.
 */
/* The disable a resume found open, and the part it is of. */
struct open_disable {
	struct msc_history *h;
	const struct hphase *dis;
};

static int mark_awaiting(void *ctx, struct hnode *n2, unsigned int i, struct hcell *c)
{
	const struct open_disable *od = ctx;
	struct msc_history *h = od->h;
	const struct hphase *dis = od->dis;
	uint64_t gfn = n2->base + i * 512ULL;
	bool touched = dis->cost.count.gfn_first <= gfn && gfn <= dis->cost.count.gfn_last;

	if ((touched || (c->flags & HCELL_WAS_HUGE)) && !(c->flags & HCELL_AWAITING) &&
	    c->kind != MSC_REGION_2M && c->kind != MSC_REGION_1G) {
		c->flags |= HCELL_AWAITING;
		h->st.awaiting++;
	}
	return 0;
}

/* A region that was huge and is not now is split again, from the resume on. */
static int mark_split(void *ctx, struct hnode *n2, unsigned int i, struct hcell *c)
{
	struct msc_history *h = ctx;

	if ((c->flags & HCELL_WAS_HUGE) && c->kind != MSC_REGION_2M && c->kind != MSC_REGION_1G &&
	    !(c->flags & HCELL_SPLIT)) {
		c->flags |= HCELL_SPLIT;
		c->split_since = h->m.ts;
		h->st.split_cells++;
	}
	return 0;
}

/**
 * hphase_resume - after the model is reloaded, restore what cells must say:
 *	which regions are split, and for an open disable or re-promotion which
 *	are still to become huge
 */
int hphase_resume(struct msc_history *h)
{
	const struct hphase *open = cur_dirty(h);
	int r;

	h->st.awaiting = 0;
	h->st.split_cells = 0;
	r = hmodel_for_each_cell(&h->m, mark_split, h);
	if (r || (h->st.cur_repromote < 0 && !(open && open->p.kind == MSC_PHASE_DISABLE)))
		return r;
	for (size_t i = h->det.nr_phases; i-- > 0;)
		if (h->det.phases[i].p.kind == MSC_PHASE_DISABLE)
			return hmodel_for_each_cell(&h->m, mark_awaiting,
						    &(struct open_disable){ h, &h->det.phases[i] });
	return 0;
}

/**
 * hphase_load - the phases of an earlier run of this analysis, to be
 *	continued: as the tables hold them, their costs so far those counts
 */
int hphase_load(struct msc_history *h)
{
	struct msc_phase *p;
	bool *open;
	size_t nr;
	int r = hstore_read_phases(h->store, h->capture_id, &p, &open, &nr);

	if (r)
		return r;
	h->det.phases = calloc(nr ? nr : 1, sizeof(*h->det.phases));
	r = h->det.phases ? 0 : -ENOMEM;
	for (size_t i = 0; i < nr && !r; i++) {
		struct hphase *ph = &h->det.phases[i];
		struct hcost *c = &ph->cost;

		ph->p = p[i];
		ph->open = open[i];
		c->count = p[i].count;
		c->count.flushes = max(c->count.flushes, 0);	/* -1: not traced */
		/* what dirty_rate() made the dirtied pages of, again */
		if (p[i].kind == MSC_PHASE_DIRTY_PASS && p[i].dirtied >= 0)
			c->count.pages_fixed = (uint64_t)p[i].dirtied;
		if (p[i].kind == MSC_PHASE_HARVEST && p[i].dirtied >= 0)
			c->count.pages_collected = (uint64_t)p[i].dirtied;
		ph->pending.count.gfn_first = UINT64_MAX;
		ph->pending.last_ts = p[i].end_ts;
	}
	h->det.nr_phases = h->det.alloc_phases = r ? 0 : nr;
	free(p);
	free(open);
	return r;
}

/**
 * hphase_rows - the rows of table phase for phases @ph: their counts what
 *	each cost; flush counts only when the capture traces flushes (some
 *	phase counted one), else -1
 * @ret_p, @ret_open: freed by the caller
 */
int hphase_rows(const struct hphase *ph, size_t nr, struct msc_phase **ret_p, bool **ret_open)
{
	struct msc_phase *p = malloc((nr ?: 1) * sizeof(*p));
	bool *open = malloc((nr ?: 1) * sizeof(*open));
	bool flushes_known = false;

	if (!p || !open) {
		free(p);
		free(open);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nr; i++)
		flushes_known |= ph[i].cost.count.flushes || ph[i].pending.count.flushes;
	for (size_t i = 0; i < nr; i++) {
		p[i] = ph[i].p;
		p[i].count = ph[i].cost.count;
		if (!flushes_known)
			p[i].count.flushes = -1;
		open[i] = ph[i].open;
	}
	*ret_p = p;
	*ret_open = open;
	return 0;
}

/** hphase_capture_end - nothing follows: the open dirty-log phase is over */
int hphase_capture_end(struct msc_history *h)
{
	return close_pass(h) ?: close_dirty(h, NULL);
}

/*
 * What @ph's bounds are: a re-promotion's are its disable's end and the
 * last region's return, a span the analyzer derives ("inferred", no
 * slack); the others' as exact as what opened and closed them.
 */
static void phase_bounds(struct hphase *ph)
{
	struct msc_phase *p = &ph->p;
	unsigned int exact = p->kind == MSC_PHASE_REPROMOTE ? 0 : p->exact;

	p->bounds = exact == (MSC_EXACT_START | MSC_EXACT_END) ? MSC_BOUNDS_EXACT :
		    exact ? MSC_BOUNDS_BOUNDED : MSC_BOUNDS_INFERRED;
	if ((exact & MSC_EXACT_START) || p->kind == MSC_PHASE_REPROMOTE)
		p->slack_start_ns = 0;
	if ((exact & MSC_EXACT_END) || p->kind == MSC_PHASE_REPROMOTE)
		p->slack_end_ns = 0;
}

/*
 * The dirty rate, passively (struct msc_phase.dirtied).  Without PML a
 * write to a page protected for dirty logging takes the fast path, which
 * makes the leaf writable again (fast_page_fault(): the vCPUs' pass counts
 * it), or the slow path maps it writable; the harvest that collects the
 * page protects it again (kvm_arch_mmu_enable_log_dirty_pt_masked()).  With
 * PML the CPU only sets the D bit and logs the GPA, and the harvest clears
 * it (kvm_mmu_clear_dirty_pt_masked()).  So a harvest's protections and D
 * clears are the pages written since the last collection: KVM's bitmap.
 * Its window begins where the last collection ended: the last harvest that
 * collected pages (under manual protect a GET collects none, its CLEAR
 * does), or the enable.  Only the TDP MMU traces the protections: a shadow MMU
 * capture's phases see none.
 */
static void dirty_rate(struct msc_history *h)
{
	for (size_t i = 0; i < h->det.nr_phases; i++) {
		struct msc_phase *p = &h->det.phases[i].p;
		const struct msc_phase_counts *c = &h->det.phases[i].cost.count;

		p->dirtied = -1;
		p->dirty_window_ns = 0;
		if (!h->tdp_mmu)	/* the shadow MMU traces no protection of a leaf */
			continue;
		if (p->kind == MSC_PHASE_DIRTY_PASS) {
			p->dirtied = (int64_t)c->pages_fixed;
			p->dirty_window_ns = p->end_ts - p->start_ts;
		} else if (p->kind == MSC_PHASE_HARVEST && p->source != MSC_PHASE_SRC_MARKER) {
			p->dirtied = (int64_t)c->pages_collected;
		}
	}
	for (size_t k = 0; k < h->det.nr_phases; k++) {
		struct msc_phase *q = &h->det.phases[k].p;
		const struct hphase *from = NULL;

		if (q->kind != MSC_PHASE_HARVEST || q->dirtied < 0)
			continue;
		for (size_t i = 0; i < h->det.nr_phases; i++) {
			const struct msc_phase *e = &h->det.phases[i].p;
			bool mark = e->kind == MSC_PHASE_ENABLE || e->kind == MSC_PHASE_DISABLE ||
				    (e->kind == MSC_PHASE_HARVEST && e->dirtied > 0);

			if (mark && e->vm == q->vm && e->source != MSC_PHASE_SRC_MARKER && e != q &&
			    e->end_ts <= q->start_ts && (!from || e->end_ts > from->p.end_ts))
				from = &h->det.phases[i];
		}
		/*
		 * The first collection of a cycle whose enable was not seen, or
		 * protected nothing (KVM_DIRTY_LOG_INITIALLY_SET: every page is
		 * reported dirty), has no window: its pages were not written in one.
		 */
		if (from && from->p.kind != MSC_PHASE_DISABLE &&
		    (from->p.kind != MSC_PHASE_ENABLE || protected(&from->cost.count)))
			q->dirty_window_ns = q->start_ts - from->p.end_ts;
	}
}

/** hphase_finish - settle every phase (open ones as they are now) for writing */
void hphase_finish(struct msc_history *h)
{
	for (size_t i = 0; i < h->det.nr_phases; i++) {
		struct hphase *ph = &h->det.phases[i];

		if (ph->open && !trails(h, i))
			phase_settle(h, ph);
		phase_bounds(ph);
	}
	dirty_rate(h);
}
