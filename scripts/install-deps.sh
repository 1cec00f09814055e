#!/bin/sh
# Install the Debian packages mmuscope needs that are missing (Debian 12).
#   scripts/install-deps.sh           install what is missing (as root)
#   scripts/install-deps.sh --print   print the apt-get line and exit
#   MSC_DEPS_EXTRA="pkg ..."          more packages (e.g. the nested-KVM test's)
set -eu

BUILD="gcc make pkg-config libtraceevent-dev libtracefs-dev libtracecmd-dev \
libsqlite3-dev libncurses-dev libzstd-dev"
TEST="trace-cmd sqlite3 tmux python3 man-db prometheus prometheus-node-exporter"
PKGS="$BUILD $TEST ${MSC_DEPS_EXTRA:-}"

if [ "${1:-}" = --print ]; then
	echo "apt-get install -y $PKGS"
	exit 0
fi

missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing Debian packages:$missing (run as root, or: apt-get install -y$missing)" >&2
	exit 1
fi
echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
# a new file of ours (mktemp), never a fixed name another user could plant
log=$(mktemp "${TMPDIR:-/tmp}/mmuscope-apt.XXXXXX")
if ! apt-get install -y --no-install-recommends $missing >"$log" 2>&1; then
	apt-get update >>"$log" 2>&1 || true
	apt-get install -y --no-install-recommends $missing >>"$log" 2>&1 || {
		echo "install-deps: apt-get failed, see $log" >&2
		exit 1
	}
fi
rm -f "$log"
