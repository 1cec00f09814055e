/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The TUI of `mmuscope view DB` and `mmuscope top` (tig's shape, htop's
 * flags; docs/TUI.md, "The main loop").
 *
 * Keys are translated to requests (enum msc_request, an X-macro that also
 * gives each request its name and help text) by the keymap of input.c;
 * the current view handles a request first, then the generic handler
 * (screens, time cursor, quit).  Handlers return enum handler_result
 * flags.  All UI state lives in one struct tui passed explicitly: no
 * globals.
 *
 * The time cursor is shared by every screen: @cursor inside the visible
 * window [win0, win1], which lies inside the data's extent.  Live, the
 * window and cursor follow the present (@follow) until the user moves the
 * cursor back; End follows again.
 */
#ifndef MSC_TUI_H
#define MSC_TUI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "data.h"
#include "format.h"

/* X(enum suffix, name, help text) */
#define MSC_REQUESTS(X)                                                        \
	X(NONE, "none", "")                                                    \
	X(QUIT, "quit", "quit (top: stops the recorder, keeps -o DB)")         \
	X(HELP, "help", "this help: every key, then the legend of the screens")                      \
	X(NEXT_VIEW, "next-view", "next screen")                               \
	X(PREV_VIEW, "prev-view", "previous screen")                           \
	X(VIEW_OVERVIEW, "view-overview", "overview: coverage over time, rates") \
	X(VIEW_MAP, "view-map", "memory map at the cursor time")               \
	X(VIEW_PHASES, "view-phases", "dirty-log phases and their costs")      \
	X(VIEW_GFN, "view-gfn", "GFN inspector: one GFN's history")            \
	X(TIME_BACK, "time-back", "time cursor one step back (stops following)") \
	X(TIME_FORWARD, "time-forward", "time cursor one step forward")        \
	X(TIME_START, "time-start", "time cursor to the start")                \
	X(TIME_END, "time-end", "time cursor to the end; live: follow the present") \
	X(ZOOM_IN, "zoom-in", "zoom the time window in around the cursor")     \
	X(ZOOM_OUT, "zoom-out", "zoom the time window out")                    \
	X(PHASE_PREV, "phase-prev", "time cursor to the previous phase start") \
	X(PHASE_NEXT, "phase-next", "time cursor to the next phase start")     \
	X(MOVE_UP, "move-up", "select the row above (map: cell row above)")    \
	X(MOVE_DOWN, "move-down", "select the row below (map: cell row below)") \
	X(MOVE_LEFT, "move-left", "map: select the cell to the left")          \
	X(MOVE_RIGHT, "move-right", "map: select the cell to the right")       \
	X(PAGE_UP, "page-up", "one page up")                                   \
	X(PAGE_DOWN, "page-down", "one page down")                             \
	X(ENTER, "enter", "open: phase -> cursor there, cell -> GFN inspector, interval -> cursor") \
	X(GOTO_GFN, "goto-gfn", "type a GFN (hex) to inspect")                 \
	X(JUMP, "jump", "jump: 163.9 (ms since the start; 1.5s, 250us too), @8.666661 (trace-cmd's clock, s; or ns), phase name, #id, gfn N") \
	X(JUMP_AGAIN, "jump-again", "next phase the last jump's name matches")  \
	X(NEXT_VM, "next-vm", "the next VM's lifetime and own census (after the last: all)") \
	X(NEXT_TASK, "next-task", "counts of the next task only, vCPUs first (after the last: all)") \
	X(PLAY, "play", "replay the dirty-log phase at the cursor (again: stop)")   \
	X(MAP_SCALE, "map-scale", "map: 2M cells (scroll) / scale to fit")     \
	X(REDRAW, "redraw", "redraw the screen")

enum msc_request {
#define X(name, str, help) REQ_##name,
	MSC_REQUESTS(X)
#undef X
	REQ_NR,
};

/* What a handler did (htop's HandlerResult). */
enum handler_result {
	HANDLED = 1 << 0,
	IGNORED = 1 << 1,
	REDRAW = 1 << 2,		/* the screen must be drawn again */
	QUIT = 1 << 3,
};

