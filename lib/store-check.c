// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the store checks before it answers from a file it did not just
 * create: that the file is a regular file (nothing SQLite could block on),
 * that every object of its schema is one the program's schema steps make,
 * and that SQLite finds its pages sound (PRAGMA quick_check).  And how any
 * SQLite call is stopped: a progress handler that reads the program's stop
 * flag.
 *
 * mmuscope runs as root on shared hosts, so a database is input like any
 * other: a FIFO or a device would block open() or read() for ever, a view
 * or trigger of someone else's runs inside every query we make (a recursive
 * view never ends), a damaged page gives wrong rows without an error.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mmuscope/error.h"
#include "schema.h"
#include "store-local.h"

/* ---- stopping: SIGINT/SIGTERM reach every SQLite call ---- */

static const volatile sig_atomic_t *interrupt_flag;

/**
 * msc_store_set_interrupt - the flag that stops every SQLite call
 * @flag: set (non-zero) by a signal handler; NULL: nothing stops them
 *
 * Process-wide, set once before the first store is opened (lib/ cannot see
 * the program's own flag).  While *@flag is set, every statement of every
 * connection the store opens ends within a few thousand SQLite VM steps with
 * MSC_ERR_INTERRUPTED; its transaction is rolled back by the caller's error
 * path or at close.
 */
void msc_store_set_interrupt(const volatile sig_atomic_t *flag)
{
	__atomic_store_n(&interrupt_flag, flag, __ATOMIC_RELEASE);
}

static int progress(void *unused)
{
	const volatile sig_atomic_t *f = __atomic_load_n(&interrupt_flag, __ATOMIC_ACQUIRE);

	(void)unused;
	return f && *f;
}

/* Every connection the store opens watches the flag (1,000 VM steps: < 0.1 ms). */
void msc_store_watch(sqlite3 *db)
{
	sqlite3_progress_handler(db, 1000, progress, NULL);
}

/** msc_store_interrupted - whether the stop flag is set */
bool msc_store_interrupted(void)
{
	return progress(NULL);
}

/* ---- the file: regular, or not opened at all ---- */

static const char *file_kind(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISLNK(m))
		return "a symbolic link";
	return "not a regular file";
}

/**
 * msc_store_check_file - refuse what SQLite could block on, before it opens it
 * @path: the database
 * @writer: a writer does not follow a symbolic link at @path (cli_claim_db()
 *	replaces one; writing through it would change the file it names)
 * @msg: receives what is wrong
 *
 * The database and the files SQLite keeps beside it (-wal, -shm, -journal)
 * must be regular files: opening a FIFO blocks until a writer comes, reading
 * a character device may never end.  The file is fstat()ed through an
 * O_PATH descriptor, so a FIFO at @path cannot block the check itself.  (A file
 * swapped for a FIFO between this check and SQLite's open() needs write
 * access to the directory, which is the file's owner anyway.)
 *
 * Returns 0, -errno (-ENOENT: no such file) or MSC_ERR_NOT_REG.
 */
int msc_store_check_file(const char *path, bool writer, char *msg, size_t size)
{
	static const char *const side[] = { "-wal", "-shm", "-journal" };
	struct stat st;
	char p[4096];
	int fd;

	msg[0] = '\0';
	if (writer && !lstat(path, &st) && S_ISLNK(st.st_mode)) {
		snprintf(msg, size, "a symbolic link (a writer does not follow one)");
		return MSC_ERR_NOT_REG;
	}
	/* a device is never opened (opening one may act); the open's fstat()
	 * below sees a file swapped in since */
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		snprintf(msg, size, "%s", file_kind(st.st_mode));
		return MSC_ERR_NOT_REG;
	}
	/*
	 * O_PATH: neither opens the file (a FIFO cannot block it) nor, when
	 * closed, drops the POSIX locks this process's SQLite connections hold
	 * on it -- a close() of any other descriptor of the file would, and
	 * another process would then remove the WAL under them.
	 */
	fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		int e = errno;

		close(fd);
		return -e;
	}
	close(fd);
	if (!S_ISREG(st.st_mode)) {
		snprintf(msg, size, "%s", file_kind(st.st_mode));
		return MSC_ERR_NOT_REG;
	}
	for (size_t i = 0; i < ARRAY_SIZE(side); i++) {
		snprintf(p, sizeof(p), "%s%s", path, side[i]);
		if (!lstat(p, &st) && !S_ISREG(st.st_mode)) {
			snprintf(msg, size, "its %s is %s", side[i] + 1, file_kind(st.st_mode));
			return MSC_ERR_NOT_REG;
		}
	}
	return 0;
}

