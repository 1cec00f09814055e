// SPDX-License-Identifier: GPL-2.0-only
/*
 * The store: file creation, schema versioning, writing and reading back
 * every event type, append, failure in the middle of a capture.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "mmuscope/error.h"
#include "mmuscope/event.h"
#include "mmuscope/host.h"
#include "mmuscope/source.h"
#include "mmuscope/store.h"
#include "lib/store-local.h"
#include "test.h"

static char dir[] = "/tmp/msc-t-store.XXXXXX";

static const char *path(const char *name)
{
	static char buf[4][256];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

static const struct msc_event events[] = {
	{ .type = MSC_EV_MARKER, .ts = 10, .cpu = 0, .pid = 260, .marker = { "phase=populate begin" } },
	{ .type = MSC_EV_GET_PAGE, .ts = 11, .cpu = 1, .pid = 262,
	  .sp = { .gfn = 0, .role = 0x3784, .created = 1 } },
	{ .type = MSC_EV_PAGE_FAULT, .ts = 12, .cpu = 1, .pid = 262,
	  .pf = { .gpa = 0x40000000, .error_code = 0x100000006, .rip = 0x1000 } },
	{ .type = MSC_EV_SPTE_REQUESTED, .ts = 13, .cpu = 1, .pid = 262,
	  .req = { .gfn = 0x40000, .pfn = 0x13800, .level = 2 } },
	{ .type = MSC_EV_SPTE_CHANGED, .ts = 14, .cpu = 1, .pid = 262,
	  .spte = { .gfn = 0x40000, .old_spte = 0x8000000000000000ULL, .new_spte = 0x13800ee7,
		    .level = 2, .class = MSC_CLASS_MAP } },
	{ .type = MSC_EV_SET_SPTE, .ts = 15, .cpu = 1, .pid = 262,
	  .set_spte = { .gfn = 0x40000, .spte = 0x13800ee7, .sptep = 0x1370c000, .level = 2,
			.r = 1, .x = 1, .u = 1 } },
	{ .type = MSC_EV_SPLIT, .ts = 16, .cpu = 0, .pid = 260,
	  .split = { .gfn = 0x40000, .spte = 0x13800ee7, .level = 2, .err = -12 } },
	{ .type = MSC_EV_FAST_PF, .ts = 17, .cpu = 1, .pid = 262,
	  .fast_pf = { .gpa = 0x40001000, .error_code = 7, .old_spte = 0x13801e65,
		       .new_spte = 0x13801e67, .vcpu = 0, .ret = 4, .result = MSC_FPF_FIXED } },
	{ .type = MSC_EV_ZAP_PAGE, .ts = 18, .cpu = 0, .pid = 260,
	  .sp = { .gfn = 0x40000, .role = 0x3781, .gen = 2 } },
	{ .type = MSC_EV_MMIO_SPTE, .ts = 19, .cpu = 1, .pid = 262,
	  .mmio = { .gfn = 0xfee00, .access = 6, .gen = 3 } },
	{ .type = MSC_EV_ZAP_ALL_FAST, .ts = 20, .zap_all = { .gen = 1, .used_pages = 64 } },
	{ .type = MSC_EV_UNMAP_HVA, .ts = 21, .hva = { .start = 0x7f0000000000, .end = 0x7f0000200000 } },
	{ .type = MSC_EV_AGE_HVA, .ts = 22, .hva = { .start = 0x7f0000000000, .end = 0x7f0000001000 } },
	{ .type = MSC_EV_KPROBE, .ts = 23, .kprobe = { .ip = 0xffffffffc0554520ULL,
	  .name = "kvm_flush_remote_tlbs", .args = "" } },
	{ .type = MSC_EV_LOST, .ts = 24, .cpu = 1, .pid = -1, .lost = { .count = 42 } },
	{ .type = MSC_EV_TLB_FLUSH, .ts = 25, .pid = 328, .tlb_flush = { .vm_id = 1, .vm_pid = 328,
	  .start_gfn = 0x40000, .nr_pages = 512, .range = 1, .all = 1, .kicked = 1,
	  .caller = 0xffffffffc0a1b2c3ULL } },
	{ .type = MSC_EV_DIRTY_LOG, .ts = 26, .pid = 328, .dirty_log = { .vm_id = 1, .vm_pid = 328,
	  .slot_id = 1, .base_gfn = 0x40000, .npages = 8192, .new_flags = 1, .change = 3,
	  .change_name = "flags_only", .eager_split = 1, .end = 1, .duration_ns = 9356190 } },
	{ .type = MSC_EV_SPLIT_SPAN, .ts = 27, .pid = 328, .span = { .vm_id = 1, .vm_pid = 328,
	  .slot_id = 1, .start_gfn = 0x40000, .end_gfn = 0x42000, .target_level = 1,
	  .reason_name = "enable", .count_2m = 16, .duration_ns = 1899719 } },
	{ .type = MSC_EV_SPLIT_SPAN, .ts = 28, .pid = 329, .span = { .vm_id = 1, .vm_pid = 328,
	  .slot_id = -1, .target_level = 1, .reason = 9 } },	/* a reason the format did not name */
	{ .type = MSC_EV_COLLAPSE_SPAN, .ts = 29, .pid = 328, .span = { .vm_id = 1, .vm_pid = 328,
	  .slot_id = 1, .start_gfn = 0x40000, .end_gfn = 0x42000, .count_2m = 16, .other = 1,
	  .flushes = 16, .duration_ns = 9705199, .reason_name = "zap" } },
	{ .type = MSC_EV_COLLAPSE_SPAN, .ts = 29, .pid = 328, .span = { .vm_id = 1, .vm_pid = 328,
	  .slot_id = 1, .start_gfn = 0x40000, .end_gfn = 0x42000, .count_2m = 16, .flushes = 1,
	  .duration_ns = 7281000, .reason_name = "recover" } },	/* 7.x in-place recovery */
	{ .type = MSC_EV_HARVEST, .ts = 30, .pid = 328, .harvest = { .vm_id = 1, .vm_pid = 328,
	  .slot_id = 1, .start_gfn = 0x40000, .npages = 4096, .dirty = 4096, .clear = 1,
	  .protect = 1, .flush = 1, .duration_ns = 6446548 } },
	{ .type = MSC_EV_HARVEST, .ts = 31, .pid = 328, .harvest = { .vm_id = 1, .vm_pid = 328,
	  .slot_id = 1, .start_gfn = 0x40000, .npages = 4096, .dirty = 4096,
	  .duration_ns = 89800 } },	/* a GET under manual protect: no re-protection */
	{ .type = MSC_EV_IOCTL, .ts = 32, .pid = 328, .ioctl = { .fd = 7, .cmd = 0x4010ae42,
	  .arg = 0x7ffd12345000 } },			/* KVM_GET_DIRTY_LOG */
	{ .type = MSC_EV_IOCTL, .ts = 33, .pid = 328, .ioctl = { .exit = 1, .fd = -1, .ret = -14 } },
	{ .type = MSC_EV_IOCTL, .ts = 34, .pid = 328, .ioctl = { .fd = 3, .cmd = 0x5401 } },
	{ .type = MSC_EV_RING_PUSH, .ts = 35, .pid = 329, .ring = { .ring = 0, .dirty_index = 1,
	  .slot = 1, .offset = 0x7ff } },
	{ .type = MSC_EV_RING_EXIT, .ts = 36, .pid = 329, .ring = { .ring = 0 } },
	{ .type = MSC_EV_RING_RESET, .ts = 37, .pid = 328, .ring = { .ring = 0, .dirty_index = 1,
	  .reset_index = 1 } },
};

