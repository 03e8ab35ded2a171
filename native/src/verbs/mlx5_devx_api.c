/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Copyright (c) 2026 The Marrow authors
 *
 * marrow_mlx5_gpu_qp_* (marrow_mlx5.h): the DevX runtime (mlx5_devx.h)
 * bound to an opened marrow_mlx5_device, and the connection arguments
 * built from the peer's info (docs/design/mlx5-queue-formats.md §7).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/mlx5dv.h>
#include "common/marrow_common.h"
#include "mlx5_devx.h"
#include "mlx5_internal.h"
#include "verbs_loader.h"

struct marrow_mlx5_gpu_qp {
	struct marrow_mlx5_device *dev;
	struct devx_qp q;
	uint32_t psn;
	uint32_t access;
};

static struct devx_gpu_buf gpu_buf(uint64_t addr, uint64_t len, int32_t fd, uint64_t off)
{
	struct devx_gpu_buf b = { (void *)(uintptr_t)addr, (size_t)len, fd, off };

	return b;
}

static int pd_number(const struct verbs_syms *s, struct marrow_mlx5_device *d, uint32_t *pdn)
{
	struct mlx5dv_pd dpd;
	struct mlx5dv_obj obj;
	int err;

	memset(&obj, 0, sizeof(obj));
	memset(&dpd, 0, sizeof(dpd));
	obj.pd.in = d->pd;
	obj.pd.out = &dpd;
	err = s->devx.init_obj(&obj, MLX5DV_OBJ_PD);
	if (err)
		return marrow_fail(MARROW_EIO, "mlx5dv_init_obj(PD) on %s failed: errno %d (%s)", d->name, err,
				   strerror(err));
	*pdn = dpd.pdn;
	return MARROW_OK;
}