/* ---- the schema: the program's own objects, nothing else ---- */

struct schema_obj {
	char *type, *name, *tbl, *sql;
};

struct schema_ref {
	unsigned int version;
	struct schema_obj *obj;
	size_t nr;
};

static void ref_free(struct schema_ref *ref)
{
	for (size_t i = 0; i < ref->nr; i++) {
		free(ref->obj[i].type);
		free(ref->obj[i].name);
		free(ref->obj[i].tbl);
		free(ref->obj[i].sql);
	}
	free(ref->obj);
	ref->obj = NULL;
	ref->nr = 0;
}

static char *dup_col(sqlite3_stmt *st, int i)
{
	const char *t = (const char *)sqlite3_column_text(st, i);

	return strdup(t ? t : "");
}

/* The objects the schema steps up to @version make, from a database in memory. */
static int ref_build(struct schema_ref *ref, unsigned int version)
{
	sqlite3_stmt *st = NULL;
	sqlite3 *db;
	size_t alloc = 0;
	int rc, r = 0;

	ref->version = version;
	ref->obj = NULL;
	ref->nr = 0;
	if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK) {
		sqlite3_close(db);
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < msc_schema_nr_steps && !r; i++)
		if (msc_schema_steps[i].version <= version &&
		    sqlite3_exec(db, msc_schema_steps[i].sql, NULL, NULL, NULL) != SQLITE_OK)
			r = MSC_ERR_SQL;
	if (!r && sqlite3_prepare_v2(db, "SELECT type, name, tbl_name, sql FROM sqlite_schema",
				     -1, &st, NULL) != SQLITE_OK)
		r = MSC_ERR_SQL;
	while (!r && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct schema_obj *o;

		if (ref->nr == alloc) {
			alloc = alloc ? 2 * alloc : 64;
			o = realloc(ref->obj, alloc * sizeof(*o));
			if (!o) {
				r = -ENOMEM;
				break;
			}
			ref->obj = o;
		}
		o = &ref->obj[ref->nr++];
		o->type = dup_col(st, 0);
		o->name = dup_col(st, 1);
		o->tbl = dup_col(st, 2);
		o->sql = dup_col(st, 3);
		if (!o->type || !o->name || !o->tbl || !o->sql)
			r = -ENOMEM;
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	if (r)
		ref_free(ref);
	return r;
}

static const struct schema_obj *ref_find(const struct schema_ref *ref, const char *name)
{
	for (size_t i = 0; i < ref->nr; i++)
		if (!strcmp(ref->obj[i].name, name))
			return &ref->obj[i];
	return NULL;
}

/* The newest schema's objects, built once per process (~1 ms) and kept. */
static struct schema_ref latest_ref;
static int latest_err;

static void build_latest(void)
{
	latest_err = ref_build(&latest_ref,
			       msc_schema_steps[msc_schema_nr_steps - 1].version);
}

/*
 * Compare one object of the file with the program's: its type and name
 * always; a view's or trigger's SQL too, since that SQL runs inside our
 * queries.  A table's columns may come in another order (ALTER TABLE); one
 * lacking a column is refused by name when it is used (store-row.c).
 * Indexes may be missing (the analysis drops its lookup indexes while their
 * table is empty); a present one must be the program's, on its table.
 * Objects missing altogether fail when used, with SQLite's own words.
 */
static const char *differs(const struct schema_obj *mine, const char *type, const char *tbl,
			   const char *sql)
{
	if (!mine)
		return "not one of the program's";
	if (strcmp(mine->type, type))
		return NULL;	/* said by the caller: another type */
	if (!strcmp(type, "index") && strcmp(mine->tbl, tbl))
		return "on another table";
	if ((!strcmp(type, "view") || !strcmp(type, "trigger")) && strcmp(mine->sql, sql))
		return "redefined";
	return "";
}

/* The references of every version from @version to the newest; -errno */
static int refs_from(unsigned int version, struct schema_ref **ret, size_t *ret_nr)
{
	struct schema_ref *refs = calloc(msc_schema_nr_steps, sizeof(*refs));
	size_t nr = 0;
	int r = 0;

	if (!refs)
		return -ENOMEM;
	if (version < msc_schema_steps[0].version)
		r = ref_build(&refs[nr++], version);
	for (unsigned int i = 0; i < msc_schema_nr_steps && !r; i++)
		if (msc_schema_steps[i].version >= version &&
		    (i + 1 == msc_schema_nr_steps ||
		     msc_schema_steps[i + 1].version != msc_schema_steps[i].version))
			r = ref_build(&refs[nr++], msc_schema_steps[i].version);
	if (r) {
		for (size_t i = 0; i < nr; i++)
			ref_free(&refs[i]);
		free(refs);
		return r;
	}
	*ret = refs;
	*ret_nr = nr;
	return 0;
}

