/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Live recording on a KVM host: the tracefs source, the host profile read
 * from /sys and /proc, KVM's own counters, and what the store keeps of them.
 *
 * The tracefs source records into a dedicated instance (never the top-level
 * buffer), reads every CPU's raw ring-buffer pages without blocking, and
 * merges them by timestamp into the same struct msc_event stream as a
 * trace.dat: same decoder, same ingest pipeline, same store.  An event is
 * handed out only once no CPU can still deliver an earlier one (see
 * lib/source-tracefs.c), so the stream stays in timestamp order while it
 * is being recorded.  msc_source_next() returns -EAGAIN when nothing is
 * ready; the caller then waits with msc_live_wait().  After msc_live_stop()
 * the source drains what the kernel still holds and ends (0).
 *
 * Nothing recorded is ever lost silently: pages the kernel marked as
 * following dropped events become MSC_EV_LOST events in the stream, and
 * the per-CPU counters (overrun, dropped, commit overrun) not covered by
 * such marks come out of msc_live_poll_lost().
 *
 * With a spool (msc_live_opts.spool_dir), a drain thread does nothing but
 * move the raw pages from the ring buffers into one unlinked file per CPU
 * there, as fast as the kernel fills them, and the stream is read from
 * those files as fast as the caller takes it: a storm far above the decode
 * rate is kept whole, the backlog waiting on disk.  Only a page the spool
 * cannot take (the disk is full) is lost, and it becomes a MSC_EV_LOST
 * event with source "spool" where the page was.
 */
#ifndef MSC_LIVE_H
#define MSC_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmuscope/spte.h"

struct msc_event;
struct msc_source;
struct msc_store;

#define MSC_LIVE_INSTANCE "mmuscope"	/* default tracefs instance name */
#define MSC_LIVE_START_MARKER "mmuscope-record: start"	/* first marker of a recording */

/* Called with every raw ring-buffer page as it is read (e.g. for trace.dat). */
typedef int (*msc_live_page_fn)(void *ctx, int cpu, const void *page, size_t size);

struct msc_live_opts {
	const char *tracing_dir;	/* NULL: the system's tracefs; else a fake tree */
	const char *instance;		/* NULL: MSC_LIVE_INSTANCE */
	unsigned int buffer_kb;		/* per-CPU ring buffer, 0: keep the kernel's */
	int pid;			/* > 0: only this process's threads */
	bool no_kprobes;		/* do not register kprobe events */
	bool light;			/* light: the ioctls, splits and counters, no kprobes */
	unsigned int light_cells;	/* light, > 0: SPTE history of 1 in N 2M cells */
	msc_live_page_fn page_fn;	/* optional raw-page tap (called by the drain with a spool) */
	void *page_ctx;
	const char *spool_dir;		/* NULL: no spool; pages are read as the stream is */
};

/* The spool between the ring buffers and the stream. */
struct msc_live_spool_stats {
	bool on;			/* the source has a spool */
	uint64_t pages;			/* pages moved into it */
	uint64_t bytes;
	uint64_t backlog;		/* pages moved and not yet read back, now */
	uint64_t peak_backlog;		/* the most there were */
	uint64_t lost_pages;		/* read from a ring buffer, not taken by the spool */
	uint64_t lost_events;		/* the events of those pages */
	double drain_s;			/* start to the drain's end; 0 while draining */
};

/* How dirty-log phases and TLB flushes are seen (docs/ARCHITECTURE.md, "Three tiers"). */
enum msc_live_mode {
	MSC_LIVE_INFERRED,		/* from SPTE change patterns only */
	MSC_LIVE_KPROBES,		/* kprobe events on the KVM functions */
	MSC_LIVE_TRACEPOINTS,		/* the companion kernel patch's tracepoints */
};

