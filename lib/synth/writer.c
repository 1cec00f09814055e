// SPDX-License-Identifier: GPL-2.0-only
/*
 * struct msc_event -> kernel record -> per-CPU ring-buffer pages.
 *
 * The decoder's description (lib/event-desc.c) read backwards: each event
 * type's tracepoint (the one its tag names) is the format it becomes, and
 * each field's tracepoint field is where its value goes.  The first event
 * of a type and tracepoint resolves its recipe: the format (by system and
 * name), every field's tep_format_field (by name), and the record size, so
 * that a record costs one store per field at the field's own offset and
 * size.  A kprobe event resolves by its own name, in whatever group.
 */
#include "mmuscope/synth.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "mmuscope/decode.h"
#include "mmuscope/error.h"
#include "mmuscope/event.h"
#include "mmuscope/util.h"
#include "lib/event-desc.h"
#include "local.h"

#define MAX_FIELDS MSC_EVENT_MAX_FIELDS
#define MAX_KPROBES 32
#define MAX_TRACEPOINTS 2	/* of one type */
#define OUT_PAGES 16		/* pages buffered per CPU before a write() */
#define DIRECT_MAP 0xffff888000000000ULL

/* One format, resolved for writing. */
struct recipe {
	const struct synth_format *fmt;	/* NULL: the formats lack it */
	const struct msc_event_desc *desc;
	struct tep_format_field *common_type, *common_pid;
	struct tep_format_field *field[MAX_FIELDS];	/* of desc->fields[i]; NULL: none */
	struct tep_format_field *sptep;	/* fast_page_fault's, which no event carries */
	struct tep_format_field *ip;	/* a marker's */
	size_t size;		/* fixed part of the record */
};

struct cpu_out {
	struct msc_ringbuf rb;
	int fd;
	unsigned char *buf;	/* OUT_PAGES pages */
	size_t len;
};

struct msc_synth_writer {
	const struct msc_synth_formats *formats;
	struct recipe recipes[MSC_EV_NR][MAX_TRACEPOINTS];
	bool resolved[MSC_EV_NR][MAX_TRACEPOINTS];
	struct recipe kprobes[MAX_KPROBES];
	size_t nr_kprobes;
	struct cpu_out *cpus;
	unsigned int nr_cpus;
	unsigned char rec[4096];	/* the record being built */
	char error[256];
};

static int resolve(struct msc_synth_writer *w, const struct msc_event_desc *desc,
		   const struct msc_tracepoint *tp, const struct synth_format *fmt,
		   struct recipe *rc)
{
	size_t end = 0, align = 4;

	*rc = (struct recipe){ .fmt = fmt, .desc = desc };
	if (!fmt)
		return MSC_ERR_FORMAT;
	rc->common_type = tep_find_any_field(fmt->event, "common_type");
	rc->common_pid = tep_find_any_field(fmt->event, "common_pid");
	if (!rc->common_type || !rc->common_pid)
		goto bad;
	for (unsigned int i = 0; i < desc->nr_fields && i < MAX_FIELDS; i++) {
		const struct msc_field *f = &desc->fields[i];
		bool carried = !f->only || (tp->tag && !strcmp(f->only, tp->tag));

		if (!f->tp || !carried || (f->flags & MSC_F_SYMBOL))
			continue;
		rc->field[i] = msc_decoder_find_field(fmt->event, f->tp);
		if (!rc->field[i] && (f->flags & MSC_F_REQUIRED))
			goto bad;
	}
	rc->sptep = tep_find_field(fmt->event, "sptep");
	rc->ip = tep_find_field(fmt->event, "ip");
	/* the kernel record is the struct: every field, padded to its alignment */
	for (struct tep_format_field *f = fmt->event->format.common_fields; f; f = f->next)
		end = max(end, (size_t)(f->offset + f->size));
	for (struct tep_format_field *f = fmt->event->format.fields; f; f = f->next) {
		size_t elem = (f->flags & TEP_FIELD_IS_ARRAY) && f->elementsize ?
			      (size_t)f->elementsize : (size_t)f->size;

		end = max(end, (size_t)(f->offset + f->size));
		if (elem == 8)
			align = 8;
	}
	rc->size = (end + align - 1) & ~(align - 1);
	if (desc == &msc_event_descs[MSC_EV_MARKER])
		rc->size = (size_t)rc->field[0]->offset;	/* buf[] follows */
	return 0;
bad:
	snprintf(w->error, sizeof(w->error), "%s/%s: format lacks a field mmuscope writes",
		 fmt->system, fmt->name);
	rc->fmt = NULL;
	return MSC_ERR_FORMAT;
}

