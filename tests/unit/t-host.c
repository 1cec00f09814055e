// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host inference from SPTE values and the classifier's teardown context.
 */
#include <stdio.h>
#include <string.h>

#include "mmuscope/error.h"
#include "mmuscope/event.h"
#include "mmuscope/host.h"
#include "test.h"

static struct msc_event spte(unsigned int cpu, unsigned int level, uint64_t gfn, uint64_t o,
			     uint64_t n)
{
	return (struct msc_event){ .type = MSC_EV_SPTE_CHANGED, .cpu = (uint16_t)cpu,
				   .spte = { .gfn = gfn, .old_spte = o, .new_spte = n,
					     .level = (uint8_t)level } };
}

static void feed(struct msc_host_guess *g, uint64_t o, uint64_t n, int times)
{
	for (int i = 0; i < times; i++) {
		struct msc_event ev = spte(0, 1, (uint64_t)i, o, n);

		msc_host_guess_add(g, &ev);
	}
}

static void t_guess_npt_61(void)
{
	struct msc_host_guess g = { 0 };
	struct msc_host h;
	char note[128];

	msc_host_init(&h);
	check(!msc_host_guess_settled(&g, &h));
	feed(&g, 0, 0x13800ee7, 20);		/* 6.1 NPT faults: 0 -> 2M leaf */
	check(msc_host_guess_settled(&g, &h));
	check_int(msc_host_guess_apply(&g, &h, note, sizeof(note)), ==, 0);
	check_int(h.vendor, ==, MSC_VENDOR_NPT);
	check_int(h.vendor_source, ==, MSC_HOST_INFERRED);
	check_uint(h.nonpresent.value, ==, 0);
	check_int(h.nonpresent.from, ==, MSC_LEARNT_EVENTS);	/* 20 installs replaced 0 */
	check_uint(h.nonpresent.events, ==, 20);
	check(h.tdp_mmu);
	check_str(note, "");
}

static void t_guess_ept_610(void)
{
	struct msc_host_guess g = { 0 };
	struct msc_host h;
	char note[128];

	msc_host_init(&h);
	snprintf(h.release, sizeof(h.release), "6.1.0");	/* says old, data says 6.10+ */
	h.kver = MSC_KVER(6, 1, 0);
	h.kver_source = MSC_HOST_INFERRED;
	feed(&g, 0x86000001848dbb77ULL, 0x80000000000005a0ULL, 20);	/* EPT teardown, 6.10+ */
	check_int(msc_host_guess_apply(&g, &h, note, sizeof(note)), ==, 0);
	check_int(h.vendor, ==, MSC_VENDOR_EPT);
	check_uint(h.nonpresent.value, ==, 1ULL << 63);	/* no install: bit 63 of 20 values */
	check_int(h.nonpresent.from, ==, MSC_LEARNT_VALUES);
	check(strstr(note, "following the data") != NULL);
	check(h.ept_ad);	/* A/D type 0 in every SPTE: hardware A/D bits */
}

static void t_guess_ept_no_ad(void)
{
	struct msc_host_guess g = { 0 };
	struct msc_host h;
	char note[128];

	msc_host_init(&h);
	/* a real EPT leaf with SPTE_TDP_AD_DISABLED (A/D type 1 in bits 53:52) */
	feed(&g, 0, 0x600000455299b77ULL | (1ULL << 52), 20);
	check_int(msc_host_guess_apply(&g, &h, note, sizeof(note)), ==, 0);
	check_int(h.vendor, ==, MSC_VENDOR_EPT);
	check(!h.ept_ad);
}

/*
 * 7.3 on Intel (tests/data/traces/k73ept-skx_8m, Bochs): host-/MMU-writable
 * at 53/55, XU (bit 10) in every entry, the release saying nothing.
 */
