// SPDX-License-Identifier: GPL-2.0-only
/*
 * The synthetic trace path end to end, read by the real libraries: the
 * model's events go through the writer into a fake tracing directory,
 * come back through libtracefs (an instance, as the live recorder opens
 * it) and mmuscope's decoder, and through libtracecmd as a trace.dat; both
 * must give back exactly the events the model made.  Then what the model
 * does per kernel and vendor, checked on its events.
 */
#include "mmuscope/synth.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <traceevent/event-parse.h>
#include <tracefs/tracefs.h>

#include "mmuscope/decode.h"
#include "mmuscope/event.h"
#include "mmuscope/host.h"
#include "mmuscope/source.h"
#include "test.h"

#define NCPUS 2

/* Every event the model made, as text, per CPU; optionally written too. */
struct capture {
	char **lines[NCPUS];
	size_t nr[NCPUS], alloc[NCPUS];
	struct msc_synth_writer *w;
	uint64_t by_class[MSC_CLASS_NR];
	struct msc_host_guess guess;
};

static int capture_event(void *ctx, const struct msc_event *ev)
{
	struct capture *c = ctx;
	char line[MSC_EVENT_LINE_MAX];
	unsigned int cpu = ev->cpu;

	if (cpu >= NCPUS)
		return -EINVAL;
	msc_host_guess_add(&c->guess, ev);
	if (c->nr[cpu] == c->alloc[cpu]) {
		c->alloc[cpu] = c->alloc[cpu] ? 2 * c->alloc[cpu] : 1024;
		c->lines[cpu] = realloc(c->lines[cpu], c->alloc[cpu] * sizeof(char *));
	}
	msc_event_format(ev, line, sizeof(line));
	c->lines[cpu][c->nr[cpu]++] = strdup(line);
	return c->w ? msc_synth_writer_add(c->w, ev) : 0;
}

static void capture_free(struct capture *c)
{
	for (int cpu = 0; cpu < NCPUS; cpu++) {
		for (size_t i = 0; i < c->nr[cpu]; i++)
			free(c->lines[cpu][i]);
		free(c->lines[cpu]);
	}
}

static struct msc_synth_formats *formats(const char *name)
{
	struct msc_synth_formats *f = NULL;
	char dir[512], err[512];

	snprintf(dir, sizeof(dir), "%s/formats/%s", test_data_dir(), name);
	if (msc_synth_formats_open(dir, &f, err, sizeof(err)))
		test_fail(__FILE__, __LINE__, "%s", err);
	return f;
}

static void t_formats(void)
{
	struct msc_synth_formats *f = formats("6.1");
	char err[512] = "";

	if (check(f)) {
		check(msc_synth_formats_has(f, "kvmmmu", "kvm_tdp_mmu_spte_changed"));
		check(msc_synth_formats_has(f, NULL, "kvm_flush_remote_tlbs_with_address"));
		check(!msc_synth_formats_has(f, "kvmmmu", "kvm_flush_remote_tlbs_range"));
		check_str(msc_synth_formats_release(f), "6.1.0-57-amd64");
		check_int(msc_ringbuf_page_size(msc_synth_formats_layout(f)), ==, 4096);
	}
	msc_synth_formats_free(f);
	f = formats("7.3");
	if (check(f)) {
		check(msc_synth_formats_has(f, NULL, "kvm_mmu_recover_huge_pages"));
		check(!msc_synth_formats_has(f, NULL, "kvm_mmu_zap_collapsible_sptes"));
		check_str(msc_synth_formats_release(f), "7.3.4+deb13-amd64");
		check_int(msc_ringbuf_page_size(msc_synth_formats_layout(f)), ==, 4096);
	}
	msc_synth_formats_free(f);
	f = NULL;
	check_int(msc_synth_formats_open("/nonexistent", &f, err, sizeof(err)), ==, -ENOENT);
	check(f == NULL);
	check(strstr(err, "/nonexistent") != NULL);
}

static void scenario(struct msc_synth_opts *o, const char *kernel, uint64_t mib)
{
	msc_synth_opts_init(o);
	o->kernel = kernel;
	o->guest_mib = mib;
	o->cpus = NCPUS;
	o->passes = 2;
}

