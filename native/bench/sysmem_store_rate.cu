/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * How many small stores the SMs can push into pinned host memory: the
 * stores a mini-gda poster makes for each WQE on host-resident queues
 * (mlx5_wqe.h writes every 4-byte word with its own volatile store), without
 * the rest of the posting path (no NIC, no ring space, no completions).
 * docs/results/h200-gda-rate.md uses it to name what stops the gda rate at
 * 132 SMs (phase limit3 in scripts/device-run.sh, phase family scope10).
 *
 * usage: sysmem_store_rate BLOCKS THREADS WORDS WIDTH MSGS FENCE_EVERY [gpu] [private] [readers=N]
 *   WORDS        4-byte words per message (11: an 8-byte inline WRITE's
 *                control, remote-address and inline segments)
 *   WIDTH        4: one volatile 4-byte store per word (as mlx5_wqe.h);
 *                16: the same bytes as 16-byte vector stores
 *   MSGS         messages per thread (timed), after MSGS/10 untimed
 *   FENCE_EVERY  a fence.acq_rel.sys after every N messages (0: none), as a
 *                poster orders each batch before its doorbell
 *   gpu          write to cudaMalloc memory instead (the same stores on the
 *                GPU side, for contrast)
 *   private      each thread writes its own ring, instead of the SQ layout
 *                (slot_of below)
 *   readers=N    N CPU threads (on CPUs 1..N) read the rings' lines while the
 *                kernel writes them, as the software NIC's engine threads read
 *                WQEs from a host-resident SQ: whether CPU reads of the lines
 *                the SMs write slow the stores down
 * Prints one JSON line. Rings have 64 slots per thread. Time: cudaEvent pair around the timed launch (launch overhead
 * included, a few us against runs of tens of ms).
 */
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SLOTS = 64, SLOT_BYTES = 256 };   /* SLOT_BYTES: the largest message */

/* Where thread tid writes message i. SQ layout (default): a warp's lanes
 * write consecutive WQE slots of one ring, as a warp-cooperative poster fills
 * its reserved run of an SQ (slot = WQEBBs rounded up, 64-byte aligned).
 * Private layout: each thread its own ring (no two threads near each other). */
__device__ __forceinline__ uint8_t *slot_of(uint8_t *buf, uint64_t tid, uint64_t i, uint32_t slot_bytes, int priv)
{
	if (priv)
		return buf + (tid * SLOTS + i % SLOTS) * slot_bytes;
	const uint64_t warp = tid / 32u, lane = tid % 32u;
	return buf + ((warp * SLOTS + i % SLOTS) * 32u + lane) * slot_bytes;
}

__global__ void store_kernel(uint8_t *buf, uint32_t words, uint32_t width, uint64_t msgs, uint32_t fence_every,
			     uint32_t slot_bytes, int priv)
{
	const uint64_t tid = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;

	for (uint64_t i = 0; i < msgs; i++) {
		uint8_t *slot = slot_of(buf, tid, i, slot_bytes, priv);

		if (width == 4) {
			for (uint32_t w = 0; w < words; w++)
				*(volatile uint32_t *)(slot + 4u * w) = (uint32_t)i + w;
		} else {
			for (uint32_t w = 0; w < words; w += 4) {
				uint32_t a = (uint32_t)i + w;

				asm volatile("st.volatile.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(slot + 4u * w),
					     "r"(a), "r"(a + 1), "r"(a + 2), "r"(a + 3)
					     : "memory");
			}
		}
		if (fence_every && (i + 1) % fence_every == 0)
			asm volatile("fence.acq_rel.sys;" ::: "memory");
	}
}

/* A CPU reader: reads the first word of every 64-byte line of its share of
 * the buffer, over and over, until stop. */
struct reader {
	const volatile uint64_t *lo, *hi;
	const volatile int *stop;
	int cpu;
	uint64_t lines, sum;
	pthread_t tid;
};

