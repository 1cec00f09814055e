/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SPTE and page-role decoding.
 *
 * What an SPTE bit means depends on the host: the vendor (EPT or NPT), the
 * kernel era (the MMU-present bit since 5.13, the bit-63 non-present value
 * since 6.10) and module parameters (EPT A/D bits).  A struct msc_host
 * describes one host; msc_spte_layout_init() turns it into the masks KVM
 * itself computes at module load (kvm_mmu_set_ept_masks() and
 * kvm_mmu_reset_all_pte_masks(), arch/x86/kvm/mmu/spte.c).  Everything
 * below is pure: no state, no allocation.
 */
#ifndef MSC_SPTE_H
#define MSC_SPTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmuscope/event.h"

#define MSC_KVER(a, b, c) (((a) << 16) | ((b) << 8) | (c))

enum msc_vendor {
	MSC_VENDOR_UNKNOWN,
	MSC_VENDOR_NPT,		/* AMD SVM nested paging */
	MSC_VENDOR_EPT,		/* Intel VMX extended page tables */
};

/* Where a host description came from, weakest first. */
enum msc_host_source {
	MSC_HOST_DEFAULT,	/* nothing known; common NPT/EPT bits only */
	MSC_HOST_INFERRED,	/* from the capture's release and SPTE values */
	MSC_HOST_LIVE,		/* read from /sys on the recording host */
	MSC_HOST_OVERRIDE,	/* given by the user */
};

/*
 * How one special value of a host (the non-present SPTE, FROZEN_SPTE, the
 * width of the page role's access field) was found, weakest first.  Only
 * MSC_LEARNT_NONE consults a version table (a cited boundary of spte.c);
 * the others come from the capture or the user.
 */
enum msc_learnt {
	MSC_LEARNT_NONE,	/* not shown by the capture: the release decides */
	MSC_LEARNT_VALUES,	/* from a weak sign in the values (bit 63 of non-present SPTEs) */
	MSC_LEARNT_EVENTS,	/* from what the capture's events do with the value */
	MSC_LEARNT_OVERRIDE,	/* given by the user */
};

/* One learnt fact: its value, where it came from and on how many events. */
struct msc_special {
	uint64_t value;
	uint64_t events;	/* events that showed it (VALUES, EVENTS) */
	uint8_t from;		/* enum msc_learnt */
};

/* One host's facts that change what SPTE bits mean. */
struct msc_host {
	char release[64];	/* kernel release, "" when unknown */
	unsigned int kver;	/* MSC_KVER() of @release, 0 when unknown */
	enum msc_vendor vendor;
	bool ept_ad;		/* EPT: hardware A/D bits enabled (eptad) */
	bool tdp_mmu;		/* kvm.tdp_mmu (or TDP MMU events seen) */
	struct msc_special nonpresent;	/* SHADOW_NONPRESENT_VALUE */
	struct msc_special frozen;	/* FROZEN_SPTE (REMOVED_SPTE before 6.11) */
	struct msc_special role_access;	/* bits of kvm_mmu_page_role.access: 3 or 4 */
	struct msc_special ept_sw;	/* EPT: host- | MMU-writable, naming a struct msc_ept_sw */
	uint8_t source;		/* enum msc_host_source */
	uint8_t vendor_source;	/* enum msc_host_source of @vendor */
	uint8_t kver_source;	/* enum msc_host_source of @kver */
};

/* The masks KVM uses on one host; all-zero masks mean "not on this host". */
struct msc_spte_layout {
	enum msc_vendor vendor;
	uint64_t present;	/* SPTE_MMU_PRESENT_MASK; 0 before 5.13 */
	uint64_t huge;		/* PT_PAGE_SIZE_MASK */
	uint64_t writable;	/* PT_WRITABLE_MASK */
	uint64_t host_writable;
	uint64_t mmu_writable;
	uint64_t accessed;	/* 0 with EPT A/D disabled before 6.13 */
	uint64_t dirty;
	uint64_t exec;		/* EPT X; 0 on NPT */
	uint64_t nx;		/* NPT NX; 0 on EPT */
	uint64_t rwx;		/* EPT access bits (access tracking); 0 on NPT */
	uint64_t ad_disabled;	/* EPT: SPTE_TDP_AD_DISABLED, the mark of an SPTE without A/D */
	uint64_t user_exec;	/* EPT: XU, set beside X on 7.x (MBEC); 0 before */
	uint64_t addr;		/* PFN / child table address bits */
	uint64_t nonpresent;	/* SHADOW_NONPRESENT_VALUE */
	uint64_t frozen;	/* FROZEN_SPTE (REMOVED_SPTE before 6.11) */
	uint64_t mmio_mask;	/* shadow_mmio_mask */
	uint64_t mmio_value;	/* shadow_mmio_value */
	uint8_t role_access_bits;	/* width of kvm_mmu_page_role.access */
	bool role_gpte_is_8;	/* role bit 4 is gpte_is_8_bytes (before 5.18) */
};

