/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Files mmuscope writes hold host physical addresses: each is created new,
 * 0600, under a temporary name beside its place (never through a symlink,
 * whatever the umask), and renamed into place only once it is complete.
 */
#ifndef MSC_FILE_H
#define MSC_FILE_H

#include <stddef.h>

/* A file being written: its descriptor and the temporary name it has. */
struct msc_new_file {
	int fd;
	char tmp[4096];
	const char *path;	/* borrowed: where it goes */
};

int msc_file_create(struct msc_new_file *f, const char *path);
int msc_file_commit(struct msc_new_file *f);
void msc_file_abort(struct msc_new_file *f);
int msc_file_clean(const char *dir, const char *prefix, const char *tmpl);
int msc_file_remove(const char *path);

#endif /* MSC_FILE_H */
