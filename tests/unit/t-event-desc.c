// SPDX-License-Identifier: GPL-2.0-only
/*
 * The description of every event type (lib/event-desc.c): what the text
 * form, the store and the decoder rely on holds for each entry, so a new
 * or changed entry that breaks it fails here by name.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/event-desc.h"
#include "test.h"

static const char *type_name(int t)
{
	return msc_event_type_name((enum msc_event_type)t);
}

/*
 * Every field is a member of the type's own payload, and no two overlap (the
 * decoder fills them in any order); keys and columns appear once.
 */
static void t_fields_in_payload(void)
{
	for (int t = 0; t < MSC_EV_NR; t++) {
		const struct msc_event_desc *d = &msc_event_descs[t];

		if (!d->table || !d->nr_fields || d->nr_fields > MSC_EVENT_MAX_FIELDS)
			test_fail(__FILE__, __LINE__, "%s: no table, or %u fields", type_name(t),
				  d->nr_fields);
		for (unsigned int i = 0; i < d->nr_fields; i++) {
			const struct msc_field *f = &d->fields[i];

			if (f->offset < MSC_EVENT_PAYLOAD ||
			    f->offset + f->size > MSC_EVENT_PAYLOAD + d->payload)
				test_fail(__FILE__, __LINE__, "%s.%s lies outside its payload",
					  type_name(t), f->key);
			if (f->kind == MSC_K_TEXT && i + 1 != d->nr_fields)
				test_fail(__FILE__, __LINE__, "%s.%s: text runs to the end of a line, "
					  "so it must be last", type_name(t), f->key);
			for (unsigned int j = 0; j < i; j++) {
				const struct msc_field *g = &d->fields[j];

				if (f->offset < g->offset + g->size && g->offset < f->offset + f->size)
					test_fail(__FILE__, __LINE__, "%s: %s and %s overlap",
						  type_name(t), g->key, f->key);
				if (!strcmp(d->fields[j].key, f->key))
					test_fail(__FILE__, __LINE__, "%s: key %s twice",
						  type_name(t), f->key);
				if (f->column && d->fields[j].column &&
				    !strcmp(d->fields[j].column, f->column))
					test_fail(__FILE__, __LINE__, "%s: column %s twice",
						  type_name(t), f->column);
			}
		}
	}
}

/* Types with several tracepoints tell them apart by a tag the field can hold. */
static void t_tags(void)
{
	for (int t = 0; t < MSC_EV_NR; t++) {
		const struct msc_event_desc *d = &msc_event_descs[t];
		const struct msc_field *tag = msc_event_tag_field(d);

		if (d->nr_tracepoints > 1 && !tag)
			test_fail(__FILE__, __LINE__, "%s: %u tracepoints and no tag field",
				  type_name(t), d->nr_tracepoints);
		for (unsigned int i = 0; tag && i < d->nr_tracepoints; i++) {
			const char *v = d->tracepoints[i].tag;

			if (!v || (tag->kind != MSC_K_NAME &&
				   msc_field_name_index(tag, v, strlen(v)) != (int)i))
				test_fail(__FILE__, __LINE__, "%s: tracepoint %s's tag is not "
					  "value %u of %s", type_name(t), d->tracepoints[i].name, i,
					  tag->key);
		}
		for (unsigned int i = 0; i < d->nr_fields; i++) {
			const char *only = d->fields[i].only;

			if (only && (!tag || msc_field_name_index(tag, only, strlen(only)) < 0))
				test_fail(__FILE__, __LINE__, "%s.%s: only '%s' is no tag",
					  type_name(t), d->fields[i].key, only);
		}
	}
}

/* A tracepoint decodes to one type; a required field is read from the format. */
static void t_tracepoints(void)
{
	for (int t = 0; t < MSC_EV_NR; t++) {
		const struct msc_event_desc *d = &msc_event_descs[t];

		for (unsigned int i = 0; i < d->nr_fields; i++)
			if ((d->fields[i].flags & MSC_F_REQUIRED) && !d->fields[i].tp)
				test_fail(__FILE__, __LINE__, "%s.%s: required but read from no "
					  "field", type_name(t), d->fields[i].key);
		for (unsigned int i = 0; i < d->nr_tracepoints; i++) {
			const struct msc_tracepoint *a = &d->tracepoints[i];

			for (int u = 0; a->system && u <= t; u++) {
				const struct msc_event_desc *e = &msc_event_descs[u];

				for (unsigned int j = 0; j < (u == t ? i : e->nr_tracepoints); j++) {
					const struct msc_tracepoint *b = &e->tracepoints[j];

					if (b->system && !strcmp(a->system, b->system) &&
					    !strcmp(a->name, b->name))
						test_fail(__FILE__, __LINE__, "%s/%s decodes to "
							  "%s and %s", a->system, a->name,
							  type_name(u), type_name(t));
				}
			}
		}
	}
}

