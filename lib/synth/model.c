// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmuscope synth`'s scenario: what workload/dirtylog.c makes KVM do, phase
 * by phase, with the trace_marker lines it writes around each phase and
 * the page counters KVM would report after it.
 *
 *   setup, populate, [cycle=<k>,] enable_dirty_logging,
 *   { dirty_pass_<i>, get_dirty_log_<i>, [clear_dirty_log_<i>] } x passes,
 *   disable_dirty_logging, repopulate  (x cycles), teardown
 *
 * The VMM's main thread issues the ioctls on CPU 0; vCPU i runs on CPU
 * (1 + i) mod cpus, each writing its own share of the slot, all at once
 * (their steps interleaved in time order, guest_pass()).
 * Time is simulated: each thread has a clock that every event advances by
 * the cost of the step it marks (jittered by a seeded generator, so a seed
 * gives the same trace); a CPU shared by threads runs them one after the
 * other.  Costs are those of a recent x86 host, not of the emulated one
 * the captures came from: compare counts with captures, not times.
 */
#include "mmuscope/synth.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmuscope/event.h"
#include "mmuscope/host.h"
#include "mmuscope/util.h"
#include "local.h"

/* What differs between the kernels (tests/nested/README.md; docs/kvm-mmu.md, "Version history"). */
static const struct synth_kernel kernels[] = {
	{ .name = "6.1", .formats = "6.1", .release = "6.1.0-synth-amd64",
	  .kver = MSC_KVER(6, 1, 0), .ret_pf_fixed = 4, .fast_pf_ec32 = true,
	  .disable = DISABLE_ZAP_FROZEN_FIRST,
	  .fault_split = false, .zap_4k_first = false,
	  .probe_flush_range = "kvm_flush_remote_tlbs_with_address",
	  .probe_flush_memslot = "kvm_arch_flush_remote_tlbs_memslot",
	  .harvest_probes_memslot = true },
	{ .name = "6.12", .formats = "6.12", .release = "6.12.0-synth-amd64",
	  .kver = MSC_KVER(6, 12, 0), .ret_pf_fixed = 5, .disable = DISABLE_ZAP_FLUSH_FIRST,
	  .fault_split = true, .zap_4k_first = true,
	  .probe_flush_range = "kvm_flush_remote_tlbs_range",
	  .probe_flush_memslot = "kvm_flush_remote_tlbs_memslot" },
	/* no 6.13 formats exist here: 6.18's are the nearest real ones */
	{ .name = "6.13", .formats = "6.18", .release = "6.13.0-synth-amd64",
	  .kver = MSC_KVER(6, 13, 0), .ret_pf_fixed = 5, .disable = DISABLE_RECOVER,
	  .fault_split = true, .zap_4k_first = true,
	  .probe_flush_range = "kvm_flush_remote_tlbs_range",
	  .probe_flush_memslot = "kvm_flush_remote_tlbs_memslot" },
	{ .name = "6.18", .formats = "6.18", .release = "6.18.0-synth-amd64",
	  .kver = MSC_KVER(6, 18, 0), .ret_pf_fixed = 5, .disable = DISABLE_RECOVER,
	  .fault_split = true, .zap_4k_first = true,
	  .probe_flush_range = "kvm_flush_remote_tlbs_range",
	  .probe_flush_memslot = "kvm_flush_remote_tlbs_memslot" },
	/*
	 * 7.3.4 (tests/data/traces/k73-*): FROZEN_SPTE and the 4-bit role access
	 * come from the layout of the version; a removed table is traced before
	 * the change of the SPTE that pointed to it (__handle_changed_spte()).
	 */
	{ .name = "7.3", .formats = "7.3", .release = "7.3.0-synth-amd64",
	  .kver = MSC_KVER(7, 3, 0), .ret_pf_fixed = 5, .disable = DISABLE_RECOVER,
	  .fault_split = true, .zap_4k_first = true, .removed_first = true,
	  .probe_flush_range = "kvm_flush_remote_tlbs_range",
	  .probe_flush_memslot = "kvm_flush_remote_tlbs_memslot" },
};

