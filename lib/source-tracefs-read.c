// SPDX-License-Identifier: GPL-2.0-only
/*
 * The live source's reading side: raw pages of every CPU's trace_pipe_raw
 * (tracefs_cpu_read(), never blocking), merged by timestamp into one event
 * stream and decoded by the same decoder as a trace.dat.  The pages come
 * straight from the ring buffers, or, with a spool, from the files the
 * drain thread fills (source-tracefs-spool.c); the merge is the same.
 *
 * Reading goes in rounds: each round reads every CPU until its buffer is
 * empty or LIVE_PAGE_CAP pages were taken.  The kernel writes each CPU's
 * buffer in time order, so what a CPU has not delivered yet is no earlier
 * than
 *  - the last event read from it, when the round stopped at the cap;
 *  - the moment the round found it empty, when it was drained; that moment
 *    is later than every event read in earlier rounds (seen_max).
 * The watermark is the least of these bounds (live_bound()); events up to
 * it are handed out, the rest wait for the next round.  An event becomes
 * readable when it is committed, a moment after its timestamp was taken
 * (longer if an interrupt nests in between); when rounds follow each other
 * closely that moment matters, so a drained CPU's bound is then moved back
 * by LIVE_SLACK_NS (live_round_before()).  Once tracing is off (or a fake
 * tree's files have ended) a round that finds every CPU empty ends the
 * stream and everything left is handed out.
 *
 * Per event this costs one kbuffer step, a scan of the CPUs with queued
 * records and the decoder; pages are recycled, nothing is allocated.
 */
#include "source-tracefs-local.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>
#include <tracefs/tracefs.h>

#include "mmuscope/decode.h"
#include "mmuscope/error.h"
#include "mmuscope/event.h"
#include "mmuscope/util.h"

/** live_get_page - a page of the reading side: recycled, or new (NULL: no memory) */
struct live_page *live_get_page(struct tracefs_source *t)
{
	struct live_page *p = t->free_pages;

	if (p)
		t->free_pages = p->next;
	else
		p = malloc(sizeof(*p) + (size_t)t->subbuf_size);
	if (p) {
		p->next = NULL;
		p->lost = 0;
	}
	return p;
}

static void put_page(struct tracefs_source *t, struct live_page *p)
{
	p->next = t->free_pages;
	t->free_pages = p;
}

/* Point the CPU's cursor at the first record (or lost mark) of its queue. */
static void load_head(struct live_cpu *c, struct tracefs_source *t)
{
	while (c->head) {
		struct live_page *p = c->head;

		if (p->lost) {
			/* events the spool could not take: a mark of its own */
			c->rec = NULL;
			c->rec_ts = p->lost_ts;
			c->missed = (int)min(p->lost, (uint64_t)INT_MAX);
			c->lost_pending = true;
			c->lost_source = "spool";
			return;
		}
		kbuffer_load_subbuffer(c->kbuf, p->data);
		c->missed = kbuffer_missed_events(c->kbuf);
		c->rec = kbuffer_read_event(c->kbuf, &c->rec_ts);
		c->lost_pending = c->missed != 0;
		c->lost_source = NULL;
		if (c->rec)
			return;
		if (c->lost_pending) {
			/* a mark on a page without events: place it at the page's time */
			c->rec_ts = kbuffer_subbuf_timestamp(c->kbuf, p->data);
			return;
		}
		c->head = p->next;
		if (!c->head)
			c->tail = NULL;
		put_page(t, p);
	}
	c->rec = NULL;
	c->lost_pending = false;
}

static void advance(struct live_cpu *c, struct tracefs_source *t)
{
	struct live_page *p;

	if (c->rec) {
		c->rec = kbuffer_next_event(c->kbuf, &c->rec_ts);
		if (c->rec)
			return;
	}
	p = c->head;
	c->head = p->next;
	if (!c->head)
		c->tail = NULL;
	put_page(t, p);
	load_head(c, t);
}

/**
 * live_page_last_ts - the timestamp of a page's last event (@dflt: none)
 * @kb: a kbuffer that is no CPU's merge cursor
 */
uint64_t live_page_last_ts(struct kbuffer *kb, const void *page, uint64_t dflt)
{
	unsigned long long ts;
	uint64_t last = dflt;

	if (kbuffer_load_subbuffer(kb, (void *)page))
		return dflt;
	for (void *rec = kbuffer_read_event(kb, &ts); rec; rec = kbuffer_next_event(kb, &ts))
		last = ts;
	return last;
}

/**
 * live_read_raw - one page of a CPU's ring buffer, without blocking
 * @t: the source (its page tap sees the page)
 * @cpu: the CPU
 * @tcpu: its trace_pipe_raw
 * @buf: subbuf_size bytes
 * @ends: the file can end (a fake tree's regular file, or a FIFO whose
 *	writer left): an empty read is then its end
 * @ret_end: set when it has ended
 * @err: what failed, one line (the source's error, or the drain's own)
 * @err_size: its size
 *
 * Returns the page's size, 0 when the buffer is empty, or a negative errno.
 */
