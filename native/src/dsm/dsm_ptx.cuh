// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The Marrow authors
//
// Thin inline-PTX wrappers for the DSM kernels. Every instruction used here
// exists from sm_90 on (PTX ISA 8.0): clusters, mapa, ld/st.shared::cluster,
// mbarrier with expect_tx, cp.async.bulk shared::cta -> shared::cluster.
// sm_100 supports all of them too, so the same code serves both archs.
#ifndef MARROW_DSM_PTX_CUH
#define MARROW_DSM_PTX_CUH

#include <stdint.h>

#include "marrow/gpu_prims.h"

// Every kernel body is wrapped in this guard; an older arch gets a trap
// instead of a compile error so the fat binary still builds.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define DSM_SM90 1
#else
#define DSM_SM90 0
#endif

namespace dsm {

// Timers (gpu_clock64, gpu_globaltimer_ns) and fences come from
// gpu_prims.h; what stays here is DSM's own: identity registers, cluster
// barriers, distributed-shared-memory accesses, mbarriers and TMA.
__device__ __forceinline__ uint32_t smid()
{
	uint32_t v;
	asm volatile("mov.u32 %0, %%smid;" : "=r"(v));
	return v;
}

#if DSM_SM90
__device__ __forceinline__ uint32_t cluster_rank()
{
	uint32_t v;
	asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(v));
	return v;
}

// Full cluster rendezvous with release/acquire: orders all prior shared
// memory traffic (local and remote) before anything after it. Expensive
// (GPU-scope membar), so it is only used outside timed regions.
__device__ __forceinline__ void cluster_sync()
{
	asm volatile("barrier.cluster.arrive.release.aligned;\n\t"
		     "barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// Address of the same shared-memory slot in CTA `rank` of the cluster.
__device__ __forceinline__ uint32_t mapa(uint32_t local_shared_addr, uint32_t rank)
{
	uint32_t r;
	asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(local_shared_addr), "r"(rank));
	return r;
}

__device__ __forceinline__ uint4 ld_cluster_v4(uint32_t addr)
{
	uint4 v;
	asm volatile("ld.shared::cluster.v4.u32 {%0, %1, %2, %3}, [%4];"
		     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
		     : "r"(addr));
	return v;
}

__device__ __forceinline__ uint32_t ld_cluster_u32(uint32_t addr)
{
	uint32_t v;
	asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
	return v;
}

__device__ __forceinline__ void st_cluster_v4(uint32_t addr, uint4 v)
{
	asm volatile("st.shared::cluster.v4.u32 [%0], {%1, %2, %3, %4};"
		     ::"r"(addr), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
		     : "memory");
}

// Accesses of W = 4, 8 or 16 bytes (.u32, .v2.u32, .v4.u32), carried in a
// uint4 whose unused words are 0. The store and the INFLIGHT load kernel are
// templated on W (marrow_dsm_params.store_width / load_width).
template <uint32_t W> struct Access;

template <> struct Access<4> {
	__device__ __forceinline__ static uint4 ld_cluster(uint32_t addr)
	{
		uint32_t v;
		asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(addr));
		return make_uint4(v, 0, 0, 0);
	}
	__device__ __forceinline__ static uint4 ld_local(uint32_t addr)
	{
		uint32_t v;
		asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(addr));
		return make_uint4(v, 0, 0, 0);
	}
	__device__ __forceinline__ static void st_cluster(uint32_t addr, uint4 v)
	{
		asm volatile("st.shared::cluster.u32 [%0], %1;" ::"r"(addr), "r"(v.x) : "memory");
	}
};

template <> struct Access<8> {
	__device__ __forceinline__ static uint4 ld_cluster(uint32_t addr)
	{
		uint32_t a, b;
		asm volatile("ld.shared::cluster.v2.u32 {%0, %1}, [%2];" : "=r"(a), "=r"(b) : "r"(addr));
		return make_uint4(a, b, 0, 0);
	}
	__device__ __forceinline__ static uint4 ld_local(uint32_t addr)
	{
		uint32_t a, b;
		asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(a), "=r"(b) : "r"(addr));
		return make_uint4(a, b, 0, 0);
	}
	__device__ __forceinline__ static void st_cluster(uint32_t addr, uint4 v)
	{
		asm volatile("st.shared::cluster.v2.u32 [%0], {%1, %2};" ::"r"(addr), "r"(v.x), "r"(v.y) : "memory");
	}
};

template <> struct Access<16> {
	__device__ __forceinline__ static uint4 ld_cluster(uint32_t addr) { return ld_cluster_v4(addr); }
	__device__ __forceinline__ static uint4 ld_local(uint32_t addr);
	__device__ __forceinline__ static void st_cluster(uint32_t addr, uint4 v) { st_cluster_v4(addr, v); }
};

// A shared store the compiler must keep before a later barrier: the value's
// producer (and any load wait it implies) then precedes that barrier too.
__device__ __forceinline__ void st_shared_u32(uint32_t addr, uint32_t v)
{
	asm volatile("st.shared.u32 [%0], %1;" ::"r"(addr), "r"(v) : "memory");
}

__device__ __forceinline__ uint4 ld_shared_v4(uint32_t addr)
{
	uint4 v;
	asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
		     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
		     : "r"(addr));
	return v;
}

__device__ __forceinline__ uint4 Access<16>::ld_local(uint32_t addr)
{
	return ld_shared_v4(addr);
}

// Orders generic-proxy shared writes before later async-proxy (TMA) access.
__device__ __forceinline__ void fence_proxy_async_shared()
{
	asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// Named CTA barrier over `threads` threads (whole warps), so that one
// group's completion does not wait for another group.
__device__ __forceinline__ void named_barrier(uint32_t id, uint32_t threads)
{
	asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t arrivals)
{
	asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(arrivals) : "memory");
}

// Makes the initialisation visible to peers that will complete_tx on it.
__device__ __forceinline__ void fence_mbar_init()
{
	asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// The waiting CTA's own single arrival, announcing the bytes it expects.
__device__ __forceinline__ void mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes)
{
	asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;"
		     ::"r"(bar), "r"(bytes)
		     : "memory");
}

// One non-blocking-ish probe (the hardware may suspend briefly). acquire at
// cluster scope pairs with complete_tx's release from the sending CTA.
__device__ __forceinline__ bool mbar_try_wait(uint32_t bar, uint32_t parity)
{
	uint32_t done;
	asm volatile("{\n\t.reg .pred p;\n\t"
		     "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n\t"
		     "selp.u32 %0, 1, 0, p;\n\t}"
		     : "=r"(done)
		     : "r"(bar), "r"(parity)
		     : "memory");
	return done != 0;
}

// TMA put of `bytes` from this CTA's shared memory to another CTA's shared
// memory; completion is signalled on the destination's mbarrier (remote_bar
// is that barrier's shared::cluster address).
__device__ __forceinline__ void tma_put(uint32_t remote_dst, uint32_t local_src, uint32_t bytes, uint32_t remote_bar)
{
	asm volatile("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
		     ::"r"(remote_dst), "r"(local_src), "r"(bytes), "r"(remote_bar)
		     : "memory");
}
#endif

__device__ __forceinline__ uint32_t shared_addr(const void *p)
{
	return (uint32_t)__cvta_generic_to_shared(p);
}

} // namespace dsm

#endif
