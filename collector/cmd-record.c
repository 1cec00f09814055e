// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmuscope record -o DB`: record the KVM MMU of this host live, from a
 * dedicated tracefs instance, into a database that sqlite3 and the TUI can
 * read while it grows (WAL; a commit every --commit-ms).
 *
 * The live source's drain thread moves the raw ring-buffer pages into a
 * spool beside the database (--spool-dir) as fast as the kernel fills
 * them; the loop here moves events from the spool through the ingest
 * pipeline (the same decoder, classifier, store and inline analysis as
 * import) as fast as it can, so a storm waits on disk, not in a ring
 * buffer that overwrites it, and the analysis tables grow while recording; between
 * batches, samples KVM's own counters, commits, and checks the ring
 * buffer's lost-event counters.  SIGINT/SIGTERM (or --duration) turn
 * tracing off; what the kernel still holds is drained and stored, the
 * capture is marked complete, and the instance and kprobes are removed.
 * Killed outright, the database keeps every committed event with
 * capture.complete = 0.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "cli/cli.h"
#include "mmuscope/error.h"
#include "mmuscope/event.h"
#include "mmuscope/file.h"
#include "mmuscope/history.h"
#include "mmuscope/host.h"
#include "mmuscope/ingest.h"
#include "mmuscope/live.h"
#include "mmuscope/source.h"
#include "mmuscope/store.h"
#include "mmuscope/synth.h"
#include "mmuscope/util.h"
#include "metrics-file.h"

#define MAX_VMS 64
#define MSC_MAX_CPUS 8192
#define MAX_LOST 192		/* 3 counters x 64 CPUs per poll */
#define METRICS_EVERY_S 10.0	/* --metrics-dir: how often the file is written anew */

struct record_opts {
	const char *output;
	const char *trace_dat;		/* also write the raw capture here */
	const char *metrics_dir;	/* keep DIR/mmuscope.prom current, or NULL */
	double duration;		/* seconds, 0: until a signal */
	unsigned int commit_ms, stats_ms;
	enum msc_kvm_via kvm_stats;	/* --kvm-stats */
	struct cli_output out;		/* --force, --append, --host */
	bool quiet, no_analyze, no_spool;
	char spool_dir[4096];
	struct msc_live_opts live;
};

/* --trace-dat: each CPU's raw pages, in files of a staging directory. */
struct raw_tee {
	char dir[4096];			/* "" until the first page */
	FILE *f[MSC_MAX_CPUS];
	int nr_cpus;			/* files opened: highest cpu + 1 */
};

/* A VM seen by the counter sampler, and what was last stored of it. */
struct vm_seen {
	struct msc_kvm_sample last;	/* its newest row's counters */
	struct msc_kvm_read_span read;	/* its newest read ({ 0, 0 }: none) */
};

struct recorder {
	struct record_opts *o;
	struct msc_source *src;
	struct msc_store *store;
	struct msc_ingest *ing;
	struct msc_history_tap *tap;	/* inline analysis, as import does; NULL: none */
	struct msc_tap analysis;	/* ... as a tap, behind the sampler's (watch_tap) */
	struct msc_kvm_sampler *sampler;
	struct vm_seen vms[MAX_VMS];
	struct raw_tee *tee;
	size_t nr_vms;
	bool params_stored;
	uint64_t lost, samples;
	uint64_t sampler_reads;		/* of KVM's counters, every VM each */
	double sampler_cpu_s;		/* CPU time those reads took */
	double cpu_s;			/* the whole recorder's while recording, every thread */
	int store_err;			/* the error came from the database */
	double next_metrics;		/* when --metrics-dir's file is written next */
	uint64_t jitter;		/* xorshift64 state of the reads' intervals (next_read()) */
	bool metrics_failed;		/* ... said once */
};

/* --kvm-stats's words, by enum msc_kvm_via */
static const char *const kvm_stats_via[] = {
	[MSC_KVM_VIA_AUTO] = "auto",
	[MSC_KVM_VIA_STATS_FD] = "stats-fd",
	[MSC_KVM_VIA_DEBUGFS] = "debugfs",
};

