/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Byte format of one software-NIC fuzz input, shared by the harness
 * (softnic_fuzz.c) and the seed-corpus generator (gen_corpus.c). An input is
 * a small program: a header that shapes the queues and memory regions, then
 * operations until the bytes run out. Missing bytes read as 0, so every
 * byte string is a valid program.
 *
 * Header:
 *   H0  log_sq_wqebb_cnt = 1 + H0 % 10            (2..1024 WQEBBs; > 256 exercises the shadow ring)
 *   H1  log_cqe_cnt = H1 & 7; cq flags = (H1 >> 3) & 3; shared CQ = (H1 >> 5) & 1;
 *       QP timer profile = H1 >> 6 (FZ_TIMERS)
 *   H2  two QPs = H2 & 1 (A<->B, else A loops back to itself); B shares A's UAR
 *       doorbell page = (H2 >> 1) & 1 (two QPs only); log_rq = (H2 >> 2) & 3;
 *       max_inline = FZ_INLINE[(H2 >> 4) & 7] (clamped to what the SQ can hold)
 *   H3  QP access bits: A = H3 & 15, B = H3 >> 4
 *   H4  MR count = H4 % (FZ_MAX_MR + 1); per MR: offset u16, length u16, access u8
 *       (offset % FZ_ARENA; length 1 + len % (FZ_ARENA - offset))
 * Operations (opcode byte: kind = op % FZ_OP_KINDS, QP = (op >> 4) & 1):
 *   POST      flags u8 (FZ_POST_*), size u8 (WQEBBs = 1 + size % min(16, SQ)), then WQEBBs * 64 raw bytes
 *   POST_REPEAT  count u8, then as POST: the same WQE posted 1 + count % 64 times
 *   RING      mode u8 (FZ_RING_*), [u16 raw dbrec value], [u64 raw doorbell value]
 *   POLL      count u8 (1 + count % 16 engine polls of the QP; of both when op & 0x80;
 *             op & 0x40: doorbell recovery of every QP first, as a full sweep does)
 *   CONSUME   max u8 (poll up to max CQEs from every CQ, updating the consumer index)
 *   MODIFY    u8: new state = v % 8 (4, 5, 7 are not states); v & 8: unknown peer QPN
 *   RECV      u8: RQ producer += 1 + v % 4; v & 0x80: raw u16 value instead
 *   DEREG     u8: deregister MR v % count (its key goes stale)
 *
 * Relocation (FZ_POST_RELOC): raw bytes cannot know where the arena or the
 * keys live in this process, so tagged values are rewritten before the WQE is
 * stored: an address whose high 32 bits are FZ_ADDR_TAG becomes
 * arena - FZ_ADDR_BIAS + (low 32 bits % (FZ_ARENA + 2 * FZ_ADDR_BIAS)) (it
 * can point into the guard pages), and a key whose top byte is FZ_KEY_TAG
 * becomes the key of MR (low byte % count), live or stale.
 */
#ifndef MARROW_SOFTNIC_FUZZ_FORMAT_H
#define MARROW_SOFTNIC_FUZZ_FORMAT_H

enum {
	FZ_ARENA = 8192,
	FZ_ADDR_BIAS = 4096,
	FZ_MAX_MR = 4,
	FZ_MAX_OPS = 512,
};

#define FZ_ADDR_TAG 0xA7A7A7A7u
#define FZ_KEY_TAG 0xA7u
/* Encodes "arena + off" for a relocated WQE. */
#define FZ_ADDR(off) (((unsigned long long)FZ_ADDR_TAG << 32) | (unsigned)((off) + FZ_ADDR_BIAS))
#define FZ_KEY(mr) ((FZ_KEY_TAG << 24) | (unsigned)(mr))

static const unsigned FZ_INLINE[8] = { 0, 4, 12, 28, 44, 60, 124, 220 };

enum fz_op {
	FZ_OP_POST = 0,
	FZ_OP_POST_REPEAT = 1,
	FZ_OP_RING = 2,
	FZ_OP_POLL = 3,
	FZ_OP_CONSUME = 4,
	FZ_OP_MODIFY = 5,
	FZ_OP_RECV = 6,
	FZ_OP_DEREG = 7,
	FZ_OP_KINDS = 8,
};

enum fz_post_flags {
	FZ_POST_FIX_IDX = 1,   /* ctrl wqe index := producer counter */
	FZ_POST_FIX_QPN = 2,   /* ctrl qpn := the QP's number */
	FZ_POST_FIX_DS = 4,    /* ctrl ds := inside the posted WQEBBs */
	FZ_POST_RELOC = 8,     /* rewrite tagged addresses and keys */
	FZ_POST_SIGNAL = 16,   /* set CE = CQ_UPDATE */
	FZ_POST_UNSIGNAL = 32, /* clear CE (wins over SIGNAL) */
	FZ_POST_WELLFORMED = FZ_POST_FIX_IDX | FZ_POST_FIX_QPN | FZ_POST_FIX_DS | FZ_POST_RELOC,
};

enum fz_ring_mode {
	FZ_RING_RAW_DBREC = 1, /* dbrec := raw u16 from the input */
	FZ_RING_NO_DBREC = 2,  /* leave the dbrec alone */
	FZ_RING_NO_UAR = 4,    /* update the dbrec but ring no doorbell */
	FZ_RING_HALF1 = 8,     /* second BlueFlame half */
	FZ_RING_RAW_UAR = 16,  /* doorbell value := raw u64 from the input */
	FZ_RING_OTHER_QPN = 32, /* our index, the other QP's QPN (or an unknown one) */
	FZ_RING_TWICE = 64,    /* store, one engine poll, store the same value again */
	FZ_RING_LAST_CTRL = 128, /* rdma-core: the last WQE's index and ds, not the producer index */
};

/* QP timer profiles {timeout, retry_cnt, rnr_retry, min_rnr_timer, device
 * time divisor}. 0: waits outlast any run (no ACK timeout, RNR forever with
 * 655 ms between retries); 1, 2: a retry on every poll (the divisor makes
 * the gaps 0 ns), few or many; 3: the QP defaults at ConnectX timing (a
 * retry fires only if the run is slow: not deterministic, every outcome is
 * legal). Retry counts stay finite where gaps are 0, else waits would be a
 * livelock by construction. */
static const unsigned FZ_TIMERS[4][5] = {
	{ 0, 7, 7, 0, 1 },
	{ 1, 0, 1, 1, 1000000 },
	{ 1, 7, 6, 1, 1000000 },
	{ 14, 7, 6, 12, 1 },
};

#endif
