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

/* This library's message (what it exports as marrow_<MARROW_LIB_NAME>_last_error,
 * marrow_abi.h). Not exported: calls from inside the library always read
 * its own buffer, whatever else the process has loaded. */
const char *marrow_last_error(void);

/* MARROW_RDMA_CORE (docs/design/mlx5-model.md §1): 0 for the host's
 * rdma-core; 1 for the mlx5 model with its library's path in path
 * ($MARROW_MLX5MODEL_LIB, else libmarrow_mlx5model.so next to the calling
 * library); -1 for a value that is neither, with the reason in why. */
int marrow_rdma_core_model(char *path, size_t len, char *why, size_t why_len);

/* One exported fact. width is the field's size for an "offsetof:" entry
 * (answered as "sizeof:<struct>.<field>"), 0 otherwise. */
struct marrow_abi_entry {
	const char *key;
	int64_t value;
	int64_t width;
};

/* Each library defines this table, terminated by MARROW_ABI_END. The status
 * codes of marrow_abi.h are in a table every library shares (marrow_common.c). */
extern const struct marrow_abi_entry marrow_abi_table[];

#define MARROW_ABI_SIZEOF(type) { "sizeof:" #type, (int64_t)sizeof(struct type), 0 }
#define MARROW_ABI_OFFSETOF(type, field) { "offsetof:" #type "." #field, (int64_t)offsetof(struct type, field), \
		(int64_t)sizeof(((struct type *)0)->field) }
/* An enum value or #define that Java uses, exported by its C name. */
#define MARROW_ABI_CONST(name) { "const:" #name, (int64_t)(name), 0 }
#define MARROW_ABI_END { NULL, 0, 0 }

#ifdef __cplusplus
}
#endif

#endif
