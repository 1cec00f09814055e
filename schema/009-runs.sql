-- mmuscope schema 9: storms stored as exact runs.
--
-- SPTE changes and faults come in storms (a write-protect sweep, a split
-- sweep, a vCPU faulting its memory in page after page), and a storm is a
-- run: events of one type, cpu and pid whose other columns are equal or
-- advance by a constant step from one event to the next.  One row of
-- <table>_run holds a run of n events exactly (lib/store-run.c), and the
-- view <table> expands it to one row per event with the columns of the
-- table it replaces.  Event k (0 .. n-1) of a run is
--
--	seq = seq + k * seq_step + s_k		ts = ts + k * ts_step + t_k
--	col = col + k * col_step		(a column with a _step column)
--	col = col				(every other column)
--
-- where element k of the JSON array at is t_k (s_k = 0) or [s_k, t_k];
-- at is NULL for a run of one.  The residuals s_k, t_k are small: the
-- steps are the run's mean.  Every value, product and partial sum fits a
-- signed 64-bit integer (the writer joins no event that would not), so
-- the view's arithmetic is exact.  A run's events all lie within 65536
-- seqs of its first (seq), and a run never spans a commit.
--
-- The views need JSON1 only (json_each, json_extract: built into SQLite
-- since 3.38, and into Debian's since 3.9).  Aggregates can skip the
-- expansion: count(*) over the view is sum(n) over the runs.

CREATE TABLE spte_change_run (
	seq INTEGER PRIMARY KEY,	-- the first event's
	ts INTEGER NOT NULL,
	cpu INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	n INTEGER NOT NULL,		-- events in the run
	seq_step INTEGER NOT NULL,
	ts_step INTEGER NOT NULL,
	at TEXT,			-- JSON residuals, see above; NULL: n = 1
	as_id INTEGER NOT NULL,
	gfn INTEGER NOT NULL,
	gfn_step INTEGER NOT NULL,
	level INTEGER NOT NULL,
	old_spte INTEGER NOT NULL,
	old_spte_step INTEGER NOT NULL,
	new_spte INTEGER NOT NULL,
	new_spte_step INTEGER NOT NULL,
	class TEXT NOT NULL
);
INSERT INTO spte_change_run
SELECT seq, ts, cpu, pid, 1, 0, 0, NULL, as_id, gfn, 0, level, old_spte, 0, new_spte, 0, class
FROM spte_change;
DROP TABLE spte_change;

CREATE VIEW spte_change AS
SELECT r.seq + e.key * r.seq_step
	 + CASE e.type WHEN 'array' THEN json_extract(e.value, '$[0]') ELSE 0 END AS seq,
       r.ts + e.key * r.ts_step
	 + CASE e.type WHEN 'array' THEN json_extract(e.value, '$[1]') ELSE e.value END AS ts,
       r.cpu AS cpu, r.pid AS pid, r.as_id AS as_id,
       r.gfn + e.key * r.gfn_step AS gfn, r.level AS level,
       r.old_spte + e.key * r.old_spte_step AS old_spte,
       r.new_spte + e.key * r.new_spte_step AS new_spte, r.class AS class
FROM spte_change_run r, json_each(coalesce(r.at, '[0]')) e;

CREATE TABLE fault_run (
	seq INTEGER PRIMARY KEY,
	ts INTEGER NOT NULL,
	cpu INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	n INTEGER NOT NULL,
	seq_step INTEGER NOT NULL,
	ts_step INTEGER NOT NULL,
	at TEXT,
	kind TEXT NOT NULL,
	vcpu INTEGER NOT NULL,
	gpa INTEGER NOT NULL,
	gpa_step INTEGER NOT NULL,
	error_code INTEGER NOT NULL,
	rip INTEGER,
	old_spte INTEGER,
	old_spte_step INTEGER NOT NULL,
	new_spte INTEGER,
	new_spte_step INTEGER NOT NULL,
	ret INTEGER
);
INSERT INTO fault_run
SELECT seq, ts, cpu, pid, 1, 0, 0, NULL, kind, vcpu, gpa, 0, error_code, rip, old_spte, 0,
       new_spte, 0, ret
FROM fault;
DROP TABLE fault;

CREATE VIEW fault AS
SELECT r.seq + e.key * r.seq_step
	 + CASE e.type WHEN 'array' THEN json_extract(e.value, '$[0]') ELSE 0 END AS seq,
       r.ts + e.key * r.ts_step
	 + CASE e.type WHEN 'array' THEN json_extract(e.value, '$[1]') ELSE e.value END AS ts,
       r.cpu AS cpu, r.pid AS pid, r.kind AS kind, r.vcpu AS vcpu,
       r.gpa + e.key * r.gpa_step AS gpa, r.error_code AS error_code, r.rip AS rip,
       r.old_spte + e.key * r.old_spte_step AS old_spte,
       r.new_spte + e.key * r.new_spte_step AS new_spte, r.ret AS ret
FROM fault_run r, json_each(coalesce(r.at, '[0]')) e;
