// SPDX-License-Identifier: GPL-2.0-only
/*
 * Program-side helpers: messages in git's style ("mmuscope import: <file>:
 * <problem>"), signal handling, small formatting helpers.
 */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mmuscope/error.h"
#include "mmuscope/ingest.h"
#include "mmuscope/file.h"
#include "mmuscope/host.h"
#include "mmuscope/store.h"
#include "mmuscope/util.h"

const char *cli_prog = "mmuscope";
volatile sig_atomic_t cli_stop;

static void vmessage(const char *prefix, const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "%s: %s", cli_prog, prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

/* One line on stderr: "<prog>: <message>". */
void cli_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("", fmt, ap);
	va_end(ap);
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("warning: ", fmt, ap);
	va_end(ap);
}

/* The first SIGINT/SIGTERM asks to stop cleanly; a second ends the program. */
static void on_signal(int sig)
{
	if (cli_stop) {
		signal(sig, SIG_DFL);
		raise(sig);
	}
	cli_stop = sig;
}

/* SIGINT/SIGTERM set cli_stop; long loops poll it and stop cleanly. */
void cli_catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGXFSZ, SIG_IGN);	/* a file size limit is an EFBIG write, not a kill */
	signal(SIGPIPE, SIG_IGN);
}

int cli_usage(const struct cli_command *cmd)
{
	fprintf(stderr, "usage: mmuscope %s %s\n", cmd->name, cmd->usage);
	return 2;
}

/* 1234567 -> "1,234,567" */
const char *cli_count(unsigned long long n, char *buf, unsigned long size)
{
	char tmp[32];
	int len = snprintf(tmp, sizeof(tmp), "%llu", n), o = 0;

	for (int i = 0; i < len && (unsigned long)o + 2 < size; i++) {
		if (i && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = '\0';
	return buf;
}

/* 1536 -> "1.5 KiB" */
const char *cli_bytes(unsigned long long n, char *buf, unsigned long size)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)n;
	size_t u = 0;

	while (v >= 1024 && u + 1 < ARRAY_SIZE(units)) {
		v /= 1024;
		u++;
	}
	snprintf(buf, size, u ? "%.1f %s" : "%.0f %s", v, units[u]);
	return buf;
}

/**
 * cli_clean_leftovers - remove, and say, what killed runs left beside @path:
 *	its temporary names (<path>.importing.PID, .analysis.PID, .tmp.PID.*,
 *	.parts.PID.*, .spool.PID.*) whose process is gone
 */
void cli_clean_leftovers(const char *path)
{
	static const char *const kinds[] = { "importing", "analysis", "tmp", "parts", "spool" };
	const char *slash = strrchr(path, '/');
	char dir[4096], prefix[512];
	int n = 0;

	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) + 1 : 1, slash ? path : ".");
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++) {
		int removed;

		snprintf(prefix, sizeof(prefix), "%s.%s.", slash ? slash + 1 : path, kinds[i]);
		removed = msc_file_clean(dir, prefix, NULL);	/* once: max() is a macro */
		n += max(removed, 0);
	}
	if (n)
		cli_warn("%s: removed %d temporary file%s of a killed run beside it", path, n,
			 n == 1 ? "" : "s");
}

#define CLAIM_LINK INT_MAX	/* cli_claim_db() of a symlink: no lock to hold */

static void remove_files(const char *path, size_t first)
{
	static const char *const suffix[] = { "", "-wal", "-shm", "-journal" };
	char p[4096];

	for (size_t i = first; i < ARRAY_SIZE(suffix); i++) {
		snprintf(p, sizeof(p), "%s%s", path, suffix[i]);
		unlink(p);
	}
}

/* Remove a database and the files SQLite keeps beside it. */
void cli_remove_db(const char *path)
{
	remove_files(path, 0);
}

