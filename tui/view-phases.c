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
#include <string.h>

#include "format.h"
#include "tui.h"
#include "mmuscope/util.h"

#define DETAIL_ROWS 8

struct phases {
	size_t sel;
	size_t scroll;
	bool placed;			/* selection set from the cursor once */
};

static void detail(struct tui *t, const struct msc_phase *p, int y)
{
	const struct tui_data *d = t->data;
	char line[512], a[32], b[32], c[160];
	size_t o;

	fmt_time(a, sizeof(a), p->start_ts - min(p->start_ts, d->t_first));
	fmt_span(b, sizeof(b), p->end_ts - min(p->end_ts, p->start_ts));
	snprintf(line, sizeof(line), "[%" PRId64 "] %s %s (%s): at %s for %s", p->id,
		 msc_phase_kind_name(p->kind), p->name, msc_phase_source_name(p->source), a, b);
	draw_line(y++, display_attr(t, ATTR_HEAD), line);
	snprintf(line, sizeof(line), "  census before  %s", fmt_census(c, 120, &p->before));
	draw_line(y++, A_NORMAL, line);
	snprintf(line, sizeof(line), "  census after   %s", fmt_census(c, 120, &p->after));
	draw_line(y++, A_NORMAL, line);
	fmt_count(a, sizeof(a), p->count.spte_changes);
	o = (size_t)snprintf(line, sizeof(line), "  spte changes %s:", a);
	for (int k = 0; k < MSC_CLASS_NR && o < sizeof(line); k++)
		if (p->count.by_class[k])
			o += (size_t)snprintf(line + o, sizeof(line) - o, " %s=%" PRIu64,
					      msc_spte_class_name(k), p->count.by_class[k]);
	draw_line(y++, A_NORMAL, line);
	snprintf(line, sizeof(line), "  pages split %" PRIu64 ", promoted %" PRIu64 ", children "
		 "synthesized %" PRIu64 ", split failures %" PRIu64, p->count.pages_split,
		 p->count.pages_promoted, p->count.children_synthesized, p->count.split_failures);
	draw_line(y++, A_NORMAL, line);
	o = (size_t)snprintf(line, sizeof(line), "  faults slow %" PRIu64 ", fast %" PRIu64
			     ", spurious %" PRIu64 ", refaults after zap %" PRIu64 ", zaps %" PRIu64,
			     p->count.faults_slow, p->count.faults_fast, p->count.faults_spurious, p->count.refaults,
			     p->count.zaps);
	if (p->count.flushes >= 0)
		snprintf(line + o, sizeof(line) - o, ", TLB flushes %" PRId64, p->count.flushes);
	else
		snprintf(line + o, sizeof(line) - o, ", TLB flushes not traced");
	draw_line(y++, A_NORMAL, line);
	/* the split-time integral over the phase's length: how many regions were split */
	snprintf(a, sizeof(a), "%.1f", p->end_ts > p->start_ts ?
		 (double)p->region_split_ns / (double)(p->end_ts - p->start_ts) : 0.0);
	o = p->count.gfn_first <= p->count.gfn_last ?
	    (size_t)snprintf(line, sizeof(line), "  gfn %#" PRIx64 "-%#" PRIx64 ";", p->count.gfn_first,
			     p->count.gfn_last) : 0;
	o += (size_t)snprintf(line + o, sizeof(line) - o, "%s2M regions split: %s on average",
			      o ? " " : "  ", a);
	if (p->kind == MSC_PHASE_DISABLE || p->kind == MSC_PHASE_REPROMOTE) {
		if (p->to_huge_ns >= 0) {
			fmt_span(b, sizeof(b), (uint64_t)p->to_huge_ns);
			snprintf(line + o, sizeof(line) - o, "; all huge again after %s", b);
		} else {
			snprintf(line + o, sizeof(line) - o, "; not all huge again");
		}
	}
	draw_line(y, A_NORMAL, line);
}

static void phases_draw(struct view *v, struct tui *t, int top, int lines)
{
	struct phases *ph = v->priv;
	const struct tui_data *d = t->data;
	int rows = max(lines - 2 - DETAIL_ROWS, 1), y = top;
	struct fmt_phase_units units = { 0, 0 };
	char line[1024];

	if (!ph->placed && d->l.nr_phases) {
		const struct msc_phase *p = tui_data_phase_at(d, t->cursor, true);

		ph->sel = p ? (size_t)(p - d->l.phases) : 0;
		ph->placed = true;
	}
	ph->sel = min(ph->sel, d->l.nr_phases ? d->l.nr_phases - 1 : 0);
	if (ph->sel < ph->scroll)
		ph->scroll = ph->sel;
	if (ph->sel >= ph->scroll + (size_t)rows)
		ph->scroll = ph->sel - (size_t)rows + 1;
	snprintf(line, sizeof(line), "Phases: %zu  (src: mark marker, tp tracepoint, ioctl KVM ioctl, "
		 "kprb kprobe, INF inferred)", d->l.nr_phases);
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
	if (d->l.nr_phases)
		detail(t, &d->l.phases[ph->sel], y);
	else
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
