// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel ring buffer's sub-buffer ("page") format, written.
 *
 * No library writes these pages (libtraceevent's kbuffer only reads them),
 * so this is the one hand-made encoder in mmuscope.  Everything it places
 * comes from the kernel's own description of the format:
 *
 *   events/header_page   the page header: "timestamp", "commit" and "data"
 *                        fields, found by name after libtraceevent parsed
 *                        the file as an event format;
 *   events/header_event  the event header: type_len and time_delta bit
 *                        widths, the type numbers of padding, time extend
 *                        and time stamp, and the largest inline type_len.
 *
 * What the kernel does and this encoder copies (kernel/trace/ring_buffer.c):
 * a record of up to type_data_max * 4 bytes has type_len = its length in
 * 4-byte words; a longer one has type_len 0 and its length + 4 in array[0];
 * a delta too large for time_delta is preceded by a TIME_EXTEND; an event
 * that does not fit ends the page with a PADDING event that runs to the end
 * of the data area (rb_reset_tail()); the commit word's bit 31 says events
 * were lost before this page and bit 30 that their count is stored right
 * after the last event (ring_buffer_read_page()).
 *
 * Records are copied in host byte order: the formats are x86 kernels', and
 * mmuscope runs on x86.
 */
#include "mmuscope/synth.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "mmuscope/error.h"
#include "mmuscope/util.h"

/* Commit-word flags: RB_MISSED_EVENTS and RB_MISSED_STORED. */
#define MISSED_EVENTS (1ULL << 31)
#define MISSED_STORED (1ULL << 30)

#define ALIGN4(x) (((x) + 3) & ~(size_t)3)

/* Find @name in the fake event @ev built around header_page. */
static int header_field(struct tep_event *ev, const char *name, unsigned int *ret_off,
			unsigned int *ret_size)
{
	/* with no blank line, libtraceevent files them all as common fields */
	struct tep_format_field *f = tep_find_any_field(ev, name);

	if (!f || f->offset < 0 || f->size < 0)
		return MSC_ERR_FORMAT;
	*ret_off = (unsigned int)f->offset;
	*ret_size = (unsigned int)f->size;
	return 0;
}

/*
 * header_page has the shape of an event's field list, so libtraceevent
 * parses it once it is wrapped in a name, an id and a print format.
 */
static int parse_header_page(struct msc_ringbuf_layout *l, const char *text, size_t len)
{
	static const char head[] = "name: header_page\nID: 1\nformat:\n";
	static const char tail[] = "\nprint fmt: \"\"\n";
	struct tep_handle *tep = tep_alloc();
	struct tep_event *ev = NULL;
	char *buf = malloc(sizeof(head) + len + sizeof(tail));
	int r = -ENOMEM;

	if (!tep || !buf)
		goto out;
	memcpy(buf, head, sizeof(head) - 1);
	memcpy(buf + sizeof(head) - 1, text, len);
	memcpy(buf + sizeof(head) - 1 + len, tail, sizeof(tail));
	r = MSC_ERR_FORMAT;
	if (tep_parse_format(tep, &ev, buf, strlen(buf), "header_page") != TEP_ERRNO__SUCCESS)
		goto out;
	if (header_field(ev, "timestamp", &l->ts_offset, &l->ts_size) ||
	    header_field(ev, "commit", &l->commit_offset, &l->commit_size) ||
	    header_field(ev, "data", &l->data_offset, &l->data_size))
		goto out;
	if (l->ts_size != 8 || (l->commit_size != 4 && l->commit_size != 8) ||
	    l->data_offset < l->commit_offset + l->commit_size || l->data_size < 64)
		goto out;
	r = 0;
out:
	free(buf);
	if (tep)
		tep_free(tep);
	return r;
}

/* header_event: "type_len : 5 bits", "padding : type == 29", ... */
static int parse_header_event(struct msc_ringbuf_layout *l, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	unsigned int found = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char line[128], key[32];
		unsigned int v;

		snprintf(line, sizeof(line), "%.*s", (int)min(n, sizeof(line) - 1), p);
		p += n + 1;
		if (sscanf(line, " %31[a-z_] : %u bits", key, &v) == 2) {
			if (!strcmp(key, "type_len"))
				l->type_len_bits = v, found |= 1;
			else if (!strcmp(key, "time_delta"))
				l->time_delta_bits = v, found |= 2;
		} else if (sscanf(line, " %31[a-z_] : type == %u", key, &v) == 2) {
			if (!strcmp(key, "padding"))
				l->type_padding = v, found |= 4;
			else if (!strcmp(key, "time_extend"))
				l->type_time_extend = v, found |= 8;
			else if (!strcmp(key, "time_stamp"))
				l->type_time_stamp = v, found |= 16;
		} else if (sscanf(line, " data max type_len == %u", &v) == 1) {
			l->type_data_max = v, found |= 32;
		}
	}
	if (found != 63 || l->type_len_bits + l->time_delta_bits != 32 ||
	    l->type_data_max >= l->type_padding)
		return MSC_ERR_FORMAT;
	return 0;
}

