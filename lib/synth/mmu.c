// SPDX-License-Identifier: GPL-2.0-only
/*
 * The TDP MMU of the model: real page tables of real SPTE values, changed
 * the way arch/x86/kvm/mmu/tdp_mmu.c changes them, with the events its
 * tracepoints emit at those points and in that order (docs/kvm-mmu.md: "Tracepoints" to "Dirty logging",
 * checked against the captures in tests/data/traces):
 *
 *  - every traced write is one kvm_tdp_mmu_spte_changed, emitted before a
 *    removed table is handled (prepare_zap_page, then each child to FROZEN;
 *    an atomic (shared) removal also traces non-present children, an
 *    exclusive one skips them); from 7.x on after it (docs/kvm-mmu.md,
 *    "What the TDP MMU trace shows");
 *  - tables carry the era's role (direct, ACC_ALL in a 3- or 4-bit access
 *    field, efer_nx, cr0_wp), which 7.x also traces as the access a fault
 *    requests;
 *  - a split emits get_page, the parent's huge -> table change and
 *    split_huge_page; the 512 children are written untraced;
 *  - the lockless fast path emits only fast_page_fault;
 *  - page counters change with every leaf that appears or goes
 *    (kvm_update_page_stats()), split children included.
 *
 * Walks visit entries in GFN order, parents before children, as
 * for_each_tdp_pte() does.
 *
 * The vCPUs take their steps in time order (model.c), each step whole: a
 * vCPU whose clock is behind may find a table that another linked in a
 * step which ran on past that clock.  Its walk then waits for the link
 * (reach()).  Invariant: no event of a thread reads or changes an entry of
 * a table before that table's link event, which a trace merged by time
 * shows first, as a kernel's would.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mmuscope/util.h"
#include "local.h"

/* Host frames: page tables from TABLE_PFN up, the code slot, the test slot. */
#define TABLE_PFN 0x2c00ULL
#define CODE_PFN 0xfe000ULL
#define DATA_PFN 0x100000ULL		/* 4 GiB: aligned for 1 GiB pages */

/* Error code bits of kvm_page_fault / fast_page_fault (PFERR_*). */
#define PF_PRESENT (1ULL << 0)
#define PF_WRITE (1ULL << 1)
#define PF_USER (1ULL << 2)
#define PF_FETCH (1ULL << 4)
#define PF_GUEST_FINAL (1ULL << 32)
/* EPT violation exit qualification (arch/x86/include/asm/vmx.h) */
#define EPT_ACC_READ (1ULL << 0)
#define EPT_ACC_WRITE (1ULL << 1)
#define EPT_ACC_INSTR (1ULL << 2)
#define EPT_PROT_SHIFT 3	/* EPT_VIOLATION_RWX_TO_PROT() */
#define EPT_GVA_VALID (1ULL << 7)
#define EPT_GVA_TRANSLATED (1ULL << 8)

#define GUEST_RIP 0x1000		/* dirtylog's code page */

/* Costs in ns of the steps the events mark (a recent x86 host). */
enum {
	T_EXIT = 900,		/* #NPF exit to the fault handler */
	T_FAST_FIX = 250,	/* lockless cmpxchg */
	T_ENTRY = 800,		/* back into the guest */
	T_WALK = 25,		/* one SPTE of a memslot-wide walk */
	T_MAP = 1200,		/* slow path: one SPTE installed */
	T_TABLE = 1800,		/* allocate, fill and link a page table */
	T_ZAP_CHILD = 30,	/* one child of a removed table */
};

static uint64_t pages(unsigned int level)
{
	return msc_level_pages(level);
}

static unsigned int idx(uint64_t gfn, unsigned int level)
{
	return (unsigned int)(gfn >> (9 * (level - 1))) & 511;
}

static bool present(const struct synth_model *m, uint64_t s)
{
	return s & m->l.present;
}

static bool leaf(const struct synth_model *m, unsigned int level, uint64_t s)
{
	return present(m, s) && (level == 1 || (s & m->l.huge));
}

static uint64_t slot_end(const struct synth_model *m)
{
	return m->slot_gfn + m->slot_pages;
}

static uint64_t host_pfn(const struct synth_model *m, uint64_t gfn)
{
	return gfn < m->slot_gfn ? CODE_PFN + gfn : DATA_PFN + (gfn - m->slot_gfn);
}

