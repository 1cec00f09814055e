// SPDX-License-Identifier: GPL-2.0-only
/*
 * Text fixture source: one msc_event_format() line per event, as written by
 * `mmuscope dump`.  Blank lines and lines starting with '#' are skipped;
 * "#@ release <kernel release>" and "#@ host <key=value,...>" state the
 * host, as a trace.dat's uname would.
 */
#include "mmuscope/source.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmuscope/decode.h"
#include "mmuscope/error.h"
#include "mmuscope/host.h"
#include "mmuscope/util.h"
#include "source-local.h"

struct text_source {
	struct msc_source base;
	FILE *f;
	char *line;
	size_t cap;
	unsigned long lineno;
	uint64_t counts[MSC_EV_NR];
};

static struct text_source *to_text(const struct msc_source *src)
{
	return container_of(src, struct text_source, base);
}

/* "#@ release X" / "#@ host k=v,..." */
static int header(struct text_source *t, const char *line)
{
	struct msc_host *host = &t->base.info.host;
	char value[256];

	if (sscanf(line, "#@ release %63s", host->release) == 1) {
		host->kver = msc_kver_parse(host->release);
		host->kver_source = MSC_HOST_INFERRED;
		return 0;
	}
	if (sscanf(line, "#@ host %255s", value) == 1)
		return msc_host_parse_overrides(host, value);
	return 0;
}

static int text_next(struct msc_source *src, struct msc_event *ret_ev)
{
	struct text_source *t = to_text(src);
	ssize_t n;

	while ((n = getline(&t->line, &t->cap, t->f)) >= 0) {
		t->lineno++;
		if (t->line[0] == '#') {
			if (header(t, t->line)) {
				msc_source_set_error(src, "line %lu: bad host line", t->lineno);
				return MSC_ERR_PARSE;
			}
			continue;
		}
		if (t->line[0] == '\n' || t->line[0] == '\0')
			continue;
		if (msc_event_parse(t->line, ret_ev)) {
			msc_source_set_error(src, "line %lu: malformed event", t->lineno);
			return MSC_ERR_PARSE;
		}
		t->counts[ret_ev->type]++;
		return 1;
	}
	if (ferror(t->f)) {
		msc_source_set_error(src, "line %lu: read error", t->lineno + 1);
		return -EIO;
	}
	return 0;
}

static int text_get_stat(const struct msc_source *src, size_t i, struct msc_event_stat *ret)
{
	const struct text_source *t = to_text(src);

	if (i >= MSC_EV_NR)
		return -ENOENT;
	if (!t->counts[i])
		return 0;
	*ret = (struct msc_event_stat){ .system = "text", .name = msc_event_type_name(i),
					.count = t->counts[i], .type = (int)i };
	return 1;
}

static void text_close(struct msc_source *src)
{
	struct text_source *t = to_text(src);

	if (t->f)
		fclose(t->f);
	free(t->line);
	free(t);
}

static const struct msc_source_ops text_ops = {
	.kind = "text",
	.next = text_next,
	.get_stat = text_get_stat,
	.close = text_close,
};

/**
 * msc_source_open_text - open a text event file ("-" is stdin)
 * @path: the file
 * @ret: the source, closed with msc_source_close()
 * @err: why it failed, one line (source.h), or NULL
 * @err_size: its size
 *
 * Header lines before the first event are read here, so the host they
 * state is known when this returns.  Returns 0 or -errno.
 */
int msc_source_open_text(const char *path, struct msc_source **ret, char *err, size_t err_size)
{
	struct text_source *t = calloc(1, sizeof(*t));
	int c;

	if (err && err_size)
		err[0] = '\0';
	if (!t)
		return -ENOMEM;
	msc_source_init(&t->base, &text_ops, path);
	t->f = strcmp(path, "-") ? fopen(path, "re") : fdopen(dup(0), "r");
	if (!t->f) {
		int r = -errno;

		free(t);
		return r;
	}
	while ((c = fgetc(t->f)) == '#') {
		ungetc(c, t->f);
		if (getline(&t->line, &t->cap, t->f) < 0)
			break;
		t->lineno++;
		if (header(t, t->line))
			return msc_source_fail(&t->base, MSC_ERR_PARSE, err, err_size);
	}
	if (c != EOF)
		ungetc(c, t->f);
	*ret = &t->base;
	return 0;
}
