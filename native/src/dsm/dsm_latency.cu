// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The Marrow authors
//
// E1: DSM load latency between every (src, dst) pair of one cluster. One
// thread per CTA follows a dependent chain of ld.shared::cluster.u32 through
// a ring stored in dst's shared memory; cycles / hops is the latency.
#include <string.h>

#include "dsm/dsm_host.cuh"
#include "dsm/dsm_ptx.cuh"

namespace dsm {
namespace {

// The ring: RING_SLOTS slots, slot k at word (k * stride) mod RING_WORDS,
// holding the word index of slot k + 1. A prime slot count makes the final
// position after `hops` steps informative (not back at slot 0).
constexpr uint32_t RING_SLOTS = 1021;
constexpr uint32_t RING_WORDS = 16384; // 64 KiB; stride odd => slots distinct

__host__ __device__ inline uint32_t slot_word(uint32_t k, uint32_t stride)
{
	return (k * stride) % RING_WORDS;
}

__global__ void __launch_bounds__(32, 1)
	latency_kernel(uint32_t hops, uint32_t stride, uint64_t *cycles, uint32_t *final_idx, uint32_t *smids)
{
#if DSM_SM90
	extern __shared__ __align__(128) uint8_t smem[];
	uint32_t *ring = reinterpret_cast<uint32_t *>(smem);
	const uint32_t rank = cluster_rank();
	const uint32_t n = gridDim.x;
	for (uint32_t k = threadIdx.x; k < RING_SLOTS; k += blockDim.x)
		ring[slot_word(k, stride)] = slot_word((k + 1) % RING_SLOTS, stride);
	__syncthreads();
	cluster_sync();
	if (threadIdx.x == 0) {
		const uint32_t base = shared_addr(ring);
		for (uint32_t step = 0; step < n; step++) {
			// Staggered order: at each step every destination has one chaser.
			const uint32_t dst = (rank + step) % n;
			const uint32_t remote = mapa(base, dst);
			uint32_t idx = 0;
			uint64_t c0 = gpu_clock64();
			for (uint32_t h = 0; h < hops; h++)
				idx = ld_cluster_u32(remote + 4u * idx);
			uint64_t c1 = gpu_clock64();
			cycles[rank * n + dst] = c1 - c0;
			final_idx[rank * n + dst] = idx;
		}
		smids[rank] = smid();
	}
	cluster_sync(); // peers keep their rings until every chase is done
#else
	__trap();
#endif
}

} // namespace
} // namespace dsm

