// SPDX-License-Identifier: GPL-2.0-only
/*
 * The write side of the store: open and migrate a database, write captures
 * and their events in batched transactions.
 *
 * Invariant: a capture row's first_seq/last_seq/stored/lost always describe
 * exactly the event rows committed with it (they are updated inside the same
 * transaction), and complete = 1 is written only by msc_store_end_capture().
 */
#include "mmuscope/store.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "mmuscope/decode.h"
#include "mmuscope/error.h"
#include "mmuscope/host.h"
#include "mmuscope/source.h"
#include "mmuscope/spte.h"
#include "mmuscope/util.h"
#include "event-desc.h"
#include "schema.h"
#include "store-local.h"

/* 'msc1': marks a database as mmuscope's (PRAGMA application_id). */
#define MSC_APPLICATION_ID 0x6d736331

/** msc_store_event_table - the table that holds events of @type */
const char *msc_store_event_table(enum msc_event_type type)
{
	return type < MSC_EV_NR ? msc_event_descs[type].table : NULL;
}

static unsigned int latest_version(void)
{
	return msc_schema_steps[msc_schema_nr_steps - 1].version;
}

/* Bring the schema to the newest version this program knows. */
static int migrate(struct msc_store *s)
{
	int64_t version, app, tables;
	char sql[64];
	int r;

	version = msc_store_query_int(s, "PRAGMA user_version", -1);
	app = msc_store_query_int(s, "PRAGMA application_id", -1);
	tables = msc_store_query_int(s, "SELECT count(*) FROM sqlite_schema", -1);
	if (version < 0 || app < 0 || tables < 0) {
		snprintf(s->errmsg, sizeof(s->errmsg), "%s", sqlite3_errmsg(s->db));
		return msc_store_error(s, sqlite3_errcode(s->db));
	}
	if (tables > 0 && app != MSC_APPLICATION_ID)
		return MSC_ERR_NOT_MSC;
	if (version > latest_version())
		return MSC_ERR_SCHEMA;
	if (version < latest_version() && (s->flags & MSC_STORE_READONLY))
		return tables ? MSC_ERR_SCHEMA_OLD : MSC_ERR_NOT_MSC;	/* a reader does not migrate */
	/* before anything of the file's runs inside our statements, migrations too */
	if (tables > 0 && !(s->flags & MSC_STORE_NO_CHECK)) {
		r = msc_store_check_schema(s, (unsigned int)version);
		if (r)
			return r;
	}
	if (version == latest_version())
		return 0;
	/*
	 * Every step in one transaction: an upgrade (or a new file's schema)
	 * is whole or not at all, and each page is written once.
	 */
	r = msc_store_exec(s, "BEGIN IMMEDIATE");
	if (r)
		return r;
	for (unsigned int i = 0; i < msc_schema_nr_steps && !r; i++)
		if (msc_schema_steps[i].version > version)
			r = msc_store_exec(s, msc_schema_steps[i].sql);
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %u", latest_version());
	if (!r)
		r = msc_store_exec(s, sql);
	if (!r && !version) {
		snprintf(sql, sizeof(sql), "PRAGMA application_id = %d", MSC_APPLICATION_ID);
		r = msc_store_exec(s, sql);
	}
	if (r) {
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		return r;
	}
	return msc_store_exec(s, "COMMIT");
}

static int pragmas(struct msc_store *s)
{
	/* 16 KiB pages: fewer page splits while appending rows (5% of insert cost) */
	if ((s->flags & MSC_STORE_CREATE) && msc_store_exec(s, "PRAGMA page_size = 16384"))
		return msc_store_error(s, sqlite3_errcode(s->db));
	if (s->flags & MSC_STORE_READONLY)
		return msc_store_exec(s, "PRAGMA busy_timeout = 2000");
	/*
	 * Debian builds SQLite with SQLITE_SECURE_DELETE: every cell moved or
	 * deleted is zeroed, 10% of a replay's instructions (one 10 KB memset
	 * per B-tree insert that splits a page).  What it would hide is what
	 * the file holds anyway (0600), so writers turn it off.
	 */
	if (msc_store_exec(s, "PRAGMA secure_delete = OFF"))
		return msc_store_error(s, sqlite3_errcode(s->db));
	if (s->flags & MSC_STORE_BULK)
		return msc_store_exec(s, "PRAGMA journal_mode = OFF;"
					 "PRAGMA synchronous = OFF;"
					 "PRAGMA locking_mode = EXCLUSIVE;"
					 "PRAGMA cache_size = -65536;"
					 "PRAGMA temp_store = MEMORY");
	return msc_store_exec(s, "PRAGMA busy_timeout = 2000;"
				 "PRAGMA journal_mode = WAL;"
				 "PRAGMA synchronous = NORMAL;"
				 "PRAGMA cache_size = -65536");
}

