/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * CPU-producer micro-benchmarks: the producer (emu_producer.h) streams
 * WQEs through the same memory a GPU kernel would use; only the start-up
 * drain peeks at the engine.
 * What each benchmark times, excludes and reports: docs/design/methods.md §1.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_producer.h"
#include "common/marrow_dump.h"

static const char *qps_name(uint32_t s)
{
	switch (s) {
	case MARROW_QPS_RESET: return "RESET";
	case MARROW_QPS_INIT: return "INIT";
	case MARROW_QPS_RTR: return "RTR";
	case MARROW_QPS_RTS: return "RTS";
	case MARROW_QPS_ERR: return "ERR";
	default: return "?";
	}
}

/* Appends the watchdog dump (docs/design/watchdog.md) to the timeout
 * message just recorded: the producer's counters, the queues' memory and
 * the engine's own view. polling: the CQ consumer index is ours (else the
 * dbrec's). Returns MARROW_ETIMEDOUT. */
static int bench_dump(struct bench *b, uint16_t ci, int polling)
{
	struct marrow_dump d;
	struct marrow_dump_sq sq = { .qpn = b->qpn, .has_pi = 1, .pi = b->pi, .has_ci = 1, .ci = ci,
				     .dbrec = b->dbrec };
	struct marrow_dump_cq cq = { .cqn = b->cq->cqn, .buf = b->cqbuf, .dbrec = b->cq_dbrec,
				     .log_cnt = b->log_n, .collapsed = (uint32_t)b->collapsed,
				     .has_ci = (uint32_t)polling, .ci = b->cq_ci };

	marrow_dump_init(&d);
	marrow_dump_sq(&d, &sq);
	marrow_dump_cq(&d, &cq);
	(void)emu_qp_dump(b->qp, &d);
	return marrow_fail_dump(MARROW_ETIMEDOUT, &d);
}

int emu_bench_setup(struct bench *b, const char *fn, struct marrow_emu_qp *qp,
		    struct marrow_emu_cq *cq, uint32_t msg_size, uint32_t batch,
		    uint64_t local_addr, uint32_t lkey, uint64_t remote_addr, uint32_t rkey,
		    uint64_t timeout_ns)
{
	uint32_t st;
	uint64_t t0;

	memset(b, 0, sizeof(*b));
	b->fn = fn;
	if (emu_qp_check(qp, fn) || emu_cq_check(cq, fn))
		return MARROW_EINVAL;
	if (qp->scq != cq)
		return marrow_fail(MARROW_EINVAL, "%s: CQ 0x%x is not the send CQ of QP 0x%x", fn, cq->cqn,
				   qp->qpn);
	st = __atomic_load_n(&qp->state, __ATOMIC_ACQUIRE);
	if (st != MARROW_QPS_RTS)
		return marrow_fail(MARROW_EINVAL, "%s: QP 0x%x is in %s, not RTS", fn, qp->qpn, qps_name(st));
	if (msg_size > EMU_MSG_MAX)
		return marrow_fail(MARROW_EINVAL, "%s: msg_size %u exceeds 2^31", fn, msg_size);
	if (timeout_ns == 0)
		return marrow_fail(MARROW_EINVAL, "%s: timeout_ns must be > 0", fn);
	if ((cq->flags & MARROW_EMU_CQ_COLLAPSED) && !(cq->flags & MARROW_EMU_CQ_OVERRUN_IGNORE))
		return marrow_fail(MARROW_EINVAL,
				   "%s: a collapsed CQ without OVERRUN_IGNORE cannot keep its consumer index", fn);
	b->qp = qp;
	b->cq = cq;
	b->sq = qp->sq;
	b->sq_cnt = qp->sq_cnt;
	b->sq_mask = qp->sq_mask;
	b->qpn = qp->qpn;
	b->dbrec = qp->dbrec_page;
	b->uar = (uint64_t *)qp->uar->page;
	b->cqbuf = cq->buf;
	b->cq_dbrec = cq->dbrec;
	b->log_n = cq->log_n;
	b->cq_mask = cq->mask;
	b->collapsed = !!(cq->flags & MARROW_EMU_CQ_COLLAPSED);
	b->limit_cqes = !(cq->flags & (MARROW_EMU_CQ_OVERRUN_IGNORE | MARROW_EMU_CQ_COLLAPSED));
	b->len = msg_size;
	b->inl = msg_size <= qp->max_inline;
	b->ds = b->inl ? mx_ds_inline_write(msg_size) : mx_ds_pointer_write(1);
	b->nbb = mx_wqebbs(b->ds);
	b->payload = (const uint8_t *)(uintptr_t)local_addr;
	b->laddr = local_addr;
	b->lkey = lkey;
	b->raddr = remote_addr;
	b->rkey = rkey;
	if (batch < 1 || batch * b->nbb > b->sq_cnt)
		return marrow_fail(MARROW_EINVAL, "%s: batch %u x %u WQEBB(s) does not fit the SQ of %u WQEBBs",
				   fn, batch, b->nbb, b->sq_cnt);

	/* Continue where earlier producers left off: wait (bounded) until the
	 * engine has retired everything already posted, then treat every CQE
	 * written so far as consumed. */
	b->pi = (uint16_t)mx_be32toh(__atomic_load_n(&b->dbrec[MX_DBR_SND], __ATOMIC_ACQUIRE));
	t0 = emu_now_ns();
	while (__atomic_load_n(&qp->exec_ci, __ATOMIC_ACQUIRE) != b->pi) {
		if (emu_now_ns() - t0 > timeout_ns) {
			marrow_fail(MARROW_ETIMEDOUT,
				    "%s: timed out after %llu ns waiting for the engine to retire the %u WQEBB(s) posted to QP 0x%x before the benchmark",
				    fn, (unsigned long long)timeout_ns,
				    (uint16_t)(b->pi - __atomic_load_n(&qp->exec_ci, __ATOMIC_ACQUIRE)),
				    qp->qpn);
			return bench_dump(b, __atomic_load_n(&qp->exec_ci, __ATOMIC_ACQUIRE), 0);
		}
		emu_cpu_relax();
	}
	b->retired = b->pi;
	b->cq_ci = __atomic_load_n(&cq->prod, __ATOMIC_ACQUIRE);
	__atomic_store_n(&b->cq_dbrec[0], mx_htobe32(b->cq_ci & 0xffffff), __ATOMIC_RELEASE);
	return MARROW_OK;
}

