// SPDX-License-Identifier: GPL-2.0-only
/*
 * The live source's spool: a drain thread that does nothing but move raw
 * pages from the ring buffers into one file per CPU, and the reading side's
 * round that takes them back from those files, as fast as the stream is
 * consumed.  A storm the decoder cannot follow waits on disk, not in a ring
 * buffer that overwrites it.
 *
 * The drain reads in rounds, as source-tracefs-read.c does without a spool:
 * every CPU until its buffer is empty or LIVE_PAGE_CAP pages were moved.
 * After each round it publishes, per CPU, how many pages its file holds and
 * the CPU's bound (live_bound(): no event of the CPU that is not in those
 * pages is earlier).  The reading side reads a CPU's file up to the
 * published count; a CPU whose published pages were all read is bounded by
 * the published bound, one read only in part by the last event read, and
 * the watermark is the least of these bounds: the merge invariant of
 * source-tracefs-local.h holds as it does without a spool.
 *
 * Invariants:
 *  - page k of a CPU's file is the k-th page the drain took from that CPU
 *    and could keep; a published count covers only pages fully written;
 *  - a page the spool could not take (the disk is full) is a loss entry at
 *    the index of the next page kept, with its events counted, and is
 *    handed out as a "spool" lost mark at that place in the CPU's stream;
 *  - the files are unlinked from their creation (O_TMPFILE), so a killed
 *    recorder leaves nothing; what the reading side has read is punched
 *    out, so the disk holds the backlog only.
 *
 * The pages are copied with tracefs_cpu_read(), not spliced: a splice from
 * trace_pipe_raw hands out full pages only, and a trickle of events would
 * then sit in the kernel until its page filled.
 */
#include "source-tracefs-local.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <unistd.h>

#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>

#include "mmuscope/util.h"

/* The drain's wait for data when every buffer was empty: how stale a trickle may get. */
#define DRAIN_WAIT_MS 20
/* Read pages are punched out of a file in pieces of this many. */
#define PUNCH_PAGES 256

/* Pages a CPU's file could not take, before its page @at. */
struct spool_loss {
	uint64_t at;
	uint64_t pages, events;
	uint64_t ts;			/* the first lost event's */
};

struct spool_cpu {
	int fd;				/* the file, unlinked */

	/* the drain's */
	uint64_t written;		/* pages in the file */
	uint64_t last_ts;		/* last event taken from the ring buffer */
	uint64_t bound;			/* live_bound() after the last round */
	bool drained, eof, hup;

	/* under the spool's lock */
	uint64_t pub_written, pub_bound;
	struct spool_loss *losses;
	size_t nr_losses, losses_cap;
	size_t next_loss;		/* the first loss not yet queued by the reading side */

	/* the reading side's */
	uint64_t snap_written, snap_bound;
	size_t snap_losses;
	uint64_t punched;		/* pages before this one are punched out */
};

struct live_spool {
	pthread_t thread;
	bool started;
	int wake_drain;			/* eventfd: stop or quit was asked */
	int wake_reader;		/* eventfd: the drain published */
	struct pollfd *pfds;		/* the drain's: every CPU's raw file, then wake_drain */
	struct kbuffer *kbuf;		/* the drain's page walker */
	char *pages;			/* the drain's two page buffers */
	size_t page_size;
	uint64_t seen_max, last_round_end, start_ns;
	char drain_err[512];		/* the drain's error message, until published */
	char dir[256];

	pthread_mutex_t lock;
	/* under lock */
	bool stop, quit;		/* asked by the reading side */
	bool done;			/* the drain has ended; every page is published */
	int err;			/* the drain failed: errmsg says why */
	char errmsg[512];
	int lost_errno;			/* why the last page was not kept */
	uint64_t gen;			/* bumped by every publish that changed anything */
	uint64_t pages_written, bytes, lost_pages, lost_events;
	uint64_t read_pages, peak_backlog, end_ns;

	/* the reading side's */
	uint64_t seen_gen;
	uint64_t my_read;		/* pages read back */
	uint64_t warned_pages;		/* lost pages already warned about */
	char warning[384];

	int nr_cpus;
	struct spool_cpu cpu[];
};

static void kick(int fd)
{
	uint64_t one = 1;

	/* an eventfd counter: a failed write only means it is already set */
	if (write(fd, &one, sizeof(one)) < 0)
		return;
}

static void clear(int fd)
{
	uint64_t v;

	if (read(fd, &v, sizeof(v)) < 0)
		return;
}

