// SPDX-License-Identifier: GPL-2.0-only
/*
 * Record -> struct msc_event, by field name.
 *
 * decoders[] lists every event mmuscope stores and the fields it reads.  The
 * first record of an event id resolves its entry: the matching decoder, the
 * tep_format_field of each field (NULL where the format lacks it) and the
 * record size the fields need.  From then on a record costs a table lookup
 * and one load per field.
 *
 * Invariant: no tep_record or tep_event pointer outlives a call, except the
 * tep_event/field pointers cached in entries, which live as long as the
 * tep handle the decoder was made for.
 */
#include "mmuscope/decode.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "mmuscope/error.h"
#include "mmuscope/event.h"
#include "mmuscope/util.h"

#define MAX_FIELDS 16
#define MAX_WARNINGS 64

struct entry;

/* Copies the field values @v (in decoder field order) into @ev. */
typedef void (*decode_fn)(const struct entry *e, const uint64_t *v, const struct tep_record *rec,
			  struct msc_event *ev);

struct decoder {
	const char *system;	/* NULL: matched by a field instead (kprobes) */
	const char *name;
	uint8_t type;		/* enum msc_event_type */
	const char *fields[MAX_FIELDS];	/* read by name, in this order */
	uint16_t required;	/* bit i set: fields[i] must exist to decode */
	uint16_t newer;		/* bit i set: fields[i] only newer kernels have (absent: no warning) */
	const char *ignored;	/* fields known and deliberately not stored */
	const char *symbolic;	/* a field whose names the print fmt gives (__print_symbolic) */
	decode_fn decode;
};

/* One event id of the capture. */
struct entry {
	struct tep_event *event;
	const struct decoder *dec;	/* NULL: counted only */
	struct tep_format_field *field[MAX_FIELDS];
	int min_size;		/* a record must hold every field read */
	uint64_t count;
	int fpf_fixed;		/* fast_page_fault: RET_PF_FIXED, from the print fmt */
	int fpf_spurious;	/* ... RET_PF_SPURIOUS */
	struct {
		long long value;
		char name[MSC_EVENT_SYMBOL_MAX];
	} syms[8];		/* the decoder's symbolic field, value -> name */
	unsigned int nr_syms;
};

/* The print fmt's name of @value of the entry's symbolic field, or "". */
static void symbol_name(const struct entry *e, uint64_t value, char *dst)
{
	dst[0] = '\0';
	for (unsigned int i = 0; i < e->nr_syms; i++)
		if (e->syms[i].value == (long long)value)
			memcpy(dst, e->syms[i].name, MSC_EVENT_SYMBOL_MAX);
}

struct msc_decoder {
	struct tep_handle *tep;
	bool native;		/* the file has this machine's byte order */
	struct entry **entries;	/* indexed by event id */
	size_t nr_entries;
	char *warnings[MAX_WARNINGS];
	size_t nr_warnings, next_warning;
	char error[256];
};

static void dec_spte(const struct entry *e, const uint64_t *v, const struct tep_record *rec,
		     struct msc_event *ev)
{
	ev->spte = (struct msc_ev_spte){ .gfn = v[0], .old_spte = v[1], .new_spte = v[2],
					 .level = (uint8_t)v[3], .as_id = (uint8_t)v[4] };
}

static void dec_split(const struct entry *e, const uint64_t *v, const struct tep_record *rec,
		      struct msc_event *ev)
{
	ev->split = (struct msc_ev_split){ .gfn = v[0], .spte = v[1], .level = (int32_t)v[2],
					   .err = (int32_t)v[3] };
}

static void dec_sp(const struct entry *e, const uint64_t *v, const struct tep_record *rec,
		   struct msc_event *ev)
{
	ev->sp = (struct msc_ev_sp){ .gfn = v[0], .role = (uint32_t)v[1],
				     .root_count = (uint32_t)v[2], .unsync = !!v[3],
				     .created = !!v[4], .gen = (uint8_t)v[5] };
}

