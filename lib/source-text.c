// SPDX-License-Identifier: GPL-2.0-only
/*
 * Text fixture source: one msc_event_format() line per event, as written by
 * `mmuscope dump`.  Blank lines and lines starting with '#' are skipped;
 * "#@ release <kernel release>" and "#@ host <key=value,...>" state the
 * host, as a trace.dat's uname would.  "#@ task <pid> <tgid> <comm>" names
 * a task, as a trace.dat's saved command lines do: tgid is a number or "-"
 * (unknown), comm the rest of the line, escaped as msc_text_escape() writes
 * it (backslash, \n, \xHH), spaces as they are ("CPU 0/KVM").
 */
#include "mmuscope/source.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmuscope/decode.h"
#include "mmuscope/error.h"
#include "mmuscope/host.h"
#include "mmuscope/util.h"
#include "source-local.h"

struct text_task {
	int pid;
	size_t order;			/* of its line among the task lines */
	struct msc_source_task task;
};

struct text_source {
	struct msc_source base;
	struct text_task *tasks;	/* "#@ task" lines; by pid once sorted */
	size_t nr_tasks;
	bool tasks_sorted;		/* ... and only the last line of each pid kept */
	size_t task_lines;		/* seen so far */
	FILE *f;
	char *line;
	size_t cap;
	unsigned long lineno;
	uint64_t counts[MSC_EV_NR];
};

static struct text_source *to_text(const struct msc_source *src)
{
	return container_of(src, struct text_source, base);
}

/* "#@ task <pid> <tgid|-> <comm>"; the last line of a pid says (text_get_task()) */
static int task_header(struct text_source *t, const char *line)
{
	struct text_task *p, e = { .task.tgid = -1, .order = t->task_lines++ };
	char tgid[16];
	int n = 0;

	if (sscanf(line, "#@ task %d %15s%n", &e.pid, tgid, &n) != 2 || e.pid < 0 ||
	    (line[n] != ' ' && line[n] != '\n' && line[n]))
		return MSC_ERR_PARSE;
	if (strcmp(tgid, "-") && (sscanf(tgid, "%d", &e.task.tgid) != 1 || e.task.tgid < 0))
		return MSC_ERR_PARSE;
	/* a name longer than the room is cut */
	if (line[n] == ' ' && msc_text_unescape(line + n + 1, e.task.comm, sizeof(e.task.comm)) < 0)
		return MSC_ERR_PARSE;
	p = realloc(t->tasks, (t->nr_tasks + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	t->tasks = p;
	t->tasks[t->nr_tasks++] = e;
	t->tasks_sorted = false;
	return 0;
}

/* "#@ release X" / "#@ host k=v,..." / "#@ task ..." */
static int header(struct text_source *t, const char *line)
{
	struct msc_host *host = &t->base.info.host;
	char value[256];

	if (!strncmp(line, "#@ task ", 8))
		return task_header(t, line);

	if (sscanf(line, "#@ release %63s", host->release) == 1) {
		host->kver = msc_kver_parse(host->release);
		host->kver_source = MSC_HOST_INFERRED;
		return 0;
	}
	if (sscanf(line, "#@ host %255s", value) == 1)
		return msc_host_parse_overrides(host, value);
	return 0;
}

/* The header line just read does not parse: MSC_ERR_PARSE, and which line. */
static int bad_header(struct text_source *t)
{
	msc_source_set_error(&t->base, "line %lu: bad %s line", t->lineno,
			     strncmp(t->line, "#@ task ", 8) ? "host" : "task");
	return MSC_ERR_PARSE;
}

static int text_next(struct msc_source *src, struct msc_event *ret_ev)
{
	struct text_source *t = to_text(src);
	ssize_t n;

	while ((n = getline(&t->line, &t->cap, t->f)) >= 0) {
		t->lineno++;
		if (t->line[0] == '#') {
			if (header(t, t->line))
				return bad_header(t);
			continue;
		}
		if (t->line[0] == '\n' || t->line[0] == '\0')
			continue;
		if (msc_event_parse(t->line, ret_ev)) {
			msc_source_set_error(src, "line %lu: malformed event", t->lineno);
			return MSC_ERR_PARSE;
		}
		t->counts[ret_ev->type]++;
		return 1;
	}
	if (ferror(t->f)) {
		msc_source_set_error(src, "line %lu: read error", t->lineno + 1);
		return -EIO;
	}
	return 0;
}

static int text_get_stat(const struct msc_source *src, size_t i, struct msc_event_stat *ret)
{
	const struct text_source *t = to_text(src);

	if (i >= MSC_EV_NR)
		return -ENOENT;
	if (!t->counts[i])
		return 0;
	*ret = (struct msc_event_stat){ .system = "text", .name = msc_event_type_name(i),
					.count = t->counts[i], .type = (int)i };
	return 1;
}

static int by_pid(const void *a, const void *b)
{
	int x = ((const struct text_task *)a)->pid, y = ((const struct text_task *)b)->pid;

	return x < y ? -1 : x > y;
}

static int by_pid_order(const void *a, const void *b)
{
	const struct text_task *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int text_get_task(struct msc_source *src, int pid, struct msc_source_task *ret)
{
	struct text_source *t = to_text(src);
	const struct text_task *e;
	struct text_task key = { .pid = pid };
	size_t n = 0;

	if (!t->tasks_sorted && t->nr_tasks) {
		qsort(t->tasks, t->nr_tasks, sizeof(*t->tasks), by_pid_order);
		for (size_t i = 0; i < t->nr_tasks; i++) {
			if (n && t->tasks[n - 1].pid == t->tasks[i].pid)
				n--;	/* a later line of the same pid */
			t->tasks[n++] = t->tasks[i];
		}
		t->nr_tasks = n;
		t->tasks_sorted = true;
	}
	e = t->nr_tasks ? bsearch(&key, t->tasks, t->nr_tasks, sizeof(*t->tasks), by_pid) : NULL;
	if (!e)
		return -ENOENT;
	*ret = e->task;
	return 0;
}

static void text_close(struct msc_source *src)
{
	struct text_source *t = to_text(src);

	if (t->f)
		fclose(t->f);
	free(t->line);
	free(t->tasks);
	free(t);
}

static const struct msc_source_ops text_ops = {
	.kind = "text",
	.next = text_next,
	.get_stat = text_get_stat,
	.get_task = text_get_task,
	.close = text_close,
};

/**
 * msc_source_open_text - open a text event file ("-" is stdin)
 * @path: the file
 * @ret: the source, closed with msc_source_close()
 * @err: why it failed, one line (source.h), or NULL
 * @err_size: its size
 *
 * Header lines before the first event are read here, so the host they
 * state is known when this returns.  Returns 0 or -errno.
 */
int msc_source_open_text(const char *path, struct msc_source **ret, char *err, size_t err_size)
{
	struct text_source *t = calloc(1, sizeof(*t));
	int c;

	if (err && err_size)
		err[0] = '\0';
	if (!t)
		return -ENOMEM;
	msc_source_init(&t->base, &text_ops, path);
	t->f = strcmp(path, "-") ? fopen(path, "re") : fdopen(dup(0), "r");
	if (!t->f) {
		int r = -errno;

		free(t);
		return r;
	}
	while ((c = fgetc(t->f)) == '#') {
		ungetc(c, t->f);
		if (getline(&t->line, &t->cap, t->f) < 0)
			break;
		t->lineno++;
		if (header(t, t->line))
			return msc_source_fail(&t->base, bad_header(t), err, err_size);
	}
	if (c != EOF)
		ungetc(c, t->f);
	*ret = &t->base;
	return 0;
}
