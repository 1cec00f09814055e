// SPDX-License-Identifier: GPL-2.0-only
/*
 * The main loop (docs/TUI.md, "The main loop"): catch up with the data, draw what changed
 * with one doupdate(), wait for a key (or a timer tick: live data, replay,
 * loading), turn it into a request, dispatch.
 */
#include <curses.h>
#include <errno.h>

#include "cli/cli.h"
#include "recorder.h"
#include "tui.h"
#include "mmuscope/error.h"
#include "mmuscope/util.h"

#define POLL_IDLE_S 1.0		/* a finished capture is checked this often */
#define FOLLOW_BUDGET_MS 100	/* analysis per turn while behind */
#define TICK_MS 100		/* live poll and replay step */

/* Live work pending: poll often, never block on the keyboard. */
static bool busy(const struct tui *t)
{
	return t->playing || t->data->live || !tui_data_idle(t->data) ||
	       (t->rec && t->rec->running);
}

/* How long to wait for a key: not at all while catching up (each turn's
 * work is bounded), a tick while live or replaying, else a second. */
static int key_timeout(const struct tui *t)
{
	if (tui_data_working(t->data))
		return 0;
	return busy(t) ? TICK_MS : (int)(POLL_IDLE_S * 1000);
}

static void catch_up(struct tui *t)
{
	char last[256];
	int r;

	if (t->rec && recorder_poll(t->rec)) {
		recorder_last_line(t->rec, last, sizeof(last));
		if (t->rec->failed)
			tui_message(t, "the recorder stopped: %s", last[0] ? last : "failed");
		else
			tui_message(t, "recording ended; the capture stays on screen (q quits)");
	}
	r = tui_data_poll(t->data, busy(t) ? FOLLOW_BUDGET_MS : 0);
	if (r < 0)
		tui_message(t, "%s: %s", t->title, msc_strerror(r));
	tui_time_sync(t);
}

static void bench_step(struct tui *t, enum msc_request req, double start)
{
	struct tui_bench *b = &t->bench;

	if (b->on && b->nr < TUI_BENCH_MAX)
		b->step[b->nr++] = (struct tui_bench_step){ .req = req, .view = t->cur,
							    .s = msc_mono_s() - start };
}

/** tui_run - run the TUI until quit, the end of a script, or a signal */
int tui_run(struct tui *t)
{
	double last_poll = 0, pending = 0;
	enum msc_request req = REQ_NONE;

	for (;;) {
		int key;

		if (cli_stop || (t->rec && t->rec->failed && !t->data->have_cap))
			break;
		if (busy(t) || msc_mono_s() - last_poll >= POLL_IDLE_S) {
			catch_up(t);
			last_poll = msc_mono_s();
		}
		if (t->dirty || t->drawn_gen != t->data->gen) {
			frame_draw(t);
			doupdate();
			if (!t->bench.first_screen && t->data->v)
				t->bench.first_screen = msc_mono_s() - t->bench.start;
			if (pending)
				bench_step(t, req, pending);
			pending = 0;
		}
		key = input_read(t, key_timeout(t));
		if (key == INPUT_END)
			break;
		if (key == INPUT_TIMER) {
			tui_tick(t);
			continue;
		}
		if (key == KEY_RESIZE) {
			display_resize(t, 0, 0);
			continue;
		}
		pending = msc_mono_s();
		if (t->prompting) {
			tui_prompt_key(t, key);
			continue;
		}
		req = keymap_lookup(key);
		if (view_dispatch(t, req) & QUIT)
			break;
	}
	return t->script_failed ? -EINVAL : 0;
}
