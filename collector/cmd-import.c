// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmuscope import TRACE.dat -o DB`: store every event of a trace-cmd
 * trace.dat (or of a text event file) in a database.
 *
 * A new database is written to a temporary file beside the target and
 * renamed into place only when complete, so an interrupted or failed import
 * never leaves a database that looks finished.  With --append the capture
 * is added to an existing database in one transaction: all of it or none.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "mmuscope/error.h"
#include "mmuscope/event.h"
#include "mmuscope/history.h"
#include "mmuscope/host.h"
#include "mmuscope/ingest.h"
#include "mmuscope/source.h"
#include "mmuscope/store.h"
#include "mmuscope/util.h"

struct import_opts {
	const char *input;
	const char *output;
	const char *instance;	/* --instance: a trace-cmd instance buffer */
	char input_buf[4096], output_buf[4096];
	struct cli_output out;	/* --force, --append, --host */
	bool text, quiet, no_analyze;
};

static int parse_args(int argc, char **argv, struct import_opts *o)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "input", required_argument, NULL, 'i' },
		CLI_OUTPUT_OPTIONS,
		{ "text", no_argument, NULL, 't' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "no-analyze", no_argument, NULL, 'N' },
		{ "instance", required_argument, NULL, 'B' },
		{ 0 }
	};
	const char *in = NULL;
	int c, r;

	cli_output_init(&o->out);
	while ((c = getopt_long(argc, argv, "i:o:fq", longopts, NULL)) != -1) {
		r = cli_output_option(&o->out, c, optarg);
		if (r < 0)
			return -1;
		if (r)
			continue;
		switch (c) {
		case 'o':
			o->output = optarg;
			break;
		case 'i':
			in = optarg;
			break;
		case 't':
			o->text = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'N':
			o->no_analyze = true;
			break;
		case 'B':
			o->instance = optarg;
			break;
		default:
			return -1;
		}
	}
	/* as trace-cmd report: ./trace.dat unless told, a directory's trace.dat */
	in = cli_input(argc, argv, in, "trace.dat", "trace");
	if (!in || !cli_output_check(&o->out))
		return -1;
	o->input = o->text ? in : cli_trace_path(in, o->input_buf, sizeof(o->input_buf));
	if (!o->output)
		o->output = cli_default_db(o->input, o->output_buf, sizeof(o->output_buf));
	return 0;
}

static int open_source(const struct import_opts *o, struct msc_source **ret, char *err,
		       size_t err_size)
{
	if (o->text)
		return msc_source_open_text(o->input, ret, err, err_size);
	return msc_source_open_tracedat_instance(o->input, o->instance, ret, err, err_size);
}

/* One line for a failed source: the error and its detail (@detail may be "") */
static void report_source_error(const struct import_opts *o, const char *detail, int r)
{
	char safe[512];

	if (detail[0])
		cli_error("%s: %s: %s", o->input, msc_strerror(r),
			  msc_text_escape(detail, safe, sizeof(safe)));
	else
		cli_error("%s: %s", o->input, msc_strerror(r));
}

/* The special values and where each came from: what a new kernel was read with. */
static void print_specials(const struct msc_ingest *ing, const struct msc_ingest_counts *c)
{
	const struct msc_spte_layout *l = msc_ingest_layout(ing);
	const struct msc_host *h = msc_ingest_host(ing);
	char np[48], fr[48], ra[48];

	msc_special_describe(&h->nonpresent, np, sizeof(np));
	msc_special_describe(&h->frozen, fr, sizeof(fr));
	msc_special_describe(&h->role_access, ra, sizeof(ra));
	printf("  learnt: non-present %#llx from %s, frozen %#llx from %s, page-role access "
	       "%u bits from %s\n", (unsigned long long)l->nonpresent, np,
	       (unsigned long long)l->frozen, fr, l->role_access_bits, ra);
	if (c->unexplained)
		printf("  %llu installs replaced a non-present value that is neither of these\n",
		       (unsigned long long)c->unexplained);
}

