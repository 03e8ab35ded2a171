/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * RC queue pairs, DC initiators and DC targets: SQ ring of WQEBBs, optional RQ ring, a doorbell record
 * page and a 4 KiB UAR doorbell page per QP (which other QPs may share),
 * all page-aligned host memory.
 * State changes happen with the engine parked, so the engine never sees a
 * half-made transition.
 */
#include <stdlib.h>
#include <string.h>

#include "emu_internal.h"

#define EMU_ACCESS_ALL (MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE | \
			MARROW_ACCESS_REMOTE_READ | MARROW_ACCESS_REMOTE_ATOMIC)

int emu_qp_check(const struct marrow_emu_qp *qp, const char *fn)
{
	if (qp == NULL)
		return marrow_fail(MARROW_EINVAL, "%s: qp is NULL", fn);
	if (qp->magic != EMU_MAGIC_QP)
		return marrow_fail(MARROW_EINVAL, "%s: not a live softnic QP (bad magic 0x%08x)", fn,
				   qp->magic);
	return MARROW_OK;
}

static const char *state_name(uint32_t s)
{
	switch (s) {
	case MARROW_QPS_RESET: return "RESET";
	case MARROW_QPS_INIT: return "INIT";
	case MARROW_QPS_RTR: return "RTR";
	case MARROW_QPS_RTS: return "RTS";
	case MARROW_QPS_ERR: return "ERR";
	default: return "?";
	}
}

