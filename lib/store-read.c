// SPDX-License-Identifier: GPL-2.0-only
/*
 * The read side of the store: captures, and the events of every table
 * merged back into seq order (the order the source handed them out).
 */
#include "mmuscope/store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "mmuscope/error.h"
#include "mmuscope/event.h"
#include "mmuscope/host.h"
#include "mmuscope/util.h"
#include "event-desc.h"
#include "store-local.h"

static void copy_text(sqlite3_stmt *st, int i, char *dst, size_t size)
{
	const char *t = (const char *)sqlite3_column_text(st, i);

	snprintf(dst, size, "%s", t ? t : "");
}

#define MAX_SHARING 4		/* event types that share one table */
/*
 * Runs of one table that cover one seq: the writer keeps at most 8 of a
 * type open (store-run.c), so more is a row no writer made.
 */
#define MAX_INTERLEAVED 256

enum read_code {
	READ_INT,		/* an integer column that is never NULL */
	READ_NAME,		/* a name of f->names */
	READ_FIELD,		/* the general rule (read_field()) */
};

struct read_op {
	uint8_t col;		/* result column */
	uint8_t code;		/* enum read_code */
	uint8_t size;		/* of the member */
	uint8_t last;		/* READ_NAME: the value the last row had (rows come in runs) */
	uint16_t offset;	/* of the member */
	const struct msc_field *f;
};

/*
 * A run being handed out (schema 9): its first event, and what makes
 * event k of it.
 */
struct run_out {
	struct msc_event ev;		/* event k is made in here */
	uint32_t n, k;
	int64_t seq0, seq_step, ts0, ts_step;
	int64_t next_seq;		/* of event k */
	int64_t *rs, *rt;		/* residuals of seq and ts, n each */
	unsigned int nr_steps;
	struct { uint16_t offset; uint8_t size; int64_t base, step; } steps[MSC_EVENT_MAX_FIELDS];
};

/*
 * One table's rows in seq order, for every type whose rows it holds.  Its
 * SELECT names its columns: seq, ts, cpu, pid, then each column of its
 * types once; ops[t] fill the fields of types[t].
 *
 * A run table's rows come in order of their first seq, and their events
 * interleave: a row is opened (into out[]) once its first seq is the
 * table's lowest, and the table's next event is the lowest of its open
 * runs'.  A run's events lie within MSC_RUN_SPAN of its first, so the
 * SELECT starts that far before the first seq wanted.
 */
struct table_cursor {
	sqlite3_stmt *st;
	bool has_row;		/* the table has an event not yet handed out */
	int64_t seq;		/* ... and this is its seq */
	unsigned int nr_types;
	uint8_t types[MAX_SHARING];
	int is_col;		/* the column telling the types apart; -1 */
	uint8_t nr_ops[MAX_SHARING];
	struct read_op ops[MAX_SHARING][MSC_EVENT_MAX_FIELDS];
	/* run tables */
	bool runs;
	int run_col;		/* n, seq_step, ts_step, at follow from here */
	uint8_t step_col[MAX_SHARING][MSC_EVENT_MAX_FIELDS];	/* by op; 0: none */
	bool st_row;		/* st is on a row not yet opened ... */
	int64_t row_seq;	/* ... whose first seq this is */
	int64_t first_seq, last_seq;
	struct run_out **out;
	unsigned int nr_out, alloc_out;
	/*
	 * out[lowest] is the lowest open run, and stays so while its next seq
	 * is below limit: the other open runs' next and the next row's first
	 * (a storm's run hands out event after event without a look at them).
	 */
	unsigned int lowest;
	int64_t limit;
};

struct msc_event_cursor {
	struct msc_store *s;
	struct table_cursor t[MSC_EV_NR];
	unsigned int nr_tables;
	/*
	 * The table the last event came from, and the least next seq of all
	 * the others (INT64_MAX: none).  Only that table moves between two
	 * calls, so while its next seq stays below the others' it is the next
	 * table again, without looking at them: a storm's run or rows follow
	 * each other from one table.
	 */
	struct table_cursor *last;
	int64_t rival_seq;
};

