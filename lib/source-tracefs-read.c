// SPDX-License-Identifier: GPL-2.0-only
/*
 * The live source's reading side: raw pages from every CPU's
 * trace_pipe_raw (tracefs_cpu_read(), never blocking), merged by timestamp
 * into one event stream and decoded by the same decoder as a trace.dat.
 *
 * Reading goes in rounds: each round reads every CPU until its buffer is
 * empty or PAGE_CAP pages were taken.  The kernel writes each CPU's buffer
 * in time order, so what a CPU has not delivered yet is no earlier than
 *  - the last event read from it, when the round stopped at the cap;
 *  - the moment the round found it empty, when it was drained; that moment
 *    is later than every event read in earlier rounds (seen_max).
 * The watermark is the least of these bounds; events up to it are handed
 * out, the rest wait for the next round.  An event becomes readable when it
 * is committed, a moment after its timestamp was taken (longer if an
 * interrupt nests in between); when rounds follow each other closely that
 * moment matters, so a drained CPU's bound is then moved back by SLACK_NS.  Once tracing is off (or a fake
 * tree's files have ended) a round that finds every CPU empty ends the
 * stream and everything left is handed out.
 *
 * Per event this costs one kbuffer step, a scan of the CPUs with queued
 * records and the decoder; pages are recycled, nothing is allocated.
 */
#include "source-tracefs-local.h"

#include <errno.h>
#include <fcntl.h>
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

/* Pages read from one CPU per round: bounds memory to ~2 rounds of pages. */
#define PAGE_CAP 64
/* Longest reserve-to-commit delay of an event that is allowed for. */
#define SLACK_NS 2000000ULL

static struct live_page *get_page(struct tracefs_source *t)
{
	struct live_page *p = t->free_pages;

	if (p) {
		t->free_pages = p->next;
		return p;
	}
	return malloc(sizeof(*p) + (size_t)t->subbuf_size);
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

		kbuffer_load_subbuffer(c->kbuf, p->data);
		c->missed = kbuffer_missed_events(c->kbuf);
		c->rec = kbuffer_read_event(c->kbuf, &c->rec_ts);
		c->lost_pending = c->missed != 0;
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

/* The timestamp of the last event of a page (read once per CPU per round). */
static uint64_t last_ts_of(struct tracefs_source *t, struct live_page *p, uint64_t dflt)
{
	unsigned long long ts;
	uint64_t last = dflt;

	/* the CPU's own kbuffer is the merge cursor: walk with the spare one */
	if (kbuffer_load_subbuffer(t->scan_kbuf, p->data))
		return dflt;
	for (void *rec = kbuffer_read_event(t->scan_kbuf, &ts); rec;
	     rec = kbuffer_next_event(t->scan_kbuf, &ts))
		last = ts;
	return last;
}

/*
 * Read one CPU until it is empty or PAGE_CAP pages were taken.  Returns the
 * number of pages read or a negative error.
 */
static int read_cpu(struct tracefs_source *t, struct live_cpu *c)
{
	int n = 0;

	c->drained = false;
	while (n < PAGE_CAP) {
		struct live_page *p = get_page(t);
		int r;

		if (!p)
			return -ENOMEM;
		r = tracefs_cpu_read(c->tcpu, p->data, true);
		if (r <= 0) {
			put_page(t, p);
			if (r < 0 && errno != EINTR && errno != EAGAIN) {
				msc_source_set_error(&t->base, "cannot read cpu %d ring buffer: %s",
						     c->cpu, strerror(errno));
				return -errno;
			}
			c->drained = true;
			/* a fake tree's file ends; a real ring buffer is only empty */
			if (r == 0 && (c->regular || c->hup))
				c->eof = true;
			break;
		}
		p->size = r;
		p->next = NULL;
		if (t->page_fn) {
			int e = t->page_fn(t->page_ctx, c->cpu, p->data, (size_t)r);

			if (e) {
				put_page(t, p);
				return e;
			}
		}
		if (c->tail)
			c->tail->next = p;
		else
			c->head = p;
		c->tail = p;
		c->st.pages++;
		n++;
	}
	if (n) {
		c->last_ts = last_ts_of(t, c->tail, c->last_ts);
		if (!c->rec && !c->lost_pending)
			load_head(c, t);
	}
	return n;
}

/* One round over all CPUs; sets the watermark (see the header comment). */
static int round_read(struct tracefs_source *t)
{
	uint64_t before = t->seen_max, w = UINT64_MAX, start = msc_mono_ns();
	bool all_empty = true, all_eof = true;

	/* events read last round were committed at least this long ago */
	if (start - t->last_round_end < SLACK_NS)
		before = before > SLACK_NS ? before - SLACK_NS : 0;

	t->more = false;
	t->read_due = false;
	for (int i = 0; i < t->nr_cpus; i++) {
		struct live_cpu *c = &t->cpus[i];
		int n = c->eof ? 0 : read_cpu(t, c);

		if (n < 0)
			return n;
		if (n)
			all_empty = false;
		if (n == PAGE_CAP)
			t->more = true;
		all_eof &= c->eof;
		t->seen_max = max(t->seen_max, c->last_ts);
		if (c->eof)
			continue;
		w = min(w, c->drained ? before : c->last_ts);
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
	if (c->missed > 0)
		c->st.marked += (uint64_t)c->missed;
	else
		c->st.unknown_marks++;
	c->lost_pending = false;
	if (!c->rec)
		advance(c, t);
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
		c->st.records++;
		advance(c, t);
		if (r > 0)
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