static void tmpdir(char *buf, size_t size)
{
	snprintf(buf, size, "%s/msc-t-synth.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(buf))
		test_fail(__FILE__, __LINE__, "mkdtemp: %s", strerror(errno));
}

static void rm_rf(const char *dir)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		test_fail(__FILE__, __LINE__, "%s failed", cmd);
}

/* The model's events into DIR (instance @instance); returns the writer's result. */
static int generate(const struct msc_synth_opts *o, const struct msc_synth_formats *f,
		    struct msc_synth_dir *d, struct capture *c, struct msc_synth_stats *st)
{
	int fds[NCPUS], r;
	char path[1024];

	r = msc_synth_dir_create(d, f);
	for (unsigned int cpu = 0; !r && cpu < NCPUS; cpu++) {
		msc_synth_dir_cpu_path(d, cpu, path, sizeof(path));
		fds[cpu] = open(path, O_WRONLY | O_TRUNC);
		if (fds[cpu] < 0)
			r = -errno;
	}
	if (!r)
		r = msc_synth_writer_open(f, NCPUS, fds, &c->w);
	if (!r)
		r = msc_synth_run(o, f, capture_event, c, st);
	if (!r)
		r = msc_synth_writer_close(c->w);
	msc_synth_writer_free(c->w);
	c->w = NULL;
	for (unsigned int cpu = 0; cpu < NCPUS; cpu++)
		close(fds[cpu]);
	return r;
}

struct readback {
	struct capture *want;
	struct msc_decoder *dec;
	size_t next[NCPUS];
	size_t mismatches, missed_at;
	long long missed;
};

static int read_record(struct tep_event *event, struct tep_record *rec, int cpu, void *ctx)
{
	struct readback *rb = ctx;
	char line[MSC_EVENT_LINE_MAX];
	struct msc_event ev;

	if (cpu >= NCPUS || msc_decoder_decode(rb->dec, rec, &ev) <= 0) {
		rb->mismatches++;
		return 0;
	}
	if (rec->missed_events) {
		rb->missed = rec->missed_events;
		rb->missed_at = rb->next[cpu];
	}
	ev.cpu = (uint16_t)cpu;
	msc_event_format(&ev, line, sizeof(line));
	if (rb->next[cpu] >= rb->want->nr[cpu] ||
	    strcmp(line, rb->want->lines[cpu][rb->next[cpu]])) {
		if (!rb->mismatches++)
			test_fail(__FILE__, __LINE__, "cpu %d event %zu: got \"%s\", want \"%s\"", cpu,
				  rb->next[cpu], line, rb->next[cpu] < rb->want->nr[cpu] ?
				  rb->want->lines[cpu][rb->next[cpu]] : "(end)");
	}
	rb->next[cpu]++;
	return 0;
}

/* The model's LOST mark sits before the first event after the gap. */
static size_t lost_index(const struct capture *c, unsigned int cpu)
{
	for (size_t i = 0; i < c->nr[cpu]; i++)
		if (strstr(c->lines[cpu][i], " lost "))
			return i;
	return (size_t)-1;
}

static void drop_lost(struct capture *c, unsigned int cpu, size_t at)
{
	free(c->lines[cpu][at]);
	memmove(&c->lines[cpu][at], &c->lines[cpu][at + 1],
		(c->nr[cpu] - at - 1) * sizeof(char *));
	c->nr[cpu]--;
}

