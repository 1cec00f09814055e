#!/bin/sh
# `make bench`: mmuscope against the tools and limits it must beat, on
# synthetic traces of the seed's scale, all in one run.
#
#   bench/run.sh [quick|huge|seed|all]   (default: all; BENCH= in make)
#
# For each scenario it writes a trace.dat and a fake tracing directory with
# `mmuscope synth`, then measures, each with /usr/bin/time (wall seconds,
# CPU seconds of the process and its children, peak RSS):
#   trace-cmd report  vs  mmuscope import (analysis included), on the
#   zstd-compressed trace.dat and on an uncompressed copy
#   mmuscope analyze --rebuild (the analyzer replaying the stored events)
#   mmuscope report
#   mmuscope record --tracing-dir: its drain's time to move every page into
#   the spool  vs  a plain read() of the pages; and when the recording ended
#   mmuscope view --script (first screen, scrub step), once it exists
#   database bytes per event
# and, under callgrind, the instructions per event of each tool: the
# difference between a 64 MiB and a 192 MiB run of the same scenario over
# the difference in events, so start-up costs cancel.  Wall times on this
# shared machine move by up to 2x between runs; instruction counts do not.
# A 1 TiB guest is projected from the per-event costs.
#
# Results are printed and written into BENCHMARKS.md between the
# "bench:begin" and "bench:end" lines.  Nothing here asserts a time.
set -eu
cd "$(dirname "$0")/.."
WHAT=${1:-all}
MSC=${MSC:-$PWD/build/mmuscope}
READPAGES=${READPAGES:-$PWD/build/bench/readpages}
W=${BENCH_DIR:-$PWD/build/bench/work}
RESULTS=$W/results.md
export LC_ALL=C
rm -rf "$W"
mkdir -p "$W"
: >"$RESULTS"

say() { printf '%s\n' "$*" | tee -a "$RESULTS"; }

