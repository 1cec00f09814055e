// SPDX-License-Identifier: GPL-2.0-only
/*
 * The text form of struct msc_event: msc_event_format() and its inverse
 * msc_event_parse().  One table per event type lists the payload fields in
 * the order they are printed, so both directions share one description and
 * cannot drift apart.
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

static const char *const type_names[] = {
#define X(name, str) [MSC_EV_##name] = str,
	MSC_EVENT_TYPES(X)
#undef X
};

static const char *const class_names[] = {
#define X(name, str) [MSC_CLASS_##name] = str,
	MSC_SPTE_CLASSES(X)
#undef X
};

static const char *const fpf_names[] = {
	[MSC_FPF_OTHER] = "other",
	[MSC_FPF_FIXED] = "fixed",
	[MSC_FPF_SPURIOUS] = "spurious",
};

enum field_kind {
	HEX,		/* unsigned, printed 0x... */
	UDEC,		/* unsigned decimal */
	SDEC,		/* signed decimal */
	OSDEC,		/* signed decimal, left out while negative (not in the format) */
	CLASS,		/* enum msc_spte_class by name; omitted while NONE */
	FPF,		/* enum msc_fast_pf_result by name */
	NAME,		/* char[] without spaces */
	TEXT,		/* char[] to the end of the line, escaped; always last */
};

struct field {
	const char *key;
	uint16_t offset;	/* in struct msc_event */
	uint16_t size;
	uint8_t kind;		/* enum field_kind */
	bool optional;		/* may be left out at the end of a line */
};

#define F(member, key, kind)                                                   \
	{ key, offsetof(struct msc_event, member),                             \
	  sizeof(((struct msc_event *)0)->member), kind, false }
#define OPT(member, key, kind)                                                 \
	{ key, offsetof(struct msc_event, member),                             \
	  sizeof(((struct msc_event *)0)->member), kind, true }

static const struct field spte_fields[] = {
	F(spte.as_id, "as", UDEC),	  F(spte.gfn, "gfn", HEX),
	F(spte.level, "level", UDEC),	  F(spte.old_spte, "old", HEX),
	F(spte.new_spte, "new", HEX),	  OPT(spte.class, "class", CLASS),
};
static const struct field split_fields[] = {
	F(split.gfn, "gfn", HEX),	  F(split.spte, "spte", HEX),
	F(split.level, "level", SDEC),	  F(split.err, "errno", SDEC),
};
static const struct field sp_fields[] = {
	F(sp.gfn, "gfn", HEX),		  F(sp.role, "role", HEX),
	F(sp.root_count, "root_count", UDEC), F(sp.unsync, "unsync", UDEC),
	F(sp.created, "created", UDEC),	  F(sp.gen, "gen", UDEC),
};
static const struct field zap_fields[] = {
	F(sp.gfn, "gfn", HEX),		  F(sp.role, "role", HEX),
	F(sp.root_count, "root_count", UDEC), F(sp.unsync, "unsync", UDEC),
	F(sp.gen, "gen", UDEC),
};
static const struct field fast_pf_fields[] = {
	F(fast_pf.vcpu, "vcpu", SDEC),	  F(fast_pf.gpa, "gpa", HEX),
	F(fast_pf.error_code, "error_code", HEX),
	F(fast_pf.old_spte, "old", HEX),  F(fast_pf.new_spte, "new", HEX),
	F(fast_pf.ret, "ret", SDEC),	  F(fast_pf.result, "result", FPF),
};
static const struct field pf_fields[] = {
	F(pf.vcpu, "vcpu", UDEC),	  F(pf.gpa, "gpa", HEX),
	F(pf.error_code, "error_code", HEX), F(pf.rip, "rip", HEX),
};
static const struct field set_spte_fields[] = {
	F(set_spte.gfn, "gfn", HEX),	  F(set_spte.spte, "spte", HEX),
	F(set_spte.sptep, "sptep", HEX),  F(set_spte.level, "level", UDEC),
	F(set_spte.r, "r", UDEC),	  F(set_spte.x, "x", UDEC),
	F(set_spte.u, "u", SDEC),
};
static const struct field req_fields[] = {
	F(req.gfn, "gfn", HEX), F(req.pfn, "pfn", HEX), F(req.level, "level", UDEC),
	OPT(req.access, "access", OSDEC),
};
static const struct field mmio_fields[] = {
	F(mmio.gfn, "gfn", HEX), F(mmio.access, "access", HEX), F(mmio.gen, "gen", HEX),
};
static const struct field zap_all_fields[] = {
	F(zap_all.gen, "gen", UDEC), F(zap_all.used_pages, "used_pages", UDEC),
};
static const struct field hva_fields[] = {
	F(hva.start, "start", HEX), F(hva.end, "end", HEX),
};
static const struct field marker_fields[] = {
	F(marker.text, "text", TEXT),
};
static const struct field kprobe_fields[] = {
	F(kprobe.name, "name", NAME), F(kprobe.ip, "ip", HEX), F(kprobe.args, "args", TEXT),
};
static const struct field lost_fields[] = {
	F(lost.count, "count", UDEC), OPT(lost.source, "source", NAME),
};

