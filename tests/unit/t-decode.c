// SPDX-License-Identifier: GPL-2.0-only
/*
 * The decoder on real format files (tests/data: a 6.18 host's tracefs and
 * the 6.1 capture's formats) and hand-written record bytes, in the style of
 * libtraceevent's utest: format text + record bytes -> fields.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "mmuscope/decode.h"
#include "mmuscope/error.h"
#include "mmuscope/event.h"
#include "test.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the record bytes below are little-endian"
#endif

#define F618 "formats/6.18/events/"
#define F61 "traces/k61-npt_tdp_32m/formats/"

static char *slurp(const char *rel, size_t *len)
{
	char path[1024];
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/%s", test_data_dir(), rel);
	f = fopen(path, "r");
	if (!f) {
		printf("# cannot open %s\n", path);
		return NULL;
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc(n + 1);
	*len = fread(buf, 1, n, f);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

static void parse_format(struct tep_handle *tep, const char *rel, const char *sys)
{
	size_t len;
	char *text = slurp(rel, &len);

	if (check(text != NULL))
		check_int(tep_parse_event(tep, text, len, sys), ==, 0);
	free(text);
}

static struct tep_handle *new_tep(void)
{
	struct tep_handle *tep = tep_alloc();

	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	return tep;
}

static int decode(struct msc_decoder *d, const void *bytes, int size, struct msc_event *ev)
{
	struct tep_record rec = { .ts = 1000, .cpu = 1, .data = (void *)bytes, .size = size };

	memset(ev, 0, sizeof(*ev));
	return msc_decoder_decode(d, &rec, ev);
}

/* kvm_tdp_mmu_spte_changed, 6.18 (ID 117): as 1, gfn 0x40000, level 2, 0x8000000000000000 -> 0x13800ee7 */
static const unsigned char spte_618[] = {
	0x75, 0x00, 0x01, 0x00, 0x06, 0x01, 0x00, 0x00,	/* common: type 117, flags, preempt, pid 262 */
	0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00,	/* gfn */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80,	/* old_spte */
	0xe7, 0x0e, 0x80, 0x13, 0x00, 0x00, 0x00, 0x00,	/* new_spte */
	0x02, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* level, as_id, padding */
};

/* kvm_mmu_split_huge_page, 6.18 (ID 116): gfn 0x40200, spte 0x13a00ee7, level 2, errno -12 */
static const unsigned char split_618[] = {
	0x74, 0x00, 0x00, 0x00, 0x04, 0x01, 0x00, 0x00,	/* type 116, pid 260 */
	0x00, 0x02, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00,	/* gfn */
	0xe7, 0x0e, 0xa0, 0x13, 0x00, 0x00, 0x00, 0x00,	/* spte */
	0x02, 0x00, 0x00, 0x00, 0xf4, 0xff, 0xff, 0xff,	/* level (int), errno (int) */
};

static void t_spte_changed(void)
{
	struct tep_handle *tep = new_tep();
	struct msc_decoder *d;
	struct msc_event ev;

	parse_format(tep, F618 "kvmmmu/kvm_tdp_mmu_spte_changed/format", "kvmmmu");
	check_int(msc_decoder_new(tep, &d), ==, 0);
	check_int(decode(d, spte_618, sizeof(spte_618), &ev), ==, 1);
	check_int(ev.type, ==, MSC_EV_SPTE_CHANGED);
	check_uint(ev.spte.gfn, ==, 0x40000);
	check_uint(ev.spte.old_spte, ==, 0x8000000000000000ULL);
	check_uint(ev.spte.new_spte, ==, 0x13800ee7);
	check_int(ev.spte.level, ==, 2);
	check_int(ev.spte.as_id, ==, 1);
	check_int(ev.pid, ==, 262);
	check_int(ev.cpu, ==, 1);
	check_uint(ev.ts, ==, 1000);
	check_int(ev.spte.class, ==, MSC_CLASS_NONE);	/* classifying is not the decoder's job */
	check(msc_decoder_next_warning(d) == NULL);
	msc_decoder_free(d);
	tep_free(tep);
}

