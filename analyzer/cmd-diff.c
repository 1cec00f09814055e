// SPDX-License-Identifier: GPL-2.0-only
/*
 * `mmuscope diff A.db B.db`: two runs of a workload side by side, in the form
 * of a KVM patch series' cover letter ("Disabling dirty logging time: 45.7 s
 * -> 1.4 s"): per step of the selftests' loop, its time, huge pages split,
 * TLB flushes, faults, zaps and promotions, the share mapped huge after, and
 * after the disable the time to huge again and how the kernel did it
 * (zap-collapsible up to 6.12, in-place recovery from 6.13).
 *
 * Steps pair by name within the cycle and VM of the same rank (cycle 1's
 * "Iteration 2 get dirty log" with cycle 1's): the kernels may find them
 * differently (6.12 hands a disable over to a re-promotion, 7.x does it all
 * in the disable), the step is the same.  What has no partner is listed; a
 * step the test ran that left nothing in a trace has none.  The share
 * mapped huge is of the dirty-logged memory alone.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "cli/cli.h"
#include "mmuscope/error.h"
#include "mmuscope/history.h"
#include "mmuscope/store.h"
#include "mmuscope/util.h"
#include "report.h"

/* One step of a side, and its partner in the other. */
struct side_step {
	struct report_step s;
	int64_t vm_rank;		/* 0 for the first VM, ... */
	bool paired;
	ssize_t pair;			/* A's steps: B's index, or -1 */
};

/* One side: a capture, its phases and its steps, per VM. */
struct side {
	const char *db;
	long long capture;		/* 0: the last */
	struct msc_store *s;
	struct msc_capture_row cap;
	struct msc_history_summary sum;
	struct msc_phase *phases;
	size_t nr_phases;
	struct msc_vm *vms;
	size_t nr_vms;
	struct side_step *steps;
	size_t nr_steps, alloc_steps;
	unsigned int cycles;		/* the most of any VM */
	struct report_cells cells;	/* the dirty-logged memory's */
	bool no_memory;			/* a step could not be kept */
};

struct collect {
	struct side *d;
	int64_t rank;
};

static void collect_step(void *ctx, const struct report_step *s)
{
	struct side *d = ((struct collect *)ctx)->d;

	if (!s->seen)	/* nothing to compare */
		return;
	if (d->nr_steps == d->alloc_steps) {
		size_t n = d->alloc_steps ? 2 * d->alloc_steps : 32;
		struct side_step *p = realloc(d->steps, n * sizeof(*p));

		if (!p) {
			d->no_memory = true;
			return;
		}
		d->steps = p;
		d->alloc_steps = n;
	}
	d->steps[d->nr_steps++] = (struct side_step){
		.s = *s, .vm_rank = ((struct collect *)ctx)->rank, .pair = -1,
	};
}

/* The cells of @d's dirty-logged memory; one message on failure. */
static int load_cells(struct side *d)
{
	uint64_t first, last;
	int r;

	report_dirty_range(d->phases, d->nr_phases, &first, &last);
	r = report_cells_load(&d->cells, d->s, d->cap.id, first, last);
	if (r)
		cli_store_error(d->db, d->s, r);
	return r;
}

/* Open @d's database and load its capture; one message on failure. */
static int load(struct side *d)
{
	struct msc_capture_row *caps;
	struct msc_hview *v = NULL;
	size_t nr;
	int r = msc_store_open(d->db, MSC_STORE_READONLY, &d->s);

	if (r) {
		cli_error("%s: cannot open database: %s", d->db, cli_db_strerror(NULL, r));
		return r;
	}
	r = msc_store_get_captures(d->s, &caps, &nr);
	if (r) {
		cli_store_error(d->db, d->s, r);
		return r;
	}
	if (!nr || !cli_has_capture(d->db, caps, nr, d->capture)) {
		if (!nr)
			cli_error("%s: no captures in the database", d->db);
		free(caps);
		return -ENOENT;
	}
	for (size_t i = 0; i < nr; i++)
		if (caps[i].id == d->capture || (!d->capture && i == nr - 1))
			d->cap = caps[i];
	free(caps);
	r = msc_hview_open(d->s, d->cap.id, &v);
	if (!r)
		r = msc_hview_summary(v, &d->sum);
	if (!r)
		r = msc_hview_phases(v, &d->phases, &d->nr_phases);
	if (!r)
		r = msc_hview_vms(v, &d->vms, &d->nr_vms);
	msc_hview_close(v);
	if (r == -ENOENT)
		cli_error("%s: capture %lld was not analyzed (run 'mmuscope analyze %s')", d->db,
			  (long long)d->cap.id, d->db);
	else if (r)
		cli_store_error(d->db, d->s, r);
	if (r)
		return r;
	report_sort_phases(d->phases, d->nr_phases);
	for (size_t i = 0; i < d->nr_vms; i++) {
		struct collect c = { .d = d, .rank = (int64_t)i };

		d->cycles = max(d->cycles, report_cycles(d->phases, d->nr_phases, d->vms[i].id));
		report_steps(d->phases, d->nr_phases, d->vms[i].id, collect_step, &c);
	}
	r = load_cells(d);
	if (r)
		return r;
	if (d->no_memory) {
		cli_error("%s: out of memory", d->db);
		return -ENOMEM;
	}
	return 0;
}

