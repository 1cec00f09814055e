#!/bin/bash
# per-patch.sh - prove a series patch by patch: in a scratch git repository
# holding the unpatched KVM part of linux-source-<series> (build-modules.sh's
# src/, one commit), `git am` each kernel/<series>/000N-*.patch in order and
# build kvm.ko and kvm-amd.ko after each one (incrementally, with the same
# headers, compiler and make variables as build-modules.sh), then run
# scripts/checkpatch.pl --strict of that source on the patch.
#
# Usage: per-patch.sh [-s SERIES] [-c]
#   -s SERIES  6.12 (default, or $MSC_KERNEL_SERIES) or 7.3
#   -c         clean build after each patch instead of an incremental one
# The repository is $MSC_KERNEL_DIR/git (default build/kernel/<release>/git),
# reset to its first commit on every run; build logs are kept there as
# build-000N.log.  Prints TAP lines; exit status 0 when all pass.
set -euo pipefail
SER=""
CLEAN=0
while getopts "s:c" opt; do
	case $opt in
	s) SER=$OPTARG ;;
	c) CLEAN=1 ;;
	*) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
. "$(dirname "$0")/common.sh"
series_init "$SER"
command -v git >/dev/null || die "git is missing"
rig_release
prepare_headers
prepare_src

G=$KDIR/git
base="linux-source-$KSERIES $DEBVER (KVM subset)"
gitq() { git -C "$G" -c user.name=mmuscope -c user.email=mmuscope@example.org "$@"; }
if [ "$(gitq log --format=%s --reverse 2>/dev/null | head -n 1)" != "$base" ]; then
	rm -rf "$G"
	cp -a "$SRC" "$G"
	rm -f "$G/.complete"
	gitq init -q
	gitq add -A
	gitq commit -q -m "$base"
fi
gitq am --abort >/dev/null 2>&1 || true
gitq reset -q --hard "$(gitq rev-list --max-parents=0 HEAD)"
write_kbuild "$G"

n=0 bad=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); bad=$((bad + 1)); echo "not ok $n - $*"; }
t_all=$(date +%s)
for p in $PATCHES; do
	name=$KSERIES/$(basename "$p")
	num=$(basename "$p" | cut -c1-4)
	if gitq am -q "$p" >"$G/am-$num.log" 2>&1; then
		ok "git am $name"
	else
		not_ok "git am $name"
		sed 's/^/# /' "$G/am-$num.log" | head -n 8
		gitq am --abort >/dev/null 2>&1 || true
		break
	fi
	[ "$CLEAN" = 0 ] || kvm_make "$G" clean >/dev/null 2>&1 || true
	t0=$(date +%s)
	if kvm_make "$G" >"$G/build-$num.log" 2>&1 &&
	   [ -s "$G/arch/x86/kvm/kvm.ko" ] && [ -s "$G/arch/x86/kvm/kvm-amd.ko" ]; then
		w=$(grep 'warning:' "$G/build-$num.log" | grep -vc 'pahole version differs' || true)
		cc=$(grep -c '^  CC \[M\]' "$G/build-$num.log" || true)
		ok "$name: kvm.ko and kvm-amd.ko build ($cc files compiled, $w compiler warnings, $(( $(date +%s) - t0 )) s)"
		grep 'warning:' "$G/build-$num.log" | grep -v 'pahole version differs' | head -n 5 | sed 's/^/# /' || true
	else
		not_ok "$name: kvm.ko and kvm-amd.ko build"
		grep -E 'error|Error' "$G/build-$num.log" | head -n 8 | sed 's/^/# /'
	fi
	if out=$(perl "$SRC/scripts/checkpatch.pl" --strict --no-tree "$p" 2>&1); then
		ok "$name: checkpatch --strict ($(echo "$out" | sed -n 's/^total: //p'))"
	else
		not_ok "$name: checkpatch --strict"
		echo "$out" | head -n 10 | sed 's/^/# /'
	fi
done
echo "# $KSERIES on $SRCPKG $DEBVER, headers $KREL, ${MAKE_ARGS[*]:-no make overrides}: $(( $(date +%s) - t_all )) s"
echo "1..$n"
[ "$bad" = 0 ]
