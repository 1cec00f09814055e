// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host description, its inference from SPTE values, and the classifier.
 */
#include "mmuscope/host.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmuscope/error.h"
#include "mmuscope/event.h"
#include "mmuscope/util.h"

#define PRESENT_BIT BIT_ULL(11)	/* SPTE_MMU_PRESENT_MASK, both vendors, 5.13+ */
#define ROLE_DIRECT (1u << 7)	/* kvm_mmu_page_role.direct */

/*
 * Bits only EPT sets in a present SPTE: memory type (3, 4), EPT A (8), and
 * KVM's software bits 62:52 (A/D type, host/MMU-writable, saved access
 * bits: struct msc_ept_sw), which the x86 PTE format reserves.  Bits only
 * that format (NPT and shadow paging) sets without any of those: A (5),
 * MMU-writable (10); 7.x's EPT sets 10 too (XU), always beside bit 8 or a
 * software bit.
 */
#define EPT_ONLY (BIT_ULL(3) | BIT_ULL(4) | BIT_ULL(8) | GENMASK_ULL(62, 52))
#define NPT_ONLY (BIT_ULL(5) | BIT_ULL(10))

/* Enough evidence to stop buffering: a lopsided vendor vote and an era. */
#define SETTLE_VOTES 16
#define SETTLE_NONPRESENT 4	/* installs that show the non-present value */

static const char *const vendor_names[] = {
	[MSC_VENDOR_UNKNOWN] = "unknown",
	[MSC_VENDOR_NPT] = "npt",
	[MSC_VENDOR_EPT] = "ept",
};

static const char *const source_names[] = {
	[MSC_HOST_DEFAULT] = "default",
	[MSC_HOST_INFERRED] = "inferred",
	[MSC_HOST_LIVE] = "live",
	[MSC_HOST_OVERRIDE] = "override",
};

const char *msc_vendor_name(enum msc_vendor vendor)
{
	return vendor < ARRAY_SIZE(vendor_names) ? vendor_names[vendor] : "?";
}

const char *msc_host_source_name(enum msc_host_source source)
{
	return source < ARRAY_SIZE(source_names) ? source_names[source] : "?";
}

/** msc_host_init - a host nothing is known about */
void msc_host_init(struct msc_host *host)
{
	*host = (struct msc_host){ 0 };
}

static void special_set(struct msc_special *sp, uint64_t value, uint64_t events,
			enum msc_learnt from)
{
	*sp = (struct msc_special){ .value = value, .events = events, .from = (uint8_t)from };
}

static int parse_bool(const char *v)
{
	if (!strcmp(v, "1") || !strcmp(v, "y") || !strcmp(v, "Y") || !strcmp(v, "yes"))
		return 1;
	if (!strcmp(v, "0") || !strcmp(v, "n") || !strcmp(v, "N") || !strcmp(v, "no"))
		return 0;
	return -1;
}

/**
 * msc_host_set - override one host fact
 * @host: the host
 * @key: vendor (npt|ept), release (e.g. 6.12.0), ept_ad (y|n),
 *	tdp_mmu (y|n), nonpresent and frozen (SPTE values without the
 *	MMU-present bit 11, e.g. 0x8000000000000000 and 0x80000000000001a0),
 *	role_access (3|4, the bits of the page role's access field), ept_sw
 *	(EPT host- | MMU-writable bits of a known layout: 0x600000000000000
 *	or 0xa0000000000000)
 * @value: its value
 *
 * Returns 0 or -EINVAL for an unknown key or a bad value.
 */
