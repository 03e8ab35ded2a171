/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * mini-gda CPU executor: the calling thread plays the GPU's posting thread
 * and, for round trip, a second pthread plays the peer's thread. Both run
 * gda_post.h, the same code the CUDA kernels run. One loop per ordering
 * variant is instantiated below so that the variant is a compile-time
 * constant inside the timed region, as in the kernels.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "gda/gda_dump.h"
#include "gda/gda_validate.h"

/* Largest inline payload we stage: 16 WQEBBs minus the segment headers. */
#define GDA_MAX_INLINE_WORDS 256

struct gda_side {
	struct gda_sq sq;
	struct gda_cq cq;
	const struct marrow_gda_endpoint *ep;
	uint32_t words[GDA_MAX_INLINE_WORDS];
	struct gda_err err;
	uint64_t posts, cqes;
	uint32_t fail_iter;
};

struct gda_run {
	const struct marrow_gda_config *cfg;
	struct gda_side me, peer;
	uint64_t *samples;
	uint64_t payload_errors;
	uint64_t timed_ns;
	uint64_t iters_done;
	int stop;                /* set by whichever side fails first */
	int peer_rc;
};

static void side_init(struct gda_side *s, const struct marrow_gda_endpoint *e)
{
	memset(s, 0, sizeof(*s));
	s->ep = e;
	gda_sq_init(&s->sq, e->qp, e->qp->sq_buf, e->qp->dbrec, e->qp->uar);
	gda_cq_init(&s->cq, e->cq, e->cq->buf, e->cq->dbrec);
}

/* Untimed: this iteration's payload into the staging words (inline) or the
 * registered source buffer (pointer; ordered for the NIC as on the GPU). */
static __attribute__((always_inline)) inline void stage_payload(struct gda_side *s,
								const struct marrow_gda_config *cfg, int ord,
								uint64_t it, struct gda_write *w)
{
	uint32_t nw = (cfg->msg_size + 3u) / 4u;

	memset(w, 0, sizeof(*w));
	w->raddr = s->ep->remote_addr;
	w->rkey = s->ep->rkey;
	w->len = cfg->msg_size;
	if (cfg->payload == MARROW_GDA_PAYLOAD_INLINE) {
		for (uint32_t k = 0; k < nw; k++)
			s->words[k] = gda_pattern_word(it, k);
		w->inline_words = s->words;
	} else {
		uint32_t *src = (uint32_t *)(uintptr_t)s->ep->local_addr;
		for (uint32_t k = 0; k < nw; k++)
			src[k] = gda_pattern_word(it, k);
		gda_order_staged_payload(ord);
		w->laddr = s->ep->local_addr;
		w->lkey = s->ep->lkey;
	}
}

/* The destination must hold exactly this iteration's bytes. */
static int payload_ok(const struct gda_side *s, uint32_t len, uint64_t it)
{
	const volatile uint8_t *dst = (const volatile uint8_t *)(uintptr_t)s->ep->remote_addr;

	for (uint32_t j = 0; j < len; j++) {
		uint32_t w = gda_pattern_word(it, j / 4u);
		if (dst[j] != (uint8_t)(w >> (8u * (j % 4u))))
			return 0;
	}
	return 1;
}

static uint64_t data_word(uint64_t it)
{
	return (uint64_t)gda_pattern_word(it, 0) | ((uint64_t)gda_pattern_word(it, 1) << 32);
}

static int stopped(struct gda_run *r)
{
	return __atomic_load_n(&r->stop, __ATOMIC_RELAXED);
}

