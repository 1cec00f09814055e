// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmuscope report --svg DIR [--at MS,...] DB`: read a capture's analysis
 * through the hview (and the memory-map cells, cells.h) and write
 *	DIR/coverage.svg	huge-page coverage over the whole capture
 *	DIR/map-NN.svg		the memory map at each chosen time
 * Map times are the user's, or the phase boundaries a KVM developer asks
 * about: before dirty logging, after enabling it, after a harvest, after
 * disabling it, once huge pages are back.
 */
#include "svg.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cells.h"
#include "cli/cli.h"
#include "data.h"
#include "mmuscope/file.h"
#include "mmuscope/store.h"
#include "mmuscope/util.h"

#define SAMPLES 846		/* one per pixel of the plot */
#define MAP_MAX_CELLS 3072	/* 64 x 48: the picture stays readable */

struct report {
	struct msc_hview *v;
	struct msc_history_summary sum;
	struct msc_capture_row cap;
	struct tui_lists l;
	struct tui_cells cells;
	char what[256];			/* "capture 1: kernel ..., npt, TDP MMU" */
};

/* A picture file, new (msc_file_create()): NULL and errno on failure. */
static FILE *create(const char *dir, const char *name, char *path, size_t size,
		    struct msc_new_file *nf)
{
	FILE *f;
	int r;

	snprintf(path, size, "%s/%s", dir, name);
	r = msc_file_create(nf, path);
	if (r) {
		errno = -r;
		return NULL;
	}
	f = fdopen(nf->fd, "w");
	if (!f) {
		r = errno;
		msc_file_abort(nf);
		errno = r;
	}
	return f;
}

/* The picture is drawn (@r: how that went): into its place, or gone. */
static int close_file(FILE *f, struct msc_new_file *nf, FILE *list, const char *path, int r)
{
	if (fclose(f) && !r)
		r = -errno;
	nf->fd = -1;		/* fclose() closed it */
	if (r)
		msc_file_abort(nf);
	else
		r = msc_file_commit(nf);
	if (!r && list)
		fprintf(list, "%s\n", path);
	return r;
}

/* The chart over the window of @o (the whole capture unless told). */
static int coverage(struct report *rp, const struct svg_opts *o, const char *dir, FILE *list)
{
	uint64_t *ts = malloc(SAMPLES * sizeof(*ts));
	struct msc_census *series = malloc(SAMPLES * sizeof(*series));
	uint64_t end = o->to ? rp->sum.first_ts + o->to : rp->sum.last_ts;
	struct fmt_axis a = {
		.t0 = rp->sum.first_ts + o->from, .t1 = max(end, rp->sum.first_ts + o->from + 1),
		.cols = SAMPLES,
	};
	struct svg_chart c = {
		.title = "Huge-page coverage over time", .subtitle = rp->what,
		.origin = rp->sum.first_ts, .ts = ts, .series = series, .n = SAMPLES,
		.phases = rp->l.phases, .nr_phases = rp->l.nr_phases, .lost = rp->l.lost,
		.nr_lost = rp->l.nr_lost, .stats = rp->l.stats, .nr_stats = rp->l.nr_stats,
	};
	char path[4200];
	struct msc_new_file nf;
	FILE *f = NULL;
	int r = ts && series ? 0 : -ENOMEM;

	for (size_t i = 0; i < SAMPLES && !r; i++) {
		ts[i] = fmt_axis_time(&a, (unsigned int)i);
		r = msc_hview_census_at(rp->v, ts[i], &series[i]);
	}
	if (!r && !(f = create(dir, "coverage.svg", path, sizeof(path), &nf)))
		r = -errno;
	if (f)
		r = close_file(f, &nf, list, path, svg_coverage(f, &c));
	free(ts);
	free(series);
	return r;
}

/* A map time (ns since the start) in the window, and what it is ("after-enable"). */
static void add_time(struct svg_opts *o, uint64_t rel, const char *what, const char *kind)
{
	for (size_t i = 0; i < o->nr_at; i++)
		if (o->at[i] == rel)
			return;
	if (o->nr_at == SVG_MAX_MAPS || rel < o->from || (o->to && rel > o->to))
		return;
	snprintf(o->what[o->nr_at], sizeof(o->what[0]), "%s%s%s", what, kind ? "-" : "",
		 kind ? kind : "");
	o->at[o->nr_at++] = rel;
}

