// SPDX-License-Identifier: GPL-2.0-only
/*
 * Anomalies: counted always, written as rows up to a limit per kind so that
 * a trace full of one problem (say, resyncs after a big gap) still gives a
 * small table; the summary keeps the full counts.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "local.h"

#define MAX_ROWS_PER_KIND 1000

/**
 * hanomaly_va - count an anomaly at the event being fed, and keep a row of it
 */
int hanomaly_va(struct msc_history *h, enum msc_anomaly_kind kind, unsigned int as_id,
		uint64_t gfn, unsigned int level, uint64_t old_spte, uint64_t new_spte,
		const char *fmt, va_list ap)
{
	struct msc_anomaly a = {
		.ts = h->m.ts, .seq = h->cur_seq, .kind = (uint8_t)kind,
		.as_id = (uint8_t)as_id, .level = (uint8_t)level, .gfn = gfn,
		.old_spte = old_spte, .new_spte = new_spte, .vm = h->m.vm_id,
	};

	h->sum.anomalies++;
	if (h->m.loading || h->anomalies_by_kind[kind]++ >= MAX_ROWS_PER_KIND)
		return 0;
	vsnprintf(a.detail, sizeof(a.detail), fmt, ap);
	return hstore_add_anomaly(h->hs, h->capture_id, &a);
}

int hanomaly(struct msc_history *h, enum msc_anomaly_kind kind, unsigned int as_id,
	     uint64_t gfn, unsigned int level, uint64_t old_spte, uint64_t new_spte,
	     const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = hanomaly_va(h, kind, as_id, gfn, level, old_spte, new_spte, fmt, ap);
	va_end(ap);
	return r;
}
