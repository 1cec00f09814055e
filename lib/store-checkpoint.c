// SPDX-License-Identifier: GPL-2.0-only
/*
 * A store's WAL checkpoints on a thread of their own: a checkpoint copies
 * committed pages from the WAL into the database and syncs both, and while
 * a long read (store-readahead.c) holds the WAL no commit of the writer's
 * can do it, so it all fell to the commit after the read, on the writer's
 * thread.  Here a connection of its own checkpoints whenever it is asked
 * (a read ended), and the writer's commits never do while it runs.
 *
 * Invariant: only the checkpointer's thread uses its connection; only the
 * writer's thread starts and stops it (they change the writer's setting).
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include <sqlite3.h>

#include "mmuscope/error.h"
#include "store-local.h"

struct store_checkpointer {
	struct msc_store *s;		/* the writer's store */
	sqlite3 *db;			/* the checkpoints' own connection */
	int autocheckpoint;		/* the writer's setting, given back at the stop */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool asked, stop;
};

static void *checkpointer(void *arg)
{
	struct store_checkpointer *c = arg;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		while (!c->asked && !c->stop)
			pthread_cond_wait(&c->wake, &c->lock);
		if (!c->asked)
			break;	/* stopped, with nothing asked */
		c->asked = false;
		pthread_mutex_unlock(&c->lock);
		/* what no reader still reads: it never waits for one, nor the writer */
		sqlite3_wal_checkpoint_v2(c->db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
		pthread_mutex_lock(&c->lock);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

/*
 * store_checkpointer_start - take @s's checkpoints to a thread
 *
 * @s must be a writer in WAL mode.  Returns 0, or a negative error and @s
 * keeps its checkpoints.
 */
int store_checkpointer_start(struct msc_store *s, struct store_checkpointer **ret)
{
	int64_t n = msc_store_query_int(s, "PRAGMA wal_autocheckpoint", -1);
	struct store_checkpointer *c;
	int r;

	if (s->flags & MSC_STORE_READONLY || n <= 0 || n > INT_MAX)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->s = s;
	c->autocheckpoint = (int)n;
	/* a read first: a connection knows its database is WAL once it has read it */
	if (sqlite3_open_v2(s->path, &c->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
			    NULL) == SQLITE_OK)
		msc_store_watch(c->db);
	if (sqlite3_errcode(c->db) != SQLITE_OK ||
	    sqlite3_exec(c->db, "SELECT count(*) FROM sqlite_schema", NULL, NULL, NULL)) {
		sqlite3_close(c->db);
		free(c);
		return MSC_ERR_SQL;
	}
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->wake, NULL);
	r = -pthread_create(&c->thread, NULL, checkpointer, c);
	if (r) {
		pthread_mutex_destroy(&c->lock);
		pthread_cond_destroy(&c->wake);
		sqlite3_close(c->db);
		free(c);
		return r;
	}
	sqlite3_wal_autocheckpoint(s->db, 0);
	*ret = c;
	return 0;
}

/* store_checkpointer_ask - checkpoint what was committed (any thread) */
void store_checkpointer_ask(struct store_checkpointer *c)
{
	pthread_mutex_lock(&c->lock);
	c->asked = true;
	pthread_cond_signal(&c->wake);
	pthread_mutex_unlock(&c->lock);
}

/*
 * store_checkpointer_stop - give the checkpoints back to the writer once
 * the one asked last is done; NULL is fine
 */
void store_checkpointer_stop(struct store_checkpointer *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	c->stop = true;
	pthread_cond_signal(&c->wake);
	pthread_mutex_unlock(&c->lock);
	pthread_join(c->thread, NULL);
	pthread_mutex_destroy(&c->lock);
	pthread_cond_destroy(&c->wake);
	sqlite3_close(c->db);
	sqlite3_wal_autocheckpoint(c->s->db, c->autocheckpoint);
	free(c);
}