/* Values stored by name read back: every name is found at its own index. */
static void t_names(void)
{
	for (int t = 0; t < MSC_EV_NR; t++) {
		const struct msc_event_desc *d = &msc_event_descs[t];

		for (unsigned int i = 0; i < d->nr_fields; i++) {
			const struct msc_field *f = &d->fields[i];

			for (unsigned int k = 0; k < f->nr_names; k++)
				if (msc_field_name_index(f, f->names[k], strlen(f->names[k])) !=
				    (int)k)
					test_fail(__FILE__, __LINE__, "%s.%s: name %s is not %u",
						  type_name(t), f->key, f->names[k], k);
			if (f->names && (1ULL << (8 * f->size)) < f->nr_names)
				test_fail(__FILE__, __LINE__, "%s.%s: too narrow for its names",
					  type_name(t), f->key);
		}
	}
}

/*
 * A STEP field is a plain integer of a type stored as runs: its value, not a
 * name, text or NULL, advances (store-run.c); types sharing a table share
 * its run table; a type with runs derives no columns.
 */
static void t_runs(void)
{
	for (int t = 0; t < MSC_EV_NR; t++) {
		const struct msc_event_desc *d = &msc_event_descs[t];

		for (unsigned int i = 0; i < d->nr_fields; i++) {
			const struct msc_field *f = &d->fields[i];

			if (!(f->flags & MSC_F_STEP))
				continue;
			if (!d->runs || f->names || f->only || !f->column ||
			    (f->kind != MSC_K_HEX && f->kind != MSC_K_UDEC && f->kind != MSC_K_SDEC))
				test_fail(__FILE__, __LINE__, "%s.%s: a STEP field must be a plain "
					  "integer column of a type with runs", type_name(t), f->key);
		}
		if (d->runs && d->derive)
			test_fail(__FILE__, __LINE__, "%s: runs with derived columns", type_name(t));
		for (int u = 0; u < t; u++) {
			const struct msc_event_desc *e = &msc_event_descs[u];

			if (!strcmp(e->table, d->table) &&
			    (!e->runs != !d->runs || (d->runs && strcmp(e->runs, d->runs))))
				test_fail(__FILE__, __LINE__, "%s and %s share table %s, not its runs",
					  type_name(u), type_name(t), d->table);
		}
	}
}

/* An event of type @t whose every byte says where it is (the type aside). */
static void fill_event(struct msc_event *ev, int t)
{
	for (size_t i = 0; i < sizeof(*ev); i++)
		((unsigned char *)ev)[i] = (unsigned char)(i * 7 + (size_t)t);
	ev->type = (uint8_t)t;
}

/*
 * One event of each type packed after another unpacks to the same header
 * and payload; packing writes nothing past the event's size.
 */
static void t_pack_roundtrip(void)
{
	char *buf = malloc(MSC_EV_NR * sizeof(struct msc_event) + 1);
	size_t len = 0, pos = 0;
	struct msc_event ev, out;

	if (!check(buf))
		return;
	for (int t = 0; t < MSC_EV_NR; t++) {
		size_t n;

		fill_event(&ev, t);
		memset(buf + len, 0xa5, sizeof(ev));
		n = msc_event_pack(buf + len, &ev);
		check_uint(n, ==, MSC_EVENT_PAYLOAD + msc_event_descs[t].payload);
		check_uint(n, <=, sizeof(ev));
		if (n < sizeof(ev))
			check_uint((unsigned char)buf[len + n], ==, 0xa5);
		len += n;
	}
	for (int t = 0; t < MSC_EV_NR; t++) {
		int r = msc_event_unpack(buf + pos, len - pos, &out);

		fill_event(&ev, t);
		if (!check_int(r, ==, (int)msc_event_size(&ev)))
			break;
		check_int(out.type, ==, t);
		check(!memcmp(&out, &ev, (size_t)r));
		pos += (size_t)r;
	}
	check_uint(pos, ==, len);
	free(buf);
}

/*
 * What a process not trusted with our memory may send: an event cut short
 * anywhere is refused (each cut from a buffer of exactly its length, so a
 * read past it shows under valgrind and ASan), as is an unknown type.
 */
static void t_unpack_distrust(void)
{
	struct msc_event ev, out;
	size_t size;
	char *cut;

	fill_event(&ev, MSC_EV_SPTE_CHANGED);
	size = msc_event_size(&ev);
	for (size_t len = 0; len < size; len++) {
		cut = malloc(len ? len : 1);
		if (!check(cut))
			return;
		memcpy(cut, &ev, len);
		if (!check_int(msc_event_unpack(cut, len, &out), ==, -EMSGSIZE))
			test_fail(__FILE__, __LINE__, "cut at %zu of %zu bytes", len, size);
		free(cut);
	}
	for (int t = MSC_EV_NR; t < 256; t++) {
		ev.type = (uint8_t)t;
		out.type = 0;
		check_int(msc_event_unpack(&ev, sizeof(ev), &out), ==, -EBADMSG);
		check_int(out.type, ==, t);
	}
}

int main(void)
{
	TEST(t_fields_in_payload(), "every field is a member of its type's payload, named once");
	TEST(t_tags(), "several tracepoints of a type are told apart by its tag field");
	TEST(t_tracepoints(), "each tracepoint decodes to one type; required fields are read");
	TEST(t_names(), "values stored by name read back as the same value");
	TEST(t_runs(), "STEP fields are plain integers of types with runs, one run table per table");
	TEST(t_pack_roundtrip(), "events packed one after another unpack the same, nothing past them written");
	TEST(t_unpack_distrust(), "an event cut short or of no type is refused, nothing read past it");
	return test_done();
}
