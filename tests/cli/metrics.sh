#!/bin/sh
# `mmuscope metrics`: a capture's per-VM metrics in Prometheus's text
# format.  Debian's promtool accepts them; every value is the analysis's own
# (the phases', the census's, the analysis row's, read here in SQL); bad
# input gets one line and exit 1.  Then the path a fleet takes: a real
# prometheus-node-exporter on loopback serves the file from its textfile
# directory, and a real prometheus scrapes two hosts' exporters and a
# PromQL query picks the host of the slow disable.
. "$(dirname "$0")/lib.sh"

command -v promtool >/dev/null || skip_all "no promtool (Debian's prometheus)"
q() { sqlite3 "$1" "$2"; }
for c in k612-npt_2vm_16m k612-npt_tdp_1g_hugetlb k612-npt_tdp_32m; do
	[ -d "$TRACES/$c" ] || skip_all "no capture $c"
	"$MSC" import -q "$TRACES/$c/trace.dat" -o "$T/$c.db" 2>/dev/null
done
db=$T/k612-npt_2vm_16m.db
"$MSC" metrics "$db" --host host-a >"$T/m.prom"
check "promtool check metrics: the format and its conventions" \
	sh -c "promtool check metrics <'$T/m.prom'"
check_eq "a HELP and a TYPE line per metric family" \
	"$(grep -c '^# HELP mmuscope_' "$T/m.prom")" "$(grep -c '^# TYPE mmuscope_' "$T/m.prom")"
# the value of METRIC{labels containing SEL}
val() { grep "^$1{" "$T/m.prom" | grep -F "$2" | sed 's/.* //'; }
kernel=$(q "$db" "SELECT kernel_release FROM capture")
check_eq "labels: host, kernel, vm" \
	"$(grep '^mmuscope_vm_pages_split_total{' "$T/m.prom" | sed 's/} .*//' | head -1)" \
	"mmuscope_vm_pages_split_total{host=\"host-a\",kernel=\"$kernel\",vm=\"2\""
for vm in 2 3; do
	for step in enable harvest disable; do
		check_eq "VM $vm: the last $step's duration, the phase's" \
			"$(val mmuscope_vm_dirty_log_step_seconds "vm=\"$vm\",step=\"$step\"")" \
			"$(q "$db" "SELECT printf('%.9f', (end_ts - start_ts) / 1e9) FROM phase
				WHERE vm = $vm AND kind = '$step' AND source != 'marker'
				ORDER BY end_ts DESC LIMIT 1")"
	done
	check_eq "VM $vm: huge pages split, its phases' (the markers' hold the same again)" \
		"$(val mmuscope_vm_pages_split_total "vm=\"$vm\"")" \
		"$(q "$db" "SELECT sum(pages_split) FROM phase WHERE vm = $vm AND source != 'marker'
			AND kind != 'workload'")"
	check_eq "VM $vm: TLB flushes, its phases'" "$(val mmuscope_vm_tlb_flushes_total "vm=\"$vm\"")" \
		"$(q "$db" "SELECT sum(flushes) FROM phase WHERE vm = $vm AND source != 'marker'
			AND kind != 'workload'")"
	check_eq "VM $vm: huge again after the disable, as the phase says" \
		"$(val mmuscope_vm_huge_again_seconds "vm=\"$vm\"")" \
		"$(q "$db" "SELECT printf('%.9f', max(to_huge_ns) / 1e9) FROM phase WHERE vm = $vm
			AND kind IN ('disable', 're-promotion') AND to_huge_ns >= 0")"
	check_eq "VM $vm: mapped bytes at the end: its census (the VM is gone: none)" \
		"$(val mmuscope_vm_mapped_bytes "vm=\"$vm\",size=\"4k\"")" \
		"$(q "$db" "SELECT sum(pages_4k) * 4096 FROM census c WHERE vm = $vm AND ts = (SELECT
			max(ts) FROM census d WHERE d.vm = c.vm AND d.as_id = c.as_id)")"
	check_eq "VM $vm: its dirty-logged memory all huge again (the re-promotion's end)" \
		"$(val mmuscope_vm_huge_ratio "vm=\"$vm\"")" "1.000000"
