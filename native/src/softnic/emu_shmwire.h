/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * The engine's side of the shared-memory wire (emu_shmwire.c,
 * docs/design/two-process.md): the one call the host engine's exec_write
 * (emu_exec_core.h, compiled in emu_exec.c) makes when a QP's
 * peer lives in another process.
 */
#ifndef MARROW_EMU_SHMWIRE_H
#define MARROW_EMU_SHMWIRE_H

#include "emu_internal.h"
#include "marrow/marrow_shmwire.h"

/* The segment's layout. Every word of it can be written by both processes
 * (both map it read-write): each side treats what the other writes as
 * untrusted input (docs/design/two-process.md §4a). Here rather than in
 * emu_shmwire.c so that the tests and the fuzz harness can craft hostile
 * segments of the real layout. */
enum {
	WIRE_MAGIC = 0x4d525753u,    /* "MRWS" */
	WIRE_HDR_BYTES = 128 * 1024,  /* header + tables; the heap starts here */
	WIRE_IMM_SLOTS = 256,        /* WRITE_IMMs in flight per port */
	WIRE_TICK_NS = 50000,        /* wire thread period (heartbeat, mirror, mailbox) */
	WIRE_FRESH_NS = 4 * WIRE_TICK_NS, /* younger heartbeats need no pid check */
	WIRE_DEAD_DEFAULT_MS = 2000,  /* silence of a peer whose pid cannot be checked */
	WIRE_UNEXPORT_WAIT_NS = 1000000000,
};
/* The largest heap a wire has (marrow_emu_wire_create); attach refuses a
 * bigger segment. */
#define WIRE_HEAP_MAX (1ull << 40)

struct wire_imm_slot {
	uint32_t seq;        /* claim number + 1 once the slot is filled */
	uint32_t imm_be;
	uint32_t byte_cnt;
	uint32_t pad;
};

struct wire_port {
	uint32_t qpn;        /* 0 = free */
	uint32_t state;      /* mirror of the owner's QP state */
	uint32_t access;
	uint32_t rq_cnt;
	uint32_t rq_pi;      /* receive WQEs posted (32-bit, widened from the DBR) */
	uint32_t err_req;    /* requester saw a remote-side error: QP to ERR */
	uint32_t imm_claim __attribute__((aligned(64)));   /* requesters: RQ WQEs claimed */
	uint32_t imm_done __attribute__((aligned(64)));    /* owner: RQ WQEs completed */
	struct wire_imm_slot slot[WIRE_IMM_SLOTS];
} __attribute__((aligned(64)));

struct wire_mr {
	uint32_t key;        /* 0 = free or withdrawn */
	uint32_t access;
	uint64_t base;       /* in the owner's address space */
	uint64_t len;
	uint64_t off;        /* from the segment start */
	uint32_t in_flight;
	uint32_t pad;
} __attribute__((aligned(64)));

struct wire_hdr {
	uint32_t magic;
	uint32_t version;
	uint64_t total_bytes;
	uint32_t owner_pid;
	uint32_t closed;
	uint64_t owner_pidns;   /* inode of the owner's pid namespace (0 unknown) */
	uint64_t heartbeat_ns __attribute__((aligned(64)));
	struct wire_port port[MARROW_EMU_WIRE_MAX_QPS];
	struct wire_mr mr[MARROW_EMU_WIRE_MAX_MRS];
};

_Static_assert(sizeof(struct wire_hdr) <= WIRE_HDR_BYTES, "wire header exceeds its pages");

/* What a QP connected through a wire points at (qp->shmwire). */
struct emu_shmwire_link;

/* Places one validated RDMA WRITE / WRITE_IMM at the remote peer: the
 * requester's gather pieces (pc[0..n), inl + gat bytes) go to the rkey and
 * address in the WQE w. Returns exec_write's result encoding: 0 placed,
 * EMU_WAIT_RNR (no receive WQE at the peer), EMU_WAIT_ACK (peer gone, closed
 * or not RTR/RTS: no ACK comes back), or (syndrome << 8 | vendor syndrome).
 * Writes nothing unless it returns 0. */
uint32_t emu_shmwire_write(struct emu_thread *t, struct marrow_emu_qp *qp, const uint8_t *w,
			   const struct emu_piece *pc, uint32_t n, uint64_t inl, uint64_t gat,
			   int with_imm);

#endif /* MARROW_EMU_SHMWIRE_H */