# measure NAME CMD...: run, keep "<seconds> <peak KB> <user s> <system s>" in
# $W/NAME.time (CPU time counts the children waited for: import's reader)
measure() {
	name=$1
	shift
	/usr/bin/time -f '%e %M %U %S' -o "$W/$name.time" "$@" >"$W/$name.out" 2>"$W/$name.err" || {
		echo "bench: $name failed: $*" >&2
		tail -3 "$W/$name.err" >&2
		echo "- - - -" >"$W/$name.time"
	}
}
# measure_anon NAME CMD...: measure, and keep in $W/NAME.anon the peak
# anonymous memory (RssAnon, MiB, sampled every 50 ms) of the mmuscope
# process: its RSS also counts the trace pages libtracecmd maps from the file
measure_anon() {
	name=$1
	measure "$@" &
	job=$!
	peak=0
	while kill -0 "$job" 2>/dev/null; do
		for pid in $(pgrep -x mmuscope); do
			kb=$(awk '/^RssAnon:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
			[ "${kb:-0}" -le "$peak" ] || peak=$kb
		done
		sleep 0.05
	done
	wait "$job" || true
	echo $(( peak / 1024 )) >"$W/$name.anon"
}
secs() { cut -d' ' -f1 "$W/$1.time"; }
cpu() { awk '{ if ($3 == "-") print "-"; else printf "%.2f", $3 + $4 }' "$W/$1.time"; }
peak_mb() { awk '{ printf "%.0f", $2 / 1024 }' "$W/$1.time"; }

# ratio A B: A / B with one decimal, "-" when either is missing
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.1f", a / b; else print "-" }'; }
# rate N SECONDS: events per second, in millions
rate() { awk -v n="$1" -v s="$2" 'BEGIN { if (s + 0 > 0) printf "%.2f", n / s / 1e6; else print "-" }'; }
# 1234567 -> 1,234,567
group() { printf '%s\n' "$1" | sed -e ':a' -e 's/\B[0-9]\{3\}\>/,&/' -e 'ta'; }
# events in a synth summary
synth_events() { sed -nE 's/^synth: ([0-9,]+) events.*/\1/p' "$W/$1.out" | tr -d ,; }

have_view() { "$MSC" view --help 2>/dev/null | grep -q -- '--bench'; }

# ---- wall time and memory at scale
scenario() { # NAME GUEST-GIB SYNTH-ARGS...: every 4K page of the guest mapped at the peak
	s=$1
	pages=$(( $2 * 262144 + 1 ))
	shift 2
	echo "bench: scenario $s: mmuscope synth $*" >&2
	measure "$s.synth" "$MSC" synth -o "$W/$s.dat" --tracing-dir "$W/$s.dir" \
		--instance mmuscope --kprobes off --guest-gib "$(( (pages - 1) / 262144 ))" "$@"
	n=$(synth_events "$s.synth")
	echo "bench: $s: $n events" >&2
	measure "$s.report" sh -c "trace-cmd report -N -i '$W/$s.dat' >/dev/null"
	measure_anon "$s.import" "$MSC" import -q "$W/$s.dat" -o "$W/$s.db"
	# the same events uncompressed: libtracecmd's zstd reading slows down
	# with the file's size (it costs trace-cmd report most), so both tools
	# are also timed on a file without compression
	"$MSC" synth -q -o "$W/$s.raw.dat" --compression none --kprobes off \
		--guest-gib "$(( (pages - 1) / 262144 ))" "$@"
	measure "$s.rawreport" sh -c "trace-cmd report -N -i '$W/$s.raw.dat' >/dev/null"
	measure "$s.rawimport" "$MSC" import -q "$W/$s.raw.dat" -o "$W/$s.raw.db"
	rm -f "$W/$s.raw.dat" "$W/$s.raw.db"
	measure "$s.analyze" "$MSC" analyze -q --rebuild "$W/$s.db"
	measure "$s.summary" sh -c "'$MSC' report '$W/$s.db' >/dev/null"
	measure "$s.read" "$READPAGES" "$W/$s.dir/instances/mmuscope"
	# the summary says when the drain had moved every page to the spool
	measure "$s.record" "$MSC" record --tracing-dir "$W/$s.dir" --instance mmuscope \
		-o "$W/$s.live.db"
	tdrain=$(sed -nE 's/.*ring buffers drained in ([0-9.]+) s.*/\1/p' "$W/$s.record.out")
	dbsize=$(stat -c %s "$W/$s.db" 2>/dev/null || echo 0)
	tui_first=- tui_step=-
	if have_view; then
		# 100 steps forward in time on the overview, then 100 on the memory map
		awk 'BEGIN { for (v = 1; v <= 2; v++) { print v; for (i = 0; i < 100; i++) print "<Right>" } }' \
			>"$W/tui.keys"
		measure "$s.tui" "$MSC" view "$W/$s.db" --script "$W/tui.keys" --no-display --bench
		tui_first=$(sed -nE 's/^bench: first screen ([0-9.]+) ms.*/\1/p' "$W/$s.tui.out")
		tui_step=$(sed -nE 's/^bench: time-forward on ([a-z]+): [0-9]+ steps, median ([0-9.]+) ms, max ([0-9.]+) ms.*/\1:\2\/\3/p' \
			"$W/$s.tui.out" | paste -sd, -)
		: "${tui_first:=-}" "${tui_step:=-}"
	fi
	cat >>"$W/scenarios" <<EOF
$s $n $pages $(secs "$s.synth") $(secs "$s.report") $(secs "$s.import") $(secs "$s.analyze") $(secs "$s.summary") $(secs "$s.read") $(secs "$s.record") $dbsize $(peak_mb "$s.import") $(peak_mb "$s.analyze") $(peak_mb "$s.record") $(peak_mb "$s.report") $(peak_mb "$s.synth") $tui_first $tui_step $(secs "$s.rawreport") $(secs "$s.rawimport") $(cat "$W/$s.import.anon") $(cpu "$s.report") $(cpu "$s.import") $(cpu "$s.rawreport") $(cpu "$s.rawimport") $(cpu "$s.analyze") ${tdrain:--}
EOF
	# the big files go; their numbers are kept
	[ "${BENCH_KEEP:-0}" = 1 ] || rm -rf "$W/$s.dat" "$W/$s.dir" "$W/$s.db" "$W/$s.live.db" \
		"$W/$s.db-wal" "$W/$s.db-shm"
}

# ---- instructions per event, under callgrind
IR_TOOLS="report import analyze analyze-main record read synth"
ir() { # NAME CMD...: instructions of CMD into $W/NAME.ir
	name=$1
	shift
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" \
		>/dev/null 2>"$W/$name.cg" || true
	# every process of the run: import and analyze read a trace.dat in a child
	sed -nE 's/.*I +refs: +([0-9,]+).*/\1/p' "$W/$name.cg" | tr -d , |
		awk '{ s += $1 } END { if (NR) print s }' >"$W/$name.ir"
}
ir_main() { # NAME CMD...: instructions of CMD's main thread into $W/NAME.ir
	name=$1
	shift
	rm -rf "$W/$name.threads"
	mkdir -p "$W/$name.threads"
	valgrind --tool=callgrind --separate-threads=yes \
		--callgrind-out-file="$W/$name.threads/cg" "$@" >/dev/null 2>&1 || true
	# thread 1 is the process's first: the one that waits for nobody
	sed -nE 's/^summary: ([0-9]+)/\1/p' "$W/$name.threads/cg-01" >"$W/$name.ir" 2>/dev/null || true
	rm -rf "$W/$name.threads"
}
callgrind_pair() {
	for mib in 64 192; do
		p=cg$mib
		echo "bench: callgrind, $mib MiB guest" >&2
		"$MSC" synth -o "$W/$p.dat" --tracing-dir "$W/$p.dir" --instance mmuscope \
			--kprobes off --guest-mib $mib --passes 2 >"$W/$p.synth.out"
		synth_events "$p.synth" >"$W/$p.events"
		ir "$p.report" trace-cmd report -N -i "$W/$p.dat"
		ir "$p.import" "$MSC" import -q "$W/$p.dat" -o "$W/$p.db"
		ir "$p.analyze" "$MSC" analyze -q --rebuild "$W/$p.db"
		ir_main "$p.analyze-main" "$MSC" analyze -q --rebuild "$W/$p.db"
		ir "$p.record" "$MSC" record -q --tracing-dir "$W/$p.dir" --instance mmuscope \
			-o "$W/$p.live.db"
		ir "$p.read" "$READPAGES" "$W/$p.dir/instances/mmuscope"
		ir "$p.synth" "$MSC" synth -q -o "$W/$p.again.dat" --kprobes off --guest-mib $mib \
			--passes 2
	done
}
per_event() { # TOOL: marginal instructions per event
	awk -v a="$(cat "$W/cg64.$1.ir")" -v b="$(cat "$W/cg192.$1.ir")" \
	    -v n="$(cat "$W/cg64.events")" -v m="$(cat "$W/cg192.events")" \
	    'BEGIN { if (a != "" && b != "" && m > n) printf "%.0f", (b - a) / (m - n); else print "-" }'
}

# A ring-buffer burst (tests/cli/record-fake.sh's): pages come at 20,000 a
# second per CPU into rings of 256 whether read or not.  How many the rings
# drop depends on the machine, so it is measured here, not asserted in make
# check: through the spool, and by the decoding loop itself (--no-spool).
burst_drops() {
	: >"$W/burst"
	for how in spool direct; do
		rm -rf "$W/burst.dir" "$W/burst.db" "$W/burst.spool"
		mkdir -p "$W/burst.spool"
		"$MSC" synth --tracing-dir "$W/burst.dir" --instance mmuscope --fifo \
			--page-rate 20000 --ring-pages 256 --guest-mib 512 --passes 2 --seed 7 \
			>"$W/burst.synth" 2>&1 &
		pid=$!
		while [ ! -p "$W/burst.dir/instances/mmuscope/per_cpu/cpu0/trace_pipe_raw" ]; do
			sleep 0.1
		done
		if [ $how = spool ]; then opt="--spool-dir $W/burst.spool"; else opt=--no-spool; fi
		# shellcheck disable=SC2086
		"$MSC" record -q --tracing-dir "$W/burst.dir" -o "$W/burst.db" $opt >/dev/null 2>&1
		wait $pid
		pages=$(sed -nE 's/.* ([0-9]+) pages overwritten unread/\1/p' "$W/burst.synth")
		echo "$how ${pages:--}" >>"$W/burst"
	done
	rm -rf "$W/burst.dir" "$W/burst.db" "$W/burst.spool"
}

case $WHAT in
quick) RUN="quick" ;;
huge) RUN="huge" ;;
seed) RUN="seed" ;;
all) RUN="quick huge seed" ;;
*) echo "usage: bench/run.sh [quick|huge|seed|all]" >&2; exit 2 ;;
esac
: >"$W/scenarios"
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for s in $RUN; do
	case $s in
	quick) scenario quick 4 --passes 1 ;;
	huge) scenario huge 24 --backing 1g --passes 1 ;;
	seed) scenario seed 96 --backing 1g --vcpus 96 --stop-after enable_dirty_logging ;;
	esac
