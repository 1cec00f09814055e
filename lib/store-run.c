// SPDX-License-Identifier: GPL-2.0-only
/*
 * Storms stored as exact runs (schema/009-runs.sql).
 *
 * Events of a type with runs (event-desc.c: .runs) are joined, as they are
 * added, to one of the type's open runs: events of one cpu and pid whose
 * fields are equal, except the STEP fields, which advance by a constant
 * step.  A run that cannot grow is closed: it becomes one held row of its
 * run table, its first event's values, the steps, and the residuals of each
 * event's seq and ts from the run's mean steps as JSON (the at column).
 *
 * Invariants, which the views' arithmetic relies on (schema 9):
 * - event k's STEP value is v0 + k * step, and both k * step and the sum fit
 *   a signed 64-bit integer (an event that would overflow starts a run);
 * - every event's seq is below the first's + MSC_RUN_SPAN, and its ts below
 *   2^62 (so ts0 + k * ts_step + t_k has no overflow either);
 * - a run holds at most RUN_MAX events;
 * - every open run is closed before the held rows are written, so a
 *   committed run is complete and no run spans a commit.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "event-desc.h"
#include "mmuscope/util.h"
#include "store-local.h"

#define RUN_MAX 1024		/* events of a run: its row stays within a page */
#define OPEN_MAX 8		/* open runs of one type */
#define TS_LIMIT (1ULL << 62)
#define STEP_MAX (INT64_MAX / RUN_MAX)	/* k * step fits for every k of a run */

#define MASK_WORDS 8	/* payload bytes the equal fields may span, in words */

struct open_run {
	struct msc_event first;
	int64_t last[MSC_EVENT_MAX_FIELDS];	/* the last event's STEP values (stale once fast) */
	int64_t step[MSC_EVENT_MAX_FIELDS];	/* by field index; set at n = 2 */
	/*
	 * fast (decided at n = 2, kept until closed): the type has a want
	 * mask, and v0 + k * step fits an int64_t for every STEP field and
	 * every k < RUN_MAX.  Then want holds the payload words the next
	 * event has under the mask: the first's equal fields, each STEP
	 * field v0 + n * step (which no overflow wrapped); inc is what each
	 * word advances by, a step or 0.  An event within() a fast run
	 * extends it exactly when its words are these.
	 */
	bool fast;
	uint64_t want[MASK_WORDS], inc[MASK_WORDS];
	uint64_t grown;				/* tick of its last event */
	uint32_t n;
	int64_t seq[RUN_MAX];
	int64_t ts[RUN_MAX];
};

/* One type's open runs, and the residual text of its held rows. */
struct msc_store_runs {
	const struct msc_event_desc *d;
	uint8_t steps[MSC_EVENT_MAX_FIELDS], equal[MSC_EVENT_MAX_FIELDS];
	unsigned int nr_steps, nr_equal;
	/*
	 * The payload's bits that equal fields hold, by word from
	 * MSC_EVENT_PAYLOAD: two events' equal fields are equal when their
	 * words are under it.  0 words: a field of text, or a payload too
	 * long, is compared field by field.
	 */
	unsigned int mask_words;
	uint64_t mask[MASK_WORDS];
	/*
	 * The mask with the STEP fields' words too, when each STEP field is
	 * one whole word under it (open_run.want); 0 words: the type's runs
	 * are never fast.  step_word[i]: the word of STEP field i.
	 */
	unsigned int want_words;
	uint64_t want_mask[MASK_WORDS];
	uint8_t step_word[MSC_EVENT_MAX_FIELDS];
	uint64_t tick;
	unsigned int nr_open, hit;	/* hit: index of the run grown last */
	struct open_run *open[OPEN_MAX];
	struct open_run *spare[OPEN_MAX];	/* closed, kept for reuse */
	unsigned int nr_spare;
	char *text;
	size_t text_len, text_alloc;
};

static bool field_equal(const struct msc_field *f, const struct msc_event *a,
			const struct msc_event *b)
{
	if (f->kind == MSC_K_NAME || f->kind == MSC_K_TEXT)
		return !strncmp((const char *)a + f->offset, (const char *)b + f->offset, f->size);
	return msc_field_get(a, f) == msc_field_get(b, f);
}

