#!/bin/sh
# gen-man.sh MMUSCOPE OUTDIR VERSION: the man pages, mmuscope(1) and
# mmuscope-CMD(1) for each command, made from the program's own help
# (cli/help.c: one text for --help and for the pages).
set -eu
msc=$1
out=$2
version=$3
mkdir -p "$out"

# roff-safe text: backslashes doubled, leading dots and quotes guarded
esc() { sed -e 's/\\/\\\\/g' -e 's/^\([.'"'"']\)/\\\&\1/' -e 's/-/\\-/g'; }

cmds=$("$msc" --help | sed -n 's/^  \([a-z]*\)  .*/\1/p')
{
	printf '.TH MMUSCOPE 1 "" "mmuscope %s" "User Commands"\n' "$version"
	printf '.SH NAME\nmmuscope \\- make the KVM x86 MMU visible\n'
	printf '.SH SYNOPSIS\n.B mmuscope\n.I command\n[\n.I args\n]\n'
	printf '.SH DESCRIPTION\n.nf\n'
	"$msc" --help | sed 1,2d | esc
	printf '.fi\n.SH SEE ALSO\n'
	for c in $cmds; do printf '.BR mmuscope\\-%s (1),\n' "$c"; done
	printf '.BR trace\\-cmd (1)\n'
} >"$out/mmuscope.1"
for c in $cmds; do
	{
		printf '.TH MMUSCOPE\\-%s 1 "" "mmuscope %s" "User Commands"\n' \
			"$(echo "$c" | tr a-z A-Z)" "$version"
		printf '.SH NAME\nmmuscope\\-%s \\- %s\n' "$c" \
			"$("$msc" help "$c" | sed -n 2p | esc)"
		printf '.SH SYNOPSIS\n.nf\n'
		"$msc" help "$c" | sed -n 's/^usage: //p' | esc
		printf '.fi\n.SH DESCRIPTION\n.nf\n'
		"$msc" help "$c" | sed 1,3d | esc
		printf '.fi\n.SH SEE ALSO\n.BR mmuscope (1)\n'
	} >"$out/mmuscope-$c.1"
done