/* Round-trip peer: wait for the ping word, write it back, reap the CQE. */
static __attribute__((always_inline)) inline int peer_loop(struct gda_run *r, const int ord)
{
	struct gda_side *s = &r->peer;
	const struct marrow_gda_config *cfg = r->cfg;
	uint64_t total = cfg->warmup + cfg->iters;
	const uint64_t *inbox = (const uint64_t *)(uintptr_t)s->ep->inbox_addr;

	for (uint64_t it = 0; it < total && !stopped(r); it++) {
		struct gda_write w;
		uint32_t idx;
		int rc;

		s->fail_iter = (uint32_t)it;
		rc = gda_wait_word(inbox, data_word(it), ord, cfg->timeout_ns, &s->err);
		if (rc == MARROW_OK) {
			stage_payload(s, cfg, ord, it, &w);
			rc = gda_post_write(&s->sq, ord, &w, &idx);
		}
		if (rc == MARROW_OK) {
			s->posts++;
			rc = gda_wait_cqe(&s->sq, &s->cq, ord, idx, cfg->timeout_ns, &s->err);
		}
		if (rc != MARROW_OK) {
			s->err.status = rc;
			__atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
			return rc;
		}
		s->cqes++;
	}
	return MARROW_OK;
}

/* The initiator's loop; exp and ord are constants after inlining. */
static __attribute__((always_inline)) inline int main_loop(struct gda_run *r, const int ord)
{
	struct gda_side *s = &r->me;
	const struct marrow_gda_config *cfg = r->cfg;
	const uint32_t exp = cfg->experiment;
	uint64_t total = cfg->warmup + cfg->iters;
	const uint64_t *inbox = (const uint64_t *)(uintptr_t)s->ep->inbox_addr;
	uint64_t first = 0, last = 0;

	for (uint64_t it = 0; it < total; it++) {
		struct gda_write w;
		uint64_t t0, t1 = 0;
		uint32_t idx;
		int rc;

		s->fail_iter = (uint32_t)it;
		if (stopped(r))
			return MARROW_ECONNRESET;
		stage_payload(s, cfg, ord, it, &w);
		t0 = gda_now_ns();
		rc = gda_post_write(&s->sq, ord, &w, &idx);
		if (rc != MARROW_OK)
			return s->err.status = rc;
		if (exp == MARROW_GDA_EXP_ISSUE)
			t1 = gda_now_ns();
		s->posts++;
		if (exp == MARROW_GDA_EXP_ROUND_TRIP) {
			rc = gda_wait_word(inbox, data_word(it), ord, cfg->timeout_ns, &s->err);
			t1 = gda_now_ns();
			if (rc == MARROW_OK)
				rc = gda_wait_cqe(&s->sq, &s->cq, ord, idx, cfg->timeout_ns, &s->err);
		} else {
			rc = gda_wait_cqe(&s->sq, &s->cq, ord, idx, cfg->timeout_ns, &s->err);
			if (exp == MARROW_GDA_EXP_PUT_COMPLETION)
				t1 = gda_now_ns();
		}
		if (rc != MARROW_OK)
			return s->err.status = rc;
		s->cqes++;
		/* A remote destination (another host) is not ours to read: its
		 * owner checks the final bytes (marrow_gda_cpu_serve's caller). */
		if (!gda_remote_dst(s->ep) && !payload_ok(s, cfg->msg_size, it))
			r->payload_errors++;
		if (it >= cfg->warmup) {
			r->samples[it - cfg->warmup] = t1 - t0;
			if (it == cfg->warmup)
				first = t0;
			last = t1;
		}
		r->iters_done = it + 1;
	}
	r->timed_ns = last - first;
	return MARROW_OK;
}

#define GDA_INSTANTIATE(name, ORD)                                      \
	static int main_##name(struct gda_run *r) { return main_loop(r, ORD); } \
	static int peer_##name(struct gda_run *r) { return peer_loop(r, ORD); }
GDA_INSTANTIATE(none, GDA_ORD_NONE)
GDA_INSTANTIATE(gpu_fence, GDA_ORD_GPU_FENCE)
GDA_INSTANTIATE(gpu_fence_dbrec, GDA_ORD_GPU_FENCE_DBREC)
GDA_INSTANTIATE(release_gpu, GDA_ORD_RELEASE_GPU)
GDA_INSTANTIATE(threadfence, GDA_ORD_THREADFENCE)
GDA_INSTANTIATE(release_sys, GDA_ORD_RELEASE_SYS)
GDA_INSTANTIATE(fence_sys, GDA_ORD_FENCE_SYS)