/*
 * Before dirty logging first begins, then the end of every dirty-log phase
 * (each cycle's enable, harvests, disable, re-promotion) in the window, at
 * most SVG_MAX_MAPS; the end of the window when there is none.
 */
static void choose_times(const struct report *rp, struct svg_opts *o)
{
	uint64_t t0 = rp->sum.first_ts;
	bool first = true;

	for (size_t i = 0; i < rp->l.nr_phases; i++) {
		const struct msc_phase *p = &rp->l.phases[i];

		if (!msc_phase_is_dirty_log(p->kind))
			continue;
		if (first)
			add_time(o, p->start_ts - t0, "before", msc_phase_kind_name(p->kind));
		first = false;
		add_time(o, p->end_ts - t0, "after", msc_phase_kind_name(p->kind));
	}
	if (!o->nr_at)
		add_time(o, o->to ? o->to : rp->sum.last_ts - t0, "end", NULL);
}

/**
 * svg_check_times - the times the user gave lie in the capture (and the window)
 * @span: the capture's length, ns from its first event to its last
 *
 * Returns 0, or -EINVAL / -ERANGE with o->error saying which time is wrong.
 */
int svg_check_times(struct svg_opts *o, uint64_t first_ts, uint64_t span)
{
	char b[32], t[32];

	fmt_time(b, sizeof(b), span);
	/* times in trace-cmd's clock become times since the capture start */
	for (unsigned int i = 0; i < SVG_MAX_MAPS + 2; i++) {
		uint64_t *v = i < SVG_MAX_MAPS ? &o->at[i] : i == SVG_MAX_MAPS ? &o->from : &o->to;

		if (!(o->abs & (1u << i)))
			continue;
		if (*v < first_ts) {
			snprintf(o->error, sizeof(o->error), "--%s @%s: before the capture's start (@%s)",
				 i < SVG_MAX_MAPS ? "at" : i == SVG_MAX_MAPS ? "from" : "to",
				 cli_trace_ts(*v, b, sizeof(b)), cli_trace_ts(first_ts, t, sizeof(t)));
			return -ERANGE;
		}
		*v -= first_ts;
	}
	o->abs = 0;
	fmt_time(b, sizeof(b), span);
	if (o->to && o->to <= o->from) {
		snprintf(o->error, sizeof(o->error), "--to must come after --from");
		return -EINVAL;
	}
	if (o->from > span || o->to > span) {
		snprintf(o->error, sizeof(o->error), "--%s %g: after the capture's end (%s)",
			 o->from > span ? "from" : "to", (double)max(o->from, o->to) / 1e6, b);
		return -ERANGE;
	}
	for (size_t i = 0; i < o->nr_at; i++) {
		if (o->at[i] <= span && o->at[i] >= o->from && (!o->to || o->at[i] <= o->to)) {
			snprintf(o->what[i], sizeof(o->what[0]), "at");
			continue;
		}
		if (o->at[i] > span)
			snprintf(o->error, sizeof(o->error), "--at %g: after the capture's end (%s)",
				 (double)o->at[i] / 1e6, b);
		else
			snprintf(o->error, sizeof(o->error), "--at %g: outside --from/--to",
				 (double)o->at[i] / 1e6);
		return -ERANGE;
	}
	return 0;
}

static unsigned int map_scale(const struct report *rp)
{
	unsigned int k = 1;

	for (;;) {
		uint64_t n = 0;

		for (size_t i = 0; i < rp->l.nr_regions; i++)
			n += tui_region_cells(&rp->l.regions[i], k);
		if (n <= MAP_MAX_CELLS || k >= (1U << 20))
			return k;
		k *= 2;
	}
}

