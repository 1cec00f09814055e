/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Synthetic traces: real kernel formats, real ring-buffer pages, a model of
 * the TDP MMU behind them.
 *
 * Four layers, each usable on its own:
 *
 *  formats    one kernel's event format files (a directory laid out as
 *             tracefs' events/: header_page, header_event, <sys>/<ev>/format),
 *             parsed by libtraceevent.
 *  ringbuf    the kernel's sub-buffer ("page") layout: u64 timestamp, commit
 *             word (with the missed-events flags), then events with a 4-byte
 *             type_len:5|time_delta:27 header, TIME_EXTEND for long gaps,
 *             absolute TIME_STAMP, PADDING at a full page's tail.  Offsets
 *             and sizes come from header_page/header_event, never constants.
 *  writer     struct msc_event values -> kernel records (every field placed
 *             by name at the format's offset and size) -> per-CPU pages
 *             written to one file descriptor per CPU.
 *  model      `mmuscope synth`: the dirty-logging life cycle of a VM
 *             (populate, enable, dirty passes, harvests, disable,
 *             repopulate, teardown) as the TDP MMU of 6.1, 6.12, 6.13+ or
 *             7.3 traces it, with KVM's page counters in trace_marker lines.
 *
 * A fake tracing directory (msc_synth_dir_create()) is what a live reader
 * sees under /sys/kernel/tracing, with per_cpu/cpuN/trace_pipe_raw as
 * regular files (or FIFOs) full of raw pages:
 *
 *   DIR/events/header_page, header_event          copied from the formats
 *   DIR/events/<sys>/<ev>/{format,id,enable,filter}, <sys>/{enable,filter}
 *   DIR/events/enable, tracing_on, trace_clock, buffer_size_kb,
 *       buffer_total_size_kb, current_tracer, trace_marker, saved_cmdlines,
 *       printk_formats (empty), kallsyms (a few symbols)
 *   DIR/per_cpu/cpuN/{trace_pipe_raw,buffer_size_kb,stats}
 *   DIR/instances/NAME/...                        the same tree, so that
 *       tracefs_instance_create(NAME) finds it and reports it as not new
 *
 * The pages go to the instance's per_cpu files when an instance is named,
 * else to the top level; the other set exists and is empty.
 */
#ifndef MSC_SYNTH_H
#define MSC_SYNTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmuscope/spte.h"

struct msc_event;
struct msc_ringbuf_layout;

/* ---- formats ---------------------------------------------------------- */

struct msc_synth_formats;

int msc_synth_formats_open(const char *dir, struct msc_synth_formats **ret, char *err,
			   size_t err_size);
void msc_synth_formats_free(struct msc_synth_formats *f);
const char *msc_synth_formats_release(const struct msc_synth_formats *f);
const struct msc_ringbuf_layout *msc_synth_formats_layout(const struct msc_synth_formats *f);
bool msc_synth_formats_has(const struct msc_synth_formats *f, const char *system,
			   const char *name);

/* ---- ring-buffer pages ------------------------------------------------ */

/* Where the parts of a sub-buffer and of an event header are. */
struct msc_ringbuf_layout {
	unsigned int ts_offset, ts_size;	/* header_page "timestamp" */
	unsigned int commit_offset, commit_size;	/* "commit": bytes used | flags */
	unsigned int data_offset, data_size;	/* "data": the events */
	unsigned int type_len_bits;		/* header_event: 5 */
	unsigned int time_delta_bits;		/* 27 */
	unsigned int type_padding, type_time_extend, type_time_stamp;	/* 29 30 31 */
	unsigned int type_data_max;		/* 28: longer records use array[0] */
};

int msc_ringbuf_layout_parse(struct msc_ringbuf_layout *l, const char *header_page,
			     size_t header_page_len, const char *header_event,
			     size_t header_event_len);

static inline size_t msc_ringbuf_page_size(const struct msc_ringbuf_layout *l)
{
	return l->data_offset + l->data_size;
}

/* Called with every finished page (always msc_ringbuf_page_size() bytes). */
typedef int (*msc_ringbuf_page_fn)(void *ctx, const void *page, size_t size);

/* What one CPU's encoder wrote. */
struct msc_ringbuf_stats {
	uint64_t events;	/* data events */
	uint64_t pages;		/* pages handed to the page function */
	uint64_t time_extends;	/* TIME_EXTEND events */
	uint64_t time_stamps;	/* absolute TIME_STAMP events */
	uint64_t paddings;	/* pages closed with a PADDING event */
	uint64_t missed_pages;	/* pages carrying the missed-events flag */
	uint64_t bytes;		/* record bytes (without event headers) */
};

/*
 * One CPU's page encoder.  Timestamps must not go backwards; a gap of
 * 2^time_delta_bits ns or more becomes a TIME_EXTEND, as the kernel does.
 * The struct is public so that it can be embedded; treat it as opaque.
 */
struct msc_ringbuf {
	const struct msc_ringbuf_layout *layout;
	unsigned char *page;		/* msc_ringbuf_page_size() bytes */
	size_t used;			/* bytes of the data area in use */
	uint64_t last_ts;		/* time of the last event on the page */
	bool open;			/* a page is being filled */
	bool missed;			/* next page carries the missed flag */
	uint64_t missed_count;		/* ... with this count (0: unknown) */
	msc_ringbuf_page_fn page_fn;
	void *ctx;
	struct msc_ringbuf_stats stats;
};

int msc_ringbuf_init(struct msc_ringbuf *rb, const struct msc_ringbuf_layout *l,
		     msc_ringbuf_page_fn fn, void *ctx);
void msc_ringbuf_release(struct msc_ringbuf *rb);
int msc_ringbuf_add(struct msc_ringbuf *rb, uint64_t ts, const void *rec, size_t len);
int msc_ringbuf_add_time_stamp(struct msc_ringbuf *rb, uint64_t ts);
int msc_ringbuf_lost(struct msc_ringbuf *rb, uint64_t count);
int msc_ringbuf_flush(struct msc_ringbuf *rb);
void msc_ringbuf_mark_missed(const struct msc_ringbuf_layout *l, void *page);

/* ---- writer: events -> records -> pages ------------------------------- */

struct msc_synth_writer;

int msc_synth_writer_open(const struct msc_synth_formats *f, unsigned int nr_cpus,
			  const int *fds, struct msc_synth_writer **ret);
int msc_synth_writer_add(struct msc_synth_writer *w, const struct msc_event *ev);
int msc_synth_writer_close(struct msc_synth_writer *w);
void msc_synth_writer_free(struct msc_synth_writer *w);
void msc_synth_writer_stats(const struct msc_synth_writer *w, unsigned int cpu,
			    struct msc_ringbuf_stats *ret);
const char *msc_synth_writer_error(const struct msc_synth_writer *w);

/* Kernel address of tracing_mark_write() in the records and in kallsyms. */
#define MSC_SYNTH_MARKER_IP 0xffffffff8123a4b0ULL

/* ---- fake tracing directory ------------------------------------------- */

/* A task named in saved_cmdlines. */
struct msc_synth_comm {
	int pid;
	char comm[16];		/* TASK_COMM_LEN */
};

/* A symbol written to DIR/kallsyms. */
struct msc_synth_sym {
	uint64_t addr;
	const char *name;
};

enum msc_synth_dir_flags {
	MSC_SYNTH_DIR_FIFO = 1 << 0,	/* trace_pipe_raw files are FIFOs */
};

struct msc_synth_dir {
	const char *path;		/* created if missing */
	const char *instance;		/* NULL: pages go to the top level */
	unsigned int nr_cpus;
	unsigned int flags;		/* enum msc_synth_dir_flags */
	const char *trace_clock;	/* selected clock, "local" if NULL */
	const struct msc_synth_comm *comms;
	size_t nr_comms;
	const struct msc_synth_sym *syms;
	size_t nr_syms;
};

int msc_synth_dir_create(const struct msc_synth_dir *d, const struct msc_synth_formats *f);
int msc_synth_dir_cpu_path(const struct msc_synth_dir *d, unsigned int cpu, char *buf,
			   size_t size);
/* How msc_synth_dir_feed() delivers the pages. */
struct msc_synth_feed {
	const struct msc_ringbuf_layout *layout;
	unsigned int delay_us;		/* pause after each page written, 0 for none */
	/*
	 * > 0: a kernel's ring buffer: each CPU makes this many pages a
	 * second whether or not they are read, and holds ring_pages of them
	 * unread; beyond that the oldest is overwritten and the next page
	 * read carries the missed-events flag.
	 */
	unsigned int page_rate;
	unsigned int ring_pages;
};

int msc_synth_dir_feed(const struct msc_synth_dir *d, const int *src_fds,
		       const struct msc_synth_feed *feed, uint64_t *ret_dropped);

/* ---- the model --------------------------------------------------------- */

enum msc_synth_backing {
	MSC_SYNTH_BACKING_4K,	/* anon memory without THP */
	MSC_SYNTH_BACKING_2M,	/* THP (or hugetlb 2M) */
	MSC_SYNTH_BACKING_1G,	/* hugetlb 1G */
};

/* The scenario: what dirtylog (workload/dirtylog.c) would run, and where. */
struct msc_synth_opts {
	uint64_t guest_mib;	/* test slot size */
	enum msc_synth_backing backing;
	unsigned int vcpus;
	unsigned int cpus;	/* host CPUs = per-CPU buffers; 0: vcpus + 1 */
	unsigned int cycles;	/* enable .. repopulate repeated */
	unsigned int passes;	/* dirty passes per cycle */
	unsigned int percent;	/* pages written per dirty pass */
	const char *kernel;	/* "6.1", "6.12", "6.13", "6.18", "7.3" */
	enum msc_vendor vendor;	/* NPT or EPT SPTE layout */
	bool eager_split;	/* kvm.eager_page_split */
	bool pml;		/* EPT page-modification logging */
	bool clear_log;		/* manual protect + INITIALLY_SET, KVM_CLEAR_DIRTY_LOG */
	bool kprobes;		/* the captures' "lab" kprobes, where formats have them */
	uint64_t lost_events;	/* dropped on CPU 0 from enable_dirty_logging on */
	uint64_t seed;		/* timing jitter; same seed, same trace */
	const char *stop_after;	/* phase name; NULL: run to the end */
};

/* What the model did, in the kernel's own counters. */
struct msc_synth_stats {
	uint64_t events;		/* events handed to the writer */
	uint64_t by_type[MSC_EV_NR];	/* ... per enum msc_event_type */
	uint64_t lost;			/* events dropped (--lost-events) */
	uint64_t pages_4k, pages_2m, pages_1g;	/* leaves at the end */
	uint64_t remote_tlb_flush_requests;
	uint64_t first_ts, last_ts;
	unsigned int nr_cpus;
};

typedef int (*msc_synth_emit_fn)(void *ctx, const struct msc_event *ev);

void msc_synth_opts_init(struct msc_synth_opts *o);
int msc_synth_opts_check(const struct msc_synth_opts *o, char *why, size_t size);
const char *msc_synth_formats_name(const char *kernel);
const char *msc_synth_release(const char *kernel);
int msc_synth_comms(const struct msc_synth_opts *o, struct msc_synth_comm *ret, size_t max);
size_t msc_synth_syms(const struct msc_synth_sym **ret);
int msc_synth_run(const struct msc_synth_opts *o, const struct msc_synth_formats *f,
		  msc_synth_emit_fn emit, void *ctx, struct msc_synth_stats *ret);

/* ---- trace.dat -------------------------------------------------------- */

int msc_tracedat_write(const char *path, const char *tracing_dir, const char *kallsyms,
		       unsigned int nr_cpus, char *const *cpu_files, int file_version,
		       const char *compression, const char *uname);

#endif /* MSC_SYNTH_H */