/*
 * SQLite's process-wide settings, once, before its first use: no memory
 * statistics (they take a global mutex on every allocation, which two
 * connections on two threads -- import and its analysis -- then fight
 * over).  Connections are opened SQLITE_OPEN_NOMUTEX: each is used by one
 * thread at a time.
 */
static void configure_sqlite(void)
{
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	sqlite3_initialize();
}

/* Databases hold host physical addresses: make the file 0600 before SQLite does. */
static int create_file(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	if (fd < 0)
		return errno == EEXIST ? MSC_ERR_EXISTS : -errno;
	close(fd);
	return 0;
}

/**
 * msc_store_writer_lock - become the one writer of the database at @path
 *
 * One writer at a time, for the writer's whole life: SQLite's own locks last
 * a transaction, and a recorder commits every 250 ms, so between its
 * commits a second writer could replace the file or append under it.  The
 * lock is an flock() on the file, held by the returned descriptor until
 * msc_store_writer_unlock(); it dies with its process.  Readers take none.
 * (SQLite's POSIX locks on the same file are unaffected by flock(); the
 * descriptor is closed only after SQLite's, never while they are held.)
 *
 * Returns the descriptor, MSC_ERR_LOCKED when another process writes the
 * database, or a negative errno.
 */
int msc_store_writer_lock(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		int e = errno;

		close(fd);
		return e == EWOULDBLOCK ? MSC_ERR_LOCKED : -e;
	}
	return fd;
}

/** msc_store_writer_unlock - let go of msc_store_writer_lock()'s lock; < 0 is fine */
void msc_store_writer_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}

/*
 * When PRAGMA quick_check runs.  It reads every page: ~1 ms per MiB with the
 * file in the page cache (40 ms for the 36 MiB database of the biggest test
 * trace, whose `report` takes 20 ms and `dump` 780 ms).
 *
 * The rule: a file opened by a writer (analyze, import --append) is checked
 * always -- a writer then reads or rewrites most of it, and writing onto a
 * damaged B-tree spreads the damage; a file opened by a reader is checked
 * when it (with its WAL) is at most CHECK_MAX, so a check costs at most
 * ~70 ms; above, a reader answers from what SQLite's own checks of each page
 * it reads let through (its SQLITE_CORRUPT is reported as damage too).
 * A second connection of this process to a file it checked (the analysis's
 * reader thread: MSC_STORE_NO_CHECK) and a file just created are not checked.
 * $MSC_STORE_CHECK_MAX (bytes) moves the bound, for tests.
 */
#define CHECK_MAX (64ull << 20)

static bool wants_quick_check(const struct msc_store *s)
{
	unsigned long long max = CHECK_MAX, size = 0;
	const char *e = getenv("MSC_STORE_CHECK_MAX");
	struct stat st;
	char p[4096];

	if (s->flags & (MSC_STORE_CREATE | MSC_STORE_NO_CHECK))
		return false;
	if (!(s->flags & MSC_STORE_READONLY))
		return true;
	if (e && *e)
		max = strtoull(e, NULL, 0);
	if (!stat(s->path, &st))
		size += (unsigned long long)st.st_size;
	snprintf(p, sizeof(p), "%s-wal", s->path);
	if (!stat(p, &st))
		size += (unsigned long long)st.st_size;
	return size <= max;
}

/* Whether the file's WAL is absent or empty: the database file alone is all of it. */
static bool wal_empty(const char *path)
{
	struct stat st;
	char p[4096];

	snprintf(p, sizeof(p), "%s-wal", path);
	return stat(p, &st) ? errno == ENOENT : st.st_size == 0;
}

/* "file:" URI of @path with immutable=1; false when it does not fit */
static bool immutable_uri(const char *path, char *buf, size_t size)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t o = 0;

	o += (size_t)snprintf(buf, size, "file:");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if (o + 4 >= size)
			return false;
		if (*p == '%' || *p == '?' || *p == '#' || *p < 0x20 || *p >= 0x7f) {
			buf[o++] = '%';
			buf[o++] = hex[*p >> 4];
			buf[o++] = hex[*p & 15];
		} else {
			buf[o++] = (char)*p;
		}
	}
	buf[o] = '\0';
	return o + sizeof("?mode=ro&immutable=1") <= size &&
	       strcat(buf, "?mode=ro&immutable=1");
}

