// SPDX-License-Identifier: GPL-2.0-only
/*
 * Screen 1, the overview: huge-page coverage over the time window as
 * stacked columns (1G at the bottom, then 2M, then 4K; the height is the
 * memory mapped), the dirty-log and workload phases under the axis, the
 * census at the cursor next to KVM's own counters, and kvm_stat-style
 * counts and rates over the window.
 *
 * The chart is recomputed only when the window, the width, the data or the
 * VM shown ('v': one VM's own census, where VMs run at once) changes: a
 * scrub step costs one census lookup.
 */
#include <curses.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "tui.h"
#include "mmuscope/history.h"
#include "mmuscope/live.h"
#include "mmuscope/util.h"

#define FIXED_ROWS 12		/* everything but the chart */
#define MIN_CHART 3

struct overview {
	/* the chart and the window's counters, for this window / width / data */
	uint64_t win0, win1;
	unsigned int cols;
	unsigned long gen;
	int64_t vm;			/* the VM charted alone (tui_data_vm_id()); 0 all */
	struct msc_census *series;
	uint64_t full_scale;		/* mapped memory (4K units) of a full column */
	struct msc_counters cnt;
	bool task_set;			/* cnt is task_pid's part */
	int32_t task_pid;
	/* the census at the cursor */
	uint64_t cursor;
	unsigned long cursor_gen;
	int64_t cursor_vm;
	struct msc_census at;
};

static int load_counters(struct overview *o, struct tui *t)
{
	o->task_set = t->task_set;
	o->task_pid = t->task_pid;
	if (t->task_set)
		return msc_hview_task_counters(t->data->v, t->task_pid, t->win0, t->win1, &o->cnt);
	return msc_hview_counters(t->data->v, t->win0, t->win1, &o->cnt);
}

static int load_chart(struct overview *o, struct tui *t, unsigned int cols)
{
	struct fmt_axis a = {
		.t0 = t->win0, .t1 = max(t->win1, t->win0 + 1), .origin = t->data->t_first,
		.cols = cols,
	};
	struct msc_census *s = realloc(o->series, cols * sizeof(*s));
	int r = 0;

	if (!s)
		return -ENOMEM;
	o->series = s;
	o->full_scale = 1;
	o->vm = tui_data_vm_id(t->data, t->vm);
	for (unsigned int i = 0; i < cols && !r; i++) {
		r = msc_hview_vm_census_at(t->data->v, o->vm, fmt_axis_time(&a, i), &s[i]);
		o->full_scale = max(o->full_scale, msc_census_mapped(&s[i]));
	}
	if (!r)
		r = load_counters(o, t);
	o->win0 = t->win0;
	o->win1 = t->win1;
	o->cols = cols;
	o->gen = t->data->gen;
	return r;
}

static int chart_attr(const struct tui *t, char ch)
{
	switch (ch) {
	case FMT_CH_1G:
		return display_attr(t, ATTR_1G);
	case FMT_CH_2M:
		return display_attr(t, ATTR_2M);
	case FMT_CH_4K:
		return display_attr(t, ATTR_4K);
	default:
		return A_NORMAL;
	}
}

static void draw_chart(struct overview *o, struct tui *t, int y, unsigned int height)
{
	struct fmt_axis a = { .t0 = t->win0, .t1 = max(t->win1, t->win0 + 1), .cols = o->cols };
	int cur = fmt_axis_col(&a, t->cursor);
	char col[256], label[32];

	height = min(height, (unsigned int)sizeof(col));
	fmt_bytes_4k(label, sizeof(label), o->full_scale);
	mvaddnstr(y, 0, label, TUI_GUTTER - 1);
	mvaddstr(y + (int)height - 1, 0, "0");
	for (unsigned int x = 0; x < o->cols; x++) {
		fmt_stack_column(col, height, &o->series[x], o->full_scale);
		for (unsigned int r = 0; r < height; r++) {
			char ch = col[r];
			int attr = chart_attr(t, ch);

			if ((int)x == cur && ch == ' ') {
				ch = '|';
				attr = display_attr(t, ATTR_CURSOR);
			}
			attrset(attr);
			mvaddch(y + (int)(height - 1 - r), TUI_GUTTER + (int)x, (unsigned char)ch);
		}
	}
	for (unsigned int r = 0; r < height; r++) {
		attrset(A_NORMAL);
		mvaddch(y + (int)r, TUI_GUTTER - 1, '|');
	}
	attrset(A_NORMAL);
}

