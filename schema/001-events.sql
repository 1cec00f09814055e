-- mmuscope schema 1: captures and the events they hold.
--
-- Every event table is keyed by seq, the event's position in its capture's
-- timestamp-merged stream; seq values never repeat across tables or
-- captures, so (table, seq) names one event and ORDER BY seq replays the
-- trace.  A capture owns the seq range first_seq..last_seq.  ts is
-- nanoseconds of the trace clock.  SPTE values and addresses are stored as
-- SQLite INTEGER (64-bit signed): values with bit 63 set read back negative;
-- printf('%x', v) shows them as the kernel does.  schema/README.md documents
-- every column.

CREATE TABLE capture (
	id INTEGER PRIMARY KEY,
	source TEXT NOT NULL,		-- trace.dat path, tracefs instance, fixture
	kind TEXT NOT NULL,		-- 'trace.dat', 'tracefs', 'text'
	file_version INTEGER,		-- trace.dat file version (6, 7)
	compression TEXT,		-- trace.dat compression ('zstd'), NULL none
	uname TEXT,			-- recording host's uname, as trace-cmd saved it
	kernel_release TEXT,
	trace_clock TEXT,		-- 'local', 'global', ... (ns clocks)
	nr_cpus INTEGER,
	vendor TEXT,			-- SPTE layout: 'npt' (x86 PTE format) or 'ept'
	vendor_source TEXT,		-- 'inferred', 'live', 'override', 'default'
	ept_ad INTEGER,			-- EPT: 1 with hardware A/D bits (kvm_intel eptad)
	nonpresent_spte INTEGER,	-- SHADOW_NONPRESENT_VALUE in effect
	frozen_spte INTEGER,		-- FROZEN_SPTE (REMOVED_SPTE) in effect
	era_source TEXT,		-- where nonpresent/frozen came from
	tdp_mmu INTEGER,		-- 1 when kvm_tdp_mmu_spte_changed events exist
	first_seq INTEGER,
	last_seq INTEGER,
	first_ts INTEGER,
	last_ts INTEGER,
	records INTEGER NOT NULL DEFAULT 0,	-- trace records read
	stored INTEGER NOT NULL DEFAULT 0,	-- rows written to event tables
	lost INTEGER NOT NULL DEFAULT 0,	-- events the ring buffer dropped
	lost_marks INTEGER NOT NULL DEFAULT 0,	-- gaps of unknown size
	started TEXT NOT NULL,		-- wall clock, UTC, when storing began
	finished TEXT,			-- wall clock, UTC, when the capture was complete
	complete INTEGER NOT NULL DEFAULT 0	-- 1 once every record is stored
);

-- Every event of a capture counted by name, stored or not.
CREATE TABLE capture_event (
	capture_id INTEGER NOT NULL REFERENCES capture(id),
	system TEXT NOT NULL,
	name TEXT NOT NULL,
	count INTEGER NOT NULL,
	stored_in TEXT,			-- table holding these events, NULL: counted only
	PRIMARY KEY (capture_id, system, name)
) WITHOUT ROWID;

-- Host facts of a capture (kernel, kvm module parameters, profile inputs).
CREATE TABLE host_param (
	capture_id INTEGER NOT NULL REFERENCES capture(id),
	name TEXT NOT NULL,
	value TEXT,
	PRIMARY KEY (capture_id, name)
) WITHOUT ROWID;

-- kvmmmu/kvm_tdp_mmu_spte_changed: one row per event.
CREATE TABLE spte_change (
	seq INTEGER PRIMARY KEY,
	ts INTEGER NOT NULL,
	cpu INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	as_id INTEGER NOT NULL,
	gfn INTEGER NOT NULL,		-- base GFN of the SPTE's range
	level INTEGER NOT NULL,		-- 1 4K, 2 2M, 3 1G, 4/5 upper tables
	old_spte INTEGER NOT NULL,
	new_spte INTEGER NOT NULL,
	class TEXT NOT NULL		-- see schema/README.md
);

-- kvmmmu/kvm_mmu_split_huge_page (eager and fault-path splits).
CREATE TABLE huge_page_split (
	seq INTEGER PRIMARY KEY,
	ts INTEGER NOT NULL,
	cpu INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	gfn INTEGER NOT NULL,
	level INTEGER NOT NULL,		-- level of the huge SPTE
	spte INTEGER NOT NULL,		-- the huge SPTE that was split
	errno INTEGER NOT NULL		-- 0, or -errno of linking the new table
);

