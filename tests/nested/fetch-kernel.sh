#!/bin/bash
# fetch-kernel.sh - download one of Debian's kernels and unpack what the
# nested guest needs into $NESTED_DIR/kernel/<release>/:
#
#   vmlinuz                          the kernel
#   modules/lib/modules/<release>/   kvm, kvm_amd, kvm_intel, 9p, virtio and
#                                    netfs modules plus their dependencies,
#                                    decompressed (.ko), with modules.dep
#   config                           the kernel's configuration
#   packages                         the .deb files it came from
#
# Two series, two package shapes:
#   6.12  Debian 12's linux-image-6.12.*-amd64-unsigned, one package with
#         boot/vmlinuz-<release> and lib/modules/<release>/ (apt as
#         configured on this machine: bookworm).
#   7     the newest 7.x from trixie-backports or sid, split in three:
#         linux-binary-unsigned-<release> (usr/lib/modules/<release>/
#         vmlinuz.unsigned), linux-modules-<release> (the .ko.xz files) and
#         linux-base-<release> (config, modules.builtin, modules.order).
#         The machine's apt lists bookworm only, so these come through a
#         private apt state in $NESTED_DIR/apt/ (its own sources.list, lists
#         and cache; the archive URI and Signed-By keyring are taken from
#         /etc/apt/sources.list.d/debian.sources). The machine's apt
#         configuration is never changed.
#
# The 6.12 series records its release in $NESTED_DIR/kernel/current (the
# kernel run.sh, build-initramfs.sh and check-kernel.sh boot without -k);
# every series records its last release in $NESTED_DIR/kernel/series-<S>.
# The .deb files are kept in $NESTED_DIR/cache/. Idempotent: a complete
# unpack is never redone, and nothing is downloaded when the .deb is cached.
#
# Usage: fetch-kernel.sh [--series 6.12|7] [PACKAGE | RELEASE]
#   --series (or $NESTED_KSERIES) picks the series, default 6.12.
#   PACKAGE (or $NESTED_KPKG) overrides the choice, e.g.
#   linux-image-6.12.117+deb12-amd64-unsigned or
#   linux-binary-unsigned-7.3.4+deb13-amd64; a bare RELEASE such as
#   7.3.4+deb13-amd64 names the package of its shape. By default the newest
#   non-rt, non-cloud amd64 release of the series known to apt-cache is
#   taken (apt-get update is run only when apt knows none, or when the
#   download fails because the lists are stale).
# Prints the release on stdout.
set -euo pipefail
. "$(dirname "$0")/common.sh"

MODULES="kvm kvm_amd kvm_intel 9p 9pnet_virtio virtio_pci netfs"

SERIES=${NESTED_KSERIES:-6.12}
while [ $# -gt 0 ]; do
	case $1 in
	--series) [ $# -ge 2 ] || die "--series needs 6.12 or 7"; SERIES=$2; shift 2 ;;
	--series=*) SERIES=${1#--series=}; shift ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
	-*) die "unknown option $1 (try -h)" ;;
	*) break ;;
	esac
done
[ $# -le 1 ] || die "one PACKAGE at most (try -h)"
PKG=${1:-${NESTED_KPKG:-}}

# a bare release names the package of its shape (and its series)
case $PKG in
[0-9]*)
	case $PKG in
	6.*) PKG=linux-image-$PKG-unsigned ;;
	*) PKG=linux-binary-unsigned-$PKG ;;
	esac
	;;
esac
case $PKG in
linux-image-*) SERIES=6.12 ;;
linux-binary-unsigned-*|linux-modules-*|linux-base-*) SERIES=7 ;;
"") ;;
*) die "unknown kernel package '$PKG' (linux-image-*-unsigned or linux-binary-unsigned-*)" ;;
esac
case $SERIES in
6.12) PKG_RE='^linux-image-6\.12\.[0-9]+\+deb[0-9]+-amd64-unsigned$'
      PREFIX=linux-image-6.12. DESC='linux-image-6.12.*-amd64-unsigned' ;;
7|7.x) SERIES=7
      PKG_RE='^linux-binary-unsigned-7\.[0-9]+(\.[0-9]+)?\+deb[0-9]+-amd64$'
      PREFIX=linux-binary-unsigned-7. DESC='linux-binary-unsigned-7.*-amd64' ;;
*) die "unknown series '$SERIES' (6.12 or 7)" ;;
esac

need apt-get:apt dpkg-deb:dpkg depmod:kmod modprobe:kmod xz:xz-utils

