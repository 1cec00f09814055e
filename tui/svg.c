// SPDX-License-Identifier: GPL-2.0-only
/*
 * SVG drawing of the coverage chart and the memory map (see svg.h): plain
 * data in, a standalone SVG document out.  Colours match the TUI's (1G
 * blue, 2M green, 4K orange) and are told apart by lightness too; hatching
 * marks write-protected memory; every mark has a <title> tooltip.
 */
#include "svg.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mmuscope/util.h"

#define COLOR_1G "#1f5fa8"
#define COLOR_2M "#3a9b3a"
#define COLOR_4K "#f08c1e"
#define COLOR_UNMAPPED "#e6e6e6"
#define COLOR_LOST "#c8102e"
#define FONT "font-family=\"DejaVu Sans, Verdana, sans-serif\""

/* Chart geometry (px). */
#define CW 1000
#define CH 500
#define PX0 96			/* plot left */
#define PX1 930			/* plot right */
#define PY0 92			/* plot top */
#define PY1 352			/* plot bottom */

static const char *const phase_colors[MSC_PHASE_KIND_NR] = {
	[MSC_PHASE_WORKLOAD] = "#999999", [MSC_PHASE_ENABLE] = "#7b3fb5",
	[MSC_PHASE_HARVEST] = "#a0522d", [MSC_PHASE_DISABLE] = "#d0307f",
	[MSC_PHASE_REPROMOTE] = "#138d9c", [MSC_PHASE_MEMSLOT] = "#6b8e23",
	[MSC_PHASE_TEARDOWN] = "#555555", [MSC_PHASE_POPULATE] = "#b8860b",
	[MSC_PHASE_DIRTY_PASS] = "#cd853f", [MSC_PHASE_REPOPULATE] = "#8fbc8f",
};

/** svg_escape - @text as XML character data */
void svg_escape(FILE *f, const char *text)
{
	for (; *text; text++) {
		switch (*text) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			if ((unsigned char)*text >= 0x20)
				fputc(*text, f);
		}
	}
}

static void text(FILE *f, double x, double y, const char *anchor, const char *style,
		 const char *s)
{
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" %s>", x, y, anchor, style);
	svg_escape(f, s);
	fputs("</text>\n", f);
}

static void header(FILE *f, int w, int h, const char *title, const char *subtitle)
{
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		   "viewBox=\"0 0 %d %d\" " FONT " font-size=\"12\">\n", w, h, w, h);
	fputs("<defs><pattern id=\"wp\" width=\"5\" height=\"5\" patternUnits=\"userSpaceOnUse\" "
	      "patternTransform=\"rotate(45)\"><rect width=\"2\" height=\"5\" fill=\"#000\" "
	      "fill-opacity=\"0.45\"/></pattern></defs>\n", f);
	fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", w, h);
	text(f, 16, 26, "start", "font-size=\"17\" font-weight=\"bold\"", title);
	if (subtitle)
		text(f, 16, 46, "start", "fill=\"#444\"", subtitle);
}

/* ---- coverage over time ---- */

/*
 * The memory axis: a 1-2-5 step of KiB, MiB, GiB or TiB giving at most six
 * ticks, and the axis top raised to the next tick (so every tick is round).
 */
struct mem_axis {
	double unit_4k;			/* 4K pages per unit */
	const char *unit;
	double step;			/* in units */
	unsigned int ticks;		/* above 0 */
};

struct chart_scale {
	uint64_t t0, t1;
	struct mem_axis mem;		/* the memory axis' ticks */
	uint64_t full;			/* mapped memory (4K units) at the top: its last tick */
};

static double xof(const struct chart_scale *s, uint64_t ts)
{
	if (s->t1 <= s->t0)
		return PX0;
	ts = min(max(ts, s->t0), s->t1);
	return PX0 + (double)(ts - s->t0) * (PX1 - PX0) / (double)(s->t1 - s->t0);
}

static double yof(const struct chart_scale *s, uint64_t v)
{
	return PY1 - (double)min(v, s->full) * (PY1 - PY0) / (double)s->full;
}

