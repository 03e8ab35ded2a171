/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Copyright (c) 2026 The Marrow authors
 *
 * The data path behind the context's ops table (what the inline
 * ibv_post_send / ibv_post_recv / ibv_poll_cq of verbs.h call): the model
 * plays libmlx5's part, writing mlx5 send WQEs into the software NIC's SQ
 * ring, the doorbell record, then an 8-byte doorbell into the UAR page the
 * engine watches; and reading the CQE64s the engine writes. Formats:
 * docs/design/mlx5-queue-formats.md; the model: docs/design/mlx5-model.md §4.
 */
#define _DEFAULT_SOURCE
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "model_internal.h"

enum {
	BB = 64,
	CTRL_CE_UPDATE = 0x08,   /* fm_ce_se: a CQE for this WQE */
	CTRL_SE = 0x02,
	CTRL_FENCE = 0x80,       /* fm = strong ordering */
	OP_WRITE = 0x08, OP_WRITE_IMM = 0x09,
	CQE_REQ = 0, CQE_RESP_WR_IMM = 1, CQE_REQ_ERR = 13, CQE_RESP_ERR = 14, CQE_INVALID = 15,
	INLINE_SEG = 0x80000000u,
	MAX_WQE = 16 * BB,       /* ds <= 63 */
};

static void put32(uint8_t *p, uint32_t v)
{
	v = htobe32(v);
	memcpy(p, &v, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
	v = htobe64(v);
	memcpy(p, &v, 8);
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return be32toh(v);
}

static uint16_t get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return be16toh(v);
}

/* Copies a WQE into the ring at WQEBB index idx, wrapping at the end as a
 * ConnectX reads it (the engine's own wrap rule). */
static void ring_copy(struct model_qp *q, uint32_t idx, const uint8_t *w, uint32_t bytes)
{
	uint8_t *ring = q->view.sq_buf;
	uint32_t cnt = q->view.sq_wqe_cnt;
	uint32_t off = (idx & (cnt - 1)) * BB;
	uint32_t first = cnt * BB - off;

	if (first >= bytes) {
		memcpy(ring + off, w, bytes);
	} else {
		memcpy(ring + off, w, first);
		memcpy(ring, w + first, bytes - first);
	}
}

/* Builds one RC WRITE / WRITE_IMM WQE into w; its size in bytes, or -errno. */
static int build_wqe(struct model_qp *q, const struct ibv_send_wr *wr, uint32_t idx, uint8_t *w)
{
	uint32_t opcode, off = 32, total = 0, ds;
	int sig = q->sq_sig_all || (wr->send_flags & IBV_SEND_SIGNALED);

	if (wr->opcode == IBV_WR_RDMA_WRITE)
		opcode = OP_WRITE;
	else if (wr->opcode == IBV_WR_RDMA_WRITE_WITH_IMM)
		opcode = OP_WRITE_IMM;
	else
		return -EINVAL; /* the software NIC executes RDMA WRITE (with immediate) only */
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > q->cap.max_send_sge)
		return -EINVAL;
	memset(w, 0, 32);
	put64(w + 16, wr->wr.rdma.remote_addr);
	put32(w + 24, wr->wr.rdma.rkey);
	if (wr->send_flags & IBV_SEND_INLINE) {
		for (int i = 0; i < wr->num_sge; i++)
			total += wr->sg_list[i].length;
		if (total > q->cap.max_inline_data)
			return -ENOMEM; /* libmlx5's answer for inline data past max_inline_data */
		put32(w + off, total | INLINE_SEG);
		off += 4;
		for (int i = 0; i < wr->num_sge; i++) {
			memcpy(w + off, (const void *)(uintptr_t)wr->sg_list[i].addr, wr->sg_list[i].length);
			off += wr->sg_list[i].length;
		}
		while (off & 15)
			w[off++] = 0;
	} else {
		for (int i = 0; i < wr->num_sge; i++) {
			if (wr->sg_list[i].length == 0)
				continue; /* libmlx5 leaves zero-length entries out */
			put32(w + off, wr->sg_list[i].length);
			put32(w + off + 4, wr->sg_list[i].lkey);
			put64(w + off + 8, wr->sg_list[i].addr);
			off += 16;
		}
	}
	ds = off / 16;
	put32(w, (idx & 0xffff) << 8 | opcode);
	put32(w + 4, q->qp.qp_num << 8 | ds);
	w[11] = (uint8_t)((sig ? CTRL_CE_UPDATE : 0) | ((wr->send_flags & IBV_SEND_SOLICITED) ? CTRL_SE : 0) |
			  ((wr->send_flags & IBV_SEND_FENCE) ? CTRL_FENCE : 0));
	if (opcode == OP_WRITE_IMM)
		memcpy(w + 12, &wr->imm_data, 4); /* already big-endian in the WR */
	return (int)off;
}