/*
 * A new unlinked file in @dir.  Without O_TMPFILE (some network and FUSE
 * file systems), a named one unlinked at once: only a kill in between
 * leaves it, as .mmuscope.spool.PID.*, which the next recording with a
 * spool there removes (cli_clean_leftovers()).
 */
static int spool_file(const char *dir)
{
	char path[4200];
	int fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);

	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		return fd < 0 ? -errno : fd;
	snprintf(path, sizeof(path), "%s/.mmuscope.spool.%d.XXXXXX", dir, (int)getpid());
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	unlink(path);
	return fd;
}

/* ---- the drain thread ---- */

static bool disk_error(int err)
{
	return err == ENOSPC || err == EDQUOT || err == EFBIG || err == EIO;
}

/* A page the file could not take: counted, and a loss entry before the next page kept. */
static int lose_page(struct live_spool *s, struct spool_cpu *sc, void *page, int err)
{
	unsigned long long ts = 0;
	uint64_t events = 0, first = 0;
	struct spool_loss *l;

	/*
	 * The page's own missed-events mark goes with it: the kernel's
	 * overrun counter, not covered by a mark, still reports those
	 * (msc_live_poll_lost()).
	 */
	if (!kbuffer_load_subbuffer(s->kbuf, page)) {
		first = kbuffer_subbuf_timestamp(s->kbuf, page);
		for (void *rec = kbuffer_read_event(s->kbuf, &ts); rec;
		     rec = kbuffer_next_event(s->kbuf, &ts))
			if (!events++)
				first = ts;
	}
	pthread_mutex_lock(&s->lock);
	l = sc->nr_losses > sc->next_loss ? &sc->losses[sc->nr_losses - 1] : NULL;
	if (!l || l->at != sc->written) {
		if (sc->nr_losses == sc->losses_cap) {
			size_t n = sc->losses_cap ? 2 * sc->losses_cap : 16;
			struct spool_loss *a = realloc(sc->losses, n * sizeof(*a));

			if (!a) {
				pthread_mutex_unlock(&s->lock);
				return -ENOMEM;
			}
			sc->losses = a;
			sc->losses_cap = n;
		}
		l = &sc->losses[sc->nr_losses++];
		*l = (struct spool_loss){ .at = sc->written, .ts = first };
	}
	l->pages++;
	l->events += events;
	s->lost_pages++;
	s->lost_events += events;
	s->lost_errno = err;
	pthread_mutex_unlock(&s->lock);
	return 0;
}

/* Move one CPU's pages until its buffer is empty or LIVE_PAGE_CAP were taken. */
static int drain_cpu(struct tracefs_source *t, struct live_spool *s, int i)
{
	struct spool_cpu *sc = &s->cpu[i];
	struct live_cpu *c = &t->cpus[i];
	char *page = NULL;
	uint64_t bytes = 0;
	int n = 0;

	sc->drained = false;
	while (n < LIVE_PAGE_CAP) {
		/* two buffers in turn: the round's last page is still there for its timestamp */
		char *buf = s->pages + (size_t)(n & 1) * s->page_size;
		int r = live_read_raw(t, i, c->tcpu, buf, c->regular || sc->hup, &sc->eof,
				      s->drain_err, sizeof(s->drain_err));
		ssize_t w;

		if (r < 0)
			return r;
		if (!r) {
			sc->drained = true;
			break;
		}
		page = buf;
		n++;
		w = pwrite(sc->fd, buf, (size_t)r, (off_t)(sc->written * s->page_size));
		if (w == r) {
			sc->written++;
			bytes += (uint64_t)r;
			continue;
		}
		if (w >= 0)
			errno = ENOSPC;		/* a short write: the disk filled up */
		if (!disk_error(errno)) {
			int err = -errno;

			snprintf(s->drain_err, sizeof(s->drain_err),
				 "%.256s: cannot write the spool of cpu %d: %s", s->dir, i,
				 strerror(-err));
			return err;
		}
		r = lose_page(s, sc, buf, errno);
		if (r)
			return r;
	}
	if (page)
		sc->last_ts = live_page_last_ts(s->kbuf, page, sc->last_ts);
	if (bytes) {
		pthread_mutex_lock(&s->lock);
		s->bytes += bytes;
		pthread_mutex_unlock(&s->lock);
	}
	return n;
}

