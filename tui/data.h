/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the TUI shows, and where it comes from: one capture of a database,
 * read through the analyzer's msc_hview (history.h) and the TUI's helpers
 * (history.h).  No curses here.
 *
 * Two ways in, chosen at open and kept:
 *  - direct: the capture is analyzed (import, analyze); the hview reads
 *    the database itself.  A capture that grows (someone appends and
 *    analyzes) is picked up by tui_data_poll().
 *  - follow: nobody analyzes it (`mmuscope record`, `top`, import
 *    --no-analyze); follow.c analyzes the new events into a side store at
 *    each poll and the hview reads that.
 *
 * The lists (phases, regions, lost marks, KVM's counters) are cached and
 * reloaded when the analysis moves; @gen counts the changes so views know
 * when to recompute.  Lost events are never hidden: they come from the
 * analysis, or in follow mode from the stream itself.
 */
#ifndef MSC_TUI_DATA_H
#define MSC_TUI_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cells.h"
#include "mmuscope/history.h"
#include "mmuscope/store.h"

struct tui_follow;

/* What an analysis lists, as the screens and the pictures use it. */
struct tui_lists {
	struct msc_phase *phases;
	size_t nr_phases;
	struct msc_region *regions;
	size_t nr_regions;
	struct msc_lost_mark *lost;
	size_t nr_lost;
	struct msc_kvm_stats *stats;	/* KVM's counters at stats markers */
	size_t nr_stats;
	struct msc_vm *vms;		/* the VMs, one after the other */
	size_t nr_vms;
	struct msc_task *tasks;		/* the tasks that did anything, vCPUs first (TUI only) */
	size_t nr_tasks;
};

int tui_lists_load(struct tui_lists *l, struct msc_hview *v, bool lost);
void tui_lists_free(struct tui_lists *l);

struct tui_data {
	char path[4096];		/* the database */
	int64_t want_capture;		/* --capture, <= 0: the last */
	char side_path[4096];		/* follow mode: the side store to create */
	struct msc_store *src;		/* the database, read-only */
	struct msc_capture_row cap;	/* its row, as of the last poll */
	bool have_cap;			/* a capture row exists */
	struct tui_follow *follow;	/* NULL: direct mode */
	struct msc_store *vs;		/* where the hview reads: src or the side store */
	int64_t vcap;			/* the capture id there */
	struct msc_hview *v;		/* NULL until there is an analysis to read */
	struct msc_history_summary sum;
	uint64_t t_first, t_last;	/* time extent of what is analyzed */

	struct tui_lists l;		/* lost marks: follow mode's own */
	struct tui_cells cells;		/* memory map, loaded on demand */
	bool want_cells;		/* a view asked for the memory map */

	unsigned long gen;		/* bumped whenever anything shown may change */
	bool live;			/* the capture is still being written */
	char state[160];		/* one line: how the data is read right now */
};

int tui_data_open(struct tui_data *d, const char *path, int64_t capture_id,
		  const char *side_path);
void tui_data_close(struct tui_data *d);
int tui_data_poll(struct tui_data *d, unsigned int budget_ms);
bool tui_data_working(const struct tui_data *d);
bool tui_data_idle(const struct tui_data *d);
int tui_data_load_cells(struct tui_data *d, size_t max_rows);
const struct msc_phase *tui_data_phase_at(const struct tui_data *d, uint64_t ts, bool dirty_only);
const struct msc_kvm_stats *tui_data_stats_before(const struct tui_data *d, uint64_t ts,
						  int64_t vm);
int64_t tui_data_vm_id(const struct tui_data *d, int vm);
const struct msc_task *tui_data_task(const struct tui_data *d, int32_t pid);
unsigned int tui_data_lost_before(const struct tui_data *d, uint64_t ts, uint64_t *ret_events);

#endif /* MSC_TUI_DATA_H */
