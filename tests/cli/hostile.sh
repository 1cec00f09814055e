#!/bin/sh
# Damaged trace.dat files (tests/fuzz/mutate.py): the damage that crashed
# libtracecmd inside import (SIGFPE, a double free) or sent it astray (a CPU
# id of 65537, CPU data past the end or overlapping, options sections that
# loop), now named by the header check, a reader made to crash mid-file or
# to send malformed messages, and seeded mutants of a real capture's
# headers.  Import checks the header and reads a trace.dat in a
# child process, so whatever the file does to libtracecmd, import exits 0 or
# 1 (never by a signal, never hanging), says one line naming the file when
# it fails, and leaves no database behind.  The database readers get the
# same on damaged databases.  `make fuzz` runs many more (FUZZ_N).
. "$(dirname "$0")/lib.sh"

base=$TRACES/k61-npt_tdp_32m/trace.dat
python3 "$(dirname "$0")/../fuzz/mutate.py" "$base" "$T/in" named
python3 "$(dirname "$0")/../fuzz/mutate.py" "$base" "$T/in" random "${FUZZ_SEED:-1}" "${FUZZ_N:-40}"
# the header is checked before libtracecmd sees it: each fault named exactly
for c in "page-size-0|bad trace.dat header: page size 0 \(a power of two from 4096\)" \
	"cut-in-first-offset|file is truncated" \
	"zstd-chunk-count-huge|corrupt trace data: libtracecmd asked for more memory than this process could ever have: a size or count in it is damaged" \
	"cpu-id-65537|bad trace.dat header: CPU id 65537 \(no kernel has more than 8192 CPUs\)" \
	"cpu-count-huge|bad trace.dat header: CPU count 1048576 \(no kernel has more than 8192\)" \
	"cpu-data-past-end|file is truncated: CPU 0's data \(272809 bytes at offset [0-9]+\) runs past the end of the file" \
	"cpu-data-overlap|corrupt trace data: the data of CPU 0 and CPU 1 overlap \([0-9]+ bytes at offset [0-9]+\)" \
	"options-loop|bad trace.dat header: the options sections loop back to offset [0-9]+" \
	"sections-overlap|corrupt trace data: two options name the section at offset [0-9]+" \
	"options-compressed-overlap|corrupt trace data: the data of CPU 0 and CPU 1 overlap \([0-9]+ bytes at offset [0-9]+\)" \
	"options-compressed-cpu-id|bad trace.dat header: CPU id 65537 \(no kernel has more than 8192 CPUs\)" \
	"options-compressed-frame|bad trace.dat header: the compressed options section at offset [0-9]+ does not decompress to its [0-9]+ bytes: .*"; do
	name=${c%%|*}
	f=$T/in/$name.dat
	timeout 120 "$MSC" import -q "$f" -o "$T/$name.db" >"$T/out" 2>"$T/err"
	check_eq "$name: refused, exit 1 (it crashed, hung or misled libtracecmd inside import)" "$?" 1
	check_match "$name: one line naming the file and the fault" "$(cat "$T/err")" \
		"^mmuscope import: $f: ${c#*|}$"
	check_eq "$name: one line only, no database left" "$(grep -c . "$T/err") $(test -e "$T/$name.db" && echo db)" "1 "
done
# an options section compressed (libtracecmd reads it): checked as a plain
# one is, and the file reads whole
f=$T/in/options-compressed.dat
"$MSC" import -q "$f" -o "$T/oc.db" 2>"$T/err"
check_eq "options-compressed: imported, exit 0, no warning" "$? $(cat "$T/err")" "0 "
"$MSC" import -q "$base" -o "$T/plain.db"
check_eq "... every event the plain file holds" "$("$MSC" dump "$T/oc.db" | grep -vc '^#')" \
	"$("$MSC" dump "$T/plain.db" | grep -vc '^#')"

