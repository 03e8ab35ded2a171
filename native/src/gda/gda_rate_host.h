/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Host side of the mini-gda rate runners, shared by the CPU executor
 * (gda_rate_cpu.c) and the CUDA runner (gda_rate.cu): the check of a
 * configuration and what it implies (struct gda_rate_plan), each QP's WQE
 * total, the CPU thread that rings doorbells for GPU-built WQEs, and the
 * watchdog dump of a wait that timed out (docs/design/watchdog.md).
 * Plain C over host pointers only.
 */
#ifndef MARROW_GDA_RATE_HOST_H
#define MARROW_GDA_RATE_HOST_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include <stdio.h>

#include "common/marrow_common.h"
#include "common/marrow_dump.h"
#include "marrow/gda_rate_post.h"

/* What a configuration implies. ctx's pointers are filled by the runner. */
struct gda_rate_plan {
	struct gda_rate_ctx ctx;
	uint32_t nthreads;     /* blocks x threads */
	uint32_t lanes;        /* WARP: lanes per warp */
	uint32_t per;          /* WQEs per thread per round */
	uint32_t n_q;          /* endpoints: qps, or qps + 1 for SCOPE */
	uint64_t rounds;       /* (warmup + messages) / per */
	uint64_t warm_rounds;
};

#define GDA_RATE_MAX_THREADS_CPU 4096u

static inline int gda_rate_bad(const char *fn, struct marrow_gda_rate_result *res, const char *what)
{
	res->status = MARROW_EINVAL;
	return marrow_fail(MARROW_EINVAL, "%s: %s", fn, what);
}

/* 1 when every QP has at most one posting thread for the whole run, so
 * the single-poster path (gda_rate_post.h) applies: LOCK or SLOT
 * publication (under WARP a warp's lanes share the QP), and a mapping that
 * sends no two threads to one QP (SHARED only with one thread, which then
 * is the only poster of every QP), with at most GDA_RATE_SOLO_MAX_THREADS
 * threads per block (so the CPU executor takes the path where the kernel
 * does). The kernels derive the QP from the
 * same unit (gr_qp_of), so this is known before the launch. */
#define GDA_RATE_SOLO_MAX_THREADS 256u /* per block: the register budget of rate_solo_kernel (gda_rate.cu) */

static inline int gda_rate_one_poster_per_qp(const struct marrow_gda_rate_config *cfg, uint32_t nthreads)
{
	uint32_t wpb = (cfg->threads + 31u) / 32u;

	if (cfg->publication == MARROW_GDA_RATE_PUB_WARP || cfg->threads > GDA_RATE_SOLO_MAX_THREADS)
		return 0;
	switch (cfg->qp_map) {
	case MARROW_GDA_RATE_QP_SHARED:
		return nthreads == 1u;
	case MARROW_GDA_RATE_QP_PER_THREAD:
		return nthreads <= cfg->qps;
	case MARROW_GDA_RATE_QP_PER_WARP:
		return cfg->threads == 1u && cfg->blocks * wpb <= cfg->qps;
	default: /* PER_BLOCK */
		return cfg->threads == 1u && cfg->blocks <= cfg->qps;
	}
}

/* Checks cfg and the endpoints (all of the given placement: HOST for the
 * public runners, GPU for the device engine's queues); fills the plan.
 * MARROW_EINVAL names the offending field. */
