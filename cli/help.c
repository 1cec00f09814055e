// SPDX-License-Identifier: GPL-2.0-only
/*
 * What `mmuscope CMD --help` and `mmuscope help CMD` print after the usage
 * line: every option of the command, what it does and its default.  One
 * string per command, kept beside the others so that they read alike;
 * synth's is its own (collector/cmd-synth.c: cmd_synth_usage).
 */
#include "cli/cli.h"

#define OUTPUT_HELP								\
	"  -f, --force          replace DB if it exists\n"			\
	"      --append         add a capture to DB (one transaction: all or nothing)\n" \
	"      --host K=V,...   facts the trace lacks, each K=V: vendor=npt|ept,\n"	\
	"                       release=X.Y.Z, nonpresent=SPTE, frozen=SPTE,\n"		\
	"                       role_access=3|4, ept_ad=y|n, tdp_mmu=y|n,\n"			\
	"                       ept_sw=0x600000000000000|0xa0000000000000 (EPT\n"	\
	"                       host-|MMU-writable bits: 6.x, 7.x)\n"

const char cli_help_import[] =
	"Store a trace-cmd trace.dat (read with libtracecmd) in a database, classify every\n"
	"SPTE change and analyze it.\n\n"
	"  TRACE, -i, --input TRACE  the trace [trace.dat]; a directory means DIR/trace.dat\n"
	"  -o, --output DB      the database [TRACE's name ending in .db, here: vm1.dat ->\n"
	"                       vm1.db; a trace.dat is named for its directory:\n"
	"                       k612-npt_tdp_32m/trace.dat -> k612-npt_tdp_32m.db]\n"
	OUTPUT_HELP
	"      --text           TRACE is a text event file (`mmuscope dump` lines)\n"
	"      --instance NAME  the trace-cmd instance buffer read (`record -B NAME`) [the\n"
	"                       top buffer, or the first instance with events; the others\n"
	"                       are named in warnings]\n"
	"      --no-analyze     store the events only; `mmuscope analyze DB` analyzes them\n"
	"  -q, --quiet          no summary (warnings still go to stderr)\n";

const char cli_help_record[] =
	"Record this host's KVM MMU events live from tracefs until Ctrl-C (or --duration):\n"
	"the ring buffers' pages wait in a spool on disk, and are decoded, stored and\n"
	"analyzed behind them.  Root only.\n\n"
	"  -o, --output DB        the database (required)\n"
	"  -p, --pid PID          only the threads of process PID (a VMM; new threads too)\n"
	"  -d, --duration S       stop after S seconds\n"
	"  -b, --buffer-kb KB     ring buffer per CPU [the kernel's]\n"
	"      --instance NAME    the tracefs instance recorded in [mmuscope]\n"
	"      --tracing-dir DIR  the tracefs mount [found by libtracefs]\n"
	"      --no-kprobes       add no kprobes (dirty-log steps and TLB flushes are then\n"
	"                         inferred from the SPTE changes)\n"
	"      --stats-ms MS      sample KVM's binary stats every MS ms on average (each\n"
	"                         interval drawn from MS/2 to 3MS/2); 0: never\n"
	"                         [100; 10 with --light]\n"
	"      --kvm-stats HOW    where KVM's counters come from: auto (the stats fds,\n"
	"                         VMs listed and faults summed by debugfs when it is\n"
	"                         there), stats-fd (no debugfs), debugfs [auto]\n"
	"      --light[=N]        light: the steps' ioctls, huge-page splits and KVM's\n"
	"                         counters only, no SPTE history; =N adds the SPTE\n"
	"                         changes and faults of 1 in N 2M cells (a kernel event\n"
	"                         filter, N a power of two; it costs at every change)\n"
	"      --commit-ms MS     commit the database every MS ms: how soon readers see\n"
	"                         events [250]\n"
	OUTPUT_HELP
	"      --trace-dat FILE   also write the capture as a trace.dat\n"
	"      --spool-dir DIR    where the raw pages wait [DB's directory]\n"
	"      --no-spool         decode straight from the ring buffers (a storm may\n"
	"                         overrun them; lost events are counted and marked)\n"
	"      --no-analyze       store the events only\n"
	"      --metrics-dir DIR  keep DIR/mmuscope.prom current (every 10 s and at the\n"
	"                         end): `mmuscope metrics` of the recording, written\n"
	"                         whole and renamed into place, for node_exporter's\n"
	"                         textfile collector (docs/FLEET.md)\n"
	"  -q, --quiet            no summary\n";

const char cli_help_analyze[] =
	"Rebuild the page-table history of every capture of DB (or one): mapping intervals,\n"
	"census, dirty-log phases, VMs, anomalies.  Incremental: only events not analyzed\n"
	"yet are read (import and record analyze as they store).\n\n"
	"  DB, -i, --input DB   the database\n"
	"  -c, --capture ID     only this capture [all]\n"
	"      --rebuild        drop the analysis and start over\n"
	"      --infer-only     ignore kprobe and patch events: phases by inference from\n"
	"                       the SPTE changes only (implies --rebuild)\n"
	"      --per-event      ask the phase detector about every event (no steady\n"
	"                       stretches): slower, the same tables; to check the analyzer\n"
	"  -q, --quiet          no summary\n";

