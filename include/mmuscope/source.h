/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Event sources: a trace.dat file, a live tracefs instance, a text fixture.
 *
 * All of them hand out struct msc_event values in timestamp order through
 * msc_source_next(), numbering them with seq.  Ring-buffer losses arrive as
 * MSC_EV_LOST events just before the first event after the gap.  A source
 * counts every event it reads by name, including those it does not decode.
 */
#ifndef MSC_SOURCE_H
#define MSC_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmuscope/spte.h"

struct msc_event;
struct msc_event_stat;
struct msc_source;

/* What a source knows about its capture; strings are "" when unknown. */
struct msc_capture_info {
	const char *kind;	/* "trace.dat", "tracefs" or "text" */
	char path[512];		/* file, or tracefs instance directory */
	int file_version;	/* trace.dat file version, 0 otherwise */
	char compression[32];
	char uname[256];
	char trace_clock[32];
	int nr_cpus;
	struct msc_host host;	/* what the source says of its host */
	char instance[64];	/* the trace-cmd instance buffer read; "": the top one */
};

/* What a source knows of the task of an event's pid (a thread). */
struct msc_source_task {
	int tgid;		/* its process, -1 when unknown */
	char comm[64];		/* the thread's own name, "" when unknown */
};

/*
 * Every constructor of the library that can fail for a reason worth a
 * sentence takes @err and @err_size last: on failure it returns a negative
 * error and writes the detail there (one line, without the file's name, ""
 * when the code says it all); nothing else is returned.
 */
int msc_source_open_tracedat(const char *path, struct msc_source **ret, char *err,
			     size_t err_size);
int msc_source_open_tracedat_instance(const char *path, const char *instance,
				      struct msc_source **ret, char *err, size_t err_size);
int msc_source_open_text(const char *path, struct msc_source **ret, char *err, size_t err_size);

int msc_source_next(struct msc_source *src, struct msc_event *ret_ev);
void msc_source_close(struct msc_source *src);

const struct msc_capture_info *msc_source_info(const struct msc_source *src);
int msc_source_get_stat(const struct msc_source *src, size_t i, struct msc_event_stat *ret);
const char *msc_source_next_warning(struct msc_source *src);
const char *msc_source_error(const struct msc_source *src);
int msc_source_get_task(struct msc_source *src, int pid, struct msc_source_task *ret);

#endif /* MSC_SOURCE_H */
