#!/bin/sh
# make install / make uninstall into a DESTDIR: the installed program works
# from anywhere (synth finds its installed formats), the man pages render,
# bash completes commands and options, the trace-cmd plugin goes to the
# installing user's plugin directory (where trace-cmd report then decodes
# SPTEs) unless PLUGIN_SYSTEM=1, and uninstall leaves nothing behind.
. "$(dirname "$0")/lib.sh"

top=$MSC_TEST_DATA/../..
root=$T/root
home=$T/home
mkdir -p "$home"
inst() { make -C "$top" --no-print-directory -s O="${MSC_BUILD:-build}" DESTDIR="$root" \
	PREFIX=/opt/msc HOME="$home" "$@" >"$T/make.log" 2>&1; }

check "make install into a DESTDIR" inst install
bin=$root/opt/msc/bin/mmuscope
check "the program is installed" test -x "$bin"
(cd / && env -u MSC_FORMATS_DIR "$bin" synth -q -o "$T/x.dat" --guest-mib 16 --kernel 7.3) 2>"$T/err"
check_eq "installed synth, run from /, finds its formats" "$?:$(cat "$T/err")" "0:"
check "... and its trace imports" "$bin" import -q "$T/x.dat" -o "$T/x.db"
for page in mmuscope mmuscope-import mmuscope-diff mmuscope-report; do
	f=$root/opt/msc/share/man/man1/$page.1
	check_match "man page $page(1) renders" "$(MANWIDTH=100 man -l "$f" 2>&1 | head -3)" \
		"^$(echo "$page" | tr a-z A-Z)\\(1\\)"
done
check_match "mmuscope-report(1) explains --brief" \
	"$(MANWIDTH=100 man -l "$root/opt/msc/share/man/man1/mmuscope-report.1" 2>/dev/null)" '--brief +one screen'
comp=$root/opt/msc/share/bash-completion/completions/mmuscope
complete_words() { bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _mmuscope;
	echo "${COMPREPLY[*]}"' sh "$comp" "$@"; }
check_eq "bash completes a command" "$(complete_words mmuscope di)" "diff"
check_eq "... and a command's options" "$(complete_words mmuscope report --b)" "--brief"
# (DESTDIR stages everything, the user's home too)
sysdir=$(pkg-config --variable=libdir libtraceevent)/traceevent/plugins
plugin=$root$home/.local/lib/traceevent/plugins/plugin_kvmmmu.so
check "the plugin goes to the installing user's plugin directory" test -f "$plugin"
check_eq "... not the system's" "$(find "$root$sysdir" -name plugin_kvmmmu.so 2>/dev/null)" ""
check_match "trace-cmd report of that user decodes SPTEs with it" \
	"$(HOME=$root$home trace-cmd report -i "$TRACES/k612-npt_tdp_32m/trace.dat" 2>/dev/null |
	   grep -m1 kvm_tdp_mmu_spte_changed)" ' class [a-z-]+'

check "make uninstall" inst uninstall
check_eq "uninstall leaves nothing of it" "$(find "$root" -type f)" ""

check "PLUGIN_SYSTEM=1 installs the plugin for every user" inst install-plugins PLUGIN_SYSTEM=1
check "... into the system directory" test -f "$root$sysdir/plugin_kvmmmu.so"
done_testing