int emu_bench_cqe_error(struct bench *b, const uint8_t *cqe)
{
	uint8_t synd = mx_cqe_syndrome(cqe);

	return marrow_fail(MARROW_EIO,
			   "%s: error CQE on CQ 0x%x: opcode %u syndrome 0x%02x (%s) vendor 0x%02x QP 0x%x wqe_counter %u",
			   b->fn, b->cq->cqn, mx_cqe_opcode(cqe), synd, emu_syndrome_name(synd),
			   mx_cqe_vendor_syndrome(cqe), mx_cqe_qpn(cqe), mx_cqe_wqe_counter(cqe));
}

static int timeout_fail(struct bench *b, uint64_t timeout_ns)
{
	marrow_fail(MARROW_ETIMEDOUT,
		    "%s: timed out after %llu ns waiting for a CQE on CQ 0x%x for QP 0x%x (%u WQEBB(s) outstanding, %llu message(s) completed); is the engine paused or the doorbell lost?",
		    b->fn, (unsigned long long)timeout_ns, b->cq->cqn, b->qpn,
		    (uint16_t)(b->pi - b->retired), (unsigned long long)b->completed);
	return bench_dump(b, b->retired, 1);
}

/* The caller's --max-seconds, per thread: set right before a bench call on
 * the same thread, copied into the producers of the parallel bench. */
static _Thread_local uint64_t bench_deadline_ns;

MARROW_API int marrow_emu_bench_set_budget(uint64_t budget_ns)
{
	bench_deadline_ns = budget_ns ? emu_now_ns() + budget_ns : 0;
	return MARROW_OK;
}

/* Outer-loop passes between two deadline checks: a clock read every pass
 * would sit inside the timed region. */
#define DEADLINE_CHECK_PASSES 256u

/* Streams `messages` WQEs, `batch` per doorbell, keeping the SQ full. Past
 * b->deadline_ns it posts nothing more, retires what it posted and sets
 * b->cut_short. */