int live_read_raw(struct tracefs_source *t, int cpu, struct tracefs_cpu *tcpu, void *buf,
		  bool ends, bool *ret_end, char *err, size_t err_size)
{
	int r = tracefs_cpu_read(tcpu, buf, true);

	if (r < 0 && errno != EINTR && errno != EAGAIN) {
		int e = -errno;

		snprintf(err, err_size, "cannot read cpu %d ring buffer: %s", cpu, strerror(-e));
		return e;
	}
	if (r <= 0) {
		/* a fake tree's file ends; a real ring buffer is only empty */
		if (r == 0 && ends)
			*ret_end = true;
		return 0;
	}
	if (t->page_fn) {
		int e = t->page_fn(t->page_ctx, cpu, buf, (size_t)r);

		if (e)
			return e;
	}
	return r;
}

/** live_queue_page - @p behind the pages @c has queued (oldest first) */
void live_queue_page(struct live_cpu *c, struct live_page *p)
{
	p->next = NULL;
	if (c->tail)
		c->tail->next = p;
	else
		c->head = p;
	c->tail = p;
}

/** live_queued - pages were queued: @c's cursor is on its first record */
void live_queued(struct tracefs_source *t, struct live_cpu *c)
{
	if (!c->rec && !c->lost_pending)
		load_head(c, t);
}

/*
 * Read one CPU until it is empty or LIVE_PAGE_CAP pages were taken.
 * Returns the number of pages read or a negative error.
 */
static int read_cpu(struct tracefs_source *t, struct live_cpu *c)
{
	int n = 0;

	c->drained = false;
	while (n < LIVE_PAGE_CAP) {
		struct live_page *p = live_get_page(t);
		int r;

		if (!p)
			return -ENOMEM;
		r = live_read_raw(t, c->cpu, c->tcpu, p->data, c->regular || c->hup, &c->eof,
				  t->base.error, sizeof(t->base.error));
		if (r <= 0) {
			put_page(t, p);
			if (r < 0)
				return r;
			c->drained = true;
			break;
		}
		p->size = r;
		live_queue_page(c, p);
		c->st.pages++;
		n++;
	}
	if (n) {
		c->last_ts = live_page_last_ts(t->scan_kbuf, c->tail->data, c->last_ts);
		live_queued(t, c);
	}
	return n;
}

/* One round over all CPUs; sets the watermark (see the header comment). */
static int round_read(struct tracefs_source *t)
{
	uint64_t w = UINT64_MAX, start = msc_mono_ns();
	uint64_t before = live_round_before(t->seen_max, start, t->last_round_end);
	bool all_empty = true, all_eof = true;

	t->more = false;
	t->read_due = false;
	for (int i = 0; i < t->nr_cpus; i++) {
		struct live_cpu *c = &t->cpus[i];
		int n = c->eof ? 0 : read_cpu(t, c);

		if (n < 0)
			return n;
		if (n)
			all_empty = false;
		if (n == LIVE_PAGE_CAP)
			t->more = true;
		all_eof &= c->eof;
		t->seen_max = max(t->seen_max, c->last_ts);
		w = min(w, live_bound(c->eof, c->drained, before, c->last_ts));
	}
	if ((t->stopping && all_empty) || all_eof) {
		t->done = true;
		w = UINT64_MAX;
	}
	t->watermark = w;
	t->last_round_end = msc_mono_ns();
	return 0;
}


static struct live_cpu *earliest(struct tracefs_source *t)
{
	struct live_cpu *best = NULL;

	for (int i = 0; i < t->nr_cpus; i++) {
		struct live_cpu *c = &t->cpus[i];

		if ((c->rec || c->lost_pending) && c->rec_ts <= t->watermark &&
		    (!best || c->rec_ts < best->rec_ts))
			best = c;
	}
	return best;
}

/* Hand out the lost mark at the head of @c's queue. */
static void take_lost(struct live_cpu *c, struct tracefs_source *t, struct msc_event *ev)
{
	*ev = (struct msc_event){
		.ts = c->rec_ts, .cpu = (uint16_t)c->cpu, .pid = -1, .type = MSC_EV_LOST,
		.lost.count = c->missed > 0 ? (uint64_t)c->missed : 0,
	};
	if (c->lost_source)
		snprintf(ev->lost.source, sizeof(ev->lost.source), "%s", c->lost_source);
	else if (c->missed > 0)
		c->st.marked += (uint64_t)c->missed;	/* the kernel's overruns, accounted */
	else
		c->st.unknown_marks++;
	c->lost_pending = false;
	if (!c->rec)
		advance(c, t);
}

/*
 * The kernel cannot filter sys_exit_ioctl by request (an exit has none):
 * enabled for the filtered enters' sake, it brings the exit of every ioctl
 * of the host, KVM_RUN's among them.  An exit is the exit of its task's
 * last enter, so the source completes the filter: it hands out an exit
 * only when its task has an enter handed out and no exit yet.  An enter
 * lost to the ring buffer takes its exit with it (the analyzer could not
 * pair that exit either); an exit lost leaves its task inside until the
 * task's next exit, which is handed out as before.
 */