/* The cursor of @table, added with its first type when new. */
static struct table_cursor *table_of(struct msc_event_cursor *c, const char *table)
{
	for (unsigned int i = 0; i < c->nr_tables; i++)
		if (!strcmp(msc_event_descs[c->t[i].types[0]].table, table))
			return &c->t[i];
	c->t[c->nr_tables].is_col = -1;
	return &c->t[c->nr_tables++];
}

/* The result column named @name, added to the select list when new. */
static int column_of(const char **cols, unsigned int *nr, const char *name)
{
	for (unsigned int i = 0; i < *nr; i++)
		if (!strcmp(cols[i], name))
			return (int)i;
	cols[*nr] = name;
	return (int)(*nr)++;
}

/* How a field is read: a NULL it may hold, or text, takes the general rule. */
static uint8_t read_code(const struct msc_field *f)
{
	if (f->kind == MSC_K_NAME || f->kind == MSC_K_TEXT || f->kind == MSC_K_OSDEC ||
	    (f->flags & MSC_F_NEG_ABSENT) || f->only)
		return READ_FIELD;
	return f->names ? READ_NAME : READ_INT;
}

static const char *const run_columns[] = { "n", "seq_step", "ts_step", "at" };

static int prepare_table(struct msc_store *s, struct table_cursor *t)
{
	const struct msc_event_desc *d0 = &msc_event_descs[t->types[0]];
	const char *cols[4 + MAX_SHARING * MSC_EVENT_MAX_FIELDS + 1] = {
		"seq", "ts", "cpu", d0->no_pid ? "-1" : "pid",
	};
	char names[MAX_SHARING * MSC_EVENT_MAX_FIELDS][64];
	unsigned int nr = 4, nr_names = 0;
	char sql[2048];
	size_t len;

	t->runs = d0->runs;
	if (t->runs) {
		t->run_col = (int)nr;
		for (unsigned int k = 0; k < ARRAY_SIZE(run_columns); k++)
			cols[nr++] = run_columns[k];
	}
	for (unsigned int i = 0; i < t->nr_types; i++) {
		const struct msc_event_desc *d = &msc_event_descs[t->types[i]];

		for (unsigned int k = 0; k < d->nr_fields; k++) {
			const struct msc_field *f = &d->fields[k];

			if (!f->column)
				continue;
			if (t->runs && (f->flags & MSC_F_STEP)) {
				snprintf(names[nr_names], sizeof(names[0]), "%s_step", f->column);
				t->step_col[i][t->nr_ops[i]] =
					(uint8_t)column_of(cols, &nr, names[nr_names++]);
			}
			t->ops[i][t->nr_ops[i]++] = (struct read_op){
				.col = (uint8_t)column_of(cols, &nr, f->column),
				.code = read_code(f), .size = (uint8_t)f->size,
				.offset = f->offset, .f = f,
			};
		}
		if (d->is_column)
			t->is_col = column_of(cols, &nr, d->is_column);
	}
	len = (size_t)snprintf(sql, sizeof(sql), "SELECT seq");
	for (unsigned int i = 1; i < nr; i++)
		len += (size_t)snprintf(sql + len, sizeof(sql) - len, ", %s", cols[i]);
	snprintf(sql + len, sizeof(sql) - len,
		 " FROM %s WHERE seq BETWEEN ? AND ? ORDER BY seq",
		 msc_store_row_table(t->types[0]));
	return msc_store_prepare(s, sql, &t->st);
}

