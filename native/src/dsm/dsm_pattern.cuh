// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The Marrow authors
//
// Data pattern and checksum shared by the kernels (which fill and fold) and
// the host (which computes the expected folds independently of the GPU).
#ifndef MARROW_DSM_PATTERN_CUH
#define MARROW_DSM_PATTERN_CUH

#include <stdint.h>

namespace dsm {

// Word i of rank `rank`'s source tile in run `run`. Depends on all three so
// stale data from an earlier run or the wrong rank fails the checksum.
__host__ __device__ __forceinline__ uint32_t pattern(uint32_t run, uint32_t rank, uint32_t i)
{
	uint32_t x = i * 0x9E3779B1u ^ (rank + 1u) * 0x85EBCA77u ^ (run + 1u) * 0xC2B2AE3Du;
	x ^= x >> 15;
	x *= 0x2C1B3C6Du;
	x ^= x >> 12;
	x *= 0x297A2D39u;
	x ^= x >> 15;
	return x;
}

// Written into receive buffers before a run: a word that never arrives
// keeps it and breaks the checksum.
constexpr uint32_t POISON = 0xDEADBEEFu;

// Contribution of word w found at word index i. Weighted by position, so
// data landing at the wrong offset is caught; a plain sum is then
// order-independent and threads can fold in any order.
__host__ __device__ __forceinline__ uint64_t fold(uint32_t w, uint32_t i)
{
	// 32 x 32 -> 64-bit product: one IMAD.WIDE per word inside the load loop.
	return (uint64_t)(w ^ 0xA5A5A5A5u) * (uint64_t)(2u * i + 1u);
}

} // namespace dsm

#endif
