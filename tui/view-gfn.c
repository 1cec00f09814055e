// SPDX-License-Identifier: GPL-2.0-only
/*
 * Screen 4, the GFN inspector: everything that happened to one guest
 * frame, as the intervals of the 4K, 2M and 1G entries covering it (level,
 * leaf or table, pfn, W/D, what started and ended each, when).  The rows
 * covering the cursor time are marked '>'; Enter moves the cursor to the
 * selected interval.  Pick a GFN with `g`, or Enter on a map cell.
 */
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "tui.h"
#include "mmuscope/spte.h"
#include "mmuscope/util.h"

struct gfn_view {
	struct msc_interval *iv;
	size_t nr;
	bool loaded;
	uint8_t as_id;			/* what iv holds */
	int64_t vm;
	char vm_text[32];
	uint64_t gfn;
	unsigned long gen;
	size_t sel, scroll;
};

static bool covers(const struct msc_interval *iv, uint64_t ts)
{
	return iv->start_ts <= ts && (iv->end_ts == MSC_TS_OPEN || ts < iv->end_ts);
}

/* ", VM n" of the GFN's VM, in a capture of several; "" otherwise */
static const char *vm_of(struct gfn_view *g, const struct tui *t)
{
	g->vm_text[0] = '\0';
	if (t->data->l.nr_vms > 1 && g->vm)
		snprintf(g->vm_text, sizeof(g->vm_text), ", VM %" PRId64, g->vm);
	return g->vm_text;
}

static void load(struct gfn_view *g, struct tui *t)
{
	free(g->iv);
	g->iv = NULL;
	g->nr = 0;
	if (msc_hview_gfn_history(t->data->v, t->gfn_vm, t->gfn_as, t->gfn, &g->iv, &g->nr))
		tui_message(t, "cannot read the history of gfn %#" PRIx64, t->gfn);
	g->as_id = t->gfn_as;
	g->vm = t->gfn_vm;
	g->gfn = t->gfn;
	g->gen = t->data->gen;
	g->loaded = true;
	g->sel = 0;
	for (size_t i = 0; i < g->nr; i++)
		if (covers(&g->iv[i], t->cursor))
			g->sel = i;
	g->scroll = 0;
}

/* What maps the GFN at the cursor: the covering leaf, if any. */
static void draw_now(struct gfn_view *g, struct tui *t, int y)
{
	char line[256], when[32];
	const struct msc_interval *leaf = NULL;

	for (size_t i = 0; i < g->nr; i++)
		if (g->iv[i].leaf && covers(&g->iv[i], t->cursor))
			leaf = &g->iv[i];
	fmt_time(when, sizeof(when), t->cursor - t->data->t_first);
	if (leaf)
		snprintf(line, sizeof(line), "at the cursor (%s): a %s leaf, pfn %#" PRIx64 ", %s, %s",
			 when, msc_level_size_name(leaf->level), leaf->pfn,
			 leaf->writable ? "writable" : "write-protected",
			 leaf->dirty < 0 ? "no D bit" : leaf->dirty ? "dirty" : "clean");
	else
		snprintf(line, sizeof(line), "at the cursor (%s): not mapped", when);
	draw_line(y, A_NORMAL, line);
}

static void gfn_draw(struct view *v, struct tui *t, int top, int lines)
{
	struct gfn_view *g = v->priv;
	int rows = max(lines - 6, 1), y = top, w = min(t->cols - 2, 1000);
	char line[1024], row[1024];
	uint64_t last = 1;	/* the latest time of the table: its columns' one unit */

	if (!t->gfn_set) {
		draw_line(y + 1, A_NORMAL, "  No GFN chosen: press g and type one (hex), or select a "
			  "cell on the memory map (2) and press Enter.");
		return;
	}
	if (!g->loaded || g->gfn != t->gfn || g->as_id != t->gfn_as || g->vm != t->gfn_vm ||
	    g->gen != t->data->gen)
		load(g, t);
	snprintf(line, sizeof(line), "GFN %#" PRIx64 " (GPA %#" PRIx64 ", as %u%s): %zu intervals "
		 "of the entries covering it", g->gfn, g->gfn << 12, g->as_id,
		 vm_of(g, t), g->nr);
	draw_line(y++, display_attr(t, ATTR_HEAD), line);
	draw_now(g, t, y++);
	snprintf(line, sizeof(line), "  %s", fmt_interval_header(row, (size_t)w));
	draw_line(y++, A_UNDERLINE, line);
	for (size_t i = 0; i < g->nr; i++) {
		uint64_t end = g->iv[i].end_ts == MSC_TS_OPEN ? g->iv[i].start_ts : g->iv[i].end_ts;

		last = max(last, end - min(end, t->data->t_first));
	}
	if (g->sel < g->scroll)
		g->scroll = g->sel;
	if (g->sel >= g->scroll + (size_t)rows)
		g->scroll = g->sel - (size_t)rows + 1;
	for (int r = 0; r < rows; r++, y++) {
		size_t i = g->scroll + (size_t)r;

		if (i >= g->nr)
			continue;
		snprintf(line, sizeof(line), "%c %s", covers(&g->iv[i], t->cursor) ? '>' : ' ',
			 fmt_interval_row(row, (size_t)w, &g->iv[i], t->data->t_first, last));
		draw_line(y, i == g->sel ? display_attr(t, ATTR_SELECTED) : (int)A_NORMAL, line);
	}
	if (!g->nr)
		draw_line(y - rows, A_NORMAL, "  never mapped in this capture");
	draw_line(y++, A_NORMAL, "> covers the cursor; entry: 4K/2M/1G leaf, pt page table; "
		  "W writable, D dirty");
	draw_line(y++, A_NORMAL, "fl: s not traced by the kernel (split child), l after LOST "
		  "events, r resync");
}

static unsigned int gfn_handle(struct view *v, struct tui *t, enum msc_request req)
{
	struct gfn_view *g = v->priv;

	if (!g->nr)
		return IGNORED;
	switch (req) {
	case REQ_MOVE_UP:
		g->sel -= g->sel ? 1 : 0;
		break;
	case REQ_MOVE_DOWN:
		g->sel = min(g->sel + 1, g->nr - 1);
		break;
	case REQ_ENTER:
		tui_set_cursor(t, g->iv[g->sel].start_ts, false);
		break;
	default:
		return IGNORED;
	}
	return HANDLED | REDRAW;
}

static int gfn_open(struct view *v, struct tui *t)
{
	struct gfn_view *g = v->priv;

	g->loaded = false;
	return 0;
}

static void gfn_close(struct view *v)
{
	struct gfn_view *g = v->priv;

	free(g->iv);
	g->iv = NULL;
}

const struct view_ops gfn_ops = {
	.name = "gfn",
	.private_size = sizeof(struct gfn_view),
	.open = gfn_open,
	.draw = gfn_draw,
	.handle = gfn_handle,
	.close = gfn_close,
};