static void census_text(char *buf, size_t size, const int64_t pages[4])
{
	char n[3][28];

	for (int l = 1; l <= 3; l++)
		fmt_count(n[l - 1], sizeof(n[0]), (uint64_t)max(pages[l], (int64_t)0));
	snprintf(buf, size, "4K %.27s  2M %.27s  1G %.27s", n[0], n[1], n[2]);
}

/* The capture has events, but none the census is rebuilt from. */
static bool nothing_rebuilt(const struct tui *t)
{
	const struct msc_history_summary *s = &t->data->sum;

	return !s->spte_events && !s->intervals;
}

/* KVM's counters as record last read them at or before @ts, summed over its VMs */
static int kvm_read(const struct tui_data *d, uint64_t ts, struct msc_kvm_read *ret)
{
	struct msc_kvm_reads *k;
	int r = msc_kvm_reads_open(d->src, d->cap.id, &k);

	if (!r)
		r = msc_kvm_read_at(k, NULL, ts, false, ret);
	msc_kvm_reads_close(k);
	return r;
}

/* KVM's own counters: sampled live by record, or at the workload's stats markers. */
static void draw_kvm_line(struct overview *o, struct tui *t, int y)
{
	const struct tui_data *d = t->data;
	const struct msc_kvm_stats *k = tui_data_stats_before(d, t->cursor, o->vm);
	struct msc_kvm_read s;
	char line[512], c[96], when[32];
	bool same = true;

	/* record's samples are the host's: with one VM shown, its markers' counters */
	if (!o->vm && !kvm_read(d, t->cursor, &s) && s.vms) {
		census_text(c, sizeof(c), s.pages);
		for (int l = 1; l <= 3; l++)
			same &= s.pages[l] < 0 || s.pages[l] == o->at.pages[l];
		fmt_time(when, sizeof(when), s.ts - min(s.ts, d->t_first));
		snprintf(line, sizeof(line), "  KVM     read at %s: %s  (%s)", when, c,
			 same ? "= census" : "census differs: sampled at another instant");
	} else if (k) {
		census_text(c, sizeof(c), k->kvm);
		for (int l = 1; l <= 3; l++)
			same &= k->kvm[l] < 0 || k->kvm[l] == k->census[l];
		snprintf(line, sizeof(line), "  KVM     after %s: %s  (rebuilt there: %s)", k->phase, c,
			 nothing_rebuilt(t) ? "nothing" : same ? "equal" : "DIFFERS");
	} else {
		snprintf(line, sizeof(line), "  KVM     no counters of KVM's own before the cursor");
	}
	draw_line(y, A_NORMAL, line);
}