static uint64_t leaf_spte(const struct synth_model *m, uint64_t pfn, unsigned int level)
{
	/* make_spte(): writable mappings are created accessed and dirty */
	uint64_t s = m->leaf_bits | m->l.present | m->l.accessed | m->l.dirty | m->l.writable |
		     m->l.host_writable | m->l.mmu_writable | pfn << 12;

	return level > 1 ? s | m->l.huge : s;
}

static uint64_t table_spte(const struct synth_model *m, const struct synth_pt *pt)
{
	return m->table_bits | m->l.present | m->l.writable | m->l.accessed | pt->pfn << 12;
}

static struct synth_pt *pt_new(struct synth_model *m, unsigned int level, uint64_t gfn)
{
	struct synth_pt *pt = calloc(1, sizeof(*pt));

	if (!pt)
		goto nomem;
	if (level > 1) {
		pt->child = calloc(512, sizeof(*pt->child));
		if (!pt->child)
			goto nomem;
	}
	for (int i = 0; i < 512; i++)
		pt->spte[i] = m->l.nonpresent;
	pt->level = level;
	pt->gfn = gfn & ~(pages(level + 1) - 1);
	pt->pfn = m->next_table_pfn++;
	return pt;
nomem:
	if (pt)
		free(pt);
	if (!m->r)
		m->r = -ENOMEM;
	return NULL;
}

/* Store @s, keeping the page counters (pages_4k/2m/1g) in step. */
static void set_entry(struct synth_model *m, struct synth_pt *pt, unsigned int i, uint64_t s)
{
	unsigned int level = pt->level;

	if (level <= 3 && leaf(m, level, pt->spte[i]))
		m->leaves[level]--;
	if (level <= 3 && leaf(m, level, s))
		m->leaves[level]++;
	pt->spte[i] = s;
}

static uint64_t entry_gfn(const struct synth_pt *pt, unsigned int i)
{
	return pt->gfn + i * pages(pt->level);
}

/* Table @pt, as @t's walk comes to it: not before it was linked. */
static struct synth_pt *reach(struct synth_thread *t, struct synth_pt *pt)
{
	if (pt && t->clock < pt->linked)
		t->clock = pt->linked;
	return pt;
}

/* ---- events ---- */

static void ev_spte(struct synth_model *m, struct synth_thread *t, uint64_t gfn,
		    unsigned int level, uint64_t old, uint64_t new, uint64_t cost)
{
	struct msc_event *e = synth_event(m, MSC_EV_SPTE_CHANGED);

	e->spte = (struct msc_ev_spte){ .gfn = gfn, .old_spte = old, .new_spte = new,
					.level = (uint8_t)level };
	synth_emit(m, t, cost);
}

static void ev_sp(struct synth_model *m, struct synth_thread *t, int type,
		  const struct synth_pt *pt, uint64_t cost)
{
	struct msc_event *e = synth_event(m, type);

	e->sp = (struct msc_ev_sp){ .gfn = pt->gfn, .role = m->role | pt->level,
				    .created = type == MSC_EV_GET_PAGE };
	synth_emit(m, t, cost);
}

static uint64_t error_code(const struct synth_model *m, bool present_, bool write, bool fetch)
{
	uint64_t ec = PF_GUEST_FINAL;

	if (m->l.vendor == MSC_VENDOR_NPT)
		ec |= PF_USER;
	if (present_)
		ec |= PF_PRESENT;
	if (write)
		ec |= PF_WRITE;
	if (fetch)
		ec |= PF_FETCH;
	return ec;
}

/*
 * What an EPT violation's kvm_page_fault records: the exit qualification
 * (handle_ept_violation()), not the PFERR code KVM derives from it; on NPT
 * the PFERR code itself.  The workload's guest runs in ring 0 without
 * paging, so its address is a valid, translated, supervisor GVA, and a
 * present leaf's R/W/X (the tables above have all three) are the
 * permissions the walk found.
 */
static uint64_t fault_code(const struct synth_model *m, uint64_t ec, bool leaf_,
			   uint64_t spte, bool write, bool fetch)
{
	uint64_t q = EPT_GVA_VALID | EPT_GVA_TRANSLATED;

	if (m->l.vendor != MSC_VENDOR_EPT)
		return ec;
	q |= write ? EPT_ACC_WRITE : fetch ? EPT_ACC_INSTR : EPT_ACC_READ;
	if (leaf_)
		q |= (spte & 7) << EPT_PROT_SHIFT;
	return q;
}

