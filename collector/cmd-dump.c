// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmuscope dump DB`: every stored event as one msc_event_format() line, in
 * stream order.  Each capture starts with "#@" header lines stating its host,
 * so a dump imports back (`mmuscope import --text`) into the same events.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "mmuscope/error.h"
#include "mmuscope/event.h"
#include "mmuscope/store.h"

static int dump_capture(struct msc_store *s, const struct msc_capture_row *c)
{
	struct msc_event_cursor *cur;
	struct msc_event ev;
	char line[MSC_EVENT_LINE_MAX];
	int r;

	printf("# capture %lld: %s (%s)%s\n", (long long)c->id, c->source, c->kind,
	       c->complete ? "" : " INCOMPLETE");
	if (c->kernel_release[0])
		printf("#@ release %s\n", c->kernel_release);
	if (c->vendor[0])
		printf("#@ host vendor=%s,nonpresent=%#llx\n", c->vendor,
		       (unsigned long long)c->nonpresent_spte);
	if (c->first_seq < 0)
		return 0;
	r = msc_store_events_open(s, c->first_seq, c->last_seq, &cur);
	if (r)
		return r;
	while ((r = msc_store_events_next(cur, &ev)) > 0) {
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
		{ 0 }
	};
	struct msc_capture_row *caps = NULL;
	struct msc_store *s;
	const char *db = NULL;
	long long only = 0;
	size_t nr = 0;
	int c, r;

	while ((c = getopt_long(argc, argv, "c:i:", longopts, NULL)) != -1) {
		if (c == 'c' && !cli_capture_id(optarg, &only))
			return 2;
		else if (c == 'i')
			db = optarg;
		else if (c != 'c')
			return 2;
	}
	db = cli_input(argc, argv, db, NULL, "database");
	if (!db)
		return 2;
	r = msc_store_open(db, MSC_STORE_READONLY, &s);
	if (r) {
		cli_error("%s: %s", db, msc_strerror(r));
		return 1;
	}
	r = msc_store_get_captures(s, &caps, &nr);
	if (!r && !cli_has_capture(db, caps, nr, only))
		r = 1;
	for (size_t i = 0; !r && i < nr; i++)
		if (!only || caps[i].id == only)
			r = dump_capture(s, &caps[i]);
	if (r < 0)
		cli_store_error(db, s, r);
	free(caps);
	msc_store_close(s);
	return r ? 1 : 0;
}