static void t_guess_ept_73(void)
{
	struct msc_host_guess g = { 0 };
	struct msc_spte_layout l;
	struct msc_host h;
	char note[128];

	msc_host_init(&h);
	feed(&g, 0x8000000000000000ULL, 0x8000000000000d07ULL, 4);	/* link */
	feed(&g, 0x80a00000093fff77ULL, 0x80a00000093ffd77ULL, 20);	/* PML: clear-dirty */
	check_int(msc_host_guess_apply(&g, &h, note, sizeof(note)), ==, 0);
	check_int(h.vendor, ==, MSC_VENDOR_EPT);
	check(h.ept_ad);
	check_uint(h.ept_sw.value, ==, (1ULL << 53) | (1ULL << 55));
	check_int(h.ept_sw.from, ==, MSC_LEARNT_VALUES);
	msc_spte_layout_init(&l, &h);
	check_uint(l.mmu_writable, ==, 1ULL << 55);
	check_uint(l.ad_disabled, ==, 1ULL << 60);
	check_uint(l.user_exec, ==, 1ULL << 10);
	/* a wp leaf there is "wp", not a read-only page */
	check_int(msc_spte_classify(&l, 1, 0x80a00000093fff77ULL, 0x80a00000093fff75ULL, false),
		  ==, MSC_CLASS_WRITE_PROTECT);
}

/*
 * 7.3 without A/D bits (tests/data/traces/k73ept-eptad0_8m, kvm_intel
 * eptad=0): SPTE_TDP_AD_DISABLED is bit 60 (type 1 in 61:60); a table
 * entry carries nothing but it, XU, present and RWX (the x86 format's
 * bit 10 must not make it NPT).
 */
static void t_guess_ept_73_no_ad(void)
{
	struct msc_host_guess g = { 0 };
	struct msc_host h;
	char note[128];

	msc_host_init(&h);
	feed(&g, 0x8000000000000000ULL, 0x9000000000000c07ULL, 20);
	feed(&g, 0x90a0000000000f77ULL, 0x90a0000000000f75ULL, 4);	/* write-protect */
	check_int(msc_host_guess_apply(&g, &h, note, sizeof(note)), ==, 0);
	check_int(h.vendor, ==, MSC_VENDOR_EPT);
	check(!h.ept_ad);
	check_uint(h.ept_sw.value, ==, (1ULL << 53) | (1ULL << 55));
	/* 6.x's layout, from its release, without a leaf to show it */
	msc_host_init(&h);
	memset(&g, 0, sizeof(g));
	h.kver = MSC_KVER(6, 12, 0);
	feed(&g, 0x8000000000000000ULL, 0x8010000000000907ULL, 20);	/* 6.x, A/D off */
	check_int(msc_host_guess_apply(&g, &h, note, sizeof(note)), ==, 0);
	check_int(h.vendor, ==, MSC_VENDOR_EPT);
	check(!h.ept_ad);
	check_int(h.ept_sw.from, ==, MSC_LEARNT_NONE);
}

static void t_guess_override_wins(void)
{
	struct msc_host_guess g = { 0 };
	struct msc_host h;
	char note[128];

	msc_host_init(&h);
	check_int(msc_host_parse_overrides(&h, "vendor=ept,release=6.12.0"), ==, 0);
	feed(&g, 0, 0x13800ee7, 20);		/* looks NPT */
	check_int(msc_host_guess_apply(&g, &h, note, sizeof(note)), ==, 0);
	check_int(h.vendor, ==, MSC_VENDOR_EPT);
	check_int(h.vendor_source, ==, MSC_HOST_OVERRIDE);
	check_int(h.kver, ==, MSC_KVER(6, 12, 0));
	check_int(msc_host_parse_overrides(&h, "vendor=arm"), <, 0);
	check_int(msc_host_parse_overrides(&h, "nonsense"), <, 0);
	check_int(msc_host_parse_overrides(&h, "nonpresent=0x1800"), <, 0);	/* bit 11: present */
	check_int(msc_host_parse_overrides(&h, "frozen=0x8000000000000999"), <, 0);
	check_int(msc_host_parse_overrides(&h, "role_access=5"), <, 0);
	check_int(msc_host_parse_overrides(&h, "frozen=0x80000000000001a0,role_access=4"), ==, 0);
	check_uint(h.frozen.value, ==, 0x80000000000001a0ULL);
	check_int(h.frozen.from, ==, MSC_LEARNT_OVERRIDE);
	check_uint(h.role_access.value, ==, 4);
}

