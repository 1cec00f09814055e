// SPDX-License-Identifier: GPL-2.0-only
/*
 * The live path without a kernel: a fake tracing directory (the kernel's
 * real 6.18 format files, a pre-made instance, per-CPU raw pages written by
 * the synth encoder) read through the very code that reads tracefs; the
 * host profile from a fake /proc + /sys; KVM counters from a fake debugfs;
 * the live store tables.
 */
#include "mmuscope/ingest.h"
#include "mmuscope/live.h"

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mmuscope/error.h"
#include "mmuscope/host.h"
#include "mmuscope/event.h"
#include "mmuscope/source.h"
#include "mmuscope/store.h"
#include "mmuscope/synth.h"
#include "mmuscope/util.h"
#include "test.h"

#define NCPUS 2

static char tmp[256];
/*
 * 0: every third event on cpu 1, types cycling; else runs of this many
 * spte_changed events per CPU, each run filling its pages exactly, so no
 * page holds events from both sides of the other CPU's run.
 */
static unsigned int block_len;

static void sh(const char *fmt, const char *arg)
{
	char cmd[4096];

	snprintf(cmd, sizeof(cmd), fmt, arg);
	if (system(cmd))
		test_fail(__FILE__, __LINE__, "command failed: %s", cmd);
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static struct msc_synth_formats *formats(void)
{
	struct msc_synth_formats *f = NULL;
	char dir[512], err[256];

	snprintf(dir, sizeof(dir), "%s/formats/6.12", test_data_dir());
	if (msc_synth_formats_open(dir, &f, err, sizeof(err)))
		test_fail(__FILE__, __LINE__, "formats: %s", err);
	return f;
}

/* A fake tree at @dir with instance "mmuscope"; @fifo: FIFOs, not files. */
static int make_tree(const char *dir, struct msc_synth_formats *f, bool fifo,
		     struct msc_synth_dir *d)
{
	*d = (struct msc_synth_dir){ .path = dir, .instance = "mmuscope", .nr_cpus = NCPUS,
				     .flags = fifo ? MSC_SYNTH_DIR_FIFO : 0 };
	return msc_synth_dir_create(d, f);
}

/* The i-th event of the stream written by write_events(). */
static void make_event(unsigned int i, struct msc_event *ev)
{
	*ev = (struct msc_event){ .ts = 1000000 + 997ULL * i,
				  .cpu = (uint16_t)(block_len ? i / block_len % 2 : i % 3 == 0),
				  .pid = 100 + (int)(i % 7) };
	switch (block_len ? 2 : i % 5) {
	case 0:
		ev->type = MSC_EV_MARKER;
		snprintf(ev->marker.text, sizeof(ev->marker.text), "mark %u", i);
		break;
	case 1:
		ev->type = MSC_EV_SPLIT;
		ev->split = (struct msc_ev_split){ .gfn = 0x40000 + 512ULL * i, .level = 2,
						   .spte = 0x80000000000008e7ULL | (uint64_t)i << 21,
						   .err = (i % 10 == 1) ? -12 : 0 };
		break;
	default:
		ev->type = MSC_EV_SPTE_CHANGED;
		ev->spte = (struct msc_ev_spte){ .gfn = 0x40000 + i, .level = 1,
						 .old_spte = 0x8000000000000000ULL,
						 .new_spte = 0x0000000123456e77ULL + ((uint64_t)i << 12) };
		break;
	}
}

/* How many spte_changed events fill one page (0 on error). */
static unsigned int spte_events_per_page(const struct msc_synth_formats *f)
{
	struct msc_ringbuf_stats st = { 0 };
	struct msc_synth_writer *w;
	struct msc_event ev;
	int fd = open("/dev/null", O_WRONLY);

	if (fd < 0 || msc_synth_writer_open(f, 1, &fd, &w)) {
		close(fd);
		return 0;
	}
	block_len = 1;	/* spte_changed only */
	for (unsigned int i = 0; !st.pages && i < 4096; i++) {
		make_event(i, &ev);
		ev.cpu = 0;
		if (msc_synth_writer_add(w, &ev))
			break;
		msc_synth_writer_stats(w, 0, &st);
	}
	block_len = 0;
	msc_synth_writer_free(w);
	close(fd);
	/* the event that did not fit opened the second page */
	return st.pages ? (unsigned int)st.events - 1 : 0;
}

/* @n events over both CPUs; a gap of 42 events on cpu 1 before event @lost_at. */
static int write_events(struct msc_synth_formats *f, const struct msc_synth_dir *d, unsigned int n,
			unsigned int lost_at)
{
	struct msc_synth_writer *w;
	int fds[NCPUS], r;
	char path[1024];

	for (unsigned int c = 0; c < NCPUS; c++) {
		msc_synth_dir_cpu_path(d, c, path, sizeof(path));
		fds[c] = open(path, O_WRONLY | O_TRUNC);
		if (fds[c] < 0)
			return -errno;
	}
	r = msc_synth_writer_open(f, NCPUS, fds, &w);
	for (unsigned int i = 0; !r && i < n; i++) {
		struct msc_event ev;

		if (i == lost_at) {
			ev = (struct msc_event){ .type = MSC_EV_LOST, .cpu = 1, .lost.count = 42 };
			r = msc_synth_writer_add(w, &ev);
		}
		make_event(i, &ev);
		if (!r)
			r = msc_synth_writer_add(w, &ev);
	}
	if (!r)
		r = msc_synth_writer_close(w);
	msc_synth_writer_free(w);
	for (unsigned int c = 0; c < NCPUS; c++)
		close(fds[c]);
	return r;
}

static bool same_event(const struct msc_event *a, const struct msc_event *b)
{
	if (a->ts != b->ts || a->cpu != b->cpu || a->pid != b->pid || a->type != b->type)
		return false;
	switch (a->type) {
	case MSC_EV_MARKER:
		return !strcmp(a->marker.text, b->marker.text);
	case MSC_EV_SPLIT:
		return a->split.gfn == b->split.gfn && a->split.spte == b->split.spte &&
		       a->split.level == b->split.level && a->split.err == b->split.err;
	case MSC_EV_SPTE_CHANGED:
		return a->spte.gfn == b->spte.gfn && a->spte.old_spte == b->spte.old_spte &&
		       a->spte.new_spte == b->spte.new_spte && a->spte.level == b->spte.level;
	default:
		return false;
	}
}

struct readout {
	unsigned int events, lost, mismatched, out_of_order, waits;
	uint64_t lost_count, lost_ts;
	int lost_cpu, end;
	unsigned int lost_before;	/* events handed out before the mark */
};

/* Everything the source hands out, checked against make_event(). */
static void read_all(struct msc_source *src, unsigned int n, int wait_ms, struct readout *o)
{
	struct msc_event ev, want;
	bool seen[100000] = { 0 };
	uint64_t last_ts = 0;
	int r;

	*o = (struct readout){ .lost_cpu = -1 };
	while ((r = msc_source_next(src, &ev)) != 0) {
		if (r == -EAGAIN) {
			o->waits++;
			msc_live_wait(src, wait_ms);
			continue;
		}
		if (r < 0)
			break;
		if (ev.ts < last_ts)
			o->out_of_order++;
		last_ts = ev.ts;
		if (ev.type == MSC_EV_LOST) {
			o->lost++;
			o->lost_count += ev.lost.count;
			o->lost_cpu = ev.cpu;
			o->lost_ts = ev.ts;
			o->lost_before = o->events;
			continue;
		}
		/* recover the index from the timestamp, then compare every field */
		unsigned int i = (unsigned int)((ev.ts - 1000000) / 997);

		make_event(i, &want);
		if (i >= n || seen[i] || !same_event(&ev, &want))
			o->mismatched++;
		else
			seen[i] = true;
		o->events++;
	}
	o->end = r;
}

/* The spool directory the live tests read through, NULL for none. */
static const char *spool;

/* With a spool, every page read went through it, none lost, and the drain has ended. */
static void check_spool(struct msc_source *src, uint64_t pages)
{
	struct msc_live_spool_stats sp;
	DIR *d;
	int n = 0;

	check_int(msc_live_get_spool_stats(src, &sp), ==, 0);
	check(sp.on == (spool != NULL));
	if (!spool) {
		check_uint(sp.pages, ==, 0);
		return;
	}
	check_uint(sp.pages, ==, pages);
	check_uint(sp.bytes, ==, pages * 4096);
	check_uint(sp.lost_pages, ==, 0);
	check(sp.peak_backlog > 0 && sp.peak_backlog <= pages);
	check(sp.drain_s > 0);
	/* the files are unlinked: the directory shows nothing */
	d = opendir(spool);
	for (struct dirent *de; d && (de = readdir(d));)
		n += de->d_name[0] != '.';
	if (d)
		closedir(d);
	check_int(n, ==, 0);
}

static void with_spool(void (*fn)(void))
{
	char dir[512];

	snprintf(dir, sizeof(dir), "%s/spool", tmp);
	if (!check_int(mkdir(dir, 0700), ==, 0))
		return;
	spool = dir;
	fn();
	spool = NULL;
	check_int(rmdir(dir), ==, 0);
}

static void t_fake_tree(void)
{
	struct msc_synth_formats *f = formats();
	struct msc_live_opts o = { 0 };
	const struct msc_live_status *st;
	struct msc_live_cpu_stats cs0, cs1;
	struct msc_source *src = NULL;
	struct msc_synth_dir d;
	struct readout out;
	char dir[512], error[256] = "";
	/* about 330 pages on cpu 0: several rounds at the 64-page cap */
	unsigned int n = 40000;

	snprintf(dir, sizeof(dir), "%s/tree", tmp);
	if (!f || !check_int(make_tree(dir, f, false, &d), ==, 0) ||
	    !check_int(write_events(f, &d, n, 30001), ==, 0))
		goto out;
	o.tracing_dir = dir;
	o.spool_dir = spool;
	if (!check_int(msc_source_open_tracefs(&o, &src, error, sizeof(error)), ==, 0)) {
		test_fail(__FILE__, __LINE__, "open: %s", error);
		goto out;
	}
	st = msc_live_get_status(src);
	check_int(st->nr_cpus, ==, NCPUS);
	check(!st->owns_instance);
	check_int(st->mode, ==, MSC_LIVE_INFERRED);
	check_str(msc_source_info(src)->kind, "tracefs");
	read_all(src, n, 0, &out);
	check_int(out.end, ==, 0);
	check_int(out.events, ==, n);
	check_int(out.mismatched, ==, 0);
	check_int(out.out_of_order, ==, 0);
	check_int(out.lost, ==, 1);
	check_uint(out.lost_count, ==, 42);
	check_int(out.lost_cpu, ==, 1);
	/*
	 * The gap flags cpu 1's next page: the mark comes with the first
	 * event of that page, a cpu 1 event at or after event 30001, at most
	 * a page (~90 cpu 1 events) later.
	 */
	check_uint(out.lost_ts, >=, 1000000 + 997ULL * 30001);
	check_uint(out.lost_ts, <=, 1000000 + 997ULL * (30001 + 3 * 100));
	check_int((out.lost_ts - 1000000) / 997 % 3, ==, 0);
	check_int(out.lost_before, ==, (out.lost_ts - 1000000) / 997);
	check_int(msc_live_get_cpu_stats(src, 0, &cs0), ==, 0);
	check_int(msc_live_get_cpu_stats(src, 1, &cs1), ==, 0);
	check_uint(cs0.records + cs1.records, ==, n);
	check_uint(cs1.marked, ==, 42);
	check(cs0.pages > 64);
	check_spool(src, cs0.pages + cs1.pages);
out:
	msc_source_close(src);
	msc_synth_formats_free(f);
}

struct feeder {
	struct msc_synth_dir *d;
	int fds[NCPUS];			/* staged pages of each CPU */
	int r;
};

/*
 * Deliver the staged pages as a kernel would make them readable: in time
 * order over all CPUs, a page at a time, with a pause.  Runs fill whole
 * pages (block_len), so pages of different CPUs never overlap in time and
 * a stall here is only a CPU with nothing new, as in a real ring buffer.
 * (With runs of 150 events, a page of ~90 straddled the other CPU's run,
 * and a stall of over SLACK_NS under load let the reader hand out events
 * out of order.)
 */
static void *feed(void *arg)
{
	struct feeder *fd = arg;
	char page[NCPUS][4096], path[1024];
	bool have[NCPUS] = { false };
	int out[NCPUS];

	for (unsigned int c = 0; c < NCPUS; c++) {
		msc_synth_dir_cpu_path(fd->d, c, path, sizeof(path));
		out[c] = open(path, O_WRONLY);	/* waits for the reader */
		if (out[c] < 0) {
			fd->r = -errno;
			return NULL;
		}
	}
	for (;;) {
		int best = -1;

		for (int c = 0; c < NCPUS; c++) {
			if (!have[c])
				have[c] = read(fd->fds[c], page[c], sizeof(page[c])) == sizeof(page[c]);
			if (have[c] && (best < 0 || *(uint64_t *)page[c] < *(uint64_t *)page[best]))
				best = c;
		}
		if (best < 0)
			break;
		if (write(out[best], page[best], sizeof(page[best])) != sizeof(page[best]))
			fd->r = -EIO;
		have[best] = false;
		usleep(300);
	}
	for (unsigned int c = 0; c < NCPUS; c++)
		close(out[c]);	/* the reader sees the end */
	return NULL;
}

/* FIFOs fed a page at a time: the reader waits, merges in order, ends at EOF. */
static void t_fifo_live(void)
{
	struct msc_synth_formats *f = formats();
	struct msc_live_opts o = { 0 };
	struct msc_source *src = NULL;
	struct msc_synth_dir d, staging;
	struct feeder fd = { .d = &d };
	struct readout out;
	char dir[512], sdir[512], path[1024], error[256] = "";
	unsigned int n = 6000, per_page = f ? spte_events_per_page(f) : 0;
	pthread_t th;

	snprintf(dir, sizeof(dir), "%s/fifo", tmp);
	snprintf(sdir, sizeof(sdir), "%s/staging", tmp);
	/* runs of two pages; the gap opens a cpu 1 run */
	block_len = 2 * per_page;
	if (!f || !check(per_page > 10) ||
	    !check_int(make_tree(sdir, f, false, &staging), ==, 0) ||
	    !check_int(write_events(f, &staging, n, (4000 / block_len | 1) * block_len), ==, 0) ||
	    !check_int(make_tree(dir, f, true, &d), ==, 0))
		goto out;
	for (unsigned int c = 0; c < NCPUS; c++) {
		msc_synth_dir_cpu_path(&staging, c, path, sizeof(path));
		fd.fds[c] = open(path, O_RDONLY);
	}
	o.tracing_dir = dir;
	o.spool_dir = spool;
	if (pthread_create(&th, NULL, feed, &fd))
		goto out;
	if (check_int(msc_source_open_tracefs(&o, &src, error, sizeof(error)), ==, 0)) {
		struct msc_live_cpu_stats cs0, cs1;

		read_all(src, n, 50, &out);
		check_int(out.end, ==, 0);
		check_int(out.events, ==, n);
		check_int(out.mismatched, ==, 0);
		check_int(out.out_of_order, ==, 0);
		check_uint(out.lost_count, ==, 42);
		check_int(out.waits, >, 0);
		msc_live_get_cpu_stats(src, 0, &cs0);
		msc_live_get_cpu_stats(src, 1, &cs1);
		check_spool(src, cs0.pages + cs1.pages);
	} else {
		test_fail(__FILE__, __LINE__, "open: %s", error);
	}
	msc_source_close(src);
	src = NULL;
	pthread_join(th, NULL);
	check_int(fd.r, ==, 0);
	for (unsigned int c = 0; c < NCPUS; c++)
		close(fd.fds[c]);
out:
	block_len = 0;
	msc_source_close(src);
	msc_synth_formats_free(f);
}

/* Bad trees: every failure is named, and nothing is left behind. */
static void t_fake_errors(void)
{
	struct msc_synth_formats *f = formats();
	struct msc_live_opts o = { 0 };
	struct msc_source *src = NULL;
	struct msc_synth_dir d;
	char dir[512], path[1024], error[256] = "";
	struct stat st;

	snprintf(dir, sizeof(dir), "%s/nothing-here", tmp);
	o.tracing_dir = dir;
	check_int(msc_source_open_tracefs(&o, &src, error, sizeof(error)), ==, MSC_ERR_NO_TRACEFS);
	check(strstr(error, "header_page") != NULL);

	snprintf(dir, sizeof(dir), "%s/errtree", tmp);
	if (!f || !check_int(make_tree(dir, f, false, &d), ==, 0))
		goto out;
	/* an instance the tree does not have: made, found empty, removed again */
	o.instance = "other";
	check_int(msc_source_open_tracefs(&o, &src, error, sizeof(error)), ==, -ENOENT);
	check(strstr(error, "instances/other") != NULL);
	snprintf(path, sizeof(path), "%s/instances/other", dir);
	check_int(stat(path, &st), ==, -1);
	o.instance = "bad/name";
	check_int(msc_source_open_tracefs(&o, &src, error, sizeof(error)), ==, -EINVAL);
	o.instance = NULL;
	/* a kernel without the kvmmmu events */
	sh("rm -rf '%s/events/kvmmmu'", dir);
	check_int(msc_source_open_tracefs(&o, &src, error, sizeof(error)), ==, MSC_ERR_NO_KVMMMU);
	check(strstr(error, "kvm module") != NULL);
out:
	msc_source_close(src);
	msc_synth_formats_free(f);
}

static void write_tree(const char *root, const char *cpuinfo, const char *const *params)
{
	char path[1024], dir[1024];

	sh("rm -rf '%s'", root);
	snprintf(path, sizeof(path), "%s/proc/sys/kernel", root);
	sh("mkdir -p '%s'", path);
	write_file(path, "osrelease", "6.12.117+deb12-amd64\n");
	snprintf(path, sizeof(path), "%s/proc", root);
	write_file(path, "cpuinfo", cpuinfo);
	for (size_t i = 0; params[i]; i += 3) {
		snprintf(dir, sizeof(dir), "%s/sys/module/%s/parameters", root, params[i]);
		sh("mkdir -p '%s'", dir);
		write_file(dir, params[i + 1], params[i + 2]);
	}
}

static void t_host_profile(void)
{
	static const char intel[] = "vendor_id\t: GenuineIntel\nflags\t\t: fpu vme vmx ept\n"
				    "address sizes\t: 46 bits physical, 57 bits virtual\n";
	static const char amd[] = "vendor_id\t: AuthenticAMD\nflags\t\t: fpu svm npt\n"
				  "address sizes\t: 48 bits physical, 48 bits virtual\n";
	static const char *const ept[] = { "kvm", "tdp_mmu", "Y\n", "kvm", "eager_page_split", "N\n",
					   "kvm_intel", "ept", "Y\n", "kvm_intel", "eptad", "Y\n",
					   "kvm_intel", "pml", "Y\n", NULL };
	static const char *const shadow[] = { "kvm", "tdp_mmu", "Y\n", "kvm_intel", "ept", "N\n",
					      NULL };
	static const char *const npt[] = { "kvm", "tdp_mmu", "Y\n", "kvm_amd", "npt", "Y\n", NULL };
	static const char *const none[] = { NULL };
	struct msc_host_profile p;
	char root[512];
	bool found = false;

	snprintf(root, sizeof(root), "%s/root", tmp);
	write_tree(root, intel, ept);
	if (!check_int(msc_host_live_read(root, &p), ==, 0))
		return;
	check_str(p.host.release, "6.12.117+deb12-amd64");
	check_uint(p.host.kver, ==, MSC_KVER(6, 12, 117));
	check_int(p.host.vendor, ==, MSC_VENDOR_EPT);
	check_int(p.host.vendor_source, ==, MSC_HOST_LIVE);
	check_int(p.host.kver_source, ==, MSC_HOST_LIVE);
	check(p.host.ept_ad);
	check(p.host.tdp_mmu);
	check_int(p.phys_bits, ==, 46);
	check_str(p.virt, "vmx");
	check_str(p.kvm_module, "kvm_intel");
	for (size_t i = 0; i < p.nr_params; i++)
		if (!strcmp(p.params[i].name, "kvm.eager_page_split"))
			found = !strcmp(p.params[i].value, "N");
	check(found);
	msc_host_profile_release(&p);

	write_tree(root, intel, shadow);
	if (check_int(msc_host_live_read(root, &p), ==, 0)) {
		check_int(p.host.vendor, ==, MSC_VENDOR_NPT);	/* shadow MMU: x86 PTEs */
		check(!p.host.tdp_mmu);
		msc_host_profile_release(&p);
	}
	write_tree(root, amd, npt);
	if (check_int(msc_host_live_read(root, &p), ==, 0)) {
		check_int(p.host.vendor, ==, MSC_VENDOR_NPT);
		check(p.host.tdp_mmu && !p.host.ept_ad);
		check_str(p.virt, "svm");
		check_int(p.phys_bits, ==, 48);
		msc_host_profile_release(&p);
	}
	write_tree(root, amd, none);
	if (check_int(msc_host_live_read(root, &p), ==, 0)) {
		check_int(p.host.vendor, ==, MSC_VENDOR_UNKNOWN);
		check_str(p.kvm_module, "");
		msc_host_profile_release(&p);
	}
	sh("rm -rf '%s/proc'", root);
	check_int(msc_host_live_read(root, &p), ==, -ENOENT);
}

static void t_kvm_debugfs(void)
{
	struct msc_kvm_sampler *k;
	struct msc_kvm_sample s[4];
	char dbg[512], vm[1024];
	int n;

	snprintf(dbg, sizeof(dbg), "%s/debugfs", tmp);
	snprintf(vm, sizeof(vm), "%s/kvm/4242-11", dbg);
	sh("mkdir -p '%s'", vm);
	write_file(vm, "pages_4k", "8193\n");
	write_file(vm, "pages_2m", "0\n");
	write_file(vm, "pages_1g", "0\n");
	write_file(vm, "remote_tlb_flush_requests", "19\n");
	write_file(vm, "pf_taken", "40000\n");	/* a vCPU stat: summed over the VM's vCPUs */
	write_file(vm, "pf_fixed", "39000\n");
	snprintf(vm, sizeof(vm), "%s/kvm/77-9", dbg);
	sh("mkdir -p '%s'", vm);
	write_file(vm, "pages_2m", "16\n");

	if (!check_int(msc_kvm_sampler_open(dbg, NULL, 4242, MSC_KVM_VIA_DEBUGFS, &k), ==, 0))
		return;
	check_str(msc_kvm_sampler_method(k), "debugfs");
	n = msc_kvm_sampler_read(k, s, 4);
	if (check_int(n, ==, 1)) {
		check_str(s[0].vm, "4242-11");
		check_int(s[0].pid, ==, 4242);
		check_int(s[0].pages_4k, ==, 8193);
		check_int(s[0].pages_2m, ==, 0);
		check_int(s[0].remote_tlb_flush, ==, -1);	/* not exported */
		check_int(s[0].remote_tlb_flush_requests, ==, 19);
		check_int(s[0].pf_taken, ==, 40000);
		check_int(s[0].pf_fixed, ==, 39000);
		check_int(s[0].pf_fast, ==, -1);
		check_int(s[0].pf_vcpus, ==, -1);	/* KVM's sum over all of them */
	}
	msc_kvm_sampler_close(k);
	/* by default debugfs, where it is */
	if (!check_int(msc_kvm_sampler_open(dbg, NULL, 0, MSC_KVM_VIA_AUTO, &k), ==, 0))
		return;
	check_str(msc_kvm_sampler_method(k), "debugfs");
	check_int(msc_kvm_sampler_read(k, s, 4), ==, 2);
	msc_kvm_sampler_close(k);
	/* debugfs asked for where there is none */
	snprintf(vm, sizeof(vm), "%s/none", tmp);
	check_int(msc_kvm_sampler_open(vm, NULL, 0, MSC_KVM_VIA_DEBUGFS, &k), ==, -ENOENT);
	if (check_int(msc_kvm_sampler_open(vm, NULL, 0, MSC_KVM_VIA_AUTO, &k), ==, 0)) {
		check_str(msc_kvm_sampler_method(k), "stats-fd");
		msc_kvm_sampler_close(k);
	}
}

/*
 * A VM's debugfs directory listed before KVM made its files, or while it
 * removes them, is no sample: no census counter read, or one its last
 * sample read gone.
 */
static void t_kvm_coming_going(void)
{
	struct msc_kvm_sampler *k;
	struct msc_kvm_sample s[4];
	char dbg[512], dir[1024];

	snprintf(dbg, sizeof(dbg), "%s/debugfs-coming", tmp);
	snprintf(dir, sizeof(dir), "%s/kvm/5000-3", dbg);
	sh("mkdir -p '%s'", dir);
	if (!check_int(msc_kvm_sampler_open(dbg, NULL, 0, MSC_KVM_VIA_DEBUGFS, &k), ==, 0))
		return;
	check_int(msc_kvm_sampler_read(k, s, 4), ==, 0);	/* no file yet */
	write_file(dir, "pages_4k", "7\n");
	write_file(dir, "pf_taken", "9\n");
	if (check_int(msc_kvm_sampler_read(k, s, 4), ==, 1)) {
		check_int(s[0].pages_4k, ==, 7);
		check_int(s[0].pf_taken, ==, 9);
	}
	sh("rm -f '%s/pf_taken'", dir);	/* going */
	check_int(msc_kvm_sampler_read(k, s, 4), ==, 0);
	write_file(dir, "pf_taken", "10\n");
	check_int(msc_kvm_sampler_read(k, s, 4), ==, 1);
	msc_kvm_sampler_close(k);
}

/* An ioctl event of task @tid: an enter, or (@exit) an exit. */
static struct msc_event ioctl_ev(int32_t tid, bool exit)
{
	return (struct msc_event){ .pid = tid, .type = MSC_EV_IOCTL,
				   .ioctl = { .exit = exit, .cmd = 0xc018aec0, .fd = 11 } };
}

/*
 * A VM whose VMM is inside a recorded KVM ioctl is not read: from the
 * enter of one of its tasks to that task's next exit, and never after
 * events were lost.
 */
static void t_kvm_inside(void)
{
	struct msc_kvm_sampler *k;
	struct msc_kvm_sample s[4];
	struct msc_event ev;
	char dbg[512], proc[512], dir[1024];

	snprintf(dbg, sizeof(dbg), "%s/debugfs-inside", tmp);
	snprintf(proc, sizeof(proc), "%s/proc-inside", tmp);
	snprintf(dir, sizeof(dir), "%s/kvm/4242-11", dbg);
	sh("mkdir -p '%s'", dir);
	write_file(dir, "pages_4k", "1\n");
	snprintf(dir, sizeof(dir), "%s/kvm/77-9", dbg);
	sh("mkdir -p '%s'", dir);
	write_file(dir, "pages_4k", "2\n");
	snprintf(dir, sizeof(dir), "%s/4250", proc);	/* a thread of 4242 */
	sh("mkdir -p '%s'", dir);
	write_file(dir, "status", "Name:\tvcpu\nUmask:\t0022\nState:\tR (running)\nTgid:\t4242\n"
		   "Ngid:\t0\nPid:\t4250\n");
	if (!check_int(msc_kvm_sampler_open(dbg, proc, 0, MSC_KVM_VIA_DEBUGFS, &k), ==, 0))
		return;
	ev = ioctl_ev(4250, false);
	msc_kvm_sampler_note(k, &ev);
	if (check_int(msc_kvm_sampler_read(k, s, 4), ==, 1))
		check_str(s[0].vm, "77-9");
	check_int(msc_kvm_sampler_skipped(k), ==, 1);
	ev = ioctl_ev(4251, true);	/* another task's exit */
	msc_kvm_sampler_note(k, &ev);
	check_int(msc_kvm_sampler_read(k, s, 4), ==, 1);
	ev = ioctl_ev(4250, true);
	msc_kvm_sampler_note(k, &ev);
	check_int(msc_kvm_sampler_read(k, s, 4), ==, 2);
	check_int(msc_kvm_sampler_skipped(k), ==, 2);
	/* inside again, then events lost: its exit may be among them */
	ev = ioctl_ev(4250, false);
	msc_kvm_sampler_note(k, &ev);
	check_int(msc_kvm_sampler_read(k, s, 4), ==, 1);
	ev = (struct msc_event){ .pid = -1, .type = MSC_EV_LOST, .lost.count = 3 };
	msc_kvm_sampler_note(k, &ev);
	check_int(msc_kvm_sampler_read(k, s, 4), ==, 2);
	/* a task that is gone has no process to leave out */
	ev = ioctl_ev(4260, false);
	msc_kvm_sampler_note(k, &ev);
	check_int(msc_kvm_sampler_read(k, s, 4), ==, 2);
	check_int(msc_kvm_sampler_skipped(k), ==, 3);
	msc_kvm_sampler_close(k);
}

/*
 * pages_4k reads as the next of @values at each open: each value sits in a
 * FIFO of its own.  Once the reader has opened value k's FIFO (and waits
 * for its data), value k + 1's FIFO is renamed over pages_4k, and only
 * then is value k written: the reader's next open finds the next value,
 * never a FIFO an earlier reader is still closing.
 */
struct moving {
	char path[1024], next[1040];
	const char *const *values;
};

static void *serve(void *arg)
{
	const struct moving *m = arg;

	for (const char *const *v = m->values; *v; v++) {
		int fd = open(m->path, O_WRONLY);

		if (fd < 0)
			break;
		if (mkfifo(m->next, 0600) || rename(m->next, m->path))
			perror("next fifo");
		if (write(fd, *v, strlen(*v)) < 0)
			perror("write");
		close(fd);
	}
	return NULL;
}

/* How many samples one read returns while counter @name reads as @values. */
static int read_moving(const char *dbg, const char *name, const char *const *values,
		       struct msc_kvm_sample *s)
{
	struct msc_kvm_sampler *k;
	struct moving m = { .values = values };
	pthread_t th;
	int n;

	snprintf(m.path, sizeof(m.path), "%s/kvm/4343-12/%s", dbg, name);
	snprintf(m.next, sizeof(m.next), "%s.next", m.path);
	unlink(m.path);
	if (mkfifo(m.path, 0600) || pthread_create(&th, NULL, serve, &m))
		return -1;
	n = msc_kvm_sampler_open(dbg, NULL, 4343, MSC_KVM_VIA_DEBUGFS, &k);
	if (!n) {
		n = msc_kvm_sampler_read(k, s, 4);
		msc_kvm_sampler_close(k);
	}
	pthread_join(th, NULL);
	return n;
}

/*
 * A split moves pages_2m and pages_4k one after the other: a sample is
 * only taken once two reads agree, never a mix of two moments.
 */
static void t_kvm_settled(void)
{
	static const char *const settles[] = { "1\n", "512\n", "512\n", NULL };
	static const char *const moves[] = { "1\n", "2\n", "3\n", "4\n", NULL };
	static const char *const faults[] = { "5\n", NULL };
	struct msc_kvm_sample s[4];
	char dbg[512], vm[1024], path[1100];

	snprintf(dbg, sizeof(dbg), "%s/debugfs-moving", tmp);
	snprintf(vm, sizeof(vm), "%s/kvm/4343-12", dbg);
	sh("mkdir -p '%s'", vm);
	write_file(vm, "pages_2m", "7\n");
	if (check_int(read_moving(dbg, "pages_4k", settles, s), ==, 1))
		check_int(s[0].pages_4k, ==, 512);
	/* still moving after every try: no sample this time */
	check_int(read_moving(dbg, "pages_4k", moves, s), ==, 0);
	/*
	 * the faults move at every vCPU fault: they take no part in the tries,
	 * read once (a second read would wait on a FIFO nobody writes)
	 */
	snprintf(path, sizeof(path), "%s/pages_4k", vm);
	unlink(path);	/* the FIFO of the reads above */
	write_file(vm, "pages_4k", "512\n");
	if (check_int(read_moving(dbg, "pf_taken", faults, s), ==, 1)) {
		check_int(s[0].pages_4k, ==, 512);
		check_int(s[0].pf_taken, ==, 5);
	}
}

/*
 * The stats-fd method looks for VMs in every /proc/<pid>/fd, a scan that
 * grows with the host: reads back to back never spend more than 1% of
 * their time scanning (but the scan under way), and scanning goes on.
 */
static void t_kvm_scan_share(void)
{
	struct msc_kvm_sample s[4];
	struct msc_kvm_sampler *k;
	struct msc_kvm_scans sc, sc2;
	char proc[512], path[1100], target[64];
	uint64_t start, elapsed;
	int reads, made = 0;

	snprintf(proc, sizeof(proc), "%s/proc-many", tmp);
	sh("mkdir -p '%s'", proc);
	/* 300 processes of 20 fds each, none of them KVM's */
	for (int pid = 1000; pid < 1300; pid++) {
		snprintf(path, sizeof(path), "%s/%d", proc, pid);
		mkdir(path, 0700);
		snprintf(path, sizeof(path), "%s/%d/fd", proc, pid);
		mkdir(path, 0700);
		for (int fd = 0; fd < 20; fd++) {
			snprintf(path, sizeof(path), "%s/%d/fd/%d", proc, pid, fd);
			snprintf(target, sizeof(target), "socket:[%d]", pid * 100 + fd);
			made += !symlink(target, path);
		}
	}
	if (!check_int(made, ==, 300 * 20) ||
	    !check_int(msc_kvm_sampler_open(NULL, proc, 0, MSC_KVM_VIA_STATS_FD, &k), ==, 0))
		return;
	start = msc_mono_ns();
	for (reads = 0; reads < 300; reads++)
		check_int(msc_kvm_sampler_read(k, s, 4), ==, 0);
	elapsed = msc_mono_ns() - start;
	msc_kvm_sampler_scans(k, &sc);
	check_uint(sc.nr, >=, 1);	/* the first read scans */
	check_uint(sc.ns - sc.max_ns, <=, elapsed / 100);
	/* once a hundred times the longest scan has passed, the next tenth read scans */
	usleep((useconds_t)(sc.max_ns * 100 / 1000 + 1000));
	for (int i = 0; i < 10; i++)
		check_int(msc_kvm_sampler_read(k, s, 4), ==, 0);
	msc_kvm_sampler_scans(k, &sc2);
	check_uint(sc2.nr, >, sc.nr);
	msc_kvm_sampler_close(k);
}

/* Tracepoint formats of 6.12 with the syscalls' of a real 6.12 capture. */
static struct msc_synth_formats *formats_with_syscalls(void)
{
	struct msc_synth_formats *f = NULL;
	char dir[512], cmd[2048], err[256];

	snprintf(dir, sizeof(dir), "%s/fmt-syscalls", tmp);
	snprintf(cmd, sizeof(cmd), "cp -r '%s/formats/6.12' '%s' && "
		 "cp -r '%s/traces/k612st-split_hugetlb2m_16m/formats/syscalls' '%s/events/'",
		 test_data_dir(), dir, test_data_dir(), dir);
	sh("%s", cmd);
	if (msc_synth_formats_open(dir, &f, err, sizeof(err)))
		test_fail(__FILE__, __LINE__, "formats: %s", err);
	return f;
}

/*
 * sys_exit_ioctl comes unfiltered (an exit has no request): the source
 * hands out only the exit of a task whose enter it handed out, and counts
 * the others.
 */
static void t_ioctl_exits(void)
{
	static const struct { int32_t pid; uint16_t cpu; bool exit, kept; } seq[] = {
		{ 300, 0, true, false },	/* another program's ioctl */
		{ 200, 0, false, true },	/* the VMM's KVM_CLEAR_DIRTY_LOG */
		{ 201, 1, true, false },	/* a vCPU's KVM_RUN */
		{ 200, 0, true, true },
		{ 200, 0, true, false },	/* the VMM's next, unrecorded ioctl */
		{ 200, 0, false, true },
		{ 202, 1, false, true },	/* two tasks inside at once */
		{ 202, 1, true, true },
		{ 201, 1, true, false },
		{ 200, 0, true, true },
	};
	struct msc_synth_formats *f = formats_with_syscalls();
	struct msc_live_opts o = { 0 };
	struct msc_synth_writer *w = NULL;
	struct msc_source *src = NULL;
	struct msc_synth_dir d;
	struct msc_event ev;
	char dir[512], path[1024], error[256] = "";
	unsigned int next = 0, wrong = 0;
	int fds[NCPUS] = { -1, -1 }, r;

	snprintf(dir, sizeof(dir), "%s/tree-ioctl", tmp);
	if (!f || !check_int(make_tree(dir, f, false, &d), ==, 0))
		goto out;
	for (unsigned int c = 0; c < NCPUS; c++) {
		msc_synth_dir_cpu_path(&d, c, path, sizeof(path));
		fds[c] = open(path, O_WRONLY | O_TRUNC);
	}
	if (!check_int(msc_synth_writer_open(f, NCPUS, fds, &w), ==, 0))
		goto out;
	for (unsigned int i = 0; i < ARRAY_SIZE(seq); i++) {
		ev = ioctl_ev(seq[i].pid, seq[i].exit);
		ev.ts = 1000000 + 1000ULL * i;
		ev.cpu = seq[i].cpu;
		check_int(msc_synth_writer_add(w, &ev), ==, 0);
	}
	check_int(msc_synth_writer_close(w), ==, 0);
	o.tracing_dir = dir;
	if (!check_int(msc_source_open_tracefs(&o, &src, error, sizeof(error)), ==, 0)) {
		test_fail(__FILE__, __LINE__, "open: %s", error);
		goto out;
	}
	while ((r = msc_source_next(src, &ev)) != 0) {
		if (r == -EAGAIN) {
			msc_live_wait(src, 10);
			continue;
		}
		if (!check_int(r, ==, 1))
			break;
		while (next < ARRAY_SIZE(seq) && !seq[next].kept)
			next++;
		if (next == ARRAY_SIZE(seq) || ev.type != MSC_EV_IOCTL ||
		    ev.ts != 1000000 + 1000ULL * next || ev.pid != seq[next].pid ||
		    ev.ioctl.exit != seq[next].exit)
			wrong++;
		next++;
	}
	check_int(wrong, ==, 0);
	check_int(next, ==, ARRAY_SIZE(seq));
	check_uint(msc_live_get_status(src)->other_exits, ==, 4);
out:
	msc_synth_writer_free(w);
	for (unsigned int c = 0; c < NCPUS; c++)
		if (fds[c] >= 0)
			close(fds[c]);
	msc_source_close(src);
	msc_synth_formats_free(f);
}

/* A read of KVM's counters that began at @start and ended at @end. */
static struct msc_kvm_read_span span(uint64_t start, uint64_t end)
{
	return (struct msc_kvm_read_span){ .start = start, .end = end };
}

/* The live tables: lost rows count in the capture like stream marks. */
static void t_store_live(void)
{
	struct msc_capture_info info = { .kind = "tracefs", .path = "/x" };
	struct msc_event lost = { .ts = 5000, .cpu = 1, .pid = -1, .type = MSC_EV_LOST,
				  .lost = { .count = 7, .source = "dropped" } };
	struct msc_kvm_sample ks = { .vm = "1-2", .pid = 1, .pages_4k = 3, .pages_2m = -1 };
	struct msc_live_cpu_stats cs = { .cpu = 0, .records = 10, .has_kernel_stats = true };
	struct msc_event ev = { .ts = 4000, .pid = 321, .type = MSC_EV_MARKER };
	struct msc_capture_row *caps = NULL;
	struct msc_event_cursor *cur;
	struct msc_store *s;
	struct msc_host host;
	char path[512];
	int64_t id;
	size_t nr = 0;

	msc_host_init(&host);
	snprintf(path, sizeof(path), "%s/live.db", tmp);
	if (!check_int(msc_store_open(path, MSC_STORE_CREATE, &s), ==, 0))
		return;
	check_int(msc_store_begin_capture(s, &info, &host, &id), ==, 0);
	snprintf(ev.marker.text, sizeof(ev.marker.text), "hello");
	check_int(msc_store_add_event(s, &ev), ==, 0);
	check_int(msc_store_add_event(s, &lost), ==, 0);
	check_int(msc_store_add_kvm_sample(s, span(4490, 4500), span(0, 0), &ks), ==, 0);
	check_int(msc_store_add_cpu_stats(s, &cs), ==, 0);
	check_int(msc_store_add_task(s, 321, 320, "qemu", "320-11"), ==, 0);
	check_int(msc_store_end_capture(s, 2), ==, 0);
	check_int(msc_store_get_captures(s, &caps, &nr), ==, 0);
	if (check_int(nr, ==, 1)) {
		check_uint(caps[0].lost, ==, 7);
		check_uint(caps[0].stored, ==, 2);
		check_int(caps[0].last_seq - caps[0].first_seq, ==, 1);
		check(caps[0].complete);
		if (check_int(msc_store_events_open(s, caps[0].first_seq, caps[0].last_seq, &cur),
			      ==, 0)) {
			check_int(msc_store_events_next(cur, &ev), ==, 1);
			check_int(ev.type, ==, MSC_EV_MARKER);
			check_int(msc_store_events_next(cur, &ev), ==, 1);
			check_int(ev.type, ==, MSC_EV_LOST);
			check_uint(ev.lost.count, ==, 7);
			check_str(ev.lost.source, "dropped");
			msc_store_events_close(cur);
		}
	}
	free(caps);
	msc_store_close(s);
}

/*
 * The counters before and after a moment: a row is a read that saw a
 * change, its previous_read_ts the read before, which saw none.  A read is
 * before a moment when it ended by then, after it when it began then or
 * later, however long it took.
 */
static void t_kvm_reads(void)
{
	struct msc_capture_info info = { .kind = "tracefs", .path = "/x" };
	struct msc_kvm_sample a = { .vm = "10-3", .pid = 10, .pages_4k = 0, .pages_2m = 32,
				    .pages_1g = 0, .remote_tlb_flush_requests = 5, .pf_taken = 100,
				    .pf_fixed = 90, .pf_fast = 0, .pf_vcpus = 1 };
	struct msc_kvm_sample b = a, c = a, other = { .vm = "11-4", .pid = 11, .pages_4k = 1,
						      .pages_2m = 1, .pages_1g = 0,
						      .remote_tlb_flush_requests = 0, .pf_taken = -1,
						      .pf_fixed = -1, .pf_fast = -1,
						      .pf_vcpus = -1 };
	struct msc_kvm_reads *kr;
	struct msc_kvm_read r;
	struct msc_store *s;
	struct msc_host host;
	char path[512];
	int64_t id;

	b.pages_4k = 16384, b.pages_2m = 0, b.remote_tlb_flush_requests = 40;
	c = b;
	c.pf_taken = 16484, c.pf_fast = 16384, c.pf_vcpus = 2;	/* a vCPU found since */
	msc_host_init(&host);
	snprintf(path, sizeof(path), "%s/reads.db", tmp);
	if (!check_int(msc_store_open(path, MSC_STORE_CREATE, &s), ==, 0))
		return;
	check_int(msc_store_begin_capture(s, &info, &host, &id), ==, 0);
	check_int(msc_store_add_kvm_sample(s, span(1000, 1000), span(0, 0), &a), ==, 0);
	check_int(msc_store_add_kvm_sample(s, span(1500, 1500), span(0, 0), &other), ==, 0);
	/* split after the read of 1880-1900 began; B's own read took 1960-2000 */
	check_int(msc_store_add_kvm_sample(s, span(1960, 2000), span(1880, 1900), &b), ==, 0);
	check_int(msc_store_add_kvm_sample(s, span(4995, 5000), span(4970, 4990), &c), ==, 0);
	check_int(msc_store_end_capture(s, 0), ==, 0);
	if (!check_int(msc_kvm_reads_open(s, id, &kr), ==, 0))
		return;
	check_uint(msc_kvm_reads_vms(kr), ==, 2);

	/* before 1950: A's, known still at the read of 1900 */
	check_int(msc_kvm_read_at(kr, "10-3", 1950, false, &r), ==, 0);
	check_int(r.vms, ==, 1);
	check_int(r.pages[2], ==, 32);
	check_int(r.fault_vcpus, ==, 1);
	check_uint(r.ts, ==, 1900);
	/* after 1950: the change was read at 2000 */
	check_int(msc_kvm_read_at(kr, "10-3", 1950, true, &r), ==, 0);
	check_int(r.pages[1], ==, 16384);
	check_int(r.flushes, ==, 40);
	check_uint(r.ts, ==, 2000);
	/* after 1800: the read of 1880-1900 still saw A, not B's later change */
	check_int(msc_kvm_read_at(kr, "10-3", 1800, true, &r), ==, 0);
	check_int(r.pages[2], ==, 32);
	check_uint(r.ts, ==, 1900);
	/* B's read ran across 1970 and 2000: neither is its; B's values were read after them at 4970-4990 */
	check_int(msc_kvm_read_at(kr, "10-3", 1970, true, &r), ==, 0);
	check_int(r.pages[1], ==, 16384);
	check_uint(r.ts, ==, 4990);
	check_int(msc_kvm_read_at(kr, "10-3", 2000, true, &r), ==, 0);
	check_uint(r.ts, ==, 4990);
	check_int(msc_kvm_read_at(kr, "10-3", 1970, false, &r), ==, 0);
	check_int(r.pages[2], ==, 32);
	check_uint(r.ts, ==, 1900);
	/* a read that ended at the moment is before it; one of no length, after it too */
	check_int(msc_kvm_read_at(kr, "10-3", 2000, false, &r), ==, 0);
	check_int(r.pages[1], ==, 16384);
	check_uint(r.ts, ==, 2000);
	check_int(msc_kvm_read_at(kr, "10-3", 1000, true, &r), ==, 0);
	check_int(r.pages[2], ==, 32);
	check_uint(r.ts, ==, 1000);
	/* after the last row: its counters, unchanged to the end, read time unknown */
	check_int(msc_kvm_read_at(kr, "10-3", 6000, true, &r), ==, 0);
	check_int(r.faults_fast, ==, 16384);
	check_int(r.fault_vcpus, ==, 2);	/* not to be set against the read at 1900 */
	check_int(r.unchanged, ==, 1);
	check_uint(r.ts, ==, 0);
	/* before the first read: nothing */
	check_int(msc_kvm_read_at(kr, "10-3", 500, false, &r), ==, 0);
	check_int(r.vms, ==, 0);
	/* every VM: summed; a counter one of them lacks is -1 */
	check_int(msc_kvm_read_at(kr, NULL, 1950, false, &r), ==, 0);
	check_int(r.vms, ==, 2);
	check_int(r.pages[1], ==, 1);
	check_int(r.pages[2], ==, 33);
	check_int(r.faults, ==, -1);
	check_int(r.fault_vcpus, ==, -1);
	check_uint(r.ts, ==, 1900);
	msc_kvm_reads_close(kr);
	msc_store_close(s);
}

/*
 * The tasks a recording names (record's epilogue) are those of every event
 * stored, the patch's events and a loss noticed by the recorder included,
 * each once, ascending.
 */
static void t_ingest_pids(void)
{
	static const char events[] =
		"#@ host vendor=npt\n"
		"100 0 300 marker text=a\n"
		"200 1 30 page_fault vcpu=0 gpa=0x1000 error_code=0x6 rip=0x1\n"
		"300 0 20 dirty_logging end=0 vm=1 vm_pid=20 as=0 slot=1 gfn=0x0 pages=1 "
		"old_flags=0x0 new_flags=0x1 change=3 change_name=flags_only eager_split=1 "
		"initially_set=0 pml=0 ns=0\n"
		"400 1 30 page_fault vcpu=0 gpa=0x2000 error_code=0x6 rip=0x1\n"
		"500 0 0 marker text=idle\n"
		"600 0 300 marker text=b\n";
	struct msc_event lost = { .ts = 700, .pid = -1, .type = MSC_EV_LOST };
	char path[512], db[512];
	struct msc_ingest *ing;
	struct msc_source *src;
	struct msc_store *s;
	int *pids = NULL;
	size_t nr = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/pids.events", tmp);
	snprintf(db, sizeof(db), "%s/pids.db", tmp);
	f = fopen(path, "w");
	if (!check(f))
		return;
	fputs(events, f);
	fclose(f);
	if (!check_int(msc_source_open_text(path, &src, NULL, 0), ==, 0))
		return;
	if (!check_int(msc_store_open(db, MSC_STORE_CREATE, &s), ==, 0)) {
		msc_source_close(src);
		return;
	}
	if (check_int(msc_ingest_new(src, s, NULL, &ing), ==, 0)) {
		while (msc_ingest_step(ing, 2) > 0)
			;
		check_int(msc_ingest_add(ing, &lost), ==, 0);
		check_int(msc_ingest_finish(ing), ==, 0);
		if (check_int(msc_ingest_get_pids(ing, &pids, &nr), ==, 0) &&
		    check_int(nr, ==, 5))
			check(pids[0] == -1 && pids[1] == 0 && pids[2] == 20 && pids[3] == 30 &&
			      pids[4] == 300);
		free(pids);
		msc_ingest_free(ing);
	}
	msc_store_close(s);
	msc_source_close(src);
}

/* The msc_live_*() calls refuse a source of another kind instead of reading it as live. */
static void t_not_live(void)
{
	char path[4200];
	struct msc_live_cpu_stats st;
	struct msc_source *src = NULL;
	uint64_t ts;
	FILE *f;

	snprintf(path, sizeof(path), "%s/one.events", tmp);
	f = fopen(path, "w");
	if (!check(f))
		return;
	fclose(f);
	if (!check_int(msc_source_open_text(path, &src, NULL, 0), ==, 0))
		return;
	check(msc_live_get_status(src) == NULL);
	check_int(msc_live_stop(src), ==, -EINVAL);
	check_int(msc_live_wait(src, 0), ==, -EINVAL);
	check_int(msc_live_now(src, &ts), ==, -EINVAL);
	check_int(msc_live_get_cpu_stats(src, 0, &st), ==, -EINVAL);
	check(msc_live_get_status(NULL) == NULL);
	msc_source_close(src);
}

int main(void)
{
	snprintf(tmp, sizeof(tmp), "%s/msc-t-live.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmp))
		return 1;
	TEST(t_fake_tree(), "fake tracing tree: 40k events over 2 CPUs merged, decoded, lost mark placed");
	TEST(t_fifo_live(), "FIFOs fed page by page: the reader waits, merges in order, ends at EOF");
	TEST(with_spool(t_fake_tree), "... the fake tree through a spool: the same stream, every page spooled");
	TEST(with_spool(t_fifo_live), "... the FIFOs through a spool: the same stream, in order");
	TEST(t_ioctl_exits(), "ioctl exits: only a task's exit after its recorded enter is handed out");
	TEST(t_fake_errors(), "no tracefs, missing instance, bad name, no kvmmmu: named, nothing left");
	TEST(t_host_profile(), "host profile from /proc and /sys selects the SPTE layout");
	TEST(t_kvm_settled(), "KVM counters: a sample is two reads that agree, never a torn read");
	TEST(t_kvm_debugfs(), "KVM counters from debugfs, one VM or all");
	TEST(t_kvm_coming_going(), "KVM counters: no sample of a VM whose files are coming or going");
	TEST(t_kvm_scan_share(), "KVM counters: scanning /proc for stats fds takes at most 1% of the time");
	TEST(t_kvm_inside(), "KVM counters: a VM is not read while its VMM is inside a KVM ioctl");
	TEST(t_store_live(), "live tables: lost rows take a seq and count in the capture");
	TEST(t_kvm_reads(), "KVM's counters before and after a moment, from the reads that saw a change");
	TEST(t_not_live(), "a source that is not live: every msc_live_*() call refuses it");
	TEST(t_ingest_pids(), "the tasks of a recording: every stored event's, once, ascending");
	sh("rm -rf '%s'", tmp);
	return test_done();
}
