/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * marrow_gda_loaded_cpu_run: CPU threads play the GPU's threads. The
 * calling thread is the probe, one pthread the peer (responder), one
 * pthread per background stream. Shared queue: one spinlock guards the
 * probe QP's SQ and CQ (reserve + build + doorbell, and reaping); reserved:
 * each background stream owns its QP and takes no lock. The ordering
 * variant is a compile-time constant in each loop (as in gda_cpu.c).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "gda/gda_dump.h"
#include "gda/gda_loaded_host.h"

struct lq {                       /* one SQ + CQ, maybe shared */
	struct gda_sq sq;
	struct gda_cq cq;
	uint32_t next, serving;       /* shared: a ticket lock (see lock()) */
};

struct bg {
	struct lr *run;
	struct lq *q;
	uint32_t k;
	uint64_t posted;              /* atomic: read by the probe at the window's edges */
	uint32_t done;                /* atomic: the stream's thread has ended (error or stop) */
	int rc;
	struct gda_err err;
	pthread_t tid;
};

struct lr {
	const struct marrow_gda_loaded_config *cfg;
	struct lq probe_q, peer_q;
	struct lq *bg_qs;
	struct bg *bgs;
	uint32_t go, stop;
	uint64_t t_go;
	int peer_rc;
	struct gda_err peer_err;
	uint32_t peer_fail;
};

/* A ticket lock: posters take the shared queue in the order they asked.
 * A test-and-set lock let a background thread that re-takes it at once
 * starve the probe for seconds when the threads outnumber the cores (two
 * processes on a two-core host: the probe timed out waiting for the lock
 * while the SQ was empty), which measures the scheduler, not the queue.
 * gda_relax yields the core every 1024 spins: a waiter must not keep the
 * lock holder (or the peer, or the NIC engine) off a busy machine's cores.
 * A waiter that times out keeps its ticket: the run is failing, and every
 * later waiter ends on its own bound. */
static int lock(struct lq *q, int shared, uint64_t timeout, struct gda_err *err)
{
	uint64_t deadline = 0;
	uint32_t spins = 0, ticket;

	if (!shared)
		return MARROW_OK;
	ticket = __atomic_fetch_add(&q->next, 1u, __ATOMIC_RELAXED);
	while (__atomic_load_n(&q->serving, __ATOMIC_ACQUIRE) != ticket) {
		if ((++spins & 63u) == 1u) {
			uint64_t now = gda_now_ns();

			if (deadline == 0) {
				deadline = now + timeout;
			} else if (now > deadline) {
				err->status = MARROW_ETIMEDOUT;
				err->wait = GDA_WAIT_NONE;
				return MARROW_ETIMEDOUT;
			}
		}
		gda_relax(spins);
	}
	return MARROW_OK;
}

static void unlock(struct lq *q, int shared)
{
	if (shared)
		__atomic_store_n(&q->serving, q->serving + 1u, __ATOMIC_RELEASE);
}

static uint64_t probe_word(uint64_t it)
{
	return (uint64_t)gda_pattern_word(it, 0) | ((uint64_t)gda_pattern_word(it, 1) << 32);
}

/* Reserve room, post one 8-byte WRITE, reap what is there; lock held if shared. */
static __attribute__((always_inline)) inline int lq_post(struct lq *q, int shared, const int ord, uint32_t window,
							 uint32_t sig, uint64_t raddr, uint32_t rkey, uint32_t w0,
							 uint32_t w1, uint64_t timeout, struct gda_err *err)
{
	int rc;

	if ((rc = lock(q, shared, timeout, err)) != MARROW_OK)
		return rc;
	rc = gda_stream_room(&q->sq, &q->cq, ord, window, timeout, err);
	if (rc == MARROW_OK) {
		gda_stream_post8(&q->sq, ord, raddr, rkey, w0, w1, gda_stream_signaled(q->sq.pi, sig));
		while ((rc = gda_stream_reap_one(&q->sq, &q->cq, ord, err)) > 0)
			;
	}
	unlock(q, shared);
	return rc < 0 ? rc : MARROW_OK;
}

