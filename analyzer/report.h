/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The views of `mmuscope report` that live in files of their own.
 */
#ifndef MSC_ANALYZER_REPORT_H
#define MSC_ANALYZER_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct msc_hview;
struct msc_phase;

int report_selftest(FILE *f, struct msc_hview *v, const struct msc_phase *ph, size_t nr,
		    int64_t first_seq);

#endif /* MSC_ANALYZER_REPORT_H */