/* The tracepoint @ev is written as: the one its tag names, else the first. */
static unsigned int tracepoint_of(const struct msc_event_desc *desc, const struct msc_event *ev)
{
	const struct msc_field *tag = msc_event_tag_field(desc);
	const char *name;

	if (!tag)
		return 0;
	name = tag->kind == MSC_K_NAME ? (const char *)ev + tag->offset :
	       msc_field_name(tag, msc_field_get(ev, tag));
	for (unsigned int i = 0; name && i < desc->nr_tracepoints; i++)
		if (!strcmp(desc->tracepoints[i].tag, name))
			return i;
	return 0;
}

static struct recipe *recipe_for(struct msc_synth_writer *w, const struct msc_event *ev)
{
	const struct msc_event_desc *desc;
	const struct msc_tracepoint *tp;
	unsigned int i;

	if (ev->type >= MSC_EV_NR || !msc_event_descs[ev->type].nr_tracepoints)
		return NULL;
	desc = &msc_event_descs[ev->type];
	if (ev->type == MSC_EV_KPROBE) {
		struct recipe *rc;

		for (size_t k = 0; k < w->nr_kprobes; k++)
			if (!strcmp(w->kprobes[k].fmt->name, ev->kprobe.name))
				return &w->kprobes[k];
		if (w->nr_kprobes == MAX_KPROBES)
			return NULL;
		rc = &w->kprobes[w->nr_kprobes];
		if (resolve(w, desc, &desc->tracepoints[0],
			    synth_formats_find(w->formats, NULL, ev->kprobe.name), rc))
			return NULL;
		w->nr_kprobes++;
		return rc;
	}
	i = min(tracepoint_of(desc, ev), MAX_TRACEPOINTS - 1u);
	tp = &desc->tracepoints[i];
	if (!w->resolved[ev->type][i]) {
		w->resolved[ev->type][i] = true;
		resolve(w, desc, tp, synth_formats_find(w->formats, tp->system, tp->name),
			&w->recipes[ev->type][i]);
	}
	return w->recipes[ev->type][i].fmt ? &w->recipes[ev->type][i] : NULL;
}

static void put(unsigned char *rec, const struct tep_format_field *f, uint64_t v)
{
	unsigned char *p = rec + f->offset;

	switch (f->size) {
	case 1: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); break; }
	case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
	case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
	case 8: memcpy(p, &v, 8); break;
	default: break;	/* arrays are not values */
	}
}

/*
 * The record's fields from the event's, and what the kernel puts in the
 * fields no event carries: fast_page_fault's sptep is a direct-map address
 * derived from the GPA, a marker's ip is MSC_SYNTH_MARKER_IP.
 */
