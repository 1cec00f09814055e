#!/bin/sh
# mmuscope analyze on awkward input: analyzing twice changes nothing, a
# second capture is analyzed alone, and bad input (no kvmmmu events, lost
# events, timestamps out of order, a trace that starts mid-run, SPTE values
# that fit no layout) gives clear messages and marked history, not a crash.
. "$(dirname "$0")/lib.sh"

EV=$MSC_TEST_DATA/events
q() { sqlite3 "$1" "$2"; }
tables() { # a digest of every analysis table of DB
	for t in analysis mapping census kvm_stats phase region phase_region region_state activity \
		 task_activity anomaly dirty_cell; do
		sqlite3 "$1" "SELECT * FROM $t ORDER BY 1,2,3,4,5"
	done | cksum
}

db=$T/a.db
check "import without analysis" "$MSC" import -q --no-analyze "$TRACES/k612-npt_tdp_32m/trace.dat" -o "$db"
check_eq "--no-analyze leaves the analysis tables empty" "$(q "$db" "SELECT count(*) FROM mapping")" 0
check "analyze" "$MSC" analyze -q "$db"
first=$(tables "$db")
check "analyze again" "$MSC" analyze -q "$db"
check_eq "analyze twice: identical tables" "$(tables "$db")" "$first"
check "analyze --rebuild" "$MSC" analyze -q --rebuild "$db"
check_eq "rebuild from scratch: identical tables" "$(tables "$db")" "$first"
# the rebuild of a file's only capture drops the analysis indexes and builds them again
check_eq "rebuild from scratch: the lookup indexes are there again" \
	"$(q "$db" "SELECT group_concat(name, ' ') FROM (SELECT name FROM sqlite_master WHERE type = 'index'
		AND name IN ('mapping_run_gfn', 'region_state_gfn') ORDER BY name)")" \
	"mapping_run_gfn region_state_gfn"
check "append a second capture" "$MSC" import -q --no-analyze --append "$TRACES/k612-npt_tdp_eager0_16m/trace.dat" -o "$db"
out=$("$MSC" analyze "$db")
check_match "the first capture has nothing new" "$out" 'capture 1: 66,107 events analyzed'
check_eq "the second capture is analyzed" "$(q "$db" "SELECT count(*) FROM analysis WHERE capture_id = 2 AND last_seq = (SELECT last_seq FROM capture WHERE id = 2)")" 1
check_eq "the second capture's census is exact" \
	"$(q "$db" "SELECT count(*) FROM kvm_stats_check WHERE capture_id = 2 AND (diff_4k OR diff_2m OR diff_1g)")" 0
check_eq "the first capture's rows are untouched" \
	"$(q "$db" "SELECT count(*) FROM mapping WHERE capture_id = 1")" \
	"$(q "$db" "SELECT intervals FROM analysis WHERE capture_id = 1")"
# a rebuild forgets one capture's analysis only: another's rows stay (and
# with one capture in the file, all of its tables' rows are its own)
per_capture() {
	for t in analysis mapping_run census phase region region_state activity anomaly; do
		printf '%s ' "$(q "$db" "SELECT count(*) FROM $t WHERE capture_id = $1")"
	done
}
second=$(per_capture 2)
check "analyze --rebuild of the first capture of two" "$MSC" analyze -q --rebuild -c 1 "$db"
check_eq "... the second capture's analysis is untouched" "$(per_capture 2)" "$second"
check_eq "... the first capture's is rebuilt" \
	"$(q "$db" "SELECT count(*) FROM mapping WHERE capture_id = 1")" \
	"$(q "$db" "SELECT intervals FROM analysis WHERE capture_id = 1")"

imp() { "$MSC" import -q --text "$EV/$1.events" -o "$T/$1.db" 2>"$T/$1.err"; }

