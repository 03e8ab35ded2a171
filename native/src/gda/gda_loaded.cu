/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * marrow_gda_loaded_cuda_run (libmarrow_cuda.so): the loaded round trip of
 * marrow_gda_loaded.h with GPU threads. One kernel of bg_streams + 2
 * one-thread blocks: block 0 the probe, block 1 the peer, block 2 + k
 * background stream k. A shared QP's mutable counters (SQ producer and
 * consumer, CQ consumer) live in GPU memory and are read and written only
 * under one spinlock, with strong (.gpu) loads and stores, so every block
 * sees the last holder's values; reserved QPs are each owned by one block.
 * The algorithm is gda_stream.h's, as on the CPU (gda_loaded_cpu.c).
 */
#include <stdio.h>
#include <string.h>
#include <vector>
#include <cuda_runtime_api.h>

#include "cuda/cuda_host.h"
#include "gda/gda_dump.h"
#include "gda/gda_loaded_host.h"

namespace {

struct gl_shared {            /* GPU memory */
	uint32_t lock, pi, sq_ci, cq_ci;
};

struct gl_qp {
	struct gda_sq sq;
	struct gda_cq cq;
};

struct gl_out {
	int32_t probe_rc, peer_rc, bg_rc;
	uint32_t probe_fail, peer_fail, bg_fail_stream;
	uint64_t done, t_first, t_last, bg0, bg1;
	struct gda_err probe_err, peer_err, bg_err;
};

struct gl_args {
	struct gl_qp probe, peer;
	struct gl_qp *bg;             /* reserved: one per stream (device array) */
	struct gl_shared *sh;         /* the probe QP's counters (shared mode) */
	const uint64_t *probe_inbox, *peer_inbox;
	uint64_t probe_raddr, peer_raddr, bg_dst;
	uint32_t probe_rkey, peer_rkey, bg_rkey;
	uint32_t streams, window, sig, shared;
	uint32_t no_peer;             /* two processes, initiator: the peer is the other process */
	uint64_t pace, iters, warmup, timeout;
	unsigned long long *samples;
	unsigned long long *posted;   /* per stream */
	uint32_t *stop;
	struct gl_out *out;
};

__device__ __forceinline__ uint64_t gl_word(uint64_t it)
{
	return (uint64_t)gda_pattern_word(it, 0) | ((uint64_t)gda_pattern_word(it, 1) << 32);
}

/* Takes the shared QP's lock (bounded: ETIMEDOUT after timeout ns) and
 * loads its counters. */
__device__ __forceinline__ int sh_enter(gl_shared *s, gda_sq *sq, gda_cq *cq, uint64_t timeout, gda_err *err)
{
	uint64_t deadline = 0;
	uint32_t spins = 0;

	while (atomicExch(&s->lock, 1u) != 0u) {
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
	}
	gpu_fence_acq_rel_gpu();
	sq->pi = gpu_ld_relaxed_gpu_u32(&s->pi);
	sq->ci = gpu_ld_relaxed_gpu_u32(&s->sq_ci);
	cq->ci = gpu_ld_relaxed_gpu_u32(&s->cq_ci);
	return MARROW_OK;
}

__device__ __forceinline__ void sh_leave(gl_shared *s, const gda_sq *sq, const gda_cq *cq)
{
	gpu_st_relaxed_gpu_u32(&s->pi, sq->pi);
	gpu_st_relaxed_gpu_u32(&s->sq_ci, sq->ci);
	gpu_st_relaxed_gpu_u32(&s->cq_ci, cq->ci);
	gpu_fence_acq_rel_gpu();
	atomicExch(&s->lock, 0u);
}

/* Room, one 8-byte WRITE, reap what is there; under the lock when sh. */
template <int ORD>
__device__ int gl_post(gl_shared *sh, gda_sq *sq, gda_cq *cq, uint32_t window, uint32_t sig, uint64_t raddr,
		       uint32_t rkey, uint64_t v, uint64_t timeout, gda_err *err)
{
	int rc;

	if (sh && (rc = sh_enter(sh, sq, cq, timeout, err)) != MARROW_OK)
		return rc;
	rc = gda_stream_room(sq, cq, ORD, window, timeout, err);
	if (rc == MARROW_OK) {
		gda_stream_post8(sq, ORD, raddr, rkey, (uint32_t)v, (uint32_t)(v >> 32), gda_stream_signaled(sq->pi, sig));
		while ((rc = gda_stream_reap_one(sq, cq, ORD, err)) > 0)
			;
	}
	if (sh)
		sh_leave(sh, sq, cq);
	return rc < 0 ? rc : MARROW_OK;
}

/* The probe's QP left drained: pad to a signaled WQE with harmless
 * re-sends of the last probe word to its own place, then reap all. */
template <int ORD>
__device__ int gl_drain(gl_shared *sh, gda_sq *sq, gda_cq *cq, const gl_args &a, uint64_t raddr, uint32_t rkey,
			uint64_t v, uint64_t timeout, gda_err *err)
{
	int rc = MARROW_OK;

	if (sh && (rc = sh_enter(sh, sq, cq, timeout, err)) != MARROW_OK)
		return rc;
	while (rc == MARROW_OK && sq->pi != sq->ci && !gda_stream_signaled(sq->pi - 1u, a.sig)) {
		rc = gda_stream_room(sq, cq, ORD, a.window, timeout, err);
		if (rc == MARROW_OK)
			gda_stream_post8(sq, ORD, raddr, rkey, (uint32_t)v, (uint32_t)(v >> 32),
					 gda_stream_signaled(sq->pi, a.sig));
	}
	if (rc == MARROW_OK)
		rc = gda_stream_room(sq, cq, ORD, 0, timeout, err);
	if (sh)
		sh_leave(sh, sq, cq);
	return rc;
}

__device__ uint64_t gl_posted_sum(const gl_args &a)
{
	uint64_t s = 0;

	for (uint32_t k = 0; k < a.streams; k++)
		s += gpu_ld_relaxed_gpu_u64((const uint64_t *)&a.posted[k]);
	return s;
}

template <int ORD>
__device__ void gl_probe(const gl_args &a)
{
	gda_sq sq = a.probe.sq;
	gda_cq cq = a.probe.cq;
	gl_shared *sh = a.shared && a.streams ? a.sh : nullptr;
	gl_out *o = a.out;
	uint64_t total = a.warmup + a.iters;
	int rc = MARROW_OK;

	/* The probe measures under load: it starts once every background CTA
	 * has posted (or failed): a CTA not yet scheduled would leave the
	 * first probes unloaded. Bounded by the wait bound. */
	{
		uint64_t t_end = gda_now_ns() + a.timeout;

		for (uint32_t k = 0; k < a.streams && rc == MARROW_OK; k++)
			while (gpu_ld_relaxed_gpu_u64((const uint64_t *)&a.posted[k]) == 0 &&
			       gpu_ld_relaxed_gpu_u32((const uint32_t *)&o->bg_rc) == 0) {
				if (gda_now_ns() > t_end) {
					o->probe_err.status = MARROW_ETIMEDOUT;
					o->probe_err.wait = GDA_WAIT_NONE;
					rc = MARROW_ETIMEDOUT;
					break;
				}
			}
	}
	for (uint64_t it = 0; rc == MARROW_OK && it < total; it++) {
		uint64_t want = gl_word(it), t0, t1;

		o->probe_fail = (uint32_t)it;
		if (it == a.warmup)
			o->bg0 = gl_posted_sum(a);
		t0 = gda_now_ns();
		rc = gl_post<ORD>(sh, &sq, &cq, a.window, a.sig, a.probe_raddr, a.probe_rkey, want, a.timeout,
				  &o->probe_err);
		if (rc == MARROW_OK)
			rc = gda_wait_word(a.probe_inbox, want, ORD, a.timeout, &o->probe_err);
		t1 = gda_now_ns();
		if (rc != MARROW_OK)
			break;
		if (it >= a.warmup) {
			a.samples[it - a.warmup] = t1 - t0;
			if (it == a.warmup)
				o->t_first = t0;
			o->t_last = t1;
		}
		o->done = it + 1;
	}
	o->bg1 = gl_posted_sum(a);
	gpu_st_release_gpu_u32(a.stop, 1u);
	if (rc == MARROW_OK)
		rc = gl_drain<ORD>(sh, &sq, &cq, a, a.probe_raddr, a.probe_rkey, gl_word(total - 1), a.timeout,
				   &o->probe_err);
	o->probe_rc = rc;
}

template <int ORD>
__device__ void gl_peer(const gl_args &a)
{
	gda_sq sq = a.peer.sq;
	gda_cq cq = a.peer.cq;
	gl_out *o = a.out;
	uint64_t total = a.warmup + a.iters;

	for (uint64_t it = 0; it < total; it++) {
		uint32_t words[2] = {gda_pattern_word(it, 0), gda_pattern_word(it, 1)};
		struct gda_write w;
		uint32_t idx;
		int rc;

		memset(&w, 0, sizeof(w));
		w.raddr = a.peer_raddr;
		w.rkey = a.peer_rkey;
		w.len = 8;
		w.inline_words = words;
		o->peer_fail = (uint32_t)it;
		rc = gda_wait_word(a.peer_inbox, gl_word(it), ORD, a.timeout, &o->peer_err);
		if (rc == MARROW_OK)
			rc = gda_post_write(&sq, ORD, &w, &idx);
		if (rc == MARROW_OK)
			rc = gda_wait_cqe(&sq, &cq, ORD, idx, a.timeout, &o->peer_err);
		if (rc != MARROW_OK) {
			o->peer_rc = rc;
			return;
		}
	}
	o->peer_rc = MARROW_OK;
}

template <int ORD>
__device__ void gl_bg(const gl_args &a, uint32_t k)
{
	gl_shared *sh = a.shared ? a.sh : nullptr;
	gda_sq sq = a.shared ? a.probe.sq : a.bg[k].sq;
	gda_cq cq = a.shared ? a.probe.cq : a.bg[k].cq;
	const uint64_t interval = a.pace ? (uint64_t)a.streams * 1000000000ull / a.pace : 0;
	unsigned long long *posted = &a.posted[k];
	uint64_t i = 0, next = 0;
	gda_err err;
	int rc = MARROW_OK;

	memset(&err, 0, sizeof(err));
	while (!gpu_ld_acquire_gpu_u32(a.stop)) {
		uint64_t v = ((uint64_t)gda_stream_word(k, i, 1) << 32) | gda_stream_word(k, i, 0);

		if (interval) {
			uint64_t now = gda_now_ns();

			if (now < next)
				continue;
			next = (next + interval > now ? next : now) + interval;
		}
		rc = gl_post<ORD>(sh, &sq, &cq, a.window, a.sig,
				  gda_stream_slot_addr(a.bg_dst, k, i, MARROW_GDA_LOADED_SLOTS), a.bg_rkey, v, a.timeout,
				  &err);
		if (rc != MARROW_OK)
			break;
		gpu_st_relaxed_gpu_u64((uint64_t *)posted, ++i);
	}
	/* Leave the QP drained; pads are this stream's next messages (one
	 * helper with the CPU target: gda_stream_pad_drain). */
	if (rc == MARROW_OK && (!sh || (rc = sh_enter(sh, &sq, &cq, a.timeout, &err)) == MARROW_OK)) {
		rc = gda_stream_pad_drain(&sq, &cq, ORD, a.window, a.sig, a.bg_dst, a.bg_rkey, k,
					  MARROW_GDA_LOADED_SLOTS, &i, a.timeout, &err);
		if (sh)
			sh_leave(sh, &sq, &cq);
		gpu_st_relaxed_gpu_u64((uint64_t *)posted, i);
	}
	if (rc != MARROW_OK && atomicCAS((int *)&a.out->bg_rc, 0, rc) == 0) {
		a.out->bg_fail_stream = k;
		a.out->bg_err = err;
	}
}

template <int ORD>
__global__ void gl_kernel(gl_args a)
{
	if (threadIdx.x != 0)
		return;
	if (blockIdx.x == 0)
		gl_probe<ORD>(a);
	else if (blockIdx.x == 1) {
		if (!a.no_peer) /* peer_rc stays MARROW_OK (zeroed) */
			gl_peer<ORD>(a);
	}
	else
		gl_bg<ORD>(a, blockIdx.x - 2);
}

cudaError_t gl_launch(int ord, const gl_args &a)
{
	unsigned blocks = a.streams + 2;

	switch (ord) {
	case GDA_ORD_NONE: gl_kernel<GDA_ORD_NONE><<<blocks, 1>>>(a); break;
	case GDA_ORD_GPU_FENCE: gl_kernel<GDA_ORD_GPU_FENCE><<<blocks, 1>>>(a); break;
	case GDA_ORD_GPU_FENCE_DBREC: gl_kernel<GDA_ORD_GPU_FENCE_DBREC><<<blocks, 1>>>(a); break;
	case GDA_ORD_RELEASE_GPU: gl_kernel<GDA_ORD_RELEASE_GPU><<<blocks, 1>>>(a); break;
	case GDA_ORD_THREADFENCE: gl_kernel<GDA_ORD_THREADFENCE><<<blocks, 1>>>(a); break;
	case GDA_ORD_RELEASE_SYS: gl_kernel<GDA_ORD_RELEASE_SYS><<<blocks, 1>>>(a); break;
	default: gl_kernel<GDA_ORD_FENCE_SYS><<<blocks, 1>>>(a); break;
	}
	return cudaGetLastError();
}

/* Page-rounded host ranges, merged, registered and mapped once each. */
struct gl_maps {
	struct range { uintptr_t lo, hi, dev; int owned; };
	std::vector<range> r;