int model_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	struct model_qp *q = (struct model_qp *)qp;
	uint8_t w[MAX_WQE] __attribute__((aligned(16)));
	uint8_t last[8];
	uint32_t cnt = q->view.sq_wqe_cnt;
	int err = 0, posted = 0;

	pthread_mutex_lock(&q->lock);
	/* verbs refuses posting before RTS (IB spec 10.8.1); after an error
	 * the WQEs are flushed, so ERR accepts them */
	if (qp->state != IBV_QPS_RTS && qp->state != IBV_QPS_ERR && qp->state != IBV_QPS_SQD)
		err = EINVAL;
	for (; wr != NULL && err == 0; wr = wr->next) {
		uint32_t head = q->sq_head, tail = __atomic_load_n(&q->sq_tail, __ATOMIC_ACQUIRE);
		int bytes = build_wqe(q, wr, head, w);
		uint32_t bbs;

		if (bytes < 0) {
			err = -bytes;
			break;
		}
		bbs = ((uint32_t)bytes + BB - 1) / BB;
		if (head + bbs - tail > cnt) {
			err = ENOMEM; /* the SQ is full (libmlx5: mlx5_wq_overflow) */
			break;
		}
		ring_copy(q, head, w, (uint32_t)bytes);
		q->sq_wrid[head & (cnt - 1)] = wr->wr_id;
		q->sq_end[head & (cnt - 1)] = head + bbs;
		memcpy(last, w, 8);
		q->sq_head = head + bbs;
		posted++;
	}
	if (err && bad)
		*bad = wr;
	if (posted) {
		/* WQEs before the doorbell record, the record before the doorbell */
		__atomic_thread_fence(__ATOMIC_RELEASE);
		__atomic_store_n(&q->view.dbrec[1], htobe32(q->sq_head & 0xffff), __ATOMIC_RELEASE);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		{
			uint64_t db;

			memcpy(&db, last, 8);
			__atomic_store_n((uint64_t *)((uint8_t *)q->view.uar + q->bf_off), db, __ATOMIC_RELEASE);
		}
		q->bf_off ^= 256;
	}
	pthread_mutex_unlock(&q->lock);
	return err;
}

int model_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	struct model_qp *q = (struct model_qp *)qp;
	uint32_t cnt = q->view.rq_wqe_cnt;
	int err = 0, posted = 0;

	pthread_mutex_lock(&q->lock);
	if (qp->state == IBV_QPS_RESET)
		err = EINVAL;
	for (; wr != NULL && err == 0; wr = wr->next) {
		uint8_t *e;
		uint32_t n = 0;

		if (cnt == 0 || q->rq_head - __atomic_load_n(&q->rq_tail, __ATOMIC_ACQUIRE) >= cnt) {
			err = ENOMEM;
			break;
		}
		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > q->cap.max_recv_sge) {
			err = EINVAL;
			break;
		}
		e = (uint8_t *)q->view.rq_buf + (q->rq_head & (cnt - 1)) * q->view.rq_stride;
		memset(e, 0, q->view.rq_stride);
		for (int i = 0; i < wr->num_sge; i++, n++) {
			put32(e + 16 * n, wr->sg_list[i].length);
			put32(e + 16 * n + 4, wr->sg_list[i].lkey);
			put64(e + 16 * n + 8, wr->sg_list[i].addr);
		}
		if (16 * n < q->view.rq_stride)
			put32(e + 16 * n + 4, 0x100); /* MLX5_INVALID_LKEY ends a short list */
		q->rq_wrid[q->rq_head & (cnt - 1)] = wr->wr_id;
		q->rq_head++;
		posted++;
	}
	if (err && bad)
		*bad = wr;
	if (posted) {
		__atomic_thread_fence(__ATOMIC_RELEASE);
		__atomic_store_n(&q->view.dbrec[0], htobe32(q->rq_head & 0xffff), __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&q->lock);
	return err;
}

static enum ibv_wc_status status_of(uint8_t syndrome)
{
	switch (syndrome) {
	case 0x01: return IBV_WC_LOC_LEN_ERR;
	case 0x02: return IBV_WC_LOC_QP_OP_ERR;
	case 0x04: return IBV_WC_LOC_PROT_ERR;
	case 0x05: return IBV_WC_WR_FLUSH_ERR;
	case 0x06: return IBV_WC_MW_BIND_ERR;
	case 0x10: return IBV_WC_BAD_RESP_ERR;
	case 0x11: return IBV_WC_LOC_ACCESS_ERR;
	case 0x12: return IBV_WC_REM_INV_REQ_ERR;
	case 0x13: return IBV_WC_REM_ACCESS_ERR;
	case 0x14: return IBV_WC_REM_OP_ERR;
	case 0x15: return IBV_WC_RETRY_EXC_ERR;
	case 0x16: return IBV_WC_RNR_RETRY_EXC_ERR;
	case 0x22: return IBV_WC_REM_ABORT_ERR;
	default: return IBV_WC_GENERAL_ERR;
	}
}

static uint8_t *cqe_at(struct model_cq *c, uint32_t i)
{
	return (uint8_t *)c->view.buf + (size_t)(i & (c->view.cqe_cnt - 1)) * 64;
}

/* The CQE's op_own byte, read with the 4-byte word the engine publishes
 * it in (wqe_counter, signature, op_own): acquire pairs with its release. */
