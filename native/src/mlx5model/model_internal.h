/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Copyright (c) 2026 The Marrow authors
 *
 * The mlx5 model (libmarrow_mlx5model.so): a software ConnectX behind the
 * subset of libibverbs and libmlx5 that Marrow loads. Layouts come from
 * rdma-core's headers (verbs.h, mlx5dv.h) so the header's inline
 * ibv_post_send / ibv_poll_cq dispatch into this library through the
 * context's ops table; the queues are the software NIC's (native/src/softnic)
 * and its engine threads execute them. What it checks and what it cannot:
 * docs/design/mlx5-model.md.
 */
#ifndef MARROW_MLX5MODEL_INTERNAL_H
#define MARROW_MLX5MODEL_INTERNAL_H

#include <pthread.h>
#include <stdint.h>
#include <infiniband/verbs.h>
#include <infiniband/mlx5dv.h>

#include "marrow/marrow_softnic.h"

#define MODEL_DEV_NAME "mlx5_model0"
#define MODEL_GID_MAX 16
#define MODEL_MAX_QP 256           /* live QPs per process (the QPN registry) */
#define MODEL_VENDOR_ID 0x02c9      /* Mellanox */
#define MODEL_PART_ID 4129          /* ConnectX-7 */

/* The device's configurable facts (MARROW_MLX5MODEL, docs/design/mlx5-model.md §2). */
struct model_caps {
	int roce;                   /* link layer: 0 InfiniBand, 1 Ethernet (RoCE) */
	int lag;                    /* bonded port: HCA caps report 2 LAG ports */
	int devx;                   /* mlx5dv_open_device(DEVX) succeeds */
	int ts_free, ts_default;    /* timestamp formats the caps offer (CREATE_QP ts_format) */
	int hot;                    /* engine spins instead of sleeping when idle */
	uint32_t gid_tbl_len;       /* GID table length (<= MODEL_GID_MAX) */
	uint32_t active_mtu;        /* enum ibv_mtu */
	uint32_t max_rd_atomic;     /* max_qp_rd_atom = max_qp_init_rd_atom (power of two) */
	uint32_t max_qp_wr;         /* WQEBBs of the largest SQ */
	uint32_t max_cqe;
	uint32_t port_state;        /* enum ibv_port_state */
	char fw_ver[64];
};

/* One process-wide device: every context opened on it shares one software
 * NIC, so QPs of two contexts (Marrow's mlx5 device and the proxy) can be
 * connected to each other. */
struct model_dev {
	struct ibv_device ibdev;    /* first: ibv_device * <-> model_dev * */
	pthread_mutex_t lock;
	struct marrow_emu_device *emu;
	int refs;                   /* open contexts */
	uint64_t guid;              /* node and port GUID (host order) */
	uint16_t lid;
};

struct model_ctx {
	struct ibv_context ctx;     /* first */
	struct model_dev *dev;
	struct model_caps caps;
	int devx;                   /* opened through mlx5dv_open_device(DEVX) */
	union ibv_gid gids[MODEL_GID_MAX];
	uint32_t next_pdn;
	uint32_t next_uar;
	struct model_pd *pds;       /* live PDs (DevX CREATE_QP names one by pdn), under ctx.mutex */
};

struct model_pd {
	struct ibv_pd pd;
	struct marrow_emu_pd *emu;
	uint32_t pdn;
	struct model_pd *next;
};

struct model_mr {
	struct ibv_mr mr;
	struct marrow_emu_mr *emu;
};

struct model_cq {
	struct ibv_cq cq;
	struct marrow_emu_cq *emu;
	struct marrow_cq_view view;
	pthread_mutex_t lock;       /* poll_cq */
	uint32_t ci;                /* consumer index (free-running) */
};

struct model_qp {
	struct ibv_qp qp;
	struct marrow_emu_qp *emu;
	struct marrow_qp_view view;
	pthread_mutex_t lock;       /* post_send / post_recv */
	struct ibv_qp_cap cap;      /* granted */
	uint32_t wqe_bbs;           /* WQEBBs of the largest WQE max_send_wr was sized for */
	int sq_sig_all;
	/* SQ producer side, as libmlx5 keeps it: WQEBB counters (16-bit on the wire) */
	uint32_t sq_head, sq_tail;
	uint64_t *sq_wrid;          /* by WQEBB index of a WQE's start */
	uint32_t *sq_end;           /* counter after the WQE that starts there */
	uint32_t rq_head, rq_tail;
	uint64_t *rq_wrid;
	uint32_t bf_off;            /* BlueFlame half the next doorbell goes to */
	/* attributes as ibv_modify_qp set them (ibv_query_qp answers them) */
	struct ibv_qp_attr attr;
};

/* model_caps.c */
int model_caps_parse(const char *spec, struct model_caps *c, char *why, size_t why_len);
void model_gid_table(const struct model_caps *c, uint64_t guid, union ibv_gid *gids);

/* model_verbs.c */
struct model_pd *model_pd_by_pdn(struct model_ctx *mc, uint32_t pdn);
int model_errno_from_marrow(int rc);

/* model_data.c: the ops table's data path */
int model_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad);
int model_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
int model_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc);
/* Drops the QP's CQEs still in the CQ (RESET / destroy), as libmlx5 cleans a CQ. */
void model_cq_clean(struct model_cq *cq, uint32_t qpn);

/* Registry of live QPs by QPN (process-wide; the CQ poller maps a CQE to its QP). */
int model_qp_register(struct model_qp *q); /* -1 when MODEL_MAX_QP are live */
void model_qp_unregister(struct model_qp *q);
struct model_qp *model_qp_lookup(uint32_t qpn);
/* model_devx.c: whether a DevX QP of this process has that number (a verbs QP may connect to it). */
int model_devx_has_qpn(uint32_t qpn);

#endif /* MARROW_MLX5MODEL_INTERNAL_H */
