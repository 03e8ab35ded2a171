/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Pipelined posting for the goodput runners (marrow_gda_goodput.h): ONE
 * algorithm for host C (gda_goodput_cpu.c) and CUDA device code
 * (gda_goodput.cu), on top of gda_post.h (ordering variants, CQE wait) and
 * mlx5_wqe.h (encoders).
 *
 * One thread owns `qps` SQs (1..GDA_WINDOW_MAX_QPS) and posts to them round
 * robin: message i goes to QP i % qps as that QP's message j = i / qps. Each
 * message is a 1-WQEBB pointer RDMA WRITE (ds 3), rung with its own
 * doorbell; QP q's message j is signaled when (j + 1) % signal_every == 0,
 * when it is QP q's last warm-up message or its last message. At most
 * `window` WQEs are outstanding PER QP: when QP q's window is full the
 * thread waits for q's next signaled CQE, which retires every WQE of q up to
 * it (completions are in order on an RC SQ). QP q writes only its own slice
 * of the slots (slots q*slots .. (q+1)*slots - 1, `slots` per QP). The
 * warm-up is drained on every QP before the timer starts; the timer stops
 * when the last QP's last CQE has been seen. qps = 1 is the one-QP loop.
 */
#ifndef MARROW_GDA_WINDOW_H
#define MARROW_GDA_WINDOW_H

#include "marrow/gda_post.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GDA_WINDOW_MAX_QPS 16u

struct gda_window_args {
	uint64_t laddr, raddr;      /* slot 0 of source and destination */
	uint32_t lkey, rkey;
	uint32_t msg_size, slots;   /* slots PER QP */
	uint32_t window, signal_every; /* both per QP */
	uint64_t messages, warmup, timeout_ns; /* over all QPs */
	uint32_t qps, pad;
};

struct gda_window_out {
	uint64_t done;              /* messages retired, all QPs */
	uint64_t done_q[GDA_WINDOW_MAX_QPS]; /* messages retired per QP */
	uint64_t posts, cqes;
	uint64_t t_start, t_end;    /* gda_now_ns of the timed span */
	uint64_t fail_message;      /* global message index */
	uint32_t fail_qp;
	int32_t rc;
	struct gda_err err;
};

/* QP q's share of n round-robin messages. */
GDA_FN uint64_t gda_window_share(uint64_t n, uint32_t qps, uint32_t q)
{
	return n / qps + (q < n % qps ? 1u : 0u);
}

/* Is QP q's message j signaled? */
GDA_FN int gda_window_signaled(const struct gda_window_args *a, uint32_t q, uint64_t j)
{
	uint64_t total = gda_window_share(a->warmup + a->messages, a->qps, q);
	uint64_t warm = gda_window_share(a->warmup, a->qps, q);

	return (j + 1u) % a->signal_every == 0u || j + 1u == total || j + 1u == warm;
}

/* Reserve, build (unsignaled unless `signaled`), order, DBR, doorbell. */
GDA_FN int gda_window_post(struct gda_sq *sq, int ord, uint64_t raddr, uint32_t rkey, uint64_t laddr,
			   uint32_t lkey, uint32_t len, int signaled)
{
	const uint32_t ds = mx_ds_pointer_write(1);
	uint32_t base = sq->pi;

	if (base + 1u - sq->ci > sq->wqebb_cnt)
		return MARROW_ENOSPC;
	mx_set_ctrl_seg(gda_wqe_at(sq, base, 0), (uint16_t)base, MX_OPCODE_RDMA_WRITE, 0, sq->qpn,
			signaled ? MX_CTRL_CQ_UPDATE : 0, (uint8_t)ds, 0, 0);
	mx_set_raddr_seg(gda_wqe_at(sq, base, MX_CTRL_SEG_SIZE), raddr, rkey);
	mx_set_data_seg(gda_wqe_at(sq, base, MX_CTRL_SEG_SIZE + MX_RADDR_SEG_SIZE), len, lkey, laddr);
	sq->pi = base + 1u;
	gda_publish(sq, ord, mx_dbrec_send_value(sq->pi), mx_doorbell_value((uint16_t)sq->pi, 0, sq->qpn, 0));
	return MARROW_OK;
}

