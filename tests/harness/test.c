// SPDX-License-Identifier: GPL-2.0-only
/*
 * The harness behind test.h.  Programs, not lib/: globals and printing are
 * fine here.
 */
#include "test.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static struct {
	int count;		/* TEST()s run */
	int failed;		/* TEST()s failed */
	bool cur_failed;
	const char *cur_desc;
} g;

void test_begin(const char *desc)
{
	g.count++;
	g.cur_desc = desc;
	g.cur_failed = false;
}

bool test_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	printf("# %s:%d: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	g.cur_failed = true;
	return false;
}

bool test_end(void)
{
	if (g.cur_failed)
		g.failed++;
	printf("%s %d - %s\n", g.cur_failed ? "not ok" : "ok", g.count, g.cur_desc);
	fflush(stdout);
	return !g.cur_failed;
}

int test_done(void)
{
	printf("1..%d\n", g.count);
	return g.failed ? 1 : 0;
}

/* tests/data, found from the environment or the source tree. */
const char *test_data_dir(void)
{
	const char *d = getenv("MSC_TEST_DATA");

	return d ? d : "tests/data";
}
