// SPDX-License-Identifier: GPL-2.0-only
/*
 * trace.dat source: libtracecmd reads the file (any file version, with or
 * without compression) and merges the per-CPU streams by timestamp; the
 * decoder turns each record into an event.
 *
 * libtracecmd 1.3 (trace-cmd 3.1.6) exports a few functions its public
 * header does not declare; the ones used here are declared below exactly as
 * trace-cmd's private header has them.  They are plain getters and the
 * per-CPU tracecmd_peek_data(), with which the streams are merged here one
 * record at a time (merge_next()).
 */
#include "mmuscope/source.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <trace-cmd/trace-cmd.h>

#include "mmuscope/decode.h"
#include "mmuscope/error.h"
#include "mmuscope/file.h"
#include "mmuscope/util.h"
#include "source-local.h"

/* exported by libtracecmd.so.1, declared in trace-cmd-private.h */
unsigned long tracecmd_get_in_file_version(struct tracecmd_input *handle);
int tracecmd_get_file_compress_proto(struct tracecmd_input *handle, const char **name,
				     const char **version);
const char *tracecmd_get_uname(struct tracecmd_input *handle);
const char *tracecmd_get_trace_clock(struct tracecmd_input *handle);
int tracecmd_cpus(struct tracecmd_input *handle);
int tracecmd_page_size(struct tracecmd_input *handle);
off64_t tracecmd_get_cpu_file_size(struct tracecmd_input *handle, int cpu);
struct tep_record *tracecmd_read_cpu_last(struct tracecmd_input *handle, int cpu);
struct tep_record *tracecmd_peek_data(struct tracecmd_input *handle, int cpu);
struct tep_record *tracecmd_peek_next_data(struct tracecmd_input *handle, int *rec_cpu);
struct tracecmd_output;
struct tracecmd_output *tracecmd_copy(struct tracecmd_input *ihandle, const char *file,
				      int state, int file_version, const char *compression);
void tracecmd_output_close(struct tracecmd_output *handle);

#define TRACECMD_FILE_CPU_FLYRECORD 11	/* enum tracecmd_file_states: everything */

/*
 * libtracecmd 1.3 reads compressed (zstd) data at a cost per record that
 * grows with the file: 3.4 s for a 4.2 M-event file, 77 s for 12.6 M, against
 * 0.5 s and 3.7 s for the same files uncompressed.  Its own copy, what
 * `trace-cmd convert` does, decompresses in one pass at ~1 GB/s, so a large
 * compressed file is read from an uncompressed copy in $TMPDIR, unlinked as
 * soon as it is open.
 */
#define COPY_ABOVE (8 << 20)	/* compressed bytes */

#define MAX_NOTES 4

/*
 * One CPU's data: where it lies (from its first record and its declared
 * size) and how far it was read.  Offsets are libtracecmd's: the file's, or
 * for compressed data those of the uncompressed stream.
 */
struct cpu_data {
	uint64_t start, size;		/* size 0: no data, or its first page unreadable */
	uint64_t last_offset;		/* of the last record read */
	uint64_t last_ts;		/* of the last record handed out */
	uint64_t bad_times;		/* records dropped since, for their time (bad_time()) */
	bool unreadable;		/* it has data, but no first record */
	const struct tracedat_gap *gap;	/* the next gap its chunks leave (in t->gaps), */
	size_t nr_gaps;			/* ... and how many are left from it */
};

/* what waits behind the event handed out: the event behind its LOST, a LOST after it */
#define OUT_MAX 4

struct tracedat_source {
	struct msc_source base;
	struct tracecmd_input *handle;	/* the buffer read: the top one, or an instance */
	struct tracecmd_input *top;	/* the file's, when an instance is read */
	struct msc_decoder *dec;
	struct msc_event out[OUT_MAX];	/* events waiting to be handed out, a ring */
	int out_head, out_len;
	struct cpu_data *cpus;
	int nr_cpus;
	struct merge_slot *heap;	/* the CPUs with records left, by next record */
	int heap_len;			/* -1: not built yet */
	bool heap_reread;		/* the top CPU was read from: look at it again */
	bool heap_next_known;		/* ... check_cpu_end() did: its next record is at */
	unsigned long long heap_next_ts;	/* ... this time */
	bool started;			/* the first record was looked at, */
	uint64_t start_ts;		/* ... its time */
	int next_mark;			/* next CPU mark_unreadable() looks at */
	bool copied;			/* read from the uncompressed copy */
	struct stat read;		/* the file read (the copy, if any): its mappings
					   are dropped (drop_mapped()), its size bounds
					   the data (check_layout()) */
	struct tracedat_gap *gaps;	/* the read buffer's, by CPU then offset */
	uint64_t records;		/* read so far */
	uint64_t bad_times;		/* dropped for their time, in all */
	char notes[MAX_NOTES][192];	/* warnings of the open and the end */
	int nr_notes, next_note;
};

/*
 * The per-CPU streams are merged in a min-heap on (next record's ts, CPU):
 * tracecmd_read_next_data() peeks at every CPU for every record, 97 peeks a
 * record in the seed's 96-vCPU trace; the heap costs O(log CPUs) for the
 * same order (the earliest record; of equal times, the lowest CPU's).
 */
struct merge_slot {
	unsigned long long ts;
	int cpu;
};

