#!/bin/sh
# mmuscope synth: the fake tracing directory (layout, raw pages, FIFOs,
# trickle), trace.dat in every file version read back by `trace-cmd report`
# and by the importer, lost events, a real capture re-encoded event for
# event (--from-events), the EPT layout, 6.13's in-place recovery and
# 7.3's formats, special values and removal order.
. "$(dirname "$0")/lib.sh"
MSC_FORMATS_DIR=$MSC_TEST_DATA/formats
# under make asan: the libraries' own leaks (see tests/unit/t-synth.c), and
# libtracecmd's sscanf("%m...") buffer when it reads a version-6 file
printf 'leak:tracecmd_output_set_kallsyms\nleak:tep_parse_event\nleak:__isoc99_vsscanf\n' \
	>"$T/lsan.supp"
LSAN_OPTIONS=suppressions=$T/lsan.supp
export MSC_FORMATS_DIR LSAN_OPTIONS

FORMATS=$MSC_TEST_DATA/formats

# "name count" per event as `trace-cmd report` prints them
report_counts() {
	trace-cmd report -N -i "$1" 2>/dev/null |
		sed -nE 's/^.*\[[0-9]+\] +[0-9]+\.[0-9]+: ([^: ]+):.*$/\1/p' |
		sort | uniq -c | awk '{print $2, $1}'
}

db() { sqlite3 "$1" "$2" 2>&1; }

out=$("$MSC" synth --help)
check_match "--help describes the directory's raw pages" "$out" 'per_cpu/cpuN/.*trace_pipe_raw'
check_match "--help describes the instance" "$out" 'instances/NAME'
check_fails "refuses PML on AMD" "$MSC" synth --pml on -o "$T/x.dat"
check_match "... saying why" "$("$MSC" synth --pml on -o "$T/x.dat" 2>&1)" 'only with --vendor ept'
check_fails "refuses to run without an output" "$MSC" synth --guest-mib 16
check_fails "refuses a 1g guest that is not whole GiB" "$MSC" synth --backing 1g --guest-mib 1536 -o "$T/x.dat"
check_fails "refuses an unknown kernel" "$MSC" synth --kernel 5.4 -o "$T/x.dat"
[ ! -e "$T/x.dat" ] && ok "nothing written on refusal" || not_ok "nothing written on refusal"

# ---- the fake tracing directory
D=$T/tracing
check "writes a tracing directory with an instance" \
	"$MSC" synth -q --guest-mib 16 --passes 2 --tracing-dir "$D" --instance mmuscope
I=$D/instances/mmuscope
for f in events/header_page events/header_event tracing_on trace_clock buffer_size_kb \
	trace_marker events/kvmmmu/enable events/kvmmmu/kvm_tdp_mmu_spte_changed/format \
	per_cpu/cpu1/trace_pipe_raw; do
	[ -e "$D/$f" ] && [ -e "$I/$f" ] || { not_ok "top level and instance have $f"; continue; }
	ok "top level and instance have $f"
done
for f in saved_cmdlines printk_formats kallsyms; do
	[ -e "$D/$f" ] && ok "top level has $f" || not_ok "top level has $f"
done
check "formats are copies of the real 6.12 files" \
	cmp "$D/events/kvmmmu/kvm_tdp_mmu_spte_changed/format" \
	"$FORMATS/6.12/events/kvmmmu/kvm_tdp_mmu_spte_changed/format"
check_eq "each event's id file holds its format's ID" \
	"$(cat "$I/events/kvmmmu/fast_page_fault/id")" \
	"$(sed -n 's/^ID: //p' "$FORMATS/6.12/events/kvmmmu/fast_page_fault/format")"
check_match "saved_cmdlines names the vCPU thread" "$(cat "$D/saved_cmdlines")" '^1001 CPU 0/KVM$'
check_match "trace_clock selects local" "$(cat "$D/trace_clock")" '^\[local\] global'
size0=$(stat -c %s "$I/per_cpu/cpu0/trace_pipe_raw")
size1=$(stat -c %s "$I/per_cpu/cpu1/trace_pipe_raw")
check_eq "the instance's buffers hold whole 4096-byte pages" \
	"$((size0 % 4096)) $((size1 % 4096)) $((size0 > 0)) $((size1 > 0))" "0 0 1 1"
check_eq "the top-level buffers stay empty" \
	"$(stat -c %s "$D/per_cpu/cpu0/trace_pipe_raw")" 0
check_eq "raw buffers are mode 0600" "$(stat -c %a "$I/per_cpu/cpu0/trace_pipe_raw")" 600

