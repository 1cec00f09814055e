-- mmuscope schema 21: when KVM's counters were read, and the VM's faults.
--
-- kvm_stats_sample keeps a row per read that saw a VM's counters change, so
-- the value at T is its newest row at or before T, as the row's own read
-- saw it; the reads in between that saw no change leave no row.
-- previous_read_ts is the read of that VM before the row's own: it still
-- saw the values of the VM's row before, so those held from that row's ts
-- up to previous_read_ts at least, and the change happened after it.  That
-- tells the counters after a step (the first read after its end) from a
-- change that came much later.  NULL: the VM's first row, or a recording
-- made before this step.
--
-- pf_taken, pf_fixed, pf_fast: KVM's page-fault counters of the VM's
-- vCPUs, summed over them (debugfs's per-VM files); NULL when the kernel
-- does not export them or the sampler read the stats fd, which has none.
ALTER TABLE kvm_stats_sample ADD COLUMN previous_read_ts INTEGER;
ALTER TABLE kvm_stats_sample ADD COLUMN pf_taken INTEGER;
ALTER TABLE kvm_stats_sample ADD COLUMN pf_fixed INTEGER;
ALTER TABLE kvm_stats_sample ADD COLUMN pf_fast INTEGER;
