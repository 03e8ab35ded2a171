/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * mini-gda GPU kernels: the device-side twin of the CPU executor's loops
 * (gda_cpu.c), built on the same gda_post.h. One instantiation per ordering
 * variant (template parameter ORD), so each variant's fences and stores are
 * fixed in the SASS of its kernel.
 *
 * Block 0 / thread 0 is the initiator. For round trip, block 1 / thread 0
 * is the peer (two hosts: marrow_gda_cuda_serve launches ONE block with
 * a.serve = 1, whose thread 0 runs the same gda_peer_loop over a.peer,
 * stopping after warmup + iters pings or at the first bounded wait that
 * expires): a second GPU thread on a second SM that polls its inbox for
 * the data word and writes it back through its own QP, so the round trip
 * is GPU -> NIC -> GPU -> NIC -> GPU as in "GPU-Initiated Communication:
 * Dissecting Down to the Bone" (a CPU peer would put
 * a CPU thread's reaction time in the measurement instead).
 *
 * Timing: %globaltimer (ns) around each sample, and %clock64 around the
 * same region, so the host can report the effective SM clock of the run
 * (cycles / ns) and a cycle count per sample. Both reads are gpu_prims.h's,
 * compiler barriers, so the timed stores and loads stay between the stamps.
 */
#ifndef MARROW_GDA_KERNELS_CUH
#define MARROW_GDA_KERNELS_CUH

#include "marrow/gda_post.h"
#include "marrow/marrow_gda.h"

#define GDA_MAX_INLINE_WORDS 256

/* One side as the GPU sees it. Addresses put into WQEs (laddr, raddr) are
 * the host virtual addresses the NIC registered; the *_dev pointers are the
 * same memory mapped into the GPU, used for the thread's own loads/stores. */
struct gda_kside {
	struct gda_sq sq;
	struct gda_cq cq;
	uint64_t raddr;
	uint64_t laddr;
	uint32_t rkey;
	uint32_t lkey;
	uint32_t *src_dev;           /* pointer-form source buffer */
	const uint8_t *dst_dev;      /* destination, for validation; NULL when it is on another host */
	const uint64_t *inbox_dev;   /* round trip: where the other side writes */
};

struct gda_kout {
	unsigned long long iters_done, posts, cqes, peer_posts, payload_errors;
	unsigned long long timed_ns, timed_cycles;
	struct gda_err err, peer_err;
	uint32_t fail_iter, peer_fail_iter;
	int32_t rc, peer_rc;
	int32_t stop;
};

struct gda_kargs {
	struct gda_kside me, peer;
	uint32_t exp, payload, msg_size;
	uint32_t serve;              /* 1: block 0 runs the peer role alone (marrow_gda_cuda_serve) */
	unsigned long long iters, warmup, timeout_ns;
	unsigned long long responder_delay_ns; /* round trip: the peer's wait before answering */
	unsigned long long *samples_ns, *samples_cycles;
	struct gda_kout *out;
};

__device__ __forceinline__ uint64_t gda_data_word(uint64_t it)
{
	return (uint64_t)gda_pattern_word(it, 0) | ((uint64_t)gda_pattern_word(it, 1) << 32);
}

__device__ __forceinline__ int gda_stopped(const gda_kargs &a)
{
	return *(volatile int32_t *)&a.out->stop;
}

/* Untimed: the iteration's payload into shared staging words or the source
 * (host memory the NIC reads; ordered for it by gda_order_staged_payload). */
__device__ __forceinline__ void gda_stage(const gda_kside &s, const gda_kargs &a, int ord, uint64_t it,
					  uint32_t *words, gda_write *w)
{
	uint32_t nw = (a.msg_size + 3u) / 4u;

	w->raddr = s.raddr;
	w->rkey = s.rkey;
	w->len = a.msg_size;
	w->pad = 0;
	if (a.payload == MARROW_GDA_PAYLOAD_INLINE) {
		for (uint32_t k = 0; k < nw; k++)
			words[k] = gda_pattern_word(it, k);
		w->inline_words = words;
		w->laddr = 0;
		w->lkey = 0;
	} else {
		for (uint32_t k = 0; k < nw; k++)
			mx_store32(&s.src_dev[k], gda_pattern_word(it, k));
		gda_order_staged_payload(ord);
		w->inline_words = 0;
		w->laddr = s.laddr;
		w->lkey = s.lkey;
	}
}

__device__ __forceinline__ int gda_payload_byte_ok(const volatile uint8_t *d, uint64_t it, uint32_t j)
{
	return d[j] == (uint8_t)(gda_pattern_word(it, j / 4u) >> (8u * (j % 4u)));
}

/* Untimed. Up to GDA_CHECK_HEAD bytes are checked byte for byte; a longer
 * payload at its first GDA_CHECK_HEAD and last GDA_CHECK_TAIL bytes and at
 * the last byte of every 4 KiB. Every byte of the pattern depends on the
 * iteration, so a stale, short or misplaced WRITE still fails; and one GPU
 * thread reading a 1 MiB destination in pinned host memory makes ~500
 * loads instead of 10^6 (with every byte read, a Fig. 11 sweep to 1 MiB at
 * 550 iterations per size did not end within 75 s on an H200). */
enum { GDA_CHECK_HEAD = 256u, GDA_CHECK_TAIL = 64u, GDA_CHECK_STRIDE = 4096u };

