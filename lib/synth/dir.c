// SPDX-License-Identifier: GPL-2.0-only
/*
 * A fake tracing directory: the files of /sys/kernel/tracing that
 * libtracefs, trace-cmd and mmuscope's live recorder read, with raw
 * ring-buffer pages where the kernel would have its per-CPU buffers.
 * The layout is described in include/mmuscope/synth.h.
 *
 * Control files hold what a freshly booted kernel shows (tracing on, no
 * event enabled, "nop" tracer); writes to them land in plain files, which
 * is all libtracefs needs to enable events and toggle tracing.  An
 * instance is the same tree under instances/NAME, made in advance because
 * mkdir on a plain file system does not populate it as tracefs does.
 */
#include "mmuscope/synth.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mmuscope/util.h"
#include "local.h"

#define BUFFER_KB 1408		/* the kernel's default per-CPU buffer_size_kb */

static const char *const clocks[] = {
	"local", "global", "counter", "uptime", "perf", "mono", "mono_raw", "boot", "x86-tsc",
};

static int make_dir(const char *path)
{
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

static int write_file(const char *path, mode_t mode, const void *buf, size_t len)
{
	const char *p = buf;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode), r = 0;

	if (fd < 0)
		return -errno;
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			r = -errno;
			break;
		}
		p += n;
		len -= (size_t)n;
	}
	if (close(fd) && !r)
		r = -errno;
	return r;
}

static int write_str(const char *path, const char *s)
{
	return write_file(path, 0644, s, strlen(s));
}