static int run_rate(struct bench *b, uint64_t messages, uint32_t batch, uint64_t timeout_ns)
{
	uint64_t posted = 0, goal = b->completed + messages;
	uint64_t stall_start = 0;
	uint32_t spins = 0, passes = 0;

	while (b->completed < goal) {
		int progress = 0, r;

		if (b->deadline_ns && ++passes % DEADLINE_CHECK_PASSES == 0 && posted < messages &&
		    emu_now_ns() >= b->deadline_ns) {
			goal -= messages - posted; /* only what is already posted */
			messages = posted;
			b->cut_short = 1;
			continue;
		}

		while (posted < messages) {
			uint32_t k = messages - posted < batch ? (uint32_t)(messages - posted) : batch;

			if ((uint16_t)(b->pi - b->retired) + k * b->nbb > b->sq_cnt)
				break;
			if (b->limit_cqes && b->sig_out >= b->cq_mask + 1u)
				break;
			post_batch(b, k);
			posted += k;
			progress = 1;
		}
		while ((r = poll_one(b)) > 0)
			progress = 1;
		if (r < 0)
			return r;
		if (progress) {
			spins = 0;
			stall_start = 0;
			continue;
		}
		emu_cpu_relax();
		if (++spins < 256)
			continue;
		spins = 0;
		uint64_t now = emu_now_ns();

		if (stall_start == 0)
			stall_start = now;
		else if (now - stall_start > timeout_ns)
			return timeout_fail(b, timeout_ns);
	}
	return MARROW_OK;
}

MARROW_API int marrow_emu_bench_rate(struct marrow_emu_qp *qp, struct marrow_emu_cq *cq,
				     uint32_t msg_size, uint32_t batch, uint64_t messages,
				     uint64_t warmup, uint64_t local_addr, uint32_t lkey,
				     uint64_t remote_addr, uint32_t rkey, uint64_t timeout_ns,
				     struct marrow_emu_bench_result *out)
{
	const char *fn = "marrow_emu_bench_rate";
	struct bench b;
	uint64_t t0, t1, db0, cqe0, done0;
	int rc;

	if (out == NULL)
		return marrow_fail(MARROW_EINVAL, "%s: out is NULL", fn);
	if (messages == 0)
		return marrow_fail(MARROW_EINVAL, "%s: messages must be >= 1", fn);
	rc = emu_bench_setup(&b, fn, qp, cq, msg_size, batch, local_addr, lkey, remote_addr, rkey,
			 timeout_ns);
	if (rc)
		return rc;
	b.deadline_ns = bench_deadline_ns;
	if (warmup) {
		rc = run_rate(&b, warmup, batch, timeout_ns);
		if (rc)
			return rc;
	}
	db0 = b.doorbells;
	cqe0 = b.cqes;
	done0 = b.completed;
	t0 = emu_now_ns();
	rc = run_rate(&b, messages, batch, timeout_ns);
	t1 = emu_now_ns();
	if (rc)
		return rc;
	memset(out, 0, sizeof(*out));
	out->size = sizeof(*out);
	out->messages = b.completed - done0;
	out->doorbells = b.doorbells - db0;
	out->cqes = b.cqes - cqe0;
	out->elapsed_ns = t1 - t0;
	out->cut_short = (uint32_t)b.cut_short;
	return MARROW_OK;
}

MARROW_API int marrow_emu_bench_latency(struct marrow_emu_qp *qp, struct marrow_emu_cq *cq,
					uint32_t msg_size, uint64_t iters, uint64_t warmup,
					uint64_t local_addr, uint32_t lkey, uint64_t remote_addr,
					uint32_t rkey, uint64_t timeout_ns, uint64_t *samples_ns)
{
	const char *fn = "marrow_emu_bench_latency";
	struct bench b;
	int rc;

	if (samples_ns == NULL && iters != 0)
		return marrow_fail(MARROW_EINVAL, "%s: samples_ns is NULL", fn);
	rc = emu_bench_setup(&b, fn, qp, cq, msg_size, 1, local_addr, lkey, remote_addr, rkey, timeout_ns);
	if (rc)
		return rc;
	for (uint64_t i = 0; i < warmup + iters; i++) {
		uint64_t goal = b.completed + 1;
		uint64_t t0 = emu_now_ns(), t1;
		uint32_t spins = 0;

		post_batch(&b, 1);
		for (;;) {
			rc = poll_one(&b);
			if (rc < 0)
				return rc;
			if (b.completed >= goal)
				break;
			if (rc > 0)
				continue;
			emu_cpu_relax();
			if (++spins < 256)
				continue;
			spins = 0;
			if (emu_now_ns() - t0 > timeout_ns)
				return timeout_fail(&b, timeout_ns);
		}
		t1 = emu_now_ns();
		if (i >= warmup)
			samples_ns[i - warmup] = t1 - t0;
	}
	return MARROW_OK;
}