/* One option @c (not an output one) into @o; -1 when it is bad */
static int parse_one(struct record_opts *o, int c, const char *arg)
{
	char *end;
	int r;

	switch (c) {
	case 'o':
		o->output = arg;
		break;
	case 'p':
		o->live.pid = (int)strtol(arg, &end, 10);
		if (*end || o->live.pid <= 0) {
			cli_error("--pid %s: expected a process id", arg);
			return -1;
		}
		break;
	case 'd':
		o->duration = strtod(arg, &end);
		if (*end || o->duration <= 0) {
			cli_error("--duration %s: expected seconds > 0", arg);
			return -1;
		}
		break;
	case 'b':
		o->live.buffer_kb = (unsigned int)strtoul(arg, &end, 10);
		if (*end || !o->live.buffer_kb) {
			cli_error("--buffer-kb %s: expected KiB per CPU", arg);
			return -1;
		}
		break;
	case 'I':
		o->live.instance = arg;
		break;
	case 'T':
		o->live.tracing_dir = arg;
		break;
	case 'K':
		o->live.no_kprobes = true;
		break;
	case 'S':
		o->stats_ms = (unsigned int)strtoul(arg, &end, 10);
		if (*end) {
			cli_error("--stats-ms %s: expected milliseconds (0: off)", arg);
			return -1;
		}
		break;
	case 'C':
		o->commit_ms = (unsigned int)strtoul(arg, &end, 10);
		if (*end || !o->commit_ms) {
			cli_error("--commit-ms %s: expected milliseconds", arg);
			return -1;
		}
		break;
	case 'q':
		o->quiet = true;
		break;
	case 'N':
		o->no_analyze = true;
		break;
	case 'D':
		o->trace_dat = arg;
		break;
	case 'P':
		snprintf(o->spool_dir, sizeof(o->spool_dir), "%s", arg);
		break;
	case 'Q':
		o->no_spool = true;
		break;
	case 'M':
		o->metrics_dir = arg;
		r = metrics_dir_check(arg);
		if (r) {
			cli_error("--metrics-dir %s: %s (an existing directory it can write)",
				  arg, strerror(-r));
			return -1;
		}
		break;
	case 'V':
		for (r = 0; r < (int)ARRAY_SIZE(kvm_stats_via) && strcmp(arg, kvm_stats_via[r]); r++)
			;
		if (r == (int)ARRAY_SIZE(kvm_stats_via)) {
			cli_error("--kvm-stats %s: expected auto, stats-fd or debugfs", arg);
			return -1;
		}
		o->kvm_stats = (enum msc_kvm_via)r;
		break;
	case 'L':
		o->live.light = true;
		o->live.light_cells = arg ? (unsigned int)strtoul(arg, &end, 10) : 0;
		if (arg && (*end || !o->live.light_cells))
			o->live.light_cells = 1;	/* refused by the source */
		break;
	default:
		return -1;
	}
	return 0;
}

/* The options together: what one alone cannot tell, and the defaults they imply */
static int check_args(struct record_opts *o)
{
	if (!o->output) {
		cli_error("need -o DB (and no other arguments)");
		return -1;
	}
	if (o->metrics_dir && o->no_analyze) {
		cli_error("--metrics-dir needs the analysis: not with --no-analyze");
		return -1;
	}
	if (o->no_spool && o->spool_dir[0]) {
		cli_error("--spool-dir and --no-spool: choose one");
		return -1;
	}
	if (!o->no_spool && !o->spool_dir[0]) {
		/* the database's disk: the backlog is on its way there anyway */
		const char *slash = strrchr(o->output, '/');

		if (!slash)
			snprintf(o->spool_dir, sizeof(o->spool_dir), ".");
		else
			snprintf(o->spool_dir, sizeof(o->spool_dir), "%.*s",
				 (int)(slash == o->output ? 1 : slash - o->output), o->output);
	}
	if (!o->no_spool)
		o->live.spool_dir = o->spool_dir;
	if (o->stats_ms == UINT_MAX)
		o->stats_ms = o->live.light ? 10 : 100;
	return cli_output_check(&o->out) ? 0 : -1;
}


static int parse_args(int argc, char **argv, struct record_opts *o)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'p' },
		{ "duration", required_argument, NULL, 'd' },
		{ "buffer-kb", required_argument, NULL, 'b' },
		{ "instance", required_argument, NULL, 'I' },
		{ "tracing-dir", required_argument, NULL, 'T' },
		{ "no-kprobes", no_argument, NULL, 'K' },
		{ "stats-ms", required_argument, NULL, 'S' },
		{ "kvm-stats", required_argument, NULL, 'V' },
		{ "commit-ms", required_argument, NULL, 'C' },
		CLI_OUTPUT_OPTIONS,
		{ "quiet", no_argument, NULL, 'q' },
		{ "no-analyze", no_argument, NULL, 'N' },
		{ "trace-dat", required_argument, NULL, 'D' },
		{ "spool-dir", required_argument, NULL, 'P' },
		{ "no-spool", no_argument, NULL, 'Q' },
		{ "metrics-dir", required_argument, NULL, 'M' },
		{ "light", optional_argument, NULL, 'L' },
		{ 0 }
	};
	int c, r;

	cli_output_init(&o->out);
	o->commit_ms = 250;
	o->stats_ms = UINT_MAX;	/* not given: 100, or 10 with --light (census around each step) */
	while ((c = getopt_long(argc, argv, "o:p:d:b:fq", longopts, NULL)) != -1) {
		r = cli_output_option(&o->out, c, optarg);
		if (r < 0)
			return -1;
		if (!r && parse_one(o, c, optarg))
			return -1;
	}
	if (optind != argc) {
		cli_error("need -o DB (and no other arguments)");
		return -1;
	}
	return check_args(o);
}

