# shellcheck shell=bash
# common.sh - sourced by the bash scripts of kernel/test/: one patch series
# per kernel base, kernel/<series>/000N-*.patch, and what each one is built
# against.
#
#   series_init SERIES   6.12 or 7.3 (default $MSC_KERNEL_SERIES or 6.12):
#                        KSERIES, PATCH_DIR, PATCHES, RIG_SERIES (the
#                        tests/nested/fetch-kernel.sh --series), KAPT and
#                        APT_OPTS (a private apt state)
#   rig_release          KREL, the release the rig boots for the series
#                        (fetched by tests/nested/fetch-kernel.sh), and
#                        DEBVER, the Debian version of its packages
#   kapt ARGS...         apt-get with the series' private apt state
#
# Nothing here changes the machine: packages are downloaded with
# `apt-get download` through a private apt state under build/kernel/apt/
# and unpacked with dpkg-deb -x under build/kernel/, never installed.

KTOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export NESTED_DIR=${NESTED_DIR:-$KTOP/build/nested}
KDEBS=$KTOP/build/kernel/debs

msg() { [ "${QUIET:-0}" = 1 ] || echo "kernel: $*" >&2; }
die() { echo "kernel: error: $*" >&2; exit 1; }

SERIES_LIST="6.12 7.3"

series_init() {
	KSERIES=${1:-${MSC_KERNEL_SERIES:-6.12}}
	local mirror=${MSC_DEBIAN_MIRROR:-http://deb.debian.org}
	local key="[signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] "

	[ -e /usr/share/keyrings/debian-archive-keyring.gpg ] || key=""
	case $KSERIES in
	6.12)	# Debian 12's kernel; the rig boots linux-image-6.12.*
		RIG_SERIES=6.12
		REL_GLOB='6.12.*'
		APT_SOURCES="deb ${key}$mirror/debian-security bookworm-security main"
		;;
	7.3)	# trixie-backports' 7.3; trixie for a libc6 that runs its kbuild
		RIG_SERIES=7
		REL_GLOB='7.3.*'
		APT_SOURCES="deb ${key}$mirror/debian trixie-backports main
deb ${key}$mirror/debian trixie main"
		;;
	*) die "unknown series '$KSERIES' (one of: $SERIES_LIST)" ;;
	esac
	PATCH_DIR=$KTOP/kernel/$KSERIES
	PATCHES=$(ls "$PATCH_DIR"/[0-9][0-9][0-9][0-9]-*.patch 2>/dev/null || true)
	[ -n "$PATCHES" ] || die "no patches in $PATCH_DIR"
	SRCPKG=linux-source-$KSERIES

	KAPT=$KTOP/build/kernel/apt/$KSERIES
	APT_OPTS=(-o "Dir::Etc::sourcelist=$KAPT/sources.list" -o Dir::Etc::sourceparts=/dev/null
		  -o "Dir::State::Lists=$KAPT/lists" -o "Dir::Cache=$KAPT/cache"
		  -o APT::Sandbox::User=root)
	mkdir -p "$KAPT/lists/partial" "$KAPT/cache/archives/partial"
	if [ "$(cat "$KAPT/sources.list" 2>/dev/null)" != "$APT_SOURCES" ]; then
		echo "$APT_SOURCES" > "$KAPT/sources.list"
		rm -f "$KAPT/lists/"*_Packages* "$KAPT/lists/"*Release* 2>/dev/null || true
	fi
}

kapt() { "${1}" "${APT_OPTS[@]}" "${@:2}"; }

# kapt_version PACKAGE: the version the private lists know, "" if none
kapt_version() {
	kapt apt-cache show "$1" 2>/dev/null | sed -n 's/^Version: //p' | sort -V | tail -n 1
}

# kapt_update: refresh the private lists (only ever called when needed)
kapt_update() {
	msg "apt-get update of the private state $KAPT"
	kapt apt-get update -q >&2 || die "apt-get update ($KAPT) failed"
}

