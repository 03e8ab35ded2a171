/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Streaming posts for the loaded round trip (marrow_gda_loaded.h): 8-byte
 * inline RDMA WRITEs of one WQEBB, signaled when the WQE's free-running
 * index + 1 is a multiple of signal_every, so that any run of signal_every
 * consecutive WQEs of a QP holds a signaled one, whoever posted them. SQ
 * space comes back by reaping CQEs: a CQE for WQE w retires every WQE up to
 * w (RC completions are in order). gda_post.h supplies the ordering
 * variants and the clock; mlx5_wqe.h the encoders. For host C and CUDA.
 */
#ifndef MARROW_GDA_STREAM_H
#define MARROW_GDA_STREAM_H

#include "marrow/gda_post.h"

#ifdef __cplusplus
extern "C" {
#endif

GDA_FN int gda_stream_signaled(uint32_t idx, uint32_t signal_every)
{
	return (idx + 1u) % signal_every == 0u;
}

/* Builds and rings one inline 8-byte WRITE (words w0, w1). The caller made room. */
GDA_FN void gda_stream_post8(struct gda_sq *sq, int ord, uint64_t raddr, uint32_t rkey, uint32_t w0, uint32_t w1,
			     int signaled)
{
	const uint32_t ds = mx_ds_inline_write(8);
	const uint32_t base = sq->pi;
	const uint32_t off = MX_CTRL_SEG_SIZE + MX_RADDR_SEG_SIZE;

	mx_set_ctrl_seg(gda_wqe_at(sq, base, 0), (uint16_t)base, MX_OPCODE_RDMA_WRITE, 0, sq->qpn,
			signaled ? MX_CTRL_CQ_UPDATE : 0, (uint8_t)ds, 0, 0);
	mx_set_raddr_seg(gda_wqe_at(sq, base, MX_CTRL_SEG_SIZE), raddr, rkey);
	mx_set_inline_hdr(gda_wqe_at(sq, base, off), 8);
	mx_store32(gda_wqe_at(sq, base, off + MX_INLINE_HDR_SIZE), w0);
	mx_store32(gda_wqe_at(sq, base, off + MX_INLINE_HDR_SIZE + 4u), w1);
	sq->pi = base + 1u;
	gda_publish(sq, ord, mx_dbrec_send_value(sq->pi), mx_doorbell_value((uint16_t)sq->pi, 0, sq->qpn, 0));
}

/* Consumes one CQE if one is there: 1 = consumed (sq->ci moved), 0 = none,
 * MARROW_EIO (negative) = an error CQE (err filled). */
GDA_FN int gda_stream_reap_one(struct gda_sq *sq, struct gda_cq *cq, int ord, struct gda_err *err)
{
	uint32_t n = 1u << cq->log_cnt;
	uint8_t *cqe = cq->buf + (size_t)(cq->ci & (n - 1u)) * MX_CQE_SIZE;
	uint16_t wc;
	uint8_t op;

	if (!mx_cqe_is_valid(cqe, cq->ci, cq->log_cnt))
		return 0;
	gda_acquire(ord);
	op = mx_cqe_opcode(cqe);
	wc = mx_cqe_wqe_counter(cqe);
	cq->ci++;
	gpu_st_relaxed_sys_u32(&cq->dbrec[0], mx_htobe32(cq->ci & 0xffffffu));
	if (op != MX_CQE_REQ) {
		err->status = MARROW_EIO;
		err->opcode = op;
		err->syndrome = mx_cqe_syndrome(cqe);
		err->vendor_syndrome = mx_cqe_vendor_syndrome(cqe);
		err->wqe_counter = wc;
		return MARROW_EIO;
	}
	sq->ci += (uint16_t)(wc + 1u - sq->ci);
	return 1;
}

/* Reaps until at most `window - 1` WQEs are outstanding (room for one more),
 * or until none is (window 0: drain). Bounded by timeout_ns. */
GDA_FN int gda_stream_room(struct gda_sq *sq, struct gda_cq *cq, int ord, uint32_t window, uint64_t timeout_ns,
			   struct gda_err *err)
{
	uint64_t deadline = 0;
	uint32_t spins = 0;

	while (window == 0u ? sq->pi != sq->ci : sq->pi - sq->ci >= window) {
		int r = gda_stream_reap_one(sq, cq, ord, err);

		if (r < 0)
			return r;
		if (r > 0)
			continue;
		if ((++spins & 63u) == 1u) {
			uint64_t now = gda_now_ns();

			if (deadline == 0)
				deadline = now + timeout_ns;
			else if (now > deadline) {
				err->status = MARROW_ETIMEDOUT;
				err->wait = GDA_WAIT_CQE;
				err->expected = sq->ci;
				err->sq_pi = sq->pi;
				err->sq_ci = sq->ci;
				err->cq_ci = cq->ci;
				return MARROW_ETIMEDOUT;
			}
		}
		gda_relax(spins);
	}
	return MARROW_OK;
}

#if defined(__CUDACC__)
#define GDA_HD __host__ __device__ __forceinline__
#else
#define GDA_HD static inline __attribute__((always_inline))
#endif

/* Word `half` (0, 1) of background stream k's message i: distinct per stream
 * and message, never 0; host and device (the host checks the slots). */
GDA_HD uint32_t gda_stream_word(uint32_t k, uint64_t i, uint32_t half)
{
	uint32_t x = (uint32_t)i * 0x9e3779b9u ^ (uint32_t)(i >> 32) * 0x632be5abu ^ k * 0x7feb352du ^
		     half * 0x85ebca6bu ^ 0x62676e64u;

	x ^= x >> 15;
	x *= 0x2c1b3c6du;
	x ^= x >> 12;
	return x | 1u;
}


/* Destination of background stream k's message i: slot i % slots of the
 * stream's run of `slots` 8-byte slots at dst. Writer and checker use it. */
GDA_HD uint64_t gda_stream_slot_addr(uint64_t dst, uint32_t k, uint64_t i, uint32_t slots)
{
	return dst + 8ull * ((uint64_t)k * slots + i % slots);
}

/* Leaves background stream k's QP drained: pads with the stream's next
 * messages until the newest WQE is signaled, then reaps every CQE. Each pad
 * is message *i (value gda_stream_word(k, *i, .) into its own slot) and
 * advances *i, exactly as the stream's loop would have posted it: the check
 * after the run wants every slot to hold the last message sent there, so a
 * pad must never re-send an earlier message (several pads of one value
 * would leave their later slots stale). The caller owns the QP (holds its
 * lock when it is shared). Bounded by timeout_ns per wait. */
GDA_FN int gda_stream_pad_drain(struct gda_sq *sq, struct gda_cq *cq, int ord, uint32_t window, uint32_t sig,
				uint64_t dst, uint32_t rkey, uint32_t k, uint32_t slots, uint64_t *i,
				uint64_t timeout_ns, struct gda_err *err)
{
	int rc = MARROW_OK;

	while (rc == MARROW_OK && sq->pi != sq->ci && !gda_stream_signaled(sq->pi - 1u, sig)) {
		rc = gda_stream_room(sq, cq, ord, window, timeout_ns, err);
		if (rc == MARROW_OK) {
			gda_stream_post8(sq, ord, gda_stream_slot_addr(dst, k, *i, slots), rkey,
					 gda_stream_word(k, *i, 0), gda_stream_word(k, *i, 1),
					 gda_stream_signaled(sq->pi, sig));
			*i += 1u;
		}
	}
	return rc == MARROW_OK ? gda_stream_room(sq, cq, ord, 0, timeout_ns, err) : rc;
}

#ifdef __cplusplus
}
#endif

#endif /* MARROW_GDA_STREAM_H */
