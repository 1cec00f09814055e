-- mmuscope schema 2: what the analyzer rebuilt from the events
-- (lib/history/, written through lib/history/store.c).
--
-- Every table is per capture (capture_id).  Times are trace-clock ns like
-- the event tables; levels are 1 4K, 2 2M, 3 1G.  SPTE values are INTEGER
-- bit patterns (bit 63 reads back negative).  schema/README.md
-- documents every column; the readers (report, TUI) use index lookups only.

-- How far the analysis of each capture got, and what it counted.
CREATE TABLE analysis (
	capture_id INTEGER PRIMARY KEY REFERENCES capture(id),
	last_seq INTEGER NOT NULL,	-- events up to this seq are analyzed
	first_ts INTEGER,
	last_ts INTEGER,
	events INTEGER NOT NULL,
	spte_events INTEGER NOT NULL,
	resyncs INTEGER NOT NULL,	-- old_spte disagreed with the model
	ad_resyncs INTEGER NOT NULL,	-- ... only in hardware A/D or X bits
	synthesized INTEGER NOT NULL,	-- split children written by the model
	fast_applied INTEGER NOT NULL,	-- fast_page_fault fixes applied
	frozen_completed INTEGER NOT NULL,	-- untraced frozen -> non-present steps
	out_of_order INTEGER NOT NULL,	-- events whose timestamp went backwards
	lost_marks INTEGER NOT NULL,
	lost_events INTEGER NOT NULL,
	anomalies INTEGER NOT NULL,
	intervals INTEGER NOT NULL,	-- mapping intervals written (rows of the view)
	tdp_mmu INTEGER NOT NULL,	-- 0: shadow MMU, census approximate
	census_flags INTEGER NOT NULL,	-- flags of the last census row
	state BLOB			-- resume state of the phase detector
);

-- Names of mapping.start_cause / end_cause.
CREATE TABLE map_cause (
	id INTEGER PRIMARY KEY,
	name TEXT NOT NULL UNIQUE
);
INSERT INTO map_cause VALUES
	(0, '-'), (1, 'fault-map'), (2, 'eager-split'), (3, 'fault-split'), (4, 'split'),
	(5, 'link'), (6, 'write-protect'), (7, 'make-writable'), (8, 'fast-fix'),
	(9, 'clear-dirty'), (10, 'age'), (11, 'access-track'), (12, 'zap'),
	(13, 'zap-collapsible'), (14, 'promote'), (15, 'notifier-unmap'), (16, 'teardown'),
	(17, 'shadow-set'), (18, 'shadow-drop'), (19, 'resync'), (20, 'trace-start'),
	(21, 'other');

-- Intervals of one page-table entry (leaf or page table) while it is
-- present, gathered in runs: the intervals of entries of ONE page table
-- (level, as_id, gfn) that share everything but their times are one row.
-- Leaves follow the leaf rule: entry i's spte is spte + (i - first) * the
-- level's page size in bytes, its pfn pfn + (i - first) * its 4K pages
-- (contiguous host frames); a page-table entry is always a run of one.
-- Query the view mapping (one row per interval); see
-- schema/README.md for the fast way to one GFN's runs.
CREATE TABLE mapping_run (
	capture_id INTEGER NOT NULL,
	as_id INTEGER NOT NULL,
	gfn INTEGER NOT NULL,		-- the page table's first GFN (base of entry 0)
	level INTEGER NOT NULL,
	leaf INTEGER NOT NULL,		-- 1 leaf, 0 page table
	first INTEGER NOT NULL,		-- index of the entry spte and pfn belong to
	spte INTEGER NOT NULL,
	pfn INTEGER NOT NULL,
	writable INTEGER NOT NULL,
	dirty INTEGER,			-- NULL: the layout has no D bit
	start_cause INTEGER NOT NULL REFERENCES map_cause(id),
	end_cause INTEGER NOT NULL REFERENCES map_cause(id),	-- 0 exactly while open
	flags INTEGER NOT NULL,		-- 1 synthesized, 2 after lost events, 4 resync
	n INTEGER NOT NULL,		-- intervals in entries
	entries TEXT NOT NULL		-- JSON [[index, start_ts, end_ts], ...]; end_ts null: open
);
-- Index mapping_run_gfn (gfn, level, n, first) is built by the analyzer
-- after its bulk load (lib/history/store.c).

