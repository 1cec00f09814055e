/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Small helpers shared by every part of mmuscope.  Nothing here allocates,
 * prints or touches global state.
 */
#ifndef MSC_UTIL_H
#define MSC_UTIL_H

#include <stddef.h>
#include <stdint.h>
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

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

#endif /* MSC_UTIL_H */
