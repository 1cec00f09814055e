// SPDX-License-Identifier: GPL-2.0-only
/*
 * Statements through the store (store-share.h), the bottom of lib/store*:
 * prepare, step and exec with SQLite's codes turned into negative errors
 * and a message kept (the store's, and this thread's for a store that is
 * gone), the transaction writes batch in, and fault injection.  It calls
 * no other file of the store.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <sqlite3.h>

#include "mmuscope/error.h"
#include "store-local.h"

/*
 * ---- the message of an open that failed (there is no store to keep it),
 * or of the last error of a store since closed ----
 */

static __thread char open_errmsg[512];

/**
 * msc_store_open_errmsg - what SQLite or the checks said of this thread's
 *	last store error: of a failed msc_store_open(), or the last error of a
 *	store since closed (msc_store_open() clears it); "" when none
 */
const char *msc_store_open_errmsg(void)
{
	return open_errmsg;
}

void msc_store_set_open_errmsg(const char *msg)
{
	snprintf(open_errmsg, sizeof(open_errmsg), "%s", msg ? msg : "");
}

static bool is_full(int err)
{
	return err == ENOSPC || err == EFBIG || err == EDQUOT;
}

/*
 * A failed write to the WAL or journal comes back without its errno (the
 * one SQLite keeps is the main file's, or stale); a file size limit reached
 * or a file system with no room left is what it almost always is.
 */
static bool out_of_space(const char *path)
{
	static const char *const suffix[] = { "", "-wal", "-journal" };
	struct statvfs vfs;
	struct rlimit rl;
	struct stat st;
	char p[4096];

	if (!path)
		return false;
	if (!getrlimit(RLIMIT_FSIZE, &rl) && rl.rlim_cur != RLIM_INFINITY) {
		for (size_t i = 0; i < ARRAY_SIZE(suffix); i++) {
			snprintf(p, sizeof(p), "%s%s", path, suffix[i]);
			if (!stat(p, &st) && (rlim_t)st.st_size + 65536 >= rl.rlim_cur)
				return true;
		}
	}
	return !statvfs(path, &vfs) && (uint64_t)vfs.f_bavail * vfs.f_frsize < 1 << 20;
}

/**
 * msc_store_error - turn an SQLite result code into a negative error
 * @s: the store; its message buffer receives SQLite's text
 * @rc: an SQLite result code other than OK/ROW/DONE
 */
int msc_store_error(struct msc_store *s, int rc)
{
	int sys = s->db ? sqlite3_system_errno(s->db) : 0, last = 0;

	snprintf(s->errmsg, sizeof(s->errmsg), "%s",
		 s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
	msc_store_set_open_errmsg(s->errmsg);	/* outlives the store, for the caller */
	switch (rc & 0xff) {
	case SQLITE_FULL:
		return MSC_ERR_FULL;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return MSC_ERR_LOCKED;
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_READONLY:
		return -EROFS;
	case SQLITE_NOTADB:
		return MSC_ERR_NOT_MSC;
	case SQLITE_CORRUPT:
		return MSC_ERR_DAMAGED;
	case SQLITE_INTERRUPT:
		return MSC_ERR_INTERRUPTED;
	case SQLITE_CANTOPEN:
	case SQLITE_IOERR:
		/*
		 * SQLite reports a failed write (ENOSPC, EFBIG past a file
		 * size limit, EDQUOT) as an I/O error; the errno that caused
		 * it is kept by the unix VFS for the file.  A reader writes
		 * nothing of its own (the -shm aside, see open_reader()): a
		 * full disk is never its error, the errno is.
		 */
		if (s->db)
			sqlite3_file_control(s->db, "main", SQLITE_FCNTL_LAST_ERRNO, &last);
		if (!(s->flags & MSC_STORE_READONLY) && rc != SQLITE_IOERR_READ &&
		    rc != SQLITE_IOERR_SHORT_READ && (is_full(sys) || is_full(last) || out_of_space(s->path)))
			return MSC_ERR_FULL;
		return sys ? -sys : last ? -last : -EIO;
	default:
		return MSC_ERR_SQL;
	}
}

/** msc_store_sqlite - the store's SQLite handle (store-share.h) */
sqlite3 *msc_store_sqlite(struct msc_store *s)
{
	return s->db;
}

/** msc_store_set_errmsg - what the next error of @s is about (msc_store_errmsg()) */
void msc_store_set_errmsg(struct msc_store *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->errmsg, sizeof(s->errmsg), fmt, ap);
	va_end(ap);
}