static void t_split_signed(void)
{
	struct tep_handle *tep = new_tep();
	struct msc_decoder *d;
	struct msc_event ev;

	parse_format(tep, F618 "kvmmmu/kvm_mmu_split_huge_page/format", "kvmmmu");
	msc_decoder_new(tep, &d);
	check_int(decode(d, split_618, sizeof(split_618), &ev), ==, 1);
	check_int(ev.type, ==, MSC_EV_SPLIT);
	check_uint(ev.split.gfn, ==, 0x40200);
	check_uint(ev.split.spte, ==, 0x13a00ee7);
	check_int(ev.split.level, ==, 2);
	check_int(ev.split.err, ==, -12);	/* tep reads it zero-extended */
	msc_decoder_free(d);
	tep_free(tep);
}

/* fast_page_fault: vcpu 0, gpa 0x40001000, error_code 0x100000007, sptep, old 0x13801e65, new 0x13801e67 */
static void fast_pf_record(unsigned char *r, unsigned int id, int error_code_size, int ret)
{
	static const unsigned char body[] = {
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* vcpu_id (int) + pad */
		0x00, 0x10, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00,	/* cr2_or_gpa */
		0x07, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,	/* error_code (u32 on 6.1: 0x7) */
		0x08, 0xd0, 0x70, 0x13, 0x00, 0x88, 0xff, 0xff,	/* sptep */
		0x65, 0x1e, 0x80, 0x13, 0x00, 0x00, 0x00, 0x00,	/* old_spte */
		0x67, 0x1e, 0x80, 0x13, 0x00, 0x00, 0x00, 0x00,	/* new_spte */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* ret (int) + pad */
	};

	memset(r, 0, 8);
	r[0] = id & 0xff;
	r[1] = id >> 8;
	r[4] = 0x06;	/* pid 262 */
	r[5] = 0x01;
	memcpy(r + 8, body, sizeof(body));
	if (error_code_size == 4)
		r[8 + 20] = 0;	/* the u32 field ends at offset 28 */
	r[8 + 48] = (unsigned char)ret;
}

static void t_fast_pf_ret_from_format(void)
{
	/* RET_PF_FIXED/SPURIOUS are 4/5 on 6.1 and 5/6 on 6.18: read from each print fmt */
	static const struct { const char *fmt; unsigned int id; int ec_size, ret, result; } cases[] = {
		{ F61 "kvmmmu/fast_page_fault/format", 1456, 4, 4, MSC_FPF_FIXED },
		{ F61 "kvmmmu/fast_page_fault/format", 1456, 4, 5, MSC_FPF_SPURIOUS },
		{ F61 "kvmmmu/fast_page_fault/format", 1456, 4, 1, MSC_FPF_OTHER },
		{ F618 "kvmmmu/fast_page_fault/format", 122, 8, 5, MSC_FPF_FIXED },
		{ F618 "kvmmmu/fast_page_fault/format", 122, 8, 6, MSC_FPF_SPURIOUS },
		{ F618 "kvmmmu/fast_page_fault/format", 122, 8, 4, MSC_FPF_OTHER },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tep_handle *tep = new_tep();
		unsigned char rec[64];
		struct msc_decoder *d;
		struct msc_event ev;

		parse_format(tep, cases[i].fmt, "kvmmmu");
		msc_decoder_new(tep, &d);
		fast_pf_record(rec, cases[i].id, cases[i].ec_size, cases[i].ret);
		check_int(decode(d, rec, sizeof(rec), &ev), ==, 1);
		check_int(ev.type, ==, MSC_EV_FAST_PF);
		check_int(ev.fast_pf.ret, ==, cases[i].ret);
		if (!check_int(ev.fast_pf.result, ==, cases[i].result))
			printf("# %s ret %d\n", cases[i].fmt, cases[i].ret);
		check_uint(ev.fast_pf.gpa, ==, 0x40001000);
		check_uint(ev.fast_pf.old_spte, ==, 0x13801e65);
		check_uint(ev.fast_pf.new_spte, ==, 0x13801e67);
		check_uint(ev.fast_pf.error_code, ==, cases[i].ec_size == 8 ? 0x100000007ULL : 0x7);
		msc_decoder_free(d);
		tep_free(tep);
	}
}