static void draw_counters(struct overview *o, struct tui *t, int y)
{
	const struct msc_counters *c = &o->cnt;
	uint64_t span = t->win1 - t->win0;
	struct {
		const char *what;
		int64_t n;
	} rows[] = {
		{ "spte changes", (int64_t)c->spte_changes }, { "splits", (int64_t)c->splits },
		{ "promotions", (int64_t)c->promotions },
		{ "faults", (int64_t)(c->faults_slow + c->faults_fast) },
		{ "zaps", (int64_t)c->zaps }, { "TLB flushes", c->flushes },
	};
	const struct msc_task *k = o->task_set ? tui_data_task(t->data, o->task_pid) : NULL;
	char line[512], a[32], b[32], w[32], left[128], right[128], who[136] = "", task[128];
	int half = t->cols / 2;

	fmt_time(a, sizeof(a), t->win0 - t->data->t_first);
	fmt_time(b, sizeof(b), t->win1 - t->data->t_first);
	fmt_span(w, sizeof(w), span);
	if (k && fmt_task(task, sizeof(task), k))
		snprintf(who, sizeof(who), ", %s", task);
	else if (o->task_set)
		snprintf(who, sizeof(who), ", pid %d", o->task_pid);
	snprintf(line, sizeof(line), "window %s .. %s (%s)%s", a, b, w, who);
	draw_line(y, display_attr(t, ATTR_HEAD), line);
	for (size_t i = 0; i < ARRAY_SIZE(rows); i += 2) {
		fmt_rate_row(left, (size_t)min(half, (int)sizeof(left) - 1), rows[i].what, rows[i].n, span);
		fmt_rate_row(right, (size_t)min(t->cols - half, (int)sizeof(right) - 1),
			     rows[i + 1].what, rows[i + 1].n, span);
		snprintf(line, sizeof(line), "%s%s", left, right);
		draw_line(y + 1 + (int)i / 2, A_NORMAL, line);
	}
}

static void overview_draw(struct view *v, struct tui *t, int top, int lines)
{
	struct overview *o = v->priv;
	unsigned int cols = tui_chart_cols(t->cols);
	unsigned int height = (unsigned int)max(lines - FIXED_ROWS, MIN_CHART);
	char line[256], c[160];
	int y = top;

	if ((o->win0 != t->win0 || o->win1 != t->win1 || o->cols != cols || o->gen != t->data->gen ||
	     o->vm != tui_data_vm_id(t->data, t->vm)) && load_chart(o, t, cols))
		tui_message(t, "cannot read the census");
	else if ((o->task_set != t->task_set || (t->task_set && o->task_pid != t->task_pid)) &&
		 load_counters(o, t))
		tui_message(t, "cannot read the task's counts");
	if (o->cursor != t->cursor || o->cursor_gen != t->data->gen || o->cursor_vm != o->vm) {
		msc_hview_vm_census_at(t->data->v, o->vm, t->cursor, &o->at);
		o->cursor = t->cursor;
		o->cursor_gen = t->data->gen;
		o->cursor_vm = o->vm;
	}
	if (o->vm)
		snprintf(c, sizeof(c), " of VM %" PRId64, o->vm);
	else
		c[0] = '\0';
	snprintf(line, sizeof(line), "Huge-page coverage over time%s: %c 1G  %c 2M  %c 4K "
		 "(height: memory mapped)", c, FMT_CH_1G, FMT_CH_2M, FMT_CH_4K);
	draw_line(y++, display_attr(t, ATTR_HEAD), line);
	draw_chart(o, t, y, height);
	y += (int)height;
	draw_axis(t, y++);
	draw_axis_labels(t, y++);
	draw_phase_strip(t, y++, "dirty", FMT_STRIP_DIRTY);
	draw_phase_strip(t, y++, "phase", FMT_STRIP_WORKLOAD);
	draw_cursor_line(t, y++);
	if (nothing_rebuilt(t))
		snprintf(line, sizeof(line), "  census  nothing to rebuild: no SPTE changes traced %s "
			 "(shadow paging or PVM, or no KVM activity)", t->data->live ? "so far" : "");
	else
		snprintf(line, sizeof(line), "  census  %s", fmt_census(c, sizeof(c) - 1, &o->at));
	draw_line(y++, A_NORMAL, line);
	draw_kvm_line(o, t, y++);
	draw_counters(o, t, y);
}

static void overview_close(struct view *v)
{
	struct overview *o = v->priv;

	free(o->series);
	o->series = NULL;
}

const struct view_ops overview_ops = {
	.name = "overview",
	.private_size = sizeof(struct overview),
	.draw = overview_draw,
	.close = overview_close,
};
