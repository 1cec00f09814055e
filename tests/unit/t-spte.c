// SPDX-License-Identifier: GPL-2.0-only
/*
 * SPTE layouts, decoding and classification: every change class on both
 * bit layouts (NPT, EPT) and both non-present eras (before 6.10: 0 and
 * frozen 0x5a0; since 6.10: bit 63).  NPT values come from the real 6.1 and
 * 6.12 captures, EPT values from tests/data/ept-samples.txt (real EPT hosts);
 * where a sample had no example of a class, the value is derived from a real
 * one by flipping the bit the class is about, as the comment says.
 */
#include <stdio.h>
#include <string.h>

#include "mmuscope/host.h"
#include "mmuscope/spte.h"
#include "test.h"

#define NP63 0x8000000000000000ULL
#define FROZEN_OLD 0x5a0ULL
#define FROZEN_NEW 0x80000000000005a0ULL

static struct msc_host host(enum msc_vendor vendor, unsigned int kver, bool ept_ad)
{
	struct msc_host h;

	msc_host_init(&h);
	h.vendor = vendor;
	h.kver = kver;
	h.ept_ad = ept_ad;
	return h;
}

struct cls_case {
	const char *what;
	unsigned int level;
	uint64_t old_spte, new_spte;
	bool teardown;
	enum msc_spte_class want;
};

static void run_cases(const struct msc_host *h, const struct cls_case *c, size_t n,
		      bool *covered)
{
	struct msc_spte_layout l;

	msc_spte_layout_init(&l, h);
	for (size_t i = 0; i < n; i++) {
		enum msc_spte_class got = msc_spte_classify(&l, c[i].level, c[i].old_spte,
							    c[i].new_spte, c[i].teardown);

		covered[c[i].want] = true;
		if (!check_str(msc_spte_class_name(got), msc_spte_class_name(c[i].want)))
			printf("# %s kver %#x: %s: L%u %#llx -> %#llx\n",
			       msc_vendor_name(h->vendor), h->kver, c[i].what, c[i].level,
			       (unsigned long long)c[i].old_spte, (unsigned long long)c[i].new_spte);
	}
}

static void check_all_covered(const bool *covered)
{
	for (int c = MSC_CLASS_MAP; c < MSC_CLASS_NR; c++)
		if (!check(covered[c]))
			printf("# class %s has no case\n", msc_spte_class_name(c));
}

/* NPT, Debian 6.1 (k61-npt_tdp_32m). */
static const struct cls_case npt_61[] = {
	{ "root link", 4, 0, 0x1370f827, false, MSC_CLASS_LINK },
	{ "2M fault map", 2, 0, 0x13800ee7, false, MSC_CLASS_MAP },
	{ "4K fault map", 1, 0, 0x7fb95e67, false, MSC_CLASS_MAP },
	{ "eager split", 2, 0x13800ee7, 0x13724827, false, MSC_CLASS_SPLIT },
	{ "dirty-log write-protect", 1, 0x13800e67, 0x13800e65, false, MSC_CLASS_WRITE_PROTECT },
	{ "fault makes writable", 1, 0x13800e65, 0x13800e67, false, MSC_CLASS_MAKE_WRITABLE },
	{ "zap collapsible parent (atomic)", 2, 0x13724827, FROZEN_OLD, false, MSC_CLASS_ZAP_SUBTREE },
	{ "child of a removed table", 1, 0x13800e65, FROZEN_OLD, true, MSC_CLASS_TEARDOWN_CHILD },
	{ "non-present child frozen", 1, 0, FROZEN_OLD, true, MSC_CLASS_TEARDOWN_CHILD },
	{ "atomic zap of a leaf", 1, 0x13800e65, FROZEN_OLD, false, MSC_CLASS_UNMAP },
	{ "notifier unmap", 2, 0x13800ee7, 0, false, MSC_CLASS_UNMAP },
	{ "teardown of upper table", 3, 0x1370c827, 0, false, MSC_CLASS_ZAP_SUBTREE },
	/* derived: PS set on a real table entry, as make_huge_spte() does */
	{ "in-place recovery", 2, 0x13724827, 0x13800ee7, false, MSC_CLASS_PROMOTE },
	/* derived: D (bit 6) cleared on a real leaf */
	{ "clear dirty", 1, 0x13800e67, 0x13800e27, false, MSC_CLASS_CLEAR_DIRTY },
	/* derived: A (bit 5) cleared */
	{ "aging", 1, 0x13800e67, 0x13800e47, false, MSC_CLASS_AGE },
	/* reserved bit 51 | P: MMIO */
	{ "mmio install", 1, 0, 0x80000fee00001ULL, false, MSC_CLASS_MMIO },
	{ "pfn change on a leaf", 2, 0x13800ee7, 0x13a00ee7, false, MSC_CLASS_ANOMALY },
	{ "NX only", 2, 0x13800ee7, 0x8000000013800ee7ULL, false, MSC_CLASS_OTHER },
	{ "frozen completes", 1, FROZEN_OLD, 0, false, MSC_CLASS_TEARDOWN_CHILD },
	{ "non-present to junk", 1, 0, 0x1000, false, MSC_CLASS_ANOMALY },
};