#define NR_EVENTS (sizeof(events) / sizeof(events[0]))

static int write_capture(struct msc_store *s, int64_t *ret_id)
{
	struct msc_capture_info info = { .kind = "text", .path = "unit", .nr_cpus = 2 };
	struct msc_host h;
	int r;

	msc_host_init(&h);
	h.vendor = MSC_VENDOR_NPT;
	h.kver = MSC_KVER(6, 12, 0);
	r = msc_store_begin_capture(s, &info, &h, ret_id);
	for (size_t i = 0; !r && i < NR_EVENTS; i++)
		r = msc_store_add_event(s, &events[i]);
	return r;
}

/* Every event of write_capture() reads back from @s, in order; false otherwise. */
static bool reads_back(struct msc_store *s)
{
	char want[MSC_EVENT_LINE_MAX], got[MSC_EVENT_LINE_MAX];
	struct msc_event_cursor *c;
	struct msc_event ev;
	size_t i = 0;

	if (!check_int(msc_store_events_open(s, 0, INT64_MAX, &c), ==, 0))
		return false;
	while (msc_store_events_next(c, &ev) > 0 && i < NR_EVENTS) {
		check_int(ev.seq, ==, i);
		msc_event_format(&events[i], want, sizeof(want));
		msc_event_format(&ev, got, sizeof(got));
		check_str(got, want);
		i++;
	}
	msc_store_events_close(c);
	return check_int(i, ==, NR_EVENTS);
}

