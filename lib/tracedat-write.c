// SPDX-License-Identifier: GPL-2.0-only
/*
 * trace.dat output, assembled by libtracecmd from a tracing directory and
 * per-CPU files of raw ring-buffer pages, exactly as `trace-cmd extract`
 * and `trace-cmd restore` assemble theirs.
 *
 * libtracecmd 1.3 (trace-cmd 3.1.6) exports its output API but its public
 * header does not declare it; the prototypes below are copied from
 * trace-cmd's lib/trace-cmd/include/private/trace-cmd-private.h, and the
 * option numbers are file format (Documentation/trace-cmd/trace-cmd.dat.v7).
 * Upstream makes no ABI promise for them, so this file is pinned to that
 * libtracecmd, as lib/source-tracedat.c is for tracecmd_read_next_data().
 */
#include "mmuscope/synth.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <trace-cmd/trace-cmd.h>

#include "mmuscope/error.h"
#include "mmuscope/file.h"

/* exported by libtracecmd.so.1, declared in trace-cmd-private.h */
struct tracecmd_output;
struct tracecmd_option;
struct tracecmd_event_list {
	struct tracecmd_event_list *next;
	const char *glob;
};
struct tracecmd_output *tracecmd_output_create_fd(int fd);
void tracecmd_set_quiet(struct tracecmd_output *handle, bool set_quiet);
int tracecmd_output_set_trace_dir(struct tracecmd_output *handle, const char *tracing_dir);
int tracecmd_output_set_kallsyms(struct tracecmd_output *handle, const char *kallsyms);
int tracecmd_output_set_version(struct tracecmd_output *handle, int file_version);
int tracecmd_output_set_compression(struct tracecmd_output *handle, const char *compression);
int tracecmd_output_write_headers(struct tracecmd_output *handle,
				  struct tracecmd_event_list *list);
struct tracecmd_option *tracecmd_add_option(struct tracecmd_output *handle, unsigned short id,
					    int size, const void *data);
int tracecmd_write_cmdlines(struct tracecmd_output *handle);
int tracecmd_append_cpu_data(struct tracecmd_output *handle, int cpus,
			     char *const *cpu_data_files);
void tracecmd_output_close(struct tracecmd_output *handle);

enum {
	OPTION_TRACECLOCK = 4,
	OPTION_UNAME = 5,
	OPTION_VERSION = 9,
};

#define MAX_SYSTEMS 64

/* A "<system>/\*" glob for every system of DIR/events: trace-cmd copies those. */
static int list_systems(const char *tracing_dir, struct tracecmd_event_list *list,
			char (*globs)[80], size_t *ret_nr)
{
	char path[PATH_MAX];
	struct dirent *de;
	size_t nr = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/events", tracing_dir);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d)) && nr < MAX_SYSTEMS) {
		struct stat st;

		snprintf(path, sizeof(path), "%s/events/%s", tracing_dir, de->d_name);
		if (de->d_name[0] == '.' || stat(path, &st) || !S_ISDIR(st.st_mode))
			continue;
		snprintf(globs[nr], sizeof(globs[nr]), "%.70s/*", de->d_name);
		list[nr] = (struct tracecmd_event_list){ .glob = globs[nr] };
		if (nr)
			list[nr - 1].next = &list[nr];
		nr++;
	}
	closedir(d);
	*ret_nr = nr;
	return nr ? 0 : MSC_ERR_FORMAT;
}

/* The trace_clock file's text, as trace-cmd record stores it. */
static void read_clock(const char *tracing_dir, char *buf, size_t size)
{
	char path[PATH_MAX];
	ssize_t n = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/trace_clock", tracing_dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, size - 1);
		close(fd);
	}
	buf[n > 0 ? n : 0] = '\0';
	if (n <= 0)
		snprintf(buf, size, "[local] global\n");
}

/**
 * msc_tracedat_write - assemble a trace.dat
 * @path: the file to write (created new, 0600, renamed into place when
 *        complete: msc_file_create())
 * @tracing_dir: a tracing directory: events/ (formats and ring-buffer
 *               headers), saved_cmdlines, trace_clock
 * @kallsyms: an existing file (libtracecmd 1.3 writes a corrupt compressed
 *            file when it is missing)
 * @nr_cpus: entries of @cpu_files
 * @cpu_files: each CPU's raw pages
 * @file_version: 6 or 7
 * @compression: "zstd", or NULL/"none" for none (version 7 only)
 * @uname: "Linux <host> <release> <machine>", stored as trace-cmd does
 *
 * Returns 0; -errno when a file cannot be created or read; MSC_ERR_FORMAT
 * when the directory has no events; -EIO when libtracecmd fails.
 */
int msc_tracedat_write(const char *path, const char *tracing_dir, const char *kallsyms,
		       unsigned int nr_cpus, char *const *cpu_files, int file_version,
		       const char *compression, const char *uname)
{
	struct tracecmd_event_list list[MAX_SYSTEMS];
	static const char version[] = "mmuscope-synth";
	char globs[MAX_SYSTEMS][80], clock[512];
	struct tracecmd_output *h;
	struct msc_new_file out;
	size_t nr;
	int r;

	if (access(kallsyms, R_OK))
		return -errno;
	r = list_systems(tracing_dir, list, globs, &nr);
	if (r)
		return r;
	read_clock(tracing_dir, clock, sizeof(clock));
	r = msc_file_create(&out, path);
	if (r)
		return r;
	tracecmd_set_loglevel(TEP_LOG_NONE);
	r = -EIO;
	h = tracecmd_output_create_fd(out.fd);
	if (!h) {
		msc_file_abort(&out);
		return r;
	}
	tracecmd_set_quiet(h, true);	/* no "CPU0 data recorded at ..." on stdout */
	if (tracecmd_output_set_trace_dir(h, tracing_dir) ||
	    tracecmd_output_set_kallsyms(h, kallsyms) ||
	    tracecmd_output_set_version(h, file_version))
		goto err;
	if (compression && strcmp(compression, "none") &&
	    tracecmd_output_set_compression(h, compression))
		goto err;
	if (tracecmd_output_write_headers(h, list) ||
	    !tracecmd_add_option(h, OPTION_TRACECLOCK, (int)strlen(clock) + 1, clock) ||
	    !tracecmd_add_option(h, OPTION_UNAME, (int)strlen(uname) + 1, uname) ||
	    !tracecmd_add_option(h, OPTION_VERSION, sizeof(version), version) ||
	    tracecmd_write_cmdlines(h) || tracecmd_append_cpu_data(h, (int)nr_cpus, cpu_files))
		goto err;
	r = 0;
err:
	tracecmd_output_close(h);	/* closes out.fd too */
	out.fd = -1;
	if (r) {
		msc_file_abort(&out);
		return r;
	}
	return msc_file_commit(&out);
}
