-- mmuscope schema 6: what newer kernels changed (7.x), and where each special
-- value of a capture came from (docs/kvm-mmu.md, "Special values").

-- How nonpresent_spte, frozen_spte and the page role's access width were
-- found: 'events (N)' (learnt from N events: the values installs replace,
-- the value teardown children receive, new direct page tables), 'values (N)'
-- (bit 63 of N non-present values), 'release' (the cited version fallback
-- of a capture too short to show them) or 'override' (--host).
ALTER TABLE capture ADD COLUMN nonpresent_from TEXT;
ALTER TABLE capture ADD COLUMN frozen_from TEXT;
ALTER TABLE capture ADD COLUMN role_access_bits INTEGER;	-- 3, or 4 (MBEC, 7.x)
ALTER TABLE capture ADD COLUMN role_access_from TEXT;

-- kvm_mmu_spte_requested's access (7.x); NULL where the format has none.
ALTER TABLE spte_requested ADD COLUMN access INTEGER;

-- role.access as KVM prints it: 'wux' letters (3 bits) or 'rwux' (4 bits).
ALTER TABLE page_table ADD COLUMN access_str TEXT;

-- kvm:kvm_page_fault is an NPF (EPT violation) exit, not a slow fault: the
-- fast path may fix it (its fast_page_fault row) or the slow path take it.
UPDATE fault SET kind = 'npf' WHERE kind = 'slow';

-- Faults by outcome, each counted once (docs: schema/README.md, "phase"):
-- faults_slow is now the NPF exits the fast path did not resolve,
-- faults_fast those it fixed, and faults_spurious those it found spurious.
ALTER TABLE phase ADD COLUMN faults_spurious INTEGER NOT NULL DEFAULT 0;

-- The companion patch on 7.x: kvmmmu:kvm_mmu_recover_huge_pages, the pass
-- that recovers huge pages in place (6.13+), lands in collapse_span too,
-- its recovered_1g/2m in zapped_1g/2m; pass says which of the two it was.
ALTER TABLE collapse_span ADD COLUMN pass TEXT NOT NULL DEFAULT 'zap';	-- 'zap' or 'recover'
