// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which screen is shown: switching to one opens it on first use, and the
 * GFN inspector's target is set here before switching to it.
 *
 * A view is known here only through its ops table (t->views[], filled by
 * views_open() in view.c): this file names no view, so a view may switch
 * the screen (Enter on a phase, on a map cell) and still call only down.
 */
#include "tui.h"

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