# a zstd chunk whose frame holds half the pages it says (in the middle of a
# CPU's data, and its last): imported, the gap marked lost where it was and
# said, every event stored one of the file's
"$MSC" dump "$T/plain.db" | grep -v '^#' | sort >"$T/plain.txt"
for name in zstd-chunk-short zstd-chunk-short-last; do
	f=$T/in/$name.dat
	"$MSC" import -q "$f" -o "$T/$name.db" 2>"$T/err"
	check_eq "$name: imported, exit 0" "$?" 0
	check_match "$name: one warning says what was lost" "$(grep chunk "$T/err")" \
		"^mmuscope import: warning: $f: CPU [0-9]+: a compressed chunk holds [0-9]+ fewer bytes than it says \(damaged\): the events in them are lost$"
	"$MSC" dump "$T/$name.db" | grep -v '^#' >"$T/$name.txt"
	grep -v ' lost count=' "$T/$name.txt" | sort >"$T/$name.sorted"
	comm -23 "$T/plain.txt" "$T/$name.sorted" | sort -n >"$T/$name.missing"
	check_eq "$name: every event stored is the file's, some are missing" \
		"$(comm -13 "$T/plain.txt" "$T/$name.sorted" | wc -l) $(test -s "$T/$name.missing" && echo missing)" \
		"0 missing"
	# one mark, on the CPU of the missing events, where they were: no stored
	# event of that CPU between the mark and the gap
	check_eq "$name: a lost mark on their CPU, where they were" "$(awk -v m="$T/$name.missing" '
		BEGIN { while ((getline l < m) > 0) { split(l, f, " "); if (!n++) first = f[1]
			last = f[1]; cpu = f[2] } }
		$2 == cpu && / lost count=0/ { marks++; mark = $1; next }
		$2 == cpu && $1 + 0 < first + 0 && $1 + 0 > prev + 0 { prev = $1 }
		$2 == cpu && $1 + 0 > last + 0 && (next_ == "" || $1 + 0 < next_ + 0) { next_ = $1 }
		END { print marks, (mark + 0 >= prev + 0 && (next_ == "" || mark + 0 <= next_ + 0)) ? "there" : "elsewhere" }' "$T/$name.txt")" "1 there"
done

# a uname with terminal escapes (a title, a colour, a clear): imported, and
# what import's summary and dump's header print of it is escaped (\x1b)
f=$T/in/uname-escapes.dat
"$MSC" import "$f" -o "$T/uname.db" >"$T/out" 2>&1
check_eq "uname-escapes: imported" "$?" 0
"$MSC" dump "$T/uname.db" 2>&1 | head -3 >>"$T/out"
check_eq "uname-escapes: no control character reaches the terminal" \
	"$(tr -d '\n' <"$T/out" | LC_ALL=C tr -d '[:print:]' | wc -c)" 0
check_match "... the release is printed escaped" "$(grep '^#@ release' "$T/out")" \
	'^#@ release 6\.1\.0\\x1b\[31m\\x1b\[2J$'

# the reader dying in the middle of the data (as libtracecmd does on a
# damaged page): one line, the signal named, no database left
MSC_READER_FAULT=segv timeout 120 "$MSC" import -q "$base" -o "$T/segv.db" >"$T/out" 2>"$T/err"
check_eq "a reader that crashes mid-file: exit 1" "$?" 1
check_match "... one line naming the file and how the reader died" "$(cat "$T/err")" \
	"^mmuscope import: $base: corrupt trace data: libtracecmd died reading it \(Segmentation fault\)$"
check_eq "... no database left" "$(test -e "$T/segv.db" && echo db)" ""
# ... under a ulimit -v: a crash is said as a crash, not as ENOMEM (it may
# have been memory, or damage: which is not known)
case ${MSC_BUILD:-} in
*asan*) ok "a crash under ulimit -v # skip under ASan" ;;
*)	MSC_READER_FAULT=segv sh -c "ulimit -v 3000000; exec \"$MSC\" import -q \"$base\" -o \"$T/segv.db\"" \
		>"$T/out" 2>"$T/err"
	check_match "a reader that crashes under ulimit -v: the crash, not 'Cannot allocate memory'" \
		"$(cat "$T/err")" "^mmuscope import: $base: the trace reader failed: libtracecmd died reading it \(Segmentation fault\) within the [0-9]+ MiB of address space this process may have \(ulimit -v\): it may have run out of memory, or the file is damaged$" ;;
esac
# the reader sending nonsense (events travel packed: each says its type, its
# type says its length): refused before anything is read by it, one line
for c in "bad-type|the reader sent an event of type 255" \
	"cut-event|the reader sent an event cut short \([0-9]+ of its bytes in a message of [0-9]+\)"; do
	name=${c%%|*}
	MSC_READER_FAULT=$name timeout 120 "$MSC" import -q "$base" -o "$T/$name.db" >"$T/out" 2>"$T/err"
	check_eq "a reader that sends a malformed message ($name): exit 1" "$?" 1
	check_match "... one line naming the file and the fault" "$(cat "$T/err")" \
		"^mmuscope import: $base: corrupt trace data: ${c#*|}$"
	check_eq "... no database left" "$(test -e "$T/$name.db" && echo db)" ""
done
mkdir "$T/dir.dat"
check_match "a directory is read as trace-cmd's: its trace.dat, named when missing" \
	"$("$MSC" import -q "$T/dir.dat" -o "$T/d.db" 2>&1)" \
	"^mmuscope import: $T/dir.dat/trace.dat: No such file or directory$"
# seeded mutants: of the headers (v6 base), of anything in a v7 zstd
# capture (its CPUs' compressed data too)
python3 "$(dirname "$0")/../fuzz/mutate.py" "$TRACES/k73-npt_tdp_32m/trace.dat" "$T/in" data \
	"${FUZZ_SEED:-1}" "$(( ${FUZZ_N:-40} / 2 ))"
