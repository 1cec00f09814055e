// SPDX-License-Identifier: GPL-2.0-only
/*
 * The text form of struct msc_event: msc_event_format() and its inverse
 * msc_event_parse().  Both walk the fields of the type's description
 * (event-desc.c) in the order they are printed, so they cannot drift apart.
 */
#include "mmuscope/event.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmuscope/error.h"
#include "mmuscope/util.h"
#include "event-desc.h"

static const char *const type_names[] = {
#define X(name, str) [MSC_EV_##name] = str,
	MSC_EVENT_TYPES(X)
#undef X
};

static const char *const fpf_names[] = {
	[MSC_FPF_OTHER] = "other",
	[MSC_FPF_FIXED] = "fixed",
	[MSC_FPF_SPURIOUS] = "spurious",
};

const char *msc_event_type_name(enum msc_event_type type)
{
	return type < MSC_EV_NR ? type_names[type] : "?";
}

/** msc_event_type_lookup - enum msc_event_type of a text name, or -1 */
int msc_event_type_lookup(const char *name)
{
	return msc_name_lookup(type_names, ARRAY_SIZE(type_names), name, strlen(name));
}

const char *msc_spte_class_name(enum msc_spte_class class)
{
	return class < MSC_CLASS_NR ? msc_class_names[class] : "?";
}

/** msc_spte_class_lookup - enum msc_spte_class of a text name, or -1 */
int msc_spte_class_lookup(const char *name)
{
	return msc_name_lookup(msc_class_names, MSC_CLASS_NR, name, strlen(name));
}

const char *msc_fast_pf_result_name(enum msc_fast_pf_result result)
{
	return result < ARRAY_SIZE(fpf_names) ? fpf_names[result] : "?";
}

struct out {
	char *buf;
	size_t size;
	size_t len;	/* what would have been written, as snprintf counts */
};

static void __printf(2, 3) put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	size_t room = o->len < o->size ? o->size - o->len : 0;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->buf + min(o->len, o->size), room, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
}

static void put_escaped(struct out *o, const char *s, size_t max)
{
	for (size_t i = 0; i < max && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\\')
			put(o, "\\\\");
		else if (c == '\n')
			put(o, "\\n");
		else if (c < 0x20 || c == 0x7f)
			put(o, "\\x%02x", c);
		else
			put(o, "%c", c);
	}
}

/**
 * msc_text_escape - @s as a terminal may show it: backslash, newline,
 *	other control characters and DEL escaped as in the text form
 * @s: text from a capture or a database (hostile: it may hold anything)
 * @buf: output, always NUL-terminated when @size > 0
 * @size: its size; 4 * strlen(@s) + 1 always suffices
 *
 * Returns @buf.
 */
char *msc_text_escape(const char *s, char *buf, size_t size)
{
	struct out o = { .buf = buf, .size = size };

	if (size)
		buf[0] = '\0';
	put_escaped(&o, s, SIZE_MAX);
	return buf;
}

/**
 * msc_event_format - write the one-line text form of an event
 * @ev: the event
 * @buf: output, always NUL-terminated when @size > 0
 * @size: size of @buf; MSC_EVENT_LINE_MAX always suffices
 *
 * Returns the length of the line (without NUL) as snprintf() does, or
 * -EINVAL for an event type outside enum msc_event_type.
 */