static void equal_mask(struct msc_store_runs *rs)
{
	uint8_t *bytes = (uint8_t *)rs->mask;

	for (unsigned int i = 0; i < rs->nr_equal; i++) {
		const struct msc_field *f = &rs->d->fields[rs->equal[i]];
		size_t at = f->offset - MSC_EVENT_PAYLOAD;

		if (f->kind == MSC_K_NAME || f->kind == MSC_K_TEXT || f->offset < MSC_EVENT_PAYLOAD ||
		    at + f->size > sizeof(rs->mask)) {
			rs->mask_words = 0;
			return;
		}
		memset(bytes + at, 0xff, f->size);
		rs->mask_words = max(rs->mask_words, (unsigned int)((at + f->size + 7) / 8));
	}
}

/* The want mask: the equal fields' mask and the STEP fields, each a whole word. */
static void want_mask(struct msc_store_runs *rs)
{
	unsigned int words = rs->mask_words;

	if (!words)
		return;
	for (unsigned int i = 0; i < rs->nr_steps; i++) {
		const struct msc_field *f = &rs->d->fields[rs->steps[i]];
		size_t at = f->offset - MSC_EVENT_PAYLOAD;

		if (f->offset < MSC_EVENT_PAYLOAD || f->size != 8 || at % 8 ||
		    at + 8 > sizeof(rs->want_mask))
			return;
		rs->step_word[i] = (uint8_t)(at / 8);
		words = max(words, (unsigned int)(at / 8 + 1));
	}
	memcpy(rs->want_mask, rs->mask, sizeof(rs->mask));
	for (unsigned int i = 0; i < rs->nr_steps; i++)
		rs->want_mask[rs->step_word[i]] = UINT64_MAX;
	rs->want_words = words;
}

/* Are the equal fields of @a and @b equal?  Bytes outside them are not read as values. */
static bool equal_fields(const struct msc_store_runs *rs, const struct msc_event *a,
			 const struct msc_event *b)
{
	const char *pa = (const char *)a + MSC_EVENT_PAYLOAD, *pb = (const char *)b + MSC_EVENT_PAYLOAD;

	if (!rs->mask_words) {
		for (unsigned int i = 0; i < rs->nr_equal; i++)
			if (!field_equal(&rs->d->fields[rs->equal[i]], a, b))
				return false;
		return true;
	}
	for (unsigned int w = 0; w < rs->mask_words; w++) {
		uint64_t x, y;

		memcpy(&x, pa + 8 * w, 8);
		memcpy(&y, pb + 8 * w, 8);
		if ((x ^ y) & rs->mask[w])
			return false;
	}
	return true;
}

/* The first event of @type: its open runs (kept out of line, as add_slow()). */
static __attribute__((noinline)) struct msc_store_runs *runs_new(struct msc_store *s, int type)
{
	const struct msc_event_desc *d = &msc_event_descs[type];
	struct msc_store_runs *rs = calloc(1, sizeof(*rs));

	s->held_run[type] = calloc(MSC_STORE_MULTI, sizeof(*s->held_run[type]));
	if (!rs || !s->held_run[type]) {
		free(rs);
		free(s->held_run[type]);
		s->held_run[type] = NULL;
		return NULL;
	}
	rs->d = d;
	for (unsigned int i = 0; i < d->nr_fields; i++) {
		if (d->fields[i].flags & MSC_F_STEP)
			rs->steps[rs->nr_steps++] = (uint8_t)i;
		else
			rs->equal[rs->nr_equal++] = (uint8_t)i;
	}
	equal_mask(rs);
	want_mask(rs);
	s->runs[type] = rs;
	return rs;
}

/*
 * Whether @r may take @ev with @seq, whatever its fields: same task, room,
 * span and ts (the first's ts is below TS_LIMIT once n > 1).
 */