static bool slot_before(const struct merge_slot *a, const struct merge_slot *b)
{
	return a->ts < b->ts || (a->ts == b->ts && a->cpu < b->cpu);
}

static inline void heap_down(struct merge_slot *h, int n, int i)
{
	for (;;) {
		int l = 2 * i + 1, m = i;
		struct merge_slot tmp;

		if (l < n && slot_before(&h[l], &h[m]))
			m = l;
		if (l + 1 < n && slot_before(&h[l + 1], &h[m]))
			m = l + 1;
		if (m == i)
			return;
		tmp = h[i];
		h[i] = h[m];
		h[m] = tmp;
		i = m;
	}
}

static struct tracedat_source *to_tracedat(const struct msc_source *src)
{
	return container_of(src, struct tracedat_source, base);
}

static void __attribute__((format(printf, 2, 3))) add_note(struct tracedat_source *t,
							     const char *fmt, ...)
{
	va_list ap;

	if (t->nr_notes == MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(t->notes[t->nr_notes++], sizeof(t->notes[0]), fmt, ap);
	va_end(ap);
}

static struct msc_event lost_mark(uint64_t ts, int cpu, uint64_t count)
{
	return (struct msc_event){
		.ts = ts, .cpu = (uint16_t)cpu, .pid = -1, .type = MSC_EV_LOST,
		.lost.count = count,	/* 0: a gap of unknown size */
	};
}

static void queue(struct tracedat_source *t, struct msc_event ev)
{
	t->out[(t->out_head + t->out_len++) % OUT_MAX] = ev;
}

static int pop(struct tracedat_source *t, struct msc_event *ret_ev)
{
	*ret_ev = t->out[t->out_head];
	t->out_head = (t->out_head + 1) % OUT_MAX;
	t->out_len--;
	return 1;
}

/*
 * Whether @len bytes (at most the 256 MiB libtracecmd maps at once) no
 * longer fit in this process's address space: libtracecmd ends a CPU's
 * stream where a mapping fails as where a page is damaged.
 */
static bool no_room_for(uint64_t len)
{
	size_t n = (size_t)min(max(len, (uint64_t)1 << 20), (uint64_t)256 << 20);
	void *p = mmap(NULL, n, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return errno == ENOMEM;
	munmap(p, n);
	return false;
}

static struct tep_record *peek(struct tracedat_source *t, int cpu);

/* The bytes of @c's data after @offset (what is still to be read of it). */
static uint64_t cpu_rest(const struct cpu_data *c, uint64_t offset)
{
	return c->start + c->size - min(offset, c->start + c->size);
}

static void note_gap(struct tracedat_source *t, int cpu, const struct tracedat_gap *gap)
{
	add_note(t, "CPU %d: a compressed chunk holds %llu fewer bytes than it says "
		 "(damaged): the events in them are lost", cpu,
		 (unsigned long long)(gap->to - gap->from));
}

/*
 * Has @rec passed the next gap its CPU's compressed chunks leave (a chunk
 * that decompresses short, tracedat_check_header())?  The events in the
 * gap are lost: a LOST mark of unknown count goes before @rec, once.  The
 * gap's offsets are of the CPU's uncompressed data, from its first page:
 * read from the compressed file, what is missing reads as nothing; read
 * from the uncompressed copy, what follows the gap comes right after it.
 * Either way the first record at or past its start is the first after it.
 */
static bool past_gap(struct tracedat_source *t, const struct tep_record *rec)
{
	struct cpu_data *c = &t->cpus[rec->cpu];
	bool past = false;

	while (c->nr_gaps && rec->offset >= c->start && rec->offset - c->start >= c->gap->from) {
		note_gap(t, rec->cpu, c->gap);
		c->gap++;
		c->nr_gaps--;
		past = true;
	}
	return past;
}

/*
 * Each CPU must be read to its last record.  libtracecmd ends a CPU's stream
 * at a page it cannot read or decompress, as if the data ended there: when
 * the stream of @cpu has just ended after @rec, its last record is looked
 * up, and if @rec is not it, a LOST mark of unknown count follows @rec (the
 * events after it on that CPU are lost) with a warning.  A CPU whose first
 * page could not be read gets its mark before the first event.  Returns 0,
 * or -ENOMEM when the rest of the CPU's data would not fit in memory.
 */
static int check_cpu_end(struct tracedat_source *t, const struct tep_record *rec)
{
	struct cpu_data *c = &t->cpus[rec->cpu];
	struct tep_record *next, *last;
	bool whole;

	c->last_offset = rec->offset;
	next = peek(t, rec->cpu);
	if (next) {
		/* what merge_next()'s look at the CPU would find: it need not look */
		t->heap_next_known = t->heap_len > 0 && t->heap[0].cpu == rec->cpu;
		t->heap_next_ts = next->ts;
		return 0;
	}
	last = tracecmd_read_cpu_last(t->handle, rec->cpu);
	whole = last && last->offset == rec->offset;
	if (last)
		tracecmd_free_record(last);
	if (whole && c->nr_gaps) {	/* its data ended in a gap: lost after @rec */
		note_gap(t, rec->cpu, c->gap);
		c->nr_gaps = 0;
		queue(t, lost_mark(rec->ts, rec->cpu, 0));
	}
	if (whole)
		return 0;
	if (no_room_for(cpu_rest(c, rec->offset)))
		return -ENOMEM;	/* the rest could not be mapped: no memory is not damage */
	add_note(t, "CPU %d: its data could not be read past %llu of its %llu KiB "
		 "(damaged): the events after are lost", rec->cpu,
		 (unsigned long long)(rec->offset - c->start) >> 10,
		 (unsigned long long)c->size >> 10);
	queue(t, lost_mark(rec->ts, rec->cpu, 0));
	return 0;
}

/*
 * Before the first event: a CPU that has data but whose first page cannot
 * be read gets a LOST mark at the first event's time.  Returns 1 with it in
 * *@ret_ev, 0 once all are given.
 */
static int mark_unreadable(struct tracedat_source *t, struct msc_event *ret_ev)
{
	int cpu;

	if (!t->started) {
		struct tep_record *first = tracecmd_peek_next_data(t->handle, &cpu);

		t->started = true;
		t->start_ts = first ? first->ts : 0;
	}
	while (t->next_mark < t->nr_cpus) {
		cpu = t->next_mark++;
		if (!t->cpus[cpu].unreadable)
			continue;
		add_note(t, "CPU %d: its data could not be read (damaged): its events are lost", cpu);
		*ret_ev = lost_mark(t->start_ts, cpu, 0);
		return 1;
	}
	return 0;
}

/*
 * libtracecmd maps each CPU's data in large read-only windows (256 MiB for
 * a 760 MB file) and the pages it has read stay resident, so the reader's
 * memory grew with the trace (417 MB there).  Every DROP_EVERY records the
 * pages of the file's read-only private mappings are dropped: they are
 * clean copies of the file, and the next access reads the page cache again
 * (MADV_DONTNEED on such a mapping loses nothing).
 */
#define DROP_EVERY (1U << 16)

static void drop_mapped(const struct tracedat_source *t)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[4352];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long start, end, ino;
		unsigned int major, minor;
		char perms[5];

		if (sscanf(line, "%lx-%lx %4s %*x %x:%x %lu", &start, &end, perms, &major, &minor,
			   &ino) == 6 && !strcmp(perms, "r--p") && ino == (unsigned long)t->read.st_ino &&
		    makedev(major, minor) == t->read.st_dev)
			madvise((void *)start, end - start, MADV_DONTNEED);
	}
	fclose(f);
}