enum tui_view_id {
	VIEW_OVERVIEW,
	VIEW_MAP,
	VIEW_PHASES,
	VIEW_GFN,
	VIEW_NR,
};

struct screen;
struct tui;
struct tui_recorder;
struct view;

/* One screen; a const instance per view file, designated initializers. */
struct view_ops {
	const char *name;		/* title bar */
	size_t private_size;		/* zeroed state, v->priv */
	int (*open)(struct view *v, struct tui *t);
	void (*draw)(struct view *v, struct tui *t, int top, int lines);
	unsigned int (*handle)(struct view *v, struct tui *t, enum msc_request req);
	void (*close)(struct view *v);
};

struct view {
	const struct view_ops *ops;
	void *priv;
	bool opened;
};

extern const struct view_ops overview_ops, map_ops, phases_ops, gfn_ops;

/* Where keys come from: the terminal, or a script (tests, bench). */
struct tui_input {
	FILE *script;			/* NULL: the terminal */
	char line[512];			/* the script line being typed */
	size_t pos;
	unsigned int line_no;
	unsigned int ticks;		/* :wait N timer ticks still to give */
	bool wait_idle;			/* :wait-idle: until the data is caught up */
	bool wait_complete;		/* :wait-complete: ... and the capture complete */
	double wait_deadline;
	double sleep_until;		/* :sleep: monotonic s */
	bool ended;
};

/* Timings for `make bench` (--bench): where the time of a scripted run went. */
#define TUI_BENCH_MAX 4096
struct tui_bench_step {
	enum msc_request req;
	enum tui_view_id view;
	double s;			/* request handled + screen redrawn */
};

struct tui_bench {
	bool on;
	double start;			/* process start (before opening the db) */
	double first_screen;		/* s until the first full screen was out */
	unsigned int nr;
	struct tui_bench_step step[TUI_BENCH_MAX];
};

struct tui {
	const char *title;		/* the database, as given */
	struct tui_data *data;

	/* time */
	uint64_t win0, win1;		/* visible window, absolute ns */
	uint64_t cursor;
	bool follow;			/* live: window and cursor follow the present */
	bool zoomed;			/* the window is narrower than the extent */

	/* screens */
	struct view views[VIEW_NR];
	enum tui_view_id cur;
	enum tui_view_id last_time_view;	/* overview or map: where Enter goes */
	bool help;
	int help_scroll;
	bool dirty;			/* draw the screen on the next turn */
	unsigned long drawn_gen;	/* data generation last drawn */

	/* the GFN inspector's target */
	bool gfn_set;
	uint8_t gfn_as;
	int64_t gfn_vm;			/* ... of this VM; 0: any */
	uint64_t gfn;

	/* the prompt: a GFN ('g'), or where to jump ('/': a time, a phase, a GFN) */
	bool prompting;
	bool prompt_jump;
	char prompt[64];
	size_t prompt_len;
	char last_jump[64];		/* what 'n' searches again */
	int vm;				/* the VM whose lifetime the window shows: index + 1, 0 all */
	bool task_set;			/* the overview counts one task's events: */
	int32_t task_pid;		/* ... this one's (kept while the list grows) */

	/* replaying a phase on the map */
	bool playing;
	uint64_t play_end, play_step;

	/* display */
	bool headless;			/* newterm on /dev/null (tests) */
	bool no_color;			/* --no-color */
	bool color;			/* colours in use */
	bool curses;			/* curses started */
	struct screen *screen;		/* headless: newterm()'s SCREEN */
	FILE *null_out, *null_in;	/* headless: /dev/null */
	int lines, cols;
	const char *screen_dir;		/* where :save-screen writes */
	char message[160];		/* one-line status message, "" none */

	struct tui_recorder *rec;	/* top: the recorder child; NULL for view */
	bool script_failed;		/* a script line could not be run */

	struct tui_input in;
	struct tui_bench bench;
};

