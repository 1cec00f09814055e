/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The host a capture comes from, and how mmuscope learns it.
 *
 * Live recording reads the vendor from /sys.  An offline capture only
 * carries its kernel release (trace.dat's uname), so the SPTE layout is
 * inferred from the values themselves: which bits present SPTEs set tells EPT
 * from NPT.  The special values are learnt from what the events do with them,
 * never from a version table while the capture shows them:
 *   - the non-present value is the one installs replace (old value of a
 *     change to a present SPTE);
 *   - FROZEN_SPTE is the value the children of a removed page table receive
 *     (after a kvm_mmu_prepare_zap_page of that table on the same CPU), when
 *     it is not the non-present value (the classifier learns it);
 *   - the width of the page role's access field shows in every new TDP page
 *     table, whose role.access is ACC_ALL (all ones) and which is not invalid.
 * A user override always wins; the data wins over the release (backports
 * exist), and the release is the fallback of a capture too short to tell.
 *
 * The classifier turns kvm_tdp_mmu_spte_changed events into change classes;
 * it keeps, per CPU, the page tables a kvm_mmu_prepare_zap_page just announced,
 * to tell a teardown child from an atomic zap (both write the frozen value
 * before 6.10).
 */
#ifndef MSC_HOST_H
#define MSC_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmuscope/spte.h"

struct msc_event;

/* The most frequent values of one kind, with their counts. */
struct msc_value_votes {
	uint64_t value[4];
	uint64_t count[4];
	uint64_t others;	/* votes for values that found no slot */
};

void msc_votes_add(struct msc_value_votes *v, uint64_t value);
uint64_t msc_votes_best(const struct msc_value_votes *v, uint64_t *ret_value);

/* Evidence gathered from SPTE values. */
struct msc_host_guess {
	uint64_t ept_votes;	/* present SPTEs with EPT-only bits */
	uint64_t npt_votes;	/* present SPTEs with x86-PTE-only bits */
	struct msc_value_votes installs;	/* old value of changes to a present SPTE */
	uint64_t np63_votes;	/* non-present values with bit 63 */
	uint64_t np0_votes;	/* non-present values without */
	uint64_t role3_votes;	/* new direct tables with role.access ACC_ALL in 3 bits */
	uint64_t role4_votes;	/* ... in 4 bits (MBEC) */
	uint64_t sw_votes[MSC_EPT_SW_NR];	/* EPT SPTEs with that layout's writable bits */
	uint64_t ad_on_votes[MSC_EPT_SW_NR];	/* EPT SPTEs with that layout's A/D type 0 */
	uint64_t ad_off_votes[MSC_EPT_SW_NR];	/* ... type 1 (SPTE_TDP_AD_DISABLED) */
	uint64_t tdp_events;	/* kvm_tdp_mmu_spte_changed seen */
	uint64_t shadow_events;	/* kvm_mmu_set_spte seen */
};

void msc_host_init(struct msc_host *host);
int msc_host_set(struct msc_host *host, const char *key, const char *value);
int msc_host_parse_overrides(struct msc_host *host, const char *spec);
const char *msc_vendor_name(enum msc_vendor vendor);
const char *msc_host_source_name(enum msc_host_source source);

void msc_host_guess_add(struct msc_host_guess *g, const struct msc_event *ev);
bool msc_host_guess_settled(const struct msc_host_guess *g, const struct msc_host *host);
int msc_host_guess_apply(const struct msc_host_guess *g, struct msc_host *host,
			 char *note, size_t note_size);

/* Per-CPU teardown context; see the header comment. */
struct msc_teardown;

struct msc_classifier {
	struct msc_spte_layout layout;	/* frozen follows what teardowns show */
	struct msc_special frozen;	/* the host's, then what teardowns showed */
	struct msc_value_votes teardown;	/* new values of teardown children */
	uint64_t installs;	/* changes to present from the non-present value */
	uint64_t unexplained;	/* ... from a non-present value no layout explains */
	struct msc_teardown *cpus;	/* indexed by cpu, grown on demand */
	size_t nr_cpus;
};

void msc_classifier_init(struct msc_classifier *c, const struct msc_host *host);
void msc_classifier_release(struct msc_classifier *c);
int msc_classifier_apply(struct msc_classifier *c, struct msc_event *ev);
void msc_classifier_learnt(const struct msc_classifier *c, struct msc_host *host);
void msc_classifier_set_host(struct msc_classifier *c, const struct msc_host *host);

#endif /* MSC_HOST_H */