static void *reader_main(void *arg)
{
	struct reader *r = (struct reader *)arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(r->cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	while (!*r->stop)
		for (const volatile uint64_t *p = r->lo; p < r->hi && !*r->stop; p += 8) {
			r->sum += *p;
			r->lines++;
		}
	return NULL;
}

static int fail(const char *what, cudaError_t e)
{
	fprintf(stderr, "sysmem_store_rate: %s: %s\n", what, cudaGetErrorString(e));
	return 1;
}

int main(int argc, char **argv)
{
	if (argc < 7) {
		fprintf(stderr, "usage: %s BLOCKS THREADS WORDS WIDTH MSGS FENCE_EVERY [gpu] [private] [readers=N]\n", argv[0]);
		return 2;
	}
	uint32_t blocks = (uint32_t)atoi(argv[1]), threads = (uint32_t)atoi(argv[2]);
	uint32_t words = (uint32_t)atoi(argv[3]), width = (uint32_t)atoi(argv[4]);
	uint64_t msgs = strtoull(argv[5], NULL, 10);
	uint32_t fence_every = (uint32_t)atoi(argv[6]);
	int gpu = 0, priv = 0, nreaders = 0;
	for (int k = 7; k < argc; k++) {
		if (strcmp(argv[k], "gpu") == 0)
			gpu = 1;
		else if (strcmp(argv[k], "private") == 0)
			priv = 1;
		else if (strncmp(argv[k], "readers=", 8) == 0 && atoi(argv[k] + 8) >= 1 && atoi(argv[k] + 8) <= 64)
			nreaders = atoi(argv[k] + 8);
		else {
			fprintf(stderr, "sysmem_store_rate: unknown option %s (gpu, private, readers=1..64)\n", argv[k]);
			return 2;
		}
	}
	if (gpu && nreaders) {
		fprintf(stderr, "sysmem_store_rate: readers= needs host memory (not with gpu)\n");
		return 2;
	}
	if (blocks == 0 || threads == 0 || threads > 1024 || words == 0 || words * 4u > SLOT_BYTES ||
	    (width != 4 && width != 16) || (width == 16 && words % 4 != 0) || msgs == 0) {
		fprintf(stderr, "sysmem_store_rate: bad arguments (WORDS 1..64, a multiple of 4 for WIDTH 16)\n");
		return 2;
	}
	const uint32_t slot_bytes = (words * 4u + 63u) / 64u * 64u;
	/* whole warps, so the SQ layout's last warp has its 32 lanes' slots */
	size_t bytes = (size_t)blocks * ((threads + 31u) / 32u * 32u) * SLOTS * slot_bytes;
	uint8_t *host = NULL, *dev = NULL;
	cudaError_t e;
	if (gpu) {
		if ((e = cudaMalloc(&dev, bytes)) != cudaSuccess)
			return fail("cudaMalloc", e);
	} else {
		if ((e = cudaHostAlloc(&host, bytes, cudaHostAllocMapped)) != cudaSuccess)
			return fail("cudaHostAlloc", e);
		if ((e = cudaHostGetDevicePointer(&dev, host, 0)) != cudaSuccess)
			return fail("cudaHostGetDevicePointer", e);
	}
	cudaEvent_t t0, t1;
	cudaEventCreate(&t0);
	cudaEventCreate(&t1);
	store_kernel<<<blocks, threads>>>(dev, words, width, msgs / 10 + 1, fence_every, slot_bytes, priv);   /* untimed */
	if ((e = cudaDeviceSynchronize()) != cudaSuccess)
		return fail("warm-up", e);
	/* Readers start before the timed launch and stop after it. */
	static struct reader rd[64];
	volatile int stop = 0;
	for (int k = 0; k < nreaders; k++) {
		size_t share = bytes / 64u / (size_t)nreaders * 64u;
		rd[k].lo = (const volatile uint64_t *)(host + share * k);
		rd[k].hi = (const volatile uint64_t *)(host + share * (k + 1));
		rd[k].stop = &stop;
		rd[k].cpu = 1 + k;
		rd[k].lines = rd[k].sum = 0;
		pthread_create(&rd[k].tid, NULL, reader_main, &rd[k]);
	}
	cudaEventRecord(t0);
	store_kernel<<<blocks, threads>>>(dev, words, width, msgs, fence_every, slot_bytes, priv);
	cudaEventRecord(t1);
	e = cudaEventSynchronize(t1);
	stop = 1;
	uint64_t lines_read = 0;
	for (int k = 0; k < nreaders; k++) {
		pthread_join(rd[k].tid, NULL);
		lines_read += rd[k].lines;
	}
	if (e != cudaSuccess)
		return fail("timed run", e);
	float ms = 0;
	cudaEventElapsedTime(&ms, t0, t1);
	double s = ms / 1e3, nmsg = (double)msgs * blocks * threads;
	double stores = nmsg * (width == 4 ? words : words / 4);
	printf("{\"experiment\":\"gpu.sysmem_store_rate\",\"gpu_hardware\":true,\"nic_hardware\":false,"
	       "\"hardware\":false,\"nic\":\"none\",\"target\":\"%s\",\"layout\":\"%s\",\"blocks\":%u,\"threads\":%u,\"words_per_msg\":%u,"
	       "\"store_width_bytes\":%u,\"fence_every\":%u,\"msgs_per_thread\":%llu,\"elapsed_ms\":%.3f,"
	       "\"msgs_per_s_m\":%.3f,\"stores_per_s_g\":%.4f,\"gbytes_per_s\":%.3f,\"cpu_readers\":%d,"
	       "\"cpu_lines_read_per_s_m\":%.3f}\n",
	       gpu ? "gpu-memory" : "pinned-host-memory", priv ? "private" : "sq", blocks, threads, words, width, fence_every,
	       (unsigned long long)msgs, ms, nmsg / s / 1e6, stores / s / 1e9, nmsg * words * 4.0 / s / 1e9, nreaders,
	       lines_read / s / 1e6);
	if (gpu)
		cudaFree(dev);
	else
		cudaFreeHost(host);
	return 0;
}
