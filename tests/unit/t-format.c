// SPDX-License-Identifier: GPL-2.0-only
/*
 * The TUI's pure text rendering (tui/format.c) at fixed widths.  Expected
 * rows come from the real k612-npt_tdp_32m capture (its enable phase,
 * GFN 0x40000's intervals), as the golden screens show them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tui/format.c"
#include "test.h"

#define MS 1000000ULL

static void t_numbers(void)
{
	char b[64];

	fmt_count(b, sizeof(b), 0);
	check_str(b, "0");
	fmt_count(b, sizeof(b), 1234567);
	check_str(b, "1,234,567");
	fmt_count(b, 6, 1234567);	/* cut, still terminated */
	check_str(b, "1,23");
	fmt_rate(b, sizeof(b), 0.01);
	check_str(b, "0");
	fmt_rate(b, sizeof(b), 19.64);
	check_str(b, "19.6");
	fmt_rate(b, sizeof(b), 1234.4);
	check_str(b, "1234");
	fmt_rate(b, sizeof(b), 40333);
	check_str(b, "40.3K");
	fmt_rate(b, sizeof(b), 1.34e6);
	check_str(b, "1.34M");
	fmt_time(b, sizeof(b), 163941000);
	check_str(b, "163.941 ms");
	fmt_time(b, sizeof(b), 12345000000ULL);
	check_str(b, "12.345 s");
	fmt_span(b, sizeof(b), 850);
	check_str(b, "850 ns");
	fmt_span(b, sizeof(b), 12400);
	check_str(b, "12.4 us");
	fmt_span(b, sizeof(b), 7939000);
	check_str(b, "7.939 ms");
	fmt_span(b, sizeof(b), 45740000000ULL);
	check_str(b, "45.74 s");
	fmt_bytes_4k(b, sizeof(b), 1);
	check_str(b, "4 KiB");
	fmt_bytes_4k(b, sizeof(b), 8192);
	check_str(b, "32.0 MiB");
	fmt_bytes_4k(b, sizeof(b), 96ULL * 262144);
	check_str(b, "96.0 GiB");
	fmt_bytes_4k(b, sizeof(b), 268435456ULL);
	check_str(b, "1.0 TiB");
}

static void t_fit(void)
{
	char b[16];

	check_str(fmt_fit(b, 6, "abc"), "abc   ");
	check_str(fmt_fit(b, 3, "abcdef"), "abc");
	check_str(fmt_fit(b, 0, "abc"), "");
}

static void t_census(void)
{
	struct msc_census c = { .pages = { 0, 8193, 0, 0 } };
	char b[128];

	check_str(fmt_census(b, 48, &c), "4K 8,193  2M 0  1G 0  = 32.0 MiB, 0.0% huge     ");
	c = (struct msc_census){ .pages = { 0, 1, 16, 0 }, .flags = MSC_CENSUS_AFTER_LOST };
	check_str(fmt_census(b, 70, &c),
		  "4K 1  2M 16  1G 0  = 32.0 MiB, 100.0% huge (after LOST events)        ");
	c = (struct msc_census){ .pages = { 0, 3, 0, 0 }, .flags = MSC_CENSUS_APPROX };
	check(strstr(fmt_census(b, 100, &c), "(approximate: shadow MMU)") != NULL);
	c = (struct msc_census){ .pages = { 0, 0, 0, 0 } };
	check_int((int)(fmt_huge_share(&c) * 10), ==, 0);
}

static struct fmt_cell cell_of(unsigned int kind, unsigned int mapped, unsigned int writable)
{
	struct msc_region_cell rc = { .kind = (uint8_t)kind, .mapped = (uint16_t)mapped,
				      .writable = (uint16_t)writable };
	struct fmt_cell c = { 0 };

	fmt_cell_add(&c, &rc);
	return c;
}