static void dec_fast_pf(const struct entry *e, const uint64_t *v, const struct tep_record *rec,
			struct msc_event *ev)
{
	int ret = (int)v[5];

	ev->fast_pf = (struct msc_ev_fast_pf){ .vcpu = (int32_t)v[0], .gpa = v[1],
					       .error_code = v[2], .old_spte = v[3],
					       .new_spte = v[4], .ret = ret };
	if (ret == e->fpf_fixed)
		ev->fast_pf.result = MSC_FPF_FIXED;
	else if (ret == e->fpf_spurious)
		ev->fast_pf.result = MSC_FPF_SPURIOUS;
}

static void dec_pf(const struct entry *e, const uint64_t *v, const struct tep_record *rec,
		   struct msc_event *ev)
{
	ev->pf = (struct msc_ev_page_fault){ .vcpu = (uint32_t)v[0], .gpa = v[1],
					     .error_code = v[2], .rip = v[3] };
}

static void dec_set_spte(const struct entry *e, const uint64_t *v, const struct tep_record *rec,
			 struct msc_event *ev)
{
	ev->set_spte = (struct msc_ev_set_spte){ .gfn = v[0], .spte = v[1], .sptep = v[2],
						 .level = (uint8_t)v[3], .r = !!v[4],
						 .x = !!v[5], .u = (int8_t)v[6] };
}

static void dec_req(const struct entry *e, const uint64_t *v, const struct tep_record *rec,
		    struct msc_event *ev)
{
	ev->req = (struct msc_ev_requested){ .gfn = v[0], .pfn = v[1], .level = (uint8_t)v[2],
					     .access = e->field[3] ? (int16_t)(v[3] & 0xff) : -1 };
}

static void dec_mmio(const struct entry *e, const uint64_t *v, const struct tep_record *rec,
		     struct msc_event *ev)
{
	ev->mmio = (struct msc_ev_mmio){ .gfn = v[0], .access = (uint32_t)v[1],
					 .gen = (uint32_t)v[2] };
}

static void dec_zap_all(const struct entry *e, const uint64_t *v, const struct tep_record *rec,
			struct msc_event *ev)
{
	ev->zap_all = (struct msc_ev_zap_all){ .gen = (uint32_t)v[0],
					       .used_pages = (uint32_t)v[1] };
}

static void dec_hva(const struct entry *e, const uint64_t *v, const struct tep_record *rec,
		    struct msc_event *ev)
{
	ev->hva = (struct msc_ev_hva){ .start = v[0], .end = v[1] };
}

/* The text of a char[] field that runs to the end of the record. */
static void copy_string(const struct tep_format_field *f, const struct tep_record *rec,
			char *dst, size_t size)
{
	const char *src = (const char *)rec->data + f->offset;
	size_t len = rec->size > f->offset ? (size_t)(rec->size - f->offset) : 0;

	if (f->size > 0)
		len = min(len, (size_t)f->size);
	len = strnlen(src, len);
	while (len && (src[len - 1] == '\n' || src[len - 1] == '\0'))
		len--;
	len = min(len, size - 1);
	memcpy(dst, src, len);
	dst[len] = '\0';
}

static void dec_marker(const struct entry *e, const uint64_t *v, const struct tep_record *rec,
		       struct msc_event *ev)
{
	copy_string(e->field[0], rec, ev->marker.text, sizeof(ev->marker.text));
}

/* A kprobe keeps its name and its fetch args as "name=value" text. */
static void dec_kprobe(const struct entry *e, const uint64_t *v, const struct tep_record *rec,
		       struct msc_event *ev)
{
	struct msc_ev_kprobe *k = &ev->kprobe;
	size_t len = 0;

