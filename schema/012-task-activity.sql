-- mmuscope schema 12: activity per task.
--
-- task_activity is the activity table per task (the events' pid): the
-- same counters for the same buckets, so that a bucket's rows add up to
-- its activity row.  vcpu is the vCPU id the task's page faults named in
-- that bucket (NULL: it took none), which tells the vCPU threads from the
-- VMM's other threads and the kernel's.  A capture analyzed before this
-- step has no rows; its analysis starts over at the next `mmuscope
-- analyze` (its resume state is dropped).

CREATE TABLE task_activity (
	capture_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	ts INTEGER NOT NULL,		-- bucket start, as activity.ts
	vcpu INTEGER,
	spte_changes INTEGER NOT NULL,
	maps INTEGER NOT NULL,
	splits INTEGER NOT NULL,
	promotions INTEGER NOT NULL,
	zaps INTEGER NOT NULL,
	write_protects INTEGER NOT NULL,
	faults_slow INTEGER NOT NULL,
	faults_fast INTEGER NOT NULL,
	flushes INTEGER NOT NULL,
	PRIMARY KEY (capture_id, pid, ts)
) WITHOUT ROWID;
UPDATE analysis SET state = NULL;
