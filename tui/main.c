// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmuscope view DB` (offline: any user who can read the file) and
 * `mmuscope top` (live: runs `mmuscope record` in a child and shows what it
 * stores).  Both open the database read-only, build one struct tui and run
 * the loop; a database nobody analyzes is analyzed on the fly into a
 * private temporary directory (see data.h), removed at exit.
 *
 * Tests and `make bench` drive the same program headless: --script FILE
 * (or MSC_TUI_SCRIPT) feeds keys, --no-display (MSC_TUI_NO_DISPLAY) draws
 * on a virtual screen of $LINES x $COLUMNS, :save-screen writes it under
 * --screen-dir (MSC_TUI_SCREEN_DIR), --bench prints timings at the end.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "recorder.h"
#include "tui.h"
#include "mmuscope/error.h"
#include "mmuscope/file.h"
#include "mmuscope/store.h"
#include "mmuscope/util.h"

#define TOP_OPEN_WAIT_S 30.0	/* how long top waits for the recorder's database */
#define TOP_STOP_MS 15000	/* how long the recorder may take to drain at exit */

struct ui_opts {
	const char *script;
	const char *screen_dir;
	bool headless, no_color, bench;
	int64_t capture;
};

enum {
	OPT_SCRIPT = 256, OPT_NO_DISPLAY, OPT_SCREEN_DIR, OPT_NO_COLOR, OPT_BENCH, OPT_CAPTURE,
	OPT_PID, OPT_TRACING_DIR, OPT_INSTANCE, OPT_BUFFER_KB, OPT_NO_KPROBES, OPT_DURATION,
	OPT_HOST, OPT_STATS_MS, OPT_KVM_STATS, OPT_SPOOL_DIR, OPT_NO_SPOOL, OPT_FORCE,
};

#define UI_LONGOPTS                                                            \
	{ "script", required_argument, NULL, OPT_SCRIPT },                     \
	{ "no-display", no_argument, NULL, OPT_NO_DISPLAY },                   \
	{ "screen-dir", required_argument, NULL, OPT_SCREEN_DIR },             \
	{ "no-color", no_argument, NULL, OPT_NO_COLOR },                       \
	{ "bench", no_argument, NULL, OPT_BENCH }

static void on_hangup(int sig)
{
	cli_stop = sig;
}

/* SIGINT, SIGTERM, and the terminal going away: stop cleanly (temporary files). */
static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_hangup };

	cli_catch_signals();
	sigemptyset(&sa.sa_mask);
	sigaction(SIGHUP, &sa, NULL);
}

static void ui_defaults(struct ui_opts *o)
{
	const char *e;

	o->script = getenv("MSC_TUI_SCRIPT");
	o->headless = (e = getenv("MSC_TUI_NO_DISPLAY")) && *e && strcmp(e, "0");
	o->screen_dir = getenv("MSC_TUI_SCREEN_DIR");
}

/* An option every TUI command takes; false when @c is not one. */
static bool ui_option(struct ui_opts *o, int c, const char *arg)
{
	switch (c) {
	case OPT_SCRIPT:
		o->script = arg;
		return true;
	case OPT_NO_DISPLAY:
		o->headless = true;
		return true;
	case OPT_SCREEN_DIR:
		o->screen_dir = arg;
		return true;
	case OPT_NO_COLOR:
		o->no_color = true;
		return true;
	case OPT_BENCH:
		o->bench = true;
		return true;
	default:
		return false;
	}
}

/*
 * A private directory for the side analysis (and top's files): 0700, named
 * "mmuscope-tui.PID.XXXXXX" so that the next run removes what a killed one
 * left (msc_file_clean(): only this user's, only names of that shape).
 */
static int make_tmpdir(char *buf, size_t size)
{
	const char *tmp = getenv("TMPDIR");

	tmp = tmp && *tmp ? tmp : "/tmp";
	msc_file_clean(tmp, "mmuscope-tui.", ".XXXXXX");
	snprintf(buf, size, "%s/mmuscope-tui.%d.XXXXXX", tmp, (int)getpid());
	return mkdtemp(buf) ? 0 : -errno;
}

