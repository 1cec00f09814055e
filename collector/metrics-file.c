// SPDX-License-Identifier: GPL-2.0-only
/*
 * record --metrics-dir DIR: DIR/mmuscope.prom, the recording's metrics
 * (analyzer/metrics.c) for node_exporter's textfile collector, kept current.
 *
 * The file is written whole under a name of ours, DIR/.mmuscope.prom.tmp,
 * then renamed over DIR/mmuscope.prom: a scrape reads the old file or the
 * new, never half of one (node_exporter reads *.prom only).  A temporary
 * file a killed run left is removed by the next write.  The metrics hold no
 * host physical address: the file is 0644, for node_exporter's user.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "metrics-file.h"
#include "analyzer/metrics.h"

#define PROM_NAME "mmuscope.prom"
#define TMP_NAME ".mmuscope.prom.tmp"

/**
 * metrics_dir_check - may the recording keep its metrics in @dir?  An
 *	existing directory (no symbolic link) it can write.  Returns 0 or -errno.
 */
int metrics_dir_check(const char *dir)
{
	struct stat st;

	if (lstat(dir, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	return access(dir, W_OK | X_OK) ? -errno : 0;
}

/**
 * metrics_file_write - write capture @capture_id's metrics of @s into
 *	@dir/mmuscope.prom, whole.  Returns 0 or a negative error.
 */
int metrics_file_write(struct msc_store *s, int64_t capture_id, const char *dir,
		       const char *host)
{
	const struct msc_metrics_opts o = { .host = host };
	char tmp[4200], prom[4200];
	FILE *f;
	int fd, r;

	snprintf(tmp, sizeof(tmp), "%s/%s", dir, TMP_NAME);
	snprintf(prom, sizeof(prom), "%s/%s", dir, PROM_NAME);
	if (unlink(tmp) && errno != ENOENT)
		return -errno;
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		r = -errno;
		close(fd);
		unlink(tmp);
		return r;
	}
	r = msc_metrics_write(s, capture_id, &o, f);
	if (fclose(f) && !r)
		r = -EIO;
	if (!r && rename(tmp, prom))
		r = -errno;
	if (r)
		unlink(tmp);
	return r;
}
