-- mmuscope schema 17: the dirty ring (KVM_CAP_DIRTY_LOG_RING[_ACQ_REL]),
-- from the stock kernel's kvm:kvm_dirty_ring_push, kvm_dirty_ring_reset and
-- kvm_dirty_ring_exit (virt/kvm/dirty_ring.c, every kernel since 5.11).

-- One row per event; the indexes are the ring's free-running counters:
-- dirty_index - reset_index entries are in use after the event.
CREATE TABLE dirty_ring (
	seq INTEGER PRIMARY KEY,
	ts INTEGER NOT NULL,
	cpu INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	op TEXT NOT NULL,		-- 'push' (a page logged), 'reset' (KVM_RESET_DIRTY_RINGS
					-- took back what user space collected), 'exit'
					-- (KVM_EXIT_DIRTY_RING_FULL)
	ring INTEGER,			-- push, reset: the ring's index (its vCPU's)
	dirty_index INTEGER,		-- push, reset: the next entry KVM fills
	reset_index INTEGER,		-- push, reset: the next entry to reset
	slot INTEGER,			-- push: as_id << 16 | memslot id
	"offset" INTEGER,		-- push: page offset in the memslot
	vcpu INTEGER			-- exit: the vCPU id
);