/* NPT, Debian 6.12 (k612-npt_tdp_32m): same bits, bit-63 non-present. */
static const struct cls_case npt_612[] = {
	{ "root link", 4, NP63, 0x1370f827, false, MSC_CLASS_LINK },
	{ "2M fault map", 2, NP63, 0x13800ee7, false, MSC_CLASS_MAP },
	{ "eager split", 2, 0x13800ee7, 0x13724827, false, MSC_CLASS_SPLIT },
	{ "write-protect", 1, 0x13800e67, 0x13800e65, false, MSC_CLASS_WRITE_PROTECT },
	{ "make writable", 1, 0x13800e65, 0x13800e67, false, MSC_CLASS_MAKE_WRITABLE },
	{ "zap collapsible parent", 2, 0x13724827, NP63, false, MSC_CLASS_ZAP_SUBTREE },
	{ "child of a removed table", 1, 0x13800e65, FROZEN_NEW, true, MSC_CLASS_TEARDOWN_CHILD },
	{ "unmap", 2, 0x13800ee7, NP63, false, MSC_CLASS_UNMAP },
	{ "promote", 2, 0x13724827, 0x13800ee7, false, MSC_CLASS_PROMOTE },
	{ "clear dirty", 1, 0x13800e67, 0x13800e27, false, MSC_CLASS_CLEAR_DIRTY },
	{ "aging", 1, 0x13800e67, 0x13800e47, false, MSC_CLASS_AGE },
	{ "mmio", 1, NP63, 0x80000fee00001ULL, false, MSC_CLASS_MMIO },
	{ "pfn change", 2, 0x13800ee7, 0x13a00ee7, false, MSC_CLASS_ANOMALY },
	{ "NX only", 2, 0x13800ee7, 0x8000000013800ee7ULL, false, MSC_CLASS_OTHER },
	/* a 6.1 value under the 6.12 layout: 0 is not the non-present value */
	{ "0 -> frozen is still teardown", 1, 0, FROZEN_NEW, true, MSC_CLASS_TEARDOWN_CHILD },
};

