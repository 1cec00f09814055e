// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmuscope synth`: synthetic traces of TDP MMU activity at any scale, in
 * the real kernel formats, written as a fake tracing directory (raw
 * per-CPU ring-buffer pages, for the live path) and/or as a trace.dat
 * (assembled by libtracecmd from that directory).
 *
 * The formats come from --formats DIR, else $MSC_FORMATS_DIR/<name>, else
 * tests/data/formats/<name> beside the program's build directory, where
 * <name> is the kernel's formats directory (6.1, 6.12, 6.18, 7.3).
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "mmuscope/error.h"
#include "mmuscope/event.h"
#include "mmuscope/synth.h"
#include "mmuscope/util.h"

#define MAX_COMMS 4097

struct synth_args {
	struct msc_synth_opts o;
	const char *output, *tracing_dir, *instance, *formats, *from_events, *compression;
	int file_version;
	bool fifo, quiet;
	unsigned int trickle_ms;
	unsigned int page_rate, ring_pages;	/* --page-rate, --ring-pages */
	uint64_t dropped;			/* pages the ring overwrote unread */
};

const char cmd_synth_usage[] =
	"(-o TRACE.dat | --tracing-dir DIR) [options]\n\n"
	"Scenario (what workload/dirtylog.c runs; defaults in brackets):\n"
	"  --guest-gib N | --guest-mib N   test slot size [4 GiB]\n"
	"  --backing 4k|2m|1g              host pages: anon, THP, hugetlb 1G [2m]\n"
	"  --vcpus N                       vCPUs, each writing its share [1]\n"
	"  --cpus N                        host CPUs = per-CPU buffers [vcpus + 1]\n"
	"  --cycles N                      enable .. repopulate cycles [1]\n"
	"  --passes N                      dirty passes per cycle [1]\n"
	"  --percent P                     pages written per dirty pass [100]\n"
	"  --kernel 6.1|6.12|6.13|6.18|7.3 behaviour and formats [6.12]; 6.13+ recovers\n"
	"                                  huge pages in place (6.13 uses 6.18's formats);\n"
	"                                  7.3: 4-bit role access, FROZEN 0x...1a0, a\n"
	"                                  removed table traced before its parent\n"
	"  --vendor npt|ept                SPTE layout [npt]\n"
	"  --eager-split on|off            kvm.eager_page_split [on]\n"
	"  --pml on|off                    EPT page-modification logging [off]\n"
	"  --clear-log on|off              manual protect + KVM_CLEAR_DIRTY_LOG [off]\n"
	"  --kprobes on|off                the captures' kprobe events, if the formats\n"
	"                                  have them (6.1, 6.12, 7.3) [on]\n"
	"  --lost-events N                 drop N events on CPU 0 from the first enable on\n"
	"  --stop-after PHASE              end after a phase, e.g. enable_dirty_logging\n"
	"  --seed N                        timing jitter [1]\n"
	"  --from-events FILE              encode a text event file (`mmuscope dump`)\n"
	"                                  instead of running the model (--cpus: all CPUs)\n"
	"\n"
	"Output (at least one of -o and --tracing-dir):\n"
	"  -o FILE                         trace.dat (libtracecmd), created 0600\n"
	"  --file-version 6|7 [7]   --compression zstd|none [zstd]\n"
	"  --tracing-dir DIR               a fake /sys/kernel/tracing (kept with -o):\n"
	"    DIR/events/header_page, header_event, <sys>/<ev>/{format,id,enable,filter}\n"
	"    DIR/{tracing_on,trace_clock,buffer_size_kb,trace_marker,saved_cmdlines,\n"
	"         printk_formats,kallsyms,current_tracer}\n"
	"    DIR/per_cpu/cpuN/{trace_pipe_raw,buffer_size_kb,stats}: trace_pipe_raw\n"
	"         holds raw 4096-byte sub-buffers, read() returns one page at a time\n"
	"    DIR/instances/NAME/...         the same tree, made in advance\n"
	"  --instance NAME                 pages go to the instance, not the top level\n"
	"  --fifo                          trace_pipe_raw files are FIFOs; after\n"
	"                                  generating, one writer per CPU waits for its\n"
	"                                  reader and closes at the end (read all CPUs\n"
	"                                  at once)\n"
	"  --trickle MS                    feed one page per CPU every MS ms\n"
	"  --page-rate N                   with --fifo: a kernel's ring buffer, each CPU\n"
	"                                  making N pages a second whether or not they\n"
	"                                  are read, holding --ring-pages [256] unread and\n"
	"                                  overwriting the oldest beyond (the next page\n"
	"                                  read says events were missed); the summary\n"
	"                                  counts the pages overwritten\n"
	"  --ring-pages N                  pages a CPU's ring holds unread\n"
	"  --formats DIR                   event formats [tests/data/formats/<kernel>]\n"
	"  -q                              no summary\n";

