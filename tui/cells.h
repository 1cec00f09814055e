/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The memory map's data: every 2M cell's states over time, kept in memory
 * so that "the cells at T" costs a binary search per cell (a scrub step on
 * a 96 GiB guest is 49,152 of them, well under a millisecond each 1,000).
 *
 * Filled from the region_state rows of the analysis, read in chunks
 * (tui_cells_load(); the TUI reads a chunk per idle turn so the screen
 * never freezes) and followed while the analysis grows.  A cell is keyed by
 * (VM, as_id, 2M-aligned gfn) in an open-addressing hash; each cell's states
 * are sorted by time.  No curses, no SQL (the rows come through
 * history.h, msc_cell_states()).
 */
#ifndef MSC_TUI_CELLS_H
#define MSC_TUI_CELLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmuscope/history.h"

struct msc_cell_state;
struct msc_store;

struct cell_entry;
struct cell_line;

struct tui_cells {
	struct cell_line *lines;	/* hash of cells, @cap slots */
	size_t cap, nr;			/* slots, cells used */
	uint64_t rows;			/* states kept */
	int64_t pos;			/* region_state rows read up to here */
	int64_t end;			/* ... of this many when last asked */
	bool loaded;			/* everything written so far is read */
};

void tui_cells_init(struct tui_cells *c);
void tui_cells_free(struct tui_cells *c);
int tui_cells_add(struct tui_cells *c, const struct msc_cell_state *rows, size_t nr);
int tui_cells_load(struct tui_cells *c, struct msc_store *s, int64_t capture_id, size_t max_rows);
double tui_cells_progress(const struct tui_cells *c);
void tui_cells_at(const struct tui_cells *c, int64_t vm, uint8_t as_id, uint64_t gfn,
		  uint64_t ts, struct msc_region_cell *ret);

struct fmt_cell;
uint64_t tui_region_cells(const struct msc_region *g, unsigned int k);
void tui_cells_region(const struct tui_cells *c, const struct msc_region *g, unsigned int k,
		      uint64_t ts, struct fmt_cell *ret);

#endif /* MSC_TUI_CELLS_H */