/* Which of the table's types the current row is. */
static unsigned int row_type(const struct table_cursor *t)
{
	const char *is = t->is_col >= 0 ? (const char *)sqlite3_column_text(t->st, t->is_col)
				      : NULL;
	unsigned int other = 0;

	for (unsigned int i = 0; i < t->nr_types; i++) {
		const struct msc_event_desc *d = &msc_event_descs[t->types[i]];

		if (!d->is_value)
			other = i;
		else if (is && !strcmp(is, d->is_value))
			return i;
	}
	return other;
}

/* The value whose name @text is (0 for none); @hint is tried first. */
static uint64_t name_value(const struct msc_field *f, const char *text, unsigned int hint)
{
	int k;

	if (!text)
		return 0;
	if (hint < f->nr_names && !strcmp(f->names[hint], text))
		return hint;
	k = msc_field_name_index(f, text, strlen(text));
	return k < 0 ? 0 : (uint64_t)k;
}

static void read_field(sqlite3_stmt *st, int c, const struct msc_field *f, struct msc_event *ev)
{
	char *dst = (char *)ev + f->offset;
	if (sqlite3_column_type(st, c) == SQLITE_NULL) {
		if (f->kind != MSC_K_NAME && f->kind != MSC_K_TEXT)
			msc_field_set(ev, f, msc_field_absent(f));
		return;
	}
	switch (f->kind) {
	case MSC_K_NAME:
	case MSC_K_TEXT:
		copy_text(st, c, dst, f->size);
		if ((f->flags & MSC_F_NONE_EMPTY) && !strcmp(dst, f->none))
			dst[0] = '\0';
		return;
	default:
		break;
	}
	if (f->names) {
		msc_field_set(ev, f, name_value(f, (const char *)sqlite3_column_text(st, c), 0));
		return;
	}
	msc_field_set(ev, f, column_u64(st, c));
}

/*
 * The event of the table's current row.  Its header and its payload are
 * written whole (the union's rest is not: no reader looks past a payload).
 */
static void read_row(struct table_cursor *t, struct msc_event *ev)
{
	unsigned int i = row_type(t);
	struct read_op *end = t->ops[i] + t->nr_ops[i];

	memset(ev, 0, MSC_EVENT_PAYLOAD + msc_event_descs[t->types[i]].payload);
	ev->type = t->types[i];
	ev->seq = (uint64_t)t->seq;
	ev->ts = column_u64(t->st, 1);
	ev->cpu = (uint16_t)sqlite3_column_int(t->st, 2);
	ev->pid = sqlite3_column_int(t->st, 3);
	for (struct read_op *op = t->ops[i]; op < end; op++) {
		const char *text;

		switch (op->code) {
		case READ_INT:
			msc_put_width((char *)ev + op->offset, op->size,
				      column_u64(t->st, op->col));
			break;
		case READ_NAME:
			text = (const char *)sqlite3_column_text(t->st, op->col);
			op->last = (uint8_t)name_value(op->f, text, op->last);
			msc_put_width((char *)ev + op->offset, op->size, op->last);
			break;
		default:
			read_field(t->st, op->col, op->f, ev);
			break;
		}
	}
}

/* @n residual pairs from the JSON text @p (schema 9's at); false: it is not that. */
static bool parse_residuals(const char *p, uint32_t n, int64_t *rs, int64_t *rt)
{
	if (!p || *p++ != '[')
		return false;
	for (uint32_t k = 0; k < n; k++) {
		int64_t d[2];

		if ((k && *p++ != ',') || !(p = msc_get_residuals(p, d, 2)))
			return false;
		rs[k] = d[0];
		rt[k] = d[1];
	}
	return p[0] == ']' && !p[1];
}

static void run_free(struct run_out *o)
{
	free(o->rs);
	free(o);
}

/*
 * v0 + k * step + r, as the views compute it (the writer keeps every step
 * of it in range; a hostile row only wraps, mod 2^64).
 */
static uint64_t at_k(int64_t v0, uint32_t k, int64_t step, int64_t r)
{
	return (uint64_t)v0 + (uint64_t)k * (uint64_t)step + (uint64_t)r;
}

