/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Writes the seed corpus of the software-NIC fuzzer: small programs in the
 * format of softnic_fuzz_format.h whose WQEs are built with mlx5_wqe.h, each
 * aimed at one path (a write kind, an error syndrome, a ring wrap, a state
 * transition). Usage: gen_corpus OUT_DIR
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "marrow/mlx5_wqe.h"
#include "softnic_fuzz_format.h"

enum { SRC = 4096 }; /* MR 1 (the gather source) starts here in the arena */

struct prog {
	uint8_t b[4096];   /* the fuzzer's -max_len */
	size_t n;
};

static void u8(struct prog *p, unsigned v)
{
	if (p->n == sizeof(p->b)) {
		fprintf(stderr, "gen_corpus: program longer than %zu bytes\n", sizeof(p->b));
		exit(1);
	}
	p->b[p->n++] = (uint8_t)v;
}
static void u16(struct prog *p, unsigned v) { u8(p, v & 0xff); u8(p, v >> 8); }

/* log_sq 1..10, H1, H2 as in the format; MRs: {offset, length, access}. */
static void header(struct prog *p, unsigned log_sq, unsigned h1, unsigned h2, unsigned h3,
		   unsigned nmr, const unsigned (*mr)[3])
{
	p->n = 0;
	u8(p, log_sq - 1);
	u8(p, h1);
	u8(p, h2);
	u8(p, h3);
	u8(p, nmr);
	for (unsigned i = 0; i < nmr; i++) {
		u16(p, mr[i][0]);
		u16(p, mr[i][1] - 1);
		u8(p, mr[i][2]);
	}
}

static const unsigned STD_MR[2][3] = { { 0, 4096, 3 }, { SRC, 4096, 1 } };

/* Two MRs (a remotely writable target, a local source), QP access REMOTE_WRITE. */
static void std_header(struct prog *p, unsigned log_sq, unsigned h2)
{
	header(p, log_sq, 4, h2, 0x22, 2, STD_MR);
}

static void modify(struct prog *p, unsigned qp, unsigned v) { u8(p, FZ_OP_MODIFY | qp << 4); u8(p, v); }

static void up(struct prog *p, unsigned qp)
{
	modify(p, qp, 1);
	modify(p, qp, 2);
	modify(p, qp, 3);
}

static void ring(struct prog *p, unsigned qp, unsigned mode) { u8(p, FZ_OP_RING | qp << 4); u8(p, mode); }
static void poll(struct prog *p, unsigned qp, unsigned n) { u8(p, FZ_OP_POLL | qp << 4); u8(p, n - 1); }
static void poll_all(struct prog *p) { u8(p, FZ_OP_POLL | 0x80); u8(p, 15); }
/* A full sweep: doorbell recovery of every QP, then polls of both. */
static void sweep(struct prog *p) { u8(p, FZ_OP_POLL | 0x80 | 0x40); u8(p, 15); }
static void consume(struct prog *p) { u8(p, FZ_OP_CONSUME); u8(p, 255); }
static void recv(struct prog *p, unsigned qp, unsigned n) { u8(p, FZ_OP_RECV | qp << 4); u8(p, n - 1); }
static void dereg(struct prog *p, unsigned mr) { u8(p, FZ_OP_DEREG); u8(p, mr); }

/* A WQE under construction: ds grows as segments are added. */
struct wqe {
	uint8_t b[16 * 64];
	unsigned ds;
	uint8_t opcode, ce;
};

static void wqe_begin(struct wqe *w, uint8_t opcode, int signaled, uint64_t raddr, uint32_t rkey)
{
	memset(w, 0, sizeof(*w));
	w->opcode = opcode;
	w->ce = signaled ? MX_CTRL_CQ_UPDATE : 0;
	w->ds = 1;
	if (opcode != MX_OPCODE_NOP) {
		mx_set_raddr_seg(w->b + 16, raddr, rkey);
		w->ds = 2;
	}
}

static void wqe_inline(struct wqe *w, unsigned len)
{
	uint8_t *seg = w->b + w->ds * 16;
	mx_set_inline_hdr(seg, len);
	for (unsigned i = 0; i < len; i++)
		seg[4 + i] = (uint8_t)(0xC0 + i);
	w->ds += (MX_INLINE_HDR_SIZE + len + 15) / 16;
}

static void wqe_sge(struct wqe *w, unsigned len, uint32_t lkey, uint64_t addr)
{
	mx_set_data_seg(w->b + w->ds * 16, len, lkey, addr);
	w->ds++;
}

/* POST with the well-formed fix-ups: index and QPN are filled in by the
 * harness; ds is stored so that FIX_DS maps it back onto itself. */
