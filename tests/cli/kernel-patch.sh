#!/bin/sh
# The companion kernel patch series (kernel/README.md), one per kernel base:
# kernel/6.12/ (Debian's linux-source-6.12) and kernel/7.3/ (Debian's
# linux-source-7.3).  For each series:
#   - every kernel/<series>/000N-*.patch passes scripts/checkpatch.pl --strict
#     (that source's own)
#   - the series applies to its linux-source with `git am`, patch by patch
#   - kvm.ko and kvm-amd.ko build against Debian's headers for the rig's
#     kernel of the series and carry its vermagic
#   - the captures made on the patched kernel (tests/data/traces/k612msc-*,
#     k73msc-*) pass kernel/test/check-events.sh; an unpatched one fails it
#   - MSC_KERNEL_TESTS=1 (make check-kernel-patch): the nested guest of the
#     series loads the patched modules and three fresh captures (THP 32 MiB,
#     manual-protect clear, eager_page_split=0) pass check-events.sh
# Without MSC_KERNEL_TESTS the steps that need the packages or an uncached
# module build are skipped with the reason.  MSC_KERNEL_SERIES limits the
# run to some series (e.g. "7.3").
. "$(dirname "$0")/lib.sh"
TOP=$(cd "$(dirname "$0")/../.." && pwd)
HEAVY=${MSC_KERNEL_TESTS:-0}
skip() { ok "$1 # SKIP $2"; }

for S in ${MSC_KERNEL_SERIES:-6.12 7.3}; do
case $S in
6.12) CAPS=k612msc UNPATCHED=k612-npt_tdp_32m COLLAPSE=kvm_mmu_zap_collapsible_sptes ;;
7.3) CAPS=k73msc UNPATCHED=k73-npt_tdp_32m COLLAPSE=kvm_mmu_recover_huge_pages ;;
*) not_ok "unknown series $S"; continue ;;
esac
PATCHES=$(ls "$TOP"/kernel/"$S"/[0-9][0-9][0-9][0-9]-*.patch 2>/dev/null)
check "$S: the series has patches" test -n "$PATCHES"

# make check-kernel-patch: fetch, unpack and build whatever is missing first
if [ "$HEAVY" = 1 ]; then
	"$TOP/kernel/test/build-modules.sh" -s "$S" >"$T/build-$S.log" 2>&1 ||
		{ not_ok "$S: build-modules.sh"; tail -n 8 "$T/build-$S.log" | sed 's/^/# /'; }
fi
# the release build-modules.sh last built for the series
REL=$(cat "$TOP/build/kernel/series-$S" 2>/dev/null || true)
KDIR=$TOP/build/kernel/${REL:-none}

# checkpatch.pl comes from the series' kernel source: the unpacked subset,
# or a copy taken once from the cached linux-source .deb
CP=$KDIR/src/scripts/checkpatch.pl
CPD=$TOP/build/kernel/checkpatch-$S
SRCDEB=$(ls "$TOP"/build/kernel/debs/linux-source-"$S"_*.deb 2>/dev/null | sort -V | tail -n 1)
if [ ! -e "$CP" ] && [ -e "$CPD/scripts/checkpatch.pl" ]; then
	CP=$CPD/scripts/checkpatch.pl
elif [ ! -e "$CP" ] && [ -n "$SRCDEB" ]; then
	mkdir -p "$CPD"
	dpkg-deb --fsys-tarfile "$SRCDEB" | tar -xOf - "./usr/src/linux-source-$S.tar.xz" |
		tar -xJf - -C "$CPD" --strip-components=1 "linux-source-$S/scripts/checkpatch.pl" \
		"linux-source-$S/scripts/spelling.txt" "linux-source-$S/scripts/const_structs.checkpatch" 2>/dev/null
	CP=$CPD/scripts/checkpatch.pl
fi
for p in $PATCHES; do
	if [ -e "$CP" ]; then
		check "checkpatch --strict $S/$(basename "$p")" \
			perl "$CP" --strict --no-tree --quiet "$p"
	else
		skip "checkpatch --strict $S/$(basename "$p")" "no linux-source-$S (make kernel-modules)"
	fi
done