static void ev_page_fault(struct synth_model *m, struct synth_thread *t, uint64_t gfn,
			  uint64_t ec)
{
	struct msc_event *e = synth_event(m, MSC_EV_PAGE_FAULT);

	e->pf = (struct msc_ev_page_fault){ .vcpu = (uint32_t)t->vcpu, .gpa = gfn << 12,
					    .error_code = ec, .rip = GUEST_RIP };
	synth_emit(m, t, T_EXIT);
}

static void ev_fast_pf(struct synth_model *m, struct synth_thread *t, uint64_t gfn, uint64_t ec,
		       uint64_t old, uint64_t new, int ret)
{
	struct msc_event *e = synth_event(m, MSC_EV_FAST_PF);

	e->fast_pf = (struct msc_ev_fast_pf){
		.vcpu = t->vcpu, .gpa = gfn << 12, .old_spte = old,
		.error_code = m->k->fast_pf_ec32 ? (uint32_t)ec : ec,
		.new_spte = new, .ret = ret,
		.result = ret == m->k->ret_pf_fixed ? MSC_FPF_FIXED : MSC_FPF_OTHER,
	};
	synth_emit(m, t, T_FAST_FIX);
}

/* ---- the page tables ---- */

/**
 * synth_mmu_init - an empty MMU for the model's memory
 * @m: the model, with its layout and slot already set
 */
int synth_mmu_init(struct synth_model *m)
{
	m->next_table_pfn = TABLE_PFN;
	m->dirty = calloc((m->slot_pages + 63) / 64, sizeof(*m->dirty));
	return m->dirty ? 0 : -ENOMEM;
}

static void pt_free(struct synth_pt *pt)
{
	if (!pt)
		return;
	if (pt->child)
		for (int i = 0; i < 512; i++)
			pt_free(pt->child[i]);
	free(pt->child);
	free(pt);
}

void synth_mmu_release(struct synth_model *m)
{
	pt_free(m->root);
	m->root = NULL;
	free(m->dirty);
	m->dirty = NULL;
}

/**
 * synth_mmu_load - the root, made when the first vCPU enters the guest
 * @m: the model
 * @t: that vCPU
 */
void synth_mmu_load(struct synth_model *m, struct synth_thread *t)
{
	if (m->root) {
		reach(t, m->root);
		return;
	}
	m->root = pt_new(m, 4, 0);
	if (m->root) {
		ev_sp(m, t, MSC_EV_GET_PAGE, m->root, T_TABLE);
		m->root->linked = t->clock;
	}
}

/* Largest page KVM may map @gfn with: the backing, the slot, dirty logging. */
static unsigned int max_level(const struct synth_model *m, uint64_t gfn, bool logging)
{
	unsigned int level = m->backing_level;

	if (gfn < m->slot_gfn || logging)
		return 1;
	for (; level > 1; level--) {
		uint64_t base = gfn & ~(pages(level) - 1);

		if (base >= m->slot_gfn && base + pages(level) <= slot_end(m))
			break;
	}
	return level;
}

static void mark_dirty(struct synth_model *m, uint64_t gfn)
{
	if (m->logging && gfn >= m->slot_gfn && gfn < slot_end(m))
		m->dirty[(gfn - m->slot_gfn) / 64] |= 1ULL << ((gfn - m->slot_gfn) % 64);
}

/*
 * tdp_mmu_split_huge_page(): a table whose 512 entries continue the huge
 * mapping (make_huge_page_split_spte(): huge again above 4K), written
 * before it is linked, so only the parent's change is traced.
 */
static struct synth_pt *split_entry(struct synth_model *m, struct synth_thread *t,
				    struct synth_pt *pt, unsigned int i)
{
	uint64_t huge = pt->spte[i], gfn = entry_gfn(pt, i);
	unsigned int level = pt->level;
	struct synth_pt *child = pt_new(m, level - 1, gfn);
	struct msc_event *e;

