// SPDX-License-Identifier: GPL-2.0-only
/*
 * plugin-kvmmmu: a libtraceevent print plugin for trace-cmd report and
 * KernelShark.
 *
 * It prints the SPTE-carrying kvmmmu events (kvm_tdp_mmu_spte_changed,
 * kvm_mmu_split_huge_page, fast_page_fault) with each SPTE decoded by
 * mmuscope's own lib/spte.c: page size, non-present/table/leaf, W/D/A, pfn,
 * and the change class of docs/kvm-mmu.md ("Classifying a change").  It also prints the events
 * the kernel/ patch series adds (kvm_flush_remote_tlbs, kvm_mmu_slot_dirty_logging_*,
 * kvm_mmu_split_huge_pages, kvm_mmu_zap_collapsible_sptes or on 7.x
 * kvm_mmu_recover_huge_pages, kvm_dirty_log_harvest)
 * from their fields, so their output does not depend on how a tool renders the
 * print fmt.
 *
 * What an SPTE bit means depends on the host (EPT or NPT, kernel era).  A
 * trace does not say, so the layout is inferred as lib/host.c does for
 * `mmuscope import`: from the SPTE values seen so far (EPT-only and NPT-only
 * bits, the value installs replace), FROZEN_SPTE from the children of the
 * tables kvm_mmu_prepare_zap_page removes, and the page role's access width
 * (3 bits, 4 since MBEC in 7.x) from new direct page tables.  Until an event
 * shows the width, a role's access bits print as "access? N".  The options
 * "kvmmmu:vendor=npt|ept" and "kvmmmu:nonpresent=0|bit63" override it
 * (trace-cmd report -O ...).
 *
 * The page-table events (kvm_mmu_get_page, kvm_mmu_prepare_zap_page and the
 * shadow MMU's sync/unsync) are printed here too, with the role decoded for
 * the capture's width: libtraceevent's own plugin_kvm assumes 3 bits, which
 * reads every 7.x table as "invalid".
 *
 * mmuscope's importer disables plugins, so nothing here changes what mmuscope
 * stores.  Fields are read by name; signed fields are sign-extended by hand
 * (libtraceevent returns them zero-extended).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "mmuscope/event.h"
#include "mmuscope/host.h"
#include "mmuscope/spte.h"

#define SPTE_TEXT_MAX 96

/* Per tep handle: what is known about the host, and the layout it gives. */
struct kvmmmu_state {
	struct kvmmmu_state *next;	/* list of loaded tep handles */
	struct tep_handle *tep;
	struct msc_host host;		/* overrides applied, inference so far */
	struct msc_host_guess guess;	/* evidence from SPTE values */
	struct msc_classifier cls;	/* its layout: from @host, frozen as teardowns show */
	bool settled;			/* msc_host_guess_settled() was true */
};

/* Handlers find their state through this list (a plugin has no private data). */
static struct kvmmmu_state *states;

/* trace-cmd report -O kvmmmu:vendor=ept; an empty value means "infer". */
struct tep_plugin_option TEP_PLUGIN_OPTIONS[] = {
	{
		.name = "vendor",
		.plugin_alias = "kvmmmu",
		.description = "SPTE layout: npt or ept (default: inferred from the values)",
		.value = "",
	},
	{
		.name = "nonpresent",
		.plugin_alias = "kvmmmu",
		.description = "non-present SPTE value: 0 or bit63 (default: inferred)",
		.value = "",
	},
	{ .name = NULL },
};

const char *TEP_PLUGIN_ALIAS = "kvmmmu";

static struct kvmmmu_state *state_of(struct tep_handle *tep)
{
	struct kvmmmu_state *st;

	for (st = states; st; st = st->next)
		if (st->tep == tep)
			return st;
	return NULL;
}

