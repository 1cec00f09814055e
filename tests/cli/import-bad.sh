#!/bin/sh
# mmuscope import on bad input: one clear line naming the file and the
# problem, a non-zero exit, and never a database that looks complete.
. "$(dirname "$0")/lib.sh"

src=$TRACES/k61-npt_tdp_32m/trace.dat
big=$TRACES/k612-npt_tdp_1g_hugetlb/trace.dat

# expect_error DESC REGEX DB CMD...: fails, one stderr line matching REGEX, DB absent
expect_error() {
	_desc=$1 _re=$2 _db=$3
	shift 3
	if "$@" >"$T/out" 2>"$T/err"; then
		not_ok "$_desc: exited 0"
		return
	fi
	_lines=$(wc -l <"$T/err")
	if [ "$_lines" = 1 ] && grep -qE -- "$_re" "$T/err"; then ok "$_desc"; else
		not_ok "$_desc"
		sed 's/^/# stderr: /' "$T/err" | head -5
	fi
	if [ -n "$_db" ] && ls "$_db"* >/dev/null 2>&1; then
		not_ok "$_desc: left $(ls "$_db"*)"
	fi
}

# truncated files of each version (libtracecmd must not crash on them)
trace-cmd convert -i "$src" -o "$T/v6.dat" --file-version 6 >/dev/null 2>&1
for f in v6.dat:75 v6.dat:99 k61.dat:50 k61.dat:10; do
	name=${f%:*} pct=${f#*:}
	[ "$name" = k61.dat ] && in=$src || in=$T/$name
	size=$(stat -c %s "$in")
	head -c $((size * pct / 100)) "$in" >"$T/trunc.dat"
	expect_error "$name cut at $pct%: truncated" \
		"^mmuscope import: .*trunc.dat: file is truncated(: first section at offset [0-9]*, past the file.s [0-9]* bytes)?$" "$T/t.db" \
		"$MSC" import "$T/trunc.dat" -o "$T/t.db"
done

printf 'hello, this is not a trace\n' >"$T/text.dat"
expect_error "not a trace" "text.dat: not a trace-cmd trace.dat file$" "$T/t.db" \
	"$MSC" import "$T/text.dat" -o "$T/t.db"
expect_error "missing input" "nope.dat: No such file or directory$" "$T/t.db" \
	"$MSC" import "$T/nope.dat" -o "$T/t.db"

# a valid trace.dat holding no kvm events (made by trace-cmd restore from the
# real 6.18 formats and an empty CPU buffer)
mkdir -p "$T/fake/events/ftrace/print"
cp "$MSC_TEST_DATA"/formats/6.18/events/header_page "$MSC_TEST_DATA"/formats/6.18/events/header_event \
	"$T/fake/events/"
cp "$MSC_TEST_DATA"/formats/6.18/events/ftrace/print/format "$T/fake/events/ftrace/print/"
: >"$T/fake/kallsyms"
: >"$T/cpu0.raw"
(cd "$T" && trace-cmd restore -c -t fake -k fake/kallsyms -o head.dat &&
	trace-cmd restore -i head.dat -o nokvm.dat cpu0.raw) >/dev/null 2>&1
expect_error "trace without kvm events" "nokvm.dat: no kvm or kvmmmu events in the trace$" \
	"$T/t.db" "$MSC" import "$T/nokvm.dat" -o "$T/t.db"

# a corrupt record: garbage over the first page of CPU 0's data
off=$(trace-cmd dump -i "$T/v6.dat" --flyrecord 2>/dev/null | awk '/size of cpu 0/ {print $1}')
cp "$T/v6.dat" "$T/corrupt.dat"
printf '\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377' |
	dd of="$T/corrupt.dat" bs=1 seek=$((off + 100)) conv=notrunc 2>/dev/null
expect_error "corrupt record" \
	"corrupt.dat: corrupt trace data: record on cpu 0 at ts [0-9]+ has event id [0-9]+, which has no format$" \
	"$T/t.db" "$MSC" import "$T/corrupt.dat" -o "$T/t.db"

# an existing database is refused unless --force or --append
"$MSC" import -q "$src" -o "$T/a.db"
before=$(sqlite3 "$T/a.db" 'select count(*) from spte_change')
expect_error "existing database refused" \
	"a.db: database already exists \(-o DB writes another; --append adds this capture to it, --force replaces it\)$" "" \
	"$MSC" import "$src" -o "$T/a.db"
check_eq "refused import left the database alone" \
	"$(sqlite3 "$T/a.db" 'select count(*) from capture')|$(sqlite3 "$T/a.db" 'select count(*) from spte_change')" "1|$before"
check "--force replaces it" "$MSC" import -q --force "$src" -o "$T/a.db"
check_eq "... with one capture" "$(sqlite3 "$T/a.db" 'select count(*) from capture')" 1
check "--append adds a second capture" "$MSC" import -q --append \
	"$TRACES/k612-npt_tdp_32m/trace.dat" -o "$T/a.db"
check_eq "... whose events follow the first's" \
	"$(sqlite3 "$T/a.db" 'select group_concat(first_seq || "-" || last_seq || ":" || complete, " ") from capture')" \
	"0-66104:1 66105-132211:1"
check_eq "... and the seq ranges hold exactly each capture's rows" \
	"$(sqlite3 "$T/a.db" 'select count(*) from spte_change s join capture c on s.seq between c.first_seq and c.last_seq group by c.id' | tr '\n' ' ')" \
	"32858 32858 "

# unwritable places
expect_error "output directory missing" "nodir/x.db: cannot open database: No such file or directory$" \
	"" "$MSC" import "$src" -o "$T/nodir/x.db"
expect_error "output under /proc" "/proc/x.db: cannot open database: " "" \
	"$MSC" import "$src" -o /proc/x.db

# a locked database: another program holds SQLite's write lock, until its
# input ends
mkfifo "$T/lock.in"
sqlite3 "$T/a.db" <"$T/lock.in" &
lockpid=$!
exec 9>"$T/lock.in"
# (it waits for the lock: the probe below holds it for a moment, and a
# holder that found it busy would insert without it, holding nothing)
echo ".timeout 10000" >&9
echo "BEGIN IMMEDIATE; INSERT INTO host_param VALUES (1, 'lock', 'held');" >&9
i=0	# it holds the lock once its row is there for it and a reader sees the lock
while sqlite3 "$T/a.db" "BEGIN IMMEDIATE; ROLLBACK" 2>/dev/null && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
expect_error "locked database, --append" "a.db: database is locked by another process$" "" \
	"$MSC" import --append "$src" -o "$T/a.db"
expect_error "locked database, --force" "a.db: database is locked by another process$" "" \
	"$MSC" import --force "$src" -o "$T/a.db"
exec 9>&-	# its input ends: it rolls back and exits
wait "$lockpid" 2>/dev/null
check_eq "the locked database kept its two captures" \
	"$(sqlite3 "$T/a.db" 'select count(*) from capture')" 2

# a full disk: a file-size limit makes every write past it fail (the input
# is uncompressed: a large compressed one is first copied uncompressed to
# $TMPDIR, which the limit would stop first)
trace-cmd convert -i "$big" -o "$T/big.dat" --compression none >/dev/null 2>&1
expect_error "disk full" "big.db: disk full$" "$T/big.db" \
	sh -c "ulimit -f 4000; exec \"$MSC\" import \"$T/big.dat\" -o \"$T/big.db\""
cp "$T/a.db" "$T/b.db"
expect_error "disk full while appending" "b.db: disk full$" "" \
	sh -c "ulimit -f $(( $(stat -c %s "$T/b.db") / 512 + 200 )); exec \"$MSC\" import --append \"$T/big.dat\" -o \"$T/b.db\""
expect_error "no room for the uncompressed copy of a large compressed trace" \
	"trace.dat: cannot write its uncompressed copy in \\\$TMPDIR \\(default /var/tmp\\)$" "$T/tmp.db" \
	env TMPDIR="$T/no-such-dir" "$MSC" import "$big" -o "$T/tmp.db"
check "a large compressed trace imports through its uncompressed copy, which is gone after" \
	env TMPDIR="$T/tmpdir" sh -c "mkdir -p \"$T/tmpdir\" && \"$MSC\" import -q \"$big\" -o \"$T/ok.db\" && [ -z \"\$(ls -A \"$T/tmpdir\")\" ]"""
# libtracecmd's copy drops a CPU's data when the file lists its CPUs
# sparsely (an idle CPU has no entry: here most of 97 CPUs are idle):
# the copy is checked, and the file read as it is, every event of it
"$MSC" synth -q -o "$T/sparse.dat" --kprobes off --guest-gib 8 --backing 1g --vcpus 96 \
	--stop-after enable_dirty_logging
want=$(trace-cmd report -N -i "$T/sparse.dat" 2>/dev/null | grep -c '^ ')
out=$("$MSC" import "$T/sparse.dat" -o "$T/sparse.db" 2>&1)
check_match "a copy that lost a CPU's data is said so" "$out" \
	"uncompressed copy lost the data of CPU 0; the compressed file is read as it is"
check_eq "... and every event of the file is stored (trace-cmd report's count)" \
	"$(sqlite3 "$T/sparse.db" 'select records from capture')" "$want"
# libtracecmd maps each CPU's decompressed data in windows that grow with
# the trace: at this size its 97 busy CPUs take more address space (6 GiB)
# than the reader's bound, which the copying child trades for one on its
# heap.  (Under the bound the copy died, and the file took 100 s to read.)
wide=$("$MSC" synth -o "$T/wide.dat" --kprobes off --guest-gib 48 --vcpus 96 \
	--stop-after enable_dirty_logging 2>&1 | sed -nE 's/^synth: ([0-9,]+) events.*/\1/p' | tr -d ,)
check_match "a compressed trace of 97 busy CPUs" "$wide" '^[1-9][0-9]*$'
out=$("$MSC" import "$T/wide.dat" -o "$T/wide.db" 2>&1)
check_eq "... is read from its uncompressed copy" "$(echo "$out" | grep -c "uncompressed copy")" 0
check_eq "... every event of it" "$(sqlite3 "$T/wide.db" 'select records from capture')" "$wide"
rm -f "$T/wide.dat" "$T/wide.db"
# the copying child dies (as libtracecmd may on a damaged file): the file
# is read as it is
out=$(MSC_READER_FAULT=copy-segv "$MSC" import "$big" -o "$T/copysegv.db" 2>&1)
check_match "a copy that died is said so" "$out" \
	"libtracecmd died writing the uncompressed copy; the compressed file is read as it is"
check_eq "... and every event of the file is stored" \
	"$(sqlite3 "$T/copysegv.db" 'select records from capture')" \
	"$(trace-cmd report -N -i "$big" 2>/dev/null | grep -c '^ ')"
# libtracecmd decompresses each CPU into /tmp/trace_cpu_dataXXXXXX (its
# fixed name): new_cpu_tmp BEFORE lists those that appeared since BEFORE
# and that no process holds open (what a run left behind)
cpu_tmp() { ls /tmp | grep '^trace_cpu_data' | sort; }
new_cpu_tmp() {
	cpu_tmp | comm -13 "$1" - | while read -r n; do
		ls -l /proc/[0-9]*/fd 2>/dev/null | grep -q "/tmp/$n" || echo "$n"
	done
}
cpu_tmp >"$T/tmp-before"
check "... and it leaves none of libtracecmd's per-CPU files in /tmp" \
	test -z "$(new_cpu_tmp "$T/tmp-before")"

# SIGKILL while the uncompressed copy is written: the copying child dies
# with its parent, and the next run removes the copy it left
mkdir -p "$T/killdir"
TMPDIR="$T/killdir" "$MSC" import -q "$big" -o "$T/killed.db" &
kpid=$!
i=0	# the copy is past its headers: libtracecmd has its /tmp files
while [ "$(cat "$T"/killdir/* 2>/dev/null | head -c 1048576 | wc -c)" -lt 1048576 ] && [ $i -lt 800 ]; do
	sleep 0.01
	i=$((i + 1))
done
kill -KILL "$kpid"
wait "$kpid" 2>/dev/null
i=0	# its child is killed by the kernel when it dies
while pgrep -f "import -q $big -o $T/killed.db" >/dev/null && [ $i -lt 100 ]; do
	sleep 0.05
	i=$((i + 1))
done
check_eq "SIGKILL during the copy: no process of the run is left" \
	"$(pgrep -f "import -q $big -o $T/killed.db" | wc -l)" 0
check_eq "... its copy (named for its reader, gone too) is what remains in \$TMPDIR" \
	"$(ls "$T/killdir" | grep -c "^mmuscope-[0-9]*-.*\.dat$")" 1
check "the next run removes it, and its own" \
	env TMPDIR="$T/killdir" sh -c "\"$MSC\" import -q \"$big\" -o \"$T/killed2.db\" && [ -z \"\$(ls -A \"$T/killdir\")\" ]"
# (the copy's parent unlinks libtracecmd's files as they appear, so a kill
# rarely leaves one; tests/unit/t-tracecmd-tmp.c tests that without timing)
check "... and of libtracecmd's files in /tmp nothing of the killed run is left after it" \
	test -z "$(new_cpu_tmp "$T/tmp-before")"

# what a killed libtracecmd left in /tmp is removed and named by the next
# import; a file a live process holds open is not touched
# (any import on this machine may take it first: tried up to three times)
held=$(mktemp /tmp/trace_cpu_dataXXXXXX)
sh -c 'exec 3<"$1"; exec sleep 30' sh "$held" &
holder=$!
sleep 0.2
for try in 1 2 3; do
	left=$(mktemp /tmp/trace_cpu_dataXXXXXX)
	rm -f "$T/left.db"
	out=$("$MSC" import -q "$src" -o "$T/left.db" 2>&1)
	case $out in *"temporary files libtracecmd left"*) break ;; esac
