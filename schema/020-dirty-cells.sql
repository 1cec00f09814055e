-- mmuscope schema 20: the dirty rate per region (lib/history/dirty.c).
--
-- dirty_cell: the 4K pages each step dirtied, per 2M cell.  kind 0: pages
-- a harvest collected (write-protected again, or its D bit cleared under
-- PML): the pages written since the last collection, KVM's bitmap.  kind 1:
-- pages the vCPUs' fast path made writable again (a dirty pass's writes).
-- A row sums a cell's pages of one kind in one stretch of one step, from
-- its first page's time (ts); a step's rows are those of its VM and kind
-- within its start_ts .. end_ts.  The enable's protections are kind 0 rows
-- in the enable's time; no harvest claims them.
--
-- phase_region.dirtied_pages: a harvest's (or dirty pass's) dirtied pages
-- in the region; they add up to the phase's dirtied_pages over its regions.
-- NULL for other phases, and for a phase whose rows do not add up to its
-- own count (then the split by region is not known).
CREATE TABLE dirty_cell (
	capture_id INTEGER NOT NULL,
	vm INTEGER NOT NULL,
	as_id INTEGER NOT NULL,
	gfn INTEGER NOT NULL,		-- the 2M cell's first GFN
	ts INTEGER NOT NULL,
	kind INTEGER NOT NULL,		-- 0 collected, 1 made writable by the fast path
	pages INTEGER NOT NULL
);
CREATE INDEX dirty_cell_cell ON dirty_cell(capture_id, vm, as_id, gfn, ts);
ALTER TABLE phase_region ADD COLUMN dirtied_pages INTEGER;
UPDATE analysis SET state = NULL;