static void t_guess_no_layout(void)
{
	struct msc_host_guess g = { 0 };
	struct msc_host h;
	char note[128];

	msc_host_init(&h);
	feed(&g, 0, 0x13800ee7, 10);		/* NPT-looking */
	feed(&g, 0, 0x600000455299b77ULL, 10);	/* EPT-looking */
	check(!msc_host_guess_settled(&g, &h));
	check_int(msc_host_guess_apply(&g, &h, note, sizeof(note)), ==, MSC_ERR_LAYOUT);
	check(strstr(note, "fit neither layout") != NULL);
}

static void t_teardown_context(void)
{
	struct msc_classifier c;
	struct msc_host h;
	struct msc_event ev;

	msc_host_init(&h);
	h.vendor = MSC_VENDOR_NPT;
	h.kver = MSC_KVER(6, 1, 0);
	msc_classifier_init(&c, &h);

	/* 6.1 zap collapsible: parent -> frozen, prepare_zap of the child table, children */
	ev = spte(0, 2, 0x40000, 0x13724827, 0x5a0);
	msc_classifier_apply(&c, &ev);
	check_int(ev.spte.class, ==, MSC_CLASS_ZAP_SUBTREE);
	ev = (struct msc_event){ .type = MSC_EV_ZAP_PAGE, .cpu = 0,
				 .sp = { .gfn = 0x40000, .role = 0x3781 } };
	msc_classifier_apply(&c, &ev);
	ev = spte(0, 1, 0x40005, 0x13805e65, 0x5a0);
	msc_classifier_apply(&c, &ev);
	check_int(ev.spte.class, ==, MSC_CLASS_TEARDOWN_CHILD);
	/* the same change on another CPU is not part of that teardown */
	ev = spte(1, 1, 0x40006, 0x13806e65, 0x5a0);
	msc_classifier_apply(&c, &ev);
	check_int(ev.spte.class, ==, MSC_CLASS_UNMAP);
	/* outside the removed table's range */
	ev = spte(0, 1, 0x40200, 0x13a00e65, 0x5a0);
	msc_classifier_apply(&c, &ev);
	check_int(ev.spte.class, ==, MSC_CLASS_UNMAP);
	/* a non-frozen change ends the teardown run */
	ev = spte(0, 1, 0x41000, 0, 0x14000e67);
	msc_classifier_apply(&c, &ev);
	check_int(ev.spte.class, ==, MSC_CLASS_MAP);
	ev = spte(0, 1, 0x40007, 0x13807e65, 0x5a0);
	msc_classifier_apply(&c, &ev);
	check_int(ev.spte.class, ==, MSC_CLASS_UNMAP);
	msc_classifier_release(&c);
}

/* The shape of a 7.x in-place recovery of one 2M region (k73 captures). */
static void recover_2m(struct msc_classifier *c, unsigned int cpu, uint64_t gfn, uint64_t frozen,
		       int *teardown)
{
	struct msc_event ev = { .type = MSC_EV_ZAP_PAGE, .cpu = (uint16_t)cpu,
				.sp = { .gfn = gfn, .role = 0x6f81 } };

	msc_classifier_apply(c, &ev);
	for (int i = 0; i < 512; i++) {
		ev = spte(cpu, 1, gfn + (uint64_t)i, 0x13800e65 + ((uint64_t)i << 12), frozen);
		msc_classifier_apply(c, &ev);
		*teardown += ev.spte.class == MSC_CLASS_TEARDOWN_CHILD;
	}
	ev = spte(cpu, 2, gfn, 0x1370c827, 0x13800ee5);
	msc_classifier_apply(c, &ev);
	check_int(ev.spte.class, ==, MSC_CLASS_PROMOTE);
}