-- One row per interval of one page-table entry.  Non-present stretches
-- have no row.  end_ts NULL: still present at the end of the analyzed
-- events.
CREATE VIEW mapping AS
SELECT r.capture_id, r.as_id,
       r.gfn + (e.value ->> 0) * (1 << (9 * (r.level - 1))) AS gfn,
       r.level, r.leaf,
       e.value ->> 1 AS start_ts, e.value ->> 2 AS end_ts,
       r.spte + ((e.value ->> 0) - r.first) * (4096 << (9 * (r.level - 1))) AS spte,
       r.pfn + ((e.value ->> 0) - r.first) * (1 << (9 * (r.level - 1))) AS pfn,
       r.writable, r.dirty, r.start_cause, r.end_cause, r.flags
FROM mapping_run r, json_each(r.entries) e;

-- Leaf SPTEs per size after the changes up to ts (one row per address
-- space whose counts changed; rows coalesced within a short bucket and
-- always written before a marker).  The census at T is, per as_id, the
-- last row with ts <= T.
CREATE TABLE census (
	capture_id INTEGER NOT NULL,
	as_id INTEGER NOT NULL,
	ts INTEGER NOT NULL,
	seq INTEGER NOT NULL,		-- last event counted
	pages_4k INTEGER NOT NULL,
	pages_2m INTEGER NOT NULL,
	pages_1g INTEGER NOT NULL,
	flags INTEGER NOT NULL		-- 1 approximate, 2 partial, 4 after lost events
);
CREATE INDEX census_ts ON census(capture_id, as_id, ts);

-- KVM's own page counters from "KVM stats after <phase>" markers, and the
-- rebuilt census at the same point.
CREATE TABLE kvm_stats (
	capture_id INTEGER NOT NULL,
	seq INTEGER NOT NULL,		-- the marker
	ts INTEGER NOT NULL,
	phase TEXT NOT NULL,
	pages_4k INTEGER,
	pages_2m INTEGER,
	pages_1g INTEGER,
	census_4k INTEGER NOT NULL,
	census_2m INTEGER NOT NULL,
	census_1g INTEGER NOT NULL,
	census_flags INTEGER NOT NULL,
	stats TEXT NOT NULL,		-- every name=value pair of the marker
	PRIMARY KEY (capture_id, seq)
) WITHOUT ROWID;

-- Workload phases (markers) and dirty-log phases (detected).
CREATE TABLE phase (
	capture_id INTEGER NOT NULL,
	id INTEGER NOT NULL,
	kind TEXT NOT NULL,		-- workload, enable, harvest, disable, re-promotion
	source TEXT NOT NULL,		-- marker, tracepoint, kprobe, inferred
	name TEXT NOT NULL,
	open INTEGER NOT NULL,		-- 1: not finished when the analysis stopped
	start_ts INTEGER NOT NULL,
	end_ts INTEGER NOT NULL,
	start_seq INTEGER NOT NULL,
	end_seq INTEGER NOT NULL,
	gfn_first INTEGER,		-- GFN range touched, NULL none
	gfn_last INTEGER,
	spte_changes INTEGER NOT NULL,
	classes TEXT NOT NULL,		-- 'class=N ...' of the spte_changed events
	splits INTEGER NOT NULL,
	split_failures INTEGER NOT NULL,
	pages_split INTEGER NOT NULL,
	pages_promoted INTEGER NOT NULL,
	children_synthesized INTEGER NOT NULL,
	faults_slow INTEGER NOT NULL,
	faults_fast INTEGER NOT NULL,
	flushes INTEGER,		-- NULL: no flush events in the capture
	zaps INTEGER NOT NULL,
	refaults INTEGER NOT NULL,
	region_split_ns INTEGER NOT NULL,
	to_huge_ns INTEGER,		-- re-promotion: NULL when never all huge again
	before_4k INTEGER NOT NULL, before_2m INTEGER NOT NULL, before_1g INTEGER NOT NULL,
	after_4k INTEGER NOT NULL, after_2m INTEGER NOT NULL, after_1g INTEGER NOT NULL,
	census_flags INTEGER NOT NULL,
	PRIMARY KEY (capture_id, id)
) WITHOUT ROWID;

