#!/bin/sh
# `mmuscope dump` then `import --text` gives back the same capture: for every
# real capture in tests/data/traces, the events (each line, its class
# included), the host facts the events were classified with (vendor,
# non-present and frozen values, TDP MMU, EPT A/D bits and software bits,
# the page role's access width) and the analysis (report --json) are equal
# to the trace.dat import's.  Only the source's name may differ.
. "$(dirname "$0")/lib.sh"

HOSTQ="SELECT kernel_release, vendor, printf('%#x', nonpresent_spte),
	printf('%#x', frozen_spte), tdp_mmu, ept_ad, role_access_bits,
	printf('%#x', ept_sw) FROM capture"

for dir in "$TRACES"/*/; do
	name=$(basename "$dir")
	[ -f "$dir/trace.dat" ] || continue
	if ! "$MSC" import -q "$dir/trace.dat" -o "$T/a.db" 2>"$T/err"; then
		not_ok "$name: import"
		sed 's/^/# /' "$T/err" | head -3
		continue
	fi
	"$MSC" dump "$T/a.db" >"$T/a.txt"
	if ! "$MSC" import -q --text "$T/a.txt" -o "$T/b.db" 2>"$T/err"; then
		not_ok "$name: import --text of its dump"
		sed 's/^/# /' "$T/err" | head -3
		rm -f "$T/a.db"
		continue
	fi
	"$MSC" dump "$T/b.db" >"$T/b.txt"
	# the first line names the source: the trace.dat, then the text file
	if cmp -s "$T/a.txt" "$T/b.txt" ||
	   [ "$(diff "$T/a.txt" "$T/b.txt" | grep -c '^[<>]')" = 2 ] &&
	   [ "$(diff "$T/a.txt" "$T/b.txt" | sed -n 1p)" = 1c1 ]; then
		ok "$name: the text import dumps the same $(grep -c '^[0-9]' "$T/a.txt") events"
	else
		not_ok "$name: the text import dumps other events"
		diff "$T/a.txt" "$T/b.txt" | sed -n '2,7s/^/# /p'
	fi
	check_eq "$name: the same host facts" "$(sqlite3 "$T/b.db" "$HOSTQ")" \
		"$(sqlite3 "$T/a.db" "$HOSTQ")"
	"$MSC" report --json "$T/a.db" >"$T/a.json"
	"$MSC" report --json "$T/b.db" >"$T/b.json"
	if cmp -s "$T/a.json" "$T/b.json"; then
		ok "$name: the same analysis"
	else
		not_ok "$name: the analysis differs"
		diff "$T/a.json" "$T/b.json" | sed -n '1,6s/^/# /p'
	fi
	rm -f "$T/a.db" "$T/b.db" "$T"/a.db-* "$T"/b.db-*
done
done_testing