/* The seq of event o->k. */
static int64_t run_seq(const struct run_out *o)
{
	return (int64_t)at_k(o->seq0, o->k, o->seq_step, o->rs[o->k]);
}

/* Make event o->k in o->ev. */
static void run_event(struct run_out *o)
{
	uint32_t k = o->k;

	o->ev.seq = (uint64_t)o->next_seq;
	o->ev.ts = at_k(o->ts0, k, o->ts_step, o->rt[k]);
	for (unsigned int i = 0; i < o->nr_steps; i++)
		msc_put_width((char *)&o->ev + o->steps[i].offset, o->steps[i].size,
			      at_k(o->steps[i].base, k, o->steps[i].step, 0));
}

/* Move @o to its next event: its seq, which must be above the one before. */
static int run_advance(struct msc_event_cursor *c, const struct table_cursor *t,
		       struct run_out *o)
{
	int64_t seq;

	if (++o->k == o->n)
		return 0;
	seq = run_seq(o);
	if (seq <= o->next_seq) {
		snprintf(c->s->errmsg, sizeof(c->s->errmsg), "%s: row %lld: its seqs do not increase",
			 msc_store_row_table(t->types[0]), (long long)o->seq0);
		return MSC_ERR_SQL;
	}
	o->next_seq = seq;
	return 0;
}

/* Open the run of the table's current row. */
static int run_open(struct msc_event_cursor *c, struct table_cursor *t)
{
	sqlite3_stmt *st = t->st;
	int64_t n = sqlite3_column_int64(st, t->run_col);
	struct run_out *o;
	unsigned int type;

	if (n < 1 || n > MSC_RUN_SPAN) {
		snprintf(c->s->errmsg, sizeof(c->s->errmsg), "%s: row %lld holds %lld events",
			 msc_store_row_table(t->types[0]), (long long)t->row_seq, (long long)n);
		return MSC_ERR_SQL;
	}
	o = calloc(1, sizeof(*o));
	if (!o || !(o->rs = malloc(2 * (size_t)n * sizeof(int64_t)))) {
		free(o);
		return -ENOMEM;
	}
	o->rt = o->rs + n;
	t->seq = t->row_seq;
	read_row(t, &o->ev);
	type = row_type(t);
	o->n = (uint32_t)n;
	o->seq0 = t->row_seq;
	o->ts0 = sqlite3_column_int64(st, 1);
	o->seq_step = sqlite3_column_int64(st, t->run_col + 1);
	o->ts_step = sqlite3_column_int64(st, t->run_col + 2);
	if (n == 1) {
		o->rs[0] = o->rt[0] = 0;
	} else if (!parse_residuals((const char *)sqlite3_column_text(st, t->run_col + 3),
				    o->n, o->rs, o->rt)) {
		snprintf(c->s->errmsg, sizeof(c->s->errmsg),
			 "%s: row %lld: at is not %lld residuals",
			 msc_store_row_table(t->types[0]), (long long)t->row_seq, (long long)n);
		run_free(o);
		return MSC_ERR_SQL;
	}
	for (unsigned int i = 0; i < t->nr_ops[type]; i++) {
		const struct read_op *op = &t->ops[type][i];

		if (!t->step_col[type][i] || sqlite3_column_type(st, op->col) == SQLITE_NULL)
			continue;
		o->steps[o->nr_steps].offset = op->offset;
		o->steps[o->nr_steps].size = op->size;
		o->steps[o->nr_steps].base = sqlite3_column_int64(st, op->col);
		o->steps[o->nr_steps++].step = sqlite3_column_int64(st, t->step_col[type][i]);
	}
	/* events before the range are skipped; the run ends at the range's end */
	o->k = 0;
	o->next_seq = run_seq(o);
	while (o->k < o->n && o->next_seq < t->first_seq) {
		int r = run_advance(c, t, o);

		if (r) {
			run_free(o);
			return r;
		}
	}
	if (o->k == o->n || o->next_seq > t->last_seq) {
		run_free(o);
		return 0;
	}
	if (t->nr_out == MAX_INTERLEAVED) {
		snprintf(c->s->errmsg, sizeof(c->s->errmsg),
			 "%s: row %lld: over %d runs interleave", msc_store_row_table(t->types[0]),
			 (long long)t->row_seq, MAX_INTERLEAVED);
		run_free(o);
		return MSC_ERR_SQL;
	}
	if (t->nr_out == t->alloc_out) {
		unsigned int alloc = t->alloc_out ? 2 * t->alloc_out : 8;
		struct run_out **p = realloc(t->out, alloc * sizeof(*p));

		if (!p) {
			run_free(o);
			return -ENOMEM;
		}
		t->out = p;
		t->alloc_out = alloc;
	}
	t->out[t->nr_out++] = o;
	return 0;
}

