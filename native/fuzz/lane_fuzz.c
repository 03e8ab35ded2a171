/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * libFuzzer harness for the checks the device engine's lane path makes
 * before it runs a WQE without the core (docs/design/device-engine.md §2.8):
 * fast_shape and fast_remote_ok (inline WRITEs), fast_ptr_check (pointer
 * WRITEs: fast_ptr_shape, fast_local_ok, fast_remote_ok, fast_disjoint),
 * compiled for the host from the one execution core the device engine
 * compiles too (emu_exec_core.h, through emu_exec.c, which this file
 * includes for its static functions; scripts/fuzz.sh leaves it out of the
 * link). Each input is an MR table (keys, PDs, rights, ranges in an arena)
 * and one WQEBB, mostly built from the table so that the checks' corner
 * cases are reached; the lane path's verdict is held to exec_write's, the
 * rule every WQE the lane path hands over meets:
 *  - a WQE the lane path would run gets RES_OK from exec_write, and the bytes
 *    exec_write leaves are those the lane path's copies leave (the pieces in
 *    any order: fast_ptr_check admits no source that overlaps the
 *    destination);
 *  - a pointer WRITE that exec_write runs with a non-empty payload and no
 *    source overlapping the destination is one the lane path runs (it does
 *    not hand the common case to the core);
 *  - the verdict is the same with the MR caches empty and with the caches
 *    the first check left (a cached MR answers as the table does);
 *  - no crash, no ASan/UBSan report.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../src/softnic/emu_exec.c"

#define LZ_FAIL(...)                                                   \
	do {                                                           \
		fprintf(stderr, "lane_fuzz: invariant violated: ");   \
		fprintf(stderr, __VA_ARGS__);                          \
		fputc('\n', stderr);                                   \
		abort();                                               \
	} while (0)

enum { LZ_ARENA = 4096, LZ_MRS = 8, LZ_QPN = 0x123 };

static uint8_t arena[LZ_ARENA] __attribute__((aligned(64)));
static uint8_t before[LZ_ARENA];
static uint8_t want[LZ_ARENA];

struct lz_in {
	const uint8_t *p;
	size_t n;
};

static uint32_t lz_take(struct lz_in *in, int bytes)
{
	uint32_t v = 0;

	for (int i = 0; i < bytes; i++) {
		v = (v << 8) | (in->n ? *in->p : 0u);
		if (in->n) {
			in->p++;
			in->n--;
		}
	}
	return v;
}

/* An address: mostly inside the arena (near an MR's edges), else raw. */
static uint64_t lz_addr(struct lz_in *in, const struct emu_mr_slot *mrs, uint32_t nmr)
{
	uint32_t how = lz_take(in, 1);
	uint32_t off = lz_take(in, 2);

	if ((how & 3) == 3)
		return ((uint64_t)lz_take(in, 4) << 32) | lz_take(in, 4);
	if ((how & 3) == 2 || nmr == 0)
		return (uint64_t)(uintptr_t)arena + off % LZ_ARENA;
	const struct emu_mr_slot *s = &mrs[(how >> 2) % nmr];

	/* Around the MR's start or end. */
	return (how & 0x80) ? s->base + s->len - (off & 0x3f) : s->base + (off & 0x3f) - ((how >> 5) & 3);
}

