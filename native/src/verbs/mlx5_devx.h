/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Copyright (c) 2026 The Marrow authors
 *
 * DevX runtime for GPU-resident mlx5 queues (internal to
 * libmarrow_verbs.so): the SQ, the send CQ and both doorbell records live
 * in GPU memory the caller allocated (libmarrow_cuda: this library has no
 * CUDA linkage), are registered as DevX umems (from a dma-buf fd where the
 * library has mlx5dv_devx_umem_reg_ex, else from the device pointer through
 * the peer-memory client), and the CQ and RC QP are created and moved
 * RST -> INIT -> RTR -> RTS with the PRM commands of mlx5_prm.h.
 *
 * Every rdma-core call goes through a struct devx_fns (same signatures as
 * libmlx5's), filled by the loader or, in tests, by fakes; every command
 * buffer comes from a pure builder (devx_cmd_*), so tests byte-check what
 * the runtime issues without a NIC. See docs/design/mlx5-queue-formats.md §7.
 */
#ifndef MARROW_MLX5_DEVX_H
#define MARROW_MLX5_DEVX_H

#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>
#include <infiniband/mlx5dv.h>

#include "marrow/marrow_mlx5.h"
#include "mlx5_prm.h"

/* The DevX entry points, with libmlx5's signatures. */
struct devx_fns {
	struct ibv_context *(*open_device)(struct ibv_device *dev, struct mlx5dv_context_attr *attr);
	struct mlx5dv_devx_umem *(*umem_reg)(struct ibv_context *ctx, void *addr, size_t size, uint32_t access);
	/* dma-buf registration (rdma-core >= 35); NULL where the library lacks it */
	struct mlx5dv_devx_umem *(*umem_reg_ex)(struct ibv_context *ctx, struct mlx5dv_devx_umem_in *in);
	int (*umem_dereg)(struct mlx5dv_devx_umem *umem);
	struct mlx5dv_devx_uar *(*alloc_uar)(struct ibv_context *ctx, uint32_t flags);
	void (*free_uar)(struct mlx5dv_devx_uar *uar);
	struct mlx5dv_devx_obj *(*obj_create)(struct ibv_context *ctx, const void *in, size_t inlen,
					      void *out, size_t outlen);
	int (*obj_modify)(struct mlx5dv_devx_obj *obj, const void *in, size_t inlen, void *out, size_t outlen);
	int (*obj_query)(struct mlx5dv_devx_obj *obj, const void *in, size_t inlen, void *out, size_t outlen);
	int (*obj_destroy)(struct mlx5dv_devx_obj *obj);
	int (*query_eqn)(struct ibv_context *ctx, uint32_t vector, uint32_t *eqn);
	/* optional: QUERY_HCA_CAP and friends; unused by the QP path */
	int (*general_cmd)(struct ibv_context *ctx, const void *in, size_t inlen, void *out, size_t outlen);
	int (*init_obj)(struct mlx5dv_obj *obj, uint64_t obj_type);
	/* RoCE destination MAC of a routable GID: the kernel resolves it for an AH */
	struct ibv_ah *(*create_ah)(struct ibv_pd *pd, struct ibv_ah_attr *attr);
	int (*destroy_ah)(struct ibv_ah *ah);
};

/*
 * "" when the QP path can run on f; else why not ("libmlx5 lacks
 * mlx5dv_devx_obj_create: ..."), written to why. Optional entries
 * (umem_reg_ex, obj_query, general_cmd, create_ah/destroy_ah) do not count.
 */
const char *devx_fns_missing(const struct devx_fns *f);

/* One GPU buffer as the caller hands it over. */
struct devx_gpu_buf {
	void *addr;             /* device pointer (cudaMalloc), 4 KiB aligned */
	size_t len;
	int dmabuf_fd;          /* cuMemGetHandleForAddressRange fd, or -1 */
	uint64_t dmabuf_offset; /* addr's offset inside that dma-buf */
};

/*
 * Copies between host and GPU memory (cudaMemcpy in libmarrow_cuda), for
 * the host that cannot load/store GPU memory: initialises the CQ ring and
 * reads the doorbell records back on resume. 0 on success.
 */
struct devx_gpu_copy {
	int (*to_gpu)(void *ctx, void *dst_gpu, const void *src, size_t n);
	int (*from_gpu)(void *ctx, void *dst, const void *src_gpu, size_t n);
	void *ctx;
};

/* Doorbell-record layout inside the caller's DBR buffer. */
enum {
	DEVX_QP_DBR_OFFSET = 0,   /* 2 x BE32: [0] RQ counter, [1] SQ counter */
	DEVX_CQ_DBR_OFFSET = 64,  /* 2 x BE32: [0] consumer index, [1] arm; own cache line */
	DEVX_DBR_BYTES = 128,
	DEVX_PAGE = 4096,
};

/*
 * What the device's capabilities decide for a QP (QUERY_HCA_CAP, QUERY_LAG;
 * docs/design/mlx5-queue-formats.md §7.3). All zero = free-running
 * timestamps, no LAG affinity, depths unknown.
 */
struct devx_caps {
	uint32_t ts_format;          /* qpc.ts_format of CREATE_QP (PRM_TS_FORMAT_*) */
	uint32_t lag_ports;          /* > 1: LAG active, RST2INIT names a port 1..lag_ports; 0: none */
	uint32_t max_rd_atomic;      /* 2^log_max_ra_req_qp; 0 = not read */
	uint32_t max_dest_rd_atomic; /* 2^log_max_ra_res_qp; 0 = not read */
};

/* The kernel's rule (mlx5_ib, RC QPs): free-running where the capability
 * offers it, else the device default. ts_cap is PRM_TS_CAP_*. */
uint32_t devx_pick_ts_format(uint32_t ts_cap);

/*
 * Pure: caps from a QUERY_HCA_CAP(general) output, the RoCE one (NULL when
 * not read: InfiniBand port, or no RoCE caps) and QUERY_LAG's lag_state.
 * ts capability: the RoCE caps' qp_ts_format on a RoCE port, else the general
 * sq_ts_format. LAG: num_lag_ports > 1 and (lag_tx_port_affinity or lag_state).
 */
void devx_caps_parse(const uint8_t *gen_out, const uint8_t *roce_out, uint32_t lag_state, struct devx_caps *c);

/* Issues those queries through f->general_cmd (eth_port: the QP's port is
 * RoCE). MARROW_ENOSYS without general_cmd, MARROW_EIO when the general
 * query fails (message with status/syndrome); *c is all zero then. */
int devx_caps_query(const struct devx_fns *f, struct ibv_context *ctx, int eth_port, struct devx_caps *c);

struct devx_qp_spec {
	struct ibv_context *ctx; /* opened with MLX5DV_CONTEXT_FLAGS_DEVX */
	struct devx_caps caps;   /* from devx_caps_query (or zero) */
	uint32_t pdn;            /* mlx5dv_pd.pdn */
	uint32_t log_sq_wqebb_cnt;
	uint32_t log_cqe_cnt;
	struct devx_gpu_buf sq, cq, dbr;
	struct devx_gpu_copy copy;
};

/* Everything a created QP holds, in creation order. */
struct devx_qp {
	const struct devx_fns *f;
	struct devx_qp_spec spec;
	struct mlx5dv_devx_umem *sq_umem, *cq_umem, *dbr_umem;
	struct mlx5dv_devx_uar *uar;
	uint32_t eqn;
	struct mlx5dv_devx_obj *cq, *qp;
	uint32_t cqn, qpn;
	int state;               /* enum ibv_qp_state as the commands left it */
	uint32_t drained;        /* CQEs the last devx_qp_reset consumed on the poller's behalf */
	/* the last devx_qp_connect's arguments, for devx_qp_recover */
	struct {
		int valid;
		uint32_t port, access;
		struct prm_rtr_args rtr;
		struct prm_rts_args rts;
	} conn;
	char note[160];          /* fallbacks taken (BF UAR, peer-memory umem); "" if none */
	/* devx_qp_open only: the allocation behind sq/cq/dbr, freed after everything else */
	struct marrow_mlx5_gpu_mem_ops mem;
	void *mem_base;
};

/* Pure command builders: what the runtime passes to obj_create / obj_modify. */
void devx_cmd_create_cq(const struct devx_qp *q, uint8_t in[PRM_CREATE_CQ_IN_BYTES]);
void devx_cmd_create_qp(const struct devx_qp *q, uint8_t in[PRM_CREATE_QP_IN_BYTES]);
/* RST2INIT; on LAG (caps.lag_ports > 1) lag_tx_port_affinity = 1 + qpn % lag_ports. */
void devx_cmd_rst2init(const struct devx_qp *q, uint32_t port, uint32_t access, uint8_t in[PRM_MODIFY_QP_IN_BYTES]);

/* The CQ ring's first image: every CQE invalid and owned by software. */
void devx_cq_image(uint8_t *ring, uint32_t cqe_cnt);

/* Checks the spec (sizes, alignment, fd/offset); MARROW_EINVAL with a message. */
int devx_spec_check(const struct devx_qp_spec *s);

/*
 * UAR (non-cached, else BlueFlame with a note), umems (SQ, CQ, DBR), EQ
 * number, CQ, QP in RESET. On any failure everything created so far is
 * released in reverse order and *q holds nothing. q->f = f on success.
 */
int devx_qp_create(const struct devx_fns *f, const struct devx_qp_spec *spec, struct devx_qp *q);

/* Where devx_qp_open puts the queues inside its one allocation (offsets
 * from the 4 KiB-aligned start; total = bytes from that start). */
struct devx_mem_layout {
	size_t sq_off, cq_off, dbr_off, total;
};
void devx_mem_layout(uint32_t log_sq_wqebb_cnt, uint32_t log_cqe_cnt, struct devx_mem_layout *l);

/*
 * devx_qp_create on memory from ops: one allocation (total + 4 KiB, so the
 * start can be aligned), one dma-buf fd over it when ops->dmabuf_fd gives
 * one (closed once the umems are registered or the create failed), else
 * device-pointer umems with a note. On failure the memory is freed after
 * the DevX objects, and *q holds nothing.
 */
int devx_qp_open(const struct devx_fns *f, const struct marrow_mlx5_gpu_mem_ops *ops, struct ibv_context *ctx,
		 uint32_t pdn, uint32_t log_sq_wqebb_cnt, uint32_t log_cqe_cnt, const struct devx_caps *caps,
		 struct devx_qp *q);

/* RoCE: the MAC behind a link-local GID (fe80::/64 with a modified EUI-64
 * interface id); 0 on success, -1 when the GID is not of that form. */
int devx_mac_from_link_local_gid(const uint8_t gid[16], uint8_t mac[6]);

/* RST2INIT, INIT2RTR (a), RTR2RTS (r) from RESET; on failure the message
 * names the step and the QP is put back into RESET (best effort: 2RST_QP),
 * so connect may run again. The arguments are kept for devx_qp_recover. */
int devx_qp_connect(struct devx_qp *q, uint32_t port, uint32_t access,
		    const struct prm_rtr_args *a, const struct prm_rts_args *r);

/*
 * 2RST_QP from any state (ERR after an error CQE, say), then, through
 * spec.copy: the QP doorbell record is cleared (after RESET the SQ starts
 * again at WQE counter 0, as a fresh QP), and the CQEs the QP left behind
 * (error and flush CQEs no poller consumed) are stepped over by advancing
 * the CQ doorbell record's consumer index (q->drained says how many). The
 * CQ itself is not reset. What the caller resets: its SQ producer index, to
 * 0; its CQ consumer index is resumed from the CQ doorbell record.
 * docs/design/mlx5-queue-formats.md §7.4.
 */
int devx_qp_reset(struct devx_qp *q);

/* Recovery: devx_qp_reset, then devx_qp_connect with the last connect's
 * arguments (ERR -> RST -> INIT -> RTR -> RTS). MARROW_EINVAL if never connected. */
int devx_qp_recover(struct devx_qp *q);

/* QP, CQ, the DBR, CQ and SQ umems, the UAR, then (devx_qp_open) the GPU
 * memory. Returns the first failure but releases everything all the same. */
int devx_qp_destroy(struct devx_qp *q);

/* Host-side resume: the SQ producer counter (QP DBR word 1) and the CQ
 * consumer index (CQ DBR word 0, 24 bits), read through spec.copy. */
int devx_qp_read_indexes(const struct devx_qp *q, uint32_t *sq_pi, uint32_t *cq_ci);

#endif /* MARROW_MLX5_DEVX_H */
