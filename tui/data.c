// SPDX-License-Identifier: GPL-2.0-only
/*
 * The TUI's data (see data.h): open a database, pick direct or follow mode
 * once its capture exists, keep the lists the screens show, and move them
 * forward at each poll.
 */
#include "data.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "follow.h"
#include "format.h"
#include "mmuscope/error.h"
#include "mmuscope/util.h"

/**
 * tui_lists_load - read the phases, regions, KVM's counters, VMs and (with
 *	@lost) the lost-event marks of an analysis
 *
 * Returns 0 or a negative error; @l holds what was read either way and is
 * freed with tui_lists_free().
 */
int tui_lists_load(struct tui_lists *l, struct msc_hview *v, bool lost)
{
	int r = msc_hview_phases(v, &l->phases, &l->nr_phases);

	if (!r)
		r = msc_hview_regions(v, &l->regions, &l->nr_regions);
	if (!r)
		r = msc_hview_kvm_stats(v, &l->stats, &l->nr_stats);
	if (!r)
		r = msc_hview_vms(v, &l->vms, &l->nr_vms);
	if (!r && lost)
		r = msc_hview_lost_marks(v, &l->lost, &l->nr_lost);
	return r;
}

void tui_lists_free(struct tui_lists *l)
{
	free(l->phases);
	free(l->regions);
	free(l->lost);
	free(l->stats);
	free(l->vms);
	free(l->tasks);
	memset(l, 0, sizeof(*l));
}

/* The capture to show: --capture, or the last one. */
static int read_capture(struct tui_data *d)
{
	struct msc_capture_row *rows;
	size_t nr;
	int r = msc_store_get_captures(d->src, &rows, &nr);

	if (r)
		return r;
	for (size_t i = 0; i < nr; i++) {
		if (d->want_capture > 0 ? rows[i].id == d->want_capture : i == nr - 1) {
			d->cap = rows[i];
			d->have_cap = true;
		}
	}
	free(rows);
	if (!d->have_cap && d->want_capture > 0)
		return -ENOENT;
	return 0;
}

/* Follow mode: the lost-event marks come from the stream the follower read. */
static int copy_lost(struct tui_data *d)
{
	size_t nr;
	const struct msc_lost_mark *lost = tui_follow_lost(d->follow, &nr);

	free(d->l.lost);
	d->l.lost = nr ? malloc(nr * sizeof(*lost)) : NULL;
	d->l.nr_lost = d->l.lost ? nr : 0;
	if (nr && !d->l.lost)
		return -ENOMEM;
	if (nr)
		memcpy(d->l.lost, lost, nr * sizeof(*lost));
	return 0;
}

/*
 * (Re)open the hview and reload the lists.  The hview learns its address
 * spaces when it opens, so it is reopened whenever the analysis moved.
 */
static int reload(struct tui_data *d)
{
	int r;

	msc_hview_close(d->v);
	d->v = NULL;
	tui_lists_free(&d->l);
	r = msc_hview_open(d->vs, d->vcap, &d->v);
	if (!r && !d->follow)
		r = msc_hview_summary(d->v, &d->sum);
	if (!r)
		r = tui_lists_load(&d->l, d->v, !d->follow);
	if (!r)		/* for the overview's 'c' (the pictures need no tasks) */
		r = msc_hview_tasks(d->v, &d->l.tasks, &d->l.nr_tasks);
	if (!r && d->follow)
		r = copy_lost(d);
	return r;
}

static void set_state(struct tui_data *d)
{
	char a[32], b[32];

	if (!d->have_cap) {
		snprintf(d->state, sizeof(d->state), "waiting for the first events");
	} else if (d->follow) {
		bool caught_up = tui_follow_caught_up(d->follow, &d->cap);

		fmt_count(a, sizeof(a), d->sum.events);
		fmt_count(b, sizeof(b), d->cap.stored);
		if (!caught_up)
			snprintf(d->state, sizeof(d->state), "analyzing %s of %s events", a, b);
		else
			snprintf(d->state, sizeof(d->state), "%s %s events", d->cap.complete ?
				 "analyzed" : "live:", a);
	} else {
		snprintf(d->state, sizeof(d->state), "%s", d->cap.complete ? "analyzed" :
			 "capture incomplete: still being written, or cut short");
	}
}