static void put_fields(const struct recipe *rc, const struct msc_event *ev, unsigned char *rec)
{
	const struct msc_event_desc *desc = rc->desc;

	for (unsigned int i = 0; i < desc->nr_fields && i < MAX_FIELDS; i++) {
		const struct msc_field *f = &desc->fields[i];
		uint64_t v;

		if (!rc->field[i] || f->kind == MSC_K_NAME || f->kind == MSC_K_TEXT)
			continue;
		v = msc_field_get(ev, f);
		if (f->kind == MSC_K_OSDEC && (int64_t)v < 0)
			continue;	/* absent: the kernel has no such field */
		put(rec, rc->field[i], v);
	}
	if (ev->type == MSC_EV_FAST_PF && rc->sptep)
		put(rec, rc->sptep, DIRECT_MAP + (ev->fast_pf.gpa >> 12) * 8);
	if (ev->type == MSC_EV_MARKER && rc->ip)
		put(rec, rc->ip, MSC_SYNTH_MARKER_IP);
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int drain(struct cpu_out *c)
{
	int r = write_all(c->fd, c->buf, c->len);

	c->len = 0;
	return r;
}

static int on_page(void *ctx, const void *page, size_t size)
{
	struct cpu_out *c = ctx;

	memcpy(c->buf + c->len, page, size);
	c->len += size;
	return c->len + size > OUT_PAGES * size ? drain(c) : 0;
}

/**
 * msc_synth_writer_open - encode events into per-CPU pages
 * @f: the formats records are laid out by; borrowed for the writer's life
 * @nr_cpus: CPUs, i.e. the entries of @fds
 * @fds: where each CPU's pages go (a trace_pipe_raw file, a FIFO, a
 *       staging file); borrowed, not closed
 * @ret: the writer; msc_synth_writer_close() then msc_synth_writer_free()
 *
 * Returns 0, -EINVAL for no CPUs, or -ENOMEM.
 */
int msc_synth_writer_open(const struct msc_synth_formats *f, unsigned int nr_cpus,
			  const int *fds, struct msc_synth_writer **ret)
{
	struct msc_synth_writer *w;
	size_t page = msc_ringbuf_page_size(&f->layout);

	if (!nr_cpus)
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->formats = f;
	w->cpus = calloc(nr_cpus, sizeof(*w->cpus));
	if (!w->cpus)
		goto nomem;
	w->nr_cpus = nr_cpus;
	for (unsigned int i = 0; i < nr_cpus; i++) {
		struct cpu_out *c = &w->cpus[i];

		c->fd = fds[i];
		c->buf = malloc(OUT_PAGES * page);
		if (!c->buf || msc_ringbuf_init(&c->rb, &f->layout, on_page, c))
			goto nomem;
	}
	*ret = w;
	return 0;
nomem:
	msc_synth_writer_free(w);
	return -ENOMEM;
}

/**
 * msc_synth_writer_add - append one event to its CPU's pages
 * @w: the writer
 * @ev: the event; ev->cpu picks the buffer, ev->ts must not go backwards on
 *      that CPU, MSC_EV_LOST marks the next page of that CPU as following a
 *      gap of ev->lost.count events
 *
 * Returns 0; -EINVAL for a CPU out of range or a timestamp going back;
 * MSC_ERR_FORMAT when the formats lack the event (msc_synth_writer_error()
 * says which); or a negative errno from writing.
 */
int msc_synth_writer_add(struct msc_synth_writer *w, const struct msc_event *ev)
{
	struct recipe *rc;
	struct cpu_out *c;
	size_t len;

	if (ev->cpu >= w->nr_cpus)
		return -EINVAL;
	c = &w->cpus[ev->cpu];
	if (ev->type == MSC_EV_LOST)
		return msc_ringbuf_lost(&c->rb, ev->lost.count);
	rc = recipe_for(w, ev);
	if (!rc) {
		if (!w->error[0] || ev->type != MSC_EV_KPROBE)
			snprintf(w->error, sizeof(w->error), "no format for %s event%s%s",
				 msc_event_type_name(ev->type),
				 ev->type == MSC_EV_KPROBE ? " " : "",
				 ev->type == MSC_EV_KPROBE ? ev->kprobe.name : "");
		return MSC_ERR_FORMAT;
	}
	len = rc->size;
	memset(w->rec, 0, len);
	put(w->rec, rc->common_type, (uint64_t)rc->fmt->id);
	put(w->rec, rc->common_pid, (uint64_t)(int64_t)ev->pid);
	put_fields(rc, ev, w->rec);
	if (ev->type == MSC_EV_MARKER) {
		/* tracing_mark_write(): the text, a newline, a NUL */
		size_t n = strnlen(ev->marker.text, sizeof(ev->marker.text));

		memcpy(w->rec + len, ev->marker.text, n);
		w->rec[len + n] = '\n';
		w->rec[len + n + 1] = '\0';
		len += n + 2;
	}
	return msc_ringbuf_add(&c->rb, ev->ts, w->rec, len);
}

/**
 * msc_synth_writer_close - write out every CPU's last, partly filled page
 * @w: the writer; still to be freed
 *
 * Returns 0 or the first negative errno of a write.
 */
int msc_synth_writer_close(struct msc_synth_writer *w)
{
	int r = 0;

	for (unsigned int i = 0; i < w->nr_cpus; i++) {
		int e = msc_ringbuf_flush(&w->cpus[i].rb);

		if (!e)
			e = drain(&w->cpus[i]);
		if (e && !r)
			r = e;
	}
	return r;
}

/* Free the writer (after msc_synth_writer_close()); NULL is fine.  The fds stay open. */
void msc_synth_writer_free(struct msc_synth_writer *w)
{
	if (!w)
		return;
	for (unsigned int i = 0; w->cpus && i < w->nr_cpus; i++) {
		msc_ringbuf_release(&w->cpus[i].rb);
		free(w->cpus[i].buf);
	}
	free(w->cpus);
	free(w);
}

/* What @cpu's encoder wrote so far; zeros for a CPU out of range. */
void msc_synth_writer_stats(const struct msc_synth_writer *w, unsigned int cpu,
			    struct msc_ringbuf_stats *ret)
{
	*ret = cpu < w->nr_cpus ? w->cpus[cpu].rb.stats : (struct msc_ringbuf_stats){ 0 };
}

/* Why the last MSC_ERR_FORMAT happened: which event or field (borrowed). */
const char *msc_synth_writer_error(const struct msc_synth_writer *w)
{
	return w->error;
}