int msc_host_set(struct msc_host *host, const char *key, const char *value)
{
	int b;

	if (!strcmp(key, "vendor")) {
		if (!strcmp(value, "npt"))
			host->vendor = MSC_VENDOR_NPT;
		else if (!strcmp(value, "ept"))
			host->vendor = MSC_VENDOR_EPT;
		else
			return -EINVAL;
		host->vendor_source = MSC_HOST_OVERRIDE;
	} else if (!strcmp(key, "release")) {
		if (!msc_kver_parse(value))
			return -EINVAL;
		snprintf(host->release, sizeof(host->release), "%s", value);
		host->kver = msc_kver_parse(value);
		host->kver_source = MSC_HOST_OVERRIDE;
	} else if (!strcmp(key, "nonpresent") || !strcmp(key, "frozen")) {
		char *end;
		unsigned long long v;

		errno = 0;
		v = strtoull(value, &end, 0);
		if (errno || end == value || *end || (v & PRESENT_BIT))
			return -EINVAL;
		special_set(key[0] == 'n' ? &host->nonpresent : &host->frozen, v, 0,
			    MSC_LEARNT_OVERRIDE);
	} else if (!strcmp(key, "ept_sw")) {
		char *end;
		unsigned long long v;

		errno = 0;
		v = strtoull(value, &end, 0);
		if (errno || end == value || *end || !msc_ept_sw_find(v))
			return -EINVAL;
		special_set(&host->ept_sw, v, 0, MSC_LEARNT_OVERRIDE);
	} else if (!strcmp(key, "role_access")) {
		if (strcmp(value, "3") && strcmp(value, "4"))
			return -EINVAL;
		special_set(&host->role_access, (uint64_t)(value[0] - '0'), 0, MSC_LEARNT_OVERRIDE);
	} else if ((b = parse_bool(value)) < 0) {
		return -EINVAL;
	} else if (!strcmp(key, "ept_ad")) {
		host->ept_ad = b;
	} else if (!strcmp(key, "tdp_mmu")) {
		host->tdp_mmu = b;
	} else {
		return -EINVAL;
	}
	host->source = MSC_HOST_OVERRIDE;
	return 0;
}

/**
 * msc_host_parse_overrides - apply "key=value,key=value" overrides
 *
 * Returns 0 or -EINVAL at the first bad pair.
 */
int msc_host_parse_overrides(struct msc_host *host, const char *spec)
{
	char *copy = strdup(spec), *save = NULL;
	int r = 0;

	if (!copy)
		return -ENOMEM;
	for (char *kv = strtok_r(copy, ",", &save); kv && !r; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');

		if (!eq) {
			r = -EINVAL;
			break;
		}
		*eq = '\0';
		r = msc_host_set(host, kv, eq + 1);
	}
	free(copy);
	return r;
}

/** msc_votes_add - one more vote for @value */
void msc_votes_add(struct msc_value_votes *v, uint64_t value)
{
	for (size_t i = 0; i < ARRAY_SIZE(v->value); i++) {
		if (v->count[i] && v->value[i] != value)
			continue;
		v->value[i] = value;
		v->count[i]++;
		return;
	}
	v->others++;
}

/**
 * msc_votes_best - the value with the most votes
 * @v: the votes
 * @ret_value: receives it (untouched when there is none)
 *
 * Returns its count, 0 when nothing was voted for.
 */
uint64_t msc_votes_best(const struct msc_value_votes *v, uint64_t *ret_value)
{
	size_t best = 0;

	for (size_t i = 1; i < ARRAY_SIZE(v->value); i++)
		if (v->count[i] > v->count[best])
			best = i;
	if (v->count[best])
		*ret_value = v->value[best];
	return v->count[best];
}

static void vote(struct msc_host_guess *g, uint64_t spte)
{
	if (!(spte & PRESENT_BIT)) {
		if (spte & BIT_ULL(63))
			g->np63_votes++;
		else
			g->np0_votes++;
		return;
	}
	if (spte & EPT_ONLY) {
		g->ept_votes++;
		for (unsigned int i = 0; i < MSC_EPT_SW_NR; i++) {
			const struct msc_ept_sw *sw = msc_ept_sw_layout(i);
			uint64_t writable = sw->host_writable | sw->mmu_writable;
			unsigned int type = (spte >> sw->ad_shift) & 3;

			g->sw_votes[i] += (spte & writable) == writable;
			/* type 1 is SPTE_TDP_AD_DISABLED, 0 SPTE_TDP_AD_ENABLED */
			g->ad_off_votes[i] += type == 1;
			g->ad_on_votes[i] += !type;
		}
	} else if (spte & NPT_ONLY) {
		g->npt_votes++;
	}
}

/*
 * A new TDP page table (and any direct one) has role.access = ACC_ALL, all
 * ones, and is valid: the first clear bit above bit 8 ends the access field.
 */