static int parse_on_off(const char *opt, const char *arg, bool *ret)
{
	if (!strcmp(arg, "on") || !strcmp(arg, "1") || !strcmp(arg, "y"))
		*ret = true;
	else if (!strcmp(arg, "off") || !strcmp(arg, "0") || !strcmp(arg, "n"))
		*ret = false;
	else {
		cli_error("%s %s: expected on or off", opt, arg);
		return -1;
	}
	return 0;
}

static int parse_uint(const char *opt, const char *arg, uint64_t max, uint64_t *ret)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(arg, &end, 0);
	if (errno || end == arg || *end || v > max || arg[0] == '-') {
		cli_error("%s %s: expected a number up to %llu", opt, arg, (unsigned long long)max);
		return -1;
	}
	*ret = v;
	return 0;
}

enum {
	OPT_GIB = 256, OPT_MIB, OPT_BACKING, OPT_VCPUS, OPT_CPUS, OPT_CYCLES, OPT_PASSES,
	OPT_PERCENT, OPT_KERNEL, OPT_VENDOR, OPT_EAGER, OPT_PML, OPT_CLEAR, OPT_KPROBES,
	OPT_LOST, OPT_STOP, OPT_SEED, OPT_FROM, OPT_VERSION, OPT_COMPRESSION, OPT_DIR,
	OPT_INSTANCE, OPT_FIFO, OPT_TRICKLE, OPT_FORMATS, OPT_PAGE_RATE, OPT_RING_PAGES,
};

