// SPDX-License-Identifier: GPL-2.0-only
/*
 * struct msc_event -> kernel record -> per-CPU ring-buffer pages.
 *
 * specs[] is the decoder's table (lib/decode.c) read backwards: for each
 * event type, the format it becomes and the fields its values go to.  The
 * first event of a type resolves its recipe: the format (by system and
 * name), every field's tep_format_field (by name), and the record size, so
 * that a record costs one store per field at the field's own offset and
 * size.  A kprobe event resolves by its own name, in whatever group.
 *
 * Fields an event value does not carry get what the kernel would put
 * there: fast_page_fault's sptep is a direct-map address derived from the
 * GPA, a marker's ip is MSC_SYNTH_MARKER_IP.
 */
#include "mmuscope/synth.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "mmuscope/error.h"
#include "mmuscope/event.h"
#include "mmuscope/util.h"
#include "local.h"

#define MAX_FIELDS 8
#define MAX_KPROBES 32
#define OUT_PAGES 16		/* pages buffered per CPU before a write() */
#define DIRECT_MAP 0xffff888000000000ULL

typedef void (*values_fn)(const struct msc_event *ev, uint64_t *v);

struct spec {
	const char *system, *name;
	const char *fields[MAX_FIELDS];
	uint8_t required;	/* bit i: fields[i] must exist */
	values_fn values;
};

static void v_spte(const struct msc_event *ev, uint64_t *v)
{
	const struct msc_ev_spte *s = &ev->spte;

	v[0] = s->gfn, v[1] = s->old_spte, v[2] = s->new_spte, v[3] = s->level, v[4] = s->as_id;
}

static void v_split(const struct msc_event *ev, uint64_t *v)
{
	const struct msc_ev_split *s = &ev->split;

	v[0] = s->gfn, v[1] = s->spte, v[2] = (uint64_t)(int64_t)s->level;
	v[3] = (uint64_t)(int64_t)s->err;
}

static void v_sp(const struct msc_event *ev, uint64_t *v)
{
	const struct msc_ev_sp *s = &ev->sp;

	v[0] = s->gfn, v[1] = s->role, v[2] = s->root_count, v[3] = s->unsync;
	v[4] = s->gen, v[5] = s->created;
}

static void v_fast_pf(const struct msc_event *ev, uint64_t *v)
{
	const struct msc_ev_fast_pf *s = &ev->fast_pf;

	v[0] = (uint64_t)(int64_t)s->vcpu, v[1] = s->gpa, v[2] = s->error_code;
	v[3] = DIRECT_MAP + (s->gpa >> 12) * 8;
	v[4] = s->old_spte, v[5] = s->new_spte, v[6] = (uint64_t)(int64_t)s->ret;
}

static void v_pf(const struct msc_event *ev, uint64_t *v)
{
	const struct msc_ev_page_fault *s = &ev->pf;

	v[0] = s->vcpu, v[1] = s->gpa, v[2] = s->error_code, v[3] = s->rip;
}

static void v_set_spte(const struct msc_event *ev, uint64_t *v)
{
	const struct msc_ev_set_spte *s = &ev->set_spte;

	v[0] = s->gfn, v[1] = s->spte, v[2] = s->sptep, v[3] = s->level;
	v[4] = s->r, v[5] = s->x, v[6] = (uint64_t)(int64_t)s->u;
}

static void v_req(const struct msc_event *ev, uint64_t *v)
{
	v[0] = ev->req.gfn, v[1] = ev->req.pfn, v[2] = ev->req.level;
	v[3] = ev->req.access < 0 ? 0 : (uint64_t)ev->req.access;	/* 7.x only */
}

static void v_mmio(const struct msc_event *ev, uint64_t *v)
{
	v[0] = ev->mmio.gfn, v[1] = ev->mmio.access, v[2] = ev->mmio.gen;
}

static void v_zap_all(const struct msc_event *ev, uint64_t *v)
{
	v[0] = ev->zap_all.gen, v[1] = ev->zap_all.used_pages;
}

static void v_hva(const struct msc_event *ev, uint64_t *v)
{
	v[0] = ev->hva.start, v[1] = ev->hva.end;
}

static void v_marker(const struct msc_event *ev, uint64_t *v)
{
	v[0] = MSC_SYNTH_MARKER_IP;
}

static void v_kprobe(const struct msc_event *ev, uint64_t *v)
{
	v[0] = ev->kprobe.ip;
}

