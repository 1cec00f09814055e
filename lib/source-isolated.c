// SPDX-License-Identifier: GPL-2.0-only
/*
 * A trace.dat is read in a child process.  libtracecmd and libtraceevent
 * crash (double free, SIGFPE, SIGSEGV) or loop forever, allocating, on
 * damaged files; in the child that takes only the child, and the parent,
 * which never calls into them, says what happened and stays in control of
 * signals.  The child runs the plain trace.dat source (source-tracedat.c)
 * and sends what it hands out through a pipe:
 *
 *	INFO	struct msc_capture_info, once the file is open
 *	EVENTS	the next events, in order, packed: each as its header and its
 *		type's payload only (msc_event_pack()), up to MSG_MAX bytes
 *	STAT	one event count: count, type, "system\0name\0"
 *	WARN	a format warning's text
 *	TASK	what the file names of a pid its events came from: struct
 *		task_msg, then the name and its NUL
 *	END	int: 0 at the end of the data, or the error; then its text
 *
 * The child dies with its parent, has a memory limit (a damaged file that
 * makes libtracecmd allocate without end ends there), and is killed when it
 * sends nothing for STALL_MS once reading, or more events than the file
 * can hold.
 *
 * Syscalls, wake-ups and context switches can be dear (in a paravirtualised
 * VM half of an import's CPU went to the kernel when every 256 events were
 * two writes and two reads): events go packed, a message holds thousands
 * and is one write, and the pipe holds several messages, so the child
 * writes and the parent reads about once per MSG_MAX bytes.  The child
 * still sends what it has at least every FLUSH_MS once it has events, so
 * STALL_MS means what it did: no progress, not a slow message.
 *
 * Fault injection for tests/cli/hostile.sh, MSC_READER_FAULT= in the
 * environment: segv makes the child crash while reading its first events;
 * bad-type and cut-event make its first EVENTS message malformed (an event
 * of no type; the last event cut short), which the parent must refuse.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mmuscope/decode.h"
#include "mmuscope/error.h"
#include "mmuscope/util.h"
#include "event-desc.h"
#include "source-local.h"

#define MSG_MAX (256 << 10)		/* bytes of packed events per EVENTS message */
#define PIPE_SIZE (1 << 20)		/* asked of the pipe: a few messages in flight */
#define FLUSH_EVERY 256			/* events between the child's looks at the clock */
#define FLUSH_MS 1000			/* the child sends what it has at least this often */
#define CRASH_AFTER 256			/* MSC_READER_FAULT=segv: events read before */
#define SLACK_EVENTS 256		/* more events a file may hold (a tiny one) */
#define STALL_MS 60000			/* no message for this long while reading: a loop */
#define MEM_BASE (4ULL << 30)		/* the child's address space: this + */
#define MEM_PER_BYTE 8			/* ... this many times the file's size */
#define MIN_RECORD 8			/* bytes of the smallest ring-buffer record */
#define COMPRESSION_MAX 64		/* what a compressed trace may expand to */

enum { MSG_INFO = 1, MSG_EVENTS, MSG_STAT, MSG_WARN, MSG_END, MSG_TASK };

struct msg {
	uint32_t type;
	uint32_t len;		/* bytes after this header */
};

struct stat_entry {
	struct msc_event_stat stat;	/* system and name: NULL, see names */
	char names[128];		/* "system\0name\0" */
};

struct task_msg {
	int32_t pid, tgid;
};

struct task_entry {
	int pid;
	struct msc_source_task task;
};

/*
 * The child's pids of the events it sent: appended as they change,
 * sorted and made unique when the array fills (events come in runs of a
 * few tasks, so it seldom does).
 */
struct pid_list {
	int *pid;
	size_t nr, cap;
};

struct isolated_source {
	struct msc_source base;
	pid_t pid;
	int fd;				/* the pipe's read end */
	size_t len, pos;		/* bytes in msg, the next event's offset */
	char msg[MSG_MAX];		/* the last EVENTS message, packed; untrusted */
	struct stat_entry *stats;
	size_t nr_stats;
	char **warnings;
	size_t nr_warnings, next_warning;
	struct task_entry *tasks;	/* as the child sent them: by pid */
	size_t nr_tasks;
	uint64_t events, max_events;	/* received, and what the file could hold */
	uint64_t file_size;
	bool ended;
	int end;			/* END's value */
};

static struct isolated_source *to_isolated(const struct msc_source *src)
{
	return container_of(src, struct isolated_source, base);
}

