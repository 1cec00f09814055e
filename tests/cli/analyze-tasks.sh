#!/bin/sh
# Activity per task (task_activity, lib/history/activity.c): on every
# capture in the repository and every event file, each bucket's task rows
# add up to its activity row, each task's SPTE changes are its own events'
# (those the model takes),
# and the vCPU a task is given is the one its page faults name.
. "$(dirname "$0")/lib.sh"

q() { sqlite3 "$1" "$2"; }
SUMS="sum(spte_changes) AS a, sum(maps) AS b, sum(splits) AS c, sum(promotions) AS d,
	sum(zaps) AS e, sum(write_protects) AS f, sum(faults_slow) AS g, sum(faults_fast) AS h,
	sum(flushes) AS i"

# tasks DB NAME: the invariants on DB's capture 1
tasks() {
	check_eq "$2: the tasks' rows add up to the activity, bucket by bucket" \
		"$(q "$1" "SELECT ts, $SUMS FROM activity WHERE capture_id = 1 GROUP BY ts ORDER BY ts")" \
		"$(q "$1" "SELECT ts, $SUMS FROM task_activity WHERE capture_id = 1 GROUP BY ts
			   HAVING a + b + c + d + e + f + g + h + i > 0 ORDER BY ts")"
	check_eq "$2: each task's SPTE changes are its events' (but those that fit no layout)" \
		"$(q "$1" "SELECT pid, count(*) FROM spte_change WHERE seq NOT IN
			   (SELECT seq FROM anomaly WHERE kind = 'bad-spte') GROUP BY pid ORDER BY pid")" \
		"$(q "$1" "SELECT pid, sum(spte_changes) FROM task_activity WHERE capture_id = 1
			   GROUP BY pid HAVING sum(spte_changes) > 0 ORDER BY pid")"
	check_eq "$2: a task's vCPUs are those its faults name" \
		"$(q "$1" "SELECT pid, min(vcpu), max(vcpu) FROM fault GROUP BY pid ORDER BY pid")" \
		"$(q "$1" "SELECT pid, min(vcpu), max(vcpu) FROM task_activity WHERE capture_id = 1
			   AND vcpu IS NOT NULL GROUP BY pid ORDER BY pid")"
}

n=0
for d in "$TRACES"/*/; do
	name=$(basename "$d")
	"$MSC" import -q "$d/trace.dat" -o "$T/$name.db" 2>/dev/null || continue
	tasks "$T/$name.db" "$name"
	n=$((n + 1))
done
check_eq "every capture was imported" "$n" "$(ls -d "$TRACES"/*/ | wc -l)"
for f in "$MSC_TEST_DATA"/events/*.events; do
	name=ev-$(basename "$f" .events)
	"$MSC" import -q --text "$f" -o "$T/$name.db" 2>/dev/null || continue
	tasks "$T/$name.db" "$name"
done

# 700 vCPUs faulting in one bucket: more tasks than the bucket's table takes at once
{
	printf '#@ release 6.12.0\n#@ host vendor=npt,nonpresent=0x8000000000000000\n'
	awk 'BEGIN { for (i = 0; i < 700; i++) {
		printf "%d 0 %d page_fault vcpu=%d gpa=0x%x error_code=0x6 rip=0x1000\n", 1000 + 2 * i, 100 + i, i, (262144 + i) * 4096
		printf "%d 0 %d spte_changed as=0 gfn=0x%x level=1 old=0x8000000000000000 new=0x%xe67\n", 1001 + 2 * i, 100 + i, 262144 + i, 262144 + i } }'
} >"$T/crowd.events"
check "700 vCPUs in one bucket: imported" "$MSC" import -q --text "$T/crowd.events" -o "$T/crowd.db"
tasks "$T/crowd.db" crowd
check_eq "crowd: each vCPU is a task of its own, one fault and one SPTE change each" \
	"$(q "$T/crowd.db" "SELECT count(*), count(DISTINCT vcpu), min(n), max(n) FROM (SELECT pid, vcpu,
		sum(faults_slow) + sum(faults_fast) + sum(spte_changes) AS n FROM task_activity GROUP BY pid)")" \
	"700|700|2|2"

db=$T/k612-npt_tdp_32m_2vcpu.db
check_eq "two vCPUs, each its own task, and the task that did the dirty-log sweeps" \
	"$(q "$db" "SELECT group_concat(v, ' ') FROM (SELECT coalesce(min(vcpu), '-') AS v
		    FROM task_activity GROUP BY pid ORDER BY min(vcpu) IS NULL, min(vcpu))")" "0 1 -"
check_eq "the sweep task's SPTE changes are the capture's but the vCPUs' own" \
	"$(q "$db" "SELECT sum(spte_changes) FROM task_activity GROUP BY pid
		    HAVING min(vcpu) IS NULL")" 32821
db=$T/ev-fault-outcomes.db
check_eq "fault-outcomes: the exit the capture ended on is slow, counted for its vCPU" \
	"$(q "$db" "SELECT pid || ' ' || vcpu || ' ' || sum(faults_slow) || ' ' || sum(faults_fast)
		    FROM task_activity GROUP BY pid")" "30 0 3 2"
done_testing
