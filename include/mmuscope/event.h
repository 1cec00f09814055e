/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * struct msc_event: the one value type that crosses module boundaries.
 *
 * Every source (trace.dat, live tracefs, text fixtures) produces these, the
 * store writes them, the analyzer consumes them.  An event is a fixed-size
 * value with no pointers: copy it freely.  Kernel types and libtraceevent
 * never appear here.
 *
 * Invariant: (ts, seq) is a total order of one capture's events; seq is the
 * position in the source's timestamp-merged stream and never repeats.
 *
 * Every event has one text form (msc_event_format()/msc_event_parse() are
 * inverses), used by `mmuscope dump`, golden files, fixtures and bug reports:
 *
 *   <ts> <cpu> <pid> <type> <key>=<value> ...
 *
 * Numbers that carry addresses or SPTE bits are hex, counts are decimal; a
 * text value (marker, kprobe arguments) is the last key and runs to the end
 * of the line with \\ and \n escaped.
 */
#ifndef MSC_EVENT_H
#define MSC_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* X(enum suffix, text name) -- the text name is stable: it is file format. */
#define MSC_EVENT_TYPES(X)                                                     \
	X(SPTE_CHANGED, "spte_changed")                                        \
	X(SPLIT, "split_huge_page")                                            \
	X(GET_PAGE, "get_page")                                                \
	X(ZAP_PAGE, "prepare_zap_page")                                        \
	X(FAST_PF, "fast_page_fault")                                          \
	X(PAGE_FAULT, "page_fault")                                            \
	X(SET_SPTE, "set_spte")                                                \
	X(SPTE_REQUESTED, "spte_requested")                                    \
	X(MMIO_SPTE, "mark_mmio_spte")                                         \
	X(ZAP_ALL_FAST, "zap_all_fast")                                        \
	X(UNMAP_HVA, "unmap_hva_range")                                        \
	X(AGE_HVA, "age_hva")                                                  \
	X(MARKER, "marker")                                                    \
	X(KPROBE, "kprobe")                                                    \
	X(LOST, "lost")                                                        \
	X(TLB_FLUSH, "tlb_flush")                                              \
	X(DIRTY_LOG, "dirty_logging")                                          \
	X(SPLIT_SPAN, "split_span")                                            \
	X(COLLAPSE_SPAN, "collapse_span")                                      \
	X(HARVEST, "harvest")                                                  \
	X(IOCTL, "ioctl")                                                      \
	X(RING_PUSH, "dirty_ring_push")                                        \
	X(RING_RESET, "dirty_ring_reset")                                      \
	X(RING_EXIT, "dirty_ring_exit")

enum msc_event_type {
#define X(name, str) MSC_EV_##name,
	MSC_EVENT_TYPES(X)
#undef X
	MSC_EV_NR,
};

/* Change classes of a spte_changed event (docs/kvm-mmu.md, "Classifying a change"). */
#define MSC_SPTE_CLASSES(X)                                                    \
	X(NONE, "-")                                                           \
	X(MAP, "map")                                                          \
	X(UNMAP, "unmap")                                                      \
	X(LINK, "link")                                                        \
	X(ZAP_SUBTREE, "zap-subtree")                                          \
	X(SPLIT, "split")                                                      \
	X(PROMOTE, "promote")                                                  \
	X(WRITE_PROTECT, "write-protect")                                      \
	X(MAKE_WRITABLE, "make-writable")                                      \
	X(CLEAR_DIRTY, "clear-dirty")                                          \
	X(AGE, "age")                                                          \
	X(ACCESS_TRACK, "access-track")                                        \
	X(TEARDOWN_CHILD, "teardown-child")                                    \
	X(MMIO, "mmio")                                                        \
	X(OTHER, "other")                                                      \
	X(ANOMALY, "anomaly")

enum msc_spte_class {
#define X(name, str) MSC_CLASS_##name,
	MSC_SPTE_CLASSES(X)
#undef X
	MSC_CLASS_NR,
};

/* How a fast_page_fault ended, from the format's own RET_PF_* numbers. */
enum msc_fast_pf_result {
	MSC_FPF_OTHER,		/* retried or fell back to the slow path */
	MSC_FPF_FIXED,		/* the lockless cmpxchg installed new_spte */
	MSC_FPF_SPURIOUS,	/* the SPTE was already fixed */
};

#define MSC_EVENT_TEXT_MAX 256	/* marker text and kprobe arguments */
#define MSC_EVENT_NAME_MAX 64	/* kprobe event name */

struct msc_ev_spte {		/* kvmmmu/kvm_tdp_mmu_spte_changed */
	uint64_t gfn;		/* base GFN of the SPTE's range */
	uint64_t old_spte;	/* authoritative value before the change */
	uint64_t new_spte;
	uint8_t level;		/* 1 = 4K, 2 = 2M, 3 = 1G, 4/5 upper tables */
	uint8_t as_id;		/* 0 normal, 1 SMM */
	uint8_t class;		/* enum msc_spte_class, MSC_CLASS_NONE until classified */
};

