// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmuscope analyze DB`: rebuild the page-table history of every capture
 * (or one) from its stored events.  Runs incrementally: only events not
 * analyzed before are read, so a second run changes nothing.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "mmuscope/error.h"
#include "mmuscope/history.h"
#include "mmuscope/live.h"
#include "mmuscope/store.h"
#include "mmuscope/util.h"

struct analyze_opts {
	const char *db;
	long long capture;	/* 0: all */
	bool quiet;
	struct msc_history_opts hopts;
};

static int parse_args(int argc, char **argv, struct analyze_opts *o)
{
	static const struct option longopts[] = {
		{ "capture", required_argument, NULL, 'c' },
		{ "input", required_argument, NULL, 'i' },
		{ "rebuild", no_argument, NULL, 'r' },
		{ "infer-only", no_argument, NULL, 'n' },
		{ "per-event", no_argument, NULL, 'e' },
		{ "quiet", no_argument, NULL, 'q' },
		{ 0 }
	};
	const char *in = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "c:i:q", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (!cli_capture_id(optarg, &o->capture))
				return -1;
			break;
		case 'i':
			in = optarg;
			break;
		case 'r':
			o->hopts.rebuild = true;
			break;
		case 'n':
			/* phases found another way: the analysis so far is not that */
			o->hopts.infer_only = o->hopts.rebuild = true;
			break;
		case 'e':
			o->hopts.per_event = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		default:
			return -1;
		}
	}
	o->db = cli_input(argc, argv, in, NULL, "database");
	return o->db ? 0 : -1;
}

/**
 * analyze_report_summary - the warnings an analysis deserves, on stderr
 *
 * Shared with import (which analyzes inline, and only warns: @fatal false).
 * Returns false when the capture had nothing to analyze.
 */
bool analyze_report_summary(const char *db, const struct msc_history_summary *s, bool fatal)
{
	if (!s->spte_events && !s->intervals) {
		(fatal ? cli_error : cli_warn)("%s: capture %lld: %s: nothing to rebuild", db,
					       (long long)s->capture_id, msc_strerror(MSC_ERR_NO_KVM));
		return false;
	}
	if (!s->tdp_mmu)
		cli_warn("%s: capture %lld: legacy/shadow MMU: census approximate (leaf removals "
			 "are only partly traced)", db, (long long)s->capture_id);
	if (s->census_flags & MSC_CENSUS_PARTIAL)
		cli_warn("%s: capture %lld: the trace began after SPTEs were installed: "
			 "census counts only what the trace revealed", db, (long long)s->capture_id);
	if (s->lost_marks) {
		char size[48] = "of unknown size";

		if (s->lost_events)
			snprintf(size, sizeof(size), "(%llu events)",
				 (unsigned long long)s->lost_events);
		cli_warn("%s: capture %lld: %llu lost-event gaps %s: history after them is marked",
			 db, (long long)s->capture_id, (unsigned long long)s->lost_marks, size);
	}
	if (s->anomalies)
		cli_warn("%s: capture %lld: %llu anomalies: events the model could not apply "
			 "or did not expect (`mmuscope report` lists them)", db,
			 (long long)s->capture_id, (unsigned long long)s->anomalies);
	if (s->out_of_order)
		cli_warn("%s: capture %lld: %llu events out of timestamp order (clamped)", db,
			 (long long)s->capture_id, (unsigned long long)s->out_of_order);
	return true;
}

static void print_summary(const char *db, const struct msc_history_summary *s, double secs)
{
	char a[32], b[32], c[32], d[32];

	printf("%s: capture %lld: %s events analyzed in %.2f s, %s mapping intervals\n", db,
	       (long long)s->capture_id, cli_count(s->events, a, sizeof(a)), secs,
	       cli_count(s->intervals, b, sizeof(b)));
	printf("  synthesized %s split children, applied %s fast-path fixes, completed %s "
	       "frozen SPTEs\n", cli_count(s->synthesized, a, sizeof(a)),
	       cli_count(s->fast_applied, b, sizeof(b)), cli_count(s->frozen_completed, c, sizeof(c)));
	printf("  resyncs %s (A/D-only %s), anomalies %s%s\n", cli_count(s->resyncs, a, sizeof(a)),
	       cli_count(s->ad_resyncs, b, sizeof(b)), cli_count(s->anomalies, d, sizeof(d)),
	       s->tdp_mmu ? "" : ", census approximate (shadow MMU)");
	printf("  %s events in steady stretches (the phase detector asked once a stretch), "
	       "%s applied as ranges\n", cli_count(s->steady, a, sizeof(a)),
	       cli_count(s->ranged, b, sizeof(b)));
}

/* record --light without a sample (host_param record.light 0): no SPTE to rebuild */
static bool light_without_sptes(struct msc_store *s, int64_t capture_id)
{
	char buf[16];

	return msc_store_get_param(s, capture_id, "record.light", buf, sizeof(buf)) == 1 &&
	       !strcmp(buf, "0");
}

int cmd_analyze(int argc, char **argv)
{
	struct analyze_opts o = { 0 };
	struct msc_capture_row *caps = NULL;
	struct msc_store *s;
	size_t nr = 0;
	int r, status = 0;

	if (parse_args(argc, argv, &o))
		return 2;
	cli_catch_signals();
	r = msc_store_open(o.db, 0, &s);
	if (r) {
		cli_error("%s: cannot open database: %s", o.db, cli_db_strerror(NULL, r));
		return 1;
	}
	r = msc_store_get_captures(s, &caps, &nr);
	if (!r && !nr) {
		cli_error("%s: no captures in the database", o.db);
		status = 1;
	} else if (!r && !cli_has_capture(o.db, caps, nr, o.capture)) {
		status = 1;
	}
	for (size_t i = 0; !r && i < nr && !cli_stop; i++) {
		struct msc_history_summary sum;
		double t0 = msc_mono_s();

		if (o.capture && caps[i].id != o.capture)
			continue;
		if (!caps[i].complete)
			cli_warn("%s: capture %lld is incomplete (still recording, or cut short)",
				 o.db, (long long)caps[i].id);
		r = msc_history_analyze(s, caps[i].id, &o.hopts, &sum);
		if (r)
			break;
		if (!sum.spte_events && !sum.intervals && light_without_sptes(s, caps[i].id)) {
			if (!o.quiet)	/* nothing to rebuild, by design: its steps are analyzed */
				printf("%s: capture %lld: a light recording without SPTE history: "
				       "%llu events analyzed, the steps' census is KVM's "
				       "(mmuscope report)\n", o.db, (long long)caps[i].id,
				       (unsigned long long)sum.events);
		} else if (!analyze_report_summary(o.db, &sum, true)) {
			status = 1;
		} else if (!o.quiet) {
			print_summary(o.db, &sum, msc_mono_s() - t0);
		}
	}
	if (r) {
		cli_store_error(o.db, s, r);
		status = 1;
	}
	free(caps);
	msc_store_close(s);
	return status;
}