/*
 * A record's time is damaged when it is from 2^63 ns on (a page's time of
 * 2^64-1) or more than BACK_MAX before the last one of its CPU (the records
 * after such a page's first: its time plus their deltas wraps to near 0):
 * each CPU's records are in time order as the kernel writes them, but for
 * an interrupting writer's few microseconds.  Such records are
 * dropped, counted, and a LOST mark of their count stands where they were;
 * one with a time past 2^63 is dropped as soon as it is seen (peek()), or
 * it would hold its CPU's stream behind every other CPU's to the end.
 */
#define TS_END (1ULL << 63)
#define BACK_MAX 1000000000ULL	/* ns: nested writers' small disorder is not damage */

static struct tep_record *peek(struct tracedat_source *t, int cpu)
{
	struct tep_record *rec;

	while ((rec = tracecmd_peek_data(t->handle, cpu)) && rec->ts >= TS_END) {
		rec = tracecmd_read_data(t->handle, cpu);
		if (!rec)
			return NULL;
		t->cpus[cpu].bad_times++;
		t->bad_times++;
		tracecmd_free_record(rec);
	}
	return rec;
}

/* Every CPU's next record into the heap (once, before the first read). */
static int merge_init(struct tracedat_source *t)
{
	t->heap = calloc((size_t)t->nr_cpus + 1, sizeof(*t->heap));
	if (!t->heap)
		return -ENOMEM;
	t->heap_len = 0;
	for (int cpu = 0; cpu < t->nr_cpus; cpu++) {
		struct tep_record *rec = peek(t, cpu);

		if (rec)
			t->heap[t->heap_len++] = (struct merge_slot){ .ts = rec->ts, .cpu = cpu };
	}
	for (int i = t->heap_len / 2 - 1; i >= 0; i--)
		heap_down(t->heap, t->heap_len, i);
	return 0;
}

/*
 * The next record of the whole file, as tracecmd_read_next_data() orders
 * them; NULL at the end.  The CPU of the record handed out last is looked
 * at again only now, after check_cpu_end() had its say on it: a peek that
 * found nothing (a damaged page, or a mapping that failed for want of
 * memory) may succeed the next time, and a CPU leaves the heap only when
 * that second look finds nothing either.  When check_cpu_end()'s peek
 * found the CPU's next record, this look is spared: nothing read the CPU
 * since, so a peek would return the same record (libtracecmd keeps it).
 */
static struct tep_record *merge_next(struct tracedat_source *t)
{
	struct tep_record *next;

	if (t->heap_next_known) {
		t->heap[0].ts = t->heap_next_ts;
		heap_down(t->heap, t->heap_len, 0);
	} else if (t->heap_reread && t->heap_len) {
		next = peek(t, t->heap[0].cpu);
		if (next)
			t->heap[0].ts = next->ts;
		else
			t->heap[0] = t->heap[--t->heap_len];
		heap_down(t->heap, t->heap_len, 0);
	}
	t->heap_next_known = false;
	t->heap_reread = t->heap_len > 0;
	return t->heap_len ? tracecmd_read_data(t->handle, t->heap[0].cpu) : NULL;
}

