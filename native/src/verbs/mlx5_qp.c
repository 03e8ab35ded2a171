/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Copyright (c) 2026 The Marrow authors
 *
 * RC QP through verbs, its queues exposed through mlx5dv_init_obj
 * (docs/design/mlx5-queue-formats.md §5.1), and the connection to a peer.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/mlx5dv.h>
#include "common/marrow_common.h"
#include "marrow/mlx5_wqe.h"
#include "mlx5_internal.h"
#include "verbs_loader.h"

#define QP_VIEW_SQ_STRIDE 64 /* one WQEBB; the poster assumes it */
#define CQE64 64

/* log_sq_wqebb_cnt counts WQEBBs (as on the software NIC); verbs counts
 * work requests: mx_send_wr_for_wqebbs (mlx5_wqe.h) translates, and
 * view.sq_wqe_cnt says what libmlx5 granted. 0 when one WQE does not fit. */
static uint32_t qp_max_send_wr(const struct marrow_mlx5_qp_attr *a)
{
	return mx_send_wr_for_wqebbs(1u << a->log_sq_wqebb_cnt, a->max_inline_data);
}

static int qp_check_attr(const struct marrow_mlx5_device *d, const struct marrow_mlx5_qp_attr *a)
{
	if (a->size < sizeof(*a) || a->comp_mask != 0)
		return marrow_fail(MARROW_EINVAL, "marrow_mlx5_qp_create: attr size %u < %zu or comp_mask 0x%x != 0",
				   a->size, sizeof(*a), a->comp_mask);
	if (a->placement == MARROW_MLX5_QUEUES_GPU)
		return marrow_fail(MARROW_ENOSYS, "marrow_mlx5_qp_create: queue placement 'gpu' is created by "
				   "marrow_mlx5_gpu_qp_create (DevX, in GPU memory the caller allocates)");
	if (a->placement != MARROW_MLX5_QUEUES_HOST)
		return marrow_fail(MARROW_EINVAL, "marrow_mlx5_qp_create: unknown placement %u", a->placement);
	if (a->log_sq_wqebb_cnt < MARROW_LOG_SQ_MIN || a->log_sq_wqebb_cnt > MARROW_LOG_SQ_MAX ||
	    (1 << a->log_sq_wqebb_cnt) > d->dattr.max_qp_wr)
		return marrow_fail(MARROW_EINVAL, "marrow_mlx5_qp_create: log_sq_wqebb_cnt %u outside 1..15 "
				   "or above the device's max_qp_wr %d", a->log_sq_wqebb_cnt, d->dattr.max_qp_wr);
	if (qp_max_send_wr(a) == 0)
		return marrow_fail(MARROW_EINVAL, "marrow_mlx5_qp_create: an SQ of 2^%u WQEBBs cannot hold one WQE "
				   "of %u WQEBBs (inline WRITE of max_inline_data %u bytes)", a->log_sq_wqebb_cnt,
				   mx_max_wqebbs_per_write(a->max_inline_data), a->max_inline_data);
	if (a->log_cqe_cnt < 1 || a->log_cqe_cnt > 22 || (1 << a->log_cqe_cnt) > d->dattr.max_cqe)
		return marrow_fail(MARROW_EINVAL, "marrow_mlx5_qp_create: log_cqe_cnt %u outside 1..22 "
				   "or above the device's max_cqe %d", a->log_cqe_cnt, d->dattr.max_cqe);
	if (a->access & ~0xfu)
		return marrow_fail(MARROW_EINVAL, "marrow_mlx5_qp_create: access 0x%x has unknown bits", a->access);
	if (a->sq_psn & ~0xffffffu)
		return marrow_fail(MARROW_EINVAL, "marrow_mlx5_qp_create: sq_psn 0x%x exceeds 24 bits", a->sq_psn);
	return MARROW_OK;
}

/* mlx5dv_init_obj for both objects, then the views. */
/* The provider's view of the QP and its CQ (mlx5dv_init_obj); prefix starts
 * the error message ("" or "caller: "). */
static int qp_dv_objs(const struct verbs_syms *s, struct marrow_mlx5_qp *q, struct mlx5dv_qp *dqp,
		      struct mlx5dv_cq *dcq, const char *prefix)
{
	struct mlx5dv_obj obj;
	int err;

