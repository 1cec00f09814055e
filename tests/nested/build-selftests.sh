#!/bin/bash
# build-selftests.sh - build two of the kernel's own KVM selftests,
# unchanged and static, from Debian's linux-source package of the release
# the nested guest boots, so that they run in its busybox initramfs:
#
#   dirty_log_perf_test                 tools/testing/selftests/kvm/
#   dirty_log_page_splitting_test       tools/testing/selftests/kvm/x86/
#
# Usage: build-selftests.sh [-f] [-k RELEASE | --series 6.12|7]
#   -k RELEASE   e.g. 6.12.117+deb12-amd64 or 7.3.4+deb13-amd64 (or
#                $NESTED_KVER); --series S takes the release
#                fetch-kernel.sh --series S prints; default: the 6.12 one
#                in $NESTED_DIR/kernel/current
#   -f           rebuild (make clean first) even when the binaries are
#                cached; the unpacked tree is kept (rm -r
#                $NESTED_DIR/selftests/src/<release> to unpack it again)
# Prints the directory of the binaries on stdout:
#   $NESTED_DIR/selftests/<release>/{dirty_log_perf_test,
#   dirty_log_page_splitting_test,dirty_log_page_splitting_test-debug,
#   kvm_ioctls.txt,build.log,source}
# dirty_log_page_splitting_test-debug is the same source built with -DDEBUG
# (its own object directory): the test prints its page counters ("Page
# stats after ...") with pr_debug(), which a plain build compiles out.
# kvm_ioctls.txt: "NAME 0xCMD" of the KVM ioctls capture.sh -I records,
# computed by compiling against the release's headers_install output.
# They are built only when missing. Steps:
#   1. fetch-kernel.sh RELEASE (the kernel, and for 7.x the private apt state
#      in $NESTED_DIR/apt/); the source package is linux-source-X.Y at the
#      version of the kernel's package ($NESTED_DIR/kernel/<release>/packages)
#   2. the tarball: /usr/src/linux-source-X.Y.tar.xz when the installed
#      linux-source-X.Y has that version, else the .deb is fetched with
#      apt-get download into $NESTED_DIR/cache/ (6.12: the machine's apt,
#      bookworm; 7.x: the private state, with the -o Dir::... options of
#      fetch-kernel.sh) and the tarball taken out of it; apt's configuration
#      is never changed and nothing is installed into /usr/src
#   3. unpacked to $NESTED_DIR/selftests/src/<release>/linux-source-X.Y/
#      (kept, 1.5 GB)
#   4. make headers_install; make -C tools/testing/selftests/kvm
#      EXTRA_CFLAGS=-static LDFLAGS=-static <the two targets>, then the
#      page splitting test again with OUTPUT=.../kvm/debug and
#      EXTRA_CFLAGS="-static -DDEBUG"
# Host build dependencies (installed with apt-get when root and missing):
# make gcc libc6-dev (libc.a) xz-utils tar rsync (headers_install copies
# usr/include with it); that is all headers_install and the selftests need.
set -euo pipefail
. "$(dirname "$0")/common.sh"

FORCE=0
KVER=${NESTED_KVER:-}
SERIES=""
while [ $# -gt 0 ]; do
	case $1 in
	-f) FORCE=1; shift ;;
	-k) [ $# -ge 2 ] || die "-k needs a release"; KVER=$2; shift 2 ;;
	--series) [ $# -ge 2 ] || die "--series needs 6.12 or 7"; SERIES=$2; shift 2 ;;
	--series=*) SERIES=${1#--series=}; shift ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
	*) die "unknown argument $1 (try -h)" ;;
	esac
done

need make:make gcc:gcc xz:xz-utils tar:tar rsync:rsync dpkg-deb:dpkg apt-get:apt
[ -e /usr/lib/x86_64-linux-gnu/libc.a ] || need __no_such_command__:libc6-dev

if [ -n "$SERIES" ]; then
	KVER=$("$NESTED_SRC/fetch-kernel.sh" --series "$SERIES")
elif [ -n "$KVER" ]; then
	KVER=$("$NESTED_SRC/fetch-kernel.sh" "$KVER")
