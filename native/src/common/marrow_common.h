/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Internal helpers shared by every libmarrow_*.so: error reporting and the
 * ABI layout table. Not part of the public ABI.
 */
#ifndef MARROW_COMMON_H
#define MARROW_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include "marrow/marrow_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Records a printf-style message as this thread's last error and returns
 * status unchanged, so call sites read: return marrow_fail(MARROW_EINVAL, ...). */
int marrow_fail(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Clears the thread's last error. */
void marrow_clear_error(void);

struct marrow_abi_entry {
	const char *key;
	int64_t value;
};

/* Each library defines this table, terminated by {NULL, 0}. */
extern const struct marrow_abi_entry marrow_abi_table[];

#define MARROW_ABI_SIZEOF(type) { "sizeof:" #type, (int64_t)sizeof(struct type) }
#define MARROW_ABI_OFFSETOF(type, field) { "offsetof:" #type "." #field, (int64_t)offsetof(struct type, field) }
/* A constant of the public headers (flag bits, limits), so that Java tests
 * compare their copies with the compiled value, not with a literal. */
#define MARROW_ABI_VALUE(name) { "value:" #name, (int64_t)(name) }
#define MARROW_ABI_END { NULL, 0 }

#ifdef __cplusplus
}
#endif

#endif