static int parse_opt(struct synth_args *a, int c, const char *arg, const char *name)
{
	struct msc_synth_opts *o = &a->o;
	uint64_t v;

	switch (c) {
	case 'o': a->output = arg; return 0;
	case 'q': a->quiet = true; return 0;
	case OPT_DIR: a->tracing_dir = arg; return 0;
	case OPT_INSTANCE: a->instance = arg; return 0;
	case OPT_FIFO: a->fifo = true; return 0;
	case OPT_FORMATS: a->formats = arg; return 0;
	case OPT_FROM: a->from_events = arg; return 0;
	case OPT_KERNEL: o->kernel = arg; return 0;
	case OPT_STOP: o->stop_after = arg; return 0;
	case OPT_COMPRESSION:
		if (strcmp(arg, "zstd") && strcmp(arg, "none")) {
			cli_error("--compression %s: expected zstd or none", arg);
			return -1;
		}
		a->compression = arg;
		return 0;
	case OPT_BACKING:
		if (!strcmp(arg, "4k"))
			o->backing = MSC_SYNTH_BACKING_4K;
		else if (!strcmp(arg, "2m"))
			o->backing = MSC_SYNTH_BACKING_2M;
		else if (!strcmp(arg, "1g"))
			o->backing = MSC_SYNTH_BACKING_1G;
		else {
			cli_error("--backing %s: expected 4k, 2m or 1g", arg);
			return -1;
		}
		return 0;
	case OPT_VENDOR:
		if (!strcmp(arg, "npt") || !strcmp(arg, "ept")) {
			o->vendor = arg[0] == 'n' ? MSC_VENDOR_NPT : MSC_VENDOR_EPT;
			return 0;
		}
		cli_error("--vendor %s: expected npt or ept", arg);
		return -1;
	case OPT_EAGER: return parse_on_off(name, arg, &o->eager_split);
	case OPT_PML: return parse_on_off(name, arg, &o->pml);
	case OPT_CLEAR: return parse_on_off(name, arg, &o->clear_log);
	case OPT_KPROBES: return parse_on_off(name, arg, &o->kprobes);
	}
	if (parse_uint(name, arg, UINT64_MAX / 2, &v))
		return -1;
	switch (c) {
	case OPT_GIB: o->guest_mib = v * 1024; break;
	case OPT_MIB: o->guest_mib = v; break;
	case OPT_VCPUS: o->vcpus = (unsigned int)min(v, 100000u); break;
	case OPT_CPUS: o->cpus = (unsigned int)min(v, 100000u); break;
	case OPT_CYCLES: o->cycles = (unsigned int)min(v, 100000u); break;
	case OPT_PASSES: o->passes = (unsigned int)min(v, 100000u); break;
	case OPT_PERCENT: o->percent = (unsigned int)min(v, 1000u); break;
	case OPT_LOST: o->lost_events = v; break;
	case OPT_SEED: o->seed = v; break;
	case OPT_VERSION:
		if (v != 6 && v != 7) {
			cli_error("--file-version %s: expected 6 or 7", arg);
			return -1;
		}
		a->file_version = (int)v;
		break;
	case OPT_TRICKLE: a->trickle_ms = (unsigned int)min(v, 3600000u); break;
	case OPT_PAGE_RATE: a->page_rate = (unsigned int)min(v, 100000000u); break;
	case OPT_RING_PAGES: a->ring_pages = (unsigned int)min(v, 1u << 20); break;
	default: return -1;
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct synth_args *a)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "guest-gib", required_argument, NULL, OPT_GIB },
		{ "guest-mib", required_argument, NULL, OPT_MIB },
		{ "backing", required_argument, NULL, OPT_BACKING },
		{ "vcpus", required_argument, NULL, OPT_VCPUS },
		{ "cpus", required_argument, NULL, OPT_CPUS },
		{ "cycles", required_argument, NULL, OPT_CYCLES },
		{ "passes", required_argument, NULL, OPT_PASSES },
		{ "percent", required_argument, NULL, OPT_PERCENT },
		{ "kernel", required_argument, NULL, OPT_KERNEL },
		{ "vendor", required_argument, NULL, OPT_VENDOR },
		{ "eager-split", required_argument, NULL, OPT_EAGER },
		{ "pml", required_argument, NULL, OPT_PML },
		{ "clear-log", required_argument, NULL, OPT_CLEAR },
		{ "kprobes", required_argument, NULL, OPT_KPROBES },
		{ "lost-events", required_argument, NULL, OPT_LOST },
		{ "stop-after", required_argument, NULL, OPT_STOP },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "from-events", required_argument, NULL, OPT_FROM },
		{ "file-version", required_argument, NULL, OPT_VERSION },
		{ "compression", required_argument, NULL, OPT_COMPRESSION },
		{ "tracing-dir", required_argument, NULL, OPT_DIR },
		{ "instance", required_argument, NULL, OPT_INSTANCE },
		{ "fifo", no_argument, NULL, OPT_FIFO },
		{ "trickle", required_argument, NULL, OPT_TRICKLE },
		{ "page-rate", required_argument, NULL, OPT_PAGE_RATE },
		{ "ring-pages", required_argument, NULL, OPT_RING_PAGES },
		{ "formats", required_argument, NULL, OPT_FORMATS },
		{ "quiet", no_argument, NULL, 'q' },
		{ 0 }
	};
	int c, li;
	char why[160];

	msc_synth_opts_init(&a->o);
	a->file_version = 7;
	a->compression = "zstd";
	while ((c = getopt_long(argc, argv, "o:q", longopts, &li)) != -1) {
		if (c == '?' || parse_opt(a, c, optarg, c == 'o' || c == 'q' ? "-o" :
					  longopts[li].name))
			return -1;
	}
	if (optind != argc) {
		cli_error("unexpected argument '%s'", argv[optind]);
		return -1;
	}
	if (!a->output && !a->tracing_dir) {
		cli_error("need -o TRACE.dat and/or --tracing-dir DIR");
		return -1;
	}
	if (a->output && (a->fifo || a->trickle_ms)) {
		cli_error("--fifo and --trickle feed a tracing directory; drop -o");
		return -1;
	}
	if ((a->page_rate || a->ring_pages) && (!a->fifo || a->trickle_ms)) {
		cli_error("--page-rate and --ring-pages make a ring buffer behind --fifo, "
			  "without --trickle");
		return -1;
	}
	if (a->ring_pages && !a->page_rate) {
		cli_error("--ring-pages needs --page-rate");
		return -1;
	}
	if (a->page_rate && !a->ring_pages)
		a->ring_pages = 256;
	if (a->instance && (!*a->instance || strchr(a->instance, '/'))) {
		cli_error("--instance %s: expected a plain name", a->instance);
		return -1;
	}
	if (a->file_version == 6 && !strcmp(a->compression, "zstd"))
		a->compression = "none";	/* version 6 has no compression */
	if (!a->from_events && msc_synth_opts_check(&a->o, why, sizeof(why))) {
		cli_error("%s", why);
		return -1;
	}
	return 0;
}

