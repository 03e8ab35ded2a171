/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * How fast one SM hands a message to another SM and hears back, through GPU
 * memory: the floor under the device engine's put+completion
 * (docs/design/device-engine.md §2.5). Two single-thread blocks on two SMs,
 * an initiator and a responder, ping-pong ITERS times after ITERS/10
 * untimed; the initiator times each round trip with %clock64 on its SM
 * (converted with %clock64 over %globaltimer across the run). Variants:
 *   relaxed   the bare crossing: the initiator stores a word (relaxed, GPU
 *             scope), the responder polls it and stores the reply, the
 *             initiator polls the reply. Two one-way crossings, nothing else.
 *   engine    what every put+completion on GPU-resident queues must do, with
 *             no emulator around it: the initiator writes a 64-byte "WQE"
 *             (four 16-byte stores), fences (fence.acq_rel.gpu, the gpu-fence
 *             ordering), stores the "doorbell", then polls the "CQE" word with
 *             an acquire load; the responder polls the doorbell (relaxed),
 *             takes it with fence.acquire, loads the WQE (four 16-byte loads),
 *             stores an 8-byte payload taken from it and a 60-byte CQE body,
 *             and publishes the CQE's last word with a release store.
 *   engine-ldacq  the same, the responder polling with acquire loads (no
 *             separate fence).
 *   gda       engine's responder; the initiator with mini-gda's gpu-fence
 *             primitives (native/include/marrow/gda_post.h): the WQE with
 *             system-scope relaxed stores, fence.acq_rel.gpu, a doorbell
 *             record (st.relaxed.sys), the doorbell with st.mmio.relaxed.sys,
 *             and the CQE word polled with system-scope relaxed loads, then
 *             fence.acq_rel.gpu (its completion side up to build 8d046e9).
 *   gda-acq   the same with fence.acquire.gpu after the poll (after 8d046e9).
 *   gda-lines gda-acq, and a responder that touches as many lines as the
 *             device engine's lane path did up to build 1f88b5c: two words of
 *             two other lines loaded with the WQE (the QP's and the peer's
 *             state) and tested, and two words of two other lines stored
 *             before the release (the QP's exec_ci, the CQ's prod).
 * usage: sm_handoff VARIANT ITERS     prints one JSON line (exit 77 without a GPU)
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "marrow/gpu_prims.h"

enum { V_RELAXED = 0, V_ENGINE = 1, V_ENGINE_LDACQ = 2, V_GDA = 3, V_GDA_ACQ = 4, V_GDA_LINES = 5 };

struct hand {
	uint32_t db __attribute__((aligned(128)));     /* initiator -> responder */
	uint32_t dbrec __attribute__((aligned(128)));  /* gda variants: the doorbell record */
	uint32_t reply __attribute__((aligned(128)));  /* responder -> initiator */
	uint4 wqe[4] __attribute__((aligned(128)));
	uint4 cqe[4] __attribute__((aligned(128)));
	uint64_t payload __attribute__((aligned(128)));
	uint32_t st_qp __attribute__((aligned(128)));    /* gda-lines: loaded with the WQE */
	uint32_t st_peer __attribute__((aligned(128)));
	uint32_t exec_ci __attribute__((aligned(128)));  /* gda-lines: stored before the release */
	uint32_t prod __attribute__((aligned(128)));
	uint32_t fail;                                  /* 1: a wait ran out; 2: a WQE with the wrong word */
	uint32_t smid[2];
	unsigned long long c0, c1, g0, g1;
};

/* Polls *p until it equals want; false after ~1 s. ACQ 1: acquire loads;
 * 2: system-scope relaxed loads (mini-gda's CQE poll; the caller fences). */
template <int ACQ>
__device__ __forceinline__ bool wait_eq(const uint32_t *p, uint32_t want)
{
	const unsigned long long end = gpu_globaltimer_ns() + 1000000000ull;

	for (uint32_t k = 0;; k++) {
		uint32_t v = ACQ == 1 ? gpu_ld_acquire_gpu_u32(p) : ACQ == 2 ? gpu_ld_relaxed_sys_u32(p) : gpu_ld_relaxed_gpu_u32(p);
		if (v == want)
			return true;
		if ((k & 1023u) == 0 && gpu_globaltimer_ns() > end)
			return false;
	}
}