static inline int gda_rate_plan_make(const char *fn, const struct marrow_gda_rate_config *cfg,
				     const struct marrow_gda_endpoint *eps, uint32_t n_eps,
				     uint64_t *samples, struct marrow_gda_rate_result *res,
				     uint32_t placement, struct gda_rate_plan *p)
{
	char msg[256];
	uint32_t sq_wqes = 0xffffffffu;
	int scope;

	if (res == NULL || res->size != sizeof(*res))
		return marrow_fail(MARROW_EINVAL, "%s: result is NULL or of the wrong size", fn);
	if (cfg == NULL || cfg->size != sizeof(*cfg) || eps == NULL)
		return gda_rate_bad(fn, res, "config is NULL or of the wrong size, or no endpoints");
	memset(p, 0, sizeof(*p));
	scope = cfg->experiment == MARROW_GDA_RATE_EXP_SCOPE;
	if (cfg->experiment > MARROW_GDA_RATE_EXP_SCOPE)
		return gda_rate_bad(fn, res, "experiment must be rate or scope");
	if (cfg->publication > MARROW_GDA_RATE_PUB_WARP)
		return gda_rate_bad(fn, res, "publication must be lock, slot or warp");
	if (cfg->qp_map > MARROW_GDA_RATE_QP_SHARED)
		return gda_rate_bad(fn, res, "qp_map must be block, warp, thread or shared");
	if (cfg->doorbell > MARROW_GDA_RATE_DB_HOST)
		return gda_rate_bad(fn, res, "doorbell must be device or host");
	if (cfg->scope > MARROW_GDA_RATE_SCOPE_SIGNAL)
		return gda_rate_bad(fn, res, "scope must be all-qp, used-qp, per-qp or signal");
	if (cfg->ordering >= GDA_ORD_COUNT)
		return gda_rate_bad(fn, res, "ordering out of range");
	if (cfg->path > MARROW_GDA_RATE_PATH_SHARED)
		return gda_rate_bad(fn, res, "path must be auto or shared");
	if (cfg->blocks < 1 || cfg->blocks > 132 || cfg->threads < 1 || cfg->threads > 1024)
		return gda_rate_bad(fn, res, "blocks must be 1..132 and threads per block 1..1024");
	if (cfg->qps < 1 || cfg->qps > 512)
		return gda_rate_bad(fn, res, "qps must be 1..512");
	if (cfg->batch < 1 || cfg->batch > 256)
		return gda_rate_bad(fn, res, "batch (WQEs per doorbell) must be 1..256");
	if (cfg->signal_period < 1)
		return gda_rate_bad(fn, res, "signal period must be >= 1");
	if (cfg->messages < 1 || cfg->timeout_ns == 0)
		return gda_rate_bad(fn, res, "messages must be >= 1 and timeout_ns > 0");
	if (cfg->payload == MARROW_GDA_PAYLOAD_INLINE ? (cfg->msg_size < 8 || cfg->msg_size > 220)
	    : cfg->payload == MARROW_GDA_PAYLOAD_POINTER ? (cfg->msg_size < 8 || cfg->msg_size > MARROW_GDA_RATE_MAX_POINTER_SIZE)
	    : 1) {
		snprintf(msg, sizeof(msg), "size must be 8..220 bytes inline or 8..%u bytes pointer",
			 (unsigned)MARROW_GDA_RATE_MAX_POINTER_SIZE);
		return gda_rate_bad(fn, res, msg);
	}
	p->n_q = cfg->qps + (scope ? 1u : 0u);
	if (n_eps != p->n_q) {
		snprintf(msg, sizeof(msg), "%u endpoints given, %u needed (%s)", n_eps, p->n_q,
			 scope ? "qps + 1: the last is the signal peer's QP" : "one per QP");
		return gda_rate_bad(fn, res, msg);
	}
	for (uint32_t i = 0; i < n_eps; i++) {
		const struct marrow_gda_endpoint *e = &eps[i];
		if (e->size != sizeof(*e) || e->qp == NULL || e->cq == NULL || e->qp->sq_buf == NULL ||
		    e->cq->buf == NULL)
			return gda_rate_bad(fn, res, "an endpoint is malformed (size, qp or cq view missing)");
		if (e->placement != placement)
			return gda_rate_bad(fn, res, placement == MARROW_GDA_PLACEMENT_HOST
					    ? "only host-placed queues are supported"
					    : "the device engine's queues must all be GPU-placed");
		if (e->cq->flags & MARROW_EMU_CQ_COLLAPSED)
			return gda_rate_bad(fn, res, "collapsed CQs are not supported: reclamation reads every CQE");
		if (cfg->payload == MARROW_GDA_PAYLOAD_INLINE && cfg->msg_size > e->qp->max_inline_data)
			return gda_rate_bad(fn, res, "inline size exceeds a QP's max_inline_data");
		if (e->remote_addr != eps[0].remote_addr || e->rkey != eps[0].rkey || e->local_addr != eps[0].local_addr)
			return gda_rate_bad(fn, res, "all endpoints must name the same source and destination buffers");
	}
	p->ctx.inl = cfg->payload == MARROW_GDA_PAYLOAD_INLINE;
	p->ctx.ds = p->ctx.inl ? mx_ds_inline_write(cfg->msg_size) : mx_ds_pointer_write(1);
	p->ctx.nbb = mx_wqebbs(p->ctx.ds);
	for (uint32_t i = 0; i < n_eps; i++)
		if (eps[i].qp->sq_wqe_cnt / p->ctx.nbb < sq_wqes)
			sq_wqes = eps[i].qp->sq_wqe_cnt / p->ctx.nbb;
	p->ctx.batch = scope ? 1u : cfg->batch;
	p->ctx.pub = cfg->publication;
	p->ctx.cap = cfg->window < sq_wqes ? cfg->window : sq_wqes;
	if (scope) /* one put outstanding at a time */
		p->ctx.cap = 1;
	if (p->ctx.cap < p->ctx.batch) {
		snprintf(msg, sizeof(msg), "window %u (the SQ holds %u WQEs) is smaller than one batch of %u", cfg->window,
			 sq_wqes, p->ctx.batch);
		return gda_rate_bad(fn, res, msg);
	}
	p->ctx.k = scope ? 1u : cfg->signal_period;
	if (p->ctx.k > p->ctx.cap - p->ctx.batch + 1u)
		p->ctx.k = p->ctx.cap - p->ctx.batch + 1u;
	for (uint32_t i = 0; i < n_eps; i++)
		if ((uint64_t)eps[i].cq->cqe_cnt < (uint64_t)p->ctx.cap / p->ctx.k + 2u)
			return gda_rate_bad(fn, res, "a send CQ is too small for the window / signal period "
					    "(needs window / period + 2 entries)");
	p->nthreads = scope ? 1u : cfg->blocks * cfg->threads;
	if (cfg->publication == MARROW_GDA_RATE_PUB_WARP && !scope) {
		p->lanes = cfg->threads < 32u ? cfg->threads : 32u;
		if (cfg->threads > 32u && cfg->threads % 32u != 0u)
			return gda_rate_bad(fn, res, "warp publication needs threads per block <= 32 or a multiple of 32");
		if (cfg->batch % p->lanes != 0u) {
			snprintf(msg, sizeof(msg), "warp publication: batch %u must be a multiple of the %u lanes of a warp "
				 "(each lane fills batch / lanes WQEs per doorbell)", cfg->batch, p->lanes);
			return gda_rate_bad(fn, res, msg);
		}
		if (cfg->qp_map == MARROW_GDA_RATE_QP_PER_THREAD)
			return gda_rate_bad(fn, res, "warp publication puts a warp's lanes on one QP: qp_map must be "
					    "block, warp or shared");
		p->per = cfg->batch / p->lanes;
	} else {
		p->lanes = 1;
		p->per = p->ctx.batch;
	}
	if (cfg->messages % p->per != 0u || cfg->warmup % p->per != 0u) {
		snprintf(msg, sizeof(msg), "messages and warm-up per thread must be multiples of %u (WQEs a thread "
			 "posts per doorbell)", p->per);
		return gda_rate_bad(fn, res, msg);
	}
	p->ctx.mtot = cfg->warmup + cfg->messages;
	p->rounds = p->ctx.mtot / p->per;
	p->warm_rounds = cfg->warmup / p->per;
	if ((uint64_t)p->nthreads * p->ctx.mtot >= (1ull << 31))
		return gda_rate_bad(fn, res, "threads x (warm-up + messages) must stay below 2^31 WQEs");
	p->ctx.msg_size = cfg->msg_size;
	p->ctx.stride = (cfg->msg_size + 63u) & ~63u;
	p->ctx.spt = (uint32_t)((eps[0].remote_len / p->ctx.stride) / p->nthreads);
	if (p->ctx.spt == 0 || (!p->ctx.inl && eps[0].local_len < eps[0].remote_len))
		return gda_rate_bad(fn, res, "the destination buffer holds less than one slot per thread (or the "
				    "source buffer is smaller than the destination)");
	if (scope && (samples == NULL || eps[0].remote_len < 128))
		return gda_rate_bad(fn, res, "scope needs samples and a destination of >= 128 bytes");
	p->ctx.dst_base = eps[0].remote_addr;
	p->ctx.src_base = eps[0].local_addr;
	p->ctx.rkey = eps[0].rkey;
	p->ctx.lkey = eps[0].lkey;
	p->ctx.timeout_ns = cfg->timeout_ns;
	p->ctx.ord = cfg->ordering;
	p->ctx.doorbell = cfg->doorbell;
	p->ctx.gpu_q = placement == MARROW_GDA_PLACEMENT_GPU;
	p->ctx.solo = !scope && cfg->path == MARROW_GDA_RATE_PATH_AUTO && gda_rate_one_poster_per_qp(cfg, p->nthreads);
	res->path = p->ctx.solo ? MARROW_GDA_RATE_PATH_SOLO : MARROW_GDA_RATE_PATH_SHARED;
	res->signal_period_effective = p->ctx.k;
	res->window_effective = p->ctx.cap;
	res->wqebbs_per_wqe = p->ctx.nbb;
	return MARROW_OK;
}