static void t_create_0600(void)
{
	struct msc_store *s;
	struct stat st;

	check_int(msc_store_open(path("a.db"), MSC_STORE_CREATE, &s), ==, 0);
	msc_store_close(s);
	check_int(stat(path("a.db"), &st), ==, 0);
	check_int(st.st_mode & 0777, ==, 0600);
	check_int(msc_store_open(path("a.db"), MSC_STORE_CREATE, &s), ==, MSC_ERR_EXISTS);
	check_int(msc_store_open(path("missing.db"), MSC_STORE_READONLY, &s), ==, -ENOENT);
}

static void t_round_trip(void)
{
	struct msc_capture_row *caps;
	struct msc_store *s;
	int64_t id;
	size_t nr;

	check_int(msc_store_open(path("rt.db"), MSC_STORE_CREATE | MSC_STORE_BULK, &s), ==, 0);
	check_int(write_capture(s, &id), ==, 0);
	check_int(msc_store_end_capture(s, NR_EVENTS + 3), ==, 0);
	check_int(msc_store_finish(s), ==, 0);
	msc_store_close(s);

	check_int(msc_store_open(path("rt.db"), MSC_STORE_READONLY, &s), ==, 0);
	check_int(msc_store_get_captures(s, &caps, &nr), ==, 0);
	check_int(nr, ==, 1);
	check(caps[0].complete);
	check_int(caps[0].first_seq, ==, 0);
	check_int(caps[0].last_seq, ==, NR_EVENTS - 1);
	check_int(caps[0].records, ==, NR_EVENTS + 3);
	check_int(caps[0].lost, ==, 42);
	check_uint(caps[0].nonpresent_spte, ==, 0x8000000000000000ULL);
	check_str(caps[0].vendor, "npt");
	free(caps);
	reads_back(s);
	msc_store_close(s);
}

/*
 * Statements name their columns: a database whose tables hold the same
 * columns in another order (as one migrated by ALTER TABLE would) stores
 * and reads every event the same.
 */
static void t_column_order(void)
{
	static const char *const reorder[] = {
		"CREATE TABLE t (new_spte, class, gfn, at, seq INTEGER PRIMARY KEY, old_spte, "
		"level, gfn_step, n, as_id, pid, new_spte_step, cpu, ts_step, ts, old_spte_step, "
		"seq_step)", "spte_change_run",
		"CREATE TABLE t (ret, kind, old_spte_step, seq INTEGER PRIMARY KEY, rip, gpa, vcpu, "
		"ts, seq_step, cpu, pid, at, error_code, old_spte, n, gpa_step, new_spte, ts_step, "
		"new_spte_step)", "fault_run",
		"CREATE TABLE t (access_str, created, gen, unsync, root_count, guest_mode, "
		"ad_disabled, has_4_byte_gpte, quadrant, smm, invalid, access, direct, level, role, "
		"gfn, op, pid, cpu, ts, seq INTEGER PRIMARY KEY)", "page_table",
		"DROP VIEW ioctl_call; "
		"CREATE TABLE t (ret, arg, name, cmd, fd, op, pid, cpu, ts, seq INTEGER PRIMARY KEY)",
		"ioctl",
	};
	char sql[512];
	struct msc_store *s;
	sqlite3 *db;
	int64_t id;

	check_int(msc_store_open(path("order.db"), MSC_STORE_CREATE, &s), ==, 0);
	msc_store_close(s);
	check_int(sqlite3_open(path("order.db"), &db), ==, SQLITE_OK);
	/* the views over the run tables are left as they are */
	check_int(sqlite3_exec(db, "PRAGMA legacy_alter_table = ON", NULL, NULL, NULL), ==,
		  SQLITE_OK);
	for (size_t k = 0; k < sizeof(reorder) / sizeof(reorder[0]); k += 2) {
		snprintf(sql, sizeof(sql), "%s; DROP TABLE %s; ALTER TABLE t RENAME TO %s",
			 reorder[k], reorder[k + 1], reorder[k + 1]);
		check_int(sqlite3_exec(db, sql, NULL, NULL, NULL), ==, SQLITE_OK);
	}
	sqlite3_close(db);
	check_int(msc_store_open(path("order.db"), 0, &s), ==, 0);
	check_int(write_capture(s, &id), ==, 0);
	check_int(msc_store_end_capture(s, NR_EVENTS), ==, 0);
	reads_back(s);
	msc_store_close(s);
}

