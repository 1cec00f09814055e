// SPDX-License-Identifier: GPL-2.0-only
/*
 * Record -> struct msc_event, by field name.
 *
 * The events mmuscope stores and the fields it reads are those of
 * msc_event_descs[] (event-desc.c).  The first record of an event id
 * resolves its entry: the type and tracepoint it is, one slot per field
 * (the tep_format_field it is read from, or the constant it gets) and the
 * record size the fields need.  From then on a record costs a table lookup
 * and one load and store per field; in a file of this machine's byte order,
 * a field as wide as its member is copied as it is, and fields that lie one
 * after the other in both the record and the event are copied as one run.
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
#include "event-desc.h"

#define MAX_SLOTS MSC_EVENT_MAX_FIELDS
#define MAX_WARNINGS 64
#define ZERO_INLINE 64		/* payload bytes cleared by a memset the compiler inlines */

_Static_assert(sizeof(struct msc_event) - MSC_EVENT_PAYLOAD >= ZERO_INLINE,
	       "a payload of ZERO_INLINE bytes fits in every event");

/*
 * What filling one field of an event from a record takes.  The SLOT_COPY*
 * acts, which come first, copy the size bytes at src_offset of the record
 * to the member as they are: the record is in this machine's byte order and
 * every field of the run is as wide as its member.
 */
enum slot_act {
	SLOT_COPY1,
	SLOT_COPY2,
	SLOT_COPY4,
	SLOT_COPY8,
	SLOT_COPY16_32,		/* 16 to 32 bytes */
	SLOT_COPY,		/* any other size */
	SLOT_NUMBER,		/* the value of format field src */
	SLOT_CONST,		/* value: the tracepoint's tag, or the field's absent value */
	SLOT_STRING,		/* the text of char[] field src */
	SLOT_CONST_NAME,	/* the tracepoint's tag, as text */
	SLOT_SYMBOL,		/* the print fmt's name of src's value */
};

struct slot {
	uint8_t act;		/* enum slot_act */
	uint8_t size;		/* of the member; SLOT_COPY*: of the run of members */
	bool boolean;		/* MSC_F_BOOL */
	uint16_t offset;	/* of the member (the run's first) */
	uint16_t src_offset;	/* SLOT_COPY*: of the field (the run's first) in a record */
	uint64_t value;
	const struct msc_field *dst;
	const struct tep_format_field *src;
};

struct entry;

typedef void decode_hook_fn(const struct entry *e, const struct tep_record *rec,
			    struct msc_event *ev);

/* One event id of the capture. */
struct entry {
	struct tep_event *event;
	const struct msc_event_desc *desc;	/* NULL: counted only */
	const struct msc_tracepoint *tp;
	uint8_t type;		/* enum msc_event_type */
	uint8_t nr_slots;
	uint16_t payload;	/* desc->payload */
	int min_size;		/* a record must hold every field read */
	uint64_t count;
	decode_hook_fn *decode;	/* hooks[type].decode */
	struct slot slot[MAX_SLOTS];
	int fpf_fixed;		/* fast_page_fault: RET_PF_FIXED, from the print fmt */
	int fpf_spurious;	/* ... RET_PF_SPURIOUS */
	struct {
		long long value;
		char name[MSC_EVENT_SYMBOL_MAX];
	} syms[8];		/* the symbolic field's names, value -> name */
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
	bool common_tried;
	bool common;		/* common_type and common_pid are found (native files) */
	bool type_u16;		/* ... and common_type is an unsigned short */
	int type_offset, pid_offset;
	struct tep_format_field *common_type, *common_pid;
	int common_end;		/* a record holds at least this much */
	struct entry **entries;	/* indexed by event id */
	size_t nr_entries;
	char *warnings[MAX_WARNINGS];
	size_t nr_warnings, next_warning;
	char error[256];
};

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

/* fast_page_fault: how it ended, from ret and the format's RET_PF_* numbers. */
static void fpf_result(const struct entry *e, const struct tep_record *rec,
		       struct msc_event *ev)
{
	if (ev->fast_pf.ret == e->fpf_fixed)
		ev->fast_pf.result = MSC_FPF_FIXED;
	else if (ev->fast_pf.ret == e->fpf_spurious)
		ev->fast_pf.result = MSC_FPF_SPURIOUS;
}