static __attribute__((always_inline)) inline int bg_loop(struct bg *b, const int ord)
{
	const struct marrow_gda_loaded_config *c = b->run->cfg;
	const int shared = c->queue == MARROW_GDA_LOADED_SHARED;
	const uint64_t interval = c->pace_msgs_per_s ? (uint64_t)c->bg_streams * 1000000000ull / c->pace_msgs_per_s : 0;
	uint64_t i = 0, next = 0;
	uint32_t spins = 0;
	int rc = MARROW_OK;

	while (!__atomic_load_n(&b->run->go, __ATOMIC_ACQUIRE))
		gda_relax(++spins);
	while (!__atomic_load_n(&b->run->stop, __ATOMIC_RELAXED)) {
		if (interval) {
			/* Never faster than the share: a late stream does not catch up in a burst. */
			uint64_t now = gda_now_ns();

			if (now < next) {
				gda_relax(++spins);
				continue;
			}
			next = (next + interval > now ? next : now) + interval;
		}
		rc = lq_post(b->q, shared, ord, c->bg_window, c->bg_signal_every,
			     gda_stream_slot_addr(c->bg_dst_addr, b->k, i, MARROW_GDA_LOADED_SLOTS),
			     c->bg_dst_rkey, gda_stream_word(b->k, i, 0), gda_stream_word(b->k, i, 1), c->timeout_ns,
			     &b->err);
		if (rc != MARROW_OK)
			break;
		__atomic_store_n(&b->posted, ++i, __ATOMIC_RELAXED);
	}
	/* Leave the QP drained: pad with the stream's next messages, reap everything. */
	if (rc != MARROW_OK || (rc = lock(b->q, shared, c->timeout_ns, &b->err)) != MARROW_OK)
		return b->rc = rc;
	rc = gda_stream_pad_drain(&b->q->sq, &b->q->cq, ord, c->bg_window, c->bg_signal_every, c->bg_dst_addr,
				  c->bg_dst_rkey, b->k, MARROW_GDA_LOADED_SLOTS, &i, c->timeout_ns, &b->err);
	__atomic_store_n(&b->posted, i, __ATOMIC_RELAXED);
	unlock(b->q, shared);
	return b->rc = rc;
}

/* The peer: wait for ping it, write it back signaled, wait for its CQE. */
static __attribute__((always_inline)) inline int peer_loop(struct lr *r, const struct marrow_gda_endpoint *ep,
							   const int ord)
{
	const struct marrow_gda_loaded_config *c = r->cfg;
	const uint64_t *inbox = (const uint64_t *)(uintptr_t)ep->inbox_addr;
	uint64_t total = c->warmup + c->iters;

	for (uint64_t it = 0; it < total; it++) {
		uint32_t words[2] = {gda_pattern_word(it, 0), gda_pattern_word(it, 1)};
		struct gda_write w = {ep->remote_addr, ep->rkey, 8, words, 0, 0, 0};
		uint32_t idx;
		int rc;

		r->peer_fail = (uint32_t)it;
		rc = gda_wait_word(inbox, probe_word(it), ord, c->timeout_ns, &r->peer_err);
		if (rc == MARROW_OK)
			rc = gda_post_write(&r->peer_q.sq, ord, &w, &idx);
		if (rc == MARROW_OK)
			rc = gda_wait_cqe(&r->peer_q.sq, &r->peer_q.cq, ord, idx, c->timeout_ns, &r->peer_err);
		if (rc != MARROW_OK)
			return rc;
	}
	return MARROW_OK;
}

struct probe_out {
	uint64_t done, t_first, t_last, bg0, bg1;
	uint32_t fail;
	struct gda_err err;
};

static uint64_t bg_sum(struct lr *r)
{
	uint64_t s = 0;

	for (uint32_t k = 0; k < r->cfg->bg_streams; k++)
		s += __atomic_load_n(&r->bgs[k].posted, __ATOMIC_RELAXED);
	return s;
}

/* Leave the probe's QP drained: pad up to a signaled WQE and reap it (a
 * shared queue's WQEs are reaped by whoever posts). The pad re-sends the last
 * word to its own place, which changes nothing the other side checks. */