/** msc_store_step - sqlite3_step() with fault injection and error mapping */
int msc_store_step(struct msc_store *s, sqlite3_stmt *stmt)
{
	int rc;

	if (unlikely(s->fail_after) && --s->fail_after == 0) {
		sqlite3_reset(stmt);
		snprintf(s->errmsg, sizeof(s->errmsg), "injected failure");
		return MSC_ERR_FULL;
	}
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE) {
		sqlite3_reset(stmt);
		return 0;
	}
	rc = msc_store_error(s, rc);
	sqlite3_reset(stmt);
	return rc;
}

int msc_store_exec(struct msc_store *s, const char *sql)
{
	int rc;

	if (unlikely(s->fail_after) && --s->fail_after == 0) {
		snprintf(s->errmsg, sizeof(s->errmsg), "injected failure");
		return MSC_ERR_FULL;
	}
	rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);
	return rc == SQLITE_OK ? 0 : msc_store_error(s, rc);
}

int msc_store_prepare(struct msc_store *s, const char *sql, sqlite3_stmt **ret)
{
	int rc = sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT, ret, NULL);

	return rc == SQLITE_OK ? 0 : msc_store_error(s, rc);
}

int msc_store_begin(struct msc_store *s)
{
	int r;

	if (s->in_txn)
		return 0;
	r = msc_store_exec(s, "BEGIN IMMEDIATE");
	if (!r)
		s->in_txn = true;
	return r;
}

/* The one integer @sql gives, or @dflt: none, NULL, or an error. */
int64_t msc_store_query_int(struct msc_store *s, const char *sql, int64_t dflt)
{
	sqlite3_stmt *st;
	int64_t v = dflt;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return dflt;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/*
 * Step @st to its end and finalize it: one zeroed element of @size bytes
 * per row, filled by @fill.  Returns the array (free() it) with *@nr
 * elements, or NULL with *@err set to a negative errno (*@err is 0 and
 * the array may be NULL when there are no rows).
 */
void *msc_store_collect_rows(struct msc_store *s, sqlite3_stmt *st, size_t size,
			     msc_row_fill_fn fill, size_t *nr, int *err)
{
	char *rows = NULL, *p;
	size_t n = 0, alloc = 0;
	int r;

	while ((r = msc_store_step(s, st)) == 1) {
		if (n == alloc) {
			alloc = alloc ? 2 * alloc : 16;
			p = realloc(rows, alloc * size);
			if (!p) {
				r = -ENOMEM;
				break;
			}
			rows = p;
		}
		memset(rows + n * size, 0, size);
		fill(st, rows + n++ * size);
	}
	sqlite3_finalize(st);
	*err = r < 0 ? r : 0;
	if (r < 0) {
		free(rows);
		return NULL;
	}
	*nr = n;
	return rows;
}

/* The rows of @sql, whose ?1 is @capture_id, as msc_store_collect_rows() gives them. */
void *msc_store_capture_rows(struct msc_store *s, int64_t capture_id, const char *sql,
			     size_t size, msc_row_fill_fn fill, size_t *nr, int *err)
{
	sqlite3_stmt *st;

	*err = msc_store_prepare(s, sql, &st);
	if (*err)
		return NULL;
	sqlite3_bind_int64(st, 1, capture_id);
	return msc_store_collect_rows(s, st, size, fill, nr, err);
}