/* PATH = BASE/NAME; returns -ENAMETOOLONG if it does not fit. */
static int join(char *buf, size_t size, const char *base, const char *name)
{
	int n = snprintf(buf, size, "%s/%s", base, name);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static int make_events(const char *root, const struct msc_synth_formats *f)
{
	char events[PATH_MAX], path[PATH_MAX], id[32];
	const char *last_system = "";
	int r;

	if ((r = join(events, sizeof(events), root, "events")) || (r = make_dir(events)))
		return r;
	if ((r = join(path, sizeof(path), events, "header_page")) ||
	    (r = write_file(path, 0644, f->header_page, f->header_page_len)) ||
	    (r = join(path, sizeof(path), events, "header_event")) ||
	    (r = write_file(path, 0644, f->header_event, f->header_event_len)) ||
	    (r = join(path, sizeof(path), events, "enable")) || (r = write_str(path, "0\n")))
		return r;
	for (size_t i = 0; i < f->nr; i++) {
		const struct synth_format *fmt = &f->formats[i];
		char sys[PATH_MAX], ev[PATH_MAX];

		if ((r = join(sys, sizeof(sys), events, fmt->system)))
			return r;
		if (strcmp(last_system, fmt->system)) {
			last_system = fmt->system;
			if ((r = make_dir(sys)) || (r = join(path, sizeof(path), sys, "enable")) ||
			    (r = write_str(path, "0\n")) ||
			    (r = join(path, sizeof(path), sys, "filter")) ||
			    (r = write_str(path, "none\n")))
				return r;
		}
		snprintf(id, sizeof(id), "%d\n", fmt->id);
		if ((r = join(ev, sizeof(ev), sys, fmt->name)) || (r = make_dir(ev)) ||
		    (r = join(path, sizeof(path), ev, "format")) ||
		    (r = write_file(path, 0644, fmt->text, fmt->len)) ||
		    (r = join(path, sizeof(path), ev, "id")) || (r = write_str(path, id)) ||
		    (r = join(path, sizeof(path), ev, "enable")) || (r = write_str(path, "0\n")) ||
		    (r = join(path, sizeof(path), ev, "filter")) || (r = write_str(path, "none\n")))
			return r;
	}
	return 0;
}

static int make_trace_pipe(const char *path, bool fifo)
{
	if (!fifo)
		return write_file(path, 0600, "", 0);
	if (unlink(path) && errno != ENOENT)
		return -errno;
	return mkfifo(path, 0600) ? -errno : 0;
}

static const char stats_text[] =
	"entries: 0\noverrun: 0\ncommit overrun: 0\nbytes: 0\n"
	"oldest event ts:     0.000000\nnow ts:     0.000000\n"
	"dropped events: 0\nread events: 0\n";

/* One trace array: the top level or an instance. */
static int make_array(const char *root, const struct msc_synth_dir *d,
		      const struct msc_synth_formats *f, bool fifo)
{
	char path[PATH_MAX], cpu_dir[PATH_MAX], per_cpu[PATH_MAX], buf[512];
	const char *clock = d->trace_clock ? d->trace_clock : "local";
	size_t len = 0;
	int r;

	if ((r = make_dir(root)) || (r = make_events(root, f)))
		return r;
	for (size_t i = 0; i < ARRAY_SIZE(clocks); i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len,
					strcmp(clocks[i], clock) ? "%s%s" : "%s[%s]",
					i ? " " : "", clocks[i]);
	snprintf(buf + len, sizeof(buf) - len, "\n");
	if ((r = join(path, sizeof(path), root, "trace_clock")) || (r = write_str(path, buf)) ||
	    (r = join(path, sizeof(path), root, "tracing_on")) || (r = write_str(path, "1\n")) ||
	    (r = join(path, sizeof(path), root, "current_tracer")) ||
	    (r = write_str(path, "nop\n")) ||
	    (r = join(path, sizeof(path), root, "trace_marker")) || (r = write_str(path, "")))
		return r;
	snprintf(buf, sizeof(buf), "%d\n", BUFFER_KB);
	if ((r = join(path, sizeof(path), root, "buffer_size_kb")) || (r = write_str(path, buf)))
		return r;
	snprintf(buf, sizeof(buf), "%u\n", BUFFER_KB * d->nr_cpus);
	if ((r = join(path, sizeof(path), root, "buffer_total_size_kb")) ||
	    (r = write_str(path, buf)) || (r = join(per_cpu, sizeof(per_cpu), root, "per_cpu")) ||
	    (r = make_dir(per_cpu)))
		return r;
	for (unsigned int cpu = 0; cpu < d->nr_cpus; cpu++) {
		char name[32];

		snprintf(name, sizeof(name), "cpu%u", cpu);
		snprintf(buf, sizeof(buf), "%d\n", BUFFER_KB);
		if ((r = join(cpu_dir, sizeof(cpu_dir), per_cpu, name)) || (r = make_dir(cpu_dir)) ||
		    (r = join(path, sizeof(path), cpu_dir, "trace_pipe_raw")) ||
		    (r = make_trace_pipe(path, fifo)) ||
		    (r = join(path, sizeof(path), cpu_dir, "buffer_size_kb")) ||
		    (r = write_str(path, buf)) || (r = join(path, sizeof(path), cpu_dir, "stats")) ||
		    (r = write_str(path, stats_text)))
			return r;
	}
	return 0;
}

/* saved_cmdlines ("pid comm") or kallsyms ("addr T name"), one line per entry. */
static int write_listing(const char *root, const char *name, const struct msc_synth_dir *d)
{
	enum { LINE_MAX_LEN = 160 };	/* 16 hex digits, " T ", a name cut at 128 */
	bool syms = !strcmp(name, "kallsyms");
	size_t n = syms ? d->nr_syms : d->nr_comms, len = 0;
	char path[PATH_MAX], *buf = malloc(n * LINE_MAX_LEN + 1);
	int r;

	if (!buf)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		int w = syms ? snprintf(buf + len, LINE_MAX_LEN, "%016llx T %.128s\n",
					(unsigned long long)d->syms[i].addr, d->syms[i].name) :
			       snprintf(buf + len, LINE_MAX_LEN, "%d %.15s\n", d->comms[i].pid,
					d->comms[i].comm);

		len += w > 0 ? (size_t)w : 0;
	}
	r = join(path, sizeof(path), root, name);
	if (!r)
		r = write_file(path, 0644, buf, len);
	free(buf);
	return r;
}

/**
 * msc_synth_dir_create - build a fake tracing directory
 * @d: where, which instance, how many CPUs, which tasks and symbols
 * @f: the event formats the directory describes
 *
 * Existing files are overwritten, so a directory can be rebuilt in place.
 * The trace_pipe_raw files are created empty (or as FIFOs with
 * MSC_SYNTH_DIR_FIFO) at the top level and in the instance.
 * Returns 0 or a negative errno.
 */
