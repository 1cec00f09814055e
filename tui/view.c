// SPDX-License-Identifier: GPL-2.0-only
/*
 * What every screen shares: the title and status bars, the help screen,
 * the GFN prompt, switching screens, and the time cursor (window, zoom,
 * follow the present, replay a phase).  Requests go to the current view
 * first; what it leaves (IGNORED) is handled here.
 */
#include <ctype.h>
#include <curses.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/cli.h"
#include "format.h"
#include "tui.h"
#include "mmuscope/util.h"

#define PLAY_STEPS 40		/* a replay takes this many timer ticks */
#define MIN_STEP_NS 10		/* zooming in stops at 10 ns per column */

static const struct view_ops *const all_ops[VIEW_NR] = {
	[VIEW_OVERVIEW] = &overview_ops,
	[VIEW_MAP] = &map_ops,
	[VIEW_PHASES] = &phases_ops,
	[VIEW_GFN] = &gfn_ops,
};

/** tui_message - one line in the status bar until the next key */
void tui_message(struct tui *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->message, sizeof(t->message), fmt, ap);
	va_end(ap);
	t->dirty = true;
}

/** draw_line - @text in one full-width row */
void draw_line(int y, int attr, const char *text)
{
	int cols = COLS, n = (int)fmt_cut(text, (size_t)cols);	/* between words: no number cut */

	attrset(attr);
	mvaddnstr(y, 0, text, n);
	for (int x = n; x < cols; x++)
		mvaddch(y, x, ' ');
	attrset(A_NORMAL);
}

/* ---- time ---- */

/** tui_chart_cols - columns of the time axis on a screen @cols wide */
unsigned int tui_chart_cols(int cols)
{
	return (unsigned int)max(cols - TUI_GUTTER, 2);
}

/** tui_time_step - how far one cursor step moves: one chart column */
uint64_t tui_time_step(const struct tui *t)
{
	return max((t->win1 - t->win0) / (tui_chart_cols(t->cols) - 1), (uint64_t)1);
}