/* What the source set up; strings live as long as the source. */
struct msc_live_status {
	enum msc_live_mode mode;
	const char *mode_detail;	/* why this mode, one line */
	const char *instance_dir;	/* tracefs directory of the instance */
	const char *marker_path;	/* the instance's trace_marker */
	const char *clock;		/* trace clock in use */
	bool copy_marker;		/* top-level trace_marker lines are copied in */
	bool owns_instance;		/* created here, removed at close */
	bool test_tree;			/* not a tracefs mount: no fact of this host is its */
	int nr_cpus;
	unsigned int nr_events;		/* events enabled (tracepoints and kprobes) */
	unsigned int nr_kprobes;	/* kprobe events registered */
	const char *kprobes;		/* their names, space separated */
	unsigned int nr_pids;		/* threads in the pid filter, 0: no filter */
	uint64_t other_exits;		/* ioctl exits of tasks inside no recorded ioctl:
					   read, not handed out */
};

/* Per-CPU ring-buffer counters and what the source read. */
struct msc_live_cpu_stats {
	int cpu;
	uint64_t overrun;		/* kernel: events overwritten before read */
	uint64_t commit_overrun;	/* kernel: events lost to nested writers */
	uint64_t dropped;		/* kernel: events dropped (buffer full, no overwrite) */
	uint64_t read_events;		/* kernel: events consumed by readers */
	uint64_t entries;		/* kernel: events still in the buffer */
	uint64_t records;		/* records this source read */
	uint64_t pages;			/* sub-buffers this source read */
	uint64_t marked;		/* events counted by missed-event marks */
	uint64_t unknown_marks;		/* marks without a count */
	bool has_kernel_stats;		/* false: no per_cpu/cpuN/stats (fake tree) */
};

/* Events the kernel lost that no mark in the stream accounts for. */
struct msc_live_lost {
	uint64_t ts;			/* trace clock when the counter was read */
	int cpu;
	uint64_t count;
	const char *source;		/* "overrun", "dropped", "commit-overrun" */
};

int msc_source_open_tracefs(const struct msc_live_opts *opts, struct msc_source **ret, char *err,
			    size_t err_size);
const struct msc_live_status *msc_live_get_status(const struct msc_source *src);
int msc_live_wait(struct msc_source *src, int timeout_ms);
int msc_live_stop(struct msc_source *src);
int msc_live_now(struct msc_source *src, uint64_t *ret_ts);
int msc_live_get_cpu_stats(struct msc_source *src, int cpu, struct msc_live_cpu_stats *ret);
int msc_live_get_spool_stats(struct msc_source *src, struct msc_live_spool_stats *ret);
int msc_live_poll_lost(struct msc_source *src, bool final, struct msc_live_lost *ret,
		       size_t max);
int msc_live_save_formats(struct msc_source *src, const char *dir);
const char *msc_live_mode_name(enum msc_live_mode mode);

/* ---- host profile (lib/host-live.c) ---- */

struct msc_host_param {
	char name[64];			/* e.g. "kvm.tdp_mmu", "cpu.phys_bits" */
	char value[128];
};

/* Everything read about the host at the start of a recording. */
struct msc_host_profile {
	struct msc_host host;		/* selects the SPTE layout */
	unsigned int phys_bits;		/* physical address bits, 0 unknown */
	char virt[8];			/* "vmx", "svm" or "" */
	char kvm_module[16];		/* "kvm_intel", "kvm_amd", ... or "" */
	struct msc_host_param *params;	/* every fact, host_param rows */
	size_t nr_params;
};

int msc_host_live_read(const char *root, struct msc_host_profile *ret);
const struct msc_host_profile *msc_live_get_profile(const struct msc_source *src);
void msc_host_profile_release(struct msc_host_profile *p);

/* ---- KVM's own counters (lib/kvm-stats.c) ---- */

/* One VM's counters at one time; a counter KVM does not export is -1. */
struct msc_kvm_sample {
	char vm[32];			/* "<pid>-<fd>", KVM's debugfs name */
	int pid;			/* the VMM process */
	int64_t pages_4k, pages_2m, pages_1g;
	int64_t remote_tlb_flush, remote_tlb_flush_requests;
	int64_t pf_taken, pf_fixed, pf_fast;	/* summed over its vCPUs */
	int64_t pf_vcpus;		/* the vCPUs summed, -1: all (KVM's debugfs sum) */
};