done
callgrind_pair
burst_drops
load1=$(cut -d' ' -f1-3 /proc/loadavg)

# ---- the tables
cpu=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)
mem=$(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
say "Measured $(date -u '+%Y-%m-%d %H:%M UTC') by \`make bench\` (bench/run.sh $WHAT) at commit $commit"
say "on $(uname -sr), $cpu, $(nproc) CPUs, $mem; $(trace-cmd -v 2>&1 | grep -m1 'trace-cmd version' | sed 's/ (.*//'), $(valgrind --version)."
say "Load average (1, 5, 15 min) at the start: $load0, at the end: $load1 (2 CPUs: above 1, other work shared the machine and wall times stretch; instruction counts do not)."
say "Every figure below is what this run measured; rerun \`make bench\` after a change."
say ""
say "Scenarios (\`mmuscope synth\`, kernel 6.12 NPT, kprobes off):"
say "quick = \`--guest-gib 4 --passes 1\` (THP, 1 vCPU, the whole dirty-logging cycle);"
say "huge = \`--guest-gib 24 --backing 1g --passes 1\` (1 GiB pages: the whole cycle, storms of 6 M write-protections);"
say "seed = \`--guest-gib 96 --backing 1g --vcpus 96 --stop-after enable_dirty_logging\`"
say "(the seed's VM: populate, then eager splitting of 96 1 GiB pages and write-protection of 25 M 4K SPTEs)."
say ""
say "### Wall time, side by side (ratios first, absolute figures beside them)"
say ""
say "| scenario | events | import speed-up over \`trace-cmd report\` (target >= 3x) | the same, both on an uncompressed copy | analyzer replay (target 10 M ev/s) | live drain (pages to the spool) over plain read(); the recording's end | \`mmuscope report\` (target < 2 s) | TUI first screen / scrub step, view:median/max (< 1 s / < 50 ms) | DB bytes/event |"
say "|---|---:|---|---|---|---|---|---|---:|"
while read -r s n pages tsynth treport timport tanalyze tsummary tread trecord dbsize mimport manalyze mrecord mreport msynth tfirst tstep trawreport trawimport aimport creport cimport crawreport crawimport canalyze tdrain; do
	say "| $s | $(group "$n") | $(ratio "$treport" "$timport")x: $timport s vs $treport s ($(rate "$n" "$timport") vs $(rate "$n" "$treport") M ev/s) | $(ratio "$trawreport" "$trawimport")x: $trawimport s vs $trawreport s | $(rate "$n" "$tanalyze") M ev/s ($tanalyze s) | $(ratio "$tdrain" "$tread")x: $tdrain s vs $tread s ($(rate "$n" "$tdrain") vs $(rate "$n" "$tread") M ev/s); stored and analysed after $trecord s | $tsummary s | $tfirst ms / $tstep ms | $(awk -v b="$dbsize" -v n="$n" 'BEGIN { printf "%.1f", b / n }') |"
done <"$W/scenarios"
say ""
say "A ring-buffer burst (20,000 pages/s per CPU into 256-page rings, synth's 512 MiB run, as tests/cli/record-fake.sh): pages dropped unread $(awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), ($1 == "spool" ? "through the spool" : "without it (--no-spool)"), $2 }' "$W/burst") (target 0 through the spool; every drop is marked either way, which make check asserts)."
say ""
say "### CPU time, side by side (user + system seconds, the reader child included)"
say ""
say "| scenario | import CPU over \`trace-cmd report -N\` CPU (target >= 3x) | the same, both on an uncompressed copy | analyzer replay CPU |"
say "|---|---|---|---|"
while read -r s n pages tsynth treport timport tanalyze tsummary tread trecord dbsize mimport manalyze mrecord mreport msynth tfirst tstep trawreport trawimport aimport creport cimport crawreport crawimport canalyze tdrain; do
	say "| $s | $(ratio "$creport" "$cimport")x: $cimport s vs $creport s | $(ratio "$crawreport" "$crawimport")x: $crawimport s vs $crawreport s | $canalyze s ($(rate "$n" "$canalyze") M ev/s) |"
done <"$W/scenarios"
say ""
say "Peak memory (RSS, MiB) and the generator; import's RSS also counts the pages of the trace file that libtracecmd maps (file-backed, reclaimable), so its anonymous peak (RssAnon, sampled) is given beside it:"
say ""
say "| scenario | import (anonymous) | analyze | record | trace-cmd report | synth (time) | mapped 4K pages at the peak | analyze bytes per 4K page (target 16) |"
say "|---|---:|---:|---:|---:|---|---:|---:|"
while read -r s n pages tsynth treport timport tanalyze tsummary tread trecord dbsize mimport manalyze mrecord mreport msynth tfirst tstep trawreport trawimport aimport creport cimport crawreport crawimport canalyze tdrain; do
	say "| $s | $mimport ($aimport) | $manalyze | $mrecord | $mreport | $msynth MiB ($tsynth s, $(rate "$n" "$tsynth") M ev/s) | $(group "$pages") | $(awk -v m="$manalyze" -v p="$pages" 'BEGIN { printf "%.1f", m * 1048576 / p }') |"
done <"$W/scenarios"
say ""
say "### Instructions per event (callgrind; 64 MiB vs 192 MiB guest, \`--passes 2\`, $(cat "$W/cg64.events") and $(cat "$W/cg192.events") events)"
say ""
say "| tool | instructions/event | ratio to \`trace-cmd report\` |"
say "|---|---:|---:|"
rep=$(per_event report)
for t in $IR_TOOLS; do
	case $t in
	report) label="\`trace-cmd report\`" ;;
	import) label="\`mmuscope import\` (analysis included)" ;;
	analyze) label="\`mmuscope analyze --rebuild\` (replay)" ;;
	analyze-main) label="the same, its main thread alone (the analysis: the events are read on a second)" ;;
	record) label="\`mmuscope record --tracing-dir\` (live drain)" ;;
	read) label="plain read() of the same pages (user space only: the copy is kernel time)" ;;
	synth) label="\`mmuscope synth\` (model + pages + trace.dat)" ;;
	esac
	v=$(per_event "$t")
	say "| $label | $v | $(ratio "$v" "$rep") |"