/* What one SPTE is, decoded. */
enum msc_spte_kind {
	MSC_SPTE_NONPRESENT,
	MSC_SPTE_FROZEN,
	MSC_SPTE_MMIO,
	MSC_SPTE_SPECIAL,	/* not present, and none of the values above */
	MSC_SPTE_TABLE,		/* present, points to a child page table */
	MSC_SPTE_LEAF,		/* present, maps a 4K/2M/1G page */
};

struct msc_spte_info {
	enum msc_spte_kind kind;
	uint64_t pfn;		/* page frame (leaf) or child table frame */
	bool writable, host_writable, mmu_writable;
	bool accessed, dirty, exec;
	bool access_tracked;	/* EPT without A/D: RWX cleared, saved above */
};

/* Decoded kvm_mmu_page_role. */
struct msc_sp_role {
	unsigned int level;
	bool has_4_byte_gpte;
	unsigned int quadrant;
	bool direct;
	unsigned int access;	/* 3 bits: X 1, W 2, U 4; 4 bits: R 1, W 2, U 4, X 8 */
	char access_str[5];	/* as KVM prints it: "wux" (3 bits), "rwux" (4 bits) */
	bool invalid;
	bool efer_nx, cr0_wp, ad_disabled, guest_mode, passthrough;
	unsigned int smm;	/* address space (as_id) of the page */
};

/*
 * KVM's own bits in an EPT SPTE, one layout per era since the MMU-present
 * bit (lib/spte.c cites each).  A capture names its layout by where its
 * leaves carry host- and MMU-writable (lib/host.c); the release decides
 * only for a capture that shows none.
 */
struct msc_ept_sw {
	uint64_t host_writable;	/* EPT_SPTE_HOST_WRITABLE */
	uint64_t mmu_writable;	/* EPT_SPTE_MMU_WRITABLE */
	unsigned int ad_shift;	/* SPTE_TDP_AD_SHIFT: the A/D type's two bits */
	uint64_t user_exec;	/* shadow_xu_mask */
};

#define MSC_EPT_SW_NR 2

const struct msc_ept_sw *msc_ept_sw_layout(unsigned int i);
const struct msc_ept_sw *msc_ept_sw_find(uint64_t writable);

unsigned int msc_kver_parse(const char *release);

void msc_spte_layout_init(struct msc_spte_layout *l, const struct msc_host *host);

/* The tests every event and model entry goes through: inline. */
static inline bool msc_spte_mmio(const struct msc_spte_layout *l, uint64_t spte)
{
	return l->mmio_mask && !(l->present & spte) &&
	       (spte & l->mmio_mask) == l->mmio_value;
}

static inline bool msc_spte_present(const struct msc_spte_layout *l, uint64_t spte)
{
	if (l->present)
		return spte & l->present;
	/* before 5.13: anything that is not a special value */
	return spte != l->nonpresent && spte != l->frozen && !msc_spte_mmio(l, spte);
}

static inline bool msc_spte_leaf(const struct msc_spte_layout *l, unsigned int level,
				 uint64_t spte)
{
	return msc_spte_present(l, spte) && (level == 1 || (spte & l->huge));
}

static inline uint64_t msc_spte_pfn(const struct msc_spte_layout *l, uint64_t spte)
{
	return (spte & l->addr) >> 12;
}
void msc_spte_decode(const struct msc_spte_layout *l, unsigned int level, uint64_t spte,
		     struct msc_spte_info *ret);
int msc_spte_describe(const struct msc_spte_layout *l, unsigned int level, uint64_t spte,
		      char *buf, size_t size);

enum msc_spte_class msc_spte_classify(const struct msc_spte_layout *l, unsigned int level,
				      uint64_t old_spte, uint64_t new_spte, bool teardown);

void msc_sp_role_decode(const struct msc_spte_layout *l, uint32_t word, struct msc_sp_role *ret);

const char *msc_learnt_name(enum msc_learnt from);
int msc_special_describe(const struct msc_special *sp, char *buf, size_t size);

/* Guest pages of 4K covered by one SPTE at @level (1 -> 1, 2 -> 512, ...). */
static inline uint64_t msc_level_pages(unsigned int level)
{
	return level ? 1ULL << (9 * (level - 1)) : 0;
}

const char *msc_level_size_name(unsigned int level);

#endif /* MSC_SPTE_H */
