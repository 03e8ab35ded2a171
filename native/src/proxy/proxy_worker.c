/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * The proxy worker: one pinned thread per worker, owning one QP (any
 * backend) and the rings r with r % T == its index. Each pass it
 *  1. drains up to B valid descriptors, visiting its rings round-robin from
 *     a rotating start so that no ring starves, and returns their slots at
 *     once (tail release-store: the descriptor was copied out);
 *  2. posts them as one chain whose last request is signaled;
 *  3. polls the CQ and turns "WQEs up to k retired" into per-ring
 *     completion counters (release stores the producers poll).
 * Stop is checked every pass, so marrow_proxy_stop never waits on a ring.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proxy_internal.h"

enum { PX_DRAIN_NS = 200000000ull }; /* outstanding WQEs get this long on stop */

int px_worker_setup(struct px_worker *w, const struct px_backend_ops *ops, void *be, uint32_t sq_depth)
{
	struct marrow_proxy *px = w->px;
	uint32_t T = px->cfg.workers, n = 0;

	for (uint32_t r = w->index; r < px->cfg.rings; r += T)
		n++;
	w->nrings = n;
	w->rings = calloc(n, sizeof(*w->rings));
	w->tails = calloc(n, sizeof(*w->tails));
	w->cpl = calloc(n, sizeof(*w->cpl));
	w->wqe_ring = calloc(sq_depth, sizeof(*w->wqe_ring));
	w->batch = calloc(px->cfg.batch, sizeof(*w->batch));
	if (!w->rings || !w->tails || !w->cpl || !w->wqe_ring || !w->batch)
		return marrow_fail(MARROW_ENOMEM, "proxy worker %u: out of memory", w->index);
	for (uint32_t i = 0; i < n; i++)
		w->rings[i] = w->index + i * T;
	w->ops = ops;
	w->be = be;
	w->sq_depth = sq_depth;
	return MARROW_OK;
}

static void set_state(struct px_worker *w, uint64_t s)
{
	for (uint32_t i = 0; i < w->nrings; i++)
		px_st_rel(&w->px->rings[w->rings[i]].ctl->worker_state, s);
	__atomic_store_n(&w->st.state, (uint32_t)s, __ATOMIC_RELEASE);
}

static void fail(struct px_worker *w, int rc)
{
	snprintf(w->errmsg, sizeof(w->errmsg), "%s", marrow_last_error());
	__atomic_store_n(&w->st.error, rc, __ATOMIC_RELEASE);
	set_state(w, MPR_WORKER_FAILED);
}

static inline void publish_cpl(struct px_ring *ring, uint64_t v)
{
	px_st_rel(ring->cpl_target, v);
#if defined(__x86_64__)
	/* A GDRCopy mapping is write-combining: drain the WC buffer so the GPU
	 * sees the counter now, not when the buffer happens to be evicted. */
	if (ring->cpl_flush)
		__builtin_ia32_sfence();
#endif
}

/* Attributes retired WQEs [w->ci, upto) to their rings and publishes the
 * rings' completion counters. */
static void complete(struct px_worker *w, uint64_t upto)
{
	uint32_t mask = w->sq_depth - 1;
	uint32_t last = UINT32_MAX;

	for (uint64_t j = w->ci; j < upto; j++) {
		uint32_t lr = w->wqe_ring[j & mask];

		w->cpl[lr]++;
		if (lr != last && last != UINT32_MAX)
			publish_cpl(&w->px->rings[w->rings[last]], w->cpl[last]);
		last = lr;
	}
	if (last != UINT32_MAX)
		publish_cpl(&w->px->rings[w->rings[last]], w->cpl[last]);
	w->ci = upto;
}

static int check_desc(struct px_worker *w, uint32_t ring, uint64_t pos, uint64_t w0, uint64_t w1)
{
	const struct marrow_proxy *px = w->px;
	uint64_t size = mpr_size(w1);

	if (PX_UNLIKELY(mpr_opcode(w1) != MPR_OP_WRITE || mpr_dst(w1) != 0 || size == 0 ||
			mpr_local_off(w0) + size > px->mem.len || mpr_remote_off(w0) + size > px->mem.len))
		return marrow_fail(MARROW_EPROTO,
				   "proxy worker %u: ring %u position %llu: bad descriptor (opcode %u dst %u size %llu "
				   "local %u remote %u; buffer %llu bytes)",
				   w->index, ring, (unsigned long long)pos, mpr_opcode(w1), mpr_dst(w1),
				   (unsigned long long)size, mpr_local_off(w0), mpr_remote_off(w0),
				   (unsigned long long)px->mem.len);
	if (px->cfg.check_order && PX_UNLIKELY(mpr_tag(w1) != (pos & MPR_TAG_MASK)))
		return marrow_fail(MARROW_EPROTO,
				   "proxy worker %u: ring %u position %llu holds tag %u: out of ring order (expected %llu)",
				   w->index, ring, (unsigned long long)pos, mpr_tag(w1),
				   (unsigned long long)(pos & MPR_TAG_MASK));
	return MARROW_OK;
}

