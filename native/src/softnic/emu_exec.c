/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * The data path: take doorbells, copy new WQEs once into engine-private
 * memory (the NIC's DMA read), execute them in SQ order and write CQEs.
 * docs/design/softnic-fidelity.md states which ConnectX behaviour each rule
 * follows.
 *
 * Doorbells: a UAR doorbell store is an event carrying (WQE index, QPN, ds)
 * (the first 8 bytes of a ctrl segment). The engine empties the slot when it
 * takes the value, so the same value stored twice is two events unless both
 * stores land before the engine looks (then they merge, which loses nothing:
 * the index makes them idempotent). The QPN picks the QP among those on the
 * page; a doorbell naming none of them, or a QP in RESET, is dropped and
 * counted. The engine executes up to the index (rdma-core's inclusive
 * convention is turned exclusive with the doorbell's ds), never reading the
 * doorbell record on this path: like a ConnectX it serves DOCA's early
 * doorbell (before the DBR) and DBR-less producers, and it never acts on a
 * DBR that moved without a doorbell. The DBR is read by recovery only
 * (emu_qp_recover). A doorbell in INIT or RTR is remembered and its WQEs run
 * once the QP reaches RTS.
 *
 * Error model (what mlx5 reports):
 *   bad lkey / gather outside MR / other PD        -> LOCAL_PROT (0x04)
 *   bad rkey / outside MR / no REMOTE_WRITE        -> REMOTE_ACCESS (0x13)
 *   malformed WQE, unsupported opcode, SQ overflow -> LOCAL_QP_OP (0x02)
 *   message > 2^31                                 -> LOCAL_LENGTH (0x01)
 *   WRITE_IMM to a peer without RQ                 -> REMOTE_INVAL_REQ (0x12)
 *   peer destroyed or not in RTR/RTS, after
 *     (retry_cnt + 1) ack timeouts                 -> TRANSPORT_RETRY_EXC (0x15)
 *   WRITE_IMM, no receive WQE after rnr_retry
 *     RNR retries (7 = forever)                    -> RNR_RETRY_EXC (0x16)
 * max_inline_data is a posting-side check (the NIC only parses the WQE).
 * The failing WQE gets a REQ_ERR CQE (signaled or not); the QP goes to ERR
 * and every later WQE gets a REQ_ERR / WR_FLUSH CQE in order, as do posted
 * RQ WQEs (RESP_ERR / WR_FLUSH). Remote-side errors (REMOTE_ACCESS,
 * REMOTE_INVAL_REQ) also move a distinct peer QP to ERR (IB class C).
 * Everything is validated before the first byte moves, so a failing WQE
 * writes nothing.
 *
 * The code is emu_exec_core.h, shared with the device engine; this file
 * compiles it for the CPU engine threads, where every access in it is the
 * plain __atomic builtin it names. Here, and only here, exec_write also
 * hands a QP whose peer is in another process to the shared-memory wire
 * (EMU_HAS_SHMWIRE, emu_shmwire.c, docs/design/two-process.md).
 */
#include "emu_internal.h"
#include "emu_shmwire.h"
/* The two-process wire hook in exec_write (host engine only). */
#define EMU_HAS_SHMWIRE 1
#include "emu_exec_core.h"