static inline bool within(const struct open_run *r, const struct msc_event *ev, int64_t seq)
{
	return r->first.cpu == ev->cpu && r->first.pid == ev->pid && r->n != RUN_MAX &&
	       seq - r->seq[0] < MSC_RUN_SPAN && ev->ts < TS_LIMIT &&
	       (r->n > 1 || (uint64_t)r->ts[0] < TS_LIMIT);
}

/* Are the payload words of @ev under the want mask those a fast @r wants next? */
static inline bool is_wanted(const struct msc_store_runs *rs, const struct open_run *r,
			     const struct msc_event *ev)
{
	const char *p = (const char *)ev + MSC_EVENT_PAYLOAD;
	uint64_t diff = 0;

	for (unsigned int w = 0; w < rs->want_words; w++) {
		uint64_t x;

		memcpy(&x, p + 8 * w, 8);
		diff |= (x ^ r->want[w]) & rs->want_mask[w];
	}
	return !diff;
}

/*
 * is_wanted(), and then the words @r wants after @ev: they advance as they
 * are compared, and are taken back when @ev is not the one.
 */
static inline bool take_wanted(const struct msc_store_runs *rs, struct open_run *r,
			       const struct msc_event *ev)
{
	const char *p = (const char *)ev + MSC_EVENT_PAYLOAD;
	uint64_t diff = 0;

	for (unsigned int w = 0; w < rs->want_words; w++) {
		uint64_t x;

		memcpy(&x, p + 8 * w, 8);
		diff |= (x ^ r->want[w]) & rs->want_mask[w];
		r->want[w] += r->inc[w];
	}
	if (likely(!diff))
		return true;
	for (unsigned int w = 0; w < rs->want_words; w++)
		r->want[w] -= r->inc[w];
	return false;
}

/*
 * Whether @ev (its STEP values @v) is the next event of @r, with @seq: the
 * invariants above hold with it.
 */
static bool extends(const struct msc_store_runs *rs, const struct open_run *r,
		    const struct msc_event *ev, int64_t seq, const int64_t *v)
{
	int64_t k = r->n, d, p;

	if (!within(r, ev, seq))
		return false;
	if (r->fast)
		return is_wanted(rs, r, ev);
	if (!equal_fields(rs, &r->first, ev))
		return false;
	for (unsigned int i = 0; i < rs->nr_steps; i++) {
		unsigned int j = rs->steps[i];

		if (__builtin_sub_overflow(v[j], r->last[j], &d) ||
		    (k > 1 && d != r->step[j]) || __builtin_mul_overflow(k, d, &p))
			return false;
	}
	return true;
}

static void step_values(const struct msc_store_runs *rs, const struct msc_event *ev, int64_t *v)
{
	for (unsigned int i = 0; i < rs->nr_steps; i++) {
		unsigned int j = rs->steps[i];

		v[j] = (int64_t)msc_field_get(ev, &rs->d->fields[j]);
	}
}

/* The residuals of @r as JSON, appended to the type's text. */
static int put_residuals(struct msc_store_runs *rs, const struct open_run *r,
			 struct msc_run_row *row)
{
	char *p;
	int ret = msc_text_room(&rs->text, &rs->text_alloc, rs->text_len + 2 + (size_t)r->n * 44);

	if (ret)
		return ret;
	p = rs->text + rs->text_len;
	*p++ = '[';
	for (uint32_t k = 0; k < r->n; k++) {
		int64_t d[2] = {
			r->seq[k] - r->seq[0] - (int64_t)k * row->seq_step,
			r->ts[k] - r->ts[0] - (int64_t)k * row->ts_step,
		};

		if (k)
			*p++ = ',';
		p = msc_put_residuals(p, d, 2);
	}
	*p++ = ']';
	row->at_off = (uint32_t)rs->text_len;
	row->at_len = (uint32_t)(p - (rs->text + rs->text_len));
	rs->text_len = (size_t)(p - rs->text);
	return 0;
}