static void t_learn_frozen(void)
{
	struct msc_classifier c;
	struct msc_host h;
	int teardown = 0;

	/* a kernel whose FROZEN_SPTE no table knows, with a release that says 6.12 */
	msc_host_init(&h);
	h.vendor = MSC_VENDOR_NPT;
	h.kver = MSC_KVER(6, 12, 0);
	msc_classifier_init(&c, &h);
	check_uint(c.layout.frozen, ==, 0x80000000000005a0ULL);	/* the release's fallback */
	recover_2m(&c, 0, 0x40000, 0x8000000000000320ULL, &teardown);
	recover_2m(&c, 1, 0x40200, 0x8000000000000320ULL, &teardown);
	check_int(teardown, ==, 1024);	/* told by their table, whatever value they got */
	check_uint(c.layout.frozen, ==, 0x8000000000000320ULL);
	msc_classifier_learnt(&c, &h);
	check_uint(h.frozen.value, ==, 0x8000000000000320ULL);
	check_int(h.frozen.from, ==, MSC_LEARNT_EVENTS);
	check_uint(h.frozen.events, ==, 1024);
	msc_classifier_release(&c);

	/* an override is never replaced */
	msc_host_init(&h);
	h.vendor = MSC_VENDOR_NPT;
	check_int(msc_host_set(&h, "frozen", "0x80000000000001a0"), ==, 0);
	msc_classifier_init(&c, &h);
	recover_2m(&c, 0, 0x40000, 0x8000000000000320ULL, &teardown);
	msc_classifier_learnt(&c, &h);
	check_uint(h.frozen.value, ==, 0x80000000000001a0ULL);
	msc_classifier_release(&c);
}

static void t_learn_role_width(void)
{
	struct msc_host_guess g = { 0 };
	struct msc_event ev = { .type = MSC_EV_GET_PAGE, .sp = { .role = 0x6f84, .created = 1 } };
	struct msc_host h;
	char note[128];

	msc_host_init(&h);
	h.vendor = MSC_VENDOR_NPT;
	h.vendor_source = MSC_HOST_LIVE;
	msc_host_guess_add(&g, &ev);		/* 7.x root: direct, ACC_ALL over 4 bits */
	ev.sp.role = 0x6f83;
	msc_host_guess_add(&g, &ev);
	ev.sp.created = 0;			/* an existing table proves nothing */
	ev.sp.role = 0x6784;
	msc_host_guess_add(&g, &ev);
	msc_host_guess_apply(&g, &h, note, sizeof(note));
	check_uint(h.role_access.value, ==, 4);
	check_uint(h.role_access.events, ==, 2);

	g = (struct msc_host_guess){ 0 };
	msc_host_init(&h);
	ev = (struct msc_event){ .type = MSC_EV_GET_PAGE, .sp = { .role = 0x3784, .created = 1 } };
	msc_host_guess_add(&g, &ev);		/* 6.1 root: "direct wux" and valid */
	msc_host_guess_apply(&g, &h, note, sizeof(note));
	check_uint(h.role_access.value, ==, 3);
}

int main(void)
{
	TEST(t_guess_npt_61(), "NPT and the 0 non-present value inferred from 6.1 SPTEs");
	TEST(t_guess_ept_610(), "EPT and bit-63 non-present inferred; the data beats the release");
	TEST(t_guess_ept_no_ad(), "EPT without A/D bits inferred from the SPTEs' A/D type");
	TEST(t_guess_ept_73(), "7.x EPT: host-/MMU-writable at 53/55 learnt from the values");
	TEST(t_guess_ept_73_no_ad(), "7.x EPT without A/D bits: the mark at bit 60, not NPT");
	TEST(t_guess_override_wins(), "user overrides win over evidence; bad overrides refused");
	TEST(t_guess_no_layout(), "values of both layouts: no layout fits");
	TEST(t_teardown_context(), "teardown children need a prepare_zap on the same CPU and range");
	TEST(t_learn_frozen(), "FROZEN_SPTE is learnt from teardown children, not from a table");
	TEST(t_learn_role_width(), "the page role's access width is learnt from new direct tables");
	return test_done();
}