static void axis_of(const struct tui *t, struct fmt_axis *a)
{
	*a = (struct fmt_axis){
		.t0 = t->win0, .t1 = max(t->win1, t->win0 + 1), .origin = t->data->t_first,
		.cols = tui_chart_cols(t->cols),
	};
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

static void zoom(struct tui *t, bool in)
{
	uint64_t w = t->win1 - t->win0;

	w = in ? w / 2 : w * 2;
	tui_show_window(t, t->cursor - min(t->cursor, w / 2), t->cursor - min(t->cursor, w / 2) + w);
	t->dirty = true;
}

/* "7 harvest (kprobe)", or "5 workload dirty_pass_1 (marker)" */
static const char *phase_label(const struct msc_phase *p, char *buf, size_t size)
{
	const char *kind = msc_phase_kind_name(p->kind);

	if (!strcmp(kind, p->name))
		snprintf(buf, size, "%" PRId64 " %s (%s)", p->id, kind,
			 msc_phase_source_name(p->source));
	else
		snprintf(buf, size, "%" PRId64 " %s %s (%s)", p->id, kind, p->name,
			 msc_phase_source_name(p->source));
	return buf;
}

/* The cursor to @p's start, which the status line names (@more: what follows it). */
static void go_to_phase(struct tui *t, const struct msc_phase *p, const char *more)
{
	char label[128];

	tui_set_cursor(t, p->start_ts, false);
	tui_message(t, "phase %s%s", phase_label(p, label, sizeof(label)), more);
}

/* The start of the phase before or after the cursor. */
static void phase_jump(struct tui *t, bool next)
{
	const struct tui_data *d = t->data;
	const struct msc_phase *best = NULL;

	for (size_t i = 0; i < d->l.nr_phases; i++) {
		const struct msc_phase *p = &d->l.phases[i];

		if (next ? p->start_ts <= t->cursor : p->start_ts >= t->cursor)
			continue;
		if (!best || (next ? p->start_ts < best->start_ts : p->start_ts > best->start_ts))
			best = p;
	}
	if (!best) {
		tui_message(t, "no phase %s the cursor", next ? "after" : "before");
		return;
	}
	go_to_phase(t, best, "");
}

/*
 * Choosing a VM is showing its lifetime, with the cursor at its start, and
 * its own census in the overview (VMs at once each have theirs; the host's
 * is their sum).  After the last, all.
 */
static void next_vm(struct tui *t)
{
	const struct tui_data *d = t->data;
	const struct msc_vm *vm;
	char a[32], b[32];

	if (d->l.nr_vms < 2) {
		tui_message(t, "this capture has %s VM", d->l.nr_vms ? "one" : "no");
		return;
	}
	t->vm = t->vm >= (int)d->l.nr_vms ? 0 : t->vm + 1;
	if (!t->vm) {
		tui_show_window(t, d->t_first, d->t_last);
		tui_message(t, "all %zu VMs", d->l.nr_vms);
		return;
	}
	vm = &d->l.vms[t->vm - 1];
	tui_show_window(t, vm->start_ts, max(vm->end_ts, vm->start_ts + 1));
	tui_set_cursor(t, vm->start_ts, false);
	fmt_time(a, sizeof(a), vm->start_ts - min(vm->start_ts, d->t_first));
	fmt_time(b, sizeof(b), vm->end_ts - min(vm->end_ts, d->t_first));
	tui_message(t, "VM %" PRId64 " of %zu: %s .. %s ('v': the next)", vm->id, d->l.nr_vms, a, b);
}

/*
 * The overview's counts: one task's part of them, in the order of the
 * analysis' list (vCPUs by id, then the other tasks by pid).  After the
 * last, all tasks again.
 */
static void next_task(struct tui *t)
{
	const struct tui_data *d = t->data;
	const struct msc_task *k = t->task_set ? tui_data_task(d, t->task_pid) : NULL;
	size_t i = k ? (size_t)(k - d->l.tasks) + 1 : 0;
	static const char hint[] = " ('c': the next)";
	char who[128], n[2][32], msg[256];
	int len;

	if (!d->l.nr_tasks) {
		tui_message(t, "no task did anything the analysis counts");
		return;
	}
	t->task_set = i < d->l.nr_tasks;
	if (!t->task_set) {
		tui_message(t, "all %zu tasks", d->l.nr_tasks);
		return;
	}
	k = &d->l.tasks[i];
	t->task_pid = k->pid;
	fmt_task(who, sizeof(who), k);
	fmt_count(n[0], sizeof(n[0]), k->faults);
	fmt_count(n[1], sizeof(n[1]), k->spte_changes);
	len = snprintf(msg, sizeof(msg), "task %zu of %zu: %s: %s faults, %s SPTE changes", i + 1,
		       d->l.nr_tasks, who, n[0], n[1]);
	/* the hint, when the line has room for it beside the task's name */
	tui_message(t, "%s%s", msg, len >= 0 && len + (int)sizeof(hint) <= t->cols ? hint : "");
}

/* PLAY: replay the dirty-log phase at (or after) the cursor, one step per tick. */
static void play(struct tui *t)
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
	tui_message(t, "replaying phase %s: p stops", phase_label(p, label, sizeof(label)));
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

/* ---- screens ---- */

/** tui_switch_view - show screen @id (opened on first use) */
int tui_switch_view(struct tui *t, enum tui_view_id id)
{
	struct view *v = &t->views[id];
	int r = 0;

	if (!v->opened && v->ops->open)
		r = v->ops->open(v, t);
	v->opened = !r;
	t->cur = id;
	if (id == VIEW_OVERVIEW || id == VIEW_MAP)
		t->last_time_view = id;
	t->dirty = true;
	return r;
}

/** tui_open_gfn - show one GFN of VM @vm (0: of any) in the inspector */
void tui_open_gfn(struct tui *t, int64_t vm, uint8_t as_id, uint64_t gfn)
{
	t->gfn_set = true;
	t->gfn_vm = vm;
	t->gfn_as = as_id;
	t->gfn = gfn;
	t->views[VIEW_GFN].opened = false;	/* reload its intervals */
	tui_switch_view(t, VIEW_GFN);
}

int views_open(struct tui *t)
{
	for (int i = 0; i < VIEW_NR; i++) {
		t->views[i].ops = all_ops[i];
		t->views[i].priv = calloc(1, all_ops[i]->private_size ?: 1);
		if (!t->views[i].priv)
			return -ENOMEM;
	}
	return tui_switch_view(t, VIEW_OVERVIEW);
}

void views_close(struct tui *t)
{
	for (int i = 0; i < VIEW_NR; i++) {
		struct view *v = &t->views[i];

		if (v->ops && v->ops->close)
			v->ops->close(v);
		free(v->priv);
		v->priv = NULL;
	}
}

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

/** view_draw_screen - title, the current view (or help), status */
void view_draw_screen(struct tui *t)
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

/* The time axis under a chart: '-', '!' at lost events, '^' at the cursor. */
void draw_axis(struct tui *t, int y)
{
	struct fmt_axis a;
	int cur;

	axis_of(t, &a);
	mvaddstr(y, TUI_GUTTER - 1, "+");
	for (unsigned int c = 0; c < a.cols; c++)
		mvaddch(y, TUI_GUTTER + (int)c, '-');
	attrset(display_attr(t, ATTR_LOST));
	for (size_t i = 0; i < t->data->l.nr_lost; i++) {
		int c = fmt_axis_col(&a, t->data->l.lost[i].ts);

		if (c >= 0)
			mvaddch(y, TUI_GUTTER + c, '!');
	}
	attrset(display_attr(t, ATTR_CURSOR));
	cur = fmt_axis_col(&a, t->cursor);
	if (cur >= 0)
		mvaddch(y, TUI_GUTTER + cur, '^');
	attrset(A_NORMAL);
}

/* The time labels under the axis. */
void draw_axis_labels(struct tui *t, int y)
{
	char buf[1024];
	struct fmt_axis a;

	axis_of(t, &a);
	if (a.cols >= sizeof(buf))
		a.cols = sizeof(buf) - 1;
	mvaddstr(y, 0, t->zoomed ? "zoomed" : "");
	mvaddstr(y, TUI_GUTTER, fmt_axis_labels(buf, &a));
}

/**
 * draw_phase_strip - phases along the axis, with the cursor column marked
 * @label: the gutter text ("dirty", "phase")
 */
void draw_phase_strip(struct tui *t, int y, const char *label, enum fmt_strip_kind kind)
{
	char buf[1024];
	struct fmt_axis a;
	int cur;

	axis_of(t, &a);
	if (a.cols >= sizeof(buf))
		a.cols = sizeof(buf) - 1;
	fmt_phase_strip(buf, &a, t->data->l.phases, t->data->l.nr_phases, kind);
	mvaddstr(y, 0, label);
	for (unsigned int c = 0; c < a.cols; c++) {
		char ch = buf[c];
		int attr = ch == ' ' ? (int)A_NORMAL :
			   (ch >= 'a' && ch <= 'z' && kind == FMT_STRIP_DIRTY) || ch == '?' ?
			   display_attr(t, ATTR_INFERRED) : display_attr(t, ATTR_PHASE);

		attrset(attr);
		mvaddch(y, TUI_GUTTER + (int)c, (unsigned char)ch);
	}
	cur = fmt_axis_col(&a, t->cursor);
	if (cur >= 0) {
		attrset(display_attr(t, ATTR_CURSOR));
		mvaddch(y, TUI_GUTTER + cur, buf[cur] == ' ' ? '|' : (unsigned char)buf[cur]);
	}
	attrset(A_NORMAL);
}

/** draw_cursor_line - "cursor 163.941 ms @8.666661  in enable (kprobe), after ..." */
void draw_cursor_line(struct tui *t, int y)
{
	const struct tui_data *d = t->data;
	const struct msc_phase *dp = tui_data_phase_at(d, t->cursor, true);
	const struct msc_phase *wp = tui_data_phase_at(d, t->cursor, false);
	char line[512], when[32], abs[32];
	uint64_t lost_events;
	unsigned int lost = tui_data_lost_before(d, t->cursor, &lost_events);
	size_t o;

	fmt_time(when, sizeof(when), t->cursor - d->t_first);
	/* and where that is in trace-cmd's clock: "@9.256041" */
	o = (size_t)snprintf(line, sizeof(line), "cursor %s @%s%s", when,
			     cli_trace_ts(t->cursor, abs, sizeof(abs)), t->follow ? " (live)" : t->playing ? " (replaying)" : "");
	if (dp)
		o += (size_t)snprintf(line + o, sizeof(line) - o, "  in %s (%s)",
				      msc_phase_kind_name(dp->kind), msc_phase_source_name(dp->source));
	if (wp && wp != dp && o < sizeof(line))
		o += (size_t)snprintf(line + o, sizeof(line) - o, "  %s %s",
				      wp->kind == MSC_PHASE_WORKLOAD ? "workload" : "vCPUs:", wp->name);
	draw_line(y, A_NORMAL, line);
	if (lost && o < (size_t)t->cols) {
		char n[32];

		fmt_count(n, sizeof(n), lost_events);
		snprintf(line, sizeof(line), " after %u LOST gap%s (%s events): history may have holes ",
			 lost, lost == 1 ? "" : "s", n);
		attrset(display_attr(t, ATTR_LOST));
		mvaddnstr(y, (int)o + 1, line, t->cols - (int)o - 1);
		attrset(A_NORMAL);
	}
}

/* ---- requests ---- */

/* The next phase after the cursor (from the start again) whose kind or name holds @what. */
static void phase_search(struct tui *t, const char *what)
{
	const struct tui_data *d = t->data;
	const struct msc_phase *best = NULL, *first = NULL;

	for (size_t i = 0; i < d->l.nr_phases; i++) {
		const struct msc_phase *p = &d->l.phases[i];

		if (!strcasestr(p->name, what) && !strcasestr(msc_phase_kind_name(p->kind), what))
			continue;
		if (!first || p->start_ts < first->start_ts)
			first = p;
		if (p->start_ts > t->cursor && (!best || p->start_ts < best->start_ts))
			best = p;
	}
	if (!best)
		best = first;	/* past the last one: around to the first */
	if (!best) {
		tui_message(t, "no phase is called '%s'", what);
		return;
	}
	go_to_phase(t, best, " ('n': the next)");
}

/* The GFN inspector on @text (hex), or why not. */
static void open_gfn_text(struct tui *t, const char *text)
{
	uint64_t gfn;

	if (fmt_parse_gfn(text, &gfn))
		tui_message(t, "'%s' is not a GFN (hex, e.g. 40000 or 0x40000)", text);
	else
		tui_open_gfn(t, 0, 0, gfn);
}

/* "163.9" (ms), "163.9ms", "1.5s", "250us", "1200ns": ns, or false */
static bool parse_span(const char *text, uint64_t *ret)
{
	static const struct { const char *unit; double ns; } units[] = {
		{ "", 1e6 }, { "ms", 1e6 }, { "s", 1e9 }, { "us", 1e3 }, { "ns", 1 },
	};
	char *end;
	double v = strtod(text, &end);

	if (end == text || !(v >= 0) || v > 1e12)
		return false;
	while (*end == ' ')
		end++;
	for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
		if (!strcmp(end, units[i].unit)) {
			*ret = (uint64_t)(v * units[i].ns + 0.5);
			return true;
		}
	}
	return false;
}