/**
 * tui_data_open - open a database for the TUI
 * @path: the database (opened read-only)
 * @capture_id: the capture, <= 0: the last
 * @side_path: the file follow mode may create (0600) for its analysis
 *
 * A database with no capture yet is fine (top starts before the recorder
 * stored anything): tui_data_poll() picks the capture up when it appears.
 * Returns 0 or a negative error.
 */
int tui_data_open(struct tui_data *d, const char *path, int64_t capture_id,
		  const char *side_path)
{
	int r;

	memset(d, 0, sizeof(*d));
	snprintf(d->path, sizeof(d->path), "%s", path);
	snprintf(d->side_path, sizeof(d->side_path), "%s", side_path ? side_path : "");
	d->want_capture = capture_id;
	d->sum.last_seq = -1;
	tui_cells_init(&d->cells);
	r = msc_store_open(path, MSC_STORE_READONLY, &d->src);
	if (!r)
		r = tui_data_poll(d, 0);
	if (r < 0) {
		tui_data_close(d);
		return r;
	}
	return 0;
}

void tui_data_close(struct tui_data *d)
{
	msc_hview_close(d->v);
	tui_follow_close(d->follow);
	msc_store_close(d->src);
	tui_lists_free(&d->l);
	tui_cells_free(&d->cells);
	memset(d, 0, sizeof(*d));
}

/* First sight of the capture: read what is analyzed, or follow it. */
static int choose_mode(struct tui_data *d)
{
	int r = msc_hview_open(d->src, d->cap.id, &d->v);

	if (!r) {
		msc_hview_close(d->v);
		d->v = NULL;
		d->vs = d->src;
		d->vcap = d->cap.id;
		return reload(d);
	}
	if (r != -ENOENT)
		return r;
	if (!d->side_path[0])
		return -ENOENT;
	r = tui_follow_open(d->src, &d->cap, d->side_path, &d->follow);
	if (r)
		return r;
	d->vs = tui_follow_store(d->follow);
	d->vcap = tui_follow_capture(d->follow);
	return 0;
}

static int poll_follow(struct tui_data *d, unsigned int budget_ms, bool *changed)
{
	int64_t before = d->sum.last_seq;
	bool checkpoint;
	int r = tui_follow_step(d->follow, &d->cap, budget_ms, &checkpoint);

	if (r)
		return r;
	tui_follow_summary(d->follow, &d->sum);
	*changed |= d->sum.last_seq != before;
	if (checkpoint) {
		*changed = true;
		r = reload(d);
	}
	return r;
}

static int poll_direct(struct tui_data *d, bool *changed)
{
	struct msc_history_summary s;
	int r = msc_hview_summary(d->v, &s);

	if (r || s.last_seq < -1 || s.last_seq == d->sum.last_seq)
		return r;	/* unchanged, or an analysis is running right now */
	if (s.last_seq < d->sum.last_seq)
		tui_cells_free(&d->cells);	/* analyzed again from scratch */
	*changed = true;
	return reload(d);
}

/**
 * tui_data_poll - catch up with the database
 * @budget_ms: how long follow mode may analyze in this call
 *
 * Returns 1 when what the screens show may have changed, 0 when not, or a
 * negative error.
 */
int tui_data_poll(struct tui_data *d, unsigned int budget_ms)
{
	bool had = d->have_cap, changed = false;
	int r = read_capture(d);

	if (!r && d->have_cap && !had)
		r = choose_mode(d);
	if (!r && d->have_cap)
		r = d->follow ? poll_follow(d, budget_ms, &changed) : poll_direct(d, &changed);
	if (!r && d->want_cells && d->v && d->cells.loaded) {
		uint64_t rows = d->cells.rows;

		r = tui_cells_load(&d->cells, d->vs, d->vcap, SIZE_MAX);
		changed |= d->cells.rows != rows;
	}
	if (r)
		return r;
	if (d->sum.events) {
		d->t_first = d->sum.first_ts;
		d->t_last = max(d->sum.last_ts, d->sum.first_ts + 1);
	}
	d->live = d->have_cap && (!d->cap.complete ||
				  (d->follow && !tui_follow_caught_up(d->follow, &d->cap)));
	set_state(d);
	if (changed)
		d->gen++;
	return changed;
}

