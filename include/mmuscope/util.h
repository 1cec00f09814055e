/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Small helpers shared by every part of mmuscope.  Nothing here allocates,
 * prints or touches global state.
 */
#ifndef MSC_UTIL_H
#define MSC_UTIL_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

/* Each argument evaluated once (a call in one is made once). */
#define min(a, b) ({ __typeof__(a) _min_a = (a); __typeof__(b) _min_b = (b);	\
		     _min_a < _min_b ? _min_a : _min_b; })
#define max(a, b) ({ __typeof__(a) _max_a = (a); __typeof__(b) _max_b = (b);	\
		     _max_a > _max_b ? _max_a : _max_b; })

#define BIT_ULL(n) (1ULL << (n))
/* bits @h down to @l, as the kernel's GENMASK_ULL() */
#define GENMASK_ULL(h, l) ((~0ULL >> (63 - (h))) & ~((1ULL << (l)) - 1))

#define __printf(a, b) __attribute__((format(printf, a, b)))
#define __unused __attribute__((unused))

/* The monotonic clock, for durations and timeouts (never the trace clock). */
static inline uint64_t msc_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static inline double msc_mono_s(void)
{
	return (double)msc_mono_ns() / 1e9;
}

/*
 * msc_grow - room in the array *@a of @nr elements of @size bytes (*@cap
 * allocated) for one more: doubled when full, 16 at first.  Returns 0 or
 * -ENOMEM (*@a unchanged).
 */
static inline int msc_grow(void **a, size_t nr, size_t *cap, size_t size)
{
	size_t n = *cap ? 2 * *cap : 16;
	void *more;

	if (nr < *cap)
		return 0;
	more = realloc(*a, n * size);
	if (!more)
		return -ENOMEM;
	*a = more;
	*cap = n;
	return 0;
}

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

#endif /* MSC_UTIL_H */