/* ---- several producers, one QP each ---------------------------------------
 * Each producer thread owns a loopback QP, its send CQ and its buffers;
 * consecutive QPNs spread the QPs over the engine threads (qpn % N), so
 * producers share nothing on the hot path and each engine owns its QPs. */

struct par_producer {
	pthread_t tid;
	struct bench b;
	struct marrow_emu_cq *cq;
	struct marrow_emu_qp *qp;
	struct marrow_emu_mr *src_mr;
	struct marrow_emu_mr *dst_mr;
	uint8_t *src;
	uint8_t *dst;
	uint64_t end_ns;
	int cpu;                 /* pin to this CPU; -1: not pinned */
	int rc;
	char err[512];
	/* shared, read-only while running */
	int *go;                 /* 0 wait, 1 run, 2 abort */
	uint64_t messages;
	uint32_t batch;
	uint64_t timeout_ns;
} __attribute__((aligned(64)));

/* Producers write their own bench state on every message: one line each. */
_Static_assert(sizeof(struct par_producer) % 64 == 0, "producers share a line");

static void *par_main(void *arg)
{
	struct par_producer *p = arg;
	int g;

	if (p->cpu >= 0) {
		cpu_set_t set;
		int err;

		CPU_ZERO(&set);
		CPU_SET(p->cpu, &set);
		err = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
		if (err) {
			p->rc = MARROW_EINVAL;
			snprintf(p->err, sizeof(p->err), "cannot pin to CPU %d: %s", p->cpu, strerror(err));
		}
	}
	while ((g = __atomic_load_n(p->go, __ATOMIC_ACQUIRE)) == 0)
		sched_yield();
	if (g != 1 || p->rc)
		return NULL;
	p->rc = run_rate(&p->b, p->messages, p->batch, p->timeout_ns);
	p->end_ns = emu_now_ns();
	if (p->rc)
		snprintf(p->err, sizeof(p->err), "%s", marrow_last_error());
	return NULL;
}

static void par_free(struct par_producer *p)
{
	if (p->qp)
		marrow_emu_qp_destroy(p->qp);
	if (p->cq)
		marrow_emu_cq_destroy(p->cq);
	if (p->src_mr)
		marrow_emu_mr_dereg(p->src_mr);
	if (p->dst_mr)
		marrow_emu_mr_dereg(p->dst_mr);
	emu_free_pages(p->src);
	emu_free_pages(p->dst);
}

static int par_setup(struct par_producer *p, struct marrow_emu_pd *pd, uint32_t msg_size,
		     uint32_t batch, uint32_t log_sq, uint32_t max_inline, uint64_t warmup,
		     uint64_t timeout_ns)
{
	const char *fn = "marrow_emu_bench_rate_parallel";
	struct marrow_emu_cq_attr ca = { .size = sizeof(ca), .log_cqe_cnt = 10 };
	struct marrow_emu_qp_attr qa = {
		.size = sizeof(qa), .log_sq_wqebb_cnt = log_sq, .max_inline_data = max_inline,
		.access = MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE,
	};
	struct marrow_cq_view cv;
	struct marrow_qp_view qv;
	size_t len = msg_size > 4096 ? msg_size : 4096;
	uint32_t lkey, rkey;
	int rc;

	p->src = emu_alloc_pages(len, NULL);
	p->dst = emu_alloc_pages(len, NULL);
	if (p->src == NULL || p->dst == NULL)
		return marrow_fail(MARROW_ENOMEM, "%s: out of memory for %zu-byte buffers", fn, len);
	if ((rc = marrow_emu_mr_reg(pd, p->src, len, MARROW_ACCESS_LOCAL_WRITE, &p->src_mr, &lkey, NULL)) ||
	    (rc = marrow_emu_mr_reg(pd, p->dst, len, MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE,
				    &p->dst_mr, NULL, &rkey)) ||
	    (rc = marrow_emu_cq_create(pd->dev, &ca, &p->cq, &cv)))
		return rc;
	qa.send_cq = p->cq;
	if ((rc = marrow_emu_qp_create(pd, &qa, &p->qp, &qv)) ||
	    (rc = marrow_emu_qp_modify(p->qp, MARROW_QPS_INIT, 0)) ||
	    (rc = marrow_emu_qp_modify(p->qp, MARROW_QPS_RTR, qv.qpn)) ||
	    (rc = marrow_emu_qp_modify(p->qp, MARROW_QPS_RTS, 0)))
		return rc;
	rc = emu_bench_setup(&p->b, fn, p->qp, p->cq, msg_size, batch, (uint64_t)(uintptr_t)p->src, lkey,
			 (uint64_t)(uintptr_t)p->dst, rkey, timeout_ns);
	if (rc == MARROW_OK && warmup)
		rc = run_rate(&p->b, warmup, batch, timeout_ns);
	return rc;
}