/* Open the database: new (0600, WAL), replaced with --force, or --append. */
static int open_store(const struct record_opts *o, struct msc_store **ret)
{
	struct msc_store *s = NULL;
	int r, claim = -1;
	bool exists;

	cli_clean_leftovers(o->output);
	if (o->trace_dat)
		cli_clean_leftovers(o->trace_dat);
	if (o->live.spool_dir) {
		char spool[4200];

		snprintf(spool, sizeof(spool), "%s/.mmuscope", o->live.spool_dir);
		cli_clean_leftovers(spool);
	}
	exists = !access(o->output, F_OK);

	if (cli_output_refuses(&o->out, o->output, exists))
		return MSC_ERR_EXISTS;
	if (exists && o->out.append) {
		/* nobody may be writing it; we are its one writer until we close it */
		r = msc_store_open(o->output, 0, &s);
		if (!r)
			r = msc_store_lock(s);
		if (r) {
			cli_store_error(o->output, NULL, r);
			msc_store_close(s);
			return r;
		}
		*ret = s;
		return 0;
	}
	if (exists) {
		claim = cli_claim_db(o->output);
		if (claim < 0)
			return claim;
		cli_remove_db(o->output);
	}
	r = msc_store_open(o->output, MSC_STORE_CREATE, ret);
	cli_release_db(claim);
	if (r)
		cli_error("%s: cannot create database: %s", o->output, msc_strerror(r));
	return r;
}

static int store_result(struct recorder *rec, int r)
{
	if (r && !rec->store_err)
		rec->store_err = r;
	return r;
}

/* The host facts and how this recording was set up, once the capture row exists. */
static int store_params(struct recorder *rec)
{
	const struct msc_live_status *st = msc_live_get_status(rec->src);
	const struct msc_host_profile *p = msc_live_get_profile(rec->src);
	struct msc_store *s = rec->store;
	char buf[64];
	int r = 0;

	for (size_t i = 0; !r && i < p->nr_params; i++)
		r = msc_store_set_param(s, p->params[i].name, p->params[i].value);
	if (!r)
		r = msc_store_set_param(s, "record.mode", msc_live_mode_name(st->mode));
	if (!r)
		r = msc_store_set_param(s, "record.mode_detail", st->mode_detail);
	if (!r && st->nr_kprobes)
		r = msc_store_set_param(s, "record.kprobes", st->kprobes);
	if (!r)
		r = msc_store_set_param(s, "record.instance", st->instance_dir);
	if (!r && rec->sampler)
		r = msc_store_set_param(s, "record.kvm_stats", msc_kvm_sampler_method(rec->sampler));
	if (!r && rec->o->live.light) {
		/* what the analysis and report cannot tell (docs/light.md) */
		unsigned int n = rec->o->live.light_cells;

		snprintf(buf, sizeof(buf), "%u", n);
		r = msc_store_set_param(s, "record.light", buf);
		if (n)
			snprintf(buf, sizeof(buf), "2M cells with gfn & %#x == 0", (n - 1) << 9);
		else
			snprintf(buf, sizeof(buf), "none");
		if (!r)
			r = msc_store_set_param(s, "record.sample", buf);
	}
	if (!r && rec->o->live.pid > 0) {
		snprintf(buf, sizeof(buf), "%d", rec->o->live.pid);
		r = msc_store_set_param(s, "record.pid", buf);
	}
	if (!r)
		r = msc_store_commit(s);
	return store_result(rec, r);
}

static struct vm_seen *find_vm(struct recorder *rec, const struct msc_kvm_sample *k)
{
	for (size_t i = 0; i < rec->nr_vms; i++)
		if (!strcmp(rec->vms[i].last.vm, k->vm))
			return &rec->vms[i];
	if (rec->nr_vms == MAX_VMS)
		return NULL;
	rec->vms[rec->nr_vms].last = *k;
	rec->vms[rec->nr_vms].last.pages_4k = -2;	/* differs from any sample */
	rec->vms[rec->nr_vms].read = (struct msc_kvm_read_span){ 0, 0 };
	return &rec->vms[rec->nr_vms++];
}