static void t_marker_and_kprobe(void)
{
	/* ftrace/print, 6.18 (ID 5): ip, then the marker text with its newline */
	static const unsigned char print[] = {
		0x05, 0x00, 0x00, 0x00, 0x04, 0x01, 0x00, 0x00,
		0x10, 0x20, 0x30, 0x40, 0x00, 0x00, 0xff, 0xff,
		'p', 'h', 'a', 's', 'e', '=', 'x', ' ', 'b', 'e', 'g', 'i', 'n', '\n', 0, 0,
	};
	/* lab/kvm_flush_remote_tlbs, a kprobe of the 6.1 capture (ID 1468) */
	static const unsigned char kprobe[] = {
		0xbc, 0x05, 0x00, 0x00, 0x04, 0x01, 0x00, 0x00,
		0x20, 0x45, 0x55, 0xc0, 0xff, 0xff, 0xff, 0xff,
	};
	struct tep_handle *tep = new_tep();
	struct msc_decoder *d;
	struct msc_event ev;

	parse_format(tep, F618 "ftrace/print/format", "ftrace");
	parse_format(tep, F61 "lab/kvm_flush_remote_tlbs/format", "lab");
	msc_decoder_new(tep, &d);
	check_int(decode(d, print, sizeof(print), &ev), ==, 1);
	check_int(ev.type, ==, MSC_EV_MARKER);
	check_str(ev.marker.text, "phase=x begin");
	check_int(decode(d, kprobe, sizeof(kprobe), &ev), ==, 1);
	check_int(ev.type, ==, MSC_EV_KPROBE);
	check_str(ev.kprobe.name, "kvm_flush_remote_tlbs");
	check_uint(ev.kprobe.ip, ==, 0xffffffffc0554520ULL);
	check_str(ev.kprobe.args, "");
	check(msc_decoder_next_warning(d) == NULL);
	msc_decoder_free(d);
	tep_free(tep);
}

static void t_counted_only_and_stats(void)
{
	static const unsigned char exit_rec[] = {
		0x64, 0x05, 0x00, 0x00, 0x06, 0x01, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	};
	struct tep_handle *tep = new_tep();
	struct msc_event_stat st;
	struct msc_decoder *d;
	struct msc_event ev;
	int seen = 0;

	parse_format(tep, F61 "kvm/kvm_userspace_exit/format", "kvm");
	parse_format(tep, F618 "kvmmmu/kvm_tdp_mmu_spte_changed/format", "kvmmmu");
	msc_decoder_new(tep, &d);
	check_int(decode(d, exit_rec, sizeof(exit_rec), &ev), ==, 0);
	check_int(decode(d, exit_rec, sizeof(exit_rec), &ev), ==, 0);
	check_int(decode(d, spte_618, sizeof(spte_618), &ev), ==, 1);
	for (size_t i = 0; msc_decoder_get_stat(d, i, &st) != -ENOENT; i++) {
		if (msc_decoder_get_stat(d, i, &st) != 1)
			continue;
		seen++;
		if (!strcmp(st.name, "kvm_userspace_exit")) {
			check_int(st.count, ==, 2);
			check_int(st.type, ==, -1);
			check_str(st.system, "kvm");
		} else {
			check_str(st.name, "kvm_tdp_mmu_spte_changed");
			check_int(st.count, ==, 1);
			check_int(st.type, ==, MSC_EV_SPTE_CHANGED);
		}
	}
	check_int(seen, ==, 2);
	msc_decoder_free(d);
	tep_free(tep);
}

