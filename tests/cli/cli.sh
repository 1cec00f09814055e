#!/bin/sh
# The command line every command shares, as trace-cmd's: -i or a positional
# input, ./trace.dat when none, a directory's trace.dat, a default database
# name; "mmuscope CMD:" on every message (getopt's too); a --help that
# explains every option, and `mmuscope help CMD`; --capture checked alike.
. "$(dirname "$0")/lib.sh"

src=$TRACES/k612-npt_tdp_32m
mkdir "$T/run"
cd "$T/run" || exit 1

check "import DIR: reads DIR/trace.dat" "$MSC" import -q "$src"
check_eq "... into ./DIR's name.db (a trace.dat is named for its directory), 0600" \
	"$(stat -c %a k612-npt_tdp_32m.db 2>/dev/null)" 600
check "import DIR/trace.dat of another capture directory: a database of its own" \
	"$MSC" import -q "$TRACES/k73-npt_tdp_32m/trace.dat"
check_eq "... k73-npt_tdp_32m.db, beside the first" "$(ls ./*.db | tr '\n' ' ')" \
	"./k612-npt_tdp_32m.db ./k73-npt_tdp_32m.db "
err=$("$MSC" import -q "$src/" 2>&1)
check_match "the same capture again: refused, offering -o, --append and --force" "$err" \
	'^mmuscope import: k612-npt_tdp_32m.db: database already exists \(-o DB writes another; --append adds this capture to it, --force replaces it\)$'
mv k612-npt_tdp_32m.db trace.db
rm k73-npt_tdp_32m.db
cp "$src/trace.dat" vm1.dat
check "import with no input: ./trace.dat (here vm1.dat via -i)" "$MSC" import -q -i vm1.dat
check_eq "... into vm1.db" "$(ls vm1.db 2>/dev/null)" vm1.db
mv vm1.dat trace.dat
rm trace.db
check "import with no argument reads ./trace.dat" "$MSC" import -q
check_eq "... into the name of the directory it is in" "$(ls run.db 2>/dev/null)" run.db
mv run.db trace.db
check_eq "the same events either way" "$("$MSC" dump trace.db | grep -v '^# capture' | cksum)" \
	"$("$MSC" dump -i vm1.db | grep -v '^# capture' | cksum)"
err=$("$MSC" import -q -i trace.dat other.dat -o x.db 2>&1)
check_match "two inputs: refused by name" "$err" '^mmuscope import: one trace only, not also other.dat$'
err=$("$MSC" import -q /nonexistent/trace.dat 2>&1)
check_match "a missing trace: one line naming it" "$err" '^mmuscope import: /nonexistent/trace.dat: '

