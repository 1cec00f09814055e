/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit-test harness (the shape of git's t/unit-tests/test-lib.h).
 *
 *	static void t_round_trip(void) { check_int(parse(x), ==, 0); ... }
 *	int main(void) { TEST(t_round_trip(), "format/parse round trip"); return test_done(); }
 *
 * Each TEST() prints "ok N - desc" or "not ok N - desc"; a failed check
 * prints "# file:line: ..." first.  tests/run-all.sh counts those lines.
 */
#ifndef MSC_TEST_H
#define MSC_TEST_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

void test_begin(const char *desc);
bool test_end(void);
int test_done(void);
bool test_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
const char *test_data_dir(void);

#define TEST(call, desc) (test_begin(desc), (call), test_end())

#define check(x) ((x) ? true : test_fail(__FILE__, __LINE__, "check(%s) failed", #x))

#define check_int(a, op, b)                                                    \
	({                                                                     \
		long long a_ = (long long)(a), b_ = (long long)(b);            \
		(a_ op b_) ? true : test_fail(__FILE__, __LINE__,              \
			"check_int(%s %s %s): %lld vs %lld", #a, #op, #b, a_, b_); \
	})

#define check_uint(a, op, b)                                                   \
	({                                                                     \
		unsigned long long a_ = (unsigned long long)(a),               \
				   b_ = (unsigned long long)(b);               \
		(a_ op b_) ? true : test_fail(__FILE__, __LINE__,              \
			"check_uint(%s %s %s): %#llx vs %#llx", #a, #op, #b, a_, b_); \
	})

#define check_str(a, b)                                                        \
	({                                                                     \
		const char *a_ = (a), *b_ = (b);                               \
		(a_ && b_ && !strcmp(a_, b_)) ? true : test_fail(__FILE__, __LINE__, \
			"check_str(%s, %s): \"%s\" vs \"%s\"", #a, #b,         \
			a_ ? a_ : "(null)", b_ ? b_ : "(null)");               \
	})

#endif /* MSC_TEST_H */