/* CPU time of the calling thread, and of the whole process (every thread) */
static double thread_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double process_cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/*
 * KVM's counters: a row per VM whose counters changed since its last row,
 * with the read before it (which still saw that last row's counters):
 * together they tell when the change happened (lib/store-kvm-reads.c).
 * Each read is kept with when it began and ended, however long it took
 * (preempted, or listing /proc): a read counts as before a moment only if
 * it ended by then, and as after it only if it began after.
 */
static int sample_kvm(struct recorder *rec)
{
	struct msc_kvm_sample k[MAX_VMS];
	struct msc_kvm_read_span read;
	double cpu = thread_cpu_s();
	int n, r = 0;

	msc_live_now(rec->src, &read.start);
	n = msc_kvm_sampler_read(rec->sampler, k, ARRAY_SIZE(k));
	msc_live_now(rec->src, &read.end);
	rec->sampler_cpu_s += thread_cpu_s() - cpu;
	rec->sampler_reads++;
	if (n <= 0)
		return 0;	/* no VM, or /proc unreadable: nothing to compare */
	for (int i = 0; i < n && !r; i++) {
		struct vm_seen *v = find_vm(rec, &k[i]);
		struct msc_kvm_read_span previous;

		if (!v)
			continue;
		previous = v->read;
		v->read = read;
		if (!memcmp(&v->last, &k[i], sizeof(k[i])))
			continue;
		v->last = k[i];
		rec->samples++;
		r = store_result(rec, msc_store_add_kvm_sample(rec->store, read, previous, &k[i]));
	}
	return r;
}

static int check_lost(struct recorder *rec, bool final)
{
	struct msc_live_lost lost[MAX_LOST];
	int n = msc_live_poll_lost(rec->src, final, lost, ARRAY_SIZE(lost)), r = 0;

	for (int i = 0; i < n && !r; i++) {
		struct msc_event ev = { .ts = lost[i].ts, .cpu = (uint16_t)lost[i].cpu, .pid = -1,
					.type = MSC_EV_LOST, .lost.count = lost[i].count };

		cli_warn("cpu %d: the kernel %s %llu events (%s); a larger --buffer-kb helps",
			 lost[i].cpu, strcmp(lost[i].source, "dropped") ? "lost" : "dropped",
			 (unsigned long long)lost[i].count, lost[i].source);
		snprintf(ev.lost.source, sizeof(ev.lost.source), "%s", lost[i].source);
		rec->lost += lost[i].count;
		/* stored where it was noticed; the analysis marks the history after it */
		r = store_result(rec, msc_ingest_add(rec->ing, &ev));
	}
	return r;
}

/* The VM of process @tgid, when the sampler saw exactly one (msc_ingest_add_tasks()). */
static const char *vm_of(void *ctx, int tgid)
{
	const struct recorder *rec = ctx;
	const char *vm = NULL;

	for (size_t i = 0; i < rec->nr_vms; i++) {
		if (rec->vms[i].last.pid != tgid)
			continue;
		if (vm)
			return NULL;
		vm = rec->vms[i].last.vm;
	}
	return vm;
}

/*
 * The tap in front of the analysis when KVM's counters are read: the
 * sampler follows the ioctls, to leave out a VM inside one.
 */
static int watch_begin(void *ctx, const struct msc_tap_begin *b)
{
	const struct recorder *rec = ctx;

	return rec->analysis.ops ? rec->analysis.ops->begin(rec->analysis.ctx, b) : 0;
}

static int watch_event(void *ctx, const struct msc_event *ev)
{
	const struct recorder *rec = ctx;

	msc_kvm_sampler_note(rec->sampler, ev);
	return rec->analysis.ops ? rec->analysis.ops->event(rec->analysis.ctx, ev) : 0;
}

static const struct msc_tap_ops watch_tap = { .begin = watch_begin, .event = watch_event };

/* A figure of what recording cost, stored as host_param @name when @on. */
struct cost_figure {
	const char *name;
	bool on, seconds;		/* @seconds: @value is seconds, else a count */
	double value;
};

