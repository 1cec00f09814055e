// SPDX-License-Identifier: GPL-2.0-only
/*
 * One kernel's event formats, loaded from a directory laid out like
 * tracefs' events/ (tests/data/formats/<version>/events/...): every
 * <system>/<event>/format is parsed by libtraceevent, header_page and
 * header_event give the ring-buffer layout, and the texts are kept so that
 * a fake tracing directory can carry exact copies.
 *
 * A formats directory is either DIR/events/... or DIR/... itself; an
 * optional DIR/KERNEL_RELEASE names the kernel the files came from.
 */
#include "mmuscope/synth.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "mmuscope/error.h"
#include "mmuscope/util.h"
#include "local.h"

/* snprintf() into a path buffer; -ENAMETOOLONG instead of truncating. */
static int __printf(3, 4) path_fmt(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static int read_file(const char *path, char **ret, size_t *ret_len)
{
	struct stat st;
	char *buf;
	ssize_t n;
	size_t len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), r = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		goto out;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		r = -ENOMEM;
		goto out;
	}
	while ((n = read(fd, buf + len, (size_t)st.st_size - len)) > 0)
		len += (size_t)n;
	if (n < 0) {
		r = -errno;
		free(buf);
		goto out;
	}
	buf[len] = '\0';
	*ret = buf;
	*ret_len = len;
out:
	close(fd);
	return r;
}

static int add_format(struct msc_synth_formats *f, const char *system, const char *name,
		      char *text, size_t len)
{
	struct synth_format *fmt;

	if (f->nr == f->alloc) {
		size_t n = f->alloc ? 2 * f->alloc : 64;
		void *p = realloc(f->formats, n * sizeof(*f->formats));

		if (!p)
			return -ENOMEM;
		f->formats = p;
		f->alloc = n;
	}
	fmt = &f->formats[f->nr];
	*fmt = (struct synth_format){ .text = text, .len = len };
	if (path_fmt(fmt->system, sizeof(fmt->system), "%s", system) ||
	    path_fmt(fmt->name, sizeof(fmt->name), "%s", name) ||
	    tep_parse_event(f->tep, text, len, system) != TEP_ERRNO__SUCCESS) {
		path_fmt(f->error, sizeof(f->error), "%s/%s/format: not a valid event format",
			 system, name);
		return MSC_ERR_FORMAT;
	}
	fmt->event = tep_find_event_by_name(f->tep, system, name);
	if (!fmt->event)
		return MSC_ERR_FORMAT;
	fmt->id = fmt->event->id;
	f->nr++;
	return 0;
}

static int load_system(struct msc_synth_formats *f, const char *events, const char *system)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int r = 0;

	r = path_fmt(path, sizeof(path), "%s/%s", events, system);
	if (r)
		return r;
	d = opendir(path);
	if (!d)
		return -errno;
	while (!r && (de = readdir(d))) {
		char *text;
		size_t len;

		if (de->d_name[0] == '.')
			continue;
		if (path_fmt(path, sizeof(path), "%s/%s/%s/format", events, system, de->d_name) ||
		    read_file(path, &text, &len))
			continue;	/* not an event directory */
		r = add_format(f, system, de->d_name, text, len);
		if (r)
			free(text);
	}
	closedir(d);
	return r;
}

static int cmp_format(const void *a, const void *b)
{
	const struct synth_format *x = a, *y = b;
	int c = strcmp(x->system, y->system);

	return c ? c : strcmp(x->name, y->name);
}

