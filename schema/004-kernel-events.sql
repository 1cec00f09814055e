-- mmuscope schema 4: the events of the companion kernel patch (kernel/,
-- docs/kernel-events.md).  Kernels without the patch leave these empty.
-- Every row names its VM: vm_id is the kernel's per-boot VM number, vm_pid
-- the task that created the VM.

-- kvm:kvm_flush_remote_tlbs: one row per remote TLB flush request.
CREATE TABLE tlb_flush (
	seq INTEGER PRIMARY KEY,
	ts INTEGER NOT NULL,
	cpu INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	vm_id INTEGER NOT NULL,
	vm_pid INTEGER NOT NULL,
	start_gfn INTEGER NOT NULL,	-- range asked for; 0 for a full flush
	nr_pages INTEGER NOT NULL,	-- 0 for a full flush
	range INTEGER NOT NULL,		-- 1: a range was asked for
	"all" INTEGER NOT NULL,		-- 1: every TLB entry of the VM was flushed
	arch_flush INTEGER NOT NULL,	-- 1: the architecture's hook flushed (Hyper-V)
	kicked INTEGER NOT NULL,	-- 1: a vCPU was kicked out of guest mode
	caller INTEGER NOT NULL		-- return address of the caller
);

-- kvmmmu:kvm_mmu_slot_dirty_logging_begin/_end: a memslot's dirty logging
-- turned on or off, around the MMU work it causes.
CREATE TABLE dirty_logging (
	seq INTEGER PRIMARY KEY,
	ts INTEGER NOT NULL,
	cpu INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	op TEXT NOT NULL,		-- 'begin' or 'end'
	vm_id INTEGER NOT NULL,
	vm_pid INTEGER NOT NULL,
	as_id INTEGER NOT NULL,
	slot_id INTEGER NOT NULL,
	base_gfn INTEGER NOT NULL,
	npages INTEGER NOT NULL,
	old_flags INTEGER NOT NULL,	-- KVM_MEM_*: dirty logging is bit 0
	new_flags INTEGER NOT NULL,
	change TEXT,			-- 'create', 'delete', 'move', 'flags_only' (the format's names)
	change_code INTEGER NOT NULL,	-- enum kvm_mr_change
	eager_split INTEGER NOT NULL,
	initially_set INTEGER NOT NULL,
	pml INTEGER NOT NULL,
	duration_ns INTEGER NOT NULL	-- end: the MMU work's duration; begin: 0
);

-- kvmmmu:kvm_mmu_split_huge_pages: one pass of huge page splitting.
CREATE TABLE split_span (
	seq INTEGER PRIMARY KEY,
	ts INTEGER NOT NULL,		-- when the pass ended
	cpu INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	vm_id INTEGER NOT NULL,
	vm_pid INTEGER NOT NULL,
	as_id INTEGER NOT NULL,
	slot_id INTEGER NOT NULL,	-- -1: a fault with no memslot
	start_gfn INTEGER NOT NULL,
	end_gfn INTEGER NOT NULL,
	target_level INTEGER NOT NULL,
	reason TEXT,			-- 'enable', 'clear' (CLEAR_DIRTY_LOG), 'fault' (the format's names)
	reason_code INTEGER NOT NULL,
	split_1g INTEGER NOT NULL,
	split_2m INTEGER NOT NULL,
	failed INTEGER NOT NULL,
	duration_ns INTEGER NOT NULL
);

-- kvmmmu:kvm_mmu_zap_collapsible_sptes: one pass of zap-collapsible at
-- dirty-log disable (<= 6.12).
CREATE TABLE collapse_span (
	seq INTEGER PRIMARY KEY,
	ts INTEGER NOT NULL,		-- when the pass ended
	cpu INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	vm_id INTEGER NOT NULL,
	vm_pid INTEGER NOT NULL,
	as_id INTEGER NOT NULL,
	slot_id INTEGER NOT NULL,
	start_gfn INTEGER NOT NULL,
	end_gfn INTEGER NOT NULL,
	zapped_1g INTEGER NOT NULL,
	zapped_2m INTEGER NOT NULL,
	skipped INTEGER NOT NULL,
	flushes INTEGER NOT NULL,
	duration_ns INTEGER NOT NULL
);

-- The VMs the patched events name.
CREATE VIEW vm AS
SELECT vm_id, vm_pid, min(ts) AS first_ts, max(ts) AS last_ts, count(*) AS events FROM (
	SELECT vm_id, vm_pid, ts FROM tlb_flush
	UNION ALL SELECT vm_id, vm_pid, ts FROM dirty_logging
	UNION ALL SELECT vm_id, vm_pid, ts FROM split_span
	UNION ALL SELECT vm_id, vm_pid, ts FROM collapse_span)
GROUP BY vm_id, vm_pid;
