/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Software-NIC backend of the proxy workers: builds real mlx5 RDMA WRITE
 * WQEs with the shared encoders (mlx5_wqe.h) straight into the QP's SQ
 * view, publishes a chain of n WQEs with one release fence, one doorbell
 * record update and one 8-byte doorbell store, and polls the send CQ with
 * the owner-bit rule, updating the CQ doorbell record's consumer index.
 *
 * Every WQE is exactly one WQEBB (inline payloads up to 28 bytes, else one
 * pointer segment), so an SQ position identifies one request; the worker
 * relies on that to map a CQE's wqe_counter back to rings.
 */
#include <stdlib.h>
#include <string.h>

#include "marrow/mlx5_wqe.h"
#include "proxy_internal.h"

enum { SN_INLINE_ONE_BB = 28 }; /* 64 - ctrl 16 - raddr 16 - inline header 4 */

struct px_sn {
	uint8_t *sq;
	uint32_t *sq_dbrec;
	uint8_t *uar;
	uint8_t *cq;
	uint32_t *cq_dbrec;
	uint32_t qpn;
	uint32_t sq_mask;
	uint32_t cq_log;
	uint32_t cq_mask;
	uint32_t inline_max;
	uint32_t bf_half;        /* alternates 0 / 256 like rdma-core's BlueFlame offset */
	uint64_t cq_ci;          /* CQEs consumed (free-running) */
	uint64_t base;           /* local: the registered buffer */
	uint64_t remote_base;    /* where remote offsets land (base itself in loopback) */
	uint32_t lkey;
	uint32_t rkey;
};

static uint32_t log2u(uint32_t v)
{
	uint32_t l = 0;

	while ((1u << l) < v)
		l++;
	return l;
}

int px_softnic_create(const struct marrow_proxy_softnic_qp *q, const struct marrow_proxy_memory *mem,
		      void **out, uint32_t *sq_depth)
{
	struct px_sn *s;

	if (q == NULL || q->size < sizeof(*q))
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_attach_softnic: bad marrow_proxy_softnic_qp (size %u)",
				   q ? q->size : 0);
	if (q->sq_buf == NULL || q->sq_dbrec == NULL || q->uar == NULL || q->cq_buf == NULL || q->cq_dbrec == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_attach_softnic: a queue pointer is NULL");
	if (q->sq_wqe_cnt < 2 || (q->sq_wqe_cnt & (q->sq_wqe_cnt - 1)) || q->sq_wqe_cnt > 32768)
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_attach_softnic: sq_wqe_cnt %u must be a power of two in 2..32768",
				   q->sq_wqe_cnt);
	/* One CQE per chain at most one per WQE: a CQ as deep as the SQ never overruns. */
	if (q->cqe_cnt < q->sq_wqe_cnt || (q->cqe_cnt & (q->cqe_cnt - 1)))
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_attach_softnic: cqe_cnt %u must be a power of two >= sq_wqe_cnt %u",
				   q->cqe_cnt, q->sq_wqe_cnt);
	if (q->remote_len != 0 && q->remote_len < mem->len)
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_attach_softnic: remote memory of %llu bytes is smaller than "
				   "the registered buffer (%llu bytes), over which remote offsets range",
				   (unsigned long long)q->remote_len, (unsigned long long)mem->len);
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return marrow_fail(MARROW_ENOMEM, "marrow_proxy_attach_softnic: out of memory");
	s->sq = q->sq_buf;
	s->sq_dbrec = q->sq_dbrec;
	s->uar = q->uar;
	s->cq = q->cq_buf;
	s->cq_dbrec = q->cq_dbrec;
	s->qpn = q->qpn;
	s->sq_mask = q->sq_wqe_cnt - 1;
	s->cq_log = log2u(q->cqe_cnt);
	s->cq_mask = q->cqe_cnt - 1;
	s->inline_max = q->max_inline < SN_INLINE_ONE_BB ? q->max_inline : SN_INLINE_ONE_BB;
	s->base = mem->base;
	s->lkey = mem->lkey;
	s->rkey = mem->rkey;
	s->remote_base = mem->base;
	if (q->remote_len != 0) {
		s->remote_base = q->remote_base;
		s->rkey = q->remote_rkey;
	}
	*out = s;
	*sq_depth = q->sq_wqe_cnt;
	return MARROW_OK;
}

