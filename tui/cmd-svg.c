// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmuscope svg DB DIR [--capture ID] [--at MS,...]`: the pictures of
 * `report --svg DIR` on their own (svg.h), one file name per line on
 * stdout.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../collector/cli.h"
#include "svg.h"
#include "mmuscope/error.h"
#include "mmuscope/store.h"

/* "163.9,450" (ms since the capture start) -> o->at */
static int parse_times(const char *arg, struct svg_opts *o)
{
	const char *p = arg;

	while (*p) {
		char *end;
		double ms = strtod(p, &end);

		if (end == p || ms < 0 || o->nr_at == SVG_MAX_MAPS)
			return -EINVAL;
		o->at[o->nr_at++] = (uint64_t)(ms * 1e6 + 0.5);
		p = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return -EINVAL;
	}
	return o->nr_at ? 0 : -EINVAL;
}

int cmd_svg(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "capture", required_argument, NULL, 'c' },
		{ "at", required_argument, NULL, 'a' },
		{ 0 }
	};
	struct svg_opts o = { 0 };
	struct msc_store *s;
	int64_t capture = 0;
	int c, r;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (c == 'c') {
			capture = strtoll(optarg, NULL, 10);
		} else if (c == 'a') {
			if (parse_times(optarg, &o)) {
				cli_error("--at %s: expected milliseconds, comma separated (at most %d)",
					  optarg, SVG_MAX_MAPS);
				return 2;
			}
		} else {
			return 2;
		}
	}
	if (optind + 2 != argc) {
		cli_error("need a database and a directory");
		return 2;
	}
	r = msc_store_open(argv[optind], MSC_STORE_READONLY, &s);
	if (r) {
		cli_error("%s: cannot open: %s", argv[optind], msc_strerror(r));
		return 1;
	}
	r = svg_write_report(s, capture, argv[optind + 1], &o, stdout);
	if (r)
		cli_error("%s: %s", argv[optind], o.error[0] ? o.error : msc_strerror(r));
	msc_store_close(s);
	return r ? 1 : 0;
}