# --- apt: the machine's for 6.12, a private state for 7 ----------------------
APT_OPTS=()
if [ "$SERIES" = 7 ]; then
	A=$NESTED_DIR/apt
	mkdir -p "$A/lists/partial" "$A/cache/archives/partial"
	# The archive's URI and keyring from the machine's deb822 sources: the
	# first "deb" stanza that is not debian-security.
	uri="" key=""
	if [ -r /etc/apt/sources.list.d/debian.sources ]; then
		read -r uri key < <(awk '
			function flush() {
				if (types ~ /(^| )deb( |$)/ && uris != "" && uris !~ /security/ && !done) {
					split(uris, u, " "); print u[1], (key == "" ? "-" : key); done = 1
				}
				types = uris = key = ""
			}
			/^[ \t]*#/ { next }
			/^[ \t]*$/ { flush(); next }
			tolower($1) == "types:" { $1 = ""; types = $0 }
			tolower($1) == "uris:" { $1 = ""; sub(/^ +/, ""); uris = $0 }
			tolower($1) == "signed-by:" { key = $2 }
			END { flush() }' /etc/apt/sources.list.d/debian.sources) || true
	fi
	[ -n "$uri" ] || { uri=http://deb.debian.org/debian; key=-; msg "no archive in debian.sources; using $uri"; }
	[ "$key" = - ] && [ -e /usr/share/keyrings/debian-archive-keyring.gpg ] &&
		key=/usr/share/keyrings/debian-archive-keyring.gpg
	opt=""
	[ "$key" = - ] || opt="[signed-by=$key] "
	printf 'deb %s%s %s main\n' "$opt" "$uri" trixie-backports "$opt" "$uri" sid > "$A/sources.list.new"
	if cmp -s "$A/sources.list.new" "$A/sources.list"; then
		rm -f "$A/sources.list.new"
	else
		mv "$A/sources.list.new" "$A/sources.list"
		rm -f "$A/lists/"*_Packages* "$A/lists/"*Release* 2>/dev/null || true
	fi
	private_apt_opts
fi
apt_update() {
	if [ "$SERIES" = 7 ]; then
		msg "apt-get update of the private state $NESTED_DIR/apt (trixie-backports, sid)"
	else
		msg "apt knows no 6.12 image; running apt-get update"
	fi
	apt-get "${APT_OPTS[@]}" update -q >&2 || true
}
pick_pkg() {
	apt-cache "${APT_OPTS[@]}" pkgnames "$PREFIX" 2>/dev/null | grep -E "$PKG_RE" |
		sort -V | tail -n 1 || true
}
release_of() { # PACKAGE -> release
	local r=$1
	r=${r#linux-image-}
	r=${r%-unsigned}
	r=${r#linux-binary-unsigned-}
	r=${r#linux-modules-}
	r=${r#linux-base-}
	echo "$r"
}

PICKED=0
if [ -z "$PKG" ]; then
	PICKED=1
	PKG=$(pick_pkg)
	if [ -z "$PKG" ]; then
		apt_update
		PKG=$(pick_pkg)
	fi
	if [ -z "$PKG" ]; then
		# offline and nothing in the lists: fall back to the cache
		if [ "$SERIES" = 6.12 ]; then
			KVER=$(kernel_current)
		else
			KVER=$(cat "$NESTED_DIR/kernel/series-$SERIES" 2>/dev/null || true)
		fi
		[ -n "$KVER" ] && [ -e "$NESTED_DIR/kernel/$KVER/.complete" ] ||
			die "no $DESC package found"
		msg "using cached kernel $KVER"
		echo "$KVER"
		exit 0
	fi
fi
KVER=$(release_of "$PKG")
KDIR=$NESTED_DIR/kernel/$KVER
CACHE=$NESTED_DIR/cache
if [ "$SERIES" = 7 ]; then
	PKGS="linux-binary-unsigned-$KVER linux-modules-$KVER linux-base-$KVER"
else
	PKGS=$PKG
fi

record_release() {
	[ "$SERIES" = 6.12 ] && echo "$KVER" > "$NESTED_DIR/kernel/current"
	echo "$KVER" > "$NESTED_DIR/kernel/series-$SERIES"
}

if [ -e "$KDIR/.complete" ]; then
	record_release
	echo "$KVER"
	exit 0
fi

# cached_deb PACKAGE: the cached .deb of PACKAGE, if it is a sound one
cached_deb() {
	local d

	d=$(ls "$CACHE/${1}"_*.deb 2>/dev/null | sort -V | tail -n 1 || true)
	[ -n "$d" ] && dpkg-deb -I "$d" >/dev/null 2>&1 && echo "$d"
	return 0
}
mkdir -p "$CACHE"
missing=""
for p in $PKGS; do
	[ -n "$(cached_deb "$p")" ] || missing="$missing $p"
done
if [ -n "$missing" ]; then
	msg "downloading$missing"
	for p in $missing; do
		rm -f "$CACHE/${p}"_*.deb
	done
	# shellcheck disable=SC2086
	if ! (cd "$CACHE" && apt-get "${APT_OPTS[@]}" download -q $missing >&2); then
		# stale lists name a version the archive no longer has
		[ "$SERIES" = 7 ] || die "apt-get download$missing failed"
		apt_update
		if [ "$PICKED" = 1 ] && [ "$(pick_pkg)" != "$PKG" ]; then
			msg "the lists were stale: $PKG is gone, $(pick_pkg) is the newest"
			exec "$0" --series "$SERIES"
		fi
		# shellcheck disable=SC2086
		(cd "$CACHE" && apt-get "${APT_OPTS[@]}" download -q $missing >&2) ||
			die "apt-get download$missing failed"
	fi
fi
DEBS=()
for p in $PKGS; do
	d=$(cached_deb "$p")
	[ -n "$d" ] || die "no .deb of $p in $CACHE"
	DEBS+=("$d")
done
msg "unpacking $(for d in "${DEBS[@]}"; do basename "$d"; done | tr '\n' ' ')"

STAGE=$NESTED_DIR/kernel/.stage-$KVER
rm -rf "$STAGE" "$KDIR"
mkdir -p "$STAGE" "$KDIR"
trap 'rm -rf "$STAGE"' EXIT
for d in "${DEBS[@]}"; do
	dpkg-deb -x "$d" "$STAGE"
done

VMLINUZ=$(ls "$STAGE"/boot/vmlinuz-"$KVER" "$STAGE"/usr/lib/linux-image-"$KVER"/vmlinuz \
	      "$STAGE"/usr/lib/modules/"$KVER"/vmlinuz "$STAGE"/usr/lib/modules/"$KVER"/vmlinuz.unsigned \
	      2>/dev/null | head -n 1 || true)
[ -n "$VMLINUZ" ] || die "no vmlinuz of $KVER in $(basename "${DEBS[0]}")"
cp "$VMLINUZ" "$KDIR/vmlinuz"
for c in "$STAGE/boot/config-$KVER" "$STAGE/usr/lib/modules/$KVER/config"; do
	[ -e "$c" ] && { cp "$c" "$KDIR/config"; break; }
done

# Modules live in lib/modules or usr/lib/modules depending on the release.
if [ -d "$STAGE/lib/modules/$KVER" ]; then
	SROOT=$STAGE
else
	[ -d "$STAGE/usr/lib/modules/$KVER" ] || die "no modules for $KVER in ${DEBS[*]}"
	mkdir -p "$STAGE/modroot/lib"
	mv "$STAGE/usr/lib/modules" "$STAGE/modroot/lib/modules"
	SROOT=$STAGE/modroot
fi
SMOD=$SROOT/lib/modules/$KVER
depmod -b "$SROOT" "$KVER"

# builtin NAME: the module is built into the kernel (modules.builtin)
builtin() {
	[ -e "$SMOD/modules.builtin" ] &&
		sed 's,.*/,,; s/\.ko$//; s/-/_/g' "$SMOD/modules.builtin" | grep -qx "${1//-/_}"
}
MROOT=$KDIR/modules
MDIR=$MROOT/lib/modules/$KVER
mkdir -p "$MDIR"
for m in $MODULES; do
	if ! out=$(modprobe -d "$SROOT" -S "$KVER" --show-depends "$m" 2>&1); then
		builtin "$m" || die "module $m not found in $KVER: $out"
	fi
	printf '%s\n' "$out"
done > "$STAGE/depends.txt"
grep '^builtin ' "$STAGE/depends.txt" | sort -u | sed 's/^/  /' | sed '1i\builtin in this kernel:' >&2 || true
awk '$1 == "insmod" { print $2 }' "$STAGE/depends.txt" | sort -u | while read -r ko; do
	rel=${ko#"$SMOD/"}
	out=$MDIR/${rel%.xz}
	out=${out%.zst}
	mkdir -p "$(dirname "$out")"
	case $ko in
	*.xz) xz -dc "$ko" > "$out" ;;
	*.zst) zstd -qdc "$ko" > "$out" ;;
	*) cp "$ko" "$out" ;;
	esac
done
for f in modules.order modules.builtin modules.builtin.modinfo; do
	[ -e "$SMOD/$f" ] && cp "$SMOD/$f" "$MDIR/"
done
# modules.order names .ko.xz files; depmod only needs it for ordering.
sed -i 's/\.ko\.\(xz\|zst\)$/.ko/' "$MDIR/modules.order" 2>/dev/null || true
depmod -b "$MROOT" "$KVER"
for d in "${DEBS[@]}"; do
	echo "$(dpkg-deb -f "$d" Package) $(dpkg-deb -f "$d" Version)"
done > "$KDIR/packages"

touch "$KDIR/.complete"
record_release
msg "kernel $KVER ready in $KDIR ($(find "$MDIR" -name '*.ko' | wc -l) modules)"
echo "$KVER"