# long_options FILE FUNCTION: the long options FUNCTION's table lists (its macros expanded)
long_options() {
	awk -v fn="$2" '
		/^#define (CLI_OUTPUT_OPTIONS|UI_LONGOPTS)/ { m = $2 }
		m && /\{ "[a-z-]+",/ { match($0, /"[a-z-]+"/); macro[m] = macro[m] " " substr($0, RSTART + 1, RLENGTH - 2) }
		m && !/\\$/ { m = "" }
		$0 ~ "^(static )?int " fn "\\(" { on = 1 }
		on && /\{ "[a-z-]+",/ { match($0, /"[a-z-]+"/); print substr($0, RSTART + 1, RLENGTH - 2) }
		on && /CLI_OUTPUT_OPTIONS|UI_LONGOPTS/ { want[$1] = 1 }
		on && /^}/ { on = 0 }
		END { for (k in want) { sub(/,$/, "", k); n = split(macro[k], a, " "); for (i = 1; i <= n; i++) print a[i] } }
	' "$TOP/cli/cli.h" "$TOP/tui/main.c" "$1" | sort -u
}
TOP=$MSC_TEST_DATA/../..
while read -r cmd file fn; do
	err=$("$MSC" "$cmd" --no-such-option 2>&1)
	check_match "$cmd: getopt's message names the program" "$err" "^mmuscope $cmd: (unrecognized|invalid) option"
	out=$("$MSC" "$cmd" --help)
	check_eq "$cmd: help CMD is --help" "$("$MSC" help "$cmd")" "$out"
	opts=$(long_options "$TOP/$file" "$fn")
	[ -n "$opts" ] || not_ok "$cmd: no options found in $file $fn"
	missing=
	for o in $opts; do
		printf '%s\n' "$out" | grep -q -- "--$o\b" || missing="$missing --$o"
	done
	check_eq "$cmd: --help explains every option" "${missing# }" ""
done <<'EOF'
import collector/cmd-import.c parse_args
record collector/cmd-record.c parse_args
analyze analyzer/cmd-analyze.c parse_args
report analyzer/cmd-report.c parse_args
dump collector/cmd-dump.c cmd_dump
diff analyzer/cmd-diff.c cmd_diff
view tui/main.c cmd_view
top tui/main.c parse_top
EOF
check_fails "help of no command fails" "$MSC" help nonesuch

for cmd in analyze report dump; do
	err=$("$MSC" $cmd -c 0 trace.db 2>&1)
	check_match "$cmd: --capture 0 is refused alike" "$err" \
		"^mmuscope $cmd: --capture 0: expected a capture id"
	err=$("$MSC" $cmd -c 9 trace.db 2>&1)
	check_match "$cmd: a capture the database lacks is said alike" "$err" \
		"^mmuscope $cmd: trace.db: no capture 9 \\(its captures are 1 to 1\\)$"
	err=$("$MSC" $cmd 2>&1)
	check_match "$cmd: no database: said so" "$err" "^mmuscope $cmd: need a database \\(or -i DB\\)$"
done
# view takes -c as the README says every command does (the TUI itself: tui.sh)
err=$("$MSC" view -c 0 trace.db 2>&1)
check_match "view: -c 0 is refused alike" "$err" "^mmuscope view: --capture 0: expected a capture id"
err=$("$MSC" view -c 9 trace.db 2>&1)
check_match "view: -c, a capture the database lacks is said alike" "$err" \
	"^mmuscope view: trace.db: no capture 9 \\(its captures are 1 to 1\\)$"
check "view -c 1: shows that capture" env MSC_TUI_NO_DISPLAY=1 LINES=24 COLUMNS=80 \
	"$MSC" view -c 1 trace.db --script /dev/null
err=$("$MSC" report trace.db --at 5 2>&1)
check_match "report --at without --svg is refused" "$err" "^mmuscope report: --at 5: .*--svg DIR"

# dump's filters keep what the same test on every line of a full dump keeps
"$MSC" dump trace.db | grep -v '^#' >all.txt
lo=$(awk 'NR == 1000 { print $1 }' all.txt)
hi=$(awk 'NR == 30000 { print $1 }' all.txt)
check_eq "dump -F EVENT,EVENT --cpu --from --to: the lines of the full dump that match" \
	"$("$MSC" dump -F spte_changed,marker --cpu 1 --from "$lo" --to "$hi" trace.db | grep -v '^#' | cksum)" \
	"$(awk -v lo="$lo" -v hi="$hi" '($4 == "spte_changed" || $4 == "marker") && $2 == 1 &&
		$1 >= lo && $1 <= hi' all.txt | cksum)"
# one time base: trace-cmd's seconds as report prints them, or ns; the same events either way
secs() { awk -v t="$1" 'BEGIN { printf "%d.%06d", t / 1000000000, t % 1000000000 / 1000 }'; }
lo_s=$(secs "$lo")
hi_s=$(secs "$hi")
check_eq "dump --from/--to in seconds (as report prints them): the events from that microsecond" \
	"$("$MSC" dump --from "$lo_s" --to "${hi_s}s" trace.db | grep -v '^#' | cksum)" \
	"$(awk -v lo="$lo" -v hi="$hi" '$1 >= int(lo / 1000) * 1000 && $1 <= int(hi / 1000) * 1000' all.txt |
		cksum)"
first=$("$MSC" report trace.db | sed -nE 's/^first event at ([0-9.]+) s .*/\1/p')
check_eq "dump --from the first event's time as report prints it: the first event on" \
	"$("$MSC" dump --from "$first" trace.db | grep -vc '^#')" "$(grep -vc '^#' all.txt)"