static void t_bad_records(void)
{
	struct tep_handle *tep = new_tep();
	unsigned char unknown[sizeof(spte_618)];
	struct msc_decoder *d;
	struct msc_event ev;

	parse_format(tep, F618 "kvmmmu/kvm_tdp_mmu_spte_changed/format", "kvmmmu");
	msc_decoder_new(tep, &d);
	/* shorter than the fields the format places in it */
	check_int(decode(d, spte_618, 30, &ev), ==, MSC_ERR_CORRUPT);
	check(strstr(msc_decoder_error(d), "is 30 bytes, its format needs 34") != NULL);
	/* an event id no format describes */
	memcpy(unknown, spte_618, sizeof(unknown));
	unknown[0] = 0x39;
	unknown[1] = 0x30;
	check_int(decode(d, unknown, sizeof(unknown), &ev), ==, MSC_ERR_CORRUPT);
	check(strstr(msc_decoder_error(d), "event id 12345") != NULL);
	msc_decoder_free(d);
	tep_free(tep);
}

/*
 * Allocations that fail on demand: this program's calloc() and realloc()
 * replace the C library's (the library's own code calls them like any
 * other), failing while fail_calloc or fail_realloc is set and otherwise
 * doing what the C library's do.  Nothing of it is in the library.
 */
static bool fail_calloc, fail_realloc;

void *calloc(size_t nmemb, size_t size)
{
	size_t bytes;
	void *p;

	if (fail_calloc || __builtin_mul_overflow(nmemb, size, &bytes)) {
		errno = ENOMEM;
		return NULL;
	}
	p = malloc(bytes);
	if (p)
		explicit_bzero(p, bytes);	/* memset() would be folded into calloc() */
	return p;
}

void *realloc(void *ptr, size_t size)
{
	static void *(*next)(void *, size_t);

	if (fail_realloc) {
		errno = ENOMEM;
		return NULL;
	}
	if (!next)
		next = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
	return next ? next(ptr, size) : NULL;
}

static void t_no_memory(void)
{
	struct tep_handle *tep = new_tep();
	struct msc_decoder *d;
	struct msc_event ev;

	parse_format(tep, F618 "kvmmmu/kvm_tdp_mmu_spte_changed/format", "kvmmmu");
	/* the entry of a new event id: no memory is not a corrupt record */
	check_int(msc_decoder_new(tep, &d), ==, 0);
	fail_calloc = true;
	check_int(decode(d, spte_618, sizeof(spte_618), &ev), ==, -ENOMEM);
	fail_calloc = false;
	check_int(decode(d, spte_618, sizeof(spte_618), &ev), ==, 1);
	check_uint(ev.spte.gfn, ==, 0x40000);
	msc_decoder_free(d);
	/* the table of event ids, grown for a new one */
	check_int(msc_decoder_new(tep, &d), ==, 0);
	fail_realloc = true;
	check_int(decode(d, spte_618, sizeof(spte_618), &ev), ==, -ENOMEM);
	fail_realloc = false;
	check_int(decode(d, spte_618, sizeof(spte_618), &ev), ==, 1);
	check(msc_decoder_next_warning(d) == NULL);
	msc_decoder_free(d);
	tep_free(tep);
}

static void t_format_drift(void)
{
	/* the same event with gfn renamed and a field added: warned once, never fatal */
	static const char fmt[] =
		"name: kvm_tdp_mmu_spte_changed\nID: 117\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:u64 base_gfn;\toffset:8;\tsize:8;\tsigned:0;\n"
		"\tfield:u64 old_spte;\toffset:16;\tsize:8;\tsigned:0;\n"
		"\tfield:u64 new_spte;\toffset:24;\tsize:8;\tsigned:0;\n"
		"\tfield:u8 level;\toffset:32;\tsize:1;\tsigned:0;\n"
		"\tfield:u8 as_id;\toffset:33;\tsize:1;\tsigned:0;\n\n"
		"print fmt: \"gfn %llx\", REC->base_gfn\n";
	struct tep_handle *tep = new_tep();
	struct msc_decoder *d;
	struct msc_event ev;
	const char *w;
	int warnings = 0;

	check_int(tep_parse_event(tep, fmt, sizeof(fmt) - 1, "kvmmmu"), ==, 0);
	msc_decoder_new(tep, &d);
	check_int(decode(d, spte_618, sizeof(spte_618), &ev), ==, 0);
	check_int(decode(d, spte_618, sizeof(spte_618), &ev), ==, 0);
	while ((w = msc_decoder_next_warning(d))) {
		warnings++;
		printf("# warning: %s\n", w);
	}
	check_int(warnings, ==, 1);	/* "no field 'gfn'"; the rest is not looked at */
	msc_decoder_free(d);
	tep_free(tep);
}

