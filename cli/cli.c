// SPDX-License-Identifier: GPL-2.0-only
/*
 * Program-side helpers: messages in git's style ("mmuscope import: <file>:
 * <problem>"), signal handling, small formatting helpers.
 */
#include "cli.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mmuscope/error.h"
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
		removed = msc_file_clean(dir, prefix);	/* once: max() is a macro */
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
	r = msc_store_open(path, 0, &s);
	if (!r) {
		r = msc_store_lock(s);
		msc_store_close(s);
	}
	/* between the check and the lock another writer may have come: try, never wait */
	fd = r ? r : msc_store_writer_lock(path);
	if (fd < 0) {
		cli_store_error(path, NULL, fd);
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

/* "<db>: <problem>", with SQLite's own words when the code is only "database error". */
void cli_store_error(const char *path, const struct msc_store *s, int r)
{
	const char *detail = s ? msc_store_errmsg(s) : "";

	if (detail[0] && r == MSC_ERR_SQL)
		cli_error("%s: %s: %s", path, msc_strerror(r), detail);
	else
		cli_error("%s: %s", path, msc_strerror(r));
}

/* --host K=V,...: host facts from the user; 0, or -1 after saying what is wrong. */
int cli_parse_host(struct msc_host *host, const char *arg)
{
	if (!msc_host_parse_overrides(host, arg))
		return 0;
	cli_error("--host %s: expected vendor=npt|ept, release=X.Y.Z, nonpresent=SPTE, "
		  "frozen=SPTE (values without bit 11), role_access=3|4, ept_ad=y|n, tdp_mmu=y|n",
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
	cli_error("%s: %s", path, msc_strerror(MSC_ERR_EXISTS));
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