	void add(const void *p, uint64_t len)
	{
		uintptr_t lo = (uintptr_t)p & ~(uintptr_t)4095, hi = ((uintptr_t)p + len + 4095) & ~(uintptr_t)4095;

		for (size_t i = 0; i < r.size(); i++)
			if (lo < r[i].hi && r[i].lo < hi) {
				lo = lo < r[i].lo ? lo : r[i].lo;
				hi = hi > r[i].hi ? hi : r[i].hi;
				r.erase(r.begin() + (long)i);
				add((const void *)lo, hi - lo);
				return;
			}
		r.push_back({lo, hi, 0, 0});
	}
	void add_qp(const struct marrow_gda_endpoint *e)
	{
		add(e->qp->sq_buf, (uint64_t)e->qp->sq_wqe_cnt * MX_WQEBB_SIZE);
		add(e->qp->dbrec, 8);
		add(e->qp->uar, 8);
		add(e->cq->buf, (uint64_t)e->cq->cqe_cnt * MX_CQE_SIZE);
		add(e->cq->dbrec, 8);
	}
	template <typename T> T *dev(const void *p) const
	{
		for (const range &x : r)
			if ((uintptr_t)p >= x.lo && (uintptr_t)p < x.hi)
				return (T *)(x.dev + ((uintptr_t)p - x.lo));
		return nullptr;
	}
	cudaError_t map()
	{
		for (range &x : r) {
			void *d = nullptr;
			cudaError_t e = cudaHostRegister((void *)x.lo, x.hi - x.lo,
							 cudaHostRegisterMapped | cudaHostRegisterPortable);

			if (e == cudaErrorHostMemoryAlreadyRegistered)
				(void)cudaGetLastError();
			else if (e != cudaSuccess)
				return e;
			else
				x.owned = 1;
			if ((e = cudaHostGetDevicePointer(&d, (void *)x.lo, 0)) != cudaSuccess)
				return e;
			x.dev = (uintptr_t)d;
		}
		return cudaSuccess;
	}
	~gl_maps()
	{
		for (range &x : r)
			if (x.owned && cudaHostUnregister((void *)x.lo) != cudaSuccess)
				(void)cudaGetLastError();
	}
};

int gl_qp_of(const gl_maps &m, const struct marrow_gda_endpoint *e, gl_qp *q)
{
	gda_sq_init(&q->sq, e->qp, (uint8_t *)e->qp->sq_buf, e->qp->dbrec, (uint64_t *)e->qp->uar);
	gda_cq_init(&q->cq, e->cq, (uint8_t *)e->cq->buf, e->cq->dbrec);
	q->sq.buf = m.dev<uint8_t>(e->qp->sq_buf);
	q->sq.dbrec = m.dev<uint32_t>(e->qp->dbrec);
	q->sq.uar = m.dev<uint64_t>(e->qp->uar);
	q->cq.buf = m.dev<uint8_t>(e->cq->buf);
	q->cq.dbrec = m.dev<uint32_t>(e->cq->dbrec);
	return q->sq.buf && q->sq.dbrec && q->sq.uar && q->cq.buf && q->cq.dbrec ? MARROW_OK
		: marrow_fail(MARROW_EINVAL, "marrow_gda_loaded_cuda_run: a queue view has no GPU mapping");
}

int gl_fail(const char *fn, struct marrow_gda_loaded_result *res, cudaError_t e, const char *what)
{
	res->cuda_error = (int32_t)e;
	return res->status = marrow_cuda_fail(e, "%s: %s", fn, what);
}

} // namespace

