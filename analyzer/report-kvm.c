// SPDX-License-Identifier: GPL-2.0-only
/*
 * KVM's own counters around each step, as `record` read them
 * (kvm_stats_sample): the census before and after, and the flushes and
 * faults in between.  A light recording traces no SPTE, so these are its
 * census and counts; a full one has them beside the rebuilt census.
 *
 * A step's counters are those of its VM's debugfs directory, named
 * "<pid>-<fd>" after KVM_CREATE_VM's thread and result; a capture whose
 * VM was created before it began has them when it sampled one VM only.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "report.h"
#include "mmuscope/live.h"

/* The debugfs name of VM @id into @buf; NULL when not known (read every VM). */
static const char *vm_name(const struct msc_vm *vms, size_t nr, int64_t id, char *buf,
			   size_t size)
{
	for (size_t i = 0; i < nr; i++)
		if (vms[i].id == id)
			return msc_vm_stats_name(&vms[i], buf, size);
	return NULL;
}

/*
 * The other steps of @ph[i]'s VM (phases that are not a workload's) that
 * end before it begins and begin after it ends, the nearest of each; NULL
 * for none.  @ph is in start order.
 */
static void neighbours(const struct msc_phase *ph, size_t nr, size_t i,
		       const struct msc_phase **prev, const struct msc_phase **next)
{
	const struct msc_phase *p = &ph[i];

	*prev = *next = NULL;
	for (size_t j = i; j-- > 0 && !*prev;)
		if (ph[j].vm == p->vm && ph[j].kind != MSC_PHASE_WORKLOAD &&
		    ph[j].end_ts <= p->start_ts)
			*prev = &ph[j];
	for (size_t j = i + 1; j < nr && !*next; j++)
		if (ph[j].vm == p->vm && ph[j].kind != MSC_PHASE_WORKLOAD &&
		    ph[j].start_ts >= p->end_ts)
			*next = &ph[j];
}

/*
 * A read is the step's own when no other step of its VM ran between it and
 * the step: else that step's changes may be in it (or missing from it).
 */
static void keep_own(struct report_kvm *k, const struct msc_phase *prev,
		     const struct msc_phase *next)
{
	if (k->before.vms && prev && k->before.ts < prev->end_ts) {
		k->before.vms = 0;
		k->before_other = prev->id;
	}
	/* ts 0: unchanged to the end, but not known when read */
	if (k->after.vms && next && (!k->after.ts || k->after.ts > next->start_ts)) {
		k->after.vms = 0;
		k->after_other = next->id;
	}
}

/**
 * report_kvm_load - KVM's counters around each phase
 * @ph: the phases, in start order
 * @ret: one per phase, in @ph's order; NULL when the capture has none
 *	(no recording sampled it), else freed by the caller
 *
 * A phase whose VM is not named, in a capture that sampled several VMs,
 * gets none (vms 0): their sum is not its counters.  Nor does a side whose
 * read is not the phase's own (keep_own()).
 */
int report_kvm_load(struct msc_store *s, int64_t capture_id, const struct msc_vm *vms,
		    size_t nr_vms, const struct msc_phase *ph, size_t nr,
		    struct report_kvm **ret)
{
	struct msc_kvm_reads *kr;
	struct report_kvm *k = NULL;
	int r;

	*ret = NULL;
	r = msc_kvm_reads_open(s, capture_id, &kr);
	if (r)
		return r;
	if (!msc_kvm_reads_vms(kr) || !nr) {
		msc_kvm_reads_close(kr);
		return 0;
	}
	k = calloc(nr, sizeof(*k));
	if (!k)
		r = -ENOMEM;
	for (size_t i = 0; i < nr && !r; i++) {
		const struct msc_phase *prev, *next;
		char buf[32];
		const char *vm = vm_name(vms, nr_vms, ph[i].vm, buf, sizeof(buf));

		r = msc_kvm_read_at(kr, vm, ph[i].start_ts, false, &k[i].before);
		if (!r)
			r = msc_kvm_read_at(kr, vm, ph[i].end_ts, true, &k[i].after);
		if (!vm && msc_kvm_reads_vms(kr) > 1)
			k[i] = (struct report_kvm){ 0 };
		neighbours(ph, nr, i, &prev, &next);
		keep_own(&k[i], prev, next);
	}
	msc_kvm_reads_close(kr);
	if (r) {
		free(k);
		return r;
	}
	*ret = k;
	return 0;
}

/** report_kvm_moved - did any of KVM's counters move between the two reads? */
bool report_kvm_moved(const struct report_kvm *k)
{
	const struct msc_kvm_read *a = &k->before, *b = &k->after;

	if (!a->vms || !b->vms)
		return false;
	for (int l = 1; l <= 3; l++)
		if (a->pages[l] != b->pages[l])
			return true;
	return a->flushes != b->flushes || a->faults != b->faults ||
	       a->faults_fast != b->faults_fast || a->faults_fixed != b->faults_fixed;
}

