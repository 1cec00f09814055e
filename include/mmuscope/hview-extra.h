/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Read helpers the TUI needs beside history.h (lib/store-tui.c).
 *
 * Memory map: asking region_state for each 2M cell costs two index lookups
 * per cell, so redrawing a 96 GiB guest (49,152 cells) at every scrub step
 * would take far longer than a frame.  Instead the TUI reads the
 * region_state rows of a capture once, in chunks (in the order written,
 * which is time order per cell; a resumed analysis reads them so too), and
 * answers "the cells at T" from memory; a capture that is still being
 * analyzed is followed by asking only for rows after the last one read.
 *
 * No SQL leaves lib/store*.c; arrays returned are the caller's.
 */
#ifndef MSC_HVIEW_EXTRA_H
#define MSC_HVIEW_EXTRA_H

#include <stddef.h>
#include <stdint.h>

struct msc_store;

/* One region_state row: the state of a 2M cell from @ts on. */
struct msc_cell_state {
	uint64_t ts;
	uint64_t gfn;			/* 2M aligned */
	int64_t vm;
	uint8_t as_id;
	uint8_t kind;			/* enum msc_region_kind */
	uint16_t mapped;		/* 4K pages mapped (512 for a huge leaf) */
	uint16_t writable;		/* of those, writable */
};

/* The least room msc_cell_states() takes: a run's rows (schema 15). */
#define MSC_CELL_STATES_MIN 128

int msc_cell_states(struct msc_store *s, int64_t capture_id, int64_t *io_pos,
		    struct msc_cell_state *rows, size_t max, size_t *ret_nr);
int msc_cell_states_end(struct msc_store *s, int64_t *ret_pos);

#endif /* MSC_HVIEW_EXTRA_H */