/* Apply the options on top of what was inferred, then recompute the masks. */
static void state_update(struct kvmmmu_state *st)
{
	char note[128];
	const char *v;

	msc_host_guess_apply(&st->guess, &st->host, note, sizeof(note));
	v = TEP_PLUGIN_OPTIONS[0].value;
	if (v && *v)
		msc_host_set(&st->host, "vendor", v);
	v = TEP_PLUGIN_OPTIONS[1].value;
	if (v && *v)
		msc_host_set(&st->host, "nonpresent", !strcmp(v, "bit63") ? "0x8000000000000000" : "0");
	msc_classifier_set_host(&st->cls, &st->host);
}

/*
 * Take the values of one event as evidence until the layout is settled,
 * and new page tables until one shows the role's access width.
 */
static void state_learn(struct kvmmmu_state *st, const struct msc_event *ev)
{
	if (st->settled && (ev->type != MSC_EV_GET_PAGE || st->host.role_access.from))
		return;
	msc_host_guess_add(&st->guess, ev);
	st->settled = msc_host_guess_settled(&st->guess, &st->host);
	state_update(st);
}

static int field(struct trace_seq *s, struct tep_event *event, struct tep_record *record,
		 const char *name, unsigned long long *val)
{
	return tep_get_field_val(s, event, name, record, val, 1);
}

/* A signed field, sign-extended from its size. */
static long long sfield_value(struct tep_event *event, const char *name,
			      unsigned long long val)
{
	struct tep_format_field *f = tep_find_field(event, name);

	if (f && f->size > 0 && f->size < 8 && (val & (1ULL << (f->size * 8 - 1))))
		val |= ~0ULL << (f->size * 8);
	return (long long)val;
}

static void print_spte(struct trace_seq *s, const struct kvmmmu_state *st, unsigned int level,
		       uint64_t spte)
{
	char text[SPTE_TEXT_MAX];

	msc_spte_describe(&st->cls.layout, level, spte, text, sizeof(text));
	trace_seq_printf(s, "%#llx (%s)", (unsigned long long)spte, text);
}

static int spte_changed_handler(struct trace_seq *s, struct tep_record *record,
				struct tep_event *event, void *context)
{
	struct kvmmmu_state *st = state_of(event->tep);
	unsigned long long gfn, old_spte, new_spte, level, as_id;
	struct msc_event ev = { .type = MSC_EV_SPTE_CHANGED, .cpu = (uint16_t)record->cpu };
	enum msc_spte_class class;

	if (!st || field(s, event, record, "gfn", &gfn) || field(s, event, record, "old_spte", &old_spte) ||
	    field(s, event, record, "new_spte", &new_spte) || field(s, event, record, "level", &level) ||
	    field(s, event, record, "as_id", &as_id))
		return -1;
	ev.spte = (struct msc_ev_spte){ .gfn = gfn, .old_spte = old_spte, .new_spte = new_spte,
					.level = (uint8_t)level, .as_id = (uint8_t)as_id };
	state_learn(st, &ev);
	/*
	 * trace-cmd report reads each record once, in order, so the teardown
	 * context holds; a viewer that jumps around (KernelShark) may print a
	 * child without its prepare_zap_page: since 6.10 only teardown children
	 * receive the frozen value, so that value alone still tells.
	 */
	msc_classifier_apply(&st->cls, &ev);
	class = ev.spte.class;
	if (class == MSC_CLASS_UNMAP && new_spte == st->cls.layout.frozen && st->cls.layout.nonpresent)
		class = MSC_CLASS_TEARDOWN_CHILD;

	trace_seq_printf(s, "as %llu gfn %#llx %s ", as_id, gfn, msc_level_size_name(level));
	print_spte(s, st, level, old_spte);
	trace_seq_puts(s, " -> ");
	print_spte(s, st, level, new_spte);
	trace_seq_printf(s, " class %s", msc_spte_class_name(class));
	return 0;
}

static int split_huge_page_handler(struct trace_seq *s, struct tep_record *record,
				   struct tep_event *event, void *context)
{
	struct kvmmmu_state *st = state_of(event->tep);
	unsigned long long gfn, spte, level, err;
	struct msc_event ev = { .type = MSC_EV_SPLIT };
	long long lvl;