static uint8_t cqe_op_own(const uint8_t *cqe)
{
	uint32_t w = __atomic_load_n((const uint32_t *)(cqe + 60), __ATOMIC_ACQUIRE);
	uint8_t b[4];

	memcpy(b, &w, 4);
	return b[3];
}

/* Software owns CQE i when its opcode is valid and its owner bit is the
 * lap parity of i (docs/design/mlx5-queue-formats.md). */
static int cqe_ready(struct model_cq *c, uint32_t i)
{
	uint8_t op_own = cqe_op_own(cqe_at(c, i));

	return (op_own >> 4) != CQE_INVALID && (op_own & 1) == ((i / c->view.cqe_cnt) & 1);
}

/* A poller outside the model (Marrow's own, through mlx5dv_init_obj) moves
 * the consumer index in the doorbell record only: follow it. */
static void cq_sync_ci(struct model_cq *c)
{
	uint32_t db = be32toh(__atomic_load_n(&c->view.dbrec[0], __ATOMIC_ACQUIRE)) & 0xffffff;
	uint32_t d = (db - (c->ci & 0xffffff)) & 0xffffff;

	if (d != 0 && d < 0x800000)
		c->ci += d;
}

static void fill_wc(struct model_qp *q, const uint8_t *cqe, struct ibv_wc *wc)
{
	uint8_t opcode = cqe_op_own(cqe) >> 4;
	uint32_t qpn_word = get32(cqe + 0x38);
	uint16_t counter = get16(cqe + 0x3c);
	int req = opcode == CQE_REQ || opcode == CQE_REQ_ERR;

	memset(wc, 0, sizeof(*wc));
	wc->qp_num = qpn_word & 0xffffff;
	wc->status = IBV_WC_SUCCESS;
	if (opcode == CQE_REQ_ERR || opcode == CQE_RESP_ERR) {
		wc->status = status_of(cqe[0x37]);
		wc->vendor_err = cqe[0x36];
	}
	if (q == NULL)
		return;
	if (req) {
		uint32_t idx = counter & (q->view.sq_wqe_cnt - 1);

		wc->wr_id = q->sq_wrid[idx];
		wc->opcode = IBV_WC_RDMA_WRITE;
		/* everything up to the end of this WQE has retired */
		__atomic_store_n(&q->sq_tail, q->sq_end[idx], __ATOMIC_RELEASE);
	} else {
		uint32_t cnt = q->view.rq_wqe_cnt ? q->view.rq_wqe_cnt : 1;

		wc->wr_id = q->rq_wrid[counter & (cnt - 1)];
		wc->opcode = IBV_WC_RECV_RDMA_WITH_IMM;
		wc->byte_len = get32(cqe + 0x2c);
		if (opcode == CQE_RESP_WR_IMM) {
			wc->wc_flags = IBV_WC_WITH_IMM;
			memcpy(&wc->imm_data, cqe + 0x24, 4);
		}
		__atomic_store_n(&q->rq_tail, (uint32_t)counter + 1, __ATOMIC_RELEASE);
	}
}

int model_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	struct model_cq *c = (struct model_cq *)cq;
	struct model_qp *q = NULL;
	int got = 0;

	pthread_mutex_lock(&c->lock);
	cq_sync_ci(c);
	while (got < n && cqe_ready(c, c->ci)) {
		const uint8_t *cqe = cqe_at(c, c->ci);
		uint32_t qpn = get32(cqe + 0x38) & 0xffffff;

		if (q == NULL || q->qp.qp_num != qpn)
			q = model_qp_lookup(qpn);
		fill_wc(q, cqe, &wc[got]);
		got++;
		c->ci++;
	}
	if (got)
		__atomic_store_n(&c->view.dbrec[0], htobe32(c->ci & 0xffffff), __ATOMIC_RELEASE);
	pthread_mutex_unlock(&c->lock);
	return got;
}

/* Removes the QP's CQEs between the consumer index and the first CQE the
 * engine has not written, keeping the others in order with their lap's
 * owner bit: what libmlx5 does when a QP is reset or destroyed. */
void model_cq_clean(struct model_cq *c, uint32_t qpn)
{
	uint32_t prod, nfreed = 0;

	pthread_mutex_lock(&c->lock);
	cq_sync_ci(c);
	for (prod = c->ci; cqe_ready(c, prod) && prod - c->ci < c->view.cqe_cnt; prod++)
		;
	while (prod != c->ci) {
		uint8_t *cqe;

		prod--;
		cqe = cqe_at(c, prod);
		if ((get32(cqe + 0x38) & 0xffffff) == qpn) {
			nfreed++;
		} else if (nfreed) {
			uint8_t *dst = cqe_at(c, prod + nfreed);
			uint8_t owner = dst[63] & 1;

			memcpy(dst, cqe, 64);
			dst[63] = (uint8_t)((dst[63] & ~1) | owner);
		}
	}
	if (nfreed) {
		c->ci += nfreed;
		__atomic_store_n(&c->view.dbrec[0], htobe32(c->ci & 0xffffff), __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&c->lock);
}