typedef int (*gda_loop_fn)(struct gda_run *);
static const gda_loop_fn MAIN_LOOPS[GDA_ORD_COUNT] = {
	main_none, main_gpu_fence, main_gpu_fence_dbrec, main_release_gpu,
	main_threadfence, main_release_sys, main_fence_sys,
};
static const gda_loop_fn PEER_LOOPS[GDA_ORD_COUNT] = {
	peer_none, peer_gpu_fence, peer_gpu_fence_dbrec, peer_release_gpu,
	peer_threadfence, peer_release_sys, peer_fence_sys,
};

static void *peer_thread(void *arg)
{
	struct gda_run *r = arg;
	r->peer_rc = PEER_LOOPS[r->cfg->ordering](r);
	return NULL;
}

static const char *const ORDERING_NAMES[GDA_ORD_COUNT] = {
	"none", "gpu-fence", "gpu-fence-dbrec", "release-gpu", "threadfence", "release-sys", "fence-sys",
};

MARROW_API const char *marrow_gda_ordering_name(int ordering)
{
	return ordering >= 0 && ordering < GDA_ORD_COUNT ? ORDERING_NAMES[ordering] : NULL;
}

/* Turns what a side saw into res fields and one descriptive message. */
static int report(const char *who, struct gda_side *s, int rc, const struct marrow_gda_config *cfg,
		  struct marrow_gda_result *res)
{
	res->status = rc;
	res->fail_iter = s->fail_iter;
	res->cqe_opcode = s->err.opcode;
	res->cqe_syndrome = s->err.syndrome;
	res->cqe_vendor_syndrome = s->err.vendor_syndrome;
	res->cqe_wqe_counter = s->err.wqe_counter;
	res->expected_wqe_counter = s->err.expected;
	if (rc == MARROW_ETIMEDOUT) {
		marrow_fail(rc, "marrow_gda_cpu_run: %s timed out after %llu ns in iteration %u "
			    "(ordering %s): no %s arrived; was the doorbell lost or the NIC engine "
			    "paused? (CQ slot shows opcode %u, wqe_counter %u, expected %u)",
			    who, (unsigned long long)cfg->timeout_ns, s->fail_iter,
			    ORDERING_NAMES[cfg->ordering],
			    strncmp(who, "peer", 4) == 0 ? "ping from the initiator or CQE"
			    : cfg->experiment == MARROW_GDA_EXP_ROUND_TRIP ? "reply or CQE" : "CQE",
			    s->err.opcode, s->err.wqe_counter, s->err.expected);
		return gda_fail_dump(rc, s->ep, &s->err, &s->sq, &s->cq, cfg->timeout_ns, s->fail_iter,
				     data_word(s->fail_iter));
	}
	if (rc == MARROW_EIO)
		return marrow_fail(rc, "marrow_gda_cpu_run: %s got an error CQE in iteration %u: opcode %u, "
				   "syndrome 0x%02x, vendor syndrome 0x%02x, wqe_counter %u",
				   who, s->fail_iter, s->err.opcode, s->err.syndrome, s->err.vendor_syndrome,
				   s->err.wqe_counter);
	if (rc == MARROW_EPROTO)
		return marrow_fail(rc, "marrow_gda_cpu_run: %s got an unexpected CQE in iteration %u: "
				   "wqe_counter %u, expected %u (or another QP's CQE)",
				   who, s->fail_iter, s->err.wqe_counter, s->err.expected);
	return marrow_fail(rc, "marrow_gda_cpu_run: %s failed in iteration %u: %s", who, s->fail_iter,
			   marrow_status_name(rc));
}

MARROW_API int marrow_gda_config_check(const struct marrow_gda_config *cfg)
{
	return gda_check_config("marrow_gda_config_check", cfg);
}

