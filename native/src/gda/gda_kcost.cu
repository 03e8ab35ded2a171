/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Kernel cost (marrow_kcost.h): the compute and streaming callers, built
 * without communication code, with the mini-gda post + CQE wait inlined and
 * with the mini-proxy enqueue + completion wait inlined. One build per
 * (caller, transport, live values); the arms (dormant, send, send-wait) are
 * kernel arguments of that build, so every arm runs the same SASS.
 * Method: docs/design/methods.md §7.
 *
 * Live values are a compile-time array indexed only by unrolled constants,
 * so they stay in registers as long as ptxas can keep them there; what the
 * communication code adds to register demand shows up as registers per
 * thread, local memory (spills) and fewer resident blocks.
 *
 * mini-gda: thread 0 of block b owns the QP of endpoint b (its SQ/CQ state
 * lives in device memory between sends, as a library's per-QP state would),
 * posts an RDMA WRITE (8 B and below inline, longer sizes one pointer
 * segment from a prefilled registered source) with the release-sys
 * ordering (the one correct for host-resident queues,
 * docs/design/orderings.md) and, in send-wait, waits for its CQE.
 * mini-proxy: thread 0 of block b enqueues one descriptor into ring
 * b % rings (baseline handoff: blocks share rings) and, in send-wait,
 * waits for that ring's completion counter to cover it.
 * Every device wait is bounded; the first failure is reported with its block.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <algorithm>
#include <vector>
#include <cuda_runtime_api.h>

#include "cuda/cuda_host.h"
#include "gda/gda_validate.h"
#include "marrow/gda_post.h"
#include "marrow/marrow_kcost.h"
#include "marrow/marrow_proxy.h"
#include "marrow/proxy_ring.h"
#include "proxy/proxy_cuda_device.cuh"

namespace {

constexpr int KC_ORD = GDA_ORD_RELEASE_SYS;
constexpr int KC_LIVE[] = {8, 16, 32, 160, 224};
constexpr int KC_NLIVE = (int)(sizeof(KC_LIVE) / sizeof(KC_LIVE[0]));
constexpr uint32_t KC_STREAM_LOG_FLOATS = 26; /* 256 MiB streamed array: far beyond L2 */

/* Per-block mini-gda state, in device memory between sends. */
struct kc_gq {
	gda_sq sq;
	gda_cq cq;
	uint64_t raddr, laddr;
	uint32_t rkey, lkey;
	int32_t err;
	uint32_t nbb;                 /* WQEBBs of the last WQE posted */
};

struct kc_args {
	float *out;
	const float *in;              /* streaming caller's array */
	uint32_t in_mask;
	uint32_t send_every;          /* 0: never (dormant); else after every send_every-th segment */
	uint32_t wait;
	uint32_t msg_size;
	uint64_t iters_per_seg;
	float alpha, beta;
	uint64_t timeout_ns;
	kc_gq *gq;                    /* GDA: one per block */
	dev_rings d;                  /* PROXY */
	dev_status *pst;
	unsigned long long *counters; /* [0] messages, [1] completions */
	int32_t *fail_block;
};

__device__ __forceinline__ void kc_fail(const kc_args &a)
{
	atomicCAS(a.fail_block, -1, (int)blockIdx.x);
}

__device__ __forceinline__ void kc_send_gda(const kc_args &a, uint32_t seg)
{
	kc_gq *q = &a.gq[blockIdx.x];
	if (q->err)
		return;
	gda_sq sq = q->sq;
	gda_cq cq = q->cq;
	uint32_t words[2] = {gda_pattern_word(seg, 0), gda_pattern_word(seg, 1)};
	gda_write w;
	w.raddr = q->raddr;
	w.rkey = q->rkey;
	w.len = a.msg_size;
	w.pad = 0;
	if (a.msg_size <= 8u) {
		w.inline_words = words;
		w.laddr = 0;
		w.lkey = 0;
	} else {
		w.inline_words = 0;
		w.laddr = q->laddr;
		w.lkey = q->lkey;
	}
	uint32_t idx = 0;
	int rc = gda_post_write(&sq, KC_ORD, &w, &idx);
	if (rc == MARROW_OK) {
		q->nbb = sq.pi - idx;
		atomicAdd(&a.counters[0], 1ull);
		if (a.wait) {
			gda_err e;
			rc = gda_wait_cqe(&sq, &cq, KC_ORD, idx, a.timeout_ns, &e);
			if (rc == MARROW_OK)
				atomicAdd(&a.counters[1], 1ull);
		}
	}
	q->sq = sq;
	q->cq = cq;
	if (rc != MARROW_OK) {
		q->err = rc;
		kc_fail(a);
	}
}

__device__ __forceinline__ void kc_send_proxy(const kc_args &a)
{
	const uint32_t r = blockIdx.x % a.d.rings;
	uint64_t head = 0, ctail = 0;
	uint64_t w0 = mpr_w0(MARROW_PROXY_AREA_LAT, a.d.half + MARROW_PROXY_AREA_LAT);
	uint64_t w1 = mpr_w1(a.msg_size, MPR_OP_WRITE, 0, 0);

	if (*(volatile int32_t *)a.fail_block >= 0)
		return;
	if (enqueue(a.d, r, head, ctail, w0, w1, a.pst)) {
		kc_fail(a);
		return;
	}
	atomicAdd(&a.counters[0], 1ull);
	if (a.wait) {
		if (wait_at_least(cpl_of(a.d, r), head, a.timeout_ns, a.pst, DEV_WAIT_CPL, r))
			kc_fail(a);
		else
			atomicAdd(&a.counters[1], 1ull);
	}
}

template <int CALLER, int N, int T>
__global__ void kc_kernel(kc_args a)
{
	const uint32_t gtid = blockIdx.x * blockDim.x + threadIdx.x;
	const uint32_t nthr = gridDim.x * blockDim.x;
	float v[N];
	uint32_t k = 0;

#pragma unroll
	for (int i = 0; i < N; i++)
		v[i] = (float)((gtid + (uint32_t)i) & 255u) * (1.0f / 256.0f);
	for (uint32_t seg = 0; seg < MARROW_KCOST_SEGMENTS; seg++) {
		for (uint64_t it = 0; it < a.iters_per_seg; it++) {
			if (CALLER == MARROW_KCOST_CALLER_COMPUTE) {
#pragma unroll
				for (int i = 0; i < N; i++)
					v[i] = fmaf(v[i], a.alpha, a.beta);
			} else {
				const uint32_t base = k * (uint32_t)N * nthr + gtid;
#pragma unroll
				for (int i = 0; i < N; i++)
					v[i] = fmaf(a.in[(base + (uint32_t)i * nthr) & a.in_mask], a.alpha, v[i]);
				k++;
			}
		}
		if (T != MARROW_KCOST_TRANSPORT_NONE) {
			/* a.send_every is a kernel argument: the branch stays in the
			 * SASS of every arm, taken only when messages are asked for */
			if (a.send_every != 0u && threadIdx.x == 0 && (seg + 1u) % a.send_every == 0u) {
				if (T == MARROW_KCOST_TRANSPORT_GDA)
					kc_send_gda(a, seg);
				else
					kc_send_proxy(a);
			}
		}
	}
	float s = 0.0f;
#pragma unroll
	for (int i = 0; i < N; i++)
		s += v[i];
	a.out[gtid] = s;
}

/* Untimed: consume every CQE a block's send-then-compute left outstanding. */
__global__ void kc_drain_gda(kc_args a, uint32_t blocks)
{
	const uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
	if (b >= blocks)
		return;
	kc_gq *q = &a.gq[b];
	if (q->err)
		return;
	gda_sq sq = q->sq;
	gda_cq cq = q->cq;
	const uint32_t nbb = q->nbb ? q->nbb : 1u;
	for (uint32_t idx = sq.ci; idx != sq.pi; idx += nbb) {
		gda_err e;
		int rc = gda_wait_cqe(&sq, &cq, KC_ORD, idx, a.timeout_ns, &e);
		if (rc != MARROW_OK) {
			q->err = rc;
			atomicCAS(a.fail_block, -1, (int)b);
			break;
		}
		atomicAdd(&a.counters[1], 1ull);
	}
	q->sq = sq;
	q->cq = cq;
}

/* Untimed: wait until every ring's completion counter covers its head. */
__global__ void kc_drain_proxy(kc_args a)
{
	const uint32_t r = threadIdx.x;
	if (r >= a.d.rings)
		return;
	uint64_t want = *(volatile unsigned long long *)&a.d.head[r];
	if (wait_at_least(cpl_of(a.d, r), want, a.timeout_ns, a.pst, DEV_WAIT_CPL, r))
		atomicCAS(a.fail_block, -1, -2 - (int)r);
}

typedef void (*kc_fn)(kc_args);

template <int CALLER, int T>
kc_fn kc_pick(int li)
{
	static const kc_fn fns[KC_NLIVE] = {&kc_kernel<CALLER, 8, T>, &kc_kernel<CALLER, 16, T>,
					    &kc_kernel<CALLER, 32, T>, &kc_kernel<CALLER, 160, T>,
					    &kc_kernel<CALLER, 224, T>};
	return fns[li];
}

kc_fn kc_lookup(uint32_t caller, uint32_t transport, int li)
{
	if (caller == MARROW_KCOST_CALLER_COMPUTE) {
		switch (transport) {
		case MARROW_KCOST_TRANSPORT_NONE: return kc_pick<MARROW_KCOST_CALLER_COMPUTE, MARROW_KCOST_TRANSPORT_NONE>(li);
		case MARROW_KCOST_TRANSPORT_GDA: return kc_pick<MARROW_KCOST_CALLER_COMPUTE, MARROW_KCOST_TRANSPORT_GDA>(li);
		default: return kc_pick<MARROW_KCOST_CALLER_COMPUTE, MARROW_KCOST_TRANSPORT_PROXY>(li);
		}
	}
	switch (transport) {
	case MARROW_KCOST_TRANSPORT_NONE: return kc_pick<MARROW_KCOST_CALLER_STREAM, MARROW_KCOST_TRANSPORT_NONE>(li);
	case MARROW_KCOST_TRANSPORT_GDA: return kc_pick<MARROW_KCOST_CALLER_STREAM, MARROW_KCOST_TRANSPORT_GDA>(li);
	default: return kc_pick<MARROW_KCOST_CALLER_STREAM, MARROW_KCOST_TRANSPORT_PROXY>(li);
	}
}

int live_index(uint32_t live)
{
	for (int i = 0; i < KC_NLIVE; i++)
		if ((uint32_t)KC_LIVE[i] == live)
			return i;
	return -1;
}

int check_config(const char *fn, const struct marrow_kcost_config *c, struct marrow_kcost_result *r)
{
	if (c == NULL || r == NULL || c->size < sizeof(*c) || r->size < sizeof(*r))
		return marrow_fail(MARROW_EINVAL, "%s: NULL or short config/result", fn);
	r->failed_block = -1;
	if (c->caller > MARROW_KCOST_CALLER_STREAM)
		return r->status = marrow_fail(MARROW_EINVAL, "%s: unknown caller %u", fn, c->caller);
	if (c->transport > MARROW_KCOST_TRANSPORT_PROXY)
		return r->status = marrow_fail(MARROW_EINVAL, "%s: unknown transport %u", fn, c->transport);
	if (live_index(c->live) < 0)
		return r->status = marrow_fail(MARROW_EINVAL, "%s: %u live values not built (8, 16, 32, 160, 224)",
					       fn, c->live);
	if (c->threads < 32 || c->threads > 1024 || (c->threads & 31u) || c->blocks == 0)
		return r->status = marrow_fail(MARROW_EINVAL, "%s: %u blocks x %u threads: need >= 1 block and "
					       "32..1024 threads, a multiple of 32", fn, c->blocks, c->threads);
	if (c->msgs > MARROW_KCOST_MAX_MSGS || (c->msgs && MARROW_KCOST_SEGMENTS % c->msgs))
		return r->status = marrow_fail(MARROW_EINVAL, "%s: %u messages per block must divide %d", fn,
					       c->msgs, MARROW_KCOST_SEGMENTS);
	if (c->msgs && c->transport == MARROW_KCOST_TRANSPORT_NONE)
		return r->status = marrow_fail(MARROW_EINVAL, "%s: the build without communication code sends nothing", fn);
	if (c->msgs && (c->msg_size == 0 || c->msg_size > MPR_MAX_SIZE))
		return r->status = marrow_fail(MARROW_EINVAL, "%s: message size %u out of range", fn, c->msg_size);
	if (c->wait > 1 || c->launches == 0 || c->timeout_ns == 0)
		return r->status = marrow_fail(MARROW_EINVAL, "%s: wait must be 0/1, launches >= 1, timeout > 0", fn);
	if (c->work < (uint64_t)MARROW_KCOST_SEGMENTS * c->live)
		return r->status = marrow_fail(MARROW_EINVAL, "%s: work %llu per thread is less than one step of "
					       "every segment (%u)", fn, (unsigned long long)c->work,
					       MARROW_KCOST_SEGMENTS * c->live);
	return MARROW_OK;
}

int kc_cuda_fail(struct marrow_kcost_result *r, cudaError_t e, const char *what)
{
	r->cuda_error = (int32_t)e;
	return r->status = marrow_cuda_fail(e, "marrow_kcost: %s", what);
}

int kc_select(const char *fn, int dev, struct marrow_kcost_result *r)
{
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e != cudaSuccess || n <= 0) {
		(void)cudaGetLastError();
		r->cuda_error = (int32_t)e;
		return r->status = marrow_fail(MARROW_ENODEV, "%s: no usable CUDA device (%s)", fn,
					       e != cudaSuccess ? cudaGetErrorString(e) : "device count 0");
	}
	if (dev < 0 || dev >= n)
		return r->status = marrow_fail(MARROW_ENODEV, "%s: CUDA device %d out of range (0..%d)", fn, dev, n - 1);
	if ((e = cudaSetDevice(dev)) != cudaSuccess)
		return kc_cuda_fail(r, e, "cudaSetDevice");
	return MARROW_OK;
}

int kc_attributes(const struct marrow_kcost_config *c, struct marrow_kcost_result *r)
{
	kc_fn fn = kc_lookup(c->caller, c->transport, live_index(c->live));
	cudaFuncAttributes at;
	cudaError_t e;
	int dev = 0, n = 0;

	if ((e = cudaFuncGetAttributes(&at, (const void *)fn)) != cudaSuccess)
		return kc_cuda_fail(r, e, "cudaFuncGetAttributes");
	if ((e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, fn, (int)c->threads, 0)) != cudaSuccess)
		return kc_cuda_fail(r, e, "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
	(void)cudaGetDevice(&dev);
	if ((e = cudaDeviceGetAttribute(&r->sm_count, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess)
		return kc_cuda_fail(r, e, "cudaDeviceGetAttribute(SM count)");
	r->regs_per_thread = at.numRegs;
	r->local_bytes = (int32_t)at.localSizeBytes;
	r->max_threads_per_block = at.maxThreadsPerBlock;
	r->blocks_per_sm = n;
	return MARROW_OK;
}

/* Page-rounded host ranges, merged where they overlap, registered once. */
struct kc_maps {
	struct range {
		uintptr_t lo, hi, dev;
		int owned;
	};
	std::vector<range> r;

	void add(const void *p, uint64_t len)
	{
		const uintptr_t pg = 4096;
		r.push_back({(uintptr_t)p & ~(pg - 1), ((uintptr_t)p + len + pg - 1) & ~(pg - 1), 0, 0});
	}
	void merge()
	{
		std::sort(r.begin(), r.end(), [](const range &a, const range &b) { return a.lo < b.lo; });
		std::vector<range> m;
		for (const range &x : r) {
			if (!m.empty() && x.lo < m.back().hi)
				m.back().hi = std::max(m.back().hi, x.hi);
			else
				m.push_back(x);
		}
		r.swap(m);
	}
	template <typename T>
	T *dev(const void *p) const
	{
		for (const range &x : r)
			if ((uintptr_t)p >= x.lo && (uintptr_t)p < x.hi)
				return (T *)(x.dev + ((uintptr_t)p - x.lo));
		return nullptr;
	}
	int map(struct marrow_kcost_result *res)
	{
		merge();
		for (range &x : r) {
			cudaError_t e = cudaHostRegister((void *)x.lo, x.hi - x.lo,
							 cudaHostRegisterMapped | cudaHostRegisterPortable);
			if (e == cudaErrorHostMemoryAlreadyRegistered)
				(void)cudaGetLastError();
			else if (e != cudaSuccess)
				return kc_cuda_fail(res, e, "cudaHostRegister of a QP's queue or buffer memory");
			else
				x.owned = 1;
			void *d = nullptr;
			if ((e = cudaHostGetDevicePointer(&d, (void *)x.lo, 0)) != cudaSuccess)
				return kc_cuda_fail(res, e, "cudaHostGetDevicePointer");
			x.dev = (uintptr_t)d;
		}
		return MARROW_OK;
	}
	~kc_maps()
	{
		for (const range &x : r)
			if (x.owned && cudaHostUnregister((void *)x.lo) != cudaSuccess)
				(void)cudaGetLastError();
	}
};

/* Host copy of each block's mini-gda state, pointers made device ones. */
int kc_gda_state(const struct marrow_gda_endpoint *eps, uint32_t n, const struct marrow_kcost_config *c,
		 kc_maps &m, std::vector<kc_gq> &q, struct marrow_kcost_result *res)
{
	static const char fn[] = "marrow_kcost_run";
	for (uint32_t b = 0; b < n; b++) {
		const struct marrow_gda_endpoint *e = &eps[b];
		int rc = gda_check_endpoint(fn, "block", e);
		if (rc != MARROW_OK)
			return res->status = rc;
		if (e->flags & (MARROW_GDA_EP_UAR_MMIO | MARROW_GDA_EP_REMOTE_DST))
			return res->status = marrow_fail(MARROW_ENOSYS, "%s: kernel cost runs on software-NIC "
							 "loopback QPs only (endpoint %u)", fn, b);
		if (c->msg_size > e->remote_len || (c->msg_size > 8 && c->msg_size > e->local_len))
			return res->status = marrow_fail(MARROW_EINVAL, "%s: %u-byte messages do not fit endpoint "
							 "%u's buffers", fn, c->msg_size, b);
		if (e->qp->sq_wqe_cnt < 2u * MARROW_KCOST_MAX_MSGS)
			return res->status = marrow_fail(MARROW_EINVAL, "%s: endpoint %u's SQ (%u WQEBBs) cannot "
							 "hold %d outstanding sends", fn, b, e->qp->sq_wqe_cnt,
							 MARROW_KCOST_MAX_MSGS);
		if (e->cq->cqe_cnt < (uint32_t)MARROW_KCOST_MAX_MSGS)
			return res->status = marrow_fail(MARROW_EINVAL, "%s: endpoint %u's CQ is smaller than %d",
							 fn, b, MARROW_KCOST_MAX_MSGS);
		m.add(e->qp->sq_buf, (uint64_t)e->qp->sq_wqe_cnt * MX_WQEBB_SIZE);
		m.add(e->qp->dbrec, 8);
		m.add(e->qp->uar, 8);
		m.add(e->cq->buf, (uint64_t)e->cq->cqe_cnt * MX_CQE_SIZE);
		m.add(e->cq->dbrec, 8);
	}
	int rc = m.map(res);
	if (rc != MARROW_OK)
		return rc;
	q.resize(n);
	for (uint32_t b = 0; b < n; b++) {
		const struct marrow_gda_endpoint *e = &eps[b];
		kc_gq &g = q[b];
		memset(&g, 0, sizeof(g));
		gda_sq_init(&g.sq, e->qp, (uint8_t *)e->qp->sq_buf, e->qp->dbrec, (uint64_t *)e->qp->uar);
		gda_cq_init(&g.cq, e->cq, (uint8_t *)e->cq->buf, e->cq->dbrec);
		g.sq.buf = m.dev<uint8_t>(e->qp->sq_buf);
		g.sq.dbrec = m.dev<uint32_t>(e->qp->dbrec);
		g.sq.uar = m.dev<uint64_t>(e->qp->uar);
		g.cq.buf = m.dev<uint8_t>(e->cq->buf);
		g.cq.dbrec = m.dev<uint32_t>(e->cq->dbrec);
		g.raddr = e->remote_addr;
		g.rkey = e->rkey;
		g.laddr = e->local_addr;
		g.lkey = e->lkey;
		if (!g.sq.buf || !g.sq.dbrec || !g.sq.uar || !g.cq.buf || !g.cq.dbrec)
			return res->status = marrow_fail(MARROW_EINVAL, "%s: endpoint %u has no GPU mapping", fn, b);
	}
	return MARROW_OK;
}

int kc_wait(cudaEvent_t ev, uint64_t bound_ns, const char *what, struct marrow_kcost_result *res)
{
	cudaError_t e = cudaSuccess;
	int rc = marrow_cuda_wait_event(ev, bound_ns, what, &e);
	if (rc != MARROW_OK) {
		res->cuda_error = (int32_t)e;
		res->status = rc;
	}
	return rc;
}

} // namespace

extern "C" MARROW_API int marrow_kcost_live_count(void)
{
	return KC_NLIVE;
}

extern "C" MARROW_API int marrow_kcost_live_value(int i)
{
	return i >= 0 && i < KC_NLIVE ? KC_LIVE[i] : -1;
}

extern "C" MARROW_API int marrow_kcost_attributes(const struct marrow_kcost_config *cfg,
						  struct marrow_kcost_result *res)
{
	static const char fn[] = "marrow_kcost_attributes";
	int rc = check_config(fn, cfg, res);
	if (rc != MARROW_OK)
		return rc;
	if ((rc = kc_select(fn, cfg->cuda_device, res)) != MARROW_OK)
		return rc;
	return kc_attributes(cfg, res);
}

extern "C" MARROW_API int marrow_kcost_run(const struct marrow_kcost_config *cfg,
					   const struct marrow_gda_endpoint *gda_eps, uint32_t n_eps,
					   struct marrow_proxy_cuda_ctx *px, float *times_ms,
					   struct marrow_kcost_result *res)
{
	static const char fn[] = "marrow_kcost_run";
	int rc = check_config(fn, cfg, res);
	const bool active = rc == MARROW_OK && cfg->msgs != 0;
	kc_maps maps;
	std::vector<kc_gq> hq;
	kc_args a;
	cudaEvent_t t0 = nullptr, t1 = nullptr;
	cudaError_t e;
	kc_fn kernel;
	unsigned long long hc[2] = {0, 0};
	int32_t fail = -1;
	const uint64_t total_threads = (uint64_t)(rc == MARROW_OK ? cfg->blocks : 0) * (rc == MARROW_OK ? cfg->threads : 0);
	std::vector<float> hout;

	if (rc != MARROW_OK)
		return rc;
	if (times_ms == NULL)
		return res->status = marrow_fail(MARROW_EINVAL, "%s: times_ms is NULL", fn);
	if (active && cfg->transport == MARROW_KCOST_TRANSPORT_GDA && (gda_eps == NULL || n_eps < cfg->blocks))
		return res->status = marrow_fail(MARROW_EINVAL, "%s: mini-gda sends need one endpoint per block "
						 "(%u blocks, %u endpoints)", fn, cfg->blocks, n_eps);
	if (active && cfg->transport == MARROW_KCOST_TRANSPORT_PROXY && px == NULL)
		return res->status = marrow_fail(MARROW_EINVAL, "%s: mini-proxy sends need a GPU producer context", fn);
	memset(&a, 0, sizeof(a));
	if (active && cfg->transport == MARROW_KCOST_TRANSPORT_PROXY) {
		int gpu = 0;
		if ((rc = proxy_cuda_view(px, &a.d, &a.pst, &gpu)) != MARROW_OK)
			return res->status = rc;
		a.d.timeout_ns = cfg->timeout_ns; /* this copy's slot waits; the context keeps its own */
		if (a.d.handoff != MARROW_PROXY_BASELINE)
			return res->status = marrow_fail(MARROW_EINVAL, "%s: blocks share rings, which needs the "
							 "baseline handoff", fn);
		if (gpu != cfg->cuda_device)
			return res->status = marrow_fail(MARROW_EINVAL, "%s: the proxy context is on GPU %d, not %d",
							 fn, gpu, cfg->cuda_device);
		if (a.d.half < MARROW_PROXY_AREA_LAT + cfg->msg_size)
			return res->status = marrow_fail(MARROW_EINVAL, "%s: the proxy buffer's half (%u B) cannot "
							 "hold a %u-byte message after the latency area", fn, a.d.half,
							 cfg->msg_size);
	}
	if ((rc = kc_select(fn, cfg->cuda_device, res)) != MARROW_OK)
		return rc;
	if ((rc = kc_attributes(cfg, res)) != MARROW_OK)
		return rc;
	kernel = kc_lookup(cfg->caller, cfg->transport, live_index(cfg->live));
	if (active && cfg->transport == MARROW_KCOST_TRANSPORT_GDA &&
	    (rc = kc_gda_state(gda_eps, cfg->blocks, cfg, maps, hq, res)) != MARROW_OK)
		return rc;

	a.in_mask = (1u << KC_STREAM_LOG_FLOATS) - 1u;
	a.send_every = cfg->msgs ? MARROW_KCOST_SEGMENTS / cfg->msgs : 0;
	a.wait = cfg->wait;
	a.msg_size = cfg->msg_size;
	a.iters_per_seg = cfg->work / ((uint64_t)MARROW_KCOST_SEGMENTS * cfg->live);
	a.alpha = 0.999f;
	a.beta = 0.001f;
	a.timeout_ns = cfg->timeout_ns;
	{
		void *p = nullptr;
		if ((e = cudaMalloc(&p, total_threads * sizeof(float))) != cudaSuccess) {
			rc = kc_cuda_fail(res, e, "cudaMalloc(out)");
			goto done;
		}
		a.out = (float *)p;
		if (cfg->caller == MARROW_KCOST_CALLER_STREAM) {
			if ((e = cudaMalloc(&p, sizeof(float) << KC_STREAM_LOG_FLOATS)) != cudaSuccess ||
			    (e = cudaMemset(p, 0, sizeof(float) << KC_STREAM_LOG_FLOATS)) != cudaSuccess) {
				rc = kc_cuda_fail(res, e, "cudaMalloc(streamed array)");
				goto done;
			}
			a.in = (const float *)p;
		}
		if ((e = cudaMalloc(&p, 2 * sizeof(unsigned long long) + sizeof(int32_t))) != cudaSuccess) {
			rc = kc_cuda_fail(res, e, "cudaMalloc(counters)");
			goto done;
		}
		a.counters = (unsigned long long *)p;
		a.fail_block = (int32_t *)((char *)p + 2 * sizeof(unsigned long long));
		if ((e = cudaMemset(a.counters, 0, 2 * sizeof(unsigned long long))) != cudaSuccess ||
		    (e = cudaMemcpy(a.fail_block, &fail, sizeof(fail), cudaMemcpyHostToDevice)) != cudaSuccess) {
			rc = kc_cuda_fail(res, e, "initialising the counters");
			goto done;
		}
		if (!hq.empty()) {
			if ((e = cudaMalloc(&p, hq.size() * sizeof(kc_gq))) != cudaSuccess ||
			    (e = cudaMemcpy(p, hq.data(), hq.size() * sizeof(kc_gq), cudaMemcpyHostToDevice)) != cudaSuccess) {
				rc = kc_cuda_fail(res, e, "cudaMalloc(per-block queue state)");
				goto done;
			}
			a.gq = (kc_gq *)p;
		}
	}
	if ((e = cudaEventCreate(&t0)) != cudaSuccess || (e = cudaEventCreate(&t1)) != cudaSuccess) {
		rc = kc_cuda_fail(res, e, "cudaEventCreate");
		goto done;
	}
	for (uint32_t l = 0; l < cfg->warmup + cfg->launches; l++) {
		/* a launch's waits: at most msgs per block in sequence, each bounded */
		const uint64_t bound = marrow_sat_add(marrow_sat_mul((uint64_t)cfg->msgs + 1, cfg->timeout_ns),
						      30000000000ull);
		float ms = 0.0f;
		if ((e = cudaEventRecord(t0, 0)) != cudaSuccess) {
			rc = kc_cuda_fail(res, e, "cudaEventRecord");
			goto done;
		}
		kernel<<<cfg->blocks, cfg->threads>>>(a);
		if ((e = cudaGetLastError()) != cudaSuccess || (e = cudaEventRecord(t1, 0)) != cudaSuccess) {
			rc = kc_cuda_fail(res, e, "launching the kernel-cost caller");
			goto done;
		}
		if ((rc = kc_wait(t1, bound, "marrow_kcost_run: the caller kernel", res)) != MARROW_OK)
			goto done;
		if ((e = cudaEventElapsedTime(&ms, t0, t1)) != cudaSuccess) {
			rc = kc_cuda_fail(res, e, "cudaEventElapsedTime");
			goto done;
		}
		if (l >= cfg->warmup)
			times_ms[l - cfg->warmup] = ms;
		/* untimed: the completions send-then-compute left outstanding */
		if (active && !cfg->wait) {
			if (cfg->transport == MARROW_KCOST_TRANSPORT_GDA)
				kc_drain_gda<<<(cfg->blocks + 127) / 128, 128>>>(a, cfg->blocks);
			else
				kc_drain_proxy<<<1, a.d.rings>>>(a);
			if ((e = cudaGetLastError()) != cudaSuccess || (e = cudaEventRecord(t1, 0)) != cudaSuccess) {
				rc = kc_cuda_fail(res, e, "launching the completion drain");
				goto done;
			}
			if ((rc = kc_wait(t1, bound, "marrow_kcost_run: the completion drain", res)) != MARROW_OK)
				goto done;
		}
		if ((e = cudaMemcpy(&fail, a.fail_block, sizeof(fail), cudaMemcpyDeviceToHost)) != cudaSuccess) {
			rc = kc_cuda_fail(res, e, "cudaMemcpy(fail)");
			goto done;
		}
		if (fail != -1)
			break;
	}
	if ((e = cudaMemcpy(hc, a.counters, sizeof(hc), cudaMemcpyDeviceToHost)) != cudaSuccess) {
		rc = kc_cuda_fail(res, e, "cudaMemcpy(counters)");
		goto done;
	}
	res->messages = hc[0];
	res->completions = hc[1];
	if (active && cfg->transport == MARROW_KCOST_TRANSPORT_PROXY && !cfg->wait && fail == -1)
		res->completions = hc[0]; /* the drain saw every ring's counter cover its head */
	hout.resize(total_threads);
	if ((e = cudaMemcpy(hout.data(), a.out, total_threads * sizeof(float), cudaMemcpyDeviceToHost)) != cudaSuccess) {
		rc = kc_cuda_fail(res, e, "cudaMemcpy(out)");
		goto done;
	}
	{
		double s = 0;
		for (float f : hout)
			s += f;
		memcpy(&res->checksum, &s, sizeof(s));
	}
	res->failed_block = fail;
	if (fail != -1) {
		int st = MARROW_ETIMEDOUT;
		if (fail >= 0 && !hq.empty()) {
			kc_gq g;
			if (cudaMemcpy(&g, a.gq + fail, sizeof(g), cudaMemcpyDeviceToHost) == cudaSuccess && g.err)
				st = g.err;
		}
		rc = res->status = marrow_fail(st, "%s: a device-side wait failed (%s) in %s %d after %llu messages "
					      "and %llu completions; was the NIC engine or a proxy worker stopped?",
					      fn, marrow_status_name(st), fail >= 0 ? "block" : "drain of ring",
					      fail >= 0 ? fail : -2 - fail, hc[0], hc[1]);
		goto done;
	}
	rc = res->status = MARROW_OK;
done:
	if (t0)
		cudaEventDestroy(t0);
	if (t1)
		cudaEventDestroy(t1);
	cudaFree(a.out);
	cudaFree((void *)a.in);
	cudaFree(a.counters);
	cudaFree(a.gq);
	/* the QPs resume from their DBRs; the per-block state is dropped with them */
	return rc;
}
