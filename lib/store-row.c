// SPDX-License-Identifier: GPL-2.0-only
/*
 * The row an event becomes: its type's description (event-desc.c) compiled
 * against the table it is stored in.
 *
 * The columns are matched by name against the table's own, in the table's
 * order (PRAGMA table_info), and each is filled by one op: a load of the
 * member at its width, a name from the field's names, a derived value, or
 * the field's general rule; the type's constant column gets its literal,
 * and a column nothing fills NULL.  A column the description names and the
 * table lacks is an error: the schema and the description disagree.
 *
 * A type stored as runs (schema 9, store-run.c) is compiled against its run
 * table: its first event's row, plus the run's own columns (n, seq_step,
 * ts_step, at) and a <column>_step for each STEP field, 0 for a step column
 * of another type's field.
 *
 * As the VALUES follow the table's order, found by name when the row is
 * compiled, the INSERT needs no column list: with one SQLite copies every
 * value once more (a tenth of the statement's work).
 *
 * Invariant: a row's parameters are bound in ops order, nr_ops per row,
 * and every parameter of every row is bound (a batch statement keeps the
 * last row's values otherwise).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "event-desc.h"
#include "mmuscope/error.h"
#include "mmuscope/util.h"
#include "store-local.h"

#define MAX_COLUMNS 32

enum op_code {
	OP_U8, OP_U16, OP_U32, OP_U64, OP_S8, OP_S16, OP_S32,
	OP_NAME,		/* a u8 member stored as its name */
	OP_FIELD,		/* the field's general rule (bind_field()) */
	OP_DERIVED,		/* value k of derive() */
	OP_RUN,			/* the run's value k (enum run_value) */
	OP_STEP,		/* the step of field k */
};

enum run_value { RUN_N, RUN_SEQ_STEP, RUN_TS_STEP, RUN_AT };

static const char *const run_columns[] = {
	[RUN_N] = "n", [RUN_SEQ_STEP] = "seq_step", [RUN_TS_STEP] = "ts_step", [RUN_AT] = "at",
};

struct row_op {
	uint16_t offset;	/* of the member in struct msc_event */
	uint8_t code;		/* enum op_code */
	uint8_t k;		/* OP_DERIVED: which value */
	const struct msc_field *f;
};

struct msc_store_row {
	const struct msc_event_desc *desc;
	bool head;		/* seq, ts, cpu (, pid) are its first columns: bound directly */
	unsigned int nr_ops;
	struct row_op ops[MAX_COLUMNS];
	char *sql_head;		/* "INSERT INTO t VALUES " */
	char *tuple;		/* "(?,?,'get',NULL,...)": every column, in the table's order */
};

/* A value stored by name ("?" for one without: the text form refuses those). */
static void bind_name(sqlite3_stmt *st, int i, const struct msc_field *f, uint64_t v)
{
	const char *name = msc_field_name(f, v);

	sqlite3_bind_text(st, i, name ? name : "?", -1, SQLITE_STATIC);
}

/*
 * One field's column by its general rule.  Text is bound SQLITE_STATIC:
 * the event is held by the store until its statement has been stepped.
 */