static void side_free(struct side *d)
{
	free(d->phases);
	free(d->vms);
	free(d->steps);
	report_cells_free(&d->cells);
	msc_store_close(d->s);
}

/* A duration pair in one unit, the larger's: "45.7 s -> 1.4 s". */
static void times(FILE *f, uint64_t a, uint64_t b)
{
	uint64_t m = max(a, b);
	double div = m >= 1000000000 ? 1e9 : m >= 1000000 ? 1e6 : 1e3;
	const char *unit = m >= 1000000000 ? "s" : m >= 1000000 ? "ms" : "us";

	fprintf(f, "%.3f %s -> %.3f %s", (double)a / div, unit, (double)b / div, unit);
	if (a)
		fprintf(f, " (%.2fx)", (double)b / (double)a);
	fputc('\n', f);
}

/* A duration alone, in the unit times() would choose for it; "not reached" when < 0. */
static const char *one_time(int64_t ns, char *buf, size_t size)
{
	uint64_t n = (uint64_t)ns;

	if (ns < 0)
		snprintf(buf, size, "not reached");
	else
		snprintf(buf, size, "%.3f %s", (double)n / (n >= 1000000000 ? 1e9 : n >= 1000000 ? 1e6 : 1e3),
			 n >= 1000000000 ? "s" : n >= 1000000 ? "ms" : "us");
	return buf;
}

/* A count < 0 is one the capture could not count: only TLB flushes, when not traced. */
static void counts(FILE *f, const char *what, int64_t a, int64_t b)
{
	char x[32], y[32];

	if (!a && !b)
		return;
	fprintf(f, "  %s: %s -> %s\n", what,
		a < 0 ? "not traced" : cli_count((uint64_t)a, x, sizeof(x)),
		b < 0 ? "not traced" : cli_count((uint64_t)b, y, sizeof(y)));
}

static double huge_after(const struct side *d, const struct report_step *s)
{
	return report_step_huge_pct(&d->cells, s, true);
}

static const char *share(double pct, char *buf, size_t size)
{
	if (pct < 0)
		snprintf(buf, size, "nothing mapped");
	else
		snprintf(buf, size, "%.1f%%", pct);
	return buf;
}

/* How a disable made the memory huge again, from its SPTE changes. */
static const char *disable_method(const struct report_step *s)
{
	const uint64_t *c = s->count.by_class;

	if (c[MSC_CLASS_PROMOTE])
		return c[MSC_CLASS_ZAP_SUBTREE] ? "in-place recovery and zaps" : "in-place recovery";
	if (c[MSC_CLASS_ZAP_SUBTREE])
		return "zap-collapsible (refaulted huge later)";
	return "nothing to rebuild";
}

/* A disable's time to huge again: where the census shows its memory huge again; -1: not */
static int64_t to_huge(const struct side *d, const struct report_step *s)
{
	struct report_huge then, before;

	return report_huge_again(&d->cells, s, &then, &before) > 0 ? s->to_huge_ns : -1;
}