/* A table that lacks a column the description names is refused by name. */
static void t_missing_column(void)
{
	struct msc_store *s;
	sqlite3 *db;
	int64_t id;

	check_int(msc_store_open(path("lacks.db"), MSC_STORE_CREATE, &s), ==, 0);
	msc_store_close(s);
	check_int(sqlite3_open(path("lacks.db"), &db), ==, SQLITE_OK);
	check_int(sqlite3_exec(db, "ALTER TABLE marker RENAME COLUMN text TO words", NULL, NULL,
			       NULL), ==, SQLITE_OK);
	sqlite3_close(db);
	check_int(msc_store_open(path("lacks.db"), 0, &s), ==, 0);
	check_int(write_capture(s, &id), ==, 0);
	check_int(msc_store_commit(s), ==, MSC_ERR_SCHEMA);
	check_str(msc_store_errmsg(s), "table marker has no column text");
	msc_store_close(s);
}

static void t_append_seq(void)
{
	struct msc_capture_row *caps;
	struct msc_store *s;
	int64_t id;
	size_t nr;

	check_int(msc_store_open(path("rt.db"), 0, &s), ==, 0);
	check_int(write_capture(s, &id), ==, 0);
	check_int(id, ==, 2);
	check_int(msc_store_end_capture(s, NR_EVENTS), ==, 0);
	check_int(msc_store_get_captures(s, &caps, &nr), ==, 0);
	check_int(nr, ==, 2);
	/* seq continues where the first capture stopped: rows never collide */
	check_int(caps[1].first_seq, ==, NR_EVENTS);
	check_int(caps[1].last_seq, ==, 2 * NR_EVENTS - 1);
	free(caps);
	msc_store_close(s);
}

static void t_failure_keeps_committed(void)
{
	struct msc_capture_row *caps;
	struct msc_store *s;
	int64_t id;
	size_t nr;
	int r;

	check_int(msc_store_open(path("fail.db"), MSC_STORE_CREATE, &s), ==, 0);
	check_int(write_capture(s, &id), ==, 0);
	check_int(msc_store_commit(s), ==, 0);
	msc_store_fail_after(s, 3);
	r = 0;
	for (size_t i = 0; !r && i < NR_EVENTS; i++)
		r = msc_store_add_event(s, &events[i]);
	if (!r)
		r = msc_store_commit(s);
	check_int(r, ==, MSC_ERR_FULL);
	msc_store_close(s);

	/* what was committed before the failure is there, and says it is incomplete */
	check_int(msc_store_open(path("fail.db"), MSC_STORE_READONLY, &s), ==, 0);
	check_int(msc_store_get_captures(s, &caps, &nr), ==, 0);
	check_int(nr, ==, 1);
	check(!caps[0].complete);
	check_int(caps[0].stored, ==, NR_EVENTS);
	check_int(caps[0].last_seq, ==, NR_EVENTS - 1);
	free(caps);
	msc_store_close(s);
}

static void t_foreign_and_newer(void)
{
	struct msc_store *s;
	sqlite3 *db;
	FILE *f;

	/* an SQLite file that is not ours */
	check_int(sqlite3_open(path("other.db"), &db), ==, SQLITE_OK);
	sqlite3_exec(db, "CREATE TABLE t(x)", NULL, NULL, NULL);
	sqlite3_close(db);
	check_int(msc_store_open(path("other.db"), 0, &s), ==, MSC_ERR_NOT_MSC);

	/* not SQLite at all */
	f = fopen(path("text.db"), "w");
	fputs("this is not a database, just text that is long enough to have a header\n", f);
	fclose(f);
	check_int(msc_store_open(path("text.db"), MSC_STORE_READONLY, &s), ==, MSC_ERR_NOT_MSC);

	/* ours, from a newer mmuscope */
	check_int(sqlite3_open(path("rt.db"), &db), ==, SQLITE_OK);
	sqlite3_exec(db, "PRAGMA user_version = 999", NULL, NULL, NULL);
	sqlite3_close(db);
	check_int(msc_store_open(path("rt.db"), MSC_STORE_READONLY, &s), ==, MSC_ERR_SCHEMA);
}

