-- mmuscope schema 10: mapping_run's times as residuals from the run's steps.
--
-- A run's intervals start and end one after another (a split's 512 children
-- start together and a write-protect sweep ends them every few ns), so, like
-- the event runs of schema 9, entry k (0 .. n-1) of a row of mapping_run is
--
--	index = idx0 + k + i_k
--	start_ts = t0 + k * start_step + s_k
--	end_ts = e0 + k * end_step + e_k	(e0 NULL: the run is open)
--
-- where element k of entries is e_k (i_k = s_k = 0), [s_k, e_k] (i_k = 0)
-- or [i_k, s_k, e_k].  A row's text is about a seventh of the absolute
-- [[index, start_ts, end_ts], ...] it replaces.

ALTER TABLE mapping_run ADD COLUMN idx0 INTEGER NOT NULL DEFAULT 0;
ALTER TABLE mapping_run ADD COLUMN t0 INTEGER NOT NULL DEFAULT 0;
ALTER TABLE mapping_run ADD COLUMN start_step INTEGER NOT NULL DEFAULT 0;
ALTER TABLE mapping_run ADD COLUMN e0 INTEGER;
ALTER TABLE mapping_run ADD COLUMN end_step INTEGER NOT NULL DEFAULT 0;

-- rows of the old form: steps 0, every element [i_k, s_k, e_k]
UPDATE mapping_run SET idx0 = entries ->> '$[0][0]', t0 = entries ->> '$[0][1]',
		       e0 = entries ->> '$[0][2]';
UPDATE mapping_run SET entries = (
	SELECT json_group_array(json_array((e.value ->> 0) - mapping_run.idx0 - e.key,
					   (e.value ->> 1) - mapping_run.t0,
					   coalesce((e.value ->> 2) - mapping_run.e0, 0)))
	FROM json_each(mapping_run.entries) e);

-- One row per interval, with its run's columns: the fast GFN lookup of
-- schema/README.md filters on the run's own (indexed) gfn.
CREATE VIEW mapping_entry AS
SELECT r.*,
       r.idx0 + e.key
	 + CASE json_array_length(e.value) WHEN 3 THEN e.value ->> 0 ELSE 0 END AS idx,
       r.t0 + e.key * r.start_step
	 + CASE json_array_length(e.value) WHEN 3 THEN e.value ->> 1
					   WHEN 2 THEN e.value ->> 0 ELSE 0 END AS start_ts,
       r.e0 + e.key * r.end_step
	 + CASE json_array_length(e.value) WHEN 3 THEN e.value ->> 2
					   WHEN 2 THEN e.value ->> 1 ELSE e.value END AS end_ts
FROM mapping_run r, json_each(r.entries) e;

DROP VIEW mapping;
CREATE VIEW mapping AS
SELECT capture_id, as_id, gfn + idx * (1 << (9 * (level - 1))) AS gfn, level, leaf,
       start_ts, end_ts,
       spte + (idx - first) * (4096 << (9 * (level - 1))) AS spte,
       pfn + (idx - first) * (1 << (9 * (level - 1))) AS pfn,
       writable, dirty, start_cause, end_cause, flags
FROM mapping_entry;