const char cli_help_report[] =
	"Print what the analysis found, per phase: census before and after, what each phase\n"
	"cost, KVM's own counters beside the rebuilt census, coverage per region, anomalies.\n\n"
	"  DB, -i, --input DB   the database\n"
	"  -c, --capture ID     only this capture [all]\n"
	"      --brief          one screen of 80 columns for a mail: a block per cycle of\n"
	"                       dirty logging, the selftests' steps with the kernel's\n"
	"                       durations ('~': a bound from the work, not the kernel),\n"
	"                       huge pages split by size, TLB flushes, faults by outcome,\n"
	"                       the share of the dirty-logged memory mapped huge after,\n"
	"                       and the time to huge again after the disable\n"
	"      --json           the same as one JSON document, whatever the number of\n"
	"                       captures: {\"captures\": [{\"capture\": 1, ...}, ...]}\n"
	"      --selftest       dirty_log_perf_test's own step lines, from the trace\n"
	"      --svg DIR        also write the pictures (SVG) into DIR\n"
	"      --at MS,...      with --svg: memory maps at these times, ms since the\n"
	"                       capture's first event [before dirty logging first begins,\n"
	"                       after every dirty-log phase]; files map-NN-WHAT-Tms.svg\n"
	"      --from MS, --to MS  with --svg: the chart's window (and the maps' times\n"
	"                       chosen in it), ms since the capture's first event\n"
	"                       Each of these times may also be @TIME, in trace-cmd's\n"
	"                       clock as the report prints it: @9.256041 (seconds: a\n"
	"                       decimal point or an 's') or @9256041000 (ns: an integer)\n";

const char cli_help_diff[] =
	"Two captures of a workload side by side (two kernels, two patch versions), per\n"
	"step of the selftests' loop, as a cover letter puts them: \"Disabling dirty logging\n"
	"time: 45.7 s -> 1.4 s (0.03x)\", then what changed of the huge pages split by size,\n"
	"TLB flushes, faults by outcome, zaps, promotions, the share mapped huge after,\n"
	"and for the disable how the memory became huge again and when.  Steps pair by\n"
	"name within the VM of the same rank; those without a partner are listed.\n\n"
	"  A.db B.db            the two databases (the last capture of each)\n"
	"  -c, --capture ID     A's capture; given again, B's.  With one database, two\n"
	"                       -c name its two captures\n"
	"      --json           the same as JSON (-1: not known)\n";

const char cli_help_metrics[] =
	"The capture's per-VM metrics in Prometheus's text exposition format, for\n"
	"node_exporter's textfile collector (docs/FLEET.md): mapped bytes by page size,\n"
	"the huge share of the dirty-logged memory, the last duration of each dirty-log\n"
	"step, the time to huge again after a disable, splits, TLB flushes, lost events\n"
	"and anomalies, each labelled host, kernel and vm.\n\n"
	"  DB, -i, --input DB   the database, analyzed\n"
	"  -c, --capture ID     this capture [the last]\n"
	"      --host NAME      the host label [this machine's name]\n";

const char cli_help_dump[] =
	"Print the stored events, one stable text line each (what `import --text` reads).\n\n"
	"  DB, -i, --input DB   the database\n"
	"  -c, --capture ID     only this capture [all]\n"
	"  -F, --event NAME,... only events of these types (the lines' second word:\n"
	"                       spte_changed, page_fault, ...)\n"
	"      --gfn GFN        only events about that guest frame (hex): an SPTE whose\n"
	"                       entry maps it, a fault on it, ...\n"
	"      --cpu N          only events of CPU N\n"
	"      --pid PID        only events of task PID\n"
	"      --from T, --to T  only events at or after / at or before this time in\n"
	"                       trace-cmd's clock: seconds as trace-cmd report prints them\n"
	"                       (a decimal point or an 's': 9.256041, 9.256041s), or ns\n"
	"                       (an integer: 9256041000, the lines' first number)\n";

const char cli_help_view[] =
	"Browse a database in the terminal: coverage over time, the memory map, phases,\n"
	"GFN histories.  '?' lists the keys.  A database nobody analyzed is analyzed on the\n"
	"fly, into a temporary directory removed at exit.\n\n"
	"  DB, -i, --input DB   the database\n"
	"  -c, --capture ID     this capture [the last]\n"
	"      --no-color       no colours\n"
	"      --script FILE    read keys from FILE (tests), with --no-display: draw on a\n"
	"                       virtual $LINES x $COLUMNS screen, --screen-dir DIR: where\n"
	"                       :save-screen writes, --bench: print timings at the end\n";

const char cli_help_top[] =
	"Record this host live (as `record` does) and show it as it happens.  Root only.\n\n"
	"  -o, --output DB      keep the recording in DB [a temporary one, removed at exit]\n"
	"  -p, --pid, -d, --duration, --buffer-kb, --instance, --tracing-dir, --no-kprobes,\n"
	"  --stats-ms, --kvm-stats, --host, --spool-dir, --no-spool, --force: as for record\n"
	"  --no-color, --script, --no-display, --screen-dir, --bench: as for view\n";
