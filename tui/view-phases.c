// SPDX-License-Identifier: GPL-2.0-only
/*
 * Screen 3, the phases: every workload and dirty-log phase with its costs
 * (one row each), the selected one in full below.  Enter moves the time
 * cursor to its start, shows it in the window, and goes back to the
 * overview or the map.  Inferred phases say so (src INF).
 */
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "tui.h"
#include "mmuscope/util.h"

#define DETAIL_ROWS 8		/* the pane's lines at 80 columns and more */
#define DETAIL_MAX 16		/* ... and at most, on a narrow screen */

struct phases {
	size_t sel;
	size_t scroll;
	bool placed;			/* selected from the cursor once */
};

/*
 * The pane's text, flowed into lines of the screen's width: phrases go on
 * a line while they fit, else start the next one (indented), so a number
 * is never cut; a phrase is "label value" and never split.  The first line
 * is the heading.
 */
struct flow {
	char line[DETAIL_MAX][256];
	int nr;
	size_t width;
	bool fresh;			/* the next phrase starts a line of its own */
};

static void flow_line(struct flow *f, const char *first)
{
	if (f->nr < DETAIL_MAX)
		snprintf(f->line[f->nr++], sizeof(f->line[0]), "%s", first);
	f->fresh = false;
}

/* @sep goes between the phrase and the one before it on the same line. */
static void flow_add(struct flow *f, const char *sep, const char *phrase)
{
	char *l = f->nr ? f->line[f->nr - 1] : NULL;
	size_t n = l ? strlen(l) : 0;

	if (!l || f->fresh || (n + strlen(sep) + strlen(phrase) > f->width && n > 4)) {
		char buf[256];

		snprintf(buf, sizeof(buf), "%s%s", f->fresh || !l ? "  " : "    ", phrase);
		flow_line(f, buf);
		return;
	}
	snprintf(l + n, sizeof(f->line[0]) - n, "%s%s", sep, phrase);
}

/* A census as phrases ("4K 8,193", "2M 0", ..., "= 32.0 MiB, 0.0% huge"). */
/* "LABEL N", a phrase of its own */
static void flow_count(struct flow *f, const char *sep, const char *label, uint64_t n)
{
	char phrase[80];

	snprintf(phrase, sizeof(phrase), "%s %" PRIu64, label, n);
	flow_add(f, sep, phrase);
}

static void flow_census(struct flow *f, const char *label, const struct msc_census *c)
{
	char text[256], *p, *q;

	fmt_census(text, sizeof(text), c);
	f->fresh = true;
	flow_add(f, "", label);
	for (p = text; *p; p = q) {
		q = strstr(p, "  ");
		if (q)
			*q = '\0';
		flow_add(f, "  ", p);
		if (!q)
			break;
		for (q += 2; *q == ' '; q++)
			;
	}
}

/*
 * Where a harvest's or pass's dirtied pages were, by region: "region
 * 0x40000-0x41fff 8,192 (100%)" for each region it dirtied (schema step 20:
 * none where the split is not whole).  Read when drawn: one indexed query.
 */
static void flow_dirtied_regions(struct flow *f, const struct tui_data *d,
				 const struct msc_phase *p)
{
	struct msc_coverage *cov;
	char phrase[128], n[32];
	size_t nr;
	bool first = true;

	if (!d->v || p->dirtied <= 0 || msc_hview_phase_coverage(d->v, p->id, &cov, &nr))
		return;
	for (size_t i = 0; i < nr; i++) {
		const struct msc_region *g = NULL;

		for (size_t k = 0; k < d->l.nr_regions && !g; k++)
			if (d->l.regions[k].id == cov[i].region_id)
				g = &d->l.regions[k];
		if (!g || cov[i].dirtied <= 0)
			continue;
		fmt_count(n, sizeof(n), (uint64_t)cov[i].dirtied);
		snprintf(phrase, sizeof(phrase), "%sregion %#" PRIx64 "-%#" PRIx64 " %s (%.0f%%)",
			 first ? "by " : "", g->gfn_first, g->gfn_end - 1, n,
			 100.0 * (double)cov[i].dirtied / (double)p->dirtied);
		flow_add(f, first ? "; " : ", ", phrase);
		first = false;
	}
	free(cov);
}

