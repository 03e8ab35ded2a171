/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Reading watchdog dumps in tests (docs/design/watchdog.md): the key=value
 * pairs after the message's MARROW_DUMP_MARK, or anywhere in a bare dump
 * (marrow_emu_qp_dump). No assertion macros: each test has its own.
 */
#ifndef MARROW_DUMP_TEST_UTIL_H
#define MARROW_DUMP_TEST_UTIL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/marrow_dump.h"

/* Copies the value of key into out (cap bytes); 1 if found, 0 if not. */
static inline int dump_value(const char *msg, const char *key, char *out, size_t cap)
{
	const char *p = msg, *m;
	size_t klen = strlen(key);

	while ((m = strstr(p, MARROW_DUMP_MARK)) != NULL)
		p = m + strlen(MARROW_DUMP_MARK);
	for (;;) {
		while (*p == ' ')
			p++;
		if (*p == '\0')
			return 0;
		const char *end = strchr(p, ' ');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len > klen && strncmp(p, key, klen) == 0 && p[klen] == '=') {
			size_t n = len - klen - 1;
			if (n >= cap)
				n = cap - 1;
			memcpy(out, p + klen + 1, n);
			out[n] = '\0';
			return 1;
		}
		p += len;
	}
}

/* The numeric value of key (decimal or 0x hex), or -1 when absent. */
static inline int64_t dump_num(const char *msg, const char *key)
{
	char v[64];

	if (!dump_value(msg, key, v, sizeof(v)))
		return -1;
	return (int64_t)strtoull(v, NULL, 0);
}

/* 1 when key has exactly this value. */
static inline int dump_is(const char *msg, const char *key, const char *want)
{
	char v[64];

	return dump_value(msg, key, v, sizeof(v)) && strcmp(v, want) == 0;
}

static inline uint64_t dump_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
