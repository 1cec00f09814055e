// SPDX-License-Identifier: GPL-2.0-only
/*
 * What every screen draws with: a full-width line, the status message, the
 * time axis and its labels, the phase strips and the cursor line.
 *
 * The floor under the views, the frame and the time cursor: it calls only
 * display.c, format.c and the data, never a view nor what drives them.
 */
#include <curses.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "cli/cli.h"
#include "format.h"
#include "tui.h"
#include "mmuscope/util.h"

/** tui_message - one line in the status bar until the next key */
void tui_message(struct tui *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->message, sizeof(t->message), fmt, ap);
	va_end(ap);
	t->dirty = true;
}

/** draw_line - @text in one full-width row */
void draw_line(int y, int attr, const char *text)
{
	int cols = COLS, n = (int)fmt_cut(text, (size_t)cols);	/* between words: no number cut */

	attrset(attr);
	mvaddnstr(y, 0, text, n);
	for (int x = n; x < cols; x++)
		mvaddch(y, x, ' ');
	attrset(A_NORMAL);
}

/** tui_chart_cols - columns of the time axis on a screen @cols wide */
unsigned int tui_chart_cols(int cols)
{
	return (unsigned int)max(cols - TUI_GUTTER, 2);
}

static void axis_of(const struct tui *t, struct fmt_axis *a)
{
	*a = (struct fmt_axis){
		.t0 = t->win0, .t1 = max(t->win1, t->win0 + 1), .origin = t->data->t_first,
		.cols = tui_chart_cols(t->cols),
	};
}

/* The time axis under a chart: '-', '!' at lost events, '^' at the cursor. */
void draw_axis(struct tui *t, int y)
{
	struct fmt_axis a;
	int cur;

	axis_of(t, &a);
	mvaddstr(y, TUI_GUTTER - 1, "+");
	for (unsigned int c = 0; c < a.cols; c++)
		mvaddch(y, TUI_GUTTER + (int)c, '-');
	attrset(display_attr(t, ATTR_LOST));
	for (size_t i = 0; i < t->data->l.nr_lost; i++) {
		int c = fmt_axis_col(&a, t->data->l.lost[i].ts);

		if (c >= 0)
			mvaddch(y, TUI_GUTTER + c, '!');
	}
	attrset(display_attr(t, ATTR_CURSOR));
	cur = fmt_axis_col(&a, t->cursor);
	if (cur >= 0)
		mvaddch(y, TUI_GUTTER + cur, '^');
	attrset(A_NORMAL);
}

/* The time labels under the axis. */
void draw_axis_labels(struct tui *t, int y)
{
	char buf[1024];
	struct fmt_axis a;

	axis_of(t, &a);
	if (a.cols >= sizeof(buf))
		a.cols = sizeof(buf) - 1;
	mvaddstr(y, 0, t->zoomed ? "zoomed" : "");
	mvaddstr(y, TUI_GUTTER, fmt_axis_labels(buf, &a));
}

/**
 * draw_phase_strip - phases along the axis, with the cursor column marked
 * @label: the gutter text ("dirty", "phase")
 */
void draw_phase_strip(struct tui *t, int y, const char *label, enum fmt_strip_kind kind)
{
	char buf[1024];
	struct fmt_axis a;
	int cur;

	axis_of(t, &a);
	if (a.cols >= sizeof(buf))
		a.cols = sizeof(buf) - 1;
	fmt_phase_strip(buf, &a, t->data->l.phases, t->data->l.nr_phases, kind);
	mvaddstr(y, 0, label);
	for (unsigned int c = 0; c < a.cols; c++) {
		char ch = buf[c];
		int attr = ch == ' ' ? (int)A_NORMAL :
			   (ch >= 'a' && ch <= 'z' && kind == FMT_STRIP_DIRTY) || ch == '?' ?
			   display_attr(t, ATTR_INFERRED) : display_attr(t, ATTR_PHASE);

		attrset(attr);
		mvaddch(y, TUI_GUTTER + (int)c, (unsigned char)ch);
	}
	cur = fmt_axis_col(&a, t->cursor);
	if (cur >= 0) {
		attrset(display_attr(t, ATTR_CURSOR));
		mvaddch(y, TUI_GUTTER + cur, buf[cur] == ' ' ? '|' : (unsigned char)buf[cur]);
	}
	attrset(A_NORMAL);
}

/** draw_cursor_line - "cursor 163.941 ms @8.666661  in enable (kprobe), after ..." */
void draw_cursor_line(struct tui *t, int y)
{
	const struct tui_data *d = t->data;
	const struct msc_phase *dp = tui_data_phase_at(d, t->cursor, true);
	const struct msc_phase *wp = tui_data_phase_at(d, t->cursor, false);
	char line[512], when[32], abs[32];
	uint64_t lost_events;
	unsigned int lost = tui_data_lost_before(d, t->cursor, &lost_events);
	size_t o;

	fmt_time(when, sizeof(when), t->cursor - d->t_first);
	/* and where that is in trace-cmd's clock: "@9.256041" */
	o = (size_t)snprintf(line, sizeof(line), "cursor %s @%s%s", when,
			     cli_trace_ts(t->cursor, abs, sizeof(abs)),
			     t->follow ? " (live)" : t->playing ? " (replaying)" : "");
	if (dp)
		o += (size_t)snprintf(line + o, sizeof(line) - o, "  in %s (%s)",
				      msc_phase_kind_name(dp->kind), msc_phase_source_name(dp->source));
	if (wp && wp != dp && o < sizeof(line))
		o += (size_t)snprintf(line + o, sizeof(line) - o, "  %s %s",
				      wp->kind == MSC_PHASE_WORKLOAD ? "workload" : "vCPUs:", wp->name);
	draw_line(y, A_NORMAL, line);
	if (lost && o < (size_t)t->cols) {
		char n[32];

		fmt_count(n, sizeof(n), lost_events);
		snprintf(line, sizeof(line), " after %u LOST gap%s (%s events): history may have holes ",
			 lost, lost == 1 ? "" : "s", n);
		attrset(display_attr(t, ATTR_LOST));
		mvaddnstr(y, (int)o + 1, line, t->cols - (int)o - 1);
		attrset(A_NORMAL);
	}
}