int msc_event_format(const struct msc_event *ev, char *buf, size_t size)
{
	struct out o = { .buf = buf, .size = size };
	const struct msc_event_desc *l;

	if (ev->type >= MSC_EV_NR)
		return -EINVAL;
	if (size)
		buf[0] = '\0';
	l = &msc_event_descs[ev->type];
	put(&o, "%" PRIu64 " %u %d %s", ev->ts, ev->cpu, ev->pid, type_names[ev->type]);
	for (size_t i = 0; i < l->nr_fields; i++) {
		const struct msc_field *f = &l->fields[i];
		const char *p = (const char *)ev + f->offset;
		uint64_t v;

		switch (f->kind) {
		case MSC_K_TEXT:
			put(&o, " %s=", f->key);
			put_escaped(&o, p, f->size);
			continue;
		case MSC_K_NAME:	/* "-" stands for an empty name */
			put(&o, " %s=%.*s", f->key, (int)f->size, *p ? p : "-");
			continue;
		default:
			break;
		}
		v = msc_field_get(ev, f);
		switch (f->kind) {
		case MSC_K_HEX:
			put(&o, " %s=%#" PRIx64, f->key, v);
			break;
		case MSC_K_UDEC:
			put(&o, " %s=%" PRIu64, f->key, v);
			break;
		case MSC_K_SDEC:
			put(&o, " %s=%" PRId64, f->key, (int64_t)v);
			break;
		case MSC_K_OSDEC:
			if ((int64_t)v >= 0)
				put(&o, " %s=%" PRId64, f->key, (int64_t)v);
			break;
		case MSC_K_CLASS:
			if (v != MSC_CLASS_NONE)
				put(&o, " %s=%s", f->key, msc_spte_class_name(v));
			break;
		case MSC_K_FPF:
			put(&o, " %s=%s", f->key, msc_fast_pf_result_name(v));
			break;
		}
	}
	return o.len > INT32_MAX ? -EOVERFLOW : (int)o.len;
}

/**
 * msc_text_unescape - @s, up to its newline, as msc_text_escape() wrote it
 * @s: the escaped text
 * @dst: output, NUL-terminated, cut to @size - 1 bytes
 * @size: its size, > 0
 *
 * Returns the length of the whole unescaped text (as snprintf() does: @dst
 * was cut when it is @size or more) or MSC_ERR_PARSE for a bad escape.
 */
int msc_text_unescape(const char *s, char *dst, size_t size)
{
	size_t n = 0;

	while (*s && *s != '\n') {
		char c = *s++;

		if (c == '\\') {
			if (*s == '\\') {
				c = '\\';
				s++;
			} else if (*s == 'n') {
				c = '\n';
				s++;
			} else if (*s == 'x' && s[1] && s[2]) {
				char hex[3] = { s[1], s[2], 0 };
				char *end;

				c = (char)strtoul(hex, &end, 16);
				if (*end)
					return MSC_ERR_PARSE;
				s += 3;
			} else {
				return MSC_ERR_PARSE;
			}
		}
		if (n + 1 < size)
			dst[n] = c;
		n++;
	}
	dst[min(n, size - 1)] = '\0';
	return n > INT32_MAX ? MSC_ERR_PARSE : (int)n;
}

static int parse_number(const char *s, const char **end, bool sign, uint64_t *ret)
{
	char *e;

	if (*s == ' ' || *s == '\0' || *s == '+')
		return MSC_ERR_PARSE;
	errno = 0;
	if (sign)
		*ret = (uint64_t)strtoll(s, &e, 0);
	else if (*s == '-')
		return MSC_ERR_PARSE;
	else
		*ret = strtoull(s, &e, 0);
	if (errno || e == s)
		return MSC_ERR_PARSE;
	*end = e;
	return 0;
}

static int parse_field(const struct msc_field *f, const char *s, const char **end,
		       struct msc_event *ev)
{
	char *dst = (char *)ev + f->offset;
	const char *sp;
	uint64_t v;
	int r;

	switch (f->kind) {
	case MSC_K_TEXT:
		*end = s + strlen(s);
		r = msc_text_unescape(s, dst, f->size);
		return r < 0 || (size_t)r >= f->size ? MSC_ERR_PARSE : 0;
	case MSC_K_NAME:
		sp = s + strcspn(s, " \n");
		if (sp == s || (size_t)(sp - s) >= f->size)
			return MSC_ERR_PARSE;
		if (sp - s == 1 && *s == '-')
			s = sp;
		memcpy(dst, s, sp - s);
		dst[sp - s] = '\0';
		*end = sp;
		return 0;
	case MSC_K_CLASS:
	case MSC_K_FPF:
		sp = s + strcspn(s, " \n");
		r = msc_name_lookup(f->kind == MSC_K_CLASS ? msc_class_names : fpf_names,
			   f->kind == MSC_K_CLASS ? MSC_CLASS_NR : ARRAY_SIZE(fpf_names),
			   s, sp - s);
		if (r < 0)
			return MSC_ERR_PARSE;
		*end = sp;
		msc_field_set(ev, f, (uint64_t)r);
		return 0;
	default:
		r = parse_number(s, end, msc_field_signed(f), &v);
		if (r)
			return r;
		/* a value stored by name must have one (end=, clear=, exit=: 0 or 1) */
		if (!msc_field_fits(f, v) || (f->names && v >= f->nr_names))
			return MSC_ERR_PARSE;
		msc_field_set(ev, f, v);
		return 0;
	}
}