static void vote_role(struct msc_host_guess *g, const struct msc_ev_sp *sp)
{
	unsigned int acc = (sp->role >> 8) & 0xf;

	if (!sp->created || !(sp->role & ROLE_DIRECT))
		return;
	if (acc == 0x0f)
		g->role4_votes++;
	else if (acc == 0x07)
		g->role3_votes++;
}

/** msc_host_guess_add - take the SPTE values of one event as evidence */
void msc_host_guess_add(struct msc_host_guess *g, const struct msc_event *ev)
{
	switch (ev->type) {
	case MSC_EV_SPTE_CHANGED:
		g->tdp_events++;
		vote(g, ev->spte.old_spte);
		vote(g, ev->spte.new_spte);
		if (!(ev->spte.old_spte & PRESENT_BIT) && (ev->spte.new_spte & PRESENT_BIT))
			msc_votes_add(&g->installs, ev->spte.old_spte);
		break;
	case MSC_EV_SPLIT:
		vote(g, ev->split.spte);
		break;
	case MSC_EV_FAST_PF:
		vote(g, ev->fast_pf.old_spte);
		vote(g, ev->fast_pf.new_spte);
		break;
	case MSC_EV_SET_SPTE:
		g->shadow_events++;
		vote(g, ev->set_spte.spte);
		break;
	case MSC_EV_GET_PAGE:
		vote_role(g, &ev->sp);
		break;
	default:
		break;
	}
}

/**
 * msc_host_guess_settled - true once more evidence would not change the guess
 * @g: the evidence
 * @host: what is known without it (a live host's vendor)
 */
bool msc_host_guess_settled(const struct msc_host_guess *g, const struct msc_host *host)
{
	uint64_t vendor = g->ept_votes + g->npt_votes, value;

	if (host->vendor_source <= MSC_HOST_INFERRED &&
	    (vendor < SETTLE_VOTES || (g->ept_votes && g->npt_votes)))
		return false;
	if (host->nonpresent.from >= MSC_LEARNT_EVENTS)
		return true;
	/* enough installs showed the non-present value; a live host without TDP events has none */
	return msc_votes_best(&g->installs, &value) >= SETTLE_NONPRESENT ||
	       (!g->tdp_events && host->vendor_source > MSC_HOST_INFERRED);
}

/* The non-present value: what installs replace, else the era bit 63 shows. */
static void learn_nonpresent(const struct msc_host_guess *g, struct msc_host *host, char *note,
			     size_t note_size)
{
	uint64_t v = 0, n = msc_votes_best(&g->installs, &v);
	int rel63 = host->kver ? host->kver >= MSC_KVER(6, 10, 0) : -1;

	if (host->nonpresent.from >= MSC_LEARNT_OVERRIDE)
		return;
	if (n)
		special_set(&host->nonpresent, v, n, MSC_LEARNT_EVENTS);
	else if (g->np63_votes || g->np0_votes)
		special_set(&host->nonpresent, g->np63_votes > g->np0_votes ? BIT_ULL(63) : 0,
			    max(g->np63_votes, g->np0_votes), MSC_LEARNT_VALUES);
	else
		return;
	if (rel63 >= 0 && rel63 != !!(host->nonpresent.value & BIT_ULL(63)) && !note[0])
		snprintf(note, note_size, "kernel %s but non-present SPTEs are %#llx: following the data",
			 host->release, (unsigned long long)host->nonpresent.value);
}

/*
 * EPT: the software layout is the one whose host- and MMU-writable bits the
 * most SPTEs carry (leaves of writable memory carry both); A/D bits are off
 * where more SPTEs carry that layout's SPTE_TDP_AD_DISABLED mark than none.
 */
