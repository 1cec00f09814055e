-- mmuscope schema 15: a cell's consecutive region_state rows stored as one.
--
-- A sweep (write-protect, split, collapse, a vCPU faulting its memory in)
-- moves one 2M cell through its sixteenths before the next, so the
-- analyzer writes a cell's rows one after another: 5 to 10 rows in a row
-- on the bench's traces.  One row of region_state_run holds such a run of
-- n rows of one cell (capture_id, as_id, gfn) and one kind, written one
-- after another; element k (0 .. n-1) of the JSON array at is row k's
-- [dt_k, mapped_k, writable_k], its ts being ts + dt_k (dt_0 = 0).
--
-- The analyzer (lib/history/store.c) keeps a run open while it is the last
-- row it holds uncommitted: a run never spans a commit, and its rows are
-- exactly the rows region_state held before this step, in the same order
-- (the run table's rowid, then k).  A row with ts at or above 2^62 is a run
-- of its own, so ts + dt_k never overflows.  The view region_state expands
-- the runs with the table's columns; count(*) over it is sum(n) over the
-- runs, and a cell's runs are found through region_state_gfn as its rows
-- were.  A database analyzed before this step keeps its rows, each a run
-- of one.

CREATE TABLE region_state_run (
	capture_id INTEGER NOT NULL,
	as_id INTEGER NOT NULL,
	gfn INTEGER NOT NULL,		-- 2M aligned
	ts INTEGER NOT NULL,		-- the first row's
	kind INTEGER NOT NULL,		-- of every row: 0 unmapped, 1 4K table, 2 2M leaf, 3 part of 1G leaf
	n INTEGER NOT NULL,		-- rows in the run
	at TEXT NOT NULL		-- JSON [[dt, mapped, writable], ...], one element per row
);
INSERT INTO region_state_run (capture_id, as_id, gfn, ts, kind, n, at)
SELECT capture_id, as_id, gfn, ts, kind, 1, json_array(json_array(0, mapped, writable))
FROM region_state ORDER BY rowid;
DROP TABLE region_state;

CREATE VIEW region_state AS
SELECT r.capture_id AS capture_id, r.as_id AS as_id, r.gfn AS gfn,
       r.ts + json_extract(e.value, '$[0]') AS ts, r.kind AS kind,
       json_extract(e.value, '$[1]') AS mapped, json_extract(e.value, '$[2]') AS writable
FROM region_state_run r, json_each(r.at) e;

CREATE INDEX region_state_gfn ON region_state_run(gfn, capture_id, as_id, ts);