MARROW_API int marrow_emu_bench_rate_parallel(struct marrow_emu_device *dev, uint32_t producers,
					      uint32_t msg_size, uint32_t batch, uint32_t log_sq,
					      uint32_t max_inline, uint64_t messages, uint64_t warmup,
					      uint64_t timeout_ns, struct marrow_emu_bench_result *out)
{
	return marrow_emu_bench_rate_parallel_pinned(dev, producers, msg_size, batch, log_sq, max_inline,
						     messages, warmup, timeout_ns, NULL, out);
}

MARROW_API int marrow_emu_bench_rate_parallel_pinned(struct marrow_emu_device *dev, uint32_t producers,
						     uint32_t msg_size, uint32_t batch, uint32_t log_sq,
						     uint32_t max_inline, uint64_t messages, uint64_t warmup,
						     uint64_t timeout_ns, const int32_t *producer_cpus,
						     struct marrow_emu_bench_result *out)
{
	const char *fn = "marrow_emu_bench_rate_parallel";
	struct marrow_emu_pd *pd = NULL;
	struct par_producer *ps = NULL;
	int go = 0;
	uint64_t t0 = 0, t_end = 0, done = 0, dbs = 0, cqes = 0;
	uint32_t started = 0, cut = 0;
	int rc = emu_dev_check(dev, fn);

	if (rc)
		return rc;
	if (out == NULL)
		return marrow_fail(MARROW_EINVAL, "%s: out is NULL", fn);
	if (producers < 1 || producers > EMU_MAX_THREADS)
		return marrow_fail(MARROW_EINVAL, "%s: producers %u out of range 1..%d", fn, producers,
				   EMU_MAX_THREADS);
	if (messages == 0)
		return marrow_fail(MARROW_EINVAL, "%s: messages must be >= 1", fn);
	for (uint32_t i = 0; producer_cpus != NULL && i < producers; i++)
		if (producer_cpus[i] < -1 || producer_cpus[i] >= CPU_SETSIZE)
			return marrow_fail(MARROW_EINVAL, "%s: CPU %d for producer %u out of range -1..%d", fn,
					   producer_cpus[i], i, CPU_SETSIZE - 1);
	if (posix_memalign((void **)&ps, 64, sizeof(*ps) * producers) != 0)
		return marrow_fail(MARROW_ENOMEM, "%s: out of memory", fn);
	memset(ps, 0, sizeof(*ps) * producers);
	rc = marrow_emu_pd_alloc(dev, &pd);
	for (uint32_t i = 0; rc == MARROW_OK && i < producers; i++)
		rc = par_setup(&ps[i], pd, msg_size, batch, log_sq, max_inline, warmup, timeout_ns);
	if (rc == MARROW_OK) {
		for (uint32_t i = 0; i < producers; i++) {
			struct par_producer *p = &ps[i];

			p->go = &go;
			p->cpu = producer_cpus ? producer_cpus[i] : -1;
			p->messages = messages;
			p->batch = batch;
			p->timeout_ns = timeout_ns;
			p->b.deadline_ns = bench_deadline_ns;
			p->b.doorbells = p->b.cqes = 0;
			p->b.completed = 0;
			if (pthread_create(&p->tid, NULL, par_main, p) != 0) {
				rc = marrow_fail(MARROW_ENOMEM, "%s: pthread_create failed for producer %u", fn, i);
				break;
			}
			started++;
		}
		t0 = emu_now_ns();
		__atomic_store_n(&go, started == producers ? 1 : 2, __ATOMIC_RELEASE);
		for (uint32_t i = 0; i < started; i++)
			pthread_join(ps[i].tid, NULL);
		for (uint32_t i = 0; rc == MARROW_OK && i < producers; i++) {
			if (ps[i].rc) {
				rc = marrow_fail(ps[i].rc, "%s: producer %u: %s", fn, i, ps[i].err);
				break;
			}
			done += ps[i].b.completed;
			cut |= ps[i].b.cut_short;
			dbs += ps[i].b.doorbells;
			cqes += ps[i].b.cqes;
			if (ps[i].end_ns > t_end)
				t_end = ps[i].end_ns;
		}
		if (rc == MARROW_OK) {
			memset(out, 0, sizeof(*out));
			out->size = sizeof(*out);
			out->messages = done;
			out->doorbells = dbs;
			out->cqes = cqes;
			out->elapsed_ns = t_end - t0;
			out->cut_short = cut;
		}
	}
	for (uint32_t i = 0; i < producers; i++)
		par_free(&ps[i]);
	if (pd)
		marrow_emu_pd_free(pd);
	free(ps);
	return rc;
}