static void learn_ept(const struct msc_host_guess *g, struct msc_host *host)
{
	const struct msc_ept_sw *sw;
	struct msc_spte_layout l;
	unsigned int best = 0;

	for (unsigned int i = 1; i < MSC_EPT_SW_NR; i++)
		if (g->sw_votes[i] > g->sw_votes[best])
			best = i;
	sw = msc_ept_sw_layout(best);
	if (host->ept_sw.from < MSC_LEARNT_OVERRIDE && g->sw_votes[best])
		special_set(&host->ept_sw, sw->host_writable | sw->mmu_writable, g->sw_votes[best],
			    MSC_LEARNT_VALUES);
	msc_spte_layout_init(&l, host);	/* the release's layout without a vote */
	for (unsigned int i = 0; i < MSC_EPT_SW_NR; i++)
		if (msc_ept_sw_layout(i)->mmu_writable == l.mmu_writable)
			best = i;
	if (host->source < MSC_HOST_OVERRIDE && (g->ad_on_votes[best] || g->ad_off_votes[best]))
		host->ept_ad = g->ad_on_votes[best] > g->ad_off_votes[best];
}

/**
 * msc_host_guess_apply - fill in what the evidence shows
 * @g: evidence
 * @host: facts with a stronger source than MSC_HOST_INFERRED are kept
 * @note: receives a one-line remark when the data contradicts the release
 *	or when votes disagree; "" otherwise
 * @note_size: size of @note
 *
 * Returns 0, or MSC_ERR_LAYOUT when present SPTEs carry both EPT-only and
 * x86-PTE-only bits in comparable numbers (no known layout fits).
 */
int msc_host_guess_apply(const struct msc_host_guess *g, struct msc_host *host, char *note,
			 size_t note_size)
{
	bool strong = host->vendor_source > MSC_HOST_INFERRED;
	int r = 0;

	note[0] = '\0';
	if (g->tdp_events)
		host->tdp_mmu = true;
	if (!strong && (g->ept_votes || g->npt_votes)) {
		uint64_t lo = min(g->ept_votes, g->npt_votes), hi = max(g->ept_votes, g->npt_votes);

		host->vendor = g->ept_votes > g->npt_votes ? MSC_VENDOR_EPT : MSC_VENDOR_NPT;
		host->vendor_source = MSC_HOST_INFERRED;
		if (lo * 10 > hi) {
			snprintf(note, note_size,
				 "SPTE values fit neither layout: %llu look EPT, %llu look NPT",
				 (unsigned long long)g->ept_votes, (unsigned long long)g->npt_votes);
			r = MSC_ERR_LAYOUT;
		}
	}
	if (host->vendor == MSC_VENDOR_EPT)
		learn_ept(g, host);
	learn_nonpresent(g, host, note, note_size);
	if (host->role_access.from < MSC_LEARNT_OVERRIDE && (g->role3_votes || g->role4_votes))
		special_set(&host->role_access, g->role4_votes > g->role3_votes ? 4 : 3,
			    max(g->role3_votes, g->role4_votes), MSC_LEARNT_EVENTS);
	if (host->source < MSC_HOST_INFERRED)
		host->source = MSC_HOST_INFERRED;
	return r;
}

/* Page tables whose removal a kvm_mmu_prepare_zap_page just announced. */
struct msc_teardown {
	uint64_t first[6];	/* per SP level: first GFN covered */
	uint64_t end[6];	/* one past the last; first == end: none */
	bool any;		/* some level's range is not empty */
};

/** msc_classifier_init - a classifier for one host's SPTE layout */
void msc_classifier_init(struct msc_classifier *c, const struct msc_host *host)
{
	*c = (struct msc_classifier){ .frozen = host->frozen };
	msc_spte_layout_init(&c->layout, host);
}

/*
 * A teardown child's new value that is not the non-present value is the
 * frozen one: it replaces the layout's (a release fallback, or an earlier
 * majority) once it has the most votes.  An override is never replaced.
 */
static void learn_frozen(struct msc_classifier *c, uint64_t value)
{
	uint64_t v = 0, n;

	if (value == c->layout.nonpresent || c->frozen.from >= MSC_LEARNT_OVERRIDE)
		return;
	msc_votes_add(&c->teardown, value);
	n = msc_votes_best(&c->teardown, &v);
	special_set(&c->frozen, v, n, MSC_LEARNT_EVENTS);
	c->layout.frozen = v;
}

/**
 * msc_classifier_learnt - what the classified events taught about @host
 *
 * Sets host->frozen to the value teardowns showed, when they showed one.
 */
void msc_classifier_learnt(const struct msc_classifier *c, struct msc_host *host)
{
	if (c->frozen.from >= host->frozen.from)
		host->frozen = c->frozen;
	if (host->nonpresent.from == MSC_LEARNT_EVENTS)
		host->nonpresent.events = c->installs;
}

