/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * libFuzzer harness for the software NIC. Each input (format:
 * softnic_fuzz_format.h) builds QPs, CQs and MRs through the public C API,
 * writes arbitrary WQEBBs into the SQ ring, rings doorbells, moves QP states
 * and drives the engine one poll at a time through emu_qp_poll (the same
 * function the engine threads call) and, for QPs sharing a doorbell page,
 * emu_qp_recover (what an engine's full sweep calls), from this thread, with
 * the device's own engine paused: the run needs no test hook. QP timers are
 * chosen per input so that retries either fire on every poll or not within a
 * run (deterministic), except in the ConnectX-timing profile.
 *
 * Doorbell model (docs/design/software-nic.md §5): a UAR store is an event
 * carrying (WQE index, QPN, ds); the engine takes it by swapping the slot to
 * 0; the QPN picks the QP on the page; unknown QPNs and QPs in RESET are
 * dropped; INIT/RTR remember it until RTS; the DBR is read by recovery only.
 * A raw doorbell that names a QP on the page and asks for WQEBBs its producer
 * has not posted makes that QP's program incorrect (model_ok = 0); one that
 * names a stale or already-posted index, or no QP on the page, is harmless.
 *
 * Invariants (a violation aborts with a message):
 *  - no crash, no ASan/UBSan report;
 *  - no byte outside a remote-writable MR changes (the MR arena sits between
 *    PROT_NONE guard pages and is filled with a known pattern);
 *  - the engine never writes into the SQ ring;
 *  - QP states stay legal: modify succeeds exactly for the documented
 *    transitions and leaves the state alone otherwise; the engine itself
 *    only ever moves RTR/RTS to ERR;
 *  - CQEs arrive in posting order; before the first error every signaled
 *    WQE gets a success CQE, from the first error on every WQE gets an error
 *    or flush CQE; at the end (QPs moved to ERR and drained) every posted WQE
 *    has ended in a CQE or was an unsignaled success, and every posted
 *    receive WQE has ended in a receive CQE or a flush. These checks apply
 *    while the program behaved like a correct producer (well-formed posts,
 *    no SQ/RQ overrun, no doorbell or shared-page DBR naming WQEBBs not
 *    posted) and no CQ overran; a misbehaving program is still checked for
 *    everything else;
 *  - a correct producer's doorbell is always seen: after its final ring a QP
 *    in INIT/RTR/RTS has taken it up to the producer index, and one in RTS
 *    has executed every posted WQEBB unless a WQE waits for a retry;
 *  - the engine settles: polling without new doorbells stops reporting work.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "softnic/emu_internal.h"
#include "softnic_fuzz_format.h"

#define FZ_FAIL(...)                                                       \
	do {                                                               \
		fprintf(stderr, "softnic_fuzz: invariant violated: ");    \
		fprintf(stderr, __VA_ARGS__);                              \
		fputc('\n', stderr);                                       \
		abort();                                                   \
	} while (0)

enum { FZ_MAX_REC = 4096, FZ_SETTLE_POLLS = 100000 };

struct rd {
	const uint8_t *p;
	size_t n;
};

static uint8_t rd_u8(struct rd *r)
{
	if (r->n == 0)
		return 0;
	r->n--;
	return *r->p++;
}

static uint16_t rd_u16(struct rd *r)
{
	uint16_t lo = rd_u8(r);
	return (uint16_t)(lo | (rd_u8(r) << 8));
}

static uint64_t rd_u64(struct rd *r)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)rd_u8(r) << (8 * i);
	return v;
}

static void rd_bytes(struct rd *r, uint8_t *dst, size_t n)
{
	size_t k = n < r->n ? n : r->n;
	memcpy(dst, r->p, k);
	memset(dst + k, 0, n - k);
	r->p += k;
	r->n -= k;
}

/* One posted WQE, as the producer laid it out. */
struct rec {
	uint16_t idx;
	uint8_t signaled;
};

/* Producer-side model of one QP. */
struct qm {
	struct marrow_emu_qp *qp;
	struct marrow_qp_view v;
	struct marrow_emu_cq *scq, *rcq;
	int state;              /* last state seen */
	uint16_t pi;            /* WQEBB producer counter */
	uint16_t rq_pi;         /* RQ producer counter */
	uint16_t rq_done;       /* receive CQEs seen */
	int model_ok;           /* the program behaved like a correct producer */
	int shared;             /* its doorbell page is shared with the other QP */
	uint16_t last_idx;      /* WQEBB index of the last posted WQE (rdma-core doorbell) */
	uint8_t last_ds;        /* its ds */
	int err_seen;           /* an error CQE arrived (this epoch) */
	uint32_t nrec, cursor;
	struct rec recs[FZ_MAX_REC];
	uint8_t *sq_copy;       /* what the producer wrote into the SQ */
};

struct cqm {
	struct marrow_emu_cq *cq;
	struct marrow_cq_view v;
	uint32_t ci;
};

