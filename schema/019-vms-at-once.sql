-- mmuscope schema 19: VMs that run at once, each with its own page tables,
-- census and phases (lib/history/place.c).
--
-- The rows of the page tables, of the census and of the cells name the VM
-- (vm.id) whose tables they are; so do KVM's counters (a marker of the VM's
-- task), the regions and the anomalies.  Rows written before this step are
-- the first VM's, as they were.  analysis.unplaced counts the events of a
-- capture with several VMs at once that nothing placed in a VM (they went
-- to the first one).  The analysis starts over at the next `mmuscope analyze`.
ALTER TABLE mapping_run ADD COLUMN vm INTEGER NOT NULL DEFAULT 1;
ALTER TABLE census ADD COLUMN vm INTEGER NOT NULL DEFAULT 1;
ALTER TABLE kvm_stats ADD COLUMN vm INTEGER NOT NULL DEFAULT 1;
ALTER TABLE region_state_run ADD COLUMN vm INTEGER NOT NULL DEFAULT 1;
ALTER TABLE region ADD COLUMN vm INTEGER NOT NULL DEFAULT 1;
ALTER TABLE anomaly ADD COLUMN vm INTEGER NOT NULL DEFAULT 1;
ALTER TABLE analysis ADD COLUMN unplaced INTEGER NOT NULL DEFAULT 0;
UPDATE analysis SET state = NULL;

DROP VIEW gfn_history;
DROP VIEW mapping;
DROP VIEW region_state;
DROP VIEW vm_census;
DROP VIEW kvm_stats_check;

CREATE VIEW mapping AS
SELECT capture_id, as_id, gfn + idx * (1 << (9 * (level - 1))) AS gfn, level, leaf,
       start_ts, end_ts,
       spte + (idx - first) * (4096 << (9 * (level - 1))) AS spte,
       pfn + (idx - first) * (1 << (9 * (level - 1))) AS pfn,
       writable, dirty, start_cause, end_cause, flags, vm
FROM mapping_entry;

CREATE VIEW gfn_history AS
SELECT m.capture_id, m.as_id, m.gfn, m.level,
       CASE WHEN m.leaf = 0 THEN 'table'
            WHEN m.level = 1 THEN '4K' WHEN m.level = 2 THEN '2M' WHEN m.level = 3 THEN '1G'
            ELSE 'L' || m.level END AS what,
       m.start_ts, m.end_ts,
       CASE WHEN m.end_ts IS NULL THEN NULL ELSE m.end_ts - m.start_ts END AS duration_ns,
       printf('%#x', m.pfn) AS pfn, m.writable, m.dirty,
       s.name AS started_by, e.name AS ended_by, m.flags,
       printf('%#018x', m.spte) AS spte, m.vm
FROM mapping m JOIN map_cause s ON s.id = m.start_cause JOIN map_cause e ON e.id = m.end_cause;

CREATE VIEW region_state AS
SELECT r.capture_id AS capture_id, r.as_id AS as_id, r.gfn AS gfn,
       r.ts + json_extract(e.value, '$[0]') AS ts, r.kind AS kind,
       json_extract(e.value, '$[1]') AS mapped, json_extract(e.value, '$[2]') AS writable,
       r.vm AS vm
FROM region_state_run r, json_each(r.at) e;

-- One VM's census at T is its last row with ts <= T (per as_id).
CREATE VIEW vm_census AS
SELECT capture_id, vm, as_id, ts, seq, pages_4k, pages_2m, pages_1g, flags FROM census;

CREATE VIEW kvm_stats_check AS
SELECT capture_id, seq, ts, phase, pages_4k, census_4k, census_4k - pages_4k AS diff_4k,
       pages_2m, census_2m, census_2m - pages_2m AS diff_2m,
       pages_1g, census_1g, census_1g - pages_1g AS diff_1g, census_flags, vm
FROM kvm_stats;

-- one VM's census at T: its last row per as_id with ts <= T
DROP INDEX census_ts;
CREATE INDEX census_ts ON census(capture_id, vm, as_id, ts);