done
check_eq "the VM with no memory and no steps (the one the capture began in) is left out" \
	"$(grep -c 'vm="1"' "$T/m.prom")" 0
check_eq "anomalies and lost events: the analysis's" \
	"$(val mmuscope_anomalies_total host) $(val mmuscope_lost_events_total host)" \
	"$(q "$db" "SELECT anomalies || ' ' || lost_events FROM analysis")"

# a 1G-backed VM: its 1G pages are bytes of 1G pages
"$MSC" metrics "$T/k612-npt_tdp_1g_hugetlb.db" --host host-b >"$T/g.prom"
check "promtool: the 1G capture's too" sh -c "promtool check metrics <'$T/g.prom'"

# bad input: one line naming the file, exit 1
check_fails "a database that does not exist" "$MSC" metrics "$T/none.db"
check_eq "... one line naming it" "$("$MSC" metrics "$T/none.db" 2>&1 | wc -l) \
$("$MSC" metrics "$T/none.db" 2>&1 | grep -c "$T/none.db")" "1 1"
"$MSC" import -q --no-analyze "$TRACES/k612-npt_tdp_32m/trace.dat" -o "$T/raw.db"
check_fails "a capture not analyzed" "$MSC" metrics "$T/raw.db"
check_match "... says so" "$("$MSC" metrics "$T/raw.db" 2>&1)" \
	"^mmuscope metrics: $T/raw.db: the capture was not analyzed \(run 'mmuscope analyze "
printf 'not a database\n' >"$T/text.db"
check_fails "a file that is not a database" "$MSC" metrics "$T/text.db"
check_fails "a capture the database does not have" "$MSC" metrics "$db" -c 9

# record --metrics-dir: the file is the recording's metrics, whole, renamed
# into place (a fake tracing tree: the 6.12 formats, a workload's run)
"$MSC" synth -q --tracing-dir "$T/tree" --instance mmuscope --guest-mib 64 \
	--formats "$MSC_TEST_DATA/formats/6.12"
mkdir "$T/prom"
printf 'stale\n' >"$T/prom/.mmuscope.prom.tmp"	# a killed run's
check "record --metrics-dir DIR" "$MSC" record -q --tracing-dir "$T/tree" -o "$T/rec.db" \
	--metrics-dir "$T/prom"
check "... DIR/mmuscope.prom passes promtool" sh -c "promtool check metrics <'$T/prom/mmuscope.prom'"
check_eq "... it is mmuscope metrics of the recording" "$(cat "$T/prom/mmuscope.prom")" \
	"$("$MSC" metrics "$T/rec.db" --host "$(hostname)")"
check_match "... with the steps of the run" "$(cat "$T/prom/mmuscope.prom")" \
	'^mmuscope_vm_dirty_log_step_seconds\{.*step="disable"\} [0-9.]+$'
check_eq "... nothing else left in DIR (a killed run's temporary file removed)" \
	"$(ls -A "$T/prom")" "mmuscope.prom"
check_eq "... 0644: node_exporter's user reads it" "$(stat -c %a "$T/prom/mmuscope.prom")" 644
check_fails "--metrics-dir that is not a directory" "$MSC" record --tracing-dir "$T/tree" \
	-o "$T/rec2.db" --metrics-dir "$T/prom/mmuscope.prom"
check_match "... one line saying so, before recording" "$("$MSC" record --tracing-dir "$T/tree" \
	-o "$T/rec2.db" --metrics-dir "$T/prom/mmuscope.prom" 2>&1)" \
	"^mmuscope record: --metrics-dir $T/prom/mmuscope.prom: Not a directory"
check_eq "... and no database made" "$(ls "$T/rec2.db" 2>/dev/null)" ""

# docs/FLEET.md's alert rules: valid, and they fire when they should
# (promtool's unit test: a slow disable, huge pages that do not come back)
rules=$(cd "$(dirname "$0")/../.." && pwd)/docs/fleet-alerts.yml
check "promtool check rules docs/fleet-alerts.yml" promtool check rules "$rules"
check "promtool test rules: each alert fires on its case, and only then" \
	sh -c "cd '$MSC_TEST_DATA' && promtool test rules fleet-alerts.test.yml"