/* Each QP's WQE total of the run (the last one is signaled). RATE only. */
static inline void gda_rate_totals(const struct marrow_gda_rate_config *cfg, const struct gda_rate_plan *p,
				   struct gda_rate_qstate *qs)
{
	uint32_t warps_per_block = (cfg->threads + 31u) / 32u;

	for (uint32_t b = 0; b < cfg->blocks; b++) {
		if (cfg->publication == MARROW_GDA_RATE_PUB_WARP) {
			for (uint32_t w = 0; w < warps_per_block; w++) {
				uint32_t gw = b * warps_per_block + w;
				uint32_t unit = cfg->qp_map == MARROW_GDA_RATE_QP_PER_BLOCK ? b : gw;
				for (uint64_t r = 0; r < p->rounds; r++)
					qs[gr_qp_of(cfg->qp_map, cfg->qps, unit, r)].total += cfg->batch;
			}
			continue;
		}
		for (uint32_t t = 0; t < cfg->threads; t++) {
			uint32_t g = b * cfg->threads + t;
			uint32_t unit = cfg->qp_map == MARROW_GDA_RATE_QP_PER_BLOCK ? b
				      : cfg->qp_map == MARROW_GDA_RATE_QP_PER_WARP ? b * warps_per_block + t / 32u : g;
			if (cfg->qp_map != MARROW_GDA_RATE_QP_SHARED) {
				qs[gr_qp_of(cfg->qp_map, cfg->qps, unit, 0)].total += (uint32_t)(p->rounds * p->per);
				continue;
			}
			for (uint64_t r = 0; r < p->rounds; r++)
				qs[gr_qp_of(cfg->qp_map, cfg->qps, unit, r)].total += p->per;
		}
	}
}

