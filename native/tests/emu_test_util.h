/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * A tiny test harness for the softnic tests plus a host-side producer that
 * builds WQEs with mlx5_wqe.h, rings doorbells the NVSHMEM way (release
 * fence, dbrec send counter, 8-byte UAR store) and polls CQEs with the
 * owner-bit rule. Header-only; every test includes it once.
 */
#ifndef EMU_TEST_UTIL_H
#define EMU_TEST_UTIL_H

#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/marrow_common.h"   /* marrow_last_error(): the static archives' one message */
#include "marrow/marrow_softnic.h"
#include "marrow/mlx5_wqe.h"

/* ---- harness ------------------------------------------------------------ */

static int t_failures;

#define CHECK(cond, ...)                                                        \
	do {                                                                    \
		if (!(cond)) {                                                  \
			fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, \
				#cond);                                         \
			fprintf(stderr, __VA_ARGS__);                           \
			fputc('\n', stderr);                                    \
			t_failures++;                                           \
		}                                                               \
	} while (0)

#define REQUIRE(cond, ...)                                                      \
	do {                                                                    \
		if (!(cond)) {                                                  \
			fprintf(stderr, "FATAL %s:%d: %s: ", __FILE__, __LINE__,\
				#cond);                                         \
			fprintf(stderr, __VA_ARGS__);                           \
			fputc('\n', stderr);                                    \
			exit(1);                                                \
		}                                                               \
	} while (0)

/* A call that must succeed. */
#define OK(expr)                                                                \
	do {                                                                    \
		int rc_ = (expr);                                               \
		REQUIRE(rc_ == 0, "%s -> %d (%s): %s", #expr, rc_,              \
			marrow_status_name(rc_), marrow_last_error());          \
	} while (0)

/* A call that must fail with status st and leave a message. */
#define FAILS(st, expr)                                                         \
	do {                                                                    \
		int rc_ = (expr);                                               \
		CHECK(rc_ == (st), "%s -> %d (%s), expected %s", #expr, rc_,    \
		      marrow_status_name(rc_), marrow_status_name(st));         \
		CHECK(marrow_last_error()[0] != '\0', "%s: empty last error",   \
		      #expr);                                                   \
		if (rc_ == (st))                                                \
			printf("  ok %-8s %s\n", marrow_status_name(rc_),     \
			       marrow_last_error());                            \
	} while (0)

static inline int t_finish(const char *name)
{
	if (t_failures) {
		fprintf(stderr, "%s: %d check(s) failed\n", name, t_failures);
		return 1;
	}
	printf("%s: all checks passed\n", name);
	return 0;
}

static inline uint64_t t_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline void t_sleep_us(unsigned us)
{
	struct timespec ts = { us / 1000000, (long)(us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

/* Page-aligned buffer filled with a byte. */
static inline uint8_t *t_alloc(size_t n, int fill)
{
	void *p = NULL;

	REQUIRE(posix_memalign(&p, 4096, n ? n : 1) == 0, "posix_memalign(%zu)", n);
	memset(p, fill, n);
	return p;
}

/* xorshift64*: seeded, reproducible test data. */
static inline uint64_t t_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

/* ---- objects ------------------------------------------------------------- */

static inline struct marrow_emu_device *t_open(uint32_t mode, uint32_t threads)
{
	struct marrow_emu_device_attr a = {
		.size = sizeof(a), .poll_mode = mode, .engine_threads = threads,
		.idle_sleep_max_ns = 20000, .engine_cpu = -1, .quiet = 1,
	};
	struct marrow_emu_device *dev = NULL;

	OK(marrow_emu_device_open(&a, &dev));
	return dev;
}

struct t_cq {
	struct marrow_emu_cq *cq;
	struct marrow_cq_view v;
	uint32_t ci;
};

static inline void t_cq_create(struct marrow_emu_device *dev, uint32_t log_n, uint32_t flags,
			       struct t_cq *c)
{
	struct marrow_emu_cq_attr a = { .size = sizeof(a), .log_cqe_cnt = log_n, .flags = flags };

	memset(c, 0, sizeof(*c));
	OK(marrow_emu_cq_create(dev, &a, &c->cq, &c->v));
}

struct t_qp {
	struct marrow_emu_qp *qp;
	struct marrow_qp_view v;
	uint16_t pi;       /* producer WQEBB counter */
	uint32_t rq_pi;    /* receive counter */
};

static inline void t_qp_create_ex(struct marrow_emu_pd *pd, struct t_cq *scq, struct t_cq *rcq,
				  uint32_t log_sq, uint32_t log_rq, uint32_t max_inline,
				  uint32_t access, struct t_qp *q)
{
	struct marrow_emu_qp_attr a = {
		.size = sizeof(a), .send_cq = scq->cq, .recv_cq = rcq ? rcq->cq : NULL,
		.log_sq_wqebb_cnt = log_sq, .log_rq_wqe_cnt = log_rq, .max_rq_sge = 1,
		.max_inline_data = max_inline, .access = access,
	};

	memset(q, 0, sizeof(*q));
	OK(marrow_emu_qp_create(pd, &a, &q->qp, &q->v));
}

static inline void t_qp_create(struct marrow_emu_pd *pd, struct t_cq *cq, uint32_t log_sq,
			       uint32_t max_inline, struct t_qp *q)
{
	t_qp_create_ex(pd, cq, NULL, log_sq, 0, max_inline,
		       MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE, q);
}

static inline void t_connect(struct t_qp *q, uint32_t peer_qpn)
{
	OK(marrow_emu_qp_modify(q->qp, MARROW_QPS_INIT, 0));
	OK(marrow_emu_qp_modify(q->qp, MARROW_QPS_RTR, peer_qpn));
	OK(marrow_emu_qp_modify(q->qp, MARROW_QPS_RTS, 0));
}

/* RESET and reconnect; the producer restarts at counter 0. */
static inline void t_reconnect(struct t_qp *q, uint32_t peer_qpn)
{
	OK(marrow_emu_qp_modify(q->qp, MARROW_QPS_RESET, 0));
	q->pi = 0;
	q->rq_pi = 0;
	t_connect(q, peer_qpn);
}

static inline int t_qp_state(struct t_qp *q)
{
	int s = -1;

	OK(marrow_emu_qp_state(q->qp, &s));
	return s;
}

/* ---- producer ------------------------------------------------------------ */

static inline uint32_t t_ring_bytes(const struct t_qp *q)
{
	return q->v.sq_wqe_cnt * MX_WQEBB_SIZE;
}

/* Address of byte `off` of the WQE that starts at counter c (wraps). */
static inline uint8_t *t_wqe_byte(struct t_qp *q, uint16_t c, uint32_t off)
{
	uint32_t ring = t_ring_bytes(q);
	uint32_t pos = ((c & (q->v.sq_wqe_cnt - 1)) * MX_WQEBB_SIZE + off) % ring;

	return (uint8_t *)q->v.sq_buf + pos;
}

/* Copies bytes into the WQE at counter c from offset off, wrapping. */
static inline void t_wqe_copy(struct t_qp *q, uint16_t c, uint32_t off, const void *src,
			      uint32_t len)
{
	const uint8_t *s = src;

	for (uint32_t i = 0; i < len; i++)
		*t_wqe_byte(q, c, off + i) = s[i];
}

/* Free WQEBBs given the counter the consumer has retired through. */
static inline uint32_t t_sq_space(const struct t_qp *q, uint16_t retired)
{
	return q->v.sq_wqe_cnt - (uint16_t)(q->pi - retired);
}

static inline uint8_t t_fm(int signaled)
{
	return signaled ? MX_CTRL_CQ_UPDATE : 0;
}

/* Posts an RDMA WRITE (or WRITE_IMM) with inline data; returns its start
 * counter. */
static inline uint16_t t_post_inline_op(struct t_qp *q, uint8_t opcode, uint64_t raddr,
					uint32_t rkey, const void *data, uint32_t len,
					int signaled, uint32_t imm_be)
{
	uint16_t c = q->pi;
	uint32_t ds = mx_ds_inline_write(len);

	mx_set_ctrl_seg(t_wqe_byte(q, c, 0), c, opcode, 0, q->v.qpn, t_fm(signaled), (uint8_t)ds, 0,
			imm_be);
	mx_set_raddr_seg(t_wqe_byte(q, c, 16), raddr, rkey);
	mx_set_inline_hdr(t_wqe_byte(q, c, 32), len);
	t_wqe_copy(q, c, 36, data, len);
	q->pi = (uint16_t)(c + mx_wqebbs(ds));
	return c;
}

static inline uint16_t t_post_inline(struct t_qp *q, uint64_t raddr, uint32_t rkey,
				     const void *data, uint32_t len, int signaled)
{
	return t_post_inline_op(q, MX_OPCODE_RDMA_WRITE, raddr, rkey, data, len, signaled, 0);
}

struct t_sge {
	uint64_t addr;
	uint32_t len;
	uint32_t lkey;
};

static inline uint16_t t_post_sge_op(struct t_qp *q, uint8_t opcode, uint64_t raddr, uint32_t rkey,
				     const struct t_sge *sg, uint32_t n, int signaled,
				     uint32_t imm_be)
{
	uint16_t c = q->pi;
	uint32_t ds = mx_ds_pointer_write(n);

	mx_set_ctrl_seg(t_wqe_byte(q, c, 0), c, opcode, 0, q->v.qpn, t_fm(signaled), (uint8_t)ds, 0,
			imm_be);
	mx_set_raddr_seg(t_wqe_byte(q, c, 16), raddr, rkey);
	for (uint32_t i = 0; i < n; i++)
		mx_set_data_seg(t_wqe_byte(q, c, 32 + 16 * i), sg[i].len, sg[i].lkey, sg[i].addr);
	q->pi = (uint16_t)(c + mx_wqebbs(ds));
	return c;
}

static inline uint16_t t_post_sge(struct t_qp *q, uint64_t raddr, uint32_t rkey,
				  const struct t_sge *sg, uint32_t n, int signaled)
{
	return t_post_sge_op(q, MX_OPCODE_RDMA_WRITE, raddr, rkey, sg, n, signaled, 0);
}

static inline uint16_t t_post_nop(struct t_qp *q, uint32_t ds, int signaled)
{
	uint16_t c = q->pi;

	mx_set_ctrl_seg(t_wqe_byte(q, c, 0), c, MX_OPCODE_NOP, 0, q->v.qpn, t_fm(signaled),
			(uint8_t)ds, 0, 0);
	q->pi = (uint16_t)(c + mx_wqebbs(ds ? ds : 1));
	return c;
}

/* dbrec send counter (release: the WQEs before it), 8-byte doorbell
 * (NVSHMEM style). A release store rather than a release fence and a relaxed
 * store: the same order, and one ThreadSanitizer can check. */
static inline void t_ring(struct t_qp *q)
{
	__atomic_store_n(&q->v.dbrec[MX_DBR_SND], mx_dbrec_send_value(q->pi), __ATOMIC_RELEASE);
	__atomic_store_n((uint64_t *)q->v.uar, mx_doorbell_value(q->pi, 0, q->v.qpn, 0),
			 __ATOMIC_RELEASE);
}

/* Posts n receive WQEs (one empty data segment each) and publishes them. */
static inline void t_post_recv(struct t_qp *q, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		uint8_t *e = (uint8_t *)q->v.rq_buf +
			     (size_t)(q->rq_pi & (q->v.rq_wqe_cnt - 1)) * q->v.rq_stride;

		mx_set_data_seg(e, 0, MX_INVALID_LKEY, 0);
		q->rq_pi++;
	}
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&q->v.dbrec[MX_DBR_RCV], mx_htobe32(q->rq_pi & 0xffff), __ATOMIC_RELEASE);
}

/* ---- poller ------------------------------------------------------------- */

static inline uint32_t t_log2(uint32_t n)
{
	uint32_t l = 0;

	while ((1u << l) < n)
		l++;
	return l;
}

/* Polls the next CQE of a normal CQ into out[64]; 1 if one arrived within
 * timeout_ns, else 0. Updates the CQ dbrec consumer index. */
static inline int t_poll(struct t_cq *c, uint8_t *out, uint64_t timeout_ns)
{
	uint32_t log_n = t_log2(c->v.cqe_cnt);
	const uint8_t *cqe = (const uint8_t *)c->v.buf + (size_t)(c->ci & (c->v.cqe_cnt - 1)) * 64;
	uint64_t t0 = t_now_ns();

	while (!mx_cqe_is_valid(cqe, c->ci, log_n)) {
		if (t_now_ns() - t0 > timeout_ns)
			return 0;
	}
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	memcpy(out, cqe, 64);
	c->ci++;
	__atomic_store_n(&c->v.dbrec[0], mx_htobe32(c->ci & 0xffffff), __ATOMIC_RELEASE);
	return 1;
}

/* Polls one CQE and checks opcode, syndrome (error CQEs), qpn and counter. */
static inline int t_expect_cqe(struct t_cq *c, uint8_t opcode, uint8_t synd, uint32_t qpn,
			       uint16_t wqe_counter, uint8_t *out)
{
	uint8_t tmp[64];
	uint8_t *cqe = out ? out : tmp;
	int ok = 1;

	if (!t_poll(c, cqe, 2000000000ull)) {
		CHECK(0, "no CQE on CQ 0x%x (expected opcode %u wqe_counter %u)", c->v.cqn, opcode,
		      wqe_counter);
		return 0;
	}
	if (mx_cqe_opcode(cqe) != opcode) {
		CHECK(0, "CQE opcode %u, expected %u (syndrome 0x%02x vendor 0x%02x wqe_counter %u)",
		      mx_cqe_opcode(cqe), opcode, mx_cqe_syndrome(cqe), mx_cqe_vendor_syndrome(cqe),
		      mx_cqe_wqe_counter(cqe));
		ok = 0;
	}
	if (opcode == MX_CQE_REQ_ERR || opcode == MX_CQE_RESP_ERR) {
		CHECK(mx_cqe_syndrome(cqe) == synd, "syndrome 0x%02x, expected 0x%02x",
		      mx_cqe_syndrome(cqe), synd);
		CHECK(mx_cqe_vendor_syndrome(cqe) >= 0xe0 && mx_cqe_vendor_syndrome(cqe) <= 0xef,
		      "vendor syndrome 0x%02x outside the emulator range 0xE0..0xEF",
		      mx_cqe_vendor_syndrome(cqe));
		ok &= mx_cqe_syndrome(cqe) == synd;
	}
	CHECK(mx_cqe_qpn(cqe) == qpn, "CQE qpn 0x%x, expected 0x%x", mx_cqe_qpn(cqe), qpn);
	CHECK(mx_cqe_wqe_counter(cqe) == wqe_counter, "CQE wqe_counter %u, expected %u",
	      mx_cqe_wqe_counter(cqe), wqe_counter);
	return ok && mx_cqe_qpn(cqe) == qpn && mx_cqe_wqe_counter(cqe) == wqe_counter;
}

/* Checks that no CQE shows up within wait_us. */
static inline void t_expect_no_cqe(struct t_cq *c, unsigned wait_us)
{
	uint8_t cqe[64];

	if (t_poll(c, cqe, (uint64_t)wait_us * 1000))
		CHECK(0, "unexpected CQE on CQ 0x%x: opcode %u syndrome 0x%02x wqe_counter %u",
		      c->v.cqn, mx_cqe_opcode(cqe), mx_cqe_syndrome(cqe), mx_cqe_wqe_counter(cqe));
}

/* ---- counters ------------------------------------------------------------- */

struct t_ctrs {
	uint64_t v[MARROW_EMU_CTR_COUNT];
};

static inline struct t_ctrs t_counters(struct marrow_emu_device *dev)
{
	struct t_ctrs c;

	OK(marrow_emu_counters_read(dev, c.v, MARROW_EMU_CTR_COUNT));
	return c;
}

/* Counters once the engine has stopped changing them (pass counters
 * aside): mailbox changes may be seen a pass after the CQE they caused. */
static inline struct t_ctrs t_counters_settled(struct marrow_emu_device *dev)
{
	struct t_ctrs a = t_counters(dev), b;
	uint64_t t0 = t_now_ns();

	for (;;) {
		int same = 1;

		t_sleep_us(500);
		b = t_counters(dev);
		for (int i = 0; i < MARROW_EMU_CTR_COUNT; i++)
			if (i != MARROW_EMU_CTR_busy_passes && i != MARROW_EMU_CTR_idle_passes)
				same &= a.v[i] == b.v[i];
		if (same || t_now_ns() - t0 > 2000000000ull)
			return b;
		a = b;
	}
}

#define T_DELTA(a, b, name) ((b).v[MARROW_EMU_CTR_##name] - (a).v[MARROW_EMU_CTR_##name])

#define CHECK_DELTA(a, b, name, expect)                                                \
	CHECK(T_DELTA(a, b, name) == (uint64_t)(expect), "emu_%s advanced by %llu, expected %llu", \
	      #name, (unsigned long long)T_DELTA(a, b, name), (unsigned long long)(expect))

#endif /* EMU_TEST_UTIL_H */
