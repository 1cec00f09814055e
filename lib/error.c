// SPDX-License-Identifier: GPL-2.0-only
/*
 * msc_strerror(): one message for either error range of error.h.
 */
#include "mmuscope/error.h"

#include <string.h>

#include "mmuscope/util.h"

static const char *const messages[] = {
#define X(name, msg) msg,
	MSC_ERRORS(X)
#undef X
};

/**
 * msc_strerror - message for a negative error code
 * @err: -errno or a MSC_ERR_* value
 *
 * Returns a static string; it must not be freed.
 */
const char *msc_strerror(int err)
{
	if (err > MSC_ERR_BASE && err < MSC_ERR_END)
		return messages[err - MSC_ERR_BASE - 1];
	if (err < 0 && err > -4096)
		return strerror(-err);
	return "unknown error";
}
