// SPDX-License-Identifier: GPL-2.0-only
/*
 * msc_event_format() / msc_event_parse(): every type round-trips, the text
 * is what fixtures and golden files expect, and bad lines are refused.
 */
#include <stdio.h>
#include <string.h>

#include "mmuscope/error.h"
#include "mmuscope/event.h"
#include "test.h"

static struct msc_event roundtrip(const struct msc_event *ev, char *line, size_t size)
{
	struct msc_event back;

	memset(&back, 0x5a, sizeof(back));
	check_int(msc_event_format(ev, line, size), >, 0);
	check_int(msc_event_parse(line, &back), ==, 0);
	return back;
}

static void t_spte_text(void)
{
	struct msc_event ev = { .ts = 7085892126, .cpu = 1, .pid = 262,
				.type = MSC_EV_SPTE_CHANGED,
				.spte = { .gfn = 0x1, .old_spte = 0, .new_spte = 0x7fb95e67,
					  .level = 1, .as_id = 0, .class = MSC_CLASS_MAP } };
	char line[MSC_EVENT_LINE_MAX];
	struct msc_event back = roundtrip(&ev, line, sizeof(line));

	check_str(line, "7085892126 1 262 spte_changed as=0 gfn=0x1 level=1 old=0 new=0x7fb95e67 "
			"class=map");
	check_uint(back.spte.new_spte, ==, 0x7fb95e67);
	check_int(back.spte.class, ==, MSC_CLASS_MAP);
	check_uint(back.ts, ==, 7085892126);
	check_int(back.pid, ==, 262);
}

