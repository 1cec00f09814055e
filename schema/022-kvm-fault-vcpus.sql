-- mmuscope schema 22: over which vCPUs a VM's faults were summed.
--
-- Without debugfs, `record` reads pf_taken, pf_fixed and pf_fast from each
-- vCPU's binary stats fd (KVM_GET_STATS_FD) and sums them over the vCPUs
-- of the VM it has found so far; pf_vcpus is how many.  A vCPU found later
-- brings its whole count into the sum, so the faults between two reads are
-- only their difference when both have the same pf_vcpus.  NULL: KVM's own
-- sum over all the VM's vCPUs (debugfs), or no faults read.
ALTER TABLE kvm_stats_sample ADD COLUMN pf_vcpus INTEGER;