/*
 * --formats, else $MSC_FORMATS_DIR/<name>, else tests/data/formats/<name> of
 * the source tree the program was built in (build/mmuscope, build/asan/...),
 * else share/mmuscope/formats/<name> of an installed program.
 */
static int find_formats(const struct synth_args *a, char *buf, size_t size)
{
	static const char *const ups[] = { "/..", "/../..", "/../../.." };
	const char *name = msc_synth_formats_name(a->o.kernel), *env = getenv("MSC_FORMATS_DIR");
	char exe[PATH_MAX], *dir;
	ssize_t n;

	if (a->formats)
		return snprintf(buf, size, "%s", a->formats) < (int)size ? 0 : -1;
	if (!name)
		return -1;
	if (env)
		return snprintf(buf, size, "%s/%s", env, name) < (int)size ? 0 : -1;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -1;
	exe[n] = '\0';
	dir = dirname(exe);
	for (size_t i = 0; i < ARRAY_SIZE(ups); i++)
		if (snprintf(buf, size, "%s%s/tests/data/formats/%s", dir, ups[i], name) < (int)size &&
		    !access(buf, F_OK))
			return 0;
	if (snprintf(buf, size, "%s/../share/mmuscope/formats/%s", dir, name) < (int)size &&
	    !access(buf, F_OK))
		return 0;
	return -1;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

/* The model's events go straight into the writer @ctx. */
static int emit(void *ctx, const struct msc_event *ev)
{
	if (cli_stop)
		return MSC_ERR_INTERRUPTED;
	return msc_synth_writer_add(ctx, ev);
}

/* --from-events: every line of FILE, in file order, into the pages. */
static int encode_events(const char *path, struct msc_synth_writer *w, unsigned int nr_cpus,
			 struct msc_synth_stats *st)
{
	FILE *f = fopen(path, "r");
	char line[MSC_EVENT_LINE_MAX + 2];
	unsigned long lineno = 0;
	int r = 0;

	if (!f) {
		cli_error("%s: %s", path, strerror(errno));
		return -1;
	}
	while (!r && fgets(line, sizeof(line), f)) {
		struct msc_event ev;

		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		line[strcspn(line, "\n")] = '\0';
		r = msc_event_parse(line, &ev);
		if (r) {
			cli_error("%s:%lu: %s", path, lineno, msc_strerror(r));
			break;
		}
		if (ev.cpu >= nr_cpus) {
			cli_error("%s:%lu: cpu %u, but --cpus %u", path, lineno, ev.cpu, nr_cpus);
			r = -1;
			break;
		}
		r = msc_synth_writer_add(w, &ev);
		if (r) {
			cli_error("%s:%lu: %s", path, lineno,
				  r == MSC_ERR_FORMAT ? msc_synth_writer_error(w) : msc_strerror(r));
			break;
		}
		if (!st->events)
			st->first_ts = ev.ts;
		st->last_ts = ev.ts;
		st->events++;
		if (ev.type < MSC_EV_NR)
			st->by_type[ev.type]++;
	}
	fclose(f);
	return r ? -1 : 0;
}

/* The CPUs a --from-events file needs: --cpus, else its highest cpu + 1. */
static unsigned int events_cpus(const char *path, unsigned int cpus)
{
	char line[MSC_EVENT_LINE_MAX + 2];
	unsigned int n = 1;
	FILE *f;

	if (cpus)
		return cpus;
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long ts;
		unsigned int cpu;

		if (line[0] != '#' && sscanf(line, "%llu %u", &ts, &cpu) == 2)
			n = max(n, cpu + 1);
	}
	if (f)
		fclose(f);
	return n;
}