/*
 * A record that does not decode (@r): the decoder found no memory for it,
 * or it is damaged.  Short of address space, libtracecmd may hand out a
 * record of memory it could not map: when the rest of the CPU's data would
 * not fit either, that is no memory, not damage.
 */
static int bad_record(struct tracedat_source *t, const struct tep_record *rec, int r)
{
	const struct cpu_data *c = rec->cpu >= 0 && rec->cpu < t->nr_cpus ? &t->cpus[rec->cpu] : NULL;

	if (r == -ENOMEM || no_room_for(c ? cpu_rest(c, c->last_offset) : 0))
		return -ENOMEM;
	msc_source_set_error(&t->base, "%s", msc_decoder_error(t->dec));
	return r;
}

/* A record before its CPU's last (see peek()): counted, to be dropped. */
static bool bad_time(struct tracedat_source *t, const struct tep_record *rec)
{
	struct cpu_data *c = &t->cpus[rec->cpu];

	if (rec->ts + BACK_MAX >= c->last_ts)
		return false;
	c->bad_times++;
	t->bad_times++;
	return true;
}

/*
 * A record of a good time, @r its decode's result (1: *@ret_ev holds its
 * event): after dropped records of its CPU, their LOST mark comes first,
 * at the last good time, the event waits behind it.  Returns 0.
 */
static int after_good_time(struct tracedat_source *t, const struct tep_record *rec,
			   struct msc_event *ret_ev, int r)
{
	struct cpu_data *c = &t->cpus[rec->cpu];

	c->last_ts = rec->ts;
	if (!c->bad_times)
		return 0;
	if (r > 0)
		queue(t, *ret_ev);
	*ret_ev = lost_mark(rec->ts, rec->cpu, c->bad_times);
	c->bad_times = 0;
	return 1;
}

/*
 * The events of one record, in order: the kernel's mark of events it
 * dropped before it, its event, a mark of data lost after it.  The event is
 * decoded straight into *@ret_ev; only what comes with it waits in t->out.
 */
static int tracedat_next(struct msc_source *src, struct msc_event *ret_ev)
{
	struct tracedat_source *t = to_tracedat(src);
	struct tep_record *rec;
	bool gap;
	int r;

	if (t->next_mark < t->nr_cpus && mark_unreadable(t, ret_ev))
		return 1;
	if (t->out_len)
		return pop(t, ret_ev);
	if (t->heap_len < 0 && (r = merge_init(t)))
		return r;
	for (;;) {
		rec = merge_next(t);
		if (!rec) {
			if (t->bad_times)
				add_note(t, "%llu records with a damaged time (from 2^63 ns on, or before "
					 "their CPU's last) were dropped: each run of them is marked lost",
					 (unsigned long long)t->bad_times);
			t->bad_times = 0;
			return 0;
		}
		if (!(++t->records % DROP_EVERY))
			drop_mapped(t);
		if (rec->cpu >= 0 && rec->cpu < t->nr_cpus && bad_time(t, rec)) {
			r = check_cpu_end(t, rec);
			tracecmd_free_record(rec);
			if (r < 0)
				return r;
			if (t->out_len)
				return pop(t, ret_ev);
			continue;
		}
		r = msc_decoder_decode(t->dec, rec, ret_ev);
		if (r < 0) {
			r = bad_record(t, rec, r);
			tracecmd_free_record(rec);
			return r;
		}
		gap = rec->cpu >= 0 && rec->cpu < t->nr_cpus && past_gap(t, rec);
		if (rec->missed_events || gap) {
			/* -1: the kernel only flagged a gap; count unknown, as a chunk's */
			if (r > 0)
				queue(t, *ret_ev);
			*ret_ev = lost_mark(rec->ts, rec->cpu, rec->missed_events > 0 && !gap ?
							      (uint64_t)rec->missed_events : 0);
			r = 1;
		}
		if (rec->cpu >= 0 && rec->cpu < t->nr_cpus) {
			int mark = after_good_time(t, rec, ret_ev, r), end = check_cpu_end(t, rec);

			r = end < 0 ? end : mark ?: r;
		}
		tracecmd_free_record(rec);
		if (r < 0)
			return r;
		if (r > 0)
			return 1;
		if (t->out_len)
			return pop(t, ret_ev);
	}
}

static int tracedat_get_stat(const struct msc_source *src, size_t i, struct msc_event_stat *ret)
{
	return msc_decoder_get_stat(to_tracedat(src)->dec, i, ret);
}

static const char *tracedat_next_warning(struct msc_source *src)
{
	struct tracedat_source *t = to_tracedat(src);

	if (t->next_note < t->nr_notes)
		return t->notes[t->next_note++];
	return msc_decoder_next_warning(t->dec);
}

static void tracedat_close(struct msc_source *src)
{
	struct tracedat_source *t = to_tracedat(src);

	msc_decoder_free(t->dec);
	if (t->handle)
		tracecmd_close(t->handle);
	if (t->top)
		tracecmd_close(t->top);
	free(t->cpus);
	free(t->heap);
	free(t->gaps);
	free(t);
}

/*
 * A task's name is what trace-cmd saved of the kernel's saved_cmdlines,
 * as `trace-cmd report` shows it ("<idle>" for pid 0).  Its process is not
 * known: trace-cmd does not save the kernel's saved_tgids, and libtracecmd
 * has nothing else that maps a thread to its process.
 */
