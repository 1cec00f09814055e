#!/bin/sh
# Ctrl-C (SIGINT to the whole process group, the reader and the child
# copying a large compressed file too) or SIGTERM during an import, at any
# moment: always one line saying it was interrupted, exit 130, no database
# and no uncompressed copy left in $TMPDIR (issue 33: exit 1, "corrupt
# trace data: libtracecmd died reading it (Interrupt)", a 76 MB copy left).
. "$(dirname "$0")/lib.sh"

big=$TRACES/k73-npt_tdp_1g_hugetlb/trace.dat	# zstd, 11 MB: read from a copy
mkdir "$T/tmp"
for c in INT:0.05 INT:0.15 INT:0.4 INT:0.8 INT:1.5 TERM:0.1 TERM:0.8; do
	sig=${c%%:*}
	rm -f "$T/i.db"
	TMPDIR=$T/tmp setsid "$MSC" import -q "$big" -o "$T/i.db" >/dev/null 2>"$T/err" &
	pid=$!
	sleep "${c#*:}"
	env kill -"$sig" -- -"$pid" 2>/dev/null	# a process group: dash's kill takes none
	wait "$pid"
	rc=$?
	if [ "$rc" = 0 ]; then
		diag "$c: the import ended before the signal"
		continue
	fi
	check_eq "SIG$sig after ${c#*:} s: exit 130" "$rc" 130
	check_match "... one line: interrupted" "$(cat "$T/err")" \
		"^mmuscope import: $big: interrupted; no database written$"
	check_eq "... no database, no copy in \$TMPDIR" "$(ls -A "$T/tmp"; ls -d "$T"/i.db* 2>/dev/null)" ""
done
done_testing
