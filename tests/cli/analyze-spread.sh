#!/bin/sh
# The analyzer's memory grows with the entries written, not with how far
# apart their GFNs are (lib/history/local.h, struct hchunk): 100,000 4K
# mappings, each in a 2M region of its own spread over the whole GFN space
# (every level of the tree fans out, both address spaces), import within
# 2 GiB of address space.  A node of 512 entries each took 4.18 GB and 17.7 s.
# Nothing here asserts a time.
. "$(dirname "$0")/lib.sh"

N=100000
# stride: above 2M, not a power of two, so that every level's nodes fan out
python3 - "$N" >"$T/spread.events" <<'EOF'
import sys
n = int(sys.argv[1])
stride = (((1 << 45) - 512) // n) & ~0x1ff
w = sys.stdout.write
w("#@ release 6.12.0\n#@ host vendor=npt,nonpresent=0x8000000000000000\n")
for i in range(n):
    gfn = i * stride + (i * 7 & 0x1ff)
    w("%d 0 20 spte_changed as=%d gfn=0x%x level=1 old=0x8000000000000000 new=0x%x "
      "class=map\n" % (1000 + i * 1000, i & 1, gfn, ((0x100000 + i) << 12) | 0xe77))
EOF
want_gfns=$(python3 -c "
n = $N
stride = (((1 << 45) - 512) // n) & ~0x1ff
g = [i * stride + (i * 7 & 0x1ff) for i in range(n)]
print(len(set(g)), len(set(x >> 9 for x in g)), min(g), max(g), sum(g) % 1000000007)")

# 2 GiB of address space, unless the build cannot start within any (ASan's shadow)
limit=2097152
if ! sh -c 'ulimit -v "$1" && exec "$2" --version' sh "$limit" "$MSC" >/dev/null 2>&1; then
	diag "this build does not start within $limit KiB of address space: imported without the limit"
	limit=unlimited
fi
check "the spread trace imports within 2 GiB of address space" \
	sh -c 'ulimit -v "$1" && exec "$2" import -q --text "$3" -o "$4"' sh \
	"$limit" "$MSC" "$T/spread.events" "$T/spread.db"

q() { sqlite3 "$T/spread.db" "$1" 2>&1; }
check_eq "the census ends with 50,000 4K pages in each address space" \
	"$(q "SELECT as_id, pages_4k, pages_2m, pages_1g FROM census c
	      WHERE ts = (SELECT max(ts) FROM census WHERE as_id = c.as_id) ORDER BY as_id")" \
	"0|50000|0|0
1|50000|0|0"
check_eq "every mapping is an open 4K interval at its GFN" \
	"$(q "SELECT count(DISTINCT gfn), count(DISTINCT gfn >> 9), min(gfn), max(gfn),
	      sum(gfn) % 1000000007 FROM mapping WHERE level = 1 AND leaf AND end_ts IS NULL" |
	   tr '|' ' ')" "$want_gfns"
check_eq "one region_state row per 2M cell, each with one page" \
	"$(q "SELECT count(*), count(DISTINCT gfn), sum(mapped), max(mapped) FROM region_state")" \
	"$N|$N|$N|1"
check_eq "each cell is a region of its own" "$(q "SELECT count(*) FROM region")" "$N"
check_eq "the analysis took every event, no anomaly" \
	"$(q "SELECT events, spte_events, intervals, anomalies, resyncs FROM analysis")" \
	"$N|$N|$N|0|0"

done_testing
