#!/bin/sh
# Damaged and hostile databases through every command that reads one
# (issue 33): import --append onto it, analyze, report (text, --json,
# --brief), dump, diff, view (headless).  `top` records live only: skipped.
#
# The family: pages of a real database overwritten with random bytes, runs
# of random bytes inside a page, the file cut short; schema changes (a
# dropped column, a table replaced by a view, a never-ending recursive view
# where the capture table was, an extra trigger, a view redefined); a FIFO,
# a directory, a symlink (to the database, and dangling), a FIFO where the
# WAL goes.  Each run ends within `timeout` (no hang), not by a signal (no
# crash), and either exits non-zero with exactly one line naming the file
# that says more than "database error", or exits 0 with the output of the
# undamaged database: a damaged database never answers differently.
#
# Then: a database on a read-only file system and on a full disk is read
# (report, dump, diff, view give the undamaged output; analyze says why it
# cannot write), and SIGINT during `analyze --rebuild` stops it at once,
# exit 130, one line, the database intact.
#
# `make check` runs FUZZ_N=40 inputs; `make fuzz` runs many more.
. "$(dirname "$0")/lib.sh"

N=${FUZZ_N:-40}
SEED=${FUZZ_SEED:-1}
TMO=${DBH_TIMEOUT:-60}
SCRIPTS=$(cd "$(dirname "$0")/../tui" && pwd)
export LINES=24 COLUMNS=80 TERM=xterm-256color LC_ALL=C.UTF-8
unset NO_COLOR MSC_TUI_SCRIPT MSC_TUI_NO_DISPLAY MSC_TUI_SCREEN_DIR MSC_STORE_CHECK_MAX
trace=$TRACES/k61-npt_tdp_32m/trace.dat
base=$T/base.db
"$MSC" import -q "$trace" -o "$base" || { not_ok "import the base database"; done_testing; exit 1; }
mkdir -p "$T/cur" "$T/oth" "$T/mnt"
"$MSC" import -q "$trace" -o "$T/oth/other.db"
# Every database a run reads is at $T/cur/base.db (a copy) or a name of its
# length (view's title, diff's header show it): $T/mnt/base.db on the
# mounted media, $T/cur/link.db for the symlink.

