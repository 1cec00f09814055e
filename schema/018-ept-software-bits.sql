-- mmuscope schema 18: where an EPT capture's kernel keeps its own SPTE bits,
-- and the dirty rate of every harvest.
--
-- KVM's host- and MMU-writable bits and its A/D-disabled mark moved in 7.x
-- (57/58 and 53:52 before; 53/55 and 61:60 since, docs/kvm-mmu.md, "SPTE
-- bits").  ept_sw is the host- | MMU-writable mask the capture's SPTEs
-- carry, which names the layout the events were classified with;
-- ept_sw_from says how it was found ('values (N)': N SPTEs carried it,
-- 'release', 'override').  NULL on NPT and in captures stored before.
ALTER TABLE capture ADD COLUMN ept_sw INTEGER;
ALTER TABLE capture ADD COLUMN ept_sw_from TEXT;

-- The dirty rate, passively (docs/kvm-mmu.md, "The dirty rate"): the 4K
-- pages the guest dirtied that a step saw, over dirty_window_ns.  A vCPU
-- pass (kind dirty-pass) sees the pages the fast path made writable again
-- during it; a harvest the pages it collected, protected again or with
-- PML its D bit cleared: those written since the collection before, as
-- KVM's bitmap says.  NULL for other steps; dirty_window_ns NULL where no
-- collection came before.  The analysis starts over at the next `mmuscope analyze`.
ALTER TABLE phase ADD COLUMN dirtied_pages INTEGER;
ALTER TABLE phase ADD COLUMN dirty_window_ns INTEGER;
UPDATE analysis SET state = NULL;
