/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Copyright (c) 2026 The Marrow authors
 *
 * Internals of marrow_mlx5.h (libmarrow_verbs.so). The attribute builders
 * here are pure (no NIC, no libibverbs call) so the test builds them alone.
 */
#ifndef MARROW_MLX5_INTERNAL_H
#define MARROW_MLX5_INTERNAL_H

#include <pthread.h>
#include <stdint.h>
#include <infiniband/verbs.h>
#include "marrow/marrow_mlx5.h"

/* This side of a connection, as the builders need it. */
struct mlx5_local_end {
	uint8_t port;           /* 1-based */
	uint8_t link_layer;     /* IBV_LINK_LAYER_INFINIBAND / _ETHERNET */
	uint8_t active_mtu;     /* enum ibv_mtu */
	int sgid_index;         /* GID index used as the GRH source */
	uint32_t psn;           /* start PSN of our SQ */
	uint32_t access;        /* qp_access_flags */
	/* the device's read/atomic depth caps: requester (ibv max_qp_init_rd_atom,
	 * HCA cap 2^log_max_ra_req_qp) and responder (max_qp_rd_atom, 2^log_max_ra_res_qp) */
	uint32_t max_rd_atomic, max_dest_rd_atomic;
};

/* What the connect-parameter checker settled on (mlx5_conn_check). */
struct mlx5_conn_resolved {
	enum ibv_mtu mtu;
	uint32_t rd_atomic;      /* requester depth: a power of two within the cap */
	uint32_t dest_rd_atomic; /* responder depth: a power of two within the cap */
	int grh;                 /* the connection carries a GRH */
};

struct marrow_mlx5_device {
	pthread_mutex_t lock;   /* serialises control calls and the counts */
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	char name[MARROW_MLX5_NAME_MAX];
	uint8_t port;
	int gid_index;
	struct ibv_device_attr dattr;
	int gid_roce_v2;        /* RoCE: gid_index is a RoCE v2 GID (DSCP applies) */
	int devx;               /* ctx opened with MLX5DV_CONTEXT_FLAGS_DEVX */
	char devx_why[256];     /* why not, when devx == 0 */
	int n_qp;               /* live QPs and MRs: close refuses while > 0 */
	int n_mr;
};

struct marrow_mlx5_mr {
	struct marrow_mlx5_device *dev;
	struct ibv_mr *mr;
};

struct marrow_mlx5_qp {
	struct marrow_mlx5_device *dev;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	uint32_t psn;
	uint32_t access;
};

/* Builds attr + mask for one transition (target INIT, RTR or RTS) from the
 * two ends and the knobs. Pure; MARROW_EINVAL with a message on bad input. */
struct verbs_syms; /* verbs_loader.h */
/* ibv_query_port now, the port ACTIVE, and the local end of a connection
 * filled from it with this QP's psn and access (mlx5_qp.c). */
int mlx5_port_end(const struct verbs_syms *s, struct marrow_mlx5_device *d, uint32_t psn, uint32_t access,
		  struct mlx5_local_end *le, struct ibv_port_attr *pa);

int mlx5_build_qp_attr(enum ibv_qp_state target, const struct mlx5_local_end *local,
		       const struct marrow_mlx5_peer_info *peer,
		       const struct marrow_mlx5_conn_params *params,
		       struct ibv_qp_attr *attr, int *mask);

/*
 * The one connect-parameter checker of both paths (verbs: mlx5_build_qp_attr;
 * DevX: marrow_mlx5_gpu_qp_connect): every knob, the local end and the
 * peer's info are range-checked before anything reaches the device, each
 * refusal naming the parameter, its value and its range (MARROW_EINVAL);
 * on success *out holds the MTU, the depths and the GRH choice.
 * docs/design/mlx5-queue-formats.md §5.5.
 */
int mlx5_conn_check(const struct mlx5_local_end *local, const struct marrow_mlx5_peer_info *peer,
		    const struct marrow_mlx5_conn_params *params, struct mlx5_conn_resolved *out);

/* A read/atomic depth as the QP gets it: 0 = the default (16) clamped to cap;
 * otherwise v rounded down to a power of two (v <= cap is checked before). */
uint32_t mlx5_rd_atomic_depth(uint32_t v, uint32_t cap);
uint32_t mlx5_log2_floor(uint32_t v); /* 0 for 0 and 1 */

struct prm_rtr_args;
struct prm_rts_args;
/* The DevX INIT2RTR / RTR2RTS arguments from checked parameters (mlx5_devx_api.c). */
void mlx5_devx_conn_args(const struct mlx5_local_end *le, const struct marrow_mlx5_peer_info *peer,
			 const struct marrow_mlx5_conn_params *k, const struct mlx5_conn_resolved *r,
			 uint32_t local_qpn, int roce_v2, struct prm_rtr_args *rtr, struct prm_rts_args *rts);

/* Whether this connection carries a GRH (see marrow_mlx5_qp_connect). */
int mlx5_needs_grh(const struct mlx5_local_end *local,
		   const struct marrow_mlx5_peer_info *peer,
		   const struct marrow_mlx5_conn_params *params);

/* The path MTU both ends can use, or 0 with a message (MARROW_EINVAL). */
int mlx5_pick_mtu(const struct mlx5_local_end *local, const struct marrow_mlx5_peer_info *peer,
		  const struct marrow_mlx5_conn_params *params, enum ibv_mtu *out);

/* GID choice for RoCE among n entries: first RoCE v2 GID that is neither 0
 * nor link-local, else the first RoCE v2 one, else the first non-zero one;
 * -1 if all are zero. is_v2[i] != 0 for RoCE v2 entries. */
int mlx5_pick_gid(int n, const union ibv_gid *gids, const int *is_v2);

int mlx5_gid_is_zero(const uint8_t gid[16]);
const char *mlx5_qp_state_name(int state);
int mlx5_mtu_bytes(int mtu_enum);          /* 0 for a bad enum */
int mlx5_status_from_errno(int err);       /* errno -> MARROW_E* */

#endif /* MARROW_MLX5_INTERNAL_H */
