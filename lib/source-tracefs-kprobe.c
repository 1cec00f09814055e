// SPDX-License-Identifier: GPL-2.0-only
/*
 * Exact dirty-log phases and TLB flushes on stock kernels: kprobe events on
 * the KVM functions that do them, registered through libtracefs's dynamic
 * event API in a group named after the instance and removed at close.
 *
 * Function names differ between kernel versions, so every known name is
 * tried and the ones this kernel has are kept; a static function the
 * compiler inlined (kvm_mmu_slot_apply_flags on 6.12) simply fails.  Each
 * probe fetches the struct kvm pointer (which VM) and the range arguments
 * where the function takes them; a kernel that cannot fetch arguments gets
 * the probe without them.  The event name is the function name, so the
 * analyzer matches probes by function whatever the group.
 *
 * With the companion kernel patch's tracepoints no kprobe is needed.
 */
#include "source-tracefs-local.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <tracefs/tracefs.h>

#include "mmuscope/util.h"

struct probe {
	const char *func;
	const char *args;		/* kprobe fetch args, NULL none */
	bool per_call;			/* one hit per ioctl: a light recording's too */
};

#define KVM "kvm=$arg1:x64"
#define SLOT KVM " slot=$arg2:x64"

static const struct probe probes[] = {
	/* remote TLB flushes (names since 6.5; the _with_address/arch ones before) */
	{ "kvm_flush_remote_tlbs", KVM },
	{ "kvm_flush_remote_tlbs_range", KVM " gfn=$arg2:x64 pages=$arg3:x64" },
	{ "kvm_flush_remote_tlbs_with_address", KVM " gfn=$arg2:x64 pages=$arg3:x64" },
	{ "kvm_flush_remote_tlbs_memslot", SLOT, true },
	{ "kvm_arch_flush_remote_tlbs_memslot", SLOT, true },
	/* dirty logging enable: split, write-protect, clear dirty */
	{ "kvm_mmu_slot_apply_flags", KVM, true },
	{ "kvm_mmu_slot_try_split_huge_pages", SLOT " level=$arg3:u32", true },
	{ "kvm_mmu_try_split_huge_pages", SLOT },	/* per 64 pages of a CLEAR */
	{ "kvm_mmu_slot_remove_write_access", SLOT " level=$arg3:u32", true },
	{ "kvm_mmu_slot_leaf_clear_dirty", SLOT, true },
	/* harvest (KVM_CLEAR_DIRTY_LOG / GET_DIRTY_LOG re-protect) */
	{ "kvm_arch_mmu_enable_log_dirty_pt_masked", SLOT " gfn=$arg3:x64 mask=$arg4:x64" },
	/* dirty logging disable: zap collapsible (<= 6.12), in-place recovery (6.13+) */
	{ "kvm_mmu_zap_collapsible_sptes", SLOT, true },
	{ "kvm_tdp_mmu_zap_collapsible_sptes", SLOT, true },
	{ "kvm_mmu_recover_huge_pages", SLOT, true },
	{ "kvm_tdp_mmu_recover_huge_pages", SLOT, true },
};

/*
 * Tracepoints of the companion kernel patch (kernel/, docs/kernel-events.md):
 * any one of them present means the patched kernel, whose events replace
 * every kprobe here.
 */
static const char *const patch_events[][2] = {
	{ "kvmmmu", "kvm_mmu_slot_dirty_logging_begin" },
	{ "kvmmmu", "kvm_mmu_split_huge_pages" },
	{ "kvmmmu", "kvm_mmu_zap_collapsible_sptes" },
	{ "kvm", "kvm_flush_remote_tlbs" },
	{ "kvm", "kvm_dirty_log_harvest" },
};

/**
 * live_has_patch_events - does this kernel carry the companion patch?
 * @t: the source
 * @ret_event: the first of the patch's tracepoints found, "system/name"
 */
bool live_has_patch_events(struct tracefs_source *t, const char **ret_event)
{
	static char found[96];
	char path[4096];
	struct stat st;

	for (size_t i = 0; i < ARRAY_SIZE(patch_events); i++) {
		snprintf(path, sizeof(path), "%s/events/%s/%s", tracefs_tracing_dir(),
			 patch_events[i][0], patch_events[i][1]);
		if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
			snprintf(found, sizeof(found), "%s/%s", patch_events[i][0],
				 patch_events[i][1]);
			*ret_event = found;
			return true;
		}
	}
	return false;
}

static struct tracefs_dynevent *create(const char *group, const struct probe *p, bool args)
{
	struct tracefs_dynevent *ev = tracefs_kprobe_alloc(group, p->func, p->func,
							   args ? p->args : NULL);

	if (ev && tracefs_dynevent_create(ev)) {
		tracefs_dynevent_free(ev);
		ev = NULL;
	}
	return ev;
}

/**
 * live_kprobes_register - register every probe this kernel can take
 * @t: the source
 * @per_call: only those that fire once per ioctl (a light recording: a
 *	kprobe's hit costs an exception; the per-flush and per-64-pages ones
 *	fire thousands of times in a step)
 *
 * Returns the number registered (0 when none could be: the mode detail
 * says why), or -ENOMEM.
 */
int live_kprobes_register(struct tracefs_source *t, bool per_call)
{
	size_t len = 0;
	int last_err = 0;

	t->kprobes = calloc(ARRAY_SIZE(probes), sizeof(*t->kprobes));
	if (!t->kprobes)
		return -ENOMEM;
	for (size_t i = 0; i < ARRAY_SIZE(probes); i++) {
		struct tracefs_dynevent *ev;

		if (per_call && !probes[i].per_call)
			continue;
		errno = 0;
		ev = create(t->group, &probes[i], true);
		if (!ev)
			ev = create(t->group, &probes[i], false);
		if (!ev) {
			last_err = errno;
			continue;
		}
		t->kprobes[t->nr_kprobes++] = ev;
		len += (size_t)snprintf(t->kprobe_names + len,
					len < sizeof(t->kprobe_names) ? sizeof(t->kprobe_names) - len : 0,
					"%s%s", len ? " " : "", probes[i].func);
		len = min(len, sizeof(t->kprobe_names) - 1);
	}
	if (!t->nr_kprobes)
		snprintf(t->mode_detail, sizeof(t->mode_detail),
			 "no kprobe could be registered (%s)",
			 last_err ? strerror(last_err) : "no KVM function found");
	return (int)t->nr_kprobes;
}

/** live_kprobes_remove - remove the probes registered by this source */
void live_kprobes_remove(struct tracefs_source *t)
{
	for (unsigned int i = 0; i < t->nr_kprobes; i++) {
		tracefs_dynevent_destroy(t->kprobes[i], false);
		tracefs_dynevent_free(t->kprobes[i]);
	}
	free(t->kprobes);
	t->kprobes = NULL;
	t->nr_kprobes = 0;
}

/*
 * live_kprobes_remove_stale - remove probes a killed recorder left in our
 * group.  Only called once the instance of the same name was created here,
 * so no live recorder owns them.
 */
void live_kprobes_remove_stale(struct tracefs_source *t)
{
	struct tracefs_dynevent **all =
		tracefs_dynevent_get_all(TRACEFS_DYNEVENT_KPROBE | TRACEFS_DYNEVENT_KRETPROBE,
					 t->group);

	for (size_t i = 0; all && all[i]; i++)
		tracefs_dynevent_destroy(all[i], false);
	tracefs_dynevent_list_free(all);
}