MARROW_API int marrow_gda_cpu_run(const struct marrow_gda_config *cfg,
				  const struct marrow_gda_endpoint *ep,
				  const struct marrow_gda_endpoint *peer,
				  uint64_t *samples_ns, struct marrow_gda_result *res)
{
	static const char fn[] = "marrow_gda_cpu_run";
	struct gda_run *r;
	pthread_t tid;
	int rc, have_peer = 0;

	rc = gda_check_args(fn, cfg, ep, peer, samples_ns, res);
	if (rc == MARROW_OK)
		rc = gda_refuse_gpu_placement(fn, "CPU threads cannot reach it; use the CUDA runner (--target cuda)",
					      ep, cfg->experiment == MARROW_GDA_EXP_ROUND_TRIP ? peer : NULL, res);
	if (rc)
		return rc;
	/* ~2 KiB of staging words: heap, not the caller's stack */
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		return res->status = marrow_fail(MARROW_ENOMEM, "%s: out of memory", fn);
	r->cfg = cfg;
	r->samples = samples_ns;
	side_init(&r->me, ep);
	if (cfg->experiment == MARROW_GDA_EXP_ROUND_TRIP && !gda_remote_dst(ep)) {
		side_init(&r->peer, peer);
		if (pthread_create(&tid, NULL, peer_thread, r) != 0) {
			free(r);
			return res->status = marrow_fail(MARROW_ENOMEM, "%s: cannot start the peer thread", fn);
		}
		have_peer = 1;
	}
	rc = MAIN_LOOPS[cfg->ordering](r);
	if (rc != MARROW_OK)
		__atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
	if (have_peer)
		pthread_join(tid, NULL);

	res->iters_done = r->iters_done;
	res->posts = r->me.posts;
	res->doorbells = r->me.posts;   /* one doorbell per WQE */
	res->cqes = r->me.cqes;
	res->peer_posts = r->peer.posts;
	res->payload_errors = r->payload_errors;
	res->timed_ns = r->timed_ns;
	res->ds = cfg->payload == MARROW_GDA_PAYLOAD_INLINE ? mx_ds_inline_write(cfg->msg_size)
							   : mx_ds_pointer_write(1);
	res->wqebbs_per_wqe = mx_wqebbs(res->ds);

	if (have_peer && r->peer_rc != MARROW_OK && (rc == MARROW_OK || rc == MARROW_ETIMEDOUT ||
						     rc == MARROW_ECONNRESET))
		rc = report("peer", &r->peer, r->peer_rc, cfg, res);
	else if (rc != MARROW_OK)
		rc = report("initiator", &r->me, rc, cfg, res);
	else if (r->payload_errors != 0)
		rc = res->status = marrow_fail(MARROW_EPROTO,
					       "%s: payload validation failed in %llu of %llu iterations "
					       "(ordering %s): the destination did not hold the bytes posted",
					       fn, (unsigned long long)r->payload_errors,
					       (unsigned long long)r->iters_done, ORDERING_NAMES[cfg->ordering]);
	free(r);
	return rc;
}

/* The peer role alone (two hosts): peer_loop on the calling thread, its
 * iteration count the stop condition, every wait bounded. */
MARROW_API int marrow_gda_cpu_serve(const struct marrow_gda_config *cfg,
				    const struct marrow_gda_endpoint *ep,
				    struct marrow_gda_result *res)
{
	static const char fn[] = "marrow_gda_cpu_serve";
	struct gda_run *r;
	int rc;

	rc = gda_check_serve_args(fn, cfg, ep, res);
	if (rc == MARROW_OK)
		rc = gda_refuse_gpu_placement(fn, "CPU threads cannot reach it", ep, NULL, res);
	if (rc)
		return rc;
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		return res->status = marrow_fail(MARROW_ENOMEM, "%s: out of memory", fn);
	r->cfg = cfg;
	side_init(&r->peer, ep);
	rc = PEER_LOOPS[cfg->ordering](r);
	res->iters_done = r->peer.cqes; /* pings answered, each with its CQE */
	res->peer_posts = r->peer.posts;
	res->posts = r->peer.posts;
	res->doorbells = r->peer.posts;
	res->cqes = r->peer.cqes;
	res->ds = mx_ds_inline_write(cfg->msg_size);
	if (cfg->payload == MARROW_GDA_PAYLOAD_POINTER)
		res->ds = mx_ds_pointer_write(1);
	res->wqebbs_per_wqe = mx_wqebbs(res->ds);
	if (rc != MARROW_OK)
		rc = report("peer (serving the remote initiator)", &r->peer, rc, cfg, res);
	free(r);
	return rc;
}
