// SPDX-License-Identifier: GPL-2.0-only
/*
 * SPTE masks per host, SPTE decoding and change classification.
 *
 * The masks mirror what KVM computes at module load; the kernel-version
 * boundaries are cited where they are used.  Nothing here copies a kernel
 * struct: bits are named one by one.
 */
#include "mmuscope/spte.h"

#include <stdio.h>
#include <stdlib.h>

#include "mmuscope/util.h"

/*
 * Era boundaries (docs/kvm-mmu.md, "Layout history").  They are fallbacks
 * only: a capture's own events decide the special values and the page-role
 * layout wherever they show them (lib/host.c).
 */
#define KVER_MMU_PRESENT MSC_KVER(5, 13, 0)	/* bit 11, EPT writable at 57/58 */
#define KVER_NONPRESENT_63 MSC_KVER(6, 10, 0)	/* SHADOW_NONPRESENT_VALUE = BIT(63) */
#define KVER_EPT_AD_ALWAYS MSC_KVER(6, 13, 0)	/* EPT A/D masks defined without eptad */
#define KVER_HAS_4_BYTE_GPTE MSC_KVER(5, 18, 0)	/* role bit 4 inverted its meaning */
/*
 * FROZEN_SPTE's low bits are 0x5a0 in 6.1 and 6.12 (Debian's linux-source-6.12,
 * arch/x86/kvm/mmu/spte.h) and 0x1a0 in 7.2.13 and 7.3.4 (linux-source-7.2/7.3);
 * the page role's access field is 3 bits in 6.18.44 (tests/data/formats/6.18)
 * and 4 bits (MBEC user-exec) in 7.2.13 and 7.3.4.  Where in 7.0-7.2 both
 * changed is not pinned down: 7.0 is assumed.
 */
#define KVER_MBEC MSC_KVER(7, 0, 0)

/*
 * EPT's software bits (arch/x86/kvm/mmu/spte.h).  5.13 to 6.x
 * (linux-source-6.12): host-/MMU-writable at 57/58, the A/D type at 53:52,
 * R/X saved at 54/56 when access-tracked.  7.x (linux-source-7.3, with
 * MBEC): host-/MMU-writable at 53/55, the A/D type at 61:60, R/X/XU saved
 * at 52/54/62, and XU (bit 10) set beside X in every entry.  The release
 * boundary is a fallback for a capture without a leaf (KVER_MBEC).
 */
static const struct msc_ept_sw ept_sw_layouts[MSC_EPT_SW_NR] = {
	{ BIT_ULL(57), BIT_ULL(58), 52, 0 },
	{ BIT_ULL(53), BIT_ULL(55), 60, BIT_ULL(10) },
};

/** msc_ept_sw_layout - the @i-th known EPT software layout, NULL past the last */
const struct msc_ept_sw *msc_ept_sw_layout(unsigned int i)
{
	return i < ARRAY_SIZE(ept_sw_layouts) ? &ept_sw_layouts[i] : NULL;
}

/** msc_ept_sw_find - the layout whose host- | MMU-writable bits are @writable */
const struct msc_ept_sw *msc_ept_sw_find(uint64_t writable)
{
	for (size_t i = 0; i < ARRAY_SIZE(ept_sw_layouts); i++)
		if ((ept_sw_layouts[i].host_writable | ept_sw_layouts[i].mmu_writable) == writable)
			return &ept_sw_layouts[i];
	return NULL;
}

#define FROZEN_LOW_BITS_OLD 0x5a0ULL
#define FROZEN_LOW_BITS_MBEC 0x1a0ULL

static const char *const learnt_names[] = {
	[MSC_LEARNT_NONE] = "release",
	[MSC_LEARNT_VALUES] = "values",
	[MSC_LEARNT_EVENTS] = "events",
	[MSC_LEARNT_OVERRIDE] = "override",
};

/** msc_learnt_name - "events", "release", ... for an enum msc_learnt */
const char *msc_learnt_name(enum msc_learnt from)
{
	return from < ARRAY_SIZE(learnt_names) ? learnt_names[from] : "?";
}

/**
 * msc_special_describe - where a learnt fact came from, in words
 *
 * E.g. "events (8192)", "release", "override".  Returns what snprintf()
 * returns.
 */
int msc_special_describe(const struct msc_special *sp, char *buf, size_t size)
{
	if (sp->from == MSC_LEARNT_EVENTS || sp->from == MSC_LEARNT_VALUES)
		return snprintf(buf, size, "%s (%llu)", msc_learnt_name(sp->from),
				(unsigned long long)sp->events);
	return snprintf(buf, size, "%s", msc_learnt_name(sp->from));
}