else
	KVER=$(kernel_current)
	[ -n "$KVER" ] || KVER=$("$NESTED_SRC/fetch-kernel.sh")
	KVER=$("$NESTED_SRC/fetch-kernel.sh" "$KVER")
fi
OUT=$NESTED_DIR/selftests/$KVER
cached=1
for t in dirty_log_perf_test dirty_log_page_splitting_test dirty_log_page_splitting_test-debug \
	 kvm_ioctls.txt; do
	[ -s "$OUT/$t" ] || cached=0
done
# a kvm_ioctls.txt from before KVM_RESET_DIRTY_RINGS or KVM_CREATE_VCPU was listed is stale
grep -q '^KVM_CREATE_VCPU ' "$OUT/kvm_ioctls.txt" 2>/dev/null || cached=0
if [ "$FORCE" = 0 ] && [ "$cached" = 1 ]; then
	msg "selftests of $KVER cached in $OUT"
	echo "$OUT"
	exit 0
fi

# the source package: linux-source-X.Y at the kernel package's version
VER=$(awk 'NR == 1 { print $2 }' "$NESTED_DIR/kernel/$KVER/packages")
[ -n "$VER" ] || die "no package version in $NESTED_DIR/kernel/$KVER/packages"
XY=$(echo "$KVER" | sed -n 's/^\([0-9]*\.[0-9]*\).*/\1/p')
SPKG=linux-source-$XY
APT_OPTS=()
case $XY in
6.*) ;;
*) private_apt_opts ;;
esac

SRCROOT=$NESTED_DIR/selftests/src/$KVER
TREE=$SRCROOT/$SPKG
TARBALL=""
if [ -e "$SRCROOT/.unpacked" ]; then
	TARBALL=$(cat "$SRCROOT/.unpacked")
elif [ -e "/usr/src/$SPKG.tar.xz" ] &&
   [ "$(dpkg-query -W -f '${Version}' "$SPKG" 2>/dev/null || true)" = "$VER" ]; then
	TARBALL=/usr/src/$SPKG.tar.xz
	msg "using the installed $TARBALL ($SPKG $VER)"
