/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Following a capture nobody analyzes: the events `mmuscope record` (or an
 * import with --no-analyze) stored are read back from the database and
 * fed to the analyzer (history.h), whose tables go to a private side store
 * that the TUI reads through msc_hview like any analyzed database.
 *
 * The source database is only read, in short read transactions: the
 * recorder writing it is never blocked.  Each step analyzes what arrived
 * within a time budget.  Census, region and activity rows are visible to
 * the TUI at once (same connection); phases and the intervals still open
 * are written at a checkpoint (finish, commit, close; the next step
 * resumes), which runs when the source is caught up or every few seconds,
 * never taking more than a fifth of the time.
 */
#ifndef MSC_TUI_FOLLOW_H
#define MSC_TUI_FOLLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmuscope/history.h"

struct msc_capture_row;
struct msc_store;
struct tui_follow;

int tui_follow_open(struct msc_store *src, const struct msc_capture_row *cap,
		    const char *side_path, struct tui_follow **ret);
void tui_follow_close(struct tui_follow *f);
int tui_follow_step(struct tui_follow *f, const struct msc_capture_row *cap,
		    unsigned int budget_ms, bool *ret_checkpoint);
bool tui_follow_caught_up(const struct tui_follow *f, const struct msc_capture_row *cap);
struct msc_store *tui_follow_store(const struct tui_follow *f);
int64_t tui_follow_capture(const struct tui_follow *f);
void tui_follow_summary(const struct tui_follow *f, struct msc_history_summary *ret);
const struct msc_lost_mark *tui_follow_lost(const struct tui_follow *f, size_t *ret_nr);

#endif /* MSC_TUI_FOLLOW_H */