/* The open run whose next event has the lowest seq, or -1; *@ret_others: the others' least. */
static int lowest_run(const struct table_cursor *t, int64_t *ret_others)
{
	int64_t others = INT64_MAX;	/* the least next seq of the other runs */
	int best = -1;

	for (unsigned int i = 0; i < t->nr_out; i++) {
		if (best < 0 || t->out[i]->next_seq < t->out[best]->next_seq) {
			if (best >= 0)
				others = min(others, t->out[best]->next_seq);
			best = (int)i;
		} else {
			others = min(others, t->out[i]->next_seq);
		}
	}
	*ret_others = others;
	return best;
}

/* The SELECT's next row. */
static int step_row(struct msc_event_cursor *c, struct table_cursor *t)
{
	int r = msc_store_step(c->s, t->st);

	t->st_row = r == 1;
	if (t->st_row)
		t->row_seq = sqlite3_column_int64(t->st, 0);
	return r < 0 ? r : 0;
}

/*
 * Open every row whose first event comes before the open runs' next, then
 * say which event of the table is next.
 */
static int runs_settle(struct msc_event_cursor *c, struct table_cursor *t)
{
	int64_t others;
	int best = lowest_run(t, &others), r;

	while (t->st_row && (best < 0 || t->row_seq < t->out[best]->next_seq)) {
		r = run_open(c, t);
		if (!r)
			r = step_row(c, t);
		if (r)
			return r;
		best = lowest_run(t, &others);
	}
	t->has_row = best >= 0;
	if (!t->has_row)
		return 0;
	t->seq = t->out[best]->next_seq;
	t->lowest = (unsigned int)best;
	t->limit = t->st_row ? min(t->row_seq, others) : others;
	return 0;
}

/* The next event of a run table (the lowest run's), then the one after settled. */
static int run_next(struct msc_event_cursor *c, struct table_cursor *t, struct msc_event *ev)
{
	unsigned int i = t->lowest;
	struct run_out *o = t->out[i];
	int r;

	run_event(o);
	memcpy(ev, &o->ev, msc_event_size(&o->ev));
	r = run_advance(c, t, o);
	if (r)
		return r;
	if (o->k == o->n || o->next_seq > t->last_seq) {
		run_free(o);
		t->out[i] = t->out[--t->nr_out];
	} else if (o->next_seq < t->limit) {
		t->seq = o->next_seq;	/* still the lowest: nothing else moved */
		return 0;
	}
	return runs_settle(c, t);
}

static int advance(struct msc_event_cursor *c, struct table_cursor *t)
{
	int r;

	if (t->runs)
		return step_row(c, t) ?: runs_settle(c, t);
	r = msc_store_step(c->s, t->st);
	t->has_row = r == 1;
	if (t->has_row)
		t->seq = sqlite3_column_int64(t->st, 0);
	return r < 0 ? r : 0;
}

