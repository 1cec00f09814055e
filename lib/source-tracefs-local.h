/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Private to lib/source-tracefs*.c: the live source's state.
 *
 * source-tracefs.c sets up and tears down the instance and answers the
 * status and counter queries; source-tracefs-read.c merges raw pages into
 * the event stream; source-tracefs-spool.c's drain thread moves the pages
 * from the ring buffers to spool files when the source has a spool;
 * source-tracefs-kprobe.c registers the kprobe events.  Library types are only forward-declared here: the
 * libtracefs and libtraceevent headers stay in the .c files.
 *
 * Merge invariant: every CPU's pages are queued oldest first; an event is
 * handed out only when its ts <= watermark, and no CPU can still deliver an
 * event earlier than the watermark (see source-tracefs-read.c).  A CPU's
 * bound is the earliest ts it can still deliver: live_bound().
 *
 * Ownership with a spool: the drain thread alone touches the CPUs' raw
 * files (fd, tcpu) and the page tap; the reading thread owns everything
 * else of struct live_cpu.  They meet only in struct live_spool, under its
 * lock.
 */
#ifndef MSC_SOURCE_TRACEFS_LOCAL_H
#define MSC_SOURCE_TRACEFS_LOCAL_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>

#include "mmuscope/live.h"
#include "source-local.h"

struct kbuffer;
struct msc_decoder;
struct tep_handle;
struct tracefs_cpu;
struct tracefs_dynevent;
struct tracefs_instance;
struct live_spool;

/* Pages read from one CPU per round: bounds memory to ~2 rounds of pages. */
#define LIVE_PAGE_CAP 64
/* Longest reserve-to-commit delay of an event that is allowed for. */
#define LIVE_SLACK_NS 2000000ULL

/*
 * One raw ring-buffer sub-buffer as read from trace_pipe_raw, or (lost > 0)
 * a mark in its place: that many events were read but could not be kept.
 */
struct live_page {
	struct live_page *next;
	int size;			/* bytes read */
	uint64_t lost;			/* > 0: a mark, not a page */
	uint64_t lost_ts;		/* the mark's time: its first lost event's */
	char data[];			/* subbuf_size bytes */
};

struct live_cpu {
	int cpu;
	int fd;				/* per_cpu/cpuN/trace_pipe_raw, nonblocking */
	struct tracefs_cpu *tcpu;
	struct kbuffer *kbuf;		/* loaded with head when rec or lost_pending */
	struct live_page *head, *tail;	/* read, not yet handed out; oldest first */
	void *rec;			/* current record in head, NULL none */
	unsigned long long rec_ts;	/* its timestamp (or the lost mark's) */
	int missed;			/* kbuffer_missed_events() of head */
	bool lost_pending;		/* hand out a LOST event before rec */
	const char *lost_source;	/* of that event: NULL ring buffer, "spool" */
	bool drained;			/* the last read found the buffer empty */
	bool eof;			/* fake tree: the file has ended */
	bool regular;			/* fake tree: a regular file, read 0 = end */
	bool hup;			/* fake tree: a FIFO whose writer has gone */
	uint64_t last_ts;		/* last event of the newest page read */
	uint64_t spool_next;		/* spool: its next page to read */
	struct msc_live_cpu_stats st;	/* counters of this source */
	uint64_t told_overrun, told_dropped, told_commit;	/* reported by poll_lost */
};

struct tracefs_source {
	struct msc_source base;
	struct tracefs_instance *inst;
	struct tep_handle *tep;
	struct msc_decoder *dec;
	struct live_cpu *cpus;
	struct pollfd *pfds;		/* one per CPU */
	int nr_cpus;
	int subbuf_size;
	struct live_page *free_pages;	/* recycled pages: no allocation per page read */
	struct kbuffer *scan_kbuf;	/* walks a page without moving a CPU's cursor */
	uint64_t bad_records;		/* records whose event id has no format */
	/*
	 * Tasks with an ioctl enter handed out and no exit yet (a handful:
	 * the threads inside a recorded KVM ioctl, and one whose exit was
	 * lost until its next exit).  Only the exit of such a task is handed
	 * out (live_ioctl_keep()); @keep_exits: tracking failed for want of
	 * memory, every exit is handed out from then on.
	 */
	int32_t *inside;
	size_t nr_inside, inside_cap;
	bool keep_exits;