/**
 * msc_kver_parse - MSC_KVER() of a kernel release string
 * @release: e.g. "6.1.0-57-amd64"
 *
 * Returns 0 when @release does not start with a version number.  As the
 * kernel's KERNEL_VERSION() does, a sublevel above 255 is clamped.
 */
unsigned int msc_kver_parse(const char *release)
{
	unsigned int a = 0, b = 0, c = 0;

	if (!release || sscanf(release, "%u.%u.%u", &a, &b, &c) < 2 || a > 255 || b > 255)
		return 0;
	return MSC_KVER(a, b, min(c, 255u));
}

/**
 * msc_spte_layout_init - the SPTE masks of a host
 * @l: filled in
 * @host: vendor, kernel version and A/D setting; a zero kver means "recent"
 *
 * An unknown vendor leaves the vendor-specific masks (W/D/A bookkeeping,
 * MMIO) at zero, so classification falls back to the bits both share.
 */
void msc_spte_layout_init(struct msc_spte_layout *l, const struct msc_host *host)
{
	unsigned int kver = host->kver ? host->kver : KVER_NONPRESENT_63;
	bool modern = kver >= KVER_MMU_PRESENT;

	*l = (struct msc_spte_layout){
		.vendor = host->vendor,
		.present = modern ? BIT_ULL(11) : 0,
		.huge = BIT_ULL(7),
		.writable = BIT_ULL(1),
		.addr = GENMASK_ULL(51, 12),
	};
	if (host->nonpresent.from)
		l->nonpresent = host->nonpresent.value;
	else if (kver >= KVER_NONPRESENT_63)
		l->nonpresent = BIT_ULL(63);
	if (host->frozen.from)
		l->frozen = host->frozen.value;
	else
		l->frozen = l->nonpresent |
			    (kver >= KVER_MBEC ? FROZEN_LOW_BITS_MBEC : FROZEN_LOW_BITS_OLD);
	if (host->role_access.from)
		l->role_access_bits = (uint8_t)host->role_access.value;
	else
		l->role_access_bits = kver >= KVER_MBEC ? 4 : 3;
	l->role_gpte_is_8 = host->kver && host->kver < KVER_HAS_4_BYTE_GPTE;

	switch (host->vendor) {
	case MSC_VENDOR_EPT: {
		bool ad = host->ept_ad || kver >= KVER_EPT_AD_ALWAYS;
		const struct msc_ept_sw *sw = NULL;

		if (host->ept_sw.from)
			sw = msc_ept_sw_find(host->ept_sw.value);
		if (!sw)
			sw = &ept_sw_layouts[kver >= KVER_MBEC];
		/* before 5.13 bits 10/11 (SPTE_HOST_WRITEABLE, SPTE_MMU_WRITEABLE) */
		l->host_writable = modern ? sw->host_writable : BIT_ULL(10);
		l->mmu_writable = modern ? sw->mmu_writable : BIT_ULL(11);
		l->ad_disabled = modern ? 1ULL << sw->ad_shift : 0;
		l->user_exec = modern ? sw->user_exec : 0;
		l->accessed = ad ? BIT_ULL(8) : 0;
		l->dirty = ad ? BIT_ULL(9) : 0;
		l->exec = BIT_ULL(2);
		l->rwx = host->ept_ad ? 0 : GENMASK_ULL(2, 0);
		/* VMX_EPT_MISCONFIG_WX_VALUE under RWX (| SUPPRESS_VE since 6.10) */
		l->mmio_mask = GENMASK_ULL(2, 0) | l->nonpresent;
		l->mmio_value = BIT_ULL(1) | BIT_ULL(2);
		break;
	}
	case MSC_VENDOR_NPT:
		l->host_writable = modern ? BIT_ULL(9) : BIT_ULL(10);
		l->mmu_writable = modern ? BIT_ULL(10) : BIT_ULL(11);
		l->accessed = BIT_ULL(5);
		l->dirty = BIT_ULL(6);
		l->nx = BIT_ULL(63);
		/* reserved bit 51 | P: a #NPF with RSVD set (MAXPHYADDR < 52) */
		l->mmio_mask = BIT_ULL(51) | BIT_ULL(0);
		l->mmio_value = l->mmio_mask;
		break;
	case MSC_VENDOR_UNKNOWN:
		break;
	}
}

/**
 * msc_spte_decode - what an SPTE at @level is
 * @l: the host's layout
 * @level: level of the SPTE (1 = 4K)
 * @spte: the value
 * @ret: filled in
 */
