// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The Marrow authors
//
// The bandwidth kernel of the DSM suite and marrow_dsm_run. One launch =
// one cluster = one sample: every rank may load a peer's source tile
// (ld.shared::cluster), store its own tile into a peer's receive buffer
// (st.shared::cluster) and/or TMA-put its tile into a peer's receive buffer
// (cp.async.bulk ... complete_tx on the destination's mbarrier).
//
// Block layout: [0, G) load group, [G, 2G) store group, one control warp
// whose lane 0 stamps the start, issues TMA commands and waits for incoming
// TMA. Separate groups let one rank load and store at the same time (E6).
#include <stdlib.h>
#include <string.h>

#include "dsm/dsm_host.cuh"
#include "dsm/dsm_pattern.cuh"
#include "dsm/dsm_ptx.cuh"

namespace dsm {
namespace {

constexpr uint32_t UNROLL = 4; // store group (accesses of store_width B) and the BATCHED load kernel (16 B): per thread per batch
constexpr uint32_t INFLIGHT = MARROW_DSM_LOAD_INFLIGHT_MAX; // INFLIGHT load kernel: loads per thread per wait

struct TrafficArgs {
	int8_t load_from[MARROW_DSM_MAX_RANKS];
	int8_t store_to[MARROW_DSM_MAX_RANKS];
	int8_t tma_to[MARROW_DSM_MAX_RANKS];
	int8_t recv_tma[MARROW_DSM_MAX_RANKS]; // 1 if a peer TMA-puts into this rank
	int8_t store_src[MARROW_DSM_MAX_RANKS]; // 1 if the store into this rank lands in its source region
	uint32_t tile_bytes;
	uint32_t group_threads;
	uint32_t chunk_bytes;
	uint32_t load_kernel;
	uint32_t store_width; // bytes per remote store: 4, 8, 16
	uint32_t load_width;  // bytes per remote load (INFLIGHT kernel): 4, 8, 16
	uint64_t wait_budget;
};

__device__ __forceinline__ uint64_t fold4(uint4 x, uint32_t v)
{
	uint32_t i = 4u * v;
	return fold(x.x, i) + fold(x.y, i + 1) + fold(x.z, i + 2) + fold(x.w, i + 3);
}

__device__ __forceinline__ uint64_t warp_sum(uint64_t x)
{
	for (int o = 16; o > 0; o >>= 1)
		x += __shfl_xor_sync(0xffffffffu, x, o);
	return x;
}

// Fold of access v of width W (its W / 4 words start at word (W / 4) * v).
template <uint32_t W> __device__ __forceinline__ uint64_t foldw(uint4 x, uint32_t v)
{
	if (W == 16)
		return fold4(x, v);
	const uint32_t i = (W / 4u) * v;
	uint64_t s = fold(x.x, i);
	if (W == 8)
		s += fold(x.y, i + 1);
	return s;
}

#if DSM_SM90
// The store group's traffic: thread t stores accesses t, t + G, t + 2G, ...
// of W bytes each (a warp covers 32 x W contiguous bytes), UNROLL per batch:
// UNROLL local loads, then UNROLL remote stores. Every byte once.
template <uint32_t W>
__device__ __forceinline__ void store_tile(uint32_t src, uint32_t rdst, uint32_t B, uint32_t t, uint32_t G)
{
	const uint32_t n = B / W;
	for (uint32_t v0 = t; v0 < n; v0 += UNROLL * G) {
		uint4 x[UNROLL];
#pragma unroll
		for (uint32_t j = 0; j < UNROLL; j++) {
			uint32_t v = v0 + j * G;
			x[j] = v < n ? Access<W>::ld_local(src + W * v) : make_uint4(0, 0, 0, 0);
		}
#pragma unroll
		for (uint32_t j = 0; j < UNROLL; j++) {
			uint32_t v = v0 + j * G;
			if (v < n)
				Access<W>::st_cluster(rdst + W * v, x[j]);
		}
	}
}

// The INFLIGHT load kernel at width W: thread t loads accesses t, t + G,
// t + 2G, ... (cnt of them; 13 at most for 16 B, 96 KiB and 480 threads).
// All loads of a batch are issued before the first use of any, so no use can
// wait behind loads issued after it (our reading of the BATCHED kernel's
// steps: a use there also waits for the next batch). Stamps the load end
// into me; returns this thread's checksum share (folded after the stamp).
template <uint32_t W>
__device__ __forceinline__ uint64_t load_inflight(uint32_t rsrc, uint32_t B, uint32_t tid, uint32_t G, uint32_t base,
						  marrow_dsm_sample *me)
{
	const uint32_t nvec = B / W;
	const uint32_t cnt = tid < nvec ? (nvec - tid + G - 1u) / G : 0u;
	const uint32_t stride = W * G;
	uint64_t acc = 0;
	uint4 x[INFLIGHT];
	uint32_t done = 0;
	// Only with fewer threads than 480, larger tiles or narrower loads: full
	// batches, each waited for before the next is issued.
	for (; done + INFLIGHT < cnt; done += INFLIGHT) {
#pragma unroll
		for (uint32_t j = 0; j < INFLIGHT; j++)
			x[j] = Access<W>::ld_cluster(rsrc + W * tid + (done + j) * stride);
#pragma unroll
		for (uint32_t j = 0; j < INFLIGHT; j++)
			acc += foldw<W>(x[j], tid + (done + j) * G);
	}
	const uint32_t rest = cnt - done; // 0..INFLIGHT
#pragma unroll
	for (uint32_t j = 0; j < INFLIGHT; j++)
		x[j] = j < rest ? Access<W>::ld_cluster(rsrc + W * tid + (done + j) * stride) : make_uint4(0, 0, 0, 0);
	// Wait for every load with the cheapest use: one xor per load (a vector
	// load writes its registers together), stored to shared memory before
	// the barrier. A register-only use is not enough: ptxas moved it (and so
	// the wait) past the barrier and the stamp, which then ended before the
	// data had arrived (measured: alpha ~100 cycles, below one round trip).
	uint32_t touch = 0;
#pragma unroll
	for (uint32_t j = 0; j < INFLIGHT; j++)
		touch ^= x[j].x;
	st_shared_u32(base + MARROW_DSM_CTRL_OFFSET + 256u + 4u * (tid >> 5), touch);
	named_barrier(1, G);
	if (tid == 0) {
		uint64_t c = gpu_clock64();
		uint64_t g = gpu_globaltimer_ns();
		me->clk_load_end = c;
		me->gt_load_end = g;
	}
	// The checksum of the last batch, after the end stamp.
#pragma unroll
	for (uint32_t j = 0; j < INFLIGHT; j++)
		if (j < rest)
			acc += foldw<W>(x[j], tid + (done + j) * G);
	return acc;
}
#endif

__global__ void __launch_bounds__(1024, 1)
	traffic_kernel(const __grid_constant__ TrafficArgs a, uint32_t run, marrow_dsm_sample *out)
{
#if DSM_SM90
	extern __shared__ __align__(128) uint8_t smem[];
	const uint32_t tid = threadIdx.x;
	const uint32_t G = a.group_threads;
	const uint32_t ctl = 2u * G;
	const uint32_t rank = cluster_rank();
	const uint32_t B = a.tile_bytes;
	const uint32_t nvec = B / 16u;
	const uint32_t base = shared_addr(smem);
	const uint32_t src = base + MARROW_DSM_SRC_OFFSET;
	const uint32_t recv = base + MARROW_DSM_RECV_OFFSET;
	const uint32_t bar = base + MARROW_DSM_CTRL_OFFSET;
	uint64_t *sums = reinterpret_cast<uint64_t *>(smem + MARROW_DSM_CTRL_OFFSET + 64);
	const int load_peer = a.load_from[rank];
	const int store_peer = a.store_to[rank];
	const int tma_peer = a.tma_to[rank];
	const bool recv_tma = a.recv_tma[rank] != 0;
	const uint32_t smid0 = smid();
	marrow_dsm_sample *me = out + rank;

	// ---- setup (untimed): fresh pattern in the source tile, poison in the
	// receive buffer, so nothing left over from an earlier run can pass.
	uint4 *s4 = reinterpret_cast<uint4 *>(smem + MARROW_DSM_SRC_OFFSET);
	uint4 *r4 = reinterpret_cast<uint4 *>(smem + MARROW_DSM_RECV_OFFSET);
	for (uint32_t v = tid; v < nvec; v += blockDim.x) {
		uint32_t i = 4u * v;
		s4[v] = make_uint4(pattern(run, rank, i), pattern(run, rank, i + 1), pattern(run, rank, i + 2),
				   pattern(run, rank, i + 3));
		r4[v] = make_uint4(POISON, POISON, POISON, POISON);
	}
	if (tid == 0) {
		sums[0] = 0;
		sums[1] = 0;
	}
	// TMA reads the source and writes the receive buffer through the async
	// proxy: order this thread's generic writes before that.
	fence_proxy_async_shared();
	if (tid == ctl && recv_tma) {
		mbar_init(bar, 1);
		fence_mbar_init();
		// Our single arrival, made before the start: the phase completes
		// exactly when all tile bytes have landed.
		mbar_arrive_expect_tx(bar, B);
	}
	__syncthreads();
	cluster_sync();

	// ---- timed region
	uint64_t c0 = 0;
	if (tid == ctl) {
		c0 = gpu_clock64();
		uint64_t g0 = gpu_globaltimer_ns();
		me->clk_start = c0;
		me->gt_start = g0;
	}

	if (tid < G) {
		if (load_peer >= 0) {
			const uint32_t rsrc = mapa(src, (uint32_t)load_peer);
			uint64_t acc = 0;
			if (a.load_kernel == MARROW_DSM_LOAD_BATCHED) {
				// The first kernel, kept for comparison. Meant to be
				// software-pipelined (the next batch in flight while the
				// current one is folded); measured on the H200 its time still
				// rises in steps every UNROLL * G vectors (docs/results/h200-dsm.md).
				const uint32_t step = UNROLL * G;
				uint4 cur[UNROLL];
#pragma unroll
				for (uint32_t j = 0; j < UNROLL; j++) {
					uint32_t v = tid + j * G;
					cur[j] = v < nvec ? ld_cluster_v4(rsrc + 16u * v) : make_uint4(0, 0, 0, 0);
				}
				for (uint32_t v0 = tid; v0 < nvec; v0 += step) {
					uint4 nxt[UNROLL];
#pragma unroll
					for (uint32_t j = 0; j < UNROLL; j++) {
						uint32_t v = v0 + step + j * G;
						nxt[j] = v < nvec ? ld_cluster_v4(rsrc + 16u * v) : make_uint4(0, 0, 0, 0);
					}
					// Consuming every loaded word keeps the loads alive.
#pragma unroll
					for (uint32_t j = 0; j < UNROLL; j++) {
						uint32_t v = v0 + j * G;
						if (v < nvec)
							acc += fold4(cur[j], v);
						cur[j] = nxt[j];
					}
				}
				named_barrier(1, G);
				if (tid == 0) {
					uint64_t c = gpu_clock64();
					uint64_t g = gpu_globaltimer_ns();
					me->clk_load_end = c;
					me->gt_load_end = g;
				}
			} else if (a.load_width == 4) {
				acc = load_inflight<4>(rsrc, B, tid, G, base, me);
			} else if (a.load_width == 8) {
				acc = load_inflight<8>(rsrc, B, tid, G, base, me);
			} else {
				acc = load_inflight<16>(rsrc, B, tid, G, base, me);
			}
			acc = warp_sum(acc);
			if ((tid & 31u) == 0)
				atomicAdd(reinterpret_cast<unsigned long long *>(&sums[0]), (unsigned long long)acc);
		}
	} else if (tid < 2u * G) {
		if (store_peer >= 0) {
			const uint32_t t = tid - G;
			const uint32_t rdst = mapa(a.store_src[store_peer] ? src : recv, (uint32_t)store_peer);
			if (a.store_width == 4)
				store_tile<4>(src, rdst, B, t, G);
			else if (a.store_width == 8)
				store_tile<8>(src, rdst, B, t, G);
			else
				store_tile<16>(src, rdst, B, t, G);
			// Remote stores are weak: the group is done only once they are
			// visible at cluster scope.
			gpu_fence_acq_rel_cluster();
			named_barrier(2, G);
			if (t == 0) {
				uint64_t c = gpu_clock64();
				uint64_t g = gpu_globaltimer_ns();
				me->clk_store_end = c;
				me->gt_store_end = g;
			}
		}
	} else if (tid == ctl) {
		if (tma_peer >= 0) {
			const uint32_t rdst = mapa(recv, (uint32_t)tma_peer);
			const uint32_t rbar = mapa(bar, (uint32_t)tma_peer);
			// All commands complete on one barrier per tile; no sync between them.
			for (uint32_t off = 0; off < B; off += a.chunk_bytes) {
				uint32_t n = B - off < a.chunk_bytes ? B - off : a.chunk_bytes;
				tma_put(rdst + off, src + off, n, rbar);
			}
			me->clk_tma_issued = gpu_clock64();
		}
		if (recv_tma) {
			// Bounded wait: a lost completion becomes a flagged sample, not a hang.
			uint64_t polls = 0;
			bool done = false;
			while (!(done = mbar_try_wait(bar, 0))) {
				polls++;
				if (gpu_clock64() - c0 > a.wait_budget)
					break;
			}
			uint64_t c = gpu_clock64();
			uint64_t g = gpu_globaltimer_ns();
			me->clk_recv_end = c;
			me->gt_recv_end = g;
			me->wait_polls = polls + 1;
			if (!done)
				me->flags |= MARROW_DSM_F_TIMEOUT;
		}
	}

	// ---- after the end stamps: everything delivered and visible, nobody
	// reads our source any more; checksums are not part of the timing.
	cluster_sync();
	uint64_t racc = 0;
	for (uint32_t v = tid; v < nvec; v += blockDim.x)
		racc += fold4(r4[v], v);
	racc = warp_sum(racc);
	if ((tid & 31u) == 0)
		atomicAdd(reinterpret_cast<unsigned long long *>(&sums[1]), (unsigned long long)racc);
	if (a.store_src[rank]) {
		// A peer stored into our source region (this rank has no load role).
		uint64_t sacc = 0;
		for (uint32_t v = tid; v < nvec; v += blockDim.x)
			sacc += fold4(s4[v], v);
		sacc = warp_sum(sacc);
		if ((tid & 31u) == 0)
			atomicAdd(reinterpret_cast<unsigned long long *>(&sums[0]), (unsigned long long)sacc);
	}
	__syncthreads();
	if (tid == 0) {
		me->load_sum = sums[0];
		me->recv_sum = sums[1];
		me->smid_start = smid0;
		me->smid_end = smid();
	}
	// No remote access follows the last cluster barrier, so CTAs may exit.
#else
	__trap(); // built for an arch without clusters; the host refuses such GPUs first
#endif
}

// Sum of fold() over rank `rank`'s tile of `bytes` in run `run`.
uint64_t expected_fold(uint32_t run, uint32_t rank, uint32_t bytes)
{
	uint64_t s = 0;
	for (uint32_t i = 0; i < bytes / 4u; i++)
		s += fold(pattern(run, rank, i), i);
	return s;
}

int validate_params(const marrow_dsm_params *p, uint32_t out_count, TrafficArgs *a)
{
	const char *fn = "marrow_dsm_run";
	int rc = check_header(p->size, p->comp_mask, sizeof(*p), fn);
	if (rc)
		return rc;
	const uint32_t n = p->cluster_size;
	if (n < 2 || n > MARROW_DSM_MAX_RANKS)
		return marrow_fail(MARROW_EINVAL, "%s: cluster_size %u outside 2..16", fn, n);
	if (p->tile_bytes < 512 || p->tile_bytes > MARROW_DSM_MAX_TILE_BYTES || p->tile_bytes % 512)
		return marrow_fail(MARROW_EINVAL, "%s: tile_bytes %u must be a multiple of 512 in 512..%u", fn,
				   p->tile_bytes, MARROW_DSM_MAX_TILE_BYTES);
	if (p->reps == 0 || p->reps > 100000)
		return marrow_fail(MARROW_EINVAL, "%s: reps %u outside 1..100000", fn, p->reps);
	if (p->warmup > 1000)
		return marrow_fail(MARROW_EINVAL, "%s: warmup %u above 1000", fn, p->warmup);
	if ((uint64_t)p->reps * n > out_count)
		return marrow_fail(MARROW_EINVAL, "%s: out holds %u samples, %u reps x %u ranks needed", fn, out_count,
				   p->reps, n);
	uint32_t g = p->group_threads ? p->group_threads : MARROW_DSM_DEFAULT_GROUP_THREADS;
	if (g < 32 || g > 480 || g % 32)
		return marrow_fail(MARROW_EINVAL, "%s: group_threads %u must be a multiple of 32 in 32..480", fn, g);
	uint32_t chunk = p->tma_chunk_bytes ? p->tma_chunk_bytes : MARROW_DSM_MAX_TMA_CHUNK;
	if (chunk < 16 || chunk > MARROW_DSM_MAX_TMA_CHUNK || chunk % 16)
		return marrow_fail(MARROW_EINVAL, "%s: tma_chunk_bytes %u must be a multiple of 16 in 16..16384", fn, chunk);
	if (p->load_kernel > MARROW_DSM_LOAD_BATCHED)
		return marrow_fail(MARROW_EINVAL, "%s: load_kernel %u unknown", fn, p->load_kernel);
	const uint32_t sw = p->store_width ? p->store_width : MARROW_DSM_DEFAULT_ACCESS_WIDTH;
	const uint32_t lw = p->load_width ? p->load_width : MARROW_DSM_DEFAULT_ACCESS_WIDTH;
	if (sw != 4 && sw != 8 && sw != 16)
		return marrow_fail(MARROW_EINVAL, "%s: store_width %u must be 4, 8 or 16", fn, p->store_width);
	if (lw != 4 && lw != 8 && lw != 16)
		return marrow_fail(MARROW_EINVAL, "%s: load_width %u must be 4, 8 or 16", fn, p->load_width);
	if (lw != 16 && p->load_kernel == MARROW_DSM_LOAD_BATCHED)
		return marrow_fail(MARROW_EINVAL, "%s: load_width %u needs the INFLIGHT load kernel (BATCHED loads 16 B)",
				   fn, lw);
	memset(a, 0, sizeof(*a));
	int storers[MARROW_DSM_MAX_RANKS] = {0};
	int tmas[MARROW_DSM_MAX_RANKS] = {0};
	bool src_used[MARROW_DSM_MAX_RANKS] = {false};
	for (uint32_t r = 0; r < MARROW_DSM_MAX_RANKS; r++) {
		const int8_t roles[3] = {p->load_from[r], p->store_to[r], p->tma_to[r]};
		for (int k = 0; k < 3; k++) {
			int peer = roles[k];
			if (peer == -1)
				continue;
			if (r >= n)
				return marrow_fail(MARROW_EINVAL, "%s: rank %u has a role but the cluster has %u ranks", fn, r, n);
			if (peer < 0 || peer >= (int)n || peer == (int)r)
				return marrow_fail(MARROW_EINVAL, "%s: rank %u names peer %d (must be another rank < %u)", fn, r,
						   peer, n);
			if (k == 0)
				src_used[peer] = true;
			else
				src_used[r] = true;
			if (k == 1)
				storers[peer]++;
			if (k == 2)
				tmas[peer]++;
		}
		a->load_from[r] = p->load_from[r];
		a->store_to[r] = p->store_to[r];
		a->tma_to[r] = p->tma_to[r];
		if (p->tma_to[r] >= 0)
			a->recv_tma[p->tma_to[r]] = 1;
	}
	for (uint32_t r = 0; r < n; r++) {
		if (storers[r] > 1 || tmas[r] > 1)
			return marrow_fail(MARROW_EINVAL, "%s: rank %u would receive from %d storing and %d TMA writers", fn, r,
					   storers[r], tmas[r]);
		if (storers[r] && tmas[r]) {
			// TMA into the receive buffer, the store into the source region,
			// which must then be nobody's source.
			if (src_used[r])
				return marrow_fail(MARROW_EINVAL, "%s: rank %u receives a store and a TMA, so the store lands in "
						   "its source region, but that region is also read (a load from it or a send by it)",
						   fn, r);
			a->store_src[r] = 1;
		}
	}
	a->tile_bytes = p->tile_bytes;
	a->group_threads = g;
	a->chunk_bytes = chunk;
	a->load_kernel = p->load_kernel;
	a->store_width = sw;
	a->load_width = lw;
	a->wait_budget = p->wait_budget_cycles ? p->wait_budget_cycles : MARROW_DSM_DEFAULT_WAIT_CYCLES;
	return MARROW_OK;
}

cudaLaunchConfig_t launch_config(uint32_t n, uint32_t g, cudaLaunchAttribute *attr)
{
	cudaLaunchConfig_t cfg = {};
	cfg.gridDim = dim3(n, 1, 1);
	cfg.blockDim = dim3(2 * g + 32, 1, 1);
	cfg.dynamicSmemBytes = MARROW_DSM_SMEM_BYTES;
	cfg.stream = 0;
	attr[0].id = cudaLaunchAttributeClusterDimension;
	attr[0].val.clusterDim.x = n;
	attr[0].val.clusterDim.y = 1;
	attr[0].val.clusterDim.z = 1;
	cfg.attrs = attr;
	cfg.numAttrs = 1;
	return cfg;
}

int set_attributes()
{
	cudaError_t e = cudaFuncSetAttribute(traffic_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
					     (int)MARROW_DSM_SMEM_BYTES);
	if (e != cudaSuccess)
		return marrow_cuda_fail(e, "cudaFuncSetAttribute(MaxDynamicSharedMemorySize)");
	// Clusters above 8 CTAs are non-portable and refused without this.
	e = cudaFuncSetAttribute(traffic_kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
	if (e != cudaSuccess)
		return marrow_cuda_fail(e, "cudaFuncSetAttribute(NonPortableClusterSizeAllowed)");
	return MARROW_OK;
}

// Host-side acceptance of one launch: placement, checksums, stamp order.
// poison_fold: fold of a tile that nobody wrote (computed once per call).
void validate_rep(const marrow_dsm_params *p, const TrafficArgs &a, uint32_t rep, uint64_t poison_fold,
		  marrow_dsm_sample *s)
{
	const uint32_t n = p->cluster_size;
	const uint32_t run = p->run_id + rep;
	uint64_t expect[MARROW_DSM_MAX_RANKS];
	bool have[MARROW_DSM_MAX_RANKS] = {false};
	auto exp = [&](uint32_t r) {
		if (!have[r]) {
			expect[r] = expected_fold(run, r, p->tile_bytes);
			have[r] = true;
		}
		return expect[r];
	};
	int sender[MARROW_DSM_MAX_RANKS];   // who writes the receive buffer
	int src_sender[MARROW_DSM_MAX_RANKS]; // who stores into the source region
	for (uint32_t r = 0; r < n; r++)
		sender[r] = src_sender[r] = -1;
	for (uint32_t r = 0; r < n; r++) {
		if (a.store_to[r] >= 0) {
			if (a.store_src[a.store_to[r]])
				src_sender[a.store_to[r]] = (int)r;
			else
				sender[a.store_to[r]] = (int)r;
		}
		if (a.tma_to[r] >= 0)
			sender[a.tma_to[r]] = (int)r;
	}
	for (uint32_t r = 0; r < n; r++) {
		marrow_dsm_sample *x = &s[r];
		x->size = sizeof(*x);
		x->rep = rep;
		x->rank = r;
		uint32_t roles = 0;
		if (a.load_from[r] >= 0)
			roles |= MARROW_DSM_ROLE_LOAD;
		if (a.store_to[r] >= 0)
			roles |= MARROW_DSM_ROLE_STORE;
		if (a.tma_to[r] >= 0)
			roles |= MARROW_DSM_ROLE_TMA;
		if (a.recv_tma[r])
			roles |= MARROW_DSM_ROLE_RECV_TMA;
		else if (sender[r] >= 0)
			roles |= MARROW_DSM_ROLE_RECV_STORE;
		if (src_sender[r] >= 0)
			roles |= MARROW_DSM_ROLE_RECV_STORE_SRC;
		x->roles = roles;
		if (x->smid_start != x->smid_end)
			x->flags |= MARROW_DSM_F_SMID_MOVED;
		for (uint32_t q = 0; q < n; q++)
			if (q != r && s[q].smid_start == x->smid_start)
				x->flags |= MARROW_DSM_F_SMID_SHARED;
		if (roles & MARROW_DSM_ROLE_LOAD) {
			x->load_expect = exp((uint32_t)a.load_from[r]);
			if (x->load_sum != x->load_expect)
				x->flags |= MARROW_DSM_F_LOAD_SUM;
			if (x->clk_load_end <= x->clk_start || x->gt_load_end < x->gt_start)
				x->flags |= MARROW_DSM_F_TIME;
		}
		if (roles & MARROW_DSM_ROLE_RECV_STORE_SRC) {
			x->load_expect = exp((uint32_t)src_sender[r]);
			if (x->load_sum != x->load_expect)
				x->flags |= MARROW_DSM_F_LOAD_SUM;
		}
		if (sender[r] >= 0) {
			x->recv_expect = exp((uint32_t)sender[r]);
		} else {
			// Nobody writes here: the buffer must still hold only poison.
			x->recv_expect = poison_fold;
		}
		if (x->recv_sum != x->recv_expect)
			x->flags |= MARROW_DSM_F_RECV_SUM;
		if ((roles & MARROW_DSM_ROLE_STORE) &&
		    (x->clk_store_end <= x->clk_start || x->gt_store_end < x->gt_start))
			x->flags |= MARROW_DSM_F_TIME;
		if ((roles & MARROW_DSM_ROLE_RECV_TMA) &&
		    (x->clk_recv_end <= x->clk_start || x->gt_recv_end < x->gt_start))
			x->flags |= MARROW_DSM_F_TIME;
	}
}

} // namespace

int traffic_max_active_clusters(int n, uint32_t group_threads, int *out)
{
	int rc = set_attributes();
	if (rc)
		return rc;
	cudaLaunchAttribute attr[1];
	cudaLaunchConfig_t cfg = launch_config((uint32_t)n, group_threads, attr);
	cudaError_t e = cudaOccupancyMaxActiveClusters(out, traffic_kernel, &cfg);
	if (e != cudaSuccess)
		return marrow_cuda_fail(e, "cudaOccupancyMaxActiveClusters");
	return MARROW_OK;
}

} // namespace dsm

extern "C" MARROW_API int marrow_dsm_run(const struct marrow_dsm_params *p, struct marrow_dsm_sample *out,
					 uint32_t out_count)
{
	using namespace dsm;
	if (p == NULL || out == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_dsm_run: NULL argument");
	TrafficArgs a;
	int rc = validate_params(p, out_count, &a);
	if (rc)
		return rc;
	cudaDeviceProp prop;
	rc = require_hopper(p->device, &prop);
	if (rc)
		return rc;
	rc = set_attributes();
	if (rc)
		return rc;
	const uint32_t n = p->cluster_size;
	cudaLaunchAttribute attr[1];
	cudaLaunchConfig_t cfg = launch_config(n, a.group_threads, attr);
	int clusters = 0;
	cudaError_t e = cudaOccupancyMaxActiveClusters(&clusters, traffic_kernel, &cfg);
	if (e != cudaSuccess)
		return marrow_cuda_fail(e, "cudaOccupancyMaxActiveClusters");
	if (clusters < 1)
		return marrow_fail(MARROW_EINVAL, "marrow_dsm_run: a cluster of %u CTAs x %u B shared memory cannot be "
				   "scheduled on %s (max active clusters 0)", n, MARROW_DSM_SMEM_BYTES, prop.name);

	const uint32_t total = p->warmup + p->reps;
	const size_t bytes = (size_t)total * n * sizeof(marrow_dsm_sample);
	marrow_dsm_sample *d_out = NULL;
	cudaEvent_t done = NULL;
	e = cudaMalloc(&d_out, bytes);
	if (e != cudaSuccess)
		return marrow_cuda_fail(e, "cudaMalloc");
	if ((e = cudaMemset(d_out, 0, bytes)) != cudaSuccess || (e = cudaEventCreateWithFlags(&done, cudaEventDisableTiming)) != cudaSuccess) {
		rc = marrow_cuda_fail(e, "cudaMemset/cudaEventCreate");
		goto out_free;
	}
	for (uint32_t k = 0; k < total; k++) {
		// Warm-up launches use seeds far from the measured ones.
		uint32_t run = k < p->warmup ? p->run_id + 0x80000000u + k : p->run_id + (k - p->warmup);
		e = cudaLaunchKernelEx(&cfg, traffic_kernel, a, run, d_out + (size_t)k * n);
		if (e != cudaSuccess) {
			rc = marrow_cuda_fail(e, "cudaLaunchKernelEx(traffic_kernel)");
			goto out_free;
		}
	}
	if ((e = cudaEventRecord(done, 0)) != cudaSuccess) {
		rc = marrow_cuda_fail(e, "cudaEventRecord");
		goto out_free;
	}
	rc = marrow_cuda_wait_event(done, (uint64_t)(p->timeout_ms ? p->timeout_ms : MARROW_DSM_DEFAULT_TIMEOUT_MS) * 1000000u,
				    "marrow_dsm_run", NULL);
	if (rc)
		goto out_free;
	e = cudaMemcpy(out, d_out + (size_t)p->warmup * n, (size_t)p->reps * n * sizeof(marrow_dsm_sample),
		       cudaMemcpyDeviceToHost);
	if (e != cudaSuccess) {
		rc = marrow_cuda_fail(e, "cudaMemcpy");
		goto out_free;
	}
	{
		uint64_t poison_fold = 0;
		for (uint32_t i = 0; i < p->tile_bytes / 4u; i++)
			poison_fold += fold(POISON, i);
		for (uint32_t r = 0; r < p->reps; r++)
			validate_rep(p, a, r, poison_fold, out + (size_t)r * n);
	}
out_free:
	if (done)
		cudaEventDestroy(done);
	cudaFree(d_out);
	return rc;
}
