// SPDX-License-Identifier: GPL-2.0-only
/*
 * Screen 2, the memory map: guest physical memory as a grid, grouped by
 * region, each cell one or more 2M regions (a power of two, the smallest
 * that fits the screen; `s` switches to 2M cells and scrolling), showing
 * how it is mapped at the cursor time: 1G, 2M, split to 4K (with the share
 * mapped), unmapped, write-protected.  Scrub, or `p` to replay a phase,
 * and watch splits and promotions happen; Enter opens the GFN inspector
 * on the selected cell.
 */
#include <curses.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "tui.h"
#include "mmuscope/util.h"

#define FIXED_ROWS 6		/* heading, legend, cell, totals, phases, cursor */
#define LABEL_COLS 11		/* "0x40000000 " */
#define LOAD_CHUNK 262144	/* region_state rows read per turn while loading */
#define MAX_SCALE (1U << 20)	/* 2 TiB per cell */

/* A row of the grid: a region's heading, or a run of its cells. */
struct map_row {
	size_t region;
	size_t first;			/* first display cell of the row; SIZE_MAX: heading */
};

struct map {
	/* layout, for this size, scale mode and data */
	int cols, avail;
	unsigned long gen;
	bool two_meg;			/* `s`: 2M cells and scrolling */
	unsigned int k;			/* 2M regions per cell */
	unsigned int per_row;		/* cells per row */
	struct map_row *rows;
	size_t nr_rows;
	size_t *region_first;		/* display cell index of each region's first cell */
	size_t nr_cells;
	/* the cells at the cursor */
	struct fmt_cell *cells;
	uint64_t at;
	unsigned long at_gen;
	bool have_at;
	/* where the user is */
	size_t sel;
	size_t scroll;
};

static size_t display_cells(const struct msc_region *g, unsigned int k)
{
	return (size_t)tui_region_cells(g, k);
}

static size_t rows_needed(const struct tui_data *d, unsigned int k, unsigned int per_row)
{
	size_t rows = 0;

	for (size_t i = 0; i < d->l.nr_regions; i++)
		rows += 1 + (display_cells(&d->l.regions[i], k) + per_row - 1) / per_row;
	return rows;
}

static int layout(struct map *m, struct tui *t, int avail)
{
	const struct tui_data *d = t->data;
	unsigned int per_row = 8;
	size_t n = 0, r = 0, total;

	while (per_row * 2 <= (unsigned int)max(t->cols - LABEL_COLS - 1, 8))
		per_row *= 2;
	m->k = 1;
	while (!m->two_meg && m->k < MAX_SCALE && rows_needed(d, m->k, per_row) > (size_t)avail)
		m->k *= 2;
	m->per_row = per_row;
	total = rows_needed(d, m->k, per_row);
	free(m->rows);
	free(m->region_first);
	free(m->cells);
	m->rows = calloc(total ? total : 1, sizeof(*m->rows));
	m->region_first = calloc(d->l.nr_regions ? d->l.nr_regions : 1, sizeof(*m->region_first));
	for (size_t i = 0; i < d->l.nr_regions; i++)
		n += display_cells(&d->l.regions[i], m->k);
	m->cells = calloc(n ? n : 1, sizeof(*m->cells));
	if (!m->rows || !m->region_first || !m->cells)
		return -ENOMEM;
	n = 0;
	for (size_t i = 0; i < d->l.nr_regions; i++) {
		size_t cells = display_cells(&d->l.regions[i], m->k);

		m->region_first[i] = n;
		m->rows[r++] = (struct map_row){ .region = i, .first = SIZE_MAX };
		for (size_t c = 0; c < cells; c += per_row)
			m->rows[r++] = (struct map_row){ .region = i, .first = n + c };
		n += cells;
	}
	m->nr_rows = r;
	m->nr_cells = n;
	m->sel = min(m->sel, n ? n - 1 : 0);
	m->cols = t->cols;
	m->avail = avail;
	m->gen = d->gen;
	m->have_at = false;
	return 0;
}

/* The region of display cell @cell. */
static size_t region_of(const struct map *m, const struct tui_data *d, size_t cell)
{
	size_t r = 0;

	while (r + 1 < d->l.nr_regions && m->region_first[r + 1] <= cell)
		r++;
	return r;
}

static uint64_t cell_gfn(const struct map *m, const struct tui_data *d, size_t cell)
{
	size_t r = region_of(m, d, cell);

	return (d->l.regions[r].gfn_first & ~511ULL) + (uint64_t)(cell - m->region_first[r]) * m->k * 512;
}

