// SPDX-License-Identifier: GPL-2.0-only
/*
 * mmuscope: one program, one subcommand per job (trace-cmd's shape).  Each
 * subcommand lives in the part it belongs to (collector/, analyzer/, tui/)
 * and returns the process exit status.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "mmuscope/store.h"
#include "mmuscope/util.h"

#define MSC_VERSION "0.1"

static const struct cli_command commands[] = {
	{ .name = "import", .run = cmd_import,
	  .usage = "[TRACE | -i TRACE] [-o DB] [--force|--append] [--host K=V,...] [--instance NAME] [--text] "
		   "[--no-analyze] [-q]",
	  .summary = "store a trace-cmd trace.dat (or a text event file) in a database",
	  .help = cli_help_import },
	{ .name = "record", .run = cmd_record,
	  .usage = "-o DB [--pid PID] [--duration S] [--buffer-kb KB] [--instance NAME] "
		   "[--tracing-dir DIR] [--no-kprobes] [--stats-ms MS] [--kvm-stats HOW] "
		   "[--commit-ms MS] "
		   "[--host K=V,...] [--force|--append] [--trace-dat FILE] [--spool-dir DIR|--no-spool] "
		   "[--no-analyze] [--light[=N]] [--metrics-dir DIR] [-q]",
	  .summary = "record this host's KVM MMU live from tracefs (root; Ctrl-C stops)",
	  .help = cli_help_record },
	{ .name = "analyze", .run = cmd_analyze,
	  .usage = "DB [-c ID] [--rebuild] [--infer-only] [--per-event] [-q]",
	  .summary = "rebuild page-table history, census, phases, anomalies (import runs it)",
	  .help = cli_help_analyze },
	{ .name = "report", .run = cmd_report,
	  .usage = "DB [-c ID] [--brief | --json | --selftest] [--svg DIR [--at MS,...] [--from MS] [--to MS]]",
	  .summary = "per-phase summary: census before/after, costs, anomalies",
	  .help = cli_help_report },
	{ .name = "diff", .run = cmd_diff,
	  .usage = "A.db B.db [-c A_ID [-c B_ID]] [--json] | DB -c A_ID -c B_ID",
	  .summary = "two runs side by side, per dirty-log step, as a cover letter puts them",
	  .help = cli_help_diff },
	{ .name = "metrics", .run = cmd_metrics, .usage = "DB [-c ID] [--host NAME]",
	  .summary = "per-VM metrics in Prometheus's text format (node_exporter's textfile)",
	  .help = cli_help_metrics },
	{ .name = "synth", .run = cmd_synth, .usage = cmd_synth_usage,
	  .summary = "write a synthetic TDP MMU trace: a trace.dat and/or a fake tracing directory" },
	{ .name = "view", .run = cmd_view,
	  .usage = "DB [--capture ID] [--script FILE --no-display [--screen-dir DIR]] [--no-color] [--bench]",
	  .summary = "browse a database: coverage over time, memory map, phases, GFNs (TUI)",
	  .help = cli_help_view },
	{ .name = "top", .run = cmd_top,
	  .usage = "[-o DB] [--pid PID] [--tracing-dir DIR] [--duration S] [record options] [view options]",
	  .summary = "record this host live and show it as it happens (root; TUI)",
	  .help = cli_help_top },
	{ .name = "dump", .run = cmd_dump,
	  .usage = "DB [-c ID] [-F EVENT,...] [--gfn GFN] [--cpu N] [--pid PID] [--from NS] [--to NS]",
	  .summary = "print stored events, one stable text line each",
	  .help = cli_help_dump },
};

static void help(FILE *f)
{
	fprintf(f, "usage: mmuscope <command> [<args>]\n\n"
		   "mmuscope makes the KVM x86 MMU visible: SPTE changes, splits, zaps and\n"
		   "faults from kvmmmu tracepoints, stored in SQLite and analysed.\n\n"
		   "commands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'mmuscope help <command>' (or 'mmuscope <command> --help') explains "
		   "every option of a command.\n");
}

static const struct cli_command *command(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}

static int command_help(const struct cli_command *c)
{
	printf("usage: mmuscope %s %s\n%s\n", c->name, c->usage, c->summary);
	if (c->help)
		printf("\n%s", c->help);
	return 0;
}

int main(int argc, char **argv)
{
	static char prog[64];
	const struct cli_command *c;
	int r;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    (!strcmp(argv[1], "help") && argc == 2)) {
		help(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("mmuscope %s\n", MSC_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "help")) {
		c = command(argv[2]);
		if (c)
			return command_help(c);
		cli_error("'%s' is not a command; see 'mmuscope --help'", argv[2]);
		return 2;
	}
	c = command(argv[1]);
	if (!c) {
		cli_error("'%s' is not a command; see 'mmuscope --help'", argv[1]);
		return 2;
	}
	snprintf(prog, sizeof(prog), "mmuscope %s", c->name);
	cli_prog = prog;
	if (argc > 2 && (!strcmp(argv[2], "-h") || !strcmp(argv[2], "--help")))
		return command_help(c);
	argv[1] = prog;		/* getopt's own messages: "mmuscope import: ..." */
	/*
	 * SIGINT/SIGTERM (cli_catch_signals()) stop every SQLite call: a
	 * statement inside SQLite ends with MSC_ERR_INTERRUPTED, which the
	 * command says and fails with, its transaction rolled back.  Not for
	 * record and top: there the first signal ends the recording, and what
	 * follows (the last commit, the analysis) must run to its end; the
	 * second signal kills them, as every command.
	 */
	if (strcmp(c->name, "record") && strcmp(c->name, "top"))
		msc_store_set_interrupt(&cli_stop);
	r = c->run(argc - 1, argv + 1);
	/* a command that failed after SIGINT/SIGTERM was stopped: 128 + SIGINT, as import */
	return r == 1 && cli_stop ? 130 : r;
}