	if (!st || field(s, event, record, "gfn", &gfn) || field(s, event, record, "spte", &spte) ||
	    field(s, event, record, "level", &level) || field(s, event, record, "errno", &err))
		return -1;
	ev.split.spte = spte;
	state_learn(st, &ev);
	lvl = sfield_value(event, "level", level);

	trace_seq_printf(s, "gfn %#llx %s ", gfn, msc_level_size_name(lvl));
	print_spte(s, st, lvl, spte);
	if (lvl > 1)
		trace_seq_printf(s, " -> 512 x %s", msc_level_size_name(lvl - 1));
	trace_seq_printf(s, " errno %lld", sfield_value(event, "errno", err));
	return 0;
}

static int fast_page_fault_handler(struct trace_seq *s, struct tep_record *record,
				   struct tep_event *event, void *context)
{
	struct kvmmmu_state *st = state_of(event->tep);
	unsigned long long vcpu, gpa, error_code, old_spte, new_spte, ret;
	struct msc_event ev = { .type = MSC_EV_FAST_PF };
	enum msc_spte_class class;

	if (!st || field(s, event, record, "vcpu_id", &vcpu) ||
	    field(s, event, record, "cr2_or_gpa", &gpa) ||
	    field(s, event, record, "error_code", &error_code) ||
	    field(s, event, record, "old_spte", &old_spte) ||
	    field(s, event, record, "new_spte", &new_spte) || field(s, event, record, "ret", &ret))
		return -1;
	ev.fast_pf.old_spte = old_spte;
	ev.fast_pf.new_spte = new_spte;
	state_learn(st, &ev);
	/* the level is not traced; a 4K leaf is what the fast path fixes */
	class = msc_spte_classify(&st->cls.layout, 1, old_spte, new_spte, false);

	trace_seq_printf(s, "vcpu %lld gpa %#llx error_code %#llx ",
			 sfield_value(event, "vcpu_id", vcpu), gpa, error_code);
	print_spte(s, st, 1, old_spte);
	trace_seq_puts(s, " -> ");
	print_spte(s, st, 1, new_spte);
	trace_seq_printf(s, " class %s ret %lld", msc_spte_class_name(class),
			 sfield_value(event, "ret", ret));
	return 0;
}

/* The access letters, or the raw bits while no event has shown the width. */
static void print_access(struct trace_seq *s, const struct kvmmmu_state *st, uint32_t word,
			 const struct msc_sp_role *role)
{
	if (st->host.role_access.from)
		trace_seq_printf(s, " %s", role->access_str);
	else
		trace_seq_printf(s, " access? %#x", (word >> 8) & 0xf);
}

/*
 * kvm_mmu_get_page, kvm_mmu_prepare_zap_page, kvm_mmu_sync_page and
 * kvm_mmu_unsync_page: KVM_MMU_PAGE_PRINTK's words, with the role decoded
 * for this capture.
 */