/* Hand the round's counts and bounds to the reading side; wake it if anything changed. */
static void publish(struct live_spool *s, bool done)
{
	bool changed = done;
	uint64_t total = 0;

	pthread_mutex_lock(&s->lock);
	for (int i = 0; i < s->nr_cpus; i++) {
		struct spool_cpu *sc = &s->cpu[i];

		changed |= sc->pub_written != sc->written || sc->pub_bound != sc->bound ||
			   sc->nr_losses > sc->next_loss;
		sc->pub_written = sc->written;
		sc->pub_bound = sc->bound;
		total += sc->written;
	}
	s->pages_written = total;
	s->peak_backlog = max(s->peak_backlog, total - s->read_pages);
	if (done) {
		s->done = true;
		s->end_ns = msc_mono_ns();
	}
	if (changed)
		s->gen++;
	pthread_mutex_unlock(&s->lock);
	if (changed)
		kick(s->wake_reader);
}

/* One round over every CPU.  Returns 1 once the drain is done, 0, or a negative error. */
static int drain_round(struct tracefs_source *t, struct live_spool *s, bool stop, bool *ret_more)
{
	uint64_t before = live_round_before(s->seen_max, msc_mono_ns(), s->last_round_end);
	bool all_empty = true, all_eof = true, done;

	*ret_more = false;
	for (int i = 0; i < s->nr_cpus; i++) {
		struct spool_cpu *sc = &s->cpu[i];
		int n = sc->eof ? 0 : drain_cpu(t, s, i);

		if (n < 0)
			return n;
		all_empty &= !n;
		*ret_more |= n == LIVE_PAGE_CAP;
		all_eof &= sc->eof;
		s->seen_max = max(s->seen_max, sc->last_ts);
		sc->bound = live_bound(sc->eof, sc->drained, before, sc->last_ts);
	}
	/* tracing was off before @stop was seen: an empty round has everything */
	done = (stop && all_empty) || all_eof;
	s->last_round_end = msc_mono_ns();
	publish(s, done);
	return done;
}

/* Wait for a ring buffer to have data, for the reading side, or DRAIN_WAIT_MS. */
static void drain_wait(struct live_spool *s)
{
	int n = poll(s->pfds, (nfds_t)s->nr_cpus + 1, DRAIN_WAIT_MS);

	for (int i = 0; n > 0 && i < s->nr_cpus; i++)
		if (s->pfds[i].revents & POLLHUP) {
			s->cpu[i].hup = true;
			s->pfds[i].fd = -1;	/* a FIFO whose writer left stays readable */
		}
	if (n > 0 && s->pfds[s->nr_cpus].revents & POLLIN)
		clear(s->wake_drain);
}

static void *drain_main(void *arg)
{
	struct tracefs_source *t = arg;
	struct live_spool *s = t->spool;
	bool stop, quit, more;
	int r;

	/*
	 * The drain takes little CPU but must never wait behind the decoder:
	 * a ring buffer overwrites what is not read in time.  Raising its
	 * priority needs CAP_SYS_NICE (a recorder is root); without, it keeps
	 * the process's.
	 */
	setpriority(PRIO_PROCESS, (id_t)gettid(), -10);
	for (;;) {
		pthread_mutex_lock(&s->lock);
		stop = s->stop;
		quit = s->quit;
		pthread_mutex_unlock(&s->lock);
		if (quit)
			break;
		r = drain_round(t, s, stop, &more);
		if (r < 0) {
			pthread_mutex_lock(&s->lock);
			s->err = r;
			snprintf(s->errmsg, sizeof(s->errmsg), "%s", s->drain_err);
			s->gen++;
			pthread_mutex_unlock(&s->lock);
			kick(s->wake_reader);
			break;
		}
		if (r)
			break;
		if (!more)
			drain_wait(s);
	}
	return NULL;
}

/**
 * live_spool_start - a spool in @dir and the drain thread that fills it
 *
 * Call once the CPUs' raw files are open; from then on only the drain reads
 * them.  Returns 0 or a negative errno (the source's error names the file).
 */