/* ---- the child ---- */

/* A message of @a and @b, in one write while the pipe has room: one wake-up of the parent. */
static int send_msg(int fd, uint32_t type, const void *a, size_t alen, const void *b, size_t blen)
{
	struct msg m = { .type = type, .len = (uint32_t)(alen + blen) };
	struct iovec iov[] = { { .iov_base = &m, .iov_len = sizeof(m) },
			       { .iov_base = (void *)a, .iov_len = alen },
			       { .iov_base = (void *)b, .iov_len = blen } };
	struct iovec *v = iov;
	int nr = ARRAY_SIZE(iov);

	while (nr) {
		ssize_t n = writev(fd, v, nr);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -EPIPE;
		/* past what was written: whole parts, then into the next */
		for (; nr && (size_t)n >= v->iov_len; nr--, v++)
			n -= (ssize_t)v->iov_len;
		if (nr) {
			v->iov_base = (char *)v->iov_base + n;
			v->iov_len -= (size_t)n;
		}
	}
	return 0;
}

static int send_end(int fd, struct msc_source *src, int r)
{
	const char *text = src ? msc_source_error(src) : "";

	return send_msg(fd, MSG_END, &r, sizeof(r), text, strlen(text) + 1);
}

static int by_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

/* Sort @l and drop the repeats. */
static void pids_compact(struct pid_list *l)
{
	size_t n = 0;

	if (l->nr > 1)
		qsort(l->pid, l->nr, sizeof(*l->pid), by_int);
	for (size_t i = 0; i < l->nr; i++)
		if (!n || l->pid[n - 1] != l->pid[i])
			l->pid[n++] = l->pid[i];
	l->nr = n;
}

static int pids_add(struct pid_list *l, int pid)
{
	if (l->nr && l->pid[l->nr - 1] == pid)
		return 0;
	if (l->nr == l->cap) {
		pids_compact(l);
		if (2 * l->nr >= l->cap) {
			size_t cap = l->cap ? 2 * l->cap : 64;
			int *p = realloc(l->pid, cap * sizeof(*p));

			if (!p)
				return -ENOMEM;
			l->pid = p;
			l->cap = cap;
		}
	}
	l->pid[l->nr++] = pid;
	return 0;
}

/* What the child sends before its END of a good read: counts, warnings, tasks. */
static int send_tail(int fd, struct msc_source *src, struct pid_list *pids)
{
	struct msc_source_task task;
	struct msc_event_stat st;
	const char *w;
	int r = 0, s;

	for (size_t i = 0; !r && (s = msc_source_get_stat(src, i, &st)) != -ENOENT; i++) {
		struct stat_entry e = { .stat = st };
		int n;

		if (s <= 0)
			continue;
		n = snprintf(e.names, sizeof(e.names), "%s%c%s", st.system, 0, st.name);
		e.stat.system = e.stat.name = NULL;
		r = send_msg(fd, MSG_STAT, &e.stat, sizeof(e.stat), e.names, (size_t)n + 1);
	}
	while (!r && (w = msc_source_next_warning(src)))
		r = send_msg(fd, MSG_WARN, w, strlen(w) + 1, NULL, 0);
	pids_compact(pids);
	for (size_t i = 0; !r && i < pids->nr; i++) {
		struct task_msg m = { .pid = pids->pid[i] };

		if (msc_source_get_task(src, pids->pid[i], &task))
			continue;
		m.tgid = task.tgid;
		r = send_msg(fd, MSG_TASK, &m, sizeof(m), task.comm, strlen(task.comm) + 1);
	}
	return r;
}

/* The address space the child reading a file of @file_size bytes may have. */
static uint64_t child_address_space(uint64_t file_size)
{
	return MEM_BASE + MEM_PER_BYTE * file_size;
}

/*
 * The child's address space is bounded; its hard limit stays what it was,
 * so that the child copying a compressed file (source-tracedat.c) may
 * trade this bound for one on its heap.
 */
static void child_limits(uint64_t file_size)
{
	struct rlimit rl;

	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (getrlimit(RLIMIT_AS, &rl))
		return;
	rl.rlim_cur = min((rlim_t)child_address_space(file_size), rl.rlim_max);
	setrlimit(RLIMIT_AS, &rl);
}