/**
 * msc_store_events_open - walk stored events in seq order
 * @s: the store
 * @first_seq: first seq wanted
 * @last_seq: last seq wanted (INT64_MAX: to the end)
 * @ret: the cursor, closed with msc_store_events_close()
 *
 * Returns 0 or a negative error.
 */
int msc_store_events_open(struct msc_store *s, int64_t first_seq, int64_t last_seq,
			  struct msc_event_cursor **ret)
{
	struct msc_event_cursor *c = calloc(1, sizeof(*c));
	int64_t from;
	int r = 0;

	if (!c)
		return -ENOMEM;
	c->s = s;
	for (int type = 0; type < MSC_EV_NR; type++) {
		struct table_cursor *t = table_of(c, msc_event_descs[type].table);

		if (t->nr_types == MAX_SHARING) {
			free(c);
			return -EINVAL;	/* event-desc.c: more types share a table */
		}
		t->types[t->nr_types++] = (uint8_t)type;
	}
	for (unsigned int i = 0; i < c->nr_tables && !r; i++) {
		struct table_cursor *t = &c->t[i];

		r = prepare_table(s, t);
		if (r)
			break;
		t->first_seq = first_seq;
		t->last_seq = last_seq;
		/* a run table's rows that may hold events of the range */
		from = !t->runs ? first_seq : first_seq > MSC_RUN_SPAN ? first_seq - MSC_RUN_SPAN : 0;
		sqlite3_bind_int64(t->st, 1, from);
		sqlite3_bind_int64(t->st, 2, last_seq);
		r = advance(c, t);
	}
	if (r) {
		msc_store_events_close(c);
		return r;
	}
	*ret = c;
	return 0;
}

/**
 * msc_store_events_next - the next stored event
 * @c: the cursor
 * @ret_ev: the event; its seq is the stored seq
 *
 * Returns 1, 0 at the end, or a negative error.
 */
int msc_store_events_next(struct msc_event_cursor *c, struct msc_event *ret_ev)
{
	struct table_cursor *best = c->last;
	int64_t best_seq = 0, rival = INT64_MAX;

	if (!best || !best->has_row || best->seq >= c->rival_seq) {
		best = NULL;
		for (unsigned int i = 0; i < c->nr_tables; i++) {
			struct table_cursor *t = &c->t[i];

			if (!t->has_row)
				continue;
			if (!best || t->seq < best_seq) {
				if (best)
					rival = min(rival, best_seq);
				best = t;
				best_seq = t->seq;
			} else {
				rival = min(rival, t->seq);
			}
		}
		c->last = best;
		c->rival_seq = rival;
	}
	if (!best)
		return 0;
	if (best->runs) {
		int r = run_next(c, best, ret_ev);

		return r < 0 ? r : 1;
	}
	read_row(best, ret_ev);
	return advance(c, best) < 0 ? MSC_ERR_SQL : 1;
}

void msc_store_events_close(struct msc_event_cursor *c)
{
	if (!c)
		return;
	for (unsigned int i = 0; i < c->nr_tables; i++) {
		struct table_cursor *t = &c->t[i];

		sqlite3_finalize(t->st);
		for (unsigned int k = 0; k < t->nr_out; k++)
			run_free(t->out[k]);
		free(t->out);
	}
	free(c);
}

/**
 * msc_store_get_captures - every capture of the database, by id
 * @s: the store
 * @ret: array, freed by the caller with free()
 * @ret_nr: its length
 */