-- Contiguous GFN ranges of guest memory, from the 2M regions seen mapped.
CREATE TABLE region (
	capture_id INTEGER NOT NULL,
	id INTEGER NOT NULL,
	as_id INTEGER NOT NULL,
	gfn_first INTEGER NOT NULL,
	gfn_end INTEGER NOT NULL,	-- one past the last GFN
	exact INTEGER NOT NULL,		-- 1 from memslot events, 0 inferred
	PRIMARY KEY (capture_id, id)
) WITHOUT ROWID;

-- Leaf coverage of each region at the end of each phase.
CREATE TABLE phase_region (
	capture_id INTEGER NOT NULL,
	phase_id INTEGER NOT NULL,
	region_id INTEGER NOT NULL,
	pages_4k INTEGER NOT NULL,
	pages_2m INTEGER NOT NULL,
	pages_1g INTEGER NOT NULL,
	PRIMARY KEY (capture_id, phase_id, region_id)
) WITHOUT ROWID;

-- State changes of each 2M region (memory-map cells): a row when the kind
-- changes or the mapped / writable share crosses a sixteenth.
CREATE TABLE region_state (
	capture_id INTEGER NOT NULL,
	as_id INTEGER NOT NULL,
	gfn INTEGER NOT NULL,		-- 2M aligned
	ts INTEGER NOT NULL,
	kind INTEGER NOT NULL,		-- 0 unmapped, 1 4K table, 2 2M leaf, 3 part of 1G leaf
	mapped INTEGER NOT NULL,	-- 4K pages mapped (512 for a huge leaf)
	writable INTEGER NOT NULL	-- of those, writable
);
-- Index region_state_gfn (capture_id, as_id, gfn, ts): built after the bulk load.

-- Activity per time bucket (activity_bucket_ns, default 1 ms).
CREATE TABLE activity (
	capture_id INTEGER NOT NULL,
	ts INTEGER NOT NULL,		-- bucket start
	spte_changes INTEGER NOT NULL,
	maps INTEGER NOT NULL,
	splits INTEGER NOT NULL,
	promotions INTEGER NOT NULL,
	zaps INTEGER NOT NULL,
	write_protects INTEGER NOT NULL,
	faults_slow INTEGER NOT NULL,
	faults_fast INTEGER NOT NULL,
	flushes INTEGER NOT NULL,
	PRIMARY KEY (capture_id, ts)
) WITHOUT ROWID;

-- Things that should not happen, and marks where the history is unsure.
CREATE TABLE anomaly (
	capture_id INTEGER NOT NULL,
	seq INTEGER NOT NULL,
	ts INTEGER NOT NULL,
	kind TEXT NOT NULL,		-- pfn-change, split-failed, left-frozen, after-lost,
					-- resync, bad-spte, out-of-order, partial
	as_id INTEGER,
	gfn INTEGER,
	level INTEGER,
	old_spte INTEGER,
	new_spte INTEGER,
	detail TEXT NOT NULL
);
CREATE INDEX anomaly_seq ON anomaly(capture_id, seq);

-- One row per interval, decoded: what happened to a GFN is
--   SELECT * FROM gfn_history WHERE as_id = 0 AND gfn_covers(:gfn) ...
-- see schema/README.md for the exact query.
CREATE VIEW gfn_history AS
SELECT m.capture_id, m.as_id, m.gfn, m.level,
       CASE WHEN m.leaf = 0 THEN 'table'
            WHEN m.level = 1 THEN '4K' WHEN m.level = 2 THEN '2M' WHEN m.level = 3 THEN '1G'
            ELSE 'L' || m.level END AS what,
       m.start_ts, m.end_ts,
       CASE WHEN m.end_ts IS NULL THEN NULL ELSE m.end_ts - m.start_ts END AS duration_ns,
       printf('%#x', m.pfn) AS pfn, m.writable, m.dirty,
       s.name AS started_by, e.name AS ended_by, m.flags,
       printf('%#018x', m.spte) AS spte
FROM mapping m JOIN map_cause s ON s.id = m.start_cause JOIN map_cause e ON e.id = m.end_cause;

-- KVM's counters next to the rebuilt census, with the difference.
CREATE VIEW kvm_stats_check AS
SELECT capture_id, seq, ts, phase, pages_4k, census_4k, census_4k - pages_4k AS diff_4k,
       pages_2m, census_2m, census_2m - pages_2m AS diff_2m,
       pages_1g, census_1g, census_1g - pages_1g AS diff_1g, census_flags
FROM kvm_stats;