/**
 * msc_classifier_set_host - take a better description of the host
 *
 * For a reader that refines its guess as it goes (the trace-cmd plugin):
 * the layout is recomputed, and the frozen value teardowns showed is kept.
 */
void msc_classifier_set_host(struct msc_classifier *c, const struct msc_host *host)
{
	msc_spte_layout_init(&c->layout, host);
	if (c->frozen.from == MSC_LEARNT_EVENTS && host->frozen.from < MSC_LEARNT_OVERRIDE)
		c->layout.frozen = c->frozen.value;
	else
		c->frozen = host->frozen;
}

/* What an install replaced: the non-present value, or one no layout explains. */
static void count_install(struct msc_classifier *c, const struct msc_ev_spte *s)
{
	const struct msc_spte_layout *l = &c->layout;

	if (msc_spte_present(l, s->old_spte) || !msc_spte_present(l, s->new_spte))
		return;
	if (s->old_spte == l->nonpresent)
		c->installs++;
	else if (s->old_spte != l->frozen && !msc_spte_mmio(l, s->old_spte))
		c->unexplained++;
}

void msc_classifier_release(struct msc_classifier *c)
{
	free(c->cpus);
	c->cpus = NULL;
	c->nr_cpus = 0;
}

static struct msc_teardown *cpu_ctx(struct msc_classifier *c, unsigned int cpu)
{
	if (cpu >= c->nr_cpus) {
		size_t n = max((size_t)cpu + 1, c->nr_cpus * 2);
		struct msc_teardown *p = realloc(c->cpus, n * sizeof(*p));

		if (!p)
			return NULL;
		memset(p + c->nr_cpus, 0, (n - c->nr_cpus) * sizeof(*p));
		c->cpus = p;
		c->nr_cpus = n;
	}
	return &c->cpus[cpu];
}

/* A kvm_mmu_prepare_zap_page: the range of its page table is torn down next. */
static __attribute__((noinline)) int note_zap(struct msc_classifier *c,
					      const struct msc_event *ev)
{
	struct msc_teardown *t = cpu_ctx(c, ev->cpu);
	struct msc_sp_role role;

	if (!t)
		return -ENOMEM;
	msc_sp_role_decode(&c->layout, ev->sp.role, &role);
	if (role.level >= 1 && role.level < ARRAY_SIZE(t->first)) {
		t->first[role.level] = ev->sp.gfn;
		t->end[role.level] = ev->sp.gfn + 512 * msc_level_pages(role.level);
		t->any = true;
	}
	return 0;
}

/* A spte_changed event: its class. */
static __attribute__((noinline)) int classify(struct msc_classifier *c, struct msc_ev_spte *s,
					      unsigned int cpu)
{
	struct msc_teardown *t = cpu_ctx(c, cpu);
	bool teardown = false;

	if (!t)
		return -ENOMEM;
	/* a child of a removed table: covered by it, and made non-present */
	if (s->level < ARRAY_SIZE(t->first) && !msc_spte_present(&c->layout, s->new_spte))
		teardown = s->gfn >= t->first[s->level] && s->gfn < t->end[s->level];
	if (teardown)
		learn_frozen(c, s->new_spte);
	else if (t->any)
		memset(t, 0, sizeof(*t));	/* a teardown is one uninterrupted run */
	count_install(c, s);
	s->class = (uint8_t)msc_spte_classify(&c->layout, s->level, s->old_spte, s->new_spte,
					      teardown);
	return 0;
}

/**
 * msc_classifier_apply - set the class of a spte_changed event
 * @c: the classifier; sees every event of the stream in order
 * @ev: any event; only spte_changed is modified
 *
 * Returns 0 or -ENOMEM.
 */
int msc_classifier_apply(struct msc_classifier *c, struct msc_event *ev)
{
	/* the work is out of line: the other events cost a test, not a prologue */
	if (ev->type == MSC_EV_SPTE_CHANGED)
		return classify(c, &ev->spte, ev->cpu);
	if (ev->type == MSC_EV_ZAP_PAGE)
		return note_zap(c, ev);
	return 0;
}