static void t_cells(void)
{
	struct fmt_cell c;
	struct msc_region_cell rc;
	char b[128];

	c = cell_of(MSC_REGION_UNMAPPED, 0, 0);
	check_int(fmt_cell_char(&c), ==, '.');
	c = cell_of(MSC_REGION_2M, 512, 512);
	check_int(fmt_cell_char(&c), ==, 'M');
	c = cell_of(MSC_REGION_2M, 512, 0);
	check_int(fmt_cell_char(&c), ==, 'm');
	c = cell_of(MSC_REGION_1G, 512, 512);
	check_int(fmt_cell_char(&c), ==, 'G');
	c = cell_of(MSC_REGION_1G, 512, 0);
	check_int(fmt_cell_char(&c), ==, 'g');
	c = cell_of(MSC_REGION_4K, 512, 512);
	check_int(fmt_cell_char(&c), ==, '#');
	c = cell_of(MSC_REGION_4K, 512, 100);	/* most of it write-protected */
	check_int(fmt_cell_char(&c), ==, '%');
	check(fmt_cell_protected(&c));
	c = cell_of(MSC_REGION_4K, 256, 256);
	check_int(fmt_cell_char(&c), ==, '5');
	c = cell_of(MSC_REGION_4K, 1, 1);	/* a table with one page: under a tenth */
	check_int(fmt_cell_char(&c), ==, '0');
	c = cell_of(MSC_REGION_4K, 0, 0);	/* a table, everything zapped */
	check_int(fmt_cell_class(&c), ==, FMT_CELL_4K);
	check_str(fmt_cell_text(b, 40, &c), "split to 4K: 0/512 pages mapped         ");

	/* four 2M regions in one cell: three 2M leaves and one split region */
	c = cell_of(MSC_REGION_2M, 512, 512);
	rc = (struct msc_region_cell){ .kind = MSC_REGION_2M, .mapped = 512, .writable = 512 };
	fmt_cell_add(&c, &rc);
	fmt_cell_add(&c, &rc);
	rc = (struct msc_region_cell){ .kind = MSC_REGION_4K, .mapped = 512, .writable = 0 };
	fmt_cell_add(&c, &rc);
	check_int(c.cells, ==, 4);
	check_int(fmt_cell_char(&c), ==, 'M');	/* 4K is a quarter of what it maps */
	check_str(fmt_cell_text(b, 100, &c),
		  "4 x 2M: 1G 0, 2M 3, split 1 (512 4K pages), unmapped 0; writable 1,536 of 2,048"
		  "                     ");
	/* two split of two: 4K, half the memory */
	c = cell_of(MSC_REGION_4K, 512, 512);
	rc = (struct msc_region_cell){ .kind = MSC_REGION_UNMAPPED };
	fmt_cell_add(&c, &rc);
	check_int(fmt_cell_char(&c), ==, '5');
}

static void t_stack(void)
{
	struct msc_census split = { .pages = { 0, 8193, 0, 0 } };
	struct msc_census huge = { .pages = { 0, 1, 16, 0 } };
	struct msc_census half = { .pages = { 0, 0, 8, 0 } };
	struct msc_census g = { .pages = { 0, 0, 512, 1 } };	/* half 1G, half 2M */
	struct msc_census none = { 0 };
	char col[11] = { 0 };

	fmt_stack_column(col, 10, &split, 8193);
	check_str(col, "##########");
	fmt_stack_column(col, 10, &huge, 8193);
	check_str(col, "MMMMMMMMMM");	/* one 4K page of 8193 rounds away */
	fmt_stack_column(col, 10, &half, 8192);
	check_str(col, "MMMMM     ");
	fmt_stack_column(col, 10, &g, 2 * 262144);
	check_str(col, "GGGGGMMMMM");
	fmt_stack_column(col, 10, &none, 8192);
	check_str(col, "          ");
	fmt_stack_column(col, 10, &(struct msc_census){ .pages = { 0, 1 } }, 1000000);
	check_str(col, "#         ");	/* anything mapped shows */
}