/* Remove the private directory and everything in it (only we write there). */
static void remove_tmpdir(const char *dir)
{
	msc_file_remove(dir);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* --bench: first screen, and per (request, screen) the median and worst step. */
static void bench_report(const struct tui *t)
{
	static const char *const views[VIEW_NR] = { "overview", "map", "phases", "gfn" };
	const struct tui_bench *b = &t->bench;
	double s[TUI_BENCH_MAX];

	printf("bench: first screen %.1f ms\n", b->first_screen * 1e3);
	for (int req = 0; req < REQ_NR; req++) {
		for (int v = 0; v < VIEW_NR; v++) {
			size_t n = 0;

			for (unsigned int i = 0; i < b->nr; i++)
				if ((int)b->step[i].req == req && (int)b->step[i].view == v)
					s[n++] = b->step[i].s;
			if (!n)
				continue;
			qsort(s, n, sizeof(s[0]), cmp_double);
			printf("bench: %s on %s: %zu steps, median %.2f ms, max %.2f ms\n",
			       request_name(req), views[v], n, s[n / 2] * 1e3, s[n - 1] * 1e3);
		}
	}
}

static int run_tui(struct tui *t, const struct ui_opts *o)
{
	int r;

	t->headless = o->headless;
	t->no_color = o->no_color;
	t->screen_dir = o->screen_dir;
	t->bench.on = o->bench;
	if (o->headless && !o->script) {
		cli_error("--no-display needs --script FILE (keys to run)");
		return 2;
	}
	r = input_open(t, o->script);
	if (r) {
		cli_error("%s: %s", o->script, strerror(-r));
		return 1;
	}
	r = display_init(t);
	if (!r)
		r = views_open(t);
	if (!r)
		r = tui_run(t);
	views_close(t);
	display_end(t);
	input_close(t);
	if (r == -ENOTTY) {
		cli_error("needs a terminal (or --script FILE --no-display)");
		return 1;
	}
	if (r) {
		cli_error("%s%s%s", o->script ? o->script : t->title, t->message[0] ? ": " : "",
			  t->message[0] ? t->message : msc_strerror(r));
		return 1;
	}
	if (o->bench)
		bench_report(t);
	return 0;
}

static int open_error(const char *db, int r)
{
	if (r == MSC_ERR_LOCKED)
		cli_error("%s: %s (an import still writing it? try again when it is done)", db,
			  msc_strerror(r));
	else
		cli_error("%s: cannot open: %s", db, cli_db_strerror(NULL, r));
	return 1;
}

/* --capture ID the database lacks: said as report and dump say it. */
static void no_capture(const char *db, long long id)
{
	struct msc_capture_row *caps = NULL;
	struct msc_store *s = NULL;
	size_t nr = 0;

	if (!msc_store_open(db, MSC_STORE_READONLY, &s) && !msc_store_get_captures(s, &caps, &nr))
		cli_has_capture(db, caps, nr, id);
	else
		cli_error("%s: no capture %lld", db, id);
	free(caps);
	msc_store_close(s);
}

int cmd_view(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "capture", required_argument, NULL, OPT_CAPTURE },
		{ "input", required_argument, NULL, 'i' },
		UI_LONGOPTS,
		{ 0 }
	};
	struct tui t = { .bench.start = msc_mono_s() };
	const char *in = NULL;
	long long capture;
	struct tui_data d;
	struct ui_opts o = { 0 };
	char dir[4096], side[4200];
	int c, r;

	ui_defaults(&o);
	while ((c = getopt_long(argc, argv, "c:i:", longopts, NULL)) != -1) {
		if (c == 'c')
			c = OPT_CAPTURE;
		if (c == OPT_CAPTURE && cli_capture_id(optarg, &capture))
			o.capture = capture;
		else if (c == 'i')
			in = optarg;
		else if (c == OPT_CAPTURE || !ui_option(&o, c, optarg))
			return 2;
	}
	t.title = cli_input(argc, argv, in, NULL, "database");
	if (!t.title)
		return 2;
	if ((r = make_tmpdir(dir, sizeof(dir)))) {
		cli_error("cannot create a temporary directory: %s", strerror(-r));
		return 1;
	}
	catch_signals();
	snprintf(side, sizeof(side), "%s/analysis.db", dir);
	r = tui_data_open(&d, t.title, o.capture, side);
	if (r) {
		remove_tmpdir(dir);
		if (r == -ENOENT && o.capture > 0) {
			no_capture(t.title, (long long)o.capture);
			return 1;
		}
		return open_error(t.title, r);
	}
	t.data = &d;
	r = run_tui(&t, &o);
	tui_data_close(&d);
	remove_tmpdir(dir);
	return r;
}

/* `mmuscope top`: the recorder's arguments, passed through. */
struct top_args {
	const char *argv[40];
	int argc;
	const char *output;
};

static void top_arg(struct top_args *a, const char *opt, const char *value)
{
	if (a->argc + 3 >= (int)ARRAY_SIZE(a->argv))
		return;
	a->argv[a->argc++] = opt;
	if (value)
		a->argv[a->argc++] = value;
}