static void t_tracefs_instance(void)
{
	struct msc_synth_formats *f = formats("6.12");
	const char *systems[] = { "kvmmmu", "kvm", "ftrace", "lab", NULL };
	struct capture c = { 0 };
	struct readback rb = { .want = &c };
	struct msc_synth_stats st;
	struct msc_synth_opts o;
	struct msc_synth_dir d;
	struct tracefs_instance *inst = NULL;
	struct tep_handle *tep = NULL;
	cpu_set_t *set = NULL;
	char dir[256], path[512], buf[8] = "";
	size_t lost_at;
	FILE *fp;

	tmpdir(dir, sizeof(dir));
	scenario(&o, "6.12", 32);
	o.lost_events = 100;
	d = (struct msc_synth_dir){ .path = dir, .instance = "mmuscope", .nr_cpus = NCPUS };
	if (!f || !check_int(generate(&o, f, &d, &c, &st), ==, 0))
		goto out;
	check_uint(st.lost, ==, 100);
	lost_at = lost_index(&c, 0);
	if (!check(lost_at != (size_t)-1))
		goto out;
	drop_lost(&c, 0, lost_at);	/* a reader sees it as the record's missed count */

	/* the instance is there, as after `mkdir instances/mmuscope` on tracefs */
	check_int(tracefs_set_tracing_dir(dir), ==, 0);
	inst = tracefs_instance_create("mmuscope");
	if (!check(inst))
		goto out;
	check(!tracefs_instance_is_new(inst));
	check_int(tracefs_event_enable(inst, "kvmmmu", NULL), ==, 0);
	snprintf(path, sizeof(path), "%s/instances/mmuscope/events/kvmmmu/enable", dir);
	fp = fopen(path, "r");
	check(fp && fgets(buf, sizeof(buf), fp) && buf[0] == '1');
	if (fp)
		fclose(fp);

	/* every record comes back through libtracefs and the decoder, per CPU in order */
	tep = tracefs_local_events_system(dir, systems);
	if (!check(tep) || !check_int(msc_decoder_new(tep, &rb.dec), ==, 0))
		goto out;
	set = CPU_ALLOC(NCPUS);
	CPU_ZERO_S(CPU_ALLOC_SIZE(NCPUS), set);
	for (int cpu = 0; cpu < NCPUS; cpu++)
		CPU_SET_S(cpu, CPU_ALLOC_SIZE(NCPUS), set);
	check_int(tracefs_iterate_raw_events(tep, inst, set, CPU_ALLOC_SIZE(NCPUS), read_record,
					     &rb), ==, 0);
	check_int(rb.mismatches, ==, 0);
	for (int cpu = 0; cpu < NCPUS; cpu++)
		check_int(rb.next[cpu], ==, c.nr[cpu]);
	check_int(rb.missed, ==, 100);
	check_int(rb.missed_at, ==, lost_at);
	check_int(c.nr[0] + c.nr[1], ==, st.events - 1);
out:
	if (set)
		CPU_FREE(set);
	msc_decoder_free(rb.dec);
	if (tep)
		tep_free(tep);
	if (inst)
		tracefs_instance_free(inst);
	capture_free(&c);
	msc_synth_formats_free(f);
	rm_rf(dir);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void t_tracedat(const char *kernel)
{
	struct msc_synth_formats *f = formats(msc_synth_formats_name(kernel));
	struct capture c = { 0 };
	struct msc_synth_stats st;
	struct msc_synth_opts o;
	struct msc_synth_dir d;
	struct msc_source *src = NULL;
	char dir[256], dat[300], kallsyms[300], cpu0[300], cpu1[300];
	char *files[NCPUS] = { cpu0, cpu1 }, **want = NULL, **got = NULL;
	char uname[64], release[32];
	size_t n = 0, ngot = 0, bad = 0;
	struct msc_event ev;
	int r;

	tmpdir(dir, sizeof(dir));
	scenario(&o, kernel, 16);
	o.lost_events = 7;
	snprintf(release, sizeof(release), "%s.0-synth", kernel);
	snprintf(uname, sizeof(uname), "Linux synth %s x86_64", release);
	d = (struct msc_synth_dir){ .path = dir, .nr_cpus = NCPUS };
	if (!f || !check_int(generate(&o, f, &d, &c, &st), ==, 0))
		goto out;
	snprintf(dat, sizeof(dat), "%s/t.dat", dir);
	snprintf(kallsyms, sizeof(kallsyms), "%s/kallsyms", dir);
	msc_synth_dir_cpu_path(&d, 0, cpu0, sizeof(cpu0));
	msc_synth_dir_cpu_path(&d, 1, cpu1, sizeof(cpu1));
	if (!check_int(msc_tracedat_write(dat, dir, kallsyms, NCPUS, files, 7, "zstd", uname),
		       ==, 0) ||
	    !check_int(msc_source_open_tracedat(dat, &src, NULL, 0), ==, 0))
		goto out;
	check_str(msc_source_info(src)->compression, "zstd");
	check_int(msc_source_info(src)->file_version, ==, 7);
	check_str(msc_source_info(src)->host.release, release);
	want = calloc(st.events, sizeof(char *));
	got = calloc(st.events + 1, sizeof(char *));
	for (int cpu = 0; cpu < NCPUS; cpu++)
		for (size_t i = 0; i < c.nr[cpu]; i++)
			want[n++] = c.lines[cpu][i];
	while (ngot <= st.events && (r = msc_source_next(src, &ev)) > 0) {
		char line[MSC_EVENT_LINE_MAX];

		msc_event_format(&ev, line, sizeof(line));
		got[ngot++] = strdup(line);
	}
	check_int(ngot, ==, n);
	qsort(want, n, sizeof(char *), cmp_str);
	qsort(got, ngot, sizeof(char *), cmp_str);
	for (size_t i = 0; i < n && i < ngot; i++)
		if (strcmp(want[i], got[i]) && !bad++)
			test_fail(__FILE__, __LINE__, "got \"%s\", want \"%s\"", got[i], want[i]);
	check_int(bad, ==, 0);
out:
	msc_source_close(src);
	for (size_t i = 0; i < ngot; i++)
		free(got[i]);
	free(got);
	free(want);
	capture_free(&c);
	msc_synth_formats_free(f);
	rm_rf(dir);
}

/* Run a scenario without writing; count the events' change classes. */
static int run_classified(const struct msc_synth_opts *o, struct capture *c,
			  struct msc_synth_stats *st)
{
	struct msc_synth_formats *f = formats(msc_synth_formats_name(o->kernel));
	int r = f ? msc_synth_run(o, f, capture_event, c, st) : -1;
	struct msc_classifier cl;
	struct msc_host host;

	msc_synth_formats_free(f);
	if (r)
		return r;
	char note[256];

	/* what `mmuscope import --host ept_ad=y` knows of a trace.dat's host */
	msc_host_init(&host);
	host.kver = msc_kver_parse(o->kernel);
	host.ept_ad = true;
	msc_host_guess_apply(&c->guess, &host, note, sizeof(note));
	msc_classifier_init(&cl, &host);
	for (int cpu = 0; cpu < NCPUS; cpu++)
		for (size_t i = 0; i < c->nr[cpu]; i++) {
			struct msc_event ev;

			if (msc_event_parse(c->lines[cpu][i], &ev))
				continue;
			msc_classifier_apply(&cl, &ev);
			if (ev.type == MSC_EV_SPTE_CHANGED)
				c->by_class[ev.spte.class]++;
		}
	msc_classifier_release(&cl);
	return 0;
}

static void t_recover_613(void)
{
	struct capture c = { 0 };
	struct msc_synth_stats st;
	struct msc_synth_opts o;

	scenario(&o, "6.13", 32);
	o.stop_after = "disable_dirty_logging";
	if (!check_int(run_classified(&o, &c, &st), ==, 0))
		goto out;
	/* 16 tables become 2M leaves in place, their 8192 children go FROZEN */
	check_uint(c.by_class[MSC_CLASS_PROMOTE], ==, 16);
	check_uint(c.by_class[MSC_CLASS_TEARDOWN_CHILD], ==, 8192);
	check_uint(c.by_class[MSC_CLASS_ZAP_SUBTREE], ==, 0);
	check_uint(st.pages_2m, ==, 16);
	check_uint(st.pages_4k, ==, 1);
	/* enable, two harvests, and one flush for the whole memslot */
	check_uint(st.remote_tlb_flush_requests, ==, 4);
	check_uint(st.by_type[MSC_EV_KPROBE], ==, 0);	/* 6.18's formats have no lab probes */
out:
	capture_free(&c);
}

/* The first event of @type on @cpu's lines, parsed; false if there is none. */
static bool first_event(const struct capture *c, unsigned int cpu, int type,
			struct msc_event *ret)
{
	for (size_t i = 0; i < c->nr[cpu]; i++)
		if (!msc_event_parse(c->lines[cpu][i], ret) && ret->type == type)
			return true;
	return false;
}

static void t_kernel_73(void)
{
	struct capture c = { 0 }, old = { 0 };
	struct msc_synth_stats st, ost;
	struct msc_synth_opts o;
	struct msc_event ev, prev = { 0 };
	size_t roles = 0, bad_roles = 0, promotes = 0, after_children = 0;
	bool disable = false;

	scenario(&o, "7.3", 32);
	o.stop_after = "disable_dirty_logging";
	if (!check_int(run_classified(&o, &c, &st), ==, 0))
		goto out;
	/* 7.3's formats have the access field: the root's ACC_ALL, R|W|U|X */
	check(first_event(&c, 1, MSC_EV_SPTE_REQUESTED, &ev) && ev.req.access == 15);
	/* 4-bit role access: direct rwux, efer_nx and cr0_wp one bit up from 6.x */
	for (int cpu = 0; cpu < NCPUS; cpu++)
		for (size_t i = 0; i < c.nr[cpu]; i++)
			if (!msc_event_parse(c.lines[cpu][i], &ev) &&
			    (ev.type == MSC_EV_GET_PAGE || ev.type == MSC_EV_ZAP_PAGE)) {
				roles++;
				bad_roles += (ev.sp.role & ~0xfu) != 0x6f80;
			}
	check_uint(roles, >, 16);
	check_uint(bad_roles, ==, 0);
	/* the disable: each table's children go FROZEN (0x1a0) before the parent is promoted */
	for (size_t i = 0; i < c.nr[0]; i++) {
		if (msc_event_parse(c.lines[0][i], &ev))
			continue;
		if (ev.type == MSC_EV_MARKER)
			disable = strstr(ev.marker.text, "phase=disable_dirty_logging begin") ||
				  (disable && !strstr(ev.marker.text, "phase=disable_dirty_logging end"));
		if (disable && ev.type == MSC_EV_SPTE_CHANGED && ev.spte.level == 2 &&
		    (ev.spte.new_spte & (1ULL << 7))) {
			promotes++;
			/* the last of its own children, not the previous table's */
			after_children += prev.type == MSC_EV_SPTE_CHANGED && prev.spte.level == 1 &&
					  prev.spte.new_spte == 0x80000000000001a0ULL &&
					  prev.spte.gfn == ev.spte.gfn + 511;
		}
		prev = ev;
	}
	check_uint(promotes, ==, 16);
	check_uint(after_children, ==, 16);
	check_uint(c.by_class[MSC_CLASS_PROMOTE], ==, 16);
	check_uint(c.by_class[MSC_CLASS_TEARDOWN_CHILD], ==, 8192);
	check_uint(st.pages_2m, ==, 16);
	check_uint(st.remote_tlb_flush_requests, ==, 4);
	/* the capture's probes: recovery, then one memslot flush at the end */
	check_uint(st.by_type[MSC_EV_KPROBE], ==, 4 + 2 * (128 + 1) + 2 + 2);

	/* the same scenario on 6.12: no access field (-1), 3-bit roles */
	scenario(&o, "6.12", 32);
	o.stop_after = "populate";
	if (!check_int(run_classified(&o, &old, &ost), ==, 0))
		goto out;
	check(first_event(&old, 1, MSC_EV_SPTE_REQUESTED, &ev) && ev.req.access == -1);
	check(first_event(&old, 1, MSC_EV_GET_PAGE, &ev) && ev.sp.role == 0x3784);
out:
	capture_free(&c);
	capture_free(&old);
}

static void t_ept_pml(void)
{
	struct capture c = { 0 };
	struct msc_synth_stats st;
	struct msc_synth_opts o;
	struct msc_host host;
	char note[256];

	scenario(&o, "6.12", 16);
	o.vendor = MSC_VENDOR_EPT;
	o.pml = true;
	o.kprobes = false;
	if (!check_int(run_classified(&o, &c, &st), ==, 0))
		goto out;
	msc_host_init(&host);
	msc_host_guess_apply(&c.guess, &host, note, sizeof(note));
	check_int(host.vendor, ==, MSC_VENDOR_EPT);
	/* PML: no write faults while logging; D bits cleared at enable and at each harvest */
	check_uint(st.by_type[MSC_EV_FAST_PF], ==, 0);
	check_uint(c.by_class[MSC_CLASS_CLEAR_DIRTY], ==, 3 * 4096);
	check_uint(c.by_class[MSC_CLASS_WRITE_PROTECT], ==, 0);
	check_uint(c.by_class[MSC_CLASS_SPLIT], ==, 8);
out:
	capture_free(&c);
}

/*
 * The flag bits (all but the address) of the present SPTEs in
 * tests/data/ept-samples.txt, real EPT teardowns, by era: [0] before 6.10
 * (non-present 0), [1] since (non-present and suppress-#VE bit 63).
 */
struct ept_flags {
	uint64_t v[2][16];
	size_t n[2];
};

#define ADDR_BITS 0x000ffffffffff000ULL

static void read_ept_samples(struct ept_flags *e)
{
	char path[512], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/ept-samples.txt", test_data_dir());
	f = fopen(path, "r");
	if (!check(f))
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long old, new;
		int era;

		if (sscanf(line, "kvm_tdp_mmu_spte_changed: as id %*d gfn %*x level %*d old_spte %llx "
			   "new_spte %llx", &old, &new) != 2 || !(old & (1ULL << 11)))
			continue;
		era = !!(new >> 63);
		if (e->n[era] < 16)
			e->v[era][e->n[era]++] = old & ~ADDR_BITS;
	}
	fclose(f);
}