static int sn_post(void *be, const struct px_req *reqs, uint32_t n, uint64_t base)
{
	struct px_sn *s = be;
	uint64_t db;

	for (uint32_t i = 0; i < n; i++) {
		const struct px_req *r = &reqs[i];
		uint64_t idx = base + i;
		uint8_t *wqe = s->sq + ((idx & s->sq_mask) << MX_WQEBB_SHIFT);
		uint8_t ce = (i == n - 1) ? MX_CTRL_CQ_UPDATE : 0;
		uint32_t ds;

		mx_set_raddr_seg(wqe + MX_CTRL_SEG_SIZE, s->remote_base + r->remote_off, s->rkey);
		if (r->size <= s->inline_max) {
			uint8_t *seg = wqe + MX_CTRL_SEG_SIZE + MX_RADDR_SEG_SIZE;

			mx_set_inline_hdr(seg, r->size);
			memcpy(seg + MX_INLINE_HDR_SIZE, (const uint8_t *)(uintptr_t)(s->base + r->local_off), r->size);
			ds = mx_ds_inline_write(r->size);
		} else {
			mx_set_data_seg(wqe + MX_CTRL_SEG_SIZE + MX_RADDR_SEG_SIZE, r->size, s->lkey,
					s->base + r->local_off);
			ds = mx_ds_pointer_write(1);
		}
		mx_set_ctrl_seg(wqe, (uint16_t)idx, MX_OPCODE_RDMA_WRITE, 0, s->qpn, ce, (uint8_t)ds, 0, 0);
	}
	/* WQEs before the doorbell record, the record before the doorbell. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&s->sq_dbrec[MX_DBR_SND], mx_dbrec_send_value((uint32_t)(base + n)), __ATOMIC_RELEASE);
	db = mx_doorbell_value((uint16_t)(base + n), 0, s->qpn, 0);
	__atomic_store_n((uint64_t *)(s->uar + s->bf_half), db, __ATOMIC_RELEASE);
	s->bf_half ^= 256;
	return MARROW_OK;
}

static int sn_poll(void *be, uint64_t *retired, uint64_t *cqes)
{
	struct px_sn *s = be;
	uint64_t ci = s->cq_ci, cur = *retired;
	int rc = MARROW_OK;

	for (;;) {
		const uint8_t *cqe = s->cq + ((ci & s->cq_mask) * MX_CQE_SIZE);
		uint8_t op;

		if (!mx_cqe_is_valid(cqe, (uint32_t)ci, s->cq_log))
			break;
		/* The owner byte is written last: read the body only after it. */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		op = mx_cqe_opcode(cqe);
		if (PX_UNLIKELY(op != MX_CQE_REQ)) {
			rc = marrow_fail(MARROW_EIO,
					 "error CQE on QP 0x%x: opcode %u syndrome 0x%02x (%s) vendor syndrome 0x%02x "
					 "wqe_counter %u", s->qpn, op, mx_cqe_syndrome(cqe),
					 mx_syndrome_name(mx_cqe_syndrome(cqe)), mx_cqe_vendor_syndrome(cqe),
					 mx_cqe_wqe_counter(cqe));
			ci++;
			break;
		}
		/* Send queues complete in order: this CQE retires every WQE up to it. */
		cur += (uint16_t)(mx_cqe_wqe_counter(cqe) + 1u - (uint16_t)cur);
		ci++;
		(*cqes)++;
	}
	if (ci != s->cq_ci) {
		s->cq_ci = ci;
		__atomic_store_n(&s->cq_dbrec[0], mx_htobe32((uint32_t)ci & 0xffffffu), __ATOMIC_RELEASE);
	}
	*retired = cur;
	return rc;
}

static void sn_destroy(void *be)
{
	free(be);
}

/* The QP's memory as any thread may read it: SQ dbrec, CQ dbrec and CQEs
 * (the worker's own counters are private to it). */
static void sn_describe(void *be, struct marrow_dump *d)
{
	const struct px_sn *s = be;
	struct marrow_dump_sq sq = { .qpn = s->qpn, .dbrec = s->sq_dbrec };
	struct marrow_dump_cq cq = { .buf = s->cq, .dbrec = s->cq_dbrec, .log_cnt = s->cq_log };

	marrow_dump_sq(d, &sq);
	marrow_dump_cq(d, &cq);
}

const struct px_backend_ops px_softnic_ops = {
	.name = "softnic",
	.post = sn_post,
	.poll = sn_poll,
	.destroy = sn_destroy,
	.describe = sn_describe,
};