/* "capture 1: kernel ...; end of enable (kprobe)" */
static void describe_time(const struct report *rp, uint64_t ts, char *buf, size_t size)
{
	const struct msc_phase *in = NULL;

	for (size_t i = 0; i < rp->l.nr_phases; i++) {
		const struct msc_phase *p = &rp->l.phases[i];

		if (msc_phase_is_dirty_log(p->kind) && p->start_ts <= ts && ts <= p->end_ts)
			in = p;
	}
	if (in)
		snprintf(buf, size, "%s; %s of %s (%s)", rp->what, ts == in->end_ts ? "end" :
			 ts == in->start_ts ? "start" : "during", in->name,
			 msc_phase_source_name(in->source));
	else
		snprintf(buf, size, "%s", rp->what);
}

static int one_map(struct report *rp, const char *dir, unsigned int k, uint64_t ts, size_t n,
		   const char *what, FILE *list)
{
	struct svg_map_region *regions = calloc(rp->l.nr_regions + 1, sizeof(*regions));
	char sub[512], name[96], path[4200], title[96], when[32];
	struct svg_map m = { .title = title, .k = k, .regions = regions };
	struct msc_new_file nf;
	FILE *f = NULL;
	int r = regions ? 0 : -ENOMEM;

	for (size_t i = 0; i < rp->l.nr_regions && !r; i++) {
		size_t nr = (size_t)tui_region_cells(&rp->l.regions[i], k);
		struct fmt_cell *cells = calloc(nr ? nr : 1, sizeof(*cells));

		if (!cells) {
			r = -ENOMEM;
			break;
		}
		tui_cells_region(&rp->cells, &rp->l.regions[i], k, ts, cells);
		regions[m.nr++] = (struct svg_map_region){
			.region = &rp->l.regions[i], .cells = cells, .nr = nr,
		};
	}
	fmt_time(when, sizeof(when), ts - rp->sum.first_ts);
	snprintf(title, sizeof(title), "Memory map at %s", when);
	describe_time(rp, ts, sub, sizeof(sub));
	m.subtitle = sub;
	/* map-03-after-harvest-459.8ms.svg: in order, what, when */
	snprintf(name, sizeof(name), "map-%02zu-%s-%.1fms.svg", n, what,
		 (double)(ts - rp->sum.first_ts) / 1e6);
	if (!r && !(f = create(dir, name, path, sizeof(path), &nf)))
		r = -errno;
	if (f)
		r = close_file(f, &nf, list, path, svg_map(f, &m));
	for (size_t i = 0; i < m.nr; i++)
		free((void *)regions[i].cells);
	free(regions);
	return r;
}

static int load(struct report *rp, struct msc_store *s, int64_t capture_id)
{
	struct msc_capture_row *caps;
	size_t nr;
	int r = msc_hview_open(s, capture_id, &rp->v);

	if (!r)
		r = msc_hview_summary(rp->v, &rp->sum);
	if (!r)
		r = tui_lists_load(&rp->l, rp->v, true);
	if (!r)
		r = tui_cells_load(&rp->cells, s, rp->sum.capture_id, SIZE_MAX);
	if (!r)
		r = msc_store_get_captures(s, &caps, &nr);
	if (r)
		return r;
	for (size_t i = 0; i < nr; i++)
		if (caps[i].id == rp->sum.capture_id)
			rp->cap = caps[i];
	free(caps);
	snprintf(rp->what, sizeof(rp->what), "capture %" PRId64 ": kernel %s, %s, %s%s",
		 rp->cap.id, rp->cap.kernel_release[0] ? rp->cap.kernel_release : "unknown",
		 rp->cap.vendor[0] ? rp->cap.vendor : "vendor unknown",
		 rp->sum.tdp_mmu ? "TDP MMU" : "shadow MMU (census approximate)",
		 rp->sum.lost_marks ? ", LOST EVENTS" : "");
	return 0;
}

/*
 * mkdir -p: each missing component of @dir, 0755 (less the umask).  A
 * component that exists is left as it is (a file there fails later, when the
 * first picture is opened).  Returns 0 or a negative errno.
 */
static int make_dirs(const char *dir)
{
	char path[4096];
	size_t n = strlen(dir);

	if (n >= sizeof(path))
		return -ENAMETOOLONG;
	memcpy(path, dir, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (path[i] != '/' && path[i] != '\0')
			continue;
		if (path[i - 1] == '/')	/* "a//b", "a/" */
			continue;
		path[i] = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			return -errno;
		path[i] = i < n ? '/' : '\0';
	}
	return 0;
}

