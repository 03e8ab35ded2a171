/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * mini-gda rate, CPU executor: pthreads play the GPU's posters and run the
 * steps of gda_rate_post.h on the same queues the kernels use. LOCK and
 * SLOT: one pthread per GPU thread. WARP: one pthread per warp, which plays
 * its lanes one after the other between the leader's reservation and the
 * leader's doorbell (the lanes' order inside a warp is not observable on
 * the SQ). SCOPE: the calling thread posts; a pthread is the signal peer.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gda/gda_rate_host.h"

struct rate_run;

struct rate_unit {
	struct rate_run *run;
	uint32_t unit;          /* what the QP mapping names: block, warp or thread */
	uint32_t first_thread;  /* global thread id of lane 0 */
	uint32_t lanes;
	uint64_t span_ns;       /* this unit's timed span */
	struct gda_rate_tstats st;
	pthread_t tid;
};

struct rate_run {
	const struct marrow_gda_rate_config *cfg;
	struct gda_rate_plan p;
	int stop;
	uint64_t t_start, t_end;
	/* SCOPE */
	const struct marrow_gda_endpoint *eps;
	uint64_t *samples;
	struct gda_rate_tstats peer_st;
	uint64_t iters_done;
};

static int stopped(struct rate_run *r)
{
	return __atomic_load_n(&r->stop, __ATOMIC_RELAXED);
}