done
check_match "libtracecmd's leftovers in /tmp: one warning naming them" "$out" \
	"removed [0-9]+ temporary files libtracecmd left in /tmp \\(runs that were killed\\)$"
check "... the one no process holds is gone" test ! -e "$left"
check "... the one a live process holds open is kept" test -e "$held"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
rm -f "$left" "$held"

# the temporary files of killed runs beside the output are named and removed
# by the next run on it; a live run's are left alone
sh -c 'exit 0' &
dead=$!
wait "$dead"
for f in k.db.importing.$dead k.db.analysis.$dead-wal k.db.tmp.$dead.Ab12Cd k.db.importing.$$; do
	: >"$T/$f"
done
out=$("$MSC" import -q "$src" -o "$T/k.db" 2>&1)
check_match "leftovers of a killed run: one warning naming the output" "$out" \
	"k.db: removed 3 temporary files of a killed run beside it$"
check_eq "... they are gone, a live run's kept" "$(cd "$T" && ls k.db.*)" "k.db.importing.$$"

check_eq "the failed append was removed, the rest kept" \
	"$(sqlite3 "$T/b.db" 'select count(*) || " " || sum(complete) from capture')" "2 2"

# Ctrl-C: a text source fed through a FIFO that never ends
mkfifo "$T/fifo"
"$MSC" dump "$T/a.db" | head -1000 >"$T/part.events"
( cat "$T/part.events"; sleep 30 ) >"$T/fifo" &
feeder=$!
"$MSC" import --text "$T/fifo" -o "$T/int.db" >"$T/out" 2>"$T/err" &
imp=$!
sleep 1
kill -INT "$imp"
wait "$imp"
rc=$?
kill "$feeder" 2>/dev/null
check_eq "SIGINT: exit status 130" "$rc" 130
check_match "SIGINT: says so" "$(cat "$T/err")" "int.db|fifo: interrupted; no database written$"
check_eq "SIGINT: no database left" "$(ls "$T"/int.db* 2>/dev/null)" ""