	if (!child)
		return NULL;
	ev_sp(m, t, MSC_EV_GET_PAGE, child, T_TABLE);
	for (unsigned int j = 0; j < 512; j++) {
		uint64_t s = huge + ((j * pages(level - 1)) << 12);

		set_entry(m, child, j, level - 1 == 1 ? s & ~m->l.huge : s);
	}
	ev_spte(m, t, gfn, level, huge, table_spte(m, child), T_WALK);
	set_entry(m, pt, i, table_spte(m, child));
	pt->child[i] = child;
	child->linked = t->clock;
	e = synth_event(m, MSC_EV_SPLIT);
	e->split = (struct msc_ev_split){ .gfn = gfn, .spte = huge, .level = (int32_t)level };
	synth_emit(m, t, T_WALK);
	return child;
}

static void remove_table(struct synth_model *m, struct synth_thread *t, struct synth_pt *pt,
			 bool shared);

/*
 * Change @pt[@i] to @new, traced; a table it pointed to is removed right
 * after the event, or right before it from 7.x on (__handle_changed_spte()
 * calls handle_removed_pt() before trace_kvm_tdp_mmu_spte_changed()).
 */
static void change_entry(struct synth_model *m, struct synth_thread *t, struct synth_pt *pt,
			 unsigned int i, uint64_t new, bool shared, uint64_t cost)
{
	struct synth_pt *child = pt->child ? pt->child[i] : NULL;
	uint64_t old = pt->spte[i];

	if (child)
		pt->child[i] = NULL;
	if (child && m->k->removed_first)
		remove_table(m, t, child, shared);
	ev_spte(m, t, entry_gfn(pt, i), pt->level, old, new, cost);
	set_entry(m, pt, i, new);
	if (child && !m->k->removed_first)
		remove_table(m, t, child, shared);
}

/*
 * handle_removed_pt(): announce the table, then every child goes FROZEN;
 * a child table is handled in turn, next to its own event.
 */
static void remove_table(struct synth_model *m, struct synth_thread *t, struct synth_pt *pt,
			 bool shared)
{
	ev_sp(m, t, MSC_EV_ZAP_PAGE, pt, T_WALK);
	for (unsigned int j = 0; j < 512; j++) {
		uint64_t s = pt->spte[j];

		if ((!shared && !present(m, s)) || s == m->l.frozen)
			continue;
		change_entry(m, t, pt, j, m->l.frozen, shared, T_ZAP_CHILD);
	}
	pt_free(pt);
}

/* Replace the table at @pt[@i] by @new (traced), removing the table. */
static void replace_table(struct synth_model *m, struct synth_thread *t, struct synth_pt *pt,
			  unsigned int i, uint64_t new, bool shared)
{
	change_entry(m, t, pt, i, new, shared, T_WALK);
}

/* Link a new, empty table into the non-present entry @pt[@i]. */
static struct synth_pt *link_table(struct synth_model *m, struct synth_thread *t,
				   struct synth_pt *pt, unsigned int i)
{
	struct synth_pt *child = pt_new(m, pt->level - 1, entry_gfn(pt, i));

	if (!child)
		return NULL;
	ev_sp(m, t, MSC_EV_GET_PAGE, child, T_TABLE);
	ev_spte(m, t, entry_gfn(pt, i), pt->level, pt->spte[i], table_spte(m, child), T_WALK);
	set_entry(m, pt, i, table_spte(m, child));
	pt->child[i] = child;
	child->linked = t->clock;
	return child;
}

