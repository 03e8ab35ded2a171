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
#include "mlx5_devx.h"

struct mlx5dv_obj; /* infiniband/mlx5dv.h; only pointers pass through here */

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

	/*
	 * Control path of an mlx5 RC QP (marrow_mlx5.h). Resolved with the
	 * probe's symbols but optional: when one is missing only the QP path
	 * is unusable, and ->qp_error says why.
	 */
	struct ibv_pd *(*alloc_pd)(struct ibv_context *context);
	int (*dealloc_pd)(struct ibv_pd *pd);
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t length, int access);
	int (*dereg_mr)(struct ibv_mr *mr);
	struct ibv_cq *(*create_cq)(struct ibv_context *context, int cqe, void *cq_context,
				    struct ibv_comp_channel *channel, int comp_vector);
	int (*destroy_cq)(struct ibv_cq *cq);
	struct ibv_qp *(*create_qp)(struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
	int (*destroy_qp)(struct ibv_qp *qp);
	int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask);
	int (*query_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
			struct ibv_qp_init_attr *init_attr);
	int (*query_gid)(struct ibv_context *context, uint8_t port_num, int index,
			 union ibv_gid *gid);
	int (*mlx5dv_init_obj)(struct mlx5dv_obj *obj, uint64_t obj_type); /* libmlx5 */

	/* DevX (GPU-resident queues, mlx5_devx.h): libmlx5's entry points and
	 * the two verbs calls for address handles; ->devx_error says why the
	 * path is unusable ("" when usable). */
	struct devx_fns devx;

	int ibverbs_loaded;
	int mlx5_loaded;
	char ibverbs_path[MARROW_VERBS_PATH_MAX];
	char ibverbs_version[MARROW_VERBS_VERSION_MAX];
	char mlx5_path[MARROW_VERBS_PATH_MAX];
	char mlx5_version[MARROW_VERBS_VERSION_MAX];
	char error[384]; /* why libibverbs is unusable; "" when usable */
	char qp_error[256]; /* why the QP path is unusable; "" when usable */
	char devx_error[256]; /* why the DevX path is unusable; "" when usable */
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

/*
 * As verbs_require, and also needs the QP control-path symbols (libmlx5's
 * mlx5dv_init_obj included); MARROW_ENODEV with ->qp_error otherwise.
 */
int verbs_require_qp(const struct verbs_syms **out);

/*
 * As verbs_require_qp, and also needs libmlx5's DevX entry points;
 * MARROW_ENODEV with ->devx_error otherwise.
 */
int verbs_require_devx(const struct verbs_syms **out);

#endif /* MARROW_VERBS_LOADER_H */
