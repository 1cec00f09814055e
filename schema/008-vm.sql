-- mmuscope schema 8: the VMs of a capture, each with its own phases and
-- census, and the vCPUs' passes between the dirty-log steps as phases
-- (populate, dirty-pass, re-populate).

-- The VMs the companion patch's events name (schema 5's view vm).
DROP VIEW vm;
CREATE VIEW kernel_vm AS
SELECT vm_id, vm_pid, min(ts) AS first_ts, max(ts) AS last_ts, count(*) AS events FROM (
	SELECT vm_id, vm_pid, ts FROM tlb_flush
	UNION ALL SELECT vm_id, vm_pid, ts FROM dirty_logging
	UNION ALL SELECT vm_id, vm_pid, ts FROM split_span
	UNION ALL SELECT vm_id, vm_pid, ts FROM collapse_span
	UNION ALL SELECT vm_id, vm_pid, ts FROM harvest)
GROUP BY vm_id, vm_pid;

-- The VMs, one after the other (lib/history/vm.c): a VM begins at its
-- KVM_CREATE_VM, where the companion patch's vm id changes, or (inferred)
-- at the first guest fault or SPTE installed after a teardown left nothing
-- mapped.
CREATE TABLE vm (
	capture_id INTEGER NOT NULL,
	id INTEGER NOT NULL,		-- 1, 2, ... in the capture
	source TEXT NOT NULL,		-- ioctl, tracepoint or inferred
	overlap INTEGER NOT NULL,	-- 1: began while the VM before had memory mapped
	pid INTEGER,			-- KVM_CREATE_VM's task
	fd INTEGER,			-- the VM's file descriptor (KVM_CREATE_VM's return)
	kernel_vm_id INTEGER,		-- the companion patch's vm_id
	kernel_vm_pid INTEGER,		-- ... and vm_pid
	start_ts INTEGER NOT NULL,
	end_ts INTEGER NOT NULL,
	start_seq INTEGER NOT NULL,
	end_seq INTEGER NOT NULL,
	PRIMARY KEY (capture_id, id)
) WITHOUT ROWID;

-- The phase's VM (vm.id).
ALTER TABLE phase ADD COLUMN vm INTEGER NOT NULL DEFAULT 1;

-- Each census row with its VM.
CREATE VIEW vm_census AS
SELECT c.capture_id, v.id AS vm, c.as_id, c.ts, c.seq, c.pages_4k, c.pages_2m, c.pages_1g, c.flags
FROM census c JOIN vm v ON v.capture_id = c.capture_id AND c.seq BETWEEN v.start_seq AND v.end_seq;