/* One stacked band: the area between cumulative levels @lo and @hi. */
static void band(FILE *f, const struct svg_chart *c, const struct chart_scale *s,
		 unsigned int lo, unsigned int hi, const char *color, const char *name)
{
	static const uint64_t unit[4] = { 0, 1, 512, 262144 };

	fprintf(f, "<polygon fill=\"%s\" stroke=\"none\" points=\"", color);
	/* upper edge left to right, lower edge back: a step function */
	for (size_t pass = 0; pass < 2; pass++) {
		for (size_t j = 0; j < c->n; j++) {
			size_t i = pass ? c->n - 1 - j : j;
			uint64_t v = 0, x0, x1;

			/* levels 3, 2, 1 stack bottom up: 1G first */
			for (unsigned int l = 3; l > 3 - (pass ? lo : hi); l--)
				v += unit[l] * (uint64_t)max(c->series[i].pages[l], (int64_t)0);
			x0 = c->ts[i];
			x1 = i + 1 < c->n ? c->ts[i + 1] : c->ts[i];
			if (pass)
				fprintf(f, "%.1f,%.1f %.1f,%.1f ", xof(s, x1), yof(s, v), xof(s, x0),
					yof(s, v));
			else
				fprintf(f, "%.1f,%.1f %.1f,%.1f ", xof(s, x0), yof(s, v), xof(s, x1),
					yof(s, v));
		}
	}
	fprintf(f, "\"><title>%s</title></polygon>\n", name);
}

static struct mem_axis mem_axis(uint64_t full_4k)
{
	static const struct { double pages; const char *name; } units[] = {
		{ 0.25, "KiB" }, { 256, "MiB" }, { 262144, "GiB" }, { 268435456.0, "TiB" },
	};
	struct mem_axis a = { .unit_4k = units[0].pages, .unit = units[0].name };
	double v, mag = 1;

	for (size_t i = 1; i < ARRAY_SIZE(units); i++)
		if ((double)full_4k >= units[i].pages) {
			a.unit_4k = units[i].pages;
			a.unit = units[i].name;
		}
	v = (double)full_4k / a.unit_4k;
	while (mag * 10 <= v / 5)
		mag *= 10;
	while (mag > v / 5 && mag > 1e-3)
		mag /= 10;
	for (;;) {
		static const double mult[] = { 1, 2, 5 };

		for (size_t i = 0; i < ARRAY_SIZE(mult); i++) {
			a.step = mag * mult[i];
			a.ticks = (unsigned int)ceil(v / a.step - 1e-9);
			if (a.ticks <= 6)
				return a;
		}
		mag *= 10;
	}
}

static void axes(FILE *f, const struct svg_chart *c, const struct chart_scale *s)
{
	uint64_t step = fmt_tick_step(s->t1 - s->t0, 10);
	const struct mem_axis m = s->mem;
	char label[64];

	/* memory mapped, left: round ticks up to the top */
	for (unsigned int i = 0; i <= m.ticks; i++) {
		double v = m.step * i, y = PY1 - v * m.unit_4k * (PY1 - PY0) / (double)s->full;

		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ccc\"/>\n",
			PX0, y, PX1, y);
		if (i)
			snprintf(label, sizeof(label), "%g %s", v, m.unit);
		else
			snprintf(label, sizeof(label), "0");
		text(f, PX0 - 6, y + 4, "end", "", label);
	}
	/* the huge share, right: its own quarters */
	for (int i = 0; i <= 4; i++) {
		snprintf(label, sizeof(label), "%d%%", i * 25);
		text(f, PX1 + 6, PY1 - (double)i * (PY1 - PY0) / 4 + 4, "start", "fill=\"#000\"", label);
	}
	fprintf(f, "<text transform=\"translate(16,%d) rotate(-90)\" text-anchor=\"middle\">"
		   "memory mapped</text>\n", (PY0 + PY1) / 2);
	fprintf(f, "<text transform=\"translate(%d,%d) rotate(90)\" text-anchor=\"middle\">"
		   "huge share of mapped (line)</text>\n", CW - 14, (PY0 + PY1) / 2);
	/* time, bottom */
	for (uint64_t r = (s->t0 - c->origin + step - 1) / step * step; r <= s->t1 - c->origin;
	     r += step) {
		double x = xof(s, c->origin + r);

		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#000\"/>\n", x,
			PY1, x, PY1 + 5);
		fmt_tick_label(label, sizeof(label), r, step, s->t1 - c->origin);
		text(f, x, PY1 + 18, "middle", "", label);
	}
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
		   "stroke=\"#000\"/>\n", PX0, PY0, PX1 - PX0, PY1 - PY0);
	text(f, (PX0 + PX1) / 2.0, PY1 + 36, "middle", "", "time since the capture start");
}

