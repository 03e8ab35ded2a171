/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * mini-proxy descriptor rings: the one definition of the 16-byte request
 * descriptor and of the ring arena layout, shared by the CPU workers, the
 * CPU producers (host C) and the GPU producers (CUDA device code).
 *
 * Descriptor (two little-endian 64-bit words, 16-byte aligned):
 *   w0 bits  0..31  local offset (bytes, from the proxy's local base)
 *   w0 bits 32..63  remote offset (bytes, from the proxy's remote base)
 *   w1 bits  0..23  size in bytes (1 .. 2^24-1)
 *   w1 bits 24..31  opcode (enum mpr_opcode)
 *   w1 bits 32..47  destination (QP index of the owning worker)
 *   w1 bits 48..62  tag (15 bits, free for the producer; tests put the
 *                   ring position there so the worker can check order)
 *   w1 bit  63      validity = lap parity (see mpr_lap_bit)
 *
 * Validity is the lap parity of the slot's free-running position h:
 * ((h >> log2(slots)) & 1) ^ 1. A zeroed ring therefore reads empty, a slot
 * left from the previous lap has the opposite parity, and nobody ever clears
 * a slot (the MSCCL++ FIFO design fact this follows). The consumer loads w1
 * with acquire semantics, compares the parity, then loads w0.
 *
 * Arena layout for R rings of N = 2^log_slots slots (all offsets from the
 * arena base, which is page aligned):
 *   [0, R*256)            R control blocks (struct mpr_ctl), 256 B each
 *   [slots_off, +R*N*16)  R slot arrays, ring r at slots_off + r*N*16
 * The whole arena lives in pinned host memory so that a GPU can map it.
 */
#ifndef MARROW_PROXY_RING_H
#define MARROW_PROXY_RING_H

#include <stdint.h>

#if defined(__CUDACC__)
#define MPR_HD __host__ __device__ __forceinline__
#else
#define MPR_HD static inline __attribute__((always_inline))
#endif

#ifdef __cplusplus
extern "C" {
#endif

enum mpr_opcode {
	MPR_OP_NOP = 0,   /* reserved: a worker rejects it (EPROTO) */
	MPR_OP_WRITE = 1, /* RDMA WRITE of size bytes local -> remote */
};

enum {
	MPR_DESC_SIZE = 16,
	MPR_CTL_SIZE = 256,
	MPR_MAX_SIZE = (1u << 24) - 1,
	MPR_TAG_MASK = 0x7fff,
	MPR_MAX_LOG_SLOTS = 20,
};

/* One ring's control block; every field on its own 64-byte line so that the
 * producer-written and the worker-written words never share a line. */
struct mpr_ctl {
	uint64_t head;       /* baseline CPU producers: reservation counter (atomic) */
	uint64_t pad0[7];
	uint64_t tail;       /* worker: descriptors consumed (slots free to reuse) */
	uint64_t pad1[7];
	uint64_t cpl;        /* worker: requests whose completion (CQE) was seen */
	uint64_t pad2[7];
	uint64_t worker_state; /* enum mpr_worker_state of the ring's worker */
	uint64_t pad3[7];
};

/* What the owning worker is doing; lets a producer whose wait expired say
 * why instead of only "timed out". */
enum mpr_worker_state {
	MPR_WORKER_IDLE = 0,    /* not started yet */
	MPR_WORKER_RUNNING = 1,
	MPR_WORKER_STOPPED = 2, /* stopped by marrow_proxy_stop */
	MPR_WORKER_FAILED = 3,  /* stopped on an error (bad descriptor, error CQE) */
};

struct mpr_desc {
	uint64_t w0;
	uint64_t w1;
} __attribute__((aligned(16)));

MPR_HD uint64_t mpr_lap_bit(uint64_t pos, uint32_t log_slots)
{
	return (((pos >> log_slots) & 1u) ^ 1u) << 63;
}

MPR_HD uint64_t mpr_w0(uint32_t local_off, uint32_t remote_off)
{
	return (uint64_t)local_off | ((uint64_t)remote_off << 32);
}

/* w1 without the validity bit. */
MPR_HD uint64_t mpr_w1(uint32_t size, uint32_t opcode, uint32_t dst, uint32_t tag)
{
	return (uint64_t)(size & MPR_MAX_SIZE) | ((uint64_t)(opcode & 0xff) << 24) |
	       ((uint64_t)(dst & 0xffff) << 32) | ((uint64_t)(tag & MPR_TAG_MASK) << 48);
}

MPR_HD uint32_t mpr_local_off(uint64_t w0) { return (uint32_t)w0; }
MPR_HD uint32_t mpr_remote_off(uint64_t w0) { return (uint32_t)(w0 >> 32); }
MPR_HD uint32_t mpr_size(uint64_t w1) { return (uint32_t)(w1 & MPR_MAX_SIZE); }
MPR_HD uint32_t mpr_opcode(uint64_t w1) { return (uint32_t)((w1 >> 24) & 0xff); }
MPR_HD uint32_t mpr_dst(uint64_t w1) { return (uint32_t)((w1 >> 32) & 0xffff); }
MPR_HD uint32_t mpr_tag(uint64_t w1) { return (uint32_t)((w1 >> 48) & MPR_TAG_MASK); }
MPR_HD int mpr_valid(uint64_t w1, uint64_t pos, uint32_t log_slots)
{
	return (w1 & (1ull << 63)) == mpr_lap_bit(pos, log_slots);
}

/* ---- arena layout ------------------------------------------------------ */

MPR_HD uint64_t mpr_slots_off(uint32_t rings)
{
	return ((uint64_t)rings * MPR_CTL_SIZE + 4095u) & ~(uint64_t)4095u;
}

MPR_HD uint64_t mpr_arena_bytes(uint32_t rings, uint32_t log_slots)
{
	uint64_t b = mpr_slots_off(rings) + (uint64_t)rings * MPR_DESC_SIZE * (1ull << log_slots);
	return (b + 4095u) & ~(uint64_t)4095u;
}

MPR_HD struct mpr_ctl *mpr_ctl_of(void *arena, uint32_t ring)
{
	return (struct mpr_ctl *)((uint8_t *)arena + (uint64_t)ring * MPR_CTL_SIZE);
}

MPR_HD struct mpr_desc *mpr_slots_of(void *arena, uint32_t rings, uint32_t log_slots, uint32_t ring)
{
	return (struct mpr_desc *)((uint8_t *)arena + mpr_slots_off(rings) +
				   (uint64_t)ring * MPR_DESC_SIZE * (1ull << log_slots));
}

#ifdef __cplusplus
}
#endif

#endif /* MARROW_PROXY_RING_H */