# ---- trace.dat, every version, read by trace-cmd and by the importer
for v in "6 none" "7 none" "7 zstd"; do
	set -- $v
	dat=$T/s$1$2.dat
	out=$("$MSC" synth --guest-mib 32 --passes 2 -o "$dat" --file-version "$1" \
		--compression "$2")
	check "trace.dat version $1 $2: written" test -s "$dat"
	n=$(printf '%s\n' "$out" | sed -nE 's/^synth: ([0-9,]+) events.*/\1/p' | tr -d ,)
	got=$(report_counts "$dat" | awk '{n += $2} END {print n}')
	check_eq "trace.dat version $1 $2: trace-cmd report prints every event" "$got" "$n"
	check_eq "trace.dat version $1 $2: mode 0600" "$(stat -c %a "$dat")" 600
	check "trace.dat version $1 $2: imports" "$MSC" import -q "$dat" -o "$T/s$1$2.db"
	check_eq "trace.dat version $1 $2: same counts in the database" \
		"$(db "$T/s$1$2.db" "select file_version, coalesce(compression, 'none'),
			kernel_release, vendor, records from capture")" \
		"$1|$2|6.12.0-synth-amd64|npt|$n"
done
check_eq "no scratch directory is left behind" "$(ls -a "$T" | grep -c mmuscope-synth)" 0
report_counts "$T/s7zstd.dat" >"$T/counts"
check_eq "the 32 MiB scenario has the capture's spte_changed count" \
	"$(awk '$1 == "kvm_tdp_mmu_spte_changed" {print $2}' "$T/counts")" 32858
check_match "trace-cmd report shows the vCPU threads and the marker symbol" \
	"$(trace-cmd report -i "$T/s7zstd.dat" 2>/dev/null | grep -m1 'phase=populate begin')" \
	'tracing_mark_write: mmuscope-dirtylog: phase=populate begin'
check_match "... and the vCPU thread's name" \
	"$(trace-cmd report -i "$T/s7zstd.dat" 2>/dev/null | grep -m1 fast_page_fault)" \
	'CPU 0/KVM-1001'

# ---- lost events
check "--lost-events 500" "$MSC" synth -q --guest-mib 16 --lost-events 500 -o "$T/lost.dat"
check_match "trace-cmd report shows the drop" \
	"$(trace-cmd report -i "$T/lost.dat" 2>/dev/null | grep 'EVENTS DROPPED')" \
	'CPU:0 \[500 EVENTS DROPPED\]'
"$MSC" import -q "$T/lost.dat" -o "$T/lost.db" 2>/dev/null
check_eq "the importer counts them" "$(db "$T/lost.db" 'select lost from capture')" 500