	k->ip = v[0];
	snprintf(k->name, sizeof(k->name), "%s", e->event->name);
	k->args[0] = '\0';
	for (struct tep_format_field *f = e->event->format.fields; f; f = f->next) {
		unsigned long long x;
		int n;

		if (!strcmp(f->name, "__probe_ip") || len >= sizeof(k->args) ||
		    f->offset + f->size > rec->size)
			continue;
		if (f->flags & TEP_FIELD_IS_STRING || f->flags & TEP_FIELD_IS_DYNAMIC ||
		    f->flags & TEP_FIELD_IS_ARRAY || tep_read_number_field(f, rec->data, &x))
			continue;
		n = snprintf(k->args + len, sizeof(k->args) - len, "%s%s=%#llx", len ? " " : "",
			     f->name, x);
		if (n > 0)
			len += (size_t)n;
	}
}

static void dec_tlb_flush(const struct entry *e, const uint64_t *v, const struct tep_record *rec,
			  struct msc_event *ev)
{
	ev->tlb_flush = (struct msc_ev_tlb_flush){
		.vm_id = (uint32_t)v[0], .vm_pid = (int32_t)v[1], .start_gfn = v[2],
		.nr_pages = v[3], .range = !!v[4], .all = !!v[5], .arch_flush = !!v[6],
		.kicked = !!v[7], .caller = v[8],
	};
}

static void dec_dirty_log(const struct entry *e, const uint64_t *v, const struct tep_record *rec,
			  struct msc_event *ev)
{
	struct msc_ev_dirty_log *d = &ev->dirty_log;

	*d = (struct msc_ev_dirty_log){
		.vm_id = (uint32_t)v[0], .vm_pid = (int32_t)v[1], .as_id = (uint16_t)v[2],
		.slot_id = (int16_t)v[3], .base_gfn = v[4], .npages = v[5],
		.old_flags = (uint32_t)v[6], .new_flags = (uint32_t)v[7], .change = (uint8_t)v[8],
		.eager_split = !!v[9], .initially_set = !!v[10], .pml = !!v[11],
		.duration_ns = v[12],
		.end = !strcmp(e->event->name, "kvm_mmu_slot_dirty_logging_end"),
	};
	symbol_name(e, v[8], d->change_name);
}

static void dec_split_span(const struct entry *e, const uint64_t *v, const struct tep_record *rec,
			   struct msc_event *ev)
{
	ev->span = (struct msc_ev_span){
		.vm_id = (uint32_t)v[0], .vm_pid = (int32_t)v[1], .as_id = (uint16_t)v[2],
		.slot_id = (int16_t)v[3], .start_gfn = v[4], .end_gfn = v[5],
		.target_level = (uint8_t)v[6], .reason = (uint8_t)v[7],
		.count_1g = (uint32_t)v[8], .count_2m = (uint32_t)v[9], .other = (uint32_t)v[10],
		.duration_ns = v[11],
	};
	symbol_name(e, v[7], ev->span.reason_name);
}

static void dec_collapse_span(const struct entry *e, const uint64_t *v,
			      const struct tep_record *rec, struct msc_event *ev)
{
	ev->span = (struct msc_ev_span){
		.vm_id = (uint32_t)v[0], .vm_pid = (int32_t)v[1], .as_id = (uint16_t)v[2],
		.slot_id = (int16_t)v[3], .start_gfn = v[4], .end_gfn = v[5],
		.count_1g = (uint32_t)v[6], .count_2m = (uint32_t)v[7], .other = (uint32_t)v[8],
		.flushes = (uint32_t)v[9], .duration_ns = v[10],
	};
	snprintf(ev->span.reason_name, sizeof(ev->span.reason_name), "%s",
		 strstr(e->event->name, "recover") ? "recover" : "zap");
}

static void dec_harvest(const struct entry *e, const uint64_t *v, const struct tep_record *rec,
			struct msc_event *ev)
{
	ev->harvest = (struct msc_ev_harvest){
		.vm_id = (uint32_t)v[0], .vm_pid = (int32_t)v[1], .as_id = (uint16_t)v[2],
		.slot_id = (int16_t)v[3], .start_gfn = v[4], .npages = v[5], .dirty = v[6],
		.clear = !!v[7], .protect = !!v[8], .flush = !!v[9], .duration_ns = v[10],
	};
}