static __attribute__((always_inline)) inline int probe_drain(struct lr *r, const struct marrow_gda_endpoint *ep,
							     uint64_t last, struct gda_err *err, const int ord)
{
	const struct marrow_gda_loaded_config *c = r->cfg;
	const int shared = c->queue == MARROW_GDA_LOADED_SHARED && c->bg_streams > 0;
	const uint32_t window = c->bg_window ? c->bg_window : 1u;
	const uint32_t sig = c->bg_signal_every ? c->bg_signal_every : 1u;
	int rc = lock(&r->probe_q, shared, c->timeout_ns, err);

	if (rc != MARROW_OK)
		return rc;
	while (!gda_stream_signaled(r->probe_q.sq.pi - 1u, sig) && r->probe_q.sq.pi != r->probe_q.sq.ci) {
		rc = gda_stream_room(&r->probe_q.sq, &r->probe_q.cq, ord, window, c->timeout_ns, err);
		if (rc != MARROW_OK) {
			unlock(&r->probe_q, shared);
			return rc;
		}
		gda_stream_post8(&r->probe_q.sq, ord, ep->remote_addr, ep->rkey, (uint32_t)last, (uint32_t)(last >> 32),
				 gda_stream_signaled(r->probe_q.sq.pi, sig));
	}
	unlock(&r->probe_q, shared);
	return MARROW_OK;
}

static __attribute__((always_inline)) inline int probe_loop(struct lr *r, const struct marrow_gda_endpoint *ep,
							    uint64_t *samples, struct probe_out *o, const int ord)
{
	const struct marrow_gda_loaded_config *c = r->cfg;
	const int shared = c->queue == MARROW_GDA_LOADED_SHARED && c->bg_streams > 0;
	const uint64_t *inbox = (const uint64_t *)(uintptr_t)ep->inbox_addr;
	const uint32_t window = c->bg_window ? c->bg_window : 1u;
	uint64_t total = c->warmup + c->iters;

	for (uint64_t it = 0; it < total; it++) {
		uint64_t t0, t1, want = probe_word(it);
		int rc;

		o->fail = (uint32_t)it;
		if (it == c->warmup)
			o->bg0 = bg_sum(r);
		t0 = gda_now_ns();
		rc = lq_post(&r->probe_q, shared, ord, window, c->bg_signal_every ? c->bg_signal_every : 1u,
			     ep->remote_addr, ep->rkey, (uint32_t)want, (uint32_t)(want >> 32), c->timeout_ns, &o->err);
		if (rc == MARROW_OK)
			rc = gda_wait_word(inbox, want, ord, c->timeout_ns, &o->err);
		t1 = gda_now_ns();
		if (rc != MARROW_OK)
			return rc;
		if (it >= c->warmup) {
			samples[it - c->warmup] = t1 - t0;
			if (it == c->warmup)
				o->t_first = t0;
			o->t_last = t1;
		}
		o->done = it + 1;
	}
	o->bg1 = bg_sum(r);
	return probe_drain(r, ep, probe_word(total - 1), &o->err, ord);
}

/* Two processes, responder: the probe's other end. Each ping lands in this
 * side's inbox; the same word goes back through this side's QP (the shared
 * queue's lock held, as the probe posts), and nobody waits for its CQE: the
 * initiator seeing the word is the round trip. */
static __attribute__((always_inline)) inline int answer_loop(struct lr *r, const struct marrow_gda_endpoint *ep,
							     struct probe_out *o, const int ord)
{
	const struct marrow_gda_loaded_config *c = r->cfg;
	const int shared = c->queue == MARROW_GDA_LOADED_SHARED && c->bg_streams > 0;
	const uint64_t *inbox = (const uint64_t *)(uintptr_t)ep->inbox_addr;
	const uint32_t window = c->bg_window ? c->bg_window : 1u;
	uint64_t total = c->warmup + c->iters;

	o->bg0 = 0;
	o->t_first = gda_now_ns();
	for (uint64_t it = 0; it < total; it++) {
		uint64_t want = probe_word(it);
		int rc;

		o->fail = (uint32_t)it;
		rc = gda_wait_word(inbox, want, ord, c->timeout_ns, &o->err);
		if (rc == MARROW_OK)
			rc = lq_post(&r->probe_q, shared, ord, window, c->bg_signal_every ? c->bg_signal_every : 1u,
				     ep->remote_addr, ep->rkey, (uint32_t)want, (uint32_t)(want >> 32), c->timeout_ns,
				     &o->err);
		if (rc != MARROW_OK)
			return rc;
		o->done = it + 1;
	}
	o->t_last = gda_now_ns();
	o->bg1 = bg_sum(r);
	return probe_drain(r, ep, probe_word(total - 1), &o->err, ord);
}

