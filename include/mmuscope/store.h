/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The store: an SQLite database with the schema of schema/NNN-*.sql.
 *
 * Writers add events in seq order inside batched transactions; a capture is
 * marked complete only after its last event is committed, so a reader can
 * always tell a capture that is still being written, or was cut short, from
 * a finished one.  Readers open the file read-only and walk the events of
 * every table merged back into seq order.
 *
 * Only lib/store*.c see SQLite; errors come back as -errno or MSC_ERR_*,
 * with SQLite's own message kept for msc_store_errmsg().
 */
#ifndef MSC_STORE_H
#define MSC_STORE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmuscope/event.h"

struct msc_capture_info;
struct msc_event;
struct msc_event_stat;
struct msc_host;
struct msc_store;
struct msc_event_cursor;

enum msc_store_flags {
	MSC_STORE_CREATE = 1 << 0,	/* a new file; fails with MSC_ERR_EXISTS if present */
	MSC_STORE_READONLY = 1 << 1,
	MSC_STORE_BULK = 1 << 2,	/* no journal, no fsync: a file nobody reads yet */
	MSC_STORE_NO_CHECK = 1 << 3,	/* schema, pages unchecked: checked by this process, or replaced */
};

/* A capture's summary, as kept in the capture table. */
struct msc_capture_row {
	int64_t id;
	char source[512];
	char kind[16];
	char kernel_release[64];
	char vendor[8];
	uint64_t nonpresent_spte, frozen_spte;
	char nonpresent_from[32], frozen_from[32];	/* "events (N)", "release", ... */
	unsigned int role_access_bits;	/* 3 or 4; 0 in a database before schema 6 */
	char role_access_from[32];
	bool tdp_mmu;
	bool ept_ad;			/* EPT with hardware A/D bits */
	uint64_t ept_sw;		/* EPT: host- | MMU-writable bits; 0 unknown */
	char ept_sw_from[32];
	int64_t first_seq, last_seq;	/* -1 when the capture has no events */
	uint64_t first_ts, last_ts;
	uint64_t records, stored, lost, lost_marks;
	bool complete;
};

const char *msc_store_event_table(enum msc_event_type type);

int msc_store_open(const char *path, unsigned int flags, struct msc_store **ret);
void msc_store_close(struct msc_store *s);
const char *msc_store_errmsg(const struct msc_store *s);
const char *msc_store_open_errmsg(void);
void msc_store_set_interrupt(const volatile sig_atomic_t *flag);

int msc_store_begin_capture(struct msc_store *s, const struct msc_capture_info *info,
			    const struct msc_host *host, int64_t *ret_id);
int msc_store_set_capture_host(struct msc_store *s, const struct msc_host *host);
int msc_store_add_event(struct msc_store *s, const struct msc_event *ev);
int msc_store_add_stat(struct msc_store *s, const struct msc_event_stat *stat);
int msc_store_set_param(struct msc_store *s, const char *name, const char *value);
int msc_store_commit(struct msc_store *s);
int msc_store_end_capture(struct msc_store *s, uint64_t records);
int msc_store_finish(struct msc_store *s);
int msc_store_lock(struct msc_store *s);
int msc_store_writer_lock(const char *path);
void msc_store_writer_unlock(int fd);
void msc_store_set_batch(struct msc_store *s, unsigned int events);
int64_t msc_store_next_seq(struct msc_store *s);

int msc_store_get_captures(struct msc_store *s, struct msc_capture_row **ret, size_t *ret_nr);
void msc_capture_host(const struct msc_capture_row *c, struct msc_host *ret);
int msc_store_events_open(struct msc_store *s, int64_t first_seq, int64_t last_seq,
			  struct msc_event_cursor **ret);
int msc_store_events_next(struct msc_event_cursor *c, struct msc_event *ret_ev);
void msc_store_events_close(struct msc_event_cursor *c);

/* The same walk, read ahead on a thread of its own (lib/store-readahead.c) */
struct msc_store_readahead;

int msc_store_readahead_open(struct msc_store *s, int64_t first_seq, int64_t last_seq,
			     struct msc_store_readahead **ret);
int msc_store_readahead_next(struct msc_store_readahead *ra, const struct msc_event **ret_ev);
void msc_store_readahead_close(struct msc_store_readahead *ra);

/* Test builds only: fail the n-th SQLite step from now with SQLITE_FULL. */
void msc_store_fail_after(struct msc_store *s, long n);

#endif /* MSC_STORE_H */
