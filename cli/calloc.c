// SPDX-License-Identifier: GPL-2.0-only
/*
 * The program's calloc(): a small block from malloc(), cleared.
 *
 * glibc before 2.41 serves calloc() from its arenas only, never from the
 * per-thread cache that free() fills, so a loop that callocs one block and
 * frees it pays the arena both ways once the cache is full.  libtracecmd
 * callocs a record for every event it reads and import frees it: 380 of
 * the reader child's 1,660 instructions an event went to the pair, about
 * 200 go now (callgrind, BENCHMARKS.md): malloc() takes the block from the
 * cache that free() put it in.
 *
 * Only the program does this (the library leaves its host's allocator
 * alone); a block larger than the cache holds is the next calloc()'s (the
 * C library's, or a sanitizer's or valgrind's that replaced it), whose
 * fresh pages need no clearing.  Sanitizer builds keep theirs for every
 * block (ThreadSanitizer's runtime callocs for a thread before it may run
 * instrumented code).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)

#define CACHED_MAX 1024		/* glibc's thread cache: blocks to 1,032 bytes */

typedef void *calloc_fn(size_t, size_t);

static calloc_fn *next_calloc(void)
{
	static calloc_fn *next;
	calloc_fn *fn = __atomic_load_n(&next, __ATOMIC_ACQUIRE);

	/* a lookup racing another finds the same function */
	if (!fn) {
		fn = (calloc_fn *)dlsym(RTLD_NEXT, "calloc");
		__atomic_store_n(&next, fn, __ATOMIC_RELEASE);
	}
	return fn;
}

void *calloc(size_t nmemb, size_t size)
{
	calloc_fn *fn;
	size_t bytes;
	void *p;

	if (__builtin_mul_overflow(nmemb, size, &bytes)) {
		errno = ENOMEM;
		return NULL;
	}
	if (bytes <= CACHED_MAX) {
		p = malloc(bytes);
		/* not memset(): compilers fold malloc() and memset() into calloc() */
		if (p)
			explicit_bzero(p, bytes);
		return p;
	}
	fn = next_calloc();
	if (!fn) {
		errno = ENOMEM;
		return NULL;
	}
	return fn(nmemb, size);
}

#endif
