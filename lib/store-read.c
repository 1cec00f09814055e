// SPDX-License-Identifier: GPL-2.0-only
/*
 * The read side of the store: captures, and the events of every table
 * merged back into seq order (the order the source handed them out).
 */
#include "mmuscope/store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "mmuscope/error.h"
#include "mmuscope/event.h"
#include "mmuscope/host.h"
#include "mmuscope/util.h"
#include "store-local.h"

typedef void (*row_fn)(sqlite3_stmt *st, struct msc_event *ev);

static void read_spte(sqlite3_stmt *st, struct msc_event *ev)
{
	const char *class = (const char *)sqlite3_column_text(st, 9);
	int c = class ? msc_spte_class_lookup(class) : -1;

	ev->type = MSC_EV_SPTE_CHANGED;
	ev->spte = (struct msc_ev_spte){
		.as_id = (uint8_t)sqlite3_column_int(st, 4), .gfn = column_u64(st, 5),
		.level = (uint8_t)sqlite3_column_int(st, 6), .old_spte = column_u64(st, 7),
		.new_spte = column_u64(st, 8), .class = (uint8_t)(c < 0 ? MSC_CLASS_NONE : c),
	};
}

static void read_split(sqlite3_stmt *st, struct msc_event *ev)
{
	ev->type = MSC_EV_SPLIT;
	ev->split = (struct msc_ev_split){
		.gfn = column_u64(st, 4), .level = sqlite3_column_int(st, 5),
		.spte = column_u64(st, 6), .err = sqlite3_column_int(st, 7),
	};
}

static void read_page_table(sqlite3_stmt *st, struct msc_event *ev)
{
	const char *op = (const char *)sqlite3_column_text(st, 4);

	ev->type = op && !strcmp(op, "zap") ? MSC_EV_ZAP_PAGE : MSC_EV_GET_PAGE;
	ev->sp = (struct msc_ev_sp){
		.gfn = column_u64(st, 5), .role = (uint32_t)sqlite3_column_int64(st, 6),
		.root_count = (uint32_t)sqlite3_column_int64(st, 16),
		.unsync = (uint8_t)sqlite3_column_int(st, 17),
		.created = (uint8_t)sqlite3_column_int(st, 18),
		.gen = (uint8_t)sqlite3_column_int(st, 19),
	};
}

static void read_fault(sqlite3_stmt *st, struct msc_event *ev)
{
	const char *kind = (const char *)sqlite3_column_text(st, 4);

	if (kind && !strcmp(kind, "npf")) {
		ev->type = MSC_EV_PAGE_FAULT;
		ev->pf = (struct msc_ev_page_fault){
			.vcpu = (uint32_t)sqlite3_column_int64(st, 5), .gpa = column_u64(st, 6),
			.error_code = column_u64(st, 7), .rip = column_u64(st, 8),
		};
		return;
	}
	ev->type = MSC_EV_FAST_PF;
	ev->fast_pf = (struct msc_ev_fast_pf){
		.vcpu = sqlite3_column_int(st, 5), .gpa = column_u64(st, 6),
		.error_code = column_u64(st, 7), .old_spte = column_u64(st, 9),
		.new_spte = column_u64(st, 10), .ret = sqlite3_column_int(st, 11),
		.result = !kind ? MSC_FPF_OTHER :
			  !strcmp(kind, "fast-fixed") ? MSC_FPF_FIXED :
			  !strcmp(kind, "fast-spurious") ? MSC_FPF_SPURIOUS : MSC_FPF_OTHER,
	};
}

static void read_set_spte(sqlite3_stmt *st, struct msc_event *ev)
{
	ev->type = MSC_EV_SET_SPTE;
	ev->set_spte = (struct msc_ev_set_spte){
		.gfn = column_u64(st, 4), .level = (uint8_t)sqlite3_column_int(st, 5),
		.spte = column_u64(st, 6), .sptep = column_u64(st, 7),
		.r = (uint8_t)sqlite3_column_int(st, 8), .x = (uint8_t)sqlite3_column_int(st, 9),
		.u = (int8_t)sqlite3_column_int(st, 10),
	};
}

static void read_requested(sqlite3_stmt *st, struct msc_event *ev)
{
	ev->type = MSC_EV_SPTE_REQUESTED;
	ev->req = (struct msc_ev_requested){
		.gfn = column_u64(st, 4), .pfn = column_u64(st, 5),
		.level = (uint8_t)sqlite3_column_int(st, 6),
		.access = (int16_t)column_int_or(st, 7, -1),
	};
}

