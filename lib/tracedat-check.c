// SPDX-License-Identifier: GPL-2.0-only
/*
 * The checks a trace.dat passes before libtracecmd sees it (trace-cmd.dat(5)
 * for the layout).  libtracecmd trusts what a file says of itself: a page
 * size of 0 divides by zero, a section offset inside the header frees twice,
 * a CPU id of 65537 makes 65,538 CPUs, and one damaged CPU id loops forever.
 * Each of those is refused here with the exact problem, by reading only the
 * fields that say where things are; what the sections hold is still
 * libtracecmd's to read (in a child process, source-isolated.c).
 *
 * Version 7 is walked from the header's first section offset along the
 * chain of options sections (each ends with an OPTION DONE holding the next
 * one's offset): every section an option points to, and every CPU's data
 * that a BUFFER option lists, must lie inside the file, and no two CPUs'
 * data may overlap.  An options section that is compressed (trace-cmd
 * writes them plain, but libtracecmd reads either) is decompressed here
 * with the library trace-cmd uses, zstd, bounded at MAX_OPTIONS_SIZE, and
 * checked the same; one compressed otherwise is refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "mmuscope/error.h"
#include "mmuscope/util.h"
#include "source-local.h"

#define TRACEDAT_MAGIC "\027\010\104tracing"

#define MAX_OPTION_SECTIONS 64	/* trace-cmd writes two */
#define MAX_OPTIONS_SIZE (1 << 20)
#define SECTION_HEADER 16	/* id 2, flags 2, string id 4, size 8 */
#define SECTION_COMPRESSED 1	/* TRACECMD_SEC_FL_COMPRESS */
#define ZSTD_HEADER_MAX 18	/* a zstd frame header's largest size (the format's) */

/* option ids (enum tracecmd_option_id) */
enum {
	OPT_DONE = 0,
	OPT_BUFFER = 3,
	OPT_HEADER_INFO = 16,	/* ... to OPT_CMDLINES: the offset of a section */
	OPT_CMDLINES = 21,
};

struct range {
	uint64_t start, end;
	int cpu;		/* a CPU's data; -1: a section */
	bool buffer;		/* a buffer section: the CPUs' data lie in it */
};

struct ranges {
	struct range *r;
	size_t nr, cap;
};

struct check {
	int fd;
	bool big;
	uint64_t file_size;
	char *detail;
	size_t size;
	struct ranges cpus;	/* every CPU's data of every buffer */
	struct ranges sections;	/* every section the chain names */
	char compression[65];	/* version 7: the file's compression, "" none */
	struct tracedat_gaps *gaps;	/* NULL: not asked for */
	bool whole;		/* every options section was read: all lie in the file */
};

static int add_range(struct ranges *rs, struct range r)
{
	if (msc_grow((void **)&rs->r, rs->nr, &rs->cap, sizeof(*rs->r)))
		return -ENOMEM;
	rs->r[rs->nr++] = r;
	return 0;
}

/* Little- or big-endian, as the file says. */
static uint64_t file_uint(const unsigned char *p, size_t n, bool big)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)p[big ? n - 1 - i : i] << (8 * i);
	return v;
}

static int __attribute__((format(printf, 3, 4))) fail(struct check *c, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->detail, c->size, fmt, ap);
	va_end(ap);
	return r;
}

static bool inside(const struct check *c, uint64_t off, uint64_t len)
{
	return off <= c->file_size && len <= c->file_size - off;
}

static int read_at(struct check *c, uint64_t off, void *buf, size_t len)
{
	ssize_t n = pread(c->fd, buf, len, (off_t)off);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : MSC_ERR_TRUNC;
}

/* The section header at @off, for @what; its size must fit the file. */
static int section(struct check *c, uint64_t off, const char *what, uint16_t *ret_id,
		   uint16_t *ret_flags, uint64_t *ret_size)
{
	unsigned char h[SECTION_HEADER];
	uint64_t size;

	if (!inside(c, off, SECTION_HEADER) || read_at(c, off, h, sizeof(h)))
		return fail(c, MSC_ERR_TRUNC, "the %s section at offset %llu is past the end of the file",
			    what, (unsigned long long)off);
	size = file_uint(h + 8, 8, c->big);
	if (!inside(c, off + SECTION_HEADER, size))
		return fail(c, MSC_ERR_TRUNC, "the %s section at offset %llu (%llu bytes) runs past "
			    "the end of the file", what, (unsigned long long)off,
			    (unsigned long long)size);
	if (add_range(&c->sections, (struct range){ off, off + SECTION_HEADER + size, -1,
						    !strcmp(what, "buffer") }))
		return -ENOMEM;
	if (ret_id)
		*ret_id = (uint16_t)file_uint(h, 2, c->big);
	if (ret_flags)
		*ret_flags = (uint16_t)file_uint(h + 2, 2, c->big);
	if (ret_size)
		*ret_size = size;
	return 0;
}