/* ---- host-rung doorbells ------------------------------------------------------
 * A CPU thread passes over every QP's host-visible producer index (WQEs);
 * when one moved, it stores the doorbell record and rings the doorbell for
 * it, as a CPU poster would. */
struct gda_rate_ringer {
	uint32_t n;
	uint32_t nbb;
	const uint32_t *host_pi;  /* n words the posters write */
	uint32_t **dbrec;         /* host addresses */
	uint64_t **uar;
	const uint32_t *qpn;
	uint32_t *last;
	int cpu;                  /* pin to this CPU (-1: no) */
	int stop;
	int pin_rc;
	uint64_t rings, polls;
	pthread_t tid;
};

static inline void *gda_rate_ringer_main(void *arg)
{
	struct gda_rate_ringer *r = (struct gda_rate_ringer *)arg;
	uint32_t idle = 0;

	if (r->cpu >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(r->cpu, &set);
		r->pin_rc = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		int moved = 0;
		for (uint32_t q = 0; q < r->n; q++) {
			uint32_t v = __atomic_load_n(&r->host_pi[q], __ATOMIC_ACQUIRE);
			if (v == r->last[q])
				continue;
			uint32_t pi = v * r->nbb;
			__atomic_store_n(&r->dbrec[q][MX_DBR_SND], mx_dbrec_send_value(pi), __ATOMIC_RELEASE);
			__atomic_store_n(r->uar[q], mx_doorbell_value((uint16_t)pi, 0, r->qpn[q], 0), __ATOMIC_RELEASE);
#if defined(__x86_64__)
			__builtin_ia32_sfence(); /* a ConnectX UAR is write-combining: flush the doorbell */
#endif
			r->last[q] = v;
			r->rings++;
			moved = 1;
		}
		r->polls++;
		if (!moved && (++idle & 1023u) == 0u)
			sched_yield();
	}
	return NULL;
}