static void read_mmio(sqlite3_stmt *st, struct msc_event *ev)
{
	ev->type = MSC_EV_MMIO_SPTE;
	ev->mmio = (struct msc_ev_mmio){
		.gfn = column_u64(st, 4), .access = (uint32_t)sqlite3_column_int64(st, 5),
		.gen = (uint32_t)sqlite3_column_int64(st, 6),
	};
}

static void read_zap_all(sqlite3_stmt *st, struct msc_event *ev)
{
	ev->type = MSC_EV_ZAP_ALL_FAST;
	ev->zap_all = (struct msc_ev_zap_all){
		.gen = (uint32_t)sqlite3_column_int64(st, 4),
		.used_pages = (uint32_t)sqlite3_column_int64(st, 5),
	};
}

static void read_hva(sqlite3_stmt *st, struct msc_event *ev)
{
	const char *op = (const char *)sqlite3_column_text(st, 4);

	ev->type = op && !strcmp(op, "age") ? MSC_EV_AGE_HVA : MSC_EV_UNMAP_HVA;
	ev->hva = (struct msc_ev_hva){ .start = column_u64(st, 5), .end = column_u64(st, 6) };
}

static void copy_text(sqlite3_stmt *st, int i, char *dst, size_t size)
{
	const char *t = (const char *)sqlite3_column_text(st, i);

	snprintf(dst, size, "%s", t ? t : "");
}

static void read_marker(sqlite3_stmt *st, struct msc_event *ev)
{
	ev->type = MSC_EV_MARKER;
	copy_text(st, 4, ev->marker.text, sizeof(ev->marker.text));
}

static void read_kprobe(sqlite3_stmt *st, struct msc_event *ev)
{
	ev->type = MSC_EV_KPROBE;
	copy_text(st, 4, ev->kprobe.name, sizeof(ev->kprobe.name));
	ev->kprobe.ip = column_u64(st, 5);
	copy_text(st, 6, ev->kprobe.args, sizeof(ev->kprobe.args));
}

static void read_lost(sqlite3_stmt *st, struct msc_event *ev)
{
	ev->type = MSC_EV_LOST;
	ev->pid = -1;
	ev->lost.count = column_u64(st, 3);
	copy_text(st, 4, ev->lost.source, sizeof(ev->lost.source));
	if (!strcmp(ev->lost.source, "ring-buffer"))
		ev->lost.source[0] = '\0';	/* the stream's own mark: the default */
}

static void read_tlb_flush(sqlite3_stmt *st, struct msc_event *ev)
{
	ev->type = MSC_EV_TLB_FLUSH;
	ev->tlb_flush = (struct msc_ev_tlb_flush){
		.vm_id = (uint32_t)sqlite3_column_int64(st, 4), .vm_pid = sqlite3_column_int(st, 5),
		.start_gfn = column_u64(st, 6), .nr_pages = column_u64(st, 7),
		.range = (uint8_t)sqlite3_column_int(st, 8), .all = (uint8_t)sqlite3_column_int(st, 9),
		.arch_flush = (uint8_t)sqlite3_column_int(st, 10),
		.kicked = (uint8_t)sqlite3_column_int(st, 11), .caller = column_u64(st, 12),
	};
}

static void read_dirty_log(sqlite3_stmt *st, struct msc_event *ev)
{
	struct msc_ev_dirty_log *d = &ev->dirty_log;
	const char *op = (const char *)sqlite3_column_text(st, 4);

	ev->type = MSC_EV_DIRTY_LOG;
	*d = (struct msc_ev_dirty_log){
		.end = op && !strcmp(op, "end"), .vm_id = (uint32_t)sqlite3_column_int64(st, 5),
		.vm_pid = sqlite3_column_int(st, 6), .as_id = (uint16_t)sqlite3_column_int(st, 7),
		.slot_id = (int16_t)sqlite3_column_int(st, 8), .base_gfn = column_u64(st, 9),
		.npages = column_u64(st, 10), .old_flags = (uint32_t)sqlite3_column_int64(st, 11),
		.new_flags = (uint32_t)sqlite3_column_int64(st, 12),
		.change = (uint8_t)sqlite3_column_int(st, 14),
		.eager_split = (uint8_t)sqlite3_column_int(st, 15),
		.initially_set = (uint8_t)sqlite3_column_int(st, 16),
		.pml = (uint8_t)sqlite3_column_int(st, 17), .duration_ns = column_u64(st, 18),
	};
	copy_text(st, 13, d->change_name, sizeof(d->change_name));
}