/* Costs in ns of what the VMM and the guest do between events. */
enum {
	T_MARKER = 1500,		/* a trace_marker write */
	T_USER = 20000,			/* the VMM between two phases */
	T_SETUP = 25000000,		/* KVM_CREATE_VM, slots, vCPU threads, stats fd */
	T_IOCTL = 4000,			/* entering an ioctl */
	T_GUEST_STORE = 15,		/* a store to a page mapped writable */
	T_ZERO_4K = 600,		/* first touch of host memory: clearing a page */
	T_ZERO_2M = 60000,
	T_ZERO_1G = 40000000,
	T_HARVEST_WORD = 40,		/* one word of the dirty bitmap */
	T_FLUSH = 6000,			/* a remote TLB flush ... */
	T_FLUSH_VCPU = 150,		/* ... and per vCPU it kicks */
	T_TEARDOWN = 10000000,		/* closing the vCPU and VM fds */
	T_PROBE = 60,			/* a kprobe hit */
};

#define MAIN_PID 1000		/* the VMM; vCPU i is MAIN_PID + 1 + i */
#define TAG "mmuscope-dirtylog: "

/* Kernel addresses of the probed functions, as in kallsyms. */
static const struct msc_synth_sym syms[] = {
	{ MSC_SYNTH_MARKER_IP, "tracing_mark_write" },
	{ 0xffffffffc0356000ULL, "kvm_flush_remote_tlbs" },
	{ 0xffffffffc0359ca0ULL, "kvm_flush_remote_tlbs_range" },
	{ 0xffffffffc0359ce0ULL, "kvm_flush_remote_tlbs_memslot" },
	{ 0xffffffffc0359d40ULL, "kvm_flush_remote_tlbs_with_address" },
	{ 0xffffffffc0359d80ULL, "kvm_arch_flush_remote_tlbs_memslot" },
	{ 0xffffffffc03b4c00ULL, "kvm_arch_mmu_enable_log_dirty_pt_masked" },
	{ 0xffffffffc03bb640ULL, "kvm_mmu_slot_remove_write_access" },
	{ 0xffffffffc03bb680ULL, "kvm_mmu_slot_leaf_clear_dirty" },
	{ 0xffffffffc03bb830ULL, "kvm_mmu_slot_try_split_huge_pages" },
	{ 0xffffffffc03bb8e0ULL, "kvm_mmu_zap_collapsible_sptes" },
	{ 0xffffffffc03bb920ULL, "kvm_mmu_recover_huge_pages" },
	{ 0xffffffffc03c1c90ULL, "kvm_tdp_mmu_zap_collapsible_sptes" },
	{ 0xffffffffc03c1d00ULL, "kvm_tdp_mmu_recover_huge_pages" },
};

static const struct synth_kernel *find_kernel(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(kernels); i++)
		if (name && !strcmp(kernels[i].name, name))
			return &kernels[i];
	return NULL;
}

/**
 * msc_synth_formats_name - which formats directory a kernel's trace uses
 * @kernel: "6.1", "6.12", "6.13", "6.18" or "7.3"
 *
 * Returns the directory name under tests/data/formats, NULL for a kernel
 * the model does not know.
 */
const char *msc_synth_formats_name(const char *kernel)
{
	const struct synth_kernel *k = find_kernel(kernel);

	return k ? k->formats : NULL;
}

/* The `uname -r` of a kernel's synthetic host, NULL for an unknown kernel. */
const char *msc_synth_release(const char *kernel)
{
	const struct synth_kernel *k = find_kernel(kernel);

	return k ? k->release : NULL;
}