static void step_pair(FILE *f, const struct side *da, const struct report_step *a,
		      const struct side *db, const struct report_step *b)
{
	const struct msc_phase_counts *x = &a->count, *y = &b->count;
	double ha = huge_after(da, a), hb = huge_after(db, b);
	int64_t ta = to_huge(da, a), tb = to_huge(db, b);
	char sa[16], sb[16];

	fprintf(f, "%s time: ", a->what);
	times(f, a->end - a->start, b->end - b->start);
	counts(f, "2M pages split", x->pages_split_level[2], y->pages_split_level[2]);
	counts(f, "1G pages split", x->pages_split_level[3], y->pages_split_level[3]);
	counts(f, "TLB flushes", x->flushes, y->flushes);
	counts(f, "faults, slow path", (int64_t)x->faults_slow, (int64_t)y->faults_slow);
	counts(f, "faults, fixed by the fast path", (int64_t)x->faults_fast, (int64_t)y->faults_fast);
	counts(f, "faults, spurious", (int64_t)x->faults_spurious, (int64_t)y->faults_spurious);
	counts(f, "zaps", (int64_t)x->zaps, (int64_t)y->zaps);
	counts(f, "pages promoted", (int64_t)x->pages_promoted, (int64_t)y->pages_promoted);
	if (strcmp(a->what, "Disabling dirty logging")) {
		if (ha != hb)
			fprintf(f, "  mapped huge after: %s -> %s\n", share(ha, sa, sizeof(sa)),
				share(hb, sb, sizeof(sb)));
		return;
	}
	fprintf(f, "  mapped huge after: %s -> %s\n", share(ha, sa, sizeof(sa)),
		share(hb, sb, sizeof(sb)));
	fprintf(f, "  how: %s -> %s\n", disable_method(a), disable_method(b));
	if (ta >= 0 && tb >= 0) {
		fprintf(f, "  time to huge again: ");
		times(f, (uint64_t)ta, (uint64_t)tb);
	} else {
		char xa[32], xb[32];

		fprintf(f, "  time to huge again: %s -> %s\n", one_time(ta, xa, sizeof(xa)),
			one_time(tb, xb, sizeof(xb)));
	}
}

static void header(FILE *f, char which, const struct side *d)
{
	char n[32];

	fprintf(f, "%c: %s capture %" PRId64 ", kernel %s, %s, %s events, %zu VM%s\n", which,
		d->db, d->cap.id, d->cap.kernel_release[0] ? d->cap.kernel_release : "unknown",
		d->cap.vendor, cli_count(d->sum.events, n, sizeof(n)), d->nr_vms,
		d->nr_vms == 1 ? "" : "s");
}

static void unpaired(FILE *f, char which, const struct side *d, bool *any)
{
	for (size_t i = 0; i < d->nr_steps; i++) {
		if (d->steps[i].paired)
			continue;
		if (!*any)
			fprintf(f, "\nnot paired:\n");
		*any = true;
		fprintf(f, "  %s of ", d->steps[i].s.what);
		if (d->steps[i].s.cycle && d->cycles > 1)
			fprintf(f, "cycle %u, ", d->steps[i].s.cycle);
		fprintf(f, "VM %" PRId64 " in %c only\n", d->steps[i].vm_rank + 1, which);
	}
}

/* Each of A's steps with the first of B's of its name in the cycle and VM of its rank. */
static void pair(struct side *a, struct side *b)
{
	for (size_t i = 0; i < a->nr_steps; i++) {
		struct side_step *x = &a->steps[i];

		for (size_t k = 0; k < b->nr_steps && x->pair < 0; k++) {
			struct side_step *y = &b->steps[k];

			if (y->vm_rank != x->vm_rank || y->s.cycle != x->s.cycle || y->paired ||
			    strcmp(x->s.what, y->s.what))
				continue;
			x->paired = y->paired = true;
			x->pair = (ssize_t)k;
		}
	}
}

static void diff_text(FILE *f, const struct side *a, const struct side *b)
{
	size_t vms = min(a->nr_vms, b->nr_vms);
	bool cycles = a->cycles > 1 || b->cycles > 1, any = false;
	int64_t shown = -1;
	unsigned int cycle = 0;

	header(f, 'A', a);
	header(f, 'B', b);
	for (size_t i = 0; i < a->nr_steps; i++) {
		const struct report_step *s = &a->steps[i].s;

		if (a->steps[i].pair < 0)
			continue;
		if (a->steps[i].vm_rank != shown) {
			shown = a->steps[i].vm_rank;
			cycle = 0;
			if (vms > 1)
				fprintf(f, "\nVM %" PRId64 ":\n", shown + 1);
			else
				fputc('\n', f);
		}
		if (cycles && s->cycle != cycle)
			fprintf(f, "Cycle %u:\n", s->cycle);
		cycle = s->cycle;
		step_pair(f, a, s, b, &b->steps[a->steps[i].pair].s);
	}
	unpaired(f, 'A', a, &any);
	unpaired(f, 'B', b, &any);
	if (!a->nr_steps || !b->nr_steps)
		fprintf(f, "\n%s has no dirty-log step to compare\n", !a->nr_steps ? "A" : "B");
}

