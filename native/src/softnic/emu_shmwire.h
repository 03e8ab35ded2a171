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