struct msc_ev_split {		/* kvmmmu/kvm_mmu_split_huge_page */
	uint64_t gfn;
	uint64_t spte;		/* the huge SPTE that was split */
	int32_t level;		/* level of the huge SPTE */
	int32_t err;		/* 0 or -errno of linking the new table */
};

struct msc_ev_sp {		/* kvm_mmu_get_page, kvm_mmu_prepare_zap_page */
	uint64_t gfn;
	uint32_t role;		/* raw kvm_mmu_page_role word; see spte.h */
	uint32_t root_count;
	uint8_t gen;		/* mmu_valid_gen */
	uint8_t unsync;
	uint8_t created;	/* get_page only */
};

struct msc_ev_fast_pf {		/* kvmmmu/fast_page_fault */
	uint64_t gpa;
	uint64_t error_code;
	uint64_t old_spte;
	uint64_t new_spte;
	int32_t vcpu;
	int32_t ret;		/* raw RET_PF_* (numbers move between kernels) */
	uint8_t result;		/* enum msc_fast_pf_result */
};

struct msc_ev_page_fault {	/* kvm/kvm_page_fault */
	uint64_t gpa;
	uint64_t error_code;
	uint64_t rip;
	uint32_t vcpu;
};

struct msc_ev_set_spte {	/* kvmmmu/kvm_mmu_set_spte */
	uint64_t gfn;
	uint64_t spte;
	uint64_t sptep;		/* host physical address of the SPTE */
	uint8_t level;
	uint8_t r, x;
	int8_t u;		/* -1 when the SPTE has no user bit */
};

struct msc_ev_requested {	/* kvmmmu/kvm_mmu_spte_requested */
	uint64_t gfn;
	uint64_t pfn;
	uint8_t level;		/* goal level after hugepage_adjust */
	int16_t access;		/* ACC_* bits asked for (7.x); -1: the format has none */
};

struct msc_ev_mmio {		/* kvmmmu/mark_mmio_spte */
	uint64_t gfn;
	uint32_t access;
	uint32_t gen;
};

struct msc_ev_zap_all {		/* kvmmmu/kvm_mmu_zap_all_fast */
	uint32_t gen;
	uint32_t used_pages;
};

struct msc_ev_hva {		/* kvm/kvm_unmap_hva_range, kvm/kvm_age_hva */
	uint64_t start;
	uint64_t end;
};

struct msc_ev_marker {		/* ftrace/print: trace_marker text */
	char text[MSC_EVENT_TEXT_MAX];	/* NUL-terminated, no trailing newline */
};

struct msc_ev_kprobe {		/* any event with a __probe_ip field */
	uint64_t ip;
	char name[MSC_EVENT_NAME_MAX];	/* event name, e.g. kvm_flush_remote_tlbs */
	char args[MSC_EVENT_TEXT_MAX];	/* "name=value ..." of the other fields */
};

#define MSC_EVENT_SYMBOL_MAX 16	/* a short name: a __print_symbolic string, a counter */

struct msc_ev_lost {		/* events the ring buffer dropped before this point */
	uint64_t count;		/* 0 when the kernel only says "some" */
	char source[MSC_EVENT_SYMBOL_MAX];	/* "" (a missed-events mark in the
						 * stream), or the per-CPU counter that
						 * said so: "overrun", "dropped", ... */
};

/*
 * The companion kernel patch's events (kernel/, docs/kernel-events.md).
 * Each names its VM: vm_id is the kernel's per-boot VM number, vm_pid the
 * task that created the VM.
 */
struct msc_ev_tlb_flush {	/* kvm:kvm_flush_remote_tlbs */
	uint64_t start_gfn;	/* range asked for; 0 and 0 for a full flush */
	uint64_t nr_pages;
	uint64_t caller;	/* _RET_IP_ of the caller */
	uint32_t vm_id;
	int32_t vm_pid;
	uint8_t range;		/* a range was asked for */
	uint8_t all;		/* every TLB entry of the VM was flushed */
	uint8_t arch_flush;	/* the architecture's hook flushed (no vCPU request) */
	uint8_t kicked;		/* a vCPU was kicked out of guest mode */
};

struct msc_ev_dirty_log {	/* kvmmmu:kvm_mmu_slot_dirty_logging_begin/_end */
	uint64_t base_gfn;
	uint64_t npages;
	uint64_t duration_ns;	/* _end: the MMU work between the two; _begin: 0 */
	uint32_t vm_id;
	int32_t vm_pid;
	uint32_t old_flags;	/* KVM_MEM_* before and after: dirty logging is bit 0 */
	uint32_t new_flags;
	uint16_t as_id;
	int16_t slot_id;
	uint8_t end;		/* 0: _begin, 1: _end */
	uint8_t change;		/* enum kvm_mr_change */
	uint8_t eager_split, initially_set, pml;
	char change_name[MSC_EVENT_SYMBOL_MAX];	/* from the format: "flags_only", ... */
};

/*
 * kvmmmu:kvm_mmu_split_huge_pages, and the pass that restores huge pages at
 * dirty-log disable: kvm_mmu_zap_collapsible_sptes (<= 6.12) or
 * kvm_mmu_recover_huge_pages (6.13+), told apart by reason_name.
 */
