-- mmuscope schema 5: dirty-log harvests, from the companion kernel patch's
-- kvm:kvm_dirty_log_harvest (kernel/*/0006, docs/kernel-events.md).

-- One KVM_GET_DIRTY_LOG or KVM_CLEAR_DIRTY_LOG of one memslot, when done.
CREATE TABLE harvest (
	seq INTEGER PRIMARY KEY,
	ts INTEGER NOT NULL,		-- when the harvest ended
	cpu INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	vm_id INTEGER NOT NULL,
	vm_pid INTEGER NOT NULL,
	as_id INTEGER NOT NULL,
	slot_id INTEGER NOT NULL,
	start_gfn INTEGER NOT NULL,	-- [start_gfn, start_gfn + npages) harvested
	npages INTEGER NOT NULL,
	op TEXT NOT NULL,		-- 'get' (KVM_GET_DIRTY_LOG) or 'clear' (KVM_CLEAR_DIRTY_LOG)
	dirty INTEGER NOT NULL,		-- pages found dirty (get) or taken out of the bitmap (clear)
	protect INTEGER NOT NULL,	-- 1: dirty tracking re-armed for them (0: a get that leaves it to clear)
	flush INTEGER NOT NULL,		-- 1: a memslot TLB flush followed
	duration_ns INTEGER NOT NULL
);

DROP VIEW vm;
CREATE VIEW vm AS
SELECT vm_id, vm_pid, min(ts) AS first_ts, max(ts) AS last_ts, count(*) AS events FROM (
	SELECT vm_id, vm_pid, ts FROM tlb_flush
	UNION ALL SELECT vm_id, vm_pid, ts FROM dirty_logging
	UNION ALL SELECT vm_id, vm_pid, ts FROM split_span
	UNION ALL SELECT vm_id, vm_pid, ts FROM collapse_span
	UNION ALL SELECT vm_id, vm_pid, ts FROM harvest)
GROUP BY vm_id, vm_pid;