#define GL_INSTANTIATE(name, ORD)                                                                   \
	static void *bg_##name(void *a)                                                            \
	{                                                                                          \
		bg_loop(a, ORD);                                                                   \
		__atomic_store_n(&((struct bg *)a)->done, 1, __ATOMIC_RELEASE);                    \
		return NULL;                                                                       \
	}                           \
	static int peer_##name(struct lr *r, const struct marrow_gda_endpoint *e) { return peer_loop(r, e, ORD); } \
	static int probe_##name(struct lr *r, const struct marrow_gda_endpoint *e, uint64_t *s, struct probe_out *o) \
	{ return probe_loop(r, e, s, o, ORD); } \
	static int answer_##name(struct lr *r, const struct marrow_gda_endpoint *e, uint64_t *s, struct probe_out *o) \
	{ (void)s; return answer_loop(r, e, o, ORD); }
GL_INSTANTIATE(none, GDA_ORD_NONE)
GL_INSTANTIATE(gpu_fence, GDA_ORD_GPU_FENCE)
GL_INSTANTIATE(gpu_fence_dbrec, GDA_ORD_GPU_FENCE_DBREC)
GL_INSTANTIATE(release_gpu, GDA_ORD_RELEASE_GPU)
GL_INSTANTIATE(threadfence, GDA_ORD_THREADFENCE)
GL_INSTANTIATE(release_sys, GDA_ORD_RELEASE_SYS)
GL_INSTANTIATE(fence_sys, GDA_ORD_FENCE_SYS)

static void *(*const BG[GDA_ORD_COUNT])(void *) = {
	bg_none, bg_gpu_fence, bg_gpu_fence_dbrec, bg_release_gpu, bg_threadfence, bg_release_sys, bg_fence_sys,
};
static int (*const PEER[GDA_ORD_COUNT])(struct lr *, const struct marrow_gda_endpoint *) = {
	peer_none, peer_gpu_fence, peer_gpu_fence_dbrec, peer_release_gpu, peer_threadfence, peer_release_sys,
	peer_fence_sys,
};
static int (*const PROBE[GDA_ORD_COUNT])(struct lr *, const struct marrow_gda_endpoint *, uint64_t *,
					 struct probe_out *) = {
	probe_none, probe_gpu_fence, probe_gpu_fence_dbrec, probe_release_gpu, probe_threadfence,
	probe_release_sys, probe_fence_sys,
};
static int (*const ANSWER[GDA_ORD_COUNT])(struct lr *, const struct marrow_gda_endpoint *, uint64_t *,
					  struct probe_out *) = {
	answer_none, answer_gpu_fence, answer_gpu_fence_dbrec, answer_release_gpu, answer_threadfence,
	answer_release_sys, answer_fence_sys,
};

struct peer_arg {
	struct lr *r;
	const struct marrow_gda_endpoint *ep;
};

static void *peer_main(void *a)
{
	struct peer_arg *p = a;

	p->r->peer_rc = PEER[p->r->cfg->ordering](p->r, p->ep);
	return NULL;
}

static void lq_init(struct lq *q, const struct marrow_gda_endpoint *e)
{
	memset(q, 0, sizeof(*q));
	gda_sq_init(&q->sq, e->qp, e->qp->sq_buf, e->qp->dbrec, e->qp->uar);
	gda_cq_init(&q->cq, e->cq, e->cq->buf, e->cq->dbrec);
}