static void post_n(struct prog *p, unsigned qp, struct wqe *w, unsigned flags, unsigned repeat,
		   uint16_t idx)
{
	unsigned nbb = mx_wqebbs(w->ds);

	mx_set_ctrl_seg(w->b, idx, w->opcode, 0, 0, w->ce, (uint8_t)w->ds, 0, mx_htobe32(0x1234));
	if (repeat > 1) {
		u8(p, FZ_OP_POST_REPEAT | qp << 4);
		u8(p, repeat - 1);
	} else {
		u8(p, FZ_OP_POST | qp << 4);
	}
	u8(p, flags);
	u8(p, nbb - 1);
	for (unsigned i = 0; i < nbb * 64u; i++)
		u8(p, w->b[i]);
}

static void post_flags(struct prog *p, unsigned qp, struct wqe *w, unsigned flags)
{
	post_n(p, qp, w, flags, 1, 0);
}

static void post(struct prog *p, unsigned qp, struct wqe *w)
{
	post_flags(p, qp, w, FZ_POST_WELLFORMED);
}

static void post_nop(struct prog *p, unsigned qp, int signaled)
{
	struct wqe w;
	wqe_begin(&w, MX_OPCODE_NOP, signaled, 0, 0);
	post(p, qp, &w);
}

static void post_write_inline(struct prog *p, unsigned qp, unsigned len, unsigned dst, int signaled)
{
	struct wqe w;
	wqe_begin(&w, MX_OPCODE_RDMA_WRITE, signaled, FZ_ADDR(dst), FZ_KEY(0));
	wqe_inline(&w, len);
	post(p, qp, &w);
}

static void post_write_sge(struct prog *p, unsigned qp, unsigned nsge, unsigned len, int signaled)
{
	struct wqe w;
	wqe_begin(&w, MX_OPCODE_RDMA_WRITE, signaled, FZ_ADDR(128), FZ_KEY(0));
	for (unsigned i = 0; i < nsge; i++)
		wqe_sge(&w, len, FZ_KEY(1), FZ_ADDR(SRC + 64 * i));
	post(p, qp, &w);
}

static void go(struct prog *p)
{
	ring(p, 0, 0);
	poll_all(p);
	consume(p);
}

static int emit(const char *dir, const char *name, const struct prog *p)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (f == NULL || fwrite(p->b, 1, p->n, f) != p->n) {
		perror(path);
		return 1;
	}
	return fclose(f) != 0;
}