/* Close open run @i of @type: it becomes a held row. */
static int close_run(struct msc_store *s, int type, unsigned int i)
{
	struct msc_store_runs *rs = s->runs[type];
	struct open_run *r = rs->open[i];
	unsigned int h = s->nr_held[type];
	struct msc_run_row *row = &s->held_run[type][h];
	int ret = 0;

	memset(row, 0, sizeof(*row));
	row->n = r->n;
	if (r->n > 1) {
		row->seq_step = (r->seq[r->n - 1] - r->seq[0]) / (r->n - 1);
		row->ts_step = (r->ts[r->n - 1] - r->ts[0]) / (r->n - 1);
		for (unsigned int k = 0; k < rs->nr_steps; k++)
			row->step[rs->steps[k]] = r->step[rs->steps[k]];
		ret = put_residuals(rs, r, row);
		if (ret)
			return ret;
	}
	/* a row reads the payload only, as msc_store_add_event()'s held rows */
	memcpy(&s->held[type][h], &r->first, MSC_EVENT_PAYLOAD + rs->d->payload);
	s->nr_held[type]++;
	rs->open[i] = rs->open[--rs->nr_open];
	rs->spare[rs->nr_spare++] = r;
	return s->nr_held[type] == MSC_STORE_MULTI ? s->flush_type(s, type) : 0;
}

static int open_run(struct msc_store *s, int type, const struct msc_event *ev, int64_t seq,
		    const int64_t *v)
{
	struct msc_store_runs *rs = s->runs[type];
	struct open_run *r;
	int ret;

	if (rs->nr_open == OPEN_MAX) {	/* the run that grew longest ago */
		unsigned int old = 0;

		for (unsigned int i = 1; i < rs->nr_open; i++)
			if (rs->open[i]->grown < rs->open[old]->grown)
				old = i;
		ret = close_run(s, type, old);
		if (ret)
			return ret;
	}
	r = rs->nr_spare ? rs->spare[--rs->nr_spare] : malloc(sizeof(*r));
	if (!r)
		return -ENOMEM;
	memcpy(&r->first, ev, MSC_EVENT_PAYLOAD + rs->d->payload);
	r->first.seq = (uint64_t)seq;
	memcpy(r->last, v, sizeof(r->last));
	r->n = 1;
	r->fast = false;
	r->seq[0] = seq;
	r->ts[0] = (int64_t)ev->ts;
	r->grown = ++rs->tick;
	rs->open[rs->nr_open++] = r;
	return 0;
}

/* At n = 2, with its steps set: is @r fast?  If so, what it wants next. */
static void set_want(const struct msc_store_runs *rs, struct open_run *r)
{
	r->fast = rs->want_words != 0;
	if (!r->fast)
		return;
	memcpy(r->want, (const char *)&r->first + MSC_EVENT_PAYLOAD, 8 * rs->want_words);
	memset(r->inc, 0, sizeof(r->inc));
	for (unsigned int i = 0; i < rs->nr_steps; i++) {
		unsigned int j = rs->steps[i], w = rs->step_word[i];
		int64_t v0 = (int64_t)r->want[w], end;

		if (r->step[j] > STEP_MAX || r->step[j] < -STEP_MAX ||
		    __builtin_add_overflow(v0, (RUN_MAX - 1) * r->step[j], &end))
			r->fast = false;
		r->inc[w] = (uint64_t)r->step[j];
		r->want[w] += r->n * r->inc[w];
	}
}

/* @r takes @ev with @seq: its seq and ts; the STEP values are the caller's. */
static inline void append(struct msc_store_runs *rs, struct open_run *r,
			  const struct msc_event *ev, int64_t seq)
{
	r->seq[r->n] = seq;
	r->ts[r->n] = (int64_t)ev->ts;
	r->n++;
	r->grown = ++rs->tick;
}

/* A fast run took its next event: what it wants next. */
static inline void grow_want(const struct msc_store_runs *rs, struct open_run *r)
{
	for (unsigned int w = 0; w < rs->want_words; w++)
		r->want[w] += r->inc[w];
}

/*
 * msc_store_run_add() for an event the hit run does not take (kept out of
 * line: the fast path then saves no registers).
 */
