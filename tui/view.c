// SPDX-License-Identifier: GPL-2.0-only
/*
 * The screens and the requests they share: the table of views (each one an
 * ops table, tig's shape), and the dispatch of a request: the help screen
 * takes it while open; else the current view first, and what it leaves
 * (IGNORED) the generic handler here (screens, the time cursor, jumps, the
 * prompt, the VM and task shown).
 *
 * The top of tui/'s views: it alone names the view files (all_ops[]); they
 * and everything they call sit below it, and never call it back.
 */
#include <curses.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "format.h"
#include "tui.h"
#include "mmuscope/util.h"

static const struct view_ops *const all_ops[VIEW_NR] = {
	[VIEW_OVERVIEW] = &overview_ops,
	[VIEW_MAP] = &map_ops,
	[VIEW_PHASES] = &phases_ops,
	[VIEW_GFN] = &gfn_ops,
};

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
		tui_zoom(t, req == REQ_ZOOM_IN);
		break;
	case REQ_PHASE_PREV:
	case REQ_PHASE_NEXT:
		tui_phase_step(t, req == REQ_PHASE_NEXT);
		break;
	case REQ_GOTO_GFN:
	case REQ_JUMP:
		tui_prompt_open(t, req == REQ_JUMP);
		break;
	case REQ_NEXT_VM:
		tui_next_vm(t);
		break;
	case REQ_NEXT_TASK:
		next_task(t);
		break;
	case REQ_JUMP_AGAIN:
		tui_jump_again(t);
		break;
	case REQ_PLAY:
		tui_play(t);
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