__device__ __forceinline__ int gda_payload_ok(const gda_kside &s, uint32_t len, uint64_t it)
{
	const volatile uint8_t *d = s.dst_dev;
	const uint32_t head = len < GDA_CHECK_HEAD ? len : GDA_CHECK_HEAD;

	for (uint32_t j = 0; j < head; j++)
		if (!gda_payload_byte_ok(d, it, j))
			return 0;
	if (len <= GDA_CHECK_HEAD)
		return 1;
	for (uint32_t j = len - GDA_CHECK_TAIL; j < len; j++)
		if (!gda_payload_byte_ok(d, it, j))
			return 0;
	for (uint32_t j = GDA_CHECK_STRIDE - 1u; j < len; j += GDA_CHECK_STRIDE)
		if (!gda_payload_byte_ok(d, it, j))
			return 0;
	return 1;
}

template <int ORD>
__device__ void gda_peer_loop(gda_kargs &a, uint32_t *words)
{
	gda_kside &s = a.peer;
	gda_kout *o = a.out;
	uint64_t total = a.warmup + a.iters;

	for (uint64_t it = 0; it < total && !gda_stopped(a); it++) {
		gda_write w;
		uint32_t idx;
		int rc;

		o->peer_fail_iter = (uint32_t)it;
		rc = gda_wait_word(s.inbox_dev, gda_data_word(it), ORD, a.timeout_ns, &o->peer_err);
		if (rc == MARROW_OK && a.responder_delay_ns != 0)
			gda_spin_until(gda_now_ns(), a.responder_delay_ns); /* timer check */
		if (rc == MARROW_OK) {
			gda_stage(s, a, ORD, it, words, &w);
			rc = gda_post_write(&s.sq, ORD, &w, &idx);
		}
		if (rc == MARROW_OK) {
			o->peer_posts++;
			rc = gda_wait_cqe(&s.sq, &s.cq, ORD, idx, a.timeout_ns, &o->peer_err);
		}
		if (rc != MARROW_OK) {
			o->peer_rc = rc;
			o->peer_err.status = rc;
			*(volatile int32_t *)&o->stop = 1;
			return;
		}
	}
}

template <int ORD>
__device__ void gda_main_loop(gda_kargs &a, uint32_t *words)
{
	gda_kside &s = a.me;
	gda_kout *o = a.out;
	const uint32_t exp = a.exp;
	uint64_t total = a.warmup + a.iters;
	uint64_t first_t = 0, first_c = 0, last_t = 0, last_c = 0;

	for (uint64_t it = 0; it < total; it++) {
		gda_write w;
		uint64_t t0, c0, t1 = 0, c1 = 0;
		uint32_t idx;
		int rc;

		o->fail_iter = (uint32_t)it;
		if (gda_stopped(a)) {
			o->rc = MARROW_ECONNRESET;
			return;
		}
		gda_stage(s, a, ORD, it, words, &w);
		t0 = gda_now_ns();
		c0 = gpu_clock64();
		rc = gda_post_write(&s.sq, ORD, &w, &idx);
		if (exp == MARROW_GDA_EXP_ISSUE) {
			c1 = gpu_clock64();
			t1 = gda_now_ns();
		} else if (exp == MARROW_GDA_EXP_DB2CQE) {
			/* the doorbell store is the post's last store */
			t0 = gda_now_ns();
			c0 = gpu_clock64();
		}
		if (rc != MARROW_OK) {
			o->rc = rc;
			return;
		}
		o->posts++;
		if (exp == MARROW_GDA_EXP_DB2CQE) {
			rc = gda_poll_cqe_visible(&s.cq, idx, a.timeout_ns, &o->err);
			c1 = gpu_clock64();
			t1 = gda_now_ns();
			if (rc == MARROW_OK)
				rc = gda_wait_cqe(&s.sq, &s.cq, ORD, idx, a.timeout_ns, &o->err);
		} else if (exp == MARROW_GDA_EXP_ROUND_TRIP) {
			rc = gda_wait_word(s.inbox_dev, gda_data_word(it), ORD, a.timeout_ns, &o->err);
			c1 = gpu_clock64();
			t1 = gda_now_ns();
			if (rc == MARROW_OK)
				rc = gda_wait_cqe(&s.sq, &s.cq, ORD, idx, a.timeout_ns, &o->err);
		} else {
			rc = gda_wait_cqe(&s.sq, &s.cq, ORD, idx, a.timeout_ns, &o->err);
			if (exp == MARROW_GDA_EXP_PUT_COMPLETION) {
				c1 = gpu_clock64();
				t1 = gda_now_ns();
			}
		}
		if (rc != MARROW_OK) {
			o->rc = rc;
			o->err.status = rc;
			*(volatile int32_t *)&o->stop = 1;
			return;
		}
		o->cqes++;
		/* dst_dev NULL: the destination is on another host (its owner
		 * validates the final bytes); untimed either way. */
		if (s.dst_dev != nullptr && !gda_payload_ok(s, a.msg_size, it))
			o->payload_errors++;
		if (it >= a.warmup) {
			a.samples_ns[it - a.warmup] = t1 - t0;
			if (a.samples_cycles)
				a.samples_cycles[it - a.warmup] = c1 - c0;
			if (it == a.warmup) {
				first_t = t0;
				first_c = c0;
			}
			last_t = t1;
			last_c = c1;
		}
		o->iters_done = it + 1;
	}
	o->timed_ns = last_t - first_t;
	o->timed_cycles = last_c - first_c;
}

template <int ORD>
__global__ void gda_kernel(gda_kargs a)
{
	__shared__ uint32_t words[GDA_MAX_INLINE_WORDS];

	if (threadIdx.x != 0)
		return;
	if (blockIdx.x == 1 || a.serve)
		gda_peer_loop<ORD>(a, words);
	else
		gda_main_loop<ORD>(a, words);
}

#endif