/* The defaults: a 4 GiB THP guest with one vCPU on 6.12, eager splitting. */
void msc_synth_opts_init(struct msc_synth_opts *o)
{
	*o = (struct msc_synth_opts){
		.guest_mib = 4096, .backing = MSC_SYNTH_BACKING_2M, .vcpus = 1, .cycles = 1,
		.passes = 1, .percent = 100, .kernel = "6.12", .vendor = MSC_VENDOR_NPT,
		.eager_split = true, .kprobes = true, .seed = 1,
	};
}

static bool known_phase(const char *name)
{
	static const char *const fixed[] = { "setup", "populate", "enable_dirty_logging",
					     "disable_dirty_logging", "repopulate", "teardown" };
	static const char *const numbered[] = { "dirty_pass_", "get_dirty_log_",
						"clear_dirty_log_" };
	unsigned int n;
	char end;

	for (size_t i = 0; i < ARRAY_SIZE(fixed); i++)
		if (!strcmp(name, fixed[i]))
			return true;
	for (size_t i = 0; i < ARRAY_SIZE(numbered); i++) {
		size_t len = strlen(numbered[i]);

		if (!strncmp(name, numbered[i], len) &&
		    sscanf(name + len, "%u%c", &n, &end) == 1 && n)
			return true;
	}
	return false;
}

/**
 * msc_synth_opts_check - whether the model can run a scenario
 * @o: the scenario
 * @why: the first problem, for the user
 * @size: size of @why
 *
 * Returns 0 or -EINVAL.
 */
int msc_synth_opts_check(const struct msc_synth_opts *o, char *why, size_t size)
{
	uint64_t align = o->backing == MSC_SYNTH_BACKING_1G ? 1024 : 2;
	const char *bad = NULL;

	if (!find_kernel(o->kernel))
		bad = "--kernel: one of 6.1, 6.12, 6.13, 6.18, 7.3";
	else if (!o->guest_mib || o->guest_mib % align || o->guest_mib > (64ULL << 20))
		bad = o->backing == MSC_SYNTH_BACKING_1G ?
		      "guest size: a multiple of 1 GiB with 1g backing, at most 64 TiB" :
		      "guest size: a multiple of 2 MiB, at most 64 TiB";
	else if (!o->vcpus || o->vcpus > 4096)
		bad = "--vcpus: 1 to 4096";
	else if (o->cpus > 8192)
		bad = "--cpus: at most 8192";
	else if (!o->cycles || o->cycles > 1000 || o->passes > 1000)
		bad = "--cycles: 1 to 1000, --passes: 0 to 1000";
	else if (!o->percent || o->percent > 100)
		bad = "--percent: 1 to 100";
	else if (o->vendor != MSC_VENDOR_NPT && o->vendor != MSC_VENDOR_EPT)
		bad = "--vendor: npt or ept";
	else if (o->pml && o->vendor != MSC_VENDOR_EPT)
		bad = "--pml on: only with --vendor ept (AMD has no PML)";
	else if (o->stop_after && !known_phase(o->stop_after))
		bad = "--stop-after: a phase name such as enable_dirty_logging or dirty_pass_1";
	if (!bad)
		return 0;
	snprintf(why, size, "%s", bad);
	return -EINVAL;
}

static unsigned int nr_cpus(const struct msc_synth_opts *o)
{
	return o->cpus ? o->cpus : o->vcpus + 1;
}

/**
 * msc_synth_comms - the tasks of a scenario, for saved_cmdlines
 * @o: the scenario
 * @ret: filled with up to @max tasks: the VMM, then one thread per vCPU
 * @max: room in @ret
 *
 * Returns how many there are (which may exceed @max).
 */
int msc_synth_comms(const struct msc_synth_opts *o, struct msc_synth_comm *ret, size_t max)
{
	for (unsigned int i = 0; i <= o->vcpus && i < max; i++) {
		/* QEMU's thread names; vCPU numbers stay below 4096, so they fit */
		int n = i ? snprintf(ret[i].comm, sizeof(ret[i].comm), "CPU %u/KVM", i - 1) :
			    snprintf(ret[i].comm, sizeof(ret[i].comm), "qemu-system-x86");

		if (n < 0 || (size_t)n >= sizeof(ret[i].comm))
			ret[i].comm[0] = '\0';
		ret[i].pid = MAIN_PID + (int)i;
	}
	return (int)o->vcpus + 1;
}