static void summary(const struct synth_args *a, const struct msc_synth_stats *st,
		    struct msc_synth_writer *w, unsigned int nr_cpus, double secs)
{
	struct msc_ringbuf_stats sum = { 0 };
	char n1[32], n2[32];

	for (unsigned int c = 0; c < nr_cpus; c++) {
		struct msc_ringbuf_stats s;

		msc_synth_writer_stats(w, c, &s);
		sum.pages += s.pages;
		sum.time_extends += s.time_extends;
		sum.missed_pages += s.missed_pages;
		sum.bytes += s.bytes;
	}
	printf("synth: %s events in %.2f s (%.2f M events/s), %s pages of %u CPUs",
	       cli_count(st->events, n1, sizeof(n1)), secs, secs > 0 ? st->events / secs / 1e6 : 0,
	       cli_count(sum.pages, n2, sizeof(n2)), nr_cpus);
	printf(", %llu TIME_EXTEND", (unsigned long long)sum.time_extends);
	if (st->lost)
		printf(", %llu events lost", (unsigned long long)st->lost);
	printf("\n ");
	for (int t = 0; t < MSC_EV_NR; t++)
		if (st->by_type[t])
			printf(" %s %s", msc_event_type_name(t), cli_count(st->by_type[t], n1, sizeof(n1)));
	printf("\n");
	if (!a->from_events)
		printf("  KVM stats at the end: pages_4k=%llu pages_2m=%llu pages_1g=%llu "
		       "remote_tlb_flush_requests=%llu\n", (unsigned long long)st->pages_4k,
		       (unsigned long long)st->pages_2m, (unsigned long long)st->pages_1g,
		       (unsigned long long)st->remote_tlb_flush_requests);
	if (a->tracing_dir)
		printf("  tracing dir: %s%s%s\n", a->tracing_dir, a->instance ? " instance " : "",
		       a->instance ? a->instance : "");
	if (a->page_rate)
		printf("  ring buffers: %u pages each, %u pages/s per CPU: %llu pages overwritten unread\n",
		       a->ring_pages, a->page_rate, (unsigned long long)a->dropped);
	if (a->output) {
		struct stat sb;

		if (!stat(a->output, &sb))
			printf("  trace.dat: %s, version %d, %s, %.1f MB (%.1f B/event)\n", a->output,
			       a->file_version, a->compression, sb.st_size / 1e6,
			       st->events ? (double)sb.st_size / (double)st->events : 0);
	}
}

