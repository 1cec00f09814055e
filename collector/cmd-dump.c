// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmuscope dump DB`: every stored event as one msc_event_format() line, in
 * stream order.  Each capture starts with "#@" header lines stating its host
 * and naming its tasks, so a dump imports back (`mmuscope import --text`)
 * into the same events and names.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "tui/format.h"
#include "mmuscope/error.h"
#include "mmuscope/event.h"
#include "mmuscope/live.h"
#include "mmuscope/store.h"

/* What -F, --cpu, --pid, --from and --to keep; zero keeps everything. */
struct dump_filter {
	bool types[MSC_EV_NR], by_type;
	long long cpu, pid;		/* -1: any */
	unsigned long long from, to;
	bool by_gfn;
	uint64_t gfn;			/* events whose frames hold it (msc_event_gfns()) */
};

static bool wanted(const struct dump_filter *f, const struct msc_event *ev)
{
	uint64_t first, last;

	if (f->by_gfn && (!msc_event_gfns(ev, &first, &last) || f->gfn < first || f->gfn > last))
		return false;
	return (!f->by_type || (ev->type < MSC_EV_NR && f->types[ev->type])) &&
	       (f->cpu < 0 || ev->cpu == f->cpu) && (f->pid < 0 || ev->pid == f->pid) &&
	       ev->ts >= f->from && ev->ts <= f->to;
}

/* "spte_changed,page_fault" into @f; false after saying which name is unknown */
static bool parse_types(struct dump_filter *f, char *arg)
{
	for (char *name = strtok(arg, ","); name; name = strtok(NULL, ",")) {
		int type = msc_event_type_lookup(name);

		if (type < 0) {
			cli_error("--event %s: not an event type (the second word of a dump line)",
				  name);
			return false;
		}
		f->types[type] = f->by_type = true;
	}
	return f->by_type;
}

/* A number of -F's siblings: --cpu, --pid (>= 0) */
static bool parse_number(const char *opt, const char *arg, unsigned long long *ret)
{
	char *end;

	errno = 0;
	*ret = strtoull(arg, &end, 0);
	if (errno || end == arg || *end || arg[0] == '-') {
		cli_error("%s %s: expected a number", opt, arg);
		return false;
	}
	return true;
}

/* --from, --to: a time in trace-cmd's clock, seconds or ns (cli_parse_ts()) */
static bool parse_time(const char *opt, const char *arg, unsigned long long *ret)
{
	if (!cli_parse_ts(arg, ret))
		return true;
	cli_error("%s %s: expected a time in trace-cmd's clock: " CLI_TS_HELP, opt, arg);
	return false;
}

/* --gfn: hex, as the dump prints it and the TUI takes it, with or without 0x */
static bool parse_gfn(const char *arg, uint64_t *ret)
{
	if (!fmt_parse_gfn(arg, ret))
		return true;
	cli_error("--gfn %s: expected a guest frame number (hex)", arg);
	return false;
}

/* "#@ task PID TGID COMM" of each task the capture names (source-text.c reads them) */
static int dump_tasks(struct msc_store *s, int64_t capture_id)
{
	struct msc_task_row *tasks;
	char tgid[16], comm[4 * sizeof(tasks->comm)];
	size_t nr;
	int r = msc_store_get_tasks(s, capture_id, &tasks, &nr);

	for (size_t i = 0; !r && i < nr; i++) {
		const struct msc_task_row *k = &tasks[i];

		if (k->tgid < 0 && !k->comm[0])
			continue;
		if (k->tgid < 0)
			snprintf(tgid, sizeof(tgid), "-");
		else
			snprintf(tgid, sizeof(tgid), "%d", k->tgid);
		printf("#@ task %d %s%s%s\n", k->pid, tgid, k->comm[0] ? " " : "",
		       msc_text_escape(k->comm, comm, sizeof(comm)));
	}
	if (!r)
		free(tasks);
	return r;
}

