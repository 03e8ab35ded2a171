/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Copyright (c) 2026 The Marrow authors
 *
 * Pure builders of the ibv_modify_qp arguments for RESET->INIT->RTR->RTS
 * (docs/design/mlx5-queue-formats.md §5.4 for the masks) and the default
 * connection knobs.
 * Nothing here talks to a NIC, so verbs_test_mlx5_attrs checks it anywhere.
 */
#include <errno.h>
#include <string.h>
#include "common/marrow_common.h"
#include "mlx5_internal.h"

#define PSN_MASK 0xffffffu
#define QPN_MASK 0xffffffu
#define MLX5_RD_ATOMIC_DEFAULT 16u /* NVSHMEM's IBGDA depth */

MARROW_API int marrow_mlx5_conn_params_default(struct marrow_mlx5_conn_params *out)
{
	if (out == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_mlx5_conn_params_default: NULL out");
	if (out->size < sizeof(*out))
		return marrow_fail(MARROW_EINVAL, "marrow_mlx5_conn_params_default: size %u < sizeof %zu",
				   out->size, sizeof(*out));
	memset(out, 0, sizeof(*out));
	out->size = sizeof(*out);
	out->path_mtu = 0;        /* negotiated: the 4K-on-a-1500-fabric hang (nccl#1957) */
	out->hop_limit = 64;
	out->timeout = 14;        /* 4.096 us << 14 = 67 ms per try */
	out->retry_cnt = 7;
	/* RDMA WRITE never meets RNR, but 7 would mean "forever" if a SEND
	 * ever did: keep every wait bounded. */
	out->rnr_retry = 6;
	out->min_rnr_timer = 12;
	/* 0: the default depth, 16 (NVSHMEM's) clamped to the device's caps at
	 * connect (marrow_mlx5.h; docs/design/mlx5-queue-formats.md §5.5). */
	out->max_rd_atomic = 0;
	out->max_dest_rd_atomic = 0;
	return MARROW_OK;
}

uint32_t mlx5_log2_floor(uint32_t v)
{
	uint32_t l = 0;

	while (v >> (l + 1))
		l++;
	return l;
}

uint32_t mlx5_rd_atomic_depth(uint32_t v, uint32_t cap)
{
	if (v == 0)
		v = MLX5_RD_ATOMIC_DEFAULT < cap ? MLX5_RD_ATOMIC_DEFAULT : cap;
	if (v > cap)
		v = cap;
	return v ? 1u << mlx5_log2_floor(v) : 0;
}

int mlx5_gid_is_zero(const uint8_t gid[16])
{
	for (int i = 0; i < 16; i++)
		if (gid[i] != 0)
			return 0;
	return 1;
}

const char *mlx5_qp_state_name(int state)
{
	switch (state) {
	case IBV_QPS_RESET: return "RESET";
	case IBV_QPS_INIT: return "INIT";
	case IBV_QPS_RTR: return "RTR";
	case IBV_QPS_RTS: return "RTS";
	case IBV_QPS_SQD: return "SQD";
	case IBV_QPS_SQE: return "SQE";
	case IBV_QPS_ERR: return "ERR";
	default: return "UNKNOWN";
	}
}

int mlx5_mtu_bytes(int mtu)
{
	return mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096 ? 128 << mtu : 0;
}

int mlx5_status_from_errno(int err)
{
	switch (err) {
	case EPERM: case EACCES: return MARROW_EPERM;
	case ENOMEM: return MARROW_ENOMEM;
	case EINVAL: return MARROW_EINVAL;
	case EBUSY: return MARROW_EBUSY;
	case ENOENT: return MARROW_ENOENT;
	case ENODEV: return MARROW_ENODEV;
	case ENOSYS: case EOPNOTSUPP: return MARROW_ENOSYS;
	default: return MARROW_EIO;
	}
}

int mlx5_pick_gid(int n, const union ibv_gid *gids, const int *is_v2)
{
	int first_v2 = -1, first_any = -1;

	for (int i = 0; i < n; i++) {
		const uint8_t *g = gids[i].raw;

		if (mlx5_gid_is_zero(g))
			continue;
		if (first_any < 0)
			first_any = i;
		if (!is_v2[i])
			continue;
		/* fe80::/10 reaches only the local L2 segment. */
		if (!(g[0] == 0xfe && (g[1] & 0xc0) == 0x80))
			return i;
		if (first_v2 < 0)
			first_v2 = i;
	}
	return first_v2 >= 0 ? first_v2 : first_any;
}

int mlx5_needs_grh(const struct mlx5_local_end *local,
		   const struct marrow_mlx5_peer_info *peer,
		   const struct marrow_mlx5_conn_params *params)
{
	if (local->link_layer == IBV_LINK_LAYER_ETHERNET)
		return 1;
	if (params->flags & MARROW_MLX5_CONN_FORCE_GRH)
		return 1;
	return peer->lid == 0 && !mlx5_gid_is_zero(peer->gid);
}

int mlx5_pick_mtu(const struct mlx5_local_end *local, const struct marrow_mlx5_peer_info *peer,
		  const struct marrow_mlx5_conn_params *params, enum ibv_mtu *out)
{
	uint32_t both;

	if (!mlx5_mtu_bytes(local->active_mtu))
		return marrow_fail(MARROW_EINVAL, "local active MTU enum %u is not 1 (256) .. 5 (4096)",
				   local->active_mtu);
	if (!mlx5_mtu_bytes((int)peer->mtu))
		return marrow_fail(MARROW_EINVAL, "peer MTU enum %u is not 1 (256) .. 5 (4096)", peer->mtu);
	both = local->active_mtu < peer->mtu ? local->active_mtu : peer->mtu;
	if (params->path_mtu == 0) {
		*out = (enum ibv_mtu)both;
		return MARROW_OK;
	}
	if (!mlx5_mtu_bytes((int)params->path_mtu))
		return marrow_fail(MARROW_EINVAL, "path_mtu enum %u is not 0 (auto) or 1 (256) .. 5 (4096)",
				   params->path_mtu);
	if (params->path_mtu > both)
		return marrow_fail(MARROW_EINVAL,
				   "path_mtu %d exceeds what both ends carry (local %d, peer %d bytes): "
				   "packets would be dropped and the QP would hang in retries",
				   mlx5_mtu_bytes((int)params->path_mtu), mlx5_mtu_bytes(local->active_mtu),
				   mlx5_mtu_bytes((int)peer->mtu));
	*out = (enum ibv_mtu)params->path_mtu;
	return MARROW_OK;
}

/* Range checks of the knobs against this end; one message per bad field. */
static int check_params(const struct mlx5_local_end *l, const struct marrow_mlx5_conn_params *p)
{
	int roce = l->link_layer == IBV_LINK_LAYER_ETHERNET;

	if (p->sl > (roce ? 7u : 15u))
		return marrow_fail(MARROW_EINVAL, "sl %u outside 0..%u%s", p->sl, roce ? 7 : 15,
				   roce ? " on RoCE (it is the 3-bit Ethernet priority)" : "");
	if (p->traffic_class > 255)
		return marrow_fail(MARROW_EINVAL, "traffic_class %u outside 0..255", p->traffic_class);
	if (p->hop_limit < 1 || p->hop_limit > 255)
		return marrow_fail(MARROW_EINVAL, "hop_limit %u outside 1..255", p->hop_limit);
	if (p->timeout < 1 || p->timeout > 31)
		return marrow_fail(MARROW_EINVAL, "timeout %u outside 1..31 (0 would wait for an ACK forever)",
				   p->timeout);
	if (p->retry_cnt > 7)
		return marrow_fail(MARROW_EINVAL, "retry_cnt %u outside 0..7", p->retry_cnt);
	if (p->rnr_retry > 6)
		return marrow_fail(MARROW_EINVAL, "rnr_retry %u outside 0..6 (7 would retry forever)",
				   p->rnr_retry);
	if (p->min_rnr_timer > 31)
		return marrow_fail(MARROW_EINVAL, "min_rnr_timer %u outside 0..31", p->min_rnr_timer);
	if (l->max_rd_atomic == 0 || l->max_dest_rd_atomic == 0)
		return marrow_fail(MARROW_EINVAL, "the device reports no read/atomic depth (requester %u, "
				   "responder %u)", l->max_rd_atomic, l->max_dest_rd_atomic);
	if (p->max_rd_atomic > l->max_rd_atomic)
		return marrow_fail(MARROW_EINVAL, "max_rd_atomic %u outside 1..%u (the device's requester depth; "
				   "0 = the default)", p->max_rd_atomic, l->max_rd_atomic);
	if (p->max_dest_rd_atomic > l->max_dest_rd_atomic)
		return marrow_fail(MARROW_EINVAL, "max_dest_rd_atomic %u outside 1..%u (the device's responder "
				   "depth; 0 = the default)", p->max_dest_rd_atomic, l->max_dest_rd_atomic);
	if (p->flags & ~(uint32_t)MARROW_MLX5_CONN_FORCE_GRH)
		return marrow_fail(MARROW_EINVAL, "unknown conn flags 0x%x", p->flags);
	return MARROW_OK;
}

static int check_local(const struct mlx5_local_end *l)
{
	if (l->port == 0)
		return marrow_fail(MARROW_EINVAL, "local port 0: ports are 1-based");
	if (l->link_layer != IBV_LINK_LAYER_INFINIBAND && l->link_layer != IBV_LINK_LAYER_ETHERNET)
		return marrow_fail(MARROW_EINVAL, "local link layer %u is neither 1 (IB) nor 2 (Ethernet)",
				   l->link_layer);
	if (l->psn & ~PSN_MASK)
		return marrow_fail(MARROW_EINVAL, "local PSN 0x%x outside 0..0xffffff (24 bits)", l->psn);
	return MARROW_OK;
}

static int check_peer(const struct mlx5_local_end *l, const struct marrow_mlx5_peer_info *p)
{
	if (p->size < sizeof(*p))
		return marrow_fail(MARROW_EINVAL, "peer info size %u < sizeof %zu", p->size, sizeof(*p));
	if (p->qpn <= 1 || (p->qpn & ~QPN_MASK))
		return marrow_fail(MARROW_EINVAL, "peer QPN 0x%x outside 0x2..0xffffff (24 bits; 0 and 1 are the "
				   "special QPs)", p->qpn);
	if (p->psn & ~PSN_MASK)
		return marrow_fail(MARROW_EINVAL, "peer PSN 0x%x outside 0..0xffffff (24 bits)", p->psn);
	if (p->link_layer != l->link_layer)
		return marrow_fail(MARROW_EINVAL,
				   "link layers differ: local %s, peer %s (IB and RoCE ports cannot connect)",
				   l->link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet" : "InfiniBand",
				   p->link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet" :
				   p->link_layer == IBV_LINK_LAYER_INFINIBAND ? "InfiniBand" : "unknown");
	if (l->link_layer == IBV_LINK_LAYER_ETHERNET && mlx5_gid_is_zero(p->gid))
		return marrow_fail(MARROW_EINVAL, "RoCE peer sent an all-zero GID: pick a populated GID index there");
	if (l->link_layer == IBV_LINK_LAYER_INFINIBAND && (p->lid == 0 || p->lid >= 0xc000) &&
	    mlx5_gid_is_zero(p->gid))
		return marrow_fail(MARROW_EINVAL,
				   "IB peer has no unicast LID (0x%x) and no GID: is its port ACTIVE with a subnet manager?",
				   p->lid);
	return MARROW_OK;
}

int mlx5_conn_check(const struct mlx5_local_end *l, const struct marrow_mlx5_peer_info *p,
		    const struct marrow_mlx5_conn_params *k, struct mlx5_conn_resolved *out)
{
	int rc;

	if (l == NULL || p == NULL || k == NULL || out == NULL)
		return marrow_fail(MARROW_EINVAL, "mlx5_conn_check: NULL argument");
	memset(out, 0, sizeof(*out));
	rc = check_local(l);
	if (rc == MARROW_OK)
		rc = check_params(l, k);
	if (rc == MARROW_OK)
		rc = check_peer(l, p);
	if (rc == MARROW_OK)
		rc = mlx5_pick_mtu(l, p, k, &out->mtu);
	if (rc)
		return rc;
	out->grh = mlx5_needs_grh(l, p, k);
	if (out->grh) {
		if (l->sgid_index < 0 || l->sgid_index > 255)
			return marrow_fail(MARROW_EINVAL, "GRH needed but local GID index %d outside 0..255",
					   l->sgid_index);
		if (mlx5_gid_is_zero(p->gid))
			return marrow_fail(MARROW_EINVAL, "GRH requested but the peer sent no GID");
	}
	out->rd_atomic = mlx5_rd_atomic_depth(k->max_rd_atomic, l->max_rd_atomic);
	out->dest_rd_atomic = mlx5_rd_atomic_depth(k->max_dest_rd_atomic, l->max_dest_rd_atomic);
	return MARROW_OK;
}

static int build_rtr(const struct mlx5_local_end *l, const struct marrow_mlx5_peer_info *p,
		     const struct marrow_mlx5_conn_params *k, struct ibv_qp_attr *a, int *mask)
{
	struct mlx5_conn_resolved r;
	int rc = mlx5_conn_check(l, p, k, &r);

	if (rc)
		return rc;
	a->qp_state = IBV_QPS_RTR;
	a->path_mtu = r.mtu;
	a->dest_qp_num = p->qpn;
	a->rq_psn = p->psn;
	/* A power of two already: the kernel's rounding (down before Linux 6.12's
	 * fix, up after) leaves it as it is, so both paths program the same depth. */
	a->max_dest_rd_atomic = (uint8_t)r.dest_rd_atomic;
	a->min_rnr_timer = (uint8_t)k->min_rnr_timer;
	a->ah_attr.dlid = (uint16_t)p->lid;
	a->ah_attr.sl = (uint8_t)k->sl;
	a->ah_attr.src_path_bits = 0;
	a->ah_attr.port_num = l->port;
	if (r.grh) {
		a->ah_attr.is_global = 1;
		memcpy(a->ah_attr.grh.dgid.raw, p->gid, 16);
		a->ah_attr.grh.sgid_index = (uint8_t)l->sgid_index;
		a->ah_attr.grh.hop_limit = (uint8_t)k->hop_limit;
		a->ah_attr.grh.traffic_class = (uint8_t)k->traffic_class;
		a->ah_attr.grh.flow_label = 0;
	}
	*mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	return MARROW_OK;
}

int mlx5_build_qp_attr(enum ibv_qp_state target, const struct mlx5_local_end *local,
		       const struct marrow_mlx5_peer_info *peer,
		       const struct marrow_mlx5_conn_params *params,
		       struct ibv_qp_attr *attr, int *mask)
{
	int rc;

	if (local == NULL || params == NULL || attr == NULL || mask == NULL)
		return marrow_fail(MARROW_EINVAL, "mlx5_build_qp_attr: NULL argument");
	memset(attr, 0, sizeof(*attr));
	*mask = 0;
	rc = check_local(local);
	if (rc == MARROW_OK)
		rc = check_params(local, params);
	if (rc)
		return rc;
	switch (target) {
	case IBV_QPS_INIT:
		attr->qp_state = IBV_QPS_INIT;
		attr->pkey_index = 0;
		attr->port_num = local->port;
		/* Only the remote rights belong to a QP; local write is an MR flag. */
		attr->qp_access_flags = local->access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
							 IBV_ACCESS_REMOTE_ATOMIC);
		*mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
		return MARROW_OK;
	case IBV_QPS_RTR:
		if (peer == NULL)
			return marrow_fail(MARROW_EINVAL, "RTR needs the peer's info (NULL given)");
		return build_rtr(local, peer, params, attr, mask);
	case IBV_QPS_RTS:
		attr->qp_state = IBV_QPS_RTS;
		attr->timeout = (uint8_t)params->timeout;
		attr->retry_cnt = (uint8_t)params->retry_cnt;
		attr->rnr_retry = (uint8_t)params->rnr_retry;
		attr->sq_psn = local->psn;
		attr->max_rd_atomic = (uint8_t)mlx5_rd_atomic_depth(params->max_rd_atomic, local->max_rd_atomic);
		*mask = IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC;
		return MARROW_OK;
	default:
		return marrow_fail(MARROW_EINVAL,
				   "no attribute set for target state %d (%s): connect goes INIT, RTR, RTS",
				   (int)target, mlx5_qp_state_name((int)target));
	}
}