static void print_summary(const struct import_opts *o, const struct msc_source *src,
			  const struct msc_ingest *ing, double secs)
{
	const struct msc_capture_info *info = msc_source_info(src);
	const struct msc_host *h = msc_ingest_host(ing);
	struct msc_ingest_counts c;
	char a[32], b[32], rel[256], comp[128], clock[128];

	msc_ingest_get_counts(ing, &c);
	printf("%s -> %s: %s events in %.2f s (%s events/s)\n", o->input, o->output,
	       cli_count(c.events, a, sizeof(a)), secs,
	       cli_count(secs > 0 ? (unsigned long long)(c.events / secs) : 0, b, sizeof(b)));
	for (int t = 0; t < MSC_EV_NR; t++) {
		const char *table = msc_store_event_table(t);
		uint64_t n = c.by_type[t];

		/* types sharing a table are printed once, at the first */
		for (int u = t + 1; u < MSC_EV_NR; u++)
			if (!strcmp(msc_store_event_table(u), table))
				n += c.by_type[u];
		for (int u = 0; u < t; u++)
			if (!strcmp(msc_store_event_table(u), table))
				n = 0;
		if (n)
			printf("  %s %s", table, cli_count(n, a, sizeof(a)));
	}
	printf("\n  host: %s SPTE layout (%s), kernel %s, %s\n",
	       msc_vendor_name(h->vendor), msc_host_source_name(h->vendor_source),
	       h->release[0] ? msc_text_escape(h->release, rel, sizeof(rel)) : "unknown",
	       h->tdp_mmu ? "TDP MMU" : "shadow/legacy MMU (no spte_changed events)");
	print_specials(ing, &c);
	if (info->compression[0] || info->file_version)
		printf("  file: trace.dat v%d%s%s, clock %s, %d cpus\n", info->file_version,
		       info->compression[0] ? " " : "",
		       msc_text_escape(info->compression, comp, sizeof(comp)),
		       info->trace_clock[0] ?
		       msc_text_escape(info->trace_clock, clock, sizeof(clock)) : "not said",
		       info->nr_cpus);
	if (info->instance[0])
		printf("  instance buffer: %s\n",
		       msc_text_escape(info->instance, clock, sizeof(clock)));
}

static bool has_kvm_events(const struct msc_ingest *ing)
{
	struct msc_ingest_counts c;

	msc_ingest_get_counts(ing, &c);
	for (int t = 0; t < MSC_EV_NR; t++)
		if (t != MSC_EV_MARKER && t != MSC_EV_KPROBE && t != MSC_EV_LOST && c.by_type[t])
			return true;
	return false;
}

/*
 * The analysis of a new database runs on a thread of its own, into a
 * database of its own beside the output, merged in at the end; with
 * --append it runs inline on the output.
 */
struct analysis {
	struct msc_history_tap *tap;
	struct msc_tap_thread *thread;	/* NULL: inline */
	struct msc_store *store;	/* the analysis database, or NULL: inline */
	char path[4096];
	struct msc_history_summary sum;
};

static int analysis_start(struct analysis *a, struct msc_ingest *ing, const char *db_path,
			  bool apart)
{
	const struct msc_history_opts opts = { .defer_indexes = apart };	/* built once merged */
	struct msc_tap tap;
	int r;

	if (apart) {
		snprintf(a->path, sizeof(a->path), "%s.analysis.%d", db_path, (int)getpid());
		r = msc_store_open(a->path, MSC_STORE_CREATE | MSC_STORE_BULK, &a->store);
		if (r)
			return r;
	}
	r = msc_history_tap_new(a->store, &opts, &a->tap);
	if (r)
		return r;
	tap = msc_history_tap_tap(a->tap);
	if (apart) {
		r = msc_tap_thread_start(&tap, &a->thread);
		if (r)
			return r;
		tap = msc_tap_thread_tap(a->thread);
	}
	msc_ingest_set_tap(ing, &tap);
	return 0;
}

/* Stop the analysis thread, whatever happened; returns its error. */
static int analysis_join(struct analysis *a)
{
	int r = msc_tap_thread_finish(a->thread);

	a->thread = NULL;
	return r;
}