# run NAME DB OUT CMD: the command on DB, its output (stdout, or view's
# screens) in OUT, its stderr in OUT.err; prints the exit status
run() {
	_cmd=$4
	case $_cmd in
	view)
		rm -rf "$3.screens"
		mkdir -p "$3.screens"
		timeout -k 5 "$TMO" "$MSC" view "$2" --script "$SCRIPTS/overview.script" --no-display \
			--screen-dir "$3.screens" >/dev/null 2>"$3.err"
		_rc=$?
		cat "$3.screens"/* >"$3" 2>/dev/null ;;
	diff)
		timeout -k 5 "$TMO" "$MSC" diff "$T/oth/other.db" "$2" >"$3" 2>"$3.err"
		_rc=$? ;;
	analyze)
		timeout -k 5 "$TMO" "$MSC" analyze -q --rebuild "$2" >/dev/null 2>"$3.err"
		_rc=$?
		# what it analyzed must be what the undamaged file gives
		[ $_rc = 0 ] && "$MSC" report "$2" >"$3" 2>/dev/null ;;
	append)
		timeout -k 5 "$TMO" "$MSC" import -q --no-analyze --append "$trace" -o "$2" \
			>/dev/null 2>"$3.err"
		_rc=$?
		[ $_rc = 0 ] && "$MSC" dump "$2" >"$3" 2>/dev/null ;;
	*)
		timeout -k 5 "$TMO" "$MSC" $_cmd "$2" >"$3" 2>"$3.err"
		_rc=$? ;;
	esac
	# the file's name aside (the same length: screens wrap the same)
	[ -f "$3" ] && sed -i "s|$2|DB|g; s|$(basename "$2")|DB|g" "$3"
	echo $_rc
}

COMMANDS="append analyze report report_--json report_--brief dump diff view"
# the undamaged outputs (append and analyze write: on copies)
for c in $COMMANDS; do
	cp "$base" "$T/cur/base.db"
	rc=$(run "$c" "$T/cur/base.db" "$T/want.$c" "$(echo "$c" | tr _ ' ')")
	check_eq "undamaged database: $c exits 0" "$rc" 0
	rm -f "$T/cur/base.db"*
done

# judge NAME DB CMD RC OUT: one verdict on stdout: ok, crash, hang, unclear, wrong
judge() {
	_errs=$(grep -v ': warning: ' "$5.err" | grep -c .)
	case $4 in
	0)
		if cmp -s "$5" "$T/want.$3"; then echo ok; else echo wrong; fi ;;
	124 | 137) echo hang ;;	# timeout's TERM, and its KILL 5 s later: TERM ignored
	1 | 2)
		if [ "$_errs" = 1 ] && grep -v ': warning: ' "$5.err" | grep -qF "$2" &&
		   ! grep -v ': warning: ' "$5.err" | grep -qE ': database error$'; then
			echo ok
		else
			echo unclear
		fi ;;
	*) echo crash ;;
	esac
}

# ---- the family ----
mkdir -p "$T/in"
python3 - "$base" "$T/in" "$SEED" "$N" <<'EOF'
import os, random, shutil, sqlite3, sys

base, out, seed, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rnd = random.Random(seed)
data = open(base, 'rb').read()
psize = int.from_bytes(data[16:18], 'big') or 65536
pages = len(data) // psize

def write(name, b):
    open(os.path.join(out, name), 'wb').write(b)

def schema(name, sql):
    p = os.path.join(out, name)
    shutil.copy(base, p)
    c = sqlite3.connect(p)
    c.executescript(sql)
    c.close()

named = [
    ('dropped-column', 'ALTER TABLE capture DROP COLUMN vendor'),
    ('table-as-view', 'DROP TABLE marker; CREATE VIEW marker AS SELECT 1 AS seq'),
    ('recursive-view', 'DROP TABLE capture; CREATE VIEW capture AS WITH RECURSIVE '
     'r(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM r) SELECT x AS id FROM r'),
    ('extra-trigger', 'CREATE TRIGGER t AFTER INSERT ON capture BEGIN SELECT 1; END'),
    ('view-redefined', 'DROP VIEW spte_change; CREATE VIEW spte_change AS WITH RECURSIVE '
     'r(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM r) SELECT x AS seq FROM r'),
    ('dropped-table', 'DROP TABLE phase'),
]
for name, sql in named:
    schema(name + '.db', sql)
write('truncated-half.db', data[:pages // 2 * psize])
write('truncated-odd.db', data[:len(data) - 1234])
write('empty.db', b'')
k = len(named) + 3
i = 0
while k < n:
    b = bytearray(data)
    kind = ('page', 'bytes', 'truncate')[i % 3]
    if kind == 'page':
        # whole pages of garbage, as a torn or misdirected write leaves them
        for _ in range(rnd.randint(1, 3)):
            p = rnd.randrange(pages)
            b[p * psize:(p + 1) * psize] = rnd.randbytes(psize)
    elif kind == 'bytes':
        # a run of random bytes from a random page's start (its header, cell pointers)
        p = rnd.randrange(pages)
        ln = rnd.randint(8, 512)
        b[p * psize:p * psize + ln] = rnd.randbytes(ln)
    else:
        b = b[:rnd.randrange(psize, len(b))]
    write('%s-%03d.db' % (kind, i), bytes(b))
    i += 1
    k += 1
EOF
mkfifo "$T/in/fifo.db"
mkdir "$T/in/dir.db"
ln -s "$base" "$T/cur/link.db"
ln -s "$T/cur/link.db" "$T/in/symlink.db"	# the loop below reads it at $T/cur/link.db
ln -s "$T/nowhere.db" "$T/in/dangling.db"
cp "$base" "$T/in/fifo-wal.db"
mkfifo "$T/in/fifo-wal.db-wal"

crash=0 hang=0 unclear=0 wrong=0 runs=0 inputs=0
for f in "$T"/in/*.db; do
	inputs=$((inputs + 1))
	for c in $COMMANDS; do
		db=$f
		# a file is read (and written) as a copy at $T/cur/base.db; what is
		# not a file is read as it is
		if [ "$f" = "$T/in/symlink.db" ]; then
			db=$T/cur/link.db
		elif [ -f "$f" ] && [ ! -e "$f-wal" ]; then
			db=$T/cur/base.db
			rm -f "$db"*
			cp "$f" "$db"
		fi
		# an empty file is an empty database to SQLite: append makes it one
		[ "$c" = append ] && [ ! -s "$f" ] && continue
		runs=$((runs + 1))
		rc=$(run "$c" "$db" "$T/got" "$(echo "$c" | tr _ ' ')")
		v=$(judge "$f" "$db" "$c" "$rc" "$T/got")
		case $v in
		ok) ;;
		*)
			eval "$v=\$((\$$v + 1))"
			diag "$(basename "$f") $c: $v (exit $rc): $(head -2 "$T/got.err" | tr '\n' '|')" ;;
		esac
	done
done
check_eq "$inputs damaged databases x $(echo $COMMANDS | wc -w) commands ($runs runs): crashed, hung, unclear, answered differently" \
	"$crash $hang $unclear $wrong" "0 0 0 0"

# ---- a read-only file system, a full disk: read, never 'disk full' ----
if unshare -m true 2>/dev/null; then
	# media RO|FULL: mount a tmpfs on $T/mnt as such, run the readers, print verdicts
	media() {
		MSC=$MSC T=$T base=$base SCRIPTS=$SCRIPTS TMO=$TMO unshare -m sh -c '
		set -u
		mkdir -p "$T/mnt"
		if [ "$1" = ro ]; then
			mount -t tmpfs -o size=16m none "$T/mnt" && cp "$T/oth/other.db" "$base" "$T/mnt/" &&
				mount -o remount,ro "$T/mnt" || exit 99
		else
			mount -t tmpfs -o size=8m none "$T/mnt" && cp "$T/oth/other.db" "$base" "$T/mnt/" ||
				exit 99
			dd if=/dev/zero of="$T/mnt/fill" bs=64k 2>/dev/null
		fi
		for c in report dump view; do
			case $c in
			view) rm -rf "$T/s"; mkdir -p "$T/s"
			      timeout -k 5 "$TMO" "$MSC" view "$T/mnt/base.db" --script "$SCRIPTS/overview.script" \
				--no-display --screen-dir "$T/s" >/dev/null 2>"$T/m.err"
			      echo "$c $? $(cat "$T/s"/* | sed "s|$T/mnt/base.db|DB|g; s|base.db|DB|g" | cksum) $(cat "$T/m.err")" ;;
			*) timeout -k 5 "$TMO" "$MSC" $c "$T/mnt/base.db" 2>"$T/m.err" | sed "s|$T/mnt/base.db|DB|g" |
				cksum >"$T/m.sum"
			   echo "$c $(cat "$T/m.sum") $(cat "$T/m.err")" ;;
			esac
		done
		timeout -k 5 "$TMO" "$MSC" diff "$T/oth/other.db" "$T/mnt/base.db" 2>&1 |
			sed "s|$T/mnt/base.db|DB|g" | cksum
		timeout -k 5 "$TMO" "$MSC" analyze -q "$T/mnt/base.db" 2>&1
		echo "analyze exit $?"
		umount "$T/mnt"' sh "$1"
	}
	want_view=$(cksum <"$T/want.view")
	for m in ro full; do
		out=$(media $m)
		if [ $? = 99 ]; then
			ok "# SKIP $m: cannot mount a tmpfs here"
			continue
		fi
		check_eq "$m: report reads it, same output" "$(echo "$out" | grep '^report')" \
			"report $(cksum <"$T/want.report") "
		check_eq "$m: dump reads it, same output" "$(echo "$out" | grep '^dump')" \
			"dump $(cksum <"$T/want.dump") "
		check_eq "$m: view reads it, same screens" "$(echo "$out" | grep '^view')" \
			"view 0 $want_view "
		check_eq "$m: diff reads it, same output" "$(echo "$out" | sed -n 4p)" \
			"$(cksum <"$T/want.diff")"
		check_eq "$m: no reader says 'disk full' or 'No such file'" \
			"$(echo "$out" | head -4 | grep -cE 'disk full|No such file')" 0
	done
	check_match "ro: analyze says it cannot write, in one line, exit 1" \
		"$(media ro | tail -2 | tr '\n' '|')" \
		"^mmuscope analyze: $T/mnt/base.db: cannot open database: Read-only file system: cannot write it\|analyze exit 1\|$"
else
	ok "# SKIP read-only and full media: no unshare -m here"
fi

# ---- SIGINT inside analyze: stops, exit 130, one line, database intact ----
# the biggest trace twice: its analysis takes ~2 s here
big=$TRACES/k73-npt_tdp_1g_hugetlb/trace.dat
"$MSC" import -q --no-analyze "$big" -o "$T/big.db"
"$MSC" import -q --no-analyze --append "$big" -o "$T/big.db"
"$MSC" analyze -q "$T/big.db"
"$MSC" report "$T/big.db" >"$T/big.want"
"$MSC" analyze -q --rebuild "$T/big.db" 2>"$T/int.err" &
pid=$!
# how long it runs is the machine's speed, not asserted here: an analysis
# done before the signal has nothing to interrupt
sleep 1
kill -INT $pid 2>/dev/null
wait $pid
rc=$?
if [ $rc = 0 ]; then
	ok "# SKIP SIGINT inside analyze --rebuild: the analysis ended before the signal"
	ok "# SKIP ... one line: interrupted"
else
	check_eq "SIGINT inside analyze --rebuild: exit 130" "$rc" 130
	check_match "... one line: interrupted (in the analysis, or still checking the file)" \
		"$(cat "$T/int.err")" "^mmuscope analyze: $T/big.db: (cannot open database: )?interrupted$"
fi
check_eq "... the database intact (quick_check)" "$(sqlite3 "$T/big.db" 'PRAGMA quick_check')" ok
"$MSC" analyze -q "$T/big.db"
"$MSC" report "$T/big.db" >"$T/big.got"
check "... and analyzed again, the same report" cmp "$T/big.want" "$T/big.got"
done_testing