int live_spool_start(struct tracefs_source *t, const char *dir)
{
	struct live_spool *s;
	sigset_t all, old;
	int r;

	s = calloc(1, sizeof(*s) + (size_t)t->nr_cpus * sizeof(s->cpu[0]));
	if (!s)
		return -ENOMEM;
	t->spool = s;
	s->nr_cpus = t->nr_cpus;
	s->page_size = (size_t)t->subbuf_size;
	s->wake_drain = s->wake_reader = -1;
	snprintf(s->dir, sizeof(s->dir), "%s", dir);
	pthread_mutex_init(&s->lock, NULL);
	for (int i = 0; i < s->nr_cpus; i++)
		s->cpu[i].fd = -1;
	s->pfds = calloc((size_t)s->nr_cpus + 1, sizeof(*s->pfds));
	s->pages = malloc(2 * s->page_size);
	s->kbuf = tep_kbuffer(t->tep);
	if (!s->pfds || !s->pages || !s->kbuf)
		return -ENOMEM;
	s->wake_drain = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	s->wake_reader = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (s->wake_drain < 0 || s->wake_reader < 0)
		return -errno;
	for (int i = 0; i < s->nr_cpus; i++) {
		s->cpu[i].fd = spool_file(dir);
		if (s->cpu[i].fd < 0) {
			r = s->cpu[i].fd;
			msc_source_set_error(&t->base, "%s: cannot make a spool file there: %s", dir,
					     strerror(-r));
			return r;
		}
		s->pfds[i] = (struct pollfd){ .fd = t->cpus[i].fd, .events = POLLIN };
	}
	s->pfds[s->nr_cpus] = (struct pollfd){ .fd = s->wake_drain, .events = POLLIN };
	s->start_ns = msc_mono_ns();
	/* signals are the reading side's (Ctrl-C): the drain takes none */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = -pthread_create(&s->thread, NULL, drain_main, t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r)
		return r;
	s->started = true;
	return 0;
}

/** live_spool_stop - tracing is off: the drain ends after a round that finds every buffer empty */
void live_spool_stop(struct tracefs_source *t)
{
	struct live_spool *s = t->spool;

	pthread_mutex_lock(&s->lock);
	s->stop = true;
	pthread_mutex_unlock(&s->lock);
	kick(s->wake_drain);
}

/** live_spool_end - stop the drain wherever it is, and free the spool; idempotent */
void live_spool_end(struct tracefs_source *t)
{
	struct live_spool *s = t->spool;

	if (!s)
		return;
	if (s->started) {
		pthread_mutex_lock(&s->lock);
		s->quit = true;
		pthread_mutex_unlock(&s->lock);
		kick(s->wake_drain);
		pthread_join(s->thread, NULL);
	}
	for (int i = 0; i < s->nr_cpus; i++) {
		if (s->cpu[i].fd >= 0)
			close(s->cpu[i].fd);
		free(s->cpu[i].losses);
	}
	if (s->wake_drain >= 0)
		close(s->wake_drain);
	if (s->wake_reader >= 0)
		close(s->wake_reader);
	if (s->kbuf)
		kbuffer_free(s->kbuf);
	pthread_mutex_destroy(&s->lock);
	free(s->pfds);
	free(s->pages);
	free(s);
	t->spool = NULL;
}

/* ---- the reading side ---- */

/* Queue, as marks, the losses of @c before its next page (and, caught up, at its end). */
static int queue_losses(struct tracefs_source *t, struct live_spool *s, struct live_cpu *c)
{
	struct spool_cpu *sc = &s->cpu[c->cpu];
	int n = 0;

	if (sc->snap_losses <= sc->next_loss)
		return 0;	/* read without the lock: only this side moves next_loss */
	pthread_mutex_lock(&s->lock);
	while (sc->next_loss < sc->snap_losses && sc->losses[sc->next_loss].at <= c->spool_next) {
		const struct spool_loss *l = &sc->losses[sc->next_loss];
		struct live_page *p = live_get_page(t);

		if (!p) {
			pthread_mutex_unlock(&s->lock);
			return -ENOMEM;
		}
		p->size = 0;
		p->lost = max(l->events, (uint64_t)1);	/* a page without events still broke the stream */
		p->lost_ts = l->ts;
		live_queue_page(c, p);
		sc->next_loss++;
		n++;
	}
	pthread_mutex_unlock(&s->lock);
	return n;
}

/* Read @c's published pages back, LIVE_PAGE_CAP at most; returns how many pages and marks. */
static int read_back(struct tracefs_source *t, struct live_spool *s, struct live_cpu *c)
{
	struct spool_cpu *sc = &s->cpu[c->cpu];
	struct live_page *last = NULL;
	int n = 0, m;

	for (;;) {
		struct live_page *p;
		ssize_t r;

		m = queue_losses(t, s, c);
		if (m < 0)
			return m;
		n += m;
		if (n >= LIVE_PAGE_CAP || c->spool_next >= sc->snap_written)
			break;
		p = live_get_page(t);
		if (!p)
			return -ENOMEM;
		r = pread(sc->fd, p->data, s->page_size, (off_t)(c->spool_next * s->page_size));
		if (r <= 0) {
			int err = r < 0 ? -errno : -EIO;

			free(p);
			msc_source_set_error(&t->base, "%s: cannot read the spool of cpu %d back: %s",
					     s->dir, c->cpu, r < 0 ? strerror(-err) : "it is short");
			return err;
		}
		p->size = (int)r;
		live_queue_page(c, p);
		last = p;
		c->spool_next++;
		c->st.pages++;
		s->my_read++;
		n++;
	}
	if (last)
		c->last_ts = live_page_last_ts(t->scan_kbuf, last->data, c->last_ts);
	if (n)
		live_queued(t, c);
	/* a copy is in memory now: the disk keeps only what is still to read */
	if (c->spool_next - sc->punched >= PUNCH_PAGES) {
		fallocate(sc->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			  (off_t)(sc->punched * s->page_size),
			  (off_t)((c->spool_next - sc->punched) * s->page_size));
		sc->punched = c->spool_next;
	}
	return n;
}