static void read_span(sqlite3_stmt *st, struct msc_event *ev, bool split)
{
	struct msc_ev_span *sp = &ev->span;
	int c = 10;

	*sp = (struct msc_ev_span){
		.vm_id = (uint32_t)sqlite3_column_int64(st, 4), .vm_pid = sqlite3_column_int(st, 5),
		.as_id = (uint16_t)sqlite3_column_int(st, 6),
		.slot_id = (int16_t)sqlite3_column_int(st, 7), .start_gfn = column_u64(st, 8),
		.end_gfn = column_u64(st, 9),
	};
	if (split) {
		sp->target_level = (uint8_t)sqlite3_column_int(st, c++);
		copy_text(st, c++, sp->reason_name, sizeof(sp->reason_name));
		sp->reason = (uint8_t)sqlite3_column_int(st, c++);
	}
	sp->count_1g = (uint32_t)sqlite3_column_int64(st, c++);
	sp->count_2m = (uint32_t)sqlite3_column_int64(st, c++);
	sp->other = (uint32_t)sqlite3_column_int64(st, c++);
	if (!split)
		sp->flushes = (uint32_t)sqlite3_column_int64(st, c++);
	sp->duration_ns = column_u64(st, c);
}

static void read_split_span(sqlite3_stmt *st, struct msc_event *ev)
{
	ev->type = MSC_EV_SPLIT_SPAN;
	read_span(st, ev, true);
}

static void read_collapse_span(sqlite3_stmt *st, struct msc_event *ev)
{
	ev->type = MSC_EV_COLLAPSE_SPAN;
	read_span(st, ev, false);
	copy_text(st, 15, ev->span.reason_name, sizeof(ev->span.reason_name));
}

static void read_harvest(sqlite3_stmt *st, struct msc_event *ev)
{
	const char *op = (const char *)sqlite3_column_text(st, 10);

	ev->type = MSC_EV_HARVEST;
	ev->harvest = (struct msc_ev_harvest){
		.vm_id = (uint32_t)sqlite3_column_int64(st, 4), .vm_pid = sqlite3_column_int(st, 5),
		.as_id = (uint16_t)sqlite3_column_int(st, 6),
		.slot_id = (int16_t)sqlite3_column_int(st, 7), .start_gfn = column_u64(st, 8),
		.npages = column_u64(st, 9), .clear = op && !strcmp(op, "clear"),
		.dirty = column_u64(st, 11), .protect = (uint8_t)sqlite3_column_int(st, 12),
		.flush = (uint8_t)sqlite3_column_int(st, 13), .duration_ns = column_u64(st, 14),
	};
}

static void read_ioctl(sqlite3_stmt *st, struct msc_event *ev)
{
	const char *op = (const char *)sqlite3_column_text(st, 4);

	ev->type = MSC_EV_IOCTL;
	ev->ioctl = (struct msc_ev_ioctl){ .exit = op && !strcmp(op, "exit"), .fd = -1 };
	if (ev->ioctl.exit) {
		ev->ioctl.ret = sqlite3_column_int64(st, 9);
		return;
	}
	ev->ioctl.fd = sqlite3_column_int(st, 5);
	ev->ioctl.cmd = (uint32_t)sqlite3_column_int64(st, 6);
	ev->ioctl.arg = column_u64(st, 8);
}