	uint64_t watermark;		/* events with ts <= it may be handed out */
	uint64_t seen_max;		/* latest ts read before the current round */
	uint64_t last_round_end;	/* CLOCK_MONOTONIC ns when the last round ended */
	bool more;			/* a CPU stopped at the page cap: read again */
	bool read_due;			/* waited since the last round: read again */
	bool stopping;			/* tracing is off: drain and end */
	bool done;			/* every CPU drained after the stop, or at EOF */

	bool fake;			/* not a tracefs mount: a test tree */
	bool cmdlines_loaded;		/* saved_cmdlines is in the tep (live_get_task()) */
	struct msc_host_profile profile;	/* this host's (empty for a test tree) */
	bool owns_instance;		/* created here: removed at close */
	struct tracefs_dynevent **kprobes;
	unsigned int nr_kprobes;
	char kprobe_names[1024];
	char group[64];			/* kprobe group: the instance name */

	msc_live_page_fn page_fn;
	void *page_ctx;
	struct live_spool *spool;	/* NULL: live_next() reads the ring buffers itself */

	char **formats;			/* "system/event" of every format parsed */
	size_t nr_formats, formats_cap;

	struct msc_live_status status;
	char mode_detail[256];
	char clock[32];
	char *instance_dir;
	char *marker_path;
	char *tracing_dir;		/* custom tracing dir, or NULL */
};

static inline struct tracefs_source *to_live(const struct msc_source *src)
{
	return (struct tracefs_source *)src;
}

/*
 * The earliest ts a CPU can still deliver after a read that left its newest
 * event at @last_ts: none once its file ended; @before (the latest ts read
 * before this round) when the read found it empty; else @last_ts.
 */
static inline uint64_t live_bound(bool eof, bool drained, uint64_t before, uint64_t last_ts)
{
	return eof ? UINT64_MAX : drained ? before : last_ts;
}

/*
 * The @before of live_bound() for a round that starts at @start_ns (mono)
 * when the previous one ended at @last_end_ns and everything read until
 * then was no later than @seen_max: events read last round were committed
 * at least LIVE_SLACK_NS ago, unless the rounds follow each other closely.
 */
static inline uint64_t live_round_before(uint64_t seen_max, uint64_t start_ns,
					 uint64_t last_end_ns)
{
	if (start_ns - last_end_ns >= LIVE_SLACK_NS)
		return seen_max;
	return seen_max > LIVE_SLACK_NS ? seen_max - LIVE_SLACK_NS : 0;
}

/* source-tracefs-read.c */
int live_next(struct msc_source *src, struct msc_event *ret_ev);
int live_cpus_open(struct tracefs_source *t);
void live_cpus_close(struct tracefs_source *t);
int live_read_raw(struct tracefs_source *t, int cpu, struct tracefs_cpu *tcpu, void *buf,
		  bool ends, bool *ret_end, char *err, size_t err_size);
uint64_t live_page_last_ts(struct kbuffer *kb, const void *page, uint64_t dflt);
struct live_page *live_get_page(struct tracefs_source *t);
void live_queue_page(struct live_cpu *c, struct live_page *p);
void live_queued(struct tracefs_source *t, struct live_cpu *c);

/* source-tracefs-spool.c */
int live_spool_start(struct tracefs_source *t, const char *dir);
void live_spool_end(struct tracefs_source *t);
int live_spool_round(struct tracefs_source *t);
int live_spool_wait(struct tracefs_source *t, int timeout_ms);
void live_spool_stop(struct tracefs_source *t);
void live_spool_get_stats(struct tracefs_source *t, struct msc_live_spool_stats *ret);
const char *live_spool_warning(struct tracefs_source *t);

/* source-tracefs-light.c */
uint64_t live_light_mask(unsigned int n);
int live_light_enable(struct tracefs_source *t, unsigned int n,
		      int (*enable)(struct tracefs_source *t, const char *system,
				    const char *event));

/* source-tracefs-kprobe.c */
int live_kprobes_register(struct tracefs_source *t, bool per_call);
void live_kprobes_remove(struct tracefs_source *t);
void live_kprobes_remove_stale(struct tracefs_source *t);
bool live_has_patch_events(struct tracefs_source *t, const char **ret_event);

#endif /* MSC_SOURCE_TRACEFS_LOCAL_H */