/** tui_data_working - work is pending that the next calls can do right away */
bool tui_data_working(const struct tui_data *d)
{
	if (d->follow && !tui_follow_caught_up(d->follow, &d->cap))
		return true;
	return d->want_cells && d->v && !d->cells.loaded;
}

/** tui_data_idle - a capture is shown and nothing is left to do until it grows */
bool tui_data_idle(const struct tui_data *d)
{
	return d->have_cap && !tui_data_working(d);
}

/**
 * tui_data_load_cells - read more of the memory map (up to @max_rows rows)
 *
 * Returns 1 when rows were added, 0 when not, or a negative error.
 */
int tui_data_load_cells(struct tui_data *d, size_t max_rows)
{
	uint64_t rows = d->cells.rows;
	int r;

	d->want_cells = true;
	if (!d->v || d->cells.loaded)
		return 0;
	r = tui_cells_load(&d->cells, d->vs, d->vcap, max_rows);
	if (r)
		return r;
	if (d->cells.rows == rows && !d->cells.loaded)
		return 0;
	d->gen++;
	return 1;
}

/**
 * tui_data_phase_at - the phase running at @ts that started last
 * @dirty_only: only dirty-log phases (enable, harvest, disable, re-promotion)
 *
 * Returns NULL when none runs then.
 */
const struct msc_phase *tui_data_phase_at(const struct tui_data *d, uint64_t ts, bool dirty_only)
{
	const struct msc_phase *best = NULL;

	for (size_t i = 0; i < d->l.nr_phases; i++) {
		const struct msc_phase *p = &d->l.phases[i];

		if (dirty_only && !msc_phase_is_dirty_log(p->kind))
			continue;
		if (p->start_ts <= ts && ts <= p->end_ts && (!best || p->start_ts >= best->start_ts))
			best = p;
	}
	return best;
}

/**
 * tui_data_stats_before - KVM's counters at the last stats marker at or
 *	before @ts, of VM @vm (0: of any)
 */
const struct msc_kvm_stats *tui_data_stats_before(const struct tui_data *d, uint64_t ts,
						  int64_t vm)
{
	const struct msc_kvm_stats *best = NULL;

	for (size_t i = 0; i < d->l.nr_stats; i++)
		if (d->l.stats[i].ts <= ts && (!vm || d->l.stats[i].vm == vm))
			best = &d->l.stats[i];
	return best;
}

/** tui_data_vm_id - the id of the VM the TUI shows alone (tui.vm), 0: all */
int64_t tui_data_vm_id(const struct tui_data *d, int vm)
{
	return vm > 0 && (size_t)vm <= d->l.nr_vms ? d->l.vms[vm - 1].id : 0;
}

/** tui_data_task - the task @pid of the analysis' list, or NULL */
const struct msc_task *tui_data_task(const struct tui_data *d, int32_t pid)
{
	for (size_t i = 0; i < d->l.nr_tasks; i++)
		if (d->l.tasks[i].pid == pid)
			return &d->l.tasks[i];
	return NULL;
}

/** tui_data_lost_before - lost-event marks at or before @ts, and the events they count */
unsigned int tui_data_lost_before(const struct tui_data *d, uint64_t ts, uint64_t *ret_events)
{
	unsigned int n = 0;

	*ret_events = 0;
	for (size_t i = 0; i < d->l.nr_lost; i++) {
		if (d->l.lost[i].ts > ts)
			continue;
		n++;
		*ret_events += d->l.lost[i].count;
	}
	return n;
}