extern "C" MARROW_API int marrow_dsm_latency(const struct marrow_dsm_lat_params *p, struct marrow_dsm_lat_sample *out,
					     uint32_t out_count)
{
	using namespace dsm;
	if (p == NULL || out == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_dsm_latency: NULL argument");
	int rc = check_header(p->size, p->comp_mask, sizeof(*p), "marrow_dsm_latency");
	if (rc)
		return rc;
	const uint32_t n = p->cluster_size;
	const uint32_t hops = p->hops ? p->hops : 1024;
	const uint32_t stride = p->stride_words ? p->stride_words : 33;
	if (n < 2 || n > MARROW_DSM_MAX_RANKS)
		return marrow_fail(MARROW_EINVAL, "marrow_dsm_latency: cluster_size %u outside 2..16", n);
	if (p->reps == 0 || p->reps > 10000 || hops > (1u << 24) || stride % 2 == 0)
		return marrow_fail(MARROW_EINVAL, "marrow_dsm_latency: reps %u (1..10000), hops %u (<= 2^24), stride %u (odd)",
				   p->reps, hops, stride);
	if ((uint64_t)p->reps * n * n > out_count)
		return marrow_fail(MARROW_EINVAL, "marrow_dsm_latency: out holds %u entries, %u needed", out_count,
				   p->reps * n * n);
	cudaDeviceProp prop;
	rc = require_hopper(p->device, &prop);
	if (rc)
		return rc;
	cudaError_t e = cudaFuncSetAttribute(latency_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
					     (int)MARROW_DSM_SMEM_BYTES);
	if (e == cudaSuccess)
		e = cudaFuncSetAttribute(latency_kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
	if (e != cudaSuccess)
		return marrow_cuda_fail(e, "cudaFuncSetAttribute(latency_kernel)");

	cudaLaunchConfig_t cfg = {};
	cudaLaunchAttribute attr[1];
	cfg.gridDim = dim3(n, 1, 1);
	cfg.blockDim = dim3(32, 1, 1);
	// Same 200 KiB as the traffic kernel: one CTA per SM.
	cfg.dynamicSmemBytes = MARROW_DSM_SMEM_BYTES;
	attr[0].id = cudaLaunchAttributeClusterDimension;
	attr[0].val.clusterDim.x = n;
	attr[0].val.clusterDim.y = 1;
	attr[0].val.clusterDim.z = 1;
	cfg.attrs = attr;
	cfg.numAttrs = 1;

	const size_t nn = (size_t)n * n;
	uint64_t *d_cyc = NULL;
	uint32_t *d_idx = NULL, *d_smid = NULL;
	cudaEvent_t done = NULL;
	uint64_t h_cyc[MARROW_DSM_MAX_RANKS * MARROW_DSM_MAX_RANKS];
	uint32_t h_idx[MARROW_DSM_MAX_RANKS * MARROW_DSM_MAX_RANKS];
	uint32_t h_smid[MARROW_DSM_MAX_RANKS];
	const uint32_t expect = ((hops % RING_SLOTS) * stride) % RING_WORDS;
	if ((e = cudaMalloc(&d_cyc, nn * sizeof(uint64_t) * p->reps)) != cudaSuccess ||
	    (e = cudaMalloc(&d_idx, nn * sizeof(uint32_t) * p->reps)) != cudaSuccess ||
	    (e = cudaMalloc(&d_smid, n * sizeof(uint32_t) * p->reps)) != cudaSuccess ||
	    (e = cudaEventCreateWithFlags(&done, cudaEventDisableTiming)) != cudaSuccess) {
		rc = marrow_cuda_fail(e, "cudaMalloc/cudaEventCreate");
		goto out_free;
	}
	for (uint32_t r = 0; r < p->reps; r++) {
		e = cudaLaunchKernelEx(&cfg, latency_kernel, hops, stride, d_cyc + r * nn, d_idx + r * nn, d_smid + r * n);
		if (e != cudaSuccess) {
			rc = marrow_cuda_fail(e, "cudaLaunchKernelEx(latency_kernel)");
			goto out_free;
		}
	}
	if ((e = cudaEventRecord(done, 0)) != cudaSuccess) {
		rc = marrow_cuda_fail(e, "cudaEventRecord");
		goto out_free;
	}
	rc = marrow_cuda_wait_event(done, (uint64_t)(p->timeout_ms ? p->timeout_ms : MARROW_DSM_DEFAULT_TIMEOUT_MS) * 1000000u,
				    "marrow_dsm_latency", NULL);
	if (rc)
		goto out_free;
	for (uint32_t r = 0; r < p->reps; r++) {
		if ((e = cudaMemcpy(h_cyc, d_cyc + r * nn, nn * sizeof(uint64_t), cudaMemcpyDeviceToHost)) != cudaSuccess ||
		    (e = cudaMemcpy(h_idx, d_idx + r * nn, nn * sizeof(uint32_t), cudaMemcpyDeviceToHost)) != cudaSuccess ||
		    (e = cudaMemcpy(h_smid, d_smid + r * n, n * sizeof(uint32_t), cudaMemcpyDeviceToHost)) != cudaSuccess) {
			rc = marrow_cuda_fail(e, "cudaMemcpy");
			goto out_free;
		}
		for (uint32_t s = 0; s < n; s++) {
			for (uint32_t d = 0; d < n; d++) {
				marrow_dsm_lat_sample *x = &out[(r * n + s) * n + d];
				memset(x, 0, sizeof(*x));
				x->size = sizeof(*x);
				x->rep = r;
				x->src = s;
				x->dst = d;
				x->smid_src = h_smid[s];
				x->smid_dst = h_smid[d];
				x->cycles = h_cyc[s * n + d];
				x->final_index = h_idx[s * n + d];
				x->expect_index = expect;
				if (x->final_index != expect)
					x->flags |= MARROW_DSM_F_LOAD_SUM;
				if (x->cycles == 0)
					x->flags |= MARROW_DSM_F_TIME;
				for (uint32_t q = 0; q < n; q++)
					if ((q != s && h_smid[q] == h_smid[s]) || (q != d && h_smid[q] == h_smid[d]))
						x->flags |= MARROW_DSM_F_SMID_SHARED;
			}
		}
	}
out_free:
	if (done)
		cudaEventDestroy(done);
	cudaFree(d_cyc);
	cudaFree(d_idx);
	cudaFree(d_smid);
	return rc;
}