/* The kernel symbols the events point at, for a kallsyms file. */
size_t msc_synth_syms(const struct msc_synth_sym **ret)
{
	*ret = syms;
	return ARRAY_SIZE(syms);
}

/* ---- time and events ---- */

static uint64_t rng_next(struct synth_model *m)
{
	/* xorshift64* */
	m->rng ^= m->rng >> 12;
	m->rng ^= m->rng << 25;
	m->rng ^= m->rng >> 27;
	return m->rng * 0x2545f4914f6cdd1dULL;
}

/* @ns give or take 20%. */
uint64_t synth_cost(struct synth_model *m, uint64_t ns)
{
	return ns - ns / 5 + (ns ? rng_next(m) % (2 * (ns / 5) + 1) : 0);
}

/* The event to fill; synth_emit() stamps and sends it. */
struct msc_event *synth_event(struct synth_model *m, int type)
{
	m->ev.type = (uint8_t)type;
	return &m->ev;
}

static int send(struct synth_model *m, const struct msc_event *ev)
{
	struct msc_synth_stats *s = m->stats;

	if (!s->events)
		s->first_ts = ev->ts;
	s->last_ts = ev->ts;
	s->events++;
	s->by_type[ev->type]++;
	return m->emit(m->ctx, ev);
}

/**
 * synth_emit - send the event filled in by synth_event() on @t's behalf
 * @m: the model
 * @t: the thread it happens in
 * @cost: ns the step it marks takes; @t's clock moves on by about that
 *
 * Events of one CPU never go back in time: a thread waits for the thread
 * that ran before it on its CPU.  While --lost-events is armed, the main
 * thread's CPU drops events; the first one after the gap is preceded by
 * the LOST mark that a reader would see.
 */
void synth_emit(struct synth_model *m, struct synth_thread *t, uint64_t cost)
{
	uint64_t ts = max(t->clock, m->cpu_clock[t->cpu]);
	struct msc_event *ev = &m->ev;

	t->clock = ts + synth_cost(m, cost);
	m->cpu_clock[t->cpu] = t->clock;
	if (m->r)
		return;
	ev->ts = ts;
	ev->cpu = (uint16_t)t->cpu;
	ev->pid = t->pid;
	if (m->lost_armed && t->cpu == m->main.cpu) {
		struct msc_event lost = { .ts = ts, .cpu = ev->cpu, .pid = -1,
					  .type = MSC_EV_LOST };

		if (m->lost_dropped < m->o->lost_events) {
			m->lost_dropped++;
			m->stats->lost++;
			return;
		}
		m->lost_armed = false;
		lost.lost.count = m->lost_dropped;
		m->r = send(m, &lost);
		if (m->r)
			return;
	}
	m->r = send(m, ev);
}

static void marker(struct synth_model *m, const char *fmt, ...) __printf(2, 3);

/* One trace_marker line from the VMM, as dirtylog writes it. */
static void marker(struct synth_model *m, const char *fmt, ...)
{
	struct msc_event *e = synth_event(m, MSC_EV_MARKER);
	va_list ap;
	int n = snprintf(e->marker.text, sizeof(e->marker.text), TAG);

	va_start(ap, fmt);
	vsnprintf(e->marker.text + n, sizeof(e->marker.text) - (size_t)n, fmt, ap);
	va_end(ap);
	synth_emit(m, &m->main, T_MARKER);
}

/**
 * synth_kprobe - a hit of one of the captures' kprobes ("lab" group)
 * @m: the model
 * @t: the thread calling the function
 * @name: the function; nothing happens when the formats lack its event
 */