void msc_spte_decode(const struct msc_spte_layout *l, unsigned int level, uint64_t spte,
		     struct msc_spte_info *ret)
{
	*ret = (struct msc_spte_info){ .kind = MSC_SPTE_NONPRESENT };
	if (spte == l->frozen) {
		ret->kind = MSC_SPTE_FROZEN;
		return;
	}
	if (!msc_spte_present(l, spte)) {
		if (msc_spte_mmio(l, spte))
			ret->kind = MSC_SPTE_MMIO;
		else if (spte != l->nonpresent)
			ret->kind = MSC_SPTE_SPECIAL;
		return;
	}
	ret->kind = msc_spte_leaf(l, level, spte) ? MSC_SPTE_LEAF : MSC_SPTE_TABLE;
	ret->pfn = msc_spte_pfn(l, spte);
	ret->writable = spte & l->writable;
	ret->host_writable = spte & l->host_writable;
	ret->mmu_writable = spte & l->mmu_writable;
	ret->accessed = spte & l->accessed;
	ret->dirty = spte & l->dirty;
	ret->exec = l->exec ? (spte & l->exec) : (l->nx && !(spte & l->nx));
	ret->access_tracked = l->rwx && !(spte & l->rwx);
}

static const char *const size_names[] = { "?", "4K", "2M", "1G", "512G", "256T" };

/** msc_level_size_name - "4K", "2M", "1G", ... for an SPTE level */
const char *msc_level_size_name(unsigned int level)
{
	return level < ARRAY_SIZE(size_names) ? size_names[level] : "?";
}

/**
 * msc_spte_describe - short human-readable form of an SPTE
 *
 * E.g. "2M leaf pfn 0x13800 W D A", "table pfn 0x1370d", "non-present"; a
 * non-present value that is neither the layout's non-present, frozen nor
 * MMIO value says so instead of passing for one of them.
 * Returns what snprintf() returns.
 */
int msc_spte_describe(const struct msc_spte_layout *l, unsigned int level, uint64_t spte,
		      char *buf, size_t size)
{
	struct msc_spte_info in;

	msc_spte_decode(l, level, spte, &in);
	switch (in.kind) {
	case MSC_SPTE_NONPRESENT:
		return snprintf(buf, size, "non-present");
	case MSC_SPTE_FROZEN:
		return snprintf(buf, size, "frozen");
	case MSC_SPTE_MMIO:
		return snprintf(buf, size, "mmio");
	case MSC_SPTE_SPECIAL:
		return snprintf(buf, size, "non-present, not the non-present value");
	case MSC_SPTE_TABLE:
		return snprintf(buf, size, "table pfn %#llx", (unsigned long long)in.pfn);
	case MSC_SPTE_LEAF:
		break;
	}
	return snprintf(buf, size, "%s leaf pfn %#llx%s%s%s%s%s", msc_level_size_name(level),
			(unsigned long long)in.pfn, in.writable ? " W" : "",
			!in.writable && in.mmu_writable ? " wp" : "", in.dirty ? " D" : "",
			in.accessed ? " A" : "", in.access_tracked ? " tracked" : "");
}

/**
 * msc_spte_classify - class of one kvm_tdp_mmu_spte_changed
 * @l: the host's layout
 * @level: level of the SPTE
 * @old_spte: value before
 * @new_spte: value after
 * @teardown: the SPTE belongs to a page table being removed (a
 *	kvm_mmu_prepare_zap_page covering it was just seen on this CPU)
 *
 * Follows docs/kvm-mmu.md, "Classifying a change".  With @teardown, a child
 * made non-present is a teardown child whatever value it gets (that value
 * is how the frozen one is learnt); without, a present SPTE going to the
 * frozen value is an atomic zap (how 5.13-6.9 zap one SPTE).
 */
