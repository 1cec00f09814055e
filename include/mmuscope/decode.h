/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The decoder: one tep_record in, one struct msc_event out.
 *
 * Fields are found by name in the capture's own format files the first time
 * an event id is seen; each record then costs one load per field at the
 * offset and size libtraceevent parsed (tep_read_number_field() for a file
 * of the other byte order).  Events mmuscope does not store are counted by name.  Nothing
 * here keeps a pointer to a record after msc_decoder_decode() returns.
 *
 * Only lib/decode.c and lib/source*.c see libtraceevent.
 */
#ifndef MSC_DECODE_H
#define MSC_DECODE_H

#include <stddef.h>
#include <stdint.h>

struct msc_event;
struct tep_event;
struct tep_format_field;
struct tep_handle;
struct tep_record;
struct msc_decoder;

/* How many events of one format were seen. */
struct msc_event_stat {
	const char *system;	/* borrowed from the tep handle */
	const char *name;
	uint64_t count;
	int type;		/* enum msc_event_type, or -1 when only counted */
};

int msc_decoder_new(struct tep_handle *tep, struct msc_decoder **ret);
void msc_decoder_free(struct msc_decoder *d);

int msc_decoder_decode(struct msc_decoder *d, const struct tep_record *rec,
		       struct msc_event *ret_ev);

int msc_decoder_get_stat(const struct msc_decoder *d, size_t i, struct msc_event_stat *ret);
const char *msc_decoder_next_warning(struct msc_decoder *d);
const char *msc_decoder_error(const struct msc_decoder *d);
struct tep_format_field *msc_decoder_find_field(struct tep_event *event, const char *names);

#endif /* MSC_DECODE_H */