static void dec_ioctl(const struct entry *e, const uint64_t *v, const struct tep_record *rec,
		      struct msc_event *ev)
{
	bool exit = !strcmp(e->event->name, "sys_exit_ioctl");

	ev->ioctl = (struct msc_ev_ioctl){
		.exit = exit, .fd = exit ? -1 : (int32_t)v[0], .cmd = exit ? 0 : (uint32_t)v[1],
		.arg = exit ? 0 : v[2], .ret = exit ? (int64_t)v[3] : 0,
	};
}

static const struct decoder decoders[] = {
	{ .system = "kvmmmu", .name = "kvm_tdp_mmu_spte_changed", .type = MSC_EV_SPTE_CHANGED,
	  .fields = { "gfn", "old_spte", "new_spte", "level", "as_id" }, .required = 0x0f,
	  .decode = dec_spte },
	{ .system = "kvmmmu", .name = "kvm_mmu_split_huge_page", .type = MSC_EV_SPLIT,
	  .fields = { "gfn", "spte", "level", "errno" }, .required = 0x07, .decode = dec_split },
	{ .system = "kvmmmu", .name = "kvm_mmu_get_page", .type = MSC_EV_GET_PAGE,
	  .fields = { "gfn", "role", "root_count", "unsync", "created", "mmu_valid_gen" },
	  .required = 0x03, .decode = dec_sp },
	{ .system = "kvmmmu", .name = "kvm_mmu_prepare_zap_page", .type = MSC_EV_ZAP_PAGE,
	  .fields = { "gfn", "role", "root_count", "unsync", "", "mmu_valid_gen" },
	  .required = 0x03, .decode = dec_sp },
	{ .system = "kvmmmu", .name = "fast_page_fault", .type = MSC_EV_FAST_PF,
	  .fields = { "vcpu_id", "cr2_or_gpa", "error_code", "old_spte", "new_spte", "ret" },
	  .required = 0x3a, .ignored = "sptep", .decode = dec_fast_pf },
	{ .system = "kvm", .name = "kvm_page_fault", .type = MSC_EV_PAGE_FAULT,
	  .fields = { "vcpu_id", "fault_address", "error_code", "guest_rip" }, .required = 0x02,
	  .decode = dec_pf },
	{ .system = "kvmmmu", .name = "kvm_mmu_set_spte", .type = MSC_EV_SET_SPTE,
	  .fields = { "gfn", "spte", "sptep", "level", "r", "x", "u" }, .required = 0x0b,
	  .decode = dec_set_spte },
	{ .system = "kvmmmu", .name = "kvm_mmu_spte_requested", .type = MSC_EV_SPTE_REQUESTED,
	  .fields = { "gfn", "pfn", "level", "access" }, .required = 0x07, .newer = 0x08,
	  .decode = dec_req },
	{ .system = "kvmmmu", .name = "mark_mmio_spte", .type = MSC_EV_MMIO_SPTE,
	  .fields = { "gfn", "access", "gen" }, .required = 0x01, .decode = dec_mmio },
	{ .system = "kvmmmu", .name = "kvm_mmu_zap_all_fast", .type = MSC_EV_ZAP_ALL_FAST,
	  .fields = { "mmu_valid_gen", "mmu_used_pages" }, .required = 0, .decode = dec_zap_all },
	{ .system = "kvm", .name = "kvm_unmap_hva_range", .type = MSC_EV_UNMAP_HVA,
	  .fields = { "start", "end" }, .required = 0x03, .decode = dec_hva },
	{ .system = "kvm", .name = "kvm_age_hva", .type = MSC_EV_AGE_HVA,
	  .fields = { "start", "end" }, .required = 0x03, .decode = dec_hva },
	{ .system = "ftrace", .name = "print", .type = MSC_EV_MARKER,
	  .fields = { "buf" }, .required = 0x01, .ignored = "ip", .decode = dec_marker },
	/* the companion kernel patch (kernel/, docs/kernel-events.md) */
	{ .system = "kvm", .name = "kvm_flush_remote_tlbs", .type = MSC_EV_TLB_FLUSH,
	  .fields = { "vm_id", "vm_pid", "start_gfn", "nr_pages", "range", "all", "arch_flush",
		      "kicked", "caller" },
	  .required = 0x3c, .decode = dec_tlb_flush },
	{ .system = "kvmmmu", .name = "kvm_mmu_slot_dirty_logging_begin", .type = MSC_EV_DIRTY_LOG,
	  .fields = { "vm_id", "vm_pid", "as_id", "slot_id", "base_gfn", "npages", "old_flags",
		      "new_flags", "change", "eager_split", "initially_set", "pml", "duration_ns" },
	  .required = 0xf0, .symbolic = "change", .decode = dec_dirty_log },
	{ .system = "kvmmmu", .name = "kvm_mmu_slot_dirty_logging_end", .type = MSC_EV_DIRTY_LOG,
	  .fields = { "vm_id", "vm_pid", "as_id", "slot_id", "base_gfn", "npages", "old_flags",
		      "new_flags", "change", "eager_split", "initially_set", "pml", "duration_ns" },
	  .required = 0xf0, .symbolic = "change", .decode = dec_dirty_log },
	{ .system = "kvmmmu", .name = "kvm_mmu_split_huge_pages", .type = MSC_EV_SPLIT_SPAN,
	  .fields = { "vm_id", "vm_pid", "as_id", "slot_id", "start_gfn", "end_gfn",
		      "target_level", "reason", "split_1g", "split_2m", "failed", "duration_ns" },
	  .required = 0x3b0, .symbolic = "reason", .decode = dec_split_span },
	{ .system = "kvmmmu", .name = "kvm_mmu_zap_collapsible_sptes", .type = MSC_EV_COLLAPSE_SPAN,
	  .fields = { "vm_id", "vm_pid", "as_id", "slot_id", "start_gfn", "end_gfn", "zapped_1g",
		      "zapped_2m", "skipped", "flushes", "duration_ns" },
	  .required = 0xf0, .decode = dec_collapse_span },
	/* the same pass from 6.13 on: huge pages recovered in place (kernel/7.3) */
	{ .system = "kvmmmu", .name = "kvm_mmu_recover_huge_pages", .type = MSC_EV_COLLAPSE_SPAN,
	  .fields = { "vm_id", "vm_pid", "as_id", "slot_id", "start_gfn", "end_gfn", "recovered_1g",
		      "recovered_2m", "skipped", "flushes", "duration_ns" },
	  .required = 0xf0, .decode = dec_collapse_span },
	{ .system = "kvm", .name = "kvm_dirty_log_harvest", .type = MSC_EV_HARVEST,
	  .fields = { "vm_id", "vm_pid", "as_id", "slot_id", "start_gfn", "npages", "dirty",
		      "clear", "protect", "flush", "duration_ns" },
	  .required = 0x3f0, .decode = dec_harvest },
	/* the KVM ioctls (stable ABI): what bounds the kernel's work on any kernel */
	{ .system = "syscalls", .name = "sys_enter_ioctl", .type = MSC_EV_IOCTL,
	  .fields = { "fd", "cmd", "arg", "" }, .required = 0x03, .ignored = "__syscall_nr",
	  .decode = dec_ioctl },
	{ .system = "syscalls", .name = "sys_exit_ioctl", .type = MSC_EV_IOCTL,
	  .fields = { "", "", "", "ret" }, .required = 0x08, .ignored = "__syscall_nr",
	  .decode = dec_ioctl },
	/* any event with a __probe_ip field, whatever its group */
	{ .system = NULL, .name = NULL, .type = MSC_EV_KPROBE,
	  .fields = { "__probe_ip" }, .required = 0x01, .decode = dec_kprobe },
};