/* Open the per-CPU sinks: trace_pipe_raw files, or staging files to feed. */
static int open_sinks(const struct msc_synth_dir *d, bool staged, int *fds)
{
	char path[PATH_MAX];

	for (unsigned int c = 0; c < d->nr_cpus; c++) {
		if (staged) {
			/* an unlinked file beside the directory holds the pages until fed */
			if (snprintf(path, sizeof(path), "%s/.synth-cpu%u.XXXXXX", d->path, c) >=
			    (int)sizeof(path))
				return -ENAMETOOLONG;
			fds[c] = mkstemp(path);
			if (fds[c] >= 0)
				unlink(path);
		} else {
			if (msc_synth_dir_cpu_path(d, c, path, sizeof(path)))
				return -ENAMETOOLONG;
			fds[c] = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
		}
		if (fds[c] < 0) {
			cli_error("%s: %s", path, strerror(errno));
			return -errno;
		}
	}
	return 0;
}

static int make_tracedat(const struct synth_args *a, const struct msc_synth_dir *d,
			 const struct msc_synth_formats *f)
{
	char kallsyms[PATH_MAX], uname[256];
	char **files = calloc(d->nr_cpus, sizeof(*files));
	const char *release = a->from_events ? msc_synth_formats_release(f) :
			      msc_synth_release(a->o.kernel);
	int r = -ENOMEM;

	if (!files)
		return r;
	snprintf(kallsyms, sizeof(kallsyms), "%s/kallsyms", d->path);
	snprintf(uname, sizeof(uname), "Linux mmuscope-synth %s x86_64",
		 release && *release ? release : "unknown");
	for (unsigned int c = 0; c < d->nr_cpus; c++) {
		files[c] = malloc(PATH_MAX);
		if (!files[c] || msc_synth_dir_cpu_path(d, c, files[c], PATH_MAX))
			goto out;
	}
	r = msc_tracedat_write(a->output, d->path, kallsyms, d->nr_cpus, files, a->file_version,
			       a->compression, uname);
	if (r)
		cli_error("%s: %s", a->output, msc_strerror(r));
out:
	for (unsigned int c = 0; c < d->nr_cpus; c++)
		free(files[c]);
	free(files);
	return r;
}

/* A ring is a FIFO cut to its size: no larger than this system lets a FIFO be. */
static int check_ring(const struct synth_args *a, const struct msc_synth_formats *f)
{
	size_t page = msc_ringbuf_page_size(msc_synth_formats_layout(f));
	unsigned long long max_bytes = 0;
	FILE *p = fopen("/proc/sys/fs/pipe-max-size", "re");

	if (p && fscanf(p, "%llu", &max_bytes) != 1)
		max_bytes = 0;
	if (p)
		fclose(p);
	if (max_bytes && (unsigned long long)a->ring_pages * page > max_bytes) {
		cli_error("--ring-pages %u: a FIFO holds at most %llu pages here "
			  "(/proc/sys/fs/pipe-max-size)", a->ring_pages, max_bytes / page);
		return -EINVAL;
	}
	return 0;
}

static int generate(struct synth_args *a, const struct msc_synth_formats *f,
		    struct msc_synth_dir *d)
{
	struct msc_synth_comm *comms = calloc(MAX_COMMS, sizeof(*comms));
	struct msc_synth_stats st = { 0 };
	struct msc_synth_writer *w = NULL;
	bool staged = a->fifo || a->trickle_ms;
	int *fds = calloc(d->nr_cpus, sizeof(*fds)), r;
	double t0 = msc_mono_s();