else
	CACHE=$NESTED_DIR/cache
	mkdir -p "$CACHE"
	deb=$CACHE/${SPKG}_${VER//:/%3a}_all.deb
	if ! dpkg-deb -I "$deb" >/dev/null 2>&1; then
		rm -f "$deb"
		msg "downloading $SPKG=$VER"
		if ! (cd "$CACHE" && apt-get ${APT_OPTS[@]+"${APT_OPTS[@]}"} download -q "$SPKG=$VER" >&2); then
			[ ${#APT_OPTS[@]} -gt 0 ] || die "apt-get download $SPKG=$VER failed"
			msg "apt-get update of the private state $NESTED_DIR/apt"
			apt-get "${APT_OPTS[@]}" update -q >&2 || true
			(cd "$CACHE" && apt-get "${APT_OPTS[@]}" download -q "$SPKG=$VER" >&2) ||
				die "apt-get download $SPKG=$VER failed"
		fi
		[ -e "$deb" ] || deb=$(ls "$CACHE/${SPKG}_"*"_all.deb" | sort -V | tail -n 1)
	fi
	TARBALL=$NESTED_DIR/selftests/src/$SPKG.tar.xz
	mkdir -p "$(dirname "$TARBALL")"
	msg "taking usr/src/$SPKG.tar.xz out of $(basename "$deb")"
	dpkg-deb --fsys-tarfile "$deb" |
		tar -xO "./usr/src/$SPKG.tar.xz" > "$TARBALL.tmp"
	mv "$TARBALL.tmp" "$TARBALL"
fi

if [ ! -e "$SRCROOT/.unpacked" ]; then
	rm -rf "$SRCROOT"
	mkdir -p "$SRCROOT"
	msg "unpacking $TARBALL into $SRCROOT"
	tar -xJf "$TARBALL" -C "$SRCROOT"
	[ -e "$TREE/Makefile" ] || die "no $SPKG/ in $TARBALL"
	# the tarball taken out of the deb is only needed for the unpack
	case $TARBALL in
	"$NESTED_DIR"/*) rm -f "$TARBALL"; TARBALL="$(basename "$deb")" ;;
	esac
	echo "$TARBALL" > "$SRCROOT/.unpacked"
fi

mkdir -p "$OUT"
LOG=$OUT/build.log
K=$TREE/tools/testing/selftests/kvm
# the x86 tests live in x86_64/ up to 6.12, in x86/ from 6.13 on
ADIR=x86
[ -d "$K/x86" ] || ADIR=x86_64
TESTS="dirty_log_perf_test $ADIR/dirty_log_page_splitting_test"
T0=$(date +%s)
msg "building $TESTS of $SPKG $VER (log: $LOG)"
# shellcheck disable=SC2046
{
	echo "source: $SPKG $VER ($TARBALL)"
	echo "gcc: $(gcc --version | head -n 1)"
	echo "libc6-dev: $(dpkg-query -W -f '${Version}' libc6-dev 2>/dev/null || true)"
	set -x
	if [ "$FORCE" = 1 ]; then
		make -C "$K" clean && make -C "$K" OUTPUT="$K/debug" clean
	fi &&
	make -C "$TREE" -j"$(nproc)" headers_install &&
	make -C "$K" -j"$(nproc)" EXTRA_CFLAGS=-static LDFLAGS=-static \
		$(for t in $TESTS; do echo "$K/$t"; done) &&
	# the page counters of dirty_log_page_splitting_test are pr_debug():
	# printed only when built with -DDEBUG, in its own output directory
	mkdir -p "$K/debug" &&
	make -C "$K" -j"$(nproc)" OUTPUT="$K/debug" EXTRA_CFLAGS="-static -DDEBUG" \
		LDFLAGS=-static "$K/debug/$ADIR/dirty_log_page_splitting_test"
} > "$LOG" 2>&1 || { set +x; tail -n 30 "$LOG" >&2; die "build failed, see $LOG"; }
set +x
static_copy() { # BUILT NAME
	[ -x "$1" ] || die "$1 was not built"
	if ldd "$1" >/dev/null 2>&1; then
		die "$1 is not static"
	fi
	cp "$1" "$OUT/$2"
}
static_copy "$K/dirty_log_perf_test" dirty_log_perf_test
static_copy "$K/$ADIR/dirty_log_page_splitting_test" dirty_log_page_splitting_test
static_copy "$K/debug/$ADIR/dirty_log_page_splitting_test" dirty_log_page_splitting_test-debug
# The numeric ioctl cmd values, from this release's installed headers
# (capture.sh -I filters sys_enter_ioctl on them): "NAME 0xVALUE" lines.
cat > "$OUT/kvm_ioctls.c" <<'EOC'
#include <stdio.h>
#include <linux/kvm.h>
#define P(x) printf("%s 0x%lx\n", #x, (unsigned long)(x))
int main(void)
{
	P(KVM_CREATE_VM);
	P(KVM_CREATE_VCPU);
	P(KVM_ENABLE_CAP);
	P(KVM_SET_USER_MEMORY_REGION);
#ifdef KVM_SET_USER_MEMORY_REGION2
	P(KVM_SET_USER_MEMORY_REGION2);
#endif
	P(KVM_GET_DIRTY_LOG);
	P(KVM_CLEAR_DIRTY_LOG);
	P(KVM_RESET_DIRTY_RINGS);
	P(KVM_RUN);
	return 0;
}
EOC
if ! gcc -I"$TREE/usr/include" -o "$OUT/kvm_ioctls" "$OUT/kvm_ioctls.c" ||
   ! "$OUT/kvm_ioctls" > "$OUT/kvm_ioctls.txt"; then
	rm -f "$OUT/kvm_ioctls.txt"
	die "could not compute the KVM ioctl numbers"
fi
rm -f "$OUT/kvm_ioctls" "$OUT/kvm_ioctls.c"
echo "$SPKG $VER" > "$OUT/source"
echo "build time: $(( $(date +%s) - T0 )) s" >> "$LOG"
msg "built $(cd "$OUT" && ls dirty_log_* | tr '\n' ' ')in $OUT ($(( $(date +%s) - T0 )) s)"
echo "$OUT"
