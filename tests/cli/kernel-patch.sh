#!/bin/sh
# The companion kernel patch series (kernel/README.md):
#   - every kernel/000N-*.patch passes scripts/checkpatch.pl --strict
#   - the series applies to Debian's linux-source-6.12
#   - kvm.ko and kvm-amd.ko build against Debian's headers for the rig's
#     kernel and carry its vermagic
#   - the captures made on the patched kernel (tests/data/traces/k612msc-*)
#     pass kernel/test/check-events.sh
#   - MSC_KERNEL_TESTS=1 (make check-kernel-patch): the nested 6.12 guest
#     loads the patched modules and three fresh captures (THP 32 MiB,
#     manual-protect clear, eager_page_split=0) pass check-events.sh
# Without MSC_KERNEL_TESTS the steps that need the linux-source package or
# an uncached module build are skipped with the reason.
. "$(dirname "$0")/lib.sh"
TOP=$(cd "$(dirname "$0")/../.." && pwd)
HEAVY=${MSC_KERNEL_TESTS:-0}
REL=$(cat "$TOP/build/nested/kernel/current" 2>/dev/null || true)
KDIR=$TOP/build/kernel/${REL:-none}
TARBALL=/usr/src/linux-source-6.12.tar.xz
PATCHES=$(ls "$TOP"/kernel/[0-9][0-9][0-9][0-9]-*.patch)
skip() { ok "$1 # SKIP $2"; }

# make check-kernel-patch: fetch, unpack and build whatever is missing first
if [ "$HEAVY" = 1 ]; then
	"$TOP/kernel/test/build-modules.sh" >"$T/build.log" 2>&1 ||
		{ not_ok "build-modules.sh"; tail -n 8 "$T/build.log" | sed 's/^/# /'; }
	REL=$(cat "$TOP/build/nested/kernel/current" 2>/dev/null || true)
	KDIR=$TOP/build/kernel/${REL:-none}
fi

check "the series has patches" test -n "$PATCHES"

# checkpatch.pl comes from the kernel source: the unpacked tree, or a copy
# taken from the tarball once
CP=$KDIR/src/scripts/checkpatch.pl
if [ ! -e "$CP" ] && [ -e "$TOP/build/kernel/checkpatch/scripts/checkpatch.pl" ]; then
	CP=$TOP/build/kernel/checkpatch/scripts/checkpatch.pl
elif [ ! -e "$CP" ] && [ -e "$TARBALL" ]; then
	mkdir -p "$TOP/build/kernel/checkpatch"
	tar -xJf "$TARBALL" -C "$TOP/build/kernel/checkpatch" --strip-components=1 \
		linux-source-6.12/scripts/checkpatch.pl linux-source-6.12/scripts/spelling.txt \
		linux-source-6.12/scripts/const_structs.checkpatch 2>/dev/null
	CP=$TOP/build/kernel/checkpatch/scripts/checkpatch.pl
fi
for p in $PATCHES; do
	if [ -e "$CP" ]; then
		check "checkpatch --strict $(basename "$p")" \
			perl "$CP" --strict --no-tree --quiet "$p"
	else
		skip "checkpatch --strict $(basename "$p")" "no linux-source-6.12 (apt-get install linux-source-6.12)"
	fi
done

# the series applies to the unpacked source (a throwaway copy)
if [ -e "$KDIR/src/.complete" ]; then
	mkdir -p "$T/tree"
	cp -a "$KDIR/src/." "$T/tree/"
	applied=0
	for p in $PATCHES; do
		patch -d "$T/tree" -p1 -F0 -s --no-backup-if-mismatch <"$p" >"$T/patch.log" 2>&1 ||
			{ sed 's/^/# /' "$T/patch.log"; break; }
		applied=$((applied + 1))
	done
	check_eq "the series applies to linux-source-6.12 $(cat "$KDIR/src/.complete")" \
		"$applied" "$(echo "$PATCHES" | wc -w)"
else
	skip "the series applies to linux-source-6.12" "source not unpacked (make kernel-modules)"
fi

# the modules: built now only when asked for or when a build is cached
if [ "$HEAVY" = 1 ] || [ -e "$KDIR/modules/.series" ]; then
	if out=$("$TOP/kernel/test/build-modules.sh" -q 2>"$T/build.log"); then
		ok "kvm.ko and kvm-amd.ko build against linux-headers-$REL"
		KO=${out#* }
		want=$(modinfo -F vermagic "$TOP/build/nested/kernel/$REL/modules/lib/modules/$REL/kernel/arch/x86/kvm/kvm.ko")
		check_eq "vermagic of kvm.ko is the guest kernel's" "$(modinfo -F vermagic "$KO")" "$want"
		for e in kvm_flush_remote_tlbs kvm_mmu_slot_dirty_logging_begin kvm_mmu_split_huge_pages \
			 kvm_mmu_zap_collapsible_sptes kvm_dirty_log_harvest; do
			check "kvm.ko defines the $e tracepoint" grep -q "__tracepoint_$e" "$KO"
		done
	else
		not_ok "kvm.ko and kvm-amd.ko build against linux-headers-$REL"
		tail -n 5 "$T/build.log" | sed 's/^/# /'
	fi
else
	skip "kvm.ko and kvm-amd.ko build" "not cached and MSC_KERNEL_TESTS unset (make check-kernel-patch)"
fi

# the committed captures from the patched kernel
for d in "$TRACES"/k612msc-*; do
	[ -s "$d/trace.dat" ] || continue
	check "patched-kernel capture $(basename "$d") passes check-events.sh" \
		sh "$TOP/kernel/test/check-events.sh" "$d"
done
check_fails "an unpatched capture fails check-events.sh" \
	sh "$TOP/kernel/test/check-events.sh" "$TRACES/k612-npt_tdp_32m"

# the real thing: the nested guest loads the patched modules
if [ "$HEAVY" = 1 ]; then
	t0=$(date +%s)
	while read -r name args; do
		# shellcheck disable=SC2086
		if "$TOP/kernel/test/capture.sh" -d "$T/captures" $args >"$T/$name.log" 2>&1; then
			ok "nested 6.12 guest with the patched modules: $name recorded"
			while IFS= read -r line; do
				case $line in
				"ok "*) ok "${line#ok [0-9]* - }" ;;
				"not ok "*) not_ok "${line#not ok [0-9]* - }" ;;
				*) echo "$line" ;;
				esac
			done <<-EOF2
			$(sh "$TOP/kernel/test/check-events.sh" "$T/captures/$name")
			EOF2
		else
			not_ok "nested 6.12 guest with the patched modules: $name"
			tail -n 8 "$T/$name.log" | sed 's/^/# /'
		fi
	done <<-EOF2
	k612msc-npt_tdp_32m k612msc-npt_tdp_32m -m 32 -i 2
	k612msc-npt_tdp_16m_clear k612msc-npt_tdp_16m_clear -m 16 -c -i 2 -C 2
	k612msc-npt_tdp_eager0_16m -a msc.eager_split=0 k612msc-npt_tdp_eager0_16m -m 16 -i 2
	EOF2
	diag "nested captures took $(( $(date +%s) - t0 )) s"
else
	skip "nested 6.12 guest loads the patched modules" "MSC_KERNEL_TESTS unset (make check-kernel-patch)"
fi
done_testing
