#!/bin/sh
# Golden tests of the libtraceevent plugin (plugins/plugin-kvmmmu.c): each
# real capture printed by `trace-cmd report` with the plugin loaded, cut to a
# small summary (the first lines of every event the plugin prints, the last
# lines, and counts per change class), compared with tests/golden/plugin/.
# UPDATE=1 rewrites the goldens.
. "$(dirname "$0")/lib.sh"
TOP=$(cd "$(dirname "$0")/../.." && pwd)
GOLDEN=$TOP/tests/golden/plugin

if ! command -v trace-cmd >/dev/null 2>&1; then
	diag "trace-cmd is not installed"
	not_ok "trace-cmd available"
	done_testing
	exit
fi

# The plugin is loaded into trace-cmd: build it without the test build's
# flags (an ASan build could not be loaded there).
PLUGDIR=$T/plugins
if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u CFLAGS -u LDFLAGS \
	make -s -C "$TOP" -f Makefile -f plugins/plugins.mk O="$T/build" plugins >"$T/make.log" 2>&1; then
	mkdir -p "$PLUGDIR"
	cp "$T/build/plugins/plugin_kvmmmu.so" "$PLUGDIR/"
	ok "plugin builds"
else
	not_ok "plugin builds"
	sed 's/^/# /' "$T/make.log" | tail -n 5
	done_testing
	exit
fi

# report FILE [trace-cmd options]: only our plugin dir and the system one
report() {
	f=$1
	shift
	HOME=$T TRACEEVENT_PLUGIN_DIR=$PLUGDIR trace-cmd report "$@" -i "$f" 2>/dev/null
}

# summary < report: small, stable, and covering every handler
summarize() {
	awk '
	{ lines[NR] = $0 }
	match($0, /\] +[0-9.]+: [a-z_0-9]+:/) {
		split(substr($0, RSTART, RLENGTH), h, " ")
		ev = h[3]
		sub(/:$/, "", ev)
		if (ev ~ /^(kvm_tdp_mmu_spte_changed|kvm_mmu_split_huge_page|fast_page_fault|kvm_mmu_get_page|kvm_mmu_prepare_zap_page|kvm_flush_remote_tlbs|kvm_mmu_slot_dirty_logging_begin|kvm_mmu_slot_dirty_logging_end|kvm_mmu_split_huge_pages|kvm_mmu_zap_collapsible_sptes|kvm_mmu_recover_huge_pages|kvm_dirty_log_harvest)$/) {
			events[ev]++
			if (events[ev] <= 3)
				first[ev] = first[ev] $0 "\n"
			if ($0 ~ / class [a-z-]+/) {
				c = $0
				sub(/.* class /, "", c)
				sub(/ .*/, "", c)
				classes[ev " " c]++
			}
		}
	}
	END {
		n = split("kvm_tdp_mmu_spte_changed kvm_mmu_split_huge_page fast_page_fault kvm_mmu_get_page kvm_mmu_prepare_zap_page kvm_flush_remote_tlbs kvm_mmu_slot_dirty_logging_begin kvm_mmu_slot_dirty_logging_end kvm_mmu_split_huge_pages kvm_mmu_zap_collapsible_sptes kvm_mmu_recover_huge_pages kvm_dirty_log_harvest", order, " ")
		for (i = 1; i <= n; i++)
			if (events[order[i]]) {
				print "== " order[i] ": " events[order[i]] " events, first ones"
				printf "%s", first[order[i]]
			}
		print "== change classes"
		for (k in classes)
			print k ": " classes[k] | "sort"
		close("sort")
		print "== last lines"
		for (i = NR - 2; i <= NR; i++)
			if (i > 0)
				print lines[i]
	}'
}

for d in "$TRACES"/k61* "$TRACES"/k7*; do
	[ -s "$d/trace.dat" ] || continue
	name=$(basename "$d")
	report "$d/trace.dat" | summarize > "$T/$name.txt"
	check_golden "plugin report of $name" "$T/$name.txt" "$GOLDEN/$name.txt"
done

# The plugin decodes: SPTEs as leaves with W/D/A, a change class per event.
d=$TRACES/k612msc-npt_tdp_32m
out=$(report "$d/trace.dat" | grep -m 1 'fast_page_fault:')
check_match "fast_page_fault decoded with the plugin" "$out" \
	'\(4K leaf pfn 0x[0-9a-f]+ wp D A\) -> 0x[0-9a-f]+ \(4K leaf pfn 0x[0-9a-f]+ W D A\) class make-writable'
out=$(HOME=$T TRACEEVENT_PLUGIN_DIR=$T/none trace-cmd report -i "$d/trace.dat" 2>/dev/null | grep -m 1 'fast_page_fault:')
check_match "without the plugin the kernel's print fmt is used" "$out" 'spurious [01] fixed [01]'

# 7.x: the page role's access is 4 bits (a TDP table is "direct rwux", valid),
# and the children of a removed table receive 7.x's own FROZEN_SPTE
d7=$TRACES/k73-npt_tdp_32m
out=$(report "$d7/trace.dat" | grep -m 1 'kvm_mmu_get_page:')
check_match "7.x page role decoded with 4 access bits" "$out" \
	'sp gen 0 gfn 0 l4 8-byte q0 direct rwux nxe ad root 0 sync new$'
out=$(report "$d7/trace.dat" | grep -m 1 ' -> 0x80000000000001a0')
check_match "7.x FROZEN_SPTE named frozen, the child a teardown child" "$out" \
	'-> 0x80000000000001a0 \(frozen\) class teardown-child$'
out=$(report "$d/trace.dat" | grep -m 1 'kvm_mmu_get_page:')
check_match "6.12 page role decoded with 3 access bits" "$out" 'direct wux nxe ad root 0 sync new$'

# Options override the inferred layout: EPT has no D/A at bits 6/5.
out=$(report "$d/trace.dat" -O kvmmmu:vendor=ept | grep -m 1 'fast_page_fault:')
check_match "kvmmmu:vendor=ept changes the decoding" "$out" '\(4K leaf pfn 0x[0-9a-f]+ W\) class make-writable'

# The new events print from their fields, including the resolved caller.
out=$(report "$d/trace.dat" | grep -m 1 'kvm_flush_remote_tlbs:')
check_match "kvm_flush_remote_tlbs printed with its caller" "$out" \
	'vm 1 pid [0-9]+ range gfn 0x40000 pages 8192 all caller kvm_[a-z_]+\+0x[0-9a-f]+'

# install-plugins puts it where trace-cmd finds a user's plugins
if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$TOP" -f Makefile -f plugins/plugins.mk \
	O="$T/build" plugindir="$T/home/.local/lib/traceevent/plugins" install-plugins >/dev/null 2>&1; then
	out=$(HOME=$T/home trace-cmd report -i "$d/trace.dat" 2>/dev/null | grep -m 1 'fast_page_fault:')
	check_match "installed into ~/.local/lib/traceevent/plugins, trace-cmd loads it" "$out" 'class make-writable'
else
	not_ok "make install-plugins"
fi
done_testing