static bool live_ioctl_keep(struct tracefs_source *t, const struct msc_event *ev)
{
	size_t i = 0;

	if (t->keep_exits)
		return true;
	while (i < t->nr_inside && t->inside[i] != ev->pid)
		i++;
	if (!ev->ioctl.exit) {
		if (i < t->nr_inside)
			return true;
		/* no memory to track: never drop an exit unpaired from now on */
		if (msc_grow((void **)&t->inside, t->nr_inside, &t->inside_cap, sizeof(*t->inside)))
			t->keep_exits = true;
		else
			t->inside[t->nr_inside++] = ev->pid;
		return true;
	}
	if (i == t->nr_inside) {
		t->status.other_exits++;
		return false;
	}
	t->inside[i] = t->inside[--t->nr_inside];
	return true;
}

/**
 * live_next - the ops->next of the live source
 *
 * Returns 1 with an event, -EAGAIN when no event can be handed out yet (wait
 * with msc_live_wait()), 0 once the stream has ended, or a negative error.
 */
int live_next(struct msc_source *src, struct msc_event *ret_ev)
{
	struct tracefs_source *t = to_live(src);
	struct tep_record rec;
	struct live_cpu *c;
	int r;

	for (;;) {
		c = earliest(t);
		if (!c) {
			if (t->done)
				return 0;
			if (t->spool) {
				r = live_spool_round(t);
				if (r < 0)
					return r;
				if (!r)
					return -EAGAIN;
				continue;
			}
			/*
			 * Read again only when data may be waiting: after a wait,
			 * after a round cut short by the page cap, while draining.
			 * Events held back by the watermark wait for that round
			 * too (rereading at once would spin on an idle buffer).
			 */
			if (!t->read_due && !t->more && !t->stopping)
				return -EAGAIN;
			r = round_read(t);
			if (r)
				return r;
			continue;
		}
		if (c->lost_pending) {
			take_lost(c, t, ret_ev);
			return 1;
		}
		rec = (struct tep_record){ .ts = c->rec_ts, .cpu = c->cpu, .data = c->rec,
					   .size = kbuffer_event_size(c->kbuf) };
		r = msc_decoder_decode(t->dec, &rec, ret_ev);
		if (unlikely(r == -ENOMEM))
			return r;	/* the record stays: a next call tries it again */
		c->st.records++;
		advance(c, t);
		if (r > 0 && (ret_ev->type != MSC_EV_IOCTL || live_ioctl_keep(t, ret_ev)))
			return 1;
		if (r < 0)
			t->bad_records++;	/* an id without a format: counted, not fatal */
	}
}

static bool is_regular(int fd)
{
	struct stat st;

	return !fstat(fd, &st) && S_ISREG(st.st_mode);
}

/**
 * live_cpus_open - open every CPU's trace_pipe_raw of the instance
 *
 * Returns 0 or a negative error (the source's error says which file).
 */
int live_cpus_open(struct tracefs_source *t)
{
	char path[64];

	t->cpus = calloc((size_t)t->nr_cpus, sizeof(*t->cpus));
	t->pfds = calloc((size_t)t->nr_cpus, sizeof(*t->pfds));
	if (!t->cpus || !t->pfds)
		return -ENOMEM;
	for (int i = 0; i < t->nr_cpus; i++) {
		struct live_cpu *c = &t->cpus[i];

		c->cpu = i;
		c->st.cpu = i;
		snprintf(path, sizeof(path), "per_cpu/cpu%d/trace_pipe_raw", i);
		c->fd = tracefs_instance_file_open(t->inst, path, O_RDONLY | O_NONBLOCK);
		if (c->fd < 0) {
			int err = errno ? -errno : -ENOENT;

			msc_source_set_error(&t->base, "cannot open %s/%s: %s", t->instance_dir,
					     path, strerror(-err));
			return err;
		}
		c->regular = t->fake && is_regular(c->fd);
		c->tcpu = tracefs_cpu_alloc_fd(c->fd, t->subbuf_size, true);
		c->kbuf = tep_kbuffer(t->tep);
		if (!c->tcpu || !c->kbuf)
			return -ENOMEM;
		t->pfds[i] = (struct pollfd){ .fd = c->fd, .events = POLLIN };
	}
	return 0;
}

/** live_cpus_close - close the raw files and free every page; idempotent */
void live_cpus_close(struct tracefs_source *t)
{
	struct live_page *p;

	for (int i = 0; t->cpus && i < t->nr_cpus; i++) {
		struct live_cpu *c = &t->cpus[i];

		if (c->tcpu)
			tracefs_cpu_free_fd(c->tcpu);
		if (c->fd > 0)
			close(c->fd);
		if (c->kbuf)
			kbuffer_free(c->kbuf);
		while ((p = c->head)) {
			c->head = p->next;
			free(p);
		}
	}
	free(t->cpus);
	free(t->pfds);
	t->cpus = NULL;
	t->pfds = NULL;
	while ((p = t->free_pages)) {
		t->free_pages = p->next;
		free(p);
	}
}