/* A database for the checks below: @from's copy, @name; "ok.db" is made first. */
static bool copy_of(const char *from, const char *name)
{
	struct msc_store *s;
	char cmd[600];
	int64_t id;

	if (access(path("ok.db"), F_OK) &&
	    (msc_store_open(path("ok.db"), MSC_STORE_CREATE, &s) ||
	     write_capture(s, &id) || msc_store_end_capture(s, NR_EVENTS) ||
	     (msc_store_close(s), false)))
		return false;

	snprintf(cmd, sizeof(cmd), "cp '%s' '%s' && rm -f '%s-wal' '%s-shm'", path(from),
		 path(name), path(name), path(name));
	return !system(cmd);
}

/*
 * What SQLite could block on is refused before it opens it, at once: a
 * FIFO (open() would wait for a writer), a directory, a FIFO where the WAL
 * goes; a writer does not follow a symbolic link.
 */
static void t_not_regular(void)
{
	struct msc_store *s = NULL;
	time_t t0 = time(NULL);

	check_int(mkfifo(path("fifo.db"), 0600), ==, 0);
	check_int(msc_store_open(path("fifo.db"), MSC_STORE_READONLY, &s), ==, MSC_ERR_NOT_REG);
	check_str(msc_store_open_errmsg(), "a FIFO");
	check_int(msc_store_open(path("fifo.db"), 0, &s), ==, MSC_ERR_NOT_REG);
	check_int(mkdir(path("dir.db"), 0700), ==, 0);
	check_int(msc_store_open(path("dir.db"), MSC_STORE_READONLY, &s), ==, MSC_ERR_NOT_REG);
	check_str(msc_store_open_errmsg(), "a directory");
	check_int(copy_of("ok.db", "side.db"), ==, true);
	check_int(mkfifo(path("side.db-wal"), 0600), ==, 0);
	check_int(msc_store_open(path("side.db"), MSC_STORE_READONLY, &s), ==, MSC_ERR_NOT_REG);
	check_str(msc_store_open_errmsg(), "its wal is a FIFO");
	check_int(symlink(path("ok.db"), path("link.db")), ==, 0);
	check_int(msc_store_open(path("link.db"), 0, &s), ==, MSC_ERR_NOT_REG);
	check_str(msc_store_open_errmsg(), "a symbolic link (a writer does not follow one)");
	/* a reader reads through it */
	if (check_int(msc_store_open(path("link.db"), MSC_STORE_READONLY, &s), ==, 0))
		msc_store_close(s);
	check_int(time(NULL) - t0 < 5, ==, true);
}

/* Run @sql on a copy of rt.db, @name; the copy's path. */
static const char *altered(const char *name, const char *sql)
{
	sqlite3 *db;

	check_int(copy_of("ok.db", name), ==, true);
	check_int(sqlite3_open(path(name), &db), ==, SQLITE_OK);
	check_int(sqlite3_exec(db, sql, NULL, NULL, NULL), ==, SQLITE_OK);
	sqlite3_close(db);
	return path(name);
}

/*
 * Objects the schema steps do not make are refused by name before any
 * statement of ours could run them: a trigger, a view redefined (one that
 * never ends), a table replaced by a view, a table of someone else's.
 */
static void t_foreign_objects(void)
{
	static const char *const cases[][2] = {
		{ "CREATE TRIGGER t AFTER INSERT ON marker BEGIN SELECT 1; END",
		  "trigger t: not one of the program's" },
		{ "DROP VIEW ioctl_call; CREATE VIEW ioctl_call AS WITH RECURSIVE r(x) AS "
		  "(SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT x FROM r",
		  "view ioctl_call: redefined" },
		{ "DROP TABLE capture; CREATE VIEW capture AS WITH RECURSIVE r(x) AS "
		  "(SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT x AS id FROM r",
		  "view capture: the program's is a table" },
		{ "CREATE TABLE extra (x)", "table extra: not one of the program's" },
	};
	struct msc_store *s;
	char name[32];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(name, sizeof(name), "foreign%zu.db", i);
		altered(name, cases[i][0]);
		check_int(msc_store_open(path(name), MSC_STORE_READONLY, &s), ==, MSC_ERR_FOREIGN);
		check_str(msc_store_open_errmsg(), cases[i][1]);
		check_int(msc_store_open(path(name), 0, &s), ==, MSC_ERR_FOREIGN);
	}
	/* the program's own objects, all of them: fine */
	if (check_int(msc_store_open(path("ok.db"), MSC_STORE_READONLY, &s), ==, 0))
		msc_store_close(s);
}

