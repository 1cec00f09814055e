// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmuscope metrics DB`: the capture's per-VM metrics in Prometheus's text
 * format on stdout (analyzer/metrics.c), for node_exporter's textfile collector
 * (docs/FLEET.md).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli/cli.h"
#include "mmuscope/error.h"
#include "mmuscope/store.h"
#include "metrics.h"

int cmd_metrics(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "capture", required_argument, NULL, 'c' },
		{ "input", required_argument, NULL, 'i' },
		{ "host", required_argument, NULL, 'H' },
		{ 0 }
	};
	struct msc_metrics_opts o = { 0 };
	struct msc_capture_row *caps = NULL;
	struct msc_store *s;
	const char *in = NULL, *db;
	char host[256];
	long long only = 0;
	size_t nr = 0;
	int c, r;

	while ((c = getopt_long(argc, argv, "c:i:", longopts, NULL)) != -1) {
		if (c == 'c' && !cli_capture_id(optarg, &only))
			return 2;
		else if (c == 'i')
			in = optarg;
		else if (c == 'H')
			o.host = optarg;
		else if (c != 'c')
			return 2;
	}
	db = cli_input(argc, argv, in, NULL, "database");
	if (!db)
		return 2;
	if (!o.host) {
		if (gethostname(host, sizeof(host)))
			snprintf(host, sizeof(host), "unknown");
		host[sizeof(host) - 1] = '\0';
		o.host = host;
	}
	r = msc_store_open(db, MSC_STORE_READONLY, &s);
	if (r) {
		cli_error("%s: cannot open database: %s", db, cli_db_strerror(NULL, r));
		return 1;
	}
	r = msc_store_get_captures(s, &caps, &nr);
	if (!r && !cli_has_capture(db, caps, nr, only)) {
		free(caps);
		msc_store_close(s);
		return 1;
	}
	free(caps);
	if (!r)
		r = msc_metrics_write(s, only, &o, stdout);
	if (r == -ENOENT)
		cli_error("%s: the capture was not analyzed (run 'mmuscope analyze %s')", db, db);
	else if (r == -EIO)
		cli_error("%s: cannot write the metrics to stdout", db);
	else if (r)
		cli_store_error(db, s, r);
	msc_store_close(s);
	return r ? 1 : 0;
}