/* Every event table; columns 0..2 are seq, ts, cpu, and 3 is pid except in lost_events. */
static const struct {
	const char *sql;
	row_fn read;
} tables[] = {
	{ "SELECT * FROM spte_change WHERE seq BETWEEN ? AND ? ORDER BY seq", read_spte },
	{ "SELECT * FROM huge_page_split WHERE seq BETWEEN ? AND ? ORDER BY seq", read_split },
	{ "SELECT * FROM page_table WHERE seq BETWEEN ? AND ? ORDER BY seq", read_page_table },
	{ "SELECT * FROM fault WHERE seq BETWEEN ? AND ? ORDER BY seq", read_fault },
	{ "SELECT * FROM set_spte WHERE seq BETWEEN ? AND ? ORDER BY seq", read_set_spte },
	{ "SELECT * FROM spte_requested WHERE seq BETWEEN ? AND ? ORDER BY seq", read_requested },
	{ "SELECT * FROM mmio_spte WHERE seq BETWEEN ? AND ? ORDER BY seq", read_mmio },
	{ "SELECT * FROM zap_all_fast WHERE seq BETWEEN ? AND ? ORDER BY seq", read_zap_all },
	{ "SELECT * FROM hva_range WHERE seq BETWEEN ? AND ? ORDER BY seq", read_hva },
	{ "SELECT * FROM marker WHERE seq BETWEEN ? AND ? ORDER BY seq", read_marker },
	{ "SELECT * FROM kprobe WHERE seq BETWEEN ? AND ? ORDER BY seq", read_kprobe },
	{ "SELECT seq, ts, cpu, count, source FROM lost_events WHERE seq BETWEEN ? AND ? "
	  "ORDER BY seq", read_lost },
	{ "SELECT * FROM tlb_flush WHERE seq BETWEEN ? AND ? ORDER BY seq", read_tlb_flush },
	{ "SELECT * FROM dirty_logging WHERE seq BETWEEN ? AND ? ORDER BY seq", read_dirty_log },
	{ "SELECT * FROM split_span WHERE seq BETWEEN ? AND ? ORDER BY seq", read_split_span },
	{ "SELECT * FROM collapse_span WHERE seq BETWEEN ? AND ? ORDER BY seq",
	  read_collapse_span },
	{ "SELECT * FROM harvest WHERE seq BETWEEN ? AND ? ORDER BY seq", read_harvest },
	{ "SELECT * FROM ioctl WHERE seq BETWEEN ? AND ? ORDER BY seq", read_ioctl },
};

struct table_cursor {
	sqlite3_stmt *st;
	row_fn read;
	bool has_row;		/* st is on a row not yet handed out */
};

struct msc_event_cursor {
	struct msc_store *s;
	struct table_cursor t[ARRAY_SIZE(tables)];
};

static int advance(struct msc_event_cursor *c, struct table_cursor *t)
{
	int r = msc_store_step(c->s, t->st);

	t->has_row = r == 1;
	return r < 0 ? r : 0;
}

/**
 * msc_store_events_open - walk stored events in seq order
 * @s: the store
 * @first_seq: first seq wanted
 * @last_seq: last seq wanted (INT64_MAX: to the end)
 * @ret: the cursor, closed with msc_store_events_close()
 *
 * Returns 0 or a negative error.
 */
int msc_store_events_open(struct msc_store *s, int64_t first_seq, int64_t last_seq,
			  struct msc_event_cursor **ret)
{
	struct msc_event_cursor *c = calloc(1, sizeof(*c));
	int r = 0;

	if (!c)
		return -ENOMEM;
	c->s = s;
	for (size_t i = 0; i < ARRAY_SIZE(tables) && !r; i++) {
		struct table_cursor *t = &c->t[i];

		t->read = tables[i].read;
		r = msc_store_prepare(s, tables[i].sql, &t->st);
		if (r)
			break;
		sqlite3_bind_int64(t->st, 1, first_seq);
		sqlite3_bind_int64(t->st, 2, last_seq);
		r = advance(c, t);
	}
	if (r) {
		msc_store_events_close(c);
		return r;
	}
	*ret = c;
	return 0;
}

/**
 * msc_store_events_next - the next stored event
 * @c: the cursor
 * @ret_ev: the event; its seq is the stored seq
 *
 * Returns 1, 0 at the end, or a negative error.
 */
int msc_store_events_next(struct msc_event_cursor *c, struct msc_event *ret_ev)
{
	struct table_cursor *best = NULL;
	int64_t best_seq = 0;

	for (size_t i = 0; i < ARRAY_SIZE(tables); i++) {
		struct table_cursor *t = &c->t[i];
		int64_t seq;

		if (!t->has_row)
			continue;
		seq = sqlite3_column_int64(t->st, 0);
		if (!best || seq < best_seq) {
			best = t;
			best_seq = seq;
		}
	}
	if (!best)
		return 0;
	memset(ret_ev, 0, sizeof(*ret_ev));
	ret_ev->seq = (uint64_t)best_seq;
	ret_ev->ts = column_u64(best->st, 1);
	ret_ev->cpu = (uint16_t)sqlite3_column_int(best->st, 2);
	ret_ev->pid = sqlite3_column_int(best->st, 3);
	best->read(best->st, ret_ev);
	return advance(c, best) < 0 ? MSC_ERR_SQL : 1;
}