# each CPU's data, as the file lays it out: version 6's flyrecord table
# ("flyrecord\0", then each CPU's offset and size) damaged in place
python3 - "$T/v6.dat" "$T" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
t = d.rindex(b'flyrecord\0') + 10
(o0, s0), (o1, s1) = struct.unpack_from('<QQ', d, t), struct.unpack_from('<QQ', d, t + 16)
def w(name, cpu, off, size):
    b = bytearray(d)
    struct.pack_into('<QQ', b, t + 16 * cpu, off, size)
    open(sys.argv[2] + '/' + name, 'wb').write(b)
w('overlap.dat', 1, o0, s1)	# CPU 1 reads CPU 0's pages
w('zero0.dat', 0, o0, 0)	# CPU 0's data belongs to none
w('zero1.dat', 1, o1, 0)	# and the last CPU's
PY
expect_error "v6: two CPUs' data overlap" \
	"overlap.dat: corrupt trace data: the data of CPU 0 and CPU 1 overlap \([0-9]+ bytes at offset [0-9]+\)$" \
	"$T/overlap.db" "$MSC" import "$T/overlap.dat" -o "$T/overlap.db"
expect_error "v6: the first CPU's size is 0: its pages belong to no CPU" \
	"zero0.dat: corrupt trace data: [0-9]+ bytes before CPU 1's data belong to no CPU$" \
	"$T/zero0.db" "$MSC" import "$T/zero0.dat" -o "$T/zero0.db"
