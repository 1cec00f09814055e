#!/bin/sh
# Every public header compiles on its own (git's hdr-check); TAP output.
cd "$(dirname "$0")/.." || exit 1
n=0
fail=0
flags=$(pkg-config --cflags libtraceevent sqlite3 2>/dev/null)
for h in include/mmuscope/*.h; do
	n=$((n + 1))
	if out=$(echo "#include \"${h#include/}\"" |
		${CC:-cc} -std=c17 -D_GNU_SOURCE -Wall -Wextra -Iinclude $flags -x c -fsyntax-only - 2>&1); then
		echo "ok $n - header stands alone: $h"
	else
		echo "not ok $n - header stands alone: $h"
		printf '%s\n' "$out" | head -3 | sed 's/^/# /'
		fail=1
	fi
done
exit $fail