enum msc_spte_class msc_spte_classify(const struct msc_spte_layout *l, unsigned int level,
				      uint64_t old_spte, uint64_t new_spte, bool teardown)
{
	bool was_present = msc_spte_present(l, old_spte);
	bool is_present = msc_spte_present(l, new_spte);
	bool was_leaf = was_present && (level == 1 || (old_spte & l->huge));
	bool is_leaf = is_present && (level == 1 || (new_spte & l->huge));

	if (!is_present && (teardown || (new_spte == l->frozen && !was_present)))
		return MSC_CLASS_TEARDOWN_CHILD;
	if (!was_present && !is_present) {
		if (old_spte == l->frozen)
			return MSC_CLASS_TEARDOWN_CHILD;
		if (msc_spte_mmio(l, old_spte) || msc_spte_mmio(l, new_spte))
			return MSC_CLASS_MMIO;
		return MSC_CLASS_ANOMALY;
	}
	if (!was_present)
		return is_leaf ? MSC_CLASS_MAP : MSC_CLASS_LINK;
	if (!is_present)
		return was_leaf ? MSC_CLASS_UNMAP : MSC_CLASS_ZAP_SUBTREE;
	if (was_leaf != is_leaf)
		return was_leaf ? MSC_CLASS_SPLIT : MSC_CLASS_PROMOTE;
	if (msc_spte_pfn(l, old_spte) != msc_spte_pfn(l, new_spte))
		return MSC_CLASS_ANOMALY;	/* KVM BUG()s on a leaf; a table is swapped */
	if (!was_leaf)
		return MSC_CLASS_OTHER;

	/* access tracking clears W with the rest of RWX: test it first */
	if (l->rwx && !!(old_spte & l->rwx) != !!(new_spte & l->rwx))
		return MSC_CLASS_ACCESS_TRACK;
	if ((old_spte & l->writable) && !(new_spte & l->writable))
		return MSC_CLASS_WRITE_PROTECT;
	if (!(old_spte & l->writable) && (new_spte & l->writable))
		return MSC_CLASS_MAKE_WRITABLE;
	if ((old_spte & l->dirty) && !(new_spte & l->dirty))
		return MSC_CLASS_CLEAR_DIRTY;
	if ((old_spte & l->accessed) && !(new_spte & l->accessed))
		return MSC_CLASS_AGE;
	return MSC_CLASS_OTHER;
}

/*
 * The access letters as KVM's trace prints them (KVM_MMU_PAGE_PRINTK,
 * mmutrace.h): 3 bits "wux" with X = 1, W = 2, U = 4; 4 bits "rwux" with
 * R = 1, W = 2, U = 4, X = 8.
 */
static void access_string(unsigned int bits, unsigned int access, char *dst)
{
	static const struct { unsigned int mask; char c; } acc3[] = {
		{ 2, 'w' }, { 4, 'u' }, { 1, 'x' },
	}, acc4[] = {
		{ 1, 'r' }, { 2, 'w' }, { 4, 'u' }, { 8, 'x' },
	};
	size_t n = bits == 4 ? ARRAY_SIZE(acc4) : ARRAY_SIZE(acc3);

	for (size_t i = 0; i < n; i++) {
		unsigned int mask = bits == 4 ? acc4[i].mask : acc3[i].mask;
		char c = bits == 4 ? acc4[i].c : acc3[i].c;

		dst[i] = access & mask ? c : '-';
	}
	dst[n] = '\0';
}

/**
 * msc_sp_role_decode - decode a kvm_mmu_page_role word
 * @l: the capture's layout (the role's access width, the gpte bit's era)
 * @word: the raw role field of kvm_mmu_get_page / kvm_mmu_prepare_zap_page
 * @ret: filled in
 *
 * The layout (arch/x86/include/asm/kvm_host.h, union kvm_mmu_page_role):
 * level 0-3, has_4_byte_gpte 4 (gpte_is_8_bytes before 5.18), quadrant
 * 5-6, direct 7, then access (3 bits, or 4 since MBEC), and after it
 * invalid, efer_nx and cr0_wp; ad_disabled 16, guest_mode 17,
 * passthrough 18 and smm 24-31 keep their positions.
 */
void msc_sp_role_decode(const struct msc_spte_layout *l, uint32_t word, struct msc_sp_role *ret)
{
	unsigned int bits = l->role_access_bits == 4 ? 4 : 3;
	unsigned int after = 8 + bits;	/* invalid, efer_nx, cr0_wp follow access */
	bool bit4 = word & (1u << 4);

	*ret = (struct msc_sp_role){
		.level = word & 0xf,
		.has_4_byte_gpte = l->role_gpte_is_8 ? !bit4 : bit4,
		.quadrant = (word >> 5) & 3,
		.direct = word & (1u << 7),
		.access = (word >> 8) & ((1u << bits) - 1),
		.invalid = word & (1u << after),
		.efer_nx = word & (1u << (after + 1)),
		.cr0_wp = word & (1u << (after + 2)),
		.ad_disabled = word & (1u << 16),
		.guest_mode = word & (1u << 17),
		.passthrough = word & (1u << 18),
		.smm = word >> 24,
	};
	access_string(bits, ret->access, ret->access_str);
}
