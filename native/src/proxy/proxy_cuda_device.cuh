/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * mini-proxy GPU producers, device side: the enqueue of one descriptor in
 * each handoff and the bounded wait for a counter, built on gpu_prims.h.
 * The PTX each handoff emits is listed in docs/design/gpu-primitives.md.
 */
#ifndef MARROW_PROXY_CUDA_DEVICE_CUH
#define MARROW_PROXY_CUDA_DEVICE_CUH

#include "marrow/gpu_prims.h"
#include "marrow/marrow_proxy.h"
#include "marrow/proxy_ring.h"
#include "proxy/proxy_cuda.cuh"

__device__ __forceinline__ const uint64_t *cpl_of(const dev_rings &d, uint32_t r)
{
	return d.cpl ? d.cpl + (uint64_t)r * 8 : &mpr_ctl_of(d.arena, r)->cpl;
}

/* The first failing wait of the launch is the one the host reports. */
static __device__ void report(dev_status *s, int32_t code, uint32_t ring, uint64_t pos, uint64_t seen)
{
	if (atomicCAS((int *)&s->code, 0, code) == 0) {
		s->ring = ring;
		s->pos = pos;
		s->seen = seen;
	}
}

/* One enqueue; returns 0, or 1 when the ring stayed full for timeout_ns.
 * The tag carries the ring position, so a worker with check_order can
 * verify ring order for GPU producers as well (w1 arrives with tag 0).
 * The worker's tail is read with a system-scope acquire: the slot it freed
 * is reused only after the worker's reads of it. */
__device__ __forceinline__ int enqueue(const dev_rings &d, uint32_t r, uint64_t &head, uint64_t &ctail,
				       uint64_t w0, uint64_t w1, dev_status *st)
{
	const uint64_t N = 1ull << d.log_slots;
	struct mpr_ctl *c = mpr_ctl_of(d.arena, r);
	struct mpr_desc *slot;
	uint64_t h, deadline = 0;

	if (d.handoff == MARROW_PROXY_TUNED) {
		h = head;
		while (h - ctail >= N) {
			ctail = gpu_ld_acquire_sys_u64(&c->tail);
			if (h - ctail < N)
				break;
			if (deadline == 0)
				deadline = gpu_globaltimer_ns() + d.timeout_ns;
			else if (gpu_globaltimer_ns() > deadline) {
				report(st, DEV_WAIT_SLOT, r, h, ctail);
				return 1;
			}
		}
		slot = mpr_slots_of(d.arena, d.rings, d.log_slots, r) + (h & (N - 1));
		/* One 16-byte relaxed system-scope store: the worker sees w0 and
		 * w1 (with its lap bit) together; the payload was written before
		 * the kernel, so no earlier GPU store needs ordering. */
		gpu_st_relaxed_sys_v2u64(&slot->w0, w0, w1 | ((h & MPR_TAG_MASK) << 48) | mpr_lap_bit(h, d.log_slots));
		head = h + 1;
	} else {
		h = atomicAdd(&d.head[r], 1ull);
		for (uint64_t t = gpu_ld_acquire_sys_u64(&c->tail); h - t >= N; t = gpu_ld_acquire_sys_u64(&c->tail)) {
			if (deadline == 0)
				deadline = gpu_globaltimer_ns() + d.timeout_ns;
			else if (gpu_globaltimer_ns() > deadline) {
				report(st, DEV_WAIT_SLOT, r, h, t);
				return 1;
			}
		}
		slot = mpr_slots_of(d.arena, d.rings, d.log_slots, r) + (h & (N - 1));
		/* w0, then w1 with the validity (lap) bit by a release: the worker
		 * that sees the bit sees w0. */
		gpu_st_relaxed_sys_u64(&slot->w0, w0);
		gpu_st_release_sys_u64(&slot->w1, w1 | ((h & MPR_TAG_MASK) << 48) | mpr_lap_bit(h, d.log_slots));
		head = h + 1;
	}
	return 0;
}

/* Waits until *p >= want (a counter the CPU writes), bounded by timeout_ns. */
__device__ __forceinline__ int wait_at_least(const uint64_t *p, uint64_t want, uint64_t timeout_ns, dev_status *st,
					     int32_t code, uint32_t ring)
{
	uint64_t deadline = 0, v;

	while ((v = gpu_ld_relaxed_sys_u64(p)) < want) {
		if (deadline == 0)
			deadline = gpu_globaltimer_ns() + timeout_ns;
		else if (gpu_globaltimer_ns() > deadline) {
			report(st, code, ring, want, v);
			return 1;
		}
	}
	return 0;
}

#endif