/* The SPTEs an EPT guest's teardown zaps carry the samples' flag bits. */
static void t_ept_samples(void)
{
	static const char *const kernels[] = { "6.1", "6.12" };
	struct ept_flags e = { 0 };

	read_ept_samples(&e);
	check_int(e.n[0], ==, 9);
	check_int(e.n[1], ==, 3);
	for (int era = 0; era < 2; era++) {
		struct capture c = { 0 };
		struct msc_synth_stats st;
		struct msc_synth_opts o;
		size_t checked[2] = { 0 }, unknown = 0;
		bool teardown = false;

		scenario(&o, kernels[era], 16);
		o.vendor = MSC_VENDOR_EPT;
		o.passes = 1;
		if (!check_int(run_classified(&o, &c, &st), ==, 0))
			continue;
		for (size_t i = 0; i < c.nr[0]; i++) {
			struct msc_event ev;
			uint64_t flags;
			bool huge, found = false, huge_samples = false;

			if (msc_event_parse(c.lines[0][i], &ev))
				continue;
			if (ev.type == MSC_EV_MARKER)
				teardown = strstr(ev.marker.text, "phase=teardown begin") != NULL;
			if (!teardown || ev.type != MSC_EV_SPTE_CHANGED)
				continue;
			/* the samples' hosts ran the NX huge page mitigation: X off on huge pages */
			huge = ev.spte.level > 1 && (ev.spte.old_spte & (1ULL << 7));
			flags = ev.spte.old_spte & ~ADDR_BITS & ~(huge ? 1ULL << 2 : 0);
			for (size_t k = 0; k < e.n[era]; k++) {
				found |= flags == e.v[era][k];
				huge_samples |= !!(e.v[era][k] & (1ULL << 7));
			}
			if (huge && !huge_samples)
				continue;	/* no huge leaf among this era's samples */
			if (!found && !unknown++)
				test_fail(__FILE__, __LINE__, "%s: level %u SPTE %#llx: flags %#llx not in "
					  "the samples", kernels[era], ev.spte.level,
					  (unsigned long long)ev.spte.old_spte, (unsigned long long)flags);
			checked[ev.spte.level == 1]++;
		}
		check_int(unknown, ==, 0);
		check_int(checked[0], >, 0);	/* tables and huge leaves */
		check_int(checked[1], >, 0);	/* 4K leaves */
		capture_free(&c);
	}
}