bad=0
n=0
for f in "$T"/in/random-*.dat "$T"/in/data-*.dat; do
	n=$((n + 1))
	timeout 120 "$MSC" import -q "$f" -o "$T/m.db" >/dev/null 2>"$T/err"
	rc=$?
	errors=$(grep -vc ': warning: ' "$T/err")
	case $rc in
	0) [ "$errors" = 0 ] || { bad=$((bad + 1)); diag "$f: exit 0 with: $(head -1 "$T/err")"; } ;;
	1) # as long as the original: "truncated" names what its headers put past the end
	   ! grep -q "^mmuscope import: $f: file is truncated$" "$T/err" ||
		{ bad=$((bad + 1)); diag "$f: a bare 'file is truncated', of a file as long as the original"; }
	   [ "$errors" = 1 ] && grep -q "^mmuscope import: $f: " "$T/err" ||
		{ bad=$((bad + 1)); diag "$f: exit 1 with: $(head -2 "$T/err" | tr '\n' '|')"; }
	   [ ! -e "$T/m.db" ] || { bad=$((bad + 1)); diag "$f: failed, database left"; } ;;
	*) bad=$((bad + 1)); diag "$f: exit $rc: $(head -2 "$T/err" | tr '\n' '|')" ;;
	esac
	rm -f "$T/m.db"
done
check_eq "$n seeded mutants: each imports, or fails with one line naming it; none crashes or hangs" "$bad" 0

# structure-aware families (mutate.py families): instance buffers, a uname
# with control bytes, a zstd chunk count past any memory.  Each imports with
# every event read (an instance read or named in a warning) and nothing raw
# on the terminal, or fails with one line naming the file
python3 "$(dirname "$0")/../fuzz/mutate.py" "$base" "$T/fam" families "${FUZZ_SEED:-1}" \
	"$(( ${FUZZ_N:-40} / 10 + 1 ))"
bad=0
n=0
for f in "$T"/fam/*.dat; do
	n=$((n + 1))
	timeout 120 "$MSC" import "$f" -o "$T/m.db" >"$T/out" 2>"$T/err"
	rc=$?
	case $rc in
	0) [ "$(cat "$T/out" "$T/err" | tr -d '\n' | LC_ALL=C tr -d '[:print:]' | wc -c)" = 0 ] ||
		{ bad=$((bad + 1)); diag "$f: a control character reached the terminal"; }
	   case $f in
	   */fam-instances-*) grep -q 'instance' "$T/err" ||
		{ bad=$((bad + 1)); diag "$f: an instance neither read nor named"; } ;;
	   esac ;;
	1) [ "$(grep -vc ': warning: ' "$T/err")" = 1 ] && grep -q "^mmuscope import: $f: " "$T/err" ||
		{ bad=$((bad + 1)); diag "$f: exit 1 with: $(head -2 "$T/err" | tr '\n' '|')"; } ;;
	*) bad=$((bad + 1)); diag "$f: exit $rc: $(head -2 "$T/err" | tr '\n' '|')" ;;
	esac
	rm -f "$T/m.db"
done
check_eq "$n files of the structure-aware families: each imports whole, or fails with one line naming it" "$bad" 0

# the database readers: seeded mutants of a real database through report
# (text, JSON and SVG) and dump; each succeeds, or fails with one
# line naming the database, never by a signal or a hang
"$MSC" import -q "$base" -o "$T/base.db"
python3 "$(dirname "$0")/../fuzz/mutate.py" "$T/base.db" "$T/db" db "${FUZZ_SEED:-1}" \
	"$(( ${FUZZ_N:-40} / 2 ))"
bad=0
n=0
for f in "$T"/db/db-*.db; do
	for cmd in "report" "report --json" "dump" "report --svg $T/svg"; do
		n=$((n + 1))
		timeout 120 "$MSC" $cmd "$f" >/dev/null 2>"$T/err"
		rc=$?
		errors=$(grep -vc ': warning: ' "$T/err")
		case $rc in
		0) ;;
		1) [ "$errors" = 1 ] && grep -q "^mmuscope ${cmd%% *}: .*$f" "$T/err" ||
			{ bad=$((bad + 1)); diag "$cmd $f: exit 1 with: $(head -2 "$T/err" | tr '\n' '|')"; } ;;
		*) bad=$((bad + 1)); diag "$cmd $f: exit $rc: $(head -2 "$T/err" | tr '\n' '|')" ;;
		esac
		rm -rf "$T/svg"
	done
done
check_eq "$n runs on damaged databases: each succeeds, or fails with one line naming it; none crashes or hangs" "$bad" 0
done_testing