/**
 * msc_ringbuf_layout_parse - read the page and event header descriptions
 * @l: filled in
 * @header_page: contents of events/header_page
 * @header_page_len: its length
 * @header_event: contents of events/header_event
 * @header_event_len: its length
 *
 * Returns 0, -ENOMEM, or MSC_ERR_FORMAT when either text lacks a field this
 * encoder needs or describes a layout it cannot write (a 4-byte commit word
 * is accepted, a non-32-bit event header is not).
 */
int msc_ringbuf_layout_parse(struct msc_ringbuf_layout *l, const char *header_page,
			     size_t header_page_len, const char *header_event,
			     size_t header_event_len)
{
	int r;

	*l = (struct msc_ringbuf_layout){ 0 };
	r = parse_header_page(l, header_page, header_page_len);
	if (r)
		return r;
	return parse_header_event(l, header_event, header_event_len);
}

static void put(unsigned char *p, unsigned int size, uint64_t v)
{
	switch (size) {
	case 1: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); break; }
	case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
	case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
	default: memcpy(p, &v, 8); break;
	}
}

static unsigned char *data(struct msc_ringbuf *rb)
{
	return rb->page + rb->layout->data_offset;
}

static void put_header(struct msc_ringbuf *rb, unsigned int type_len, uint64_t delta)
{
	uint32_t word = type_len | (uint32_t)(delta << rb->layout->type_len_bits);

	put(data(rb) + rb->used, 4, word);
	rb->used += 4;
}

/* Room for events on the current page: a stored missed count needs a long. */
static size_t capacity(const struct msc_ringbuf *rb)
{
	size_t cap = rb->layout->data_size;

	if (rb->missed && rb->missed_count)
		cap -= rb->layout->commit_size;
	return cap;
}

static void start_page(struct msc_ringbuf *rb, uint64_t ts)
{
	memset(rb->page, 0, msc_ringbuf_page_size(rb->layout));
	put(rb->page + rb->layout->ts_offset, rb->layout->ts_size, ts);
	rb->used = 0;
	rb->last_ts = ts;
	rb->open = true;
}

/* Close the page as the kernel does when the next event does not fit. */
static int finish_page(struct msc_ringbuf *rb, bool full)
{
	const struct msc_ringbuf_layout *l = rb->layout;
	size_t cap = capacity(rb), commit;
	uint64_t flags = 0;
	int r;

	if (full && cap - rb->used >= 8) {
		/* a discarded event covering the rest: delta 1, length in array[0] */
		size_t rest = cap - rb->used;

		put_header(rb, l->type_padding, 1);
		put(data(rb) + rb->used, 4, rest - 4);
		rb->used = cap;
		rb->stats.paddings++;
	}
	commit = rb->used;
	if (rb->missed) {
		flags = MISSED_EVENTS;
		if (rb->missed_count) {
			put(data(rb) + commit, l->commit_size, rb->missed_count);
			flags |= MISSED_STORED;
		}
		rb->stats.missed_pages++;
		rb->missed = false;
		rb->missed_count = 0;
	}
	put(rb->page + l->commit_offset, l->commit_size, commit | flags);
	rb->open = false;
	rb->stats.pages++;
	r = rb->page_fn(rb->ctx, rb->page, msc_ringbuf_page_size(l));
	return r < 0 ? r : 0;
}

/**
 * msc_ringbuf_mark_missed - flag a finished page as following lost events
 *	(count unknown), as the kernel does when it overwrote older pages
 * @l: the page's layout
 * @page: msc_ringbuf_page_size() bytes
 */
void msc_ringbuf_mark_missed(const struct msc_ringbuf_layout *l, void *page)
{
	unsigned char *c = (unsigned char *)page + l->commit_offset;
	uint64_t word = 0;

	memcpy(&word, c, min(l->commit_size, (unsigned int)sizeof(word)));
	put(c, l->commit_size, word | MISSED_EVENTS);
}

/**
 * msc_ringbuf_init - start one CPU's encoder
 * @rb: the encoder
 * @l: the layout, borrowed for the encoder's life
 * @fn: called with each finished page
 * @ctx: passed to @fn
 *
 * Returns 0 or -ENOMEM.  Release with msc_ringbuf_release() after
 * msc_ringbuf_flush().
 */
int msc_ringbuf_init(struct msc_ringbuf *rb, const struct msc_ringbuf_layout *l,
		     msc_ringbuf_page_fn fn, void *ctx)
{
	*rb = (struct msc_ringbuf){ .layout = l, .page_fn = fn, .ctx = ctx };
	rb->page = malloc(msc_ringbuf_page_size(l));
	return rb->page ? 0 : -ENOMEM;
}