/* The share of mapped memory mapped huge, as a line on the right axis. */
static void share_line(FILE *f, const struct svg_chart *c, const struct chart_scale *s)
{
	fputs("<polyline fill=\"none\" stroke=\"#000\" stroke-width=\"1.5\" points=\"", f);
	for (size_t i = 0; i < c->n; i++) {
		double y = PY1 - fmt_huge_share(&c->series[i]) / 100 * (PY1 - PY0);
		uint64_t x1 = i + 1 < c->n ? c->ts[i + 1] : c->ts[i];

		if (!msc_census_mapped(&c->series[i]))
			y = PY1;
		fprintf(f, "%.1f,%.1f %.1f,%.1f ", xof(s, c->ts[i]), y, xof(s, x1), y);
	}
	fputs("\"><title>huge share of mapped memory</title></polyline>\n", f);
}

static void phase_bands(FILE *f, const struct svg_chart *c, const struct chart_scale *s)
{
	/* where each row of labels is free: three above the plot (the top one last), one inside */
	double label_end[4] = { 0, 0, 0, 0 };
	static const int row_y[4] = { PY0 - 20, PY0 - 8, PY0 - 32, PY0 + 12 };

	for (size_t i = 0; i < c->nr_phases; i++) {
		const struct msc_phase *p = &c->phases[i];
		double x0 = xof(s, p->start_ts), x1 = max(xof(s, p->end_ts), x0 + 2);
		bool inferred = p->source == MSC_PHASE_SRC_INFERRED;
		char letter[2] = { fmt_phase_letter(p), 0 }, tip[256], a[32], b[32];
		int row;

		if (!msc_phase_is_dirty_log(p->kind) || p->end_ts < s->t0 || p->start_ts > s->t1)
			continue;
		fmt_time(a, sizeof(a), p->start_ts - c->origin);
		fmt_span(b, sizeof(b), p->end_ts - p->start_ts);
		snprintf(tip, sizeof(tip), "%s %s (%s): at %s for %s", msc_phase_kind_name(p->kind),
			 p->name, msc_phase_source_name(p->source), a, b);
		fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\" "
			   "fill-opacity=\"0.3\" stroke=\"%s\" stroke-width=\"1.5\"%s><title>", x0, PY0,
			x1 - x0, PY1 - PY0,
			phase_colors[p->kind], phase_colors[p->kind],
			inferred ? " stroke-dasharray=\"4 3\"" : " stroke-opacity=\"0.6\"");
		svg_escape(f, tip);
		fputs("</title></rect>\n", f);
		/*
		 * A label on the first of three rows above the plot where it
		 * fits, inside the picture; where the name does not, its letter,
		 * above the plot or else inside it at the top of its band.
		 */
		for (int full = 1; full >= 0; full--) {
			char label[96];
			double w, lx;

			snprintf(label, sizeof(label), "%s%s%s%s", letter, full ? " " : "",
				 full ? p->name : "", full && inferred ? " (inferred)" : "");
			w = 7.0 * (double)strlen(label);
			lx = min(x0, CW - 4 - w);
			for (row = 0; row < (full ? 3 : 4) && lx < label_end[row]; row++)
				;
			if (row == (full ? 3 : 4))
				continue;
			fprintf(f, "<text x=\"%.1f\" y=\"%d\" fill=\"%s\" font-weight=\"bold\">", lx,
				row_y[row], phase_colors[p->kind]);
			svg_escape(f, label);
			fputs("</text>\n", f);
			label_end[row] = lx + w + 6;
			break;
		}
	}
}

/*
 * The workload's own phases and the vCPUs' passes, as a strip under the
 * axis: every band first, then the names that fit in their band and clear
 * the names before them.
 */
