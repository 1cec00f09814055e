// SPDX-License-Identifier: GPL-2.0-only
/*
 * A light recording (`record --light`): the events whose count is one per
 * call or per huge page, whole; with `--light=N` also the per-SPTE events
 * of a sample of the guest's memory, cut by the kernel's event filter so
 * that nothing outside the sample reaches the ring buffer (docs/light.md).
 * A filtered tracepoint still costs its probe and the filter at every hit
 * (about half a recorded event's cost in the nested rig, BENCHMARKS.md):
 * the plain --light enables no per-SPTE event at all.
 *
 * The sample is every 2M cell whose GFN bits 9.. (9 + log2 N - 1) are all
 * zero: 1 cell in N.  The filter tests those bits of each event's GFN (or
 * GPA, shifted by 12): `!(gfn & MASK)`.  An entry above the 2M level has
 * those bits zero, since its GFN is the base of its 1G (or larger) range,
 * so every table entry on the path to a sampled cell is kept, and the
 * sampled cells' history is whole: the analyzer sees a smaller VM.
 *
 * Events with no address (the ioctls, kprobes, flushes, splits: one per
 * huge page) are kept whole.  A filter the kernel refuses leaves the event
 * off, never unfiltered.
 */
#include "source-tracefs-local.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

#include <tracefs/tracefs.h>

#include "mmuscope/error.h"
#include "mmuscope/util.h"

/* An event of the light recording; @field "": kept whole. */
struct light_event {
	const char *system, *event;
	const char *field;		/* the address field, or "" */
	unsigned int shift;		/* 0: a GFN, 12: a GPA */
	bool required;			/* its filter must hold, or record fails */
};

static const struct light_event light_events[] = {
	{ "kvmmmu", "kvm_tdp_mmu_spte_changed", "gfn", 0, true },
	{ "kvmmmu", "kvm_mmu_get_page", "gfn", 0 },
	{ "kvmmmu", "kvm_mmu_prepare_zap_page", "gfn", 0 },
	{ "kvmmmu", "kvm_mmu_spte_requested", "gfn", 0 },
	{ "kvmmmu", "kvm_mmu_set_spte", "gfn", 0 },
	{ "kvmmmu", "fast_page_fault", "cr2_or_gpa", 12 },
	{ "kvm", "kvm_page_fault", "fault_address", 12 },
	{ "kvmmmu", "kvm_mmu_split_huge_page", "", 0 },	/* one per huge page */
	{ "kvmmmu", "kvm_mmu_zap_all_fast", "", 0 },
	{ "kvm", "kvm_flush_remote_tlbs", "", 0 },	/* the companion patch's */
	{ "kvm", "kvm_dirty_log_harvest", "", 0 },
	{ "kvm", "kvm_dirty_ring_reset", "", 0 },
	{ "kvm", "kvm_dirty_ring_exit", "", 0 },
	{ "kvm", "kvm_unmap_hva_range", "", 0 },	/* an MMU notifier range */
};

/**
 * live_light_mask - the GFN bits a sampled cell has all zero: 1 cell in @n
 *	(a power of two, 2 to 2^20); 0 when @n is not one
 */
uint64_t live_light_mask(unsigned int n)
{
	if (n < 2 || n > (1u << 20) || (n & (n - 1)))
		return 0;
	return (uint64_t)(n - 1) << 9;
}

/* Write @ev's sample filter; 0, or -errno when the kernel refused it. */
static int write_filter(struct tracefs_source *t, const struct light_event *ev, uint64_t mask)
{
	char filter[96];

	snprintf(filter, sizeof(filter), "!(%s & %#llx)", ev->field,
		 (unsigned long long)(mask << ev->shift));
	return tracefs_event_file_write(t->inst, ev->system, ev->event, "filter", filter) < 0
	       ? -EINVAL : 0;
}

/**
 * live_light_enable - enable the light recording's events on the instance
 * @t: the source, its instance configured and tracing off
 * @n: 1 cell in @n sampled; 0: no per-SPTE event at all
 * @enable: enables one event (and parses its format); returns events enabled
 *
 * An event this kernel lacks, or whose filter it refuses, stays off.
 * Returns how many events were enabled; the SPTE changes' filter must hold
 * (MSC_ERR_NO_KVMMMU otherwise, with t->base.error saying why); -EINVAL
 * when @n is not 0 nor a power of two from 2 to 2^20.
 */
int live_light_enable(struct tracefs_source *t, unsigned int n,
		      int (*enable)(struct tracefs_source *t, const char *system,
				    const char *event))
{
	uint64_t mask = live_light_mask(n);
	int total = 0;

	if (n && !mask)
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(light_events); i++) {
		const struct light_event *ev = &light_events[i];
		int r;

		if (ev->field[0] && !n)
			continue;
		if (ev->field[0] && (r = write_filter(t, ev, mask))) {
			if (ev->required) {
				snprintf(t->base.error, sizeof(t->base.error),
					 "%s/events/%s/%s/filter: the kernel refused the sample filter",
					 t->instance_dir, ev->system, ev->event);
				return MSC_ERR_NO_KVMMMU;
			}
			continue;	/* never unfiltered */
		}
		total += enable(t, ev->system, ev->event);
	}
	return total;
}