static void t_lazy_split_61(void)
{
	struct capture c = { 0 };
	struct msc_synth_stats st;
	struct msc_synth_opts o;

	scenario(&o, "6.1", 16);
	o.eager_split = false;
	o.passes = 1;
	o.stop_after = "dirty_pass_1";
	if (!check_int(run_classified(&o, &c, &st), ==, 0))
		goto out;
	/* 6.1 zaps the write-protected 2M page and maps each 4K page on its fault */
	check_uint(st.by_type[MSC_EV_SPLIT], ==, 0);
	check_uint(c.by_class[MSC_CLASS_WRITE_PROTECT], ==, 8);
	check_uint(st.pages_4k, ==, 4097);
	check_uint(st.remote_tlb_flush_requests, ==, 1 + 8);
	check_uint(st.by_type[MSC_EV_FAST_PF], ==, 8);	/* the first write to each 2M page */
out:
	capture_free(&c);
}

static void t_deterministic(void)
{
	struct capture a = { 0 }, b = { 0 }, s = { 0 };
	struct msc_synth_stats sa, sb, ss;
	struct msc_synth_opts o;
	bool same = true, same_times = true;

	scenario(&o, "6.12", 16);
	o.vcpus = 2;
	check_int(run_classified(&o, &a, &sa), ==, 0);
	check_int(run_classified(&o, &b, &sb), ==, 0);
	o.seed = 2;
	check_int(run_classified(&o, &s, &ss), ==, 0);
	for (int cpu = 0; cpu < NCPUS; cpu++) {
		check_int(a.nr[cpu], ==, b.nr[cpu]);
		check_int(a.nr[cpu], ==, s.nr[cpu]);
		for (size_t i = 0; i < a.nr[cpu] && i < b.nr[cpu] && i < s.nr[cpu]; i++) {
			same &= !strcmp(a.lines[cpu][i], b.lines[cpu][i]);
			same_times &= !strcmp(a.lines[cpu][i], s.lines[cpu][i]);
		}
	}
	check(same);
	check(!same_times);
	check_uint(sa.events, ==, ss.events);
	capture_free(&a);
	capture_free(&b);
	capture_free(&s);
}