/**
 * cli_claim_db - make the existing database @path ours to replace
 *
 * Nobody may be writing it: no writer holds it (msc_store_writer_lock()) and
 * no other program is inside a transaction (SQLite's own lock).  Its -wal,
 * -shm and -journal go, so that none is replayed onto what replaces it.
 * Returns the writer lock, held until the caller has put the new file in
 * place (cli_release_db()), or a negative error after saying it.  A symlink
 * at @path is not followed: it is only replaced.
 */
int cli_claim_db(const char *path)
{
	struct msc_store *s;
	struct stat st;
	int r, fd;

	/* a symlink is replaced, never written through: what it points to stays */
	if (!lstat(path, &st) && S_ISLNK(st.st_mode))
		return CLAIM_LINK;
	/* what it holds is replaced: its schema and pages are not our concern */
	r = msc_store_open(path, MSC_STORE_NO_CHECK, &s);
	if (!r) {
		r = msc_store_lock(s);
		msc_store_close(s);
	}
	/* not a database SQLite can lock: only a writer's lock can hold it back */
	if (r == MSC_ERR_NOT_MSC || r == MSC_ERR_DAMAGED)
		r = 0;
	/* between the check and the lock another writer may have come: try, never wait */
	fd = r ? r : msc_store_writer_lock(path);
	if (fd < 0) {
		cli_store_error(path, NULL, fd);	/* the open's detail, if it failed */
		return fd;
	}
	remove_files(path, 1);
	return fd;
}

void cli_release_db(int fd)
{
	if (fd != CLAIM_LINK)
		msc_store_writer_unlock(fd);
}

/**
 * cli_db_strerror - a store error in words: msc_strerror()'s, then what
 *	SQLite or the store's checks said about it ("database is damaged:
 *	database disk image is malformed", "not a regular file: a FIFO")
 * @s: the store the error came from; NULL: the last msc_store_open() that
 *	failed
 *
 * Returns a static buffer, valid until the next call.
 */
const char *cli_db_strerror(const struct msc_store *s, int r)
{
	static char buf[1024];
	const char *what, *detail = s ? msc_store_errmsg(s) : msc_store_open_errmsg();
	bool plain;

	/* after Ctrl-C, whatever a statement hit (SQLite's interrupt in any shape) was its doing */
	if (cli_stop)
		r = MSC_ERR_INTERRUPTED;
	what = msc_strerror(r);
	/* codes that say it all: SQLite's words would only repeat them */
	plain = r == MSC_ERR_LOCKED || r == MSC_ERR_FULL || r == MSC_ERR_INTERRUPTED ||
		r == MSC_ERR_EXISTS || r == MSC_ERR_SCHEMA || r == MSC_ERR_SCHEMA_OLD ||
		r == MSC_ERR_INCOMPLETE;

	if (!plain && detail[0] && strcmp(detail, what))
		snprintf(buf, sizeof(buf), "%s: %s", what, detail);
	else
		snprintf(buf, sizeof(buf), "%s", what);
	return buf;
}

/* "<db>: <problem>: <SQLite's own words>", one line */
void cli_store_error(const char *path, const struct msc_store *s, int r)
{
	cli_error("%s: %s", path, cli_db_strerror(s, r));
}

/* --host K=V,...: host facts from the user; 0, or -1 after saying what is wrong. */
int cli_parse_host(struct msc_host *host, const char *arg)
{
	if (!msc_host_parse_overrides(host, arg))
		return 0;
	cli_error("--host %s: expected vendor=npt|ept, release=X.Y.Z, nonpresent=SPTE, "
		  "frozen=SPTE (values without bit 11), role_access=3|4, ept_ad=y|n, tdp_mmu=y|n, "
		  "ept_sw=0x600000000000000|0xa0000000000000",
		  arg);
	return -1;
}

void cli_output_init(struct cli_output *o)
{
	o->force = o->append = false;
	msc_host_init(&o->host);
}