static int tracedat_get_task(struct msc_source *src, int pid, struct msc_source_task *ret)
{
	struct tep_handle *tep = tracecmd_get_tep(to_tracedat(src)->handle);

	if (!tep || !tep_is_pid_registered(tep, pid))
		return -ENOENT;
	snprintf(ret->comm, sizeof(ret->comm), "%s", tep_data_comm_from_pid(tep, pid));
	return 0;
}

static const struct msc_source_ops tracedat_ops = {
	.kind = "trace.dat",
	.next = tracedat_next,
	.get_stat = tracedat_get_stat,
	.next_warning = tracedat_next_warning,
	.get_task = tracedat_get_task,
	.close = tracedat_close,
};

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

/*
 * Where the data of a version-6 file begins: the page after its flyrecord
 * table ("flyrecord\0", then each CPU's offset and size), found by the
 * entry of CPU @cpu, whose data @c is the first in the file.  Returns 0, or
 * -ENOENT when the table is not where the entry says (then only what the
 * records show is checked).
 */
static int v6_data_begin(struct tracedat_source *t, const char *path, int cpu,
			 const struct cpu_data *c, uint64_t page, uint64_t *ret)
{
	bool big = tep_is_file_bigendian(tracecmd_get_tep(t->handle));
	unsigned char entry[16];
	const unsigned char *map, *at = NULL;
	size_t len = (size_t)c->start, base, table = 16 * (size_t)t->nr_cpus;
	int fd = open(path, O_RDONLY | O_CLOEXEC), r = -ENOENT;

	for (int i = 0; i < 8; i++) {
		entry[big ? 7 - i : i] = (unsigned char)(c->start >> (8 * i));
		entry[big ? 15 - i : 8 + i] = (unsigned char)(c->size >> (8 * i));
	}
	map = fd < 0 || !len ? MAP_FAILED : mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (fd >= 0)
		close(fd);
	if (map == MAP_FAILED)
		return r;
	/* the last match: kallsyms and the like come before the table */
	for (const unsigned char *p = map; (p = memmem(p, len - (size_t)(p - map), entry, 16)); p++)
		at = p;
	base = at ? (size_t)(at - map) - 16 * (size_t)cpu : 0;
	if (at && base >= 10 && base + table <= len && !memcmp(map + base - 10, "flyrecord", 10)) {
		*ret = ((uint64_t)(base + table) + page - 1) & ~(page - 1);
		r = 0;
	}
	munmap((void *)map, len);
	return r;
}