static void workload_strip(FILE *f, const struct svg_chart *c, const struct chart_scale *s)
{
	const int y = PY1 + 46;
	double free_x = 0;
	int n = 0;

	for (size_t i = 0; i < c->nr_phases; i++) {
		const struct msc_phase *p = &c->phases[i];
		double x0 = xof(s, p->start_ts), x1 = max(xof(s, p->end_ts), x0 + 1);

		if (msc_phase_is_dirty_log(p->kind) || p->end_ts < s->t0 || p->start_ts > s->t1)
			continue;
		fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"18\" fill=\"%s\"><title>",
			x0, y, x1 - x0, n++ % 2 ? "#d9d9d9" : "#bdbdbd");
		svg_escape(f, p->name);
		fputs("</title></rect>\n", f);
	}
	for (size_t i = 0; i < c->nr_phases; i++) {
		const struct msc_phase *p = &c->phases[i];
		double x0 = xof(s, p->start_ts), x1 = max(xof(s, p->end_ts), x0 + 1);
		double w = 6.5 * (double)strlen(p->name) + 4;

		if (msc_phase_is_dirty_log(p->kind) || p->end_ts < s->t0 || p->start_ts > s->t1 ||
		    x1 - x0 <= w || x0 < free_x)
			continue;
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\">", x0 + 3, y + 13);
		svg_escape(f, p->name);
		fputs("</text>\n", f);
		free_x = x0 + w + 2;
	}
	if (n)
		text(f, PX0 - 6, y + 13, "end", "font-size=\"11\"", "workload");
}

static void lost_marks(FILE *f, const struct svg_chart *c, const struct chart_scale *s)
{
	for (size_t i = 0; i < c->nr_lost; i++) {
		double x = xof(s, c->lost[i].ts);

		if (c->lost[i].ts < s->t0 || c->lost[i].ts > s->t1)
			continue;
		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" "
			   "stroke-width=\"2\" stroke-dasharray=\"5 3\"><title>cpu %u lost %" PRIu64
			   " events: history after this may have holes</title></line>\n",
			x, PY0 - 4, x, PY1, COLOR_LOST, c->lost[i].cpu, c->lost[i].count);
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" fill=\"%s\" font-weight=\"bold\" "
			   "text-anchor=\"middle\">LOST %" PRIu64 "</text>\n", x, PY0 - 6, COLOR_LOST,
			c->lost[i].count);
	}
}

/* KVM's own counters at the stats markers: the ground truth, as dots. */
static void kvm_dots(FILE *f, const struct svg_chart *c, const struct chart_scale *s)
{
	for (size_t i = 0; i < c->nr_stats; i++) {
		const struct msc_kvm_stats *k = &c->stats[i];
		struct msc_census kc = { 0 };
		bool same = true;

		if (k->ts < s->t0 || k->ts > s->t1)
			continue;
		for (int l = 1; l <= 3; l++) {
			kc.pages[l] = max(k->kvm[l], (int64_t)0);
			same &= k->kvm[l] < 0 || k->kvm[l] == k->census[l];
		}
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\" stroke=\"#000\">"
			   "<title>KVM after ", xof(s, k->ts), yof(s, msc_census_mapped(&kc)),
			same ? "#ffffff" : COLOR_LOST);
		svg_escape(f, k->phase);
		fprintf(f, ": pages_4k=%" PRId64 " pages_2m=%" PRId64 " pages_1g=%" PRId64
			   " (rebuilt census %s)</title></circle>\n", k->kvm[1], k->kvm[2], k->kvm[3],
			same ? "equal" : "DIFFERS");
	}
}

static void swatch(FILE *f, double x, double y, const char *fill, const char *extra,
		   const char *label)
{
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"12\" fill=\"%s\" %s/>\n", x,
		y - 10, fill, extra);
	text(f, x + 19, y, "start", "", label);
}

static void chart_legend(FILE *f)
{
	const double y = CH - 40;

	swatch(f, PX0, y, COLOR_1G, "", "1G");
	swatch(f, PX0 + 50, y, COLOR_2M, "", "2M");
	swatch(f, PX0 + 100, y, COLOR_4K, "", "4K (stacked; height: memory mapped)");
	fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#000\" "
		   "stroke-width=\"1.5\"/>\n", PX0 + 370, y - 4, PX0 + 390, y - 4);
	text(f, PX0 + 396, y, "start", "", "huge share (right axis)");
	fprintf(f, "<circle cx=\"%d\" cy=\"%.1f\" r=\"4\" fill=\"#fff\" stroke=\"#000\"/>\n",
		PX0 + 570, y - 4);
	text(f, PX0 + 580, y, "start", "", "KVM's own counters (red: differ)");
	text(f, PX0, y + 18, "start", "fill=\"#444\"",
	     "Bands: dirty-log phases (E enable, H harvest, D disable, R re-promotion, M memslot, "
	     "T teardown);");
	text(f, PX0, y + 32, "start", "fill=\"#444\"",
	     "lower case and dashed: inferred from the SPTE changes.  Red dashes: lost events.");
}

/**
 * svg_coverage - the huge-page coverage chart
 *
 * Returns 0, or -EINVAL for fewer than two samples.
 */