/* kvm_tdp_mmu_map(): the slow path of a fault on @gfn. */
static void slow_map(struct synth_model *m, struct synth_thread *t, uint64_t gfn)
{
	unsigned int goal = max_level(m, gfn, m->logging), i;
	uint64_t base = gfn & ~(pages(goal) - 1), old, new;
	struct synth_pt *pt = m->root;
	struct msc_event *e;

	e = synth_event(m, MSC_EV_SPTE_REQUESTED);
	e->req = (struct msc_ev_requested){ .gfn = gfn, .pfn = host_pfn(m, base),
					    .level = (uint8_t)goal,
					    .access = m->req_access ? (int16_t)m->root_access : -1 };
	synth_emit(m, t, T_WALK);
	for (unsigned int level = pt->level; pt && level > goal; level--) {
		i = idx(gfn, level);
		if (leaf(m, level, pt->spte[i])) {
			if (m->k->fault_split) {
				pt = split_entry(m, t, pt, i);
				continue;
			}
			/* before 6.2 the fault path zaps the huge page, then relinks */
			ev_spte(m, t, entry_gfn(pt, i), level, pt->spte[i], m->l.frozen, T_WALK);
			synth_flush(m, t, true, false);
			set_entry(m, pt, i, m->l.nonpresent);
		}
		pt = present(m, pt->spte[i]) ? reach(t, pt->child[i]) : link_table(m, t, pt, i);
	}
	if (!pt)
		return;
	i = idx(gfn, goal);
	old = pt->spte[i];
	new = leaf_spte(m, host_pfn(m, base), goal);
	if (old == new)
		return;		/* another vCPU got there first: spurious */
	ev_spte(m, t, base, goal, old, new, T_MAP);
	set_entry(m, pt, i, new);
	e = synth_event(m, MSC_EV_SET_SPTE);
	e->set_spte = (struct msc_ev_set_spte){
		.gfn = base, .spte = new, .sptep = pt->pfn << 12 | i * 8, .level = (uint8_t)goal,
		.r = 1, .x = 1, .u = 1,
	};
	synth_emit(m, t, T_ENTRY);
	if (goal == 1)
		mark_dirty(m, gfn);
}

/**
 * synth_mmu_access - a guest access by a vCPU
 * @m: the model
 * @t: the vCPU
 * @gfn: the page
 * @write: a store
 * @fetch: an instruction fetch
 *
 * Returns how many pages from @gfn on the guest can now touch the same way
 * without an exit (the rest of a writable huge page), at least 1.
 */
uint64_t synth_mmu_access(struct synth_model *m, struct synth_thread *t, uint64_t gfn,
			  bool write, bool fetch)
{
	struct synth_pt *pt = m->root;
	unsigned int level, i = 0;
	uint64_t s = 0, ec;

	if (!pt)
		return 1;	/* out of memory: m->r says so */
	for (level = pt->level; pt; level--) {
		i = idx(gfn, level);
		s = pt->spte[i];
		if (!present(m, s) || leaf(m, level, s))
			break;
		pt = reach(t, pt->child[i]);
	}
	if (leaf(m, level, s) && (!write || (s & m->l.writable))) {
		bool pml = m->o->pml && m->logging && gfn >= m->slot_gfn;

		if (!write)
			return 1;
		if (!(s & m->l.dirty)) {
			/* the CPU sets D, with PML it logs the GPA too: no exit */
			pt->spte[i] = s | m->l.dirty;
			if (pml)
				mark_dirty(m, gfn);
		}
		if (pml)
			return 1;
		return pages(level) - (gfn & (pages(level) - 1));
	}
	ec = error_code(m, leaf(m, level, s), write, fetch);
	ev_page_fault(m, t, gfn, fault_code(m, ec, leaf(m, level, s), s, write, fetch));
	if (leaf(m, level, s)) {
		/* fast_page_fault(): a write to a write-protected leaf */
		bool fixable = (s & m->l.mmu_writable) && !(level > 1 && m->logging);

		if (fixable) {
			uint64_t new = s | m->l.writable | m->l.dirty;

			ev_fast_pf(m, t, gfn, ec, s, new, m->k->ret_pf_fixed);
			pt->spte[i] = new;
			mark_dirty(m, gfn);
			t->clock += synth_cost(m, T_ENTRY);
			return 1;
		}
		ev_fast_pf(m, t, gfn, ec, s, s, m->k->ret_pf_fixed - 1);	/* RET_PF_INVALID */
	}
	slow_map(m, t, gfn);
	return 1;
}

/* tdp_mmu_split_huge_pages_root(): split every huge leaf over [lo, hi). */
static void split_range(struct synth_model *m, struct synth_thread *t, struct synth_pt *pt,
			uint64_t lo, uint64_t hi)
{
	for (unsigned int i = 0; i < 512 && !m->r; i++) {
		uint64_t gfn = entry_gfn(pt, i);
		struct synth_pt *child = NULL;

		if (gfn + pages(pt->level) <= lo || gfn >= hi || !present(m, pt->spte[i]))
			continue;
		if (leaf(m, pt->level, pt->spte[i]))
			child = split_entry(m, t, pt, i);
		else
			child = pt->child[i];
		if (child && child->level > 1)
			split_range(m, t, child, lo, hi);
	}
}