MARROW_API int marrow_mlx5_devx_check(struct marrow_mlx5_device *d)
{
	const struct verbs_syms *s;
	int rc;

	if (d == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_mlx5_devx_check: NULL device");
	rc = verbs_require_devx(&s);
	if (rc)
		return rc;
	if (!d->devx)
		return marrow_fail(MARROW_ENODEV, "DevX unavailable on %s: %s", d->name, d->devx_why);
	return MARROW_OK;
}

/* The checks both creators share; *s is the loaded table on success. */
static int gpu_qp_args(const char *fn, struct marrow_mlx5_device *d, const struct marrow_mlx5_qp_attr *a,
		       const void *mem, struct marrow_mlx5_gpu_qp **out, struct marrow_qp_view *v,
		       struct marrow_cq_view *cv)
{
	if (d == NULL || a == NULL || mem == NULL || out == NULL || v == NULL || cv == NULL)
		return marrow_fail(MARROW_EINVAL, "%s: NULL argument", fn);
	*out = NULL;
	if (a->size < sizeof(*a) || v->size < sizeof(*v) || cv->size < sizeof(*cv))
		return marrow_fail(MARROW_EINVAL, "%s: a struct size is short", fn);
	if (a->placement != MARROW_MLX5_QUEUES_GPU || (a->access & ~0xfu) || (a->sq_psn & ~0xffffffu))
		return marrow_fail(MARROW_EINVAL, "%s: placement %u (want GPU), access 0x%x or sq_psn 0x%x invalid", fn,
				   a->placement, a->access, a->sq_psn);
	return marrow_mlx5_devx_check(d);
}

/* The capabilities that shape the QP (devx_caps_query) for the device's
 * port; when they cannot be read the QP keeps the zero caps (free-running
 * timestamps, no LAG affinity, the verbs depths) and the note says why. */
static void gpu_qp_caps(const struct verbs_syms *s, struct marrow_mlx5_device *d, struct devx_caps *c,
			char *note, size_t note_len)
{
	struct ibv_port_attr pa;
	int eth;

	memset(&pa, 0, sizeof(pa));
	eth = s->query_port(d->ctx, d->port, &pa) == 0 && pa.link_layer == IBV_LINK_LAYER_ETHERNET;
	if (devx_caps_query(&s->devx, d->ctx, eth, c) != MARROW_OK) {
		snprintf(note, note_len, "HCA caps not read (%.80s): free-running timestamps, no LAG port "
			 "affinity", marrow_last_error());
		marrow_clear_error();
	}
	/* not read: ibv_query_device's numbers (the same caps), else the ABI's old bound 16 */
	if (c->max_rd_atomic == 0)
		c->max_rd_atomic = d->dattr.max_qp_init_rd_atom > 0 ? (uint32_t)d->dattr.max_qp_init_rd_atom : 16;
	if (c->max_dest_rd_atomic == 0)
		c->max_dest_rd_atomic = d->dattr.max_qp_rd_atom > 0 ? (uint32_t)d->dattr.max_qp_rd_atom : 16;
}

static void note_add(struct devx_qp *q, const char *what)
{
	size_t n = strlen(q->note);

	if (what[0] != '\0')
		snprintf(q->note + n, sizeof(q->note) - n, "%s%s", n ? "; " : "", what);
}

/* After g->q was created (rc): the views, the note and *out; on failure g goes. */
static int gpu_qp_finish(struct marrow_mlx5_device *d, const struct marrow_mlx5_qp_attr *a,
			 struct marrow_mlx5_gpu_qp *g, int rc, struct marrow_mlx5_gpu_qp **out,
			 struct marrow_qp_view *v, struct marrow_cq_view *cv, char *note, uint32_t note_len)
{
	if (rc) {
		free(g);
		return rc;
	}
	memset(v, 0, sizeof(*v));
	v->size = sizeof(*v);
	v->qpn = g->q.qpn;
	v->sq_wqe_cnt = 1u << a->log_sq_wqebb_cnt;
	v->sq_stride = MX_WQEBB_SIZE;
	v->max_inline_data = a->max_inline_data; /* our WQEs: the poster sizes them */
	v->sq_buf = g->q.spec.sq.addr;
	v->dbrec = (uint32_t *)((uint8_t *)g->q.spec.dbr.addr + DEVX_QP_DBR_OFFSET);
	v->uar = g->q.uar->reg_addr;
	v->uar_size = 0; /* store 8 bytes: a doorbell, no BlueFlame copy */
	memset(cv, 0, sizeof(*cv));
	cv->size = sizeof(*cv);
	cv->cqn = g->q.cqn;
	cv->cqe_cnt = 1u << a->log_cqe_cnt;
	cv->cqe_size = 64;
	cv->flags = 0;
	cv->buf = g->q.spec.cq.addr;
	cv->dbrec = (uint32_t *)((uint8_t *)g->q.spec.dbr.addr + DEVX_CQ_DBR_OFFSET);
	if (note != NULL && note_len > 0)
		snprintf(note, note_len, "%s", g->q.note);
	(void)d;
	*out = g;
	marrow_clear_error();
	return MARROW_OK;
}

static struct marrow_mlx5_gpu_qp *gpu_qp_new(struct marrow_mlx5_device *d, const struct marrow_mlx5_qp_attr *a)
{
	struct marrow_mlx5_gpu_qp *g = calloc(1, sizeof(*g));

	if (g == NULL) {
		marrow_fail(MARROW_ENOMEM, "GPU QP: out of memory");
		return NULL;
	}
	g->dev = d;
	g->psn = a->sq_psn;
	g->access = a->access;
	return g;
}

MARROW_API int marrow_mlx5_gpu_qp_create(struct marrow_mlx5_device *d, const struct marrow_mlx5_qp_attr *a,
					 const struct marrow_mlx5_gpu_queues *m, struct marrow_mlx5_gpu_qp **out,
					 struct marrow_qp_view *v, struct marrow_cq_view *cv, char *note,
					 uint32_t note_len)
{
	const struct verbs_syms *s;
	struct marrow_mlx5_gpu_qp *g;
	struct devx_qp_spec spec;
	char caps_note[160] = "";
	int rc = gpu_qp_args("marrow_mlx5_gpu_qp_create", d, a, m, out, v, cv);

	if (rc)
		return rc;
	if (m->size < sizeof(*m) || m->comp_mask != 0)
		return marrow_fail(MARROW_EINVAL, "marrow_mlx5_gpu_qp_create: queues size %u short or comp_mask != 0",
				   m->size);
	s = verbs_syms_get();
	memset(&spec, 0, sizeof(spec));
	spec.ctx = d->ctx;
	spec.log_sq_wqebb_cnt = a->log_sq_wqebb_cnt;
	spec.log_cqe_cnt = a->log_cqe_cnt;
	spec.sq = gpu_buf(m->sq, m->sq_len, m->sq_dmabuf_fd, m->sq_dmabuf_offset);
	spec.cq = gpu_buf(m->cq, m->cq_len, m->cq_dmabuf_fd, m->cq_dmabuf_offset);
	spec.dbr = gpu_buf(m->dbr, m->dbr_len, m->dbr_dmabuf_fd, m->dbr_dmabuf_offset);
	spec.copy.to_gpu = m->to_gpu;
	spec.copy.from_gpu = m->from_gpu;
	spec.copy.ctx = m->copy_ctx;
	if ((g = gpu_qp_new(d, a)) == NULL)
		return MARROW_ENOMEM;
	pthread_mutex_lock(&d->lock);
	rc = pd_number(s, d, &spec.pdn);
	if (rc == MARROW_OK) {
		gpu_qp_caps(s, d, &spec.caps, caps_note, sizeof(caps_note));
		rc = devx_qp_create(&s->devx, &spec, &g->q);
	}
	if (rc == MARROW_OK) {
		note_add(&g->q, caps_note);
		d->n_qp++;
	}
	pthread_mutex_unlock(&d->lock);
	return gpu_qp_finish(d, a, g, rc, out, v, cv, note, note_len);
}

MARROW_API int marrow_mlx5_gpu_qp_open(struct marrow_mlx5_device *d, const struct marrow_mlx5_qp_attr *a,
				       const struct marrow_mlx5_gpu_mem_ops *ops, struct marrow_mlx5_gpu_qp **out,
				       struct marrow_qp_view *v, struct marrow_cq_view *cv, char *note,
				       uint32_t note_len)
{
	const struct verbs_syms *s;
	struct marrow_mlx5_gpu_qp *g;
	struct devx_caps caps;
	char caps_note[160] = "";
	uint32_t pdn = 0;
	int rc = gpu_qp_args("marrow_mlx5_gpu_qp_open", d, a, ops, out, v, cv);

	if (rc)
		return rc;
	s = verbs_syms_get();
	if ((g = gpu_qp_new(d, a)) == NULL)
		return MARROW_ENOMEM;
	pthread_mutex_lock(&d->lock);
	rc = pd_number(s, d, &pdn);
	if (rc == MARROW_OK) {
		gpu_qp_caps(s, d, &caps, caps_note, sizeof(caps_note));
		rc = devx_qp_open(&s->devx, ops, d->ctx, pdn, a->log_sq_wqebb_cnt, a->log_cqe_cnt, &caps, &g->q);
	}
	if (rc == MARROW_OK) {
		note_add(&g->q, caps_note);
		d->n_qp++;
	}
	pthread_mutex_unlock(&d->lock);
	return gpu_qp_finish(d, a, g, rc, out, v, cv, note, note_len);
}

MARROW_API int marrow_mlx5_gpu_qp_destroy(struct marrow_mlx5_gpu_qp *g)
{
	int rc;

	if (g == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_mlx5_gpu_qp_destroy: NULL QP");
	pthread_mutex_lock(&g->dev->lock);
	rc = devx_qp_destroy(&g->q); /* releases everything even when a step fails */
	g->dev->n_qp--;
	pthread_mutex_unlock(&g->dev->lock);
	free(g);
	return rc;
}

MARROW_API int marrow_mlx5_gpu_qp_indexes(struct marrow_mlx5_gpu_qp *g, uint32_t *sq_pi, uint32_t *cq_ci)
{
	if (g == NULL || sq_pi == NULL || cq_ci == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_mlx5_gpu_qp_indexes: NULL argument");
	return devx_qp_read_indexes(&g->q, sq_pi, cq_ci);
}

/* The local end with the depth caps this QP was created under (HCA caps). */
static int port_end(const struct verbs_syms *s, struct marrow_mlx5_gpu_qp *g, struct mlx5_local_end *le,
		    struct ibv_port_attr *pa)
{
	int rc = mlx5_port_end(s, g->dev, g->psn, g->access, le, pa);

	if (rc == MARROW_OK) {
		le->max_rd_atomic = g->q.spec.caps.max_rd_atomic;
		le->max_dest_rd_atomic = g->q.spec.caps.max_dest_rd_atomic;
	}
	return rc;
}

MARROW_API int marrow_mlx5_gpu_qp_local_info(struct marrow_mlx5_gpu_qp *g, const struct marrow_mlx5_mr *mr,
					     struct marrow_mlx5_peer_info *out)
{
	const struct verbs_syms *s = verbs_syms_get();
	struct mlx5_local_end le;
	struct ibv_port_attr pa;
	union ibv_gid gid;
	int rc, err;

	if (g == NULL || out == NULL || out->size < sizeof(*out))
		return marrow_fail(MARROW_EINVAL, "marrow_mlx5_gpu_qp_local_info: NULL argument or short size");
	rc = port_end(s, g, &le, &pa);
	if (rc)
		return rc;
	err = s->query_gid(g->dev->ctx, g->dev->port, g->dev->gid_index, &gid);
	if (err)
		return marrow_fail(MARROW_EIO, "ibv_query_gid(%s, port %u, index %d) failed: errno %d", g->dev->name,
				   g->dev->port, g->dev->gid_index, err);
	memset(out, 0, sizeof(*out));
	out->size = sizeof(*out);
	out->qpn = g->q.qpn;
	out->psn = g->psn;
	out->lid = pa.lid;
	out->port = le.port;
	out->link_layer = le.link_layer;
	out->mtu = le.active_mtu;
	out->gid_index = g->dev->gid_index;
	memcpy(out->gid, gid.raw, 16);
	if (mr != NULL) {
		out->rkey = mr->mr->rkey;
		out->addr = (uint64_t)(uintptr_t)mr->mr->addr;
		out->len = mr->mr->length;
	}
	return MARROW_OK;
}

/* RoCE destination MAC: a link-local GID carries it; any other GID is
 * resolved by the kernel when it builds an address handle, whose mlx5
 * address vector (mlx5dv_init_obj AH) holds the MAC. */
static int roce_mac(const struct verbs_syms *s, struct marrow_mlx5_gpu_qp *g, const uint8_t gid[16],
		    uint32_t hop_limit, uint8_t mac[6])
{
	struct ibv_ah_attr ah;
	struct mlx5dv_ah dah;
	struct mlx5dv_obj obj;
	struct ibv_ah *h;
	int err;

	if (devx_mac_from_link_local_gid(gid, mac) == 0)
		return MARROW_OK;
	if (s->devx.create_ah == NULL || s->devx.destroy_ah == NULL)
		return marrow_fail(MARROW_ENOSYS, "libibverbs lacks ibv_create_ah: no MAC for a routable RoCE GID");
	memset(&ah, 0, sizeof(ah));
	ah.is_global = 1;
	memcpy(ah.grh.dgid.raw, gid, 16);
	ah.grh.sgid_index = (uint8_t)g->dev->gid_index;
	ah.grh.hop_limit = (uint8_t)hop_limit;
	ah.port_num = g->dev->port;
	errno = 0;
	h = s->devx.create_ah(g->dev->pd, &ah);
	if (h == NULL)
		return marrow_fail(MARROW_EIO, "ibv_create_ah (to resolve the peer's MAC) failed: errno %d (%s)",
				   errno, strerror(errno));
	memset(&obj, 0, sizeof(obj));
	memset(&dah, 0, sizeof(dah));
	obj.ah.in = h;
	obj.ah.out = &dah;
	err = s->devx.init_obj(&obj, MLX5DV_OBJ_AH);
	if (err == 0)
		memcpy(mac, dah.av->rmac, 6);
	s->devx.destroy_ah(h);
	if (err)
		return marrow_fail(MARROW_EIO, "mlx5dv_init_obj(AH) failed: errno %d", err);
	return MARROW_OK;
}

/*
 * The DevX connection arguments from the checked parameters (pure; r from
 * mlx5_conn_check). RoCE: destination GID and MAC, hop limit, source GID
 * index, UDP source port, traffic class, and the priority the verbs path
 * gets from the kernel: eth_prio = sl, dscp = traffic class >> 2 on a RoCE
 * v2 GID. InfiniBand: LID and sl. Depths as log2 of the resolved powers of
 * two. docs/design/mlx5-queue-formats.md §6.1.
 */
void mlx5_devx_conn_args(const struct mlx5_local_end *le, const struct marrow_mlx5_peer_info *peer,
			 const struct marrow_mlx5_conn_params *k, const struct mlx5_conn_resolved *r,
			 uint32_t local_qpn, int roce_v2, struct prm_rtr_args *rtr, struct prm_rts_args *rts)
{
	memset(rtr, 0, sizeof(*rtr));
	rtr->remote_qpn = peer->qpn;
	rtr->mtu = (uint32_t)r->mtu; /* enum ibv_mtu and the PRM's MTU code agree: 1 = 256 .. 5 = 4096 */
	rtr->rq_psn = peer->psn;
	rtr->min_rnr_timer = k->min_rnr_timer;
	rtr->log_rra_max = mlx5_log2_floor(r->dest_rd_atomic);
	rtr->port = le->port;
	rtr->sl = k->sl;
	if (le->link_layer == IBV_LINK_LAYER_ETHERNET) {
		rtr->roce = 1;
		rtr->roce_v2 = roce_v2 ? 1 : 0;
		memcpy(rtr->rgid, peer->gid, 16);
		rtr->hop_limit = k->hop_limit;
		rtr->traffic_class = k->traffic_class;
		rtr->sgid_index = (uint32_t)le->sgid_index;
		/* Our choice: a fixed RoCE v2 source port per QP pair, in the dynamic range. */
		rtr->udp_sport = 0xc000u | ((local_qpn ^ peer->qpn) & 0x3fffu);
	} else {
		rtr->rlid = peer->lid & 0xffffu;
	}
	memset(rts, 0, sizeof(*rts));
	rts->sq_psn = le->psn;
	rts->ack_timeout = k->timeout;
	rts->retry_cnt = k->retry_cnt;
	rts->rnr_retry = k->rnr_retry;
	rts->log_sra_max = mlx5_log2_floor(r->rd_atomic);
}

MARROW_API int marrow_mlx5_gpu_qp_connect(struct marrow_mlx5_gpu_qp *g, const struct marrow_mlx5_peer_info *peer,
					  const struct marrow_mlx5_conn_params *params)
{
	const struct verbs_syms *s = verbs_syms_get();
	struct marrow_mlx5_conn_params k;
	struct mlx5_conn_resolved r;
	struct prm_rtr_args rtr;
	struct prm_rts_args rts;
	struct mlx5_local_end le;
	struct ibv_port_attr pa;
	int rc;

	if (g == NULL || peer == NULL || peer->size < sizeof(*peer))
		return marrow_fail(MARROW_EINVAL, "marrow_mlx5_gpu_qp_connect: NULL argument or short peer info");
	if (params == NULL) {
		k.size = sizeof(k);
		marrow_mlx5_conn_params_default(&k);
	} else if (params->size < sizeof(*params)) {
		return marrow_fail(MARROW_EINVAL, "marrow_mlx5_gpu_qp_connect: params size %u < %zu", params->size,
				   sizeof(*params));
	} else {
		k = *params;
	}
	pthread_mutex_lock(&g->dev->lock);
	rc = port_end(s, g, &le, &pa);
	/* The same checker as the verbs path: nothing out of range reaches the device. */
	if (rc == MARROW_OK)
		rc = mlx5_conn_check(&le, peer, &k, &r);
	if (rc == MARROW_OK && r.grh && le.link_layer != IBV_LINK_LAYER_ETHERNET)
		rc = marrow_fail(MARROW_ENOSYS, "marrow_mlx5_gpu_qp_connect: InfiniBand with a GRH is not "
				 "encoded for DevX (LID path only)");
	if (rc == MARROW_OK) {
		mlx5_devx_conn_args(&le, peer, &k, &r, g->q.qpn, g->dev->gid_roce_v2, &rtr, &rts);
		if (rtr.roce)
			rc = roce_mac(s, g, peer->gid, k.hop_limit, rtr.rmac);
	}
	if (rc == MARROW_OK)
		rc = devx_qp_connect(&g->q, g->dev->port, g->access, &rtr, &rts);
	pthread_mutex_unlock(&g->dev->lock);
	return rc;
}

MARROW_API int marrow_mlx5_gpu_qp_reset(struct marrow_mlx5_gpu_qp *g)
{
	int rc;

	if (g == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_mlx5_gpu_qp_reset: NULL QP");
	pthread_mutex_lock(&g->dev->lock);
	rc = devx_qp_reset(&g->q);
	pthread_mutex_unlock(&g->dev->lock);
	return rc;
}