int svg_coverage(FILE *f, const struct svg_chart *c)
{
	struct chart_scale s = { .full = 1 };

	if (c->n < 2)
		return -EINVAL;
	s.t0 = c->ts[0];
	s.t1 = c->ts[c->n - 1];
	for (size_t i = 0; i < c->n; i++)
		s.full = max(s.full, msc_census_mapped(&c->series[i]));
	s.mem = mem_axis(s.full);
	s.full = (uint64_t)ceil(s.mem.step * s.mem.ticks * s.mem.unit_4k);	/* the top: the last tick */
	header(f, CW, CH, c->title, c->subtitle);
	band(f, c, &s, 0, 1, COLOR_1G, "1G");
	band(f, c, &s, 1, 2, COLOR_2M, "2M");
	band(f, c, &s, 2, 3, COLOR_4K, "4K");
	phase_bands(f, c, &s);
	share_line(f, c, &s);
	kvm_dots(f, c, &s);
	axes(f, c, &s);
	lost_marks(f, c, &s);
	workload_strip(f, c, &s);
	chart_legend(f);
	fputs("</svg>\n", f);
	return ferror(f) ? -EIO : 0;
}

/* ---- the memory map ---- */

#define MAP_X0 96

/* Cell size and row length: big cells for small maps. */
struct map_geom {
	int cell;			/* px per cell, gap included */
	size_t per_row;
};

static struct map_geom map_geom(const struct svg_map *m)
{
	size_t n = 0;

	for (size_t i = 0; i < m->nr; i++)
		n += m->regions[i].nr;
	return n <= 512 ? (struct map_geom){ .cell = 20, .per_row = 32 } :
			  (struct map_geom){ .cell = 11, .per_row = 64 };
}

static const char *cell_fill(const struct fmt_cell *c, double *opacity)
{
	*opacity = 1;
	switch (fmt_cell_class(c)) {
	case FMT_CELL_1G:
		return COLOR_1G;
	case FMT_CELL_2M:
		return COLOR_2M;
	case FMT_CELL_4K:
		/* the share of the cell mapped at 4K: lighter when less */
		*opacity = 0.3 + 0.7 * (double)c->mapped_4k / (512.0 * max(c->cells, 1U));
		return COLOR_4K;
	default:
		return COLOR_UNMAPPED;
	}
}

static int map_height(const struct svg_map *m, const struct map_geom *g)
{
	size_t rows = 0;

	for (size_t i = 0; i < m->nr; i++)
		rows += (m->regions[i].nr + g->per_row - 1) / g->per_row;
	return 70 + (int)m->nr * 26 + (int)rows * g->cell + 90;
}

static void map_cell(FILE *f, const struct fmt_cell *c, double x, double y, int size,
		     uint64_t gfn, unsigned int k)
{
	char tip[256];
	double op;
	const char *fill = cell_fill(c, &op);

	fmt_cell_text(tip, 200, c);
	for (size_t n = strlen(tip); n && tip[n - 1] == ' ';)
		tip[--n] = '\0';	/* the TUI's text is padded to its width */
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%d\" height=\"%d\" fill=\"%s\" "
		   "fill-opacity=\"%.2f\"><title>gfn %#" PRIx64 "-%#" PRIx64 ": ", x, y, size, size,
		fill, op, gfn, gfn + (uint64_t)k * 512 - 1);
	svg_escape(f, tip);
	fputs("</title></rect>\n", f);
	if (fmt_cell_protected(c))
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%d\" height=\"%d\" "
			   "fill=\"url(#wp)\"/>\n", x, y, size, size);
}