/* Smallest screen the views are laid out for. */
#define TUI_MIN_COLS 60
#define TUI_MIN_LINES 16
#define TUI_GUTTER 9			/* left column of charts and strips: labels */

/*
 * The files of the TUI by floor, from the top; each calls only the floors
 * under it (docs/ARCHITECTURE.md, scripts/check-layering.sh):
 *
 *	main.c, loop.c			the program; the main loop drives the rest
 *	view.c				the table of views; a request's dispatch
 *	frame.c, view-*.c, jump.c	the whole screen; one screen each; where
 *					the cursor jumps, the prompt
 *	help.c				the help screen's text
 *	input.c, timeline.c		keys and the keymap; the time cursor
 *	draw.c				what screens draw with; the status message
 *	display.c, focus.c		curses; which screen is shown
 *
 * Under them all: data.c (and cells.c, follow.c), format.c, recorder.c.
 * A view is called from below only through its struct view_ops: focus.c
 * opens it, frame.c draws it, view.c hands it requests; only view.c's
 * table names the views.
 */

/* display.c */
int display_init(struct tui *t);
void display_end(struct tui *t);
void display_resize(struct tui *t, int lines, int cols);
int display_save_screen(struct tui *t, const char *name);
int display_attr(const struct tui *t, int what);

/* Attributes views ask display_attr() for. */
enum tui_attr {
	ATTR_TITLE,
	ATTR_STATUS,
	ATTR_HEAD,
	ATTR_CURSOR,
	ATTR_LOST,
	ATTR_1G,
	ATTR_2M,
	ATTR_4K,
	ATTR_UNMAPPED,
	ATTR_PROTECTED,
	ATTR_PHASE,
	ATTR_INFERRED,
	ATTR_SELECTED,
	ATTR_NR,
};

/* draw.c */
void tui_message(struct tui *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
unsigned int tui_chart_cols(int cols);
void draw_line(int y, int attr, const char *text);
void draw_axis(struct tui *t, int y);
void draw_axis_labels(struct tui *t, int y);
void draw_phase_strip(struct tui *t, int y, const char *label, enum fmt_strip_kind kind);
void draw_cursor_line(struct tui *t, int y);

/* timeline.c */
uint64_t tui_time_step(const struct tui *t);
void tui_show_window(struct tui *t, uint64_t t0, uint64_t t1);
void tui_set_cursor(struct tui *t, uint64_t ts, bool follow);
void tui_time_sync(struct tui *t);
void tui_zoom(struct tui *t, bool in);
void tui_play(struct tui *t);
void tui_tick(struct tui *t);

/* focus.c */
int tui_switch_view(struct tui *t, enum tui_view_id id);
void tui_open_gfn(struct tui *t, int64_t vm, uint8_t as_id, uint64_t gfn);

/* input.c */
int input_open(struct tui *t, const char *script);
void input_close(struct tui *t);
int input_read(struct tui *t, int timeout_ms);
enum msc_request keymap_lookup(int key);
const char *request_name(enum msc_request req);
const char *request_help(enum msc_request req);
size_t keymap_keys(enum msc_request req, char *buf, size_t size);

#define INPUT_TIMER (-2)		/* a timer tick (timeout, or :wait) */
#define INPUT_END (-3)			/* the script is over */

/* help.c */
#define HELP_LINE 256			/* a help line's bytes, at most */
#define HELP_MAX_LINES 128
int help_text(char (*out)[HELP_LINE], int max_lines, size_t width);

/* jump.c */
void tui_phase_step(struct tui *t, bool next);
void tui_jump_again(struct tui *t);
void tui_next_vm(struct tui *t);
void tui_prompt_open(struct tui *t, bool jump);
void tui_prompt_key(struct tui *t, int key);

/* frame.c */
void frame_draw(struct tui *t);

/* view.c */
int views_open(struct tui *t);
void views_close(struct tui *t);
unsigned int view_dispatch(struct tui *t, enum msc_request req);

/* loop.c */
int tui_run(struct tui *t);

#endif /* MSC_TUI_H */
