/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Verbs backend pieces that tests reach without a NIC: the dlopen table and
 * the WR-chain builder.
 */
#ifndef MARROW_PROXY_VERBS_H
#define MARROW_PROXY_VERBS_H

#include <infiniband/verbs.h>

#include "proxy_internal.h"

/* libibverbs entry points, resolved with dlsym (no link-time dependency).
 * Member names avoid the ibv_ prefix: verbs.h defines several of those as
 * macros. Posting and polling need no entry: ibv_post_send/ibv_poll_cq are
 * inlines dispatching through the context's ops table. */
struct px_ibv {
	void *handle;
	struct ibv_device **(*get_device_list)(int *num);
	void (*free_device_list)(struct ibv_device **list);
	const char *(*get_device_name)(struct ibv_device *dev);
	struct ibv_context *(*open_device)(struct ibv_device *dev);
	int (*close_device)(struct ibv_context *ctx);
	struct ibv_pd *(*alloc_pd)(struct ibv_context *ctx);
	int (*dealloc_pd)(struct ibv_pd *pd);
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t len, int access);
	int (*dereg_mr)(struct ibv_mr *mr);
	struct ibv_cq *(*create_cq)(struct ibv_context *ctx, int cqe, void *cq_ctx,
				    struct ibv_comp_channel *ch, int vector);
	int (*destroy_cq)(struct ibv_cq *cq);
	struct ibv_qp *(*create_qp)(struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
	int (*destroy_qp)(struct ibv_qp *qp);
	int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask);
	int (*query_port)(struct ibv_context *ctx, uint8_t port, struct _compat_ibv_port_attr *attr);
	int (*query_gid)(struct ibv_context *ctx, uint8_t port, int index, union ibv_gid *gid);
	const char *(*wc_status_str)(enum ibv_wc_status status);
};

/* Loads `path` (NULL: $MARROW_IBVERBS_LIB, else libibverbs.so.1) and
 * resolves every entry; ENODEV with the dlerror text on failure. */
int px_ibv_load(struct px_ibv *f, const char *path);
void px_ibv_unload(struct px_ibv *f);

/* Builds n linked RDMA WRITE WRs (wr_id = base + i, the last one signaled,
 * payloads up to inline_max inline) for requests reqs[0..n): sources at
 * mem_base + local_off, destinations at remote_base + remote_off (the same
 * buffer in loopback; the peer's buffer across hosts). */
void px_verbs_build_chain(struct ibv_send_wr *wrs, struct ibv_sge *sges, const struct px_req *reqs, uint32_t n,
			  uint64_t base, uint64_t mem_base, uint64_t remote_base, uint32_t lkey, uint32_t rkey,
			  uint32_t inline_max);

#endif /* MARROW_PROXY_VERBS_H */