imp no-mmu
check_match "no kvmmmu events: import says so" "$(cat "$T/no-mmu.err")" 'no kvm or kvmmmu events.*nothing to rebuild'
check_fails "no kvmmmu events: analyze fails" "$MSC" analyze "$T/no-mmu.db"
check_match "no kvmmmu events: one clear line" "$("$MSC" analyze "$T/no-mmu.db" 2>&1)" \
	'^mmuscope analyze: .*no-mmu.db: capture 1: no kvm or kvmmmu events in the trace: nothing to rebuild$'

imp lost
check_match "lost events: warned" "$(cat "$T/lost.err")" '1 lost-event gaps \(100 events\)'
check_eq "lost events: an after-lost anomaly" "$(q "$T/lost.db" "SELECT count(*) FROM anomaly WHERE kind = 'after-lost'")" 1
check_eq "lost events: the model resyncs from old_spte" "$(q "$T/lost.db" "SELECT resyncs FROM analysis")" 1
check_eq "lost events: census after the gap marked" "$(q "$T/lost.db" "SELECT census_flags & 4 FROM kvm_stats WHERE phase = 'zap'")" 4
check_eq "lost events: census still right" "$(q "$T/lost.db" "SELECT count(*) FROM kvm_stats_check WHERE diff_4k OR diff_2m OR diff_1g")" 0
check_match "lost events: report says so" "$("$MSC" report "$T/lost.db")" '^LOST EVENTS: 1 gaps, 100 events'

imp out-of-order
check_match "out of order: warned" "$(cat "$T/out-of-order.err")" '1 events out of timestamp order'
check_eq "out of order: anomaly row" "$(q "$T/out-of-order.db" "SELECT kind FROM anomaly")" out-of-order
check_eq "out of order: census still exact" "$(q "$T/out-of-order.db" "SELECT census_2m FROM kvm_stats")" 2
check_eq "out of order: time never goes backwards in mapping" \
	"$(q "$T/out-of-order.db" "SELECT count(*) FROM mapping WHERE start_ts < 10000000")" 0

imp midrun
check_match "mid-run start: warned" "$(cat "$T/midrun.err")" 'trace began after SPTEs were installed'
check_eq "mid-run start: partial anomaly" "$(q "$T/midrun.db" "SELECT count(*) FROM anomaly WHERE kind = 'partial'")" 1
check_eq "mid-run start: census marked partial" "$(q "$T/midrun.db" "SELECT census_flags & 2 FROM kvm_stats")" 2
check_eq "mid-run start: earlier SPTEs start at the trace start" \
	"$(q "$T/midrun.db" "SELECT count(*) FROM gfn_history WHERE started_by = 'trace-start' AND start_ts = 1000")" 2

imp bad-spte
check_eq "bad SPTE values: reported, not applied" "$(q "$T/bad-spte.db" "SELECT count(*) FROM anomaly WHERE kind = 'bad-spte'")" 2
check_eq "bad SPTE values: census from the good ones" "$(q "$T/bad-spte.db" "SELECT census_2m FROM kvm_stats")" 1
check "bad SPTE values: report works" "$MSC" report "$T/bad-spte.db"
check_fails "analyze of a missing file fails" "$MSC" analyze "$T/nope.db"

# a GFN beyond any guest physical address (a damaged or hostile capture): an
# anomaly naming it, not "Cannot allocate memory"
printf '%s\n' '#@ release 6.12.0' '#@ host vendor=npt' \
	'1000 0 30 spte_changed as=0 gfn=0xfffffffffffffe00 level=2 old=0x8000000000000000 new=0x40000ee7' \
	'2000 0 30 spte_changed as=0 gfn=0x40000 level=2 old=0x8000000000000000 new=0x40000ee7' >"$T/far.events"
check "a GFN beyond the address space: the capture imports" "$MSC" import -q --text "$T/far.events" -o "$T/far.db"
check_eq "... the event is a bad-spte anomaly naming the GFN, the rest applied" \
	"$(q "$T/far.db" "SELECT detail FROM anomaly")|$(q "$T/far.db" "SELECT max(pages_2m) FROM census")" \
	"spte_changed of gfn 0xfffffffffffffe00, beyond any guest physical address: not applied|1"
done_testing