static void __printf(2, 3) warn(struct msc_decoder *d, const char *fmt, ...)
{
	va_list ap;
	char *s;

	if (d->nr_warnings >= MAX_WARNINGS)
		return;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) >= 0)
		d->warnings[d->nr_warnings++] = s;
	va_end(ap);
}

static const struct decoder *find_decoder(struct tep_event *event)
{
	for (size_t i = 0; i < ARRAY_SIZE(decoders); i++) {
		const struct decoder *dec = &decoders[i];

		if (dec->system ? !strcmp(dec->system, event->system) && !strcmp(dec->name, event->name)
				: !!tep_find_field(event, dec->fields[0]))
			return dec;
	}
	return NULL;
}

/*
 * The RET_PF_* numbers behind "spurious %d fixed %d" moved between kernels
 * (6.1: 5/4, 6.12: 6/5), so read them from the format: pair each
 * conversion of the format string with its argument and take the atom of
 * each "REC->ret == N" under the word before the conversion.
 */
static bool is_ret_equals(const struct tep_print_arg *arg)
{
	return arg->type == TEP_PRINT_OP && !strcmp(arg->op.op, "==") && arg->op.left &&
	       arg->op.left->type == TEP_PRINT_FIELD && !strcmp(arg->op.left->field.name, "ret") &&
	       arg->op.right && arg->op.right->type == TEP_PRINT_ATOM;
}