static const struct field tlb_flush_fields[] = {
	F(tlb_flush.vm_id, "vm", UDEC),	    F(tlb_flush.vm_pid, "vm_pid", SDEC),
	F(tlb_flush.start_gfn, "gfn", HEX), F(tlb_flush.nr_pages, "pages", UDEC),
	F(tlb_flush.range, "range", UDEC),  F(tlb_flush.all, "all", UDEC),
	F(tlb_flush.arch_flush, "arch", UDEC), F(tlb_flush.kicked, "kicked", UDEC),
	F(tlb_flush.caller, "caller", HEX),
};
static const struct field dirty_log_fields[] = {
	F(dirty_log.end, "end", UDEC),	    F(dirty_log.vm_id, "vm", UDEC),
	F(dirty_log.vm_pid, "vm_pid", SDEC), F(dirty_log.as_id, "as", UDEC),
	F(dirty_log.slot_id, "slot", SDEC), F(dirty_log.base_gfn, "gfn", HEX),
	F(dirty_log.npages, "pages", UDEC), F(dirty_log.old_flags, "old_flags", HEX),
	F(dirty_log.new_flags, "new_flags", HEX), F(dirty_log.change, "change", UDEC),
	F(dirty_log.change_name, "change_name", NAME),
	F(dirty_log.eager_split, "eager_split", UDEC),
	F(dirty_log.initially_set, "initially_set", UDEC), F(dirty_log.pml, "pml", UDEC),
	F(dirty_log.duration_ns, "ns", UDEC),
};
static const struct field split_span_fields[] = {
	F(span.vm_id, "vm", UDEC),	    F(span.vm_pid, "vm_pid", SDEC),
	F(span.as_id, "as", UDEC),	    F(span.slot_id, "slot", SDEC),
	F(span.start_gfn, "gfn", HEX),	    F(span.end_gfn, "end", HEX),
	F(span.target_level, "target_level", UDEC), F(span.reason, "reason", UDEC),
	F(span.reason_name, "reason_name", NAME), F(span.count_1g, "split_1g", UDEC),
	F(span.count_2m, "split_2m", UDEC), F(span.other, "failed", UDEC),
	F(span.duration_ns, "ns", UDEC),
};
static const struct field collapse_span_fields[] = {
	F(span.vm_id, "vm", UDEC),	    F(span.vm_pid, "vm_pid", SDEC),
	F(span.as_id, "as", UDEC),	    F(span.slot_id, "slot", SDEC),
	F(span.start_gfn, "gfn", HEX),	    F(span.end_gfn, "end", HEX),
	F(span.count_1g, "zapped_1g", UDEC), F(span.count_2m, "zapped_2m", UDEC),
	F(span.other, "skipped", UDEC),	    F(span.flushes, "flushes", UDEC),
	F(span.duration_ns, "ns", UDEC),    OPT(span.reason_name, "pass", NAME),
};
static const struct field harvest_fields[] = {
	F(harvest.vm_id, "vm", UDEC),	    F(harvest.vm_pid, "vm_pid", SDEC),
	F(harvest.as_id, "as", UDEC),	    F(harvest.slot_id, "slot", SDEC),
	F(harvest.start_gfn, "gfn", HEX),   F(harvest.npages, "pages", UDEC),
	F(harvest.dirty, "dirty", UDEC),    F(harvest.clear, "clear", UDEC),
	F(harvest.protect, "protect", UDEC), F(harvest.flush, "flush", UDEC),
	F(harvest.duration_ns, "ns", UDEC),
};

static const struct field ioctl_fields[] = {
	F(ioctl.exit, "exit", UDEC),	    F(ioctl.fd, "fd", SDEC),
	F(ioctl.cmd, "cmd", HEX),	    F(ioctl.arg, "arg", HEX),
	F(ioctl.ret, "ret", SDEC),
};

struct layout {
	const struct field *fields;
	size_t nr;
};

#define L(arr) { arr, ARRAY_SIZE(arr) }