static void bind_field(sqlite3_stmt *st, int i, const struct msc_event_desc *d,
		       const struct msc_field *f, const struct msc_event *ev)
{
	const char *p = (const char *)ev + f->offset;
	uint64_t v;

	if (f->only && !msc_field_carried(d, f, ev)) {
		sqlite3_bind_null(st, i);
		return;
	}
	switch (f->kind) {
	case MSC_K_TEXT:
		sqlite3_bind_text(st, i, p, (int)strnlen(p, f->size), SQLITE_STATIC);
		return;
	case MSC_K_NAME:
		if (*p)
			sqlite3_bind_text(st, i, p, (int)strnlen(p, f->size), SQLITE_STATIC);
		else if (f->none)
			sqlite3_bind_text(st, i, f->none, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(st, i);
		return;
	default:
		break;
	}
	v = msc_field_get(ev, f);
	if (f->names)
		bind_name(st, i, f, v);
	else if (f->kind == MSC_K_OSDEC && (int64_t)v < 0)
		sqlite3_bind_null(st, i);
	else
		bind_u64(st, i, v);
}

/* The op that binds @f: a plain load where the general rule adds nothing. */
static struct row_op field_op(const struct msc_field *f)
{
	struct row_op op = { .offset = f->offset, .code = OP_FIELD, .f = f };
	bool sign = msc_field_signed(f);

	if (f->only || f->kind == MSC_K_OSDEC || f->kind == MSC_K_NAME || f->kind == MSC_K_TEXT)
		return op;
	if (f->names) {
		if (f->size == 1)
			op.code = OP_NAME;
		return op;
	}
	switch (f->size) {
	case 1:
		op.code = sign ? OP_S8 : OP_U8;
		break;
	case 2:
		op.code = sign ? OP_S16 : OP_U16;
		break;
	case 4:
		op.code = sign ? OP_S32 : OP_U32;
		break;
	case 8:
		op.code = OP_U64;
		break;
	}
	return op;
}

#define HEAD_OP(member, c) \
	{ .offset = offsetof(struct msc_event, member), .code = c }

/* Whether SQL identifier @column (maybe "quoted") is @name. */
static bool is_column(const char *column, const char *name)
{
	size_t n = strlen(name);

	if (column[0] == '"')
		return !strncmp(column + 1, name, n) && column[n + 1] == '"' && !column[n + 2];
	return !strcmp(column, name);
}

/* Whether @name is "<@column>_step". */
static bool is_step_of(const char *name, const char *column)
{
	size_t n = strlen(column);

	return !strncmp(name, column, n) && !strcmp(name + n, "_step");
}

/*
 * What fills column @name of the type's table: an op (1), the type's
 * constant (2), nothing (0), or, in a run table, a step of 0 (3).
 */
static int producer(const struct msc_event_desc *d, const char *name, struct row_op *ret)
{
	static const struct { const char *name; struct row_op op; } head[] = {
		{ "seq", HEAD_OP(seq, OP_U64) }, { "ts", HEAD_OP(ts, OP_U64) },
		{ "cpu", HEAD_OP(cpu, OP_U16) }, { "pid", HEAD_OP(pid, OP_S32) },
	};

	for (size_t i = 0; i < ARRAY_SIZE(head); i++)
		if (!strcmp(head[i].name, name) && (i < 3 || !d->no_pid)) {
			*ret = head[i].op;
			return 1;
		}
	for (unsigned int i = 0; i < d->nr_fields; i++)
		if (d->fields[i].column && is_column(d->fields[i].column, name)) {
			*ret = field_op(&d->fields[i]);
			return 1;
		}
	for (unsigned int k = 0; d->derived && d->derived[k]; k++)
		if (!strcmp(d->derived[k], name)) {
			*ret = (struct row_op){ .code = OP_DERIVED, .k = (uint8_t)k };
			return 1;
		}
	if (d->is_column && !strcmp(d->is_column, name))
		return 2;
	if (!d->runs)
		return 0;
	for (unsigned int k = 0; k < ARRAY_SIZE(run_columns); k++)
		if (!strcmp(run_columns[k], name)) {
			*ret = (struct row_op){ .code = OP_RUN, .k = (uint8_t)k };
			return 1;
		}
	for (unsigned int i = 0; i < d->nr_fields; i++)
		if ((d->fields[i].flags & MSC_F_STEP) && is_step_of(name, d->fields[i].column)) {
			*ret = (struct row_op){ .code = OP_STEP, .k = (uint8_t)i };
			return 1;
		}
	return strlen(name) > 5 && !strcmp(name + strlen(name) - 5, "_step") ? 3 : 0;
}

/** msc_store_row_table - the table event @type's rows are stored in */
const char *msc_store_row_table(int type)
{
	const struct msc_event_desc *d = &msc_event_descs[type];

	return d->runs ? d->runs : d->table;
}

static bool has_column(char cols[][64], unsigned int nr, const char *name)
{
	for (unsigned int c = 0; c < nr; c++)
		if (is_column(name, cols[c]))
			return true;
	return false;
}

/*
 * Every column the description names is one of the table's @cols: NULL, or
 * the first that is not (a step column's name is made in @buf).
 */
static const char *missing_column(const struct msc_event_desc *d, char cols[][64],
				  unsigned int nr, char *buf, size_t size)
{
	for (unsigned int i = 0; i < d->nr_fields; i++) {
		bool found = !d->fields[i].column;

		for (unsigned int c = 0; c < nr && !found; c++)
			found = is_column(d->fields[i].column, cols[c]);
		if (!found)
			return d->fields[i].column;
	}
	for (unsigned int k = 0; d->derived && d->derived[k]; k++)
		if (!has_column(cols, nr, d->derived[k]))
			return d->derived[k];
	for (unsigned int k = 0; d->runs && k < ARRAY_SIZE(run_columns); k++)
		if (!has_column(cols, nr, run_columns[k]))
			return run_columns[k];
	for (unsigned int i = 0; d->runs && i < d->nr_fields; i++) {
		if (!(d->fields[i].flags & MSC_F_STEP))
			continue;
		snprintf(buf, size, "%s_step", d->fields[i].column);
		if (!has_column(cols, nr, buf))
			return buf;
	}
	return NULL;
}

static int table_columns(struct msc_store *s, const char *table, char cols[][64],
			 unsigned int *ret_nr)
{
	char sql[128];
	sqlite3_stmt *st;
	unsigned int nr = 0;
	int r;

	snprintf(sql, sizeof(sql), "SELECT name FROM pragma_table_info('%s')", table);
	r = msc_store_prepare(s, sql, &st);
	if (r)
		return r;
	while ((r = msc_store_step(s, st)) == 1) {
		const char *name = (const char *)sqlite3_column_text(st, 0);

		if (nr == MAX_COLUMNS) {
			snprintf(s->errmsg, sizeof(s->errmsg), "table %s has over %d columns",
				 table, MAX_COLUMNS);
			r = MSC_ERR_SCHEMA;
			break;
		}
		snprintf(cols[nr++], 64, "%s", name ? name : "");
	}
	sqlite3_finalize(st);
	*ret_nr = nr;
	return r < 0 ? r : 0;
}

/**
 * msc_store_row_compile - the row of event @type in the store's schema
 * @s: the store
 * @type: an enum msc_event_type
 * @ret: the row, freed with msc_store_row_free()
 *
 * Returns 0, -ENOMEM, a store error, or MSC_ERR_SCHEMA when the table
 * lacks a column the description names (msc_store_errmsg() says which).
 */
int msc_store_row_compile(struct msc_store *s, int type, struct msc_store_row **ret)
{
	const struct msc_event_desc *d = &msc_event_descs[type];
	const char *table = msc_store_row_table(type), *missing;
	char cols[MAX_COLUMNS][64], head[128], tuple[512], step[64];
	struct msc_store_row *row;
	size_t tl;
	unsigned int nr;
	int r;

	r = table_columns(s, table, cols, &nr);
	if (r)
		return r;
	missing = missing_column(d, cols, nr, step, sizeof(step));
	if (missing || !nr) {
		snprintf(s->errmsg, sizeof(s->errmsg), "table %s has no column %s", table,
			 missing ? missing : "at all");
		return MSC_ERR_SCHEMA;
	}
	row = calloc(1, sizeof(*row));
	if (!row)
		return -ENOMEM;
	row->desc = d;
	snprintf(head, sizeof(head), "INSERT INTO %s VALUES ", table);
	tl = (size_t)snprintf(tuple, sizeof(tuple), "(");
	for (unsigned int c = 0; c < nr; c++) {
		struct row_op op;
		int p = producer(d, cols[c], &op);

		tl += (size_t)snprintf(tuple + tl, sizeof(tuple) - tl, "%s", c ? "," : "");
		if (p == 0)
			tl += (size_t)snprintf(tuple + tl, sizeof(tuple) - tl, "NULL");
		else if (p == 2)
			tl += (size_t)snprintf(tuple + tl, sizeof(tuple) - tl, "'%s'", d->is_value);
		else if (p == 3)
			tl += (size_t)snprintf(tuple + tl, sizeof(tuple) - tl, "0");
		else
			tl += (size_t)snprintf(tuple + tl, sizeof(tuple) - tl, "?");
		if (p == 1)
			row->ops[row->nr_ops++] = op;
	}
	snprintf(tuple + tl, sizeof(tuple) - tl, ")");
	row->head = nr > 3 && !strcmp(cols[0], "seq") && !strcmp(cols[1], "ts") &&
		    !strcmp(cols[2], "cpu") && (d->no_pid || !strcmp(cols[3], "pid"));
	row->sql_head = strdup(head);
	row->tuple = strdup(tuple);
	if (!row->sql_head || !row->tuple) {
		msc_store_row_free(row);
		return -ENOMEM;
	}
	*ret = row;
	return 0;
}

void msc_store_row_free(struct msc_store_row *row)
{
	if (!row)
		return;
	free(row->sql_head);
	free(row->tuple);
	free(row);
}

/** msc_store_row_prepare - the INSERT of @n rows */
int msc_store_row_prepare(struct msc_store *s, const struct msc_store_row *row, unsigned int n,
			  sqlite3_stmt **ret)
{
	size_t hl = strlen(row->sql_head), tl = strlen(row->tuple), len = hl;
	char *sql = malloc(hl + n * (tl + 1) + 1);
	int r;

	if (!sql)
		return -ENOMEM;
	memcpy(sql, row->sql_head, hl);
	for (unsigned int i = 0; i < n; i++) {
		if (i)
			sql[len++] = ',';
		memcpy(sql + len, row->tuple, tl);
		len += tl;
	}
	sql[len] = '\0';
	r = msc_store_prepare(s, sql, ret);
	free(sql);
	return r;
}

/** msc_store_row_params - parameters one row binds */
unsigned int msc_store_row_params(const struct msc_store_row *row)
{
	return row->nr_ops;
}

/* A run's own value @k (enum run_value). */
static void bind_run(sqlite3_stmt *st, int i, unsigned int k, const struct msc_run_row *run,
		     const char *text)
{
	switch (k) {
	case RUN_N:
		sqlite3_bind_int64(st, i, run->n);
		break;
	case RUN_SEQ_STEP:
		sqlite3_bind_int64(st, i, run->seq_step);
		break;
	case RUN_TS_STEP:
		sqlite3_bind_int64(st, i, run->ts_step);
		break;
	default:
		if (run->at_len)
			sqlite3_bind_text(st, i, text + run->at_off, (int)run->at_len,
					  SQLITE_STATIC);
		else
			sqlite3_bind_null(st, i);
		break;
	}
}

/**
 * msc_store_row_bind - bind one event's row, its parameters after @i
 * @l: the capture's SPTE layout, for derived columns (page roles)
 * @run: a run table's row: the run @ev is the first event of, its residuals
 *	in @run_text (both held until the statement is stepped); else NULL
 */
void msc_store_row_bind(sqlite3_stmt *st, int i, const struct msc_store_row *row,
			const struct msc_event *ev, const struct msc_spte_layout *l,
			const struct msc_run_row *run, const char *run_text)
{
	const struct msc_event_desc *d = row->desc;
	const struct row_op *op = row->ops, *end = row->ops + row->nr_ops;
	struct msc_derived x;

	if (d->derive) {
		memset(&x, 0, sizeof(x));
		d->derive(ev, l, &x);
	}
	if (row->head) {	/* the ops' first 3 or 4, without their dispatch */
		sqlite3_bind_int64(st, ++i, (sqlite3_int64)ev->seq);
		bind_u64(st, ++i, ev->ts);
		sqlite3_bind_int(st, ++i, ev->cpu);
		op += 3;
		if (!d->no_pid) {
			sqlite3_bind_int(st, ++i, ev->pid);
			op++;
		}
	}
	for (; op < end; op++) {
		const char *m = (const char *)ev + op->offset;
		uint8_t u8;
		uint16_t u16;
		uint32_t u32;
		uint64_t u64;

		i++;
		switch (op->code) {
		case OP_U8:
			memcpy(&u8, m, 1);
			sqlite3_bind_int64(st, i, u8);
			break;
		case OP_S8:
			memcpy(&u8, m, 1);
			sqlite3_bind_int64(st, i, (int8_t)u8);
			break;
		case OP_U16:
			memcpy(&u16, m, 2);
			sqlite3_bind_int64(st, i, u16);
			break;
		case OP_S16:
			memcpy(&u16, m, 2);
			sqlite3_bind_int64(st, i, (int16_t)u16);
			break;
		case OP_U32:
			memcpy(&u32, m, 4);
			sqlite3_bind_int64(st, i, u32);
			break;
		case OP_S32:
			memcpy(&u32, m, 4);
			sqlite3_bind_int64(st, i, (int32_t)u32);
			break;
		case OP_U64:
			memcpy(&u64, m, 8);
			bind_u64(st, i, u64);
			break;
		case OP_NAME:
			memcpy(&u8, m, 1);
			bind_name(st, i, op->f, u8);
			break;
		case OP_FIELD:
			bind_field(st, i, d, op->f, ev);
			break;
		case OP_DERIVED:
			if (x.null[op->k])
				sqlite3_bind_null(st, i);
			else if (x.text[op->k])
				sqlite3_bind_text(st, i, x.text[op->k], -1, SQLITE_TRANSIENT);
			else
				sqlite3_bind_int64(st, i, x.v[op->k]);
			break;
		case OP_RUN:
			bind_run(st, i, op->k, run, run_text);
			break;
		case OP_STEP:
			sqlite3_bind_int64(st, i, run->step[op->k]);
			break;
		}
	}
}