/*
 * Where '/' goes: a time since the first event (ms unless told), a time in
 * trace-cmd's clock ("@8.666661", seconds), a phase by id ("#5") or by
 * what its kind or name holds ("disable", "dirty_pass_2"), or a GFN
 * ("gfn 40000", "0x40000").
 */
static void jump(struct tui *t, const char *text)
{
	const struct tui_data *d = t->data;
	uint64_t v;
	char *end;

	while (*text == ' ')
		text++;
	if (!*text)
		return;
	t->last_jump[0] = '\0';	/* 'n' repeats a search by name only */
	if (!strncasecmp(text, "gfn", 3) || !strncasecmp(text, "0x", 2)) {
		open_gfn_text(t, text + (strncasecmp(text, "gfn", 3) ? 0 : 3));
		return;
	}
	if (*text == '@') {	/* as every command takes a trace time */
		unsigned long long ts;

		if (cli_parse_ts(text, &ts))
			tui_message(t, "'%s': a time in trace-cmd's clock is @8.666661 (s) or "
				    "@8666661000 (ns)", text);
		else if ((v = ts) < d->t_first || v > d->t_last)
			tui_message(t, "'%s' is outside the capture", text);
		else
			tui_set_cursor(t, v, false);
		return;
	}
	if (*text == '#') {
		long long id = strtoll(text + 1, &end, 10);

		for (size_t i = 0; !*end && i < d->l.nr_phases; i++) {
			if (d->l.phases[i].id == id) {
				go_to_phase(t, &d->l.phases[i], "");
				return;
			}
		}
		tui_message(t, "no phase %s", text);
		return;
	}
	if (isdigit((unsigned char)*text) || *text == '.') {
		if (!parse_span(text, &v))
			tui_message(t, "'%s': a time is 163.9 (ms), 1.5s, 250us or 1200ns", text);
		else if (v > d->t_last - d->t_first)
			tui_message(t, "'%s' is after the capture's end", text);
		else
			tui_set_cursor(t, d->t_first + v, false);
		return;
	}
	snprintf(t->last_jump, sizeof(t->last_jump), "%s", text);	/* what 'n' looks for */
	phase_search(t, text);
}

