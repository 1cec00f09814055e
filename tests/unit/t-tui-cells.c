// SPDX-License-Identifier: GPL-2.0-only
/*
 * The memory map's cell timelines (tui/cells.c): states by time, late rows,
 * many cells, and cells grouped k at a time.  The rows follow the life of
 * a 2M region in the k612-npt_tdp_32m capture: mapped 2M by a fault, split
 * by enabling dirty logging, write-protected at a harvest, zapped when
 * dirty logging is disabled, mapped 2M again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/cells.c"
#include "tui/format.c"
#include "test.h"

#define MS 1000000ULL

static const struct msc_cell_state life[] = {
	{ .ts = 47 * MS, .gfn = 0x40000, .kind = MSC_REGION_2M, .mapped = 512, .writable = 512 },
	{ .ts = 164 * MS, .gfn = 0x40000, .kind = MSC_REGION_4K, .mapped = 512, .writable = 512 },
	{ .ts = 165 * MS, .gfn = 0x40000, .kind = MSC_REGION_4K, .mapped = 512, .writable = 0 },
	{ .ts = 754 * MS, .gfn = 0x40000, .kind = MSC_REGION_UNMAPPED },
	{ .ts = 764 * MS, .gfn = 0x40000, .kind = MSC_REGION_2M, .mapped = 512, .writable = 512 },
};

static void t_timeline(void)
{
	struct tui_cells c;
	struct msc_region_cell rc;

	tui_cells_init(&c);
	check_int(tui_cells_add(&c, life, 5), ==, 0);
	check_int(c.nr, ==, 1);
	check_int(c.rows, ==, 5);
	tui_cells_at(&c, 0, 0, 0x40000, 10 * MS, &rc);
	check_int(rc.kind, ==, MSC_REGION_UNMAPPED);	/* before its first state */
	tui_cells_at(&c, 0, 0, 0x40000, 47 * MS, &rc);
	check_int(rc.kind, ==, MSC_REGION_2M);		/* from ts on */
	tui_cells_at(&c, 0, 0, 0x40000, 164 * MS - 1, &rc);
	check_int(rc.kind, ==, MSC_REGION_2M);
	tui_cells_at(&c, 0, 0, 0x401ff, 164 * MS, &rc);	/* any GFN of the cell */
	check_int(rc.kind, ==, MSC_REGION_4K);
	check_uint(rc.gfn, ==, 0x40000);
	check_int(rc.writable, ==, 512);
	tui_cells_at(&c, 0, 0, 0x40000, 500 * MS, &rc);
	check_int(rc.writable, ==, 0);
	tui_cells_at(&c, 0, 0, 0x40000, 760 * MS, &rc);
	check_int(rc.kind, ==, MSC_REGION_UNMAPPED);
	tui_cells_at(&c, 0, 0, 0x40000, UINT64_MAX, &rc);
	check_int(rc.kind, ==, MSC_REGION_2M);
	tui_cells_at(&c, 0, 1, 0x40000, 500 * MS, &rc);	/* another address space */
	check_int(rc.kind, ==, MSC_REGION_UNMAPPED);
	tui_cells_at(&c, 0, 0, 0x40200, 500 * MS, &rc);	/* the next cell: never seen */
	check_int(rc.kind, ==, MSC_REGION_UNMAPPED);
	tui_cells_free(&c);
	check_int(c.nr, ==, 0);
}

static void t_late_rows(void)
{
	struct msc_cell_state rows[5];
	struct tui_cells c;
	struct msc_region_cell rc;

	/* rows of one cell arriving out of order still answer by time */
	memcpy(rows, life, sizeof(rows));
	rows[1] = life[3];
	rows[3] = life[1];
	tui_cells_init(&c);
	check_int(tui_cells_add(&c, rows, 3), ==, 0);
	check_int(tui_cells_add(&c, rows + 3, 2), ==, 0);
	for (size_t i = 0; i < 5; i++) {
		tui_cells_at(&c, 0, 0, 0x40000, life[i].ts, &rc);
		check_int(rc.kind, ==, life[i].kind);
		check_int(rc.writable, ==, life[i].writable);
	}
	tui_cells_free(&c);
}

static void t_many(void)
{
	/* a 96 GiB guest: 49,152 cells, the hash grows many times */
	const uint64_t n = 49152;
	struct msc_cell_state *rows = calloc(n * 2, sizeof(*rows));
	struct tui_cells c;
	struct msc_region_cell rc;
	uint64_t bad = 0;

	if (!check(rows != NULL))
		return;
	for (uint64_t i = 0; i < n; i++) {
		rows[i] = (struct msc_cell_state){ .ts = 1, .gfn = 0x40000 + i * 512,
			.kind = MSC_REGION_1G, .mapped = 512, .writable = 512 };
		rows[n + i] = (struct msc_cell_state){ .ts = 2 + i, .gfn = 0x40000 + i * 512,
			.kind = MSC_REGION_4K, .mapped = (uint16_t)(i % 513), .writable = 0 };
	}
	tui_cells_init(&c);
	check_int(tui_cells_add(&c, rows, 2 * n), ==, 0);
	check_uint(c.nr, ==, n);
	check(c.cap >= 2 * c.nr);
	for (uint64_t i = 0; i < n; i++) {
		tui_cells_at(&c, 0, 0, 0x40000 + i * 512, 2 + n / 2, &rc);
		if (rc.kind != (i <= n / 2 ? MSC_REGION_4K : MSC_REGION_1G) ||
		    (i <= n / 2 && rc.mapped != i % 513))
			bad++;
	}
	check_uint(bad, ==, 0);
	tui_cells_free(&c);
	free(rows);
}

static void t_region(void)
{
	/* region 0x40000-0x41fff (16 cells) in cells of 4: the first one split */
	struct msc_region g = { .id = 2, .gfn_first = 0x40000, .gfn_end = 0x42000 };
	struct msc_region odd = { .id = 3, .gfn_first = 0x0, .gfn_end = 0x201 };	/* 2 cells */
	struct msc_cell_state rows[16];
	struct fmt_cell out[4];
	struct tui_cells c;

	for (int i = 0; i < 16; i++)
		rows[i] = (struct msc_cell_state){ .ts = 1, .gfn = 0x40000 + (uint64_t)i * 512,
			.kind = i ? MSC_REGION_2M : MSC_REGION_4K, .mapped = 512,
			.writable = i ? 512 : 0 };
	tui_cells_init(&c);
	tui_cells_add(&c, rows, 16);
	check_uint(tui_region_cells(&g, 1), ==, 16);
	check_uint(tui_region_cells(&g, 4), ==, 4);
	check_uint(tui_region_cells(&g, 512), ==, 1);
	check_uint(tui_region_cells(&odd, 1), ==, 2);
	tui_cells_region(&c, &g, 4, 5, out);
	check_int(out[0].cells, ==, 4);
	check_int(out[0].nsplit, ==, 1);
	check_int(out[0].n2m, ==, 3);
	check_int(fmt_cell_char(&out[0]), ==, 'M');
	check_int(fmt_cell_char(&out[3]), ==, 'M');
	tui_cells_region(&c, &g, 4, 0, out);	/* before anything was mapped */
	check_int(fmt_cell_char(&out[0]), ==, '.');
	tui_cells_free(&c);
}

int main(void)
{
	TEST(t_timeline(), "a cell's states by time");
	TEST(t_late_rows(), "rows written late go in time order");
	TEST(t_many(), "49,152 cells (a 96 GiB guest)");
	TEST(t_region(), "regions as cells of k 2M regions");
	return test_done();
}