/* Every display cell at the cursor: one lookup per 2M region. */
static void cells_at(struct map *m, struct tui *t)
{
	const struct tui_data *d = t->data;

	for (size_t i = 0; i < d->l.nr_regions; i++)
		tui_cells_region(&d->cells, &d->l.regions[i], m->k, t->cursor,
				 &m->cells[m->region_first[i]]);
	m->at = t->cursor;
	m->at_gen = d->gen;
	m->have_at = true;
}

static int cell_attr(const struct tui *t, const struct fmt_cell *c)
{
	if (fmt_cell_protected(c))
		return display_attr(t, ATTR_PROTECTED);
	switch (fmt_cell_class(c)) {
	case FMT_CELL_1G:
		return display_attr(t, ATTR_1G);
	case FMT_CELL_2M:
		return display_attr(t, ATTR_2M);
	case FMT_CELL_4K:
		return display_attr(t, ATTR_4K);
	default:
		return display_attr(t, ATTR_UNMAPPED);
	}
}

static void draw_row(struct map *m, struct tui *t, const struct map_row *row, int y)
{
	const struct tui_data *d = t->data;
	const struct msc_region *g = &d->l.regions[row->region];
	size_t end = m->region_first[row->region] + display_cells(g, m->k);
	char line[256], size[32];

	if (row->first == SIZE_MAX) {
		fmt_bytes_4k(size, sizeof(size), g->gfn_end - g->gfn_first);
		char vm[32] = "";

		if (d->l.nr_vms > 1)
			snprintf(vm, sizeof(vm), "VM %" PRId64 ", ", g->vm);
		snprintf(line, sizeof(line), "region %" PRId64 ": %sas %u gfn %#" PRIx64 "-%#"
			 PRIx64 ", %s (%s)", g->id, vm, g->as_id, g->gfn_first, g->gfn_end - 1, size,
			 g->exact ? "memslot" : "inferred from the GFNs seen");
		draw_line(y, display_attr(t, ATTR_HEAD), line);
		return;
	}
	snprintf(line, sizeof(line), "%#*" PRIx64 " ", LABEL_COLS - 1, cell_gfn(m, d, row->first));
	mvaddstr(y, 0, line);
	for (size_t c = row->first; c < end && c < row->first + m->per_row; c++) {
		int attr = cell_attr(t, &m->cells[c]);

		if (c == m->sel)
			attr |= A_REVERSE | A_BOLD;
		attrset(attr);
		mvaddch(y, LABEL_COLS + (int)(c - row->first), (unsigned char)fmt_cell_char(&m->cells[c]));
	}
	attrset(A_NORMAL);
}

static void draw_totals(struct map *m, struct tui *t, int y)
{
	struct fmt_cell all = { 0 };
	unsigned int protected = 0;
	char line[512], n[6][32];

	for (size_t i = 0; i < m->nr_cells; i++) {
		const struct fmt_cell *c = &m->cells[i];

		all.cells += c->cells;
		all.n1g += c->n1g;
		all.n2m += c->n2m;
		all.nsplit += c->nsplit;
		if (c->nsplit && fmt_cell_protected(c))
			protected += c->nsplit;
	}
	fmt_count(n[0], sizeof(n[0]), all.n1g);
	fmt_count(n[1], sizeof(n[1]), all.n2m);
	fmt_count(n[2], sizeof(n[2]), all.nsplit);
	fmt_count(n[3], sizeof(n[3]), all.cells - all.n1g - all.n2m - all.nsplit);
	fmt_count(n[4], sizeof(n[4]), all.cells);
	fmt_count(n[5], sizeof(n[5]), protected);
	snprintf(line, sizeof(line), "2M regions: 1G %s  2M %s  split %s (%s protected)  "
		 "unmapped %s  of %s", n[0], n[1], n[2], n[5], n[3], n[4]);
	draw_line(y, A_NORMAL, line);
}

static void scroll_to_sel(struct map *m, int rows)
{
	size_t r = 0;

	while (r < m->nr_rows && !(m->rows[r].first != SIZE_MAX && m->sel >= m->rows[r].first &&
				   m->sel < m->rows[r].first + m->per_row))
		r++;
	if (r < m->scroll)
		m->scroll = r ? r - 1 : 0;	/* keep the region heading in view */
	else if (r >= m->scroll + (size_t)rows)
		m->scroll = r - (size_t)rows + 1;
	m->scroll = min(m->scroll, m->nr_rows > (size_t)rows ? m->nr_rows - (size_t)rows : 0);
}