check_match "dump --from junk: refused, saying both forms" "$("$MSC" dump --from 9.2.1 trace.db 2>&1)" \
	"^mmuscope dump: --from 9.2.1: expected a time in trace-cmd's clock: seconds .* or ns "
check_match "dump --to finer than a nanosecond: refused" "$("$MSC" dump --to 9.1234567891 trace.db 2>&1)" \
	"^mmuscope dump: --to 9.1234567891: expected a time"
pid=$(awk 'NR == 5000 { print $3 }' all.txt)
check_eq "dump --pid: that task's lines" "$("$MSC" dump --pid "$pid" trace.db | grep -v '^#' | cksum)" \
	"$(awk -v p="$pid" '$3 == p' all.txt | cksum)"
# --gfn: every event whose fields name a frame range holding it (gfn + level, or gpa)
check_eq "dump --gfn: the events about that frame, as the full dump's fields say" \
	"$("$MSC" dump --gfn 0x40200 trace.db | grep -v '^#' | cksum)" \
	"$(python3 -c '
import sys
for line in open(sys.argv[1]):
    f = dict(w.split("=", 1) for w in line.split()[4:] if "=" in w)
    if "gfn" in f:
        g, n = int(f["gfn"], 16), 512 ** (int(f.get("level", 1)) - 1)
    elif "gpa" in f:
        g, n = int(f["gpa"], 16) >> 12, 1
    else:
        continue
    if g <= 0x40200 < g + n:
        print(line, end="")' all.txt | cksum)"
check "... and it finds some" sh -c "'$MSC' dump --gfn 40200 trace.db | grep -q spte_changed"
check_match "dump --gfn junk: refused" "$("$MSC" dump --gfn xyz trace.db 2>&1)" \
	'^mmuscope dump: --gfn xyz: expected a guest frame number \(hex\)$'
check_match "dump -F: a name that is no event type is refused by name" \
	"$("$MSC" dump -F spte_change trace.db 2>&1)" "^mmuscope dump: --event spte_change: not an event type"

# a long import on a terminal says how far it got; not with -q, not into a
# pipe.  The input comes slowly, whatever the machine's speed: a text trace
# through a FIFO that stops for 2 s, past the first second a progress line
# waits for, after its first 10,000 lines.
"$MSC" dump trace.db >slow.txt
paced() {
	rm -f slow.fifo
	mkfifo -m 600 slow.fifo
	# (bounded: a writer whose reader never came would wait for ever)
	timeout 60 sh -c 'exec >slow.fifo; head -n 10000 slow.txt; sleep 2
		tail -n +10001 slow.txt' &
}
tty() { script -qec "$*" /dev/null </dev/null; }
paced
out=$(tty "'$MSC' import --text slow.fifo -o big1.db" | tr '\r' '\n' | sed 's/\x1b\[K//g')
check_match "import on a terminal: a progress line" "$out" \
	'^mmuscope import: slow.fifo: [0-9,]+ events in [0-9]+ s \([0-9.]+ M events/s\)'
paced
check_eq "... and not with -q" \
	"$(tty "'$MSC' import -q --text slow.fifo -o big2.db" | tr '\r' '\n' | grep -c 'events in')" 0
paced
check_eq "... nor into a pipe (not even an erase)" \
	"$("$MSC" import --text slow.fifo -o big3.db 2>&1 | grep -c "M events/s)\|$(printf '\033')")" 0
paced
check_eq "... nor with -q into a pipe" "$("$MSC" import -q --text slow.fifo -o big4.db 2>&1)" ""
wait
rm -f slow.txt slow.fifo big1.db big2.db big3.db big4.db

# --infer-only starts over: the phases are inferred even where analyzed before
"$MSC" import -q "$TRACES/k612msc-npt_tdp_32m" -o msc.db
check_eq "the patch's tracepoints give phases" \
	"$(sqlite3 msc.db "SELECT count(*) > 0 FROM phase WHERE source = 'tracepoint'")" 1
"$MSC" analyze -q --infer-only msc.db
check_eq "analyze --infer-only redoes an analyzed capture" \
	"$(sqlite3 msc.db "SELECT count(*) FROM phase WHERE source = 'tracepoint'")" 0
cd "$OLDPWD" || exit 1
done_testing