static int store_connect(struct msc_store *s, const char *name, int oflags)
{
	int rc = sqlite3_open_v2(name, &s->db, oflags | SQLITE_OPEN_NOMUTEX, NULL);

	if (rc == SQLITE_OK)
		msc_store_watch(s->db);
	return rc;
}

/*
 * A reader's connection.  A WAL database is read through its -shm, which a
 * reader creates (or writes) when it is missing: on a read-only file system,
 * in a directory the reader cannot write or on a full disk that fails
 * (SQLITE_CANTOPEN or an I/O error on the -shm), though the file itself
 * reads fine.  Then, if the WAL is absent or empty, the database file alone
 * is the whole database and nobody is writing it (a writer needs the -shm
 * too), so it is opened immutable=1 (SQLite's "the file cannot change": no
 * locks, no -shm), as SQLite documents for read-only media.  With a WAL
 * that holds commits, the reader cannot see them without the -shm, and says
 * so (SQLite's own error).
 */
static int open_reader(struct msc_store *s)
{
	char uri[4200];
	int rc;

	rc = store_connect(s, s->path, SQLITE_OPEN_READONLY);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(s->db, "SELECT count(*) FROM sqlite_schema", NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		return 0;
	if (((rc & 0xff) == SQLITE_CANTOPEN || (rc & 0xff) == SQLITE_IOERR ||
	     (rc & 0xff) == SQLITE_READONLY) && wal_empty(s->path) &&
	    immutable_uri(s->path, uri, sizeof(uri))) {
		sqlite3_close_v2(s->db);
		s->db = NULL;
		rc = store_connect(s, uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
		if (rc == SQLITE_OK)
			rc = sqlite3_exec(s->db, "SELECT count(*) FROM sqlite_schema", NULL, NULL,
					  NULL);
		if (rc == SQLITE_OK)
			return 0;
	}
	return msc_store_error(s, rc);
}

/*
 * A writer must be able to write the file and create its -wal and -shm
 * beside it; SQLite would otherwise open it read-only without a word and
 * fail at the first write, or at the first read (the -shm).
 */
static int writable(const char *path, char *msg, size_t size)
{
	const char *slash = strrchr(path, '/');
	char dir[4096];

	if (access(path, W_OK)) {
		snprintf(msg, size, "cannot write it");
		return -errno;
	}
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) + 1 : 1, slash ? path : ".");
	if (access(dir, W_OK | X_OK)) {
		snprintf(msg, size, "cannot write its directory (its -wal and -shm go there)");
		return -errno;
	}
	return 0;
}

/**
 * msc_store_open - open (or create) an mmuscope database
 * @path: the file
 * @flags: enum msc_store_flags
 * @ret: the store, closed with msc_store_close()
 *
 * A created file is mode 0600.  An existing file must be a regular file
 * holding an mmuscope database whose schema is not newer than this
 * program's and whose objects are all the program's; its pages are checked
 * (see wants_quick_check()); it is migrated forward unless opened read-only.
 * A reader opens a database it cannot write (a read-only file system, a
 * file or directory without write permission).
 *
 * Returns 0 or a negative error; on error msc_store_open_errmsg() says what
 * SQLite or the checks said ("" when the code says it all).
 */
int msc_store_open(const char *path, unsigned int flags, struct msc_store **ret)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	struct msc_store *s;
	char msg[512];
	int oflags, rc, r;

	pthread_once(&once, configure_sqlite);
	msc_store_set_open_errmsg(NULL);
	if (flags & MSC_STORE_CREATE) {
		r = create_file(path);
		if (r)
			return r;
		oflags = SQLITE_OPEN_READWRITE;
	} else {
		r = msc_store_check_file(path, !(flags & MSC_STORE_READONLY), msg, sizeof(msg));
		if (!r && !(flags & MSC_STORE_READONLY))
			r = writable(path, msg, sizeof(msg));
		if (r) {
			msc_store_set_open_errmsg(msg);
			return r;
		}
		oflags = flags & MSC_STORE_READONLY ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->flags = flags;
	s->writer_fd = -1;
	s->flush_type = msc_store_flush_type;
	s->batch = MSC_STORE_BATCH;
	s->no_runs = getenv("MSC_STORE_NO_RUNS") != NULL;
	s->path = strdup(path);
	s->held = malloc(sizeof(*s->held) * MSC_EV_NR);
	if (!s->path || !s->held) {
		free(s->path);
		free(s->held);
		free(s);
		return -ENOMEM;
	}
	if (!(flags & MSC_STORE_READONLY)) {
		s->writer_fd = msc_store_writer_lock(path);
		if (s->writer_fd < 0) {
			r = s->writer_fd;
			msc_store_close(s);
			return r;
		}
	}
	if (flags & MSC_STORE_READONLY) {
		r = open_reader(s);
	} else {
		rc = store_connect(s, path, oflags);
		r = rc == SQLITE_OK ? 0 : msc_store_error(s, rc);
	}
	if (!r)
		r = pragmas(s);
	if (!r)
		r = migrate(s);
	if (!r && wants_quick_check(s))
		r = msc_store_quick_check(s);
	if (!r)
		s->next_seq = msc_store_query_int(s, "SELECT max(last_seq) FROM capture", -1) + 1;
	if (r) {
		msc_store_set_open_errmsg(s->errmsg);
		msc_store_close(s);
		return r;
	}
	*ret = s;
	return 0;
}