struct world {
	struct marrow_emu_pd *pd;
	struct cqm cqs[2];
	uint32_t ncq;
	struct qm q[2];
	uint32_t nqp;
	struct marrow_emu_mr *mr[FZ_MAX_MR];
	uint32_t key[FZ_MAX_MR];
	uint32_t nmr;
};

static struct marrow_emu_device *g_dev;
static struct emu_thread *g_thr;     /* this thread, acting as the engine */
static uint8_t *g_arena;             /* FZ_ARENA bytes between two guard pages */
static uint8_t g_pattern[FZ_ARENA];  /* the arena's initial bytes */
/* Arena ranges some MR allowed remote writes to, sorted and merged. */
static struct span {
	uint32_t lo, hi;
} g_writable[FZ_MAX_MR];
static uint32_t g_nwritable;
static struct world g_w;

static void setup_once(void)
{
	struct marrow_emu_device_attr a = { .size = sizeof(a), .engine_threads = 1, .engine_cpu = -1, .quiet = 1 };
	uint8_t *m;

	if (g_dev)
		return;
	if (marrow_emu_device_open(&a, &g_dev) || marrow_emu_engine_pause(g_dev, 1))
		FZ_FAIL("could not open and pause the device: %s", marrow_last_error());
	if (posix_memalign((void **)&g_thr, 64, sizeof(*g_thr)))
		abort();
	memset(g_thr, 0, sizeof(*g_thr));
	g_thr->dev = g_dev;
	/* A doorbell on a shared page activates the QP it names. */
	g_thr->active = calloc(2 * EMU_UAR_MAX_QPS, sizeof(*g_thr->active));
	if (g_thr->active == NULL)
		abort();
	m = mmap(NULL, FZ_ARENA + 2 * EMU_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		abort();
	mprotect(m, EMU_PAGE, PROT_NONE);
	mprotect(m + EMU_PAGE + FZ_ARENA, EMU_PAGE, PROT_NONE);
	g_arena = m + EMU_PAGE;
	for (size_t i = 0; i < FZ_ARENA; i++)
		g_pattern[i] = (uint8_t)(i * 131u + 7u);
}

static void add_writable(uint32_t lo, uint32_t hi)
{
	uint32_t i = g_nwritable++;

	while (i > 0 && g_writable[i - 1].lo > lo) {
		g_writable[i] = g_writable[i - 1];
		i--;
	}
	g_writable[i].lo = lo;
	g_writable[i].hi = hi;
}

static int qp_index(const struct world *w, uint32_t qpn)
{
	for (uint32_t i = 0; i < w->nqp; i++)
		if (w->q[i].v.qpn == qpn)
			return (int)i;
	return -1;
}

/* ---- invariants ---------------------------------------------------------- */

/* Byte-wise only once a gap differs, to name the first changed byte. */
static void check_gap(uint32_t lo, uint32_t hi)
{
	if (lo >= hi || memcmp(g_arena + lo, g_pattern + lo, hi - lo) == 0)
		return;
	for (uint32_t i = lo; i < hi; i++)
		if (g_arena[i] != g_pattern[i])
			FZ_FAIL("byte %u of the MR arena changed (0x%02x -> 0x%02x) but no MR allowed a remote write there",
				i, g_pattern[i], g_arena[i]);
}

static void check_arena(void)
{
	uint32_t pos = 0;

	for (uint32_t i = 0; i < g_nwritable; i++) {
		check_gap(pos, g_writable[i].lo);
		if (g_writable[i].hi > pos)
			pos = g_writable[i].hi;
	}
	check_gap(pos, FZ_ARENA);
}

static void check_sq(const struct qm *m)
{
	if (memcmp(m->v.sq_buf, m->sq_copy, (size_t)m->v.sq_wqe_cnt * MX_WQEBB_SIZE) != 0)
		FZ_FAIL("QP 0x%x: the engine wrote into its SQ ring", m->v.qpn);
}

static int legal_modify(int cur, int next)
{
	switch (next) {
	case MARROW_QPS_INIT: return cur == MARROW_QPS_RESET;
	case MARROW_QPS_RTR: return cur == MARROW_QPS_INIT;
	case MARROW_QPS_RTS: return cur == MARROW_QPS_RTR;
	case MARROW_QPS_ERR:
	case MARROW_QPS_RESET: return 1;
	default: return 0;
	}
}

/* States may change behind the producer's back only RTR/RTS -> ERR. */
static void check_states(struct world *w)
{
	for (uint32_t i = 0; i < w->nqp; i++) {
		struct qm *m = &w->q[i];
		int s = -1;

		if (marrow_emu_qp_state(m->qp, &s))
			FZ_FAIL("marrow_emu_qp_state failed: %s", marrow_last_error());
		if (s != m->state) {
			if (!(s == MARROW_QPS_ERR && (m->state == MARROW_QPS_RTR || m->state == MARROW_QPS_RTS)))
				FZ_FAIL("QP 0x%x went %d -> %d without a modify", m->v.qpn, m->state, s);
			m->state = s;
		}
	}
}

/* A send CQE: match it to the posted WQEs in order. */
static void on_send_cqe(struct qm *m, uint8_t op, uint16_t wc, uint8_t synd)
{
	if (op == MX_CQE_REQ_ERR && synd == 0)
		FZ_FAIL("QP 0x%x: error CQE for WQE %u without a syndrome", m->v.qpn, wc);
	if (!m->model_ok)
		return;
	while (m->cursor < m->nrec) {
		const struct rec *r = &m->recs[m->cursor++];

		if (r->idx == wc) {
			if (op == MX_CQE_REQ) {
				if (m->err_seen)
					FZ_FAIL("QP 0x%x: success CQE for WQE %u after an error CQE", m->v.qpn, wc);
				if (!r->signaled)
					FZ_FAIL("QP 0x%x: success CQE for unsignaled WQE %u", m->v.qpn, wc);
			} else {
				m->err_seen = 1;
			}
			return;
		}
		if (m->err_seen)
			FZ_FAIL("QP 0x%x: WQE %u after an error got no CQE (next CQE is for %u)", m->v.qpn,
				r->idx, wc);
		if (r->signaled)
			FZ_FAIL("QP 0x%x: signaled WQE %u got no CQE (next CQE is for %u)", m->v.qpn, r->idx, wc);
	}
	FZ_FAIL("QP 0x%x: CQE (opcode %u) for WQE %u that was never posted or is out of order", m->v.qpn, op, wc);
}

static void on_recv_cqe(struct qm *m, uint8_t op, uint16_t wc)
{
	if (m->v.rq_wqe_cnt == 0)
		FZ_FAIL("QP 0x%x has no RQ but got receive CQE opcode %u", m->v.qpn, op);
	if (!m->model_ok)
		return;
	if (wc != m->rq_done)
		FZ_FAIL("QP 0x%x: receive CQE for RQ WQE %u, expected %u", m->v.qpn, wc, m->rq_done);
	if ((uint16_t)(m->rq_pi - m->rq_done) == 0)
		FZ_FAIL("QP 0x%x: receive CQE %u but no RQ WQE was posted", m->v.qpn, wc);
	m->rq_done++;
}

/* Polls up to max CQEs of one CQ with the owner-bit rule. A collapsed CQ
 * overwrites slot 0, so CQEs can be missed by design: no ordering checks. */
static void consume_cq(struct world *w, struct cqm *c, uint32_t max)
{
	int collapsed = c->v.flags & MARROW_EMU_CQ_COLLAPSED;
	uint32_t log_n = (uint32_t)__builtin_ctz(c->v.cqe_cnt);

	for (uint32_t k = 0; k < max; k++) {
		const uint8_t *cqe = (const uint8_t *)c->v.buf + (size_t)(collapsed ? 0 : (c->ci & (c->v.cqe_cnt - 1))) * MX_CQE_SIZE;
		uint8_t op;
		int qi;

		if (collapsed) {
			/* Seen once; mark it consumed by invalidating the opcode. */
			if (mx_cqe_opcode(cqe) == MX_CQE_INVALID)
				return;
		} else if (!mx_cqe_is_valid(cqe, c->ci, log_n)) {
			return;
		}
		op = mx_cqe_opcode(cqe);
		qi = qp_index(w, mx_cqe_qpn(cqe));
		if (qi < 0)
			FZ_FAIL("CQE for unknown QPN 0x%x", mx_cqe_qpn(cqe));
		if (!collapsed) {
			struct qm *m = &w->q[qi];

			if (op == MX_CQE_REQ || op == MX_CQE_REQ_ERR) {
				if (m->scq != c->cq)
					FZ_FAIL("send CQE of QP 0x%x on a CQ that is not its send CQ", m->v.qpn);
				on_send_cqe(m, op, mx_cqe_wqe_counter(cqe), mx_cqe_syndrome(cqe));
			} else if (op == MX_CQE_RESP_WR_IMM || op == MX_CQE_RESP_ERR) {
				if (m->rcq != c->cq)
					FZ_FAIL("receive CQE of QP 0x%x on a CQ that is not its receive CQ", m->v.qpn);
				on_recv_cqe(m, op, mx_cqe_wqe_counter(cqe));
			} else {
				FZ_FAIL("CQE with opcode %u", op);
			}
		} else {
			((uint8_t *)cqe)[MX_CQE_OFF_OP_OWN] = MX_CQE_OP_OWN_INIT;
		}
		c->ci++;
		c->v.dbrec[0] = mx_htobe32(c->ci & 0xffffff);
	}
}

static void consume_all(struct world *w, uint32_t max)
{
	for (uint32_t i = 0; i < w->ncq; i++)
		consume_cq(w, &w->cqs[i], max);
}

static int cq_in_error(struct marrow_emu_cq *cq)
{
	int e = 0;
	if (cq && marrow_emu_cq_status(cq, &e))
		FZ_FAIL("marrow_emu_cq_status failed");
	return e;
}

static void forget_epoch(struct qm *m)
{
	m->pi = 0;
	m->rq_pi = 0;
	m->rq_done = 0;
	m->nrec = 0;
	m->cursor = 0;
	m->err_seen = 0;   /* RESET leaves the SQ ring's bytes alone */
}

/* ---- operations ------------------------------------------------------------ */

static uint32_t reloc_key(const struct world *w, uint32_t key)
{
	if ((key >> 24) != FZ_KEY_TAG || w->nmr == 0)
		return key;
	return w->key[(key & 0xff) % w->nmr];
}

static uint64_t reloc_addr(uint64_t a)
{
	if ((a >> 32) != FZ_ADDR_TAG)
		return a;
	return (uint64_t)(uintptr_t)(g_arena - FZ_ADDR_BIAS) + (uint32_t)a % (FZ_ARENA + 2 * FZ_ADDR_BIAS);
}

static void put_be64(uint8_t *p, uint64_t v)
{
	uint32_t hi = mx_htobe32((uint32_t)(v >> 32)), lo = mx_htobe32((uint32_t)v);
	memcpy(p, &hi, 4);
	memcpy(p + 4, &lo, 4);
}

static void put_be32(uint8_t *p, uint32_t v)
{
	v = mx_htobe32(v);
	memcpy(p, &v, 4);
}

/* Rewrites tagged keys and addresses, walking the segments the way an RDMA
 * WRITE is parsed (raddr, then data or inline segments up to ds). */
static void relocate(const struct world *w, uint8_t *wqe, uint32_t bytes)
{
	uint32_t ds = wqe[7];
	uint8_t *end = wqe + (ds * MX_DS_SIZE < bytes ? ds * MX_DS_SIZE : bytes);
	uint8_t *seg = wqe + MX_CTRL_SEG_SIZE;

	if (seg + MX_RADDR_SEG_SIZE > end)
		return;
	put_be64(seg, reloc_addr(emu_be64(seg)));
	put_be32(seg + 8, reloc_key(w, emu_be32(seg + 8)));
	seg += MX_RADDR_SEG_SIZE;
	while (seg + MX_DATA_SEG_SIZE <= end) {
		uint32_t bc = emu_be32(seg);

		if (bc & MX_INLINE_SEG_FLAG) {
			uint64_t sz = ((uint64_t)MX_INLINE_HDR_SIZE + (bc & ~MX_INLINE_SEG_FLAG) + 15u) & ~15ull;
			if (sz > (uint64_t)(end - seg))
				return;
			seg += sz;
			continue;
		}
		put_be32(seg + 4, reloc_key(w, emu_be32(seg + 4)));
		put_be64(seg + 8, reloc_addr(emu_be64(seg + 8)));
		seg += MX_DATA_SEG_SIZE;
	}
}

static void post_one(struct world *w, struct qm *m, uint8_t flags, uint8_t *wqe, uint32_t nbb);

/* Posts one WQE from the input, `repeat` times (fix-ups applied to each). */
static void op_post(struct world *w, struct qm *m, struct rd *r, uint32_t repeat)
{
	uint8_t flags = rd_u8(r);
	uint32_t maxbb = m->v.sq_wqe_cnt < EMU_MAX_WQE_BBS ? m->v.sq_wqe_cnt : EMU_MAX_WQE_BBS;
	uint32_t nbb = 1 + rd_u8(r) % maxbb;
	uint8_t wqe[EMU_MAX_WQE_BBS * MX_WQEBB_SIZE];
	uint32_t bytes = nbb * MX_WQEBB_SIZE;

	rd_bytes(r, wqe, bytes);
	for (uint32_t k = 0; k < repeat; k++)
		post_one(w, m, flags, wqe, nbb);
}

static void post_one(struct world *w, struct qm *m, uint8_t flags, uint8_t *wqe, uint32_t nbb)
{
	uint32_t bytes = nbb * MX_WQEBB_SIZE;
	uint16_t exec_ci = __atomic_load_n(&m->qp->exec_ci, __ATOMIC_ACQUIRE);

	if (flags & FZ_POST_FIX_IDX) {
		uint32_t w0 = emu_be32(wqe);
		put_be32(wqe, (w0 & 0xff0000ffu) | ((uint32_t)m->pi << 8));
	}
	if (flags & FZ_POST_FIX_DS) {
		/* Identity on a valid ds; ds is 6 bits, so 16 WQEBBs hold 61..63. */
		uint32_t ds = (nbb - 1) * 4 + 1 + (wqe[7] + 3u) % 4;
		wqe[7] = (uint8_t)(ds > EMU_MAX_DS ? EMU_MAX_DS : ds);
	}
	if (flags & FZ_POST_FIX_QPN) {
		uint32_t w1 = emu_be32(wqe + 4);
		put_be32(wqe + 4, (m->v.qpn << 8) | (w1 & 0xff));
	}
	if (flags & FZ_POST_RELOC)
		relocate(w, wqe, bytes);
	if (flags & FZ_POST_SIGNAL)
		wqe[11] |= MX_CTRL_CQ_UPDATE;
	if (flags & FZ_POST_UNSIGNAL)
		wqe[11] &= (uint8_t)~MX_CTRL_CE_MASK;

	/* A correct producer posts whole WQEs into free WQEBBs only. */
	if ((flags & FZ_POST_WELLFORMED) != FZ_POST_WELLFORMED ||
	    (uint16_t)(m->pi + nbb - exec_ci) > m->v.sq_wqe_cnt || m->nrec == FZ_MAX_REC)
		m->model_ok = 0;
	m->last_idx = m->pi;
	m->last_ds = wqe[7] & 0x3f;
	if (m->model_ok) {
		m->recs[m->nrec].idx = m->pi;
		m->recs[m->nrec++].signaled = (wqe[11] & MX_CTRL_CQ_UPDATE) != 0;
	}
	for (uint32_t b = 0; b < nbb; b++) {
		size_t slot = (size_t)((m->pi + b) & (m->v.sq_wqe_cnt - 1)) * MX_WQEBB_SIZE;

		memcpy((uint8_t *)m->v.sq_buf + slot, wqe + (size_t)b * MX_WQEBB_SIZE, MX_WQEBB_SIZE);
		memcpy(m->sq_copy + slot, wqe + (size_t)b * MX_WQEBB_SIZE, MX_WQEBB_SIZE);
	}
	m->pi = (uint16_t)(m->pi + nbb);
}

/* (uint16_t)(v - exec_ci) inside [0, pi - exec_ci]: names nothing unposted. */
static int within_posted(const struct qm *m, uint16_t v)
{
	uint16_t ci = __atomic_load_n(&m->qp->exec_ci, __ATOMIC_ACQUIRE);
	uint16_t ahead = (uint16_t)(v - ci);

	return ahead <= (uint16_t)(m->pi - ci) || ahead > 0x8000u;   /* > 0x8000: stale, ignored */
}

/* Stores one doorbell value into a UAR slot of m's page. A value naming a
 * QP on that page beyond what its producer posted makes that QP's program
 * incorrect; any other value (older index, other or unknown QPN) must not
 * disturb it. */
static void store_db(struct world *w, struct qm *m, uint64_t *slot, uint64_t db)
{
	uint32_t qpn = mx_doorbell_qpn(db);

	for (uint32_t i = 0; i < w->nqp; i++) {
		struct qm *q = &w->q[i];

		if (q->v.uar == m->v.uar && q->v.qpn == qpn && !within_posted(q, mx_doorbell_end(db)))
			q->model_ok = 0;
	}
	__atomic_store_n(slot, db, __ATOMIC_RELEASE);
}

static void ring(struct world *w, struct qm *m, uint8_t mode, struct rd *r)
{
	uint64_t *slot = (uint64_t *)((uint8_t *)m->v.uar + ((mode & FZ_RING_HALF1) ? EMU_UAR_HALF : 0));
	uint16_t raw = (mode & FZ_RING_RAW_DBREC) ? rd_u16(r) : 0;
	uint64_t db = (mode & FZ_RING_RAW_UAR) ? rd_u64(r) : 0;
	uint32_t qpn = m->v.qpn;

	if (!(mode & FZ_RING_NO_DBREC)) {
		if (mode & FZ_RING_RAW_DBREC) {
			/* Only recovery reads the DBR, and only on a shared page. */
			if (m->shared && !within_posted(m, raw))
				m->model_ok = 0;
			__atomic_store_n(&m->v.dbrec[MX_DBR_SND], mx_dbrec_send_value(raw), __ATOMIC_RELEASE);
		} else {
			__atomic_store_n(&m->v.dbrec[MX_DBR_SND], mx_dbrec_send_value(m->pi), __ATOMIC_RELEASE);
		}
	}
	if (mode & FZ_RING_NO_UAR)
		return;
	if (!(mode & FZ_RING_RAW_UAR)) {
		if (mode & FZ_RING_OTHER_QPN)   /* the other QP's number, or one nobody has */
			qpn = w->nqp == 2 ? w->q[m == &w->q[0] ? 1 : 0].v.qpn
					  : qp_index(w, 0xffffffu) < 0 ? 0xffffffu : 0xfffffeu;
		if ((mode & FZ_RING_LAST_CTRL) && m->pi != 0)
			db = mx_doorbell_value(m->last_idx, 0, qpn, m->last_ds);   /* rdma-core */
		else
			db = mx_doorbell_value(m->pi, 0, qpn, 0);                  /* NVSHMEM/DOCA */
	}
	store_db(w, m, slot, db);
	if (mode & FZ_RING_TWICE) {
		/* The same value again after the engine took it: a second event,
		 * which must change nothing (the index is idempotent). */
		emu_qp_poll(g_thr, m->qp);
		store_db(w, m, slot, db);
	}
}

static void op_modify(struct world *w, struct qm *m, uint8_t v)
{
	int next = v % 8;
	int bogus_peer = (v & 8) != 0;
	struct qm *peer = (w->nqp == 2) ? &w->q[m == &w->q[0] ? 1 : 0] : m;
	/* QPNs wrap after 2^24 creations, so the bogus one must not be ours */
	uint32_t peer_qpn = !bogus_peer ? peer->v.qpn : qp_index(w, 0xffffffu) < 0 ? 0xffffffu : 0xfffffeu;
	int legal = legal_modify(m->state, next) && !(next == MARROW_QPS_RTR && bogus_peer);
	int rc, s = -1;

	if (next == MARROW_QPS_RESET) {
		/* The producer collects what completed before it resets. */
		consume_all(w, UINT32_MAX);
	}
	rc = marrow_emu_qp_modify(m->qp, next, peer_qpn);
	marrow_emu_qp_state(m->qp, &s);
	if (legal && rc != MARROW_OK)
		FZ_FAIL("QP 0x%x: legal modify %d -> %d failed: %s", m->v.qpn, m->state, next, marrow_last_error());
	if (!legal && rc != MARROW_EINVAL)
		FZ_FAIL("QP 0x%x: illegal modify %d -> %d returned %d, expected EINVAL", m->v.qpn, m->state, next, rc);
	if (!legal && s != m->state)
		FZ_FAIL("QP 0x%x: failed modify changed the state %d -> %d", m->v.qpn, m->state, s);
	if (legal && s != next)
		FZ_FAIL("QP 0x%x: modify to %d left state %d", m->v.qpn, next, s);
	m->state = s;
	if (legal && next == MARROW_QPS_RESET)
		forget_epoch(m);
}

static void op_recv(struct qm *m, uint8_t v, struct rd *r)
{
	uint16_t pi;

	if (m->v.rq_wqe_cnt == 0)
		return;
	if (v & 0x80) {
		pi = rd_u16(r);
		m->model_ok = 0;
	} else {
		pi = (uint16_t)(m->rq_pi + 1 + v % 4);
		if ((uint16_t)(pi - m->rq_done) > m->v.rq_wqe_cnt)
			m->model_ok = 0;
	}
	m->rq_pi = pi;
	__atomic_store_n(&m->v.dbrec[MX_DBR_RCV], mx_htobe32(pi), __ATOMIC_RELEASE);
}

static void poll_qp(struct qm *m, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		emu_qp_poll(g_thr, m->qp);
}

/* Polls every QP until none reports work (bounded: a livelock is a bug). */
static void settle(struct world *w)
{
	for (uint32_t k = 0;; k++) {
		int work = 0;

		if (k == FZ_SETTLE_POLLS)
			FZ_FAIL("the engine still reports work after %d polls without new doorbells", FZ_SETTLE_POLLS);
		for (uint32_t i = 0; i < w->nqp; i++) {
			/* A full sweep: recovery looks twice (the DBR must stand still). */
			emu_qp_recover(g_thr, w->q[i].qp);
			work |= emu_qp_recover(g_thr, w->q[i].qp);
			work |= emu_qp_poll(g_thr, w->q[i].qp);
		}
		consume_all(w, UINT32_MAX);
		if (!work)
			return;
	}
}

/* ---- world ------------------------------------------------------------------ */

static int build(struct world *w, struct rd *r)
{
	uint8_t h0 = rd_u8(r), h1 = rd_u8(r), h2 = rd_u8(r), h3 = rd_u8(r), h4 = rd_u8(r);
	uint32_t log_sq = 1 + h0 % 10, log_cq = h1 & 7, cq_flags = (h1 >> 3) & 3;
	int shared_cq = (h1 >> 5) & 1;
	uint32_t log_rq = (h2 >> 2) & 3;
	uint32_t max_inline = FZ_INLINE[(h2 >> 4) & 7];
	uint32_t timers = (h1 >> 6) & 3;

	memset(w, 0, sizeof(*w));
	w->nqp = (h2 & 1) ? 2 : 1;
	while (mx_wqebbs(mx_ds_inline_write(max_inline)) > (1u << log_sq))
		max_inline = mx_inline_max_for_wqebbs(1u << log_sq);
	if (marrow_emu_pd_alloc(g_dev, &w->pd))
		FZ_FAIL("pd_alloc: %s", marrow_last_error());
	if (marrow_emu_device_time_divisor(g_dev, FZ_TIMERS[timers][4]))
		FZ_FAIL("device_time_divisor: %s", marrow_last_error());
	g_thr->nactive = 0;   /* the QPs it held are gone */

	g_nwritable = 0;
	memcpy(g_arena, g_pattern, FZ_ARENA);
	w->nmr = h4 % (FZ_MAX_MR + 1);
	for (uint32_t i = 0; i < w->nmr; i++) {
		uint32_t off = rd_u16(r) % FZ_ARENA;
		uint32_t len = 1 + rd_u16(r) % (FZ_ARENA - off);
		uint32_t acc = rd_u8(r) & 15;

		if (marrow_emu_mr_reg(w->pd, g_arena + off, len, acc, &w->mr[i], &w->key[i], NULL)) {
			w->mr[i] = NULL;
			w->key[i] = MX_INVALID_LKEY;   /* variant 0 is never handed out */
			continue;
		}
		if (acc & MARROW_ACCESS_REMOTE_WRITE)
			add_writable(off, off + len);
	}

	w->ncq = shared_cq ? 1 : 2;
	for (uint32_t i = 0; i < w->ncq; i++) {
		struct marrow_emu_cq_attr ca = { .size = sizeof(ca), .log_cqe_cnt = log_cq, .flags = cq_flags };
		if (marrow_emu_cq_create(g_dev, &ca, &w->cqs[i].cq, &w->cqs[i].v))
			FZ_FAIL("cq_create: %s", marrow_last_error());
	}
	for (uint32_t i = 0; i < w->nqp; i++) {
		struct qm *m = &w->q[i];
		struct marrow_emu_qp_attr qa = {
			.size = sizeof(qa),
			.send_cq = w->cqs[0].cq,
			.recv_cq = log_rq ? w->cqs[w->ncq - 1].cq : NULL,
			.log_sq_wqebb_cnt = log_sq,
			.log_rq_wqe_cnt = log_rq,
			.max_rq_sge = 1,
			.max_inline_data = max_inline,
			.access = i == 0 ? (h3 & 15u) : (h3 >> 4),
		};
		if (marrow_emu_qp_create(w->pd, &qa, &m->qp, &m->v))
			FZ_FAIL("qp_create: %s", marrow_last_error());
		m->scq = qa.send_cq;
		m->rcq = qa.recv_cq;
		m->state = MARROW_QPS_RESET;
		/* oi = 1 lets the engine overwrite unread CQEs and a collapsed
		 * CQ keeps only the last one: lost CQEs are then the consumer's
		 * choice, so completion accounting needs a plain CQ. */
		m->model_ok = cq_flags == 0;
		m->sq_copy = calloc(m->v.sq_wqe_cnt, MX_WQEBB_SIZE);
		if (m->sq_copy == NULL)
			abort();
		if (marrow_emu_qp_set_timers(m->qp, FZ_TIMERS[timers][0], FZ_TIMERS[timers][1],
					     FZ_TIMERS[timers][2], FZ_TIMERS[timers][3]))
			FZ_FAIL("qp_set_timers: %s", marrow_last_error());
	}
	if (w->nqp == 2 && (h2 & 2)) {
		/* B joins A's doorbell page (both in RESET, B alone on its page). */
		void *uar = NULL;

		if (marrow_emu_qp_share_uar(w->q[1].qp, w->q[0].qp, &uar))
			FZ_FAIL("qp_share_uar: %s", marrow_last_error());
		if (uar != w->q[0].v.uar)
			FZ_FAIL("qp_share_uar returned %p, not QP A's page %p", uar, w->q[0].v.uar);
		w->q[1].v.uar = uar;
		w->q[0].shared = w->q[1].shared = 1;
	}
	return 0;
}

static void teardown(struct world *w)
{
	for (uint32_t i = 0; i < w->nqp; i++) {
		if (marrow_emu_qp_destroy(w->q[i].qp))
			FZ_FAIL("qp_destroy: %s", marrow_last_error());
		free(w->q[i].sq_copy);
	}
	for (uint32_t i = 0; i < w->ncq; i++)
		if (marrow_emu_cq_destroy(w->cqs[i].cq))
			FZ_FAIL("cq_destroy: %s", marrow_last_error());
	for (uint32_t i = 0; i < w->nmr; i++)
		if (w->mr[i] && marrow_emu_mr_dereg(w->mr[i]))
			FZ_FAIL("mr_dereg: %s", marrow_last_error());
	if (marrow_emu_pd_free(w->pd))
		FZ_FAIL("pd_free: %s", marrow_last_error());
}

/* After a correct producer's last ring (and a settle): the engine took the
 * doorbell up to the producer index in INIT/RTR/RTS, and in RTS executed
 * everything unless the WQE at exec_ci waits for a retry. */
static void check_ring_seen(const struct qm *m)
{
	const struct marrow_emu_qp *qp = m->qp;

	if (!m->model_ok || cq_in_error(m->scq) || (m->rcq && cq_in_error(m->rcq)))
		return;
	if (m->state != MARROW_QPS_INIT && m->state != MARROW_QPS_RTR && m->state != MARROW_QPS_RTS)
		return;
	if (qp->db_target != m->pi)
		FZ_FAIL("QP 0x%x (state %d): rang up to WQEBB %u, the engine took a doorbell up to %u",
			m->v.qpn, m->state, m->pi, qp->db_target);
	if (m->state == MARROW_QPS_RTS && qp->wait_kind == EMU_WAIT_NONE && qp->exec_ci != m->pi)
		FZ_FAIL("QP 0x%x in RTS, doorbell up to %u taken, not waiting: engine retired only %u",
			m->v.qpn, m->pi, qp->exec_ci);
}

/* End of the program: ring everything that was posted (one QP at a time: a
 * shared slot holds one doorbell), move every QP to ERR, ring again (a QP
 * in RESET dropped the first one), drain, and check that every WQE ended. */
static void finish(struct world *w)
{
	for (uint32_t i = 0; i < w->nqp; i++) {
		ring(w, &w->q[i], 0, NULL);
		settle(w);
	}
	check_states(w);
	for (uint32_t i = 0; i < w->nqp; i++)
		check_ring_seen(&w->q[i]);
	for (uint32_t i = 0; i < w->nqp; i++) {
		struct qm *m = &w->q[i];

		if (marrow_emu_qp_modify(m->qp, MARROW_QPS_ERR, 0))
			FZ_FAIL("modify to ERR failed: %s", marrow_last_error());
		m->state = MARROW_QPS_ERR;
	}
	for (uint32_t i = 0; i < w->nqp; i++) {
		ring(w, &w->q[i], 0, NULL);
		settle(w);
	}
	check_states(w);
	check_arena();
	for (uint32_t i = 0; i < w->nqp; i++) {
		struct qm *m = &w->q[i];
		uint16_t exec_ci = __atomic_load_n(&m->qp->exec_ci, __ATOMIC_ACQUIRE);

		check_sq(m);
		if (!m->model_ok || cq_in_error(m->scq) || (m->rcq && cq_in_error(m->rcq)))
			continue;
		if (exec_ci != m->pi)
			FZ_FAIL("QP 0x%x in ERR, drained: engine retired %u WQEBBs of %u posted", m->v.qpn, exec_ci, m->pi);
		for (uint32_t k = m->cursor; k < m->nrec; k++) {
			if (m->err_seen)
				FZ_FAIL("QP 0x%x: WQE %u after an error ended without a CQE", m->v.qpn, m->recs[k].idx);
			if (m->recs[k].signaled)
				FZ_FAIL("QP 0x%x: signaled WQE %u ended without a CQE", m->v.qpn, m->recs[k].idx);
		}
		if (m->rq_done != m->rq_pi)
			FZ_FAIL("QP 0x%x: %u receive WQEs posted, %u ended in a CQE", m->v.qpn, m->rq_pi, m->rq_done);
	}
}

/* SOFTNIC_FUZZ_TRACE=1: print the engine counters each input moved, to see
 * which paths a seed reaches. */
static void trace(void)
{
	static int on = -1;

	if (on < 0)
		on = getenv("SOFTNIC_FUZZ_TRACE") != NULL;
	if (!on)
		return;
	static uint64_t prev[MARROW_EMU_CTR_COUNT];   /* the counters are running totals */

	emu_counters_publish(g_thr);
	fprintf(stderr, "softnic_fuzz:");
	for (int i = 0; i < MARROW_EMU_CTR_COUNT; i++) {
		if (g_thr->pub.v[i] != prev[i])
			fprintf(stderr, " %s=%llu", marrow_emu_counter_name(i) + 4,
				(unsigned long long)(g_thr->pub.v[i] - prev[i]));
		prev[i] = g_thr->pub.v[i];
	}
	fputc('\n', stderr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rd r = { data, size };
	struct world *w = &g_w;

	setup_once();
	build(w, &r);
	for (int ops = 0; r.n && ops < FZ_MAX_OPS; ops++) {
		uint8_t op = rd_u8(&r);
		struct qm *m = &w->q[((op >> 4) & 1) % w->nqp];

		switch (op % FZ_OP_KINDS) {
		case FZ_OP_POST:
			op_post(w, m, &r, 1);
			break;
		case FZ_OP_POST_REPEAT:
			op_post(w, m, &r, 1 + rd_u8(&r) % 64u);
			break;
		case FZ_OP_RING:
			ring(w, m, rd_u8(&r), &r);
			break;
		case FZ_OP_POLL: {
			uint32_t n = 1 + rd_u8(&r) % 16;
			if (op & 0x40) {
				/* a sweep first: doorbell recovery on shared pages */
				for (uint32_t i = 0; i < w->nqp; i++)
					emu_qp_recover(g_thr, w->q[i].qp);
			}
			if (op & 0x80) {
				for (uint32_t i = 0; i < w->nqp; i++)
					poll_qp(&w->q[i], n);
			} else {
				poll_qp(m, n);
			}
			check_states(w);
			check_arena();
			break;
		}
		case FZ_OP_CONSUME:
			consume_all(w, rd_u8(&r));
			break;
		case FZ_OP_MODIFY:
			check_states(w);
			op_modify(w, m, rd_u8(&r));
			break;
		case FZ_OP_RECV:
			op_recv(m, rd_u8(&r), &r);
			break;
		case FZ_OP_DEREG: {
			uint8_t v = rd_u8(&r);
			if (w->nmr && w->mr[v % w->nmr]) {
				if (marrow_emu_mr_dereg(w->mr[v % w->nmr]))
					FZ_FAIL("mr_dereg: %s", marrow_last_error());
				w->mr[v % w->nmr] = NULL;   /* key stays: relocation now yields a stale key */
			}
			break;
		}
		}
	}
	finish(w);
	teardown(w);
	trace();
	return 0;
}