/* Where KVM's counters are read from (lib/kvm-stats.c). */
enum msc_kvm_via {
	MSC_KVM_VIA_AUTO,		/* stats fds, VMs listed and faults from debugfs */
	MSC_KVM_VIA_STATS_FD,		/* stats fds only, VMs found in /proc */
	MSC_KVM_VIA_DEBUGFS,		/* debugfs only */
};

struct msc_kvm_sampler;

/* The stats-fd method's scans of /proc for VMs (lib/kvm-stats.c). */
struct msc_kvm_scans {
	uint64_t nr;
	uint64_t ns, max_ns;		/* CLOCK_MONOTONIC: all of them, the longest */
};

int msc_kvm_sampler_open(const char *debugfs, const char *proc, int pid, enum msc_kvm_via via,
			 struct msc_kvm_sampler **ret);
int msc_kvm_sampler_read(struct msc_kvm_sampler *k, struct msc_kvm_sample *ret, size_t max);
void msc_kvm_sampler_note(struct msc_kvm_sampler *k, const struct msc_event *ev);
uint64_t msc_kvm_sampler_skipped(const struct msc_kvm_sampler *k);
void msc_kvm_sampler_scans(const struct msc_kvm_sampler *k, struct msc_kvm_scans *ret);
const char *msc_kvm_sampler_method(const struct msc_kvm_sampler *k);
void msc_kvm_sampler_close(struct msc_kvm_sampler *k);

/* ---- what the store keeps of a live capture (lib/store-live.c) ---- */

/* When a read of KVM's counters ran, on the trace clock; { 0, 0 }: no read. */
struct msc_kvm_read_span {
	uint64_t start, end;
};

int msc_store_add_kvm_sample(struct msc_store *s, struct msc_kvm_read_span read,
			     struct msc_kvm_read_span previous, const struct msc_kvm_sample *k);
/*
 * KVM's counters at a moment, as record read them (lib/store-kvm-reads.c):
 * the last read at or before it, or the first at or after it.
 */
struct msc_kvm_read {
	uint64_t ts;			/* when read (the newest of the VMs'); 0: see @unchanged */
	unsigned int vms;		/* VMs summed; 0: none read */
	unsigned int unchanged;		/* of those, after: no change up to the recording's
					   end, read time not kept */
	int64_t pages[4];		/* [1] 4K [2] 2M [3] 1G */
	int64_t flushes;		/* remote_tlb_flush_requests: each flush asked for */
	int64_t faults, faults_fixed, faults_fast;	/* pf_taken, pf_fixed, pf_fast */
	int64_t fault_vcpus;		/* pf_vcpus: two reads' faults compare when equal */
};					/* a counter -1: not exported */

struct msc_kvm_reads;

int msc_kvm_reads_open(struct msc_store *s, int64_t capture_id, struct msc_kvm_reads **ret);
size_t msc_kvm_reads_vms(const struct msc_kvm_reads *k);
int msc_kvm_read_at(struct msc_kvm_reads *k, const char *vm, uint64_t ts, bool after,
		    struct msc_kvm_read *ret);
void msc_kvm_reads_close(struct msc_kvm_reads *k);
int msc_store_add_cpu_stats(struct msc_store *s, const struct msc_live_cpu_stats *c);
int msc_store_add_task(struct msc_store *s, int pid, int tgid, const char *comm, const char *vm);

/* A row of the task table; what it does not know is -1 or "". */
struct msc_task_row {
	int pid;
	int tgid;
	char comm[64];
	char vm[32];
};

int msc_store_get_param(struct msc_store *s, int64_t capture_id, const char *name, char *buf,
			size_t size);
int msc_store_get_tasks(struct msc_store *s, int64_t capture_id, struct msc_task_row **ret,
			size_t *ret_nr);

#endif /* MSC_LIVE_H */