/* a NUL-terminated string at *@p inside @len bytes; moves past it */
static bool skip_string(const unsigned char *d, size_t len, size_t *p)
{
	const unsigned char *nul = *p < len ? memchr(d + *p, 0, len - *p) : NULL;

	if (!nul)
		return false;
	*p = (size_t)(nul - d) + 1;
	return true;
}

/*
 * A zstd-compressed CPU's data (@off, the count and @size bytes of chunks)
 * of the buffer @name: the chunk count (4 bytes), then each chunk's
 * compressed size and size (4 bytes each) and its zstd frame (libtracecmd's
 * tracecmd_uncompress_chunk()).
 * A frame whose header says it holds fewer bytes than its chunk declares
 * is a gap (only the frame's header is read, not decompressed).  A chunk
 * cut short or a frame without a size is left to libtracecmd, whose
 * reader marks where a CPU's stream stops (check_cpu_end()).
 */
static int scan_chunks(struct check *c, const char *name, int cpu, uint64_t off, uint64_t size)
{
	unsigned char h[8 + ZSTD_HEADER_MAX];
	uint64_t count, p = off + 4, end = min(off + 4 + size, c->file_size), u = 0;
	int r;

	/* the size trace-cmd writes for the CPU is of its chunks, after the count */
	if (end < p || read_at(c, off, h, 4))
		return 0;
	count = file_uint(h, 4, c->big);
	for (uint64_t k = 0; k < count && end - p >= 8; k++) {
		uint64_t csize, usize, content;
		size_t n;

		n = (size_t)min(end - p, (uint64_t)sizeof(h));
		if (read_at(c, p, h, n))
			return 0;
		csize = file_uint(h, 4, c->big);
		usize = file_uint(h + 4, 4, c->big);
		if (csize > end - p - 8)
			return 0;
		content = ZSTD_getFrameContentSize(h + 8, min((size_t)csize, n - 8));
		if (content < usize && content != ZSTD_CONTENTSIZE_UNKNOWN) {
			struct tracedat_gaps *gs = c->gaps;

			if (msc_grow((void **)&gs->g, gs->nr, &gs->cap, sizeof(*gs->g)))
				return -ENOMEM;
			gs->g[gs->nr] = (struct tracedat_gap){ .cpu = cpu, .from = u + content,
							       .to = u + usize };
			r = snprintf(gs->g[gs->nr].buffer, sizeof(gs->g[0].buffer), "%s", name);
			gs->nr += r >= 0 && (size_t)r < sizeof(gs->g[0].buffer);
		}
		u += usize;
		p += 8 + csize;
	}
	return 0;
}

/*
 * BUFFER: the flyrecord section's offset, the instance's name and clock,
 * page size, CPU count, then per CPU its id, data offset and size.
 */
static int buffer(struct check *c, const unsigned char *d, size_t len)
{
	unsigned char seen[TRACEDAT_MAX_CPUS / 8] = { 0 };
	size_t p = 8;
	uint64_t cpus;
	int r;

	if (len < 8 || !skip_string(d, len, &p) || !skip_string(d, len, &p) || len - p < 8)
		return fail(c, MSC_ERR_HEADER, "a BUFFER option of %zu bytes is cut short", len);
	r = section(c, file_uint(d, 8, c->big), "buffer", NULL, NULL, NULL);
	if (r)
		return r;
	cpus = file_uint(d + p + 4, 4, c->big);
	p += 8;
	if (cpus > TRACEDAT_MAX_CPUS)
		return fail(c, MSC_ERR_HEADER, "CPU count %llu (no kernel has more than %d)",
			    (unsigned long long)cpus, TRACEDAT_MAX_CPUS);
	if ((len - p) / 20 < cpus)
		return fail(c, MSC_ERR_HEADER, "a BUFFER option lists %llu CPUs in %zu bytes",
			    (unsigned long long)cpus, len - p);
	for (uint64_t i = 0; i < cpus; i++, p += 20) {
		uint64_t id = file_uint(d + p, 4, c->big), off = file_uint(d + p + 4, 8, c->big);
		uint64_t size = file_uint(d + p + 12, 8, c->big);

		if (id >= TRACEDAT_MAX_CPUS)
			return fail(c, MSC_ERR_HEADER, "CPU id %llu (no kernel has more than %d CPUs)",
				    (unsigned long long)id, TRACEDAT_MAX_CPUS);
		if (seen[id / 8] & (1 << (id % 8)))
			return fail(c, MSC_ERR_HEADER, "CPU %llu is listed twice in one buffer",
				    (unsigned long long)id);
		seen[id / 8] |= (unsigned char)(1 << (id % 8));
		if (!inside(c, off, size))
			return fail(c, MSC_ERR_TRUNC, "CPU %llu's data (%llu bytes at offset %llu) runs "
				    "past the end of the file", (unsigned long long)id,
				    (unsigned long long)size, (unsigned long long)off);
		if (size && add_range(&c->cpus, (struct range){ off, off + size, (int)id, false }))
			return -ENOMEM;
		if (c->gaps && !strcmp(c->compression, "zstd") &&
		    (r = scan_chunks(c, (const char *)d + 8, (int)id, off, size)))
			return r;
	}
	return 0;
}

