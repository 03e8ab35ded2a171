/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * mini-proxy GPU producer kernels and their launchers.
 *
 * Timing: %clock64 per sample, converted to ns with the SM clock measured
 * over the same kernel against %globaltimer (not the nominal clock rate).
 * Every device wait is bounded by timeout_ns of %globaltimer and reports
 * where it stopped (dev_status).
 */
#include "proxy/proxy_cuda_device.cuh"

__global__ void lat_kernel(dev_rings d, lat_args a, dev_status *st)
{
	const uint32_t src0 = MARROW_PROXY_AREA_LAT;
	uint64_t head = d.handoff == MARROW_PROXY_TUNED ? d.prod[0] : 0, ctail = d.prod[1];
	const uint64_t *cpl = cpl_of(d, 0);
	const uint64_t *flag0 = (const uint64_t *)(d.buf + MARROW_PROXY_FLAG_OFF);

	a.calib[0] = gpu_globaltimer_ns();
	a.calib[1] = gpu_clock64();
	for (uint64_t i = 0; i < a.total; i++) {
		uint64_t w0 = mpr_w0(src0 + (uint32_t)i * 8, d.half + MARROW_PROXY_FLAG_OFF);
		uint64_t w1 = mpr_w1(8, MPR_OP_WRITE, 0, 0);
		long long t0, t1, t2 = 0, t3 = 0;

		t0 = (long long)gpu_clock64();
		if (enqueue(d, 0, head, ctail, w0, w1, st))
			break;
		t1 = (long long)gpu_clock64();
		if (!a.do_rtt) {
			if (wait_at_least(cpl, head, d.timeout_ns, st, DEV_WAIT_CPL, 0))
				break;
			t2 = (long long)gpu_clock64();
		} else {
			uint64_t deadline = 0, want = a.first_value + i, v;

			while ((v = gpu_ld_acquire_sys_u64(flag0)) != want) {
				if (deadline == 0)
					deadline = gpu_globaltimer_ns() + d.timeout_ns;
				else if (gpu_globaltimer_ns() > deadline) {
					report(st, DEV_WAIT_REPLY, 1, want, v);
					break;
				}
			}
			if (st->code)
				break;
			t3 = (long long)gpu_clock64();
		}
		if (i >= a.warmup) {
			long long *c = a.cycles + 3 * (i - a.warmup);
			c[0] = t1 - t0;
			c[1] = t2 ? t2 - t0 : 0;
			c[2] = t3 ? t3 - t0 : 0;
		}
	}
	a.calib[2] = gpu_globaltimer_ns();
	a.calib[3] = gpu_clock64();
	if (d.handoff == MARROW_PROXY_TUNED) {
		d.prod[0] = head;
		d.prod[1] = ctail;
	}
}

__global__ void rate_kernel(dev_rings d, rate_args a, dev_status *st)
{
	const uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
	const uint32_t R = d.rings, P = a.producers;
	const uint64_t N = 1ull << d.log_slots;
	uint32_t first, stride, nr;

	if (p >= P)
		return;
	if (P <= R) {
		first = p;
		stride = P;
		nr = (R - p + P - 1) / P;
	} else {
		first = p % R;
		stride = R;
		nr = 1;
	}
	uint64_t hd[MAX_RINGS_PER_THREAD], ct[MAX_RINGS_PER_THREAD];

	/* tuned: this thread is the only producer of its rings; their head and
	 * cached tail stay in thread-local storage during the run. */
	for (uint32_t k = 0; k < nr; k++) {
		hd[k] = d.prod[2 * (first + k * stride)];
		ct[k] = d.prod[2 * (first + k * stride) + 1];
	}
	a.t_start[p] = gpu_globaltimer_ns();
	for (uint64_t i = 0; i < a.messages && !st->code; i++) {
		uint32_t k = (uint32_t)(i % nr), r = first + k * stride;
		uint64_t j = (i / nr) % N;
		uint32_t s = (uint32_t)(MARROW_PROXY_AREA_LAT + ((uint64_t)r * N + j) * a.msg_size);

		if (enqueue(d, r, hd[k], ct[k], mpr_w0(s, d.half + s), mpr_w1(a.msg_size, MPR_OP_WRITE, 0, 0), st))
			break;
	}
	for (uint32_t k = 0; k < nr; k++) {
		d.prod[2 * (first + k * stride)] = hd[k];
		d.prod[2 * (first + k * stride) + 1] = ct[k];
	}
	for (uint32_t k = 0; k < nr && !st->code; k++) {
		uint32_t r = first + k * stride;

		if (wait_at_least(cpl_of(d, r), d.cpl_expect[r], d.timeout_ns, st, DEV_WAIT_CPL, r))
			break;
	}
	a.t_end[p] = gpu_globaltimer_ns();
}

cudaError_t proxy_launch_latency(const dev_rings &d, const lat_args &a, dev_status *st)
{
	lat_kernel<<<1, 1>>>(d, a, st);
	return cudaGetLastError();
}

cudaError_t proxy_launch_rate(const dev_rings &d, const rate_args &a, dev_status *st)
{
	rate_kernel<<<(a.producers + 127) / 128, a.producers < 128 ? a.producers : 128>>>(d, a, st);
	return cudaGetLastError();
}
