// SPDX-License-Identifier: GPL-2.0-only
/*
 * Where the time cursor jumps: to the phase before or after it, to the
 * next phase a name matches ('n'), to a VM's lifetime ('v'), and to what
 * is typed at the prompt at the foot of the screen ('/': a time, a phase,
 * a GFN; 'g': a GFN), which is read here key by key.
 *
 * It calls only down: the time cursor (timeline.c), the screen switch
 * (focus.c), the status message (draw.c); never a view by name.
 */
#include <ctype.h>
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/cli.h"
#include "format.h"
#include "tui.h"
#include "mmuscope/util.h"

/* The cursor to @p's start, which the status line names (@more: what follows it). */
static void go_to_phase(struct tui *t, const struct msc_phase *p, const char *more)
{
	char label[128];

	tui_set_cursor(t, p->start_ts, false);
	tui_message(t, "phase %s%s", fmt_phase_label(label, sizeof(label), p), more);
}

/** tui_phase_step - the cursor to the start of the phase before or after it (@next) */
void tui_phase_step(struct tui *t, bool next)
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

/** tui_jump_again - 'n': the next phase the last jump's name matches */
void tui_jump_again(struct tui *t)
{
	if (!t->last_jump[0])
		tui_message(t, "'n' finds the next phase a name matches ('/' a name first)");
	else
		phase_search(t, t->last_jump);
}

/**
 * tui_next_vm - show the next VM's lifetime, the cursor at its start
 *
 * Choosing a VM is showing its lifetime, with the cursor at its start, and
 * its own census in the overview (VMs at once each have theirs; the host's
 * is their sum).  After the last, all.
 */
void tui_next_vm(struct tui *t)
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

/** tui_prompt_open - open the prompt, empty: where to jump (@jump, '/') or a GFN ('g') */
void tui_prompt_open(struct tui *t, bool jump)
{
	t->prompting = true;
	t->prompt_jump = jump;
	t->prompt[0] = '\0';
	t->prompt_len = 0;
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
 * tui_prompt_key - a key typed while the prompt is open
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
