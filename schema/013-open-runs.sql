-- mmuscope schema 13: an open run's start times stored once.
--
-- An open run's intervals have no end, so element k of its entries holds
-- (i_k, 0, s_k) where a closed run's holds (i_k, s_k, e_k): the start
-- residual in the end's place, with the leading zeros left out as before
-- (s_k alone, or [i_k, 0, s_k]).  Entry k (0 .. n-1) of a row is
--
--	index = idx0 + k + i_k
--	start_ts = t0 + k * start_step + (e0 NULL ? e_k : s_k)
--	end_ts = e0 + k * end_step + e_k	(e0 NULL: open, no end)
--
-- reading each element as [i_k, s_k, e_k] with the leading zeros left out.
--
-- Most open runs start where a closed run of the same page table ended,
-- entry for entry (a write-protect sweep ends the 512 intervals of a split's
-- children and starts the 512 write-protected ones at the same times).  Such
-- a run stores no entries: prev is the id of that closed run, its idx0, t0
-- and start_step are prev's idx0, e0 and end_step, and its n intervals are
-- prev's entries read as an open run's.  The analyzer writes prev only
-- after reading prev's intervals back and finding every index and start
-- equal to prev's (lib/history/store.c); a closed run never has a prev,
-- and a run that is some row's prev is closed, so it is never deleted
-- alone (hstore_delete_open() deletes open runs).
--
-- id is an INTEGER PRIMARY KEY, which VACUUM keeps: the table is rebuilt,
-- its rows keeping their rowids as ids.

DROP VIEW gfn_history;
DROP VIEW mapping;
DROP VIEW mapping_entry;

CREATE TABLE mapping_run_13 (
	id INTEGER PRIMARY KEY,
	capture_id INTEGER NOT NULL,
	as_id INTEGER NOT NULL,
	gfn INTEGER NOT NULL,		-- the page table's first GFN (base of entry 0)
	level INTEGER NOT NULL,
	leaf INTEGER NOT NULL,		-- 1 leaf, 0 page table
	first INTEGER NOT NULL,		-- index of the entry spte and pfn belong to
	spte INTEGER NOT NULL,
	pfn INTEGER NOT NULL,
	writable INTEGER NOT NULL,
	dirty INTEGER,			-- NULL: the layout has no D bit
	start_cause INTEGER NOT NULL REFERENCES map_cause(id),
	end_cause INTEGER NOT NULL REFERENCES map_cause(id),	-- 0 exactly while open
	flags INTEGER NOT NULL,		-- 1 synthesized, 2 after lost events, 4 resync
	n INTEGER NOT NULL,		-- intervals
	entries TEXT,			-- JSON residuals, see above; NULL: prev's
	idx0 INTEGER NOT NULL,
	t0 INTEGER NOT NULL,
	start_step INTEGER NOT NULL,
	e0 INTEGER,			-- NULL: open
	end_step INTEGER NOT NULL,
	prev INTEGER			-- open runs only: the closed run whose ends are its starts
);

-- closed runs as they are; open runs' [i_k, s_k, 0] become [i_k, 0, s_k]
INSERT INTO mapping_run_13
SELECT rowid, capture_id, as_id, gfn, level, leaf, first, spte, pfn, writable, dirty,
       start_cause, end_cause, flags, n,
       CASE WHEN e0 IS NOT NULL THEN entries ELSE (
	SELECT json_group_array(CASE WHEN i != 0 THEN json_array(i, 0, s) ELSE s END)
	FROM (SELECT CASE json_array_length(e.value) WHEN 3 THEN e.value ->> 0 ELSE 0 END AS i,
		     CASE json_array_length(e.value) WHEN 3 THEN e.value ->> 1
						     WHEN 2 THEN e.value ->> 0 ELSE 0 END AS s
	      FROM json_each(mapping_run.entries) e ORDER BY e.key)) END,
       idx0, t0, start_step, e0, end_step, NULL
FROM mapping_run;
DROP TABLE mapping_run;
ALTER TABLE mapping_run_13 RENAME TO mapping_run;
-- the analyzer's index (lib/history/store.c drops it again before a bulk load
-- into an empty table, and builds it after)
CREATE INDEX mapping_run_gfn ON mapping_run(gfn, level, n, first);

-- One row per interval, with its run's columns (prev's entries when the
-- run has none): the fast GFN lookup of schema/README.md filters on the
-- run's own (indexed) gfn.
CREATE VIEW mapping_entry AS
SELECT r.*,
       r.idx0 + e.key
	 + CASE json_array_length(e.value) WHEN 3 THEN e.value ->> 0 ELSE 0 END AS idx,
       r.t0 + e.key * r.start_step
	 + CASE WHEN r.e0 IS NULL THEN
		CASE json_array_length(e.value) WHEN 3 THEN e.value ->> 2
						WHEN 2 THEN e.value ->> 1 ELSE e.value END
		ELSE CASE json_array_length(e.value) WHEN 3 THEN e.value ->> 1
						     WHEN 2 THEN e.value ->> 0 ELSE 0 END END AS start_ts,
       r.e0 + e.key * r.end_step
	 + CASE json_array_length(e.value) WHEN 3 THEN e.value ->> 2
					   WHEN 2 THEN e.value ->> 1 ELSE e.value END AS end_ts
FROM mapping_run r LEFT JOIN mapping_run p ON p.id = r.prev,
     json_each(coalesce(r.entries, p.entries)) e;

CREATE VIEW mapping AS
SELECT capture_id, as_id, gfn + idx * (1 << (9 * (level - 1))) AS gfn, level, leaf,
       start_ts, end_ts,
       spte + (idx - first) * (4096 << (9 * (level - 1))) AS spte,
       pfn + (idx - first) * (1 << (9 * (level - 1))) AS pfn,
       writable, dirty, start_cause, end_cause, flags
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
       printf('%#018x', m.spte) AS spte
FROM mapping m JOIN map_cause s ON s.id = m.start_cause JOIN map_cause e ON e.id = m.end_cause;