# node_exporter's textfile collector serves it; prometheus scrapes two hosts
if ! command -v prometheus-node-exporter >/dev/null || ! command -v prometheus >/dev/null ||
   ! command -v python3 >/dev/null; then
	diag "no prometheus-node-exporter or prometheus: the scrape is not checked"
	done_testing
fi
port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
get() { python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())' "$1" 2>/dev/null; }
# wait_for URL REGEX: until what URL serves matches (a guard of 60 s, not a timing)
wait_for() {
	_i=0
	while [ $_i -lt 300 ]; do
		get "$1" | grep -qE -- "$2" && return 0
		sleep 0.2
		_i=$((_i + 1))
	done
	return 1
}
pids=
trap 'for p in $pids; do kill "$p" 2>/dev/null; done; wait; rm -rf "$T"' EXIT
for h in a b; do
	mkdir -p "$T/text-$h"
	eval "p_$h=$(port)"
done
# host a: the 1G capture (a disable of about 200 ms), host b: the 32 MiB one (10 ms)
"$MSC" metrics "$T/k612-npt_tdp_1g_hugetlb.db" --host host-a >"$T/text-a/mmuscope.prom"
"$MSC" metrics "$T/k612-npt_tdp_32m.db" --host host-b >"$T/text-b/mmuscope.prom"
for h in a b; do
	eval "p=\$p_$h"
	prometheus-node-exporter --web.listen-address="127.0.0.1:$p" --collector.disable-defaults \
		--collector.textfile --collector.textfile.directory="$T/text-$h" \
		>"$T/exporter-$h.log" 2>&1 &
	pids="$pids $!"
done
# shellcheck disable=SC2154
check "node_exporter serves the file's metrics" \
	wait_for "http://127.0.0.1:$p_a/metrics" '^mmuscope_vm_dirty_log_step_seconds\{'
# samples as "name{labels sorted} value as a number": the exporter orders labels
norm() {
	python3 -c 'import re, sys
for line in sys.stdin:
    m = re.match(r"(mmuscope_\w+)\{(.*)\} (\S+)$", line.strip())
    if m:
        labels = ",".join(sorted(re.findall(r"\w+=\"[^\"]*\"", m.group(2))))
        print("%s{%s} %r" % (m.group(1), labels, float(m.group(3))))' | sort
}
check_eq "... every sample, value for value" \
	"$(get "http://127.0.0.1:$p_a/metrics" | norm)" "$(norm <"$T/text-a/mmuscope.prom")"
check_eq "... and the textfile collector read it without error" \
	"$(get "http://127.0.0.1:$p_a/metrics" | grep '^node_textfile_scrape_error')" \
	"node_textfile_scrape_error 0"
pp=$(port)
cat >"$T/prometheus.yml" <<EOF2
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: hosts
    static_configs:
      - targets: ['127.0.0.1:$p_a', '127.0.0.1:$p_b']
EOF2
prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/tsdb" \
	--web.listen-address="127.0.0.1:$pp" >"$T/prometheus.log" 2>&1 &
pids="$pids $!"
query="http://127.0.0.1:$pp/api/v1/query?query=topk(1,max%20by(host)(mmuscope_vm_dirty_log_step_seconds%7Bstep%3D%22disable%22%7D))"
check "prometheus scrapes both hosts" wait_for \
	"http://127.0.0.1:$pp/api/v1/query?query=count(mmuscope_capture_info)" '"value":\[[0-9.]+,"2"\]'
slow=$(for c in k612-npt_tdp_1g_hugetlb:host-a k612-npt_tdp_32m:host-b; do
	q "$T/${c%%:*}.db" "SELECT max(end_ts - start_ts) || ' ${c#*:}' FROM phase
		WHERE kind = 'disable' AND source != 'marker'"
done | sort -n | tail -1 | cut -d' ' -f2)
check_match "PromQL: the slow disable is $slow's" "$(get "$query")" "\"host\":\"$slow\""
done_testing
