// SPDX-License-Identifier: GPL-2.0-only
/*
 * The page encoder against the reader the kernel's users rely on:
 * libtraceevent's kbuffer decodes what lib/ringbuf.c wrote, record by
 * record, with the real header_page/header_event of 6.1, 6.12 and 6.18.
 */
#include "mmuscope/synth.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/kbuffer.h>

#include "test.h"

#define MAX_PAGES 64

struct pages {
	unsigned char buf[MAX_PAGES][4096];
	size_t n;
};

static int keep_page(void *ctx, const void *page, size_t size)
{
	struct pages *p = ctx;

	if (p->n == MAX_PAGES || size != sizeof(p->buf[0]))
		return -ENOSPC;
	memcpy(p->buf[p->n++], page, size);
	return 0;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 65536);

	*len = f && buf ? fread(buf, 1, 65535, f) : 0;
	if (f)
		fclose(f);
	return buf;
}

static int layout(const char *version, struct msc_ringbuf_layout *l)
{
	char path[512];
	size_t hp_len, he_len;
	char *hp, *he;
	int r;

	snprintf(path, sizeof(path), "%s/formats/%s/events/header_page", test_data_dir(), version);
	hp = slurp(path, &hp_len);
	snprintf(path, sizeof(path), "%s/formats/%s/events/header_event", test_data_dir(), version);
	he = slurp(path, &he_len);
	r = msc_ringbuf_layout_parse(l, hp, hp_len, he, he_len);
	free(hp);
	free(he);
	return r;
}

static void t_layout(void)
{
	static const char *const versions[] = { "6.1", "6.12", "6.18" };

	for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		struct msc_ringbuf_layout l;

		if (!check_int(layout(versions[i], &l), ==, 0))
			continue;
		check_int(l.ts_offset, ==, 0);
		check_int(l.ts_size, ==, 8);
		check_int(l.commit_offset, ==, 8);
		check_int(l.commit_size, ==, 8);
		check_int(l.data_offset, ==, 16);
		check_int(l.data_size, ==, 4080);
		check_int(l.type_len_bits, ==, 5);
		check_int(l.time_delta_bits, ==, 27);
		check_int(l.type_padding, ==, 29);
		check_int(l.type_time_extend, ==, 30);
		check_int(l.type_time_stamp, ==, 31);
		check_int(l.type_data_max, ==, 28);
		check_int(msc_ringbuf_page_size(&l), ==, 4096);
	}
}

static void t_bad_layout(void)
{
	struct msc_ringbuf_layout l;
	static const char hp[] = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n";
	static const char he[] = "\ttype_len : 5 bits\n";

	check_int(msc_ringbuf_layout_parse(&l, hp, sizeof(hp) - 1, he, sizeof(he) - 1), <, 0);
}

/* Record i: 8..300 bytes of a pattern derived from i. */
static size_t make_record(unsigned int i, unsigned char *rec)
{
	size_t len = 8 + (i * 37) % 293;

	for (size_t b = 0; b < len; b++)
		rec[b] = (unsigned char)(i * 7 + b);
	return len;
}

static uint64_t record_ts(unsigned int i)
{
	/* mostly small steps; every 50th record a gap longer than 2^27 ns */
	return 1000000000ULL + i * 1000ULL + (i / 50) * (300ULL << 20);
}

/*
 * Decode every page with kbuffer and check each record's time and bytes;
 * @lost_at: index of the first record after a gap of 42, or -1.
 */
static void decode_all(const struct pages *p, unsigned int n, int lost_at, int stamp_at)
{
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	unsigned char want[512];
	unsigned int i = 0;

	for (size_t pg = 0; pg < p->n; pg++) {
		unsigned long long ts;
		void *data;

		check_int(kbuffer_load_subbuffer(kb, (void *)p->buf[pg]), ==, 0);
		if ((int)i == lost_at)
			check_int(kbuffer_missed_events(kb), ==, 42);
		else
			check_int(kbuffer_missed_events(kb), ==, 0);
		for (data = kbuffer_read_event(kb, &ts); data; data = kbuffer_next_event(kb, &ts)) {
			size_t len = make_record(i, want);
			uint64_t t = (int)i >= stamp_at && stamp_at >= 0 ?
				     record_ts(i) + 5000000000ULL : record_ts(i);

			if (!check_uint(ts, ==, t) ||
			    !check_int(kbuffer_event_size(kb), ==, (int)((len + 3) & ~3u)) ||
			    !check(!memcmp(data, want, len)))
				goto out;
			i++;
		}
	}
out:
	check_int(i, ==, n);
	kbuffer_free(kb);
}

