/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the subcommands of the mmuscope program share: the command table,
 * error reporting (the only printing in the program besides each command's
 * own output), and the stop flag set by SIGINT/SIGTERM.
 */
#ifndef MSC_CLI_H
#define MSC_CLI_H

#include <signal.h>
#include <stdbool.h>

#include "mmuscope/host.h"

struct cli_command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *usage;	/* one line: arguments */
	const char *summary;	/* one line: what it does */
	const char *help;	/* lines: every option (cli/help.c) */
};

extern const char cli_help_import[], cli_help_record[], cli_help_analyze[], cli_help_report[],
	cli_help_dump[], cli_help_view[], cli_help_top[], cli_help_diff[], cli_help_metrics[];

extern const char *cli_prog;		/* "mmuscope import", for messages */
extern volatile sig_atomic_t cli_stop;	/* set by SIGINT/SIGTERM */

void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_catch_signals(void);
int cli_usage(const struct cli_command *cmd);
struct msc_store;
void cli_remove_db(const char *path);
int cli_claim_db(const char *path);
void cli_clean_leftovers(const char *path);
void cli_release_db(int fd);
int cli_parse_host(struct msc_host *host, const char *arg);
const char *cli_input(int argc, char **argv, const char *opt_i, const char *deflt,
		      const char *what);
const char *cli_trace_path(const char *path, char *buf, unsigned long size);
const char *cli_default_db(const char *trace, char *buf, unsigned long size);
bool cli_capture_id(const char *arg, long long *ret);
struct msc_capture_row;
bool cli_has_capture(const char *db, const struct msc_capture_row *caps, unsigned long nr,
		     long long id);

/*
 * The options of every command that writes a database: --force (replace
 * it), --append (add a capture to it), --host (facts the trace lacks).
 * CLI_OUTPUT_OPTIONS goes in the command's struct option table.
 */
struct cli_output {
	bool force, append;
	struct msc_host host;	/* --host overrides */
};

#define CLI_OUTPUT_OPTIONS					\
	{ "force", no_argument, NULL, 'f' },			\
	{ "append", no_argument, NULL, 'a' },			\
	{ "host", required_argument, NULL, 'H' }

void cli_output_init(struct cli_output *o);
int cli_output_option(struct cli_output *o, int c, const char *arg);
bool cli_output_check(const struct cli_output *o);
bool cli_output_refuses(const struct cli_output *o, const char *path, bool exists);
void cli_store_error(const char *path, const struct msc_store *s, int r);
const char *cli_db_strerror(const struct msc_store *s, int r);
const char *cli_count(unsigned long long n, char *buf, unsigned long size);
const char *cli_bytes(unsigned long long n, char *buf, unsigned long size);
const char *cli_trace_ts(unsigned long long ts, char *buf, unsigned long size);
int cli_parse_ts(const char *arg, unsigned long long *ns);
/* What cli_parse_ts() takes, for a command's help and messages. */
#define CLI_TS_HELP "seconds as trace-cmd prints them (9.256041, 9.256041s) or ns (9256041000)"

int cmd_import(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_synth(int argc, char **argv);
extern const char cmd_synth_usage[];	/* several lines: options, the tracing directory */
int cmd_analyze(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_metrics(int argc, char **argv);

struct msc_history_summary;
bool analyze_report_summary(const char *db, const struct msc_history_summary *s, bool fatal);
int cmd_record(int argc, char **argv);
int cmd_view(int argc, char **argv);
int cmd_top(int argc, char **argv);


struct msc_ingest;
void cli_warn_refused(const char *what, const struct msc_ingest *ing);

#endif /* MSC_CLI_H */
