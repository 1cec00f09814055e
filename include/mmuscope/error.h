/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Error codes.  Every lib/ function that can fail returns a negative int:
 * -1 .. -4095 are -errno; MSC_ERR_BASE < err < MSC_ERR_END are mmuscope's own
 * domain errors listed below (the libtraceevent TEP_ERRORS shape).  msc_strerror() turns either range into a message;
 * only programs (main.c files) print it.
 */
#ifndef MSC_ERROR_H
#define MSC_ERROR_H

#define MSC_ERRORS(X)                                                          \
	X(NOT_TRACE, "not a trace-cmd trace.dat file")                         \
	X(TRUNC, "file is truncated")                                          \
	X(CORRUPT, "corrupt trace data")                                       \
	X(FORMAT, "event format not understood")                               \
	X(NO_KVM, "no kvm or kvmmmu events in the trace")                      \
	X(SCHEMA, "database schema is newer than this program")                \
	X(NOT_MSC, "not an mmuscope database")                                 \
	X(SQL, "database error")                                               \
	X(EXISTS, "database already exists (use --force or --append)")         \
	X(LOCKED, "database is locked by another process")                     \
	X(FULL, "disk full")                                                   \
	X(INCOMPLETE, "database holds an incomplete capture")                  \
	X(PARSE, "malformed text event")                                       \
	X(LAYOUT, "SPTE values fit no known layout")                           \
	X(INTERRUPTED, "interrupted")                                          \
	X(TMPCOPY, "cannot write its uncompressed copy in $TMPDIR (default /var/tmp)") \
	X(NO_TRACEFS, "no tracefs")                                            \
	X(NO_KVMMMU, "this kernel has no kvmmmu events")                       \
	X(INSTANCE, "the tracefs instance exists already")                     \
	X(SCHEMA_OLD, "database schema is older than this program (`mmuscope analyze` upgrades it)") \
	X(HEADER, "bad trace.dat header")                                      \
	X(NOT_REG, "not a regular file")                                       \
	X(DAMAGED, "database is damaged")                                      \
	X(FOREIGN, "database holds an object mmuscope does not make")          \
	X(NO_INSTANCE, "no such trace-cmd instance buffer")                    \
	X(READER, "the trace reader failed")

#define MSC_ERR_BASE (-10000)

enum msc_error {
	__MSC_ERR_START = MSC_ERR_BASE,
#define X(name, msg) MSC_ERR_##name,
	MSC_ERRORS(X)
#undef X
	MSC_ERR_END,
};

const char *msc_strerror(int err);

#endif /* MSC_ERROR_H */