/**
 * msc_store_check_schema - refuse a schema the program did not make
 * @s: the store, opened; s->errmsg receives the object named
 * @version: the file's user_version (at most the newest this program knows)
 *
 * Every table, view, index and trigger in sqlite_schema must be one the
 * schema steps make, of the same type (a table replaced by a view is
 * refused), views and triggers with the same SQL.  A file of the newest
 * version is compared with the newest schema (kept once built, ~1 ms); an
 * older one, about to be migrated, with the schema of any version from its
 * own to the newest (a migration cut short, or a file some tool brought
 * partly forward, holds objects of several).  Reading sqlite_schema costs
 * a page or two.
 *
 * Returns 0, MSC_ERR_FOREIGN, or another negative error.
 */
int msc_store_check_schema(struct msc_store *s, unsigned int version)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	struct schema_ref *refs = NULL;
	sqlite3_stmt *st = NULL;
	int rc = SQLITE_DONE, r = 0;
	size_t nr = 1;

	pthread_once(&once, build_latest);
	if (latest_err)
		return latest_err;
	if (version != latest_ref.version && (r = refs_from(version, &refs, &nr)))
		return r;
	r = msc_store_prepare(s, "SELECT type, name, tbl_name, sql FROM sqlite_schema", &st);
	while (!r && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(st, 0);
		const char *name = (const char *)sqlite3_column_text(st, 1);
		const char *tbl = (const char *)sqlite3_column_text(st, 2);
		const char *sql = (const char *)sqlite3_column_text(st, 3);
		const struct schema_obj *mine = NULL;
		const char *why = NULL;

		type = type ? type : "";
		name = name ? name : "";
		tbl = tbl ? tbl : "";
		sql = sql ? sql : "";
		/* the first reference it matches; or what the newest one says */
		for (size_t i = nr; i-- > 0;) {
			const struct schema_ref *ref = refs ? &refs[i] : &latest_ref;
			const struct schema_obj *o = ref_find(ref, name);
			const char *w = differs(o, type, tbl, sql);

			if (w && !*w) {
				why = w;
				break;
			}
			if (i + 1 == nr) {
				mine = o;
				why = w;
			}
		}
		if (why && !*why)
			continue;
		if (why)
			snprintf(s->errmsg, sizeof(s->errmsg), "%s %s: %s", type, name, why);
		else
			snprintf(s->errmsg, sizeof(s->errmsg), "%s %s: the program's is a %s",
				 type, name, mine->type);
		r = MSC_ERR_FOREIGN;
	}
	if (!r && rc != SQLITE_DONE)
		r = msc_store_error(s, rc);
	if (st)
		sqlite3_finalize(st);
	for (size_t i = 0; refs && i < nr; i++)
		ref_free(&refs[i]);
	free(refs);
	return r;
}

/* ---- the pages: PRAGMA quick_check ---- */

/**
 * msc_store_quick_check - SQLite's own check of every page and record
 * @s: the store; s->errmsg receives the first problem found
 *
 * Returns 0, MSC_ERR_DAMAGED, MSC_ERR_INTERRUPTED, or another negative error.
 */
int msc_store_quick_check(struct msc_store *s)
{
	sqlite3_stmt *st;
	const char *t;
	int rc, r;

	r = msc_store_prepare(s, "PRAGMA quick_check(1)", &st);
	if (r)
		return r == MSC_ERR_SQL ? MSC_ERR_DAMAGED : r;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		t = (const char *)sqlite3_column_text(st, 0);
		if (t && strcmp(t, "ok")) {
			char *nl;

			/* "*** in database main ***\nPage 5: ..." -> its one line */
			if (!strncmp(t, "*** in database main ***\n", 25))
				t += 25;
			snprintf(s->errmsg, sizeof(s->errmsg), "%s", t);
			while ((nl = strchr(s->errmsg, '\n')))
				*nl = ' ';
			r = MSC_ERR_DAMAGED;
		}
	} else if (rc != SQLITE_DONE) {
		r = msc_store_error(s, rc);
		if (r == MSC_ERR_SQL)
			r = MSC_ERR_DAMAGED;
	}
	sqlite3_finalize(st);
	return r;
}
