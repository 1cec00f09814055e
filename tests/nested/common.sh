# shellcheck shell=bash
# common.sh - sourced by the host-side scripts of tests/nested/.
#
# Resolves the repository root and NESTED_DIR (default build/nested,
# relative paths are taken from the repository root), and offers small
# helpers: msg, die, need (install missing host tools with apt-get when
# running as root) and kernel_current (the kernel release fetched last).

NESTED_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
NESTED_TOP=$(cd "$NESTED_SRC/../.." && pwd)
NESTED_DIR=${NESTED_DIR:-build/nested}
case $NESTED_DIR in
/*) ;;
*) NESTED_DIR=$NESTED_TOP/$NESTED_DIR ;;
esac
export NESTED_DIR

msg() { echo "nested: $*" >&2; }
die() { echo "nested: error: $*" >&2; exit 1; }

# need CMD:PKG... - make sure each command exists, installing the Debian
# package that provides it when we are root and apt-get is available.
need() {
	local cp missing=""

	for cp in "$@"; do
		command -v "${cp%%:*}" >/dev/null 2>&1 || missing="$missing ${cp#*:}"
	done
	[ -z "$missing" ] && return 0
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		msg "installing host packages:$missing"
		# shellcheck disable=SC2086
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing >&2 ||
		{ apt-get update -q >&2 &&
		  DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing >&2; } ||
		die "could not install:$missing"
	else
		die "missing host tools; run: apt-get install$missing"
	fi
}

# busybox must be the static one: the initramfs has no libc for it.
need_static_busybox() {
	if [ ! -x /bin/busybox ] || ldd /bin/busybox >/dev/null 2>&1; then
		need __no_such_command__:busybox-static
	fi
}

# private_apt_opts: set APT_OPTS to the apt options of the private apt state
# in $NESTED_DIR/apt/ (fetch-kernel.sh --series 7 writes its sources.list):
# its own sources.list, lists and cache; the machine's configuration is not
# read for sources and never changed.
private_apt_opts() {
	local a=$NESTED_DIR/apt

	APT_OPTS=(-o "Dir::Etc::sourcelist=$a/sources.list" -o Dir::Etc::sourceparts=/dev/null
		  -o "Dir::State::Lists=$a/lists" -o "Dir::Cache=$a/cache")
}

kernel_current() { # the 6.12 release fetched last; none yet: nothing (never a failure)
	cat "$NESTED_DIR/kernel/current" 2>/dev/null || true
}
