/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * CPU producers: the two handoff protocols as a CPU thread performs them
 * (the GPU versions are in proxy_cuda.cu and follow the same steps).
 *
 * baseline: an atomic fetch-add on the ring's head reserves the slot (any
 *   number of producers per ring); the worker's progress (tail) is read
 *   from host memory on every enqueue; w0 is stored, then w1 carrying the
 *   validity bit is published with a release store.
 * tuned: one producer per ring keeps head privately and a cached copy of
 *   the tail, reloaded only when the ring looks full; the whole descriptor,
 *   validity included, goes out as one 16-byte store.
 *
 * Every wait is bounded by a deadline; on expiry the error names the ring,
 * its counters and the state of the worker that owns it.
 */
#include <stdio.h>
#if defined(__x86_64__)
#include <emmintrin.h>
#endif

#include "proxy_internal.h"

/* One word per state, for the dump's worker_state. */
static const char *mpr_worker_state_key(uint64_t s)
{
	switch (s) {
	case MPR_WORKER_IDLE: return "idle";
	case MPR_WORKER_RUNNING: return "running";
	case MPR_WORKER_STOPPED: return "stopped";
	case MPR_WORKER_FAILED: return "failed";
	default: return "unknown";
	}
}

const char *px_worker_state_name(uint64_t s)
{
	switch (s) {
	case MPR_WORKER_IDLE: return "not started";
	case MPR_WORKER_RUNNING: return "running but making no progress";
	case MPR_WORKER_STOPPED: return "stopped";
	case MPR_WORKER_FAILED: return "failed";
	default: return "in an unknown state";
	}
}

/* The watchdog dump of a ring wait (docs/design/watchdog.md): the ring's
 * counters, the owning worker's published statistics and, where the
 * backend can say, its QP's queues. */
static int ring_dump(struct marrow_proxy *px, uint32_t ring, const char *waited, uint64_t pos,
		     uint64_t bound_ns)
{
	const struct px_ring *r = &px->rings[ring];
	const struct px_worker *w = &px->workers[ring % px->cfg.workers];
	struct marrow_dump d;

	marrow_dump_init(&d);
	marrow_dump_kv(&d, "waited_for", "%s", waited);
	marrow_dump_kv(&d, "bound_ms", "%llu", (unsigned long long)(bound_ns / 1000000u));
	marrow_dump_kv(&d, "ring", "%u", ring);
	marrow_dump_kv(&d, "position", "%llu", (unsigned long long)pos);
	/* (a tuned producer's head is private to it; position says where it was) */
	marrow_dump_kv(&d, "head", "%llu", (unsigned long long)px_ld_acq(&r->ctl->head));
	marrow_dump_kv(&d, "tail", "%llu", (unsigned long long)px_ld_acq(&r->ctl->tail));
	marrow_dump_kv(&d, "completed", "%llu", (unsigned long long)px_ld_acq(r->cpl_target));
	marrow_dump_kv(&d, "slots", "%u", px->slots);
	marrow_dump_kv(&d, "worker", "%u", w->index);
	marrow_dump_kv(&d, "worker_state", "%s", mpr_worker_state_key(px_ld_acq(&r->ctl->worker_state)));
	marrow_dump_kv(&d, "worker_requests", "%llu",
		       (unsigned long long)__atomic_load_n(&w->st.requests, __ATOMIC_RELAXED));
	marrow_dump_kv(&d, "worker_chains", "%llu",
		       (unsigned long long)__atomic_load_n(&w->st.chains, __ATOMIC_RELAXED));
	marrow_dump_kv(&d, "worker_cqes", "%llu", (unsigned long long)__atomic_load_n(&w->st.cqes, __ATOMIC_RELAXED));
	marrow_dump_kv(&d, "worker_sq_full", "%llu",
		       (unsigned long long)__atomic_load_n(&w->st.sq_full, __ATOMIC_RELAXED));
	if (w->ops != NULL && w->ops->describe != NULL && w->be != NULL)
		w->ops->describe(w->be, &d);
	return marrow_fail_dump(MARROW_ETIMEDOUT, &d);
}

static int ring_timeout(struct marrow_proxy *px, uint32_t ring, const char *what, uint64_t pos,
			uint64_t bound_ns)
{
	const struct mpr_ctl *c = px->rings[ring].ctl;
	uint32_t w = ring % px->cfg.workers;
	uint64_t st = px_ld_acq(&c->worker_state);

	marrow_fail(MARROW_ETIMEDOUT,
		    "proxy ring %u: timed out waiting for %s (position %llu, worker progress %llu, completed %llu, "
		    "%u slots): worker %u is %s%s%s",
		    ring, what, (unsigned long long)pos, (unsigned long long)px_ld_acq(&c->tail),
		    (unsigned long long)px_ld_acq(px->rings[ring].cpl_target), px->slots, w,
		    px_worker_state_name(st), st == MPR_WORKER_FAILED ? ": " : "",
		    st == MPR_WORKER_FAILED ? px->workers[w].errmsg : "");
	return ring_dump(px, ring, what[2] == 'f' ? "free_slot" : "completion", pos, bound_ns);
}