static uint32_t next_pow2(uint32_t v)
{
	uint32_t p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

static int check_attr(const struct marrow_emu_pd *pd, const struct marrow_emu_qp_attr *a)
{
	const char *fn = "marrow_emu_qp_create";
	uint32_t sq_cnt;

	if (a->size != sizeof(*a))
		return marrow_fail(MARROW_EINVAL, "%s: attr->size %u != sizeof(struct marrow_emu_qp_attr) %zu",
				   fn, a->size, sizeof(*a));
	if (a->comp_mask != 0)
		return marrow_fail(MARROW_EINVAL, "%s: attr->comp_mask 0x%x: no extensions are defined", fn,
				   a->comp_mask);
	if (a->reserved != 0)
		return marrow_fail(MARROW_EINVAL, "%s: attr->reserved must be 0, got 0x%x", fn, a->reserved);
	if (emu_cq_check(a->send_cq, "marrow_emu_qp_create(send_cq)"))
		return MARROW_EINVAL;
	if (a->send_cq->dev != pd->dev)
		return marrow_fail(MARROW_EINVAL, "%s: send_cq 0x%x belongs to another device", fn,
				   a->send_cq->cqn);
	if (marrow_check_log_sq(a->log_sq_wqebb_cnt) != MARROW_OK)
		return marrow_fail(MARROW_EINVAL, "%s: log_sq_wqebb_cnt %u out of range %d..%d", fn,
				   a->log_sq_wqebb_cnt, MARROW_LOG_SQ_MIN, MARROW_LOG_SQ_MAX);
	if (a->log_rq_wqe_cnt > 15)
		return marrow_fail(MARROW_EINVAL, "%s: log_rq_wqe_cnt %u out of range 0..15", fn,
				   a->log_rq_wqe_cnt);
	if (a->log_rq_wqe_cnt > 0) {
		if (a->recv_cq == NULL)
			return marrow_fail(MARROW_EINVAL, "%s: a QP with an RQ (log_rq_wqe_cnt %u) needs a recv_cq",
					   fn, a->log_rq_wqe_cnt);
		if (a->max_rq_sge < 1 || a->max_rq_sge > EMU_MAX_RQ_SGE)
			return marrow_fail(MARROW_EINVAL, "%s: max_rq_sge %u out of range 1..%d", fn,
					   a->max_rq_sge, EMU_MAX_RQ_SGE);
	}
	if (a->recv_cq != NULL) {
		if (emu_cq_check(a->recv_cq, "marrow_emu_qp_create(recv_cq)"))
			return MARROW_EINVAL;
		if (a->recv_cq->dev != pd->dev)
			return marrow_fail(MARROW_EINVAL, "%s: recv_cq 0x%x belongs to another device", fn,
					   a->recv_cq->cqn);
	}
	if (a->max_inline_data > EMU_MAX_INLINE)
		return marrow_fail(MARROW_EINVAL, "%s: max_inline_data %u too large (at most %d, 16 WQEBBs)",
				   fn, a->max_inline_data, EMU_MAX_INLINE);
	sq_cnt = 1u << a->log_sq_wqebb_cnt;
	if (mx_wqebbs(mx_ds_inline_write(a->max_inline_data)) > sq_cnt)
		return marrow_fail(MARROW_EINVAL,
				   "%s: max_inline_data %u needs %u WQEBBs per WQE but the SQ has only %u",
				   fn, a->max_inline_data, mx_wqebbs(mx_ds_inline_write(a->max_inline_data)),
				   sq_cnt);
	if (a->access & ~(uint32_t)EMU_ACCESS_ALL)
		return marrow_fail(MARROW_EINVAL, "%s: unknown access bits 0x%x", fn,
				   a->access & ~(uint32_t)EMU_ACCESS_ALL);
	return MARROW_OK;
}

/* Leaves qp's doorbell page; frees the page with its last QP. Engine
 * parked (or qp never published). */
static void uar_leave(struct marrow_emu_qp *qp)
{
	struct emu_uar *u = qp->uar;

	if (u == NULL)
		return;
	for (uint32_t i = 0; i < u->nqps; i++) {
		if (u->qps[i] == qp) {
			memmove(&u->qps[i], &u->qps[i + 1], (u->nqps - i - 1) * sizeof(u->qps[0]));
			u->nqps--;
			break;
		}
	}
	if (u->nqps == 0) {
		emu_free_pages(u->page);
		free(u);
	}
	qp->uar = NULL;
}

static void free_qp(struct marrow_emu_qp *qp)
{
	emu_free_pages(qp->sq);
	emu_free_pages(qp->rq);
	uar_leave(qp);
	emu_free_pages(qp->dbrec_page);
	free(qp->shadow);
	qp->magic = EMU_MAGIC_DEAD;
	free(qp);
}

static struct marrow_emu_qp *find_qp(struct marrow_emu_device *dev, uint32_t qpn)
{
	for (uint32_t i = 0; i < dev->qps_len; i++)
		if (dev->qps[i]->qpn == qpn)
			return dev->qps[i];
	return NULL;
}

/* Next free 24-bit QPN at or above EMU_QPN_BASE. ctl_lock held. */
static struct marrow_emu_dct *find_dct(struct marrow_emu_device *dev, uint32_t dctn)
{
	for (uint32_t i = 0; i < dev->dcts_len; i++)
		if (dev->dcts[i]->dctn == dctn)
			return dev->dcts[i];
	return NULL;
}

/* QPs and DCTs share one number space, as on a ConnectX (a DCT number is
 * a QPN): a DCI's WQE names its target by that number. */
static uint32_t alloc_qpn(struct marrow_emu_device *dev)
{
	for (;;) {
		uint32_t q = dev->next_qpn++;

		if (dev->next_qpn > 0xffffff)
			dev->next_qpn = EMU_QPN_BASE;
		if (find_qp(dev, q) == NULL && find_dct(dev, q) == NULL)
			return q;
	}
}

static int qp_create(struct marrow_emu_pd *pd, const struct marrow_emu_qp_attr *attr,
		     struct marrow_emu_qp **out, struct marrow_qp_view *view, uint32_t dci)
{
	const char *fn = dci ? "marrow_emu_dci_create" : "marrow_emu_qp_create";
	struct marrow_emu_device *dev;
	struct marrow_emu_qp *qp;
	int rc = emu_pd_check(pd, fn);

	if (rc)
		return rc;
	if (attr == NULL || out == NULL || view == NULL)
		return marrow_fail(MARROW_EINVAL, "%s: attr, out and view must not be NULL", fn);
	rc = check_attr(pd, attr);
	if (rc)
		return rc;
	if (dci && attr->log_rq_wqe_cnt != 0)
		return marrow_fail(MARROW_EINVAL, "%s: a DCI has no receive queue (log_rq_wqe_cnt %u, must be 0)",
				   fn, attr->log_rq_wqe_cnt);
	dev = pd->dev;

	qp = emu_zalloc64(sizeof(*qp));
	if (qp == NULL)
		return marrow_fail(MARROW_ENOMEM, "%s: out of memory", fn);
	qp->sq_cnt = 1u << attr->log_sq_wqebb_cnt;
	qp->sq_mask = qp->sq_cnt - 1;
	qp->sh_cnt = qp->sq_cnt < EMU_SHADOW_MAX ? qp->sq_cnt : EMU_SHADOW_MAX;
	qp->sh_mask = qp->sh_cnt - 1;
	qp->sq = emu_alloc_pages((size_t)qp->sq_cnt * MX_WQEBB_SIZE, &qp->sq_bytes);
	qp->uar = emu_zalloc64(sizeof(*qp->uar));
	if (qp->uar != NULL) {
		qp->uar->page = emu_alloc_pages(EMU_UAR_SIZE, NULL);
		qp->uar->qps[0] = qp;
		qp->uar->nqps = 1;
		if (qp->uar->page == NULL) {
			free(qp->uar);
			qp->uar = NULL;
		}
	}
	qp->dbrec_page = emu_alloc_pages(8, NULL);
	if (posix_memalign((void **)&qp->shadow, 64, (size_t)qp->sh_cnt * MX_WQEBB_SIZE) != 0)
		qp->shadow = NULL;
	if (attr->log_rq_wqe_cnt) {
		qp->rq_cnt = 1u << attr->log_rq_wqe_cnt;
		qp->rq_stride = MX_DATA_SEG_SIZE * next_pow2(attr->max_rq_sge);
		qp->rq = emu_alloc_pages((size_t)qp->rq_cnt * qp->rq_stride, &qp->rq_bytes);
	}
	if (qp->sq == NULL || qp->uar == NULL || qp->dbrec_page == NULL || qp->shadow == NULL ||
	    (qp->rq_cnt && qp->rq == NULL)) {
		free_qp(qp);
		return marrow_fail(MARROW_ENOMEM, "%s: out of memory", fn);
	}
	qp->dbrec = qp->dbrec_page;
	qp->state = MARROW_QPS_RESET;
	qp->scq = attr->send_cq;
	qp->rcq = attr->recv_cq;
	qp->pd = pd;
	qp->max_inline = attr->max_inline_data;
	qp->access = attr->access;
	qp->dci = dci;
	/* The attributes Marrow's verbs path gives a ConnectX QP. */
	qp->timeout = 14;
	qp->retry_cnt = 7;
	qp->rnr_retry = 6;
	qp->min_rnr_timer = 12;
	qp->magic = EMU_MAGIC_QP;

	pthread_mutex_lock(&dev->ctl_lock);
	if (dev->qps_len == dev->qps_cap) {
		uint32_t cap = dev->qps_cap ? dev->qps_cap * 2 : 16;
		struct marrow_emu_qp **q = realloc(dev->qps, cap * sizeof(*q));

		if (q == NULL) {
			pthread_mutex_unlock(&dev->ctl_lock);
			free_qp(qp);
			return marrow_fail(MARROW_ENOMEM, "%s: out of memory", fn);
		}
		dev->qps = q;
		dev->qps_cap = cap;
	}
	qp->qpn = alloc_qpn(dev);
	qp->uidx = dev->next_uidx++ & 0xffffff;
	qp->thread = qp->qpn % dev->nthreads;
	emu_quiesce(dev);
	rc = emu_engine_add_qp(&dev->threads[qp->thread], qp);
	emu_unquiesce(dev);
	if (rc) {
		pthread_mutex_unlock(&dev->ctl_lock);
		free_qp(qp);
		return rc;
	}
	dev->qps[dev->qps_len++] = qp;
	qp->scq->refcnt++;
	if (qp->rcq)
		qp->rcq->refcnt++;
	pd->n_qp++;
	dev->n_qp++;
	pthread_mutex_unlock(&dev->ctl_lock);

	memset(view, 0, sizeof(*view));
	view->size = sizeof(*view);
	view->qpn = qp->qpn;
	view->sq_wqe_cnt = qp->sq_cnt;
	view->sq_stride = MX_WQEBB_SIZE;
	view->rq_wqe_cnt = qp->rq_cnt;
	view->rq_stride = qp->rq_stride;
	view->max_inline_data = qp->max_inline;
	view->sq_buf = qp->sq;
	view->rq_buf = qp->rq;
	view->dbrec = qp->dbrec_page;
	view->uar = qp->uar->page;
	view->uar_size = EMU_UAR_SIZE;
	*out = qp;
	return MARROW_OK;
}

MARROW_API int marrow_emu_qp_create(struct marrow_emu_pd *pd, const struct marrow_emu_qp_attr *attr,
				    struct marrow_emu_qp **out, struct marrow_qp_view *view)
{
	return qp_create(pd, attr, out, view, 0);
}

MARROW_API int marrow_emu_dci_create(struct marrow_emu_pd *pd, const struct marrow_emu_qp_attr *attr,
				     struct marrow_emu_qp **out, struct marrow_qp_view *view)
{
	return qp_create(pd, attr, out, view, 1);
}

MARROW_API int marrow_emu_dct_create(struct marrow_emu_pd *pd, const struct marrow_emu_dct_attr *attr,
				     struct marrow_emu_dct **out, uint32_t *dctn)
{
	const char *fn = "marrow_emu_dct_create";
	struct marrow_emu_device *dev;
	struct marrow_emu_dct *dct;
	int rc = emu_pd_check(pd, fn);

	if (rc)
		return rc;
	if (attr == NULL || out == NULL || dctn == NULL)
		return marrow_fail(MARROW_EINVAL, "%s: attr, out and dctn must not be NULL", fn);
	if (attr->size != sizeof(*attr))
		return marrow_fail(MARROW_EINVAL, "%s: attr->size %u != sizeof(struct marrow_emu_dct_attr) %zu",
				   fn, attr->size, sizeof(*attr));
	if (attr->comp_mask != 0 || attr->reserved != 0)
		return marrow_fail(MARROW_EINVAL, "%s: attr->comp_mask and attr->reserved must be 0", fn);
	if (attr->access & ~(uint32_t)EMU_ACCESS_ALL)
		return marrow_fail(MARROW_EINVAL, "%s: unknown access bits 0x%x", fn,
				   attr->access & ~(uint32_t)EMU_ACCESS_ALL);
	dev = pd->dev;
	dct = calloc(1, sizeof(*dct));
	if (dct == NULL)
		return marrow_fail(MARROW_ENOMEM, "%s: out of memory", fn);
	dct->dc_key = attr->dc_key;
	dct->pd = pd;
	dct->access = attr->access;
	dct->magic = EMU_MAGIC_DCT;

	pthread_mutex_lock(&dev->ctl_lock);
	if (dev->dcts_len == dev->dcts_cap) {
		uint32_t cap = dev->dcts_cap ? dev->dcts_cap * 2 : 16;
		struct marrow_emu_dct **d = malloc(cap * sizeof(*d));

		if (d == NULL) {
			pthread_mutex_unlock(&dev->ctl_lock);
			free(dct);
			return marrow_fail(MARROW_ENOMEM, "%s: out of memory", fn);
		}
		/* The engine reads the table: swap it in while parked. */
		if (dev->dcts_len)
			memcpy(d, dev->dcts, dev->dcts_len * sizeof(*d));
		emu_quiesce(dev);
		free(dev->dcts);
		dev->dcts = d;
		dev->dcts_cap = cap;
		emu_unquiesce(dev);
	}
	dct->dctn = alloc_qpn(dev);
	emu_quiesce(dev);
	dev->dcts[dev->dcts_len++] = dct;
	emu_unquiesce(dev);
	pd->n_qp++;
	dev->n_qp++;
	pthread_mutex_unlock(&dev->ctl_lock);
	*dctn = dct->dctn;
	*out = dct;
	return MARROW_OK;
}

MARROW_API int marrow_emu_dct_destroy(struct marrow_emu_dct *dct)
{
	struct marrow_emu_device *dev;

	if (dct == NULL || dct->magic != EMU_MAGIC_DCT)
		return marrow_fail(MARROW_EINVAL, "marrow_emu_dct_destroy: not a live DCT (%p)", (void *)dct);
	dev = dct->pd->dev;
	pthread_mutex_lock(&dev->ctl_lock);
	emu_quiesce(dev);
	for (uint32_t i = 0; i < dev->dcts_len; i++) {
		if (dev->dcts[i] == dct) {
			dev->dcts[i] = dev->dcts[--dev->dcts_len];
			break;
		}
	}
	emu_unquiesce(dev);
	dct->pd->n_qp--;
	dev->n_qp--;
	pthread_mutex_unlock(&dev->ctl_lock);
	dct->magic = EMU_MAGIC_DEAD;
	free(dct);
	return MARROW_OK;
}

MARROW_API int marrow_emu_qp_destroy(struct marrow_emu_qp *qp)
{
	struct marrow_emu_device *dev;
	int rc = emu_qp_check(qp, "marrow_emu_qp_destroy");

	if (rc)
		return rc;
	dev = qp->pd->dev;
	pthread_mutex_lock(&dev->ctl_lock);
	emu_quiesce(dev);
	emu_engine_remove_qp(&dev->threads[qp->thread], qp);
	for (uint32_t i = 0; i < dev->qps_len; i++) {
		if (dev->qps[i]->peer == qp)
			dev->qps[i]->peer = NULL;   /* its WQEs now time out: RETRY_EXC */
	}
	uar_leave(qp);   /* while parked: the page may be shared */
	emu_unquiesce(dev);
	for (uint32_t i = 0; i < dev->qps_len; i++) {
		if (dev->qps[i] == qp) {
			dev->qps[i] = dev->qps[--dev->qps_len];
			break;
		}
	}
	qp->scq->refcnt--;
	if (qp->rcq)
		qp->rcq->refcnt--;
	qp->pd->n_qp--;
	dev->n_qp--;
	pthread_mutex_unlock(&dev->ctl_lock);
	free_qp(qp);
	return MARROW_OK;
}

/* Back to the freshly created condition, as mlx5 does on RESET: rings
 * restart at counter 0 and the doorbell record is cleared. Engine parked. */
static void reset_qp(struct marrow_emu_qp *qp)
{
	qp->fetch_pi = 0;
	qp->exec_ci = 0;
	qp->last_target = 0;
	qp->db_target = 0;
	qp->rnr_wait = 0;
	qp->wait_kind = EMU_WAIT_NONE;
	qp->dbr_seen = 0;
	qp->rq_ci = 0;
	qp->peer = NULL;
	qp->shmwire = NULL;
	qp->dbrec_page[0] = 0;
	qp->dbrec_page[1] = 0;
	/* A doorbell of this QP not yet taken belongs to the old incarnation. */
	for (int h = 0; h < 2; h++) {
		uint64_t *slot = (uint64_t *)(qp->uar->page + h * EMU_UAR_HALF);
		uint64_t db = __atomic_load_n(slot, __ATOMIC_RELAXED);

		if (db != 0 && mx_doorbell_qpn(db) == qp->qpn)
			__atomic_store_n(slot, 0, __ATOMIC_RELAXED);
	}
}

MARROW_API int marrow_emu_qp_modify(struct marrow_emu_qp *qp, int new_state, uint32_t peer_qpn)
{
	const char *fn = "marrow_emu_qp_modify";
	struct marrow_emu_device *dev;
	struct marrow_emu_qp *peer = NULL;
	uint32_t cur;
	int ok;
	int rc = emu_qp_check(qp, fn);

	if (rc)
		return rc;
	if (new_state != MARROW_QPS_RESET && new_state != MARROW_QPS_INIT && new_state != MARROW_QPS_RTR &&
	    new_state != MARROW_QPS_RTS && new_state != MARROW_QPS_ERR)
		return marrow_fail(MARROW_EINVAL, "%s: QP 0x%x: unknown state %d", fn, qp->qpn, new_state);
	dev = qp->pd->dev;
	pthread_mutex_lock(&dev->ctl_lock);
	emu_quiesce(dev);
	cur = __atomic_load_n(&qp->state, __ATOMIC_ACQUIRE);
	switch (new_state) {
	case MARROW_QPS_INIT: ok = cur == MARROW_QPS_RESET; break;
	case MARROW_QPS_RTR: ok = cur == MARROW_QPS_INIT; break;
	case MARROW_QPS_RTS: ok = cur == MARROW_QPS_RTR; break;
	default: ok = 1; break;   /* any -> ERR, any -> RESET */
	}
	if (!ok) {
		rc = marrow_fail(MARROW_EINVAL, "%s: QP 0x%x: illegal transition %s -> %s", fn, qp->qpn,
				 state_name(cur), state_name((uint32_t)new_state));
		goto out;
	}
	if (new_state == MARROW_QPS_RTR && !qp->dci) {   /* a DCI names its target per WQE */
		peer = find_qp(dev, peer_qpn);
		if (peer == NULL) {
			rc = marrow_fail(MARROW_EINVAL, "%s: QP 0x%x: RTR with unknown peer QPN 0x%x (no such QP on this device)",
					 fn, qp->qpn, peer_qpn);
			goto out;
		}
		qp->peer = peer;
	}
	if (new_state == MARROW_QPS_RESET)
		reset_qp(qp);
	__atomic_store_n(&qp->state, (uint32_t)new_state, __ATOMIC_RELEASE);
out:
	emu_unquiesce(dev);
	pthread_mutex_unlock(&dev->ctl_lock);
	return rc;
}

MARROW_API int marrow_emu_qp_state(struct marrow_emu_qp *qp, int *state)
{
	int rc = emu_qp_check(qp, "marrow_emu_qp_state");

	if (rc)
		return rc;
	if (state == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_emu_qp_state: state is NULL");
	*state = (int)__atomic_load_n(&qp->state, __ATOMIC_ACQUIRE);
	return MARROW_OK;
}

MARROW_API int marrow_emu_qp_share_uar(struct marrow_emu_qp *qp, struct marrow_emu_qp *owner,
				       void **uar)
{
	const char *fn = "marrow_emu_qp_share_uar";
	struct marrow_emu_device *dev;
	struct emu_uar *u;
	int rc = emu_qp_check(qp, fn);

	if (rc == MARROW_OK)
		rc = emu_qp_check(owner, "marrow_emu_qp_share_uar(owner)");
	if (rc)
		return rc;
	if (uar == NULL)
		return marrow_fail(MARROW_EINVAL, "%s: uar is NULL", fn);
	dev = qp->pd->dev;
	if (owner->pd->dev != dev)
		return marrow_fail(MARROW_EINVAL, "%s: QP 0x%x and QP 0x%x belong to different devices", fn,
				   qp->qpn, owner->qpn);
	pthread_mutex_lock(&dev->ctl_lock);
	u = owner->uar;
	if (qp->uar == u) {
		rc = MARROW_OK;
	} else if (__atomic_load_n(&qp->state, __ATOMIC_ACQUIRE) != MARROW_QPS_RESET || qp->uar->nqps > 1) {
		rc = marrow_fail(MARROW_EINVAL,
				 "%s: QP 0x%x must be in RESET and alone on its doorbell page to move to QP 0x%x's page",
				 fn, qp->qpn, owner->qpn);
	} else if (u->nqps >= EMU_UAR_MAX_QPS) {
		rc = marrow_fail(MARROW_ERANGE, "%s: QP 0x%x's doorbell page already serves %d QPs", fn,
				 owner->qpn, EMU_UAR_MAX_QPS);
	} else {
		emu_quiesce(dev);
		/* One engine thread polls a page: qp moves to the owner's. */
		emu_engine_remove_qp(&dev->threads[qp->thread], qp);
		rc = emu_engine_add_qp(&dev->threads[owner->thread], qp);
		if (rc == MARROW_OK) {
			qp->thread = owner->thread;
			uar_leave(qp);
			qp->uar = u;
			u->qps[u->nqps++] = qp;
		} else {
			emu_engine_add_qp(&dev->threads[qp->thread], qp);
		}
		emu_unquiesce(dev);
	}
	if (rc == MARROW_OK)
		*uar = u->page;
	pthread_mutex_unlock(&dev->ctl_lock);
	return rc;
}

MARROW_API int marrow_emu_qp_set_timers(struct marrow_emu_qp *qp, uint32_t timeout, uint32_t retry_cnt,
					uint32_t rnr_retry, uint32_t min_rnr_timer)
{
	const char *fn = "marrow_emu_qp_set_timers";
	struct marrow_emu_device *dev;
	int rc = emu_qp_check(qp, fn);

	if (rc)
		return rc;
	if (timeout > 31 || retry_cnt > 7 || rnr_retry > 7 || min_rnr_timer > 31)
		return marrow_fail(MARROW_EINVAL,
				   "%s: QP 0x%x: timeout %u (0..31), retry_cnt %u (0..7), rnr_retry %u (0..7), min_rnr_timer %u (0..31)",
				   fn, qp->qpn, timeout, retry_cnt, rnr_retry, min_rnr_timer);
	dev = qp->pd->dev;
	pthread_mutex_lock(&dev->ctl_lock);
	emu_quiesce(dev);
	qp->timeout = (uint8_t)timeout;
	qp->retry_cnt = (uint8_t)retry_cnt;
	qp->rnr_retry = (uint8_t)rnr_retry;
	qp->min_rnr_timer = (uint8_t)min_rnr_timer;
	emu_unquiesce(dev);
	pthread_mutex_unlock(&dev->ctl_lock);
	return MARROW_OK;
}