int main(int argc, char **argv)
{
	struct prog p;
	struct wqe w;
	int bad = 0;
	char name[64];

	if (argc != 2) {
		fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
		return 2;
	}
	const char *d = argv[1];

	std_header(&p, 4, 0x70); up(&p, 0); post_nop(&p, 0, 1); go(&p);
	bad |= emit(d, "nop-signaled", &p);

	/* inline writes of several sizes (max_inline 220) */
	static const unsigned sizes[] = { 1, 8, 12, 28, 60, 124, 200, 220 };
	for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		std_header(&p, 5, 0x70); up(&p, 0);
		post_write_inline(&p, 0, sizes[i], 4096 - sizes[i], 1); go(&p);
		snprintf(name, sizeof(name), "write-inline-%u", sizes[i]);
		bad |= emit(d, name, &p);
	}

	std_header(&p, 4, 0x70); up(&p, 0); post_write_sge(&p, 0, 1, 64, 1); go(&p);
	bad |= emit(d, "write-sge-1", &p);
	std_header(&p, 4, 0x70); up(&p, 0); post_write_sge(&p, 0, 3, 40, 1); go(&p);
	bad |= emit(d, "write-sge-3", &p);
	std_header(&p, 4, 0x70); up(&p, 0); post_write_sge(&p, 0, 2, 0, 1); go(&p);
	bad |= emit(d, "write-sge-zero-length", &p);

	/* inline and pointer segments in one WQE */
	std_header(&p, 4, 0x70); up(&p, 0);
	wqe_begin(&w, MX_OPCODE_RDMA_WRITE, 1, FZ_ADDR(0), FZ_KEY(0));
	wqe_inline(&w, 20); wqe_sge(&w, 100, FZ_KEY(1), FZ_ADDR(SRC)); wqe_inline(&w, 3);
	post(&p, 0, &w); go(&p);
	bad |= emit(d, "write-mixed-segments", &p);

	/* unsignaled batch, last one signaled */
	std_header(&p, 4, 0x70); up(&p, 0);
	for (int i = 0; i < 7; i++)
		post_write_inline(&p, 0, 8, 8 * i, i == 6);
	go(&p);
	bad |= emit(d, "batch-unsignaled", &p);

	/* WRITE_IMM to itself with a posted receive; and one that waits (RNR) first */
	std_header(&p, 4, 0x74); up(&p, 0); recv(&p, 0, 1);
	wqe_begin(&w, MX_OPCODE_RDMA_WRITE_IMM, 1, FZ_ADDR(64), FZ_KEY(0)); wqe_inline(&w, 16);
	post(&p, 0, &w); go(&p);
	bad |= emit(d, "write-imm", &p);
	/* timer profile 2: an RNR retry on every poll, 6 before the error */
	header(&p, 4, 4 | 2u << 6, 0x74, 0x22, 2, STD_MR); up(&p, 0);
	post(&p, 0, &w); ring(&p, 0, 0); poll(&p, 0, 3); recv(&p, 0, 2); poll(&p, 0, 4); consume(&p);
	bad |= emit(d, "write-imm-rnr-wait", &p);
	std_header(&p, 4, 0x70); up(&p, 0); post(&p, 0, &w); go(&p);
	bad |= emit(d, "write-imm-no-rq", &p);

	/* error syndromes */
	std_header(&p, 4, 0x70); up(&p, 0);
	wqe_begin(&w, MX_OPCODE_RDMA_WRITE, 1, FZ_ADDR(0), FZ_KEY(0)); wqe_sge(&w, 8, 0x12345678, FZ_ADDR(SRC));
	post(&p, 0, &w); post_nop(&p, 0, 1); go(&p);
	bad |= emit(d, "error-bad-lkey", &p);
	std_header(&p, 4, 0x70); up(&p, 0);
	wqe_begin(&w, MX_OPCODE_RDMA_WRITE, 1, FZ_ADDR(0), 0x7777); wqe_inline(&w, 8);
	post(&p, 0, &w); post_nop(&p, 0, 0); go(&p);
	bad |= emit(d, "error-bad-rkey", &p);
	std_header(&p, 4, 0x70); up(&p, 0); post_write_inline(&p, 0, 8, 4093, 1); go(&p);
	bad |= emit(d, "error-rkey-range", &p);
	std_header(&p, 4, 0x70); up(&p, 0);
	wqe_begin(&w, MX_OPCODE_RDMA_WRITE, 1, FZ_ADDR(0), FZ_KEY(0)); wqe_sge(&w, 64, FZ_KEY(1), FZ_ADDR(SRC + 4090));
	post(&p, 0, &w); go(&p);
	bad |= emit(d, "error-lkey-range", &p);
	header(&p, 4, 4, 0x70, 0x22, 2, (const unsigned[][3]){ { 0, 4096, 1 }, { SRC, 4096, 1 } });
	up(&p, 0); post_write_inline(&p, 0, 8, 0, 1); go(&p);
	bad |= emit(d, "error-mr-not-writable", &p);
	header(&p, 4, 4, 0x70, 0x00, 2, STD_MR); up(&p, 0); post_write_inline(&p, 0, 8, 0, 1); go(&p);
	bad |= emit(d, "error-qp-no-remote-write", &p);
	std_header(&p, 4, 0x10); up(&p, 0); post_write_inline(&p, 0, 8, 0, 1); go(&p);
	bad |= emit(d, "error-inline-too-long", &p);
	std_header(&p, 4, 0x70); up(&p, 0);
	wqe_begin(&w, MX_OPCODE_SEND, 1, 0, 0); wqe_inline(&w, 8); post(&p, 0, &w);
	wqe_begin(&w, MX_OPCODE_RDMA_READ, 1, FZ_ADDR(0), FZ_KEY(0)); wqe_sge(&w, 8, FZ_KEY(1), FZ_ADDR(SRC)); post(&p, 0, &w);
	go(&p);
	bad |= emit(d, "error-unsupported-opcode-then-flush", &p);

	/* malformed: index not fixed up; qpn not fixed up */
	std_header(&p, 4, 0x70); up(&p, 0);
	wqe_begin(&w, MX_OPCODE_NOP, 1, 0, 0); post_n(&p, 0, &w, FZ_POST_WELLFORMED & ~FZ_POST_FIX_IDX, 1, 5);
	post_nop(&p, 0, 1); go(&p);
	bad |= emit(d, "malformed-wqe-index", &p);
	std_header(&p, 4, 0x70); up(&p, 0);
	post_flags(&p, 0, &w, FZ_POST_WELLFORMED & ~FZ_POST_FIX_QPN); go(&p);
	bad |= emit(d, "malformed-qpn", &p);

	/* ring wrap: 4-WQEBB SQ, many WQEs, a 2-WQEBB WQE across the end */
	std_header(&p, 2, 0x70); up(&p, 0);
	for (int i = 0; i < 3; i++) { post_write_inline(&p, 0, 8, 16 * i, 1); go(&p); }
	post_write_inline(&p, 0, 60, 256, 1); go(&p);
	post_write_inline(&p, 0, 60, 512, 1); go(&p);
	bad |= emit(d, "sq-wrap", &p);

	/* SQ larger than the engine's 256-WQEBB shadow */
	header(&p, 9, 7, 0x70, 0x22, 2, STD_MR); up(&p, 0);
	wqe_begin(&w, MX_OPCODE_NOP, 0, 0, 0);
	for (int r = 0; r < 6; r++) {
		post_n(&p, 0, &w, FZ_POST_WELLFORMED, 64, 0);
		post_nop(&p, 0, 1);
		go(&p);
	}
	/* 16-WQEBB WQEs: 32 of them reach beyond the shadow in one doorbell */
	wqe_begin(&w, MX_OPCODE_NOP, 0, 0, 0);
	w.ds = 63;   /* ds is 6 bits: 16 WQEBBs hold at most 63 */
	post_n(&p, 0, &w, FZ_POST_WELLFORMED, 31, 0);
	post_nop(&p, 0, 1);
	go(&p);
	bad |= emit(d, "sq-beyond-shadow", &p);

	/* two QPs: A writes into B's memory; B not ready (peer down); B to ERR by remote error */
	std_header(&p, 4, 0x71); up(&p, 0); up(&p, 1); post_write_inline(&p, 0, 32, 0, 1);
	post_write_inline(&p, 1, 32, 64, 1); ring(&p, 1, 0); go(&p);
	bad |= emit(d, "two-qps", &p);
	std_header(&p, 4, 0x71); up(&p, 0); modify(&p, 1, 1); post_write_inline(&p, 0, 8, 0, 1); go(&p);
	bad |= emit(d, "two-qps-peer-down", &p);
	header(&p, 4, 4, 0x71, 0x02, 2, STD_MR); up(&p, 0); up(&p, 1); post_write_inline(&p, 0, 8, 0, 1);
	go(&p); post_nop(&p, 1, 1); ring(&p, 1, 0); poll_all(&p); consume(&p);
	bad |= emit(d, "two-qps-remote-error-moves-peer", &p);

	/* state machine: illegal transitions, unknown peer, reset and reuse */
	std_header(&p, 4, 0x70);
	modify(&p, 0, 3); modify(&p, 0, 2); modify(&p, 0, 1); modify(&p, 0, 2 | 8); modify(&p, 0, 4);
	modify(&p, 0, 2); modify(&p, 0, 3); post_nop(&p, 0, 1); go(&p);
	modify(&p, 0, 0); up(&p, 0); post_nop(&p, 0, 1); post_nop(&p, 0, 1); go(&p);
	bad |= emit(d, "qp-state-machine", &p);
	std_header(&p, 4, 0x70); up(&p, 0); post_nop(&p, 0, 1); modify(&p, 0, 6); go(&p);
	post_nop(&p, 0, 0); go(&p);
	bad |= emit(d, "modify-err-flushes", &p);
	std_header(&p, 4, 0x74); up(&p, 0); recv(&p, 0, 2); modify(&p, 0, 6); poll_all(&p); consume(&p);
	bad |= emit(d, "rq-flush", &p);

	/* doorbell quirks: dbrec without a doorbell, doorbell without a dbrec, second half, raw values */
	std_header(&p, 4, 0x70); up(&p, 0); post_nop(&p, 0, 1);
	ring(&p, 0, FZ_RING_NO_UAR); poll_all(&p); ring(&p, 0, FZ_RING_NO_DBREC | FZ_RING_HALF1); poll_all(&p); consume(&p);
	bad |= emit(d, "doorbell-order", &p);
	std_header(&p, 4, 0x70); up(&p, 0); post_nop(&p, 0, 1);
	u8(&p, FZ_OP_RING); u8(&p, FZ_RING_RAW_DBREC); u16(&p, 40); poll_all(&p); consume(&p);
	bad |= emit(d, "doorbell-sq-overflow", &p);

	/* CQs: overrun, collapsed, overrun-ignore */
	header(&p, 4, 0, 0x70, 0x22, 2, STD_MR); up(&p, 0);
	for (int i = 0; i < 3; i++)
		post_nop(&p, 0, 1);
	ring(&p, 0, 0); poll_all(&p);
	bad |= emit(d, "cq-overrun", &p);
	header(&p, 4, 8 | 2, 0x70, 0x22, 2, STD_MR); up(&p, 0);
	for (int i = 0; i < 5; i++)
		post_nop(&p, 0, 1);
	go(&p);
	bad |= emit(d, "cq-collapsed", &p);
	header(&p, 4, 16 | 1, 0x70, 0x22, 2, STD_MR); up(&p, 0);
	for (int i = 0; i < 5; i++)
		post_nop(&p, 0, 1);
	go(&p);
	bad |= emit(d, "cq-overrun-ignore", &p);

	/* v2 doorbells: two QPs on one UAR page (B's doorbell overwrites A's
	 * before the engine looks; recovery serves A from its DBR) */
	std_header(&p, 4, 0x73); up(&p, 0); up(&p, 1); post_nop(&p, 0, 1); post_nop(&p, 1, 1);
	ring(&p, 0, 0); ring(&p, 1, 0); poll_all(&p); sweep(&p); sweep(&p); consume(&p);
	bad |= emit(d, "doorbell-shared-page-recovery", &p);
	/* a doorbell naming the other QP on a shared page moves that QP (up to what it posted) */
	std_header(&p, 4, 0x73); up(&p, 0); up(&p, 1); post_nop(&p, 1, 1); post_nop(&p, 1, 1);
	post_nop(&p, 0, 1); ring(&p, 0, FZ_RING_OTHER_QPN); poll(&p, 0, 2); poll(&p, 1, 2); consume(&p);
	go(&p);
	bad |= emit(d, "doorbell-shared-page-other-qpn", &p);
	/* a doorbell with a QPN nobody on the page has is dropped */
	std_header(&p, 4, 0x70); up(&p, 0); post_nop(&p, 0, 1);
	ring(&p, 0, FZ_RING_OTHER_QPN); poll_all(&p); go(&p);
	bad |= emit(d, "doorbell-unknown-qpn", &p);
	/* the same value twice: two events, the second changes nothing */
	std_header(&p, 4, 0x70); up(&p, 0); post_nop(&p, 0, 1); post_nop(&p, 0, 1);
	ring(&p, 0, FZ_RING_TWICE | FZ_RING_HALF1); poll_all(&p); consume(&p);
	bad |= emit(d, "doorbell-twice", &p);
	/* rdma-core's doorbell: the last WQE's ctrl word (index and ds) */
	std_header(&p, 4, 0x70); up(&p, 0); post_write_inline(&p, 0, 60, 0, 1); post_write_inline(&p, 0, 8, 64, 1);
	ring(&p, 0, FZ_RING_LAST_CTRL | FZ_RING_NO_DBREC); poll_all(&p); consume(&p);
	bad |= emit(d, "doorbell-rdma-core", &p);
	/* a doorbell in INIT is remembered until RTS; one in RESET is dropped */
	std_header(&p, 4, 0x70); modify(&p, 0, 1); post_nop(&p, 0, 1); ring(&p, 0, 0); poll_all(&p);
	modify(&p, 0, 2); poll_all(&p); modify(&p, 0, 3); poll_all(&p); consume(&p);
	bad |= emit(d, "doorbell-before-rts", &p);
	std_header(&p, 4, 0x70); post_nop(&p, 0, 1); ring(&p, 0, 0); poll_all(&p); up(&p, 0); poll_all(&p);
	consume(&p);
	bad |= emit(d, "doorbell-in-reset-dropped", &p);

	/* QP timers (profile in H1 >> 6): retries on every poll, then the error */
	header(&p, 4, 4 | 1u << 6, 0x71, 0x22, 2, STD_MR); up(&p, 0); modify(&p, 1, 1);
	post_write_inline(&p, 0, 8, 0, 1); go(&p); poll_all(&p); consume(&p);
	bad |= emit(d, "timer-peer-down-retry-exceeded", &p);
	header(&p, 4, 4 | 1u << 6, 0x74, 0x22, 2, STD_MR); up(&p, 0);
	wqe_begin(&w, MX_OPCODE_RDMA_WRITE_IMM, 1, FZ_ADDR(64), FZ_KEY(0)); wqe_inline(&w, 16);
	post(&p, 0, &w); go(&p); poll_all(&p); consume(&p);
	bad |= emit(d, "timer-rnr-retry-exceeded", &p);

	/* a deregistered MR's key is stale */
	std_header(&p, 4, 0x70); up(&p, 0); dereg(&p, 1); post_write_sge(&p, 0, 1, 8, 1); go(&p);
	bad |= emit(d, "mr-stale-key", &p);

	return bad;
}