/* EPT before 6.10 (ept-samples: VM teardown of a nested guest), A/D bits on. */
static const struct cls_case ept_61[] = {
	{ "root link", 4, 0, 0x2c583e907, false, MSC_CLASS_LINK },
	{ "4K map", 1, 0, 0x600000455299b77, false, MSC_CLASS_MAP },
	{ "2M map (no X: NX huge pages)", 2, 0, 0x60000021be00bf3, false, MSC_CLASS_MAP },
	{ "split", 2, 0x60000021be00bf3, 0x2c583b907, false, MSC_CLASS_SPLIT },
	{ "promote", 2, 0x2c583b907, 0x60000021be00bf3, false, MSC_CLASS_PROMOTE },
	{ "teardown root entry", 4, 0x2c583e907, 0, false, MSC_CLASS_ZAP_SUBTREE },
	{ "teardown child table", 3, 0x2c583d907, FROZEN_OLD, true, MSC_CLASS_TEARDOWN_CHILD },
	{ "teardown 4K child", 1, 0x600000455299b77, FROZEN_OLD, true, MSC_CLASS_TEARDOWN_CHILD },
	{ "unmap", 1, 0x600000455299b77, 0, false, MSC_CLASS_UNMAP },
	/* derived: W (bit 1) cleared, MMU-writable (58) kept */
	{ "write-protect", 1, 0x600000455299b77, 0x600000455299b75, false, MSC_CLASS_WRITE_PROTECT },
	{ "make writable", 1, 0x600000455299b75, 0x600000455299b77, false, MSC_CLASS_MAKE_WRITABLE },
	/* derived: D (bit 9) cleared */
	{ "clear dirty", 1, 0x600000455299b77, 0x600000455299977, false, MSC_CLASS_CLEAR_DIRTY },
	/* derived: A (bit 8) cleared */
	{ "aging", 1, 0x600000455299b77, 0x600000455299a77, false, MSC_CLASS_AGE },
	/* VMX_EPT_MISCONFIG_WX_VALUE with a GFN */
	{ "mmio", 1, 0, 0xfee00006, false, MSC_CLASS_MMIO },
	{ "pfn change", 1, 0x600000455299b77, 0x60000045529ab77, false, MSC_CLASS_ANOMALY },
	/* derived: X (bit 2) cleared only */
	{ "X only", 2, 0x60000021be00bf7, 0x60000021be00bf3, false, MSC_CLASS_OTHER },
};

/* EPT since 6.10: bit 63 (suppress #VE) in present and non-present values. */
static const struct cls_case ept_610[] = {
	{ "2M table entry torn down", 2, 0x800000010bc97907ULL, FROZEN_NEW, true,
	  MSC_CLASS_TEARDOWN_CHILD },
	{ "4K teardown", 1, 0x86000001848dbb77ULL, FROZEN_NEW, true, MSC_CLASS_TEARDOWN_CHILD },
	{ "4K map", 1, NP63, 0x86000001848dbb77ULL, false, MSC_CLASS_MAP },
	{ "link", 2, NP63, 0x800000010bc97907ULL, false, MSC_CLASS_LINK },
	{ "unmap", 1, 0x86000001848dbb77ULL, NP63, false, MSC_CLASS_UNMAP },
	{ "zap subtree", 2, 0x800000010bc97907ULL, NP63, false, MSC_CLASS_ZAP_SUBTREE },
	{ "write-protect", 1, 0x86000001848dbb77ULL, 0x86000001848dbb75ULL, false,
	  MSC_CLASS_WRITE_PROTECT },
	{ "clear dirty", 1, 0x86000001848dbb77ULL, 0x86000001848db977ULL, false,
	  MSC_CLASS_CLEAR_DIRTY },
	/* the bit-63 value alone is non-present, not a leaf */
	{ "mmio", 1, NP63, 0xfee00006, false, MSC_CLASS_MMIO },
};

/* EPT without A/D bits before 6.13: aging is access tracking (RWX -> saved at 54/56). */
static const struct cls_case ept_noad[] = {
	{ "access-track", 1, 0x600000455299b77,
	  (0x600000455299b77ULL & ~7ULL) | (1ULL << 54) | (1ULL << 56), false,
	  MSC_CLASS_ACCESS_TRACK },
	{ "restore", 1, (0x600000455299b77ULL & ~7ULL) | (1ULL << 54) | (1ULL << 56),
	  0x600000455299b77, false, MSC_CLASS_ACCESS_TRACK },
};

static void t_npt_classes(void)
{
	struct msc_host h61 = host(MSC_VENDOR_NPT, MSC_KVER(6, 1, 0), false);
	struct msc_host h612 = host(MSC_VENDOR_NPT, MSC_KVER(6, 12, 117), false);
	bool covered[MSC_CLASS_NR] = { false };

	run_cases(&h61, npt_61, sizeof(npt_61) / sizeof(npt_61[0]), covered);
	run_cases(&h612, npt_612, sizeof(npt_612) / sizeof(npt_612[0]), covered);
	covered[MSC_CLASS_ACCESS_TRACK] = true;	/* EPT only */
	check_all_covered(covered);
}