/* What only the end knows: per-CPU counters, thread -> process -> VM. */
static int store_epilogue(struct recorder *rec)
{
	struct msc_kvm_scans sc = { 0 };
	struct msc_live_cpu_stats cs;
	bool k = rec->sampler != NULL;
	int r = 0;

	if (k)
		msc_kvm_sampler_scans(rec->sampler, &sc);
	/* what watching cost this host's CPUs (docs/light.md) */
	const struct cost_figure cost[] = {
		{ "record.cpu_s", true, true, rec->cpu_s },
		{ "record.kvm_stats_cpu_s", k, true, rec->sampler_cpu_s },
		{ "record.kvm_stats_reads", k, false, (double)rec->sampler_reads },
		{ "record.kvm_stats_skipped", k, false,
		  k ? (double)msc_kvm_sampler_skipped(rec->sampler) : 0 },
		{ "record.kvm_stats_scans", sc.nr, false, (double)sc.nr },
		{ "record.kvm_stats_scan_s", sc.nr, true, (double)sc.ns / 1e9 },
		{ "record.ioctl_exits_other", true, false,
		  (double)msc_live_get_status(rec->src)->other_exits },
	};

	for (int cpu = 0; !r && !msc_live_get_cpu_stats(rec->src, cpu, &cs); cpu++)
		r = msc_store_add_cpu_stats(rec->store, &cs);
	for (size_t i = 0; !r && i < ARRAY_SIZE(cost); i++) {
		char v[32];

		if (!cost[i].on)
			continue;
		snprintf(v, sizeof(v), cost[i].seconds ? "%.3f" : "%.0f", cost[i].value);
		r = msc_store_set_param(rec->store, cost[i].name, v);
	}
	if (!r)
		r = msc_ingest_add_tasks(rec->ing, vm_of, rec);
	return store_result(rec, r);
}

static int tee_page(void *ctx, int cpu, const void *page, size_t size)
{
	struct raw_tee *tee = ctx;
	char path[4200];

	if (cpu < 0 || cpu >= MSC_MAX_CPUS)
		return -EINVAL;
	if (!tee->f[cpu]) {
		snprintf(path, sizeof(path), "%s/cpu%d", tee->dir, cpu);
		tee->f[cpu] = fopen(path, "we");
		if (!tee->f[cpu])
			return -errno;
		tee->nr_cpus = max(tee->nr_cpus, cpu + 1);
	}
	return fwrite(page, 1, size, tee->f[cpu]) == size ? 0 : -EIO;
}

static int tee_open(struct recorder *rec)
{
	struct raw_tee *tee = calloc(1, sizeof(*tee));

	if (!tee)
		return -ENOMEM;
	snprintf(tee->dir, sizeof(tee->dir), "%s.parts.%d.XXXXXX", rec->o->trace_dat, (int)getpid());
	if (!mkdtemp(tee->dir)) {
		int r = -errno;

		cli_error("%s: cannot make a staging directory: %s", tee->dir, strerror(errno));
		free(tee);
		return r;
	}
	rec->tee = tee;
	rec->o->live.page_fn = tee_page;
	rec->o->live.page_ctx = tee;
	return 0;
}

/* An empty file (a CPU without pages, an empty symbol table). */
static int touch(const char *path)
{
	FILE *f = fopen(path, "ae");

	return f && !fclose(f) ? 0 : -errno;
}

/* Assemble the trace.dat from the raw pages, before the source goes (kprobe formats). */
static int tee_write(struct recorder *rec)
{
	struct raw_tee *tee = rec->tee;
	const struct msc_live_status *st = msc_live_get_status(rec->src);
	char tracing[4200], syms[4300], *files[MSC_MAX_CPUS] = { NULL };
	const char *kallsyms = "/proc/kallsyms";
	int nr = max(tee->nr_cpus, st->nr_cpus), r;

	snprintf(tracing, sizeof(tracing), "%s/tracing", tee->dir);
	r = mkdir(tracing, 0700) ? -errno : msc_live_save_formats(rec->src, tracing);
	for (int cpu = 0; !r && cpu < nr; cpu++) {
		if (tee->f[cpu] && fclose(tee->f[cpu]))
			r = -EIO;
		tee->f[cpu] = NULL;
		if (asprintf(&files[cpu], "%s/cpu%d", tee->dir, cpu) < 0) {
			files[cpu] = NULL;
			r = -ENOMEM;
		} else if (!r) {
			r = touch(files[cpu]);
		}
	}
	/* a test tree, or a /proc/kallsyms we may not read: no symbols */
	if (!r && (!st->owns_instance || access(kallsyms, R_OK))) {
		snprintf(syms, sizeof(syms), "%s/kallsyms", tracing);
		kallsyms = syms;
		r = touch(syms);
	}
	if (!r)
		r = msc_tracedat_write(rec->o->trace_dat, tracing, kallsyms, (unsigned int)nr, files,
				       7, "zstd", msc_source_info(rec->src)->uname);
	if (r)
		cli_error("%s: cannot write the trace.dat: %s", rec->o->trace_dat, msc_strerror(r));
	for (int cpu = 0; cpu < nr; cpu++)
		free(files[cpu]);
	return r;
}