static int dump_capture(struct msc_store *s, const struct msc_capture_row *c,
			const struct dump_filter *f)
{
	struct msc_event_cursor *cur;
	struct msc_event ev;
	char line[MSC_EVENT_LINE_MAX];
	char src[4096], kind[64], rel[256], vendor[64];
	bool first = true;
	int r;

	/* what the trace said of itself reaches the terminal escaped */
	printf("# capture %lld: %s (%s)%s\n", (long long)c->id,
	       msc_text_escape(c->source, src, sizeof(src)),
	       msc_text_escape(c->kind, kind, sizeof(kind)),
	       c->complete ? "" : " INCOMPLETE");
	if (c->kernel_release[0])
		printf("#@ release %s\n", msc_text_escape(c->kernel_release, rel, sizeof(rel)));
	if (c->vendor[0]) {
		/* what the events were classified with; the rest they teach again */
		printf("#@ host vendor=%s,nonpresent=%#llx,tdp_mmu=%s",
		       msc_text_escape(c->vendor, vendor, sizeof(vendor)),
		       (unsigned long long)c->nonpresent_spte, c->tdp_mmu ? "y" : "n");
		if (!strcmp(c->vendor, "ept"))
			printf(",ept_ad=%s", c->ept_ad ? "y" : "n");
		if (c->ept_sw)
			printf(",ept_sw=%#llx", (unsigned long long)c->ept_sw);
		putchar('\n');
	}
	r = dump_tasks(s, c->id);
	if (r || c->first_seq < 0)
		return r;
	r = msc_store_events_open(s, c->first_seq, c->last_seq, &cur);
	if (r)
		return r;
	while ((r = msc_store_events_next(cur, &ev)) > 0) {
		if (first) {
			char when[32];

			/* the first number of a line is the trace clock in ns */
			printf("# first event at %s s in trace-cmd's clock (it prints %llu so)\n",
			       cli_trace_ts(ev.ts, when, sizeof(when)), (unsigned long long)ev.ts);
			first = false;
		}
		if (!wanted(f, &ev))
			continue;
		msc_event_format(&ev, line, sizeof(line));
		if (puts(line) < 0) {
			r = -EIO;
			break;
		}
	}
	msc_store_events_close(cur);
	return r;
}

int cmd_dump(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "capture", required_argument, NULL, 'c' },
		{ "input", required_argument, NULL, 'i' },
		{ "event", required_argument, NULL, 'F' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "pid", required_argument, NULL, 'P' },
		{ "from", required_argument, NULL, 'S' },
		{ "to", required_argument, NULL, 'E' },
		{ "gfn", required_argument, NULL, 'G' },
		{ 0 }
	};
	struct dump_filter f = { .cpu = -1, .pid = -1, .to = ~0ULL };
	unsigned long long n;
	struct msc_capture_row *caps = NULL;
	struct msc_store *s;
	const char *db = NULL;
	long long only = 0;
	size_t nr = 0;
	int c, r;

	while ((c = getopt_long(argc, argv, "c:i:F:", longopts, NULL)) != -1) {
		bool ok = true;

		switch (c) {
		case 'c':
			ok = cli_capture_id(optarg, &only);
			break;
		case 'i':
			db = optarg;
			break;
		case 'F':
			ok = parse_types(&f, optarg);
			break;
		case 'C':
			ok = parse_number("--cpu", optarg, &n);
			f.cpu = (long long)n;
			break;
		case 'P':
			ok = parse_number("--pid", optarg, &n);
			f.pid = (long long)n;
			break;
		case 'S':
			ok = parse_time("--from", optarg, &f.from);
			break;
		case 'E':
			ok = parse_time("--to", optarg, &f.to);
			break;
		case 'G':
			ok = parse_gfn(optarg, &f.gfn);
			f.by_gfn = true;
			break;
		default:
			return 2;
		}
		if (!ok)
			return 2;
	}
	db = cli_input(argc, argv, db, NULL, "database");
	if (!db)
		return 2;
	r = msc_store_open(db, MSC_STORE_READONLY, &s);
	if (r) {
		cli_store_error(db, NULL, r);
		return 1;
	}
	r = msc_store_get_captures(s, &caps, &nr);
	if (!r && !cli_has_capture(db, caps, nr, only))
		r = 1;
	for (size_t i = 0; !r && i < nr; i++)
		if (!only || caps[i].id == only)
			r = dump_capture(s, &caps[i], &f);
	if (r < 0)
		cli_store_error(db, s, r);
	free(caps);
	msc_store_close(s);
	return r ? 1 : 0;
}