static const struct layout layouts[MSC_EV_NR] = {
	[MSC_EV_SPTE_CHANGED] = L(spte_fields),
	[MSC_EV_SPLIT] = L(split_fields),
	[MSC_EV_GET_PAGE] = L(sp_fields),
	[MSC_EV_ZAP_PAGE] = L(zap_fields),
	[MSC_EV_FAST_PF] = L(fast_pf_fields),
	[MSC_EV_PAGE_FAULT] = L(pf_fields),
	[MSC_EV_SET_SPTE] = L(set_spte_fields),
	[MSC_EV_SPTE_REQUESTED] = L(req_fields),
	[MSC_EV_MMIO_SPTE] = L(mmio_fields),
	[MSC_EV_ZAP_ALL_FAST] = L(zap_all_fields),
	[MSC_EV_UNMAP_HVA] = L(hva_fields),
	[MSC_EV_AGE_HVA] = L(hva_fields),
	[MSC_EV_MARKER] = L(marker_fields),
	[MSC_EV_KPROBE] = L(kprobe_fields),
	[MSC_EV_LOST] = L(lost_fields),
	[MSC_EV_TLB_FLUSH] = L(tlb_flush_fields),
	[MSC_EV_DIRTY_LOG] = L(dirty_log_fields),
	[MSC_EV_SPLIT_SPAN] = L(split_span_fields),
	[MSC_EV_COLLAPSE_SPAN] = L(collapse_span_fields),
	[MSC_EV_HARVEST] = L(harvest_fields),
	[MSC_EV_IOCTL] = L(ioctl_fields),
};

/*
 * The KVM ioctls mmuscope reads phases from: _IO/_IOW/_IOWR(KVMIO = 0xae,
 * nr, struct) of include/uapi/linux/kvm.h, whose numbers are ABI.
 */
static const struct {
	uint32_t cmd;
	const char *name;
	bool record;		/* live recording asks for it (KVM_RUN is too frequent) */
} kvm_ioctls[] = {
	{ 0xae01, "KVM_CREATE_VM", true },
	{ 0xae41, "KVM_CREATE_VCPU", false },
	{ 0xae80, "KVM_RUN", false },
	{ 0x4020ae46, "KVM_SET_USER_MEMORY_REGION", true },	/* struct kvm_userspace_memory_region */
	{ 0x40a0ae49, "KVM_SET_USER_MEMORY_REGION2", true },	/* ..._region2, 160 bytes */
	{ 0x4010ae42, "KVM_GET_DIRTY_LOG", true },		/* struct kvm_dirty_log */
	{ 0xc018aec0, "KVM_CLEAR_DIRTY_LOG", true },		/* struct kvm_clear_dirty_log */
	{ 0x4068aea3, "KVM_ENABLE_CAP", false },		/* struct kvm_enable_cap */
};

/**
 * msc_kvm_ioctl_filter - the sys_enter_ioctl filter of the ioctls that bound
 *	dirty-log work: "cmd == 0xae01 || cmd == 0x4020ae46 || ..."
 *
 * Returns what snprintf() returns.
 */
int msc_kvm_ioctl_filter(char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(kvm_ioctls); i++) {
		int n;

		if (!kvm_ioctls[i].record)
			continue;
		n = snprintf(buf + min(len, size), len < size ? size - len : 0, "%scmd == %#x",
			     len ? " || " : "", kvm_ioctls[i].cmd);
		if (n > 0)
			len += (size_t)n;
	}
	return (int)len;
}

/** msc_kvm_ioctl_name - "KVM_GET_DIRTY_LOG", ...; NULL for other requests */
const char *msc_kvm_ioctl_name(uint32_t cmd)
{
	for (size_t i = 0; i < ARRAY_SIZE(kvm_ioctls); i++)
		if (kvm_ioctls[i].cmd == cmd)
			return kvm_ioctls[i].name;
	return NULL;
}

const char *msc_event_type_name(enum msc_event_type type)
{
	return type < MSC_EV_NR ? type_names[type] : "?";
}

static int lookup(const char *const *names, size_t nr, const char *name, size_t len)
{
	for (size_t i = 0; i < nr; i++)
		if (names[i] && strlen(names[i]) == len && !memcmp(names[i], name, len))
			return (int)i;
	return -1;
}

/** msc_event_type_lookup - enum msc_event_type of a text name, or -1 */
int msc_event_type_lookup(const char *name)
{
	return lookup(type_names, ARRAY_SIZE(type_names), name, strlen(name));
}

const char *msc_spte_class_name(enum msc_spte_class class)
{
	return class < MSC_CLASS_NR ? class_names[class] : "?";
}

/** msc_spte_class_lookup - enum msc_spte_class of a text name, or -1 */
int msc_spte_class_lookup(const char *name)
{
	return lookup(class_names, ARRAY_SIZE(class_names), name, strlen(name));
}

const char *msc_fast_pf_result_name(enum msc_fast_pf_result result)
{
	return result < ARRAY_SIZE(fpf_names) ? fpf_names[result] : "?";
}

static bool is_signed(const struct field *f)
{
	return f->kind == SDEC || f->kind == OSDEC;
}