/**
 * live_spool_round - the reading side's round with a spool: take what the
 *	drain published, read it back, set the watermark
 *
 * Returns 1 when the stream moved on (pages, a higher watermark, the end),
 * 0 when nothing new was published (wait with live_spool_wait()), or a
 * negative error (the drain's, or reading back; the source's error says).
 */
int live_spool_round(struct tracefs_source *t)
{
	struct live_spool *s = t->spool;
	uint64_t w = UINT64_MAX;
	bool done, caught_up = true, moved = false;
	int err;

	pthread_mutex_lock(&s->lock);
	err = s->err;
	if (err)
		msc_source_set_error(&t->base, "%s", s->errmsg);
	moved = s->gen != s->seen_gen;
	s->seen_gen = s->gen;
	for (int i = 0; i < s->nr_cpus; i++) {
		struct spool_cpu *sc = &s->cpu[i];

		sc->snap_written = sc->pub_written;
		sc->snap_bound = sc->pub_bound;
		sc->snap_losses = sc->nr_losses;
	}
	s->read_pages = s->my_read;
	done = s->done;
	pthread_mutex_unlock(&s->lock);
	if (err)
		return err;
	if (!moved && !t->more)
		return 0;

	t->more = false;
	for (int i = 0; i < t->nr_cpus; i++) {
		struct live_cpu *c = &t->cpus[i];
		struct spool_cpu *sc = &s->cpu[i];
		int n = read_back(t, s, c);

		if (n < 0)
			return n;
		if (c->spool_next < sc->snap_written || sc->next_loss < sc->snap_losses) {
			/* stopped at the cap: what is left starts after the last event read */
			t->more = true;
			caught_up = false;
			w = min(w, c->last_ts);
		} else {
			w = min(w, sc->snap_bound);
		}
	}
	if (done && caught_up) {
		t->done = true;
		w = UINT64_MAX;
	}
	t->watermark = w;
	return 1;
}

/** live_spool_wait - wait until the drain publishes, or @timeout_ms; 0 or -errno */
int live_spool_wait(struct tracefs_source *t, int timeout_ms)
{
	struct pollfd p = { .fd = t->spool->wake_reader, .events = POLLIN };
	int r = poll(&p, 1, timeout_ms);

	if (r < 0 && errno != EINTR)
		return -errno;
	if (r > 0)
		clear(p.fd);
	return 0;
}

/** live_spool_get_stats - what went through the spool so far */
void live_spool_get_stats(struct tracefs_source *t, struct msc_live_spool_stats *ret)
{
	struct live_spool *s = t->spool;

	pthread_mutex_lock(&s->lock);
	*ret = (struct msc_live_spool_stats){
		.on = true, .pages = s->pages_written, .bytes = s->bytes,
		.backlog = s->pages_written - s->my_read, .peak_backlog = s->peak_backlog,
		.lost_pages = s->lost_pages,
		.lost_events = s->lost_events,
		.drain_s = s->done ? (double)(s->end_ns - s->start_ns) / 1e9 : 0,
	};
	pthread_mutex_unlock(&s->lock);
}

/** live_spool_warning - one line on events the spool lost since the last call, or NULL */
const char *live_spool_warning(struct tracefs_source *t)
{
	struct live_spool *s = t->spool;
	uint64_t events, pages;
	int err;

	pthread_mutex_lock(&s->lock);
	events = s->lost_events;
	pages = s->lost_pages;
	err = s->lost_errno;
	pthread_mutex_unlock(&s->lock);
	if (pages == s->warned_pages)
		return NULL;
	s->warned_pages = pages;
	snprintf(s->warning, sizeof(s->warning),
		 "%s: the spool could not keep %llu pages (%llu events, marked as lost): %s",
		 s->dir, (unsigned long long)pages, (unsigned long long)events, strerror(err));
	return s->warning;
}