static void map_draw(struct view *v, struct tui *t, int top, int lines)
{
	struct map *m = v->priv;
	struct tui_data *d = t->data;
	int avail = max(lines - FIXED_ROWS, 1), y = top;
	char line[512], when[32], size[32];

	if (!d->cells.loaded) {
		tui_data_load_cells(d, t->headless ? SIZE_MAX : LOAD_CHUNK);
		if (!d->cells.loaded) {
			snprintf(line, sizeof(line), "  loading the memory map: %.0f%% ...",
				 100 * tui_cells_progress(&d->cells));
			draw_line(top + 1, A_NORMAL, line);
			return;
		}
	}
	if ((m->cols != t->cols || m->avail != avail || m->gen != d->gen) && layout(m, t, avail)) {
		draw_line(top + 1, A_NORMAL, "  out of memory laying out the map");
		return;
	}
	if (!m->have_at || m->at != t->cursor || m->at_gen != d->gen)
		cells_at(m, t);
	fmt_time(when, sizeof(when), t->cursor - d->t_first);
	fmt_bytes_4k(size, sizeof(size), (uint64_t)m->k * 512);
	snprintf(line, sizeof(line), "Memory map at %s: 1 cell = %s%s  (s: scale, p: replay, "
		 "Enter: GFN)", when, size, m->two_meg ? ", scrolling" : "");
	draw_line(y++, display_attr(t, ATTR_HEAD), line);
	scroll_to_sel(m, avail);
	for (int r = 0; r < avail; r++) {
		if (m->scroll + (size_t)r < m->nr_rows)
			draw_row(m, t, &m->rows[m->scroll + (size_t)r], y);
		y++;
	}
	snprintf(line, sizeof(line), "%c 1G  %c 2M  %c 4K  0-9 tenths mapped 4K  %c unmapped  "
		 "%c %c %c write-protected", FMT_CH_1G, FMT_CH_2M, FMT_CH_4K, FMT_CH_UNMAPPED,
		 FMT_CH_1G_WP, FMT_CH_2M_WP, FMT_CH_4K_WP);
	draw_line(y++, A_NORMAL, line);
	if (m->nr_cells) {
		uint64_t g = cell_gfn(m, d, m->sel);
		char text[256];

		fmt_cell_text(text, sizeof(text) - 1, &m->cells[m->sel]);
		snprintf(line, sizeof(line), "cell %#" PRIx64 "-%#" PRIx64 ": %s", g,
			 g + (uint64_t)m->k * 512 - 1, text);
		draw_line(y, A_NORMAL, line);
	}
	y++;
	draw_totals(m, t, y++);
	draw_phase_strip(t, y++, "dirty", FMT_STRIP_DIRTY);
	draw_cursor_line(t, y);
}

static unsigned int map_handle(struct view *v, struct tui *t, enum msc_request req)
{
	struct map *m = v->priv;
	const struct tui_data *d = t->data;
	size_t page = m->per_row * (size_t)max(m->avail - 1, 1);

	if (!m->nr_cells && req != REQ_MAP_SCALE)
		return IGNORED;
	switch (req) {
	case REQ_MOVE_LEFT:
		m->sel -= m->sel ? 1 : 0;
		break;
	case REQ_MOVE_RIGHT:
		m->sel = min(m->sel + 1, m->nr_cells - 1);
		break;
	case REQ_MOVE_UP:
		m->sel -= min(m->sel, (size_t)m->per_row);
		break;
	case REQ_MOVE_DOWN:
		m->sel = min(m->sel + m->per_row, m->nr_cells - 1);
		break;
	case REQ_PAGE_UP:
		m->sel -= min(m->sel, page);
		break;
	case REQ_PAGE_DOWN:
		m->sel = min(m->sel + page, m->nr_cells - 1);
		break;
	case REQ_MAP_SCALE:
		m->two_meg = !m->two_meg;
		m->cols = 0;		/* lay out again */
		m->sel = 0;
		m->scroll = 0;
		break;
	case REQ_ENTER:
		const struct msc_region *g = &d->l.regions[region_of(m, d, m->sel)];

		tui_open_gfn(t, g->vm, g->as_id, cell_gfn(m, d, m->sel));
		break;
	default:
		return IGNORED;
	}
	return HANDLED | REDRAW;
}

static void map_close(struct view *v)
{
	struct map *m = v->priv;

	free(m->rows);
	free(m->region_first);
	free(m->cells);
	m->rows = NULL;
	m->region_first = NULL;
	m->cells = NULL;
}

const struct view_ops map_ops = {
	.name = "map",
	.private_size = sizeof(struct map),
	.draw = map_draw,
	.handle = map_handle,
	.close = map_close,
};