static int page_handler(struct trace_seq *s, struct tep_record *record, struct tep_event *event,
			void *context)
{
	struct kvmmmu_state *st = state_of(event->tep);
	unsigned long long gfn, role, gen, root_count, unsync, created = 0;
	struct msc_event ev = { .cpu = (uint16_t)record->cpu };
	bool is_get = !strcmp(event->name, "kvm_mmu_get_page");
	struct msc_sp_role r;

	if (!st || field(s, event, record, "gfn", &gfn) || field(s, event, record, "role", &role) ||
	    field(s, event, record, "mmu_valid_gen", &gen) ||
	    field(s, event, record, "root_count", &root_count) ||
	    field(s, event, record, "unsync", &unsync) ||
	    (is_get && field(s, event, record, "created", &created)))
		return -1;
	ev.type = is_get ? MSC_EV_GET_PAGE : MSC_EV_ZAP_PAGE;
	ev.sp = (struct msc_ev_sp){ .gfn = gfn, .role = (uint32_t)role, .created = !!created };
	state_learn(st, &ev);
	if (!strcmp(event->name, "kvm_mmu_prepare_zap_page"))
		msc_classifier_apply(&st->cls, &ev);	/* opens the teardown context */
	msc_sp_role_decode(&st->cls.layout, (uint32_t)role, &r);

	trace_seq_printf(s, "sp gen %llu gfn %#llx l%u %u-byte q%u%s", gen, gfn, r.level,
			 r.has_4_byte_gpte ? 4 : 8, r.quadrant, r.direct ? " direct" : "");
	print_access(s, st, (uint32_t)role, &r);
	trace_seq_printf(s, "%s %snxe %sad root %llu %s", r.invalid ? " invalid" : "",
			 r.efer_nx ? "" : "!", r.ad_disabled ? "!" : "", root_count,
			 unsync ? "unsync" : "sync");
	if (is_get)
		trace_seq_puts(s, created ? " new" : " existing");
	return 0;
}

/* Print "name value" for each field of a new event, in the kernel's order. */
struct field_fmt {
	const char *name;	/* field name in the format */
	const char *label;	/* printed before the value */
	char kind;		/* 'u' decimal, 'd' signed, 'x' hex, 'b' flag, 's' symbol */
	const char *const *symbols;	/* kind 's': names by value */
	unsigned int nr_symbols;
};

static const char *const reason_names[] = { "enable", "clear", "fault" };
static const char *const change_names[] = { "create", "delete", "move", "flags_only" };
static const char *const harvest_names[] = { "get", "clear" };

#define SYMBOLS(a) .symbols = (a), .nr_symbols = sizeof(a) / sizeof((a)[0])

static const struct field_fmt flush_fields[] = {
	{ .name = "vm_id", .label = "vm", .kind = 'u' },
	{ .name = "vm_pid", .label = "pid", .kind = 'd' },
	{ .name = "range", .label = "range", .kind = 'b' },
	{ .name = "start_gfn", .label = "gfn", .kind = 'x' },
	{ .name = "nr_pages", .label = "pages", .kind = 'u' },
	{ .name = "all", .label = "all", .kind = 'b' },
	{ .name = "arch_flush", .label = "arch", .kind = 'b' },
	{ .name = "kicked", .label = "kicked", .kind = 'b' },
	{ .name = NULL },
};

static const struct field_fmt slot_fields[] = {
	{ .name = "vm_id", .label = "vm", .kind = 'u' },
	{ .name = "vm_pid", .label = "pid", .kind = 'd' },
	{ .name = "as_id", .label = "as", .kind = 'u' },
	{ .name = "slot_id", .label = "slot", .kind = 'd' },
	{ .name = "base_gfn", .label = "gfn", .kind = 'x' },
	{ .name = "npages", .label = "pages", .kind = 'u' },
	{ .name = "change", .label = "change", .kind = 's', SYMBOLS(change_names) },
	{ .name = "old_flags", .label = "flags", .kind = 'x' },
	{ .name = "new_flags", .label = "->", .kind = 'x' },
	{ .name = "eager_split", .label = "eager_split", .kind = 'b' },
	{ .name = "initially_set", .label = "initially_set", .kind = 'b' },
	{ .name = "pml", .label = "pml", .kind = 'b' },
	{ .name = "duration_ns", .label = "ns", .kind = 'u' },
	{ .name = NULL },
};

static const struct field_fmt split_span_fields[] = {
	{ .name = "vm_id", .label = "vm", .kind = 'u' },
	{ .name = "vm_pid", .label = "pid", .kind = 'd' },
	{ .name = "as_id", .label = "as", .kind = 'u' },
	{ .name = "slot_id", .label = "slot", .kind = 'd' },
	{ .name = "reason", .label = "reason", .kind = 's', SYMBOLS(reason_names) },
	{ .name = "start_gfn", .label = "gfn", .kind = 'x' },
	{ .name = "end_gfn", .label = "-", .kind = 'x' },
	{ .name = "target_level", .label = "to level", .kind = 'u' },
	{ .name = "split_1g", .label = "split 1G", .kind = 'u' },
	{ .name = "split_2m", .label = "2M", .kind = 'u' },
	{ .name = "failed", .label = "failed", .kind = 'u' },
	{ .name = "duration_ns", .label = "ns", .kind = 'u' },
	{ .name = NULL },
};