/*
 * cli_output_option - one option of getopt_long() if it is one of
 * CLI_OUTPUT_OPTIONS.  Returns 1 when it was (and is taken), 0 when it is
 * not one of them, -1 after saying what is wrong with its value.
 */
int cli_output_option(struct cli_output *o, int c, const char *arg)
{
	switch (c) {
	case 'f':
		o->force = true;
		return 1;
	case 'a':
		o->append = true;
		return 1;
	case 'H':
		return cli_parse_host(&o->host, arg) ? -1 : 1;
	default:
		return 0;
	}
}

/* An existing @path that neither --force nor --append lets us touch: true (said). */
bool cli_output_refuses(const struct cli_output *o, const char *path, bool exists)
{
	if (!exists || o->force || o->append)
		return false;
	cli_error("%s: database already exists (-o DB writes another; --append adds this capture "
		  "to it, --force replaces it)", path);
	return true;
}

/* After the options: false (said) when they contradict each other. */
bool cli_output_check(const struct cli_output *o)
{
	if (o->force && o->append) {
		cli_error("--force and --append exclude each other");
		return false;
	}
	return true;
}

/**
 * cli_input - the one input of a command: `-i PATH` (trace-cmd's flag) or
 *	a positional PATH, or @deflt when neither is given
 * @opt_i: the -i argument or NULL; argv[optind..] are the positionals
 * @what: "database" or "trace", for the message
 *
 * Returns the path, or NULL after saying what is wrong.
 */
const char *cli_input(int argc, char **argv, const char *opt_i, const char *deflt,
		      const char *what)
{
	int rest = argc - optind;

	if (rest > 1 || (rest == 1 && opt_i)) {
		cli_error("one %s only, not also %s", what, argv[optind + (opt_i ? 0 : 1)]);
		return NULL;
	}
	if (opt_i)
		return opt_i;
	if (rest == 1)
		return argv[optind];
	if (!deflt)
		cli_error("need a %s (or -i %s)", what, !strcmp(what, "database") ? "DB" : "TRACE");
	return deflt;
}

/** cli_trace_path - @path, or PATH/trace.dat when @path is a directory */
const char *cli_trace_path(const char *path, char *buf, unsigned long size)
{
	struct stat st;

	size_t n = strlen(path);

	if (stat(path, &st) || !S_ISDIR(st.st_mode))
		return path;
	while (n > 1 && path[n - 1] == '/')
		n--;
	snprintf(buf, size, "%.*s/trace.dat", (int)n, path);
	return buf;
}

/*
 * cli_default_db - the database a trace goes to unnamed, in the current
 * directory: the trace's name ending .db (vm1.dat -> vm1.db), but for a
 * trace called trace.dat, trace-cmd's name for every capture, its
 * directory's (.../k612-npt_tdp_32m/trace.dat -> k612-npt_tdp_32m.db), so
 * that each capture directory has a name of its own.  trace.db when no
 * directory name can be found (the root).
 */
const char *cli_default_db(const char *trace, char *buf, unsigned long size)
{
	const char *slash = strrchr(trace, '/');
	const char *base = slash ? slash + 1 : trace;
	size_t n = strlen(base);

	if (!strcmp(base, "trace.dat")) {
		char dir[PATH_MAX], real[PATH_MAX];
		const char *name;

		snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - trace) + 1 : 1,
			 slash ? trace : ".");
		name = realpath(dir, real) ? strrchr(real, '/') + 1 : "";
		if (*name && strcmp(name, ".") && strcmp(name, "..")) {
			snprintf(buf, size, "%s.db", name);
			return buf;
		}
	}
	if (n > 4 && !strcmp(base + n - 4, ".dat"))
		n -= 4;
	if (n)
		snprintf(buf, size, "%.*s.db", (int)n, base);
	else
		snprintf(buf, size, "trace.db");
	return buf;
}