static uint32_t lz_key(struct lz_in *in, const struct emu_mr_slot *mrs, uint32_t nmr)
{
	uint32_t how = lz_take(in, 1);

	if (how < 16 || nmr == 0)
		return lz_take(in, 4);
	return mrs[how % nmr].key ^ ((how & 0x40) ? (lz_take(in, 1) & 0x3u) : 0u);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct emu_thread t;
	static struct marrow_emu_device dev;
	static struct marrow_emu_pd pd[2];
	static struct marrow_emu_qp qp, peer;
	static struct emu_mr_slot mrs[LZ_MRS];
	uint8_t w[EMU_MAX_WQE_BBS * MX_WQEBB_SIZE] __attribute__((aligned(64)));
	struct lz_in in = {data, size};
	uint32_t nmr = lz_take(&in, 1) % (LZ_MRS + 1);

	memset(&t, 0, sizeof(t));
	memset(&dev, 0, sizeof(dev));
	memset(&qp, 0, sizeof(qp));
	memset(&peer, 0, sizeof(peer));
	memset(mrs, 0, sizeof(mrs));
	t.dev = &dev;
	dev.mrs = mrs;
	dev.mr_cap = LZ_MRS;
	/* The MR table: slot i holds key (i << 8) | tag, as mr_reg makes them. */
	for (uint32_t i = 0; i < nmr; i++) {
		uint32_t off = lz_take(&in, 2) % LZ_ARENA, len = lz_take(&in, 2) % (LZ_ARENA + 1);
		uint32_t f = lz_take(&in, 1);

		if (off + len > LZ_ARENA)
			len = LZ_ARENA - off;
		mrs[i].base = (uint64_t)(uintptr_t)arena + off;
		mrs[i].len = len;
		mrs[i].pd = &pd[f & 1];
		mrs[i].access = (f & 2) ? MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE : MARROW_ACCESS_LOCAL_WRITE;
		mrs[i].key = (i << 8) | (1u + ((f >> 3) & 0x7f));
		if (f & 4)
			memset(&mrs[i], 0, sizeof(mrs[i]));   /* a free slot, as dereg leaves it: key 0, no PD */
	}
	uint32_t f = lz_take(&in, 1);
	static const uint32_t states[4] = {MARROW_QPS_RTS, MARROW_QPS_RTR, MARROW_QPS_ERR, MARROW_QPS_INIT};

	qp.qpn = LZ_QPN;
	qp.pd = &pd[0];
	qp.peer = &peer;
	qp.state = MARROW_QPS_RTS;
	peer.pd = &pd[(f >> 2) & 1];
	peer.state = states[f & 3];
	peer.access = (f & 8) ? 0u : MARROW_ACCESS_REMOTE_WRITE;
	const uint16_t ci = (uint16_t)lz_take(&in, 2);

	/* The WQE: a pointer WRITE (ds 3 or 4), an inline WRITE, or raw bytes;
	 * then a few bytes flipped. */
	memset(w, 0, sizeof(w));
	uint32_t kind = lz_take(&in, 1);
	uint32_t ds = 3u + (kind >> 7);

	if ((kind & 3) == 0) {
		uint32_t sig = lz_take(&in, 1) & MX_CTRL_CQ_UPDATE;

		mx_set_ctrl_seg(w, ci, MX_OPCODE_RDMA_WRITE, 0, LZ_QPN, (uint8_t)sig, (uint8_t)ds, 0, 0);
		mx_set_raddr_seg(w + 16, lz_addr(&in, mrs, nmr), lz_key(&in, mrs, nmr));
		for (uint32_t k = 0; k < ds - 2; k++) {
			uint32_t len = lz_take(&in, 2);

			len = (len & 0x8000) ? len & 0x7fff : len % 300;
			mx_set_data_seg(w + 32 + 16 * k, len, lz_key(&in, mrs, nmr), lz_addr(&in, mrs, nmr));
		}
	} else if ((kind & 3) == 1) {
		uint32_t len = 1 + lz_take(&in, 1) % 28;

		ds = len <= 12 ? 3u : 4u;
		mx_set_ctrl_seg(w, ci, MX_OPCODE_RDMA_WRITE, 0, LZ_QPN, MX_CTRL_CQ_UPDATE, (uint8_t)ds, 0, 0);
		mx_set_raddr_seg(w + 16, lz_addr(&in, mrs, nmr), lz_key(&in, mrs, nmr));
		mx_set_inline_hdr(w + 32, len);
		for (uint32_t k = 0; k < len; k++)
			w[36 + k] = (uint8_t)lz_take(&in, 1);
	} else {
		for (uint32_t k = 0; k < MX_WQEBB_SIZE; k++)
			w[k] = (uint8_t)lz_take(&in, 1);
	}
	for (uint32_t flips = lz_take(&in, 1) & 3; flips; flips--) {
		uint32_t at = lz_take(&in, 1) % MX_WQEBB_SIZE;

		w[at] ^= (uint8_t)lz_take(&in, 1);
	}
	for (uint32_t i = 0; i < LZ_ARENA; i++)
		arena[i] = (uint8_t)(i * 13 + 7);
	memcpy(before, arena, LZ_ARENA);

	/* The lane path's verdicts, with empty caches and again with the
	 * caches the first check left. */
	uint64_t ctrl_lo, ctrl_ds3 = ((uint64_t)mx_htobe32((LZ_QPN << 8) | 3u) << 32) |
				     ((uint64_t)MX_OPCODE_RDMA_WRITE << 24);
	uint32_t q[16];

	memcpy(&ctrl_lo, w, 8);
	memcpy(q, w, sizeof(q));
	struct fast_ptr_wqe p, p2;
	uint32_t lk = 0, rk = 0;
	uint64_t lb = 0, ll = 0, rb = 0, rl = 0;
	const int pst_ok = peer.state == MARROW_QPS_RTS || peer.state == MARROW_QPS_RTR;
	const int lane_ok = peer.access & MARROW_ACCESS_REMOTE_WRITE;   /* emu_lane_setup's condition */
	uint32_t np = 0, np2 = 0, ni = 0;

	if (pst_ok && lane_ok) {
		np = fast_ptr_check(&dev, qp.pd, peer.pd, ctrl_ds3, ci, ctrl_lo, q[4], q[5], q[6], q[8], q[9], q[10],
				    q[11], q[12], q[13], q[14], q[15], &lk, &lb, &ll, &rk, &rb, &rl, &p);
		np2 = fast_ptr_check(&dev, qp.pd, peer.pd, ctrl_ds3, ci, ctrl_lo, q[4], q[5], q[6], q[8], q[9], q[10],
				     q[11], q[12], q[13], q[14], q[15], &lk, &lb, &ll, &rk, &rb, &rl, &p2);
		if (np != np2 || (np && (p.raddr != p2.raddr || p.src0 != p2.src0 || p.n0 != p2.n0 ||
					 (p.n1 && (p.src1 != p2.src1 || p.n1 != p2.n1)))))
			LZ_FAIL("pointer check: %u with empty caches, %u with the caches it left", np, np2);
		uint32_t n = fast_shape(ctrl_lo, q[8], ctrl_ds3, ci);
		uint32_t k2 = 0;
		uint64_t b2 = 0, l2 = 0;

		if (n && fast_remote_ok(&dev, peer.pd, q[6], ((uint64_t)mx_be32toh(q[4]) << 32) | mx_be32toh(q[5]), n,
					&k2, &b2, &l2))
			ni = n;
	}
	if (np && ni)
		LZ_FAIL("a WQE both an inline and a pointer fast WQE");

	/* What exec_write does with it. */
	uint32_t wds = w[7] & 0x3f;
	uint32_t res = exec_write(&t, &qp, w, wds <= EMU_MAX_WQE_BBS * 4 ? wds : EMU_MAX_WQE_BBS * 4, 0);

	if (np || ni) {
		if (res != RES_OK)
			LZ_FAIL("the lane path would run a WQE exec_write fails (0x%x; %s, %u bytes)", res,
				np ? "pointer" : "inline", np ? np : ni);
		memcpy(want, before, LZ_ARENA);
		uint8_t *const lo = arena, *const hi = arena + LZ_ARENA;
		const uint64_t raddr = np ? p.raddr : ((uint64_t)mx_be32toh(q[4]) << 32) | mx_be32toh(q[5]);
		const uint32_t total = np ? np : ni;
		uint8_t *d = (uint8_t *)(uintptr_t)raddr;

		if (d < lo || d + total > hi)
			LZ_FAIL("the lane path would write outside every MR (%u bytes at %p)", total, (void *)d);
		if (np) {
			/* The pieces from the bytes before the WRITE, in any order. */
			const uint8_t *s0 = (const uint8_t *)(uintptr_t)p.src0, *s1 = (const uint8_t *)(uintptr_t)p.src1;

			if (p.n0)   /* a zero-length piece names no address (no lkey check) */
				memcpy(want + (d - lo), before + (s0 - lo), p.n0);
			if (p.n1)
				memcpy(want + (d - lo) + p.n0, before + (s1 - lo), p.n1);
		} else {
			memcpy(want + (d - lo), w + 36, ni);
		}
		if (memcmp(arena, want, LZ_ARENA) != 0)
			LZ_FAIL("exec_write left other bytes than the lane path's copies would");
	} else if (res == RES_OK && pst_ok && lane_ok) {
		/* exec_write ran it: was it the common pointer case the lane path
		 * must not hand over? */
		uint32_t nseg = fast_ptr_shape(ctrl_lo, q[8], q[12], ctrl_ds3, ci);

		if (nseg) {
			uint32_t n0 = mx_be32toh(q[8]), n1 = nseg == 2 ? mx_be32toh(q[12]) : 0u;
			uint64_t s0 = ((uint64_t)mx_be32toh(q[10]) << 32) | mx_be32toh(q[11]);
			uint64_t s1 = ((uint64_t)mx_be32toh(q[14]) << 32) | mx_be32toh(q[15]);
			uint64_t ra = ((uint64_t)mx_be32toh(q[4]) << 32) | mx_be32toh(q[5]);

			if (n0 + n1 != 0 && fast_disjoint(s0, n0, ra, n0 + n1) && fast_disjoint(s1, n1, ra, n0 + n1))
				LZ_FAIL("exec_write ran a pointer WRITE (%u + %u bytes) the lane path hands to the core", n0,
					n1);
		}
	}
	return 0;
}