done
say ""
if grep -q '^seed ' "$W/scenarios"; then
	set -- $(grep '^seed ' "$W/scenarios")
	n=$2
	shift	# now 1 events, 2 pages, 3 synth s, 4 report s, 5 import s, 6 analyze s,
		# 7 report s, 8 read s, 9 record s, 10 DB bytes, 11 import MiB, 12 analyze MiB

	# 1 TiB: the seed scenario scales with the guest (per GiB: 1 split of a 1 GiB
	# page, 512 of 2 MiB pages, 262,144 write-protections), so events x 1024/96
	n1t=$(awk -v n="$n" 'BEGIN { printf "%.0f", n * 1024 / 96 }')
	say "### 1 TiB guest, projected from the seed run's per-event costs ($(group "$n1t") events)"
	say ""
	say "| | projected |"
	say "|---|---|"
	say "| \`trace-cmd report\` | $(awk -v t="$4" -v n="$n" -v m="$n1t" 'BEGIN { printf "%.0f s", t / n * m }') |"
	say "| \`mmuscope import\` | $(awk -v t="$5" -v n="$n" -v m="$n1t" 'BEGIN { printf "%.0f s", t / n * m }') |"
	say "| \`mmuscope analyze\` | $(awk -v t="$6" -v n="$n" -v m="$n1t" 'BEGIN { printf "%.0f s", t / n * m }') |"
	say "| \`mmuscope record\` drain to the spool | $(awk -v t="${26}" -v n="$n" -v m="$n1t" 'BEGIN { if (t + 0 > 0) printf "%.0f s", t / n * m; else print "-" }') |"
	say "| \`mmuscope record\` stored and analysed | $(awk -v t="$9" -v n="$n" -v m="$n1t" 'BEGIN { printf "%.0f s", t / n * m }') |"
	say "| database | $(awk -v b="${10}" -v n="$n" -v m="$n1t" 'BEGIN { printf "%.1f GB", b / n * m / 1e9 }') |"
	say "| analyzer memory | $(awk -v r="${12}" 'BEGIN { printf "%.1f GiB", r * 1024 / 96 / 1024 }') (RSS scaled with the guest) |"
	say ""
fi

# ---- into BENCHMARKS.md
if [ -f BENCHMARKS.md ] && grep -q '^<!-- bench:begin -->' BENCHMARKS.md; then
	awk -v results="$RESULTS" '
		/^<!-- bench:begin -->/ { print; while ((getline line < results) > 0) print line; skip = 1; next }
		/^<!-- bench:end -->/ { skip = 0 }
		!skip' BENCHMARKS.md >"$W/BENCHMARKS.md"
	cp "$W/BENCHMARKS.md" BENCHMARKS.md
	echo "bench: results written to BENCHMARKS.md" >&2
fi