extern "C" MARROW_API int marrow_gda_loaded_cuda_run(const struct marrow_gda_loaded_config *cfg,
						     const struct marrow_gda_endpoint *probe,
						     const struct marrow_gda_endpoint *peer,
						     const struct marrow_gda_endpoint *bg_eps,
						     uint64_t *samples_ns, struct marrow_gda_loaded_result *res)
{
	static const char fn[] = "marrow_gda_loaded_cuda_run";
	int rc, ndev = 0;
	uint32_t nq;
	gl_maps m;
	gl_args a;
	gl_out o;
	gl_shared sh0;
	std::vector<gl_qp> bgq;
	std::vector<unsigned long long> posted;
	gl_qp *d_bg = nullptr;
	gl_shared *d_sh = nullptr;
	unsigned long long *d_samples = nullptr, *d_posted = nullptr;
	uint32_t *d_stop = nullptr;
	gl_out *d_out = nullptr;
	cudaEvent_t ev = nullptr;
	cudaError_t e;

	if (res == NULL || res->size < sizeof(*res))
		return marrow_fail(MARROW_EINVAL, "%s: res NULL or stale", fn);
	memset((uint8_t *)res + 8, 0, sizeof(*res) - 8);
	if ((rc = gl_check(fn, cfg, probe, peer, bg_eps, samples_ns)) != MARROW_OK)
		return res->status = rc;
	if (cfg->role == MARROW_GDA_LOADED_RESPONDER)
		return res->status = marrow_fail(MARROW_EINVAL, "%s: the responder of two processes runs on the CPU "
						 "runner (marrow_gda_loaded_cpu_run); the GPU runs the initiator or one "
						 "process", fn);
	nq = cfg->queue == MARROW_GDA_LOADED_RESERVED ? cfg->bg_streams : 0;
	if ((probe->flags | (peer != NULL ? peer->flags : 0u)) & MARROW_GDA_EP_UAR_MMIO)
		return res->status = marrow_fail(MARROW_EINVAL, "%s: software NIC queues only (a device-MMIO UAR is "
						 "refused)", fn);
	for (uint32_t k = 0; k < nq; k++)
		if (bg_eps[k].flags & MARROW_GDA_EP_UAR_MMIO)
			return res->status = marrow_fail(MARROW_EINVAL, "%s: software NIC queues only", fn);
	if ((e = cudaGetDeviceCount(&ndev)) != cudaSuccess || ndev <= 0 || cfg->cuda_device < 0 ||
	    cfg->cuda_device >= ndev) {
		(void)cudaGetLastError();
		res->cuda_error = (int32_t)e;
		return res->status = marrow_fail(MARROW_ENODEV, "%s: no usable CUDA device %d (%d found)", fn,
						 cfg->cuda_device, ndev);
	}
	if ((e = cudaSetDevice(cfg->cuda_device)) != cudaSuccess)
		return gl_fail(fn, res, e, "cudaSetDevice");
	if (cfg->bg_streams && cfg->role == MARROW_GDA_LOADED_BOTH) /* else the other process's memory */
		memset((void *)(uintptr_t)cfg->bg_dst_addr, 0, 8ull * MARROW_GDA_LOADED_SLOTS * cfg->bg_streams);
	m.add_qp(probe);
	m.add((const void *)(uintptr_t)probe->inbox_addr, 8);
	if (peer != NULL) {
		m.add_qp(peer);
		m.add((const void *)(uintptr_t)peer->inbox_addr, 8);
	}
	for (uint32_t k = 0; k < nq; k++)
		m.add_qp(&bg_eps[k]);
	if ((e = m.map()) != cudaSuccess)
		return gl_fail(fn, res, e, "cudaHostRegister of the queue memory");
	memset(&a, 0, sizeof(a));
	if ((rc = gl_qp_of(m, probe, &a.probe)) != MARROW_OK ||
	    (peer != NULL && (rc = gl_qp_of(m, peer, &a.peer)) != MARROW_OK))
		return res->status = rc;
	bgq.resize(nq + 1u);
	for (uint32_t k = 0; k < nq; k++)
		if ((rc = gl_qp_of(m, &bg_eps[k], &bgq[k])) != MARROW_OK)
			return res->status = rc;
	a.probe_inbox = m.dev<const uint64_t>((const void *)(uintptr_t)probe->inbox_addr);
	a.probe_raddr = probe->remote_addr;
	a.probe_rkey = probe->rkey;
	a.no_peer = peer == NULL;
	if (peer != NULL) {
		a.peer_inbox = m.dev<const uint64_t>((const void *)(uintptr_t)peer->inbox_addr);
		a.peer_raddr = peer->remote_addr;
		a.peer_rkey = peer->rkey;
	}
	a.bg_dst = cfg->bg_dst_addr;
	a.bg_rkey = cfg->bg_dst_rkey;
	a.streams = cfg->bg_streams;
	a.window = cfg->bg_streams ? cfg->bg_window : 1u;
	a.sig = cfg->bg_streams ? cfg->bg_signal_every : 1u;
	a.shared = cfg->queue == MARROW_GDA_LOADED_SHARED;
	a.pace = cfg->pace_msgs_per_s;
	a.iters = cfg->iters;
	a.warmup = cfg->warmup;
	a.timeout = cfg->timeout_ns;
	sh0.lock = 0;
	sh0.pi = a.probe.sq.pi;
	sh0.sq_ci = a.probe.sq.ci;
	sh0.cq_ci = a.probe.cq.ci;
	memset(&o, 0, sizeof(o));
	posted.assign(cfg->bg_streams + 1u, 0);
	if ((e = cudaMalloc(&d_bg, bgq.size() * sizeof(gl_qp))) != cudaSuccess ||
	    (e = cudaMemcpy(d_bg, bgq.data(), bgq.size() * sizeof(gl_qp), cudaMemcpyHostToDevice)) != cudaSuccess ||
	    (e = cudaMalloc(&d_sh, sizeof(*d_sh))) != cudaSuccess ||
	    (e = cudaMemcpy(d_sh, &sh0, sizeof(sh0), cudaMemcpyHostToDevice)) != cudaSuccess ||
	    (e = cudaMalloc(&d_samples, cfg->iters * sizeof(*d_samples))) != cudaSuccess ||
	    (e = cudaMalloc(&d_posted, posted.size() * sizeof(*d_posted))) != cudaSuccess ||
	    (e = cudaMemset(d_posted, 0, posted.size() * sizeof(*d_posted))) != cudaSuccess ||
	    (e = cudaMalloc(&d_stop, sizeof(*d_stop))) != cudaSuccess ||
	    (e = cudaMemset(d_stop, 0, sizeof(*d_stop))) != cudaSuccess ||
	    (e = cudaMalloc(&d_out, sizeof(*d_out))) != cudaSuccess ||
	    (e = cudaMemset(d_out, 0, sizeof(*d_out))) != cudaSuccess ||
	    (e = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming)) != cudaSuccess) {
		rc = gl_fail(fn, res, e, "cudaMalloc/cudaMemcpy of the run's state");
		goto done;
	}
	a.bg = d_bg;
	a.sh = d_sh;
	a.samples = d_samples;
	a.posted = d_posted;
	a.stop = d_stop;
	a.out = d_out;
	if ((e = gl_launch((int)cfg->ordering, a)) != cudaSuccess || (e = cudaEventRecord(ev, 0)) != cudaSuccess) {
		rc = gl_fail(fn, res, e, "the loaded round-trip kernel");
		goto done;
	}
	{
		/* Every device wait is bounded; a probe has two, the drains a few. */
		uint64_t waits = 2 * (cfg->warmup + cfg->iters) + 8;
		uint64_t bound = marrow_sat_add(marrow_sat_mul(waits, cfg->timeout_ns), 10000000000ull);
		char what[96];

		snprintf(what, sizeof(what), "%s: the loaded round-trip kernel", fn);
		if ((rc = marrow_cuda_wait_event(ev, bound, what, &e)) != MARROW_OK) {
			res->cuda_error = (int32_t)e;
			res->status = rc;
			goto done;
		}
	}
	if ((e = cudaMemcpy(&o, d_out, sizeof(o), cudaMemcpyDeviceToHost)) != cudaSuccess ||
	    (e = cudaMemcpy(samples_ns, d_samples, cfg->iters * sizeof(*d_samples), cudaMemcpyDeviceToHost)) !=
		    cudaSuccess ||
	    (e = cudaMemcpy(posted.data(), d_posted, posted.size() * sizeof(*d_posted), cudaMemcpyDeviceToHost)) !=
		    cudaSuccess) {
		rc = gl_fail(fn, res, e, "cudaMemcpy of the results");
		goto done;
	}
	res->probes_done = o.done;
	res->timed_ns = o.t_last - o.t_first;
	res->bg_in_window = o.bg1 - o.bg0;
	for (uint32_t k = 0; k < cfg->bg_streams; k++)
		res->bg_posted += posted[k];
	if (cfg->bg_posted_addr != 0)
		for (uint32_t k = 0; k < cfg->bg_streams; k++)
			((uint64_t *)(uintptr_t)cfg->bg_posted_addr)[k] = posted[k];
	res->fail_iter = o.probe_fail;
	if (o.probe_rc != MARROW_OK) {
		rc = res->status = marrow_fail(o.probe_rc, "%s: GPU probe %u: %s (waited for %s; %u background CTAs, %s "
					       "queue; peer: %s at ping %u)", fn, o.probe_fail,
					       marrow_status_name(o.probe_rc),
					       o.probe_err.wait == GDA_WAIT_WORD ? "the reply" : "SQ room or CQEs",
					       cfg->bg_streams, a.shared ? "shared" : "reserved",
					       peer != NULL ? marrow_status_name(o.peer_rc) : "the other process",
					       peer != NULL ? o.peer_fail : o.probe_fail);
		if (o.probe_rc == MARROW_ETIMEDOUT)
			rc = res->status = gda_fail_dump(rc, probe, &o.probe_err, nullptr, nullptr, cfg->timeout_ns,
							 o.probe_fail, 0);
	} else if (o.peer_rc != MARROW_OK) {
		rc = res->status = marrow_fail(o.peer_rc, "%s: GPU peer failed at ping %u: %s", fn, o.peer_fail,
					       marrow_status_name(o.peer_rc));
	} else if (o.bg_rc != MARROW_OK) {
		rc = res->status = marrow_fail(o.bg_rc, "%s: background CTA %u: %s (CQE opcode %u, syndrome 0x%02x)", fn,
					       o.bg_fail_stream, marrow_status_name(o.bg_rc), o.bg_err.opcode,
					       o.bg_err.syndrome);
	} else if (cfg->role != MARROW_GDA_LOADED_BOTH) {
		rc = res->status = MARROW_OK; /* the other process checks the background it received */
	} else {
		std::vector<uint64_t> p64(posted.begin(), posted.end());

		res->bg_slot_errors = gl_check_bg_slots(cfg, p64.data());
		rc = res->status = res->bg_slot_errors == 0
			? MARROW_OK
			: marrow_fail(MARROW_EPROTO, "%s: %llu background slots did not hold the last value sent", fn,
				      (unsigned long long)res->bg_slot_errors);
	}
done:
	if (ev)
		cudaEventDestroy(ev);
	cudaFree(d_bg);
	cudaFree(d_sh);
	cudaFree(d_samples);
	cudaFree(d_posted);
	cudaFree(d_stop);
	cudaFree(d_out);
	return rc;
}