/* Overwrite page @page (0-based) of @name with bytes of @c. */
static void spoil_page(const char *name, long page, int c)
{
	char buf[16384];
	int fd = open(path(name), O_WRONLY);

	memset(buf, c, sizeof(buf));
	check_int(pwrite(fd, buf, sizeof(buf), page * 16384), ==, (long)sizeof(buf));
	close(fd);
}

/*
 * A damaged page is found by quick_check at open and named; a reader of a
 * file above the check's bound is not checked at open (the rule in
 * store.c), a writer always is.
 */
static void t_damaged(void)
{
	struct msc_store *s;
	struct stat st;

	check_int(copy_of("ok.db", "bad.db"), ==, true);
	check_int(stat(path("bad.db"), &st), ==, 0);
	spoil_page("bad.db", st.st_size / 16384 - 1, 0x5a);
	check_int(msc_store_open(path("bad.db"), MSC_STORE_READONLY, &s), ==, MSC_ERR_DAMAGED);
	check_int(strlen(msc_store_open_errmsg()) > 0, ==, true);
	setenv("MSC_STORE_CHECK_MAX", "0", 1);
	if (check_int(msc_store_open(path("bad.db"), MSC_STORE_READONLY, &s), ==, 0))
		msc_store_close(s);
	check_int(msc_store_open(path("bad.db"), 0, &s), ==, MSC_ERR_DAMAGED);
	unsetenv("MSC_STORE_CHECK_MAX");
}

/*
 * The interrupt flag stops SQLite inside a statement: the open's own check,
 * a long query; cleared, the store works again.
 */
static void t_interrupt(void)
{
	static volatile sig_atomic_t stop;
	struct msc_capture_row *caps;
	struct msc_store *s;
	size_t nr;

	msc_store_set_interrupt(&stop);
	stop = SIGINT;
	check_int(msc_store_open(path("ok.db"), MSC_STORE_READONLY, &s), ==,
		  MSC_ERR_INTERRUPTED);
	stop = 0;
	if (!check_int(msc_store_open(path("ok.db"), MSC_STORE_READONLY, &s), ==, 0))
		return;
	stop = SIGTERM;
	check_int(sqlite3_exec(s->db, "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 "
			       "FROM r) SELECT count(*) FROM r", NULL, NULL, NULL), ==,
		  SQLITE_INTERRUPT);
	stop = 0;
	check_int(msc_store_get_captures(s, &caps, &nr), ==, 0);
	free(caps);
	msc_store_close(s);
	msc_store_set_interrupt(NULL);
}