expect_error "v6: the last CPU's size is 0" \
	"zero1.dat: corrupt trace data: the last [0-9]+ bytes of the file belong to no CPU$" \
	"$T/zero1.db" "$MSC" import "$T/zero1.dat" -o "$T/zero1.db"

# one damaged byte inside CPU 0's compressed data (it runs from 1953792 for
# 242506 bytes, `trace-cmd dump --options`): libtracecmd ends that CPU's
# stream there; the events after are marked lost, not dropped in silence
v7=$TRACES/k73-npt_tdp_32m/trace.dat
cp "$v7" "$T/zdmg.dat"
printf '\377' | dd of="$T/zdmg.dat" bs=1 seek=2000000 conv=notrunc 2>/dev/null
"$MSC" import -q "$v7" -o "$T/zok.db" 2>/dev/null
"$MSC" import -q "$T/zdmg.dat" -o "$T/zdmg.db" 2>"$T/err"
check_eq "the undamaged capture has no lost-event gap" \
	"$(sqlite3 "$T/zok.db" 'select lost_marks from capture')" 0
check_match "damaged compressed data: a warning names the CPU and how far it was read" \
	"$(cat "$T/err")" "zdmg.dat: CPU 0: its data could not be read past [0-9]+ of its [0-9]+ KiB \(damaged\): the events after are lost"
