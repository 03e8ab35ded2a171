/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Verbs backend of the proxy workers: a real RDMA device through a dlopened
 * libibverbs. One PD and one MR (the experiment buffer) per proxy; per
 * worker one CQ and one RC QP connected to itself (loopback, as the software
 * NIC rig) or, across two hosts, to a QP of the other host's proxy, whose
 * buffer (address and rkey from the peer exchange) the WRITEs then target
 * (docs/design/two-process.md section 10). A chain of n requests is n linked WRs handed to one
 * ibv_post_send; only the last WR is signaled, and its wr_id (the
 * free-running WQE number) tells the worker how far the SQ has retired.
 *
 * Teardown order: each worker's QP, then its CQ (worker destroy), then the
 * MR, PD and context, then the library (px_verbs_release), all after the
 * workers were joined.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proxy_verbs.h"

enum { PXV_CQ_POLL = 32 };

struct px_verbs {
	struct px_ibv f;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_port_attr port;
	union ibv_gid gid;
	int gid_index;
	uint8_t port_num;
};

struct px_vq {
	struct px_verbs *v;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	uint64_t base, remote_base;          /* remote_base == base: loopback */
	uint32_t lkey, rkey, inline_max;
	struct ibv_send_wr *wrs;
	struct ibv_sge *sges;
};

void px_verbs_build_chain(struct ibv_send_wr *wrs, struct ibv_sge *sges, const struct px_req *reqs, uint32_t n,
			  uint64_t base, uint64_t mem_base, uint64_t remote_base, uint32_t lkey, uint32_t rkey,
			  uint32_t inline_max)
{
	for (uint32_t i = 0; i < n; i++) {
		struct ibv_send_wr *wr = &wrs[i];

		memset(wr, 0, sizeof(*wr));
		sges[i].addr = mem_base + reqs[i].local_off;
		sges[i].length = reqs[i].size;
		sges[i].lkey = lkey;
		wr->wr_id = base + i;
		wr->next = i + 1 < n ? &wrs[i + 1] : NULL;
		wr->sg_list = &sges[i];
		wr->num_sge = 1;
		wr->opcode = IBV_WR_RDMA_WRITE;
		wr->send_flags = (reqs[i].size <= inline_max ? IBV_SEND_INLINE : 0) |
				 (i + 1 == n ? IBV_SEND_SIGNALED : 0);
		wr->wr.rdma.remote_addr = remote_base + reqs[i].remote_off;
		wr->wr.rdma.rkey = rkey;
	}
}

static int vq_post(void *be, const struct px_req *reqs, uint32_t n, uint64_t base)
{
	struct px_vq *q = be;
	struct ibv_send_wr *bad = NULL;
	int e;

	px_verbs_build_chain(q->wrs, q->sges, reqs, n, base, q->base, q->remote_base, q->lkey, q->rkey,
			     q->inline_max);
	e = ibv_post_send(q->qp, q->wrs, &bad);
	if (e != 0)
		return marrow_fail(MARROW_EIO, "ibv_post_send of a %u-WR chain failed (errno %d) at wr_id %llu", n, e,
				   bad ? (unsigned long long)bad->wr_id : 0ull);
	return MARROW_OK;
}

static int vq_poll(void *be, uint64_t *retired, uint64_t *cqes)
{
	struct px_vq *q = be;
	struct ibv_wc wc[PXV_CQ_POLL];
	int n = ibv_poll_cq(q->cq, PXV_CQ_POLL, wc);

	if (n < 0)
		return marrow_fail(MARROW_EIO, "ibv_poll_cq failed (%d)", n);
	for (int i = 0; i < n; i++) {
		if (wc[i].status != IBV_WC_SUCCESS)
			return marrow_fail(MARROW_EIO, "error completion wr_id %llu: %s (vendor 0x%x)",
					   (unsigned long long)wc[i].wr_id, q->v->f.wc_status_str(wc[i].status),
					   wc[i].vendor_err);
		*retired = wc[i].wr_id + 1;
		(*cqes)++;
	}
	return MARROW_OK;
}

static void vq_destroy(void *be)
{
	struct px_vq *q = be;

	if (q->qp)
		q->v->f.destroy_qp(q->qp);
	if (q->cq)
		q->v->f.destroy_cq(q->cq);
	free(q->wrs);
	free(q->sges);
	free(q);
}