void synth_kprobe(struct synth_model *m, struct synth_thread *t, const char *name)
{
	struct msc_event *e;
	uint64_t ip = 0;

	if (!m->o->kprobes || !name || !msc_synth_formats_has(m->f, NULL, name))
		return;
	for (size_t i = 0; i < ARRAY_SIZE(syms); i++)
		if (!strcmp(syms[i].name, name))
			ip = syms[i].addr;
	e = synth_event(m, MSC_EV_KPROBE);
	e->kprobe.ip = ip;
	snprintf(e->kprobe.name, sizeof(e->kprobe.name), "%s", name);
	e->kprobe.args[0] = '\0';
	synth_emit(m, t, T_PROBE);
}

/**
 * synth_flush - a remote TLB flush (remote_tlb_flush_requests + 1)
 * @m: the model
 * @t: the thread flushing
 * @range: through kvm_flush_remote_tlbs_range() (a zapped SPTE's range)
 * @memslot_probe: through the memslot flush, when its probe fires
 */
void synth_flush(struct synth_model *m, struct synth_thread *t, bool range, bool memslot_probe)
{
	if (range)
		synth_kprobe(m, t, m->k->probe_flush_range);
	if (memslot_probe)
		synth_kprobe(m, t, m->k->probe_flush_memslot);
	synth_kprobe(m, t, "kvm_flush_remote_tlbs");
	t->clock += synth_cost(m, T_FLUSH + T_FLUSH_VCPU * m->o->vcpus);
	m->flushes++;
}

/* ---- phases ---- */

static void phase_begin(struct synth_model *m, const char *name)
{
	m->main.clock += synth_cost(m, T_USER);
	marker(m, "phase=%s begin", name);
}

/* Returns true when the scenario stops here (--stop-after). */
static bool phase_end(struct synth_model *m, const char *name)
{
	marker(m, "phase=%s end", name);
	if (strcmp(name, "teardown"))
		marker(m, "KVM stats after %s: pages_4k=%llu pages_2m=%llu pages_1g=%llu "
			  "remote_tlb_flush=0 remote_tlb_flush_requests=%llu", name,
		       (unsigned long long)m->leaves[1], (unsigned long long)m->leaves[2],
		       (unsigned long long)m->leaves[3], (unsigned long long)m->flushes);
	return m->r || (m->o->stop_after && !strcmp(m->o->stop_after, name));
}

/* The vCPUs leave KVM_RUN's caller and start on the guest code. */
static void vcpus_start(struct synth_model *m)
{
	for (unsigned int i = 0; i < m->o->vcpus; i++)
		m->vcpus[i].clock = max(m->vcpus[i].clock, m->main.clock + synth_cost(m, T_IOCTL));
}

/* The VMM waits for every vCPU to exit (dirtylog's guest_pass()). */
static void vcpus_join(struct synth_model *m)
{
	for (unsigned int i = 0; i < m->o->vcpus; i++)
		m->main.clock = max(m->main.clock, m->vcpus[i].clock);
	m->main.clock += synth_cost(m, T_USER);
}

/* vCPU @v's share of the slot: [*first, *end). */
static void share(const struct synth_model *m, unsigned int v, uint64_t *first, uint64_t *end)
{
	uint64_t n = m->slot_pages / m->o->vcpus;

	*first = m->slot_gfn + v * n;
	*end = v + 1 == m->o->vcpus ? m->slot_gfn + m->slot_pages : *first + n;
}

static uint64_t zero_cost(const struct synth_model *m)
{
	static const uint64_t cost[] = { T_ZERO_4K, T_ZERO_4K, T_ZERO_2M, T_ZERO_1G };

	return cost[m->backing_level];
}