/* Indexed by enum msc_event_type; field order matches the values_fn. */
static const struct spec specs[MSC_EV_NR] = {
	[MSC_EV_SPTE_CHANGED] = { "kvmmmu", "kvm_tdp_mmu_spte_changed",
		{ "gfn", "old_spte", "new_spte", "level", "as_id" }, 0x0f, v_spte },
	[MSC_EV_SPLIT] = { "kvmmmu", "kvm_mmu_split_huge_page",
		{ "gfn", "spte", "level", "errno" }, 0x07, v_split },
	[MSC_EV_GET_PAGE] = { "kvmmmu", "kvm_mmu_get_page",
		{ "gfn", "role", "root_count", "unsync", "mmu_valid_gen", "created" }, 0x03, v_sp },
	[MSC_EV_ZAP_PAGE] = { "kvmmmu", "kvm_mmu_prepare_zap_page",
		{ "gfn", "role", "root_count", "unsync", "mmu_valid_gen" }, 0x03, v_sp },
	[MSC_EV_FAST_PF] = { "kvmmmu", "fast_page_fault",
		{ "vcpu_id", "cr2_or_gpa", "error_code", "sptep", "old_spte", "new_spte", "ret" },
		0x73, v_fast_pf },
	[MSC_EV_PAGE_FAULT] = { "kvm", "kvm_page_fault",
		{ "vcpu_id", "fault_address", "error_code", "guest_rip" }, 0x02, v_pf },
	[MSC_EV_SET_SPTE] = { "kvmmmu", "kvm_mmu_set_spte",
		{ "gfn", "spte", "sptep", "level", "r", "x", "u" }, 0x0b, v_set_spte },
	[MSC_EV_SPTE_REQUESTED] = { "kvmmmu", "kvm_mmu_spte_requested",
		{ "gfn", "pfn", "level", "access" }, 0x07, v_req },
	[MSC_EV_MMIO_SPTE] = { "kvmmmu", "mark_mmio_spte",
		{ "gfn", "access", "gen" }, 0x01, v_mmio },
	[MSC_EV_ZAP_ALL_FAST] = { "kvmmmu", "kvm_mmu_zap_all_fast",
		{ "mmu_valid_gen", "mmu_used_pages" }, 0, v_zap_all },
	[MSC_EV_UNMAP_HVA] = { "kvm", "kvm_unmap_hva_range", { "start", "end" }, 0x03, v_hva },
	[MSC_EV_AGE_HVA] = { "kvm", "kvm_age_hva", { "start", "end" }, 0x03, v_hva },
	[MSC_EV_MARKER] = { "ftrace", "print", { "ip", "buf" }, 0x03, v_marker },
	[MSC_EV_KPROBE] = { NULL, NULL, { "__probe_ip" }, 0x01, v_kprobe },
};

/* One format, resolved for writing. */
struct recipe {
	const struct synth_format *fmt;	/* NULL: the formats lack it */
	const struct spec *spec;
	struct tep_format_field *common_type, *common_pid;
	struct tep_format_field *field[MAX_FIELDS];	/* NULL where absent */
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
	struct recipe recipes[MSC_EV_NR];
	bool resolved[MSC_EV_NR];
	struct recipe kprobes[MAX_KPROBES];
	size_t nr_kprobes;
	struct cpu_out *cpus;
	unsigned int nr_cpus;
	unsigned char rec[4096];	/* the record being built */
	char error[256];
};

static int resolve(struct msc_synth_writer *w, const struct spec *spec,
		   const struct synth_format *fmt, struct recipe *rc)
{
	size_t end = 0, align = 4;

	*rc = (struct recipe){ .fmt = fmt, .spec = spec };
	if (!fmt)
		return MSC_ERR_FORMAT;
	rc->common_type = tep_find_any_field(fmt->event, "common_type");
	rc->common_pid = tep_find_any_field(fmt->event, "common_pid");
	if (!rc->common_type || !rc->common_pid)
		goto bad;
	for (int i = 0; i < MAX_FIELDS && spec->fields[i]; i++) {
		struct tep_format_field *f = tep_find_field(fmt->event, spec->fields[i]);

		if (!f && (spec->required & (1u << i)))
			goto bad;
		rc->field[i] = f;
	}
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
	if (spec == &specs[MSC_EV_MARKER])
		rc->size = (size_t)rc->field[1]->offset;	/* buf[] follows */
	return 0;
bad:
	snprintf(w->error, sizeof(w->error), "%s/%s: format lacks a field mmuscope writes",
		 fmt->system, fmt->name);
	rc->fmt = NULL;
	return MSC_ERR_FORMAT;
}

static struct recipe *recipe_for(struct msc_synth_writer *w, const struct msc_event *ev)
{
	const struct spec *spec;

	if (ev->type >= MSC_EV_NR || !specs[ev->type].values)
		return NULL;
	spec = &specs[ev->type];
	if (ev->type == MSC_EV_KPROBE) {
		struct recipe *rc;

		for (size_t i = 0; i < w->nr_kprobes; i++)
			if (!strcmp(w->kprobes[i].fmt->name, ev->kprobe.name))
				return &w->kprobes[i];
		if (w->nr_kprobes == MAX_KPROBES)
			return NULL;
		rc = &w->kprobes[w->nr_kprobes];
		if (resolve(w, spec, synth_formats_find(w->formats, NULL, ev->kprobe.name), rc))
			return NULL;
		w->nr_kprobes++;
		return rc;
	}
	if (!w->resolved[ev->type]) {
		w->resolved[ev->type] = true;
		resolve(w, spec, synth_formats_find(w->formats, spec->system, spec->name),
			&w->recipes[ev->type]);
	}
	return w->recipes[ev->type].fmt ? &w->recipes[ev->type] : NULL;
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
	uint64_t v[MAX_FIELDS] = { 0 };
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
	rc->spec->values(ev, v);
	for (int i = 0; i < MAX_FIELDS && rc->spec->fields[i]; i++)
		if (rc->field[i])
			put(w->rec, rc->field[i], v[i]);
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