/**
 * svg_write_report - write the pictures of one capture into @dir
 * @s: the store (read-only is fine)
 * @capture_id: the capture, <= 0: the last analyzed
 * @dir: created (0755) if missing, with its missing parents
 * @o: map times (o->nr_at 0: chosen); o->error says what went wrong when
 *	the store is not to blame
 * @list: each file written is printed there, one per line (may be NULL)
 *
 * Returns 0, -ENOENT when the capture was never analyzed, or a negative
 * error.
 */
int svg_write_report(struct msc_store *s, int64_t capture_id, const char *dir,
		     struct svg_opts *o, FILE *list)
{
	struct report rp = { 0 };
	unsigned int k;
	bool writing;
	int r;

	o->error[0] = '\0';
	tui_cells_init(&rp.cells);
	r = load(&rp, s, capture_id);
	if (r == -ENOENT)
		snprintf(o->error, sizeof(o->error), "the capture was never analyzed "
			 "(run 'mmuscope analyze')");
	if (!r && (r = make_dirs(dir)))
		snprintf(o->error, sizeof(o->error), "cannot create %s: %s", dir, strerror(-r));
	writing = !r;	/* from here on an error is the pictures', not the store's */
	if (!r && (r = svg_check_times(o, rp.sum.first_ts, rp.sum.last_ts - rp.sum.first_ts)))
		writing = true;
	if (!r)
		r = coverage(&rp, o, dir, list);
	if (!r && !o->nr_at)
		choose_times(&rp, o);
	k = map_scale(&rp);
	for (size_t i = 0; !r && i < o->nr_at; i++)
		r = one_map(&rp, dir, k, rp.sum.first_ts + o->at[i], i + 1, o->what[i], list);
	if (r && writing && !o->error[0] && r > -4096)
		snprintf(o->error, sizeof(o->error), "%s", strerror(-r));
	tui_cells_free(&rp.cells);
	tui_lists_free(&rp.l);
	msc_hview_close(rp.v);
	return r;
}

/*
 * One time of --at/--from/--to, @n bytes of @arg: ms since the capture
 * start ("163.9"), or '@' and a time in trace-cmd's clock as every command
 * takes it ("@9.256041" s, "@9256041000" ns: cli_parse_ts()), which sets
 * @bit in @abs.
 */
static int parse_one(const char *arg, size_t n, uint64_t *ret, uint32_t *abs, uint32_t bit)
{
	char buf[64], *end;
	unsigned long long ts;
	double ms;

	if (!n || n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, arg, n);
	buf[n] = '\0';
	if (buf[0] == '@') {
		if (cli_parse_ts(buf, &ts))
			return -EINVAL;
		*ret = ts;
		*abs |= bit;
		return 0;
	}
	ms = strtod(buf, &end);
	if (end == buf || *end || !(ms >= 0) || ms > 1e12)
		return -EINVAL;
	*ret = (uint64_t)(ms * 1e6 + 0.5);
	*abs &= ~bit;
	return 0;
}

/** svg_parse_ms - "163.9" (ms since the capture start) or "@9.256041" into ns; -EINVAL else */
int svg_parse_ms(const char *arg, uint64_t *ret, uint32_t *abs, uint32_t bit)
{
	return parse_one(arg, strlen(arg), ret, abs, bit);
}

/**
 * svg_parse_times - "163.9,450,@9.256041" (ms since the capture start, or
 *	trace-cmd's clock after '@') into @o->at
 *
 * Returns 0, or -EINVAL for anything else or more than SVG_MAX_MAPS times.
 */
int svg_parse_times(const char *arg, struct svg_opts *o)
{
	const char *p = arg;

	while (*p) {
		size_t n = strcspn(p, ",");

		if (o->nr_at == SVG_MAX_MAPS ||
		    parse_one(p, n, &o->at[o->nr_at], &o->abs, 1u << o->nr_at))
			return -EINVAL;
		o->nr_at++;
		p += n;
		if (*p == ',' && !*++p)
			return -EINVAL;
	}
	return o->nr_at ? 0 : -EINVAL;
}