static int load(struct msc_synth_formats *f)
{
	char events[PATH_MAX], path[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int r;

	if (path_fmt(events, sizeof(events), "%s/events", f->dir))
		return -ENAMETOOLONG;
	if (access(events, F_OK))
		memcpy(events, f->dir, sizeof(events));
	r = path_fmt(path, sizeof(path), "%s/header_page", events);
	if (!r)
		r = read_file(path, &f->header_page, &f->header_page_len);
	if (!r)
		r = path_fmt(path, sizeof(path), "%s/header_event", events);
	if (!r)
		r = read_file(path, &f->header_event, &f->header_event_len);
	if (r) {
		path_fmt(f->error, sizeof(f->error), "%s: %s", path, strerror(-r));
		return r;
	}
	r = msc_ringbuf_layout_parse(&f->layout, f->header_page, f->header_page_len,
				     f->header_event, f->header_event_len);
	if (!r && tep_parse_header_page(f->tep, f->header_page, f->header_page_len, 8))
		r = MSC_ERR_FORMAT;
	if (r) {
		path_fmt(f->error, sizeof(f->error), "%s/header_page, header_event: %s", events,
			 "not a ring-buffer layout mmuscope can write");
		return r;
	}
	d = opendir(events);
	if (!d)
		return -errno;
	r = 0;
	while (!r && (de = readdir(d))) {
		struct stat st;

		if (de->d_name[0] == '.' || path_fmt(path, sizeof(path), "%s/%s", events, de->d_name) ||
		    stat(path, &st) || !S_ISDIR(st.st_mode))
			continue;
		r = load_system(f, events, de->d_name);
	}
	closedir(d);
	if (!r && !f->nr) {
		path_fmt(f->error, sizeof(f->error), "%s: no event formats", events);
		r = MSC_ERR_FORMAT;
	}
	qsort(f->formats, f->nr, sizeof(*f->formats), cmp_format);
	return r;
}

/**
 * msc_synth_formats_open - load a directory of event formats
 * @dir: DIR/events/... (or DIR/... directly), as described above
 * @ret: the formats, freed with msc_synth_formats_free()
 *
 * @err: on failure, which file and why (may be NULL)
 * @err_size: size of @err
 *
 * Returns 0; -errno when a file cannot be read; -ENOMEM; MSC_ERR_FORMAT when
 * a format does not parse or the ring-buffer headers cannot be written.
 */
int msc_synth_formats_open(const char *dir, struct msc_synth_formats **ret, char *err,
			   size_t err_size)
{
	struct msc_synth_formats *f = calloc(1, sizeof(*f));
	char path[PATH_MAX], *rel = NULL;
	size_t len;
	int r;

	if (!f)
		return -ENOMEM;
	if (path_fmt(f->dir, sizeof(f->dir), "%s", dir)) {
		free(f);
		return -ENAMETOOLONG;
	}
	f->tep = tep_alloc();
	if (!f->tep) {
		free(f);
		return -ENOMEM;
	}
	tep_set_long_size(f->tep, 8);
	tep_set_page_size(f->tep, 4096);
	r = load(f);
	if (r) {
		if (err)
			snprintf(err, err_size, "%s", f->error[0] ? f->error : msc_strerror(r));
		msc_synth_formats_free(f);
		return r;
	}
	if (!path_fmt(path, sizeof(path), "%s/KERNEL_RELEASE", dir) &&
	    !read_file(path, &rel, &len)) {
		rel[strcspn(rel, "\n")] = '\0';
		path_fmt(f->release, sizeof(f->release), "%s", rel);
		free(rel);
	}
	*ret = f;
	return 0;
}

/* Free the formats; the writers and directories made from them first. NULL is fine. */
void msc_synth_formats_free(struct msc_synth_formats *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nr; i++)
		free(f->formats[i].text);
	free(f->formats);
	free(f->header_page);
	free(f->header_event);
	if (f->tep)
		tep_free(f->tep);
	free(f);
}

/* The ring-buffer page layout of header_page and header_event. */
const struct msc_ringbuf_layout *msc_synth_formats_layout(const struct msc_synth_formats *f)
{
	return &f->layout;
}

/* The kernel release the formats came from, "" when not recorded. */
const char *msc_synth_formats_release(const struct msc_synth_formats *f)
{
	return f->release;
}

/* The format of @system/@name; any system when @system is NULL. */
const struct synth_format *synth_formats_find(const struct msc_synth_formats *f,
					      const char *system, const char *name)
{
	for (size_t i = 0; i < f->nr; i++) {
		const struct synth_format *fmt = &f->formats[i];

		if (!strcmp(fmt->name, name) && (!system || !strcmp(fmt->system, system)))
			return fmt;
	}
	return NULL;
}

/* Whether the formats have @system/@name (any system when @system is NULL). */
bool msc_synth_formats_has(const struct msc_synth_formats *f, const char *system,
			   const char *name)
{
	return synth_formats_find(f, system, name) != NULL;
}

/* Whether @system/@name exists and has a field @field (a newer kernel's, say). */
bool synth_formats_has_field(const struct msc_synth_formats *f, const char *system,
			     const char *name, const char *field)
{
	const struct synth_format *fmt = synth_formats_find(f, system, name);

	return fmt && fmt->event && tep_find_field(fmt->event, field);
}
