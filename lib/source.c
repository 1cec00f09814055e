// SPDX-License-Identifier: GPL-2.0-only
/*
 * What every source shares: dispatch through the ops table and the seq
 * numbering of the events handed out.
 */
#include "mmuscope/source.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "mmuscope/decode.h"
#include "mmuscope/host.h"
#include "source-local.h"

void msc_source_init(struct msc_source *src, const struct msc_source_ops *ops, const char *path)
{
	memset(src, 0, sizeof(*src));
	src->ops = ops;
	src->info.kind = ops->kind;
	snprintf(src->info.path, sizeof(src->info.path), "%s", path);
	msc_host_init(&src->info.host);
}

/*
 * A constructor failed: its detail goes to the caller's @err (one line, ""
 * when there is none) and the half-made source is closed.  Returns @r.
 */
int msc_source_fail(struct msc_source *src, int r, char *err, size_t err_size)
{
	if (err && err_size)
		snprintf(err, err_size, "%s", src->error);
	msc_source_close(src);
	return r;
}

void msc_source_set_error(struct msc_source *src, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(src->error, sizeof(src->error), fmt, ap);
	va_end(ap);
}

/**
 * msc_source_next - the next event of the capture
 * @src: the source
 * @ret_ev: the event, with its seq; written only when 1 is returned
 *
 * Returns 1, 0 at the end of the capture, or a negative error
 * (msc_source_error() has the detail).
 */
int msc_source_next(struct msc_source *src, struct msc_event *ret_ev)
{
	int r = src->ops->next(src, ret_ev);

	if (r > 0)
		ret_ev->seq = src->seq++;
	return r;
}

/** msc_source_close - close and free a source; NULL is fine */
void msc_source_close(struct msc_source *src)
{
	if (src)
		src->ops->close(src);
}

/** msc_source_info - what the source knows of its capture; borrowed */
const struct msc_capture_info *msc_source_info(const struct msc_source *src)
{
	return &src->info;
}

/**
 * msc_source_get_stat - how many events of one kind were read
 *
 * Iterate @i from 0: returns 1 when *@ret is filled, 0 for an empty slot,
 * -ENOENT past the last.
 */
int msc_source_get_stat(const struct msc_source *src, size_t i, struct msc_event_stat *ret)
{
	return src->ops->get_stat(src, i, ret);
}

/** msc_source_next_warning - next one-time warning, or NULL; borrowed */
const char *msc_source_next_warning(struct msc_source *src)
{
	return src->ops->next_warning ? src->ops->next_warning(src) : NULL;
}

/** msc_source_error - detail of the last error; "" when none */
const char *msc_source_error(const struct msc_source *src)
{
	return src->error;
}

/**
 * msc_source_get_task - what the source knows of the task @pid
 * @src: the source, read to its end (a trace.dat's names come with its end)
 * @pid: an event's pid
 * @ret: its process and name; -1 and "" for what is not known
 *
 * Returns 0 when something is known, -ENOENT when nothing is.
 */
int msc_source_get_task(struct msc_source *src, int pid, struct msc_source_task *ret)
{
	ret->tgid = -1;
	ret->comm[0] = '\0';
	if (!src->ops->get_task)
		return -ENOENT;
	return src->ops->get_task(src, pid, ret);
}

/**
 * source_child_start - first thing in a child forked from @parent that runs
 *	libtracecmd: it dies with its parent, and libtracecmd's own lines on
 *	stderr are not printed
 *
 * Returns false when the parent is gone already (the child must exit).
 */
bool source_child_start(pid_t parent)
{
	int null;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		return false;
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, STDERR_FILENO);
		close(null);
	}
	return true;
}