# the series applies to the unpacked source with git am (a throwaway repo)
if [ -e "$KDIR/src/.complete" ] && command -v git >/dev/null; then
	G=$T/git-$S
	mkdir -p "$G"
	cp -a "$KDIR/src/." "$G/"
	applied=0
	if git -C "$G" init -q && git -C "$G" add -A &&
	   git -C "$G" -c user.name=t -c user.email=t@t commit -q -m base; then
		for p in $PATCHES; do
			git -C "$G" -c user.name=t -c user.email=t@t am -q "$p" >"$T/am.log" 2>&1 ||
				{ sed 's/^/# /' "$T/am.log" | head -n 8; break; }
			applied=$((applied + 1))
		done
	fi
	check_eq "$S: git am applies the series to linux-source-$S $(cat "$KDIR/src/.complete")" \
		"$applied" "$(echo "$PATCHES" | wc -w)"
else
	skip "$S: git am applies the series to linux-source-$S" "source not unpacked (make kernel-modules)"
fi

# the modules: built now only when asked for or when a build is cached
if [ "$HEAVY" = 1 ] || [ -e "$KDIR/modules/.series" ]; then
	if out=$(MSC_KERNEL_RELEASE=$REL "$TOP/kernel/test/build-modules.sh" -q -s "$S" 2>"$T/build.log"); then
		ok "$S: kvm.ko and kvm-amd.ko build against linux-headers-$REL"
		KO=${out#* }
		want=$(modinfo -F vermagic "$TOP/build/nested/kernel/$REL/modules/lib/modules/$REL/kernel/arch/x86/kvm/kvm.ko")
		check_eq "$S: vermagic of kvm.ko is the guest kernel's" "$(modinfo -F vermagic "$KO")" "$want"
		for e in kvm_flush_remote_tlbs kvm_mmu_slot_dirty_logging_begin kvm_mmu_split_huge_pages \
			 $COLLAPSE kvm_dirty_log_harvest; do
			check "$S: kvm.ko defines the $e tracepoint" grep -q "__tracepoint_$e" "$KO"
		done
	else
		not_ok "$S: kvm.ko and kvm-amd.ko build against linux-headers-$REL"
		tail -n 5 "$T/build.log" | sed 's/^/# /'
	fi
else
	skip "$S: kvm.ko and kvm-amd.ko build" "not cached and MSC_KERNEL_TESTS unset (make check-kernel-patch)"
fi

# the committed captures from the patched kernel
ncap=0
for d in "$TRACES"/"$CAPS"-*; do
	[ -s "$d/trace.dat" ] || continue
	ncap=$((ncap + 1))
	check "patched-kernel capture $(basename "$d") passes check-events.sh" \
		sh "$TOP/kernel/test/check-events.sh" "$d"
done
check "$S: there are patched-kernel captures ($CAPS-*)" test "$ncap" -gt 0
if [ -s "$TRACES/$UNPATCHED/trace.dat" ]; then
	check_fails "$S: an unpatched capture ($UNPATCHED) fails check-events.sh" \
		sh "$TOP/kernel/test/check-events.sh" "$TRACES/$UNPATCHED"
else
	skip "$S: an unpatched capture fails check-events.sh" "no $UNPATCHED capture"
fi

# the real thing: the nested guest loads the patched modules
if [ "$HEAVY" = 1 ]; then
	t0=$(date +%s)
	while read -r name args; do
		# shellcheck disable=SC2086
		if "$TOP/kernel/test/capture.sh" -s "$S" -d "$T/captures" $args >"$T/$name.log" 2>&1; then
			ok "nested $S guest with the patched modules: $name recorded"
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
			not_ok "nested $S guest with the patched modules: $name"
			grep -v "TCG doesn't support" "$T/$name.log" | tail -n 8 | sed 's/^/# /'
		fi
	done <<-EOF2
	$CAPS-npt_tdp_32m $CAPS-npt_tdp_32m -m 32 -i 2
	$CAPS-npt_tdp_16m_clear $CAPS-npt_tdp_16m_clear -m 16 -c -i 2 -C 2
	$CAPS-npt_tdp_eager0_16m -a msc.eager_split=0 $CAPS-npt_tdp_eager0_16m -m 16 -i 2
	EOF2
	diag "$S: nested captures took $(( $(date +%s) - t0 )) s"
else
	skip "nested $S guest loads the patched modules" "MSC_KERNEL_TESTS unset (make check-kernel-patch)"
fi
done
done_testing