static void census_of(const struct msc_kvm_read *k, struct msc_census *c)
{
	*c = (struct msc_census){ .ts = k->ts };
	for (int l = 1; l <= 3; l++)
		c->pages[l] = k->pages[l] < 0 ? 0 : k->pages[l];
}

static const char *delta_text(int64_t a, int64_t b, char *buf, size_t size)
{
	if (a < 0 || b < 0)
		snprintf(buf, size, "not exported");
	else
		snprintf(buf, size, "%" PRId64, b - a);
	return buf;
}

static void text_side(FILE *f, const char *side, const struct msc_kvm_read *k, int64_t other,
		      double ms, const char *when)
{
	struct msc_census c;
	double pct;

	if (!k->vms) {
		if (other)
			fprintf(f, "    KVM %s not read %s [%" PRId64 "]\n", side,
				*side == 'b' ? "since the end of" : "before the start of", other);
		return;
	}
	census_of(k, &c);
	pct = report_huge_pct(&c);
	fprintf(f, "    KVM %s 4K %" PRId64 "  2M %" PRId64 "  1G %" PRId64 " (%.1f%% huge), ", side,
		c.pages[1], c.pages[2], c.pages[3], pct < 0 ? 0 : pct);
	if (ms >= 0)
		fprintf(f, "read %.3f ms %s\n", ms, when);
	else
		fprintf(f, "unchanged up to the recording's end\n");
}

/**
 * report_kvm_text - a step's census before and after, KVM's own, and the
 *	flushes and faults between those reads; nothing without them
 */
void report_kvm_text(FILE *f, const struct report_kvm *k, const struct msc_phase *p)
{
	char fl[32], pf[32], fast[32], fixed[32];

	if (!k)
		return;
	text_side(f, "before:", &k->before, k->before_other,
		  (double)(p->start_ts - k->before.ts) / 1e6, "before the start");
	text_side(f, "after: ", &k->after, k->after_other,
		  k->after.ts ? (double)(k->after.ts - p->end_ts) / 1e6 : -1, "after the end");
	if (!k->before.vms || !k->after.vms)
		return;
	fprintf(f, "    KVM between those reads: TLB flushes %s, ",
		delta_text(k->before.flushes, k->after.flushes, fl, sizeof(fl)));
	if (k->before.fault_vcpus != k->after.fault_vcpus)
		fprintf(f, "faults not compared (summed over %" PRId64 " vCPUs, then %" PRId64 ")\n",
			k->before.fault_vcpus, k->after.fault_vcpus);
	else
		fprintf(f, "faults %s (fast path %s, fixed %s)\n",
			delta_text(k->before.faults, k->after.faults, pf, sizeof(pf)),
			delta_text(k->before.faults_fast, k->after.faults_fast, fast, sizeof(fast)),
			delta_text(k->before.faults_fixed, k->after.faults_fixed, fixed,
				   sizeof(fixed)));
}

static void json_read(FILE *f, const char *name, const struct msc_kvm_read *k, int64_t age_ns)
{
	const int64_t v[] = { k->pages[1], k->pages[2], k->pages[3], k->flushes, k->faults,
			      k->faults_fast, k->faults_fixed, k->fault_vcpus };
	static const char *const names[] = { "pages_4k", "pages_2m", "pages_1g",
					     "remote_tlb_flush_requests", "pf_taken", "pf_fast",
					     "pf_fixed", "pf_vcpus" };

	fprintf(f, "\"%s\": {", name);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (v[i] < 0)
			fprintf(f, "\"%s\": null, ", names[i]);
		else
			fprintf(f, "\"%s\": %" PRId64 ", ", names[i], v[i]);
	if (age_ns >= 0)
		fprintf(f, "\"read_ns\": %" PRId64 "}", age_ns);
	else
		fprintf(f, "\"read_ns\": null}");
}

/**
 * report_kvm_json - ", \"kvm\": {...}" of a step, or ", \"kvm\": null"
 *
 * read_ns: how long before the start (before) or after the end (after)
 * the counters were read; null after: unchanged to the recording's end.
 * A side null: not read between the step and the step of its VM beside it.
 * pf_vcpus: the vCPUs whose faults were summed from their stats fds (null:
 * KVM's debugfs sums over all); the two sides' faults compare when equal.
 */
void report_kvm_json(FILE *f, const struct report_kvm *k, const struct msc_phase *p)
{
	if (!k || (!k->before.vms && !k->after.vms)) {
		fprintf(f, ", \"kvm\": null");
		return;
	}
	fprintf(f, ", \"kvm\": {");
	if (k->before.vms)
		json_read(f, "before", &k->before, (int64_t)(p->start_ts - k->before.ts));
	else
		fprintf(f, "\"before\": null");
	fprintf(f, ", ");
	if (k->after.vms)
		json_read(f, "after", &k->after,
			  k->after.ts ? (int64_t)(k->after.ts - p->end_ts) : -1);
	else
		fprintf(f, "\"after\": null");
	fprintf(f, "}");
}