int msc_store_get_captures(struct msc_store *s, struct msc_capture_row **ret, size_t *ret_nr)
{
	static const char sql[] =
		"SELECT id, source, kind, kernel_release, vendor, nonpresent_spte, frozen_spte, "
		"tdp_mmu, first_seq, last_seq, first_ts, last_ts, records, stored, lost, "
		"lost_marks, complete, ept_ad, nonpresent_from, frozen_from, role_access_bits, "
		"role_access_from, ept_sw, ept_sw_from FROM capture ORDER BY id";
	struct msc_capture_row *rows = NULL, *p;
	size_t nr = 0;
	sqlite3_stmt *st;
	int r;

	r = msc_store_prepare(s, sql, &st);
	if (r)
		return r;
	while ((r = msc_store_step(s, st)) == 1) {
		struct msc_capture_row *c;

		p = realloc(rows, (nr + 1) * sizeof(*rows));
		if (!p) {
			r = -ENOMEM;
			break;
		}
		rows = p;
		c = &rows[nr++];
		memset(c, 0, sizeof(*c));
		c->id = sqlite3_column_int64(st, 0);
		copy_text(st, 1, c->source, sizeof(c->source));
		copy_text(st, 2, c->kind, sizeof(c->kind));
		copy_text(st, 3, c->kernel_release, sizeof(c->kernel_release));
		copy_text(st, 4, c->vendor, sizeof(c->vendor));
		c->nonpresent_spte = column_u64(st, 5);
		c->frozen_spte = column_u64(st, 6);
		c->tdp_mmu = sqlite3_column_int(st, 7);
		c->first_seq = column_int_or(st, 8, -1);
		c->last_seq = column_int_or(st, 9, -1);
		c->first_ts = column_u64(st, 10);
		c->last_ts = column_u64(st, 11);
		c->records = column_u64(st, 12);
		c->stored = column_u64(st, 13);
		c->lost = column_u64(st, 14);
		c->lost_marks = column_u64(st, 15);
		c->complete = sqlite3_column_int(st, 16);
		c->ept_ad = sqlite3_column_int(st, 17);
		copy_text(st, 18, c->nonpresent_from, sizeof(c->nonpresent_from));
		copy_text(st, 19, c->frozen_from, sizeof(c->frozen_from));
		c->role_access_bits = (unsigned int)sqlite3_column_int(st, 20);
		copy_text(st, 21, c->role_access_from, sizeof(c->role_access_from));
		c->ept_sw = column_u64(st, 22);
		copy_text(st, 23, c->ept_sw_from, sizeof(c->ept_sw_from));
	}
	sqlite3_finalize(st);
	if (r < 0) {
		free(rows);
		return r;
	}
	*ret = rows;
	*ret_nr = nr;
	return 0;
}

/**
 * msc_capture_host - the host a stored capture's events were classified for
 * @c: the capture's row
 * @ret: its layout-deciding facts, marked as inferred
 */
void msc_capture_host(const struct msc_capture_row *c, struct msc_host *ret)
{
	msc_host_init(ret);
	snprintf(ret->release, sizeof(ret->release), "%s", c->kernel_release);
	ret->kver = msc_kver_parse(c->kernel_release);
	ret->vendor = !strcmp(c->vendor, "ept") ? MSC_VENDOR_EPT :
		      !strcmp(c->vendor, "npt") ? MSC_VENDOR_NPT : MSC_VENDOR_UNKNOWN;
	/* the values the events were classified with, whatever taught them */
	ret->nonpresent = (struct msc_special){ .value = c->nonpresent_spte,
						.from = MSC_LEARNT_EVENTS };
	ret->frozen = (struct msc_special){ .value = c->frozen_spte, .from = MSC_LEARNT_EVENTS };
	if (c->role_access_bits == 3 || c->role_access_bits == 4)
		ret->role_access = (struct msc_special){ .value = c->role_access_bits,
							 .from = MSC_LEARNT_EVENTS };
	if (c->ept_sw && msc_ept_sw_find(c->ept_sw))
		ret->ept_sw = (struct msc_special){ .value = c->ept_sw, .from = MSC_LEARNT_VALUES };
	ret->ept_ad = c->ept_ad;
	ret->tdp_mmu = c->tdp_mmu;
	ret->source = ret->vendor_source = ret->kver_source = MSC_HOST_INFERRED;
}