/* What the map holds, counted in 2M regions. */
static void map_totals(FILE *f, const struct svg_map *m, double y)
{
	struct fmt_cell all = { 0 };
	unsigned int protected = 0;
	char line[320], n[6][32];
	int o;

	for (size_t i = 0; i < m->nr; i++) {
		for (size_t c = 0; c < m->regions[i].nr; c++) {
			const struct fmt_cell *x = &m->regions[i].cells[c];

			all.cells += x->cells;
			all.n1g += x->n1g;
			all.n2m += x->n2m;
			all.nsplit += x->nsplit;
			if (x->nsplit && fmt_cell_protected(x))
				protected += x->nsplit;
		}
	}
	fmt_count(n[0], sizeof(n[0]), all.n1g);
	fmt_count(n[1], sizeof(n[1]), all.n2m);
	fmt_count(n[2], sizeof(n[2]), all.nsplit);
	fmt_count(n[3], sizeof(n[3]), all.cells - all.n1g - all.n2m - all.nsplit);
	fmt_count(n[4], sizeof(n[4]), protected);
	fmt_count(n[5], sizeof(n[5]), all.n1g / 512);
	/* only what there is: "2M regions: 512 in 1 x 1G, 513 split to 4K (...)" */
	o = snprintf(line, sizeof(line), "2M regions:");
	if (all.n1g)
		o += snprintf(line + o, sizeof(line) - o, " %s in %s x 1G,", n[0], n[5]);
	if (all.n2m)
		o += snprintf(line + o, sizeof(line) - o, " %s mapped 2M,", n[1]);
	if (all.nsplit)
		o += snprintf(line + o, sizeof(line) - o, " %s split to 4K (%s of them write-protected),",
			      n[2], n[4]);
	if (all.cells - all.n1g - all.n2m - all.nsplit)
		o += snprintf(line + o, sizeof(line) - o, " %s unmapped,", n[3]);
	if (line[o - 1] == ':')
		o += snprintf(line + o, sizeof(line) - o, " none,");
	line[o - 1] = '\0';	/* the last comma */
	text(f, MAP_X0, y, "start", "", line);
}

static void map_legend(FILE *f, double y, unsigned int k)
{
	char scale[96], size[32];

	swatch(f, MAP_X0, y, COLOR_1G, "", "1G");
	swatch(f, MAP_X0 + 50, y, COLOR_2M, "", "2M");
	swatch(f, MAP_X0 + 100, y, COLOR_4K, "", "split to 4K (lighter: less mapped)");
	swatch(f, MAP_X0 + 340, y, COLOR_UNMAPPED, "", "unmapped");
	swatch(f, MAP_X0 + 440, y, "url(#wp)", "stroke=\"#888\"", "write-protected");
	fmt_bytes_4k(size, sizeof(size), (uint64_t)k * 512);
	snprintf(scale, sizeof(scale), "one cell = %s of guest physical memory", size);
	text(f, MAP_X0, y + 20, "start", "fill=\"#444\"", scale);
}

/** svg_map - the memory map at one time; returns 0 or -EIO */
int svg_map(FILE *f, const struct svg_map *m)
{
	struct map_geom g = map_geom(m);
	int w = MAP_X0 + (int)g.per_row * g.cell + 30, h = map_height(m, &g);
	double y = 70;

	bool vms = false;	/* the regions are several VMs': each names its own */

	for (size_t i = 1; i < m->nr; i++)
		vms |= m->regions[i].region->vm != m->regions[0].region->vm;
	header(f, max(w, 760), h, m->title, m->subtitle);
	for (size_t i = 0; i < m->nr; i++) {
		const struct svg_map_region *r = &m->regions[i];
		const struct msc_region *rg = r->region;
		char head[160], size[32], label[32], vm[32] = "";

		fmt_bytes_4k(size, sizeof(size), rg->gfn_end - rg->gfn_first);
		if (vms)
			snprintf(vm, sizeof(vm), "VM %" PRId64 ", ", rg->vm);
		snprintf(head, sizeof(head), "region %" PRId64 ": %sas %u, gfn %#" PRIx64 "-%#"
			 PRIx64 ", %s (%s)", rg->id, vm, rg->as_id, rg->gfn_first, rg->gfn_end - 1,
			 size, rg->exact ? "memslot" : "inferred from the GFNs seen");
		text(f, 16, y + 12, "start", "font-weight=\"bold\"", head);
		y += 20;
		for (size_t c = 0; c < r->nr; c++) {
			uint64_t gfn = (rg->gfn_first & ~511ULL) + (uint64_t)c * m->k * 512;

			if (c % g.per_row == 0) {
				if (c)
					y += g.cell;
				snprintf(label, sizeof(label), "%#" PRIx64, gfn);
				text(f, MAP_X0 - 6, y + g.cell / 2.0 + 3, "end",
				     "font-size=\"10\" fill=\"#444\"", label);
			}
			map_cell(f, &r->cells[c], MAP_X0 + (double)(c % g.per_row) * g.cell, y,
				 g.cell - 1, gfn, m->k);
		}
		y += g.cell + 6;
	}
	map_totals(f, m, y + 16);
	map_legend(f, y + 44, m->k);
	fputs("</svg>\n", f);
	return ferror(f) ? -EIO : 0;
}