	if (!comms || !fds) {
		cli_error("out of memory");
		r = -ENOMEM;
		goto out;
	}
	for (unsigned int c = 0; c < d->nr_cpus; c++)
		fds[c] = -1;
	if (!a->from_events) {
		d->comms = comms;
		d->nr_comms = (size_t)min(msc_synth_comms(&a->o, comms, MAX_COMMS), MAX_COMMS);
	}
	d->nr_syms = msc_synth_syms(&d->syms);
	r = msc_synth_dir_create(d, f);
	if (r) {
		cli_error("%s: %s", d->path, msc_strerror(r));
		goto out;
	}
	r = open_sinks(d, staged, fds);
	if (!r)
		r = msc_synth_writer_open(f, d->nr_cpus, fds, &w);
	if (r)
		goto out;
	if (a->from_events) {
		r = encode_events(a->from_events, w, d->nr_cpus, &st);
	} else {
		r = msc_synth_run(&a->o, f, emit, w, &st);
		if (r && r != MSC_ERR_INTERRUPTED)
			cli_error("%s", r == MSC_ERR_FORMAT ? msc_synth_writer_error(w) :
					 msc_strerror(r));
	}
	if (!r)
		r = msc_synth_writer_close(w);
	if (r)
		goto out;
	if (a->page_rate && (r = check_ring(a, f)))
		goto out;
	if (staged) {
		/* feeding waits on readers: let Ctrl-C end it the plain way */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		if (!a->quiet)
			fprintf(stderr, "%s: %s: feeding %u CPUs%s\n", cli_prog, d->path, d->nr_cpus,
				a->fifo ? " through FIFOs (waiting for readers)" : "");
		struct msc_synth_feed feed = {
			.layout = msc_synth_formats_layout(f), .delay_us = a->trickle_ms * 1000,
			.page_rate = a->page_rate, .ring_pages = a->ring_pages,
		};

		r = msc_synth_dir_feed(d, fds, &feed, &a->dropped);
		if (r)
			cli_error("%s: %s", d->path, msc_strerror(r));
	}
	if (!r && a->output)
		r = make_tracedat(a, d, f);
	if (!r && !a->quiet)
		summary(a, &st, w, d->nr_cpus, msc_mono_s() - t0);
out:
	msc_synth_writer_free(w);
	for (unsigned int c = 0; fds && c < d->nr_cpus; c++)
		if (fds[c] >= 0)
			close(fds[c]);
	free(fds);
	free(comms);
	return r;
}

/**
 * cmd_synth - `mmuscope synth`
 * @argc: arguments after the program name
 * @argv: "synth" and its options
 *
 * Returns 0, 1 when generating or writing failed, 2 for bad arguments.
 */
int cmd_synth(int argc, char **argv)
{
	struct synth_args a = { 0 };
	struct msc_synth_formats *f = NULL;
	struct msc_synth_dir d = { 0 };
	char formats[PATH_MAX], err[PATH_MAX + 64], tmpdir[PATH_MAX];
	int r;

	if (parse_args(argc, argv, &a)) {
		fprintf(stderr, "(see 'mmuscope synth --help')\n");
		return 2;
	}
	if (find_formats(&a, formats, sizeof(formats))) {
		cli_error("no event formats for kernel %s; use --formats DIR", a.o.kernel);
		return 2;
	}
	r = msc_synth_formats_open(formats, &f, err, sizeof(err));
	if (r) {
		cli_error("%s", err);
		return 1;
	}
	d.nr_cpus = a.from_events ? events_cpus(a.from_events, a.o.cpus) :
				    (a.o.cpus ? a.o.cpus : a.o.vcpus + 1);
	d.instance = a.instance;
	d.flags = a.fifo ? MSC_SYNTH_DIR_FIFO : 0;
	d.path = a.tracing_dir;
	if (!d.path) {
		/* a scratch directory beside the output: same file system, removed after */
		char *copy = strdup(a.output);

		snprintf(tmpdir, sizeof(tmpdir), "%s/.mmuscope-synth.XXXXXX",
			 copy ? dirname(copy) : ".");
		free(copy);
		if (!mkdtemp(tmpdir)) {
			cli_error("%s: %s", tmpdir, strerror(errno));
			msc_synth_formats_free(f);
			return 1;
		}
		d.path = tmpdir;
	}
	cli_catch_signals();
	r = generate(&a, f, &d);
	if (!a.tracing_dir)
		nftw(tmpdir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	if (r && a.output)
		unlink(a.output);
	msc_synth_formats_free(f);
	return r ? 1 : 0;
}