__global__ void handoff(struct hand *h, int variant, uint32_t iters, uint32_t warm, unsigned long long *cyc)
{
	const uint32_t total = iters + warm;

	if (blockIdx.x == 0) {   /* initiator */
		h->smid[0] = gpu_smid();
		for (uint32_t i = 0; i < total && !gpu_ld_relaxed_gpu_u32(&h->fail); i++) {
			const uint32_t seq = i + 1;
			const unsigned long long t0 = clock64();

			if (i == warm) {
				h->c0 = t0;
				h->g0 = gpu_globaltimer_ns();
			}
			const bool gda = variant == V_GDA || variant == V_GDA_ACQ || variant == V_GDA_LINES;
			bool ok;

			if (variant == V_RELAXED) {
				gpu_st_relaxed_gpu_u32(&h->db, seq);
			} else if (gda) {
#pragma unroll
				for (int k = 0; k < 4; k++)
					gpu_st_relaxed_sys_v4u32((uint32_t *)&h->wqe[k], seq, seq, seq, seq);
				gpu_fence_acq_rel_gpu();
				gpu_st_relaxed_sys_u32(&h->dbrec, seq);
				gpu_st_mmio_relaxed_sys_u64((uint64_t *)&h->db, seq);
			} else {
#pragma unroll
				for (int k = 0; k < 4; k++)
					h->wqe[k] = make_uint4(seq, seq, seq, seq);
				gpu_fence_acq_rel_gpu();
				gpu_st_relaxed_gpu_u32(&h->db, seq);
			}
			if (gda) {
				ok = wait_eq<2>(&h->reply, seq);
				if (variant == V_GDA)
					gpu_fence_acq_rel_gpu();
				else
					gpu_fence_acquire_gpu();
			} else {
				ok = variant == V_RELAXED ? wait_eq<0>(&h->reply, seq) : wait_eq<1>(&h->reply, seq);
			}
			const unsigned long long t1 = clock64();
			if (!ok) {
				gpu_st_relaxed_gpu_u32(&h->fail, 1);
				break;
			}
			if (i >= warm)
				cyc[i - warm] = t1 - t0;
		}
		h->c1 = clock64();
		h->g1 = gpu_globaltimer_ns();
	} else {   /* responder */
		h->smid[1] = gpu_smid();
		for (uint32_t i = 0; i < total; i++) {
			const uint32_t seq = i + 1;
			bool ok = variant == V_ENGINE_LDACQ ? wait_eq<1>(&h->db, seq) : wait_eq<0>(&h->db, seq);

			if (!ok || gpu_ld_relaxed_gpu_u32(&h->fail)) {
				gpu_st_relaxed_gpu_u32(&h->fail, 1);
				return;
			}
			if (variant == V_RELAXED) {
				gpu_st_relaxed_gpu_u32(&h->reply, seq);
				continue;
			}
			if (variant != V_ENGINE_LDACQ)   /* engine and the gda variants */
				gpu_fence_acquire_gpu();
			uint4 w[4];
#pragma unroll
			for (int k = 0; k < 4; k++)
				w[k] = h->wqe[k];
			const bool lines = variant == V_GDA_LINES;
			const uint32_t sq = lines ? gpu_ld_relaxed_gpu_u32(&h->st_qp) : 0;
			const uint32_t sp = lines ? gpu_ld_relaxed_gpu_u32(&h->st_peer) : 0;
			if (w[0].x != seq || w[3].w != seq || sq != 0 || sp != 0) {   /* the states stay 0 */
				gpu_st_relaxed_gpu_u32(&h->fail, 2);
				return;
			}
			h->payload = (uint64_t)w[2].y | ((uint64_t)w[2].z << 32);
			if (lines) {
				gpu_st_relaxed_gpu_u32(&h->exec_ci, seq);
				gpu_st_relaxed_gpu_u32(&h->prod, seq);
			}
#pragma unroll
			for (int k = 0; k < 3; k++)
				h->cqe[k] = make_uint4(seq, 0, 0, seq);
			gpu_st_release_gpu_u32(&h->reply, seq);
		}
	}
}