	memset(dqp, 0, sizeof(*dqp));
	memset(dcq, 0, sizeof(*dcq));
	memset(&obj, 0, sizeof(obj));
	obj.qp.in = q->qp;
	obj.qp.out = dqp;
	obj.cq.in = q->cq;
	obj.cq.out = dcq;
	err = s->mlx5dv_init_obj(&obj, MLX5DV_OBJ_QP | MLX5DV_OBJ_CQ);
	if (err)
		return marrow_fail(mlx5_status_from_errno(err), "%smlx5dv_init_obj(QP|CQ) failed on qpn 0x%x: "
				   "errno %d (%s)", prefix, q->qp->qp_num, err, strerror(err));
	return MARROW_OK;
}

static int qp_fill_views(const struct verbs_syms *s, struct marrow_mlx5_qp *q, uint32_t max_inline,
			 struct marrow_qp_view *v, struct marrow_cq_view *cv)
{
	struct mlx5dv_qp dqp;
	struct mlx5dv_cq dcq;
	int err;

	err = qp_dv_objs(s, q, &dqp, &dcq, "");
	if (err)
		return err;
	if (dqp.sq.stride != QP_VIEW_SQ_STRIDE || dqp.sq.wqe_cnt == 0)
		return marrow_fail(MARROW_EPROTO, "mlx5dv_init_obj: SQ stride %u / wqe_cnt %u, expected 64 / > 0",
				   dqp.sq.stride, dqp.sq.wqe_cnt);
	if (dcq.cqe_size != CQE64)
		return marrow_fail(MARROW_EINVAL, "mlx5dv_init_obj: CQE size %u; the pollers read 64-byte CQEs "
				   "(unset MLX5_CQE_SIZE)", dcq.cqe_size);
	memset(v, 0, sizeof(*v));
	v->size = sizeof(*v);
	v->qpn = q->qp->qp_num;
	v->sq_wqe_cnt = dqp.sq.wqe_cnt;
	v->sq_stride = dqp.sq.stride;
	v->rq_wqe_cnt = dqp.rq.wqe_cnt;
	v->rq_stride = dqp.rq.stride;
	v->max_inline_data = max_inline;
	v->sq_buf = dqp.sq.buf;
	v->rq_buf = dqp.rq.wqe_cnt ? dqp.rq.buf : NULL;
	v->dbrec = (uint32_t *)dqp.dbrec;
	v->uar = dqp.bf.reg;
	v->uar_size = dqp.bf.size;
	memset(cv, 0, sizeof(*cv));
	cv->size = sizeof(*cv);
	cv->cqn = dcq.cqn;
	cv->cqe_cnt = dcq.cqe_cnt;
	cv->cqe_size = dcq.cqe_size;
	cv->flags = 0; /* a verbs CQ: not collapsed, overrun checked */
	cv->buf = dcq.buf;
	cv->dbrec = (uint32_t *)dcq.dbrec;
	return MARROW_OK;
}

static int qp_create_objs(const struct verbs_syms *s, struct marrow_mlx5_device *d,
			  const struct marrow_mlx5_qp_attr *a, struct marrow_mlx5_qp *q,
			  uint32_t *granted_inline)
{
	struct ibv_qp_init_attr ia;
	int err;

	errno = 0;
	q->cq = s->create_cq(d->ctx, 1 << a->log_cqe_cnt, NULL, NULL, 0);
	if (q->cq == NULL) {
		err = errno ? errno : ENOMEM;
		return marrow_fail(mlx5_status_from_errno(err), "ibv_create_cq(%s, %d) failed: errno %d (%s)",
				   d->name, 1 << a->log_cqe_cnt, err, strerror(err));
	}
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = q->cq;
	ia.recv_cq = q->cq;   /* required even with no receive queue */
	ia.qp_type = IBV_QPT_RC;
	ia.sq_sig_all = 0;    /* the poster decides which WQE asks for a CQE */
	ia.cap.max_send_wr = qp_max_send_wr(a);
	ia.cap.max_recv_wr = 0;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ia.cap.max_inline_data = a->max_inline_data;
	errno = 0;
	q->qp = s->create_qp(d->pd, &ia);
	if (q->qp == NULL) {
		err = errno ? errno : ENOMEM;
		return marrow_fail(mlx5_status_from_errno(err),
				   "ibv_create_qp(%s, RC, max_send_wr %u, max_inline_data %u) failed: errno %d (%s)%s",
				   d->name, ia.cap.max_send_wr, a->max_inline_data, err, strerror(err),
				   err == EINVAL ? ": max_inline_data or depth beyond what the device allows" : "");
	}
	*granted_inline = ia.cap.max_inline_data; /* the provider writes back what it granted */
	return MARROW_OK;
}