static void atomic_min_u64(uint64_t *p, uint64_t v)
{
	uint64_t cur = __atomic_load_n(p, __ATOMIC_RELAXED);
	while ((cur == 0 || v < cur) && !__atomic_compare_exchange_n(p, &cur, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

static void atomic_max_u64(uint64_t *p, uint64_t v)
{
	uint64_t cur = __atomic_load_n(p, __ATOMIC_RELAXED);
	while (v > cur && !__atomic_compare_exchange_n(p, &cur, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/* The posting loop of one pthread: rounds of `per` WQEs per lane, then the
 * drain of the QPs it used. */
static void *unit_main(void *arg)
{
	struct rate_unit *u = arg;
	struct rate_run *r = u->run;
	const struct marrow_gda_rate_config *cfg = r->cfg;
	const struct gda_rate_ctx *c = &r->p.ctx;
	uint32_t per = r->p.per;
	uint64_t t0 = gda_now_ns();
	struct gr_solo sv = {0};
	struct gr_msgs g;
	uint32_t sq = ~0u; /* the QP whose state sv holds (single-poster path) */
	int rc = MARROW_OK;

	gr_msgs_at(c, u->first_thread, 0, &g);
	for (uint64_t rd = 0; rd < r->p.rounds && rc == MARROW_OK; rd++) {
		uint32_t qi = gr_qp_of(cfg->qp_map, cfg->qps, u->unit, rd);
		uint32_t idx;

		if (rd == r->p.warm_rounds) {
			t0 = gda_now_ns();
			atomic_min_u64(&r->t_start, t0);
		}
		if (stopped(r)) {
			rc = MARROW_ECONNRESET;
			break;
		}
		if (c->solo) { /* as the kernel does (gda_rate.cu) */
			if (qi != sq) {
				if (sq != ~0u)
					gr_solo_save(c, sq, &sv);
				gr_solo_load(c, qi, &sv);
				sq = qi;
			}
			rc = gr_solo_round(c, qi, &sv, &g, u->first_thread, rd * per, per, &u->st);
			continue;
		}
		if (cfg->publication != MARROW_GDA_RATE_PUB_WARP) {
			rc = gr_thread_round(c, qi, u->first_thread, rd * per, per, &u->st);
			continue;
		}
		if ((rc = gr_warp_reserve(c, qi, cfg->batch, &idx, &u->st)) != MARROW_OK)
			break;
		for (uint32_t l = 0; l < u->lanes; l++)
			for (uint32_t j = 0; j < per; j++)
				gr_build(c, qi, idx + l * per + j, u->first_thread + l, rd * per + j, &u->st);
		rc = gr_warp_publish(c, qi, idx, cfg->batch, &u->st);
	}
	if (sq != ~0u)
		gr_solo_save(c, sq, &sv);
	if (rc == MARROW_OK) {
		uint32_t nq = cfg->qp_map == MARROW_GDA_RATE_QP_SHARED ? cfg->qps : 1u;
		for (uint32_t i = 0; i < nq && rc == MARROW_OK; i++) {
			uint32_t qi = cfg->qp_map == MARROW_GDA_RATE_QP_SHARED ? i
				    : gr_qp_of(cfg->qp_map, cfg->qps, u->unit, 0);
			rc = gr_drain(c, qi, c->qs[qi].total, &u->st);
		}
	}
	if (rc != MARROW_OK) {
		u->st.status = rc;
		__atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	uint64_t t1 = gda_now_ns();
	atomic_max_u64(&r->t_end, t1);
	/* The shares' denominator: posting threads' time. A unit is a warp; under
	 * WARP publication only its leader posts (as on the GPU, gda_rate.cu),
	 * otherwise each of its lanes does. */
	u->span_ns = (t1 - t0) * (cfg->publication == MARROW_GDA_RATE_PUB_WARP ? 1u : u->lanes);
	return NULL;
}

/* ---- SCOPE ------------------------------------------------------------------
 * Per iteration: t0, one signaled WRITE of the iteration's data word on QP
 * 0 (to the peer's word, destination offset 0), then the completion of the
 * scope, t1. The signal peer (endpoint qps) echoes the word to offset 64. */
static void *peer_main(void *arg)
{
	struct rate_run *r = arg;
	const struct gda_rate_ctx *c = &r->p.ctx;
	uint32_t qi = r->cfg->qps;
	const uint64_t *word = (const uint64_t *)(uintptr_t)c->dst_base;
	uint64_t total = r->cfg->warmup + r->cfg->messages;
	int rc = MARROW_OK;

	for (uint64_t it = 0; it < total && rc == MARROW_OK && !stopped(r); it++) {
		rc = gr_wait_word(c, word, gr_data_word(it), &r->peer_st);
		if (rc == MARROW_OK) {
			gr_post_word(c, qi, gr_data_word(it), 64, &r->peer_st);
			rc = gr_drain(c, qi, c->qs[qi].resv, &r->peer_st);
		}
	}
	if (rc != MARROW_OK) {
		r->peer_st.status = rc;
		__atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static int scope_main(struct rate_run *r, struct gda_rate_tstats *st)
{
	const struct marrow_gda_rate_config *cfg = r->cfg;
	const struct gda_rate_ctx *c = &r->p.ctx;
	const uint64_t *echo = (const uint64_t *)(uintptr_t)(c->dst_base + 64);
	uint64_t total = cfg->warmup + cfg->messages;
	uint32_t used[16];
	int rc = MARROW_OK;

	memset(used, 0, sizeof(used));
	for (uint64_t it = 0; it < total && rc == MARROW_OK; it++) {
		uint64_t t0, t1;

		if (stopped(r))
			return MARROW_ECONNRESET;
		t0 = gda_now_ns();
		gr_post_word(c, 0, gr_data_word(it), 0, st);
		used[0] |= 1u;
		if (cfg->scope == MARROW_GDA_RATE_SCOPE_SIGNAL) {
			rc = gr_wait_word(c, echo, gr_data_word(it), st);
			t1 = gda_now_ns();
			if (rc == MARROW_OK) /* untimed: reclaim the put */
				rc = gr_drain(c, 0, c->qs[0].resv, st);
		} else {
			rc = gr_quiet(c, cfg->scope, cfg->qps, used, st);
			t1 = gda_now_ns();
		}
		if (rc == MARROW_OK && it >= cfg->warmup)
			r->samples[it - cfg->warmup] = t1 - t0;
		r->iters_done = it + 1;
	}
	return rc;
}

/* ---- entry ---------------------------------------------------------------------- */

static void add_stats(struct marrow_gda_rate_result *res, const struct gda_rate_tstats *s)
{
	res->posts += s->posts;
	res->doorbells += s->doorbells;
	res->signaled += s->signaled;
	res->cqes += s->cqes;
	res->sq_full_waits += s->sq_full_waits;
	res->sq_full_ticks += s->sq_full_ticks;
	res->publish_ticks += s->publish_ticks;
	res->reap_ticks += s->reap_ticks;
	res->fence_ticks += s->fence_ticks;
	res->wqe_ticks += s->wqe_ticks;
}

MARROW_API int marrow_gda_rate_cpu_run(const struct marrow_gda_rate_config *cfg,
				       const struct marrow_gda_endpoint *eps, uint32_t n_eps,
				       uint64_t *samples_ns, struct marrow_gda_rate_result *res)
{
	static const char fn[] = "marrow_gda_rate_cpu_run";
	struct rate_run *r;
	struct gda_rate_qdesc *qd = NULL;
	struct gda_rate_qstate *qs = NULL;
	uint32_t *host_pi = NULL, *last = NULL, *qpn = NULL;
	uint32_t **dbrec = NULL;
	uint64_t **uar = NULL;
	struct rate_unit *units = NULL;
	struct gda_rate_ringer ring;
	uint32_t n_units = 0, started = 0, fail_unit = 0;
	int rc, have_ring = 0, have_peer = 0;
	pthread_t peer_tid;
	struct gda_rate_tstats init_st;

	if (res != NULL && res->size == sizeof(*res)) {
		uint32_t sz = res->size;
		memset(res, 0, sizeof(*res));
		res->size = sz;
	}
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		return marrow_fail(MARROW_ENOMEM, "%s: out of memory", fn);
	rc = gda_rate_plan_make(fn, cfg, eps, n_eps, samples_ns, res, MARROW_GDA_PLACEMENT_HOST, &r->p);
	if (rc != MARROW_OK) {
		free(r);
		return rc;
	}
	r->cfg = cfg;
	r->eps = eps;
	r->samples = samples_ns;
	if (cfg->experiment == MARROW_GDA_RATE_EXP_RATE) {
		n_units = cfg->publication == MARROW_GDA_RATE_PUB_WARP ? cfg->blocks * ((cfg->threads + 31u) / 32u)
									: r->p.nthreads;
		if (n_units > GDA_RATE_MAX_THREADS_CPU) {
			free(r);
			return gda_rate_bad(fn, res, "the cpu target runs at most 4096 posting pthreads");
		}
	}
	qd = calloc(n_eps, sizeof(*qd));
	qs = aligned_alloc(64, (size_t)n_eps * sizeof(*qs));
	host_pi = calloc(n_eps, sizeof(*host_pi));
	last = calloc(n_eps, sizeof(*last));
	qpn = calloc(n_eps, sizeof(*qpn));
	dbrec = calloc(n_eps, sizeof(*dbrec));
	uar = calloc(n_eps, sizeof(*uar));
	units = calloc(n_units ? n_units : 1, sizeof(*units));
	if (!qd || !qs || !host_pi || !last || !qpn || !dbrec || !uar || !units) {
		rc = res->status = marrow_fail(MARROW_ENOMEM, "%s: out of memory", fn);
		goto out;
	}
	memset(qs, 0, (size_t)n_eps * sizeof(*qs));
	for (uint32_t i = 0; i < n_eps; i++) {
		const struct marrow_gda_endpoint *e = &eps[i];
		uint32_t log = 0, sq_ctr = mx_be32toh(e->qp->dbrec[MX_DBR_SND]) & 0xffffu;
		while ((1u << log) < e->cq->cqe_cnt)
			log++;
		/* The SQ resumes where an earlier run left it (whole WQEs). */
		if (sq_ctr % r->p.ctx.nbb != 0u) {
			rc = gda_rate_bad(fn, res, "a QP's SQ counter is not a whole number of this run's WQEs: "
					  "use fresh QPs per payload shape");
			goto out;
		}
		qd[i].sq = (uint8_t *)e->qp->sq_buf;
		qd[i].dbrec = e->qp->dbrec;
		qd[i].uar = (uint64_t *)e->qp->uar;
		qd[i].cq = (uint8_t *)e->cq->buf;
		qd[i].cq_dbrec = e->cq->dbrec;
		qd[i].host_pi = &host_pi[i];
		qd[i].wqebb_cnt = e->qp->sq_wqe_cnt;
		qd[i].qpn = e->qp->qpn;
		qd[i].log_cq = log;
		qs[i].resv = qs[i].ready = qs[i].ci = sq_ctr / r->p.ctx.nbb;
		qs[i].cq_ci = mx_be32toh(e->cq->dbrec[0]) & 0xffffffu;
		qs[i].cq_pi = qs[i].polled = qs[i].cq_ci;
		host_pi[i] = last[i] = qs[i].resv;
		qpn[i] = e->qp->qpn;
		dbrec[i] = e->qp->dbrec;
		uar[i] = (uint64_t *)e->qp->uar;
	}
	r->p.ctx.q = qd;
	r->p.ctx.qs = qs;
	if (cfg->experiment == MARROW_GDA_RATE_EXP_RATE) {
		struct gda_rate_qstate *tot = calloc(n_eps, sizeof(*tot));
		if (tot == NULL) {
			rc = res->status = marrow_fail(MARROW_ENOMEM, "%s: out of memory", fn);
			goto out;
		}
		gda_rate_totals(cfg, &r->p, tot);
		for (uint32_t i = 0; i < n_eps; i++)
			qs[i].total = qs[i].resv + tot[i].total;  /* absolute WQE index of the end */
		free(tot);
		/* Untimed: clear the destination, stage pointer sources. */
		memset((void *)(uintptr_t)eps[0].remote_addr, 0, (size_t)r->p.ctx.spt * r->p.ctx.stride * r->p.nthreads);
		if (!r->p.ctx.inl)
			for (uint64_t s = 0; s < (uint64_t)r->p.ctx.spt * r->p.nthreads; s++)
				gr_stage_slot((uint8_t *)(uintptr_t)eps[0].local_addr, r->p.ctx.stride, cfg->msg_size, s);
	} else {
		memset((void *)(uintptr_t)eps[0].remote_addr, 0, 128);
		for (uint32_t i = 0; i < n_eps; i++)
			qs[i].total = 0xffffffffu; /* SCOPE: every put is signaled (K = 1) */
	}
	__atomic_thread_fence(__ATOMIC_SEQ_CST);

	if (cfg->doorbell == MARROW_GDA_RATE_DB_HOST) {
		memset(&ring, 0, sizeof(ring));
		ring.n = n_eps;
		ring.nbb = r->p.ctx.nbb;
		ring.host_pi = host_pi;
		ring.dbrec = dbrec;
		ring.uar = uar;
		ring.qpn = qpn;
		ring.last = last;
		ring.cpu = cfg->doorbell_cpu;
		if (pthread_create(&ring.tid, NULL, gda_rate_ringer_main, &ring) != 0) {
			rc = res->status = marrow_fail(MARROW_ENOMEM, "%s: cannot start the doorbell thread", fn);
			goto out;
		}
		have_ring = 1;
	}

	memset(&init_st, 0, sizeof(init_st));
	if (cfg->experiment == MARROW_GDA_RATE_EXP_SCOPE) {
		if (cfg->scope == MARROW_GDA_RATE_SCOPE_SIGNAL) {
			if (pthread_create(&peer_tid, NULL, peer_main, r) != 0) {
				rc = res->status = marrow_fail(MARROW_ENOMEM, "%s: cannot start the signal peer", fn);
				goto stop_ring;
			}
			have_peer = 1;
		}
		rc = scope_main(r, &init_st);
		if (rc != MARROW_OK) {
			init_st.status = rc;
			__atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
		}
		if (have_peer)
			pthread_join(peer_tid, NULL);
		add_stats(res, &init_st);
		add_stats(res, &r->peer_st);
		res->messages = r->iters_done > cfg->warmup ? r->iters_done - cfg->warmup : 0;
	} else {
		uint32_t wpb = (cfg->threads + 31u) / 32u;
		for (uint32_t i = 0; i < n_units; i++) {
			struct rate_unit *u = &units[i];
			u->run = r;
			if (cfg->publication == MARROW_GDA_RATE_PUB_WARP) {
				uint32_t b = i / wpb, w = i % wpb;
				u->first_thread = b * cfg->threads + w * 32u;
				u->lanes = r->p.lanes;
				u->unit = cfg->qp_map == MARROW_GDA_RATE_QP_PER_BLOCK ? b : i;
			} else {
				uint32_t b = i / cfg->threads, t = i % cfg->threads;
				u->first_thread = i;
				u->lanes = 1;
				u->unit = cfg->qp_map == MARROW_GDA_RATE_QP_PER_BLOCK ? b
					: cfg->qp_map == MARROW_GDA_RATE_QP_PER_WARP ? b * wpb + t / 32u : i;
			}
			if (pthread_create(&u->tid, NULL, unit_main, u) != 0) {
				__atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
				rc = res->status = marrow_fail(MARROW_ENOMEM, "%s: cannot start posting thread %u", fn, i);
				break;
			}
			started++;
		}
		for (uint32_t i = 0; i < started; i++)
			pthread_join(units[i].tid, NULL);
		for (uint32_t i = 0; i < started; i++) {
			add_stats(res, &units[i].st);
			res->post_ticks += units[i].span_ns;
			if (units[i].st.status != MARROW_OK && units[i].st.status != MARROW_ECONNRESET &&
			    (rc == MARROW_OK || units[fail_unit].st.status == MARROW_ECONNRESET)) {
				rc = units[i].st.status;
				fail_unit = i;
			}
		}
		if (rc == MARROW_OK)
			for (uint32_t i = 0; i < started; i++)
				if (units[i].st.status != MARROW_OK) {
					rc = units[i].st.status;
					fail_unit = i;
					break;
				}
		res->messages = rc == MARROW_OK ? (uint64_t)r->p.nthreads * cfg->messages : 0;
		res->elapsed_ns = rc == MARROW_OK ? r->t_end - r->t_start : 0;
	}
stop_ring:
	if (have_ring) {
		__atomic_store_n(&ring.stop, 1, __ATOMIC_RELEASE);
		pthread_join(ring.tid, NULL);
		res->host_rings = ring.rings;
		res->host_polls = ring.polls;
		if (ring.pin_rc != 0 && rc == MARROW_OK)
			rc = gda_rate_bad(fn, res, "cannot pin the doorbell thread to doorbell_cpu");
	}
	res->ticks_are_cycles = 0;
	if (rc != MARROW_OK && res->status == 0) {
		const struct gda_rate_tstats *fs;
		uint32_t thread;
		if (cfg->experiment == MARROW_GDA_RATE_EXP_SCOPE) {
			int peer_failed = r->peer_st.status != MARROW_OK &&
					  (init_st.status == MARROW_OK || init_st.status == MARROW_ECONNRESET ||
					   init_st.status == MARROW_ETIMEDOUT);
			fs = peer_failed ? &r->peer_st : &init_st;
			thread = peer_failed ? 1u : 0u;
			if (peer_failed)
				rc = r->peer_st.status;
		} else {
			fs = &units[fail_unit].st;
			thread = units[fail_unit].first_thread;
		}
		res->status = rc;
		res->fail_thread = thread;
		res->fail_qp = fs->qp;
		res->fail_wait = fs->wait;
		if (rc == MARROW_ETIMEDOUT || rc == MARROW_EIO)
			rc = gda_rate_fail_dump(rc, fn, &eps[fs->qp < n_eps ? fs->qp : 0], &qs[fs->qp < n_eps ? fs->qp : 0],
						r->p.ctx.nbb, fs, thread, cfg->timeout_ns);
		else
			rc = marrow_fail(rc, "%s: thread %u failed: %s", fn, thread, marrow_status_name(rc));
		res->status = rc;
	} else if (rc == MARROW_OK && cfg->experiment == MARROW_GDA_RATE_EXP_RATE) {
		for (uint32_t t = 0; t < r->p.nthreads; t++)
			for (uint32_t s = 0; s < r->p.ctx.spt; s++) {
				res->slots_checked++;
				if (!gr_check_slot(&r->p.ctx, (const uint8_t *)(uintptr_t)eps[0].remote_addr, t, s))
					res->payload_errors++;
			}
		if (res->payload_errors != 0)
			rc = res->status = marrow_fail(MARROW_EPROTO, "%s: %llu of %llu destination slots hold wrong bytes",
						       fn, (unsigned long long)res->payload_errors,
						       (unsigned long long)res->slots_checked);
	} else if (rc == MARROW_OK) {
		const uint64_t *w = (const uint64_t *)(uintptr_t)eps[0].remote_addr;
		uint64_t lastw = gr_data_word(cfg->warmup + cfg->messages - 1u);
		res->slots_checked = 1;
		if (__atomic_load_n(w, __ATOMIC_ACQUIRE) != lastw) {
			res->payload_errors = 1;
			rc = res->status = marrow_fail(MARROW_EPROTO, "%s: the destination word does not hold the last put",
						       fn);
		}
	}
out:
	free(units);
	free(uar);
	free(dbrec);
	free(qpn);
	free(last);
	free(host_pi);
	free(qs);
	free(qd);
	free(r);
	return rc;
}
