-- mmuscope schema 23: when a read of KVM's counters began.
--
-- A read of a VM's counters takes time (a file or a pread() per counter,
-- and under an emulator milliseconds): ts is when it ended, read_start_ts
-- when it began, and previous_read_start_ts when the read before it
-- (previous_read_ts) began.  A read counts as before a moment when it
-- ended at or before it, and as after it when it began at or after it; a
-- read across the moment is neither (lib/store-kvm-reads.c), whatever its
-- length.  NULL: a recording made before this step, whose reads were each
-- taken as one moment, ts.
ALTER TABLE kvm_stats_sample ADD COLUMN read_start_ts INTEGER;
ALTER TABLE kvm_stats_sample ADD COLUMN previous_read_start_ts INTEGER;
