/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Private to lib/: the one description of each event type (event-desc.c).
 *
 * A type's fields are listed once, in the order of its text form, and each
 * names everything that reads or writes it: the member of struct
 * msc_event, the key of the text form (event.c), the SQL column (store.c,
 * store-read.c) and the tracepoint field it is decoded from (decode.c).
 * Nothing refers to a field by position; SQL statements name their
 * columns.  Adding an event is one entry here plus its schema step.
 *
 * Invariant: every member of a type's payload that a reader can see is a
 * field of its description (so text, database and decoder agree on it),
 * except what derive() computes for the database only.
 */
#ifndef MSC_EVENT_DESC_H
#define MSC_EVENT_DESC_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mmuscope/event.h"
#include "mmuscope/spte.h"

/* How a field reads as text; the database form follows from it. */
enum msc_field_kind {
	MSC_K_HEX,		/* unsigned, 0x...; INTEGER */
	MSC_K_UDEC,		/* unsigned decimal; INTEGER (or a name, see names) */
	MSC_K_SDEC,		/* signed decimal; INTEGER */
	MSC_K_OSDEC,		/* signed, absent while negative: left out of the text,
				 * NULL in the database, -1 when the format lacks it */
	MSC_K_CLASS,		/* enum msc_spte_class by name; the text omits NONE */
	MSC_K_FPF,		/* enum msc_fast_pf_result by name (text) */
	MSC_K_NAME,		/* char[] without spaces; "-" in the text when empty */
	MSC_K_TEXT,		/* char[] to the end of the line, escaped; always last */
};

enum msc_field_flags {
	MSC_F_REQUIRED = 1 << 0,	/* a format without it is counted, not stored */
	MSC_F_NEWER = 1 << 1,		/* only newer kernels have it: absent silently */
	MSC_F_OPTIONAL = 1 << 2,	/* may be left out at the end of a text line */
	MSC_F_BOOL = 1 << 3,		/* decoded as 0 or 1 */
	MSC_F_TAG = 1 << 4,		/* set from the tracepoint's tag, not from a field */
	MSC_F_SYMBOL = 1 << 5,		/* a NAME: the print fmt's name of field tp's value */
	MSC_F_NEG_ABSENT = 1 << 6,	/* absent (format, database NULL): -1, not 0 */
	MSC_F_NONE_EMPTY = 1 << 7,	/* a stored none reads back as empty */
	MSC_F_STEP = 1 << 8,		/* runs: may advance by a constant step (store-run.c);
					 * every other field of a run is equal */
};

/* A type has at most this many fields (tests/unit/t-event-desc.c checks). */
#define MSC_EVENT_MAX_FIELDS 16

struct msc_field {
	const char *key;	/* text form: key=value */
	const char *column;	/* SQL column (an identifier, quoted where a keyword) */
	const char *tp;		/* tracepoint field, "a|b": the first the format has;
				 * NULL: not decoded from a field */
	uint16_t offset;	/* member of struct msc_event */
	uint16_t size;
	uint8_t kind;		/* enum msc_field_kind */
	uint16_t flags;		/* enum msc_field_flags */
	const char *const *names;	/* database: value i is stored as names[i]
					 * (NULL-terminated; an unknown name reads as 0) */
	uint8_t nr_names;
	const char *none;	/* database: an empty NAME is stored as this (else NULL) */
	const char *only;	/* carried only by the tracepoint with this tag: for
				 * the others absent, and NULL in the database */
};

struct msc_tracepoint {
	const char *system;	/* NULL: any event with the type's first field (kprobes) */
	const char *name;
	const char *tag;	/* the value of the type's TAG field, as its text or name */
	const char *ignored;	/* a field known and deliberately not stored */
};

/* What derive() computes for the database from an event and its host. */
#define MSC_DERIVED_MAX 12

struct msc_derived {
	int64_t v[MSC_DERIVED_MAX];
	const char *text[MSC_DERIVED_MAX];	/* non-NULL: the column is this text */
	bool null[MSC_DERIVED_MAX];
	char buf[16];				/* room for one text */
};

struct msc_event_desc {
	const char *table;	/* the SQL table of its rows */
	const char *is_column;	/* a table several types share: the column whose */
	const char *is_value;	/* value is_value says a row is of this type; NULL:
				 * rows no other type claims */
	bool no_pid;		/* the table has no pid column (lost marks) */
	const char *runs;	/* stored as exact runs in this table (schema 9), viewed
				 * as table; NULL: a row per event */
	uint16_t payload;	/* bytes of its member of the union */
	const struct msc_tracepoint *tracepoints;
	uint8_t nr_tracepoints;
	const struct msc_field *fields;
	uint8_t nr_fields;
	const char *const *derived;	/* columns derive() fills, NULL-terminated */
	void (*derive)(const struct msc_event *ev, const struct msc_spte_layout *l,
		       struct msc_derived *ret);
};

