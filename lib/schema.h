/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Private to lib/store*.c: the schema migrations compiled in from
 * schema/NNN-*.sql (see schema/embed.sh).  Step N brings a database from
 * user_version N-1 to N; steps are forward-only and never edited once
 * released.
 */
#ifndef MSC_SCHEMA_H
#define MSC_SCHEMA_H

struct msc_schema_step {
	unsigned int version;
	const char *name;
	const char *sql;
};

extern const struct msc_schema_step msc_schema_steps[];
extern const unsigned int msc_schema_nr_steps;

#endif /* MSC_SCHEMA_H */