# ---- FIFOs and trickle give the very same pages as plain files
"$MSC" synth -q --guest-mib 16 --vcpus 2 --tracing-dir "$T/plain"
"$MSC" synth -q --guest-mib 16 --vcpus 2 --tracing-dir "$T/fifo" --fifo 2>"$T/fifo.err" &
pid=$!
i=0
while [ ! -p "$T/fifo/per_cpu/cpu2/trace_pipe_raw" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
for c in 0 1 2; do
	timeout 60 cat "$T/fifo/per_cpu/cpu$c/trace_pipe_raw" >"$T/fifo$c.raw" &
done
wait $pid
rc=$?
wait
check_eq "--fifo: the writer ends when every reader has read" "$rc" 0
same=0
for c in 0 1 2; do
	cmp -s "$T/fifo$c.raw" "$T/plain/per_cpu/cpu$c/trace_pipe_raw" && same=$((same + 1))
done
check_eq "--fifo: each FIFO carries the plain file's pages" "$same" 3
check "--trickle 1" "$MSC" synth -q --guest-mib 16 --vcpus 2 --tracing-dir "$T/trickle" --trickle 1
same=0
for c in 0 1 2; do
	cmp -s "$T/trickle/per_cpu/cpu$c/trace_pipe_raw" \
		"$T/plain/per_cpu/cpu$c/trace_pipe_raw" && same=$((same + 1))
done
check_eq "--trickle: the files end up with the same pages" "$same" 3

# ---- a real capture, re-encoded event for event
# reencode TAG CAPTURE FORMATS WHAT: dump the capture, synth it again from
# the dump with those formats, import that: the same events come back
reencode() {
	"$MSC" import -q "$TRACES/$2/trace.dat" -o "$T/real$1.db"
	"$MSC" dump "$T/real$1.db" >"$T/real$1.events"
	check "--from-events re-encodes $4" \
		"$MSC" synth -q --from-events "$T/real$1.events" --formats "$FORMATS/$3" -o "$T/re$1.dat"
	"$MSC" import -q "$T/re$1.dat" -o "$T/re$1.db"
	"$MSC" dump "$T/re$1.db" >"$T/re$1.events"
	grep -v '^#' "$T/real$1.events" >"$T/a"
	grep -v '^#' "$T/re$1.events" >"$T/b"
	check_eq "... and the importer reads back the same $(wc -l <"$T/a") events" \
		"$(cmp "$T/a" "$T/b" && echo same)" same
}
reencode "" k612-npt_tdp_16m_clear 6.12 "a real capture"
check_fails "--from-events refuses an event its formats lack" \
	"$MSC" synth -q --from-events "$T/real.events" --formats "$FORMATS/6.18" -o "$T/no.dat"

# ---- EPT layout and 6.13 in-place recovery, through the importer
check "--vendor ept --pml on" "$MSC" synth -q --vendor ept --pml on --guest-mib 16 -o "$T/ept.dat"
"$MSC" import -q --host ept_ad=y "$T/ept.dat" -o "$T/ept.db"
check_eq "the importer infers the EPT layout" "$(db "$T/ept.db" 'select vendor from capture')" ept
check_eq "PML: D bits cleared at enable and at the harvest, never write-protected" \
	"$(db "$T/ept.db" "select class, count(*) from spte_change where level = 1 and
		class in ('clear-dirty', 'write-protect') group by class")" "clear-dirty|8192"
check "--kernel 6.13" "$MSC" synth -q --kernel 6.13 --guest-mib 32 -o "$T/613.dat"
"$MSC" import -q "$T/613.dat" -o "$T/613.db"
check_eq "6.13: disable promotes the 16 tables in place" \
	"$(db "$T/613.db" "select count(*) from spte_change where class = 'promote'")" 16
between="seq > (select seq from marker where text like '%phase=repopulate begin')
	and seq < (select seq from marker where text like '%phase=repopulate end')"
check_eq "6.13: repopulate makes the 16 huge pages writable on the fast path, maps nothing" \
	"$(db "$T/613.db" "select (select count(*) from fault where kind = 'fast-fixed' and $between),
		(select count(*) from spte_requested where $between)")" "16|0"

# ---- 7.3: the real 7.3.4 formats, FROZEN_SPTE 0x...1a0, 4-bit role access
check "--kernel 7.3" "$MSC" synth -q --kernel 7.3 --guest-mib 32 --passes 2 -o "$T/73.dat" \
	--tracing-dir "$T/t73"
check "7.3: formats are copies of the real 7.3 files" \
	cmp "$T/t73/events/kvmmmu/kvm_mmu_spte_requested/format" \
	"$FORMATS/7.3/events/kvmmmu/kvm_mmu_spte_requested/format"
"$MSC" import -q "$T/73.dat" -o "$T/73.db"
check_eq "7.3: the importer learns FROZEN_SPTE and the 4-bit role access from the events" \
	"$(db "$T/73.db" "select kernel_release, printf('%#x', frozen_spte), role_access_bits
		from capture")" "7.3.0-synth-amd64|0x80000000000001a0|4"
check_eq "7.3: every fault requests the root's access, ACC_ALL (15), every table is rwux" \
	"$(db "$T/73.db" "select group_concat(access) from (select distinct access
		from spte_requested)") $(db "$T/73.db" "select group_concat(access_str) from
		(select distinct access_str from page_table)")" "15 rwux"
"$MSC" dump "$T/73.db" >"$T/73.events"
check_eq "7.3: each table's children go FROZEN before the parent is promoted" \
	"$(awk 'function gfn(v, x, i) { v = $0; sub(/.* gfn=(0x)?/, "", v); sub(/ .*/, "", v)
			for (i = 1; i <= length(v); i++)
				x = x * 16 + index("0123456789abcdef", substr(v, i, 1)) - 1
			return x }
		/ class=promote/ { n++; if (prev ~ /class=teardown-child/ && pgfn == gfn() + 511) k++ }
		{ prev = $0; pgfn = gfn() } END { print n + 0, k + 0 }' "$T/73.events")" "16 16"
check_eq "7.3: ... and teardown zaps a table's entries before the one that pointed to it" \
	"$(awk '/phase=teardown begin/ { t = 1 }
		{ gfn = ""; if (match($0, / gfn=[^ ]+/)) gfn = substr($0, RSTART, RLENGTH) }
		t && / class=zap-subtree/ { n++; if (prev ~ / prepare_zap_page / && gfn == pgfn) k++ }
		{ prev = $0; pgfn = gfn } END { print n + 0, k + 0 }' "$T/73.events")" "4 4"
# a real 7.3 capture (with kdamond's aging and spte_requested's access) re-encoded
reencode 73 k73-npt_tdp_16m_clear 7.3 "a real 7.3 capture"

# Several vCPUs: no entry of a table is read or changed before the table's
# link, in time (the analyzer would call each such change a resync): shares
# not aligned to a table's span, so that vCPUs meet in one table
for v in "2m 5" "4k 3"; do
	set -- $v
	"$MSC" synth -q -o "$T/v$2.dat" --kprobes off --guest-mib 64 --backing "$1" --vcpus "$2"
	"$MSC" import -q "$T/v$2.dat" -o "$T/v$2.db" 2>/dev/null
	check_eq "$2 vCPUs on $1 pages: every table linked before its entries change" \
		"$(db "$T/v$2.db" "SELECT count(*) FROM anomaly; SELECT events > 80000 FROM analysis")" \
		"0
1"
done

done_testing