extern const struct msc_event_desc msc_event_descs[MSC_EV_NR];

extern const char *const msc_class_names[MSC_CLASS_NR + 1];	/* NULL-terminated */

/* The name value @v is stored as, or NULL. */
static inline const char *msc_field_name(const struct msc_field *f, uint64_t v)
{
	return v < f->nr_names ? f->names[v] : NULL;
}

/* The payload of every type starts here in struct msc_event. */
#define MSC_EVENT_PAYLOAD offsetof(struct msc_event, spte)

/*
 * The bytes of @ev a reader may look at: its header and its type's payload
 * (@ev->type < MSC_EV_NR).  The rest of the struct is undefined wherever
 * events are copied by this size (a source, the tap thread's ring).
 */
static inline size_t msc_event_size(const struct msc_event *ev)
{
	return MSC_EVENT_PAYLOAD + msc_event_descs[ev->type].payload;
}

/*
 * Events travel packed (source-isolated.c): each as its msc_event_size()
 * bytes, one after another, in the layout of struct msc_event, so that the
 * type is at the same offset in every one.
 */
_Static_assert(sizeof(((struct msc_event *)0)->type) == 1, "the packed type is one byte");

/* Append @ev at @buf (room for sizeof(struct msc_event)); returns the bytes written. */
static inline size_t msc_event_pack(void *buf, const struct msc_event *ev)
{
	size_t size = msc_event_size(ev);

	memcpy(buf, ev, size);
	return size;
}

/*
 * The first event of the @len packed bytes at @buf, which may come from a
 * process not trusted with our memory: nothing is read outside [@buf,
 * @buf + @len), nor past the descriptions.  Returns its packed size (> 0);
 * -EBADMSG when its type is none (@ret_ev->type says which), -EMSGSIZE when
 * it runs past @len.  Of @ret_ev, msc_event_size() bytes are written on
 * success; on an error its type at most.
 */
static inline int msc_event_unpack(const void *buf, size_t len, struct msc_event *ret_ev)
{
	size_t size;

	if (len < MSC_EVENT_PAYLOAD)
		return -EMSGSIZE;
	memcpy(&ret_ev->type, (const char *)buf + offsetof(struct msc_event, type), 1);
	if (ret_ev->type >= MSC_EV_NR)
		return -EBADMSG;
	size = msc_event_size(ret_ev);
	if (size > len)
		return -EMSGSIZE;
	memcpy(ret_ev, buf, size);
	return (int)size;
}

static inline bool msc_field_signed(const struct msc_field *f)
{
	return f->kind == MSC_K_SDEC || f->kind == MSC_K_OSDEC;
}

/* The field's value, sign-extended for a signed kind. */
static inline uint64_t msc_field_get(const struct msc_event *ev, const struct msc_field *f)
{
	const char *p = (const char *)ev + f->offset;
	bool sign = msc_field_signed(f);
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	switch (f->size) {
	case 1:
		memcpy(&u8, p, 1);
		return sign ? (uint64_t)(int64_t)(int8_t)u8 : u8;
	case 2:
		memcpy(&u16, p, 2);
		return sign ? (uint64_t)(int64_t)(int16_t)u16 : u16;
	case 4:
		memcpy(&u32, p, 4);
		return sign ? (uint64_t)(int64_t)(int32_t)u32 : u32;
	default:
		memcpy(&u64, p, 8);
		return u64;
	}
}

/* Store @v into the @size bytes at @p, cut to their width. */
static inline void msc_put_width(void *p, unsigned int size, uint64_t v)
{
	uint8_t u8 = (uint8_t)v;
	uint16_t u16 = (uint16_t)v;
	uint32_t u32 = (uint32_t)v;

	switch (size) {
	case 1:
		memcpy(p, &u8, 1);
		break;
	case 2:
		memcpy(p, &u16, 2);
		break;
	case 4:
		memcpy(p, &u32, 4);
		break;
	default:
		memcpy(p, &v, 8);
		break;
	}
}

/* Store @v into a numeric field, cut to its width. */
static inline void msc_field_set(struct msc_event *ev, const struct msc_field *f, uint64_t v)
{
	msc_put_width((char *)ev + f->offset, f->size, v);
}

bool msc_field_fits(const struct msc_field *f, uint64_t v);
uint64_t msc_field_absent(const struct msc_field *f);
int msc_name_lookup(const char *const *names, size_t nr, const char *name, size_t len);
int msc_field_name_index(const struct msc_field *f, const char *name, size_t len);
const struct msc_field *msc_event_tag_field(const struct msc_event_desc *d);
bool msc_field_carried(const struct msc_event_desc *d, const struct msc_field *f,
		       const struct msc_event *ev);

#endif /* MSC_EVENT_DESC_H */