void msc_store_events_close(struct msc_event_cursor *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(tables); i++)
		sqlite3_finalize(c->t[i].st);
	free(c);
}

/**
 * msc_store_get_captures - every capture of the database, by id
 * @s: the store
 * @ret: array, freed by the caller with free()
 * @ret_nr: its length
 */
int msc_store_get_captures(struct msc_store *s, struct msc_capture_row **ret, size_t *ret_nr)
{
	static const char sql[] =
		"SELECT id, source, kind, kernel_release, vendor, nonpresent_spte, frozen_spte, "
		"tdp_mmu, first_seq, last_seq, first_ts, last_ts, records, stored, lost, "
		"lost_marks, complete, ept_ad, nonpresent_from, frozen_from, role_access_bits, "
		"role_access_from FROM capture ORDER BY id";
	struct msc_capture_row *rows = NULL, *p;
	size_t nr = 0;
	sqlite3_stmt *st;
	int r;

	r = msc_store_prepare(s, sql, &st);
	if (r)
		return r;
	while ((r = msc_store_step(s, st)) == 1) {
		struct msc_capture_row *c;

		p = realloc(rows, (nr + 1) * sizeof(*rows));
		if (!p) {
			r = -ENOMEM;
			break;
		}
		rows = p;
		c = &rows[nr++];
		memset(c, 0, sizeof(*c));
		c->id = sqlite3_column_int64(st, 0);
		copy_text(st, 1, c->source, sizeof(c->source));
		copy_text(st, 2, c->kind, sizeof(c->kind));
		copy_text(st, 3, c->kernel_release, sizeof(c->kernel_release));
		copy_text(st, 4, c->vendor, sizeof(c->vendor));
		c->nonpresent_spte = column_u64(st, 5);
		c->frozen_spte = column_u64(st, 6);
		c->tdp_mmu = sqlite3_column_int(st, 7);
		c->first_seq = column_int_or(st, 8, -1);
		c->last_seq = column_int_or(st, 9, -1);
		c->first_ts = column_u64(st, 10);
		c->last_ts = column_u64(st, 11);
		c->records = column_u64(st, 12);
		c->stored = column_u64(st, 13);
		c->lost = column_u64(st, 14);
		c->lost_marks = column_u64(st, 15);
		c->complete = sqlite3_column_int(st, 16);
		c->ept_ad = sqlite3_column_int(st, 17);
		copy_text(st, 18, c->nonpresent_from, sizeof(c->nonpresent_from));
		copy_text(st, 19, c->frozen_from, sizeof(c->frozen_from));
		c->role_access_bits = (unsigned int)sqlite3_column_int(st, 20);
		copy_text(st, 21, c->role_access_from, sizeof(c->role_access_from));
	}
	sqlite3_finalize(st);
	if (r < 0) {
		free(rows);
		return r;
	}
	*ret = rows;
	*ret_nr = nr;
	return 0;
}

/**
 * msc_capture_host - the host a stored capture's events were classified for
 * @c: the capture's row
 * @ret: its layout-deciding facts, marked as inferred
 */
void msc_capture_host(const struct msc_capture_row *c, struct msc_host *ret)
{
	msc_host_init(ret);
	snprintf(ret->release, sizeof(ret->release), "%s", c->kernel_release);
	ret->kver = msc_kver_parse(c->kernel_release);
	ret->vendor = !strcmp(c->vendor, "ept") ? MSC_VENDOR_EPT :
		      !strcmp(c->vendor, "npt") ? MSC_VENDOR_NPT : MSC_VENDOR_UNKNOWN;
	/* the values the events were classified with, whatever taught them */
	ret->nonpresent = (struct msc_special){ .value = c->nonpresent_spte,
						.from = MSC_LEARNT_EVENTS };
	ret->frozen = (struct msc_special){ .value = c->frozen_spte, .from = MSC_LEARNT_EVENTS };
	if (c->role_access_bits == 3 || c->role_access_bits == 4)
		ret->role_access = (struct msc_special){ .value = c->role_access_bits,
							 .from = MSC_LEARNT_EVENTS };
	ret->ept_ad = c->ept_ad;
	ret->tdp_mmu = c->tdp_mmu;
	ret->source = ret->vendor_source = ret->kver_source = MSC_HOST_INFERRED;
}