/* Remove the staging directory of --trace-dat. */
static void tee_close(struct raw_tee *tee)
{
	int r;

	if (!tee)
		return;
	for (int cpu = 0; cpu < tee->nr_cpus; cpu++)
		if (tee->f[cpu])
			fclose(tee->f[cpu]);
	r = msc_file_remove(tee->dir);
	if (r)
		cli_warn("%s: could not remove it: %s", tee->dir, strerror(-r));
	free(tee);
}

static void print_start(const struct recorder *rec)
{
	const struct msc_live_status *st = msc_live_get_status(rec->src);
	const struct msc_host_profile *p = msc_live_get_profile(rec->src);
	const struct msc_host *h = &p->host;

	printf("recording into %s: instance %s, %d cpus, clock %s%s\n", rec->o->output,
	       st->instance_dir, st->nr_cpus, st->clock,
	       st->copy_marker ? ", trace_marker copied in" : "");
	if (st->test_tree)
		printf("  host: not this machine (a test tree): inferred from the events\n");
	else
		printf("  host: kernel %s, %s, SPTE layout %s%s, %u physical address bits\n",
		       h->release, p->kvm_module[0] ? p->kvm_module : "no kvm module",
		       msc_vendor_name(h->vendor), h->tdp_mmu ? " (TDP MMU)" : "", p->phys_bits);
	printf("  phases and TLB flushes: %s (%s)%s%s\n", msc_live_mode_name(st->mode),
	       st->mode_detail, st->nr_kprobes ? ": " : "", st->nr_kprobes ? st->kprobes : "");
	if (rec->o->live.light && rec->o->live.light_cells)
		printf("  light: SPTE history of 1 in %u 2M cells (%u events enabled)\n",
		       rec->o->live.light_cells, st->nr_events);
	else if (rec->o->live.light)
		printf("  light: no SPTE history: ioctls, splits, KVM's counters (%u events enabled)\n",
		       st->nr_events);
	if (st->nr_pids)
		printf("  only process %d (%u threads, and threads it creates)\n",
		       rec->o->live.pid, st->nr_pids);
	if (rec->sampler)
		printf("  KVM counters: %s every %u ms; markers: %s\n",
		       msc_kvm_sampler_method(rec->sampler), rec->o->stats_ms, st->marker_path);
	else
		printf("  KVM counters: off%s; markers: %s\n",
		       st->test_tree ? " (this host's VMs are not the tree's)" : "", st->marker_path);
	printf("  Ctrl-C stops\n");
	fflush(stdout);
}

/* The capture row is written: the host is final. */
static bool started(const struct recorder *rec)
{
	struct msc_ingest_counts c;

	msc_ingest_get_counts(rec->ing, &c);
	return c.started;
}

static void print_summary(const struct recorder *rec, double secs)
{
	const struct msc_live_status *st = msc_live_get_status(rec->src);
	struct msc_live_spool_stats sp;
	struct msc_ingest_counts c;
	char a[32], b[32];

	msc_ingest_get_counts(rec->ing, &c);
	printf("%s: %s events in %.1f s (%s events/s), %llu KVM counter rows", rec->o->output,
	       cli_count(c.events, a, sizeof(a)), secs,
	       cli_count(secs > 0 ? (unsigned long long)(c.events / secs) : 0, b, sizeof(b)),
	       (unsigned long long)rec->samples);
	printf(", %llu events lost\n", (unsigned long long)(rec->lost + c.by_type[MSC_EV_LOST]));
	printf("  recorder CPU %.2f s", rec->cpu_s);
	if (rec->sampler_reads)
		printf("; KVM counters read %llu times, %.3f s CPU (%.0f us a read), "
		       "%llu VM reads left out during a KVM ioctl",
		       (unsigned long long)rec->sampler_reads, rec->sampler_cpu_s,
		       rec->sampler_cpu_s * 1e6 / (double)rec->sampler_reads,
		       (unsigned long long)msc_kvm_sampler_skipped(rec->sampler));
	if (rec->sampler) {
		struct msc_kvm_scans sc;

		msc_kvm_sampler_scans(rec->sampler, &sc);
		if (sc.nr)
			printf("; /proc scanned for stats fds %llu times, %.3f s (%.1f ms the longest)",
			       (unsigned long long)sc.nr, (double)sc.ns / 1e9, (double)sc.max_ns / 1e6);
	}
	printf("\n");
	if (!msc_live_get_spool_stats(rec->src, &sp) && sp.on)
		printf("  spool: %s through %s, backlog at most %s, ring buffers drained in %.2f s\n",
		       cli_bytes(sp.bytes, a, sizeof(a)), rec->o->spool_dir,
		       cli_bytes(sp.peak_backlog * (sp.pages ? sp.bytes / sp.pages : 0), b, sizeof(b)),
		       sp.drain_s);
	for (int t = 0; t < MSC_EV_NR; t++)
		if (c.by_type[t])
			printf("  %s %s", msc_event_type_name(t), cli_count(c.by_type[t], a, sizeof(a)));
	printf("\n");
	if (st->other_exits)
		printf("  %s exits of ioctls not recorded (KVM_RUN, other programs') read, not stored\n",
		       cli_count(st->other_exits, a, sizeof(a)));
}