int msc_synth_dir_create(const struct msc_synth_dir *d, const struct msc_synth_formats *f)
{
	char path[PATH_MAX], inst[PATH_MAX];
	bool fifo = d->flags & MSC_SYNTH_DIR_FIFO;
	int r;

	if (!d->nr_cpus)
		return -EINVAL;
	r = make_array(d->path, d, f, fifo && !d->instance);
	if (r)
		return r;
	if ((r = join(path, sizeof(path), d->path, "printk_formats")) || (r = write_str(path, "")) ||
	    (r = write_listing(d->path, "saved_cmdlines", d)) ||
	    (r = write_listing(d->path, "kallsyms", d)) ||
	    (r = join(path, sizeof(path), d->path, "saved_cmdlines_size")) ||
	    (r = write_str(path, "128\n")) ||
	    (r = join(inst, sizeof(inst), d->path, "instances")) || (r = make_dir(inst)))
		return r;
	if (!d->instance)
		return 0;
	if ((r = join(path, sizeof(path), inst, d->instance)))
		return r;
	return make_array(path, d, f, fifo);
}

/**
 * msc_synth_dir_cpu_path - the trace_pipe_raw that holds one CPU's pages
 * @d: the directory
 * @cpu: the CPU
 * @buf: filled with the path
 * @size: size of @buf
 *
 * Returns 0 or -ENAMETOOLONG.
 */