/* Waits for the CQE of QP q's next signaled message at or after *reaped
 * (which must be below what q posted); everything of q up to it retires. */
GDA_FN int gda_window_reap(struct gda_sq *sq, struct gda_cq *cq, int ord, const struct gda_window_args *a,
			   uint32_t q, uint32_t pi0, uint64_t *reaped, struct gda_window_out *o)
{
	uint64_t j = *reaped;
	int rc;

	while (!gda_window_signaled(a, q, j))
		j++;
	rc = gda_wait_cqe(sq, cq, ord, pi0 + (uint32_t)j, a->timeout_ns, &o->err);
	if (rc != MARROW_OK) {
		o->fail_message = j * a->qps + q;
		o->fail_qp = q;
		return rc;
	}
	/* gda_wait_cqe assumes one outstanding WQE; here only up to j retired. */
	sq->ci = pi0 + (uint32_t)j + 1u;
	o->cqes++;
	o->done += j + 1u - *reaped;
	*reaped = j + 1u;
	o->done_q[q] = j + 1u;
	return MARROW_OK;
}

/* Reaps QP q up to (excluding) its message `upto`. */
GDA_FN int gda_window_drain(struct gda_sq *sq, struct gda_cq *cq, int ord, const struct gda_window_args *a,
			    uint32_t q, uint32_t pi0, uint64_t *reaped, uint64_t upto, struct gda_window_out *o)
{
	int rc;

	while (*reaped < upto)
		if ((rc = gda_window_reap(sq, cq, ord, a, q, pi0, reaped, o)) != MARROW_OK)
			return rc;
	return MARROW_OK;
}

/* sq[0 .. a->qps - 1], cq[same]: QP q posts on sq[q] and completes on cq[q]. */
GDA_FN int gda_window_run(struct gda_sq *sq, struct gda_cq *cq, const int ord, const struct gda_window_args *a,
			  struct gda_window_out *o)
{
	const uint32_t n = a->qps;
	const uint64_t total = a->warmup + a->messages;
	uint32_t pi0[GDA_WINDOW_MAX_QPS];
	uint64_t reaped[GDA_WINDOW_MAX_QPS];
	uint32_t q = 0;
	uint64_t j = 0;
	int rc;

	if (n < 1u || n > GDA_WINDOW_MAX_QPS)
		return o->rc = MARROW_EINVAL;
	for (uint32_t p = 0; p < n; p++) {
		pi0[p] = sq[p].pi;
		reaped[p] = 0;
	}
	o->t_start = gda_now_ns();
	for (uint64_t i = 0; i < total; i++) {
		uint64_t off = ((uint64_t)q * a->slots + (uint32_t)(j % a->slots)) * a->msg_size;

		if (i == a->warmup && i != 0) {
			for (uint32_t p = 0; p < n; p++)
				if ((rc = gda_window_drain(&sq[p], &cq[p], ord, a, p, pi0[p], &reaped[p],
							   gda_window_share(a->warmup, n, p), o)) != MARROW_OK)
					return o->rc = rc;
			o->t_start = gda_now_ns();
		}
		while (j - reaped[q] >= a->window)
			if ((rc = gda_window_reap(&sq[q], &cq[q], ord, a, q, pi0[q], &reaped[q], o)) != MARROW_OK)
				return o->rc = rc;
		rc = gda_window_post(&sq[q], ord, a->raddr + off, a->rkey, a->laddr + off, a->lkey, a->msg_size,
				     gda_window_signaled(a, q, j));
		if (rc != MARROW_OK) {
			o->fail_message = i;
			o->fail_qp = q;
			return o->rc = rc;
		}
		o->posts++;
		if (++q == n) {
			q = 0;
			j++;
		}
	}
	for (uint32_t p = 0; p < n; p++)
		if ((rc = gda_window_drain(&sq[p], &cq[p], ord, a, p, pi0[p], &reaped[p],
					   gda_window_share(total, n, p), o)) != MARROW_OK)
			return o->rc = rc;
	o->t_end = gda_now_ns();
	return o->rc = MARROW_OK;
}

#ifdef __cplusplus
}
#endif

#endif /* MARROW_GDA_WINDOW_H */
