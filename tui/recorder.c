// SPDX-License-Identifier: GPL-2.0-only
/*
 * The recorder child of `mmuscope top` (see recorder.h).
 */
#include "recorder.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/**
 * recorder_start - run this program with @argv ("mmuscope", "record", ...)
 * @log_path: created 0600; the child's stdout and stderr
 *
 * The child is in its own process group, so the terminal's Ctrl-C reaches
 * only the TUI, which then stops it.  Returns 0 or a negative errno.
 */
int recorder_start(struct tui_recorder *r, char *const argv[], const char *log_path)
{
	int fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	pid_t ppid = getpid(), pid;

	memset(r, 0, sizeof(*r));
	snprintf(r->log, sizeof(r->log), "%s", log_path);
	if (fd < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(fd);
		return -errno;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGINT);
		if (getppid() != ppid)
			_exit(1);	/* the TUI is already gone */
		if (null >= 0)
			dup2(null, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		execv("/proc/self/exe", argv);
		dprintf(fd, "mmuscope top: cannot run the recorder: %s\n", strerror(errno));
		_exit(127);
	}
	close(fd);
	r->pid = pid;
	r->running = true;
	return 0;
}

/** recorder_poll - true when the recorder has just exited */
bool recorder_poll(struct tui_recorder *r)
{
	if (!r->running || waitpid(r->pid, &r->status, WNOHANG) != r->pid)
		return false;
	r->running = false;
	r->failed = !WIFEXITED(r->status) || WEXITSTATUS(r->status) != 0;
	return true;
}

/**
 * recorder_stop - ask the recorder to stop (SIGINT: it drains and marks the
 *	capture complete) and wait for it; SIGKILL after @timeout_ms
 */
void recorder_stop(struct tui_recorder *r, int timeout_ms)
{
	struct timespec tick = { .tv_nsec = 10000000 };

	if (!r->running)
		return;
	kill(r->pid, SIGINT);
	for (int waited = 0; waited < timeout_ms; waited += 10) {
		if (recorder_poll(r))
			return;
		nanosleep(&tick, NULL);
	}
	kill(r->pid, SIGKILL);
	if (waitpid(r->pid, &r->status, 0) == r->pid)
		r->running = false;
	r->failed = true;
}

/** recorder_last_line - the last line the recorder wrote, "" when none */
void recorder_last_line(const struct tui_recorder *r, char *buf, size_t size)
{
	char line[512];
	FILE *f = fopen(r->log, "r");

	buf[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0])
			snprintf(buf, size, "%s", line);
	}
	fclose(f);
}
