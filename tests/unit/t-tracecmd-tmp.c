// SPDX-License-Identifier: GPL-2.0-only
/*
 * libtracecmd's per-CPU files in /tmp (lib/tracecmd-tmp.c): a live
 * process's are unlinked while it keeps using them; what no process holds
 * is what a killed run left, and only that is removed.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "source-local.h"
#include "test.h"

/* A child holding a new libtracecmd-named file open, as libtracecmd does. */
struct holder {
	pid_t pid;
	int to_child;	/* write a byte: it checks its file still works, then exits */
	char path[64];
};

static int hold(struct holder *h)
{
	int ready[2], go[2];
	char c;

	if (pipe(ready) || pipe(go))
		return -errno;
	snprintf(h->path, sizeof(h->path), "/tmp/trace_cpu_dataXXXXXX");
	h->pid = fork();
	if (h->pid < 0)
		return -errno;
	if (!h->pid) {
		int fd = mkstemp(h->path);
		char buf[6] = { 0 };

		if (fd < 0 || write(ready[1], h->path, sizeof(h->path)) != sizeof(h->path))
			_exit(2);
		if (read(go[0], &c, 1) != 1 || pwrite(fd, "alive", 5, 0) != 5 ||
		    pread(fd, buf, 5, 0) != 5)
			_exit(3);
		_exit(strcmp(buf, "alive") ? 4 : 0);
	}
	close(ready[1]);
	close(go[0]);
	h->to_child = go[1];
	return read(ready[0], h->path, sizeof(h->path)) == sizeof(h->path) ? 0 : -EIO;
}

static int release(struct holder *h)
{
	int status = -1;

	if (write(h->to_child, "x", 1) != 1)
		kill(h->pid, SIGKILL);
	close(h->to_child);
	waitpid(h->pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void t_unlink_open(void)
{
	struct holder h;

	if (!check_int(hold(&h), ==, 0))
		return;
	check(access(h.path, F_OK) == 0);
	check_int(tracecmd_tmp_unlink_open(h.pid), ==, 1);
	check(access(h.path, F_OK) != 0);	/* no name left behind */
	check_int(tracecmd_tmp_unlink_open(h.pid), ==, 0);
	check_int(release(&h), ==, 0);		/* it went on using the file */
}

static void t_clean(void)
{
	char left[] = "/tmp/trace_cpu_dataXXXXXX", other[] = "/tmp/trace_cpu_dataXXXXXXX";
	struct holder h;
	int fd;

	if (!check_int(hold(&h), ==, 0))
		return;
	fd = mkstemp(left);
	if (check(fd >= 0))
		close(fd);	/* what a killed run leaves: nobody has it open */
	fd = mkstemp(other);	/* not libtracecmd's name: seven characters */
	if (check(fd >= 0))
		close(fd);
	check(tracecmd_tmp_clean() >= 1);	/* another run's may go too */
	check(access(left, F_OK) != 0);
	check(access(h.path, F_OK) == 0);	/* held open by a live process */
	check(access(other, F_OK) == 0);
	unlink(other);
	check_int(release(&h), ==, 0);
	unlink(h.path);
}

int main(void)
{
	TEST(t_unlink_open(), "a live process's libtracecmd file loses its name, not its data");
	TEST(t_clean(), "only the libtracecmd files nobody holds open are removed");
	return test_done();
}
