#!/bin/sh
# Comments that cite a function which exists nowhere: a stale name() left
# behind by a rename or a removal.  Prints "ok"/"not ok" lines like the unit
# tests, one per folder; exit 1 when a comment cites such a name.
#
# What counts:
# - cited: a word written as name() (empty parentheses) in a comment, /* */
#   or //, of the C sources and headers of the folders in DIRS below;
# - it exists when code anywhere in the tree's C files (comments and string
#   literals left out) writes it before a "(" (a definition, a declaration,
#   a function-like macro, a call: a call of a name that exists nowhere would
#   not build), as a function pointer "(*name)", or #defines it; a name
#   written from an underscore on, as the second of "msc_store_begin_capture()
#   and _end_capture()", exists when an existing name ends with it;
# - it is not the project's when it has one of the prefixes of the libraries
#   (LIB_PREFIXES) or of KVM's source (KERNEL_PREFIXES), or is one of the
#   names of the kernel, the C library or SQLite that comments cite from
#   their own source (FOREIGN).  A function of ours must not take one of
#   those prefixes (its stale citations would go unseen); a new citation of
#   the kernel's own name goes into FOREIGN.
# Every other cited name that does not exist fails, but for the entries of
# KNOWN (file and name): stale comments in folders being changed by others,
# to be removed from the list as they are fixed.
set -u
cd "$(dirname "$0")/.." || exit 1

DIRS="lib include cli collector analyzer tui plugins tests/unit"
LIB_PREFIXES="tep_ tracefs_ tracecmd_ kbuffer_ trace_seq_ sqlite3_"
KERNEL_PREFIXES="kvm_ tdp_mmu_"
# the kernel's (arch/x86/kvm, kernel/trace), the C library's, SQLite's
FOREIGN="BUG KERNEL_VERSION EPT_VIOLATION_RWX_TO_PROT __print_symbolic
	__handle_changed_spte handle_removed_pt handle_ept_violation fast_page_fault
	for_each_tdp_pte make_spte make_small_spte make_huge_spte make_huge_page_split_spte
	recover_huge_pages_range walk_slot_rmaps trace_kvm_tdp_mmu_spte_changed
	rb_reset_tail ring_buffer_read_page tracing_mark_write
	pidfd_getfd kcmp json_each"
# FILE NAME, one a line
KNOWN="
"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# Each line of every C file as "C<TAB>FILE:LINE<TAB>comment text" and
# "K<TAB>FILE:LINE<TAB>code" (string and character literals emptied).
find . \( -name build -o -name .git \) -prune -o \( -name '*.c' -o -name '*.h' \) -print |
	sed 's|^\./||' | LC_ALL=C sort | xargs awk '
FNR == 1 { inc = 0 }
{
	line = $0; com = ""; code = ""
	while (line != "") {
		if (inc) {
			i = index(line, "*/")
			if (!i) { com = com " " line; break }
			com = com " " substr(line, 1, i - 1)
			line = substr(line, i + 2); inc = 0
			continue
		}
		if (!match(line, /\/\*|\/\/|"|\047/)) { code = code line; break }
		code = code substr(line, 1, RSTART - 1)
		tok = substr(line, RSTART, RLENGTH)
		line = substr(line, RSTART + RLENGTH)
		if (tok == "/*") { inc = 1; continue }
		if (tok == "//") { com = com " " line; break }
		while (line != "") {	# to the end of the literal
			c = substr(line, 1, 1)
			line = substr(line, c == "\\" ? 3 : 2)
			if (c == tok) break
		}
		code = code tok tok
	}
	if (com != "") print "C\t" FILENAME ":" FNR "\t" com
	if (code != "") print "K\t" FILENAME ":" FNR "\t" code
}' >"$tmp/split" || { echo "not ok 1 - comments: cannot read the sources"; exit 1; }

# the names that exist
awk '/^K\t/ { sub(/^K\t[^\t]*\t/, ""); print }' "$tmp/split" >"$tmp/code"
{
	grep -oE '[A-Za-z_][A-Za-z0-9_]*[[:space:]]*\(' "$tmp/code" | sed 's/[[:space:](]*$//'
	grep -oE '\(\*[[:space:]]*[A-Za-z_][A-Za-z0-9_]*[[:space:]]*\)' "$tmp/code" | tr -d '(*) \t'
	sed -n 's/^[[:space:]]*#[[:space:]]*define[[:space:]]\{1,\}\([A-Za-z_][A-Za-z0-9_]*\).*/\1/p' \
		"$tmp/code"
} | LC_ALL=C sort -u >"$tmp/exists"

# FILE:LINE<TAB>NAME of each name() cited that exists nowhere and is not foreign
awk -F'\t' -v lib="$LIB_PREFIXES $KERNEL_PREFIXES" -v foreign="$FOREIGN" '
BEGIN {
	np = split(lib, prefix, /[[:space:]]+/)
	n = split(foreign, f, /[[:space:]]+/)
	for (i = 1; i <= n; i++)
		if (f[i] != "") other[f[i]] = 1
}
function ends(suffix,    x) {
	for (x in exists)
		if (length(x) > length(suffix) &&
		    substr(x, length(x) - length(suffix) + 1) == suffix)
			return 1
	return 0
}
FILENAME == ARGV[1] { exists[$0] = 1; next }
$1 == "C" {
	s = $0
	sub(/^C\t[^\t]*\t/, "", s)
	while (match(s, /[A-Za-z_][A-Za-z0-9_]*\(\)/)) {
		name = substr(s, RSTART, RLENGTH - 2)
		s = substr(s, RSTART + RLENGTH)
		if (name in exists || name in other || (substr(name, 1, 1) == "_" && ends(name)))
			continue
		for (i = 1; i <= np; i++)
			if (prefix[i] != "" && index(name, prefix[i]) == 1)
				break
		if (i <= np)
			continue
		print $2 "\t" name
	}
}' "$tmp/exists" "$tmp/split" >"$tmp/stale"

# split off the KNOWN entries, and those of them no longer found
printf '%s\n' "$KNOWN" | awk 'NF == 2 { print $1 "\t" $2 }' >"$tmp/known"
awk -F'\t' 'FILENAME == ARGV[1] { known[$1 "\t" $2] = 1; next }
	{ f = $1; sub(/:[0-9]+$/, "", f); print ((f "\t" $2) in known ? "K" : "N") "\t" $0 }' \
	"$tmp/known" "$tmp/stale" >"$tmp/hits"
awk -F'\t' 'FILENAME == ARGV[1] { f = $2; sub(/:[0-9]+$/, "", f); seen[f "\t" $3] = 1; next }
	!($0 in seen) { print "# KNOWN entry " $1 " " $2 " is fixed: remove it from scripts/check-comments.sh" }' \
	"$tmp/hits" "$tmp/known"

n=0
fail=0
for d in $DIRS; do
	n=$((n + 1))
	bad=$(awk -F'\t' -v d="$d/" '$1 == "N" && index($2, d) == 1 { print $2 ": " $3 "()" }' "$tmp/hits")
	if [ -z "$bad" ]; then
		echo "ok $n - comments: every name() cited in $d/ exists"
	else
		printf '%s\n' "$bad" | sed 's/^/# /'
		echo "not ok $n - comments: $d/ cites names that exist nowhere ($(printf '%s\n' "$bad" | wc -l))"
		fail=1
	fi
done
n=$((n + 1))
k=$(awk -F'\t' '$1 == "K"' "$tmp/hits" | wc -l)
echo "ok $n - comments: $k known stale citations in folders being changed, to fix (KNOWN)"
exit $fail
