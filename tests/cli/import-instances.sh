#!/bin/sh
# trace-cmd instance buffers (`trace-cmd record -B NAME`; mutate.py lays
# them out as trace-cmd does, `trace-cmd report` reads them): none is
# ignored without a word (issue 33: 5,220 of 10,440 events, silently), and
# a file whose events are only in an instance imports them (it read "no
# kvm or kvmmmu events").  --instance NAME reads the one named.
. "$(dirname "$0")/lib.sh"

base=$TRACES/k61-npt_tdp_32m/trace.dat
python3 "$(dirname "$0")/../fuzz/mutate.py" "$base" "$T/in" named
"$MSC" import -q "$base" -o "$T/base.db"
all=$("$MSC" dump "$T/base.db" | grep -vc '^#')

f=$T/in/instances-2.dat
"$MSC" import -q "$f" -o "$T/a.db" 2>"$T/err"
check_eq "two instances beside the top buffer: imported" "$?" 0
check_eq "... the top buffer's events" "$("$MSC" dump "$T/a.db" | grep -vc '^#')" "$all"
check_eq "... each instance not read named in a warning" "$(cat "$T/err")" \
"mmuscope import: warning: $f: instance buffer \"kvm\" is not read (import --instance kvm)
mmuscope import: warning: $f: instance buffer \"other\" is not read (import --instance other)"
"$MSC" import "$f" --instance other -o "$T/o.db" >"$T/out" 2>"$T/err"
check_eq "--instance other: imported" "$?" 0
check_eq "... its events" "$("$MSC" dump "$T/o.db" | grep -vc '^#')" "$all"
check_match "... the summary names it" "$(cat "$T/out")" "instance buffer: other"
check_match "... the others named in warnings" "$(cat "$T/err")" 'instance buffer "kvm" is not read'
"$MSC" import -q "$f" --instance nope -o "$T/n.db" 2>"$T/err"
check_eq "--instance nope: refused" "$?" 1
check_eq "... one line naming those there are" "$(cat "$T/err")" \
	"mmuscope import: $f: no such trace-cmd instance buffer: no instance buffer \"nope\" (it has: kvm, other)"

f=$T/in/instance-only.dat
"$MSC" import -q "$f" -o "$T/i.db" 2>"$T/err"
check_eq "events only in an instance: imported" "$?" 0
check_eq "... all of them" "$("$MSC" dump "$T/i.db" | grep -vc '^#')" "$all"
check_eq "... a warning says which buffer was read" "$(cat "$T/err")" \
	"mmuscope import: warning: $f: the top buffer holds no events: instance \"kvm\" is read"
done_testing