static void prompt_done(struct tui *t)
{
	t->prompting = false;
	if (t->prompt_jump)
		jump(t, t->prompt);
	else
		open_gfn_text(t, t->prompt);
}

/**
 * tui_prompt_key - a key typed while the GFN prompt is open
 *
 * GFN: hex digits and 'x' are kept; jump: any printable key.  Backspace
 * deletes; Enter goes; Esc cancels.
 */
void tui_prompt_key(struct tui *t, int key)
{
	t->dirty = true;
	if (key == 27) {
		t->prompting = false;
	} else if (key == '\r' || key == '\n' || key == KEY_ENTER) {
		prompt_done(t);
	} else if (key == KEY_BACKSPACE || key == 127 || key == 8) {
		if (t->prompt_len)
			t->prompt[--t->prompt_len] = '\0';
	} else if (key < 256 && (t->prompt_jump ? isprint(key) : isxdigit(key) || key == 'x') &&
		   t->prompt_len + 1 < sizeof(t->prompt)) {
		t->prompt[t->prompt_len++] = (char)key;
		t->prompt[t->prompt_len] = '\0';
	}
}

static unsigned int generic(struct tui *t, enum msc_request req)
{
	switch (req) {
	case REQ_QUIT:
		return QUIT;
	case REQ_HELP:
		t->help = true;
		t->help_scroll = 0;
		break;
	case REQ_NEXT_VIEW:
		tui_switch_view(t, (t->cur + 1) % VIEW_NR);
		break;
	case REQ_PREV_VIEW:
		tui_switch_view(t, (t->cur + VIEW_NR - 1) % VIEW_NR);
		break;
	case REQ_VIEW_OVERVIEW:
		tui_switch_view(t, VIEW_OVERVIEW);
		break;
	case REQ_VIEW_MAP:
		tui_switch_view(t, VIEW_MAP);
		break;
	case REQ_VIEW_PHASES:
		tui_switch_view(t, VIEW_PHASES);
		break;
	case REQ_VIEW_GFN:
		tui_switch_view(t, VIEW_GFN);
		break;
	case REQ_TIME_BACK:
		tui_set_cursor(t, t->cursor - min(t->cursor, tui_time_step(t)), false);
		break;
	case REQ_TIME_FORWARD:
		tui_set_cursor(t, t->cursor + tui_time_step(t),
			       t->cursor + tui_time_step(t) >= t->data->t_last);
		break;
	case REQ_TIME_START:
		tui_set_cursor(t, t->data->t_first, false);
		break;
	case REQ_TIME_END:
		tui_set_cursor(t, t->data->t_last, true);
		break;
	case REQ_ZOOM_IN:
	case REQ_ZOOM_OUT:
		zoom(t, req == REQ_ZOOM_IN);
		break;
	case REQ_PHASE_PREV:
	case REQ_PHASE_NEXT:
		phase_jump(t, req == REQ_PHASE_NEXT);
		break;
	case REQ_GOTO_GFN:
	case REQ_JUMP:
		t->prompting = true;
		t->prompt_jump = req == REQ_JUMP;
		t->prompt[0] = '\0';
		t->prompt_len = 0;
		break;
	case REQ_NEXT_VM:
		next_vm(t);
		break;
	case REQ_NEXT_TASK:
		next_task(t);
		break;
	case REQ_JUMP_AGAIN:
		if (!t->last_jump[0])
			tui_message(t, "'n' finds the next phase a name matches ('/' a name first)");
		else
			phase_search(t, t->last_jump);
		break;
	case REQ_PLAY:
		play(t);
		break;
	case REQ_REDRAW:
		clearok(curscr, TRUE);
		break;
	default:
		return IGNORED;
	}
	t->dirty = true;
	return HANDLED | REDRAW;
}

/** view_dispatch - the current view first, then the generic handler */
unsigned int view_dispatch(struct tui *t, enum msc_request req)
{
	struct view *v = &t->views[t->cur];
	unsigned int r;

	t->message[0] = '\0';
	if (t->help) {
		int page = max(t->lines - 4, 1);

		if (req == REQ_MOVE_DOWN || req == REQ_PAGE_DOWN)
			t->help_scroll += req == REQ_PAGE_DOWN ? page : 1;
		else if (req == REQ_MOVE_UP || req == REQ_PAGE_UP)
			t->help_scroll = max(t->help_scroll - (req == REQ_PAGE_UP ? page : 1), 0);
		else
			t->help = req == REQ_HELP;
		t->dirty = true;
		return HANDLED | REDRAW;
	}
	if (!t->data->v && req != REQ_QUIT && req != REQ_HELP)
		return IGNORED;
	r = v->ops->handle ? v->ops->handle(v, t, req) : IGNORED;
	if (r & IGNORED)
		r = generic(t, req);
	if (r & REDRAW)
		t->dirty = true;
	return r;
}