static void find_fpf_results(struct entry *e)
{
	const char *p = e->event->print_fmt.format;
	const struct tep_print_arg *arg = e->event->print_fmt.args;
	const char *word = "";
	size_t wlen = 0;

	e->fpf_fixed = e->fpf_spurious = -1;
	while (p && *p && arg) {
		if (*p != '%') {
			size_t n = strcspn(p, " %:=");

			if (n) {
				word = p;
				wlen = n;
			}
			p += n ? n : 1;
			continue;
		}
		if (p[1] == '%') {
			p += 2;
			continue;
		}
		p += 1 + strspn(p + 1, "#0-+ .0123456789hlLqjzt");
		if (*p == 'p')
			while (isalnum((unsigned char)p[1]))
				p++;	/* %pS and the other pointer extensions */
		if (*p)
			p++;
		if (is_ret_equals(arg)) {
			int v = atoi(arg->op.right->atom.atom);

			if (wlen == 5 && !strncmp(word, "fixed", 5))
				e->fpf_fixed = v;
			else if (wlen == 8 && !strncmp(word, "spurious", 8))
				e->fpf_spurious = v;
		}
		arg = arg->next;
	}
}

/* Names of the decoder's symbolic field: its __print_symbolic() in the print fmt. */
static void find_symbols(struct entry *e, const struct tep_print_arg *arg)
{
	for (; arg; arg = arg->next) {
		const struct tep_print_arg *f = arg->symbol.field;

		if (arg->type != TEP_PRINT_SYMBOL || !f || f->type != TEP_PRINT_FIELD ||
		    strcmp(f->field.name, e->dec->symbolic))
			continue;
		for (const struct tep_print_flag_sym *sym = arg->symbol.symbols;
		     sym && e->nr_syms < ARRAY_SIZE(e->syms); sym = sym->next) {
			e->syms[e->nr_syms].value = strtoll(sym->value, NULL, 0);
			snprintf(e->syms[e->nr_syms].name, sizeof(e->syms[0].name), "%s", sym->str);
			e->nr_syms++;
		}
		return;
	}
}

static struct entry *resolve(struct msc_decoder *d, int id)
{
	struct tep_event *event = tep_find_event(d->tep, id);
	struct entry *e;