/* Send the @len bytes of packed events at @buf; @fault: MSC_READER_FAULT, spent here. */
static int send_events(int fd, char *buf, size_t len, const char **fault)
{
	/* fault injection for tests: a message the parent must refuse */
	if (*fault && !strcmp(*fault, "bad-type"))
		buf[offsetof(struct msc_event, type)] = (char)0xff;
	if (*fault && !strcmp(*fault, "cut-event"))
		len--;
	*fault = NULL;
	return send_msg(fd, MSG_EVENTS, buf, len, NULL, 0);
}

static void __attribute__((noreturn)) child(const char *path, const char *instance,
					    const struct tracedat_gaps *gaps, uint64_t file_size,
					    int fd, pid_t parent)
{
	const char *fault = getenv("MSC_READER_FAULT");
	struct pid_list pids = { 0 };
	struct msc_source *src = NULL;
	size_t len = 0, n = 0, crash_after = 0;
	uint64_t sent_ns;
	struct msc_event ev = { 0 };	/* its padding goes out defined */
	char *buf;
	int r;

	if (!source_child_start(parent))
		_exit(1);
	child_limits(file_size);
	r = tracedat_open_direct(path, instance, gaps, &src);
	if (r) {
		send_end(fd, src, r);
		_exit(0);
	}
	buf = malloc(MSG_MAX);
	r = buf ? send_msg(fd, MSG_INFO, msc_source_info(src), sizeof(struct msc_capture_info),
			   NULL, 0) : -ENOMEM;
	/* fault injection for tests: the reader dies as libtracecmd does on a damaged page */
	if (fault && !strcmp(fault, "segv"))
		crash_after = CRASH_AFTER;
	sent_ns = msc_mono_ns();
	while (!r) {
		if (crash_after && !--crash_after)
			raise(SIGSEGV);
		r = msc_source_next(src, &ev);
		if (r > 0 && ev.pid >= 0 && pids_add(&pids, ev.pid))
			r = -ENOMEM;
		if (r > 0) {
			len += msc_event_pack(buf + len, &ev);
			r = 0;
			/* send when the next may not fit, or now and then (STALL_MS) */
			if (MSG_MAX - len >= sizeof(ev) &&
			    (++n % FLUSH_EVERY || msc_mono_ns() - sent_ns < FLUSH_MS * 1000000ULL))
				continue;
		} else if (!r) {
			r = 1;	/* the end */
		}
		if (len && send_events(fd, buf, len, &fault))
			_exit(1);
		len = 0;
		sent_ns = msc_mono_ns();
	}
	if (r == 1)
		r = send_tail(fd, src, &pids);
	send_end(fd, src, r == 1 ? 0 : r);
	_exit(0);
}

/* ---- the parent ---- */

/*
 * Read @len bytes, waiting at most STALL_MS for each part once @reading;
 * a signal interrupts (the caller may be asked to stop).
 */
static int recv_all(struct isolated_source *s, void *buf, size_t len, bool reading)
{
	for (char *p = buf; len;) {
		struct pollfd pfd = { .fd = s->fd, .events = POLLIN };
		int w = poll(&pfd, 1, reading ? STALL_MS : -1);
		ssize_t n;

		if (w < 0)
			return -errno;
		if (!w) {
			msc_source_set_error(&s->base, "reading it made no progress for %d s",
					     STALL_MS / 1000);
			return MSC_ERR_CORRUPT;
		}
		n = read(s->fd, p, len);
		if (n < 0 && errno == EINTR)
			return -EINTR;
		if (n <= 0)
			return -EPIPE;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * The address space this process may have, when it is less than the child
 * asks for (ulimit -v): libtracecmd does not check every allocation, so a
 * child that dies under it may have died of want of memory.  0: no such
 * limit.
 */
static uint64_t tight_limit(const struct isolated_source *s)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_AS, &rl) || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur >= child_address_space(s->file_size))
		return 0;
	return rl.rlim_cur;
}