/*
 * The pass that restores huge pages at disable: the 6.12 series' zap of
 * collapsible SPTEs, or the 7.3 series' in-place recovery (6.13+); each
 * event has the counts of its own pass, the other's are not in its format.
 */
static const struct field_fmt collapse_fields[] = {
	{ .name = "vm_id", .label = "vm", .kind = 'u' },
	{ .name = "vm_pid", .label = "pid", .kind = 'd' },
	{ .name = "as_id", .label = "as", .kind = 'u' },
	{ .name = "slot_id", .label = "slot", .kind = 'd' },
	{ .name = "start_gfn", .label = "gfn", .kind = 'x' },
	{ .name = "end_gfn", .label = "-", .kind = 'x' },
	{ .name = "zapped_1g", .label = "zapped 1G", .kind = 'u' },
	{ .name = "zapped_2m", .label = "2M", .kind = 'u' },
	{ .name = "recovered_1g", .label = "recovered 1G", .kind = 'u' },
	{ .name = "recovered_2m", .label = "2M", .kind = 'u' },
	{ .name = "skipped", .label = "skipped", .kind = 'u' },
	{ .name = "flushes", .label = "flushes", .kind = 'u' },
	{ .name = "duration_ns", .label = "ns", .kind = 'u' },
	{ .name = NULL },
};

static const struct field_fmt harvest_fields[] = {
	{ .name = "vm_id", .label = "vm", .kind = 'u' },
	{ .name = "vm_pid", .label = "pid", .kind = 'd' },
	{ .name = "as_id", .label = "as", .kind = 'u' },
	{ .name = "slot_id", .label = "slot", .kind = 'd' },
	{ .name = "clear", .label = "op", .kind = 's', SYMBOLS(harvest_names) },
	{ .name = "start_gfn", .label = "gfn", .kind = 'x' },
	{ .name = "npages", .label = "pages", .kind = 'u' },
	{ .name = "dirty", .label = "dirty", .kind = 'u' },
	{ .name = "protect", .label = "protect", .kind = 'b' },
	{ .name = "flush", .label = "flush", .kind = 'b' },
	{ .name = "duration_ns", .label = "ns", .kind = 'u' },
	{ .name = NULL },
};

static int print_fields(struct trace_seq *s, struct tep_record *record, struct tep_event *event,
			const struct field_fmt *ff)
{
	unsigned long long v;
	const char *sep = "";

	for (; ff->name; ff++, sep = " ") {
		/* begin has duration_ns too (always 0): print it on _end only */
		if (!strcmp(ff->name, "duration_ns") && strstr(event->name, "_begin"))
			continue;
		if (!tep_find_field(event, ff->name))
			continue;	/* an older or newer version of the patch */
		if (field(s, event, record, ff->name, &v))
			return -1;
		switch (ff->kind) {
		case 'b':
			if (v)
				trace_seq_printf(s, "%s%s", sep, ff->label);
			else
				sep = "";
			continue;
		case 'd':
			trace_seq_printf(s, "%s%s %lld", sep, ff->label, sfield_value(event, ff->name, v));
			break;
		case 'x':
			trace_seq_printf(s, "%s%s %#llx", sep, ff->label, v);
			break;
		case 's':
			if (v < ff->nr_symbols)
				trace_seq_printf(s, "%s%s %s", sep, ff->label, ff->symbols[v]);
			else
				trace_seq_printf(s, "%s%s %llu", sep, ff->label, v);
			break;
		default:
			trace_seq_printf(s, "%s%s %llu", sep, ff->label, v);
			break;
		}
	}
	return 0;
}