static void t_bad_opts(void)
{
	struct msc_synth_opts o;
	char why[160];

	msc_synth_opts_init(&o);
	check_int(msc_synth_opts_check(&o, why, sizeof(why)), ==, 0);
	o.pml = true;
	check_int(msc_synth_opts_check(&o, why, sizeof(why)), ==, -EINVAL);
	check(strstr(why, "ept") != NULL);
	msc_synth_opts_init(&o);
	o.backing = MSC_SYNTH_BACKING_1G;
	o.guest_mib = 1536;
	check_int(msc_synth_opts_check(&o, why, sizeof(why)), ==, -EINVAL);
	msc_synth_opts_init(&o);
	o.kernel = "5.15";
	check_int(msc_synth_opts_check(&o, why, sizeof(why)), ==, -EINVAL);
	msc_synth_opts_init(&o);
	o.stop_after = "dirty_pass_x";
	check_int(msc_synth_opts_check(&o, why, sizeof(why)), ==, -EINVAL);
}

/*
 * Leaks inside the libraries, not here (make asan): libtracecmd 1.3 never
 * frees the kallsyms path tracecmd_output_set_kallsyms() copies, and
 * libtraceevent 1.7 loses a few bytes parsing some 6.18 print formats.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:tracecmd_output_set_kallsyms\nleak:tep_parse_event\n";
}

int main(void)
{
	TEST(t_formats(), "format directories of 6.1, 7.3 load; a missing one is named");
	TEST(t_tracefs_instance(), "fake tracing dir: libtracefs opens the instance, reads every "
				   "event back with the 100 lost");
	TEST(t_tracedat("6.1"), "trace.dat v7 zstd from the directory: libtracecmd gives back "
				"every event");
	TEST(t_tracedat("7.3"), "... on 7.3's formats too, spte_requested's access included");
	TEST(t_recover_613(), "6.13 disable recovers 2M pages in place with one flush");
	TEST(t_kernel_73(), "7.3: access 15 requested, roles 0x6f8x, children FROZEN (0x1a0) "
			    "before their parent's promotion");
	TEST(t_ept_pml(), "EPT with PML: EPT layout inferred, D bits cleared, no write faults");
	TEST(t_ept_samples(), "EPT SPTEs of 6.1 and 6.12 teardowns look like the real EPT samples");
	TEST(t_lazy_split_61(), "6.1 without eager split zaps and remaps 4K on fault");
	TEST(t_deterministic(), "a seed gives the same trace; another seed other times");
	TEST(t_bad_opts(), "impossible scenarios are refused with a reason");
	return test_done();
}