/* The child is gone before its END, or talks nonsense: how it went. */
static int child_died(struct isolated_source *s)
{
	uint64_t limit;
	int status;

	kill(s->pid, SIGKILL);	/* a child already dead keeps its own status */
	while (waitpid(s->pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	tracedat_copy_remove(s->pid);
	s->pid = -1;
	/*
	 * Ctrl-C reaches the whole process group: a reader dead of SIGINT
	 * or SIGTERM was asked to stop with us, it did not crash.
	 */
	if (WIFSIGNALED(status) && (WTERMSIG(status) == SIGINT || WTERMSIG(status) == SIGTERM)) {
		msc_source_set_error(&s->base, "the reader was stopped (%s)",
				     strsignal(WTERMSIG(status)));
		return MSC_ERR_INTERRUPTED;
	}
	limit = WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL ? tight_limit(s) : 0;
	if (limit) {
		/*
		 * A crash, not ENOMEM: libtracecmd may have died of a failed
		 * allocation it did not check, or of damage; which, is not known.
		 */
		msc_source_set_error(&s->base, "libtracecmd died reading it (%s) within the %llu MiB "
				     "of address space this process may have (ulimit -v): it may "
				     "have run out of memory, or the file is damaged",
				     strsignal(WTERMSIG(status)), (unsigned long long)(limit >> 20));
		return MSC_ERR_READER;
	}
	if (WIFSIGNALED(status))
		msc_source_set_error(&s->base, "libtracecmd died reading it (%s)",
				     strsignal(WTERMSIG(status)));
	else
		msc_source_set_error(&s->base, "libtracecmd stopped reading it (exit %d)",
				     WEXITSTATUS(status));
	return MSC_ERR_CORRUPT;
}

static int add_stat(struct isolated_source *s, const struct msc_event_stat *st, const char *names,
		    size_t len)
{
	struct stat_entry *p = realloc(s->stats, (s->nr_stats + 1) * sizeof(*p)), *e;

	if (!p)
		return -ENOMEM;
	s->stats = p;
	e = &p[s->nr_stats++];
	e->stat = *st;
	memset(e->names, 0, sizeof(e->names));
	memcpy(e->names, names, min(len, sizeof(e->names) - 1));
	return 0;
}

static int add_warning(struct isolated_source *s, const char *text)
{
	char **p = realloc(s->warnings, (s->nr_warnings + 1) * sizeof(*p));

	if (!p)
		return -ENOMEM;
	s->warnings = p;
	p[s->nr_warnings] = strdup(text);
	return p[s->nr_warnings] ? (s->nr_warnings++, 0) : -ENOMEM;
}

/* A TASK message of @len bytes at @buf (NUL-terminated past them); untrusted. */
static int add_task(struct isolated_source *s, const char *buf, size_t len)
{
	struct task_entry *p, *e;
	struct task_msg m;

	if (len < sizeof(m) + 1)
		return -EPROTO;
	memcpy(&m, buf, sizeof(m));
	/* in the order sent, ascending: a file's pids are never sent twice */
	if (s->nr_tasks && m.pid <= s->tasks[s->nr_tasks - 1].pid)
		return -EPROTO;
	p = realloc(s->tasks, (s->nr_tasks + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	s->tasks = p;
	e = &p[s->nr_tasks++];
	e->pid = m.pid;
	e->task.tgid = m.tgid < 0 ? -1 : m.tgid;
	snprintf(e->task.comm, sizeof(e->task.comm), "%s", buf + sizeof(m));
	return 0;
}

/* One message; 1 when it was EVENTS (s->msg refilled), 0 for others, < 0 an error. */
static int recv_msg(struct isolated_source *s, bool reading)
{
	struct msg m;
	char *buf;
	int r = recv_all(s, &m, sizeof(m), reading);

	if (r == -EPIPE)
		return child_died(s);
	if (r)
		return r;
	if (m.len > sizeof(s->msg) + sizeof(struct msc_capture_info) + 4096)
		return child_died(s);
	if (m.type == MSG_EVENTS) {
		/* straight into s->msg; isolated_next() checks each event as it unpacks it */
		if (m.len > sizeof(s->msg) || !m.len)
			return child_died(s);
		r = recv_all(s, s->msg, m.len, reading);
		if (r)
			return r == -EPIPE ? child_died(s) : r;
		s->len = m.len;
		s->pos = 0;
		return 1;
	}
	buf = malloc(m.len + 1);
	if (!buf)
		return -ENOMEM;
	r = recv_all(s, buf, m.len, reading);
	if (r == -EPIPE)
		r = child_died(s);
	buf[m.len] = '\0';
	if (r) {
		free(buf);
		return r;
	}
	switch (m.type) {
	case MSG_INFO:
		memcpy(&s->base.info, buf, min(m.len, (uint32_t)sizeof(s->base.info)));
		s->base.info.kind = "trace.dat";
		break;
	case MSG_STAT:
		r = m.len < sizeof(struct msc_event_stat) ? -EPROTO :
		    add_stat(s, (struct msc_event_stat *)buf, buf + sizeof(struct msc_event_stat),
			     m.len - sizeof(struct msc_event_stat));
		break;
	case MSG_WARN:
		r = add_warning(s, buf);
		break;
	case MSG_TASK:
		r = add_task(s, buf, m.len);
		break;
	case MSG_END:
		s->ended = true;
		if (m.len >= sizeof(int)) {
			memcpy(&s->end, buf, sizeof(int));
			msc_source_set_error(&s->base, "%s", buf + sizeof(int));
		}
		break;
	default:
		r = -EPROTO;
	}
	free(buf);
	return r;
}

/* The child sent nonsense (the error is set): it is stopped, and so is the read. */
static int bad_message(struct isolated_source *s)
{
	kill(s->pid, SIGKILL);
	while (waitpid(s->pid, NULL, 0) < 0 && errno == EINTR)
		;
	tracedat_copy_remove(s->pid);
	s->pid = -1;
	s->ended = true;
	s->end = MSC_ERR_CORRUPT;
	s->pos = s->len = 0;
	return MSC_ERR_CORRUPT;
}

static int isolated_next(struct msc_source *src, struct msc_event *ret_ev)
{
	struct isolated_source *s = to_isolated(src);
	int r;

	while (s->pos == s->len) {
		if (s->ended)
			return s->end;
		r = recv_msg(s, true);
		if (r < 0)
			return r;
	}
	if (++s->events > s->max_events) {
		msc_source_set_error(src, "more events than the file can hold: its pages loop");
		return MSC_ERR_CORRUPT;
	}
	/*
	 * The child is not trusted with our memory: its type and length are
	 * checked before use.  What a reader may look at, the header and the
	 * type's payload, is all that is copied.
	 */
	r = msc_event_unpack(s->msg + s->pos, s->len - s->pos, ret_ev);
	if (likely(r > 0)) {
		s->pos += (size_t)r;
		return 1;
	}
	if (r == -EBADMSG)
		msc_source_set_error(src, "the reader sent an event of type %u", ret_ev->type);
	else
		msc_source_set_error(src, "the reader sent an event cut short (%zu of its bytes "
				     "in a message of %zu)", s->len - s->pos, s->len);
	return bad_message(s);
}

static int isolated_get_stat(const struct msc_source *src, size_t i, struct msc_event_stat *ret)
{
	const struct isolated_source *s = to_isolated(src);

	const struct stat_entry *e;
	size_t sys;

	if (i >= s->nr_stats)
		return -ENOENT;
	e = &s->stats[i];
	/* "system\0name": pointed to here, the entries move as they grow */
	sys = strlen(e->names);
	*ret = e->stat;
	ret->system = e->names;
	ret->name = sys + 1 < sizeof(e->names) ? e->names + sys + 1 : "";
	return 1;
}

static const char *isolated_next_warning(struct msc_source *src)
{
	struct isolated_source *s = to_isolated(src);

	return s->next_warning < s->nr_warnings ? s->warnings[s->next_warning++] : NULL;
}

static int by_task_pid(const void *key, const void *elem)
{
	int pid = *(const int *)key, other = ((const struct task_entry *)elem)->pid;

	return pid < other ? -1 : pid > other;
}

static int isolated_get_task(struct msc_source *src, int pid, struct msc_source_task *ret)
{
	const struct isolated_source *s = to_isolated(src);
	const struct task_entry *e = s->tasks ? bsearch(&pid, s->tasks, s->nr_tasks,
							sizeof(*s->tasks), by_task_pid) : NULL;

	if (!e)
		return -ENOENT;
	*ret = e->task;
	return 0;
}

static void isolated_close(struct msc_source *src)
{
	struct isolated_source *s = to_isolated(src);

	if (s->fd >= 0)
		close(s->fd);
	/*
	 * A child that sent its END is closing its input and exiting: let it
	 * (a profiler then counts it whole), for 2 s at most.
	 */
	for (int i = 0; s->pid > 0 && s->ended && i < 2000; i++) {
		if (waitpid(s->pid, NULL, WNOHANG) == s->pid)
			s->pid = -1;
		else
			usleep(1000);
	}
	if (s->pid > 0) {
		kill(s->pid, SIGKILL);
		while (waitpid(s->pid, NULL, 0) < 0 && errno == EINTR)
			;
		tracedat_copy_remove(s->pid);	/* it may have been copying */
	}
	for (size_t i = 0; i < s->nr_warnings; i++)
		free(s->warnings[i]);
	free(s->warnings);
	free(s->stats);
	free(s->tasks);
	free(s);
}

static const struct msc_source_ops isolated_ops = {
	.kind = "trace.dat",
	.next = isolated_next,
	.get_stat = isolated_get_stat,
	.next_warning = isolated_next_warning,
	.get_task = isolated_get_task,
	.close = isolated_close,
};

/**
 * msc_source_open_tracedat - open a trace-cmd trace.dat for reading: its
 *	top buffer, or when that holds no event its first instance that does
 * @path: the file
 * @ret: the source, closed with msc_source_close()
 * @err: why it failed
 * @err_size: its size
 *
 * As msc_source_open_tracedat_instance() with no instance named.
 */
int msc_source_open_tracedat(const char *path, struct msc_source **ret, char *err,
			     size_t err_size)
{
	return msc_source_open_tracedat_instance(path, NULL, ret, err, err_size);
}

/**
 * msc_source_open_tracedat_instance - open a trace-cmd trace.dat for reading
 * @path: the file
 * @instance: the instance buffer to read (`trace-cmd record -B NAME`), or
 *	NULL: the top buffer, or its first instance with events when it has
 *	none; the instances not read are named in warnings
 * @ret: the source, closed with msc_source_close()
 * @err: why it failed, one line (source.h), or NULL
 * @err_size: its size
 *
 * libtracecmd reads it in a child process (see above); plugins are not
 * loaded, so nothing depends on the machine it runs on.
 *
 * Returns 0; -errno when the file cannot be read; MSC_ERR_NOT_TRACE when it
 * is not a trace.dat; MSC_ERR_HEADER when its header is damaged (the detail
 * says how); MSC_ERR_TRUNC when it ends early or libtracecmd cannot load its
 * headers or data sections (a short or damaged file); MSC_ERR_CORRUPT when reading
 * it crashed or looped; MSC_ERR_TMPCOPY when the uncompressed copy of a
 * large compressed file cannot be written; MSC_ERR_NO_INSTANCE when it has
 * no instance @instance; MSC_ERR_INTERRUPTED when a signal stopped it.
 */
int msc_source_open_tracedat_instance(const char *path, const char *instance,
				      struct msc_source **ret, char *err, size_t err_size)
{
	struct tracedat_gaps gaps = { 0 };
	struct isolated_source *s;
	pid_t parent = getpid();
	char detail[128];
	bool whole;
	struct stat st;
	int fds[2], r;

	*ret = NULL;
	if (err && err_size)
		err[0] = '\0';
	if (stat(path, &st))
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	msc_source_init(&s->base, &isolated_ops, path);
	s->fd = -1;
	s->pid = -1;
	/* what the header says wrong is said exactly, before libtracecmd is near it */
	r = tracedat_check_header(path, detail, sizeof(detail), &whole, &gaps);
	if (r) {
		free(gaps.g);
		msc_source_set_error(&s->base, "%s", detail);
		return msc_source_fail(&s->base, r, err, err_size);
	}
	s->max_events = COMPRESSION_MAX * (uint64_t)st.st_size / MIN_RECORD + SLACK_EVENTS;
	s->file_size = (uint64_t)st.st_size;
	if (pipe2(fds, O_CLOEXEC)) {
		free(gaps.g);
		free(s);
		return -errno;
	}
	/* a pipe as large as we may have (pipe-max-size); the default 64 KiB works too */
	fcntl(fds[1], F_SETPIPE_SZ, PIPE_SIZE);
	s->pid = fork();
	if (s->pid < 0) {
		r = -errno;
		close(fds[0]);
		close(fds[1]);
		free(gaps.g);
		free(s);
		return r;
	}
	if (!s->pid) {
		close(fds[0]);
		child(path, instance, &gaps, s->file_size, fds[1], parent);
	}
	free(gaps.g);	/* the reader has its copy */
	close(fds[1]);
	s->fd = fds[0];
	/* the file open, or why not: INFO, or END (a signal: the caller is asked to stop) */
	r = recv_msg(s, false);
	if (r == -EINTR)
		r = MSC_ERR_INTERRUPTED;
	if (!r && s->ended)
		r = s->end ?: MSC_ERR_TRUNC;
	/*
	 * libtracecmd says only that it could not load the file: "truncated"
	 * is for a file shorter than its headers say, and this one is not.
	 */
	if (r == MSC_ERR_TRUNC && whole && !msc_source_error(&s->base)[0]) {
		msc_source_set_error(&s->base, "libtracecmd cannot load its headers or data, though "
				     "every part its headers name lies inside the file");
		r = MSC_ERR_CORRUPT;
	}
	if (r)
		return msc_source_fail(&s->base, r, err, err_size);
	*ret = &s->base;
	return 0;
}