/** cli_capture_id - --capture's argument: a capture id, 1 or more */
bool cli_capture_id(const char *arg, long long *ret)
{
	char *end;

	errno = 0;
	*ret = strtoll(arg, &end, 10);
	if (errno || end == arg || *end || *ret < 1) {
		cli_error("--capture %s: expected a capture id (1, 2, ...; `mmuscope report DB` "
			  "lists them)", arg);
		return false;
	}
	return true;
}

/** cli_has_capture - whether @db has capture @id (0: any), saying so when not */
bool cli_has_capture(const char *db, const struct msc_capture_row *caps, unsigned long nr,
		     long long id)
{
	if (!id)
		return true;
	for (unsigned long i = 0; i < nr; i++)
		if (caps[i].id == id)
			return true;
	if (nr)
		cli_error("%s: no capture %lld (its captures are %lld to %lld)", db, id,
			  (long long)caps[0].id, (long long)caps[nr - 1].id);
	else
		cli_error("%s: no capture %lld (it has none)", db, id);
	return false;
}

/**
 * cli_parse_ts - a time in trace-cmd's clock, as every command takes it
 * @arg: seconds as `trace-cmd report` and mmuscope print them ("9.256041",
 *	"9.256041s", "9s": a number with a decimal point or an 's' suffix,
 *	up to 9 decimals), or nanoseconds ("9256041000": an integer alone,
 *	as dump's lines and the trace's own timestamps hold it); an '@'
 *	before either is allowed (the TUI's jump: '@' tells it from a time
 *	since the first event)
 * @ns: the time in ns, exact (no floating point)
 *
 * Returns 0, -EINVAL when @arg is not such a time, or -ERANGE when it is
 * past 2^64 - 1 ns.  It says nothing: the caller names its option.
 */
int cli_parse_ts(const char *arg, unsigned long long *ns)
{
	unsigned long long sec = 0, frac = 0, scale = 1000000000;
	const char *p = arg + (*arg == '@');
	bool dot = false, digits = false;

	for (; isdigit((unsigned char)*p); p++, digits = true) {
		if (sec > (ULLONG_MAX - 9) / 10)
			return -ERANGE;
		sec = sec * 10 + (unsigned long long)(*p - '0');
	}
	if (*p == '.') {
		dot = true;
		for (p++; isdigit((unsigned char)*p); p++, digits = true) {
			if (scale == 1)
				return -EINVAL;	/* finer than the clock */
			scale /= 10;
			frac += (unsigned long long)(*p - '0') * scale;
		}
	}
	if (!digits || (*p && strcmp(p, "s")))
		return -EINVAL;
	if (!dot && !*p) {	/* an integer alone: nanoseconds */
		*ns = sec;
		return 0;
	}
	if (sec > (ULLONG_MAX - frac) / 1000000000)
		return -ERANGE;
	*ns = sec * 1000000000 + frac;
	return 0;
}

/* A trace time (ns) as `trace-cmd report` prints it: seconds, six decimals. */
const char *cli_trace_ts(unsigned long long ts, char *buf, unsigned long size)
{
	snprintf(buf, size, "%llu.%06llu", ts / 1000000000, ts % 1000000000 / 1000);
	return buf;
}

/**
 * cli_warn_refused - say what ingest refused as damaged: one warning per
 *	kind, with the count (nothing stored is dropped without a word)
 * @what: the input, for the message
 * @ing: the ingest that read it
 */
void cli_warn_refused(const char *what, const struct msc_ingest *ing)
{
	struct msc_ingest_counts c;
	char n[32];

	msc_ingest_get_counts(ing, &c);
	if (c.bad_frame)
		cli_warn("%s: %s events name a guest frame past 57-bit guest physical addresses "
			 "(damaged): not stored", what, cli_count(c.bad_frame, n, sizeof(n)));
	if (c.bad_ts)
		cli_warn("%s: %s events have a time from 2^63 ns on (damaged): not stored",
			 what, cli_count(c.bad_ts, n, sizeof(n)));
}
