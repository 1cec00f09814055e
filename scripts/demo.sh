#!/bin/sh
# `make demo`: import a bundled real trace (Debian 6.12 KVM, TDP MMU on AMD
# NPT, nested under QEMU: a 32 MiB guest slot through populate, dirty logging
# on, two dirty passes, dirty logging off, re-populate), then show what
# mmuscope makes of it.
set -eu
cd "$(dirname "$0")/.."
MSC=${MSC:-build/mmuscope}
trace=tests/data/traces/k612-npt_tdp_32m/trace.dat
db=build/demo.db

rm -f "$db" "$db"-wal "$db"-shm
echo "\$ mmuscope import $trace -o $db"
"$MSC" import "$trace" -o "$db"
echo
echo "\$ sqlite3 $db \"select class, count(*) from spte_change group by class order by 2 desc\""
sqlite3 -column -header "$db" "select class, count(*) as n from spte_change group by class order by 2 desc"
echo
echo "\$ mmuscope dump $db | grep -m 6 spte_changed"
"$MSC" dump "$db" | grep -m 6 spte_changed
echo
echo "\$ mmuscope report --brief $db"
"$MSC" report --brief "$db"
echo
echo "The database is $db; its tables are documented in schema/README.md."
echo "The program is $MSC; 'make install' puts it on PATH (/usr/local/bin), with its man"
echo "pages, bash completion and trace-cmd plugin; 'mmuscope help CMD' explains a command."