/* A kprobe keeps its name and its fetch args as "name=value" text. */
static void kprobe_args(const struct entry *e, const struct tep_record *rec,
			struct msc_event *ev)
{
	struct msc_ev_kprobe *k = &ev->kprobe;
	size_t len = 0;

	snprintf(k->name, sizeof(k->name), "%s", e->event->name);
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

static void find_fpf_results(struct entry *e);

/*
 * What the description's fields cannot say: members filled from the format
 * as a whole (its print fmt, its other fields).
 */
static const struct {
	void (*resolve)(struct entry *e);
	decode_hook_fn *decode;
} hooks[MSC_EV_NR] = {
	[MSC_EV_FAST_PF] = { find_fpf_results, fpf_result },
	[MSC_EV_KPROBE] = { NULL, kprobe_args },
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

/**
 * msc_decoder_find_field - the field of @event that @tp names ("a|b": the
 *	first of them the format has, as a description's tracepoint field
 *	does), or NULL
 */
struct tep_format_field *msc_decoder_find_field(struct tep_event *event, const char *tp)
{
	char name[64];

	while (*tp) {
		size_t n = strcspn(tp, "|");
		struct tep_format_field *f;

		snprintf(name, sizeof(name), "%.*s", (int)n, tp);
		f = tep_find_field(event, name);
		if (f)
			return f;
		tp += n + !!tp[n];
	}
	return NULL;
}

/* Whether @name is one of the names @tp lists. */
static bool names_field(const char *tp, const char *name)
{
	size_t len = strlen(name);

	while (tp && *tp) {
		size_t n = strcspn(tp, "|");

		if (n == len && !memcmp(tp, name, len))
			return true;
		tp += n + !!tp[n];
	}
	return false;
}

/* The type's first decoded field: what a tracepoint of any name is matched by. */
static const char *first_tp(const struct msc_event_desc *desc)
{
	for (unsigned int i = 0; i < desc->nr_fields; i++)
		if (desc->fields[i].tp)
			return desc->fields[i].tp;
	return NULL;
}

/* Whether @event is @tp of @desc: by its name, or (@by_field) by its fields. */
static bool is_tracepoint(struct tep_event *event, const struct msc_event_desc *desc,
			  const struct msc_tracepoint *tp, bool by_field)
{
	if (by_field)
		return !tp->system && msc_decoder_find_field(event, first_tp(desc));
	return tp->system && !strcmp(tp->system, event->system) && !strcmp(tp->name, event->name);
}

/* The type and tracepoint of @event: by name first, then by field (kprobes). */
static int find_tracepoint(struct tep_event *event, const struct msc_tracepoint **ret)
{
	for (int by_field = 0; by_field < 2; by_field++) {
		for (int t = 0; t < MSC_EV_NR; t++) {
			const struct msc_event_desc *desc = &msc_event_descs[t];

			for (unsigned int i = 0; i < desc->nr_tracepoints; i++) {
				if (is_tracepoint(event, desc, &desc->tracepoints[i], by_field)) {
					*ret = &desc->tracepoints[i];
					return t;
				}
			}
		}
	}
	return -1;
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

/* Names of field @name's values: its __print_symbolic() in the print fmt. */
static void find_symbols(struct entry *e, const char *name)
{
	for (const struct tep_print_arg *arg = e->event->print_fmt.args; arg; arg = arg->next) {
		const struct tep_print_arg *f = arg->symbol.field;

		if (arg->type != TEP_PRINT_SYMBOL || !f || f->type != TEP_PRINT_FIELD ||
		    strcmp(f->field.name, name))
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

/* The slot of a field with no format field behind it; false: nothing to do. */
static bool const_slot(const struct entry *e, const struct msc_field *f, struct slot *s)
{
	if (f->flags & MSC_F_TAG) {
		int v = e->tp->tag ? msc_field_name_index(f, e->tp->tag, strlen(e->tp->tag)) : -1;

		s->act = f->kind == MSC_K_NAME ? SLOT_CONST_NAME : SLOT_CONST;
		s->value = v < 0 ? 0 : (uint64_t)v;
		return true;
	}
	s->act = SLOT_CONST;
	s->value = msc_field_absent(f);
	return s->value != 0;	/* the payload starts zeroed */
}

/* The act of a copy of @size bytes. */
static uint8_t copy_size_act(unsigned int size)
{
	switch (size) {
	case 1:
		return SLOT_COPY1;
	case 2:
		return SLOT_COPY2;
	case 4:
		return SLOT_COPY4;
	case 8:
		return SLOT_COPY8;
	default:
		return size >= 16 && size <= 32 ? SLOT_COPY16_32 : SLOT_COPY;
	}
}

/*
 * The act that copies field @src to the member of @f as it is, or
 * SLOT_NUMBER.  SLOT_NUMBER loads the field, extends it to 64 bits and
 * stores the member's width of that: when the field is as wide as the
 * member and in this machine's byte order, its very bytes.
 */
static uint8_t copy_act(const struct msc_decoder *d, const struct msc_field *f,
			const struct tep_format_field *src)
{
	uint8_t act = copy_size_act(f->size);	/* a number is 1, 2, 4 or 8 bytes */

	if (!d->native || src->size != f->size || (f->flags & MSC_F_BOOL) ||
	    src->offset < 0 || src->offset > UINT16_MAX || act > SLOT_COPY8)
		return SLOT_NUMBER;
	return act;
}

static bool is_copy(const struct slot *s)
{
	return s->act <= SLOT_COPY;
}

/*
 * The copies go first, by member, and each joins the one before it when
 * both their members and their fields follow each other without a gap:
 * copying a run costs what copying one field does.  The order of the slots
 * does not matter: the members of a description do not overlap
 * (t-event-desc checks), so no two slots write the same byte.
 */
static void join_copies(struct entry *e)
{
	struct slot *s = e->slot;
	unsigned int n = 0;

	/* insertion sort: copies by offset, then the rest as they were */
	for (unsigned int i = 1; i < e->nr_slots; i++) {
		struct slot x = s[i];
		unsigned int j = i;

		for (; j && is_copy(&x) &&
		       (!is_copy(&s[j - 1]) || s[j - 1].offset > x.offset); j--)
			s[j] = s[j - 1];
		s[j] = x;
	}
	for (unsigned int i = 0; i < e->nr_slots; i++) {
		struct slot *prev = n ? &s[n - 1] : NULL;

		if (prev && is_copy(prev) && is_copy(&s[i]) &&
		    prev->offset + prev->size == s[i].offset &&
		    prev->src_offset + prev->size == s[i].src_offset &&
		    prev->size + s[i].size <= UINT8_MAX) {
			prev->size += s[i].size;
			prev->act = copy_size_act(prev->size);
			continue;
		}
		s[n++] = s[i];
	}
	e->nr_slots = (uint8_t)n;
}

/*
 * Each field of the description becomes a slot; false when a required
 * field is missing (the event is then counted, not stored).
 */
static bool resolve_slots(struct msc_decoder *d, struct entry *e)
{
	struct tep_event *event = e->event;

	for (unsigned int i = 0; i < e->desc->nr_fields; i++) {
		const struct msc_field *f = &e->desc->fields[i];
		struct slot *s = &e->slot[e->nr_slots];
		bool carried = !f->only || (e->tp->tag && !strcmp(f->only, e->tp->tag));

		*s = (struct slot){ .dst = f, .offset = f->offset, .size = (uint8_t)f->size,
				    .boolean = f->flags & MSC_F_BOOL };
		s->src = f->tp && carried ? msc_decoder_find_field(event, f->tp) : NULL;
		if (s->src) {
			s->act = f->flags & MSC_F_SYMBOL ? SLOT_SYMBOL :
				 f->kind == MSC_K_NAME || f->kind == MSC_K_TEXT ? SLOT_STRING :
				 copy_act(d, f, s->src);
			if (is_copy(s))
				s->src_offset = (uint16_t)s->src->offset;
			e->min_size = max(e->min_size,
					  s->src->offset + (s->src->size > 0 ? s->src->size : 0));
			if (s->act == SLOT_SYMBOL)
				find_symbols(e, s->src->name);
			e->nr_slots++;
			continue;
		}
		if (f->tp && carried && !(f->flags & MSC_F_SYMBOL)) {
			if (f->flags & MSC_F_REQUIRED) {
				warn(d, "%s/%s: format has no field '%s'; events counted, "
				     "not stored", event->system, event->name, f->tp);
				return false;
			}
			if (!(f->flags & MSC_F_NEWER))
				warn(d, "%s/%s: format has no field '%s'; stored as 0",
				     event->system, event->name, f->tp);
		}
		if (const_slot(e, f, s))
			e->nr_slots++;
	}
	return true;
}

/* Fields of a named tracepoint that no field of its description reads. */
static void warn_unknown_fields(struct msc_decoder *d, const struct entry *e)
{
	for (struct tep_format_field *f = e->event->format.fields; f; f = f->next) {
		bool known = e->tp->ignored && !strcmp(e->tp->ignored, f->name);

		for (unsigned int i = 0; i < e->desc->nr_fields && !known; i++)
			known = names_field(e->desc->fields[i].tp, f->name);
		if (!known)
			warn(d, "%s/%s: field '%s' not known to mmuscope; not stored",
			     e->event->system, e->event->name, f->name);
	}
}

/*
 * The entry of event id @id, made from its format: -ENOENT when it has
 * none, -ENOMEM.
 */
static int resolve(struct msc_decoder *d, int id, struct entry **ret)
{
	struct tep_event *event = tep_find_event(d->tep, id);
	struct entry *e;
	int type;

	if (!event)
		return -ENOENT;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	*ret = e;
	e->event = event;
	type = find_tracepoint(event, &e->tp);
	if (type < 0) {
		if (!strcmp(event->system, "kvmmmu"))
			warn(d, "%s/%s: event not known to mmuscope; counted, not stored",
			     event->system, event->name);
		return 0;
	}
	e->type = (uint8_t)type;
	e->desc = &msc_event_descs[type];
	if (!resolve_slots(d, e)) {
		e->desc = NULL;
		return 0;
	}
	join_copies(e);
	e->payload = e->desc->payload;
	e->decode = hooks[type].decode;
	if (e->tp->system)
		warn_unknown_fields(d, e);
	if (hooks[type].resolve)
		hooks[type].resolve(e);
	return 0;
}

/* Make d->entries[@id]: 0, -ENOENT when the id has no format, -ENOMEM. */
static int lookup_slow(struct msc_decoder *d, int id)
{
	if (id < 0 || id > 65535)
		return -ENOENT;
	if ((size_t)id >= d->nr_entries) {
		size_t n = max((size_t)id + 1, d->nr_entries * 2);
		struct entry **p = realloc(d->entries, n * sizeof(*p));

		if (!p)
			return -ENOMEM;
		memset(p + d->nr_entries, 0, (n - d->nr_entries) * sizeof(*p));
		d->entries = p;
		d->nr_entries = n;
	}
	return resolve(d, id, &d->entries[id]);
}

/*
 * The entry of event id @id in *@ret: 0, -ENOENT when it has no format,
 * -ENOMEM (nothing is kept of a failed lookup: the next record asks again).
 */
static inline int lookup(struct msc_decoder *d, int id, struct entry **ret)
{
	int r = 0;

	if (unlikely((unsigned int)id >= d->nr_entries || !d->entries[id]))
		r = lookup_slow(d, id);
	if (!r)
		*ret = d->entries[id];
	return r;
}

/*
 * A field's value.  When the file has this machine's byte order the bytes
 * are loaded directly at the offset and size libtraceevent parsed from the
 * format (it costs a tenth of tep_read_number_field()); otherwise the
 * library swaps them.  tep_read_number_field() zero-extends: signed fields
 * get their sign back here.
 */
static inline uint64_t read_field(const struct msc_decoder *d, const struct tep_format_field *f,
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

/*
 * Every event has the same common fields: read common_type and common_pid
 * at the offsets libtraceevent parsed from the first format, as any other
 * field, instead of through tep_data_type()/tep_data_pid() (a third of a
 * record's decoding).  Files of the other byte order keep the library's
 * calls.
 */
static void find_common(struct msc_decoder *d)
{
	struct tep_event *first = tep_get_first_event(d->tep);
	struct tep_format_field *type, *pid;

	d->common_tried = true;
	if (!d->native || !first)
		return;
	type = tep_find_common_field(first, "common_type");
	pid = tep_find_common_field(first, "common_pid");
	if (!type || !pid || type->size <= 0 || type->size > 4 || pid->size != 4)
		return;
	d->common_type = type;
	d->common_pid = pid;
	d->common_end = max(type->offset + type->size, pid->offset + pid->size);
	d->common = true;
	/* as every kernel has it; read_field() would sign-extend a signed one */
	d->type_u16 = type->size == 2 && !(type->flags & TEP_FIELD_IS_SIGNED);
	d->type_offset = type->offset;
	d->pid_offset = pid->offset;
}

/* The event id of @rec: common_type. */
static inline int record_type(struct msc_decoder *d, const struct tep_record *rec)
{
	uint16_t id;

	if (unlikely(!d->common_tried))
		find_common(d);
	if (unlikely(!d->common) || rec->size < d->common_end)
		return tep_data_type(d->tep, (struct tep_record *)rec);
	if (!d->type_u16)
		return (int)read_field(d, d->common_type, rec->data);
	memcpy(&id, (const char *)rec->data + d->type_offset, sizeof(id));
	return id;
}

/* The pid of @rec: common_pid, a native int when d->common. */
static inline int32_t record_pid(struct msc_decoder *d, const struct tep_record *rec)
{
	int32_t pid;

	if (unlikely(!d->common))
		return tep_data_pid(d->tep, (struct tep_record *)rec);
	memcpy(&pid, (const char *)rec->data + d->pid_offset, sizeof(pid));
	return pid;
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
 * that is shorter than its format (msc_decoder_error() says which),
 * -ENOMEM when the first record of an event id finds no memory for its
 * entry (a later record of that id tries again).
 */
int msc_decoder_decode(struct msc_decoder *d, const struct tep_record *rec,
		       struct msc_event *ret_ev)
{
	const char *data = rec->data;
	char *payload = (char *)ret_ev + MSC_EVENT_PAYLOAD;
	struct entry *e;
	int id, r;

	id = record_type(d, rec);
	r = lookup(d, id, &e);
	if (unlikely(r == -ENOMEM))
		return r;
	if (r) {
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
	if (!e->desc)
		return 0;
	ret_ev->ts = rec->ts;
	ret_ev->cpu = (uint16_t)rec->cpu;
	ret_ev->pid = record_pid(d, rec);
	ret_ev->type = e->type;
	/*
	 * The payload starts zeroed, padding included (it travels: see
	 * msc_event_pack()).  Most are at most ZERO_INLINE bytes, which a
	 * memset of constant size clears without a call; the union is larger,
	 * so the bytes past a short payload are still this event's.
	 */
	if (likely(e->payload <= ZERO_INLINE))
		memset(payload, 0, ZERO_INLINE);
	else
		memset(payload, 0, e->payload);
	for (const struct slot *s = e->slot, *end = e->slot + e->nr_slots; s < end; s++) {
		char *dst = (char *)ret_ev + s->offset;
		const char *src = data + s->src_offset;
		uint64_t v;

		switch (s->act) {
		case SLOT_COPY1:
			*dst = *src;
			break;
		case SLOT_COPY2:
			memcpy(dst, src, 2);
			break;
		case SLOT_COPY4:
			memcpy(dst, src, 4);
			break;
		case SLOT_COPY8:
			memcpy(dst, src, 8);
			break;
		case SLOT_COPY16_32:
			/* the first 16 bytes and the last 16, which overlap below 32 */
			memcpy(dst, src, 16);
			memcpy(dst + s->size - 16, src + s->size - 16, 16);
			break;
		case SLOT_COPY:
			memcpy(dst, src, s->size);
			break;
		case SLOT_NUMBER:
			v = read_field(d, s->src, data);
			msc_put_width(dst, s->size, s->boolean ? !!v : v);
			break;
		case SLOT_CONST:
			msc_put_width(dst, s->size, s->value);
			break;
		case SLOT_STRING:
			copy_string(s->src, rec, dst, s->dst->size);
			break;
		case SLOT_CONST_NAME:
			snprintf(dst, s->dst->size, "%s", e->tp->tag);
			break;
		case SLOT_SYMBOL:
			symbol_name(e, read_field(d, s->src, data), dst);
			break;
		}
	}
	if (e->decode)
		e->decode(e, rec, ret_ev);
	return 1;
}

/**
 * msc_decoder_get_stat - count of one event id
 * @d: the decoder
 * @i: an event id, from 0 up until -ENOENT
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
					.count = e->count, .type = e->desc ? e->type : -1 };
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
