/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "marrow_common.h"

/* Thread-local so that concurrent Java threads never read each other's
 * messages; sized for one descriptive line. */
static __thread char last_error[512];

int marrow_fail(int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	return status;
}

void marrow_clear_error(void)
{
	last_error[0] = '\0';
}

MARROW_API int marrow_abi_version(void)
{
	return MARROW_ABI_VERSION;
}

MARROW_API const char *marrow_last_error(void)
{
	return last_error;
}

MARROW_API int marrow_abi_query(const char *key, int64_t *out)
{
	if (key == NULL || out == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_abi_query: NULL argument");
	for (const struct marrow_abi_entry *e = marrow_abi_table; e->key != NULL; e++) {
		if (strcmp(e->key, key) == 0) {
			*out = e->value;
			return MARROW_OK;
		}
	}
	return marrow_fail(MARROW_ENOENT, "marrow_abi_query: unknown key '%s'", key);
}

MARROW_API const char *marrow_status_name(int status)
{
	switch (status) {
	case MARROW_OK: return "OK";
	case MARROW_EPERM: return "EPERM";
	case MARROW_ENOENT: return "ENOENT";
	case MARROW_EIO: return "EIO";
	case MARROW_ENOMEM: return "ENOMEM";
	case MARROW_EBUSY: return "EBUSY";
	case MARROW_ENODEV: return "ENODEV";
	case MARROW_EINVAL: return "EINVAL";
	case MARROW_ENOSPC: return "ENOSPC";
	case MARROW_ERANGE: return "ERANGE";
	case MARROW_ENOSYS: return "ENOSYS";
	case MARROW_EPROTO: return "EPROTO";
	case MARROW_ETIMEDOUT: return "ETIMEDOUT";
	case MARROW_ECONNRESET: return "ECONNRESET";
	default: return "UNKNOWN";
	}
}
