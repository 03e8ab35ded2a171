// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The Marrow authors
// "The study" below: "How does Hopper distributed shared memory actually move data?"
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
#include "dsm/dsm_probe.cuh"
#include "dsm/dsm_ptx.cuh"

namespace dsm {
namespace {

constexpr uint32_t UNROLL = 4; // store group (accesses of store_width B) and the BATCHED load kernel (16 B): per thread per batch
constexpr uint32_t INFLIGHT = MARROW_DSM_LOAD_INFLIGHT_MAX; // INFLIGHT load kernel: loads per thread per wait
// INFLIGHT_BYTES load kernel: loads per thread per wait at width W, so that
// W x loads = 13 x 16 B = 208 B at every width.
template <uint32_t W> struct InflightBytes {
	static constexpr uint32_t loads = MARROW_DSM_LOAD_INFLIGHT_BYTES_MAX / W;
};
// Three builds of one kernel body, so that the probes' code cannot change
// the register allocation (and so the timing) of the kernel behind every
// earlier result: BASE = that kernel (INFLIGHT / BATCHED loads, the default
// store); PROBE = + remote offset, pressure warps, bursts, store variants;
// BYTES = PROBE with the INFLIGHT_BYTES loads. The host picks the build.
enum KernelBuild : uint32_t { BUILD_BASE = 0, BUILD_PROBE = 1, BUILD_BYTES = 2 };
// Pressure scratch (4 KiB) inside the control region, past the barrier
// and the checksum sums.
constexpr uint32_t PRESSURE_SCRATCH = MARROW_DSM_CTRL_OFFSET + 1024u;
// One touch word per load-group thread (<= 480 threads: 1920 B), past the
// pressure scratch and inside the 8 KiB control region. One word per lane,
// not per warp: 32 lanes storing different values into one word is a
// write-write race (compute-sanitizer racecheck reports it), even though
// nothing reads the word.
constexpr uint32_t TOUCH_WORDS = PRESSURE_SCRATCH + 4096u;
static_assert(TOUCH_WORDS + 4u * MARROW_DSM_DEFAULT_GROUP_THREADS <= MARROW_DSM_SMEM_BYTES,
	      "touch words must fit the control region");

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
	// Probes (E11-E14); all 0 = the kernel of every earlier result.
	uint32_t remote_offset;    // tile base offset in the source region and receive buffer
	uint32_t pressure_warps;   // extra warps after the control warp
	uint32_t pressure_mask;    // ranks that run them
	uint32_t pressure_pattern;
	uint32_t bursts;           // >= 1
	uint32_t store_kernel;     // marrow_dsm_store_kernel
	uint32_t store_unroll;     // 1 or 4
	uint32_t store_end;        // marrow_dsm_store_end
	uint64_t burst_gap;        // cycles
	uint64_t pressure_cycles;
	uint32_t probe_build;      // params.probe_build
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
// of W bytes each (a warp covers 32 x W contiguous bytes), U per batch
// (UNROLL = 4 by default; 1 = a plain copy loop): U local loads, then U
// remote stores, through a shared::cluster or a generic address. Every byte
// once. src and dst name the first byte of this call's range.
template <uint32_t W, uint32_t U, bool GENERIC>
__device__ __forceinline__ void store_tile(uint32_t src, const RemoteDst &dst, uint32_t B, uint32_t t, uint32_t G)
{
	const uint32_t n = B / W;
	for (uint32_t v0 = t; v0 < n; v0 += U * G) {
		uint4 x[U];
#pragma unroll
		for (uint32_t j = 0; j < U; j++) {
			uint32_t v = v0 + j * G;
			x[j] = v < n ? Access<W>::ld_local(src + W * v) : make_uint4(0, 0, 0, 0);
		}
#pragma unroll
		for (uint32_t j = 0; j < U; j++) {
			uint32_t v = v0 + j * G;
			if (v < n)
				st_remote<W, GENERIC>(dst, W * v, x[j]);
		}
	}
}

template <uint32_t W>
__device__ __forceinline__ void store_range(const TrafficArgs &a, uint32_t src, const RemoteDst &dst, uint32_t B,
					    uint32_t t, uint32_t G)
{
	if (a.store_kernel == MARROW_DSM_STORE_GENERIC) {
		if (a.store_unroll == 1)
			store_tile<W, 1, true>(src, dst, B, t, G);
		else
			store_tile<W, UNROLL, true>(src, dst, B, t, G);
	} else {
		if (a.store_unroll == 1)
			store_tile<W, 1, false>(src, dst, B, t, G);
		else
			store_tile<W, UNROLL, false>(src, dst, B, t, G);
	}
}

template <bool PROBES>
__device__ __forceinline__ void store_any(const TrafficArgs &a, uint32_t src, const RemoteDst &dst, uint32_t B,
					  uint32_t t, uint32_t G)
{
	if (!PROBES) {
		if (a.store_width == 4)
			store_tile<4, UNROLL, false>(src, dst, B, t, G);
		else if (a.store_width == 8)
			store_tile<8, UNROLL, false>(src, dst, B, t, G);
		else
			store_tile<16, UNROLL, false>(src, dst, B, t, G);
	} else if (a.store_width == 4)
		store_range<4>(a, src, dst, B, t, G);
	else if (a.store_width == 8)
		store_range<8>(a, src, dst, B, t, G);
	else
		store_range<16>(a, src, dst, B, t, G);
}

// The INFLIGHT load kernels at width W, N loads per thread per wait
// (INFLIGHT: N = 13 at every width; INFLIGHT_BYTES: N = 208 / W, the same
// bytes in flight at every width). Over a range of nvec accesses whose first
// has tile index v0: thread t loads accesses t, t + G, t + 2G, ... (cnt of
// them). All loads of a batch are issued before the first use of any, so no
// use can wait behind loads issued after it (our reading of the BATCHED
// kernel's steps: a use there also waits for the next batch). Thread 0 calls
// stamp() once every load of the range has returned; returns this thread's
// checksum share (the last batch folded after the stamp).
// GFIX != 0 fixes the group size at compile time (the INFLIGHT_BYTES build:
// every address is then the thread's base plus an immediate, which keeps
// 52 loads of 4 B within the 64 registers per thread).
template <uint32_t W, uint32_t N, uint32_t GFIX, class Stamp>
__device__ __forceinline__ uint64_t load_inflight(uint32_t rsrc, uint32_t nvec, uint32_t v0, uint32_t tid,
						  uint32_t G_, uint32_t base, Stamp stamp)
{
	const uint32_t G = GFIX ? GFIX : G_;
	const uint32_t cnt = tid < nvec ? (nvec - tid + G - 1u) / G : 0u;
	const uint32_t stride = W * G;
	uint64_t acc = 0;
	uint4 x[N];
	uint32_t done = 0;
	// Only with fewer threads than 480, larger tiles or narrower loads: full
	// batches, each waited for before the next is issued.
	for (; done + N < cnt; done += N) {
#pragma unroll
		for (uint32_t j = 0; j < N; j++)
			x[j] = Access<W>::ld_cluster(rsrc + W * tid + (done + j) * stride);
#pragma unroll
		for (uint32_t j = 0; j < N; j++)
			acc += foldw<W>(x[j], v0 + tid + (done + j) * G);
	}
	const uint32_t rest = cnt - done; // 0..N
#pragma unroll
	for (uint32_t j = 0; j < N; j++)
		x[j] = j < rest ? Access<W>::ld_cluster(rsrc + W * tid + (done + j) * stride) : make_uint4(0, 0, 0, 0);
	// Wait for every load with the cheapest use: one xor per load (a vector
	// load writes its registers together), stored to shared memory before
	// the barrier. A register-only use is not enough: ptxas moved it (and so
	// the wait) past the barrier and the stamp, which then ended before the
	// data had arrived (measured: alpha ~100 cycles, below one round trip).
	uint32_t touch = 0;
#pragma unroll
	for (uint32_t j = 0; j < N; j++)
		touch ^= x[j].x;
	st_shared_u32(base + TOUCH_WORDS + 4u * tid, touch);
	named_barrier(1, G);
	if (tid == 0)
		stamp();
	// The checksum of the last batch, after the end stamp.
#pragma unroll
	for (uint32_t j = 0; j < N; j++)
		if (j < rest)
			acc += foldw<W>(x[j], v0 + tid + (done + j) * G);
	return acc;
}

// Per-burst bookkeeping of one group's thread 0 (params.bursts > 1).
struct BurstClock {
	uint64_t busy = 0, first = 0, min = ~0ull, start = 0;
	__device__ __forceinline__ void begin() { start = gpu_clock64(); }
	__device__ __forceinline__ uint64_t end()
	{
		const uint64_t e = gpu_clock64();
		const uint64_t d = e - start;
		first = busy == 0 ? d : first;
		busy += d;
		min = d < min ? d : min;
		return e;
	}
	__device__ __forceinline__ void write(marrow_dsm_sample *me) const
	{
		me->burst_busy_cycles = busy;
		me->burst_first_cycles = first;
		me->burst_min_cycles = min;
	}
};

// The load group's whole tile at width W, N per wait: one range (the
// default), or params.bursts ranges separated by idle gaps.
template <uint32_t W, uint32_t N, bool PROBES, uint32_t GFIX>
__device__ __forceinline__ uint64_t load_tile(const TrafficArgs &a, uint32_t rsrc, uint32_t B, uint32_t tid,
					      uint32_t G, uint32_t base, marrow_dsm_sample *me)
{
	auto stamp_end = [me]() {
		uint64_t c = gpu_clock64();
		uint64_t g = gpu_globaltimer_ns();
		me->clk_load_end = c;
		me->gt_load_end = g;
	};
	if (!PROBES || a.bursts <= 1)
		return load_inflight<W, N, GFIX>(rsrc, B / W, 0, tid, G, base, stamp_end);
	const uint32_t S = B / a.bursts;
	BurstClock bc;
	uint64_t acc = 0;
	for (uint32_t i = 0; i < a.bursts; i++) {
		named_barrier(1, G);
		if (tid == 0)
			bc.begin();
		acc += load_inflight<W, N, GFIX>(rsrc + i * S, S / W, i * S / W, tid, G, base, [&bc]() { bc.end(); });
		if (i + 1 < a.bursts)
			idle_until(gpu_clock64(), a.burst_gap);
	}
	if (tid == 0) {
		stamp_end();
		bc.write(me);
	}
	return acc;
}

template <uint32_t W, uint32_t BUILD>
__device__ __forceinline__ uint64_t load_width_any(const TrafficArgs &a, uint32_t rsrc, uint32_t B, uint32_t tid,
						   uint32_t G, uint32_t base, marrow_dsm_sample *me)
{
	constexpr uint32_t N = BUILD == BUILD_BYTES ? InflightBytes<W>::loads : INFLIGHT;
	constexpr uint32_t GFIX = BUILD == BUILD_BYTES ? MARROW_DSM_DEFAULT_GROUP_THREADS : 0u;
	return load_tile<W, N, BUILD != BUILD_BASE, GFIX>(a, rsrc, B, tid, G, base, me);
}

// The store group's tile: one range, or bursts with idle gaps. Returns after
// the group's end stamp (FENCE end); with the RENDEZVOUS end the kernel
// stamps after the extra cluster barrier instead.
template <bool PROBES>
__device__ __forceinline__ void store_group(const TrafficArgs &a, uint32_t src, const RemoteDst &dst, uint32_t B,
					    uint32_t t, uint32_t G, marrow_dsm_sample *me)
{
	if (!PROBES || a.bursts <= 1) {
		store_any<PROBES>(a, src, dst, B, t, G);
		if (PROBES && a.store_end == MARROW_DSM_STORE_END_RENDEZVOUS)
			return;
		// Remote stores are weak: the group is done only once they are
		// visible at cluster scope.
		gpu_fence_acq_rel_cluster();
		named_barrier(2, G);
	} else {
		const uint32_t S = B / a.bursts;
		BurstClock bc;
		for (uint32_t i = 0; i < a.bursts; i++) {
			named_barrier(2, G);
			if (t == 0)
				bc.begin();
			const RemoteDst d = {dst.cluster + i * S, dst.generic + i * S};
			store_any<PROBES>(a, src + i * S, d, S, t, G);
			gpu_fence_acq_rel_cluster();
			named_barrier(2, G);
			if (t == 0)
				bc.end();
			if (i + 1 < a.bursts)
				idle_until(gpu_clock64(), a.burst_gap);
		}
		if (t == 0)
			bc.write(me);
	}
	if (t == 0) {
		uint64_t c = gpu_clock64();
		uint64_t g = gpu_globaltimer_ns();
		me->clk_store_end = c;
		me->gt_store_end = g;
	}
}
#endif

template <uint32_t BUILD>
__global__ void __launch_bounds__(1024, 1)
	traffic_kernel(const __grid_constant__ TrafficArgs a, uint32_t run, marrow_dsm_sample *out)
{
#if DSM_SM90
	constexpr bool PROBES = BUILD != BUILD_BASE;
	const uint32_t offset = PROBES ? a.remote_offset : 0u;
	extern __shared__ __align__(128) uint8_t smem[];
	const uint32_t tid = threadIdx.x;
	const uint32_t G = a.group_threads;
	const uint32_t ctl = 2u * G;
	const uint32_t rank = cluster_rank();
	const uint32_t B = a.tile_bytes;
	const uint32_t nvec = B / 16u;
	const uint32_t base = shared_addr(smem);
	// remote_offset moves the tile in both regions (E11's address scan).
	const uint32_t src = base + MARROW_DSM_SRC_OFFSET + offset;
	const uint32_t recv = base + MARROW_DSM_RECV_OFFSET + offset;
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
	uint4 *s4 = reinterpret_cast<uint4 *>(smem + MARROW_DSM_SRC_OFFSET + offset);
	uint4 *r4 = reinterpret_cast<uint4 *>(smem + MARROW_DSM_RECV_OFFSET + offset);
	for (uint32_t v = tid; v < nvec; v += blockDim.x) {
		uint32_t i = 4u * v;
		s4[v] = make_uint4(pattern(run, rank, i), pattern(run, rank, i + 1), pattern(run, rank, i + 2),
				   pattern(run, rank, i + 3));
		r4[v] = make_uint4(POISON, POISON, POISON, POISON);
	}
	if (tid == 0) {
		sums[0] = 0;
		sums[1] = 0;
		sums[2] = 0;
	}
	// TMA reads the source and writes the receive buffer through the async
	// proxy: order this thread's generic writes before that.
	fence_proxy_async_shared();
	if (tid == ctl && recv_tma) {
		mbar_init(bar, 1);
		fence_mbar_init();
	}
	// The init and the arrival below are one thread's, in program order; the
	// block barrier between them is for compute-sanitizer racecheck, which
	// otherwise reports the pair (ptxas issues the init on the warp's uniform
	// datapath: SYNCS.EXCH.64, then the lane's SYNCS.ARRIVE.TRANS64) as a
	// write-read hazard. Both stay before cluster_sync, so no peer's TMA can
	// complete bytes on the barrier before its expected count is set.
	__syncthreads();
	if (tid == ctl && recv_tma) {
		// Our single arrival, made before the start: the phase completes
		// exactly when all tile bytes have landed.
		mbar_arrive_expect_tx(bar, B);
	}
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
				acc = load_width_any<4, BUILD>(a, rsrc, B, tid, G, base, me);
			} else if (a.load_width == 8) {
				acc = load_width_any<8, BUILD>(a, rsrc, B, tid, G, base, me);
			} else {
				acc = load_width_any<16, BUILD>(a, rsrc, B, tid, G, base, me);
			}
			acc = warp_sum(acc);
			if ((tid & 31u) == 0)
				atomicAdd(reinterpret_cast<unsigned long long *>(&sums[0]), (unsigned long long)acc);
		}
	} else if (tid < 2u * G) {
		if (store_peer >= 0) {
			const uint32_t t = tid - G;
			const uint32_t dst_local = a.store_src[store_peer] ? src : recv;
			const RemoteDst dst = {mapa(dst_local, (uint32_t)store_peer),
					       PROBES && a.store_kernel == MARROW_DSM_STORE_GENERIC
						       ? mapa_generic(smem + (dst_local - base), (uint32_t)store_peer)
						       : 0ull};
			store_group<PROBES>(a, src, dst, B, t, G, me);
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
	} else if (PROBES && tid >= ctl + 32u && ((a.pressure_mask >> rank) & 1u)) {
		// Pressure warps: local shared-memory traffic during the transfer.
		const uint32_t w = (tid - ctl - 32u) >> 5;
		uint64_t ops = pressure_warp(base + PRESSURE_SCRATCH, w, tid & 31u, a.pressure_pattern, a.pressure_cycles);
		ops = warp_sum(ops);
		if ((tid & 31u) == 0)
			atomicAdd(reinterpret_cast<unsigned long long *>(&sums[2]), (unsigned long long)ops);
	}

	if (PROBES && a.store_end == MARROW_DSM_STORE_END_RENDEZVOUS) {
		// The study's store end: one cluster-wide rendezvous after the tile
		// (every thread of every CTA; params refuse pressure warps and
		// bursts with it, so nobody else is still busy).
		cluster_sync();
		if (tid == G && store_peer >= 0) {
			uint64_t c = gpu_clock64();
			uint64_t g = gpu_globaltimer_ns();
			me->clk_store_end = c;
			me->gt_store_end = g;
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
		me->pressure_ops = sums[2];
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
	if (p->load_kernel > MARROW_DSM_LOAD_INFLIGHT_BYTES)
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
	// The probes' knobs (all 0 = the kernel of every earlier result).
	if (p->remote_offset % 16u || (uint64_t)p->remote_offset + p->tile_bytes > MARROW_DSM_MAX_TILE_BYTES)
		return marrow_fail(MARROW_EINVAL, "%s: remote_offset %u must be a multiple of 16 with remote_offset + "
				   "tile_bytes <= %u", fn, p->remote_offset, MARROW_DSM_MAX_TILE_BYTES);
	if (p->pressure_warps > MARROW_DSM_MAX_PRESSURE_WARPS)
		return marrow_fail(MARROW_EINVAL, "%s: pressure_warps %u above %u", fn, p->pressure_warps,
				   MARROW_DSM_MAX_PRESSURE_WARPS);
	if (2u * g + 32u + 32u * p->pressure_warps > 1024u)
		return marrow_fail(MARROW_EINVAL, "%s: %u pressure warps do not fit beside 2 x %u group threads and the "
				   "control warp (1024 threads per CTA at most)", fn, p->pressure_warps, g);
	if ((p->pressure_warps == 0) != (p->pressure_ranks == 0))
		return marrow_fail(MARROW_EINVAL, "%s: pressure_warps %u and pressure_ranks 0x%x must both be 0 or both "
				   "non-zero", fn, p->pressure_warps, p->pressure_ranks);
	if (p->pressure_ranks >> n)
		return marrow_fail(MARROW_EINVAL, "%s: pressure_ranks 0x%x names a rank outside the cluster of %u", fn,
				   p->pressure_ranks, n);
	if (p->pressure_pattern > MARROW_DSM_PRESSURE_CONFLICT)
		return marrow_fail(MARROW_EINVAL, "%s: pressure_pattern %u unknown", fn, p->pressure_pattern);
	const uint32_t bursts = p->bursts ? p->bursts : 1u;
	if (bursts > MARROW_DSM_MAX_BURSTS || p->tile_bytes % (16u * bursts))
		return marrow_fail(MARROW_EINVAL, "%s: bursts %u must be <= %u and divide tile_bytes %u into multiples of "
				   "16 B", fn, p->bursts, MARROW_DSM_MAX_BURSTS, p->tile_bytes);
	if (p->store_kernel > MARROW_DSM_STORE_GENERIC)
		return marrow_fail(MARROW_EINVAL, "%s: store_kernel %u unknown", fn, p->store_kernel);
	if (p->store_unroll != 0 && p->store_unroll != 1 && p->store_unroll != UNROLL)
		return marrow_fail(MARROW_EINVAL, "%s: store_unroll %u must be 1 or %u (0 = %u)", fn, p->store_unroll,
				   UNROLL, UNROLL);
	if (p->probe_build > 1 || p->reserved2 != 0)
		return marrow_fail(MARROW_EINVAL, "%s: probe_build %u must be 0 or 1 and reserved2 0", fn, p->probe_build);
	if (p->store_end > MARROW_DSM_STORE_END_RENDEZVOUS)
		return marrow_fail(MARROW_EINVAL, "%s: store_end %u unknown", fn, p->store_end);
	if (p->store_end == MARROW_DSM_STORE_END_RENDEZVOUS && (p->pressure_warps || bursts > 1))
		return marrow_fail(MARROW_EINVAL, "%s: the rendezvous store end cannot be combined with pressure warps or "
				   "bursts (every thread joins the rendezvous)", fn);
	if (p->load_kernel == MARROW_DSM_LOAD_INFLIGHT_BYTES && g != MARROW_DSM_DEFAULT_GROUP_THREADS)
		return marrow_fail(MARROW_EINVAL, "%s: the INFLIGHT_BYTES load kernel is built for %u group threads, not %u",
				   fn, MARROW_DSM_DEFAULT_GROUP_THREADS, g);
	if (bursts > 1 && p->load_kernel == MARROW_DSM_LOAD_BATCHED)
		return marrow_fail(MARROW_EINVAL, "%s: bursts need an INFLIGHT load kernel", fn);
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
		if (bursts > 1 && r < n && (p->tma_to[r] != -1 || (p->load_from[r] != -1 && p->store_to[r] != -1)))
			return marrow_fail(MARROW_EINVAL, "%s: with bursts a rank may load or store, not both, and nobody "
					   "may TMA (rank %u)", fn, r);
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
	a->remote_offset = p->remote_offset;
	a->pressure_warps = p->pressure_warps;
	a->pressure_mask = p->pressure_ranks;
	a->pressure_pattern = p->pressure_pattern;
	a->pressure_cycles = p->pressure_cycles ? p->pressure_cycles : MARROW_DSM_DEFAULT_PRESSURE_CYCLES;
	a->bursts = bursts;
	a->burst_gap = p->burst_gap_cycles;
	a->store_kernel = p->store_kernel;
	a->store_unroll = p->store_unroll ? p->store_unroll : UNROLL;
	a->store_end = p->store_end;
	a->probe_build = p->probe_build;
	return MARROW_OK;
}

// Block: load group, store group, control warp, then the pressure warps.
cudaLaunchConfig_t launch_config(uint32_t n, uint32_t g, uint32_t pressure_warps, cudaLaunchAttribute *attr)
{
	cudaLaunchConfig_t cfg = {};
	cfg.gridDim = dim3(n, 1, 1);
	cfg.blockDim = dim3(2 * g + 32 + 32 * pressure_warps, 1, 1);
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

typedef void (*TrafficKernel)(TrafficArgs, uint32_t, marrow_dsm_sample *);

// The build a call needs: BASE unless a probe knob or the INFLIGHT_BYTES
// loads are asked for.
TrafficKernel pick_kernel(const TrafficArgs &a)
{
	if (a.load_kernel == MARROW_DSM_LOAD_INFLIGHT_BYTES)
		return traffic_kernel<BUILD_BYTES>;
	if (a.probe_build || a.remote_offset || a.pressure_warps || a.bursts > 1 || a.store_kernel != MARROW_DSM_STORE_CLUSTER ||
	    a.store_unroll != UNROLL || a.store_end != MARROW_DSM_STORE_END_FENCE)
		return traffic_kernel<BUILD_PROBE>;
	return traffic_kernel<BUILD_BASE>;
}

int set_attributes(TrafficKernel k)
{
	cudaError_t e = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)MARROW_DSM_SMEM_BYTES);
	if (e != cudaSuccess)
		return marrow_cuda_fail(e, "cudaFuncSetAttribute(MaxDynamicSharedMemorySize)");
	// Clusters above 8 CTAs are non-portable and refused without this.
	e = cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
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
	int rc = set_attributes(traffic_kernel<BUILD_BASE>);
	if (rc)
		return rc;
	cudaLaunchAttribute attr[1];
	cudaLaunchConfig_t cfg = launch_config((uint32_t)n, group_threads, 0, attr);
	cudaError_t e = cudaOccupancyMaxActiveClusters(out, traffic_kernel<BUILD_BASE>, &cfg);
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
	const TrafficKernel kernel = pick_kernel(a);
	rc = set_attributes(kernel);
	if (rc)
		return rc;
	const uint32_t n = p->cluster_size;
	cudaLaunchAttribute attr[1];
	cudaLaunchConfig_t cfg = launch_config(n, a.group_threads, a.pressure_warps, attr);
	int clusters = 0;
	cudaError_t e = cudaOccupancyMaxActiveClusters(&clusters, kernel, &cfg);
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
		e = cudaLaunchKernelEx(&cfg, kernel, a, run, d_out + (size_t)k * n);
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