static void t_ept_classes(void)
{
	struct msc_host h61 = host(MSC_VENDOR_EPT, MSC_KVER(6, 1, 0), true);
	struct msc_host h610 = host(MSC_VENDOR_EPT, MSC_KVER(6, 10, 0), true);
	struct msc_host noad = host(MSC_VENDOR_EPT, MSC_KVER(6, 1, 0), false);
	bool covered[MSC_CLASS_NR] = { false };

	run_cases(&h61, ept_61, sizeof(ept_61) / sizeof(ept_61[0]), covered);
	run_cases(&h610, ept_610, sizeof(ept_610) / sizeof(ept_610[0]), covered);
	run_cases(&noad, ept_noad, sizeof(ept_noad) / sizeof(ept_noad[0]), covered);
	check_all_covered(covered);
}

static void t_layout_masks(void)
{
	struct msc_host h = host(MSC_VENDOR_NPT, MSC_KVER(6, 1, 0), false);
	struct msc_spte_layout l;

	msc_spte_layout_init(&l, &h);
	check_uint(l.nonpresent, ==, 0);
	check_uint(l.frozen, ==, FROZEN_OLD);
	check_uint(l.accessed, ==, 1ULL << 5);
	check_uint(l.dirty, ==, 1ULL << 6);
	check_uint(l.mmu_writable, ==, 1ULL << 10);

	h = host(MSC_VENDOR_EPT, MSC_KVER(6, 12, 0), false);
	msc_spte_layout_init(&l, &h);
	check_uint(l.nonpresent, ==, NP63);
	check_uint(l.frozen, ==, FROZEN_NEW);
	check_uint(l.accessed, ==, 0);	/* no eptad before 6.13 */
	check_uint(l.mmu_writable, ==, 1ULL << 58);

	h = host(MSC_VENDOR_EPT, MSC_KVER(6, 13, 0), false);
	msc_spte_layout_init(&l, &h);
	check_uint(l.accessed, ==, 1ULL << 8);	/* 6.13: always defined */

	/* the data can contradict the release (a backport): what was learnt wins */
	h = host(MSC_VENDOR_NPT, MSC_KVER(6, 1, 0), false);
	h.nonpresent = (struct msc_special){ .value = NP63, .events = 4, .from = MSC_LEARNT_EVENTS };
	msc_spte_layout_init(&l, &h);
	check_uint(l.nonpresent, ==, NP63);
	check_uint(l.frozen, ==, NP63 | 0x5a0);	/* the release's low bits on the learnt value */
	h.frozen = (struct msc_special){ .value = 0x12340, .events = 512, .from = MSC_LEARNT_EVENTS };
	msc_spte_layout_init(&l, &h);
	check_uint(l.frozen, ==, 0x12340);

	/* fallbacks of a capture too short to show them: 7.x's FROZEN_SPTE, 4-bit roles */
	h = host(MSC_VENDOR_NPT, MSC_KVER(7, 3, 4), false);
	msc_spte_layout_init(&l, &h);
	check_uint(l.frozen, ==, 0x80000000000001a0ULL);
	check_int(l.role_access_bits, ==, 4);
	h = host(MSC_VENDOR_NPT, MSC_KVER(6, 18, 44), false);
	msc_spte_layout_init(&l, &h);
	check_uint(l.frozen, ==, FROZEN_NEW);
	check_int(l.role_access_bits, ==, 3);
}

static void t_decode_describe(void)
{
	struct msc_host h = host(MSC_VENDOR_NPT, MSC_KVER(6, 1, 0), false);
	struct msc_spte_layout l;
	struct msc_spte_info in;
	char buf[96];

	msc_spte_layout_init(&l, &h);
	msc_spte_decode(&l, 2, 0x13800ee7, &in);
	check_int(in.kind, ==, MSC_SPTE_LEAF);
	check_uint(in.pfn, ==, 0x13800);
	check(in.writable && in.mmu_writable && in.host_writable && in.accessed && in.dirty);
	msc_spte_describe(&l, 2, 0x13800ee7, buf, sizeof(buf));
	check_str(buf, "2M leaf pfn 0x13800 W D A");
	msc_spte_describe(&l, 1, 0x13800e65, buf, sizeof(buf));
	check_str(buf, "4K leaf pfn 0x13800 wp D A");
	msc_spte_describe(&l, 3, 0x1370c827, buf, sizeof(buf));
	check_str(buf, "table pfn 0x1370c");
	msc_spte_describe(&l, 1, FROZEN_OLD, buf, sizeof(buf));
	check_str(buf, "frozen");
	msc_spte_describe(&l, 1, 0, buf, sizeof(buf));
	check_str(buf, "non-present");
	check_str(msc_level_size_name(3), "1G");
	check_uint(msc_level_pages(3), ==, 262144);
}