	if (!event)
		return NULL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->event = event;
	e->dec = find_decoder(event);
	if (!e->dec) {
		if (!strcmp(event->system, "kvmmmu"))
			warn(d, "%s/%s: event not known to mmuscope; counted, not stored",
			     event->system, event->name);
		return e;
	}
	for (int i = 0; i < MAX_FIELDS && e->dec->fields[i]; i++) {
		struct tep_format_field *f;

		if (!e->dec->fields[i][0])
			continue;	/* a slot this event does not have */
		f = tep_find_field(event, e->dec->fields[i]);
		e->field[i] = f;
		if (f) {
			if (f->size > 0)
				e->min_size = max(e->min_size, f->offset + f->size);
			else
				e->min_size = max(e->min_size, f->offset);
			continue;
		}
		if (e->dec->required & (1u << i)) {
			warn(d, "%s/%s: format has no field '%s'; events counted, not stored",
			     event->system, event->name, e->dec->fields[i]);
			e->dec = NULL;
			return e;
		}
		if (!(e->dec->newer & (1u << i)))
			warn(d, "%s/%s: format has no field '%s'; stored as 0", event->system,
			     event->name, e->dec->fields[i]);
	}
	if (e->dec->system) {
		for (struct tep_format_field *f = event->format.fields; f; f = f->next) {
			bool known = e->dec->ignored && !strcmp(e->dec->ignored, f->name);

			for (int i = 0; i < MAX_FIELDS && e->dec->fields[i]; i++)
				known |= !strcmp(e->dec->fields[i], f->name);
			if (!known)
				warn(d, "%s/%s: field '%s' not known to mmuscope; not stored",
				     event->system, event->name, f->name);
		}
	}
	if (e->dec->type == MSC_EV_FAST_PF)
		find_fpf_results(e);
	if (e->dec->symbolic)
		find_symbols(e, e->event->print_fmt.args);
	return e;
}

static struct entry *lookup(struct msc_decoder *d, int id)
{
	if (id < 0 || id > 65535)
		return NULL;
	if ((size_t)id >= d->nr_entries) {
		size_t n = max((size_t)id + 1, d->nr_entries * 2);
		struct entry **p = realloc(d->entries, n * sizeof(*p));

		if (!p)
			return NULL;
		memset(p + d->nr_entries, 0, (n - d->nr_entries) * sizeof(*p));
		d->entries = p;
		d->nr_entries = n;
	}
	if (!d->entries[id])
		d->entries[id] = resolve(d, id);
	return d->entries[id];
}

/*
 * A field's value.  When the file has this machine's byte order the bytes
 * are loaded directly at the offset and size libtraceevent parsed from the
 * format (it costs a tenth of tep_read_number_field()); otherwise the
 * library swaps them.  tep_read_number_field() zero-extends: signed fields
 * get their sign back here.
 */
static uint64_t read_field(const struct msc_decoder *d, const struct tep_format_field *f,
			   const void *data)
{
	const char *p = (const char *)data + (f ? f->offset : 0);
	unsigned long long v = 0;
	uint32_t u32;
	uint16_t u16;

	if (!f)
		return 0;
	if (likely(d->native)) {
		switch (f->size) {
		case 8:
			memcpy(&v, p, 8);
			return v;
		case 4:
			memcpy(&u32, p, 4);
			v = u32;
			break;
		case 2:
			memcpy(&u16, p, 2);
			v = u16;
			break;
		case 1:
			v = *(const uint8_t *)p;
			break;
		default:
			if (tep_read_number_field((struct tep_format_field *)f, data, &v))
				return 0;
		}
	} else if (tep_read_number_field((struct tep_format_field *)f, data, &v)) {
		return 0;
	}
	if ((f->flags & TEP_FIELD_IS_SIGNED) && f->size > 0 && f->size < 8) {
		unsigned int shift = 64 - 8 * (unsigned int)f->size;

		v = (unsigned long long)((long long)(v << shift) >> shift);
	}
	return v;
}

/**
 * msc_decoder_new - make a decoder for the events of one tep handle
 * @tep: the capture's handle; it must outlive the decoder
 * @ret: the decoder, freed with msc_decoder_free()
 *
 * Returns 0 or -ENOMEM.
 */