/* QP first (it references the CQ), then the CQ. */
static int qp_free(const struct verbs_syms *s, struct marrow_mlx5_qp *q)
{
	int err;

	if (q->qp) {
		err = s->destroy_qp(q->qp);
		if (err)
			return marrow_fail(mlx5_status_from_errno(err), "ibv_destroy_qp(qpn 0x%x, state %s) failed: "
					   "errno %d (%s)", q->qp->qp_num, mlx5_qp_state_name(q->qp->state),
					   err, strerror(err));
		q->qp = NULL;
	}
	if (q->cq) {
		err = s->destroy_cq(q->cq);
		if (err)
			return marrow_fail(mlx5_status_from_errno(err), "ibv_destroy_cq failed: errno %d (%s)",
					   err, strerror(err));
		q->cq = NULL;
	}
	return MARROW_OK;
}

MARROW_API int marrow_mlx5_qp_create(struct marrow_mlx5_device *d,
				     const struct marrow_mlx5_qp_attr *a,
				     struct marrow_mlx5_qp **out,
				     struct marrow_qp_view *v,
				     struct marrow_cq_view *cv)
{
	const struct verbs_syms *s = verbs_syms_get();
	struct marrow_mlx5_qp *q;
	uint32_t granted = 0;
	int rc;

	if (d == NULL || a == NULL || out == NULL || v == NULL || cv == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_mlx5_qp_create: NULL argument");
	*out = NULL;
	if (v->size < sizeof(*v) || cv->size < sizeof(*cv))
		return marrow_fail(MARROW_EINVAL, "marrow_mlx5_qp_create: view size %u < %zu or cq view size %u < %zu",
				   v->size, sizeof(*v), cv->size, sizeof(*cv));
	rc = qp_check_attr(d, a);
	if (rc)
		return rc;
	q = calloc(1, sizeof(*q));
	if (q == NULL)
		return marrow_fail(MARROW_ENOMEM, "marrow_mlx5_qp_create: out of memory");
	q->dev = d;
	q->psn = a->sq_psn;
	q->access = a->access;
	pthread_mutex_lock(&d->lock);
	rc = qp_create_objs(s, d, a, q, &granted);
	if (rc == MARROW_OK)
		rc = qp_fill_views(s, q, granted, v, cv);
	if (rc) {
		char why[400];

		snprintf(why, sizeof(why), "%s", marrow_last_error());
		qp_free(s, q); /* best effort: the first error is the one to report */
		pthread_mutex_unlock(&d->lock);
		free(q);
		return marrow_fail(rc, "%s", why);
	}
	d->n_qp++;
	pthread_mutex_unlock(&d->lock);
	*out = q;
	return MARROW_OK;
}

MARROW_API int marrow_mlx5_qp_destroy(struct marrow_mlx5_qp *q)
{
	const struct verbs_syms *s = verbs_syms_get();
	struct marrow_mlx5_device *d;
	int rc;

	if (q == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_mlx5_qp_destroy: NULL QP");
	d = q->dev;
	pthread_mutex_lock(&d->lock);
	rc = qp_free(s, q);
	if (rc == MARROW_OK)
		d->n_qp--;
	pthread_mutex_unlock(&d->lock);
	if (rc == MARROW_OK)
		free(q);
	return rc;
}

/* Port facts as the connection needs them, queried now (a LID can change);
 * shared by the verbs QPs here and the DevX QPs (mlx5_devx_api.c). */
int mlx5_port_end(const struct verbs_syms *s, struct marrow_mlx5_device *d, uint32_t psn, uint32_t access,
		  struct mlx5_local_end *le, struct ibv_port_attr *pa)
{
	int err;

	memset(pa, 0, sizeof(*pa));
	err = s->query_port(d->ctx, d->port, pa);
	if (err)
		return marrow_fail(MARROW_EIO, "ibv_query_port(%s, %u) failed: errno %d (%s)", d->name,
				   d->port, err, strerror(err));
	if (pa->state != IBV_PORT_ACTIVE)
		return marrow_fail(MARROW_EIO, "%s port %u is not ACTIVE (state %d): link down, or no subnet "
				   "manager on InfiniBand", d->name, d->port, (int)pa->state);
	memset(le, 0, sizeof(*le));
	le->port = d->port;
	le->link_layer = pa->link_layer == IBV_LINK_LAYER_ETHERNET ? IBV_LINK_LAYER_ETHERNET
								    : IBV_LINK_LAYER_INFINIBAND;
	le->active_mtu = (uint8_t)pa->active_mtu;
	le->sgid_index = d->gid_index;
	le->psn = psn;
	le->access = access;
	/* mlx5_ib reports 2^log_max_ra_req_qp / 2^log_max_ra_res_qp here; a
	 * device that reports nothing keeps the bound the ABI had, 16 */
	le->max_rd_atomic = d->dattr.max_qp_init_rd_atom > 0 ? (uint32_t)d->dattr.max_qp_init_rd_atom : 16;
	le->max_dest_rd_atomic = d->dattr.max_qp_rd_atom > 0 ? (uint32_t)d->dattr.max_qp_rd_atom : 16;
	return MARROW_OK;
}

static int qp_local_end(const struct verbs_syms *s, struct marrow_mlx5_qp *q,
			struct mlx5_local_end *le, struct ibv_port_attr *pa)
{
	return mlx5_port_end(s, q->dev, q->psn, q->access, le, pa);
}

MARROW_API int marrow_mlx5_qp_local_info(struct marrow_mlx5_qp *q, const struct marrow_mlx5_mr *mr,
					 struct marrow_mlx5_peer_info *out)
{
	const struct verbs_syms *s = verbs_syms_get();
	struct mlx5_local_end le;
	struct ibv_port_attr pa;
	union ibv_gid gid;
	int rc, err;

	if (q == NULL || out == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_mlx5_qp_local_info: NULL argument");
	if (out->size < sizeof(*out))
		return marrow_fail(MARROW_EINVAL, "marrow_mlx5_qp_local_info: size %u < %zu", out->size, sizeof(*out));
	rc = qp_local_end(s, q, &le, &pa);
	if (rc)
		return rc;
	err = s->query_gid(q->dev->ctx, q->dev->port, q->dev->gid_index, &gid);
	if (err)
		return marrow_fail(MARROW_EIO, "ibv_query_gid(%s, port %u, index %d) failed: errno %d (%s)",
				   q->dev->name, q->dev->port, q->dev->gid_index, err, strerror(err));
	memset(out, 0, sizeof(*out));
	out->size = sizeof(*out);
	out->qpn = q->qp->qp_num;
	out->psn = q->psn;
	out->lid = pa.lid;
	out->port = le.port;
	out->link_layer = le.link_layer;
	out->mtu = le.active_mtu;
	out->gid_index = q->dev->gid_index;
	memcpy(out->gid, gid.raw, 16);
	if (mr != NULL) {
		out->rkey = mr->mr->rkey;
		out->addr = (uint64_t)(uintptr_t)mr->mr->addr;
		out->len = mr->mr->length;
	}
	return MARROW_OK;
}

/* One ibv_modify_qp; the message names the step, errno and state. */
static int qp_step(const struct verbs_syms *s, struct marrow_mlx5_qp *q, enum ibv_qp_state target,
		   const struct mlx5_local_end *le, const struct marrow_mlx5_peer_info *peer,
		   const struct marrow_mlx5_conn_params *k)
{
	struct ibv_qp_attr a;
	int mask, err, rc;

	rc = mlx5_build_qp_attr(target, le, peer, k, &a, &mask);
	if (rc) {
		char why[400];

		snprintf(why, sizeof(why), "%s", marrow_last_error());
		return marrow_fail(rc, "connect qpn 0x%x to %s: %s", q->qp->qp_num, mlx5_qp_state_name(target), why);
	}
	err = s->modify_qp(q->qp, &a, mask);
	if (err)
		return marrow_fail(mlx5_status_from_errno(err),
				   "ibv_modify_qp(qpn 0x%x, %s -> %s, mask 0x%x) failed: errno %d (%s)%s",
				   q->qp->qp_num, mlx5_qp_state_name(q->qp->state), mlx5_qp_state_name(target),
				   mask, err, strerror(err),
				   target == IBV_QPS_RTR ? "; check the peer's QPN/LID/GID and the GID index" : "");
	return MARROW_OK;
}

MARROW_API int marrow_mlx5_qp_connect(struct marrow_mlx5_qp *q, const struct marrow_mlx5_peer_info *peer,
				      const struct marrow_mlx5_conn_params *params)
{
	static const enum ibv_qp_state steps[] = { IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS };
	const struct verbs_syms *s = verbs_syms_get();
	struct marrow_mlx5_conn_params defaults;
	struct mlx5_local_end le;
	struct ibv_port_attr pa;
	int rc;

	if (q == NULL || peer == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_mlx5_qp_connect: NULL argument");
	if (params == NULL) {
		defaults.size = sizeof(defaults);
		marrow_mlx5_conn_params_default(&defaults);
		params = &defaults;
	} else if (params->size < sizeof(*params)) {
		return marrow_fail(MARROW_EINVAL, "marrow_mlx5_qp_connect: params size %u < %zu",
				   params->size, sizeof(*params));
	}
	if (q->qp->state != IBV_QPS_RESET)
		return marrow_fail(MARROW_EINVAL, "marrow_mlx5_qp_connect: qpn 0x%x is in %s, connect starts from RESET",
				   q->qp->qp_num, mlx5_qp_state_name(q->qp->state));
	pthread_mutex_lock(&q->dev->lock);
	rc = qp_local_end(s, q, &le, &pa);
	for (size_t i = 0; rc == MARROW_OK && i < sizeof(steps) / sizeof(steps[0]); i++)
		rc = qp_step(s, q, steps[i], &le, peer, params);
	if (rc && q->qp->state != IBV_QPS_RESET) {
		struct ibv_qp_attr reset = { .qp_state = IBV_QPS_RESET };

		/* Back to RESET so the caller can retry; the first error stands. */
		s->modify_qp(q->qp, &reset, IBV_QP_STATE);
	}
	pthread_mutex_unlock(&q->dev->lock);
	return rc;
}

MARROW_API int marrow_mlx5_qp_reset(struct marrow_mlx5_qp *q)
{
	const struct verbs_syms *s = verbs_syms_get();
	struct ibv_qp_attr reset = { .qp_state = IBV_QPS_RESET };
	struct mlx5dv_qp dqp;
	struct mlx5dv_cq dcq;
	uint32_t cq_ci;
	int err;

	if (q == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_mlx5_qp_reset: NULL QP");
	err = qp_dv_objs(s, q, &dqp, &dcq, "marrow_mlx5_qp_reset: ");
	if (err)
		return err;
	pthread_mutex_lock(&q->dev->lock);
	/* The provider cleans the QP's CQEs from the CQ on RESET and may then
	 * publish its own consumer count, which never moved (the CQ is polled
	 * by the gda poller): keep the poller's. */
	cq_ci = __atomic_load_n(&((uint32_t *)dcq.dbrec)[0], __ATOMIC_RELAXED);
	err = s->modify_qp(q->qp, &reset, IBV_QP_STATE);
	if (err == 0) {
		__atomic_store_n(&((uint32_t *)dcq.dbrec)[0], cq_ci, __ATOMIC_RELAXED);
		/* RESET restarts the SQ at 0; a fresh QP's doorbell record is 0. */
		__atomic_store_n(&((uint32_t *)dqp.dbrec)[0], 0u, __ATOMIC_RELAXED);
		__atomic_store_n(&((uint32_t *)dqp.dbrec)[1], 0u, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&q->dev->lock);
	if (err)
		return marrow_fail(mlx5_status_from_errno(err), "ibv_modify_qp(qpn 0x%x, %s -> RESET) failed: "
				   "errno %d (%s)", q->qp->qp_num, mlx5_qp_state_name(q->qp->state), err,
				   strerror(err));
	return MARROW_OK;
}

MARROW_API int marrow_mlx5_qp_state(struct marrow_mlx5_qp *q, int *state)
{
	const struct verbs_syms *s = verbs_syms_get();
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;
	int err;

	if (q == NULL || state == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_mlx5_qp_state: NULL argument");
	memset(&a, 0, sizeof(a));
	err = s->query_qp(q->qp, &a, IBV_QP_STATE, &ia);
	if (err)
		return marrow_fail(mlx5_status_from_errno(err), "ibv_query_qp(qpn 0x%x) failed: errno %d (%s)",
				   q->qp->qp_num, err, strerror(err));
	*state = (int)a.qp_state;
	return MARROW_OK;
}