static inline void store16(struct mpr_desc *d, uint64_t w0, uint64_t w1)
{
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
	/* (ThreadSanitizer cannot model a 16-byte SSE store as atomic; its
	 * builds take the portable path below, the one aarch64 runs.)
	 * One aligned 16-byte store: single-copy atomic on AVX-capable x86
	 * (Intel SDM 8.1.1, AMD APM 7.3.2); TSO orders it after earlier stores
	 * (e.g. the payload). The compiler barrier keeps it that way. */
	__asm__ __volatile__("" ::: "memory");
	_mm_store_si128((__m128i *)d, _mm_set_epi64x((long long)w1, (long long)w0));
#else
	/* No portable 16-byte store: w0 first, then w1 with release, which the
	 * consumer's acquire on w1 pairs with. */
	__atomic_store_n(&d->w0, w0, __ATOMIC_RELAXED);
	__atomic_store_n(&d->w1, w1, __ATOMIC_RELEASE);
#endif
}

/* Test instrumentation (check_order): the tag becomes the ring position,
 * known only after reservation, so the worker can verify ring order. */
static inline uint64_t order_tag(const struct marrow_proxy *px, uint64_t w1, uint64_t h)
{
	if (!px->cfg.check_order)
		return w1;
	return (w1 & ~((uint64_t)MPR_TAG_MASK << 48)) | ((h & MPR_TAG_MASK) << 48);
}

int px_enqueue(struct marrow_proxy *px, uint32_t ring, uint32_t handoff, uint64_t w0, uint64_t w1,
	       uint64_t timeout_ns, uint64_t *ticket)
{
	struct px_ring *r = &px->rings[ring];
	const uint32_t log = px->cfg.log_slots, N = px->slots;
	uint64_t h, deadline = 0;

	if (handoff == MARROW_PROXY_TUNED) {
		h = r->prod_head;
		if (PX_UNLIKELY(h - r->prod_cached_tail >= N)) {
			r->full_waits++;
			deadline = px_now_ns() + timeout_ns;
			for (;;) {
				r->prod_cached_tail = px_ld_acq(&r->ctl->tail);
				r->refreshes++;
				if (h - r->prod_cached_tail < N)
					break;
				if (px_now_ns() > deadline)
					return ring_timeout(px, ring, "a free slot", h, timeout_ns);
				px_idle(px);
			}
		}
		store16(&r->slots[h & (N - 1)], w0, order_tag(px, w1, h) | mpr_lap_bit(h, log));
		r->prod_head = h + 1;
	} else {
		struct mpr_desc *d;
		int waited = 0;

		h = __atomic_fetch_add(&r->ctl->head, 1, __ATOMIC_ACQ_REL);
		while (h - px_ld_acq(&r->ctl->tail) >= N) {
			if (!waited) {
				__atomic_fetch_add(&r->full_waits, 1, __ATOMIC_RELAXED);
				deadline = px_now_ns() + timeout_ns;
			}
			waited = 1;
			if (px_now_ns() > deadline)
				return ring_timeout(px, ring, "a free slot", h, timeout_ns);
			px_idle(px);
		}
		d = &r->slots[h & (N - 1)];
		__atomic_store_n(&d->w0, w0, __ATOMIC_RELAXED);
		__atomic_store_n(&d->w1, order_tag(px, w1, h) | mpr_lap_bit(h, log), __ATOMIC_RELEASE);
	}
	if (ticket)
		*ticket = h;
	return MARROW_OK;
}

int px_wait_cpl(struct marrow_proxy *px, uint32_t ring, uint64_t count, uint64_t timeout_ns)
{
	const uint64_t *c = px->rings[ring].cpl_target;
	uint64_t deadline = px_now_ns() + timeout_ns;

	while (px_ld_acq(c) < count) {
		if (px_now_ns() > deadline)
			return ring_timeout(px, ring, "a completion", count - 1, timeout_ns);
		px_idle(px);
	}
	return MARROW_OK;
}

static int check_ring(struct marrow_proxy *px, uint32_t ring, const char *fn)
{
	if (px == NULL || ring >= px->cfg.rings)
		return marrow_fail(MARROW_EINVAL, "%s: no ring %u", fn, ring);
	return MARROW_OK;
}

MARROW_API int marrow_proxy_enqueue(struct marrow_proxy *px, uint32_t ring, uint32_t local_off, uint32_t remote_off,
				    uint32_t size, uint32_t tag, uint64_t timeout_ns, uint64_t *ticket)
{
	int rc = check_ring(px, ring, "marrow_proxy_enqueue");

	if (rc != MARROW_OK)
		return rc;
	if (size == 0 || size > MPR_MAX_SIZE)
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_enqueue: size %u must be 1..%u", size, MPR_MAX_SIZE);
	return px_enqueue(px, ring, px->cfg.handoff, mpr_w0(local_off, remote_off),
			  mpr_w1(size, MPR_OP_WRITE, 0, tag), timeout_ns, ticket);
}

MARROW_API int marrow_proxy_wait(struct marrow_proxy *px, uint32_t ring, uint64_t count, uint64_t timeout_ns)
{
	int rc = check_ring(px, ring, "marrow_proxy_wait");

	return rc != MARROW_OK ? rc : px_wait_cpl(px, ring, count, timeout_ns);
}

MARROW_API int marrow_proxy_ring_counters(struct marrow_proxy *px, uint32_t ring, uint64_t *tail, uint64_t *cpl)
{
	int rc = check_ring(px, ring, "marrow_proxy_ring_counters");

	if (rc != MARROW_OK)
		return rc;
	if (tail)
		*tail = px_ld_acq(&px->rings[ring].ctl->tail);
	if (cpl)
		*cpl = px_ld_acq(px->rings[ring].cpl_target);
	return MARROW_OK;
}