check_eq "... the capture has one lost-event gap of unknown size" \
	"$(sqlite3 "$T/zdmg.db" 'select lost, lost_marks from capture')" "0|1"
check_eq "... on CPU 0, after its last event read" \
	"$(sqlite3 "$T/zdmg.db" "select count(*) from lost_events l where l.cpu = 0 and l.count = 0 and not exists (select 1 from spte_change e where e.cpu = 0 and e.ts > l.ts) and not exists (select 1 from fault e where e.cpu = 0 and e.ts > l.ts)")" 1
check_match "... and says so" "$(cat "$T/err")" "1 lost-event gaps of unknown size: history after them is marked"

# out of memory is said as such, not taken for damage: libtracecmd ends a
# CPU's stream where a mapping fails as where a page is damaged (ENOMEM), or
# dies on an allocation it did not check (a crash, said as one, not ENOMEM) (60 MB of address space: too little
# for its 256 MiB windows; ASan needs far more)
case ${MSC_BUILD:-} in
*asan*) ok "out of memory while reading: not damage # skip under ASan" ;;
*)	expect_error "out of memory while reading: said so, not taken for damaged data" \
		"trace.dat: (Cannot allocate memory|the trace reader failed: libtracecmd died reading it \\([A-Za-z ]+\\) within the [0-9]+ MiB of address space this process may have \\(ulimit -v\\): it may have run out of memory, or the file is damaged)$" "$T/oom.db" \
		sh -c "ulimit -v 60000; exec \"$MSC\" import -q \"$big\" -o \"$T/oom.db\"" ;;
esac

expect_error "bad --host" "--host vendor=arm: expected" "" "$MSC" import --host vendor=arm "$src" -o "$T/h.db"

done_testing