/* Finish the analysis and, when it ran apart, merge it into @db. */
static int analysis_finish(struct analysis *a, struct msc_store *db)
{
	int r = 0;

	if (a->tap)
		r = msc_history_tap_finish(a->tap, &a->sum);
	if (!a->store)
		return r;
	if (!r)
		r = msc_store_commit(a->store);
	msc_store_close(a->store);
	a->store = NULL;
	if (!r && a->sum.events)
		r = msc_history_merge(db, a->path);
	return r;
}

/* The tasks stored after the analysis ran name processes: place by them. */
static int analysis_by_process(struct analysis *a, struct msc_store *db)
{
	int r = a->sum.events ? msc_history_by_process(db, 0, &a->sum) : 0;

	return r < 0 ? r : 0;
}

static void analysis_release(struct analysis *a)
{
	msc_tap_thread_finish(a->thread);
	msc_history_tap_free(a->tap);
	msc_store_close(a->store);
	if (a->path[0])
		cli_remove_db(a->path);
}

/*
 * On a terminal, a long import says how far it got: one line, rewritten
 * twice a second from the first second on, erased at the end.
 */
struct progress {
	bool on, shown;
	double start, next;
};

#define PROGRESS_AFTER_S 1.0
#define PROGRESS_EVERY_S 0.5

static void progress_init(struct progress *p, bool quiet)
{
	*p = (struct progress){ .on = !quiet && isatty(STDERR_FILENO), .start = msc_mono_s() };
	p->next = p->start + PROGRESS_AFTER_S;
}

static void progress_show(struct progress *p, const char *input, const struct msc_ingest *ing)
{
	struct msc_ingest_counts c;
	double now, secs;
	char n[32];

	if (!p->on || (now = msc_mono_s()) < p->next)
		return;
	p->next = now + PROGRESS_EVERY_S;
	secs = now - p->start;
	msc_ingest_get_counts(ing, &c);
	fprintf(stderr, "\r\033[K%s: %s: %s events in %.0f s (%.2f M events/s)", cli_prog, input,
		cli_count(c.events, n, sizeof(n)), secs, (double)c.events / secs / 1e6);
	p->shown = true;
}

static void progress_end(struct progress *p)
{
	if (p->shown)
		fprintf(stderr, "\r\033[K");
}

static int run_ingest(const struct import_opts *o, struct msc_source *src,
		      struct msc_store *store, const char *db_path)
{
	struct analysis an = { 0 };
	struct msc_ingest *ing;
	struct msc_ingest_counts c;
	bool store_failed = false;	/* the error came from the store or the analysis */
	const char *w;
	char safe[512];
	double t0 = msc_mono_s();
	int r, ra;

	r = msc_ingest_new(src, store, &o->out.host, &ing);
	if (r) {
		cli_error("%s: %s", o->input, msc_strerror(r));
		return r;
	}
	if (!o->no_analyze && (r = analysis_start(&an, ing, db_path, !o->out.append)))
		store_failed = true;
	if (!r) {
		struct progress p;

		progress_init(&p, o->quiet);
		while ((r = msc_ingest_step(ing, 4096)) > 0 && !cli_stop)
			progress_show(&p, o->input, ing);
		progress_end(&p);
	}
	if (cli_stop || r == MSC_ERR_INTERRUPTED)
		r = MSC_ERR_INTERRUPTED;	/* whatever the interrupted read said */
	while ((w = msc_source_next_warning(src)))
		cli_warn("%s: %s", o->input, msc_text_escape(w, safe, sizeof(safe)));
	cli_warn_refused(o->input, ing);
	if (!r && !has_kvm_events(ing))
		r = MSC_ERR_NO_KVM;
	/* who each task is; an import samples no KVM counters, so no task has a VM */
	if (!r)
		r = msc_ingest_add_tasks(ing, NULL, NULL);	/* may still feed the tap */
	if (!r)
		r = msc_ingest_finish(ing);	/* ... what it held */
	msc_ingest_get_counts(ing, &c);
	store_failed |= c.store_failed;
	ra = analysis_join(&an);
	if (!r && ra) {
		r = ra;
		store_failed = true;
	}
	if (!r && (r = analysis_finish(&an, store)))
		store_failed = true;
	if (!r && (r = analysis_by_process(&an, store)))
		store_failed = true;
	if (!r && msc_ingest_note(ing)[0])
		cli_warn("%s: %s", o->input,
			 msc_text_escape(msc_ingest_note(ing), safe, sizeof(safe)));
	if (!r && (r = msc_store_finish(store)))
		store_failed = true;
	if (!r && !o->quiet)
		print_summary(o, src, ing, msc_mono_s() - t0);
	if (!r && !o->no_analyze && an.sum.events)
		analyze_report_summary(o->output, &an.sum, false);
	if (r == MSC_ERR_INTERRUPTED)
		cli_error("%s: interrupted; %s", o->input,
			  o->out.append ? "the partial capture was removed" : "no database written");
	else if (r == MSC_ERR_LAYOUT)
		cli_error("%s: %s (override with --host vendor=npt|ept)", o->input,
			  msc_ingest_note(ing));
	else if (r && store_failed)
		cli_store_error(db_path, store, r);
	else if (r)
		report_source_error(o, msc_source_error(src), r);
	analysis_release(&an);
	msc_ingest_free(ing);
	return r;
}