static void t_unknown_kvmmmu_event(void)
{
	/* kvmmmu/kvm_mmu_paging_element (6.18, ID 132): not stored, counted, reported once */
	static const unsigned char rec[] = {
		0x84, 0x00, 0x00, 0x00, 0x06, 0x01, 0x00, 0x00,
		0x67, 0x0e, 0x80, 0x13, 0x00, 0x00, 0x00, 0x00,
		0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	};
	struct tep_handle *tep = new_tep();
	struct msc_decoder *d;
	struct msc_event ev;
	const char *w;

	parse_format(tep, F618 "kvmmmu/kvm_mmu_paging_element/format", "kvmmmu");
	msc_decoder_new(tep, &d);
	check_int(decode(d, rec, sizeof(rec), &ev), ==, 0);
	check_int(decode(d, rec, sizeof(rec), &ev), ==, 0);
	w = msc_decoder_next_warning(d);
	check_str(w, "kvmmmu/kvm_mmu_paging_element: event not known to mmuscope; counted, not stored");
	check(msc_decoder_next_warning(d) == NULL);
	msc_decoder_free(d);
	tep_free(tep);
}

#define FMSC "traces/k612msc-npt_tdp_32m/formats/"

/*
 * Decode @bytes (common_type left 0) as event SYSTEM/NAME of the patched
 * kernel's formats; returns the decoder (freed by the caller) or NULL.
 */
static struct msc_decoder *decode_patched(struct tep_handle *tep, const char *system,
					  const char *name, const unsigned char *bytes,
					  size_t size, struct msc_event *ev)
{
	unsigned char rec[128];
	struct msc_decoder *d;
	struct tep_event *e;
	char fmt[256];

	snprintf(fmt, sizeof(fmt), FMSC "%s/%s/format", system, name);
	parse_format(tep, fmt, system);
	e = tep_find_event_by_name(tep, system, name);
	if (!check(e != NULL) || !check(size <= sizeof(rec)))
		return NULL;
	memcpy(rec, bytes, size);
	rec[0] = e->id & 0xff;
	rec[1] = (unsigned char)(e->id >> 8);
	msc_decoder_new(tep, &d);
	check_int(decode(d, rec, (int)size, ev), ==, 1);
	return d;
}

static void t_patched_events(void)
{
	/* kvmmmu/kvm_mmu_split_huge_pages of the patched 6.12 kernel: the reason's
	 * name comes from the format's __print_symbolic, not from a table here */
	static const unsigned char span[] = {
		0x00, 0x00, 0x00, 0x00, 0x48, 0x01, 0x00, 0x00,	/* type (set below), pid 328 */
		0x01, 0x00, 0x00, 0x00, 0x48, 0x01, 0x00, 0x00,	/* vm_id 1, vm_pid 328 */
		0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,	/* as_id 0, slot_id 1 */
		0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00,	/* start_gfn 0x40000 */
		0x00, 0x20, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00,	/* end_gfn 0x42000 */
		0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* target_level 1, reason 1, split_1g 0 */
		0x10, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00,	/* split_2m 16, failed 2 */
		0xc7, 0xfc, 0x1c, 0x00, 0x00, 0x00, 0x00, 0x00,	/* duration_ns 1899719 */
	};
	struct tep_handle *tep = new_tep();
	struct msc_event ev;
	struct msc_decoder *d = decode_patched(tep, "kvmmmu", "kvm_mmu_split_huge_pages", span,
					       sizeof(span), &ev);

	if (!d) {
		tep_free(tep);
		return;
	}
	check_int(ev.type, ==, MSC_EV_SPLIT_SPAN);
	check_int(ev.span.vm_id, ==, 1);
	check_int(ev.span.vm_pid, ==, 328);
	check_int(ev.span.slot_id, ==, 1);
	check_uint(ev.span.start_gfn, ==, 0x40000);
	check_uint(ev.span.end_gfn, ==, 0x42000);
	check_int(ev.span.reason, ==, 1);
	check_str(ev.span.reason_name, "clear");
	check_int(ev.span.count_2m, ==, 16);
	check_int(ev.span.other, ==, 2);
	check_uint(ev.span.duration_ns, ==, 1899719);
	check(msc_decoder_next_warning(d) == NULL);
	msc_decoder_free(d);
	tep_free(tep);
}