/* At a stop: what the spool still holds is stored first; a second Ctrl-C quits now. */
static void say_backlog(const struct recorder *rec)
{
	struct msc_live_spool_stats sp;
	char b[32];

	if (rec->o->quiet || msc_live_get_spool_stats(rec->src, &sp) || !sp.backlog || !sp.pages)
		return;
	printf("stopping: storing the %s still in the spool (Ctrl-C again quits now, "
	       "keeping what is stored)\n", cli_bytes(sp.backlog * (sp.bytes / sp.pages), b, sizeof(b)));
	fflush(stdout);
}

/*
 * --metrics-dir: the metrics of what is analyzed so far (the phases as they
 * stand), or at the end of everything.  The recording goes on without them
 * when they cannot be written: said once.
 */
static int write_metrics(struct recorder *rec)
{
	char host[256];
	int r = msc_history_tap_checkpoint(rec->tap);

	if (r)
		return store_result(rec, r);
	if (gethostname(host, sizeof(host)))
		snprintf(host, sizeof(host), "unknown");
	host[sizeof(host) - 1] = '\0';
	r = metrics_file_write(rec->store, 0, rec->o->metrics_dir, host);
	if (r && !rec->metrics_failed)
		cli_warn("--metrics-dir %s: cannot write mmuscope.prom: %s", rec->o->metrics_dir,
			 msc_strerror(r));
	rec->metrics_failed |= r != 0;
	return 0;
}

/*
 * When KVM's counters are read next: every --stats-ms on average, each
 * interval drawn anew from [stats_ms / 2, 3 stats_ms / 2).  A fixed period
 * locks onto a periodic workload: where a vCPU pass lasts about one period,
 * the read after one made at a step's end lands in the next step every time
 * (27 of 50 first clears on the Bochs EPT rig, BENCHMARKS.md).  At a random
 * phase a read meets a step only as often as the step is long.
 */
static double next_read(struct recorder *rec, double now)
{
	uint64_t x = rec->jitter;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	rec->jitter = x;
	return now + rec->o->stats_ms / 1e3 * (0.5 + (double)(x >> 11) / (double)(1ULL << 53));
}

/* Move events until the source ends; timers run between batches. */
static int run(struct recorder *rec)
{
	const struct record_opts *o = rec->o;
	double t0 = msc_mono_s(), next_commit = t0 + o->commit_ms / 1e3;
	double next_stats = t0, deadline = o->duration > 0 ? t0 + o->duration : 0;
	bool stopping = false;
	int step, r = 0;

	rec->jitter = ((uint64_t)getpid() << 32 ^ (uint64_t)(t0 * 1e9)) | 1;	/* never 0 */
	for (;;) {
		double now, wake;

		step = msc_ingest_step(rec->ing, 4096);
		if (step == 0 || (step < 0 && step != -EAGAIN)) {
			r = step;
			break;
		}
		if (started(rec) && !rec->params_stored) {
			rec->params_stored = true;
			if ((r = store_params(rec)))
				return r;
		}
		now = msc_mono_s();
		if (rec->sampler && started(rec) && now >= next_stats) {
			if ((r = sample_kvm(rec)))
				return r;
			next_stats = next_read(rec, now);
		}
		if (now >= next_commit) {
			r = check_lost(rec, false);
			if (!r)
				r = store_result(rec, msc_store_commit(rec->store));
			if (r)
				return r;
			next_commit = now + o->commit_ms / 1e3;
		}
		if (o->metrics_dir && rec->tap && started(rec) && now >= rec->next_metrics) {
			if ((r = write_metrics(rec)))
				return r;
			rec->next_metrics = now + METRICS_EVERY_S;
		}
		if (!stopping && (cli_stop || (deadline && now >= deadline))) {
			stopping = true;
			msc_live_stop(rec->src);
			say_backlog(rec);
			continue;	/* what the kernel still holds: no wait */
		}
		if (step != -EAGAIN)
			continue;	/* more events are ready */
		wake = min(next_commit, rec->sampler ? next_stats : next_commit);
		if (deadline && !stopping)
			wake = min(wake, deadline);
		r = msc_live_wait(rec->src, (int)max(0.0, (wake - now) * 1e3) + 1);
		if (r)
			break;
	}
	if (r < 0) {
		struct msc_ingest_counts c;

		msc_ingest_get_counts(rec->ing, &c);
		if (c.store_failed)
			store_result(rec, r);
		return r;
	}
	if (rec->sampler && started(rec) && (r = sample_kvm(rec)))
		return r;
	return check_lost(rec, true);
}

