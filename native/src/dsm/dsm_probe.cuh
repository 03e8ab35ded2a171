// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The Marrow authors
//
// Device pieces of the DSM probes (E11-E14, docs/design/methods.md §4.1):
// generic-address remote stores, local shared-memory pressure warps, and a
// bounded idle gap between bursts. The traffic kernel (dsm_traffic.cu)
// calls them only when the matching marrow_dsm_params field asks for it.
#ifndef MARROW_DSM_PROBE_CUH
#define MARROW_DSM_PROBE_CUH

#include <stdint.h>

#include "dsm/dsm_ptx.cuh"
#include "marrow/marrow_dsm.h"

namespace dsm {

#if DSM_SM90
// Generic address of the same shared-memory slot in CTA `rank`: mapa without
// a state space takes and returns generic addresses. A C++ pointer obtained
// from cooperative_groups' cluster.map_shared_rank() is such an address.
__device__ __forceinline__ uint64_t mapa_generic(const void *local, uint32_t rank)
{
	uint64_t r;
	asm volatile("mapa.u64 %0, %1, %2;" : "=l"(r) : "l"(local), "r"(rank));
	return r;
}

// Plain (generic) stores of W = 4, 8 or 16 bytes: the hardware resolves the
// shared::cluster window from the address at run time.
template <uint32_t W> __device__ __forceinline__ void st_generic(uint64_t addr, uint4 v);

template <> __device__ __forceinline__ void st_generic<4>(uint64_t addr, uint4 v)
{
	asm volatile("st.u32 [%0], %1;" ::"l"(addr), "r"(v.x) : "memory");
}

template <> __device__ __forceinline__ void st_generic<8>(uint64_t addr, uint4 v)
{
	asm volatile("st.v2.u32 [%0], {%1, %2};" ::"l"(addr), "r"(v.x), "r"(v.y) : "memory");
}

template <> __device__ __forceinline__ void st_generic<16>(uint64_t addr, uint4 v)
{
	asm volatile("st.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(addr), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
		     : "memory");
}

// Where a remote store goes: a shared::cluster address (st.shared::cluster)
// or a generic one (st). Both name the same bytes of the peer.
struct RemoteDst {
	uint32_t cluster; // shared::cluster address of the tile's base in the peer
	uint64_t generic; // generic address of the same byte
};

template <uint32_t W, bool GENERIC>
__device__ __forceinline__ void st_remote(const RemoteDst &d, uint32_t byte_off, uint4 v)
{
	if (GENERIC)
		st_generic<W>(d.generic + byte_off, v);
	else
		Access<W>::st_cluster(d.cluster + byte_off, v);
}

// Spins until `cycles` have passed since `from` on this SM's clock: the idle
// gap between bursts. Bounded by construction.
__device__ __forceinline__ void idle_until(uint64_t from, uint64_t cycles)
{
	while (gpu_clock64() - from < cycles) {
	}
}

// One pressure warp (index w < MARROW_DSM_MAX_PRESSURE_WARPS): read-modify-
// write of four shared words per lane per iteration (4 loads, then 4
// stores), for `cycles` from its start, inside the 4 KiB scratch area at
// shared address `scratch`. SPREAD: lane l's words have bank l (32 banks per
// warp access, no conflict); CONFLICT: all 32 lanes' words of access k have
// bank (w + 8 k) mod 32, a 32-way conflict on every access. Warps may share
// words; the values are never checked. Returns this lane's accesses.
__device__ __forceinline__ uint64_t pressure_warp(uint32_t scratch, uint32_t w, uint32_t lane, uint32_t pattern,
						  uint64_t cycles)
{
	uint32_t addr[4];
#pragma unroll
	for (uint32_t k = 0; k < 4; k++) {
		uint32_t word = pattern == MARROW_DSM_PRESSURE_CONFLICT ? 32u * lane + ((w + 8u * k) & 31u)
									: 32u * w + lane + 256u * k;
		addr[k] = scratch + 4u * (word & 1023u);
	}
	const uint64_t t0 = gpu_clock64();
	uint64_t ops = 0;
	while (gpu_clock64() - t0 < cycles) {
		uint32_t v[4];
#pragma unroll
		for (uint32_t k = 0; k < 4; k++)
			asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v[k]) : "r"(addr[k]) : "memory");
#pragma unroll
		for (uint32_t k = 0; k < 4; k++)
			st_shared_u32(addr[k], v[k] + 1u);
		ops += 8;
	}
	return ops;
}
#endif

} // namespace dsm

#endif
