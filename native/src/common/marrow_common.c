/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "marrow_common.h"
#include "marrow_dump.h"

/* Thread-local so that concurrent Java threads never read each other's
 * messages; sized for one descriptive line plus a watchdog dump
 * (marrow_dump.h). */
static __thread char last_error[2048];

int marrow_fail(int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	return status;
}

int marrow_fail_append(int status, const char *fmt, ...)
{
	size_t len = strlen(last_error);
	va_list ap;

	if (len + 1 >= sizeof(last_error))
		return status;
	va_start(ap, fmt);
	vsnprintf(last_error + len, sizeof(last_error) - len, fmt, ap);
	va_end(ap);
	return status;
}

void marrow_clear_error(void)
{
	last_error[0] = '\0';
}

int marrow_abi_version(void)
{
	return MARROW_ABI_VERSION;
}

const char *marrow_last_error(void)
{
	return last_error;
}

/* The exported name: MARROW_LIB_NAME is set per shared library in
 * native/CMakeLists.txt (the static test archives have none). */
#ifdef MARROW_LIB_NAME
#define MARROW_CAT3_(a, b, c) a##b##c
#define MARROW_CAT3(a, b, c) MARROW_CAT3_(a, b, c)
MARROW_API const char *MARROW_CAT3(marrow_, MARROW_LIB_NAME, _last_error)(void)
{
	return last_error;
}
#endif

/* The status codes of marrow_abi.h: their names (marrow_status_name) and
 * their values (marrow_abi_query "const:MARROW_<name>") come from this one list. */
#define MARROW_STATUS_LIST(X) \
	X(OK) X(EPERM) X(ENOENT) X(EIO) X(ENOMEM) X(EBUSY) X(ENODEV) X(EINVAL) X(ENOSPC) X(ERANGE) X(ENOSYS) \
	X(EPROTO) X(ETIMEDOUT) X(ECONNRESET)

static const struct marrow_abi_entry marrow_status_table[] = {
#define MARROW_STATUS_ENTRY(n) MARROW_ABI_CONST(MARROW_##n),
	MARROW_STATUS_LIST(MARROW_STATUS_ENTRY)
#undef MARROW_STATUS_ENTRY
	MARROW_ABI_CONST(MARROW_LOG_SQ_MIN),
	MARROW_ABI_CONST(MARROW_LOG_SQ_MAX),
	MARROW_ABI_END
};

static const struct marrow_abi_entry *find(const struct marrow_abi_entry *table, const char *key)
{
	for (const struct marrow_abi_entry *e = table; e->key != NULL; e++) {
		if (strcmp(e->key, key) == 0)
			return e;
	}
	return NULL;
}

int marrow_abi_query(const char *key, int64_t *out)
{
	if (key == NULL || out == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_abi_query: NULL argument");
	const struct marrow_abi_entry *e = find(marrow_abi_table, key);
	if (e == NULL)
		e = find(marrow_status_table, key);
	if (e != NULL) {
		*out = e->value;
		return MARROW_OK;
	}
	/* "sizeof:<struct>.<field>": the width recorded with the field's offset */
	const char *dot = strchr(key, '.');
	if (strncmp(key, "sizeof:", 7) == 0 && dot != NULL) {
		char off_key[256];
		if (snprintf(off_key, sizeof(off_key), "offsetof:%s", key + 7) < (int)sizeof(off_key)) {
			e = find(marrow_abi_table, off_key);
			if (e != NULL) {
				*out = e->width;
				return MARROW_OK;
			}
		}
	}
	return marrow_fail(MARROW_ENOENT, "marrow_abi_query: unknown key '%s'", key);
}

int marrow_check_log_sq(uint32_t log_sq)
{
	if (log_sq < MARROW_LOG_SQ_MIN || log_sq > MARROW_LOG_SQ_MAX)
		return marrow_fail(MARROW_EINVAL, "log_sq %u out of range %d..%d (the SQ holds 2^log_sq WQEBBs)",
				   log_sq, MARROW_LOG_SQ_MIN, MARROW_LOG_SQ_MAX);
	return MARROW_OK;
}

const char *marrow_status_name(int status)
{
	switch (status) {
#define MARROW_STATUS_CASE(n) case MARROW_##n: return #n;
	MARROW_STATUS_LIST(MARROW_STATUS_CASE)
#undef MARROW_STATUS_CASE
	default: return "UNKNOWN";
	}
}

/* The exported names (marrow_abi.h): one per library, so that a program
 * linking two gets each library's own table and messages. */
#ifdef MARROW_LIB_NAME
MARROW_API int MARROW_CAT3(marrow_, MARROW_LIB_NAME, _abi_version)(void)
{
	return marrow_abi_version();
}

MARROW_API int MARROW_CAT3(marrow_, MARROW_LIB_NAME, _abi_query)(const char *key, int64_t *out)
{
	return marrow_abi_query(key, out);
}

MARROW_API int MARROW_CAT3(marrow_, MARROW_LIB_NAME, _check_log_sq)(uint32_t log_sq)
{
	return marrow_check_log_sq(log_sq);
}

MARROW_API const char *MARROW_CAT3(marrow_, MARROW_LIB_NAME, _status_name)(int status)
{
	return marrow_status_name(status);
}
#endif