static void detail(struct tui *t, const struct msc_phase *p, struct flow *f)
{
	const struct tui_data *d = t->data;
	char line[256], a[32], b[32];

	f->width = (size_t)max(t->cols, 20);
	fmt_time(a, sizeof(a), p->start_ts - min(p->start_ts, d->t_first));
	fmt_span(b, sizeof(b), p->end_ts - min(p->end_ts, p->start_ts));
	snprintf(line, sizeof(line), "[%" PRId64 "] %s %s (%s):", p->id,
		 msc_phase_kind_name(p->kind), p->name, msc_phase_source_name(p->source));
	flow_line(f, line);
	snprintf(line, sizeof(line), "at %s", a);
	flow_add(f, " ", line);
	snprintf(line, sizeof(line), "for %s", b);
	flow_add(f, " ", line);
	flow_census(f, "census before", &p->before);
	flow_census(f, "census after ", &p->after);
	fmt_count(a, sizeof(a), p->count.spte_changes);
	snprintf(line, sizeof(line), "spte changes %s:", a);
	f->fresh = true;
	flow_add(f, "", line);
	for (int k = 0; k < MSC_CLASS_NR; k++) {
		if (p->count.by_class[k]) {
			snprintf(line, sizeof(line), "%s=%" PRIu64, msc_spte_class_name(k),
				 p->count.by_class[k]);
			flow_add(f, " ", line);
		}
	}
	f->fresh = true;
	flow_count(f, "", "pages split", p->count.pages_split);
	flow_count(f, ", ", "promoted", p->count.pages_promoted);
	flow_count(f, ", ", "children synthesized", p->count.children_synthesized);
	flow_count(f, ", ", "split failures", p->count.split_failures);
	f->fresh = true;
	flow_count(f, "", "faults slow", p->count.faults_slow);
	flow_count(f, ", ", "fast", p->count.faults_fast);
	flow_count(f, ", ", "spurious", p->count.faults_spurious);
	flow_count(f, ", ", "refaults after zap", p->count.refaults);
	flow_count(f, ", ", "zaps", p->count.zaps);
	if (p->count.flushes >= 0)
		snprintf(line, sizeof(line), "TLB flushes %" PRId64, p->count.flushes);
	else
		snprintf(line, sizeof(line), "TLB flushes not traced");
	flow_add(f, ", ", line);
	f->fresh = true;
	if (p->count.gfn_first <= p->count.gfn_last) {
		snprintf(line, sizeof(line), "gfn %#" PRIx64 "-%#" PRIx64 ";", p->count.gfn_first,
			 p->count.gfn_last);
		flow_add(f, "", line);
	}
	/* the split-time integral over the phase's length: how many regions were split */
	snprintf(line, sizeof(line), "2M regions split: %.1f on average", p->end_ts > p->start_ts ?
		 (double)p->region_split_ns / (double)(p->end_ts - p->start_ts) : 0.0);
	flow_add(f, " ", line);
	if (p->kind == MSC_PHASE_DISABLE || p->kind == MSC_PHASE_REPROMOTE) {
		if (p->to_huge_ns >= 0) {
			fmt_span(b, sizeof(b), (uint64_t)p->to_huge_ns);
			snprintf(line, sizeof(line), "all huge again after %s", b);
		} else {
			snprintf(line, sizeof(line), "not all huge again");
		}
		flow_add(f, "; ", line);
	}
	if (p->dirtied >= 0 && msc_phase_sees_dirtying(p->kind)) {
		fmt_count(a, sizeof(a), (uint64_t)p->dirtied);
		if (p->dirty_window_ns) {
			fmt_count(b, sizeof(b), (uint64_t)((double)p->dirtied * 1e9 /
							   (double)p->dirty_window_ns));
			snprintf(line, sizeof(line), "dirtied %s pages, %s/s", a, b);
		} else {
			snprintf(line, sizeof(line), "dirtied %s pages", a);
		}
		flow_add(f, "; ", line);
		flow_dirtied_regions(f, d, p);
	}
}