static uint64_t load(const struct msc_event *ev, const struct field *f)
{
	const char *p = (const char *)ev + f->offset;
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	switch (f->size) {
	case 1:
		memcpy(&u8, p, 1);
		return is_signed(f) ? (uint64_t)(int64_t)(int8_t)u8 : u8;
	case 2:
		memcpy(&u16, p, 2);
		return is_signed(f) ? (uint64_t)(int64_t)(int16_t)u16 : u16;
	case 4:
		memcpy(&u32, p, 4);
		return is_signed(f) ? (uint64_t)(int64_t)(int32_t)u32 : u32;
	default:
		memcpy(&u64, p, 8);
		return u64;
	}
}

/* Store @v into the field; fails when it does not fit the field's width. */
static int store(struct msc_event *ev, const struct field *f, uint64_t v)
{
	char *p = (char *)ev + f->offset;
	int64_t s = (int64_t)v;
	unsigned int bits = f->size * 8;

	if (bits < 64) {
		if (is_signed(f)) {
			if (s < -(1LL << (bits - 1)) || s >= (1LL << (bits - 1)))
				return -ERANGE;
		} else if (v >> bits) {
			return -ERANGE;
		}
	}
	switch (f->size) {
	case 1: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); break; }
	case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
	case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
	default: memcpy(p, &v, 8); break;
	}
	return 0;
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
	const struct layout *l;

	if (ev->type >= MSC_EV_NR)
		return -EINVAL;
	if (size)
		buf[0] = '\0';
	l = &layouts[ev->type];
	put(&o, "%" PRIu64 " %u %d %s", ev->ts, ev->cpu, ev->pid, type_names[ev->type]);
	for (size_t i = 0; i < l->nr; i++) {
		const struct field *f = &l->fields[i];
		const char *p = (const char *)ev + f->offset;
		uint64_t v;

		switch (f->kind) {
		case TEXT:
			put(&o, " %s=", f->key);
			put_escaped(&o, p, f->size);
			continue;
		case NAME:	/* "-" stands for an empty name */
			put(&o, " %s=%.*s", f->key, (int)f->size, *p ? p : "-");
			continue;
		default:
			break;
		}
		v = load(ev, f);
		switch (f->kind) {
		case HEX:
			put(&o, " %s=%#" PRIx64, f->key, v);
			break;
		case UDEC:
			put(&o, " %s=%" PRIu64, f->key, v);
			break;
		case SDEC:
			put(&o, " %s=%" PRId64, f->key, (int64_t)v);
			break;
		case OSDEC:
			if ((int64_t)v >= 0)
				put(&o, " %s=%" PRId64, f->key, (int64_t)v);
			break;
		case CLASS:
			if (v != MSC_CLASS_NONE)
				put(&o, " %s=%s", f->key, msc_spte_class_name(v));
			break;
		case FPF:
			put(&o, " %s=%s", f->key, msc_fast_pf_result_name(v));
			break;
		}
	}
	return o.len > INT32_MAX ? -EOVERFLOW : (int)o.len;
}

static int unescape(const char *s, char *dst, size_t size)
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
		if (n + 1 >= size)
			return MSC_ERR_PARSE;
		dst[n++] = c;
	}
	dst[n] = '\0';
	return 0;
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

static int parse_field(const struct field *f, const char *s, const char **end,
		       struct msc_event *ev)
{
	char *dst = (char *)ev + f->offset;
	const char *sp;
	uint64_t v;
	int r;

	switch (f->kind) {
	case TEXT:
		*end = s + strlen(s);
		return unescape(s, dst, f->size);
	case NAME:
		sp = s + strcspn(s, " \n");
		if (sp == s || (size_t)(sp - s) >= f->size)
			return MSC_ERR_PARSE;
		if (sp - s == 1 && *s == '-')
			s = sp;
		memcpy(dst, s, sp - s);
		dst[sp - s] = '\0';
		*end = sp;
		return 0;
	case CLASS:
	case FPF:
		sp = s + strcspn(s, " \n");
		r = lookup(f->kind == CLASS ? class_names : fpf_names,
			   f->kind == CLASS ? ARRAY_SIZE(class_names) : ARRAY_SIZE(fpf_names),
			   s, sp - s);
		if (r < 0)
			return MSC_ERR_PARSE;
		*end = sp;
		return store(ev, f, (uint64_t)r);
	default:
		r = parse_number(s, end, is_signed(f), &v);
		if (r)
			return r;
		return store(ev, f, v) ? MSC_ERR_PARSE : 0;
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
	const struct layout *l;
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
	l = &layouts[type];
	for (size_t i = 0; i < l->nr; i++) {
		const struct field *f = &l->fields[i];
		size_t klen = strlen(f->key);

		if (*s == '\n' || *s == '\0') {
			if (!f->optional)
				return MSC_ERR_PARSE;
			for (; i < l->nr; i++)	/* what is left out is absent */
				if (l->fields[i].kind == OSDEC)
					store(&ev, &l->fields[i], (uint64_t)-1);
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
