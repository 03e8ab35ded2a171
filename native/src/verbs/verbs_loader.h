/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Copyright (c) 2026 The Marrow authors
 *
 * Run-time binding to libibverbs/libmlx5 (internal to libmarrow_verbs.so).
 * The rdma-core headers give the struct layouts; every function comes from
 * dlsym, so nothing of rdma-core is a DT_NEEDED of this library.
 */
#ifndef MARROW_VERBS_LOADER_H
#define MARROW_VERBS_LOADER_H

#include <stdbool.h>
#include <stdint.h>
#include <infiniband/verbs.h>
#include "marrow/marrow_verbs.h"

struct verbs_syms {
	struct ibv_device **(*get_device_list)(int *num_devices);
	void (*free_device_list)(struct ibv_device **list);
	const char *(*get_device_name)(struct ibv_device *device);
	struct ibv_context *(*open_device)(struct ibv_device *device);
	int (*close_device)(struct ibv_context *context);
	int (*query_device)(struct ibv_context *context, struct ibv_device_attr *attr);
	/*
	 * The exported compat ibv_query_port@IBVERBS_1.1 (the header's
	 * ibv_query_port is an inline wrapper). It fills a prefix of
	 * struct ibv_port_attr that holds every field read here.
	 */
	int (*query_port)(struct ibv_context *context, uint8_t port_num,
			  struct ibv_port_attr *attr);
	bool (*mlx5dv_is_supported)(struct ibv_device *device); /* NULL if absent */

	int ibverbs_loaded;
	int mlx5_loaded;
	char ibverbs_path[MARROW_VERBS_PATH_MAX];
	char ibverbs_version[MARROW_VERBS_VERSION_MAX];
	char mlx5_path[MARROW_VERBS_PATH_MAX];
	char mlx5_version[MARROW_VERBS_VERSION_MAX];
	char error[384]; /* why libibverbs is unusable; "" when usable */
};

/*
 * Loads the libraries on the first call (thread-safe, once per process) and
 * returns the table, also when loading failed (see ->error). Never NULL.
 */
const struct verbs_syms *verbs_syms_get(void);

/*
 * Returns the table in *out, or MARROW_ENODEV with ->error as this thread's
 * last error when libibverbs is unusable.
 */
int verbs_require(const struct verbs_syms **out);

#endif /* MARROW_VERBS_LOADER_H */