static int by_start(const void *a, const void *b)
{
	const struct cpu_data *x = *(struct cpu_data *const *)a, *y = *(struct cpu_data *const *)b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * Where each CPU's data lies: from the page of its first record, its
 * declared size.  No two may overlap (their events would be read twice),
 * and in a file read as it is (not through a decompressed stream) each lies
 * inside the file.  In version 6 the CPUs' data follow each other to the
 * end of the file, each from a page boundary, so a page or more that no CPU
 * covers is data of none (a size that was damaged): it is refused too.
 */
static int check_layout(struct tracedat_source *t, const char *path)
{
	uint64_t page = (uint64_t)tracecmd_page_size(t->handle), end = 0;
	uint64_t file_size = (uint64_t)t->read.st_size;
	bool in_file = !t->base.info.compression[0] || t->copied;
	struct cpu_data **order;
	int n = 0, r = 0;

	t->nr_cpus = max(tracecmd_cpus(t->handle), 0);
	if (t->nr_cpus > TRACEDAT_MAX_CPUS) {
		msc_source_set_error(&t->base, "CPU count %d (no kernel has more than %d)",
				     t->nr_cpus, TRACEDAT_MAX_CPUS);
		return MSC_ERR_HEADER;
	}
	t->cpus = calloc((size_t)t->nr_cpus + 1, sizeof(*t->cpus));
	order = calloc((size_t)t->nr_cpus + 1, sizeof(*order));
	if (!t->cpus || !order) {
		free(order);
		return -ENOMEM;
	}
	for (int cpu = 0; cpu < t->nr_cpus; cpu++) {
		off64_t size = tracecmd_get_cpu_file_size(t->handle, cpu);
		struct tep_record *first = size > 0 ? tracecmd_peek_data(t->handle, cpu) : NULL;

		if (!first) {
			t->cpus[cpu].unreadable = size > 0;
			continue;
		}
		t->cpus[cpu].start = first->offset & ~(page - 1);
		t->cpus[cpu].size = (uint64_t)size;
		order[n++] = &t->cpus[cpu];
	}
	qsort(order, (size_t)n, sizeof(*order), by_start);
	if (n && in_file && t->base.info.file_version == 6 &&
	    !v6_data_begin(t, path, (int)(order[0] - t->cpus), order[0], page, &end) &&
	    order[0]->start - end >= page) {
		msc_source_set_error(&t->base, "%llu bytes before CPU %d's data belong to no CPU",
				     (unsigned long long)(order[0]->start - end),
				     (int)(order[0] - t->cpus));
		r = MSC_ERR_CORRUPT;
	}
	for (int i = 0; i < n && !r; i++) {
		struct cpu_data *c = order[i];
		int cpu = (int)(c - t->cpus);

		if (i && c->start < end) {
			r = tracedat_cpu_overlap(t->base.error, sizeof(t->base.error),
						 (int)(order[i - 1] - t->cpus), cpu, c->start,
						 end - c->start);
		} else if (in_file && c->start + c->size > file_size) {
			msc_source_set_error(&t->base, "CPU %d's data (%llu bytes at offset %llu) "
					     "runs past the end of the file", cpu,
					     (unsigned long long)c->size,
					     (unsigned long long)c->start);
			r = MSC_ERR_TRUNC;
		} else if (in_file && end && c->start - end >= page) {
			msc_source_set_error(&t->base, "%llu bytes before CPU %d's data belong to no CPU",
					     (unsigned long long)(c->start - end), cpu);
			r = MSC_ERR_CORRUPT;
		}
		end = (c->start + c->size + page - 1) & ~(page - 1);
	}
	if (!r && n && in_file && t->base.info.file_version == 6 &&
	    file_size > end && file_size - end >= page) {
		msc_source_set_error(&t->base, "the last %llu bytes of the file belong to no CPU",
				     (unsigned long long)(file_size - end));
		r = MSC_ERR_CORRUPT;
	}
	free(order);
	return r;
}

/*
 * Open @path up to its data.  tracecmd_close() crashes on a handle whose data
 * failed to load (trace-cmd 3.1.6, a truncated version-6 file), so such a
 * handle is left behind: the caller is about to give up.
 */
static int open_data(const char *path, struct tracecmd_input **ret)
{
	struct tracecmd_input *h = tracecmd_open_head(path, TRACECMD_FL_LOAD_NO_PLUGINS |
							    TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);

	errno = 0;
	if (h && tracecmd_init_data(h) >= 0) {
		*ret = h;
		return 0;
	}
	if (errno != ENOMEM)
		return MSC_ERR_TRUNC;
	/*
	 * No memory is not damage, but an allocation of more than this
	 * process could ever map (a chunk count of 2^32) is: a size or count
	 * in the file is damaged.  Room for libtracecmd's largest window
	 * (256 MiB) says which.
	 */
	return no_room_for(256 << 20) ? -ENOMEM : MSC_ERR_CORRUPT;
}

/*
 * The copying child's memory bound: the reader's bound on its address
 * space becomes one on its heap and private writable maps (RLIMIT_DATA).
 * libtracecmd maps each CPU's decompressed data read-only in windows that
 * grow with the trace (97 CPUs of 128 MiB each, 12 GiB of address space,
 * to copy the seed's 164 MB file), which the address-space bound does not
 * allow for and the data bound does not count; the copy's heap stays small.
 */
static void copy_limits(void)
{
	struct rlimit as, data;

	if (getrlimit(RLIMIT_AS, &as) || as.rlim_cur == RLIM_INFINITY ||
	    getrlimit(RLIMIT_DATA, &data))
		return;
	data.rlim_cur = min(as.rlim_cur, data.rlim_cur);
	if (setrlimit(RLIMIT_DATA, &data))
		return;
	as.rlim_cur = as.rlim_max;
	setrlimit(RLIMIT_AS, &as);
}

/* the copying child: 0 done, 1 copy failed, 2 not readable, 3 parent gone */
static int copy_child(pid_t parent, const char *path, const char *tmp)
{
	struct tracecmd_input *head;
	struct tracecmd_output *out;
	const char *fault;
	int r = 0;

	/* it dies with its parent: no copy outlives the run (a killed one's is cleaned) */
	if (!source_child_start(parent))
		return 3;
	copy_limits();
	head = tracecmd_open_head(path, TRACECMD_FL_LOAD_NO_PLUGINS |
					      TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
	if (!head)
		return 2;
	/* fault injection for tests: the copy dies (as libtracecmd may on a damaged file) */
	fault = getenv("MSC_READER_FAULT");
	if (fault && !strcmp(fault, "copy-segv"))
		raise(SIGSEGV);
	out = tracecmd_copy(head, tmp, TRACECMD_FILE_CPU_FLYRECORD,
			    (int)tracecmd_get_in_file_version(head), "none");
	if (out)
		tracecmd_output_close(out);
	else
		r = 1;
	tracecmd_close(head);	/* its per-CPU temporary files go here */
	return r;
}

/*
 * Write the uncompressed copy in a child process: libtracecmd reports each
 * CPU it copies on stderr (its output handle is not ours to quiet), and a
 * damaged file that crashes it takes only the child down.  While it runs,
 * the per-CPU files libtracecmd decompresses into are unlinked as they
 * appear (tracecmd-tmp.c), so that a kill leaves none.
 */
static int copy_uncompressed(const char *path, const char *tmp)
{
	const struct timespec tick = { .tv_nsec = 5 * 1000 * 1000 };
	pid_t parent = getpid(), pid = fork();
	int status;

	if (pid < 0)
		return -errno;
	if (pid == 0)
		_exit(copy_child(parent, path, tmp));
	for (pid_t w; (w = waitpid(pid, &status, WNOHANG)) != pid;) {
		if (w < 0 && errno != EINTR)
			return -errno;
		tracecmd_tmp_unlink_open(pid);
		nanosleep(&tick, NULL);
	}
	if (!WIFEXITED(status))
		return MSC_ERR_CORRUPT;
	return WEXITSTATUS(status) == 0 ? 0 : WEXITSTATUS(status) == 2 ? MSC_ERR_TRUNC :
									  MSC_ERR_TMPCOPY;
}

/* Where uncompressed copies are written: $TMPDIR, or /var/tmp. */
static const char *copy_dir(void)
{
	const char *dir = getenv("TMPDIR");

	return dir && *dir ? dir : "/var/tmp";
}

/**
 * tracedat_copy_remove - remove the uncompressed copy the reader @pid was
 *	writing, if any ("mmuscope-<pid>-XXXXXX.dat" in copy_dir())
 * @pid: a reader that is dead (and reaped): its copying child dies with it
 *
 * What its parent calls once the reader is gone before it could unlink the
 * copy (killed, interrupted): an interrupted import leaves no host data in
 * $TMPDIR.  Only this user's copies of that exact shape whose process is
 * gone are removed (msc_file_clean()): @pid's, and any a killed run left.
 * Returns how many were removed.
 */
int tracedat_copy_remove(pid_t pid)
{
	int n = msc_file_clean(copy_dir(), "mmuscope-", "-XXXXXX.dat");

	(void)pid;	/* gone: its copy is one of the dead's */
	return max(n, 0);
}

/*
 * The uncompressed copy of a large compressed file, open and unlinked.  Its
 * name carries the pid ("mmuscope-<pid>-XXXXXX.dat"): the copies of killed
 * runs are removed here by the next.
 */
static int open_uncompressed(struct tracedat_source *t, const char *path)
{
	const char *dir = copy_dir();
	char tmp[4096];
	int fd, r;

	msc_file_clean(dir, "mmuscope-", "-XXXXXX.dat");
	snprintf(tmp, sizeof(tmp), "%s/mmuscope-%d-XXXXXX.dat", dir, (int)getpid());
	fd = mkstemps(tmp, 4);	/* 0600: a trace holds host physical addresses */
	if (fd < 0)
		return MSC_ERR_TMPCOPY;
	close(fd);
	r = copy_uncompressed(path, tmp);
	if (!r && open_data(tmp, &t->handle))
		r = MSC_ERR_TMPCOPY;	/* the copy is short: its disk filled up */
	if (!r && stat(tmp, &t->read))
		r = -errno;
	t->copied = !r;
	unlink(tmp);
	return r;
}

/*
 * Each CPU's first record time in @h, or UINT64_MAX without one; @ts holds
 * @nr entries.
 */
static void first_times(struct tracecmd_input *h, int nr, uint64_t *ts)
{
	for (int cpu = 0; cpu < nr; cpu++) {
		struct tep_record *rec = tracecmd_peek_data(h, cpu);

		ts[cpu] = rec ? rec->ts : UINT64_MAX;
	}
}

/*
 * Read a large compressed file from its uncompressed copy, if the copy holds
 * what the file does: libtracecmd 1.3's tracecmd_copy() drops a CPU's data
 * when the file lists its CPUs sparsely (an idle CPU has no entry), so every
 * CPU's first record must be the same in both; and the copying child may
 * die (a damaged file).  Otherwise the file is read as it is (slower), and
 * a note says why.
 */
static int read_copy(struct tracedat_source *t, const char *path)
{
	int nr = max(tracecmd_cpus(t->handle), 0), lost = -1;
	uint64_t *want = calloc(2 * (size_t)nr + 1, sizeof(*want)), *got;
	int r;

	if (!want)
		return -ENOMEM;
	got = want + nr;
	first_times(t->handle, nr, want);
	tracecmd_close(t->handle);
	t->handle = NULL;
	r = open_uncompressed(t, path);
	if (!r && tracecmd_cpus(t->handle) != nr) {
		lost = min(max(tracecmd_cpus(t->handle), 0), nr);	/* the first in only one */
	} else if (!r) {
		first_times(t->handle, nr, got);
		for (int cpu = 0; cpu < nr && lost < 0; cpu++)
			if (got[cpu] != want[cpu])
				lost = cpu;
	}
	free(want);
	if (r == MSC_ERR_CORRUPT) {	/* the copying child died */
		add_note(t, "libtracecmd died writing the uncompressed copy; the compressed file is "
			 "read as it is (slower)");
	} else if (lost >= 0) {
		tracecmd_close(t->handle);
		t->handle = NULL;
		add_note(t, "libtracecmd's uncompressed copy lost the data of CPU %d; the compressed "
			 "file is read as it is (slower)", lost);
	} else {
		return r;
	}
	t->copied = false;
	return stat(path, &t->read) ? -errno : open_data(path, &t->handle);
}

/* Whether any CPU of @h has a record. */
static bool has_records(struct tracecmd_input *h)
{
	for (int cpu = 0; cpu < tracecmd_cpus(h); cpu++)
		if (tracecmd_peek_data(h, cpu))
			return true;
	return false;
}

/*
 * trace-cmd's instance buffers (`trace-cmd record -B NAME`): each is a
 * capture of its own.  The one named @instance is read; without a name,
 * the top buffer, or when it holds no record, the first instance that
 * does.  Every instance not read is named in a note, so that none is
 * ignored without a word.  Returns 0, or MSC_ERR_NO_INSTANCE (the source's
 * error names those there are).
 */
static int pick_buffer(struct tracedat_source *t, const char *instance)
{
	int nr = max(tracecmd_buffer_instances(t->handle), 0), pick = -1;
	char names[160] = "";

	for (int i = 0; i < nr; i++) {
		const char *name = tracecmd_buffer_instance_name(t->handle, i);

		if (instance && name && !strcmp(name, instance))
			pick = i;
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
			 i ? ", " : "", name ? name : "?");
	}
	if (instance && pick < 0) {
		msc_source_set_error(&t->base, "no instance buffer \"%s\" (%s%s)", instance,
				     nr ? "it has: " : "it has none", names);
		return MSC_ERR_NO_INSTANCE;
	}
	for (int i = 0; !instance && i < nr && !has_records(t->handle); i++) {
		struct tracecmd_input *h = tracecmd_buffer_instance_handle(t->handle, i);

		if (!h)
			continue;
		if (has_records(h))
			pick = i;
		tracecmd_close(h);
		if (pick >= 0)
			add_note(t, "the top buffer holds no events: instance \"%s\" is read",
				 tracecmd_buffer_instance_name(t->handle, i));
	}
	for (int i = 0; i < nr; i++)
		if (i != pick)
			add_note(t, "instance buffer \"%s\" is not read (import --instance %s)",
				 tracecmd_buffer_instance_name(t->handle, i),
				 tracecmd_buffer_instance_name(t->handle, i));
	if (pick < 0)
		return 0;
	t->top = t->handle;
	t->handle = tracecmd_buffer_instance_handle(t->top, pick);
	if (!t->handle)
		return MSC_ERR_TRUNC;
	snprintf(t->base.info.instance, sizeof(t->base.info.instance), "%s",
		 tracecmd_buffer_instance_name(t->top, pick));
	t->base.info.nr_cpus = tracecmd_cpus(t->handle);
	return 0;
}

/**
 * tracedat_open_direct - open a trace-cmd trace.dat for reading, here
 * @path: the file
 * @instance: the instance buffer to read, or NULL (see pick_buffer())
 * @gaps: what the compressed chunks of the file's buffers do not hold, from
 *	tracedat_check_header() (NULL: none known); the read buffer's are
 *	marked lost where they are
 * @ret: the source, closed with msc_source_close()
 *
 * What msc_source_open_tracedat() runs in its child (source-isolated.c),
 * once it has checked the file (tracedat_check_header()): libtracecmd is
 * called in the calling process.  Plugins are not loaded, so nothing
 * depends on the machine it runs on.
 *
 * Returns 0; -errno when the file cannot be read; MSC_ERR_TRUNC when libtracecmd cannot load its headers
 * or data sections (a short or damaged file); MSC_ERR_TMPCOPY when the
 * uncompressed copy of a large compressed file cannot be written.
 */
/*
 * The gaps of the buffer read (@gaps: every buffer's), each CPU's in order,
 * for past_gap().  Returns 0 or -ENOMEM.
 */
static int take_gaps(struct tracedat_source *t, const struct tracedat_gaps *gaps)
{
	size_t n = 0;

	if (!gaps || !gaps->nr)
		return 0;
	t->gaps = calloc(gaps->nr, sizeof(*t->gaps));
	if (!t->gaps)
		return -ENOMEM;
	for (int cpu = 0; cpu < t->nr_cpus; cpu++) {
		t->cpus[cpu].gap = t->gaps + n;
		for (size_t i = 0; i < gaps->nr; i++)	/* as scanned: by offset */
			if (gaps->g[i].cpu == cpu &&
			    !strcmp(gaps->g[i].buffer, t->base.info.instance))
				t->gaps[n++] = gaps->g[i];
		t->cpus[cpu].nr_gaps = (size_t)(t->gaps + n - t->cpus[cpu].gap);
	}
	return 0;
}

int tracedat_open_direct(const char *path, const char *instance,
			 const struct tracedat_gaps *gaps, struct msc_source **ret)
{
	struct tracedat_source *t;
	int r;

	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->heap_len = -1;
	msc_source_init(&t->base, &tracedat_ops, path);
	tracecmd_set_loglevel(TEP_LOG_NONE);
	r = tracecmd_tmp_clean();
	if (r > 0)
		add_note(t, "removed %d temporary files libtracecmd left in /tmp (runs that were killed)",
			 r);
	r = stat(path, &t->read) ? -errno : open_data(path, &t->handle);
	if (r == MSC_ERR_CORRUPT) {	/* open_data(): an absurd allocation */
		msc_source_set_error(&t->base, "libtracecmd asked for more memory than this process "
				     "could ever have: a size or count in it is damaged");
		*ret = &t->base;	/* its error says what is wrong */
		return r;
	}
	if (r) {
		free(t);
		return r;
	}
	fill_info(t);
	r = pick_buffer(t, instance);
	if (r) {
		*ret = &t->base;	/* its error says what is wrong */
		return r;
	}
	/* an instance is read as it is: libtracecmd's copy is of the top buffer */
	if (!t->top && t->base.info.compression[0] && t->read.st_size > COPY_ABOVE) {
		r = read_copy(t, path);
		if (r) {
			free(t);
			return r;
		}
	}
	r = check_layout(t, path);
	if (r) {
		*ret = &t->base;	/* its error says what is wrong */
		return r;
	}
	r = take_gaps(t, gaps) ?: msc_decoder_new(tracecmd_get_tep(t->handle), &t->dec);
	if (r) {
		tracedat_close(&t->base);
		return r;
	}
	*ret = &t->base;
	return 0;
}