static __attribute__((noinline)) int add_slow(struct msc_store *s, struct msc_store_runs *rs,
					      const struct msc_event *ev, int64_t seq)
{
	int64_t v[MSC_EVENT_MAX_FIELDS];
	struct open_run *r = NULL;

	step_values(rs, ev, v);
	if (s->no_runs) {	/* a run of one each: a row per event, as before schema 9 */
		int ret = open_run(s, ev->type, ev, seq, v);

		return ret ? ret : close_run(s, ev->type, rs->nr_open - 1);
	}
	/* the run the last event grew first: a storm grows one run */
	if (rs->hit < rs->nr_open && rs->open[rs->hit]->n > 1 &&
	    extends(rs, rs->open[rs->hit], ev, seq, v))
		r = rs->open[rs->hit];
	for (unsigned int i = 0; !r || r->n == 1; i++) {
		struct open_run *o;

		if (i == rs->nr_open)
			break;
		o = rs->open[i];
		if (o != r && extends(rs, o, ev, seq, v)) {
			r = o;
			rs->hit = i;
		}
	}
	if (!r)
		return open_run(s, ev->type, ev, seq, v);
	for (unsigned int i = 0; i < rs->nr_steps; i++) {
		unsigned int j = rs->steps[i];

		if (r->n == 1)
			r->step[j] = v[j] - r->last[j];
		r->last[j] = v[j];
	}
	append(rs, r, ev, seq);
	if (r->n == 2)
		set_want(rs, r);
	else if (r->fast)
		grow_want(rs, r);
	return 0;
}

/**
 * msc_store_run_add - add an event of a type stored as runs
 * @s: the store
 * @ev: the event
 * @seq: its seq
 *
 * It grows the open run it extends, preferring one whose steps are set;
 * else it opens a run (closing the run that grew longest ago when
 * OPEN_MAX are open).  Returns 0 or a negative error.
 */
int msc_store_run_add(struct msc_store *s, const struct msc_event *ev, int64_t seq)
{
	struct msc_store_runs *rs = s->runs[ev->type] ?: runs_new(s, ev->type);
	struct open_run *r;

	if (!rs)
		return -ENOMEM;
	/*
	 * A storm grows one run: the run the last event grew.  When it is
	 * fast, it has its steps set and is preferred, so the event is its
	 * when take_wanted() says so, whatever the other runs are.
	 */
	if (rs->hit < rs->nr_open) {
		r = rs->open[rs->hit];
		if (r->fast && within(r, ev, seq) && take_wanted(rs, r, ev)) {
			append(rs, r, ev, seq);
			return 0;
		}
	}
	return add_slow(s, rs, ev, seq);
}

/** msc_store_runs_close - close every open run (before the held rows are written) */
int msc_store_runs_close(struct msc_store *s)
{
	for (int type = 0; type < MSC_EV_NR; type++) {
		struct msc_store_runs *rs = s->runs[type];

		while (rs && rs->nr_open) {
			int ret = close_run(s, type, rs->nr_open - 1);

			if (ret)
				return ret;
		}
	}
	return 0;
}

/** msc_store_runs_drop - forget the open runs and held text (a rollback) */
void msc_store_runs_drop(struct msc_store *s)
{
	for (int type = 0; type < MSC_EV_NR; type++) {
		struct msc_store_runs *rs = s->runs[type];

		while (rs && rs->nr_open)
			rs->spare[rs->nr_spare++] = rs->open[--rs->nr_open];
		if (rs)
			rs->text_len = 0;
	}
}

void msc_store_runs_free(struct msc_store *s)
{
	msc_store_runs_drop(s);
	for (int type = 0; type < MSC_EV_NR; type++) {
		struct msc_store_runs *rs = s->runs[type];

		if (!rs)
			continue;
		for (unsigned int i = 0; i < rs->nr_spare; i++)
			free(rs->spare[i]);
		free(rs->text);
		free(rs);
		free(s->held_run[type]);
	}
}

/** msc_store_run_text - the residual text the type's held rows point into */
const char *msc_store_run_text(const struct msc_store *s, int type)
{
	return s->runs[type] ? s->runs[type]->text : NULL;
}

/** msc_store_run_text_reset - the type's held rows are written: their text is free */
void msc_store_run_text_reset(struct msc_store *s, int type)
{
	if (s->runs[type])
		s->runs[type]->text_len = 0;
}