-- kvmmmu/kvm_mmu_get_page ('get') and kvm_mmu_prepare_zap_page ('zap').
CREATE TABLE page_table (
	seq INTEGER PRIMARY KEY,
	ts INTEGER NOT NULL,
	cpu INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	op TEXT NOT NULL,		-- 'get' or 'zap'
	gfn INTEGER NOT NULL,		-- first GFN the table maps
	role INTEGER NOT NULL,		-- raw kvm_mmu_page_role word
	level INTEGER NOT NULL,		-- role.level: level of the table's entries
	direct INTEGER NOT NULL,
	access INTEGER NOT NULL,	-- role.access (ACC_EXEC 1, WRITE 2, USER 4)
	invalid INTEGER NOT NULL,
	smm INTEGER NOT NULL,		-- role.smm: address space
	quadrant INTEGER NOT NULL,
	has_4_byte_gpte INTEGER NOT NULL,
	ad_disabled INTEGER NOT NULL,
	guest_mode INTEGER NOT NULL,
	root_count INTEGER NOT NULL,
	unsync INTEGER NOT NULL,
	created INTEGER,		-- get: 1 new table, 0 existing; zap: NULL
	gen INTEGER NOT NULL		-- mmu_valid_gen
);

-- kvm/kvm_page_fault ('slow') and kvmmmu/fast_page_fault ('fast-*').
CREATE TABLE fault (
	seq INTEGER PRIMARY KEY,
	ts INTEGER NOT NULL,
	cpu INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	kind TEXT NOT NULL,		-- 'slow', 'fast-fixed', 'fast-spurious', 'fast-other'
	vcpu INTEGER NOT NULL,
	gpa INTEGER NOT NULL,		-- faulting guest physical address; gfn = gpa >> 12
	error_code INTEGER NOT NULL,
	rip INTEGER,			-- slow only
	old_spte INTEGER,		-- fast only: SPTE before the lockless fix
	new_spte INTEGER,		-- fast only: SPTE it tried to install
	ret INTEGER			-- fast only: raw RET_PF_* of that kernel
);

-- ftrace/print: trace_marker lines (workload phases, KVM counters).
CREATE TABLE marker (
	seq INTEGER PRIMARY KEY,
	ts INTEGER NOT NULL,
	cpu INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	text TEXT NOT NULL
);

-- kvmmmu/kvm_mmu_set_spte (shadow MMU and TDP MMU installs).
CREATE TABLE set_spte (
	seq INTEGER PRIMARY KEY,
	ts INTEGER NOT NULL,
	cpu INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	gfn INTEGER NOT NULL,
	level INTEGER NOT NULL,
	spte INTEGER NOT NULL,
	sptep INTEGER NOT NULL,		-- host physical address of the SPTE
	r INTEGER NOT NULL,
	x INTEGER NOT NULL,
	u INTEGER NOT NULL		-- -1: no user bit in this layout
);

-- kvmmmu/kvm_mmu_spte_requested: the level a fault asked for.
CREATE TABLE spte_requested (
	seq INTEGER PRIMARY KEY,
	ts INTEGER NOT NULL,
	cpu INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	gfn INTEGER NOT NULL,
	pfn INTEGER NOT NULL,
	level INTEGER NOT NULL
);

-- kvmmmu/mark_mmio_spte.
CREATE TABLE mmio_spte (
	seq INTEGER PRIMARY KEY,
	ts INTEGER NOT NULL,
	cpu INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	gfn INTEGER NOT NULL,
	access INTEGER NOT NULL,
	gen INTEGER NOT NULL
);

-- kvmmmu/kvm_mmu_zap_all_fast.
CREATE TABLE zap_all_fast (
	seq INTEGER PRIMARY KEY,
	ts INTEGER NOT NULL,
	cpu INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	gen INTEGER NOT NULL,
	used_pages INTEGER NOT NULL
);

-- kvm/kvm_unmap_hva_range ('unmap') and kvm/kvm_age_hva ('age').
CREATE TABLE hva_range (
	seq INTEGER PRIMARY KEY,
	ts INTEGER NOT NULL,
	cpu INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	op TEXT NOT NULL,
	start INTEGER NOT NULL,		-- host virtual addresses
	"end" INTEGER NOT NULL
);

-- Any kprobe event (e.g. on kvm_flush_remote_tlbs): its name and arguments.
CREATE TABLE kprobe (
	seq INTEGER PRIMARY KEY,
	ts INTEGER NOT NULL,
	cpu INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	name TEXT NOT NULL,		-- the probe event's name
	ip INTEGER NOT NULL,		-- __probe_ip
	args TEXT NOT NULL		-- 'name=0x..' of the other fetch args
);

-- Gaps in the trace: the events the ring buffer dropped before ts on cpu.
CREATE TABLE lost_events (
	seq INTEGER PRIMARY KEY,
	ts INTEGER NOT NULL,
	cpu INTEGER NOT NULL,
	count INTEGER NOT NULL,		-- 0: a gap of unknown size
	source TEXT NOT NULL		-- 'ring-buffer' (missed-events mark); live: 'overrun',
					-- 'dropped', 'commit-overrun' (per-CPU counters)
);
