#!/bin/bash
# ioctls.sh - what a recording costs the host's ioctls that are not KVM's
# (a vCPU's KVM_RUN, every other program's): sys_exit_ioctl cannot be
# filtered by request, so each such exit is a tracepoint hit and a ring-
# buffer record the recorder reads.  `make bench BENCH=ioctls`; never part
# of `make check`.  Needs root and tracefs (no KVM: the ioctls are a pipe's).
#
# Usage: bench/ioctls.sh [-r RUNS] [-n IOCTLS] [-o OLD_MSC] MSC IOCTLS_BIN
#   runs IOCTLS_BIN (bench/tools/ioctls.c) RUNS times in each mode,
#   interleaved: untraced; under `MSC record --light --stats-ms 0`; with
#   -o, under the same recording by OLD_MSC (another build, side by side).
# Prints per mode the median (min-max) ns an ioctl took (wall, and CPU of
# the calling process), the ratio to untraced, the recorder's CPU seconds
# per million ioctls, and the ioctl rows it stored.
set -euo pipefail
RUNS=7
N=1000000
OLD=""
while getopts "r:n:o:" opt; do
	case $opt in
	r) RUNS=$OPTARG ;;
	n) N=$OPTARG ;;
	o) OLD=$OPTARG ;;
	*) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
MSC=${1:?usage: ioctls.sh [-r RUNS] [-n IOCTLS] [-o OLD_MSC] MSC IOCTLS_BIN}
BIN=${2:?usage: ioctls.sh [-r RUNS] [-n IOCTLS] [-o OLD_MSC] MSC IOCTLS_BIN}
W=$(mktemp -d /tmp/msc-ioctls.XXXXXX)
trap 'rm -rf "$W"' EXIT
MODES="untraced light"
[ -z "$OLD" ] || MODES="$MODES old"

# one run of mode $1, number $2: appends "mode wall_ns cpu_ns rec_cpu_s rows other" to $W/runs
run() {
	local mode=$1 i=$2 msc="" db=$W/$1-$2.db out rec
	case $mode in light) msc=$MSC ;; old) msc=$OLD ;; esac
	if [ -z "$msc" ]; then
		echo "$mode $("$BIN" "$N" | awk '{ print $4, $6 }') - - -" >> "$W/runs"
		return
	fi
	"$msc" record --light --stats-ms 0 -o "$db" > "$W/rec.out" 2>&1 &
	rec=$!
	for _ in $(seq 100); do
		grep -q 'Ctrl-C stops' "$W/rec.out" && break
		sleep 0.1
	done
	if ! grep -q 'Ctrl-C stops' "$W/rec.out"; then
		kill -INT "$rec" 2>/dev/null || true
		wait "$rec" || true
		echo "ioctls.sh: $msc record did not start: $(tail -n 1 "$W/rec.out")" >&2
		exit 1
	fi
	out=$("$BIN" "$N" | awk '{ print $4, $6 }')
	kill -INT "$rec"
	wait "$rec"
	echo "$mode $out $(sqlite3 "$db" "select (select value from host_param where name = 'record.cpu_s'),
		(select count(*) from ioctl), coalesce((select value from host_param
		where name = 'record.ioctl_exits_other'), 0)" | tr '|' ' ')" >> "$W/runs"
	rm -f "$db" "$db"-*
}

: > "$W/runs"
for i in $(seq "$RUNS"); do
	for m in $MODES; do
		run "$m" "$i"
	done
done
echo "$N ioctls a run (FIONREAD on a pipe), $RUNS runs a mode, interleaved; median (min-max)"
echo
echo "| mode | ns an ioctl (wall) | CPU ns an ioctl | wall / untraced | recorder CPU s per 1 M ioctls | ioctl rows stored | exits read, not stored |"
echo "|---|---|---|---:|---:|---:|---:|"
python3 - "$W/runs" "$N" $MODES <<'PY'
import statistics, sys
path, n, modes = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
runs = [l.split() for l in open(path)]
def col(m, i):
    return [float(r[i]) for r in runs if r[0] == m and r[i] != '-']
def fmt(v, d=1):
    if not v:
        return '-'
    return f"{statistics.median(v):.{d}f} ({min(v):.{d}f}-{max(v):.{d}f})"
base = statistics.median(col('untraced', 1))
for m in modes:
    w = col(m, 1)
    cpu = [c * 1e6 / n for c in col(m, 3)]
    print(f"| {m} | {fmt(w)} | {fmt(col(m, 2))} | {statistics.median(w) / base:.2f}x | "
          f"{fmt(cpu, 2)} | {fmt(col(m, 4), 0)} | {fmt(col(m, 5), 0)} |")
PY
