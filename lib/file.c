// SPDX-License-Identifier: GPL-2.0-only
/*
 * Creating the files mmuscope writes (include/mmuscope/file.h): new, 0600,
 * under a temporary name, renamed into place when complete.  mkostemp()
 * creates with O_EXCL and mode 0600, so a planted symlink or an existing
 * file is never written through, and rename() replaces a symlink at the
 * place itself, not its target.
 *
 * Temporary names carry the writer's pid ("<place>.tmp.<pid>.XXXXXX"), so
 * that what a killed run left is known for what it is and removed by the
 * next run on the same place (msc_file_clean()).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mmuscope/file.h"

/**
 * msc_file_create - start writing the file @path
 * @f: filled in: write to f->fd, then msc_file_commit() or msc_file_abort()
 *
 * Returns 0 or a negative errno (ENAMETOOLONG for a path too long).
 */
int msc_file_create(struct msc_new_file *f, const char *path)
{
	int n = snprintf(f->tmp, sizeof(f->tmp), "%s.tmp.%d.XXXXXX", path, (int)getpid());

	f->path = path;
	f->fd = -1;
	if (n < 0 || (size_t)n >= sizeof(f->tmp))
		return -ENAMETOOLONG;
	f->fd = mkostemp(f->tmp, O_CLOEXEC);
	return f->fd < 0 ? -errno : 0;
}

/**
 * msc_file_commit - the file is complete: close it and put it in its place
 *
 * Closes f->fd if still open (a caller that handed it to a library which
 * closes it sets it to -1).  On error the temporary file is gone.  Returns 0
 * or a negative errno.
 */
int msc_file_commit(struct msc_new_file *f)
{
	int r = 0;

	if (f->fd >= 0 && close(f->fd))
		r = -errno;
	f->fd = -1;
	if (!r && rename(f->tmp, f->path))
		r = -errno;
	if (r)
		unlink(f->tmp);
	return r;
}

/** msc_file_abort - the file is not wanted: close and remove it */
void msc_file_abort(struct msc_new_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	unlink(f->tmp);
}

/*
 * Is the process @pid there?  A process of another user is; a zombie is not
 * (a killed run's children may wait long to be reaped).
 */
static bool alive(long pid)
{
	char path[64], state = 0;
	FILE *f;

	if (pid <= 0 || (kill((pid_t)pid, 0) && errno != EPERM))
		return false;
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	f = fopen(path, "re");
	if (f) {
		/* "pid (comm) S ...": the state follows the last ')' */
		char line[512], *p = fgets(line, sizeof(line), f) ? strrchr(line, ')') : NULL;

		if (p && p[1] == ' ')
			state = p[2];
		fclose(f);
	}
	return state != 'Z';
}

/* Remove @name in @dir, a file or a directory of files. */
static int remove_entry(int dfd, const char *name)
{
	int fd;
	DIR *d;

	if (!unlinkat(dfd, name, 0))
		return 0;
	if (errno != EISDIR)
		return -errno;
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	for (struct dirent *e; (e = readdir(d));)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
	return unlinkat(dfd, name, AT_REMOVEDIR) ? -errno : 0;
}

/**
 * msc_file_clean - remove what killed runs left in @dir: the entries named
 *	@prefix, then a pid, then anything, whose process is gone
 * @dir: the directory
 * @prefix: e.g. "vm.db.importing." (a directory of files is removed too)
 *
 * Returns how many were removed, or a negative errno when @dir cannot be
 * read.
 */
int msc_file_clean(const char *dir, const char *prefix)
{
	size_t len = strlen(prefix);
	int n = 0;
	DIR *d = opendir(dir);

	if (!d)
		return -errno;
	for (struct dirent *e; (e = readdir(d));) {
		char *end;
		long pid;

		if (strncmp(e->d_name, prefix, len))
			continue;
		pid = strtol(e->d_name + len, &end, 10);
		if (end == e->d_name + len || alive(pid))
			continue;
		n += !remove_entry(dirfd(d), e->d_name);
	}
	closedir(d);
	return n;
}
