// SPDX-License-Identifier: GPL-2.0-only
/*
 * The time cursor every screen shares, and the window around it: set it,
 * show a span, zoom, keep both inside the data as it grows (following the
 * present, live), and replay a phase one timer tick at a time.
 *
 * Invariant, after every function here (once the data has a first event):
 * the window [win0, win1] and the cursor lie inside [t_first, t_last]; a
 * cursor set outside the window takes the window along.  It calls only
 * down (draw.c's status message, format.c, the data), so the views and
 * the requests above may move the cursor freely.
 */
#include <stdio.h>

#include "format.h"
#include "tui.h"
#include "mmuscope/util.h"

#define PLAY_STEPS 40		/* a replay takes this many timer ticks */
#define MIN_STEP_NS 10		/* zooming in stops at 10 ns per column */

/** tui_time_step - how far one cursor step moves: one chart column */
uint64_t tui_time_step(const struct tui *t)
{
	return max((t->win1 - t->win0) / (tui_chart_cols(t->cols) - 1), (uint64_t)1);
}

/** tui_show_window - show [@t0, @t1] (clamped to the data); the cursor stays */
void tui_show_window(struct tui *t, uint64_t t0, uint64_t t1)
{
	const struct tui_data *d = t->data;
	uint64_t w = t1 - min(t0, t1), extent = d->t_last - d->t_first;
	uint64_t min_w = (uint64_t)MIN_STEP_NS * tui_chart_cols(t->cols);

	w = max(w, min_w);
	if (w >= extent) {
		t->win0 = d->t_first;
		t->win1 = d->t_last;
		t->zoomed = false;
		return;
	}
	t0 = max(t0, d->t_first);
	t0 = min(t0, d->t_last - w);
	t->win0 = t0;
	t->win1 = t0 + w;
	t->zoomed = true;
	t->dirty = true;
}

/**
 * tui_set_cursor - move the time cursor to @ts (clamped to the data)
 * @follow: live: keep following the present from now on
 *
 * A cursor that leaves the window takes the window along, centred on it.
 */
void tui_set_cursor(struct tui *t, uint64_t ts, bool follow)
{
	const struct tui_data *d = t->data;
	uint64_t w = t->win1 - t->win0;

	ts = max(ts, d->t_first);
	ts = min(ts, d->t_last);
	t->cursor = ts;
	t->follow = follow && d->live;
	if (ts < t->win0 || ts > t->win1)
		tui_show_window(t, ts - min(ts, w / 2), ts - min(ts, w / 2) + w);
	t->dirty = true;
}

/* Where the cursor starts: the first dirty-log phase, else the end. */
static uint64_t first_cursor(const struct tui *t)
{
	const struct tui_data *d = t->data;

	if (d->live)
		return d->t_last;
	for (size_t i = 0; i < d->l.nr_phases; i++)
		if (msc_phase_is_dirty_log(d->l.phases[i].kind))
			return d->l.phases[i].start_ts;
	return d->t_last;
}

/**
 * tui_time_sync - keep window and cursor inside the data after it moved
 *
 * Following, the window slides to the present; not zoomed, it spans
 * everything.
 */
void tui_time_sync(struct tui *t)
{
	const struct tui_data *d = t->data;
	uint64_t w = t->win1 - t->win0;

	if (!d->t_last)
		return;
	if (!t->win1) {
		t->win0 = d->t_first;
		t->win1 = d->t_last;
		t->follow = d->live;
		t->cursor = first_cursor(t);
		return;
	}
	if (!t->zoomed) {
		t->win0 = d->t_first;
		t->win1 = d->t_last;
	} else if (t->follow) {
		tui_show_window(t, d->t_last - min(w, d->t_last), d->t_last);
	}
	if (t->follow)
		t->cursor = d->t_last;
	t->cursor = min(max(t->cursor, d->t_first), d->t_last);
	if (!d->live)
		t->follow = false;
}

/** tui_zoom - halve (@in) or double the window, around the cursor */
void tui_zoom(struct tui *t, bool in)
{
	uint64_t w = t->win1 - t->win0;

	w = in ? w / 2 : w * 2;
	tui_show_window(t, t->cursor - min(t->cursor, w / 2), t->cursor - min(t->cursor, w / 2) + w);
	t->dirty = true;
}

/**
 * tui_play - replay the dirty-log phase at (or after) the cursor, one step
 *	per tick; again: stop
 */
void tui_play(struct tui *t)
{
	const struct tui_data *d = t->data;
	const struct msc_phase *p = tui_data_phase_at(d, t->cursor, true);
	char label[128];
	uint64_t dur;

	if (t->playing) {
		t->playing = false;
		tui_message(t, "replay stopped");
		return;
	}
	for (size_t i = 0; !p && i < d->l.nr_phases; i++)
		if (msc_phase_is_dirty_log(d->l.phases[i].kind) && d->l.phases[i].start_ts > t->cursor)
			p = &d->l.phases[i];
	if (!p)
		p = tui_data_phase_at(d, t->cursor, false);
	if (!p) {
		tui_message(t, "no phase at or after the cursor to replay");
		return;
	}
	dur = max(p->end_ts - p->start_ts, (uint64_t)1);
	tui_show_window(t, p->start_ts - min(p->start_ts, dur / 10), p->end_ts + dur / 10);
	t->cursor = p->start_ts;
	t->follow = false;
	t->play_end = p->end_ts;
	t->play_step = max(dur / PLAY_STEPS, (uint64_t)1);
	t->playing = true;
	tui_message(t, "replaying phase %s: p stops", fmt_phase_label(label, sizeof(label), p));
}

/** tui_tick - a timer tick: a replay moves one step */
void tui_tick(struct tui *t)
{
	if (!t->playing)
		return;
	t->cursor = min(t->cursor + t->play_step, t->play_end);
	if (t->cursor >= t->play_end) {
		t->playing = false;
		tui_message(t, "replay done");
	}
	t->dirty = true;
}
