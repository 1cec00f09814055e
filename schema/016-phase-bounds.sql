-- mmuscope schema 16: how far a phase's bounds are the call's own.
--
-- bounds is "exact" when both the start and the end are the kernel's or
-- the workload's (the ioctl's enter and exit, the companion patch's _begin
-- and _end, markers), "bounded" when one of them is (a kprobe at the
-- start), "inferred" when both come from the work alone.  A bound that is
-- not exact may lie further out by up to its slack: the quiet time before
-- the phase's first activity (slack_start_ns) or after its last
-- (slack_end_ns); 0 for an exact one, NULL when not known (a phase
-- analyzed before this step).  The analysis starts over at the next
-- `mmuscope analyze` (its resume state is dropped).

ALTER TABLE phase ADD COLUMN bounds TEXT NOT NULL DEFAULT 'inferred';
ALTER TABLE phase ADD COLUMN slack_start_ns INTEGER;
ALTER TABLE phase ADD COLUMN slack_end_ns INTEGER;
UPDATE phase SET bounds = CASE source WHEN 'ioctl' THEN 'exact' WHEN 'tracepoint' THEN 'exact'
	WHEN 'marker' THEN 'exact' WHEN 'kprobe' THEN 'bounded' ELSE 'inferred' END;
UPDATE analysis SET state = NULL;