/* Free the page buffer; a page still open is dropped (flush first). */
void msc_ringbuf_release(struct msc_ringbuf *rb)
{
	free(rb->page);
	rb->page = NULL;
}

/* Make room for @need bytes at @ts; returns the delta to encode. */
static int reserve(struct msc_ringbuf *rb, uint64_t ts, size_t need, uint64_t *ret_delta)
{
	uint64_t delta;
	int r;

	if (rb->open && ts < rb->last_ts)
		return -EINVAL;
	if (rb->open) {
		delta = ts - rb->last_ts;
		if (delta >> rb->layout->time_delta_bits)
			need += 8;
		if (rb->used + need > capacity(rb)) {
			r = finish_page(rb, true);
			if (r)
				return r;
		}
	}
	if (!rb->open) {
		if (need > capacity(rb))
			return -E2BIG;
		start_page(rb, ts);
	}
	delta = ts - rb->last_ts;
	if (delta >> rb->layout->time_delta_bits) {
		uint64_t mask = (1ULL << rb->layout->time_delta_bits) - 1;

		put_header(rb, rb->layout->type_time_extend, delta & mask);
		put(data(rb) + rb->used, 4, delta >> rb->layout->time_delta_bits);
		rb->used += 4;
		rb->stats.time_extends++;
		delta = 0;
	}
	rb->last_ts = ts;
	*ret_delta = delta;
	return 0;
}

/**
 * msc_ringbuf_add - append one record
 * @rb: the encoder
 * @ts: its time; not before the previous record's
 * @rec: the record as the kernel lays it out (common fields first)
 * @len: its length in bytes
 *
 * A finished page goes to the page function before the record is placed.
 * Returns 0; -EINVAL when @ts goes backwards; -E2BIG when the record cannot
 * fit on an empty page; or the page function's negative result.
 */
int msc_ringbuf_add(struct msc_ringbuf *rb, uint64_t ts, const void *rec, size_t len)
{
	const struct msc_ringbuf_layout *l = rb->layout;
	size_t padded = ALIGN4(len ? len : 1);
	bool inline_len = padded <= (size_t)l->type_data_max * 4;
	size_t need = 4 + padded + (inline_len ? 0 : 4);
	uint64_t delta;
	int r;

	r = reserve(rb, ts, need, &delta);
	if (r)
		return r;
	if (inline_len) {
		put_header(rb, (unsigned int)(padded / 4), delta);
	} else {
		put_header(rb, 0, delta);
		put(data(rb) + rb->used, 4, padded + 4);
		rb->used += 4;
	}
	memcpy(data(rb) + rb->used, rec, len);
	rb->used += padded;
	rb->stats.events++;
	rb->stats.bytes += len;
	return 0;
}

/**
 * msc_ringbuf_add_time_stamp - append an absolute TIME_STAMP event
 * @rb: the encoder
 * @ts: the time it sets; not before the previous record's
 *
 * The kernel writes these when the buffer runs in absolute-timestamp mode;
 * readers must take the event's time as is, not as a delta.
 * Returns 0 or a negative error as msc_ringbuf_add().
 */
int msc_ringbuf_add_time_stamp(struct msc_ringbuf *rb, uint64_t ts)
{
	const struct msc_ringbuf_layout *l = rb->layout;
	uint64_t mask = (1ULL << l->time_delta_bits) - 1, delta;
	int r;

	r = reserve(rb, ts, 8, &delta);
	if (r)
		return r;
	put_header(rb, l->type_time_stamp, ts & mask);
	put(data(rb) + rb->used, 4, ts >> l->time_delta_bits);
	rb->used += 4;
	rb->stats.time_stamps++;
	return 0;
}

/**
 * msc_ringbuf_lost - events were dropped before the next record
 * @rb: the encoder
 * @count: how many; 0 when unknown
 *
 * The current page ends here and the next one carries the missed-events
 * flag (and @count after its last event), as a reader of trace_pipe_raw
 * sees after the kernel dropped events.  Returns 0 or the page function's
 * negative result.
 */
int msc_ringbuf_lost(struct msc_ringbuf *rb, uint64_t count)
{
	int r = 0;

	if (rb->open)
		r = finish_page(rb, false);
	rb->missed = true;
	rb->missed_count += count;
	return r;
}

/**
 * msc_ringbuf_flush - hand out the page being filled, if any
 * @rb: the encoder
 *
 * The page keeps its commit at the bytes used, as a read of a partly
 * filled buffer returns it.  Returns 0 or the page function's result.
 */
int msc_ringbuf_flush(struct msc_ringbuf *rb)
{
	return rb->open ? finish_page(rb, false) : 0;
}
