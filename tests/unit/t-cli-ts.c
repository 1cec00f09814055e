// SPDX-License-Identifier: GPL-2.0-only
/*
 * The command line's one time base (cli_parse_ts()): trace-cmd's seconds
 * or ns, exactly; and the default database named for its capture
 * directory (cli_default_db()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cli/cli.c"
#include "test.h"

static void t_parse_ts(void)
{
	unsigned long long ns = 0;

	check_int(cli_parse_ts("9.256041", &ns), ==, 0);
	check_uint(ns, ==, 9256041000ULL);
	check_int(cli_parse_ts("9.256041s", &ns), ==, 0);
	check_uint(ns, ==, 9256041000ULL);
	check_int(cli_parse_ts("@9.256041", &ns), ==, 0);
	check_uint(ns, ==, 9256041000ULL);
	check_int(cli_parse_ts("9256041000", &ns), ==, 0);	/* an integer alone: ns */
	check_uint(ns, ==, 9256041000ULL);
	check_int(cli_parse_ts("9s", &ns), ==, 0);
	check_uint(ns, ==, 9000000000ULL);
	check_int(cli_parse_ts("9.", &ns), ==, 0);
	check_uint(ns, ==, 9000000000ULL);
	check_int(cli_parse_ts(".5", &ns), ==, 0);
	check_uint(ns, ==, 500000000ULL);
	check_int(cli_parse_ts("0.000000001", &ns), ==, 0);	/* exact to the ns */
	check_uint(ns, ==, 1ULL);
	check_int(cli_parse_ts("18446744073.709551615", &ns), ==, 0);
	check_uint(ns, ==, 18446744073709551615ULL);
	check_int(cli_parse_ts("18446744073.709551616", &ns), ==, -ERANGE);
	check_int(cli_parse_ts("99999999999999999999", &ns), ==, -ERANGE);
	check_int(cli_parse_ts("0.0000000001", &ns), ==, -EINVAL);	/* finer than the clock */
	check_int(cli_parse_ts("", &ns), ==, -EINVAL);
	check_int(cli_parse_ts("@", &ns), ==, -EINVAL);
	check_int(cli_parse_ts(".", &ns), ==, -EINVAL);
	check_int(cli_parse_ts("s", &ns), ==, -EINVAL);
	check_int(cli_parse_ts("-1", &ns), ==, -EINVAL);
	check_int(cli_parse_ts("1.2.3", &ns), ==, -EINVAL);
	check_int(cli_parse_ts("9ms", &ns), ==, -EINVAL);
	check_int(cli_parse_ts(" 9", &ns), ==, -EINVAL);
}

static void t_default_db(void)
{
	char tmpl[] = "/tmp/t-cli-ts.XXXXXX", path[256], buf[256], cwd[4096];
	char *dir = mkdtemp(tmpl);

	check(dir != NULL);
	if (!dir)
		return;
	check_str(cli_default_db("vm1.dat", buf, sizeof(buf)), "vm1.db");
	check_str(cli_default_db("/x/y/vm1.dat", buf, sizeof(buf)), "vm1.db");
	check_str(cli_default_db("/x/y/trace", buf, sizeof(buf)), "trace.db");
	snprintf(path, sizeof(path), "%s/k612-npt_tdp_32m", dir);
	check_int(mkdir(path, 0700), ==, 0);
	snprintf(path, sizeof(path), "%s/k612-npt_tdp_32m/trace.dat", dir);
	check_str(cli_default_db(path, buf, sizeof(buf)), "k612-npt_tdp_32m.db");
	snprintf(path, sizeof(path), "%s/k612-npt_tdp_32m/./trace.dat", dir);
	check_str(cli_default_db(path, buf, sizeof(buf)), "k612-npt_tdp_32m.db");
	check(getcwd(cwd, sizeof(cwd)) != NULL);
	snprintf(path, sizeof(path), "%s/k612-npt_tdp_32m", dir);
	check_int(chdir(path), ==, 0);
	check_str(cli_default_db("trace.dat", buf, sizeof(buf)), "k612-npt_tdp_32m.db");
	check_str(cli_default_db("./trace.dat", buf, sizeof(buf)), "k612-npt_tdp_32m.db");
	check_int(chdir("/"), ==, 0);
	check_str(cli_default_db("trace.dat", buf, sizeof(buf)), "trace.db");	/* the root */
	check_int(chdir(cwd), ==, 0);
	rmdir(path);
	rmdir(dir);
}

int main(void)
{
	TEST(t_parse_ts(), "trace times: seconds with a point or 's', ns as an integer, exact");
	TEST(t_default_db(), "a trace.dat's database is named for its directory");
	return test_done();
}