int msc_decoder_new(struct tep_handle *tep, struct msc_decoder **ret)
{
	struct msc_decoder *d = calloc(1, sizeof(*d));

	if (!d)
		return -ENOMEM;
	d->tep = tep;
	d->native = tep_is_file_bigendian(tep) == tep_is_local_bigendian(tep);
	*ret = d;
	return 0;
}

void msc_decoder_free(struct msc_decoder *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nr_entries; i++)
		free(d->entries[i]);
	free(d->entries);
	for (size_t i = 0; i < d->nr_warnings; i++)
		free(d->warnings[i]);
	free(d);
}

/**
 * msc_decoder_decode - decode one record
 * @d: the decoder
 * @rec: the record, borrowed for the duration of the call
 * @ret_ev: the event, written only when 1 is returned; seq is left to the
 *	caller
 *
 * Returns 1 when @ret_ev holds an event, 0 for an event that is only
 * counted, MSC_ERR_CORRUPT for a record whose event id has no format or
 * that is shorter than its format (msc_decoder_error() says which).
 */
int msc_decoder_decode(struct msc_decoder *d, const struct tep_record *rec,
		       struct msc_event *ret_ev)
{
	uint64_t v[MAX_FIELDS];
	struct entry *e;
	int id;

	id = tep_data_type(d->tep, (struct tep_record *)rec);
	e = lookup(d, id);
	if (!e) {
		snprintf(d->error, sizeof(d->error),
			 "record on cpu %d at ts %llu has event id %d, which has no format",
			 rec->cpu, rec->ts, id);
		return MSC_ERR_CORRUPT;
	}
	if (rec->size < e->min_size) {
		snprintf(d->error, sizeof(d->error),
			 "%s/%s record on cpu %d at ts %llu is %d bytes, its format needs %d",
			 e->event->system, e->event->name, rec->cpu, rec->ts, rec->size,
			 e->min_size);
		return MSC_ERR_CORRUPT;
	}
	e->count++;
	if (!e->dec)
		return 0;
	for (int i = 0; i < MAX_FIELDS && e->dec->fields[i]; i++)
		v[i] = read_field(d, e->field[i], rec->data);
	ret_ev->ts = rec->ts;
	ret_ev->cpu = (uint16_t)rec->cpu;
	ret_ev->pid = tep_data_pid(d->tep, (struct tep_record *)rec);
	ret_ev->type = e->dec->type;
	e->dec->decode(e, v, rec, ret_ev);
	return 1;
}

/**
 * msc_decoder_get_stat - count of one event id
 * @d: the decoder
 * @i: index below msc_decoder_nr_stats()
 * @ret: filled in; its strings live as long as the tep handle
 *
 * Returns 1 when @i is an event seen at least once, 0 for an id not seen,
 * -ENOENT past the last id.
 */
int msc_decoder_get_stat(const struct msc_decoder *d, size_t i, struct msc_event_stat *ret)
{
	const struct entry *e;

	if (i >= d->nr_entries)
		return -ENOENT;
	e = d->entries[i];
	if (!e || !e->count)
		return 0;
	*ret = (struct msc_event_stat){ .system = e->event->system, .name = e->event->name,
					.count = e->count, .type = e->dec ? e->dec->type : -1 };
	return 1;
}

/**
 * msc_decoder_next_warning - the next format warning not yet fetched
 *
 * Each problem with a format (a missing or unknown field, an unknown kvmmmu
 * event) is queued once.  Returns NULL when none is left; the string lives
 * as long as the decoder.
 */
const char *msc_decoder_next_warning(struct msc_decoder *d)
{
	return d->next_warning < d->nr_warnings ? d->warnings[d->next_warning++] : NULL;
}

/** msc_decoder_error - what the last MSC_ERR_CORRUPT was about */
const char *msc_decoder_error(const struct msc_decoder *d)
{
	return d->error;
}