static void phases_draw(struct view *v, struct tui *t, int top, int lines)
{
	struct phases *ph = v->priv;
	const struct tui_data *d = t->data;
	struct fmt_phase_units units = { 0, 0 };
	struct flow f = { .nr = 0 };
	char line[1024];
	int rows, pane, y = top;

	if (!ph->placed && d->l.nr_phases) {
		const struct msc_phase *p = tui_data_phase_at(d, t->cursor, true);

		ph->sel = p ? (size_t)(p - d->l.phases) : 0;
		ph->placed = true;
	}
	ph->sel = min(ph->sel, d->l.nr_phases ? d->l.nr_phases - 1 : 0);
	/* the pane takes the lines it needs (DETAIL_ROWS from 80 columns on), the table the rest */
	if (d->l.nr_phases)
		detail(t, &d->l.phases[ph->sel], &f);
	pane = f.nr > DETAIL_ROWS - 1 ? f.nr : DETAIL_ROWS - 1;
	rows = max(lines - 3 - pane, 1);
	if (ph->sel < ph->scroll)
		ph->scroll = ph->sel;
	if (ph->sel >= ph->scroll + (size_t)rows)
		ph->scroll = ph->sel - (size_t)rows + 1;
	/* the sources' legend, shorter where it does not fit ('?' explains them) */
	snprintf(line, sizeof(line), "Phases: %zu  (src: mark marker, tp tracepoint, ioctl KVM ioctl, "
		 "kprb kprobe, INF inferred)", d->l.nr_phases);
	if (strlen(line) > (size_t)t->cols)
		snprintf(line, sizeof(line), "Phases: %zu  (src: mark, tp, ioctl, kprb, INF inferred; "
			 "? help)", d->l.nr_phases);
	if (strlen(line) > (size_t)t->cols)
		snprintf(line, sizeof(line), "Phases: %zu", d->l.nr_phases);
	draw_line(y++, display_attr(t, ATTR_HEAD), line);
	draw_line(y++, A_UNDERLINE, fmt_phase_header(line, (size_t)min(t->cols, 1000)));
	for (size_t i = 0; i < d->l.nr_phases; i++) {	/* one unit per column, for the table */
		const struct msc_phase *p = &d->l.phases[i];

		units.start = max(units.start, p->start_ts - min(p->start_ts, d->t_first));
		units.took = max(units.took, p->end_ts - min(p->end_ts, p->start_ts));
	}
	for (int r = 0; r < rows; r++, y++) {
		size_t i = ph->scroll + (size_t)r;
		int attr;

		if (i >= d->l.nr_phases)
			continue;
		attr = i == ph->sel ? display_attr(t, ATTR_SELECTED) :
		       d->l.phases[i].source == MSC_PHASE_SRC_INFERRED ? display_attr(t, ATTR_INFERRED) :
		       (int)A_NORMAL;
		draw_line(y, attr, fmt_phase_row(line, (size_t)min(t->cols, 1000), &d->l.phases[i],
						 d->t_first, &units));
	}
	for (int i = 0; i < f.nr && y < top + lines; i++, y++)
		draw_line(y, i ? (int)A_NORMAL : display_attr(t, ATTR_HEAD), f.line[i]);
	if (!d->l.nr_phases)
		draw_line(y, A_NORMAL, "  no phases: no markers, and no dirty logging seen");
}

static unsigned int phases_handle(struct view *v, struct tui *t, enum msc_request req)
{
	struct phases *ph = v->priv;
	const struct tui_data *d = t->data;
	const struct msc_phase *p;
	size_t page = (size_t)max(t->lines - 4 - DETAIL_ROWS, 1), last = d->l.nr_phases - 1;
	uint64_t dur;

	if (!d->l.nr_phases)
		return IGNORED;
	switch (req) {
	case REQ_MOVE_UP:
		ph->sel -= ph->sel ? 1 : 0;
		break;
	case REQ_MOVE_DOWN:
		ph->sel = min(ph->sel + 1, last);
		break;
	case REQ_PAGE_UP:
		ph->sel -= min(ph->sel, page);
		break;
	case REQ_PAGE_DOWN:
		ph->sel = min(ph->sel + page, last);
		break;
	case REQ_ENTER:
		p = &d->l.phases[ph->sel];
		dur = max(p->end_ts - p->start_ts, (uint64_t)1);
		tui_show_window(t, p->start_ts - min(p->start_ts, dur / 10), p->end_ts + dur / 10);
		tui_set_cursor(t, p->start_ts, false);
		tui_switch_view(t, t->last_time_view);
		break;
	default:
		return IGNORED;
	}
	return HANDLED | REDRAW;
}

const struct view_ops phases_ops = {
	.name = "phases",
	.private_size = sizeof(struct phases),
	.draw = phases_draw,
	.handle = phases_handle,
};