/* Rows of table t in the database file @name alone, without its WAL (-1: none). */
static int64_t rows_without_wal(const char *name)
{
	char cmd[512];
	sqlite3_stmt *st;
	sqlite3 *db;
	int64_t n = -1;

	snprintf(cmd, sizeof(cmd), "cp '%s' '%s.copy' && rm -f '%s.copy-wal'", path(name),
		 path(name), path(name));
	if (system(cmd))
		return -1;
	snprintf(cmd, sizeof(cmd), "%s.copy", path(name));
	if (sqlite3_open_v2(cmd, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, "SELECT count(*) FROM t", -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			n = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	return n;
}

/*
 * A writer's checkpoints on a thread (store-checkpoint.c): while it runs
 * the writer's commits leave the WAL alone, a checkpoint asked for copies
 * them into the database file, and the stop gives the setting back.
 */
static void t_checkpointer(void)
{
	struct store_checkpointer *c;
	struct msc_store *s;

	remove(path("ck.db"));
	if (!check_int(msc_store_open(path("ck.db"), MSC_STORE_CREATE, &s), ==, 0))
		return;
	check_int(sqlite3_exec(s->db, "CREATE TABLE t (x)", NULL, NULL, NULL), ==, SQLITE_OK);
	check_int(sqlite3_exec(s->db, "PRAGMA wal_checkpoint", NULL, NULL, NULL), ==, SQLITE_OK);
	check_int(store_checkpointer_start(s, &c), ==, 0);
	check_int(msc_store_query_int(s, "PRAGMA wal_autocheckpoint", -1), ==, 0);
	/* 2,000 pages committed: the writer's own setting would have checkpointed them */
	check_int(sqlite3_exec(s->db, "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 "
			       "FROM k WHERE i < 2000) INSERT INTO t SELECT zeroblob(16000) FROM k",
			       NULL, NULL, NULL), ==, SQLITE_OK);
	check_int(rows_without_wal("ck.db"), ==, 0);
	store_checkpointer_ask(c);
	store_checkpointer_stop(c);
	check_int(rows_without_wal("ck.db"), ==, 2000);
	check_int(msc_store_query_int(s, "PRAGMA wal_autocheckpoint", -1), ==, 1000);
	msc_store_close(s);

	/* a reader cannot have them (table t is not the program's: unchecked) */
	check_int(msc_store_open(path("ck.db"), MSC_STORE_READONLY | MSC_STORE_NO_CHECK, &s), ==,
		  0);
	check_int(store_checkpointer_start(s, &c), ==, -EINVAL);
	msc_store_close(s);
}

/*
 * Whether another process sees a lock on @name's SHARED range: SQLite's
 * connections in WAL mode hold one for as long as they are open, and a
 * connection closing sees none when it is the last (and removes the WAL).
 */
static bool others_see_shared_lock(const char *name)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
				    .l_start = 0x40000002, .l_len = 510 };	/* SQLite's SHARED_FIRST */
		int fd = open(path(name), O_RDONLY);

		_exit(fd < 0 || fcntl(fd, F_GETLK, &fl) ? 2 : fl.l_type != F_UNLCK);
	}
	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 1;
}

/*
 * A second store on the same file in one process (the read-ahead's, the live
 * TUI's reader) leaves the writer's SQLite locks alone.  POSIX locks belong
 * to the process and a close() of any descriptor of the file drops them:
 * another process then believes it is the last connection, checkpoints and
 * removes the WAL under the writer (its next commit: "disk I/O error").
 */
static void t_locks_kept(void)
{
	struct msc_store *w, *r;

	remove(path("lk.db"));
	if (!check_int(msc_store_open(path("lk.db"), MSC_STORE_CREATE, &w), ==, 0))
		return;
	check_int(sqlite3_exec(w->db, "CREATE TABLE t (x); INSERT INTO t VALUES (1)", NULL, NULL,
			       NULL), ==, SQLITE_OK);
	check(others_see_shared_lock("lk.db"));
	if (check_int(msc_store_open(path("lk.db"), MSC_STORE_READONLY | MSC_STORE_NO_CHECK, &r),
		      ==, 0))
		msc_store_close(r);
	check(others_see_shared_lock("lk.db"));
	/* refused (table t is not the program's), after the file's checks */
	check_int(msc_store_open(path("lk.db"), MSC_STORE_READONLY, &r), ==, MSC_ERR_FOREIGN);
	check(others_see_shared_lock("lk.db"));
	msc_store_close(w);
	check(!others_see_shared_lock("lk.db"));
}

int main(void)
{
	int r;

	if (!mkdtemp(dir))
		return 1;
	TEST(t_create_0600(), "a new database is created 0600 and never overwritten");
	TEST(t_round_trip(), "every event type reads back as written, in seq order");
	TEST(t_column_order(), "tables with their columns in another order store and read the same");
	TEST(t_missing_column(), "a table lacking a column of the description is refused by name");
	TEST(t_append_seq(), "an appended capture continues the seq");
	TEST(t_failure_keeps_committed(), "a failed write keeps what was committed, marked incomplete");
	TEST(t_foreign_and_newer(), "foreign files and newer schemas are refused");
	TEST(t_not_regular(), "a FIFO, a directory, a FIFO for a WAL are refused at once, named");
	TEST(t_foreign_objects(), "objects the schema steps do not make are refused by name");
	TEST(t_damaged(), "a damaged page is found at open (a reader's bound, a writer always)");
	TEST(t_interrupt(), "the interrupt flag stops SQLite inside a statement");
	TEST(t_checkpointer(), "a checkpointer thread takes a writer's checkpoints and gives them back");
	TEST(t_locks_kept(), "a second store of the file in one process keeps the writer's locks");
	char cmd[64];

	r = test_done();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) ? 1 : r;
}