/* One options section's options; *@next is the one after it (0: the last). */
static int options(struct check *c, const unsigned char *d, size_t len, uint64_t *next)
{
	int r = 0;

	*next = 0;
	for (size_t p = 0; !r && p < len;) {
		unsigned int id;
		uint64_t sz;

		if (len - p < 6)
			return fail(c, MSC_ERR_HEADER, "an option header is cut short");
		id = (unsigned int)file_uint(d + p, 2, c->big);
		sz = file_uint(d + p + 2, 4, c->big);
		p += 6;
		if (sz > len - p)
			return fail(c, MSC_ERR_HEADER, "option %u says %llu bytes, its section has %zu left",
				    id, (unsigned long long)sz, len - p);
		if (id == OPT_DONE) {
			if (sz < 8)
				return fail(c, MSC_ERR_HEADER, "an OPTION DONE of %llu bytes",
					    (unsigned long long)sz);
			*next = file_uint(d + p, 8, c->big);
			return 0;
		}
		if (id == OPT_BUFFER)
			r = buffer(c, d + p, (size_t)sz);
		else if (id >= OPT_HEADER_INFO && id <= OPT_CMDLINES && sz >= 8)
			r = section(c, file_uint(d + p, 8, c->big), "metadata", NULL, NULL, NULL);
		p += (size_t)sz;
	}
	return r;
}

