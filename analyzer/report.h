/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The views of `mmuscope report` that live in files of their own.
 */
#ifndef MSC_ANALYZER_REPORT_H
#define MSC_ANALYZER_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct msc_phase;
struct msc_vm;

void report_selftest(FILE *f, const struct msc_vm *vms, size_t nr_vms,
		     const struct msc_phase *ph, size_t nr);

#endif /* MSC_ANALYZER_REPORT_H */