int cmd_import(int argc, char **argv)
{
	struct import_opts o = { 0 };
	struct msc_source *src = NULL;
	struct msc_store *store = NULL;
	char tmp[4096], err[512];
	const char *db_path;
	int r, claim = -1;
	bool exists;

	if (parse_args(argc, argv, &o))
		return 2;
	cli_catch_signals();
	r = open_source(&o, &src, err, sizeof(err));
	if (r && (cli_stop || r == MSC_ERR_INTERRUPTED)) {
		cli_error("%s: interrupted; no database written", o.input);
		return 130;
	}
	if (r) {
		report_source_error(&o, err, r);
		return 1;
	}
	cli_clean_leftovers(o.output);
	exists = !access(o.output, F_OK);
	if (cli_output_refuses(&o.out, o.output, exists))
		goto err_src;
	if (o.out.append) {
		db_path = o.output;
		r = msc_store_open(db_path, 0, &store);
		if (!r)
			msc_store_set_batch(store, 0);	/* all or nothing */
	} else {
		/* the file replaced is ours until the new one is in its place */
		if (exists && (claim = cli_claim_db(o.output)) < 0)
			goto err_src;
		snprintf(tmp, sizeof(tmp), "%s.importing.%d", o.output, (int)getpid());
		db_path = tmp;
		r = msc_store_open(db_path, MSC_STORE_CREATE | MSC_STORE_BULK, &store);
	}
	if (r && (cli_stop || r == MSC_ERR_INTERRUPTED)) {
		/* Ctrl-C while the database opened: as at any other moment */
		cli_error("%s: interrupted; %s", o.input,
			  o.out.append ? "nothing was added" : "no database written");
		if (!o.out.append)
			cli_remove_db(db_path);
		cli_release_db(claim);
		msc_source_close(src);
		return 130;
	}
	if (r) {
		cli_error("%s: cannot open database: %s", o.output, msc_strerror(r));
		if (!o.out.append && r != MSC_ERR_EXISTS)
			cli_remove_db(db_path);
		goto err_src;
	}
	r = run_ingest(&o, src, store, o.output);
	msc_store_close(store);
	msc_source_close(src);
	if (o.out.append)
		return !r ? 0 : r == MSC_ERR_INTERRUPTED ? 130 : 1;
	if (!r && rename(tmp, o.output)) {
		cli_error("%s: cannot rename %s into place: %s", o.output, tmp, strerror(errno));
		r = -errno;
	}
	cli_release_db(claim);
	if (r) {
		cli_remove_db(tmp);
		return r == MSC_ERR_INTERRUPTED ? 130 : 1;
	}
	return 0;

err_src:
	cli_release_db(claim);
	msc_source_close(src);
	return 1;
}