# fetch_debs PKG=VERSION...: the .deb of each into $KDEBS (cached), their
# paths on stdout in the order given
fetch_debs() {
	local pv p v f missing=()

	mkdir -p "$KDEBS"
	for pv in "$@"; do
		f=$(cached_deb "$pv")
		[ -n "$f" ] && dpkg-deb -I "$f" >/dev/null 2>&1 || missing+=("$pv")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		for pv in "${missing[@]}"; do
			[ -n "$(kapt_version "${pv%%=*}")" ] || { kapt_update; break; }
		done
		msg "downloading ${missing[*]}"
		(cd "$KDEBS" && kapt apt-get download -q "${missing[@]}" >&2) ||
			{ kapt_update; (cd "$KDEBS" && kapt apt-get download -q "${missing[@]}" >&2); } ||
			die "apt-get download ${missing[*]} failed"
	fi
	for pv in "$@"; do
		f=$(cached_deb "$pv")
		[ -n "$f" ] || die "no .deb of $pv in $KDEBS after the download"
		echo "$f"
	done
}

# cached_deb PKG=VERSION: its .deb in $KDEBS, if there
cached_deb() {
	local p=${1%%=*} v=${1#*=}

	ls "$KDEBS/${p}_${v//:/%3a}_"*.deb 2>/dev/null | head -n 1 || true
}

rig_release() {
	local fk=$KTOP/tests/nested/fetch-kernel.sh pk

	if grep -q -- '--series' "$fk"; then
		KREL=$("$fk" --series "$RIG_SERIES" ${MSC_KERNEL_RELEASE:+"$MSC_KERNEL_RELEASE"}) ||
			die "tests/nested/fetch-kernel.sh --series $RIG_SERIES failed"
	elif [ "$RIG_SERIES" = 6.12 ]; then
		KREL=$("$fk" ${MSC_KERNEL_RELEASE:+"linux-image-$MSC_KERNEL_RELEASE-unsigned"}) ||
			die "tests/nested/fetch-kernel.sh failed"
	else
		die "tests/nested/fetch-kernel.sh has no --series: it cannot fetch a $KSERIES kernel"
	fi
	# shellcheck disable=SC2254
	case $KREL in
	$REL_GLOB) ;;
	*) die "the rig's newest $RIG_SERIES kernel is $KREL, not $KSERIES: set MSC_KERNEL_RELEASE to a $KSERIES release" ;;
	esac
	# the version of the rig's packages: its record, its cached .deb, apt
	DEBVER=""
	pk=$NESTED_DIR/kernel/$KREL/packages
	[ -s "$pk" ] && DEBVER=$(awk 'NR == 1 { print $2 }' "$pk")
	if [ -z "$DEBVER" ]; then
		pk=$(ls "$NESTED_DIR"/cache/linux-image-"$KREL"-unsigned_*.deb \
			"$NESTED_DIR"/cache/linux-binary-unsigned-"$KREL"_*.deb 2>/dev/null | sort -V | tail -n 1 || true)
		[ -n "$pk" ] && DEBVER=$(dpkg-deb -f "$pk" Version)
	fi
	[ -n "$DEBVER" ] || DEBVER=$(kapt_version "linux-headers-$KREL")
	[ -n "$DEBVER" ] || { kapt_update; DEBVER=$(kapt_version "linux-headers-$KREL"); }
	[ -n "$DEBVER" ] || die "no Debian version for $KREL"
}

