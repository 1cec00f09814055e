/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Pure text rendering for the TUI and the SVG writer: every function fills
 * a caller's char buffer and returns it; none allocates, prints or knows
 * curses (tests/unit/t-format.c runs them at fixed widths).
 *
 * A "row" function renders exactly @width columns (padded with spaces,
 * cut where it does not fit) into a buffer of at least @width + 1 bytes.
 * Times are shown relative to the capture's first event, like `mmuscope
 * report`: t = ts - t0.
 */
#ifndef MSC_TUI_FORMAT_H
#define MSC_TUI_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmuscope/history.h"

/* Characters of the coverage chart and the memory map (docs/TUI.md legend). */
#define FMT_CH_1G 'G'
#define FMT_CH_2M 'M'
#define FMT_CH_4K '#'
#define FMT_CH_UNMAPPED '.'
#define FMT_CH_1G_WP 'g'		/* write-protected (dirty logging) */
#define FMT_CH_2M_WP 'm'
#define FMT_CH_4K_WP '%'

/* What a memory-map cell (one or more 2M regions) holds at one time. */
struct fmt_cell {
	uint32_t cells;			/* 2M regions summed */
	uint32_t n1g, n2m;		/* 2M regions mapped by 1G / 2M leaves */
	uint32_t nsplit;		/* 2M regions split to a 4K table */
	uint64_t mapped_4k;		/* 4K pages mapped in split regions */
	uint64_t mapped, writable;	/* 4K-page units over the whole cell */
};

/* The class of a cell, which picks its character and colour. */
enum fmt_cell_class {
	FMT_CELL_UNMAPPED,
	FMT_CELL_1G,
	FMT_CELL_2M,
	FMT_CELL_4K,			/* split: the digit says how much is mapped */
};

size_t fmt_count(char *buf, size_t size, uint64_t n);
size_t fmt_rate(char *buf, size_t size, double per_s);
size_t fmt_time(char *buf, size_t size, uint64_t ns);
size_t fmt_span(char *buf, size_t size, uint64_t ns);
size_t fmt_bytes_4k(char *buf, size_t size, uint64_t pages_4k);
size_t fmt_cut(const char *text, size_t width);
char *fmt_fit(char *buf, size_t width, const char *text);

double fmt_huge_share(const struct msc_census *c);
char *fmt_census(char *buf, size_t width, const struct msc_census *c);

void fmt_cell_add(struct fmt_cell *c, const struct msc_region_cell *rc);
enum fmt_cell_class fmt_cell_class(const struct fmt_cell *c);
bool fmt_cell_protected(const struct fmt_cell *c);
char fmt_cell_char(const struct fmt_cell *c);
char *fmt_cell_text(char *buf, size_t width, const struct fmt_cell *c);

void fmt_stack_column(char *col, unsigned int height, const struct msc_census *c,
		      uint64_t full_scale);

/* The time window a chart of @cols columns shows: column i covers [t(i), t(i+1)). */
struct fmt_axis {
	uint64_t t0, t1;		/* window, absolute ns; t1 > t0 */
	uint64_t origin;		/* capture start, labels are relative to it */
	unsigned int cols;
};

uint64_t fmt_tick_step(uint64_t span, unsigned int want);
void fmt_tick_label(char *buf, size_t size, uint64_t ns, uint64_t step, uint64_t last);
uint64_t fmt_axis_time(const struct fmt_axis *a, unsigned int col);
int fmt_axis_col(const struct fmt_axis *a, uint64_t ts);
char *fmt_axis_labels(char *buf, const struct fmt_axis *a);

/* Which phases a strip shows. */
enum fmt_strip_kind {
	FMT_STRIP_DIRTY,		/* enable / harvest / disable / re-promotion */
	FMT_STRIP_WORKLOAD,		/* the workload's own phase markers */
};

char *fmt_phase_label(char *buf, size_t size, const struct msc_phase *p);
char fmt_phase_letter(const struct msc_phase *p);
char *fmt_phase_strip(char *buf, const struct fmt_axis *a, const struct msc_phase *ph,
		      size_t nr, enum fmt_strip_kind kind);

char *fmt_phase_header(char *buf, size_t width);
/* The largest start and duration of a table of phases: each column's one unit. */
struct fmt_phase_units {
	uint64_t start, took;
};

char *fmt_phase_row(char *buf, size_t width, const struct msc_phase *p, uint64_t t0,
		    const struct fmt_phase_units *u);
char *fmt_interval_header(char *buf, size_t width);
char *fmt_interval_row(char *buf, size_t width, const struct msc_interval *iv, uint64_t t0,
		       uint64_t max);
char *fmt_rate_row(char *buf, size_t width, const char *what, int64_t total, uint64_t span_ns);

int fmt_parse_gfn(const char *text, uint64_t *ret);
size_t fmt_task(char *buf, size_t size, const struct msc_task *k);

#endif /* MSC_TUI_FORMAT_H */
