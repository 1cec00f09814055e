// SPDX-License-Identifier: GPL-2.0-only
/*
 * libtracecmd's temporary files.  tracecmd_copy() of a compressed trace
 * decompresses each CPU's data into "/tmp/trace_cpu_dataXXXXXX" (the name is
 * fixed in the library: $TMPDIR is not read) and unlinks it only in
 * tracecmd_close().  Those files are the trace uncompressed, host physical
 * addresses included; a child that is killed or crashes leaves them.
 *
 * Invariant kept here: such a file lives with a name only while a process
 * has it open.  The parent of the copying child unlinks each one as soon as
 * it sees it among the child's descriptors (the child goes on through its
 * descriptor), and a file that no process holds open was left by a process
 * that died: mkstemp() returns it open and the library never closes it
 * before unlinking it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "source-local.h"

#define TMP_DIR "/tmp"
#define TMP_NAME "trace_cpu_data"	/* then six characters from mkstemp() */
#define MAX_LEFT 1024			/* candidates looked at in one run */

static bool is_tmp_name(const char *name)
{
	size_t len = strlen(TMP_NAME);

	return !strncmp(name, TMP_NAME, len) && strlen(name + len) == 6 && !strchr(name, '/');
}

/* the name in TMP_DIR of the libtracecmd file @link (a /proc fd link) names, or NULL */
static const char *tmp_of_link(const char *link)
{
	size_t dir = strlen(TMP_DIR);

	if (strncmp(link, TMP_DIR "/", dir + 1) || !is_tmp_name(link + dir + 1))
		return NULL;
	return link + dir + 1;
}

/* calls @fn for each libtracecmd file process @pid holds open; returns how many */
static int for_each_open(const char *pid, void (*fn)(const char *name, void *arg), void *arg)
{
	char path[64], link[4096];
	int n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%s/fd", pid);
	d = opendir(path);
	if (!d)
		return 0;
	for (struct dirent *e; (e = readdir(d));) {
		const char *name;
		ssize_t len = readlinkat(dirfd(d), e->d_name, link, sizeof(link) - 1);

		if (len <= 0)
			continue;
		link[len] = '\0';
		name = tmp_of_link(link);	/* " (deleted)" ones do not match */
		if (name) {
			fn(name, arg);
			n++;
		}
	}
	closedir(d);
	return n;
}

static void unlink_name(const char *name, void *arg)
{
	int *n = arg;
	char path[64];

	snprintf(path, sizeof(path), TMP_DIR "/%s", name);
	*n += !unlink(path);
}

/**
 * tracecmd_tmp_unlink_open - unlink the libtracecmd temporary files that the
 *	live process @pid holds open (it keeps using them through its
 *	descriptors)
 *
 * Returns how many were unlinked.
 */
int tracecmd_tmp_unlink_open(pid_t pid)
{
	char id[24];
	int n = 0;

	snprintf(id, sizeof(id), "%d", (int)pid);
	for_each_open(id, unlink_name, &n);
	return n;
}

struct left {
	int nr;
	bool held[MAX_LEFT];
	char name[MAX_LEFT][32];
};

static void mark_held(const char *name, void *arg)
{
	struct left *l = arg;

	for (int i = 0; i < l->nr; i++)
		if (!strcmp(l->name[i], name))
			l->held[i] = true;
}

/* the candidates: ours, regular, listed before any process is looked at */
static void list_left(struct left *l)
{
	DIR *d = opendir(TMP_DIR);

	if (!d)
		return;
	for (struct dirent *e; (e = readdir(d)) && l->nr < MAX_LEFT;) {
		struct stat st;

		if (!is_tmp_name(e->d_name) ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(st.st_mode) || st.st_uid != geteuid())
			continue;
		memcpy(l->name[l->nr], e->d_name, strlen(e->d_name) + 1);	/* 20 bytes: is_tmp_name() */
		l->held[l->nr++] = false;
	}
	closedir(d);
}

/**
 * tracecmd_tmp_clean - remove the libtracecmd temporary files of this user
 *	that no process holds open: what killed runs left
 *
 * A file created after the candidates are listed is not one of them, and one
 * listed is open in its creator for as long as that lives, so a live run's
 * file is never taken.  At most MAX_LEFT files go per call.
 *
 * Returns how many were removed.
 */
int tracecmd_tmp_clean(void)
{
	struct left *l = calloc(1, sizeof(*l));
	DIR *proc = NULL;
	int n = 0;

	if (l)
		list_left(l);
	if (l && l->nr)
		proc = opendir("/proc");
	if (proc) {
		for (struct dirent *e; (e = readdir(proc));)
			if (e->d_name[0] >= '1' && e->d_name[0] <= '9')
				for_each_open(e->d_name, mark_held, l);
		closedir(proc);
		for (int i = 0; i < l->nr; i++)
			if (!l->held[i])
				unlink_name(l->name[i], &n);
	}
	free(l);
	return n;
}