static void t_axis(void)
{
	/* the k612-npt_tdp_32m capture on an 80-column screen */
	struct fmt_axis a = { .t0 = 1000, .t1 = 1000 + 814673000ULL, .origin = 1000, .cols = 71 };
	char b[128];

	check_uint(fmt_axis_time(&a, 0), ==, a.t0);
	check_uint(fmt_axis_time(&a, 70), ==, a.t1);
	for (unsigned int i = 0; i < a.cols; i++)
		if (!check_int(fmt_axis_col(&a, fmt_axis_time(&a, i)), ==, i))
			break;
	check_int(fmt_axis_col(&a, a.t0 - 1), ==, -1);
	check_int(fmt_axis_col(&a, a.t1 + 1), ==, -1);
	check_str(fmt_axis_labels(b, &a),
		  "|0ms             |200ms           |400ms            |600ms             ");
	check_uint(fmt_tick_step(814673000, 5), ==, 200 * MS);
	check_uint(fmt_tick_step(10, 100), ==, 1);
	fmt_tick_label(b, sizeof(b), 400 * MS, 200 * MS, 800 * MS);
	check_str(b, "400ms");
	fmt_tick_label(b, sizeof(b), 1500 * MS, 500 * MS, 5000 * MS);
	check_str(b, "1.5s");
	fmt_tick_label(b, sizeof(b), 3000 * MS, 1000 * MS, 3000 * MS);
	check_str(b, "3s");
	fmt_tick_label(b, sizeof(b), 2000, 1000, 5000);
	check_str(b, "2us");
	fmt_tick_label(b, sizeof(b), 2500, 500, 5000);
	check_str(b, "2500ns");
}

static struct msc_phase phase(unsigned int kind, unsigned int source, const char *name,
			      uint64_t start_ms, uint64_t end_ms)
{
	struct msc_phase p = { .kind = (uint8_t)kind, .source = (uint8_t)source,
			       .start_ts = start_ms * MS, .end_ts = end_ms * MS, .count.flushes = -1 };

	snprintf(p.name, sizeof(p.name), "%s", name);
	return p;
}

static void t_phase_strip(void)
{
	struct msc_phase ph[] = {
		phase(MSC_PHASE_WORKLOAD, MSC_PHASE_SRC_MARKER, "populate", 10, 40),
		phase(MSC_PHASE_ENABLE, MSC_PHASE_SRC_KPROBE, "enable", 40, 50),
		phase(MSC_PHASE_HARVEST, MSC_PHASE_SRC_INFERRED, "harvest", 70, 71),
		phase(MSC_PHASE_WORKLOAD, MSC_PHASE_SRC_MARKER, "x", 200, 300),	/* outside */
	};
	struct fmt_axis a = { .t0 = 0, .t1 = 99 * MS, .cols = 100 };
	char b[128];

	fmt_phase_strip(b, &a, ph, 4, FMT_STRIP_DIRTY);
	check_int(b[39], ==, ' ');
	check_int(b[40], ==, 'E');
	check_int(b[50], ==, 'E');
	check_int(b[51], ==, ' ');
	check_int(b[70], ==, 'h');	/* inferred: lower case */
	check_int(b[71], ==, 'h');
	fmt_phase_strip(b, &a, ph, 4, FMT_STRIP_WORKLOAD);
	check(!strncmp(b + 10, "|populate-------", 16));
	check_int(b[9], ==, ' ');
	check_int(b[41], ==, ' ');
	check_int(fmt_phase_letter(&ph[0]), ==, 'W');
}

static void t_phase_row(void)
{
	/* phase 4 of the k612-npt_tdp_32m capture, as `mmuscope report` shows it */
	struct msc_phase p = phase(MSC_PHASE_ENABLE, MSC_PHASE_SRC_KPROBE, "enable", 0, 0);
	char b[256];

	p.id = 4;
	p.start_ts = 163941000 + 5000;
	p.end_ts = p.start_ts + 7939000;
	p.count.pages_split = 16;
	p.count.flushes = 1;
	p.after.pages[1] = 8193;
	check_str(fmt_phase_header(b, 80),
		  "  # kind     src  name                    start       took  split  faults   zaps");
	check_str(fmt_phase_row(b, 80, &p, 5000, NULL),
		  "  4 enable   kprb enable             163.941 ms   7.939 ms     16       0      0");
	check_str(fmt_phase_row(b, 120, &p, 5000, NULL),
		  "  4 enable   kprb enable                             163.941 ms   7.939 ms     16"
		  "       0      0     1      0       0.0%");
	p.source = MSC_PHASE_SRC_INFERRED;
	p.kind = MSC_PHASE_REPROMOTE;
	check(!strncmp(fmt_phase_row(b, 80, &p, 5000, NULL), "  4 re-promo INF ", 17));
	check_int(strlen(fmt_phase_row(b, 20, &p, 5000, NULL)), ==, 20);	/* narrow: still exact */
}