MARROW_API int marrow_gda_loaded_cpu_run(const struct marrow_gda_loaded_config *cfg,
					 const struct marrow_gda_endpoint *probe,
					 const struct marrow_gda_endpoint *peer,
					 const struct marrow_gda_endpoint *bg_eps,
					 uint64_t *samples_ns, struct marrow_gda_loaded_result *res)
{
	static const char fn[] = "marrow_gda_loaded_cpu_run";
	struct lr *r;
	struct probe_out o;
	struct peer_arg pa;
	pthread_t peer_tid;
	uint32_t started = 0, nq;
	int rc;

	if (res == NULL || res->size < sizeof(*res))
		return marrow_fail(MARROW_EINVAL, "%s: res NULL or stale", fn);
	memset((uint8_t *)res + 8, 0, sizeof(*res) - 8);
	if ((rc = gl_check(fn, cfg, probe, peer, bg_eps, samples_ns)) != MARROW_OK)
		return res->status = rc;
	r = calloc(1, sizeof(*r));
	nq = cfg->queue == MARROW_GDA_LOADED_RESERVED ? cfg->bg_streams : 0;
	if (r == NULL || (r->bgs = calloc(cfg->bg_streams + 1u, sizeof(*r->bgs))) == NULL ||
	    (r->bg_qs = calloc(nq + 1u, sizeof(*r->bg_qs))) == NULL) {
		if (r)
			free(r->bgs);
		free(r);
		return res->status = marrow_fail(MARROW_ENOMEM, "%s: out of memory", fn);
	}
	r->cfg = cfg;
	lq_init(&r->probe_q, probe);
	if (peer != NULL)
		lq_init(&r->peer_q, peer);
	memset(&o, 0, sizeof(o));
	if (cfg->bg_streams && cfg->role == MARROW_GDA_LOADED_BOTH) /* else the other process's memory */
		memset((void *)(uintptr_t)cfg->bg_dst_addr, 0, 8ull * MARROW_GDA_LOADED_SLOTS * cfg->bg_streams);
	for (uint32_t k = 0; k < nq; k++)
		lq_init(&r->bg_qs[k], &bg_eps[k]);
	for (uint32_t k = 0; k < cfg->bg_streams; k++) {
		r->bgs[k].run = r;
		r->bgs[k].k = k;
		r->bgs[k].q = nq ? &r->bg_qs[k] : &r->probe_q;
		if (pthread_create(&r->bgs[k].tid, NULL, BG[cfg->ordering], &r->bgs[k]) != 0)
			break;
		started++;
	}
	pa.r = r;
	pa.ep = peer;
	if (started < cfg->bg_streams || (peer != NULL && pthread_create(&peer_tid, NULL, peer_main, &pa) != 0)) {
		__atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&r->go, 1, __ATOMIC_RELEASE);
		for (uint32_t k = 0; k < started; k++)
			pthread_join(r->bgs[k].tid, NULL);
		free(r->bg_qs);
		free(r->bgs);
		free(r);
		return res->status = marrow_fail(MARROW_ENOMEM, "%s: cannot start %u background threads and the peer",
						 fn, cfg->bg_streams);
	}
	__atomic_store_n(&r->go, 1, __ATOMIC_RELEASE);
	/* The probe measures under load: it starts once every background
	 * stream has posted (a thread not yet scheduled would leave the first
	 * probes unloaded). Bounded by the run's wait bound. */
	rc = MARROW_OK;
	if (cfg->role != MARROW_GDA_LOADED_RESPONDER) { /* the responder answers at once */
		uint64_t t_end = gda_now_ns() + cfg->timeout_ns;
		uint32_t spins = 0;

		for (uint32_t k = 0; k < started && rc == MARROW_OK; k++)
			while (__atomic_load_n(&r->bgs[k].posted, __ATOMIC_RELAXED) == 0 &&
			       __atomic_load_n(&r->bgs[k].done, __ATOMIC_ACQUIRE) == 0) {
				if (gda_now_ns() > t_end) {
					rc = MARROW_ETIMEDOUT;
					break;
				}
				gda_relax(++spins);
			}
	}
	if (rc == MARROW_OK)
		rc = (cfg->role == MARROW_GDA_LOADED_RESPONDER ? ANSWER : PROBE)[cfg->ordering](r, probe, samples_ns, &o);
	__atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
	for (uint32_t k = 0; k < started; k++)
		pthread_join(r->bgs[k].tid, NULL);
	if (peer != NULL)
		pthread_join(peer_tid, NULL);
	if (cfg->bg_posted_addr != 0)
		for (uint32_t k = 0; k < cfg->bg_streams; k++)
			((uint64_t *)(uintptr_t)cfg->bg_posted_addr)[k] = k < started ? r->bgs[k].posted : 0;

	res->probes_done = o.done;
	res->timed_ns = o.t_last - o.t_first;
	res->bg_in_window = o.bg1 - o.bg0;
	res->bg_posted = bg_sum(r);
	res->fail_iter = o.fail;
	if (rc != MARROW_OK && cfg->role == MARROW_GDA_LOADED_RESPONDER) {
		res->status = marrow_fail(rc, "%s: responder: ping %u: %s (waited for %s; %u background streams, %s "
					  "queue)", fn, o.fail, marrow_status_name(rc),
					  o.err.wait == GDA_WAIT_WORD ? "the ping" : "the queue lock or SQ room",
					  cfg->bg_streams, cfg->queue ? "reserved" : "shared");
	} else if (rc != MARROW_OK && cfg->role == MARROW_GDA_LOADED_INITIATOR) {
		res->status = marrow_fail(rc, "%s: probe %u: %s (waited for %s; %u background streams, %s queue; the "
					  "peer is the other process)", fn, o.fail, marrow_status_name(rc),
					  o.err.wait == GDA_WAIT_WORD ? "the reply" : "the queue lock or SQ room",
					  cfg->bg_streams, cfg->queue ? "reserved" : "shared");
		if (rc == MARROW_ETIMEDOUT)
			res->status = gda_fail_dump(rc, probe, &o.err, &r->probe_q.sq, &r->probe_q.cq, cfg->timeout_ns,
						    o.fail, probe_word(o.fail));
	} else if (rc != MARROW_OK) {
		res->status = marrow_fail(rc, "%s: probe %u: %s (waited for %s; %u background streams, %s queue; "
					  "peer: %s at ping %u%s)", fn, o.fail, marrow_status_name(rc),
					  o.err.wait == GDA_WAIT_WORD ? "the reply" : "the queue lock or SQ room", cfg->bg_streams,
					  cfg->queue ? "reserved" : "shared", marrow_status_name(r->peer_rc), r->peer_fail,
					  r->peer_rc == MARROW_OK ? ""
					  : r->peer_err.wait == GDA_WAIT_WORD ? ", waiting for the ping" : ", waiting for its CQE");
		if (rc == MARROW_ETIMEDOUT)
			res->status = gda_fail_dump(rc, probe, &o.err, &r->probe_q.sq, &r->probe_q.cq, cfg->timeout_ns,
						    o.fail, probe_word(o.fail));
	} else if (r->peer_rc != MARROW_OK) {
		rc = res->status = marrow_fail(r->peer_rc, "%s: peer failed at ping %u: %s", fn, r->peer_fail,
					       marrow_status_name(r->peer_rc));
	} else {
		for (uint32_t k = 0; k < started && rc == MARROW_OK; k++)
			if (r->bgs[k].rc != MARROW_OK)
				rc = res->status = marrow_fail(r->bgs[k].rc, "%s: background stream %u: %s (CQE opcode %u, "
							       "syndrome 0x%02x)", fn, k, marrow_status_name(r->bgs[k].rc),
							       r->bgs[k].err.opcode, r->bgs[k].err.syndrome);
	}
	if (rc == MARROW_OK && cfg->role == MARROW_GDA_LOADED_BOTH) { /* else the receiver checks */
		{
			uint64_t *posted = calloc(cfg->bg_streams + 1u, sizeof(*posted));

			for (uint32_t k = 0; posted != NULL && k < cfg->bg_streams; k++)
				posted[k] = r->bgs[k].posted;
			res->bg_slot_errors = posted != NULL ? gl_check_bg_slots(cfg, posted) : 0;
			free(posted);
		}
		if (res->bg_slot_errors)
			rc = res->status = marrow_fail(MARROW_EPROTO, "%s: %llu background slots did not hold the last "
						       "value sent", fn, (unsigned long long)res->bg_slot_errors);
	}
	free(r->bg_qs);
	free(r->bgs);
	free(r);
	return rc;
}

MARROW_API uint64_t marrow_gda_loaded_check_slots(uint64_t dst_addr, uint32_t streams, const uint64_t *posted)
{
	if (dst_addr == 0 || posted == NULL || streams > MARROW_GDA_LOADED_MAX_STREAMS)
		return UINT64_MAX; /* nothing checked: every caller counts this as wrong */
	return gl_check_slots(dst_addr, streams, posted);
}