/**
 * synth_mmu_split_slot - eager page splitting of the test slot
 * @m: the model
 * @t: the thread doing it (the ioctl caller)
 */
void synth_mmu_split_slot(struct synth_model *m, struct synth_thread *t)
{
	split_range(m, t, m->root, m->slot_gfn, slot_end(m));
}

/* Clear @bits of the leaf @pt[@i], traced, if any is set. */
static void clear_bits(struct synth_model *m, struct synth_thread *t, struct synth_pt *pt,
		       unsigned int i, uint64_t bits, uint64_t cost)
{
	uint64_t s = pt->spte[i];

	if (s & bits) {
		ev_spte(m, t, entry_gfn(pt, i), pt->level, s, s & ~bits, cost);
		set_entry(m, pt, i, s & ~bits);
	} else {
		t->clock += cost;
	}
}

static void protect_range(struct synth_model *m, struct synth_thread *t, struct synth_pt *pt,
			  unsigned int min_level, uint64_t bits)
{
	for (unsigned int i = 0; i < 512 && !m->r; i++) {
		uint64_t gfn = entry_gfn(pt, i), s = pt->spte[i];

		if (gfn + pages(pt->level) <= m->slot_gfn || gfn >= slot_end(m) || !present(m, s))
			continue;
		if (leaf(m, pt->level, s))
			clear_bits(m, t, pt, i, bits, T_WALK);
		else if (pt->level > min_level)
			protect_range(m, t, pt->child[i], min_level, bits);
	}
}

/**
 * synth_mmu_protect_slot - write-protect, or clear the D bit of, the slot
 * @m: the model
 * @t: the ioctl caller
 * @min_level: lowest level visited (kvm_mmu_slot_remove_write_access())
 * @clear_dirty: clear D instead of W (kvm_mmu_slot_leaf_clear_dirty())
 */
void synth_mmu_protect_slot(struct synth_model *m, struct synth_thread *t, unsigned int min_level,
			    bool clear_dirty)
{
	protect_range(m, t, m->root, min_level, clear_dirty ? m->l.dirty : m->l.writable);
}

/* The leaf mapping @gfn at @level or above, NULL if none. */
static struct synth_pt *find_leaf(struct synth_model *m, uint64_t gfn, unsigned int *ret_i)
{
	struct synth_pt *pt = m->root;

	while (pt) {
		unsigned int i = idx(gfn, pt->level);

		if (leaf(m, pt->level, pt->spte[i])) {
			*ret_i = i;
			return pt;
		}
		if (!present(m, pt->spte[i]))
			return NULL;
		pt = pt->child[i];
	}
	return NULL;
}

/* kvm_mmu_slot_gfn_write_protect(gfn, PG_LEVEL_2M): W and MMU-writable. */
static void protect_huge(struct synth_model *m, struct synth_thread *t, uint64_t gfn)
{
	unsigned int i;
	struct synth_pt *pt = find_leaf(m, gfn, &i);

	if (pt && pt->level > 1)
		clear_bits(m, t, pt, i, m->l.writable | m->l.mmu_writable, T_WALK);
}

/**
 * synth_mmu_protect_masked - kvm_arch_mmu_enable_log_dirty_pt_masked()
 * @m: the model
 * @t: the ioctl caller
 * @gfn: first page of the 64-page word
 * @mask: the pages of the word to re-protect (non-zero)
 *
 * With manual protection and INITIALLY_SET the range is first split
 * (eager splitting) and its huge pages write-protected; then each 4K leaf
 * of the mask loses W (or D with PML).
 */
void synth_mmu_protect_masked(struct synth_model *m, struct synth_thread *t, uint64_t gfn,
			      uint64_t mask)
{
	uint64_t start = gfn + (uint64_t)__builtin_ctzll(mask);
	uint64_t end = gfn + 63 - (uint64_t)__builtin_clzll(mask);
	uint64_t bits = m->o->pml ? m->l.dirty : m->l.writable;

	if (m->o->clear_log) {
		if (m->o->eager_split)
			split_range(m, t, m->root, start, end + 1);
		protect_huge(m, t, start);
		if ((start >> 9) != (end >> 9))
			protect_huge(m, t, end);
	}
	for (uint64_t g = start; g <= end && !m->r; g++) {
		unsigned int i;
		struct synth_pt *pt;

		if (!(mask & (1ULL << (g - gfn))))
			continue;
		pt = find_leaf(m, g, &i);
		if (pt && pt->level == 1)
			clear_bits(m, t, pt, i, bits, T_WALK);
	}
}