/* ---- watchdog dump ------------------------------------------------------------ */
static inline const char *gda_rate_wait_name(uint32_t w)
{
	static const char *const names[] = {"none", "ring_space", "sq_lock", "ready_head", "drain", "echo_word"};
	return w < 6 ? names[w] : "unknown";
}

/* st: the failed poster's stats; qs: the QP's shared state as last seen
 * (host copy). Appends the dump to the message already set. */
static inline int gda_rate_fail_dump(int status, const char *fn, const struct marrow_gda_endpoint *ep,
				     const struct gda_rate_qstate *qs, uint32_t nbb, const struct gda_rate_tstats *st,
				     uint32_t thread, uint64_t bound_ns)
{
	struct marrow_dump d;
	struct marrow_dump_sq s;
	struct marrow_dump_cq c;
	uint32_t log = 0;

	if (status == MARROW_EIO)
		marrow_fail(status, "%s: thread %u got an error CQE on QP %u: opcode %u, syndrome 0x%02x", fn, thread,
			    st->qp, st->cqe_opcode, st->cqe_syndrome);
	else
		marrow_fail(status, "%s: thread %u timed out after %llu ns waiting for %s on QP %u (saw %u, wanted %u); "
			    "was a doorbell lost or the NIC engine paused?", fn, thread, (unsigned long long)bound_ns,
			    gda_rate_wait_name(st->wait), st->qp, st->seen, st->want);
	while ((1u << log) < ep->cq->cqe_cnt)
		log++;
	memset(&s, 0, sizeof(s));
	memset(&c, 0, sizeof(c));
	marrow_dump_init(&d);
	marrow_dump_kv(&d, "waited_for", "%s", gda_rate_wait_name(st->wait));
	marrow_dump_kv(&d, "bound_ms", "%llu", (unsigned long long)(bound_ns / 1000000u));
	marrow_dump_kv(&d, "thread", "%u", thread);
	marrow_dump_kv(&d, "qp_index", "%u", st->qp);
	marrow_dump_kv(&d, "reserved_wqes", "%u", qs->resv);
	marrow_dump_kv(&d, "ready_head", "%u", qs->ready);
	marrow_dump_kv(&d, "complete_wqes", "%u", qs->ci);
	marrow_dump_kv(&d, "qp_total", "%u", qs->total);
	s.qpn = ep->qp->qpn;
	s.dbrec = ep->qp->dbrec;
	s.has_pi = s.has_ci = 1;
	s.pi = qs->ready * nbb;
	s.ci = qs->ci * nbb;
	c.cqn = ep->cq->cqn;
	c.buf = (const uint8_t *)ep->cq->buf;
	c.dbrec = ep->cq->dbrec;
	c.log_cnt = log;
	c.has_ci = 1;
	c.ci = qs->cq_ci;
	marrow_dump_sq(&d, &s);
	marrow_dump_cq(&d, &c);
	return marrow_fail_dump(status, &d);
}

#endif /* MARROW_GDA_RATE_HOST_H */
