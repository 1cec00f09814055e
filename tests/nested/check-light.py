#!/usr/bin/env python3
"""check-light.py REPORT.json DB - what check-kernel.sh --light checks of a
light recording's report, printed as "key value" lines:

  steps          the kernel's dirty-log steps, "kind/bounds" in time order
  enable_splits  the huge pages the enable split (kvm_mmu_split_huge_page)
  after_checked  steps KVM's counters after them are given for (see below)
  after_differ   ... of those, the ones whose counters are not the workload's

The workload reads KVM's counters itself right after each step's ioctl and
prints them ("KVM stats after <phase>").  From the enable's end to the
disable's start nothing changes the census (the dirty passes only make 4K
pages writable again, the harvests protect them again), so the counters
report gives after the enable and after each harvest (a read before the
next step began, else none) must be the line printed after the enable.
After the disable the vCPUs map huge pages again, so the disable's read is
compared only when it came before the workload's own.
"""
import json
import re
import sqlite3
import sys

rep = json.load(open(sys.argv[1]))["captures"][0]
db = sqlite3.connect(sys.argv[2])
ends = dict(db.execute("SELECT id, end_ts FROM phase"))
marks = []
for ts, text in db.execute("SELECT ts, text FROM marker WHERE text LIKE '%KVM stats after %' "
                           "ORDER BY ts"):
    m = re.search(r"pages_4k=(\d+) pages_2m=(\d+) pages_1g=(\d+)", text)
    marks.append((ts, [int(m.group(i)) for i in (1, 2, 3)]))

steps = [p for p in rep["phases"] if p["kind"] in ("enable", "harvest", "disable")]
print("steps", " ".join(f'{p["kind"]}/{p["bounds"]}' for p in steps))
print("enable_splits", sum(p["splits"] for p in steps if p["kind"] == "enable"))
checked = differ = 0
enable = next((p for p in steps if p["kind"] == "enable"), None)
held = next((m for m in marks if enable and m[0] > ends[enable["id"]]), None)
for p in steps:
    after = (p.get("kvm") or {}).get("after")
    if not after or after["read_ns"] is None:
        continue
    end = ends[p["id"]]
    line = held
    if p["kind"] == "disable":
        line = next((m for m in marks if m[0] > end), None)
        if not line or end + after["read_ns"] > line[0]:
            continue
    checked += 1
    got = [after["pages_4k"], after["pages_2m"], after["pages_1g"]]
    if not line or got != line[1]:
        differ += 1
        print(f"# step {p['id']}: read {got}, the workload's line {line and line[1]}")
print("after_checked", checked)
print("after_differ", differ)