static const struct px_backend_ops px_verbs_ops = {
	.name = "verbs",
	.post = vq_post,
	.poll = vq_poll,
	.destroy = vq_destroy,
};

/* Where an RC QP's RTR points: a QP number, its start PSN and its port's address. */
struct px_dest {
	uint32_t qpn, psn, lid, mtu;
	int global;                 /* GRH: RoCE always; IB when the peer has no LID */
	uint8_t hop_limit;
	union ibv_gid gid;
};

/* RESET -> INIT -> RTR -> RTS towards d (itself in loopback, the peer's QP across hosts). */
static int connect_to(struct px_verbs *v, struct ibv_qp *qp, const struct px_dest *d)
{
	struct ibv_qp_attr a;
	int e;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = v->port_num;
	a.pkey_index = 0;
	a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	e = v->f.modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (e)
		return marrow_fail(MARROW_EIO, "verbs: QP to INIT failed (errno %d)", e);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = (enum ibv_mtu)d->mtu;
	a.dest_qp_num = d->qpn;
	a.rq_psn = d->psn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.port_num = v->port_num;
	if (d->global) {
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = d->gid;
		a.ah_attr.grh.sgid_index = (uint8_t)v->gid_index;
		a.ah_attr.grh.hop_limit = d->hop_limit;
	}
	a.ah_attr.dlid = (uint16_t)d->lid;
	e = v->f.modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
					   IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (e)
		return marrow_fail(MARROW_EIO, "verbs: QP to RTR towards QP 0x%x failed (errno %d; GID index %d, set "
				   "MARROW_IB_GID_INDEX)", d->qpn, e, v->gid_index);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = 0;   /* the psn this side announces (px_verbs_local) */
	a.max_rd_atomic = 1;
	e = v->f.modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
					   IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
	if (e)
		return marrow_fail(MARROW_EIO, "verbs: QP to RTS failed (errno %d)", e);
	return MARROW_OK;
}

static int connect_self(struct px_verbs *v, struct ibv_qp *qp)
{
	struct px_dest d = { .qpn = qp->qp_num, .psn = 0, .lid = v->port.lid, .mtu = v->port.active_mtu,
			     .global = v->port.link_layer == IBV_LINK_LAYER_ETHERNET, .hop_limit = 1, .gid = v->gid };

	return connect_to(v, qp, &d);
}

static int open_device(struct px_verbs *v, const char *want, char *chosen, uint32_t chosen_len)
{
	int n = 0, rc = MARROW_OK;
	struct ibv_device **list = v->f.get_device_list(&n);
	struct ibv_device *dev = NULL;
	const char *env = getenv("MARROW_IB_GID_INDEX");

	if (list == NULL || n == 0) {
		if (list)
			v->f.free_device_list(list);
		return marrow_fail(MARROW_ENODEV, "verbs backend unavailable: libibverbs found no RDMA device "
				   "(is the NIC driver loaded? ibv_devices lists none); use --nic softnic");
	}
	for (int i = 0; i < n && dev == NULL; i++)
		if (want == NULL || want[0] == '\0' || strcmp(v->f.get_device_name(list[i]), want) == 0)
			dev = list[i];
	if (dev == NULL) {
		v->f.free_device_list(list);
		return marrow_fail(MARROW_ENODEV, "verbs backend: no RDMA device named '%s' (%d devices present)", want, n);
	}
	if (chosen && chosen_len)
		snprintf(chosen, chosen_len, "%s", v->f.get_device_name(dev));
	v->ctx = v->f.open_device(dev);
	v->f.free_device_list(list);
	if (v->ctx == NULL)
		return marrow_fail(MARROW_ENODEV, "verbs backend: cannot open the RDMA device");
	v->port_num = 1;
	memset(&v->port, 0, sizeof(v->port));
	if (v->f.query_port(v->ctx, v->port_num, (struct _compat_ibv_port_attr *)&v->port) != 0)
		return marrow_fail(MARROW_ENODEV, "verbs backend: cannot query port 1");
	if (v->port.state != IBV_PORT_ACTIVE)
		rc = marrow_fail(MARROW_ENODEV, "verbs backend: port 1 is not ACTIVE (state %d)", v->port.state);
	v->gid_index = env ? atoi(env) : 0;
	if (rc == MARROW_OK && v->f.query_gid(v->ctx, v->port_num, v->gid_index, &v->gid) != 0)
		rc = marrow_fail(MARROW_ENODEV, "verbs backend: cannot read GID %d of port 1", v->gid_index);
	return rc;
}

