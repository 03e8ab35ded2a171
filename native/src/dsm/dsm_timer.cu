// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The Marrow authors
//
// E0 timer facts: the step of %globaltimer as an SM sees it, and the
// effective SM clock as %clock64 cycles per %globaltimer ns over a window.
// The clock is measured, never taken from the device's advertised rate.
#include <string.h>

#include "dsm/dsm_host.cuh"
#include "dsm/dsm_ptx.cuh"

namespace dsm {
namespace {

struct TimerOut {
	uint64_t min_step;
	uint64_t steps;
	uint64_t clk_delta;
	uint64_t gt_delta;
	uint32_t smid;
	uint32_t reads;
};

__global__ void timer_kernel(uint64_t window_ns, TimerOut *out)
{
	if (threadIdx.x != 0)
		return;
	const uint64_t g0 = gpu_globaltimer_ns();
	const uint64_t c0 = gpu_clock64();
	uint64_t prev = g0, g = g0, min_step = ~0ull, steps = 0;
	uint32_t reads = 0;
	// Bounded by the window and by a read cap, so a stuck timer cannot hang.
	while (g - g0 < window_ns && reads < (1u << 26)) {
		g = gpu_globaltimer_ns();
		reads++;
		if (g != prev) {
			uint64_t d = g - prev;
			if (d < min_step)
				min_step = d;
			steps++;
			prev = g;
		}
	}
	const uint64_t c1 = gpu_clock64();
	out->min_step = steps ? min_step : 0;
	out->steps = steps;
	out->clk_delta = c1 - c0;
	out->gt_delta = g - g0;
	out->smid = smid();
	out->reads = reads;
}

} // namespace
} // namespace dsm

extern "C" MARROW_API int marrow_dsm_timer_probe(int dev, uint32_t window_us, struct marrow_dsm_timer_info *out)
{
	using namespace dsm;
	if (out == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_dsm_timer_probe: NULL out");
	int rc = check_header(out->size, out->comp_mask, sizeof(*out), "marrow_dsm_timer_probe");
	if (rc)
		return rc;
	if (window_us == 0)
		window_us = 2000;
	if (window_us > 1000000)
		return marrow_fail(MARROW_EINVAL, "marrow_dsm_timer_probe: window %u us above 1 s", window_us);
	cudaDeviceProp prop;
	rc = require_hopper(dev, &prop);
	if (rc)
		return rc;
	TimerOut *d = NULL;
	TimerOut h;
	cudaEvent_t done = NULL;
	cudaError_t e = cudaMalloc(&d, sizeof(TimerOut));
	if (e != cudaSuccess)
		return marrow_cuda_fail(e, "cudaMalloc");
	if ((e = cudaEventCreateWithFlags(&done, cudaEventDisableTiming)) != cudaSuccess) {
		rc = marrow_cuda_fail(e, "cudaEventCreate");
		goto out_free;
	}
	// First launch warms the clock up from idle; only the second counts.
	for (int k = 0; k < 2; k++) {
		timer_kernel<<<1, 32>>>((uint64_t)window_us * 1000u, d);
		if ((e = cudaGetLastError()) != cudaSuccess || (e = cudaEventRecord(done, 0)) != cudaSuccess) {
			rc = marrow_cuda_fail(e, "timer_kernel launch");
			goto out_free;
		}
		rc = marrow_cuda_wait_event(done, 10000ull * 1000000u, "marrow_dsm_timer_probe", NULL);
		if (rc)
			goto out_free;
	}
	if ((e = cudaMemcpy(&h, d, sizeof(h), cudaMemcpyDeviceToHost)) != cudaSuccess) {
		rc = marrow_cuda_fail(e, "cudaMemcpy");
		goto out_free;
	}
	memset(out, 0, sizeof(*out));
	out->size = sizeof(*out);
	out->gt_min_step_ns = h.min_step;
	out->gt_steps = h.steps;
	out->clk_delta = h.clk_delta;
	out->gt_delta_ns = h.gt_delta;
	out->smid = h.smid;
	out->reads = h.reads;
out_free:
	if (done)
		cudaEventDestroy(done);
	cudaFree(d);
	return rc;
}
