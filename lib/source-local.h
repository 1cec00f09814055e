/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Private to lib/source*.c: the source object and its ops table.  Each kind
 * of source embeds struct msc_source first and reaches its own state with
 * container_of().
 */
#ifndef MSC_SOURCE_LOCAL_H
#define MSC_SOURCE_LOCAL_H

#include <stdbool.h>
#include <sys/types.h>

#include "mmuscope/event.h"
#include "mmuscope/source.h"

struct msc_source_ops {
	const char *kind;
	/* 1: *ret_ev holds the next event (seq not yet set); 0: end; <0: error */
	int (*next)(struct msc_source *src, struct msc_event *ret_ev);
	/* as msc_decoder_get_stat() */
	int (*get_stat)(const struct msc_source *src, size_t i, struct msc_event_stat *ret);
	const char *(*next_warning)(struct msc_source *src);
	/* as msc_source_get_task(); NULL: the source names no task */
	int (*get_task)(struct msc_source *src, int pid, struct msc_source_task *ret);
	void (*close)(struct msc_source *src);
};

struct msc_source {
	const struct msc_source_ops *ops;
	struct msc_capture_info info;
	uint64_t seq;			/* seq of the next event handed out */
	char error[512];		/* detail of the last error, for the caller */
};

void msc_source_init(struct msc_source *src, const struct msc_source_ops *ops,
		     const char *path);
int msc_source_fail(struct msc_source *src, int r, char *err, size_t err_size);
void msc_source_set_error(struct msc_source *src, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

bool source_child_start(pid_t parent);

/* source-tracedat.c: the trace.dat source, in this process (source-isolated.c runs it) */
#define TRACEDAT_MAX_CPUS 8192	/* x86's largest NR_CPUS: more is a damaged file */

/*
 * Bytes of a CPU's data that its compressed chunks do not hold: a chunk
 * whose zstd frame says it holds fewer bytes than the chunk declares
 * (libtracecmd reads the rest as nothing, and the events there are lost).
 * Offsets are of the CPU's uncompressed data, from its start.
 */
struct tracedat_gap {
	char buffer[64];	/* the BUFFER option's instance name; "" the top buffer */
	int cpu;
	uint64_t from, to;
};

struct tracedat_gaps {
	struct tracedat_gap *g;
	size_t nr, cap;
};

int tracedat_open_direct(const char *path, const char *instance,
			 const struct tracedat_gaps *gaps, struct msc_source **ret);
int tracedat_copy_remove(pid_t pid);
int tracedat_check_header(const char *path, char *detail, size_t size, bool *whole,
			  struct tracedat_gaps *gaps);
int tracedat_cpu_overlap(char *buf, size_t size, int cpu_a, int cpu_b, uint64_t at, uint64_t len);

/* tracecmd-tmp.c: libtracecmd's per-CPU temporary files in /tmp */
int tracecmd_tmp_unlink_open(pid_t pid);
int tracecmd_tmp_clean(void);

#endif /* MSC_SOURCE_LOCAL_H */