static void t_every_type(void)
{
	static const struct msc_event evs[] = {
		{ .type = MSC_EV_SPTE_CHANGED, .ts = 1, .spte = { .gfn = ~0ULL >> 12,
		  .old_spte = 0x8000000000000000ULL, .new_spte = 0x80000000000005a0ULL,
		  .level = 5, .as_id = 1, .class = MSC_CLASS_TEARDOWN_CHILD } },
		{ .type = MSC_EV_SPLIT, .ts = 2, .split = { .gfn = 0x40000, .spte = 0x13800ee7,
		  .level = 2, .err = -12 } },
		{ .type = MSC_EV_GET_PAGE, .ts = 3, .sp = { .gfn = 0x40000, .role = 0x3784,
		  .root_count = 2, .unsync = 1, .created = 1, .gen = 7 } },
		{ .type = MSC_EV_ZAP_PAGE, .ts = 4, .sp = { .gfn = 0x40200, .role = 0x3781, .gen = 1 } },
		{ .type = MSC_EV_FAST_PF, .ts = 5, .fast_pf = { .gpa = 0x40001000,
		  .error_code = 0x100000007, .old_spte = 0x13801e65, .new_spte = 0x13801e67,
		  .vcpu = 3, .ret = 4, .result = MSC_FPF_FIXED } },
		{ .type = MSC_EV_PAGE_FAULT, .ts = 6, .pf = { .gpa = 0x40000000,
		  .error_code = 0x100000006, .rip = 0x1000, .vcpu = 0 } },
		{ .type = MSC_EV_SET_SPTE, .ts = 7, .set_spte = { .gfn = 1, .spte = 0x7fb95e67,
		  .sptep = 0x1370d008, .level = 1, .r = 1, .x = 0, .u = -1 } },
		{ .type = MSC_EV_SPTE_REQUESTED, .ts = 8, .req = { .gfn = 1, .pfn = 0x7fb95, .level = 2 } },
		{ .type = MSC_EV_MMIO_SPTE, .ts = 9, .mmio = { .gfn = 0xfee00, .access = 6, .gen = 0x12 } },
		{ .type = MSC_EV_ZAP_ALL_FAST, .ts = 10, .zap_all = { .gen = 1, .used_pages = 0x40 } },
		{ .type = MSC_EV_UNMAP_HVA, .ts = 11, .hva = { .start = 0x7f0000000000,
		  .end = 0x7f0000200000 } },
		{ .type = MSC_EV_AGE_HVA, .ts = 12, .hva = { .start = 1, .end = 2 } },
		{ .type = MSC_EV_MARKER, .ts = 13, .marker = { .text = "phase=populate begin" } },
		{ .type = MSC_EV_KPROBE, .ts = 14, .kprobe = { .ip = 0xffffffffc0554520,
		  .name = "kvm_flush_remote_tlbs", .args = "arg1=0x2 arg2=0x200" } },
		{ .type = MSC_EV_LOST, .ts = 15, .pid = -1, .lost = { .count = 42 } },
		{ .type = MSC_EV_TLB_FLUSH, .ts = 16, .tlb_flush = { .vm_id = 1, .vm_pid = 328,
		  .start_gfn = 0x40000, .nr_pages = 512, .range = 1, .all = 1, .kicked = 1,
		  .caller = 0xffffffffc0a1b2c3ULL } },
		{ .type = MSC_EV_DIRTY_LOG, .ts = 17, .dirty_log = { .vm_id = 1, .vm_pid = 328,
		  .as_id = 0, .slot_id = -1, .base_gfn = 0x40000, .npages = 8192, .old_flags = 0,
		  .new_flags = 1, .change = 3, .change_name = "flags_only", .eager_split = 1,
		  .end = 1, .duration_ns = 9356190 } },
		{ .type = MSC_EV_SPLIT_SPAN, .ts = 18, .span = { .vm_id = 2, .vm_pid = 400,
		  .slot_id = 1, .start_gfn = 0x40000, .end_gfn = 0x42000, .target_level = 1,
		  .reason = 0, .reason_name = "enable", .count_2m = 16, .duration_ns = 1899719 } },
		{ .type = MSC_EV_COLLAPSE_SPAN, .ts = 19, .span = { .vm_id = 2, .vm_pid = 400,
		  .slot_id = 1, .start_gfn = 0x40000, .end_gfn = 0x42000, .count_2m = 16,
		  .other = 1, .flushes = 16, .duration_ns = 9705199 } },
		/* a symbol the format did not name */
		{ .type = MSC_EV_SPLIT_SPAN, .ts = 20, .span = { .reason = 7 } },
		{ .type = MSC_EV_HARVEST, .ts = 21, .harvest = { .vm_id = 1, .vm_pid = 329,
		  .slot_id = 1, .start_gfn = 0x40000, .npages = 8192, .dirty = 8192, .protect = 1,
		  .flush = 1, .duration_ns = 6393274 } },
		{ .type = MSC_EV_IOCTL, .ts = 22, .pid = 329, .ioctl = { .fd = 9, .cmd = 0xc018aec0,
		  .arg = 0x7f0012345000 } },
		{ .type = MSC_EV_IOCTL, .ts = 23, .pid = 329, .ioctl = { .exit = 1, .fd = -1, .ret = -4 } },
		{ .type = MSC_EV_RING_PUSH, .ts = 24, .pid = 331, .ring = { .ring = 0,
		  .dirty_index = 1, .reset_index = 0, .slot = 1, .offset = 0 } },
		{ .type = MSC_EV_RING_PUSH, .ts = 25, .pid = 331, .ring = { .ring = 1,
		  .dirty_index = 0xffffffff, .reset_index = 0xfffffe00, .slot = 1 << 16 | 3,
		  .offset = 0xfff } },	/* free-running indexes; address space 1 */
		{ .type = MSC_EV_RING_RESET, .ts = 26, .pid = 330, .ring = { .ring = 0,
		  .dirty_index = 0x1000, .reset_index = 0x1000 } },
		{ .type = MSC_EV_RING_EXIT, .ts = 27, .pid = 331, .ring = { .ring = 1 } },
	};
	char line[MSC_EVENT_LINE_MAX], again[MSC_EVENT_LINE_MAX];
	int seen[MSC_EV_NR] = { 0 };

	for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++) {
		struct msc_event back = roundtrip(&evs[i], line, sizeof(line));

		seen[evs[i].type] = 1;
		msc_event_format(&back, again, sizeof(again));
		if (!check_str(again, line))
			continue;
		/* the payload survives byte for byte, padding aside: compare text of both */
		check_int(back.type, ==, evs[i].type);
		check_uint(back.ts, ==, evs[i].ts);
	}
	for (int t = 0; t < MSC_EV_NR; t++)
		if (!check_int(seen[t], ==, 1))
			printf("# event type %s not covered\n", msc_event_type_name(t));
}