static int flush_handler(struct trace_seq *s, struct tep_record *record,
			 struct tep_event *event, void *context)
{
	unsigned long long caller;
	const char *func;

	if (print_fields(s, record, event, flush_fields) || field(s, event, record, "caller", &caller))
		return -1;
	func = tep_find_function(event->tep, caller);
	if (func)
		trace_seq_printf(s, " caller %s+%#llx", func,
				 caller - tep_find_function_address(event->tep, caller));
	else
		trace_seq_printf(s, " caller %#llx", caller);
	return 0;
}

/* The new events other than the flush: @context is their field_fmt table. */
static int fields_handler(struct trace_seq *s, struct tep_record *record,
			  struct tep_event *event, void *context)
{
	return print_fields(s, record, event, context);
}

/*
 * One row per handled event; the loader and unloader walk the same table.
 * @fields: the context of fields_handler.
 */
static const struct {
	const char *system;
	const char *name;
	tep_event_handler_func handler;
	const struct field_fmt *fields;
} handlers[] = {
	{ "kvmmmu", "kvm_tdp_mmu_spte_changed", spte_changed_handler },
	{ "kvmmmu", "kvm_mmu_split_huge_page", split_huge_page_handler },
	{ "kvmmmu", "fast_page_fault", fast_page_fault_handler },
	{ "kvmmmu", "kvm_mmu_get_page", page_handler },
	{ "kvmmmu", "kvm_mmu_prepare_zap_page", page_handler },
	{ "kvmmmu", "kvm_mmu_sync_page", page_handler },
	{ "kvmmmu", "kvm_mmu_unsync_page", page_handler },
	{ "kvm", "kvm_flush_remote_tlbs", flush_handler },
	{ "kvmmmu", "kvm_mmu_slot_dirty_logging_begin", fields_handler, slot_fields },
	{ "kvmmmu", "kvm_mmu_slot_dirty_logging_end", fields_handler, slot_fields },
	{ "kvmmmu", "kvm_mmu_split_huge_pages", fields_handler, split_span_fields },
	{ "kvmmmu", "kvm_mmu_zap_collapsible_sptes", fields_handler, collapse_fields },
	{ "kvmmmu", "kvm_mmu_recover_huge_pages", fields_handler, collapse_fields },
	{ "kvm", "kvm_dirty_log_harvest", fields_handler, harvest_fields },
};

#define NR_HANDLERS (sizeof(handlers) / sizeof(handlers[0]))

int TEP_PLUGIN_LOADER(struct tep_handle *tep)
{
	struct kvmmmu_state *st;
	size_t i;

	/*
	 * The SPTE layout is x86's and the values are read as numbers; a
	 * file of the other endianness is not an x86 KVM trace.
	 */
	if (tep_is_file_bigendian(tep) != tep_is_local_bigendian(tep))
		return 0;

	st = calloc(1, sizeof(*st));
	if (!st)
		return -1;
	st->tep = tep;
	msc_host_init(&st->host);
	msc_classifier_init(&st->cls, &st->host);
	state_update(st);
	st->next = states;
	states = st;

	for (i = 0; i < NR_HANDLERS; i++)
		tep_register_event_handler(tep, -1, handlers[i].system, handlers[i].name,
					   handlers[i].handler,
					   (void *)handlers[i].fields);
	return 0;
}

void TEP_PLUGIN_UNLOADER(struct tep_handle *tep)
{
	struct kvmmmu_state **p, *st;
	size_t i;

	for (p = &states; (st = *p); p = &st->next)
		if (st->tep == tep)
			break;
	if (!st)
		return;

	for (i = 0; i < NR_HANDLERS; i++)
		tep_unregister_event_handler(tep, -1, handlers[i].system, handlers[i].name,
					     handlers[i].handler,
					     (void *)handlers[i].fields);
	*p = st->next;
	msc_classifier_release(&st->cls);
	free(st);
}