int px_verbs_attach(struct marrow_proxy *px, const char *device, uint32_t log_sq, char *chosen,
		    uint32_t chosen_len, uint32_t *send_wr, uint32_t *send_wr_granted, int loopback)
{
	struct px_verbs *v = calloc(1, sizeof(*v));
	uint32_t depth = px_verbs_send_wr(log_sq);   /* log_sq checked by the caller */
	uint32_t granted = UINT32_MAX;
	int rc;

	if (v == NULL)
		return marrow_fail(MARROW_ENOMEM, "verbs backend: out of memory");
	px->verbs = v;
	rc = px_ibv_load(&v->f, NULL);
	if (rc == MARROW_OK)
		rc = open_device(v, device, chosen, chosen_len);
	if (rc == MARROW_OK && (v->pd = v->f.alloc_pd(v->ctx)) == NULL)
		rc = marrow_fail(MARROW_EIO, "verbs backend: ibv_alloc_pd failed");
	if (rc == MARROW_OK) {
		v->mr = v->f.reg_mr(v->pd, (void *)(uintptr_t)px->mem.base, px->mem.len,
				    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
		if (v->mr == NULL)
			rc = marrow_fail(MARROW_EIO, "verbs backend: ibv_reg_mr of %llu bytes failed (ulimit -l?)",
					 (unsigned long long)px->mem.len);
	}
	for (uint32_t w = 0; w < px->cfg.workers && rc == MARROW_OK; w++) {
		struct px_vq *q = calloc(1, sizeof(*q));
		struct ibv_qp_init_attr qa;

		if (q == NULL) {
			rc = marrow_fail(MARROW_ENOMEM, "verbs backend: out of memory");
			break;
		}
		q->v = v;
		q->base = px->mem.base;
		q->remote_base = px->mem.base;   /* until px_verbs_connect names the peer's buffer */
		q->lkey = v->mr->lkey;
		q->rkey = v->mr->rkey;
		q->wrs = calloc(px->cfg.batch, sizeof(*q->wrs));
		q->sges = calloc(px->cfg.batch, sizeof(*q->sges));
		q->cq = v->f.create_cq(v->ctx, (int)depth, NULL, NULL, 0);
		memset(&qa, 0, sizeof(qa));
		qa.send_cq = q->cq;
		qa.recv_cq = q->cq;
		qa.qp_type = IBV_QPT_RC;
		qa.sq_sig_all = 0;
		qa.cap.max_send_wr = depth;
		qa.cap.max_recv_wr = 1;
		qa.cap.max_send_sge = 1;
		qa.cap.max_recv_sge = 1;
		qa.cap.max_inline_data = PX_VERBS_INLINE;
		q->qp = q->cq ? v->f.create_qp(v->pd, &qa) : NULL;
		if (q->wrs == NULL || q->sges == NULL || q->qp == NULL) {
			rc = marrow_fail(MARROW_EIO, "verbs backend: cannot create CQ/QP %u", w);
			vq_destroy(q);
			break;
		}
		q->inline_max = qa.cap.max_inline_data;
		if (qa.cap.max_send_wr < granted)
			granted = qa.cap.max_send_wr;   /* ibv_create_qp wrote what it granted */
		rc = loopback ? connect_self(v, q->qp) : MARROW_OK;
		if (rc == MARROW_OK)
			rc = px_worker_setup(&px->workers[w], &px_verbs_ops, q, depth);
		if (rc != MARROW_OK) {
			vq_destroy(q);
			px->workers[w].be = NULL;
		}
	}
	if (rc != MARROW_OK) {
		for (uint32_t w = 0; w < px->cfg.workers; w++) {
			if (px->workers[w].be) {
				vq_destroy(px->workers[w].be);
				px->workers[w].be = NULL;
				px->workers[w].ops = NULL;
			}
		}
		px_verbs_release(px);
		return rc;
	}
	px->backend = MARROW_PROXY_BACKEND_VERBS;
	px->verbs_peer = !loopback;
	if (send_wr)
		*send_wr = depth;
	if (send_wr_granted)
		*send_wr_granted = granted;
	return MARROW_OK;
}

int px_verbs_local(struct marrow_proxy *px, uint32_t worker, struct marrow_mlx5_peer_info *out)
{
	struct px_verbs *v = px->verbs;
	const struct px_vq *q = px->workers[worker].be;

	memset(out, 0, sizeof(*out));
	out->size = sizeof(*out);
	out->qpn = q->qp->qp_num;
	out->psn = 0;                                   /* connect_to's sq_psn */
	out->rkey = v->mr->rkey;
	out->lid = v->port.lid;
	out->port = v->port_num;
	out->link_layer = v->port.link_layer == IBV_LINK_LAYER_ETHERNET ? 2 : 1;
	out->mtu = v->port.active_mtu;
	out->gid_index = v->gid_index;
	memcpy(out->gid, v->gid.raw, sizeof(out->gid));
	out->addr = px->mem.base;
	out->len = px->mem.len;
	return MARROW_OK;
}

int px_verbs_connect(struct marrow_proxy *px, uint32_t worker, const struct marrow_mlx5_peer_info *peer)
{
	struct px_verbs *v = px->verbs;
	struct px_vq *q = px->workers[worker].be;
	const int eth = v->port.link_layer == IBV_LINK_LAYER_ETHERNET;
	static const uint8_t zero[16];
	struct px_dest d;
	int rc;

	if ((peer->link_layer == 2) != eth)
		return marrow_fail(MARROW_EINVAL, "verbs: the peer's port is %s, this side's %s: both hosts need the "
				   "same link layer", peer->link_layer == 2 ? "Ethernet (RoCE)" : "InfiniBand",
				   eth ? "Ethernet (RoCE)" : "InfiniBand");
	if (peer->qpn <= 1 || peer->qpn > 0xffffff || peer->psn > 0xffffff || peer->mtu < 1 || peer->mtu > 5)
		return marrow_fail(MARROW_EINVAL, "verbs: the peer's QP description is malformed (qpn 0x%x psn 0x%x "
				   "mtu %u)", peer->qpn, peer->psn, peer->mtu);
	memset(&d, 0, sizeof(d));
	d.qpn = peer->qpn;
	d.psn = peer->psn;
	d.lid = peer->lid;
	d.mtu = peer->mtu < (uint32_t)v->port.active_mtu ? peer->mtu : (uint32_t)v->port.active_mtu;
	d.global = eth || (peer->lid == 0 && memcmp(peer->gid, zero, 16) != 0);
	d.hop_limit = 64;                               /* routed RoCE between hosts */
	memcpy(d.gid.raw, peer->gid, sizeof(d.gid.raw));
	if (eth && memcmp(peer->gid, zero, 16) == 0)
		return marrow_fail(MARROW_EINVAL, "verbs: the RoCE peer sent no GID (set MARROW_IB_GID_INDEX there)");
	rc = connect_to(v, q->qp, &d);
	if (rc != MARROW_OK)
		return rc;
	q->remote_base = peer->addr;
	q->rkey = peer->rkey;
	return MARROW_OK;
}

int px_verbs_probe(const char *device, char *chosen, uint32_t chosen_len)
{
	struct px_verbs *v = calloc(1, sizeof(*v));
	int rc;

	if (v == NULL)
		return marrow_fail(MARROW_ENOMEM, "verbs backend: out of memory");
	rc = px_ibv_load(&v->f, NULL);
	if (rc == MARROW_OK)
		rc = open_device(v, device, chosen, chosen_len);
	if (v->ctx)
		v->f.close_device(v->ctx);
	px_ibv_unload(&v->f);
	free(v);
	return rc;
}

void px_verbs_release(struct marrow_proxy *px)
{
	struct px_verbs *v = px->verbs;

	if (v == NULL)
		return;
	if (v->mr)
		v->f.dereg_mr(v->mr);
	if (v->pd)
		v->f.dealloc_pd(v->pd);
	if (v->ctx)
		v->f.close_device(v->ctx);
	px_ibv_unload(&v->f);
	free(v);
	px->verbs = NULL;
}
