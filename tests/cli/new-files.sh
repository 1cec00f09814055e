#!/bin/sh
# Every file mmuscope writes holds host physical addresses: it is created
# new, 0600 whatever the umask, never through a symlink planted where it
# goes (the link is replaced, its target untouched), and nothing of it is
# left beside it: synth -o, record --trace-dat, report --svg, import -o.
. "$(dirname "$0")/lib.sh"

umask 022
echo "keep me" >"$T/victim"
chmod 644 "$T/victim"
plant() { ln -sf "$T/victim" "$1"; }
# the place holds a private regular file now, the victim is as it was
private() {
	check_eq "$1: a regular file, 0600; the symlink's target untouched" \
		"$(test -f "$2" && test ! -L "$2" && stat -c %a "$2") $(cat "$T/victim") $(stat -c %a "$T/victim")" \
		"600 keep me 644"
	check_eq "$1: no temporary file left" "$(ls "$(dirname "$2")" | grep -c '\.tmp\.')" 0
}

SYN="--guest-mib 16 --passes 1 --seed 3"
plant "$T/s.dat"
# shellcheck disable=SC2086
check "synth -o over a symlink" "$MSC" synth -q -o "$T/s.dat" $SYN
private "synth -o" "$T/s.dat"
check "... and the file imports" "$MSC" import -q "$T/s.dat" -o "$T/s.db"

# shellcheck disable=SC2086
"$MSC" synth -q --tracing-dir "$T/tree" --instance mmuscope $SYN
plant "$T/r.dat"
check "record --trace-dat over a symlink" \
	"$MSC" record -q --tracing-dir "$T/tree" -o "$T/r.db" --trace-dat "$T/r.dat"
private "record --trace-dat" "$T/r.dat"
private "record -o" "$T/r.db"

mkdir "$T/svg"
plant "$T/svg/coverage.svg"
check "report --svg over a symlink" sh -c "\"$MSC\" report --svg '$T/svg' '$T/s.db' >/dev/null"
private "report --svg" "$T/svg/coverage.svg"

plant "$T/i.db"
check_fails "import -o onto a symlink: refused, it exists" "$MSC" import -q "$T/s.dat" -o "$T/i.db"
check "import --force -o onto a symlink" "$MSC" import -q --force "$T/s.dat" -o "$T/i.db"
private "import --force -o: the link is replaced" "$T/i.db"
plant "$T/f.db"
check "record --force -o onto a symlink" \
	"$MSC" record -q --force --tracing-dir "$T/tree" -o "$T/f.db"
private "record --force -o: the link is replaced" "$T/f.db"
done_testing