/** msc_store_close - roll back what is not committed, close, free; NULL is fine */
void msc_store_close(struct msc_store *s)
{
	if (!s)
		return;
	if (s->in_txn)
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	for (int i = 0; i < MSC_EV_NR; i++) {
		sqlite3_finalize(s->insert_one[i]);
		sqlite3_finalize(s->insert_multi[i]);
		msc_store_row_free(s->row[i]);
	}
	msc_store_runs_free(s);
	free(s->held);
	sqlite3_close_v2(s->db);
	msc_store_writer_unlock(s->writer_fd);	/* after SQLite's own descriptor */
	free(s->path);
	free(s);
}

/** msc_store_errmsg - SQLite's message for the last error; borrowed */
const char *msc_store_errmsg(const struct msc_store *s)
{
	return s->errmsg;
}

static void utc_now(char *buf, size_t size)
{
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void bind_text_or_null(sqlite3_stmt *st, int i, const char *v)
{
	if (v && *v)
		sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

static void bind_special(sqlite3_stmt *st, int i, const struct msc_special *sp)
{
	char from[48];

	msc_special_describe(sp, from, sizeof(from));
	sqlite3_bind_text(st, i, from, -1, SQLITE_TRANSIENT);
}

/* Where the layout's special values came from, from parameter @i on. */
static void bind_learnt(sqlite3_stmt *st, int i, const struct msc_host *host,
			const struct msc_spte_layout *l)
{
	bind_special(st, i, &host->nonpresent);
	bind_special(st, i + 1, &host->frozen);
	sqlite3_bind_int(st, i + 2, l->role_access_bits);
	bind_special(st, i + 3, &host->role_access);
	if (host->vendor == MSC_VENDOR_EPT) {
		bind_u64(st, i + 4, l->host_writable | l->mmu_writable);
		bind_special(st, i + 5, &host->ept_sw);
	}
}

/**
 * msc_store_set_capture_host - the capture's special values, as learnt by now
 * @s: the store, with a capture begun
 * @host: the host, with what the whole capture taught (e.g. FROZEN_SPTE
 *	from a teardown after the events that decided the layout)
 *
 * Returns 0 or a negative error.
 */
int msc_store_set_capture_host(struct msc_store *s, const struct msc_host *host)
{
	static const char sql[] =
		"UPDATE capture SET nonpresent_spte = ?1, frozen_spte = ?2, nonpresent_from = ?3, "
		"frozen_from = ?4, role_access_bits = ?5, role_access_from = ?6, ept_sw = ?7, "
		"ept_sw_from = ?8 WHERE id = ?9";
	struct msc_spte_layout l;
	sqlite3_stmt *st;
	int r;

	msc_spte_layout_init(&l, host);
	r = msc_store_prepare(s, sql, &st);
	if (r)
		return r;
	bind_u64(st, 1, l.nonpresent);
	bind_u64(st, 2, l.frozen);
	bind_learnt(st, 3, host, &l);
	sqlite3_bind_int64(st, 9, s->capture_id);
	r = msc_store_step(s, st);
	sqlite3_finalize(st);
	return r < 0 ? r : 0;
}

/**
 * msc_store_begin_capture - start storing a new capture
 * @s: the store
 * @info: what the source says about the capture
 * @host: the host description the events are classified with
 * @ret_id: the capture's id
 *
 * Returns 0 or a negative error.
 */
int msc_store_begin_capture(struct msc_store *s, const struct msc_capture_info *info,
			    const struct msc_host *host, int64_t *ret_id)
{
	static const char sql[] =
		"INSERT INTO capture (source, kind, file_version, compression, uname, "
		"kernel_release, trace_clock, nr_cpus, vendor, vendor_source, nonpresent_spte, "
		"frozen_spte, era_source, tdp_mmu, started, ept_ad, nonpresent_from, frozen_from, "
		"role_access_bits, role_access_from, ept_sw, ept_sw_from) "
		"VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
	struct msc_spte_layout l;
	sqlite3_stmt *st;
	char now[32];
	int r;

	msc_spte_layout_init(&l, host);
	utc_now(now, sizeof(now));
	r = msc_store_begin(s);
	if (!r)
		r = msc_store_prepare(s, sql, &st);
	if (r)
		return r;
	sqlite3_bind_text(st, 1, info->path, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, info->kind, -1, SQLITE_STATIC);
	if (info->file_version)
		sqlite3_bind_int(st, 3, info->file_version);
	bind_text_or_null(st, 4, info->compression);
	bind_text_or_null(st, 5, info->uname);
	bind_text_or_null(st, 6, host->release);
	bind_text_or_null(st, 7, info->trace_clock);
	sqlite3_bind_int(st, 8, info->nr_cpus);
	if (host->vendor != MSC_VENDOR_UNKNOWN)
		sqlite3_bind_text(st, 9, msc_vendor_name(host->vendor), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 10, msc_host_source_name(host->vendor_source), -1, SQLITE_STATIC);
	bind_u64(st, 11, l.nonpresent);
	bind_u64(st, 12, l.frozen);
	sqlite3_bind_text(st, 13, msc_host_source_name(host->kver_source), -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 14, host->tdp_mmu);
	sqlite3_bind_text(st, 15, now, -1, SQLITE_TRANSIENT);
	if (host->vendor == MSC_VENDOR_EPT)
		sqlite3_bind_int(st, 16, host->ept_ad);
	bind_learnt(st, 17, host, &l);
	r = msc_store_step(s, st);
	sqlite3_finalize(st);
	if (r < 0)
		return r;
	s->capture_id = sqlite3_last_insert_rowid(s->db);
	s->layout = l;
	s->first_seq = -1;
	s->first_ts = s->last_ts = 0;
	s->stored = s->lost = s->lost_marks = 0;
	*ret_id = s->capture_id;
	return 0;
}

/* Write the rows held back for one event type. */
int msc_store_flush_type(struct msc_store *s, int type)
{
	unsigned int n = s->nr_held[type], nparams;
	sqlite3_stmt **st = n == MSC_STORE_MULTI ? &s->insert_multi[type] : &s->insert_one[type];
	const struct msc_run_row *run;
	struct msc_store_row *row;
	const char *text;
	int r = 0;

	if (!n)
		return 0;
	if (!s->row[type] && (r = msc_store_row_compile(s, type, &s->row[type])))
		return r;
	row = s->row[type];
	if (!*st && (r = msc_store_row_prepare(s, row, n == MSC_STORE_MULTI ? n : 1, st)))
		return r;
	nparams = msc_store_row_params(row);
	run = s->held_run[type];
	text = msc_store_run_text(s, type);
	if (n == MSC_STORE_MULTI) {
		for (unsigned int i = 0; i < n; i++)
			msc_store_row_bind(*st, (int)(i * nparams), row, &s->held[type][i],
					   &s->layout, run ? &run[i] : NULL, text);
		r = msc_store_step(s, *st);
	} else {
		for (unsigned int i = 0; i < n && r >= 0; i++) {
			msc_store_row_bind(*st, 0, row, &s->held[type][i], &s->layout,
					   run ? &run[i] : NULL, text);
			r = msc_store_step(s, *st);
		}
	}
	s->nr_held[type] = 0;
	msc_store_run_text_reset(s, type);
	return r < 0 ? r : 0;
}

/**
 * msc_store_rows_init - register a batch of integer rows for one table
 * @s: the store
 * @r: the batch, owned by the caller; released with msc_store_rows_release()
 * @head: the statement's head, e.g. "INSERT INTO mapping VALUES"
 * @ncols: columns per row (at most MSC_ROWS_MAX_COLS)
 */
void msc_store_rows_init(struct msc_store *s, struct msc_store_rows *r, const char *head,
			 unsigned int ncols)
{
	memset(r, 0, sizeof(*r));
	r->head = head;
	r->ncols = ncols;
	r->text_col = -1;
	r->next = s->rows;
	s->rows = r;
}

/**
 * msc_store_rows_init_text - register a batch whose column @text_col is text
 *
 * Rows are added with msc_store_rows_put_text(); the value the row's slot
 * holds for that column is ignored.
 */
void msc_store_rows_init_text(struct msc_store *s, struct msc_store_rows *r, const char *head,
			      unsigned int ncols, unsigned int text_col)
{
	msc_store_rows_init(s, r, head, ncols);
	r->text_col = (int)text_col;
}

/**
 * msc_store_rows_hold_text - msc_store_rows_hold() the row filled in the
 *	slot, with @text (@len bytes, copied) as its text column (NULL when its
 *	bit in @nulls is set: @len 0 then)
 */
int msc_store_rows_hold_text(struct msc_store *s, struct msc_store_rows *r, uint32_t nulls,
			     const char *text, size_t len)
{
	size_t off = r->n ? r->text_end[r->n - 1] : 0;
	int ret = msc_text_room(&r->text, &r->text_alloc, off + len);

	if (ret)
		return ret;
	memcpy(r->text + off, text, len);
	r->text_end[r->n] = off + len;
	return msc_store_rows_hold(s, r, nulls);
}

/** msc_store_rows_put_text - msc_store_rows_hold_text(), and a full batch flushed */
int msc_store_rows_put_text(struct msc_store *s, struct msc_store_rows *r, uint32_t nulls,
			    const char *text, size_t len)
{
	int ret = msc_store_rows_hold_text(s, r, nulls, text, len);

	if (ret)
		return ret;
	return r->n == MSC_STORE_MULTI ? msc_store_rows_flush(s, r) : 0;
}

/**
 * msc_store_rows_splice_text - the last held row's text becomes its first
 *	@keep bytes, then @text (@len bytes, copied)
 *
 * For a writer that grows its last row while the batch holds it.  Returns
 * 0 or -ENOMEM (the text then unchanged).
 */
int msc_store_rows_splice_text(struct msc_store_rows *r, size_t keep, const char *text,
			       size_t len)
{
	size_t off = r->n > 1 ? r->text_end[r->n - 2] : 0;
	int ret = msc_text_room(&r->text, &r->text_alloc, off + keep + len);

	if (ret)
		return ret;
	memcpy(r->text + off + keep, text, len);
	r->text_end[r->n - 1] = off + keep + len;
	return 0;
}

/** msc_store_rows_release - unregister a batch (rows not yet flushed are dropped) */
void msc_store_rows_release(struct msc_store *s, struct msc_store_rows *r)
{
	for (struct msc_store_rows **p = &s->rows; *p; p = &(*p)->next) {
		if (*p == r) {
			*p = r->next;
			break;
		}
	}
	sqlite3_finalize(r->multi);
	sqlite3_finalize(r->one);
	r->multi = r->one = NULL;
	r->n = 0;
	free(r->text);
	r->text = NULL;
	r->text_alloc = 0;
}

static int prepare_rows(struct msc_store *s, struct msc_store_rows *r, unsigned int n,
			sqlite3_stmt **ret)
{
	size_t size = strlen(r->head) + (r->tail ? strlen(r->tail) : 0) + 8 + n * (2 * r->ncols + 3);
	char *sql = malloc(size);
	int len, ret_code;

	if (!sql)
		return -ENOMEM;
	len = snprintf(sql, size, "%s ", r->head);
	for (unsigned int i = 0; i < n; i++) {
		len += snprintf(sql + len, size - len, "%s(", i ? "," : "");
		for (unsigned int c = 0; c < r->ncols; c++)
			len += snprintf(sql + len, size - len, "%s?", c ? "," : "");
		len += snprintf(sql + len, size - len, ")");
	}
	if (r->tail)
		snprintf(sql + len, size - len, " %s", r->tail);
	ret_code = msc_store_prepare(s, sql, ret);
	free(sql);
	return ret_code;
}

static void bind_ints(sqlite3_stmt *st, int b, const int64_t *v, unsigned int ncols,
		      uint32_t nulls)
{
	for (unsigned int c = 0; c < ncols; c++) {
		if (nulls & (1u << c))
			sqlite3_bind_null(st, b + (int)c + 1);
		else
			sqlite3_bind_int64(st, b + (int)c + 1, v[c]);
	}
}

/* Row @i of @r at parameter offset @b; its text stays in r->text until the step. */
static void bind_row_of(sqlite3_stmt *st, int b, const struct msc_store_rows *r, unsigned int i)
{
	size_t off = i ? r->text_end[i - 1] : 0;

	bind_ints(st, b, r->v[i], r->ncols, r->nulls[i]);
	if (r->text_col >= 0 && !(r->nulls[i] & (1u << r->text_col)))
		sqlite3_bind_text(st, b + r->text_col + 1, r->text + off,
				  (int)(r->text_end[i] - off), SQLITE_STATIC);
}

/** msc_store_rows_flush - write the rows a batch holds */
int msc_store_rows_flush(struct msc_store *s, struct msc_store_rows *r)
{
	unsigned int n = r->n;
	sqlite3_stmt **st = n == MSC_STORE_MULTI ? &r->multi : &r->one;
	int ret = 0;

	if (!n)
		return 0;
	if (!*st && (ret = prepare_rows(s, r, n == MSC_STORE_MULTI ? n : 1, st)))
		return ret;
	if (n == MSC_STORE_MULTI) {
		for (unsigned int i = 0; i < n; i++)
			bind_row_of(*st, (int)(i * r->ncols), r, i);
		ret = msc_store_step(s, *st);
	} else {
		for (unsigned int i = 0; i < n && ret >= 0; i++) {
			bind_row_of(*st, 0, r, i);
			ret = msc_store_step(s, *st);
		}
	}
	r->n = 0;
	return ret < 0 ? ret : 0;
}

static int flush_all(struct msc_store *s)
{
	int r = msc_store_runs_close(s);

	for (int t = 0; t < MSC_EV_NR && !r; t++)
		r = msc_store_flush_type(s, t);
	for (struct msc_store_rows *b = s->rows; b && !r; b = b->next)
		r = msc_store_rows_flush(s, b);
	return r;
}

static void drop_held(struct msc_store *s)
{
	memset(s->nr_held, 0, sizeof(s->nr_held));
	msc_store_runs_drop(s);
	for (struct msc_store_rows *b = s->rows; b; b = b->next)
		b->n = 0;
}

/**
 * msc_store_add_event - store one event of the current capture
 * @s: the store, between msc_store_begin_capture() and _end_capture()
 * @ev: the event; its row gets the store's next seq (ev->seq is ignored, so
 *	captures appended to one database never collide)
 *
 * Events must come in stream order.  Rows are written MSC_STORE_MULTI at a
 * time per table, and the transaction is committed every batch events
 * (msc_store_set_batch()).  Returns 0 or a negative error.
 */
int msc_store_add_event(struct msc_store *s, const struct msc_event *ev)
{
	struct msc_event *held;
	int r;

	if (ev->type >= MSC_EV_NR)
		return -EINVAL;
	r = msc_store_begin(s);
	if (r)
		return r;
	if (msc_event_descs[ev->type].runs) {
		r = msc_store_run_add(s, ev, s->next_seq);
		if (r)
			return r;
	} else {
		held = &s->held[ev->type][s->nr_held[ev->type]++];
		/* its row reads the payload only: the union's rest is not worth a copy */
		memcpy(held, ev, msc_event_size(ev));
		held->seq = (uint64_t)s->next_seq;
		if (s->nr_held[ev->type] == MSC_STORE_MULTI) {
			r = msc_store_flush_type(s, ev->type);
			if (r)
				return r;
		}
	}
	if (s->first_seq < 0) {
		s->first_seq = s->next_seq;
		s->first_ts = ev->ts;
	}
	s->next_seq++;
	s->last_ts = max(s->last_ts, ev->ts);
	s->stored++;
	if (ev->type == MSC_EV_LOST) {
		s->lost += ev->lost.count;
		s->lost_marks += !ev->lost.count;
	}
	if (++s->pending == s->batch)
		return msc_store_commit(s);
	return 0;
}

/**
 * msc_store_add_stat - record how many events of one kind the capture had
 *
 * Returns 0 or a negative error.
 */
int msc_store_add_stat(struct msc_store *s, const struct msc_event_stat *stat)
{
	static const char sql[] = "INSERT OR REPLACE INTO capture_event (capture_id, system, "
				  "name, count, stored_in) VALUES (?,?,?,?,?)";
	sqlite3_stmt *st;
	int r;

	r = msc_store_begin(s);
	if (!r)
		r = msc_store_prepare(s, sql, &st);
	if (r)
		return r;
	sqlite3_bind_int64(st, 1, s->capture_id);
	sqlite3_bind_text(st, 2, stat->system, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, stat->name, -1, SQLITE_TRANSIENT);
	bind_u64(st, 4, stat->count);
	if (stat->type >= 0 && stat->type < MSC_EV_NR)
		sqlite3_bind_text(st, 5, msc_event_descs[stat->type].table, -1, SQLITE_STATIC);
	r = msc_store_step(s, st);
	sqlite3_finalize(st);
	return r < 0 ? r : 0;
}

/** msc_store_set_param - record one host fact of the current capture */
int msc_store_set_param(struct msc_store *s, const char *name, const char *value)
{
	static const char sql[] = "INSERT OR REPLACE INTO host_param (capture_id, name, value) "
				  "VALUES (?,?,?)";
	sqlite3_stmt *st;
	int r;

	r = msc_store_begin(s);
	if (!r)
		r = msc_store_prepare(s, sql, &st);
	if (r)
		return r;
	sqlite3_bind_int64(st, 1, s->capture_id);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, value, -1, SQLITE_TRANSIENT);
	r = msc_store_step(s, st);
	sqlite3_finalize(st);
	return r < 0 ? r : 0;
}

static int update_capture(struct msc_store *s)
{
	static const char sql[] =
		"UPDATE capture SET first_seq = ?, last_seq = ?, first_ts = ?, last_ts = ?, "
		"stored = ?, lost = ?, lost_marks = ? WHERE id = ?";
	sqlite3_stmt *st;
	int r;

	if (!s->capture_id)
		return 0;
	r = msc_store_prepare(s, sql, &st);
	if (r)
		return r;
	if (s->first_seq >= 0) {
		sqlite3_bind_int64(st, 1, s->first_seq);
		sqlite3_bind_int64(st, 2, s->next_seq - 1);
		bind_u64(st, 3, s->first_ts);
		bind_u64(st, 4, s->last_ts);
	}
	bind_u64(st, 5, s->stored);
	bind_u64(st, 6, s->lost);
	bind_u64(st, 7, s->lost_marks);
	sqlite3_bind_int64(st, 8, s->capture_id);
	r = msc_store_step(s, st);
	sqlite3_finalize(st);
	return r < 0 ? r : 0;
}

/**
 * msc_store_commit - make everything added so far durable and visible
 *
 * Returns 0 or a negative error; after an error the open transaction is
 * rolled back, so what was committed before stays consistent.
 */
int msc_store_commit(struct msc_store *s)
{
	int r;

	if (!s->in_txn)
		return 0;
	r = flush_all(s);
	if (!r)
		r = update_capture(s);
	if (!r)
		r = msc_store_exec(s, "COMMIT");
	if (r) {
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		drop_held(s);
		s->in_txn = false;
		return r;
	}
	s->in_txn = false;
	s->pending = 0;
	return 0;
}

/**
 * msc_store_end_capture - mark the current capture complete and commit
 * @s: the store
 * @records: trace records the source read (stored or only counted)
 */
int msc_store_end_capture(struct msc_store *s, uint64_t records)
{
	static const char sql[] =
		"UPDATE capture SET records = ?, complete = 1, finished = ? WHERE id = ?";
	sqlite3_stmt *st;
	char now[32];
	int r;

	utc_now(now, sizeof(now));
	r = msc_store_begin(s);
	if (!r)
		r = msc_store_prepare(s, sql, &st);
	if (r)
		return r;
	bind_u64(st, 1, records);
	sqlite3_bind_text(st, 2, now, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, s->capture_id);
	r = msc_store_step(s, st);
	sqlite3_finalize(st);
	if (r < 0)
		return r;
	r = msc_store_commit(s);
	if (!r)
		s->capture_id = 0;
	return r;
}

/**
 * msc_store_finish - build the indexes and leave the file ready for readers
 *
 * A bulk-loaded file is switched to WAL so that later writers (the live
 * recorder, analyze) and readers (the TUI) can share it.
 */
int msc_store_finish(struct msc_store *s)
{
	int r = msc_store_commit(s);

	if (!r && (s->flags & MSC_STORE_BULK))
		r = msc_store_exec(s, "PRAGMA locking_mode = NORMAL; PRAGMA journal_mode = WAL");
	return r;
}

/**
 * msc_store_lock - check that no other process is writing the database
 *
 * Takes and drops the write lock.  Returns 0, or MSC_ERR_LOCKED when
 * another connection holds it (after the busy timeout).
 */
int msc_store_lock(struct msc_store *s)
{
	int r = msc_store_exec(s, "BEGIN IMMEDIATE");

	if (!r)
		r = msc_store_exec(s, "ROLLBACK");
	return r;
}

/**
 * msc_store_set_batch - events per transaction while adding events
 * @s: the store
 * @events: commit every @events events; 0 commits only when asked
 *	(msc_store_commit(), msc_store_end_capture()), so a failed capture
 *	rolls back as a whole
 */
void msc_store_set_batch(struct msc_store *s, unsigned int events)
{
	s->batch = events;
}

/** msc_store_next_seq - the seq the next stored event will get */
int64_t msc_store_next_seq(struct msc_store *s)
{
	return s->next_seq;
}

void msc_store_fail_after(struct msc_store *s, long n)
{
	s->fail_after = n;
}
