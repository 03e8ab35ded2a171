/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * The software NIC between two processes of one host: a shared-memory wire
 * (docs/design/two-process.md).
 *
 * Each process that lets the other write into its memory creates a WIRE: a
 * named POSIX shared-memory segment ("/marrow-wire-<pid>-<random>") holding
 * a header (magic, version, owner pid, heartbeat), a table of exported QPs
 * and MRs, and a heap. Memory the peer may write must come from that heap
 * (marrow_emu_wire_alloc), be registered as usual (marrow_emu_mr_reg with
 * REMOTE_WRITE) and be exported (marrow_emu_wire_export_mr); the QP the peer
 * targets is exported too. The other process ATTACHES the segment by name
 * (sent over the TCP peer exchange) and connects one of its QPs to a QPN in
 * it (marrow_emu_qp_connect_wire, INIT -> RTR). Its engine then places
 * RDMA WRITEs straight into the mapped heap after the rkey, rights and
 * bounds checks, and delivers WRITE_IMM through a completion mailbox that
 * the owner's wire thread turns into a receive CQE.
 *
 * A peer whose heartbeat stops (process gone) or that closed its wire looks
 * like a silent responder: the WRITE waits for an ACK and ends in
 * TRANSPORT_RETRY_EXC after the QP's (retry_cnt + 1) ack timeouts. An MR
 * withdrawn by marrow_emu_wire_unexport_mr receives nothing after the call
 * returns (per-MR in-flight count checked under the key).
 */
#ifndef MARROW_SHMWIRE_H
#define MARROW_SHMWIRE_H

#include <stdint.h>

#include "marrow/marrow_softnic.h"

#ifdef __cplusplus
extern "C" {
#endif

struct marrow_emu_wire;        /* this process's segment (owner side) */
struct marrow_emu_wire_peer;   /* the other process's segment, mapped here */

enum {
	MARROW_EMU_WIRE_VERSION = 1,    /* layout version in the segment header */
	MARROW_EMU_WIRE_NAME_MAX = 64,  /* bytes of a segment name, with the NUL */
	MARROW_EMU_WIRE_MAX_QPS = 16,   /* exported QPs per wire */
	MARROW_EMU_WIRE_MAX_MRS = 64,   /* exported MRs per wire */
};

/* Creates the segment with heap_bytes (rounded up to pages) of writable
 * memory and starts its wire thread (heartbeat, QP state mirror, WRITE_IMM
 * mailbox). */
MARROW_API int marrow_emu_wire_create(struct marrow_emu_device *dev, uint64_t heap_bytes,
				      struct marrow_emu_wire **out);
/* The segment's name, for the peer's marrow_emu_wire_attach. */
MARROW_API int marrow_emu_wire_name(struct marrow_emu_wire *w, char *buf, uint32_t len);
/* bytes (rounded up to 4 KiB) of zeroed, page-aligned heap memory; never
 * freed before the wire is closed. ENOSPC when the heap is used up. */
MARROW_API int marrow_emu_wire_alloc(struct marrow_emu_wire *w, uint64_t bytes, void **out);
/* Publishes an MR that lies inside the heap (EINVAL otherwise). */
MARROW_API int marrow_emu_wire_export_mr(struct marrow_emu_wire *w, struct marrow_emu_mr *mr);
/* Withdraws it: after return no byte of the peer lands in it. ETIMEDOUT if
 * a writer stayed inside for over a second (it died mid-copy); the key is
 * withdrawn either way. Call before marrow_emu_mr_dereg. */
MARROW_API int marrow_emu_wire_unexport_mr(struct marrow_emu_wire *w, struct marrow_emu_mr *mr);
/* Publishes a QP as a target; its state is mirrored into the segment. */
MARROW_API int marrow_emu_wire_export_qp(struct marrow_emu_wire *w, struct marrow_emu_qp *qp);
/* Withdraws the QP (call before marrow_emu_qp_destroy). */
MARROW_API int marrow_emu_wire_unexport_qp(struct marrow_emu_wire *w, struct marrow_emu_qp *qp);
/* Removes the segment's name from /dev/shm now (a second call does
 * nothing); the mapping, and a peer already attached, are unaffected. For a
 * process that is about to exit without closing the wire (a JVM shutdown
 * hook on SIGTERM/SIGINT): until the peer attaches, the name is what would
 * outlive the process. marrow_emu_wire_create also removes the segments of
 * this user's dead processes (docs/design/two-process.md §1). */
MARROW_API int marrow_emu_wire_unlink(struct marrow_emu_wire *w);
/* Withdraws everything, marks the segment closed (the peer's WRITEs then
 * time out), stops the thread, unmaps and unlinks. Before closing the
 * device and before freeing what the heap holds. */
MARROW_API int marrow_emu_wire_close(struct marrow_emu_wire *w);

/* Maps the peer's segment (and unlinks its name: from then on it lives as
 * long as one of the two mappings). Checks magic and version: a peer of
 * another layout is EPROTO. dead_after_ms: heartbeat silence after which the
 * peer counts as gone (0 = 2000 ms; a vanished owner pid is gone at once). */
MARROW_API int marrow_emu_wire_attach(struct marrow_emu_device *dev, const char *name,
				      uint32_t dead_after_ms, struct marrow_emu_wire_peer **out);
/* 1 while the peer's heartbeat is fresh and it has not closed its wire. */
MARROW_API int marrow_emu_wire_peer_alive(struct marrow_emu_wire_peer *p, int *alive);
/* Unmaps the peer's segment; QPs connected through it lose their peer
 * (their WRITEs then time out). */
MARROW_API int marrow_emu_wire_detach(struct marrow_emu_wire_peer *p);

/* INIT -> RTR with a peer QP in another process: remote_qpn must be
 * exported in p's segment. Then marrow_emu_qp_modify(qp, RTS, 0) as usual. */
MARROW_API int marrow_emu_qp_connect_wire(struct marrow_emu_qp *qp, struct marrow_emu_wire_peer *p,
					  uint32_t remote_qpn);

#ifdef __cplusplus
}
#endif

#endif /* MARROW_SHMWIRE_H */
