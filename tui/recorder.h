/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `mmuscope top` records with `mmuscope record` in a child process: the
 * recorder keeps its own pace (the TUI can never block it), a crash of one
 * does not take the other down, and its messages go to a log file instead
 * of the screen.  The child gets SIGINT when the TUI quits, and also if
 * the TUI dies (PR_SET_PDEATHSIG), so it always removes its tracefs
 * instance and kprobes.  No curses here.
 */
#ifndef MSC_TUI_RECORDER_H
#define MSC_TUI_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct tui_recorder {
	pid_t pid;
	bool running;
	bool failed;			/* exited non-zero, or by a signal */
	int status;			/* waitpid() status once it exited */
	char log[4096];			/* its stdout and stderr */
};

int recorder_start(struct tui_recorder *r, char *const argv[], const char *log_path);
bool recorder_poll(struct tui_recorder *r);
void recorder_stop(struct tui_recorder *r, int timeout_ms);
void recorder_last_line(const struct tui_recorder *r, char *buf, size_t size);

#endif /* MSC_TUI_RECORDER_H */
