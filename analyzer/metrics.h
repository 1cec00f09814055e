/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An analyzed capture's per-VM metrics in Prometheus's text exposition
 * format (docs/FLEET.md): `mmuscope metrics`, `record --metrics-dir`.
 */
#ifndef MSC_ANALYZER_METRICS_H
#define MSC_ANALYZER_METRICS_H

#include <stdint.h>
#include <stdio.h>

#include "mmuscope/store.h"

struct msc_metrics_opts {
	const char *host;		/* the host label's value */
};

int msc_metrics_write(struct msc_store *s, int64_t capture_id,
		      const struct msc_metrics_opts *o, FILE *f);

#endif /* MSC_ANALYZER_METRICS_H */
