// SPDX-License-Identifier: GPL-2.0-only
/*
 * The description of every event type (event-desc.h): its fields in text
 * order, each with its text key, SQL column and tracepoint field, the
 * tracepoints it is decoded from, and the columns derived for the database;
 * beside the ioctl event, the KVM ioctls by number (an ioctl's name column,
 * the filter a live recording asks the kernel for).
 */
#include "event-desc.h"

#include <stdio.h>
#include <string.h>

#include "mmuscope/util.h"

#define REQ MSC_F_REQUIRED
#define NEWER MSC_F_NEWER
#define OPT MSC_F_OPTIONAL
#define BOOL MSC_F_BOOL
#define TAG MSC_F_TAG
#define SYMBOL MSC_F_SYMBOL
#define STEP MSC_F_STEP

/* FIELD(member, text key, kind, SQL column, tracepoint field, more designators) */
#define FIELD(member, key_, kind_, column_, tp_, ...)                          \
	{ .key = key_, .column = column_, .tp = tp_,                           \
	  .offset = offsetof(struct msc_event, member),                        \
	  .size = sizeof(((struct msc_event *)0)->member),                     \
	  .kind = MSC_K_##kind_, __VA_ARGS__ }

#define NAMES(arr) .names = arr, .nr_names = ARRAY_SIZE(arr) - 1
#define FIELDS(arr) .fields = arr, .nr_fields = ARRAY_SIZE(arr)
#define TRACEPOINTS(arr) .tracepoints = arr, .nr_tracepoints = ARRAY_SIZE(arr)
#define PAYLOAD(member) .payload = sizeof(((struct msc_event *)0)->member)

const char *const msc_class_names[MSC_CLASS_NR + 1] = {
#define X(name, str) [MSC_CLASS_##name] = str,
	MSC_SPTE_CLASSES(X)
#undef X
};

static const char *const fault_kinds[] = { "fast-other", "fast-fixed", "fast-spurious", NULL };
static const char *const begin_end[] = { "begin", "end", NULL };
static const char *const get_clear[] = { "get", "clear", NULL };
static const char *const enter_exit[] = { "enter", "exit", NULL };

/* The companion patch's events name their VM and memslot first. */
#define VM_SLOT(m)                                                             \
	FIELD(m.vm_id, "vm", UDEC, "vm_id", "vm_id"),                          \
	FIELD(m.vm_pid, "vm_pid", SDEC, "vm_pid", "vm_pid"),                   \
	FIELD(m.as_id, "as", UDEC, "as_id", "as_id"),                          \
	FIELD(m.slot_id, "slot", SDEC, "slot_id", "slot_id")

static const struct msc_field spte_fields[] = {
	FIELD(spte.as_id, "as", UDEC, "as_id", "as_id"),
	FIELD(spte.gfn, "gfn", HEX, "gfn", "gfn", .flags = REQ | STEP),
	FIELD(spte.level, "level", UDEC, "level", "level", .flags = REQ),
	FIELD(spte.old_spte, "old", HEX, "old_spte", "old_spte", .flags = REQ | STEP),
	FIELD(spte.new_spte, "new", HEX, "new_spte", "new_spte", .flags = REQ | STEP),
	FIELD(spte.class, "class", CLASS, "class", NULL, .flags = OPT, NAMES(msc_class_names)),
};
static const struct msc_tracepoint spte_tps[] = { { "kvmmmu", "kvm_tdp_mmu_spte_changed" } };

static const struct msc_field split_fields[] = {
	FIELD(split.gfn, "gfn", HEX, "gfn", "gfn", .flags = REQ),
	FIELD(split.spte, "spte", HEX, "spte", "spte", .flags = REQ),
	FIELD(split.level, "level", SDEC, "level", "level", .flags = REQ),
	FIELD(split.err, "errno", SDEC, "errno", "errno"),
};
static const struct msc_tracepoint split_tps[] = { { "kvmmmu", "kvm_mmu_split_huge_page" } };

#define SP_HEAD                                                                \
	FIELD(sp.gfn, "gfn", HEX, "gfn", "gfn", .flags = REQ),                 \
	FIELD(sp.role, "role", HEX, "role", "role", .flags = REQ),             \
	FIELD(sp.root_count, "root_count", UDEC, "root_count", "root_count"),  \
	FIELD(sp.unsync, "unsync", UDEC, "unsync", "unsync", .flags = BOOL)

static const struct msc_field get_page_fields[] = {
	SP_HEAD,
	FIELD(sp.created, "created", UDEC, "created", "created", .flags = BOOL),
	FIELD(sp.gen, "gen", UDEC, "gen", "mmu_valid_gen"),
};
static const struct msc_field zap_page_fields[] = {
	SP_HEAD,
	FIELD(sp.gen, "gen", UDEC, "gen", "mmu_valid_gen"),
};
static const struct msc_tracepoint get_page_tps[] = { { "kvmmmu", "kvm_mmu_get_page" } };
static const struct msc_tracepoint zap_page_tps[] = { { "kvmmmu", "kvm_mmu_prepare_zap_page" } };

/* page_table's columns decoded from the role word, by the capture's layout */
static const char *const role_columns[] = {
	"level", "direct", "access", "invalid", "smm", "quadrant", "has_4_byte_gpte",
	"ad_disabled", "guest_mode", "access_str", NULL,
};

static void derive_role(const struct msc_event *ev, const struct msc_spte_layout *l,
			struct msc_derived *ret)
{
	struct msc_sp_role r;

	msc_sp_role_decode(l, ev->sp.role, &r);
	ret->v[0] = r.level;
	ret->v[1] = r.direct;
	ret->v[2] = r.access;
	ret->v[3] = r.invalid;
	ret->v[4] = r.smm;
	ret->v[5] = r.quadrant;
	ret->v[6] = r.has_4_byte_gpte;
	ret->v[7] = r.ad_disabled;
	ret->v[8] = r.guest_mode;
	memcpy(ret->buf, r.access_str, sizeof(r.access_str));
	ret->text[9] = ret->buf;
}

static const struct msc_field fast_pf_fields[] = {
	FIELD(fast_pf.vcpu, "vcpu", SDEC, "vcpu", "vcpu_id"),
	FIELD(fast_pf.gpa, "gpa", HEX, "gpa", "cr2_or_gpa", .flags = REQ | STEP),
	FIELD(fast_pf.error_code, "error_code", HEX, "error_code", "error_code"),
	FIELD(fast_pf.old_spte, "old", HEX, "old_spte", "old_spte", .flags = REQ | STEP),
	FIELD(fast_pf.new_spte, "new", HEX, "new_spte", "new_spte", .flags = REQ | STEP),
	FIELD(fast_pf.ret, "ret", SDEC, "ret", "ret", .flags = REQ),
	/* from ret and the format's RET_PF_* numbers (decode.c) */
	FIELD(fast_pf.result, "result", FPF, "kind", NULL, NAMES(fault_kinds)),
};
static const struct msc_tracepoint fast_pf_tps[] = {
	{ "kvmmmu", "fast_page_fault", .ignored = "sptep" },
};

static const struct msc_field pf_fields[] = {
	FIELD(pf.vcpu, "vcpu", UDEC, "vcpu", "vcpu_id"),
	FIELD(pf.gpa, "gpa", HEX, "gpa", "fault_address", .flags = REQ | STEP),
	FIELD(pf.error_code, "error_code", HEX, "error_code", "error_code"),
	FIELD(pf.rip, "rip", HEX, "rip", "guest_rip"),
};
static const struct msc_tracepoint pf_tps[] = { { "kvm", "kvm_page_fault" } };

static const struct msc_field set_spte_fields[] = {
	FIELD(set_spte.gfn, "gfn", HEX, "gfn", "gfn", .flags = REQ),
	FIELD(set_spte.spte, "spte", HEX, "spte", "spte", .flags = REQ),
	FIELD(set_spte.sptep, "sptep", HEX, "sptep", "sptep"),
	FIELD(set_spte.level, "level", UDEC, "level", "level", .flags = REQ),
	FIELD(set_spte.r, "r", UDEC, "r", "r", .flags = BOOL),
	FIELD(set_spte.x, "x", UDEC, "x", "x", .flags = BOOL),
	FIELD(set_spte.u, "u", SDEC, "u", "u"),
};
static const struct msc_tracepoint set_spte_tps[] = { { "kvmmmu", "kvm_mmu_set_spte" } };

static const struct msc_field req_fields[] = {
	FIELD(req.gfn, "gfn", HEX, "gfn", "gfn", .flags = REQ),
	FIELD(req.pfn, "pfn", HEX, "pfn", "pfn", .flags = REQ),
	FIELD(req.level, "level", UDEC, "level", "level", .flags = REQ),
	FIELD(req.access, "access", OSDEC, "access", "access", .flags = OPT | NEWER),
};
static const struct msc_tracepoint req_tps[] = { { "kvmmmu", "kvm_mmu_spte_requested" } };

static const struct msc_field mmio_fields[] = {
	FIELD(mmio.gfn, "gfn", HEX, "gfn", "gfn", .flags = REQ),
	FIELD(mmio.access, "access", HEX, "access", "access"),
	FIELD(mmio.gen, "gen", HEX, "gen", "gen"),
};
static const struct msc_tracepoint mmio_tps[] = { { "kvmmmu", "mark_mmio_spte" } };

static const struct msc_field zap_all_fields[] = {
	FIELD(zap_all.gen, "gen", UDEC, "gen", "mmu_valid_gen"),
	FIELD(zap_all.used_pages, "used_pages", UDEC, "used_pages", "mmu_used_pages"),
};
static const struct msc_tracepoint zap_all_tps[] = { { "kvmmmu", "kvm_mmu_zap_all_fast" } };

static const struct msc_field hva_fields[] = {
	FIELD(hva.start, "start", HEX, "start", "start", .flags = REQ),
	FIELD(hva.end, "end", HEX, "\"end\"", "end", .flags = REQ),
};
static const struct msc_tracepoint unmap_tps[] = { { "kvm", "kvm_unmap_hva_range" } };
static const struct msc_tracepoint age_tps[] = { { "kvm", "kvm_age_hva" } };

static const struct msc_field marker_fields[] = {
	FIELD(marker.text, "text", TEXT, "text", "buf", .flags = REQ),
};
static const struct msc_tracepoint marker_tps[] = { { "ftrace", "print", .ignored = "ip" } };

/* name and args: the probe's event name and its other fetch args (decode.c) */
static const struct msc_field kprobe_fields[] = {
	FIELD(kprobe.name, "name", NAME, "name", NULL),
	FIELD(kprobe.ip, "ip", HEX, "ip", "__probe_ip", .flags = REQ),
	FIELD(kprobe.args, "args", TEXT, "args", NULL),
};
static const struct msc_tracepoint kprobe_tps[] = { { NULL, NULL } };

/* made by the sources, never decoded: "" is the stream's own mark */
static const struct msc_field lost_fields[] = {
	FIELD(lost.count, "count", UDEC, "count", NULL),
	FIELD(lost.source, "source", NAME, "source", NULL, .flags = OPT | MSC_F_NONE_EMPTY,
	      .none = "ring-buffer"),
};

/* the companion kernel patch (kernel/, docs/kernel-events.md) */
static const struct msc_field tlb_flush_fields[] = {
	FIELD(tlb_flush.vm_id, "vm", UDEC, "vm_id", "vm_id"),
	FIELD(tlb_flush.vm_pid, "vm_pid", SDEC, "vm_pid", "vm_pid"),
	FIELD(tlb_flush.start_gfn, "gfn", HEX, "start_gfn", "start_gfn", .flags = REQ),
	FIELD(tlb_flush.nr_pages, "pages", UDEC, "nr_pages", "nr_pages", .flags = REQ),
	FIELD(tlb_flush.range, "range", UDEC, "range", "range", .flags = REQ | BOOL),
	FIELD(tlb_flush.all, "all", UDEC, "\"all\"", "all", .flags = REQ | BOOL),
	FIELD(tlb_flush.arch_flush, "arch", UDEC, "arch_flush", "arch_flush", .flags = BOOL),
	FIELD(tlb_flush.kicked, "kicked", UDEC, "kicked", "kicked", .flags = BOOL),
	FIELD(tlb_flush.caller, "caller", HEX, "caller", "caller"),
};
static const struct msc_tracepoint tlb_flush_tps[] = { { "kvm", "kvm_flush_remote_tlbs" } };

static const struct msc_field dirty_log_fields[] = {
	FIELD(dirty_log.end, "end", UDEC, "op", NULL, .flags = TAG, NAMES(begin_end)),
	VM_SLOT(dirty_log),
	FIELD(dirty_log.base_gfn, "gfn", HEX, "base_gfn", "base_gfn", .flags = REQ),
	FIELD(dirty_log.npages, "pages", UDEC, "npages", "npages", .flags = REQ),
	FIELD(dirty_log.old_flags, "old_flags", HEX, "old_flags", "old_flags", .flags = REQ),
	FIELD(dirty_log.new_flags, "new_flags", HEX, "new_flags", "new_flags", .flags = REQ),
	FIELD(dirty_log.change, "change", UDEC, "change_code", "change"),
	FIELD(dirty_log.change_name, "change_name", NAME, "change", "change", .flags = SYMBOL),
	FIELD(dirty_log.eager_split, "eager_split", UDEC, "eager_split", "eager_split",
	      .flags = BOOL),
	FIELD(dirty_log.initially_set, "initially_set", UDEC, "initially_set", "initially_set",
	      .flags = BOOL),
	FIELD(dirty_log.pml, "pml", UDEC, "pml", "pml", .flags = BOOL),
	FIELD(dirty_log.duration_ns, "ns", UDEC, "duration_ns", "duration_ns"),
};
static const struct msc_tracepoint dirty_log_tps[] = {
	{ "kvmmmu", "kvm_mmu_slot_dirty_logging_begin", .tag = "begin" },
	{ "kvmmmu", "kvm_mmu_slot_dirty_logging_end", .tag = "end" },
};

static const struct msc_field split_span_fields[] = {
	VM_SLOT(span),
	FIELD(span.start_gfn, "gfn", HEX, "start_gfn", "start_gfn", .flags = REQ),
	FIELD(span.end_gfn, "end", HEX, "end_gfn", "end_gfn", .flags = REQ),
	FIELD(span.target_level, "target_level", UDEC, "target_level", "target_level"),
	FIELD(span.reason, "reason", UDEC, "reason_code", "reason", .flags = REQ),
	FIELD(span.reason_name, "reason_name", NAME, "reason", "reason", .flags = SYMBOL),
	FIELD(span.count_1g, "split_1g", UDEC, "split_1g", "split_1g", .flags = REQ),
	FIELD(span.count_2m, "split_2m", UDEC, "split_2m", "split_2m", .flags = REQ),
	FIELD(span.other, "failed", UDEC, "failed", "failed"),
	FIELD(span.duration_ns, "ns", UDEC, "duration_ns", "duration_ns"),
};
static const struct msc_tracepoint split_span_tps[] = { { "kvmmmu", "kvm_mmu_split_huge_pages" } };

/* zap-collapsible (<= 6.12) and its successor, in-place recovery (6.13+) */
static const struct msc_field collapse_span_fields[] = {
	VM_SLOT(span),
	FIELD(span.start_gfn, "gfn", HEX, "start_gfn", "start_gfn", .flags = REQ),
	FIELD(span.end_gfn, "end", HEX, "end_gfn", "end_gfn", .flags = REQ),
	FIELD(span.count_1g, "zapped_1g", UDEC, "zapped_1g", "zapped_1g|recovered_1g",
	      .flags = REQ),
	FIELD(span.count_2m, "zapped_2m", UDEC, "zapped_2m", "zapped_2m|recovered_2m",
	      .flags = REQ),
	FIELD(span.other, "skipped", UDEC, "skipped", "skipped"),
	FIELD(span.flushes, "flushes", UDEC, "flushes", "flushes"),
	FIELD(span.duration_ns, "ns", UDEC, "duration_ns", "duration_ns"),
	FIELD(span.reason_name, "pass", NAME, "pass", NULL, .flags = OPT | TAG, .none = "zap"),
};
static const struct msc_tracepoint collapse_span_tps[] = {
	{ "kvmmmu", "kvm_mmu_zap_collapsible_sptes", .tag = "zap" },
	{ "kvmmmu", "kvm_mmu_recover_huge_pages", .tag = "recover" },
};

static const struct msc_field harvest_fields[] = {
	VM_SLOT(harvest),
	FIELD(harvest.start_gfn, "gfn", HEX, "start_gfn", "start_gfn", .flags = REQ),
	FIELD(harvest.npages, "pages", UDEC, "npages", "npages", .flags = REQ),
	FIELD(harvest.dirty, "dirty", UDEC, "dirty", "dirty", .flags = REQ),
	FIELD(harvest.clear, "clear", UDEC, "op", "clear", .flags = REQ | BOOL,
	      NAMES(get_clear)),
	FIELD(harvest.protect, "protect", UDEC, "protect", "protect", .flags = REQ | BOOL),
	FIELD(harvest.flush, "flush", UDEC, "flush", "flush", .flags = REQ | BOOL),
	FIELD(harvest.duration_ns, "ns", UDEC, "duration_ns", "duration_ns"),
};
static const struct msc_tracepoint harvest_tps[] = { { "kvm", "kvm_dirty_log_harvest" } };

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
	{ 0xae41, "KVM_CREATE_VCPU", true },		/* a vCPU fd to its VM fd */
	{ 0xae80, "KVM_RUN", false },
	{ 0x4020ae46, "KVM_SET_USER_MEMORY_REGION", true },	/* struct kvm_userspace_memory_region */
	{ 0x40a0ae49, "KVM_SET_USER_MEMORY_REGION2", true },	/* ..._region2, 160 bytes */
	{ 0x4010ae42, "KVM_GET_DIRTY_LOG", true },		/* struct kvm_dirty_log */
	{ 0xc018aec0, "KVM_CLEAR_DIRTY_LOG", true },		/* struct kvm_clear_dirty_log */
	{ 0x4068aea3, "KVM_ENABLE_CAP", false },		/* struct kvm_enable_cap */
	{ 0xaec7, "KVM_RESET_DIRTY_RINGS", true },		/* the dirty ring's harvest */
	{ 0xae03, "KVM_CHECK_EXTENSION", false },		/* on /dev/kvm or a VM fd */
};