int msc_synth_dir_cpu_path(const struct msc_synth_dir *d, unsigned int cpu, char *buf,
			   size_t size)
{
	int n = d->instance ?
		snprintf(buf, size, "%s/instances/%s/per_cpu/cpu%u/trace_pipe_raw", d->path,
			 d->instance, cpu) :
		snprintf(buf, size, "%s/per_cpu/cpu%u/trace_pipe_raw", d->path, cpu);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* One CPU's copy: staged pages -> its trace_pipe_raw, a page at a time. */
struct feeder {
	char path[PATH_MAX];
	int src;
	const struct msc_synth_feed *feed;
	size_t page_size;
	uint64_t dropped;		/* ring mode: pages overwritten unread */
	int result;
};

static void feed_pages(struct feeder *fd, int dst, char *page)
{
	unsigned int us = fd->feed->delay_us;
	struct timespec delay = { .tv_sec = us / 1000000, .tv_nsec = (long)(us % 1000000) * 1000 };
	ssize_t n;

	while (!fd->result && (n = read(fd->src, page, fd->page_size)) > 0) {
		if (write(dst, page, (size_t)n) != n)
			fd->result = -EIO;
		else if (us)
			nanosleep(&delay, NULL);
	}
}

/*
 * A kernel's ring buffer that drops when full: pages are made at the feed's
 * rate whatever the reader does; the FIFO, cut to ring_pages, holds those
 * not read yet, and a page made while it is full is dropped; the next page
 * that fits carries the missed-events flag.
 */
/* The feeder makes its pages in batches a NAP_S apart, and makes up a stall of at most CATCH_UP_S. */
#define NAP_S 0.001
#define CATCH_UP_S 0.005

/*
 * The run ended on dropped pages: no later page carries their mark, so the
 * reader is handed one empty page that does (at the last page's time),
 * waiting for room.  Every drop is then marked whatever the reader's pace.
 */
static void tell_trailing_loss(struct feeder *fd, int dst, char *page)
{
	const struct msc_ringbuf_layout *l = fd->feed->layout;

	memset(page + l->commit_offset, 0, fd->page_size - l->commit_offset);
	msc_ringbuf_mark_missed(l, page);
	if (fcntl(dst, F_SETFL, O_WRONLY) < 0 ||
	    write(dst, page, fd->page_size) != (ssize_t)fd->page_size)
		fd->result = -EIO;
}

static void feed_ring(struct feeder *fd, int dst, char *page)
{
	const struct msc_synth_feed *f = fd->feed;
	double next = msc_mono_s(), step = 1.0 / f->page_rate;
	bool missed = false;

	if (fcntl(dst, F_SETFL, O_WRONLY | O_NONBLOCK) < 0 ||
	    fcntl(dst, F_SETPIPE_SZ, (int)(max(f->ring_pages, 1u) * fd->page_size)) < 0) {
		fd->result = -errno;
		return;
	}
	while (!fd->result) {
		double wait, now = msc_mono_s();
		ssize_t r;

		/*
		 * A stall of this thread (the machine is busy) is time in which
		 * the kernel would not have made pages either: it is not made
		 * up for in one burst.
		 */
		if (now - next > CATCH_UP_S)
			next = now;
		/* every page due by now is made, read or not */
		while (msc_mono_s() >= next) {
			r = read(fd->src, page, fd->page_size);
			if (r <= 0) {
				if (r < 0)
					fd->result = -errno;
				else if (missed)
					tell_trailing_loss(fd, dst, page);
				return;
			}
			next += step;
			if (missed)
				msc_ringbuf_mark_missed(f->layout, page);
			r = write(dst, page, (size_t)r);
			missed = r < 0 && errno == EAGAIN;
			if (missed) {
				fd->dropped++;
			} else if (r != (ssize_t)fd->page_size) {
				fd->result = -EIO;
				return;
			}
		}
		wait = max(next - msc_mono_s(), NAP_S);
		nanosleep(&(struct timespec){ .tv_nsec = (long)(min(wait, 0.5) * 1e9) }, NULL);
	}
}

static void *feed_cpu(void *arg)
{
	struct feeder *fd = arg;
	char *page = malloc(fd->page_size);
	int dst;

	fd->result = -ENOMEM;
	if (!page)
		return NULL;
	/* a FIFO's open blocks until its reader opens the other end */
	dst = open(fd->path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (dst < 0) {
		fd->result = -errno;
		free(page);
		return NULL;
	}
	fd->result = 0;
	if (lseek(fd->src, 0, SEEK_SET) < 0)
		fd->result = -errno;
	else if (fd->feed->page_rate)
		feed_ring(fd, dst, page);
	else
		feed_pages(fd, dst, page);
	close(dst);
	free(page);
	return NULL;
}

/**
 * msc_synth_dir_feed - copy staged pages into the directory over time
 * @d: the directory (its trace_pipe_raw files, FIFOs or regular files)
 * @src_fds: one readable file of pages per CPU, read from its start
 * @feed: the pages' layout, and how fast they come
 * @ret_dropped: NULL, or set to the pages a ring (feed->page_rate)
 *	overwrote unread, over all CPUs
 *
 * One thread per CPU writes its pages in order; a FIFO's writer waits for
 * its reader and closes when done, which the reader sees as end of file, so
 * a reader must read every CPU at once (threads or poll).  Regular files
 * grow by a page at a time.  Returns 0 or the first negative errno.
 */
int msc_synth_dir_feed(const struct msc_synth_dir *d, const int *src_fds,
		       const struct msc_synth_feed *feed, uint64_t *ret_dropped)
{
	struct feeder *feeders = calloc(d->nr_cpus, sizeof(*feeders));
	pthread_t *threads = calloc(d->nr_cpus, sizeof(*threads));
	unsigned int started = 0;
	int r = 0;

	if (!feeders || !threads) {
		r = -ENOMEM;
		goto out;
	}
	for (unsigned int i = 0; i < d->nr_cpus; i++) {
		struct feeder *fd = &feeders[i];

		fd->src = src_fds[i];
		fd->feed = feed;
		fd->page_size = msc_ringbuf_page_size(feed->layout);
		r = msc_synth_dir_cpu_path(d, i, fd->path, sizeof(fd->path));
		if (r)
			break;
		r = -pthread_create(&threads[i], NULL, feed_cpu, fd);
		if (r)
			break;
		started++;
	}
	if (ret_dropped)
		*ret_dropped = 0;
	for (unsigned int i = 0; i < started; i++) {
		pthread_join(threads[i], NULL);
		if (feeders[i].result && !r)
			r = feeders[i].result;
		if (ret_dropped)
			*ret_dropped += feeders[i].dropped;
	}
out:
	free(feeders);
	free(threads);
	return r;
}