/**
 * msc_event_parse - parse one line written by msc_event_format()
 * @line: the line; a trailing newline is allowed
 * @ret_ev: the event, written only on success; seq is set to 0
 *
 * Fields must appear in the order msc_event_format() writes them; the
 * optional ones (class of spte_changed, source of lost) may be left out.
 *
 * Returns 0 or MSC_ERR_PARSE.
 */
int msc_event_parse(const char *line, struct msc_event *ret_ev)
{
	struct msc_event ev = { 0 };
	const struct msc_event_desc *l;
	const char *s = line, *end;
	char name[32];
	uint64_t v;
	int type, n, r;

	if (parse_number(s, &end, false, &v) || *end != ' ')
		return MSC_ERR_PARSE;
	ev.ts = v;
	s = end + 1;
	if (parse_number(s, &end, false, &v) || *end != ' ' || v > UINT16_MAX)
		return MSC_ERR_PARSE;
	ev.cpu = (uint16_t)v;
	s = end + 1;
	if (parse_number(s, &end, true, &v) || *end != ' ' ||
	    (int64_t)v < INT32_MIN || (int64_t)v > INT32_MAX)
		return MSC_ERR_PARSE;
	ev.pid = (int32_t)v;
	s = end + 1;
	if (sscanf(s, "%31[a-z_]%n", name, &n) != 1)
		return MSC_ERR_PARSE;
	type = msc_event_type_lookup(name);
	if (type < 0)
		return MSC_ERR_PARSE;
	ev.type = (uint8_t)type;
	s += n;
	l = &msc_event_descs[type];
	for (size_t i = 0; i < l->nr_fields; i++) {
		const struct msc_field *f = &l->fields[i];
		size_t klen = strlen(f->key);

		if (*s == '\n' || *s == '\0') {
			if (!(f->flags & MSC_F_OPTIONAL))
				return MSC_ERR_PARSE;
			for (; i < l->nr_fields; i++)	/* what is left out is absent */
				if (l->fields[i].kind == MSC_K_OSDEC)
					msc_field_set(&ev, &l->fields[i], (uint64_t)-1);
			break;
		}
		if (*s != ' ' || strncmp(s + 1, f->key, klen) || s[1 + klen] != '=')
			return MSC_ERR_PARSE;
		r = parse_field(f, s + 2 + klen, &end, &ev);
		if (r)
			return r;
		s = end;
	}
	if (*s == '\n')
		s++;
	if (*s)
		return MSC_ERR_PARSE;
	*ret_ev = ev;
	return 0;
}

/**
 * msc_event_gfns - the guest frames an event is about, read from its fields
 *	by name: "gfn" (with "level": the frames the entry maps), or "gpa"
 * @first, @last: the range, inclusive
 *
 * Returns false for an event that names no frame.
 */
bool msc_event_gfns(const struct msc_event *ev, uint64_t *first, uint64_t *last)
{
	const struct msc_event_desc *d;
	const struct msc_field *gfn = NULL, *gpa = NULL, *level = NULL;

	if (ev->type >= MSC_EV_NR)
		return false;
	d = &msc_event_descs[ev->type];
	for (unsigned int i = 0; i < d->nr_fields; i++) {
		const struct msc_field *f = &d->fields[i];

		if (!strcmp(f->key, "gfn"))
			gfn = f;
		else if (!strcmp(f->key, "gpa"))
			gpa = f;
		else if (!strcmp(f->key, "level"))
			level = f;
	}
	if (gfn) {
		uint64_t l = level ? msc_field_get(ev, level) : 1;

		*first = msc_field_get(ev, gfn);
		*last = *first + (l >= 1 && l <= 5 ? msc_level_pages((unsigned int)l) : 1) - 1;
		return true;
	}
	if (gpa) {
		*first = *last = msc_field_get(ev, gpa) >> 12;
		return true;
	}
	return false;
}