static void json_side(FILE *f, const struct side *d)
{
	fprintf(f, "{\"db\": ");
	report_json_str(f, d->db);
	fprintf(f, ", \"capture\": %" PRId64 ", \"kernel\": ", d->cap.id);
	report_json_str(f, d->cap.kernel_release);
	fprintf(f, ", \"events\": %" PRIu64 ", \"vms\": %zu}", d->sum.events, d->nr_vms);
}

static void json_step(FILE *f, const struct side *d, const struct report_step *s)
{
	const struct msc_phase_counts *c = &s->count;

	fprintf(f, "{\"ns\": %" PRIu64 ", \"pages_split_2m\": %" PRId64 ", \"pages_split_1g\": %"
		PRId64 ", \"tlb_flushes\": %" PRId64 ", \"faults_slow\": %" PRIu64 ", \"faults_fast\": %"
		PRIu64 ", \"faults_spurious\": %" PRIu64 ", \"zaps\": %" PRIu64 ", \"pages_promoted\": %"
		PRIu64 ", \"huge_after_pct\": %.1f, \"to_huge_ns\": %" PRId64 "}", s->end - s->start,
		c->pages_split_level[2], c->pages_split_level[3], c->flushes, c->faults_slow,
		c->faults_fast, c->faults_spurious, c->zaps, c->pages_promoted, huge_after(d, s),
		to_huge(d, s));
}

static void json_unpaired(FILE *f, const char *which, const struct side *d, bool *first)
{
	for (size_t i = 0; i < d->nr_steps; i++) {
		if (d->steps[i].paired)
			continue;
		fprintf(f, "%s\n  {\"in\": \"%s\", \"vm\": %" PRId64 ", \"cycle\": %u, \"step\": ",
			*first ? "" : ",", which, d->steps[i].vm_rank + 1, d->steps[i].s.cycle);
		report_json_str(f, d->steps[i].s.what);
		fprintf(f, "}");
		*first = false;
	}
}

/*
 * The same as JSON; -1 is "not known" (flushes not traced, split sizes of an
 * old analysis, huge share of nothing mapped, never huge again).
 */
static void diff_json(FILE *f, const struct side *a, const struct side *b)
{
	bool first = true;

	fprintf(f, "{\"a\": ");
	json_side(f, a);
	fprintf(f, ",\n \"b\": ");
	json_side(f, b);
	fprintf(f, ",\n \"steps\": [");
	for (size_t i = 0; i < a->nr_steps; i++) {
		if (a->steps[i].pair < 0)
			continue;
		fprintf(f, "%s\n  {\"vm\": %" PRId64 ", \"cycle\": %u, \"step\": ", first ? "" : ",",
			a->steps[i].vm_rank + 1, a->steps[i].s.cycle);
		report_json_str(f, a->steps[i].s.what);
		fprintf(f, ", \"a\": ");
		json_step(f, a, &a->steps[i].s);
		fprintf(f, ", \"b\": ");
		json_step(f, b, &b->steps[a->steps[i].pair].s);
		fprintf(f, "}");
		first = false;
	}
	fprintf(f, "],\n \"unpaired\": [");
	first = true;
	json_unpaired(f, "a", a, &first);
	json_unpaired(f, "b", b, &first);
	fprintf(f, "]}\n");
}

int cmd_diff(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "capture", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ 0 }
	};
	struct side sides[2] = { 0 }, *a = &sides[0], *b = &sides[1];
	long long ids[2] = { 0, 0 };
	int nr_ids = 0, c, r = 2;
	bool json = false;

	while ((c = getopt_long(argc, argv, "c:", longopts, NULL)) != -1) {
		if (c == 'j') {
			json = true;
		} else if (c != 'c') {
			goto out;
		} else if (nr_ids == 2) {
			cli_error("-c twice at most: A's capture, then B's");
			goto out;
		} else if (!cli_capture_id(optarg, &ids[nr_ids++])) {
			goto out;
		}
	}
	if (argc - optind == 1 && nr_ids == 2) {
		a->db = b->db = argv[optind];	/* two captures of one database */
	} else if (argc - optind == 2) {
		a->db = argv[optind];
		b->db = argv[optind + 1];
	} else {
		cli_error("need A.db and B.db, or one database and -c A -c B");
		goto out;
	}
	a->capture = ids[0];	/* 0: the last capture */
	b->capture = ids[1];
	r = 1;
	if (load(a) || load(b))
		goto out;
	pair(a, b);
	if (json)
		diff_json(stdout, a, b);
	else
		diff_text(stdout, a, b);
	r = 0;
out:
	side_free(a);
	side_free(b);
	return r;
}
