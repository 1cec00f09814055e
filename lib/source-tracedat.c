// SPDX-License-Identifier: GPL-2.0-only
/*
 * trace.dat source: libtracecmd reads the file (any file version, with or
 * without compression) and merges the per-CPU streams by timestamp; the
 * decoder turns each record into an event.
 *
 * libtracecmd 1.3 (trace-cmd 3.1.6) exports a few functions its public
 * header does not declare; the ones used here are declared below exactly as
 * trace-cmd's private header has them.  They are plain getters and the
 * pull-style tracecmd_read_next_data(), so a source can hand out one event
 * at a time.
 */
#include "mmuscope/source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <trace-cmd/trace-cmd.h>

#include "mmuscope/decode.h"
#include "mmuscope/error.h"
#include "mmuscope/util.h"
#include "source-local.h"

/* exported by libtracecmd.so.1, declared in trace-cmd-private.h */
struct tep_record *tracecmd_read_next_data(struct tracecmd_input *handle, int *rec_cpu);
unsigned long tracecmd_get_in_file_version(struct tracecmd_input *handle);
int tracecmd_get_file_compress_proto(struct tracecmd_input *handle, const char **name,
				     const char **version);
const char *tracecmd_get_uname(struct tracecmd_input *handle);
const char *tracecmd_get_trace_clock(struct tracecmd_input *handle);
int tracecmd_cpus(struct tracecmd_input *handle);

#define TRACEDAT_MAGIC "\027\010\104tracing"

struct tracedat_source {
	struct msc_source base;
	struct tracecmd_input *handle;
	struct msc_decoder *dec;
	struct msc_event pending;	/* decoded event held back behind a LOST */
	bool has_pending;
};

static struct tracedat_source *to_tracedat(const struct msc_source *src)
{
	return container_of(src, struct tracedat_source, base);
}

static int tracedat_next(struct msc_source *src, struct msc_event *ret_ev)
{
	struct tracedat_source *t = to_tracedat(src);
	struct tep_record *rec;
	int cpu, r;

	if (t->has_pending) {
		t->has_pending = false;
		*ret_ev = t->pending;
		return 1;
	}
	for (;;) {
		rec = tracecmd_read_next_data(t->handle, &cpu);
		if (!rec)
			return 0;
		r = msc_decoder_decode(t->dec, rec, &t->pending);
		if (r < 0) {
			msc_source_set_error(src, "%s", msc_decoder_error(t->dec));
			tracecmd_free_record(rec);
			return r;
		}
		if (rec->missed_events) {
			/* -1: the kernel only flagged a gap; count unknown */
			*ret_ev = (struct msc_event){
				.ts = rec->ts, .cpu = (uint16_t)rec->cpu, .pid = -1,
				.type = MSC_EV_LOST,
				.lost.count = rec->missed_events > 0 ? (uint64_t)rec->missed_events : 0,
			};
			t->has_pending = r > 0;
			tracecmd_free_record(rec);
			return 1;
		}
		tracecmd_free_record(rec);
		if (r > 0) {
			*ret_ev = t->pending;
			return 1;
		}
	}
}

static int tracedat_get_stat(const struct msc_source *src, size_t i, struct msc_event_stat *ret)
{
	return msc_decoder_get_stat(to_tracedat(src)->dec, i, ret);
}

static const char *tracedat_next_warning(struct msc_source *src)
{
	return msc_decoder_next_warning(to_tracedat(src)->dec);
}

static void tracedat_close(struct msc_source *src)
{
	struct tracedat_source *t = to_tracedat(src);

	msc_decoder_free(t->dec);
	if (t->handle)
		tracecmd_close(t->handle);
	free(t);
}

static const struct msc_source_ops tracedat_ops = {
	.kind = "trace.dat",
	.next = tracedat_next,
	.get_stat = tracedat_get_stat,
	.next_warning = tracedat_next_warning,
	.close = tracedat_close,
};

/* Tell "not a trace" from "damaged trace" before libtracecmd sees the file. */
static int check_magic(const char *path)
{
	char magic[sizeof(TRACEDAT_MAGIC) - 1];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, magic, sizeof(magic));
	close(fd);
	if (n < 0)
		return -EIO;
	if ((size_t)n < sizeof(magic) || memcmp(magic, TRACEDAT_MAGIC, sizeof(magic)))
		return MSC_ERR_NOT_TRACE;
	return 0;
}

static void fill_info(struct tracedat_source *t)
{
	struct msc_capture_info *info = &t->base.info;
	const char *s, *name = NULL, *version = NULL;
	char release[64];

	info->file_version = (int)tracecmd_get_in_file_version(t->handle);
	if (!tracecmd_get_file_compress_proto(t->handle, &name, &version) && name)
		snprintf(info->compression, sizeof(info->compression), "%s", name);
	s = tracecmd_get_trace_clock(t->handle);
	if (s) {
		/* the saved trace_clock file: "[local] global ..." */
		const char *open = strchr(s, '[');

		if (open)
			sscanf(open + 1, "%31[^]]", info->trace_clock);
		else
			sscanf(s, "%31s", info->trace_clock);
	}
	info->nr_cpus = tracecmd_cpus(t->handle);
	s = tracecmd_get_uname(t->handle);
	if (s) {
		snprintf(info->uname, sizeof(info->uname), "%s", s);
		/* "Linux <host> <release> <machine>" as `uname -s -n -r -m` */
		if (sscanf(s, "%*s %*s %63s", release) == 1 && msc_kver_parse(release)) {
			snprintf(info->host.release, sizeof(info->host.release), "%s", release);
			info->host.kver = msc_kver_parse(release);
			info->host.kver_source = MSC_HOST_INFERRED;
		}
	}
}

/**
 * msc_source_open_tracedat - open a trace-cmd trace.dat for reading
 * @path: the file
 * @ret: the source, closed with msc_source_close()
 *
 * Plugins are not loaded, so nothing depends on the machine it runs on.
 *
 * Returns 0; -errno when the file cannot be read; MSC_ERR_NOT_TRACE when it
 * is not a trace.dat; MSC_ERR_TRUNC when libtracecmd cannot load its
 * headers or data sections (a short or damaged file).
 */
int msc_source_open_tracedat(const char *path, struct msc_source **ret)
{
	struct tracedat_source *t;
	int r;

	r = check_magic(path);
	if (r)
		return r;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	msc_source_init(&t->base, &tracedat_ops, path);
	tracecmd_set_loglevel(TEP_LOG_NONE);
	t->handle = tracecmd_open_head(path, TRACECMD_FL_LOAD_NO_PLUGINS |
						     TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
	if (!t->handle) {
		free(t);
		return MSC_ERR_TRUNC;
	}
	if (tracecmd_init_data(t->handle) < 0) {
		/*
		 * tracecmd_close() crashes on a handle whose data failed to
		 * load (trace-cmd 3.1.6, a truncated version-6 file), so the
		 * handle is left behind: the caller is about to give up.
		 */
		free(t);
		return MSC_ERR_TRUNC;
	}
	fill_info(t);
	r = msc_decoder_new(tracecmd_get_tep(t->handle), &t->dec);
	if (r) {
		tracedat_close(&t->base);
		return r;
	}
	*ret = &t->base;
	return 0;
}
