/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Pictures for bug reports: the huge-page coverage over time with the
 * dirty-log phases, and the memory map at chosen times, as standalone SVG
 * files (no scripts, no external fonts; they read the same in a browser,
 * rsvg-convert or an issue tracker).  No curses.
 *
 * For `mmuscope report --svg DIR [--at MS,...]` (analyzer/cmd-report.c):
 *
 *	struct svg_opts o = { 0 };		// maps at phase boundaries
 *	r = svg_write_report(store, capture_id, dir, &o, stdout);
 *	if (r) cli_error("%s: %s", dir, o.error[0] ? o.error : msc_strerror(r));
 *
 * The drawing functions below take plain data, so they are testable
 * without a database.
 */
#ifndef MSC_TUI_SVG_H
#define MSC_TUI_SVG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "format.h"
#include "mmuscope/history.h"

struct msc_store;

#define SVG_MAX_MAPS 16

struct svg_opts {
	uint64_t at[SVG_MAX_MAPS];	/* map times, ns since the capture start */
	size_t nr_at;			/* 0: chosen from the dirty-log phases */
	uint64_t from, to;		/* the chart's window, ns since the start; to 0: the end */
	uint32_t abs;			/* bit i: at[i] is in trace-cmd's clock ("@9.256041"), */
					/* SVG_ABS_FROM/_TO: from/to; svg_check_times() rebases */
	char what[SVG_MAX_MAPS][40];	/* OUT: what each map time is ("after-enable") */
	char error[256];		/* OUT: what went wrong, when it was not the store */
};

int svg_write_report(struct msc_store *s, int64_t capture_id, const char *dir,
		     struct svg_opts *o, FILE *list);
int svg_parse_times(const char *arg, struct svg_opts *o);
#define SVG_ABS_FROM (1u << SVG_MAX_MAPS)
#define SVG_ABS_TO (1u << (SVG_MAX_MAPS + 1))
int svg_parse_ms(const char *arg, uint64_t *ret, uint32_t *abs, uint32_t bit);
int svg_check_times(struct svg_opts *o, uint64_t first_ts, uint64_t span);

/* The coverage chart: census samples over [t0, t1] and what happened when. */
struct svg_chart {
	const char *title;
	const char *subtitle;
	uint64_t origin;		/* capture start: labels are relative to it */
	const uint64_t *ts;		/* sample times */
	const struct msc_census *series;
	size_t n;
	const struct msc_phase *phases;
	size_t nr_phases;
	const struct msc_lost_mark *lost;
	size_t nr_lost;
	const struct msc_kvm_stats *stats;	/* KVM's counters at markers */
	size_t nr_stats;
};

int svg_coverage(FILE *f, const struct svg_chart *c);

/* The memory map: each region's cells (each @k 2M regions) at one time. */
struct svg_map_region {
	const struct msc_region *region;
	const struct fmt_cell *cells;
	size_t nr;
};

struct svg_map {
	const char *title;
	const char *subtitle;
	unsigned int k;			/* 2M regions per cell */
	const struct svg_map_region *regions;
	size_t nr;
};

int svg_map(FILE *f, const struct svg_map *m);
void svg_escape(FILE *f, const char *text);

#endif /* MSC_TUI_SVG_H */