/* An encoder for @version's layout that keeps its pages in @p. */
static bool start(const char *version, struct msc_ringbuf_layout *l, struct msc_ringbuf *rb,
		  struct pages *p)
{
	return check_int(layout(version, l), ==, 0) &&
	       check_int(msc_ringbuf_init(rb, l, keep_page, p), ==, 0);
}

static void t_round_trip(void)
{
	struct msc_ringbuf_layout l;
	struct msc_ringbuf rb;
	struct pages *p = calloc(1, sizeof(*p));
	unsigned char rec[512];
	const unsigned int n = 400;

	if (!start("6.18", &l, &rb, p))
		goto out;
	for (unsigned int i = 0; i < n; i++) {
		size_t len = make_record(i, rec);

		if (i == 150)
			check_int(msc_ringbuf_lost(&rb, 42), ==, 0);
		check_int(msc_ringbuf_add(&rb, record_ts(i), rec, len), ==, 0);
	}
	check_int(msc_ringbuf_flush(&rb), ==, 0);
	check_uint(rb.stats.events, ==, n);
	check_uint(rb.stats.pages, ==, p->n);
	check_uint(rb.stats.time_extends, >, 0);	/* the gaps every 50 records */
	check_uint(rb.stats.paddings, >, 0);
	check_uint(rb.stats.missed_pages, ==, 1);
	check_int(p->n, >, 10);
	decode_all(p, n, 150, -1);
	msc_ringbuf_release(&rb);
out:
	free(p);
}

static void t_time_stamp(void)
{
	struct msc_ringbuf_layout l;
	struct msc_ringbuf rb;
	struct pages *p = calloc(1, sizeof(*p));
	unsigned char rec[512];
	const unsigned int n = 60;

	if (!start("6.12", &l, &rb, p))
		goto out;
	for (unsigned int i = 0; i < n; i++) {
		size_t len = make_record(i, rec);
		uint64_t ts = record_ts(i) + (i >= 20 ? 5000000000ULL : 0);

		/* absolute time from record 20 on, 5 s later than the deltas say */
		if (i == 20)
			check_int(msc_ringbuf_add_time_stamp(&rb, ts), ==, 0);
		check_int(msc_ringbuf_add(&rb, ts, rec, len), ==, 0);
	}
	check_int(msc_ringbuf_flush(&rb), ==, 0);
	check_uint(rb.stats.time_stamps, ==, 1);
	decode_all(p, n, -1, 20);
	msc_ringbuf_release(&rb);
out:
	free(p);
}

static void t_errors(void)
{
	struct msc_ringbuf_layout l;
	struct msc_ringbuf rb;
	struct pages *p = calloc(1, sizeof(*p));
	static unsigned char big[4096];

	if (!start("6.12", &l, &rb, p))
		goto out;
	check_int(msc_ringbuf_add(&rb, 100, big, 16), ==, 0);
	check_int(msc_ringbuf_add(&rb, 99, big, 16), ==, -EINVAL);
	check_int(msc_ringbuf_add(&rb, 101, big, sizeof(big)), ==, -E2BIG);
	/* the largest record that fits an empty page: 4080 - 8 bytes of header */
	check_int(msc_ringbuf_add(&rb, 102, big, 4072), ==, 0);
	check_int(msc_ringbuf_flush(&rb), ==, 0);
	check_int(p->n, ==, 2);
	msc_ringbuf_release(&rb);
out:
	free(p);
}

int main(void)
{
	TEST(t_layout(), "header_page/header_event of 6.1, 6.12, 6.18 give the 4096-byte layout");
	TEST(t_bad_layout(), "an incomplete header description is refused");
	TEST(t_round_trip(), "kbuffer reads back 400 records: long ones, TIME_EXTEND, padding, lost 42");
	TEST(t_time_stamp(), "an absolute TIME_STAMP resets the time kbuffer reports");
	TEST(t_errors(), "time going back and records larger than a page are errors");
	return test_done();
}