/* One step of a guest pass: entering the guest, or a store to the next page of the share. */
static void vcpu_step(struct synth_model *m, struct synth_thread *t, uint64_t stride,
		      bool first_touch)
{
	uint64_t before, n;

	if (!t->started) {
		t->started = true;
		synth_mmu_load(m, t);
		/* the first instruction fetch maps dirtylog's code page */
		synth_mmu_access(m, t, 1, false, true);
		return;
	}
	before = m->leaves[1] + m->leaves[2] + m->leaves[3];
	n = synth_mmu_access(m, t, t->next_gfn, true, false);
	if (first_touch && m->leaves[1] + m->leaves[2] + m->leaves[3] != before)
		t->clock += synth_cost(m, zero_cost(m));
	/* the stores a writable huge page lets through, at guest speed */
	n = max(stride, n - n % stride);
	t->clock += T_GUEST_STORE * (n / stride);
	t->next_gfn += n;
}

/* Which of two vCPUs steps first: the earlier clock; of equal ones, the lower vCPU. */
static bool steps_before(const struct synth_thread *a, const struct synth_thread *b)
{
	return a->clock < b->clock || (a->clock == b->clock && a->vcpu < b->vcpu);
}

static void ready_down(struct synth_thread **h, unsigned int n, unsigned int i)
{
	for (;;) {
		unsigned int l = 2 * i + 1, m = i;
		struct synth_thread *tmp;

		if (l < n && steps_before(h[l], h[m]))
			m = l;
		if (l + 1 < n && steps_before(h[l + 1], h[m]))
			m = l + 1;
		if (m == i)
			return;
		tmp = h[i];
		h[i] = h[m];
		h[m] = tmp;
		i = m;
	}
}

/*
 * Each vCPU stores one byte to every @stride-th page of its share.  The
 * vCPUs take their steps in time order, the earliest clock first (of equal
 * ones, the lowest vCPU), so that the fault which comes first links the
 * tables the others find (mmu.c, reach()).
 */
static void guest_pass(struct synth_model *m, uint64_t stride, bool first_touch)
{
	struct synth_thread **h = m->ready;
	unsigned int n = m->o->vcpus;

	vcpus_start(m);
	for (unsigned int v = 0; v < n; v++) {
		struct synth_thread *t = &m->vcpus[v];

		share(m, v, &t->next_gfn, &t->end_gfn);
		t->started = false;
		h[v] = t;
	}
	for (unsigned int i = n / 2; i-- > 0;)
		ready_down(h, n, i);
	while (n && !m->r) {
		struct synth_thread *t = h[0];

		vcpu_step(m, t, stride, first_touch);
		if (t->started && t->next_gfn >= t->end_gfn)
			h[0] = h[--n];	/* its share is done */
		ready_down(h, n, 0);	/* its clock moved on */
	}
	vcpus_join(m);
}

static bool populate(struct synth_model *m)
{
	phase_begin(m, "populate");
	guest_pass(m, 1, true);
	return phase_end(m, "populate");
}

static bool enable(struct synth_model *m)
{
	struct synth_thread *t = &m->main;

	phase_begin(m, "enable_dirty_logging");
	if (m->o->lost_events)
		m->lost_armed = true;
	t->clock += synth_cost(m, T_IOCTL);
	m->logging = true;
	if (m->o->clear_log) {
		/* KVM_DIRTY_LOG_INITIALLY_SET: every page dirty, nothing protected */
		memset(m->dirty, 0xff, (m->slot_pages + 63) / 64 * sizeof(*m->dirty));
		if (m->slot_pages % 64)
			m->dirty[m->slot_pages / 64] = (1ULL << (m->slot_pages % 64)) - 1;
	} else {
		memset(m->dirty, 0, (m->slot_pages + 63) / 64 * sizeof(*m->dirty));
		if (m->o->eager_split) {
			synth_kprobe(m, t, "kvm_mmu_slot_try_split_huge_pages");
			synth_mmu_split_slot(m, t);
		}
		if (m->o->pml) {
			synth_kprobe(m, t, "kvm_mmu_slot_leaf_clear_dirty");
			synth_mmu_protect_slot(m, t, 1, true);
		}
		synth_kprobe(m, t, "kvm_mmu_slot_remove_write_access");
		synth_mmu_protect_slot(m, t, m->o->pml ? 2 : 1, false);
		synth_flush(m, t, false, true);
	}
	return phase_end(m, "enable_dirty_logging");
}

