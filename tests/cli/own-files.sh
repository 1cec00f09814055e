#!/bin/sh
# mmuscope runs as root on shared hosts: no file name ever reaches a shell,
# and the only files it removes are its own temporary ones: its names, its
# uid, a process that is gone, nothing followed.
#   record --trace-dat with names a shell would run;
#   what killed runs left in $TMPDIR (import's uncompressed copy, the TUI's
#   directory) beside look-alikes that are not ours, through the commands.
. "$(dirname "$0")/lib.sh"

# a pid no process has now (the shell that printed it has been reaped)
dead=$(sh -c 'echo $$')
while kill -0 "$dead" 2>/dev/null; do dead=$(sh -c 'echo $$'); done

# ---- record --trace-dat: names a shell would split or run ----
"$MSC" synth -q --tracing-dir "$T/tree" --instance mmuscope --guest-mib 16 --passes 1 --seed 3
mkdir "$T/rec"
echo "keep me" >"$T/rec/victim"
for name in "x' 'victim' 'y.dat" "x'\$(id>pwned)'.dat" 'a;touch pwned;.dat' '$(touch pwned).dat'; do
	(cd "$T/rec" && "$MSC" record -q --tracing-dir "$T/tree" -o r.db --trace-dat "$name" --force \
		>/dev/null 2>&1)
	check_eq "record --trace-dat \"$name\": written under that very name" \
		"$(test -s "$T/rec/$name" && echo yes)" yes
	check_eq "... ./victim is there, nothing ran, no staging directory left" \
		"$(cat "$T/rec/victim"; test -e "$T/rec/pwned" && echo ran; ls "$T/rec" | grep -c '\.parts\.')" \
		"keep me
0"
	check "... and it imports" "$MSC" import -q "$T/rec/$name" -o "$T/rec/back.db" --force
	rm -f "$T/rec/$name"
done

# ---- $TMPDIR: only what this user's killed runs left ----
# Each pair: one of ours (the shape the program makes, this uid, its process
# gone) and look-alikes: another user's, another shape, a symlink, a live pid.
lay_out() { # DIR PREFIX SEP TAIL
	d=$1 p=$2 s=$3 t=$4
	mkdir -p "$d"
	echo ours >"$d/$p$dead${s}Ab3dE9$t"
	mkdir "$d/$p$dead${s}Zz9yX1$t.d" 2>/dev/null	# a name of another shape
	echo theirs >"$d/$p$dead${s}Qq1wE2$t"
	chown nobody "$d/$p$dead${s}Qq1wE2$t"
	mkdir -p "$d/$p$dead${s}Dd0dD0$t/sub"
	echo theirs >"$d/$p$dead${s}Dd0dD0$t/sub/f"
	chown -R nobody "$d/$p$dead${s}Dd0dD0$t"
	echo target >"$d/target"
	ln -s target "$d/$p$dead${s}Ll0lL0$t"
	echo live >"$d/$p$$${s}Pp0pP0$t"
	echo other >"$d/$p${dead}x"
	echo other >"$d/$p$dead"
	chown nobody "$d/$p$dead"
}
left() { ls -A "$1" | sort | tr '\n' ' '; }

# import of a compressed trace over 8 MB writes an uncompressed copy in $TMPDIR
big=$TRACES/k612-npt_tdp_1g_hugetlb/trace.dat
lay_out "$T/tmp" mmuscope- - .dat
before=$(left "$T/tmp")
check "import of a large compressed trace" \
	env TMPDIR="$T/tmp" "$MSC" import -q "$big" -o "$T/big.db"
check_eq "... removed the copy a killed run left, and nothing else" \
	"$(left "$T/tmp")" "$(printf '%s\n' $before | grep -v "^mmuscope-$dead-Ab3dE9.dat\$" | sort |
		tr '\n' ' ')"
check_eq "... another user's directory is whole" \
	"$(cat "$T/tmp/mmuscope-$dead-Dd0dD0.dat/sub/f")" theirs
check_eq "... the symlink's target untouched" "$(cat "$T/tmp/target")" target

# view and top make a private directory there, and remove a killed run's
lay_out "$T/tui" mmuscope-tui. . ""
mkdir "$T/tui/mmuscope-tui.$dead.Kk0kK0"
echo "a side analysis" >"$T/tui/mmuscope-tui.$dead.Kk0kK0/analysis.db"
before=$(left "$T/tui")
printf 'q\n' >"$T/q.script"
check "view runs with TMPDIR set" env TMPDIR="$T/tui" \
	"$MSC" view "$T/big.db" --script "$T/q.script" --no-display --screen-dir "$T/screens"
check_eq "... removed its own directory and the killed runs', nothing else" \
	"$(left "$T/tui")" "$(printf '%s\n' $before | grep -v -e "^mmuscope-tui.$dead.Ab3dE9\$" \
		-e "^mmuscope-tui.$dead.Kk0kK0\$" | sort | tr '\n' ' ')"
done_testing
