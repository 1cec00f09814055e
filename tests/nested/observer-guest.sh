#!/bin/sh
# observer-guest.sh - the guest half of observer.sh: the upstream
# dirty_log_perf_test RUNS times untraced, under `mmuscope record` and
# under `mmuscope record --light`, interleaved (untraced, full, light,
# untraced, ...) so that a slow spell of the host falls on all three.
#
# Run by guest-init.sh (run.sh -S) in the share directory $OUT, with
# /usr/bin/mmuscope and /usr/bin/dirty_log_perf_test in the initramfs;
# under Bochs (observer.sh -E, bochs.sh -S) $OUT is /tmp/out, written out
# as a tar onto the results disk once the job ends.
# observer.sh prepends RUNS, TEST_ARGS, LIGHT, MODES, LIGHT2 and LIGHT2_OFF.  Leaves in $OUT, per
# run K and mode M: M-K.log (the test's output), M-K.rec (record's),
# M-K.db (the capture), and order.txt (the modes in the order run).
#
# POSIX sh (busybox).  The databases are written to /tmp (tmpfs) and
# copied out: SQLite's WAL needs shared maps that 9p does not give.
set -u
OUT=${OUT:-$PWD}
RUNS=${RUNS:-3}
TEST_ARGS=${TEST_ARGS:--v 2 -b 32M -s anonymous_thp -i 2}
LIGHT=${LIGHT:---light}
MODES=${MODES:-untraced full light}
LIGHT2=${LIGHT2:-}

wait_log() {
	n=0
	while ! grep -q "$2" "$1" 2>/dev/null && [ $n -lt 3000 ]; do
		kill -0 "$3" 2>/dev/null || break
		sleep 0.1
		n=$((n + 1))
	done
	grep -q "$2" "$1" 2>/dev/null
}

# one MODE K: the test, under a recording unless MODE is untraced
one() {
	rec=""
	case $1 in
	full) opt="" ;;
	light) opt=$LIGHT ;;
	light2) opt=$LIGHT2 ;;	# a variant, e.g. to find what costs
	*) opt=none ;;
	esac
	if [ "$opt" != none ]; then
		# shellcheck disable=SC2086
		mmuscope record -o "/tmp/$1-$2.db" --buffer-kb 32768 $opt > "$OUT/$1-$2.rec" 2>&1 &
		rec=$!
		wait_log "$OUT/$1-$2.rec" 'Ctrl-C stops' $rec || echo "observer: record $1-$2 did not start" >&2
		# LIGHT2_OFF: events the variant turns off once record runs (what they cost)
		if [ "$1" = light2 ]; then
			for e in ${LIGHT2_OFF:-}; do
				echo 0 > "/sys/kernel/tracing/instances/mmuscope/events/$e/enable"
			done
		fi
	fi
	# shellcheck disable=SC2086
	/usr/bin/dirty_log_perf_test $TEST_ARGS > "$OUT/$1-$2.log" 2>&1
	echo "$1 $2 rc=$?" >> "$OUT/order.txt"
	if [ -n "$rec" ]; then
		sleep 0.3	# the sampler sees the VM gone
		kill -INT $rec
		wait $rec
		echo "$1 $2 record rc=$?" >> "$OUT/order.txt"
		cp "/tmp/$1-$2.db" "$OUT/" && rm -f "/tmp/$1-$2.db" "/tmp/$1-$2.db-"*
	fi
	sync
}

: > "$OUT/order.txt"
k=1
while [ $k -le "$RUNS" ]; do
	for m in $MODES; do
		one "$m" "$k"
	done
	k=$((k + 1))
done
grep -c rc=0 "$OUT/order.txt"