/*
 * KVM_GET_DIRTY_LOG (@clear false, without manual protection) or
 * KVM_CLEAR_DIRTY_LOG (@clear true): re-protect the dirty pages a word of
 * the bitmap at a time, then flush once if any was dirty.
 */
static void harvest(struct synth_model *m)
{
	struct synth_thread *t = &m->main;
	bool flush = false;

	t->clock += synth_cost(m, T_IOCTL);
	for (uint64_t w = 0; w < (m->slot_pages + 63) / 64 && !m->r; w++) {
		uint64_t mask = m->dirty[w];

		t->clock += T_HARVEST_WORD;
		if (!mask)
			continue;
		m->dirty[w] = 0;
		flush = true;
		synth_kprobe(m, t, "kvm_arch_mmu_enable_log_dirty_pt_masked");
		synth_mmu_protect_masked(m, t, m->slot_gfn + w * 64, mask);
	}
	if (flush)
		synth_flush(m, t, false, m->k->harvest_probes_memslot);
}

static bool dirty_pass(struct synth_model *m, unsigned int i)
{
	char name[32];

	snprintf(name, sizeof(name), "dirty_pass_%u", i);
	phase_begin(m, name);
	guest_pass(m, 100 / m->o->percent, false);
	if (phase_end(m, name))
		return true;
	snprintf(name, sizeof(name), "get_dirty_log_%u", i);
	phase_begin(m, name);
	if (!m->o->clear_log)
		harvest(m);
	else
		m->main.clock += synth_cost(m, T_IOCTL);	/* only copies the bitmap */
	if (phase_end(m, name))
		return true;
	if (!m->o->clear_log)
		return false;
	snprintf(name, sizeof(name), "clear_dirty_log_%u", i);
	phase_begin(m, name);
	harvest(m);
	return phase_end(m, name);
}

static bool disable(struct synth_model *m)
{
	struct synth_thread *t = &m->main;

	phase_begin(m, "disable_dirty_logging");
	t->clock += synth_cost(m, T_IOCTL);
	m->logging = false;
	if (m->k->disable == DISABLE_RECOVER) {
		synth_kprobe(m, t, "kvm_mmu_recover_huge_pages");
		synth_kprobe(m, t, "kvm_tdp_mmu_recover_huge_pages");
	} else {
		synth_kprobe(m, t, "kvm_mmu_zap_collapsible_sptes");
		synth_kprobe(m, t, "kvm_tdp_mmu_zap_collapsible_sptes");
	}
	synth_mmu_collapse(m, t);
	return phase_end(m, "disable_dirty_logging");
}

static bool repopulate(struct synth_model *m)
{
	phase_begin(m, "repopulate");
	guest_pass(m, 1, false);
	return phase_end(m, "repopulate");
}

static void run(struct synth_model *m)
{
	phase_begin(m, "setup");
	m->main.clock += synth_cost(m, T_SETUP);
	if (phase_end(m, "setup") || populate(m))
		return;
	for (unsigned int c = 1; c <= m->o->cycles; c++) {
		if (m->o->cycles > 1)
			marker(m, "cycle=%u begin", c);
		if (enable(m))
			return;
		for (unsigned int i = 1; i <= m->o->passes; i++)
			if (dirty_pass(m, i))
				return;
		if (disable(m) || repopulate(m))
			return;
	}
	phase_begin(m, "teardown");
	m->main.clock += synth_cost(m, T_TEARDOWN);
	synth_mmu_teardown(m, &m->main);
	phase_end(m, "teardown");
}