static int cmp_u64(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	static const char *const names[] = {"relaxed", "engine", "engine-ldacq", "gda", "gda-acq", "gda-lines"};
	int variant = -1, ndev = 0;
	long iters = argc == 3 ? strtol(argv[2], NULL, 10) : 0;

	for (int v = 0; argc == 3 && v < 6; v++)
		if (strcmp(argv[1], names[v]) == 0)
			variant = v;
	if (variant < 0 || iters < 10 || iters > 10000000) {
		fprintf(stderr, "usage: sm_handoff relaxed|engine|engine-ldacq|gda|gda-acq|gda-lines ITERS (10..10^7)\n");
		return 2;
	}
	if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
		fprintf(stderr, "sm_handoff: SKIP: no usable CUDA device\n");
		return 77;
	}
	struct hand *h = NULL;
	unsigned long long *dcyc = NULL, *cyc = (unsigned long long *)calloc((size_t)iters, sizeof(*cyc));
	cudaError_t e;
	const uint32_t warm = (uint32_t)(iters / 10);

	if (cyc == NULL || (e = cudaMalloc(&h, sizeof(*h))) != cudaSuccess || (e = cudaMemset(h, 0, sizeof(*h))) != cudaSuccess ||
	    (e = cudaMalloc(&dcyc, sizeof(*cyc) * (size_t)iters)) != cudaSuccess) {
		fprintf(stderr, "sm_handoff: allocation failed\n");
		return 1;
	}
	handoff<<<2, 1>>>(h, variant, (uint32_t)iters, warm, dcyc);
	struct hand hh;
	if ((e = cudaDeviceSynchronize()) != cudaSuccess || (e = cudaMemcpy(&hh, h, sizeof(hh), cudaMemcpyDeviceToHost)) != cudaSuccess ||
	    (e = cudaMemcpy(cyc, dcyc, sizeof(*cyc) * (size_t)iters, cudaMemcpyDeviceToHost)) != cudaSuccess) {
		fprintf(stderr, "sm_handoff: %s\n", cudaGetErrorString(e));
		return 1;
	}
	if (hh.fail) {
		printf("{\"experiment\":\"sm.handoff\",\"variant\":\"%s\",\"valid\":false,\"error\":\"%s\"}\n", names[variant],
		       hh.fail == 1 ? "a wait ran out (1 s)" : "the responder read a WQE without the initiator's word");
		return 1;
	}
	qsort(cyc, (size_t)iters, sizeof(*cyc), cmp_u64);
	const double khz = (double)(hh.c1 - hh.c0) / ((double)(hh.g1 - hh.g0) / 1e6);
	const unsigned long long p50 = cyc[(iters - 1) / 2], p99 = cyc[(size_t)((iters * 99 + 99) / 100) - 1], mn = cyc[0];
	printf("{\"experiment\":\"sm.handoff\",\"backend\":\"cuda\",\"hardware\":false,\"gpu_hardware\":true,"
	       "\"nic_hardware\":false,\"nic\":\"none\",\"variant\":\"%s\",\"iters\":%ld,\"warmup\":%u,"
	       "\"initiator_smid\":%u,\"responder_smid\":%u,\"rtt_p50_cycles\":%llu,\"rtt_p99_cycles\":%llu,"
	       "\"rtt_min_cycles\":%llu,\"sm_clock_khz\":%.0f,\"rtt_p50_ns\":%.1f,\"rtt_p99_ns\":%.1f,\"rtt_min_ns\":%.1f,"
	       "\"percentiles\":\"nearest-rank\",\"valid\":true}\n",
	       names[variant], iters, warm, hh.smid[0], hh.smid[1], p50, p99, mn, khz, p50 * 1e6 / khz, p99 * 1e6 / khz,
	       mn * 1e6 / khz);
	return 0;
}