static int parse_top(int argc, char **argv, struct top_args *a, struct ui_opts *o)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "tracing-dir", required_argument, NULL, OPT_TRACING_DIR },
		{ "instance", required_argument, NULL, OPT_INSTANCE },
		{ "buffer-kb", required_argument, NULL, OPT_BUFFER_KB },
		{ "no-kprobes", no_argument, NULL, OPT_NO_KPROBES },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "host", required_argument, NULL, OPT_HOST },
		{ "stats-ms", required_argument, NULL, OPT_STATS_MS },
		{ "kvm-stats", required_argument, NULL, OPT_KVM_STATS },
		{ "spool-dir", required_argument, NULL, OPT_SPOOL_DIR },
		{ "no-spool", no_argument, NULL, OPT_NO_SPOOL },
		{ "force", no_argument, NULL, OPT_FORCE },
		UI_LONGOPTS,
		{ 0 }
	};
	static const char *const pass[] = {
		[OPT_PID] = "--pid", [OPT_TRACING_DIR] = "--tracing-dir",
		[OPT_INSTANCE] = "--instance", [OPT_BUFFER_KB] = "--buffer-kb",
		[OPT_NO_KPROBES] = "--no-kprobes", [OPT_DURATION] = "--duration",
		[OPT_HOST] = "--host", [OPT_STATS_MS] = "--stats-ms", [OPT_KVM_STATS] = "--kvm-stats",
		[OPT_SPOOL_DIR] = "--spool-dir",
		[OPT_NO_SPOOL] = "--no-spool", [OPT_FORCE] = "--force",
	};
	bool flag;
	int c;

	while ((c = getopt_long(argc, argv, "o:p:d:", longopts, NULL)) != -1) {
		if (c == 'p' || c == 'd')	/* record's short options */
			c = c == 'p' ? OPT_PID : OPT_DURATION;
		if (c == 'o') {
			a->output = optarg;
		} else if (c >= OPT_PID && c <= OPT_FORCE) {
			flag = c == OPT_NO_KPROBES || c == OPT_NO_SPOOL || c == OPT_FORCE;
			top_arg(a, pass[c], flag ? NULL : optarg);
		} else if (!ui_option(o, c, optarg)) {
			return -1;
		}
	}
	if (optind != argc) {
		cli_error("takes no database: it records one (-o DB keeps it)");
		return -1;
	}
	return 0;
}

/* The recorder's database appears, with its schema, shortly after it starts. */
static int open_recording(struct tui_data *d, struct tui_recorder *rec, const char *db,
			  const char *side)
{
	struct timespec tick = { .tv_nsec = 20000000 };
	double deadline = msc_mono_s() + TOP_OPEN_WAIT_S;
	int r;

	for (;;) {
		r = access(db, F_OK) ? -ENOENT : tui_data_open(d, db, 0, side);
		if (!r)
			return 0;
		/* a schema still being created reads as older, or as none */
		if (r != -ENOENT && r != MSC_ERR_SCHEMA && r != MSC_ERR_SCHEMA_OLD &&
		    r != MSC_ERR_LOCKED && r != MSC_ERR_NOT_MSC)
			return r;
		recorder_poll(rec);
		if (!rec->running || msc_mono_s() > deadline || cli_stop)
			return r;
		nanosleep(&tick, NULL);
	}
}

/*
 * Fold -o DB's WAL into DB once the recorder and the TUI are done with it,
 * as `record` leaves its database: one file that opens alone.  The recorder
 * closed its connection while the TUI still read, so its close could not
 * checkpoint, and the TUI's read-only connections never can.  A connection
 * that writes (it takes the writer lock: nobody else writes DB) checkpoints
 * and removes the WAL when it closes, being the last.
 */
static void fold_wal(const char *db)
{
	struct msc_store *s;
	int r = msc_store_open(db, 0, &s);

	if (r)
		cli_warn("%s: cannot fold its write-ahead log into it (%s): keep %s-wal with it",
			 db, msc_strerror(r), db);
	msc_store_close(s);
}

static void print_log(const struct tui_recorder *rec)
{
	char line[1024];
	FILE *f = fopen(rec->log, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		fputs(line, stderr);
	fclose(f);
}

int cmd_top(int argc, char **argv)
{
	struct top_args a = { .argv = { "mmuscope", "record", "--commit-ms", "100" }, .argc = 4 };
	struct tui t = { .bench.start = msc_mono_s() };
	struct tui_recorder rec;
	struct tui_data d;
	struct ui_opts o = { 0 };
	char dir[4096], db[4200], side[4200], log[4200];
	int r;

	ui_defaults(&o);
	if (parse_top(argc, argv, &a, &o))
		return 2;
	if ((r = make_tmpdir(dir, sizeof(dir)))) {
		cli_error("cannot create a temporary directory: %s", strerror(-r));
		return 1;
	}
	snprintf(db, sizeof(db), "%s/vm.db", dir);
	snprintf(side, sizeof(side), "%s/analysis.db", dir);
	snprintf(log, sizeof(log), "%s/record.log", dir);
	top_arg(&a, "-o", a.output ? a.output : db);
	a.argv[a.argc] = NULL;
	catch_signals();
	r = recorder_start(&rec, (char *const *)a.argv, log);
	if (r) {
		cli_error("cannot start the recorder: %s", strerror(-r));
		remove_tmpdir(dir);
		return 1;
	}
	t.rec = &rec;
	t.title = a.output ? a.output : "(live)";
	r = open_recording(&d, &rec, a.output ? a.output : db, side);
	if (r) {
		recorder_stop(&rec, TOP_STOP_MS);
		print_log(&rec);
		if (rec.running || !rec.failed)
			open_error(t.title, r);
		remove_tmpdir(dir);
		return 1;
	}
	t.data = &d;
	r = run_tui(&t, &o);
	recorder_stop(&rec, TOP_STOP_MS);
	tui_data_close(&d);
	if (a.output && !rec.running)
		fold_wal(a.output);
	if (rec.failed) {
		print_log(&rec);
		r = r ? r : 1;
	}
	remove_tmpdir(dir);
	return r;
}