# prepare_headers: after rig_release, KDIR (build/kernel/<release>) with
# headers/ unpacked (the headers and kbuild packages), HDR the headers
# directory, CC and MAKE_ARGS the compiler and make variables of the build
prepare_headers() {
	local debs d f g host_glibc newer lv L want_cc t

	KDIR=${MSC_KERNEL_DIR:-$KTOP/build/kernel/$KREL}
	KBASE=${KREL%-amd64}
	mkdir -p "$KDIR"
	H=$KDIR/headers
	HDR=$H/usr/src/linux-headers-$KREL
	if [ "$(cat "$H/.complete" 2>/dev/null)" != "$DEBVER" ]; then
		fetch_debs "linux-headers-$KREL=$DEBVER" "linux-headers-$KBASE-common=$DEBVER" \
			"linux-kbuild-$KBASE=$DEBVER" > "$KDIR/.debs"
		mapfile -t debs < "$KDIR/.debs"
		msg "unpacking the headers of $KREL ($DEBVER)"
		rm -rf "$H"
		mkdir -p "$H"
		for d in "${debs[@]}"; do
			dpkg-deb -x "$d" "$H"
		done
		[ -e "$HDR/Makefile" ] || die "no $HDR/Makefile"
		# the Makefile includes the -common one by its absolute path
		sed -i "s|/usr/src/|$H/usr/src/|g" "$HDR/Makefile"
		# absolute symlinks (none in 6.12 and 7.3 so far) point into headers/
		find "$H" -type l -lname '/*' | while read -r l; do
			ln -sfn "$H$(readlink "$l")" "$l"
		done
		# kbuild programs that need a newer glibc than the host has
		host_glibc=$(getconf GNU_LIBC_VERSION | awk '{ print $2 }')
		newer=()
		while read -r f; do
			[ "$(head -c 4 "$f" | tail -c 3)" = ELF ] || continue
			g=$(objdump -T "$f" 2>/dev/null | grep -o 'GLIBC_2\.[0-9]*' | sed 's/GLIBC_//' | sort -uV | tail -n 1)
			if [ -n "$g" ] && [ "$(printf '%s\n%s\n' "$g" "$host_glibc" | sort -V | tail -n 1)" != "$host_glibc" ]; then
				newer+=("$f")
			fi
		done < <(find "$H"/usr/lib/linux-kbuild-* -type f -perm -u+x)
		if [ ${#newer[@]} -gt 0 ]; then
			lv=$(kapt_version libc6)
			[ -n "$lv" ] || { kapt_update; lv=$(kapt_version libc6); }
			[ -n "$lv" ] || die "no libc6 in $KAPT for the kbuild programs"
			msg "${#newer[@]} kbuild programs need a glibc newer than $host_glibc: running them with libc6 $lv"
			d=$(fetch_debs "libc6=$lv")
			dpkg-deb -x "$d" "$H/libc"
			L=$H/libc/usr/lib/x86_64-linux-gnu
			[ -x "$L/ld-linux-x86-64.so.2" ] || die "no ld.so in libc6 $lv"
			for f in "${newer[@]}"; do
				mv "$f" "$f.bin"
				printf '#!/bin/sh\n# generated by kernel/test/build-modules.sh: %s needs a newer glibc\nexec "%s" --library-path "%s" "%s" "$@"\n' \
					"$(basename "$f")" "$L/ld-linux-x86-64.so.2" "$L" "$f.bin" > "$f"
				chmod +x "$f"
			done
		fi
		echo "$DEBVER" > "$H/.complete"
	fi

	# the compiler and the make variables that adapt the build to it
	MAKE_ARGS=()
	want_cc=$(sed -n 's/^CC = .*\$(CROSS_COMPILE)\(gcc-[0-9]*\).*/\1/p' "$HDR/.kernelvariables" 2>/dev/null || true)
	if [ -n "$want_cc" ] && command -v "x86_64-linux-gnu-$want_cc" >/dev/null; then
		CC=x86_64-linux-gnu-$want_cc
	else
		CC=$(command -v x86_64-linux-gnu-gcc || command -v gcc) || die "no gcc"
		CC=$(basename "$CC")
		MAKE_ARGS+=("CC=$CC")
		# CONFIG_CC_HAS_* that the kernel's compiler had, tested on ours
		# (OPTION:FLAG; the one gcc-12 lacks against 7.3's gcc-14 so far)
		# shellcheck disable=SC2043
		for t in CC_HAS_MIN_FUNCTION_ALIGNMENT:-fmin-function-alignment=16; do
			grep -q "^CONFIG_${t%%:*}=y" "$HDR/.config" || continue
			echo 'int x;' | "$CC" -Werror "${t#*:}" -c -x c -o /dev/null - 2>/dev/null ||
				MAKE_ARGS+=("CONFIG_${t%%:*}=")
		done
		if [ -n "$want_cc" ]; then
			msg "no $want_cc here: building with $($CC --version | head -n 1) ${MAKE_ARGS[*]:1}"
		fi
	fi
	# module BTF needs a pahole at least as new as the kernel's: its flags
	# are chosen by CONFIG_PAHOLE_VERSION (7.3: 1.30; Debian 12 has 1.24)
	if grep -q '^CONFIG_DEBUG_INFO_BTF_MODULES=y' "$HDR/.config"; then
		t=$(pahole --version 2>/dev/null | sed -n 's/^v\([0-9]*\)\.\([0-9]*\).*/\1\2/p')
		if [ -z "$t" ] || [ "$t" -lt "$(sed -n 's/^CONFIG_PAHOLE_VERSION=//p' "$HDR/.config")" ]; then
			MAKE_ARGS+=("CONFIG_DEBUG_INFO_BTF_MODULES=")
		fi
	fi
}

# prepare_src: SRC, the KVM part of linux-source-<series>, unpacked
prepare_src() {
	local SRCDEB

	SRC=$KDIR/src
	if [ "$(cat "$SRC/.complete" 2>/dev/null)" != "$DEBVER" ]; then
		SRCDEB=$(fetch_debs "$SRCPKG=$DEBVER")
		msg "unpacking the KVM part of $(basename "$SRCDEB")"
		rm -rf "$SRC" "$KDIR/tree"
		mkdir -p "$SRC"
		dpkg-deb --fsys-tarfile "$SRCDEB" | tar -xOf - "./usr/src/$SRCPKG.tar.xz" |
			tar -xJf - -C "$SRC" --strip-components=1 \
			--wildcards "$SRCPKG/arch/x86/kvm/*" "$SRCPKG/virt/kvm/*" \
			"$SRCPKG/include/linux/kvm_host.h" \
			"$SRCPKG/include/linux/kvm_types.h" \
			"$SRCPKG/include/trace/events/kvm.h" \
			"$SRCPKG/arch/x86/include/asm/kvm_host.h" \
			"$SRCPKG/scripts/checkpatch.pl" "$SRCPKG/scripts/spelling.txt" \
			"$SRCPKG/scripts/const_structs.checkpatch"
		[ -e "$SRC/arch/x86/kvm/Makefile" ] || die "nothing unpacked from $SRCDEB"
		echo "$DEBVER" > "$SRC/.complete"
	fi
}

# write_kbuild TREE: the Kbuild of the out-of-tree build, which is
# arch/x86/kvm/Makefile with the source tree's paths; patched headers come
# first (NOSTDINC_FLAGS precedes the headers package's include path on
# every command line).  include/trace/define_trace.h includes
# TRACE_INCLUDE_PATH relative to itself: -I include/trace lets
# "../../arch/x86/kvm/trace.h" resolve.
write_kbuild() {
	{
		echo "# generated by kernel/test/common.sh"
		echo "NOSTDINC_FLAGS += -I$1/include -I$1/arch/x86/include -I$1/include/trace"
		# kvm-intel is not needed: the guest is AMD (TCG has no VMX)
		sed -e "s|\$(srctree)/arch/x86/kvm|$1/arch/x86/kvm|" \
		    -e "s|\$(srctree)/virt/kvm|$1/virt/kvm|" \
		    -e "/^obj-\$(CONFIG_KVM_INTEL)/d" \
		    "$1/arch/x86/kvm/Makefile"
	} > "$1/arch/x86/kvm/Kbuild"
}

# kvm_make TREE [MAKE ARGS...]: build kvm.ko and kvm-amd.ko in TREE
kvm_make() {
	make -j"$(nproc)" -C "$HDR" M="$1/arch/x86/kvm" ${MAKE_ARGS[@]+"${MAKE_ARGS[@]}"} "${@:2}" modules
}
