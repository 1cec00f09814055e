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
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

/* Does @s match @tmpl, where an 'X' stands for one of mkstemp()'s letters? */
static bool match_template(const char *s, const char *tmpl)
{
	for (; *tmpl; s++, tmpl++)
		if (*tmpl == 'X' ? !isalnum((unsigned char)*s) : *s != *tmpl)
			return false;
	return !*s;
}

/*
 * Is @rest what follows the pid in a name this program makes?  With a
 * @tmpl, exactly that ("-XXXXXX.dat"); without, the names beside a database
 * (cli_clean_leftovers()): nothing ("<db>.importing.PID", an SQLite
 * database), SQLite's side files ("-wal", "-shm", "-journal"), or
 * mkstemp()'s ".XXXXXX".
 */
static bool own_tail(const char *rest, const char *tmpl)
{
	static const char *const beside[] = { "", "-wal", "-shm", "-journal", ".XXXXXX" };

	if (tmpl)
		return match_template(rest, tmpl);
	for (size_t i = 0; i < sizeof(beside) / sizeof(beside[0]); i++)
		if (match_template(rest, beside[i]))
			return true;
	return false;
}

/*
 * Remove @name in @dfd: a regular file, or a directory whose every entry is
 * a regular file or such a directory, each owned by @uid.  Nothing is
 * followed: a symlink, a device or another user's entry anywhere below
 * stops the removal there (-EPERM), and what is left stays.  @depth bounds
 * the recursion: this program's directories are at most a few levels deep.
 */
static int remove_own(int dfd, const char *name, uid_t uid, int depth)
{
	struct stat st;
	int fd, r = 0;
	DIR *d;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return -errno;
	if (st.st_uid != uid)
		return -EPERM;
	if (S_ISREG(st.st_mode))
		return unlinkat(dfd, name, 0) ? -errno : 0;
	if (!S_ISDIR(st.st_mode) || depth <= 0)
		return -EPERM;
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		r = -errno;
		close(fd);
		return r;
	}
	for (struct dirent *e; (e = readdir(d));) {
		int rr;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		rr = remove_own(dirfd(d), e->d_name, uid, depth - 1);
		if (!r)
			r = rr;
	}
	closedir(d);
	if (!r && unlinkat(dfd, name, AT_REMOVEDIR))
		r = -errno;
	return r;
}

/**
 * msc_file_remove - remove a file or directory this process made
 * @path: a regular file, or a directory of such files and directories
 *
 * No shell, and nothing followed: only regular files and directories owned
 * by this process's effective uid are removed (see remove_own()).  Returns
 * 0 or a negative errno (EPERM where something else was found).
 */
int msc_file_remove(const char *path)
{
	return remove_own(AT_FDCWD, path, geteuid(), 8);
}

/**
 * msc_file_clean - remove what killed runs left in @dir: the entries named
 *	@prefix, then a pid, then a tail this program makes, whose process is
 *	gone
 * @dir: the directory
 * @prefix: e.g. "vm.db.importing." (a directory of files is removed too)
 * @tmpl: what follows the pid, an 'X' for each of mkstemp()'s letters
 *	("-XXXXXX.dat"), or NULL for the names beside a database (own_tail())
 *
 * Only the program's own: the name must have one of the shapes the program
 * makes (own_tail()), and the entry, and all below it, must belong to this
 * process's effective uid.  A name of another shape, another user's entry
 * or a symlink stays, whoever could be hurt by removing it.
 *
 * Returns how many were removed, or a negative errno when @dir cannot be
 * read.
 */
int msc_file_clean(const char *dir, const char *prefix, const char *tmpl)
{
	size_t len = strlen(prefix);
	uid_t uid = geteuid();
	int n = 0;
	DIR *d = opendir(dir);

	if (!d)
		return -errno;
	for (struct dirent *e; (e = readdir(d));) {
		char *end;
		long pid;

		if (strncmp(e->d_name, prefix, len) || !isdigit((unsigned char)e->d_name[len]))
			continue;
		pid = strtol(e->d_name + len, &end, 10);
		if (pid > INT_MAX || !own_tail(end, tmpl) || alive(pid))
			continue;
		n += !remove_own(dirfd(d), e->d_name, uid, 8);
	}
	closedir(d);
	return n;
}