/* The first leaf under @pt, made huge at @level (make_huge_spte()). */
static uint64_t huge_from(const struct synth_model *m, const struct synth_pt *pt,
			  unsigned int level)
{
	for (unsigned int j = 0; j < 512; j++) {
		uint64_t s = pt->spte[j];

		if (leaf(m, pt->level, s))
			return (s | m->l.huge) & ~(((pages(level) - 1)) << 12);
		if (present(m, s) && pt->child[j]) {
			uint64_t h = huge_from(m, pt->child[j], level);

			if (h)
				return h;
		}
	}
	return 0;
}

/* Zap (<= 6.12) or recover (6.13+) the tables that could be huge pages. */
static bool collapse_range(struct synth_model *m, struct synth_thread *t, struct synth_pt *pt)
{
	bool any = false;

	for (unsigned int i = 0; i < 512 && !m->r; i++) {
		uint64_t gfn = entry_gfn(pt, i), s = pt->spte[i], huge;
		unsigned int level = pt->level;

		if (gfn + pages(level) <= m->slot_gfn || gfn >= slot_end(m) || !present(m, s) ||
		    leaf(m, level, s))
			continue;
		if (level > 3 || gfn < m->slot_gfn || max_level(m, gfn, false) < level) {
			if (level > 2)
				any |= collapse_range(m, t, pt->child[i]);
			continue;
		}
		switch (m->k->disable) {
		case DISABLE_ZAP_FROZEN_FIRST:
			replace_table(m, t, pt, i, m->l.frozen, true);
			synth_flush(m, t, true, false);
			set_entry(m, pt, i, m->l.nonpresent);	/* untraced */
			break;
		case DISABLE_ZAP_FLUSH_FIRST:
			synth_flush(m, t, true, false);
			replace_table(m, t, pt, i, m->l.nonpresent, true);
			break;
		case DISABLE_RECOVER:
			huge = huge_from(m, pt->child[i], level);
			if (!huge)
				continue;
			replace_table(m, t, pt, i, huge, true);
			any = true;
			break;
		}
	}
	return any;
}

/**
 * synth_mmu_collapse - disabling dirty logging: back to huge pages
 * @m: the model
 * @t: the ioctl caller
 *
 * Up to 6.12 each table that a huge page could replace is zapped with its
 * own flush (the huge page comes back on the next fault); from 6.13 it is
 * replaced in place and one flush covers the memslot.
 */
void synth_mmu_collapse(struct synth_model *m, struct synth_thread *t)
{
	if (collapse_range(m, t, m->root) && m->k->disable == DISABLE_RECOVER)
		synth_flush(m, t, false, true);
}

static void zap_level(struct synth_model *m, struct synth_thread *t, struct synth_pt *pt,
		      unsigned int level)
{
	for (unsigned int i = 0; i < 512 && !m->r; i++) {
		uint64_t s = pt->spte[i];

		if (!present(m, s))
			continue;
		if (pt->level > level) {
			if (!leaf(m, pt->level, s))
				zap_level(m, t, pt->child[i], level);
			continue;
		}
		replace_table(m, t, pt, i, m->l.nonpresent, false);
	}
}

/**
 * synth_mmu_teardown - the VM goes away: every root is zapped
 * @m: the model
 * @t: the thread closing the VM
 *
 * tdp_mmu_zap_root() zaps in passes of growing size: 4K, 2M, 1G, root
 * since 6.3; 1G and root before, so that a whole subtree goes at once.
 */
void synth_mmu_teardown(struct synth_model *m, struct synth_thread *t)
{
	static const unsigned int all[] = { 1, 2, 3, 4 }, big[] = { 3, 4 };
	const unsigned int *levels = m->k->zap_4k_first ? all : big;
	size_t n = m->k->zap_4k_first ? ARRAY_SIZE(all) : ARRAY_SIZE(big);

	if (!m->root)
		return;
	for (size_t p = 0; p < n; p++)
		zap_level(m, t, m->root, levels[p]);
	pt_free(m->root);
	m->root = NULL;
}