static int finish(struct recorder *rec)
{
	int r;

	if (!started(rec)) {
		/* nothing came at all: still a capture, with its host */
		r = msc_ingest_finish(rec->ing);
		if (r)
			return store_result(rec, r);
		return store_result(rec, msc_store_finish(rec->store));
	}
	r = store_epilogue(rec);
	if (!r && (r = msc_ingest_finish(rec->ing)))
		store_result(rec, r);
	if (!r && rec->tap)
		r = store_result(rec, msc_history_tap_finish(rec->tap, NULL));
	/* the tasks, stored last, name processes: VMs from before the recording */
	if (!r && rec->tap && (r = msc_history_by_process(rec->store, 0, NULL)) > 0)
		r = 0;
	if (r < 0)
		r = store_result(rec, r);
	if (!r && rec->o->metrics_dir && rec->tap)
		r = write_metrics(rec);
	if (!r)
		r = store_result(rec, msc_store_finish(rec->store));
	if (!r && rec->tee)
		r = tee_write(rec);
	return r;
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o = { 0 };
	struct recorder rec = { .o = &o };
	char error[512] = "";
	bool created, test_tree;
	const char *w;
	double t0, cpu0;
	int r;

	if (parse_args(argc, argv, &o))
		return 2;
	cli_catch_signals();
	if (open_store(&o, &rec.store))
		return 1;
	created = !o.out.append;	/* a new (or replaced) file: removed if nothing is recorded */
	if (o.trace_dat && (r = tee_open(&rec)))
		goto out;
	r = msc_source_open_tracefs(&o.live, &rec.src, error, sizeof(error));
	if (r) {
		cli_error("%s", error[0] ? error : msc_strerror(r));
		if (r == -EACCES || r == -EPERM)
			cli_error("recording needs root (or write access to tracefs)");
		goto out;
	}
	test_tree = msc_live_get_status(rec.src)->test_tree;
	if (o.stats_ms && !test_tree)	/* this host's VMs are not the tree's */
		r = msc_kvm_sampler_open(NULL, NULL, o.live.pid, o.kvm_stats, &rec.sampler);
	if (r == -ENOENT) {
		cli_error("--kvm-stats debugfs: no readable /sys/kernel/debug/kvm (debugfs not "
			  "mounted, or locked down)");
		goto out;
	}
	if (!r)
		r = msc_ingest_new(rec.src, rec.store, &o.out.host, &rec.ing);
	if (!r && !o.no_analyze)
		r = msc_history_tap_new(NULL, NULL, &rec.tap);
	if (rec.tap)
		rec.analysis = msc_history_tap_tap(rec.tap);
	if (rec.sampler && rec.ing)
		msc_ingest_set_tap(rec.ing, &(struct msc_tap){ .ops = &watch_tap, .ctx = &rec });
	else if (rec.tap)
		msc_ingest_set_tap(rec.ing, &rec.analysis);
	if (r) {
		cli_error("%s", msc_strerror(r));
		goto out;
	}
	if (!o.quiet)
		print_start(&rec);
	t0 = msc_mono_s();
	cpu0 = process_cpu_s();
	r = run(&rec);
	rec.cpu_s = process_cpu_s() - cpu0;
	while ((w = msc_source_next_warning(rec.src)))
		cli_warn("%s", w);
	cli_warn_refused(msc_live_get_status(rec.src)->instance_dir, rec.ing);
	if (!r)
		r = finish(&rec);
	if (r && rec.store_err)
		cli_store_error(o.output, rec.store, r);
	else if (r)
		cli_error("%s: %s%s%s", msc_live_get_status(rec.src)->instance_dir, msc_strerror(r),
			  msc_source_error(rec.src)[0] ? ": " : "", msc_source_error(rec.src));
	else if (!o.quiet)
		print_summary(&rec, msc_mono_s() - t0);
	if (r)
		cli_error("%s: stopped; every committed event is kept (capture incomplete)",
			  o.output);
	msc_history_tap_free(rec.tap);
	msc_ingest_free(rec.ing);
out:
	msc_kvm_sampler_close(rec.sampler);
	msc_store_close(rec.store);
	if (!rec.src && created)
		cli_remove_db(o.output);	/* nothing was recorded into the new file */
	msc_source_close(rec.src);
	tee_close(rec.tee);
	return r ? 1 : 0;
}