struct msc_ev_span {
	uint64_t start_gfn;	/* [start, end) walked */
	uint64_t end_gfn;
	uint64_t duration_ns;
	uint32_t vm_id;
	int32_t vm_pid;
	uint32_t count_1g;	/* split_1g / zapped_1g / recovered_1g */
	uint32_t count_2m;	/* split_2m / zapped_2m / recovered_2m */
	uint32_t other;		/* split: failed; collapse: skipped */
	uint32_t flushes;	/* collapse only */
	uint16_t as_id;
	int16_t slot_id;
	uint8_t target_level;	/* split only */
	uint8_t reason;		/* split only: raw value */
	char reason_name[MSC_EVENT_SYMBOL_MAX];	/* split: from the format ("enable", "clear",
						   "fault"); collapse: "zap" or "recover" */
};

struct msc_ev_harvest {		/* kvm:kvm_dirty_log_harvest */
	uint64_t start_gfn;	/* [start, start + npages) harvested */
	uint64_t npages;
	uint64_t dirty;		/* pages found dirty (GET) or cleared (CLEAR) */
	uint64_t duration_ns;
	uint32_t vm_id;
	int32_t vm_pid;
	uint16_t as_id;
	int16_t slot_id;
	uint8_t clear;		/* KVM_CLEAR_DIRTY_LOG; 0: KVM_GET_DIRTY_LOG */
	uint8_t protect;	/* dirty tracking re-armed for those pages */
	uint8_t flush;		/* a memslot TLB flush followed */
};

/*
 * syscalls:sys_enter_ioctl / sys_exit_ioctl: the KVM ioctls are stable ABI,
 * so they bound what the kernel did on every kernel (docs/kvm-mmu.md,
 * "KVM ioctls").  An exit carries only its return value: it is the exit of
 * the last enter of the same task.
 */
struct msc_ev_ioctl {
	uint64_t arg;		/* enter: the argument (KVM's are user pointers) */
	int64_t ret;		/* exit: the return value */
	uint32_t cmd;		/* enter: the request number */
	int32_t fd;		/* enter: the file descriptor */
	uint8_t exit;		/* 1: sys_exit_ioctl */
};

/*
 * kvm:kvm_dirty_ring_push, kvm_dirty_ring_reset and kvm_dirty_ring_exit
 * (every kernel since 5.11): a page pushed to a vCPU's dirty ring, a ring's
 * entries handed back (KVM_RESET_DIRTY_RINGS), a vCPU leaving for user
 * space with its ring full.  The indexes count entries from the ring's
 * creation, free running.
 */
struct msc_ev_dirty_ring {
	uint64_t offset;	/* push: page offset in the memslot */
	uint32_t dirty_index;	/* push, reset: next entry KVM fills */
	uint32_t reset_index;	/* push, reset: next entry to reset */
	uint32_t slot;		/* push: as_id << 16 | memslot id */
	int32_t ring;		/* push, reset: the ring's index (the vCPU's);
				 * exit: the vCPU id */
};

const char *msc_kvm_ioctl_name(uint32_t cmd);
int msc_kvm_ioctl_filter(char *buf, size_t size);

struct msc_event {
	uint64_t ts;		/* trace clock, nanoseconds for the ns clocks */
	uint64_t seq;		/* position in the merged stream */
	int32_t pid;		/* common_pid: the task that hit the tracepoint */
	uint16_t cpu;
	uint8_t type;		/* enum msc_event_type */
	union {
		struct msc_ev_spte spte;
		struct msc_ev_split split;
		struct msc_ev_sp sp;
		struct msc_ev_fast_pf fast_pf;
		struct msc_ev_page_fault pf;
		struct msc_ev_set_spte set_spte;
		struct msc_ev_requested req;
		struct msc_ev_mmio mmio;
		struct msc_ev_zap_all zap_all;
		struct msc_ev_hva hva;
		struct msc_ev_marker marker;
		struct msc_ev_kprobe kprobe;
		struct msc_ev_lost lost;
		struct msc_ev_tlb_flush tlb_flush;
		struct msc_ev_dirty_log dirty_log;
		struct msc_ev_span span;
		struct msc_ev_harvest harvest;
		struct msc_ev_ioctl ioctl;
		struct msc_ev_dirty_ring ring;
	};
};

/* Longest line msc_event_format() writes, including the NUL. */
#define MSC_EVENT_LINE_MAX (2 * MSC_EVENT_TEXT_MAX + 256)

char *msc_text_escape(const char *s, char *buf, size_t size);
int msc_text_unescape(const char *s, char *dst, size_t size);
const char *msc_event_type_name(enum msc_event_type type);
int msc_event_type_lookup(const char *name);
const char *msc_spte_class_name(enum msc_spte_class class);
int msc_spte_class_lookup(const char *name);
const char *msc_fast_pf_result_name(enum msc_fast_pf_result result);

int msc_event_format(const struct msc_event *ev, char *buf, size_t size);
int msc_event_parse(const char *line, struct msc_event *ret_ev);
bool msc_event_gfns(const struct msc_event *ev, uint64_t *first, uint64_t *last);

#endif /* MSC_EVENT_H */
