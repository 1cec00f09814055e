#!/bin/sh
# bench/observer.sh MSC - the observer effect (BENCHMARKS.md, "The observer
# effect"): tests/nested/observer.sh in the nested rig, OBSERVER_RUNS runs
# (default 5) of dirty_log_perf_test untraced, under `mmuscope record` and
# under `record --light`.  `make bench BENCH=observer` (and BENCH=all)
# runs it; never `make check`.  Skipped, saying so, where the rig cannot
# boot (no qemu-system-x86_64 and not root to install it).
set -u
MSC=${1:-build/mmuscope}
if ! command -v qemu-system-x86_64 >/dev/null 2>&1 && [ "$(id -u)" != 0 ]; then
	echo "bench: observer: skipped (no qemu-system-x86_64; tests/nested/README.md)"
	exit 0
fi
echo "bench: observer effect, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2>/dev/null)"
exec tests/nested/observer.sh -r "${OBSERVER_RUNS:-5}" "$MSC"
