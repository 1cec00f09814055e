// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the report's views (cmd-report.c, report-*.c, cmd-diff.c) print alike.
 */
#include <inttypes.h>
#include <stdio.h>

#include "mmuscope/history.h"

#include "report.h"

/** report_huge_pct - the share of mapped memory mapped huge, in percent; -1: nothing mapped */
double report_huge_pct(const struct msc_census *c)
{
	uint64_t all = msc_census_mapped(c);

	return all ? 100.0 * (double)(all - (uint64_t)c->pages[1]) / (double)all : -1;
}

/** report_json_str - @s as a JSON string */
void report_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}