static int setup(struct synth_model *m)
{
	const struct msc_synth_opts *o = m->o;
	struct msc_host host;
	unsigned int cpus = nr_cpus(o);

	msc_host_init(&host);
	host.vendor = o->vendor;
	host.kver = m->k->kver;
	host.ept_ad = true;
	msc_spte_layout_init(&m->l, &host);
	if (o->vendor == MSC_VENDOR_EPT) {
		/*
		 * R | X | WB memory type | IPAT; bit 63 is suppress-#VE since
		 * 6.10, XU goes with X since 7.x (the layout's user_exec)
		 */
		uint64_t ve = m->l.nonpresent;

		m->leaf_bits = BIT_ULL(0) | BIT_ULL(2) | 6ULL << 3 | BIT_ULL(6) | m->l.user_exec | ve;
		m->table_bits = BIT_ULL(0) | BIT_ULL(2) | m->l.user_exec | ve;
	} else {
		/* P | U */
		m->leaf_bits = m->table_bits = BIT_ULL(0) | BIT_ULL(2);
	}
	/* the tdp_mmu role: direct, ACC_ALL, efer_nx, cr0_wp (after invalid) */
	m->root_access = (1u << m->l.role_access_bits) - 1;
	m->role = 1u << 7 | m->root_access << 8 | 1u << (8 + m->l.role_access_bits + 1) |
		  1u << (8 + m->l.role_access_bits + 2);
	/* 7.x traces the root's access in kvm_mmu_spte_requested */
	m->req_access = synth_formats_has_field(m->f, "kvmmmu", "kvm_mmu_spte_requested",
						"access");
	m->slot_gfn = 0x40000;		/* dirtylog's slot at 1 GiB */
	m->slot_pages = o->guest_mib * 256;
	m->backing_level = o->backing == MSC_SYNTH_BACKING_1G ? 3 :
			   o->backing == MSC_SYNTH_BACKING_2M ? 2 : 1;
	m->rng = o->seed ? o->seed : 1;
	m->vcpus = calloc(o->vcpus, sizeof(*m->vcpus));
	m->ready = calloc(o->vcpus, sizeof(*m->ready));
	m->cpu_clock = calloc(cpus, sizeof(*m->cpu_clock));
	if (!m->vcpus || !m->ready || !m->cpu_clock)
		return -ENOMEM;
	m->main = (struct synth_thread){ .pid = MAIN_PID, .cpu = 0, .vcpu = -1,
					 .clock = 1000000000ULL };
	for (unsigned int i = 0; i < o->vcpus; i++)
		m->vcpus[i] = (struct synth_thread){ .pid = MAIN_PID + 1 + (int)i,
						     .cpu = (1 + i) % cpus, .vcpu = (int)i };
	m->stats->nr_cpus = cpus;
	return synth_mmu_init(m);
}

/**
 * msc_synth_run - run a scenario, handing every event to @emit
 * @o: the scenario (msc_synth_opts_check() first)
 * @f: the formats of o->kernel: events they lack (kprobes) are not made
 * @emit: called with each event, per CPU in time order; a negative return
 *        stops the run and is returned
 * @ctx: passed to @emit
 * @ret: what the model did
 *
 * Returns 0, -EINVAL for a scenario msc_synth_opts_check() rejects,
 * -ENOMEM, or @emit's error.
 */
int msc_synth_run(const struct msc_synth_opts *o, const struct msc_synth_formats *f,
		  msc_synth_emit_fn emit, void *ctx, struct msc_synth_stats *ret)
{
	struct synth_model m = { .o = o, .f = f, .emit = emit, .ctx = ctx, .stats = ret };
	char why[128];
	int r;

	*ret = (struct msc_synth_stats){ 0 };
	if (msc_synth_opts_check(o, why, sizeof(why)))
		return -EINVAL;
	m.k = find_kernel(o->kernel);
	r = setup(&m);
	if (!r) {
		run(&m);
		r = m.r;
	}
	ret->pages_4k = m.leaves[1];
	ret->pages_2m = m.leaves[2];
	ret->pages_1g = m.leaves[3];
	ret->remote_tlb_flush_requests = m.flushes;
	synth_mmu_release(&m);
	free(m.vcpus);
	free(m.ready);
	free(m.cpu_clock);
	return r;
}
