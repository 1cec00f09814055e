// SPDX-License-Identifier: GPL-2.0-only
/*
 * Pure text rendering for the TUI screens and the SVG labels (see
 * format.h).  No curses here: the views put these strings on the screen.
 */
#include "format.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmuscope/event.h"
#include "mmuscope/spte.h"
#include "mmuscope/util.h"

/** fmt_count - 1234567 -> "1,234,567"; returns the length */
size_t fmt_count(char *buf, size_t size, uint64_t n)
{
	char tmp[32];
	int len = snprintf(tmp, sizeof(tmp), "%" PRIu64, n);
	size_t o = 0;

	for (int i = 0; i < len && o + 2 < size; i++) {
		if (i && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	if (size)
		buf[min(o, size - 1)] = '\0';
	return o;
}

/** fmt_rate - events per second, at most 6 characters: "0", "19.6", "1,234", "12.3K", "1.23M" */
size_t fmt_rate(char *buf, size_t size, double per_s)
{
	int n;

	if (per_s < 0.05)
		n = snprintf(buf, size, "0");
	else if (per_s < 100)
		n = snprintf(buf, size, "%.1f", per_s);
	else if (per_s < 10000)
		n = snprintf(buf, size, "%.0f", per_s);
	else if (per_s < 1e6)
		n = snprintf(buf, size, "%.1fK", per_s / 1e3);
	else
		n = snprintf(buf, size, "%.2fM", per_s / 1e6);
	return n < 0 ? 0 : (size_t)n;
}

/** fmt_time - a time since the capture start: "163.941 ms" up to 10 s, then "12.345 s" */
size_t fmt_time(char *buf, size_t size, uint64_t ns)
{
	int n = ns < 10000000000ULL ? snprintf(buf, size, "%.3f ms", (double)ns / 1e6) :
				      snprintf(buf, size, "%.3f s", (double)ns / 1e9);

	return n < 0 ? 0 : (size_t)n;
}

/*
 * A column of times or durations in one unit, the one its largest value
 * (@max; 0: this value's own) reads best in: seconds from 10 s, else ms,
 * durations under 1 ms in us.
 */
static size_t in_unit(char *buf, size_t size, uint64_t ns, uint64_t max, bool span)
{
	int n;

	max = max ? max : ns;
	if (max >= 10000000000ULL)	/* to the us: the cell takes off what does not fit */
		n = snprintf(buf, size, "%.6f s", (double)ns / 1e9);
	else if (max >= 1000000 || !span)
		n = snprintf(buf, size, "%.3f ms", (double)ns / 1e6);
	else
		n = snprintf(buf, size, "%.1f us", (double)ns / 1e3);
	return n < 0 ? 0 : (size_t)n;
}

/** fmt_span - a duration in the unit that reads best: "850 ns", "12.4 us", "7.939 ms", "1.40 s" */
size_t fmt_span(char *buf, size_t size, uint64_t ns)
{
	int n;

	if (ns < 1000)
		n = snprintf(buf, size, "%" PRIu64 " ns", ns);
	else if (ns < 1000000)
		n = snprintf(buf, size, "%.1f us", (double)ns / 1e3);
	else if (ns < 10000000000ULL)
		n = snprintf(buf, size, "%.3f ms", (double)ns / 1e6);
	else
		n = snprintf(buf, size, "%.2f s", (double)ns / 1e9);
	return n < 0 ? 0 : (size_t)n;
}

/** fmt_bytes_4k - memory of @pages_4k 4K pages: "4 KiB", "32.0 MiB", "96.0 GiB" */
size_t fmt_bytes_4k(char *buf, size_t size, uint64_t pages_4k)
{
	int n;

	if (pages_4k < 256)
		n = snprintf(buf, size, "%" PRIu64 " KiB", pages_4k * 4);
	else if (pages_4k < 262144)
		n = snprintf(buf, size, "%.1f MiB", (double)pages_4k / 256);
	else if (pages_4k < 268435456ULL)
		n = snprintf(buf, size, "%.1f GiB", (double)pages_4k / 262144);
	else
		n = snprintf(buf, size, "%.1f TiB", (double)pages_4k / 268435456.0);
	return n < 0 ? 0 : (size_t)n;
}

/**
 * fmt_cut - how much of @text fits in @width columns without cutting a word:
 *	a number is shown whole or not at all (a single word longer than the
 *	width is cut, as nothing else can be done)
 */
size_t fmt_cut(const char *text, size_t width)
{
	size_t n = strlen(text), k;

	if (n <= width)
		return n;
	if (text[width] == ' ')
		return width;
	for (k = width; k > 0 && text[k - 1] != ' '; k--)
		;
	while (k > 0 && text[k - 1] == ' ')
		k--;
	return k ? k : width;
}

/** fmt_fit - @text in exactly @width columns: cut between words, padded with spaces */
char *fmt_fit(char *buf, size_t width, const char *text)
{
	size_t n = fmt_cut(text, width);

	memmove(buf, text, n);
	memset(buf + n, ' ', width - n);
	buf[width] = '\0';
	return buf;
}

/* Append to a row being built; never past @size - 1. */
static void add(char *buf, size_t size, size_t *o, const char *fmt, ...) __printf(4, 5);

static void add(char *buf, size_t size, size_t *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*o >= size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *o, size - *o, fmt, ap);
	va_end(ap);
	if (n > 0)
		*o = min(*o + (size_t)n, size - 1);
}

/** fmt_huge_share - percent of mapped memory mapped by 2M and 1G leaves */
double fmt_huge_share(const struct msc_census *c)
{
	uint64_t all = msc_census_mapped(c);

	return all ? 100.0 * (double)(all - (uint64_t)c->pages[1]) / (double)all : 0;
}

/**
 * fmt_census - "4K 8,193  2M 0  1G 0  = 32.0 MiB, 0.0% huge" in @width columns
 *
 * The census flags are spelled out: an approximate, partial or after-lost
 * census says so.
 */
char *fmt_census(char *buf, size_t width, const struct msc_census *c)
{
	char line[256], n[3][32], mem[32];
	size_t o = 0;

	for (int l = 1; l <= 3; l++)
		fmt_count(n[l - 1], sizeof(n[0]), (uint64_t)max(c->pages[l], (int64_t)0));
	fmt_bytes_4k(mem, sizeof(mem), msc_census_mapped(c));
	add(line, sizeof(line), &o, "4K %s  2M %s  1G %s  = %s, %.1f%% huge", n[0], n[1], n[2],
	    mem, fmt_huge_share(c));
	if (c->flags & MSC_CENSUS_APPROX)
		add(line, sizeof(line), &o, " (approximate: shadow MMU)");
	if (c->flags & MSC_CENSUS_PARTIAL)
		add(line, sizeof(line), &o, " (partial: trace began mid-run)");
	if (c->flags & MSC_CENSUS_AFTER_LOST)
		add(line, sizeof(line), &o, " (after LOST events)");
	return fmt_fit(buf, width, line);
}

/* ---- memory-map cells ---- */

/** fmt_cell_add - count one 2M region's state into a (possibly larger) cell */
void fmt_cell_add(struct fmt_cell *c, const struct msc_region_cell *rc)
{
	c->cells++;
	switch (rc->kind) {
	case MSC_REGION_1G:
		c->n1g++;
		break;
	case MSC_REGION_2M:
		c->n2m++;
		break;
	case MSC_REGION_4K:
		c->nsplit++;
		c->mapped_4k += rc->mapped;
		break;
	default:
		return;
	}
	c->mapped += rc->kind == MSC_REGION_4K ? rc->mapped : 512;
	c->writable += rc->writable;
}

/**
 * fmt_cell_class - what a cell shows: split to 4K when at least half of
 *	what it maps is 4K pages (fragmentation is what one looks for), else
 *	the larger of its 1G and 2M shares
 */
enum fmt_cell_class fmt_cell_class(const struct fmt_cell *c)
{
	if (!c->mapped)
		return c->nsplit ? FMT_CELL_4K : FMT_CELL_UNMAPPED;
	if (c->mapped_4k * 2 >= c->mapped)
		return FMT_CELL_4K;
	return c->n1g >= c->n2m ? FMT_CELL_1G : FMT_CELL_2M;
}

/** fmt_cell_protected - most of what the cell maps is write-protected */
bool fmt_cell_protected(const struct fmt_cell *c)
{
	return c->mapped && c->writable * 2 < c->mapped;
}

/**
 * fmt_cell_char - the cell's character: G/M 1G/2M, # all 4K, 0-9 tenths of
 *	the cell's memory mapped 4K, . unmapped; g/m/% write-protected
 */
char fmt_cell_char(const struct fmt_cell *c)
{
	bool wp = fmt_cell_protected(c);
	uint64_t all = (uint64_t)c->cells * 512;

	switch (fmt_cell_class(c)) {
	case FMT_CELL_1G:
		return wp ? FMT_CH_1G_WP : FMT_CH_1G;
	case FMT_CELL_2M:
		return wp ? FMT_CH_2M_WP : FMT_CH_2M;
	case FMT_CELL_4K:
		if (all && c->mapped_4k >= all)
			return wp ? FMT_CH_4K_WP : FMT_CH_4K;
		return (char)('0' + min(all ? c->mapped_4k * 10 / all : 0, (uint64_t)9));
	default:
		return FMT_CH_UNMAPPED;
	}
}

/** fmt_cell_text - a cell in words, for the line under the map */
char *fmt_cell_text(char *buf, size_t width, const struct fmt_cell *c)
{
	char line[256], a[32], b[32];
	size_t o = 0;

	if (c->cells == 1) {
		switch (fmt_cell_class(c)) {
		case FMT_CELL_1G:
			add(line, sizeof(line), &o, "part of a 1G leaf");
			break;
		case FMT_CELL_2M:
			add(line, sizeof(line), &o, "one 2M leaf");
			break;
		case FMT_CELL_4K:
			add(line, sizeof(line), &o, "split to 4K: %" PRIu64 "/512 pages mapped",
			    c->mapped_4k);
			break;
		default:
			add(line, sizeof(line), &o, "unmapped");
		}
	} else {
		fmt_count(a, sizeof(a), c->mapped_4k);
		add(line, sizeof(line), &o, "%u x 2M: 1G %u, 2M %u, split %u (%s 4K pages), "
		    "unmapped %u", c->cells, c->n1g, c->n2m, c->nsplit, a,
		    c->cells - c->n1g - c->n2m - c->nsplit);
	}
	if (c->mapped) {
		fmt_count(a, sizeof(a), c->writable);
		fmt_count(b, sizeof(b), c->mapped);
		add(line, sizeof(line), &o, "; writable %s of %s%s", a, b,
		    fmt_cell_protected(c) ? " (write-protected)" : "");
	}
	return fmt_fit(buf, width, line);
}

/* ---- the coverage chart ---- */

static unsigned int scaled(uint64_t part, uint64_t whole, unsigned int rows)
{
	return whole ? (unsigned int)((part * rows * 2 + whole) / (whole * 2)) : 0;
}

/**
 * fmt_stack_column - one column of the stacked coverage chart, bottom up
 * @col: @height characters, col[0] the bottom row
 * @c: the census of the column
 * @full_scale: mapped memory (4K units) of a full column
 *
 * The filled height is the mapped memory; inside it 1G at the bottom, then
 * 2M, then 4K, each in proportion (cumulative rounding, so the parts add up
 * to the whole).  Anything mapped shows at least one row.
 */
void fmt_stack_column(char *col, unsigned int height, const struct msc_census *c,
		      uint64_t full_scale)
{
	uint64_t g = 262144ULL * (uint64_t)max(c->pages[3], (int64_t)0);
	uint64_t m = 512ULL * (uint64_t)max(c->pages[2], (int64_t)0);
	uint64_t all = msc_census_mapped(c);
	unsigned int filled = scaled(min(all, full_scale), full_scale, height), b1, b2;

	if (all && !filled)
		filled = 1;
	b1 = scaled(g, all, filled);
	b2 = scaled(g + m, all, filled);
	for (unsigned int y = 0; y < height; y++)
		col[y] = y >= filled ? ' ' : y < b1 ? FMT_CH_1G : y < b2 ? FMT_CH_2M : FMT_CH_4K;
}

/** fmt_axis_time - the time column @col samples (the last column is t1) */
uint64_t fmt_axis_time(const struct fmt_axis *a, unsigned int col)
{
	if (a->cols < 2)
		return a->t1;
	return a->t0 + (uint64_t)((double)(a->t1 - a->t0) * col / (a->cols - 1) + 0.5);
}

/** fmt_axis_col - the column nearest @ts, or -1 when it is outside the window */
int fmt_axis_col(const struct fmt_axis *a, uint64_t ts)
{
	if (ts < a->t0 || ts > a->t1 || a->t1 <= a->t0)
		return ts == a->t0 ? 0 : -1;
	return (int)((double)(ts - a->t0) * (a->cols - 1) / (double)(a->t1 - a->t0) + 0.5);
}

/** fmt_tick_step - a tick step of 1, 2 or 5 x 10^k ns giving at most @want ticks over @span */
uint64_t fmt_tick_step(uint64_t span, unsigned int want)
{
	uint64_t step = 1;

	for (;;) {
		static const unsigned int mult[] = { 1, 2, 5 };

		for (size_t i = 0; i < ARRAY_SIZE(mult); i++)
			if (span / (step * mult[i]) <= want)
				return step * mult[i];
		step *= 10;
	}
}

/**
 * fmt_tick_label - a tick's time in the unit of @step: "150ms", "1.5s", "500us"
 * @last: the largest tick of the axis: seconds once it reaches 1 s
 */
void fmt_tick_label(char *buf, size_t size, uint64_t ns, uint64_t step, uint64_t last)
{
	if (step >= 1000000000ULL || (step >= 100000000ULL && last >= 1000000000ULL))
		snprintf(buf, size, "%gs", (double)ns / 1e9);
	else if (step >= 1000000)
		snprintf(buf, size, "%gms", (double)ns / 1e6);
	else if (step >= 1000)
		snprintf(buf, size, "%gus", (double)ns / 1e3);
	else
		snprintf(buf, size, "%" PRIu64 "ns", ns);
}

/**
 * fmt_axis_labels - the time labels under a chart: "|0ms      |100ms ..."
 * @buf: a->cols + 1 bytes
 *
 * Ticks at round times relative to a->origin; a label that would run into
 * the next one is left out.
 */
char *fmt_axis_labels(char *buf, const struct fmt_axis *a)
{
	uint64_t r0 = a->t0 - min(a->t0, a->origin), r1 = a->t1 - min(a->t1, a->origin);
	uint64_t step = fmt_tick_step(r1 - r0, max(a->cols / 12, 1U));
	int free_from = 0;

	memset(buf, ' ', a->cols);
	buf[a->cols] = '\0';
	for (uint64_t r = (r0 + step - 1) / step * step; r <= r1; r += step) {
		char label[32];
		int col = fmt_axis_col(a, r + a->origin), len;

		if (col < free_from)
			continue;
		fmt_tick_label(label, sizeof(label), r, step, r1);
		len = (int)strlen(label);
		if (col + 1 + len > (int)a->cols)
			break;
		buf[col] = '|';
		memcpy(buf + col + 1, label, (size_t)len);
		free_from = col + len + 2;
	}
	return buf;
}

/* ---- phases ---- */

/**
 * fmt_phase_label - "7 harvest (kprobe)", or "5 workload dirty_pass_1 (marker)"
 *	when the phase's name is not its kind's; returns @buf
 */
char *fmt_phase_label(char *buf, size_t size, const struct msc_phase *p)
{
	const char *kind = msc_phase_kind_name(p->kind);

	if (!strcmp(kind, p->name))
		snprintf(buf, size, "%" PRId64 " %s (%s)", p->id, kind,
			 msc_phase_source_name(p->source));
	else
		snprintf(buf, size, "%" PRId64 " %s %s (%s)", p->id, kind, p->name,
			 msc_phase_source_name(p->source));
	return buf;
}

/**
 * fmt_phase_letter - E enable, H harvest, D disable, R re-promotion, M memslot
 *	update, T teardown, P populate, V dirty pass, U re-populate; lower case
 *	when inferred
 */
char fmt_phase_letter(const struct msc_phase *p)
{
	static const char letters[MSC_PHASE_KIND_NR] = {
		[MSC_PHASE_WORKLOAD] = 'W', [MSC_PHASE_ENABLE] = 'E', [MSC_PHASE_HARVEST] = 'H',
		[MSC_PHASE_DISABLE] = 'D', [MSC_PHASE_REPROMOTE] = 'R', [MSC_PHASE_MEMSLOT] = 'M',
		[MSC_PHASE_TEARDOWN] = 'T', [MSC_PHASE_POPULATE] = 'P', [MSC_PHASE_DIRTY_PASS] = 'V',
		[MSC_PHASE_REPOPULATE] = 'U',
	};
	char ch = p->kind < MSC_PHASE_KIND_NR ? letters[p->kind] : '?';

	return p->source == MSC_PHASE_SRC_INFERRED ? (char)tolower(ch) : ch;
}

/**
 * fmt_phase_strip - where phases run along a chart's time axis
 * @buf: a->cols + 1 bytes
 * @kind: FMT_STRIP_DIRTY: each dirty-log phase as its letter repeated over
 *	its span; FMT_STRIP_WORKLOAD: each marker phase and vCPU pass as
 *	"|name---"
 *
 * A phase shorter than a column still takes one; later phases draw over
 * earlier ones.
 */
char *fmt_phase_strip(char *buf, const struct fmt_axis *a, const struct msc_phase *ph,
		      size_t nr, enum fmt_strip_kind kind)
{
	memset(buf, ' ', a->cols);
	buf[a->cols] = '\0';
	for (size_t i = 0; i < nr; i++) {
		const struct msc_phase *p = &ph[i];
		int c0, c1;

		if (msc_phase_is_dirty_log(p->kind) != (kind == FMT_STRIP_DIRTY))
			continue;
		if (p->end_ts < a->t0 || p->start_ts > a->t1)
			continue;
		c0 = p->start_ts <= a->t0 ? 0 : fmt_axis_col(a, p->start_ts);
		c1 = p->end_ts >= a->t1 ? (int)a->cols - 1 : fmt_axis_col(a, p->end_ts);
		if (c0 < 0 || c1 < c0)
			continue;
		for (int c = c0; c <= c1; c++) {
			if (kind == FMT_STRIP_DIRTY)
				buf[c] = fmt_phase_letter(p);
			else if (c == c0)
				buf[c] = '|';
			else
				buf[c] = (size_t)(c - c0 - 1) < strlen(p->name) ? p->name[c - c0 - 1] : '-';
		}
	}
	return buf;
}

/* ---- tables: columns that fit the width, the name column takes the rest ---- */

struct col {
	const char *head;
	unsigned int width;	/* 0: the flexible column */
	bool left;		/* left-aligned */
};

/*
 * Render @n cells into @width columns.  Columns are taken in order while
 * they fit; the flexible one gets what is left (at least @flex_min).
 */
/*
 * A table cell @text in @w columns.  A number too wide loses decimals
 * ("2346.961 ms" -> "2346.96 ms" -> "2347 ms"), then gets a K/M/G suffix
 * ("262,145" -> "262.1K" -> "262K"); one that still does not fit is shown
 * as '#'s, never cut.  Other text is cut.
 */
static size_t fit_cell(char *out, size_t w, const char *text)
{
	static const char *const suffix[] = { "K", "M", "G", "T" };
	size_t len = strlen(text), digits = strspn(text, "0123456789,.");
	const char *unit = text + digits, *dot;
	char num[48], t[96];
	size_t k = 0;
	double v;

	if (len <= w || !digits || !isdigit((unsigned char)text[0]) || digits >= sizeof(num)) {
		len = min(len, w);
		memcpy(out, text, len);
		return len;
	}
	for (size_t i = 0; i < digits; i++)	/* the number without its commas */
		if (text[i] != ',')
			num[k++] = text[i];
	num[k] = '\0';
	v = strtod(num, NULL);
	dot = strchr(num, '.');
	for (int dec = dot ? (int)strlen(dot + 1) - 1 : -1; dec >= 0; dec--) {
		size_t n = (size_t)snprintf(t, sizeof(t), "%.*f%s", dec, v, unit);

		if (n <= w) {
			memcpy(out, t, n);
			return n;
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(suffix); i++) {
		v /= 1000;
		for (int dec = 1; dec >= 0; dec--) {
			size_t n = (size_t)snprintf(t, sizeof(t), "%.*f%s%s", dec, v, suffix[i], unit);

			if (n <= w) {
				memcpy(out, t, n);
				return n;
			}
		}
	}
	memset(out, '#', w);
	return w;
}

static char *render_cols(char *buf, size_t width, const struct col *cols, size_t n,
			 const char *const *cells, unsigned int flex_min)
{
	size_t used = 0, take = 0, o = 0;
	unsigned int flex;

	for (; take < n; take++) {
		size_t w = cols[take].width ? cols[take].width : flex_min;

		if (used + w + (take ? 1 : 0) > width)
			break;
		used += w + (take ? 1 : 0);
	}
	flex = flex_min + (unsigned int)(width - used);
	for (size_t i = 0; i < take; i++) {
		size_t w = cols[i].width ? cols[i].width : flex, len;
		char cell[256];

		if (i)
			buf[o++] = ' ';
		len = fit_cell(cell, min(w, sizeof(cell) - 1), cells[i]);
		if (cols[i].left) {
			memcpy(buf + o, cell, len);
			memset(buf + o + len, ' ', w - len);
		} else {
			memset(buf + o, ' ', w - len);
			memcpy(buf + o + w - len, cell, len);
		}
		o += w;
	}
	if (o < width)
		memset(buf + o, ' ', width - o);
	buf[width] = '\0';
	return buf;
}

static const struct col phase_cols[] = {
	{ .head = "#", .width = 3 },
	{ .head = "kind", .width = 8, .left = true },
	{ .head = "src", .width = 4, .left = true },
	{ .head = "name", .left = true },
	{ .head = "start", .width = 11 },
	{ .head = "took", .width = 10 },
	{ .head = "split", .width = 6 },
	{ .head = "faults", .width = 7 },
	{ .head = "zaps", .width = 6 },
	{ .head = "flush", .width = 5 },
	{ .head = "promo", .width = 6 },
	{ .head = "huge after", .width = 10 },
};

#define PHASE_NAME_MIN 12

/** fmt_phase_header - the head of the phase table */
char *fmt_phase_header(char *buf, size_t width)
{
	const char *cells[ARRAY_SIZE(phase_cols)];

	for (size_t i = 0; i < ARRAY_SIZE(phase_cols); i++)
		cells[i] = phase_cols[i].head;
	return render_cols(buf, width, phase_cols, ARRAY_SIZE(phase_cols), cells, PHASE_NAME_MIN);
}

/* The kind in the list's 8 columns. */
static const char *kind_short(unsigned int kind)
{
	switch (kind) {
	case MSC_PHASE_REPROMOTE: return "re-promo";
	case MSC_PHASE_DIRTY_PASS: return "dirty";
	case MSC_PHASE_REPOPULATE: return "re-pop";
	default: return msc_phase_kind_name(kind);
	}
}

static const char *source_short(unsigned int source)
{
	static const char *const names[MSC_PHASE_SRC_NR] = {
		[MSC_PHASE_SRC_MARKER] = "mark", [MSC_PHASE_SRC_TRACEPOINT] = "tp",
		[MSC_PHASE_SRC_IOCTL] = "ioctl",
		[MSC_PHASE_SRC_KPROBE] = "kprb", [MSC_PHASE_SRC_INFERRED] = "INF",
	};

	return source < MSC_PHASE_SRC_NR ? names[source] : "?";
}

/** fmt_phase_row - one phase and its main costs (the rest is in the detail pane) */
char *fmt_phase_row(char *buf, size_t width, const struct msc_phase *p, uint64_t t0,
		    const struct fmt_phase_units *u)
{
	char id[24], start[32], took[32], split[24], faults[24], zaps[24], flush[24], promo[24],
	     huge[24];
	const char *cells[ARRAY_SIZE(phase_cols)] = {
		id, kind_short(p->kind), source_short(p->source), p->name, start, took, split,
		faults, zaps, flush, promo, huge,
	};

	snprintf(id, sizeof(id), "%" PRId64, p->id);
	in_unit(start, sizeof(start), p->start_ts - min(p->start_ts, t0), u ? u->start : 0, false);
	in_unit(took, sizeof(took), p->end_ts - min(p->end_ts, p->start_ts), u ? u->took : 0, true);
	fmt_count(split, sizeof(split), p->count.pages_split);
	fmt_count(faults, sizeof(faults), p->count.faults_slow + p->count.faults_fast + p->count.faults_spurious);
	fmt_count(zaps, sizeof(zaps), p->count.zaps);
	if (p->count.flushes >= 0)
		fmt_count(flush, sizeof(flush), (uint64_t)p->count.flushes);
	else
		snprintf(flush, sizeof(flush), "-");
	fmt_count(promo, sizeof(promo), p->count.pages_promoted);
	snprintf(huge, sizeof(huge), "%.1f%%", fmt_huge_share(&p->after));
	return render_cols(buf, width, phase_cols, ARRAY_SIZE(phase_cols), cells, PHASE_NAME_MIN);
}

static const struct col interval_cols[] = {
	{ .head = "start", .width = 10 },
	{ .head = "end", .width = 10 },
	{ .head = "entry", .width = 5, .left = true },
	{ .head = "pfn", .width = 11 },
	{ .head = "W", .width = 1 },
	{ .head = "D", .width = 1 },
	{ .head = "fl", .width = 3, .left = true },
	{ .head = "started by", .width = 14, .left = true },
	{ .head = "ended by", .left = true },
};

#define INTERVAL_END_MIN 13

/** fmt_interval_header - the head of the GFN inspector's interval table */
char *fmt_interval_header(char *buf, size_t width)
{
	const char *cells[ARRAY_SIZE(interval_cols)];

	for (size_t i = 0; i < ARRAY_SIZE(interval_cols); i++)
		cells[i] = interval_cols[i].head;
	return render_cols(buf, width, interval_cols, ARRAY_SIZE(interval_cols), cells,
			   INTERVAL_END_MIN);
}

/**
 * fmt_interval_row - one interval of an entry covering the GFN
 *
 * entry: "4K"/"2M"/"1G" for a leaf, "2M pt" for a page table in that slot.
 * fl: s the kernel did not trace its start (synthesized), l after lost
 * events, r its value came from a resync.
 */
char *fmt_interval_row(char *buf, size_t width, const struct msc_interval *iv, uint64_t t0,
		       uint64_t max)
{
	char start[32], end[32], pfn[24], flags[8], entry[16];
	const char *cells[ARRAY_SIZE(interval_cols)] = {
		start, end, entry, pfn, iv->writable ? "W" : "-",
		iv->dirty < 0 ? "?" : iv->dirty ? "D" : "-", flags,
		msc_map_cause_name(iv->start_cause),
		iv->end_ts == MSC_TS_OPEN ? "(present)" : msc_map_cause_name(iv->end_cause),
	};
	size_t o = 0;

	in_unit(start, sizeof(start), iv->start_ts - min(iv->start_ts, t0), max, false);
	if (iv->end_ts == MSC_TS_OPEN)
		snprintf(end, sizeof(end), "-");
	else
		in_unit(end, sizeof(end), iv->end_ts - min(iv->end_ts, t0), max, false);
	if (iv->level >= 1 && iv->level <= 3)
		snprintf(entry, sizeof(entry), "%s%s", msc_level_size_name(iv->level),
			 iv->leaf ? "" : " pt");
	else
		snprintf(entry, sizeof(entry), "L%u pt", iv->level);
	snprintf(pfn, sizeof(pfn), "%#" PRIx64, iv->pfn);
	if (iv->flags & MSC_IV_SYNTH)
		flags[o++] = 's';
	if (iv->flags & MSC_IV_AFTER_LOST)
		flags[o++] = 'l';
	if (iv->flags & MSC_IV_RESYNC)
		flags[o++] = 'r';
	flags[o] = '\0';
	return render_cols(buf, width, interval_cols, ARRAY_SIZE(interval_cols), cells,
			   INTERVAL_END_MIN);
}

/**
 * fmt_rate_row - "  splits                 16    19.6/s" (kvm_stat's columns)
 * @total: the count over the window; < 0: not traced in this capture
 */
char *fmt_rate_row(char *buf, size_t width, const char *what, int64_t total, uint64_t span_ns)
{
	char line[160], n[32], r[32];

	if (total < 0) {
		snprintf(line, sizeof(line), "  %-12s %12s", what, "not traced");
	} else {
		fmt_count(n, sizeof(n), (uint64_t)total);
		fmt_rate(r, sizeof(r), span_ns ? (double)total * 1e9 / (double)span_ns : 0);
		snprintf(line, sizeof(line), "  %-12s %12s %7s/s", what, n, r);
	}
	return fmt_fit(buf, width, line);
}

/**
 * fmt_parse_gfn - a GFN as typed: hex, with or without 0x
 *
 * Returns 0, or -EINVAL when @text is empty or not hex.
 */
int fmt_parse_gfn(const char *text, uint64_t *ret)
{
	char *end;

	while (isspace((unsigned char)*text))
		text++;
	if (!isxdigit((unsigned char)*text))
		return -EINVAL;
	errno = 0;
	*ret = strtoull(text, &end, 16);
	while (isspace((unsigned char)*end))
		end++;
	return *end || errno ? -EINVAL : 0;
}

/**
 * fmt_task - "vCPU 0, CPU 0/KVM (pid 329)", "vCPUs 0.. (4), pid 12",
 *	"dirtylog (pid 328)": what a task is, its vCPU first when its faults
 *	name one, then its thread's name (escaped: it comes from the trace)
 */
size_t fmt_task(char *buf, size_t size, const struct msc_task *k)
{
	char vcpu[48] = "", name[4 * sizeof(k->comm)];
	int n;

	if (k->vcpu >= 0 && k->vcpus > 1)
		snprintf(vcpu, sizeof(vcpu), "vCPUs %d.. (%u), ", k->vcpu, k->vcpus);
	else if (k->vcpu >= 0)
		snprintf(vcpu, sizeof(vcpu), "vCPU %d, ", k->vcpu);
	if (k->comm[0])
		n = snprintf(buf, size, "%s%s (pid %d)", vcpu,
			     msc_text_escape(k->comm, name, sizeof(name)), k->pid);
	else
		n = snprintf(buf, size, "%spid %d", vcpu, k->pid);
	return n < 0 ? 0 : (size_t)n;
}
