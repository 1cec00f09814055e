/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Private to lib/source-tracefs*.c: the live source's state.
 *
 * source-tracefs.c sets up and tears down the instance and answers the
 * status and counter queries; source-tracefs-read.c reads raw pages and
 * merges them into the event stream; source-tracefs-kprobe.c registers the
 * kprobe events.  Library types are only forward-declared here: the
 * libtracefs and libtraceevent headers stay in the .c files.
 *
 * Merge invariant: every CPU's pages are queued oldest first; an event is
 * handed out only when its ts <= watermark, and no CPU can still deliver an
 * event earlier than the watermark (see round() in source-tracefs-read.c).
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

/* One raw ring-buffer sub-buffer as read from trace_pipe_raw. */
struct live_page {
	struct live_page *next;
	int size;			/* bytes read */
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
	bool drained;			/* the last read found the buffer empty */
	bool eof;			/* fake tree: the file has ended */
	bool regular;			/* fake tree: a regular file, read 0 = end */
	bool hup;			/* fake tree: a FIFO whose writer has gone */
	uint64_t last_ts;		/* last event of the newest page read */
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

	uint64_t watermark;		/* events with ts <= it may be handed out */
	uint64_t seen_max;		/* latest ts read before the current round */
	uint64_t last_round_end;	/* CLOCK_MONOTONIC ns when the last round ended */
	bool more;			/* a CPU stopped at the page cap: read again */
	bool read_due;			/* waited since the last round: read again */
	bool stopping;			/* tracing is off: drain and end */
	bool done;			/* every CPU drained after the stop, or at EOF */

	bool fake;			/* not a tracefs mount: a test tree */
	struct msc_host_profile profile;	/* this host's (empty for a test tree) */
	bool owns_instance;		/* created here: removed at close */
	struct tracefs_dynevent **kprobes;
	unsigned int nr_kprobes;
	char kprobe_names[1024];
	char group[64];			/* kprobe group: the instance name */

	msc_live_page_fn page_fn;
	void *page_ctx;

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

/* source-tracefs-read.c */
int live_next(struct msc_source *src, struct msc_event *ret_ev);
int live_cpus_open(struct tracefs_source *t);
void live_cpus_close(struct tracefs_source *t);

/* source-tracefs-kprobe.c */
int live_kprobes_register(struct tracefs_source *t);
void live_kprobes_remove(struct tracefs_source *t);
void live_kprobes_remove_stale(struct tracefs_source *t);
bool live_has_patch_events(struct tracefs_source *t, const char **ret_event);

#endif /* MSC_SOURCE_TRACEFS_LOCAL_H */
