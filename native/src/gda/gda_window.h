/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Pipelined posting for the goodput runners (marrow_gda_goodput.h): ONE
 * algorithm for host C (gda_goodput_cpu.c) and CUDA device code
 * (gda_goodput.cu), on top of gda_post.h (ordering variants, CQE wait) and
 * mlx5_wqe.h (encoders).
 *
 * One thread owns one SQ. Message i is a 1-WQEBB pointer RDMA WRITE
 * (ds 3), rung with its own doorbell; it is signaled when
 * (i + 1) % signal_every == 0, when it is the last warm-up message or the
 * last message. At most `window` WQEs are outstanding: when the window is
 * full the thread waits for the next signaled CQE, which retires every WQE
 * up to it (completions are in order on an RC SQ). The warm-up is drained
 * before the timer starts; the timer stops at the last CQE.
 */
#ifndef MARROW_GDA_WINDOW_H
#define MARROW_GDA_WINDOW_H

#include "marrow/gda_post.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gda_window_args {
	uint64_t laddr, raddr;      /* slot 0 of source and destination */
	uint32_t lkey, rkey;
	uint32_t msg_size, slots;
	uint32_t window, signal_every;
	uint64_t messages, warmup, timeout_ns;
};

struct gda_window_out {
	uint64_t done;              /* messages retired */
	uint64_t posts, cqes;
	uint64_t t_start, t_end;    /* gda_now_ns of the timed span */
	uint64_t fail_message;
	int32_t rc;
	uint32_t pad;
	struct gda_err err;
};

GDA_FN int gda_window_signaled(const struct gda_window_args *a, uint64_t i)
{
	uint64_t total = a->warmup + a->messages;

	return (i + 1u) % a->signal_every == 0u || i + 1u == total || i + 1u == a->warmup;
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

/* Waits for the CQE of the next signaled message at or after *reaped
 * (which must be below posted); everything up to it retires. */
GDA_FN int gda_window_reap(struct gda_sq *sq, struct gda_cq *cq, int ord, const struct gda_window_args *a,
			   uint32_t pi0, uint64_t *reaped, struct gda_window_out *o)
{
	uint64_t j = *reaped;
	int rc;

	while (!gda_window_signaled(a, j))
		j++;
	rc = gda_wait_cqe(sq, cq, ord, pi0 + (uint32_t)j, a->timeout_ns, &o->err);
	if (rc != MARROW_OK) {
		o->fail_message = j;
		return rc;
	}
	/* gda_wait_cqe assumes one outstanding WQE; here only up to j retired. */
	sq->ci = pi0 + (uint32_t)j + 1u;
	o->cqes++;
	*reaped = j + 1u;
	o->done = j + 1u;
	return MARROW_OK;
}

GDA_FN int gda_window_run(struct gda_sq *sq, struct gda_cq *cq, const int ord, const struct gda_window_args *a,
			  struct gda_window_out *o)
{
	const uint64_t total = a->warmup + a->messages;
	const uint32_t pi0 = sq->pi;
	uint64_t reaped = 0;
	int rc;

	o->t_start = gda_now_ns();
	for (uint64_t i = 0; i < total; i++) {
		uint32_t slot = (uint32_t)(i % a->slots);
		uint64_t off = (uint64_t)slot * a->msg_size;

		if (i == a->warmup && i != 0) {
			while (reaped < i)
				if ((rc = gda_window_reap(sq, cq, ord, a, pi0, &reaped, o)) != MARROW_OK)
					return o->rc = rc;
			o->t_start = gda_now_ns();
		}
		while (i - reaped >= a->window)
			if ((rc = gda_window_reap(sq, cq, ord, a, pi0, &reaped, o)) != MARROW_OK)
				return o->rc = rc;
		rc = gda_window_post(sq, ord, a->raddr + off, a->rkey, a->laddr + off, a->lkey, a->msg_size,
				     gda_window_signaled(a, i));
		if (rc != MARROW_OK) {
			o->fail_message = i;
			return o->rc = rc;
		}
		o->posts++;
	}
	while (reaped < total)
		if ((rc = gda_window_reap(sq, cq, ord, a, pi0, &reaped, o)) != MARROW_OK)
			return o->rc = rc;
	o->t_end = gda_now_ns();
	return o->rc = MARROW_OK;
}

#ifdef __cplusplus
}
#endif

#endif /* MARROW_GDA_WINDOW_H */