/**
 * msc_kvm_ioctl_filter - the sys_enter_ioctl filter of the ioctls that bound
 *	dirty-log work: "cmd == 0xae01 || cmd == 0x4020ae46 || ..."
 *
 * The tracepoint's cmd is the 64-bit register as the caller left it: a VMM
 * that passes the request as an int (QEMU's kvm_vm_ioctl(int type, ...))
 * hands a request with bit 31 set over sign-extended, so such a request is
 * matched in both forms (0xc018aec0 and 0xffffffffc018aec0).  The kernel
 * reads it as unsigned int, and so does the decoder.
 *
 * Returns what snprintf() returns.
 */
int msc_kvm_ioctl_filter(char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(kvm_ioctls); i++) {
		uint32_t cmd = kvm_ioctls[i].cmd;
		int n;

		if (!kvm_ioctls[i].record)
			continue;
		n = snprintf(buf + min(len, size), len < size ? size - len : 0, "%scmd == %#x",
			     len ? " || " : "", cmd);
		if (n > 0)
			len += (size_t)n;
		if (!(cmd & 0x80000000U))
			continue;
		n = snprintf(buf + min(len, size), len < size ? size - len : 0, " || cmd == %#llx",
			     (unsigned long long)(int64_t)(int32_t)cmd);
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

/* the KVM ioctls (stable ABI): an enter carries fd, cmd, arg; an exit ret */
static const struct msc_field ioctl_fields[] = {
	FIELD(ioctl.exit, "exit", UDEC, "op", NULL, .flags = TAG, NAMES(enter_exit)),
	FIELD(ioctl.fd, "fd", SDEC, "fd", "fd", .flags = REQ | MSC_F_NEG_ABSENT,
	      .only = "enter"),
	FIELD(ioctl.cmd, "cmd", HEX, "cmd", "cmd", .flags = REQ, .only = "enter"),
	FIELD(ioctl.arg, "arg", HEX, "arg", "arg", .only = "enter"),
	FIELD(ioctl.ret, "ret", SDEC, "ret", "ret", .flags = REQ, .only = "exit"),
};
static const struct msc_tracepoint ioctl_tps[] = {
	{ "syscalls", "sys_enter_ioctl", .tag = "enter", .ignored = "__syscall_nr" },
	{ "syscalls", "sys_exit_ioctl", .tag = "exit", .ignored = "__syscall_nr" },
};

static const char *const ioctl_columns[] = { "name", NULL };

static void derive_ioctl(const struct msc_event *ev, const struct msc_spte_layout *l,
			 struct msc_derived *ret)
{
	ret->text[0] = ev->ioctl.exit ? NULL : msc_kvm_ioctl_name(ev->ioctl.cmd);
	ret->null[0] = !ret->text[0];
}

/* the dirty ring (kvm/kvm_dirty_ring_*): one table, a row per event */
#define RING_INDEXES                                                           \
	FIELD(ring.ring, "ring", SDEC, "ring", "index", .flags = REQ),        \
	FIELD(ring.dirty_index, "dirty", HEX, "dirty_index", "dirty_index",    \
	      .flags = REQ),                                                   \
	FIELD(ring.reset_index, "reset", HEX, "reset_index", "reset_index",    \
	      .flags = REQ)

static const struct msc_field ring_push_fields[] = {
	RING_INDEXES,
	FIELD(ring.slot, "slot", HEX, "slot", "slot", .flags = REQ),
	FIELD(ring.offset, "offset", HEX, "\"offset\"", "offset", .flags = REQ),
};
static const struct msc_field ring_reset_fields[] = { RING_INDEXES };
static const struct msc_field ring_exit_fields[] = {
	FIELD(ring.ring, "vcpu", SDEC, "vcpu", "vcpu_id", .flags = REQ),
};
static const struct msc_tracepoint ring_push_tps[] = { { "kvm", "kvm_dirty_ring_push" } };
static const struct msc_tracepoint ring_reset_tps[] = { { "kvm", "kvm_dirty_ring_reset" } };
static const struct msc_tracepoint ring_exit_tps[] = { { "kvm", "kvm_dirty_ring_exit" } };

const struct msc_event_desc msc_event_descs[MSC_EV_NR] = {
	[MSC_EV_SPTE_CHANGED] = { "spte_change", .runs = "spte_change_run", PAYLOAD(spte),
				  FIELDS(spte_fields), TRACEPOINTS(spte_tps) },
	[MSC_EV_SPLIT] = { "huge_page_split", PAYLOAD(split), FIELDS(split_fields),
			   TRACEPOINTS(split_tps) },
	[MSC_EV_GET_PAGE] = { "page_table", "op", "get", PAYLOAD(sp), FIELDS(get_page_fields),
			      TRACEPOINTS(get_page_tps), .derived = role_columns,
			      .derive = derive_role },
	[MSC_EV_ZAP_PAGE] = { "page_table", "op", "zap", PAYLOAD(sp), FIELDS(zap_page_fields),
			      TRACEPOINTS(zap_page_tps), .derived = role_columns,
			      .derive = derive_role },
	[MSC_EV_FAST_PF] = { "fault", .runs = "fault_run", PAYLOAD(fast_pf),
			     FIELDS(fast_pf_fields), TRACEPOINTS(fast_pf_tps) },
	[MSC_EV_PAGE_FAULT] = { "fault", "kind", "npf", .runs = "fault_run", PAYLOAD(pf),
				FIELDS(pf_fields), TRACEPOINTS(pf_tps) },
	[MSC_EV_SET_SPTE] = { "set_spte", PAYLOAD(set_spte), FIELDS(set_spte_fields),
			      TRACEPOINTS(set_spte_tps) },
	[MSC_EV_SPTE_REQUESTED] = { "spte_requested", PAYLOAD(req), FIELDS(req_fields),
				    TRACEPOINTS(req_tps) },
	[MSC_EV_MMIO_SPTE] = { "mmio_spte", PAYLOAD(mmio), FIELDS(mmio_fields),
			       TRACEPOINTS(mmio_tps) },
	[MSC_EV_ZAP_ALL_FAST] = { "zap_all_fast", PAYLOAD(zap_all), FIELDS(zap_all_fields),
				  TRACEPOINTS(zap_all_tps) },
	[MSC_EV_UNMAP_HVA] = { "hva_range", "op", "unmap", PAYLOAD(hva), FIELDS(hva_fields),
			       TRACEPOINTS(unmap_tps) },
	[MSC_EV_AGE_HVA] = { "hva_range", "op", "age", PAYLOAD(hva), FIELDS(hva_fields),
			     TRACEPOINTS(age_tps) },
	[MSC_EV_MARKER] = { "marker", PAYLOAD(marker), FIELDS(marker_fields),
			    TRACEPOINTS(marker_tps) },
	[MSC_EV_KPROBE] = { "kprobe", PAYLOAD(kprobe), FIELDS(kprobe_fields),
			    TRACEPOINTS(kprobe_tps) },
	[MSC_EV_LOST] = { "lost_events", .no_pid = true, PAYLOAD(lost), FIELDS(lost_fields) },
	[MSC_EV_TLB_FLUSH] = { "tlb_flush", PAYLOAD(tlb_flush), FIELDS(tlb_flush_fields),
			       TRACEPOINTS(tlb_flush_tps) },
	[MSC_EV_DIRTY_LOG] = { "dirty_logging", PAYLOAD(dirty_log), FIELDS(dirty_log_fields),
			       TRACEPOINTS(dirty_log_tps) },
	[MSC_EV_SPLIT_SPAN] = { "split_span", PAYLOAD(span), FIELDS(split_span_fields),
				TRACEPOINTS(split_span_tps) },
	[MSC_EV_COLLAPSE_SPAN] = { "collapse_span", PAYLOAD(span), FIELDS(collapse_span_fields),
				   TRACEPOINTS(collapse_span_tps) },
	[MSC_EV_HARVEST] = { "harvest", PAYLOAD(harvest), FIELDS(harvest_fields),
			     TRACEPOINTS(harvest_tps) },
	[MSC_EV_IOCTL] = { "ioctl", PAYLOAD(ioctl), FIELDS(ioctl_fields), TRACEPOINTS(ioctl_tps),
			   .derived = ioctl_columns, .derive = derive_ioctl },
	[MSC_EV_RING_PUSH] = { "dirty_ring", "op", "push", PAYLOAD(ring),
			       FIELDS(ring_push_fields), TRACEPOINTS(ring_push_tps) },
	[MSC_EV_RING_RESET] = { "dirty_ring", "op", "reset", PAYLOAD(ring),
				FIELDS(ring_reset_fields), TRACEPOINTS(ring_reset_tps) },
	[MSC_EV_RING_EXIT] = { "dirty_ring", "op", "exit", PAYLOAD(ring),
			       FIELDS(ring_exit_fields), TRACEPOINTS(ring_exit_tps) },
};

/** msc_field_fits - whether @v is a value of the field's width and sign */
bool msc_field_fits(const struct msc_field *f, uint64_t v)
{
	unsigned int bits = f->size * 8;
	int64_t s = (int64_t)v;

	if (bits >= 64)
		return true;
	if (msc_field_signed(f))
		return s >= -(1LL << (bits - 1)) && s < (1LL << (bits - 1));
	return !(v >> bits);
}

/** msc_field_absent - the value of a field an event does not carry */
uint64_t msc_field_absent(const struct msc_field *f)
{
	return f->kind == MSC_K_OSDEC || (f->flags & MSC_F_NEG_ABSENT) ? (uint64_t)-1 : 0;
}

/** msc_name_lookup - the index of @name (@len bytes) in @names[0..@nr), or -1; NULLs skipped */
int msc_name_lookup(const char *const *names, size_t nr, const char *name, size_t len)
{
	for (size_t i = 0; i < nr; i++)
		if (names[i] && strlen(names[i]) == len && !memcmp(names[i], name, len))
			return (int)i;
	return -1;
}

/** msc_field_name_index - the value whose name in f->names is @name (@len bytes), or -1 */
int msc_field_name_index(const struct msc_field *f, const char *name, size_t len)
{
	return msc_name_lookup(f->names, f->nr_names, name, len);
}

/** msc_event_tag_field - the field a type's tracepoints tell apart, or NULL */
const struct msc_field *msc_event_tag_field(const struct msc_event_desc *d)
{
	for (unsigned int i = 0; i < d->nr_fields; i++)
		if (d->fields[i].flags & MSC_F_TAG)
			return &d->fields[i];
	return NULL;
}

/** msc_field_carried - whether @ev carries @f (false: an only-field of another tracepoint) */
bool msc_field_carried(const struct msc_event_desc *d, const struct msc_field *f,
		       const struct msc_event *ev)
{
	const struct msc_field *tag;
	uint64_t v;

	if (!f->only)
		return true;
	tag = msc_event_tag_field(d);
	v = msc_field_get(ev, tag);
	return msc_field_name(tag, v) && !strcmp(msc_field_name(tag, v), f->only);
}
