#!/bin/sh
# The include rules of docs/ARCHITECTURE.md: which files may see which library.
# Prints "ok"/"not ok" lines like the unit tests.
set -u
cd "$(dirname "$0")/.." || exit 1
n=0
fail=0
rule() { # rule DESC HEADER-REGEX ALLOWED-REGEX
	n=$((n + 1))
	bad=$(grep -lE "#include <$2" lib/*.c lib/*.h lib/*/*.c lib/*/*.h cli/*.c cli/*.h \
		collector/*.c analyzer/*.c tui/*.c include/mmuscope/*.h 2>/dev/null | grep -vE "$3" || true)
	if [ -z "$bad" ]; then
		echo "ok $n - layering: $1"
	else
		echo "not ok $n - layering: $1 (included by: $(echo $bad))"
		fail=1
	fi
}
rule "libtraceevent only in the decoder, sources and writers" 'traceevent/' '^lib/(decode|source[a-z-]*|synth/[a-z-]*|tracedat-write|ringbuf[a-z-]*)\.c$'
rule "libtracefs only in the live source" 'tracefs/' '^lib/source-tracefs[a-z-]*\.c$'
rule "libtracecmd only in the trace.dat reader and writer" 'trace-cmd/' '^lib/(source-tracedat|tracedat-write)\.c$'
rule "SQLite only in the store (and the analyzer's own SQL)" 'sqlite3\.h' '^lib/(store[a-z-]*|history/store[a-z-]*)\.(c|h)$'
rule "ncurses only in the TUI's display files" 'n?curses' '^tui/(display|draw|frame|jump|loop|input|view[a-z-]*)\.c$'
n=$((n + 1))
bad=$(grep -lE '#include "(cli|tui|collector|analyzer)/' lib/*.c lib/*.h lib/*/*.c lib/*/*.h \
	include/mmuscope/*.h 2>/dev/null || true)
if [ -z "$bad" ]; then echo "ok $n - layering: lib/ includes no program code"; else
	echo "not ok $n - layering: lib/ includes program code: $bad"; fail=1; fi
n=$((n + 1))
# the event store's own header is its own; other table owners share store-share.h
bad=$(grep -lE '#include "store-local\.h"' lib/*/*.c lib/*.h lib/*/*.h cli/*.c collector/*.c \
	analyzer/*.c tui/*.c 2>/dev/null | grep -v '^lib/store-share\.h$' || true)
if [ -z "$bad" ]; then echo "ok $n - layering: only the event store (lib/*.c) includes store-local.h"; else
	echo "not ok $n - layering: store-local.h included outside the event store: $bad"; fail=1; fi
n=$((n + 1))
# lib/history/'s floor headers, each on the one below it (local.h: the front,
# detect.h, counters.h, model.h, tables.h); the model's file on its own
# header (it takes struct hmodel, never the part), the tables' on none above
bad=$(for pair in local.h:detect.h detect.h:counters.h counters.h:model.h model.h:tables.h \
		  model.c:model.h; do
	f=lib/history/${pair%%:*}
	own=$(grep -oE '#include "[a-z]+\.h"' "$f" | tr '\n' ' ')
	[ "$own" = "#include \"${pair#*:}\" " ] || echo "$f: $own"
done; grep -lE '#include "(local|detect|counters|model)\.h"' lib/history/store*.c lib/history/names.c
grep -l 'struct msc_history\b' lib/history/model.[ch] lib/history/tables.h)
if [ -z "$bad" ]; then echo "ok $n - layering: lib/history/'s floor headers each include the one below, the model its own, the tables none above"; else
	echo "not ok $n - layering: lib/history/'s floors: $bad"; fail=1; fi
n=$((n + 1))
bad=$(grep -lE '\b(printf|fprintf|puts|exit|abort)\(' lib/*.c lib/*/*.c | grep -v '^lib/event\.c$' || true)
bad=$(for f in $bad; do grep -nE '^[^/*]*\b(printf|fprintf|puts|exit)\(' "$f" | grep -vE 'snprintf|vsnprintf' | sed "s|^|$f:|"; done)
if [ -z "$bad" ]; then echo "ok $n - layering: lib/ neither prints nor exits"; else
	echo "not ok $n - layering: lib/ prints or exits: $bad"; fail=1; fi
n=$((n + 1))
# It runs as root: no file name, nor anything else, ever reaches a shell.
bad=$(grep -nE '\b(system|popen|execl?p?e?)\(' lib/*.c lib/*/*.c cli/*.c collector/*.c \
	analyzer/*.c tui/*.c plugins/*.c 2>/dev/null | grep -vE '^[^:]+:[0-9]+:\s*(/?\*|//)' |
	grep -E '\b(system|popen)\(|"/bin/sh"|"sh"' || true)
if [ -z "$bad" ]; then echo "ok $n - no shell: system(), popen() or sh -c nowhere in the program"; else
	echo "not ok $n - no shell: $bad"; fail=1; fi

# --- the calls between files: scripts/arrows.py reads them from the objects ---
# (nm: a call to another file's function, or a read of its data, is an arrow)
BUILD=${MSC_BUILD:-build}
n=$((n + 1))
if ! command -v nm >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1 ||
   [ ! -f "$BUILD/lib/history/history.o" ]; then
	echo "ok $n - calls: # SKIP no objects in $BUILD (make first), or no nm/python3"
	exit $fail
fi
arrows=$(python3 scripts/arrows.py "$BUILD") || { echo "not ok $n - calls: arrows.py failed"; exit 1; }
# a newcomer reads a function on one screen or two
bad=$(printf '%s\n' "$arrows" | sed -n 's/^long //p')
if [ -z "$bad" ]; then echo "ok $n - no function over 100 lines"; else
	echo "not ok $n - functions over 100 lines: $bad"; fail=1; fi
# floors_down DIR: the folder's files call only down (docs/ARCHITECTURE.md): none reaches itself
floors_down() {
	n=$((n + 1))
	bad=$(printf '%s\n' "$arrows" | grep "^circle .* $1" || true)
	if [ -z "$bad" ]; then
		echo "ok $n - calls: no circle between the files of $1 ($(printf '%s\n' "$arrows" |
			grep -c "^arrow $1[^ ]* $1") arrows)"
	else
		echo "not ok $n - calls: circles in $1: $bad"; fail=1
	fi
}
floors_down lib/history/
floors_down tui/	# views are known above by their ops
# no circle of more than 3 files anywhere (issue 37)
n=$((n + 1))
bad=$(printf '%s\n' "$arrows" | awk '$1 == "circle" && $2 > 3')
if [ -z "$bad" ]; then
	echo "ok $n - calls: no circle of more than 3 files ($(printf '%s\n' "$arrows" |
		grep -c '^circle') of 2 or 3)"
else
	echo "not ok $n - calls: circles of more than 3 files: $bad"; fail=1
fi
exit $fail
