/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef MSC_METRICS_FILE_H
#define MSC_METRICS_FILE_H

#include <stdint.h>

#include "mmuscope/store.h"

int metrics_dir_check(const char *dir);
int metrics_file_write(struct msc_store *s, int64_t capture_id, const char *dir,
		       const char *host);

#endif /* MSC_METRICS_FILE_H */
