// SPDX-License-Identifier: GPL-2.0-only
/*
 * The whole screen, drawn in one go each turn the loop finds it dirty: the
 * title bar, then the current view (through its ops' draw()), the help
 * screen over it or word that the data is still to come, then the status
 * bar (the prompt, a message, or the screens' tabs); or, on a terminal
 * smaller than any layout, only that it is too small.
 *
 * It names no view and calls only down: draw.c, help.c, display.c.
 */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "format.h"
#include "tui.h"
#include "mmuscope/util.h"

static void draw_title(struct tui *t)
{
	const struct tui_data *d = t->data;
	const char *base = strrchr(t->title, '/');
	char line[512], lost[96] = "";
	int x;

	if (d->l.nr_lost || d->sum.lost_marks) {
		char n[32];

		fmt_count(n, sizeof(n), d->sum.lost_events);
		snprintf(lost, sizeof(lost), " LOST: %zu gaps, %s events ", max(d->l.nr_lost,
			 (size_t)d->sum.lost_marks), n);
	}
	if (d->have_cap)
		snprintf(line, sizeof(line), " mmuscope %s%s%s | %s %s %s | %s", t->rec ? "top " : "",
			 base ? base + 1 : t->title,
			 !d->live ? "" : t->follow ? " | LIVE" : " | PAUSED (End: follow)",
			 d->cap.kernel_release[0] ? d->cap.kernel_release : "kernel unknown",
			 d->cap.vendor[0] ? d->cap.vendor : "vendor unknown", d->sum.tdp_mmu ? "TDP" : "shadow",
			 d->state);
	else
		snprintf(line, sizeof(line), " mmuscope %s%s | %s", t->rec ? "top " : "",
			 base ? base + 1 : t->title, d->state);
	draw_line(0, display_attr(t, ATTR_TITLE), line);
	if (lost[0]) {
		x = max(t->cols - (int)strlen(lost), 0);
		attrset(display_attr(t, ATTR_LOST));
		mvaddnstr(0, x, lost, t->cols - x);
		attrset(A_NORMAL);
	}
}

static void draw_status(struct tui *t)
{
	static const char *const names[VIEW_NR] = { "Overview", "Map", "Phases", "GFN" };
	char line[256];
	size_t o = 0;

	if (t->prompting) {
		snprintf(line, sizeof(line), t->prompt_jump ?
			 " jump to (163.9 ms, 1.5s, @8.66 trace-cmd's s, a phase, #id, gfn 0x40000): %s_" :
			 " GFN to inspect (hex; Enter: go, Esc: cancel): %s_", t->prompt);
		draw_line(t->lines - 1, display_attr(t, ATTR_STATUS), line);
		return;
	}
	if (t->message[0]) {
		snprintf(line, sizeof(line), " %s", t->message);
		draw_line(t->lines - 1, display_attr(t, ATTR_STATUS), line);
		return;
	}
	for (int i = 0; i < VIEW_NR; i++)
		o += (size_t)snprintf(line + o, sizeof(line) - o, i == (int)t->cur ? "[%d %s] " :
				      " %d %s  ", i + 1, names[i]);
	snprintf(line + o, sizeof(line) - o, "| Tab  ? help  q quit");
	draw_line(t->lines - 1, display_attr(t, ATTR_STATUS), line);
}

/* The help screen: every key and the legend (help.c), flowed into the width, scrolled. */
static void draw_help(struct tui *t, int top, int lines)
{
	static char text[HELP_MAX_LINES][HELP_LINE];
	int n = help_text(text, HELP_MAX_LINES, (size_t)t->cols), shown = lines - 1;
	char line[512];

	t->help_scroll = max(min(t->help_scroll, n - shown), 0);
	snprintf(line, sizeof(line), "Keys and legend%s", n > shown ?
		 " (Up/Down/PgUp/PgDn: more; any other key closes)" : " (any key closes)");
	if (strlen(line) > (size_t)t->cols)
		snprintf(line, sizeof(line), "Keys%s", n > shown ? " (PgDn: more)" : "");
	draw_line(top, display_attr(t, ATTR_HEAD), line);
	for (int i = 0; i < shown && t->help_scroll + i < n; i++)
		draw_line(top + 1 + i, A_NORMAL, text[t->help_scroll + i]);
}

/* The terminal is smaller than any screen's layout: say so, clearly. */
static void draw_too_small(const struct tui *t)
{
	char line[160];

	snprintf(line, sizeof(line), "terminal too small: %dx%d", t->cols, t->lines);
	mvaddnstr(0, 0, line, t->cols);
	snprintf(line, sizeof(line), "mmuscope needs at least %dx%d", TUI_MIN_COLS, TUI_MIN_LINES);
	mvaddnstr(1, 0, line, t->cols);
	mvaddnstr(2, 0, "enlarge it, or press q to quit", t->cols);
}

/* Title, the current view (or help), status. */
static void draw_screen(struct tui *t)
{
	struct view *v = &t->views[t->cur];
	int top = 1, lines = t->lines - 2;

	draw_title(t);
	if (t->help)
		draw_help(t, top, lines);
	else if (!t->data->v)
		draw_line(top + 1, A_NORMAL, t->data->have_cap ?
			  "  analyzing the first events ..." : "  waiting for the first events ...");
	else
		v->ops->draw(v, t, top, lines);
	draw_status(t);
}

/**
 * frame_draw - draw the whole screen into curses' buffer (one doupdate()
 *	follows)
 *
 * A view may read more data while drawing (the memory map loads in
 * chunks): the generation drawn is the one before, so that the change is
 * drawn on the next turn.
 */
void frame_draw(struct tui *t)
{
	unsigned long gen = t->data->gen;

	erase();
	if (t->cols < TUI_MIN_COLS || t->lines < TUI_MIN_LINES)
		draw_too_small(t);
	else
		draw_screen(t);
	wnoutrefresh(stdscr);
	t->dirty = false;
	t->drawn_gen = gen;
}