static void t_escaping(void)
{
	struct msc_event ev = { .type = MSC_EV_MARKER, .ts = 1, .pid = 5 };
	char line[MSC_EVENT_LINE_MAX];
	struct msc_event back;

	snprintf(ev.marker.text, sizeof(ev.marker.text), "a\\b\nc\td  e=f ");
	back = roundtrip(&ev, line, sizeof(line));
	check_str(line, "1 0 5 marker text=a\\\\b\\nc\\x09d  e=f ");
	check_str(back.marker.text, ev.marker.text);
}

static void t_signed_and_limits(void)
{
	struct msc_event ev = { .type = MSC_EV_SPLIT, .ts = ~0ULL, .cpu = 65535, .pid = -2147483647 - 1,
				.split = { .err = -2147483647 - 1, .level = 2147483647 } };
	char line[MSC_EVENT_LINE_MAX];
	struct msc_event back = roundtrip(&ev, line, sizeof(line));

	check_uint(back.ts, ==, ~0ULL);
	check_int(back.cpu, ==, 65535);
	check_int(back.pid, ==, -2147483647 - 1);
	check_int(back.split.err, ==, -2147483647 - 1);
	check_int(back.split.level, ==, 2147483647);
}

static void t_class_optional(void)
{
	struct msc_event ev;

	check_int(msc_event_parse("5 0 1 spte_changed as=0 gfn=0x10 level=1 old=0 new=0x827\n", &ev), ==, 0);
	check_int(ev.spte.class, ==, MSC_CLASS_NONE);
	check_uint(ev.spte.new_spte, ==, 0x827);
}

static void t_rejects(void)
{
	static const char *const bad[] = {
		"",
		"x 0 1 marker text=a",
		"1 0 1 nosuchtype a=1",
		"1 0 1 spte_changed as=0 gfn=0x10 level=1 old=0",		/* missing new= */
		"1 0 1 spte_changed gfn=0x10 as=0 level=1 old=0 new=1",		/* order */
		"1 0 1 spte_changed as=0 gfn=0x10 level=256 old=0 new=1",	/* u8 overflow */
		"1 0 1 spte_changed as=0 gfn=-1 level=1 old=0 new=1",		/* negative unsigned */
		"1 0 1 spte_changed as=0 gfn=0x10 level=1 old=0 new=1 class=bogus",
		"1 0 1 spte_changed as=0 gfn=0x10 level=1 old=0 new=1 extra=1",
		"1 70000 1 lost count=1",					/* cpu > u16 */
		"1 0 1 split_huge_page gfn=0 spte=0 level=1 errno=2147483648",	/* s32 overflow */
		"1 0 1 marker text=bad\\q",					/* bad escape */
		"1 0 1 kprobe name= ip=0 args=",				/* empty name */
		"1 0 1 ioctl exit=2 fd=3 cmd=0x1 arg=0x0 ret=0",		/* stored by name: 0 or 1 */
	};
	struct msc_event ev;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (!check_int(msc_event_parse(bad[i], &ev), ==, MSC_ERR_PARSE))
			printf("# accepted: \"%s\"\n", bad[i]);
}

static void t_truncated_buffer(void)
{
	struct msc_event ev = { .type = MSC_EV_MARKER, .ts = 123456789 };
	char small[16];
	int n;

	snprintf(ev.marker.text, sizeof(ev.marker.text), "a long marker text that will not fit");
	n = msc_event_format(&ev, small, sizeof(small));
	check_int(n, >, (int)sizeof(small));
	check_int(strlen(small), ==, sizeof(small) - 1);
}

int main(void)
{
	TEST(t_spte_text(), "spte_changed has the documented text form");
	TEST(t_every_type(), "every event type round-trips through its text form");
	TEST(t_escaping(), "marker text escapes backslash, newline and control characters");
	TEST(t_signed_and_limits(), "signed fields and field limits survive the round trip");
	TEST(t_class_optional(), "the derived class field may be left out");
	TEST(t_rejects(), "malformed lines are refused with MSC_ERR_PARSE");
	TEST(t_truncated_buffer(), "a short buffer truncates and reports the needed length");
	return test_done();
}