MARROW_API int marrow_emu_bench_encode(void *sq, uint64_t sq_bytes, uint32_t log_sq, uint32_t qpn,
				       uint32_t msg_size, uint32_t max_inline, uint64_t wqes)
{
	/* Not const: the compiler must load the payload as a producer would. */
	static uint8_t payload[MX_MAX_INLINE_RC_WRITE];
	const char *fn = "marrow_emu_bench_encode";
	struct wqe_tmpl m;
	uint32_t nbb;
	uint16_t c = 0;

	if (sq == NULL)
		return marrow_fail(MARROW_EINVAL, "%s: sq is NULL", fn);
	if (marrow_check_log_sq(log_sq) != MARROW_OK)
		return MARROW_EINVAL;
	if (sq_bytes < ((uint64_t)MX_WQEBB_SIZE << log_sq))
		return marrow_fail(MARROW_EINVAL, "%s: %llu bytes at sq, not the %llu of 2^%u WQEBBs", fn,
				   (unsigned long long)sq_bytes, (unsigned long long)MX_WQEBB_SIZE << log_sq, log_sq);
	if (max_inline > MX_MAX_INLINE_RC_WRITE)
		return marrow_fail(MARROW_EINVAL, "%s: max_inline %u exceeds %u (ds is 6 bits)", fn, max_inline,
				   (uint32_t)MX_MAX_INLINE_RC_WRITE);
	if (qpn > 0xffffffu)
		return marrow_fail(MARROW_EINVAL, "%s: qpn 0x%x exceeds 24 bits", fn, qpn);
	if (msg_size > EMU_MSG_MAX)
		return marrow_fail(MARROW_EINVAL, "%s: msg_size %u exceeds 2^31", fn, msg_size);
	memset(&m, 0, sizeof(m));
	m.sq = sq;
	m.sq_cnt = 1u << log_sq;
	m.sq_mask = m.sq_cnt - 1;
	m.qpn = qpn;
	m.len = msg_size;
	m.inl = msg_size <= max_inline;
	m.ds = m.inl ? mx_ds_inline_write(msg_size) : mx_ds_pointer_write(1);
	m.payload = payload;
	m.laddr = 0x1000;
	m.lkey = 1;
	m.raddr = 0x2000;
	m.rkey = 2;
	nbb = mx_wqebbs(m.ds);
	if (nbb > m.sq_cnt)
		return marrow_fail(MARROW_EINVAL, "%s: a WQE of %u WQEBBs does not fit a ring of %u", fn, nbb,
				   m.sq_cnt);
	for (uint64_t i = 0; i < wqes; i++) {
		uint8_t f = i + 1 == wqes ? MX_CTRL_CQ_UPDATE : 0;

		if (m.inl && m.len == 8)
			put_wqe_inl8(&m, c, f);
		else
			put_wqe(&m, c, f);
		c = (uint16_t)(c + nbb);
	}
	return MARROW_OK;
}
