-- mmuscope schema 3: what a live recording (`mmuscope record`) keeps beside
-- the events: KVM's own counters sampled while recording, the ring
-- buffer's per-CPU counters, and which process each traced thread belongs
-- to.  Lost events go to lost_events (schema 1) with source 'ring-buffer'
-- (a missed-events mark in the stream) or 'overrun', 'dropped',
-- 'commit-overrun' (kernel counters no mark accounts for).
-- schema/README.md documents every column.

-- KVM's counters of each VM, sampled every few ms while recording: the
-- live ground truth for the rebuilt census.  A counter the kernel does not
-- export is NULL.  The value at T is the last row of that vm with ts <= T.
CREATE TABLE kvm_stats_sample (
	capture_id INTEGER NOT NULL REFERENCES capture(id),
	ts INTEGER NOT NULL,		-- trace clock when read
	vm TEXT NOT NULL,		-- '<pid>-<fd>', KVM's debugfs directory name
	pid INTEGER NOT NULL,		-- the VMM process
	pages_4k INTEGER,
	pages_2m INTEGER,
	pages_1g INTEGER,
	remote_tlb_flush INTEGER,
	remote_tlb_flush_requests INTEGER
);
CREATE INDEX kvm_stats_sample_ts ON kvm_stats_sample(capture_id, vm, ts);

-- Per-CPU ring-buffer counters at the end of a recording, and what the
-- recorder read: every event is either read (records) or counted lost.
CREATE TABLE ring_buffer_cpu (
	capture_id INTEGER NOT NULL REFERENCES capture(id),
	cpu INTEGER NOT NULL,
	records INTEGER NOT NULL,	-- records the recorder read
	pages INTEGER NOT NULL,		-- sub-buffers it read
	marked INTEGER NOT NULL,	-- events counted by missed-event marks
	unknown_marks INTEGER NOT NULL,	-- marks that gave no count
	overrun INTEGER,		-- kernel counters, NULL when unavailable
	commit_overrun INTEGER,
	dropped INTEGER,
	read_events INTEGER,
	entries INTEGER,		-- events still in the buffer at the end
	PRIMARY KEY (capture_id, cpu)
) WITHOUT ROWID;

-- The process of every thread seen in the capture's events (VM attribution).
CREATE TABLE task (
	capture_id INTEGER NOT NULL REFERENCES capture(id),
	pid INTEGER NOT NULL,		-- thread id, as events' pid column
	tgid INTEGER,			-- its process, NULL when unknown
	comm TEXT,
	vm TEXT,			-- kvm_stats_sample.vm of its process, NULL: none or several
	PRIMARY KEY (capture_id, pid)
) WITHOUT ROWID;