static void publish_stats(struct px_worker *w, const struct marrow_proxy_worker_stats *l)
{
	__atomic_store_n(&w->st.requests, l->requests, __ATOMIC_RELAXED);
	__atomic_store_n(&w->st.chains, l->chains, __ATOMIC_RELAXED);
	__atomic_store_n(&w->st.polls, l->polls, __ATOMIC_RELAXED);
	__atomic_store_n(&w->st.empty_polls, l->empty_polls, __ATOMIC_RELAXED);
	__atomic_store_n(&w->st.cqes, l->cqes, __ATOMIC_RELAXED);
	__atomic_store_n(&w->st.sq_full, l->sq_full, __ATOMIC_RELAXED);
}

void *px_worker_main(void *arg)
{
	struct px_worker *w = arg;
	struct marrow_proxy *px = w->px;
	const uint32_t log = px->cfg.log_slots, smask = px->slots - 1, B = px->cfg.batch;
	struct marrow_proxy_worker_stats l = { 0 };
	uint32_t start = 0;
	char name[16];
	int rc;

	snprintf(name, sizeof(name), "marrow-px%u", w->index);
	pthread_setname_np(pthread_self(), name);
	rc = px_pin_self(w->cpu_req);
	__atomic_store_n(&w->st.cpu, sched_getcpu(), __ATOMIC_RELAXED);
	if (rc != MARROW_OK) {
		fail(w, rc);
		return NULL;
	}
	set_state(w, MPR_WORKER_RUNNING);
	while (!__atomic_load_n(&w->stop, __ATOMIC_RELAXED)) {
		uint32_t n = 0, lim = B;
		uint64_t avail = w->sq_depth - (w->pi - w->ci);

		l.polls++;
		if (avail < lim)
			lim = (uint32_t)avail;
		if (lim == 0)
			l.sq_full++;
		for (uint32_t k = 0; k < w->nrings && n < lim; k++) {
			uint32_t lr = start + k < w->nrings ? start + k : start + k - w->nrings;
			struct px_ring *ring = &px->rings[w->rings[lr]];
			uint64_t t = w->tails[lr];

			while (n < lim) {
				const struct mpr_desc *d = &ring->slots[t & smask];
				uint64_t w1 = px_ld_acq(&d->w1), w0;

				if (!mpr_valid(w1, t, log))
					break;
				w0 = __atomic_load_n(&d->w0, __ATOMIC_RELAXED);
				rc = check_desc(w, w->rings[lr], t, w0, w1);
				if (rc != MARROW_OK)
					goto failed;
				w->batch[n] = (struct px_req){ mpr_local_off(w0), mpr_remote_off(w0), mpr_size(w1),
							      (uint16_t)lr };
				w->wqe_ring[(w->pi + n) & (w->sq_depth - 1)] = (uint16_t)lr;
				n++;
				t++;
			}
			if (t != w->tails[lr]) {
				w->tails[lr] = t;
				/* The descriptors are copied into batch[]: the slots may be reused now. */
				px_st_rel(&ring->ctl->tail, t);
			}
		}
		if (++start >= w->nrings)
			start = 0;
		if (n) {
			rc = w->ops->post(w->be, w->batch, n, w->pi);
			if (rc != MARROW_OK)
				goto failed;
			w->pi += n;
			l.requests += n;
			l.chains++;
		} else {
			l.empty_polls++;
			if (w->px->cfg.yield_idle)
				sched_yield(); /* oversubscribed: give the core to a thread with work */
		}
		if (w->pi != w->ci) {
			uint64_t upto = w->ci;

			rc = w->ops->poll(w->be, &upto, &l.cqes);
			if (upto != w->ci)
				complete(w, upto);
			if (rc != MARROW_OK)
				goto failed;
		}
		publish_stats(w, &l);
	}
	/* Let posted WQEs finish so the QP is quiet before anyone destroys it. */
	for (uint64_t end = px_now_ns() + PX_DRAIN_NS; w->pi != w->ci && px_now_ns() < end;) {
		uint64_t upto = w->ci;

		rc = w->ops->poll(w->be, &upto, &l.cqes);
		if (upto != w->ci)
			complete(w, upto);
		if (rc != MARROW_OK)
			goto failed;
	}
	publish_stats(w, &l);
	set_state(w, MPR_WORKER_STOPPED);
	return NULL;
failed:
	publish_stats(w, &l);
	fail(w, rc);
	return NULL;
}