static struct msc_spte_layout role_layout(unsigned int kver, unsigned int access_bits)
{
	struct msc_host h = host(MSC_VENDOR_NPT, kver, false);
	struct msc_spte_layout l;

	h.role_access = (struct msc_special){ .value = access_bits, .from = MSC_LEARNT_EVENTS };
	msc_spte_layout_init(&l, &h);
	return l;
}

static void t_role(void)
{
	struct msc_spte_layout l = role_layout(MSC_KVER(6, 1, 0), 3);
	struct msc_sp_role r;

	/* kvm_mmu_get_page of the TDP root in k61-npt_tdp_32m: "l4 ... direct wux nxe wp" */
	msc_sp_role_decode(&l, 0x3784, &r);
	check_int(r.level, ==, 4);
	check(r.direct);
	check_int(r.access, ==, 7);
	check_str(r.access_str, "wux");
	check(r.efer_nx && r.cr0_wp);
	check(!r.invalid && !r.has_4_byte_gpte && !r.ad_disabled);
	check_int(r.smm, ==, 0);
	msc_sp_role_decode(&l, 0x01003781, &r);
	check_int(r.level, ==, 1);
	check_int(r.smm, ==, 1);
	msc_sp_role_decode(&l, 0x1f84, &r);	/* 6.x's invalid bit 11 */
	check(r.invalid && r.efer_nx && !r.cr0_wp);
	/* bit 4 meant gpte_is_8_bytes before 5.18 */
	l = role_layout(MSC_KVER(5, 15, 0), 3);
	msc_sp_role_decode(&l, 0x3794, &r);
	check(!r.has_4_byte_gpte);
	l = role_layout(MSC_KVER(6, 1, 0), 3);
	msc_sp_role_decode(&l, 0x3794, &r);
	check(r.has_4_byte_gpte);

	/* 7.x: access is 4 bits (R W U X): a TDP root is "direct rwux", not "wux invalid" */
	l = role_layout(MSC_KVER(7, 3, 4), 4);
	msc_sp_role_decode(&l, 0x6f84, &r);
	check_int(r.level, ==, 4);
	check_int(r.access, ==, 15);
	check_str(r.access_str, "rwux");
	check(!r.invalid && r.efer_nx && r.cr0_wp);
	msc_sp_role_decode(&l, 0x6584, &r);
	check_str(r.access_str, "r-u-");
	check(!r.invalid);
	msc_sp_role_decode(&l, 0x7f84, &r);
	check(r.invalid);
}

static void t_kver(void)
{
	check_uint(msc_kver_parse("6.1.0-57-amd64"), ==, MSC_KVER(6, 1, 0));
	check_uint(msc_kver_parse("6.12.117+deb12-amd64"), ==, MSC_KVER(6, 12, 117));
	check_uint(msc_kver_parse("6.1.300"), ==, MSC_KVER(6, 1, 255));
	check_uint(msc_kver_parse("6.18"), ==, MSC_KVER(6, 18, 0));
	check_uint(msc_kver_parse("Linux"), ==, 0);
	check_uint(msc_kver_parse(""), ==, 0);
}

int main(void)
{
	TEST(t_npt_classes(), "every class on NPT, 6.1 and 6.12 non-present eras");
	TEST(t_ept_classes(), "every class on EPT, before and since 6.10, with and without A/D");
	TEST(t_layout_masks(), "layout masks follow vendor, kernel era and A/D setting");
	TEST(t_decode_describe(), "SPTE decoding and the short description");
	TEST(t_role(), "kvm_mmu_page_role decoding, including the 5.18 bit-4 change");
	TEST(t_kver(), "kernel release parsing");
	return test_done();
}