static int by_start(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static const char *range_name(const struct range *r, char *buf, size_t size)
{
	if (r->cpu >= 0)
		snprintf(buf, size, "CPU %d's data", r->cpu);
	else
		snprintf(buf, size, "the section at offset %llu", (unsigned long long)r->start);
	return buf;
}

/**
 * tracedat_cpu_overlap - say that two CPUs' data overlap (the header's
 *	layout, or libtracecmd's): their events would be read twice
 * @buf: where the sentence goes
 * @size: its size
 * @cpu_a: the CPU whose data begins first
 * @cpu_b: the other
 * @at: the offset where the second begins
 * @len: the bytes they share
 *
 * Returns MSC_ERR_CORRUPT.
 */
int tracedat_cpu_overlap(char *buf, size_t size, int cpu_a, int cpu_b, uint64_t at, uint64_t len)
{
	snprintf(buf, size, "the data of CPU %d and CPU %d overlap (%llu bytes at offset %llu)",
		 cpu_a, cpu_b, (unsigned long long)len, (unsigned long long)at);
	return MSC_ERR_CORRUPT;
}

static int overlap(struct check *c, const struct range *a, const struct range *b)
{
	char x[64], y[64];
	uint64_t from = max(a->start, b->start), to = min(a->end, b->end);

	if (a->cpu >= 0 && b->cpu >= 0)
		return tracedat_cpu_overlap(c->detail, c->size, a->cpu, b->cpu, from, to - from);
	if (a->cpu < 0 && b->cpu < 0 && a->start == b->start)
		return fail(c, MSC_ERR_CORRUPT, "two options name the section at offset %llu",
			    (unsigned long long)a->start);
	return fail(c, MSC_ERR_CORRUPT, "%s and %s overlap (%llu bytes at offset %llu)",
		    range_name(a, x, sizeof(x)), range_name(b, y, sizeof(y)),
		    (unsigned long long)(to - from), (unsigned long long)from);
}

/* sorted by start, the first pair of @rs that overlaps, or NULL */
static const struct range *first_overlap(struct ranges *rs)
{
	qsort(rs->r, rs->nr, sizeof(*rs->r), by_start);
	for (size_t i = 1; i < rs->nr; i++)
		if (rs->r[i].start < rs->r[i - 1].end)
			return &rs->r[i - 1];
	return NULL;
}

/*
 * No two CPUs' data overlap, no two sections do, and a CPU's data lies in
 * no section but a buffer section (the one that holds it).
 */
static int no_overlap(struct check *c)
{
	const struct range *o = first_overlap(&c->cpus);

	if (o)
		return overlap(c, o, o + 1);
	o = first_overlap(&c->sections);
	if (o)
		return overlap(c, o, o + 1);
	for (size_t i = 0; i < c->cpus.nr; i++)
		for (size_t k = 0; k < c->sections.nr; k++) {
			const struct range *d = &c->cpus.r[i], *sec = &c->sections.r[k];

			if (!sec->buffer && d->start < sec->end && sec->start < d->end)
				return overlap(c, sec, d);
		}
	return 0;
}

/*
 * The compressed options section at @off, read into *@d (@size bytes):
 * decompressed in its place.  A compressed block is its compressed size (4
 * bytes), its size (4 bytes), then zstd's frame (libtracecmd's
 * tracecmd_uncompress_block()); the size is bounded before anything is
 * allocated, and the frame must decompress to exactly that size.
 */
static int decompress(struct check *c, uint64_t off, unsigned char **d, uint64_t *size)
{
	uint64_t csize, usize;
	unsigned char *u;
	size_t n;

	if (strcmp(c->compression, "zstd"))
		return fail(c, MSC_ERR_HEADER, "the options section at offset %llu is compressed "
			    "with \"%s\", which cannot be checked (zstd can)",
			    (unsigned long long)off, c->compression[0] ? c->compression : "none");
	if (*size < 8)
		return fail(c, MSC_ERR_HEADER, "the compressed options section at offset %llu "
			    "holds %llu bytes", (unsigned long long)off, (unsigned long long)*size);
	csize = file_uint(*d, 4, c->big);
	usize = file_uint(*d + 4, 4, c->big);
	if (csize > *size - 8 || usize > MAX_OPTIONS_SIZE)
		return fail(c, MSC_ERR_HEADER, "the compressed options section at offset %llu says "
			    "%llu bytes, %llu compressed, in %llu", (unsigned long long)off,
			    (unsigned long long)usize, (unsigned long long)csize,
			    (unsigned long long)*size - 8);
	u = malloc(usize ? usize : 1);
	if (!u)
		return -ENOMEM;
	n = ZSTD_decompress(u, usize, *d + 8, csize);
	if (ZSTD_isError(n) || n != usize) {
		free(u);
		return fail(c, MSC_ERR_HEADER, "the compressed options section at offset %llu does "
			    "not decompress to its %llu bytes%s%s", (unsigned long long)off,
			    (unsigned long long)usize, ZSTD_isError(n) ? ": " : "",
			    ZSTD_isError(n) ? ZSTD_getErrorName(n) : "");
	}
	free(*d);
	*d = u;
	*size = usize;
	return 0;
}

/* Version 7: the chain of options sections from @first. */
static int walk_sections(struct check *c, uint64_t first)
{
	uint64_t off = first, visited[MAX_OPTION_SECTIONS];
	int r = 0, n = 0;

	while (off && !r) {
		unsigned char *d;
		uint16_t id, flags;
		uint64_t size, next = 0;

		for (int i = 0; i < n; i++)
			if (visited[i] == off)
				return fail(c, MSC_ERR_HEADER, "the options sections loop back to offset %llu",
					    (unsigned long long)off);
		if (n == MAX_OPTION_SECTIONS)
			return fail(c, MSC_ERR_HEADER, "more than %d options sections",
				    MAX_OPTION_SECTIONS);
		visited[n++] = off;
		r = section(c, off, "options", &id, &flags, &size);
		if (r)
			return r;
		if (id != OPT_DONE)	/* an options section has the id of OPTION DONE */
			return fail(c, MSC_ERR_HEADER, "the section at offset %llu has id %u, not options",
				    (unsigned long long)off, id);
		if (size > MAX_OPTIONS_SIZE)
			return fail(c, MSC_ERR_HEADER, "an options section of %llu bytes",
				    (unsigned long long)size);
		d = malloc(size ? size : 1);
		if (!d)
			return -ENOMEM;
		r = read_at(c, off + SECTION_HEADER, d, (size_t)size);
		if (!r && (flags & SECTION_COMPRESSED))
			r = decompress(c, off, &d, &size);
		if (!r)
			r = options(c, d, (size_t)size, &next);
		free(d);
		off = next;
	}
	c->whole = !r;
	return r ? r : no_overlap(c);
}

/*
 * tracedat_check_header - check what a trace.dat says of where its parts
 * are, before libtracecmd sees it: the magic, the version (6 or 7), the
 * endianness and long size bytes, a page size that is a power of two from 4
 * KiB, and for version 7 the compression's name and the chain of sections
 * (above).  @detail says what is wrong.  Returns 0, MSC_ERR_NOT_TRACE,
 * MSC_ERR_TRUNC (something lies past the end), MSC_ERR_HEADER,
 * MSC_ERR_CORRUPT (CPUs' data overlap), -ENOMEM or -errno.  *@whole says
 * (version 7, every options section plain) that every section and every
 * CPU's data the file names lies inside it: then the file is not short,
 * whatever libtracecmd finds wrong in it.  @gaps (NULL: not asked for)
 * gets what the zstd chunks of every buffer's CPUs do not hold
 * (scan_chunks()), for the reader to mark lost; free @gaps->g.
 */
int tracedat_check_header(const char *path, char *detail, size_t size, bool *whole,
			  struct tracedat_gaps *gaps)
{
	unsigned char h[256];
	size_t n = 0, magic = sizeof(TRACEDAT_MAGIC) - 1, v, p;
	struct check c = { .detail = detail, .size = size, .gaps = gaps };
	uint64_t page, first;
	struct stat st;
	ssize_t got = 0;
	int r = 0;

	detail[0] = '\0';
	c.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (c.fd < 0)
		return -errno;
	while (n < sizeof(h) && (got = read(c.fd, h + n, sizeof(h) - n)) > 0)
		n += (size_t)got;
	if (got < 0 || fstat(c.fd, &st))
		r = -errno;
	c.file_size = (uint64_t)st.st_size;
	if (!r && (n < magic || memcmp(h, TRACEDAT_MAGIC, magic)))
		r = MSC_ERR_NOT_TRACE;
	/* the version, as text, then NUL */
	for (v = magic; !r && v < n && h[v] && v - magic < 8; v++)
		;
	if (!r && v == n)
		r = MSC_ERR_TRUNC;
	else if (!r && (h[v] || v - magic != 1 || (h[magic] != '6' && h[magic] != '7')))
		r = fail(&c, MSC_ERR_HEADER, "version \"%.*s\" (mmuscope reads 6 and 7)",
			 (int)min(v - magic, (size_t)8), (char *)h + magic);
	p = v + 1;
	if (!r && n < p + 6)
		r = MSC_ERR_TRUNC;
	else if (!r && h[p] > 1)
		r = fail(&c, MSC_ERR_HEADER, "endianness byte %u (0 little, 1 big)", h[p]);
	else if (!r && h[p + 1] != 4 && h[p + 1] != 8)
		r = fail(&c, MSC_ERR_HEADER, "long size %u (4 or 8)", h[p + 1]);
	if (!r) {
		c.big = h[p];
		page = file_uint(h + p + 2, 4, c.big);
		if (page < 4096 || (page & (page - 1)))
			r = fail(&c, MSC_ERR_HEADER, "page size %llu (a power of two from 4096)",
				 (unsigned long long)page);
	}
	/* version 7: compression name and version, then the first section's offset */
	p += 6;
	for (int field = 0; !r && h[magic] == '7' && field < 2; field++) {
		size_t start = p;

		while (p < n && h[p] && p - start < 64 && h[p] >= 0x20 && h[p] < 0x7f)
			p++;
		if (p == n)
			r = MSC_ERR_TRUNC;
		else if (h[p])
			r = fail(&c, MSC_ERR_HEADER, "compression %s is not a name",
				 field ? "version" : "algorithm");
		else if (!field)
			snprintf(c.compression, sizeof(c.compression), "%s", (const char *)h + start);
		p++;
	}
	if (!r && h[magic] == '7') {
		first = n < p + 8 ? 0 : file_uint(h + p, 8, c.big);
		if (n < p + 8)
			r = MSC_ERR_TRUNC;
		else if (first < p + 8)
			r = fail(&c, MSC_ERR_HEADER, "first section at offset %llu, inside the header",
				 (unsigned long long)first);
		else if (first >= c.file_size)
			r = fail(&c, MSC_ERR_TRUNC, "first section at offset %llu, past the file's %llu bytes",
				 (unsigned long long)first, (unsigned long long)c.file_size);
		else
			r = walk_sections(&c, first);
	}
	free(c.cpus.r);
	free(c.sections.r);
	close(c.fd);
	*whole = !r && c.whole;
	return r;
}