static void t_interval_row(void)
{
	/* GFN 0x40000 of the k612-npt_tdp_32m capture: a split child, then write-protected */
	struct msc_interval iv = {
		.gfn = 0x40000, .level = 1, .leaf = true, .writable = true, .dirty = 1,
		.start_cause = MSC_CAUSE_EAGER_SPLIT, .end_cause = MSC_CAUSE_WRITE_PROTECT,
		.flags = MSC_IV_SYNTH, .start_ts = 164480000, .end_ts = 165410000, .pfn = 0xb000,
	};
	char b[256];

	check_str(fmt_interval_header(b, 78),
		  "     start        end entry         pfn W D fl  started by     ended by       ");
	check_str(fmt_interval_row(b, 78, &iv, 0, 0),
		  "164.480 ms 165.410 ms 4K         0xb000 W D s   eager-split    write-protect  ");
	iv.end_ts = MSC_TS_OPEN;
	iv.dirty = -1;
	iv.level = 2;
	iv.leaf = false;
	iv.flags = MSC_IV_AFTER_LOST | MSC_IV_RESYNC;
	check_str(fmt_interval_row(b, 78, &iv, 0, 0),
		  "164.480 ms          - 2M pt      0xb000 W ? lr  eager-split    (present)      ");
	iv.level = 4;
	check(strstr(fmt_interval_row(b, 78, &iv, 0, 0), " L4 pt ") != NULL);
}

static void t_rate_row(void)
{
	char b[64];

	check_str(fmt_rate_row(b, 40, "splits", 16, 814673000),
		  "  splits                 16    19.6/s   ");
	check_str(fmt_rate_row(b, 30, "splits", 16, 814673000),
		  "  splits                 16   ");
	check_str(fmt_rate_row(b, 40, "TLB flushes", -1, 814673000),
		  "  TLB flushes    not traced             ");
	check_str(fmt_rate_row(b, 40, "zaps", 0, 0), "  zaps                    0       0/s   ");
}

static void t_parse_gfn(void)
{
	uint64_t g = 0;

	check_int(fmt_parse_gfn("40000", &g), ==, 0);
	check_uint(g, ==, 0x40000);
	check_int(fmt_parse_gfn(" 0x1fffff ", &g), ==, 0);
	check_uint(g, ==, 0x1fffff);
	check_int(fmt_parse_gfn("", &g), ==, -EINVAL);
	check_int(fmt_parse_gfn("zz", &g), ==, -EINVAL);
	check_int(fmt_parse_gfn("12 34", &g), ==, -EINVAL);
	check_int(fmt_parse_gfn("-1", &g), ==, -EINVAL);
}

int main(void)
{
	TEST(t_numbers(), "counts, rates, times, sizes");
	TEST(t_fit(), "fit a text to a width");
	TEST(t_census(), "census line, flags spelled out");
	TEST(t_cells(), "memory-map cell characters and text");
	TEST(t_stack(), "stacked coverage columns");
	TEST(t_axis(), "time axis: columns, labels, ticks");
	TEST(t_phase_strip(), "phase strips along the axis");
	TEST(t_phase_row(), "phase table rows at 80 and 120 columns");
	TEST(t_interval_row(), "GFN inspector rows");
	TEST(t_rate_row(), "kvm_stat-style rate rows");
	TEST(t_parse_gfn(), "GFNs as typed");
	return test_done();
}