static void t_harvest(void)
{
	/* kvm/kvm_dirty_log_harvest of the patched 6.12 kernel: the second
	 * KVM_GET_DIRTY_LOG of k612msc-npt_tdp_32m */
	static const unsigned char harvest[] = {
		0x00, 0x00, 0x00, 0x00, 0x49, 0x01, 0x00, 0x00,	/* type (set below), pid 329 */
		0x01, 0x00, 0x00, 0x00, 0x49, 0x01, 0x00, 0x00,	/* vm_id 1, vm_pid 329 */
		0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,	/* as_id 0, slot_id 1, pad */
		0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00,	/* start_gfn 0x40000 */
		0x00, 0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* npages 8192 */
		0x00, 0x1f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* dirty 7936 */
		0x00, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,	/* clear 0, protect 1, flush 1 */
		0x13, 0xd3, 0x54, 0x00, 0x00, 0x00, 0x00, 0x00,	/* duration_ns 5559059 */
	};
	struct tep_handle *tep = new_tep();
	struct msc_event ev;
	struct msc_decoder *d = decode_patched(tep, "kvm", "kvm_dirty_log_harvest", harvest,
					       sizeof(harvest), &ev);

	if (!d) {
		tep_free(tep);
		return;
	}
	check_int(ev.type, ==, MSC_EV_HARVEST);
	check_int(ev.pid, ==, 329);
	check_int(ev.harvest.vm_id, ==, 1);
	check_int(ev.harvest.vm_pid, ==, 329);
	check_int(ev.harvest.as_id, ==, 0);
	check_int(ev.harvest.slot_id, ==, 1);
	check_uint(ev.harvest.start_gfn, ==, 0x40000);
	check_uint(ev.harvest.npages, ==, 8192);
	check_uint(ev.harvest.dirty, ==, 7936);
	check_int(ev.harvest.clear, ==, 0);
	check_int(ev.harvest.protect, ==, 1);
	check_int(ev.harvest.flush, ==, 1);
	check_uint(ev.harvest.duration_ns, ==, 5559059);
	check(msc_decoder_next_warning(d) == NULL);
	msc_decoder_free(d);
	tep_free(tep);
}

int main(void)
{
	TEST(t_spte_changed(), "kvm_tdp_mmu_spte_changed fields by name (6.18 format)");
	TEST(t_split_signed(), "kvm_mmu_split_huge_page errno is sign-extended");
	TEST(t_fast_pf_ret_from_format(), "fast_page_fault fixed/spurious from each kernel's print fmt");
	TEST(t_marker_and_kprobe(), "trace_marker text and kprobe name/ip");
	TEST(t_counted_only_and_stats(), "events not stored are counted by name");
	TEST(t_bad_records(), "short records and unknown event ids are corrupt");
	TEST(t_no_memory(), "no memory for a new event id's entry is -ENOMEM, not corrupt");
	TEST(t_format_drift(), "a format missing a required field is reported once, not fatal");
	TEST(t_unknown_kvmmmu_event(), "an unknown kvmmmu event is counted and reported once");
	TEST(t_patched_events(), "the companion patch's split span, symbol names from the format");
	TEST(t_harvest(), "the companion patch's dirty-log harvest, every field by name");
	return test_done();
}
