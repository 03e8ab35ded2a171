/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * marrow_gda_rate_cuda_run (libmarrow_cuda.so): the mini-gda rate kernels.
 * The queues' host memory (every SQ, CQ, doorbell record, the software
 * NIC's doorbell mailbox, the source and destination buffers) is mapped
 * into the GPU with cudaHostRegister(Mapped | Portable) for the run; a
 * ConnectX UAR (MARROW_GDA_EP_UAR_MMIO) as IO memory. The shared per-QP
 * posting state lives in GPU memory; with host-rung doorbells the producer
 * indexes live in mapped host memory and a pinned CPU thread rings
 * (gda_rate_host.h). The steps are gda_rate_post.h's, as on the CPU.
 *
 * Kernels: stage (pointer sources), rate<PUB> (blocks x threads posters),
 * scope (block 0 thread 0 posts; block 1 thread 0 is the signal peer),
 * check (every destination slot after the run).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>
#include <algorithm>
#include <type_traits>
#include <cuda_runtime_api.h>

#include "cuda/cuda_host.h"
#include "marrow/marrow_cuda_map.h"
#include "gda/gda_rate_host.h"
#include "gda/gda_rate_cuda.h"

namespace {

struct rate_kout {
	unsigned long long t_start, t_end;  /* %globaltimer: first timed post, last drain */
	unsigned long long iters_done;
	unsigned long long payload_errors;
	int32_t stop;
	int32_t pad;
};

struct rate_kargs {
	struct gda_rate_ctx c;
	uint32_t publication, qp_map, qps, blocks, threads, lanes, per, scope;
	unsigned long long rounds, warm_rounds, warmup, messages;
	struct gda_rate_tstats *st;      /* one per thread (SCOPE: 2) */
	unsigned long long *span_cycles; /* one per thread */
	unsigned long long *samples;
	uint8_t *src_dev;
	const uint8_t *dst_dev;
	struct rate_kout *out;
};

__device__ __forceinline__ int k_stopped(const rate_kargs &a)
{
	return *(volatile int32_t *)&a.out->stop;
}

/* Staging and the check after the run: one block per slot (grid-stride
 * over the slots), its threads spread over the slot's words / bytes. One
 * thread per slot read a pointer slot of megabytes (gda goodput --posters
 * sweeps to 4 MiB) in mapped host memory byte after byte, each a PCIe round
 * trip: seconds per point. The slot count is the same for every thread of
 * a block, so __syncthreads_or is reached by all. */
__global__ void rate_stage_kernel(rate_kargs a, unsigned long long slots)
{
	for (unsigned long long s = blockIdx.x; s < slots; s += gridDim.x)
		gr_stage_part(a.src_dev, a.c.stride, a.c.msg_size, s, threadIdx.x, blockDim.x);
}

__global__ void rate_check_kernel(rate_kargs a, unsigned long long slots)
{
	for (unsigned long long i = blockIdx.x; i < slots; i += gridDim.x) {
		int bad = !gr_check_part(&a.c, a.dst_dev, (uint32_t)(i / a.c.spt), (uint32_t)(i % a.c.spt),
					 threadIdx.x, blockDim.x);
		if (__syncthreads_or(bad) && threadIdx.x == 0)
			atomicAdd(&a.out->payload_errors, 1ull);
	}
}

template <int PUB>
__global__ void __launch_bounds__(1024) rate_kernel(rate_kargs a)
{
	const gda_rate_ctx *c = &a.c;
	uint32_t gtid = blockIdx.x * a.threads + threadIdx.x;
	uint32_t wpb = (a.threads + 31u) / 32u;
	uint32_t lane = threadIdx.x % 32u;
	uint32_t gwarp = blockIdx.x * wpb + threadIdx.x / 32u;
	uint32_t unit = a.qp_map == MARROW_GDA_RATE_QP_PER_BLOCK ? blockIdx.x
		      : a.qp_map == MARROW_GDA_RATE_QP_PER_WARP || PUB == MARROW_GDA_RATE_PUB_WARP ? gwarp : gtid;
	unsigned mask = __activemask();
	gda_rate_tstats st;
	unsigned long long c0 = gpu_clock64();
	int rc = MARROW_OK;

	memset(&st, 0, sizeof(st));
	for (unsigned long long rd = 0; rd < a.rounds; rd++) {
		uint32_t qi = gr_qp_of(a.qp_map, a.qps, unit, rd);
		if (rd == a.warm_rounds) {
			c0 = gpu_clock64();
			atomicMin(&a.out->t_start, (unsigned long long)gda_now_ns());
		}
		if (PUB != MARROW_GDA_RATE_PUB_WARP) {
			if (k_stopped(a)) {
				rc = MARROW_ECONNRESET;
				break;
			}
			rc = gr_thread_round(c, qi, gtid, rd * a.per, a.per, &st);
			if (rc != MARROW_OK)
				break;
			continue;
		}
		uint32_t idx = 0;
		if (lane == 0)
			rc = k_stopped(a) ? MARROW_ECONNRESET : gr_warp_reserve(c, qi, c->batch, &idx, &st);
		rc = __shfl_sync(mask, rc, 0);
		idx = __shfl_sync(mask, idx, 0);
		if (rc != MARROW_OK)
			break;
		for (uint32_t j = 0; j < a.per; j++)
			gr_build(c, qi, idx + lane * a.per + j, gtid, rd * a.per + j, &st);
		/* the lanes' WQE stores happen before the leader's doorbell; its
		 * system-scope release (the ordering variant) is cumulative over them */
		__syncwarp(mask);
		if (lane == 0)
			rc = gr_warp_publish(c, qi, idx, c->batch, &st);
		rc = __shfl_sync(mask, rc, 0);
		if (rc != MARROW_OK)
			break;
	}
	if (rc == MARROW_OK) {
		uint32_t nq = a.qp_map == MARROW_GDA_RATE_QP_SHARED ? a.qps : 1u;
		for (uint32_t i = 0; i < nq && rc == MARROW_OK; i++) {
			uint32_t qi = a.qp_map == MARROW_GDA_RATE_QP_SHARED ? i : gr_qp_of(a.qp_map, a.qps, unit, 0);
			rc = gr_drain(c, qi, c->qs[qi].total, &st);
		}
	}
	if (rc == MARROW_OK) {
		atomicMax(&a.out->t_end, (unsigned long long)gda_now_ns());
		a.span_cycles[gtid] = gpu_clock64() - c0;
	} else {
		st.status = rc;
		*(volatile int32_t *)&a.out->stop = 1;
	}
	a.st[gtid] = st;
}

/* The single-poster path (ctx.solo: every QP has one poster, gda_rate_post.h).
 * A kernel of its own, bounded to GDA_RATE_SOLO_MAX_THREADS per block: under
 * rate_kernel's __launch_bounds__(1024) (64 registers) the poster's state,
 * the WQE words and the counters spilled to local memory (ptxas -v, sm_90);
 * with (256) alone ptxas still kept 64 registers and spilled; (256, 1) lets
 * it use what it needs (no spills). */
__global__ void __launch_bounds__(GDA_RATE_SOLO_MAX_THREADS, 1) rate_solo_kernel(rate_kargs a)
{
	const gda_rate_ctx *c = &a.c;
	uint32_t gtid = blockIdx.x * a.threads + threadIdx.x;
	uint32_t unit = a.qp_map == MARROW_GDA_RATE_QP_PER_BLOCK ? blockIdx.x
		      : a.qp_map == MARROW_GDA_RATE_QP_PER_WARP ? blockIdx.x * ((a.threads + 31u) / 32u) + threadIdx.x / 32u
		      : gtid;
	gda_rate_tstats st;
	gr_solo sv = {};
	gr_msgs g;
	uint32_t sq = ~0u; /* the QP whose state sv holds */
	/* QP_SHARED with one thread (the only single-poster case that rotates):
	 * each round's QP state from shared memory (~30 cycles), not a global
	 * load/store pair that may miss L1 (an L2 round trip per round) */
	__shared__ gr_solo ss[512];
	const bool rotating = a.qp_map == MARROW_GDA_RATE_QP_SHARED;
	unsigned long long c0 = gpu_clock64();
	int rc = MARROW_OK;

	memset(&st, 0, sizeof(st));
	for (uint32_t i = 0; rotating && i < a.qps; i++)
		gr_solo_load(c, i, &ss[i]);
	gr_msgs_at(c, gtid, 0, &g);
	/* the round's QP without a division per round: fixed, or (rotating)
	 * advanced by one from gr_qp_of's first */
	uint32_t qi = gr_qp_of(a.qp_map, a.qps, unit, 0);
	for (unsigned long long rd = 0; rd < a.rounds; rd++) {
		if (rotating && rd != 0)
			qi = qi + 1u == a.qps ? 0u : qi + 1u;
		if (rd == a.warm_rounds) {
			c0 = gpu_clock64();
			atomicMin(&a.out->t_start, (unsigned long long)gda_now_ns());
		}
		/* the stop word is an L2 round trip: read every 64 rounds, off most
		 * rounds' critical path (it only ends a run another poster failed) */
		if ((rd & 63u) == 0u && k_stopped(a)) {
			rc = MARROW_ECONNRESET;
			break;
		}
		if (rotating) { /* one thread over every QP: the states stay in shared memory */
			sv = ss[qi];
			rc = gr_solo_round(c, qi, &sv, &g, gtid, rd * a.per, a.per, &st);
			ss[qi] = sv;
			if (rc != MARROW_OK)
				break;
			continue;
		}
		if (qi != sq) { /* once: the QP is fixed */
			if (sq != ~0u)
				gr_solo_save(c, sq, &sv);
			gr_solo_load(c, qi, &sv);
			sq = qi;
		}
		if ((rc = gr_solo_round(c, qi, &sv, &g, gtid, rd * a.per, a.per, &st)) != MARROW_OK)
			break;
	}
	if (sq != ~0u)
		gr_solo_save(c, sq, &sv);
	for (uint32_t i = 0; rotating && i < a.qps; i++)
		gr_solo_save(c, i, &ss[i]);
	if (rc == MARROW_OK) {
		uint32_t nq = a.qp_map == MARROW_GDA_RATE_QP_SHARED ? a.qps : 1u;
		for (uint32_t i = 0; i < nq && rc == MARROW_OK; i++) {
			uint32_t qi = a.qp_map == MARROW_GDA_RATE_QP_SHARED ? i : gr_qp_of(a.qp_map, a.qps, unit, 0);
			rc = gr_drain(c, qi, c->qs[qi].total, &st);
		}
	}
	if (rc == MARROW_OK) {
		atomicMax(&a.out->t_end, (unsigned long long)gda_now_ns());
		a.span_cycles[gtid] = gpu_clock64() - c0;
	} else {
		st.status = rc;
		*(volatile int32_t *)&a.out->stop = 1;
	}
	a.st[gtid] = st;
}

__global__ void scope_kernel(rate_kargs a)
{
	const gda_rate_ctx *c = &a.c;
	unsigned long long total = a.warmup + a.messages;
	gda_rate_tstats st;
	int rc = MARROW_OK;

	if (threadIdx.x != 0)
		return;
	memset(&st, 0, sizeof(st));
	if (blockIdx.x == 1) { /* the signal peer */
		const uint64_t *word = (const uint64_t *)a.dst_dev;
		for (unsigned long long it = 0; it < total && rc == MARROW_OK && !k_stopped(a); it++) {
			rc = gr_wait_word(c, word, gr_data_word(it), &st);
			if (rc == MARROW_OK) {
				gr_post_word(c, a.qps, gr_data_word(it), 64, &st);
				rc = gr_drain(c, a.qps, c->qs[a.qps].resv, &st);
			}
		}
	} else {
		const uint64_t *echo = (const uint64_t *)(a.dst_dev + 64);
		uint32_t used[16];
		for (uint32_t i = 0; i < 16u; i++)
			used[i] = 0;
		for (unsigned long long it = 0; it < total && rc == MARROW_OK; it++) {
			unsigned long long t0, t1;
			if (k_stopped(a)) {
				rc = MARROW_ECONNRESET;
				break;
			}
			t0 = gda_now_ns();
			gr_post_word(c, 0, gr_data_word(it), 0, &st);
			used[0] |= 1u;
			if (a.scope == MARROW_GDA_RATE_SCOPE_SIGNAL) {
				rc = gr_wait_word(c, echo, gr_data_word(it), &st);
				t1 = gda_now_ns();
				if (rc == MARROW_OK)
					rc = gr_drain(c, 0, c->qs[0].resv, &st);
			} else {
				rc = gr_quiet(c, a.scope, a.qps, used, &st);
				t1 = gda_now_ns();
			}
			if (rc == MARROW_OK && it >= a.warmup)
				a.samples[it - a.warmup] = t1 - t0;
			if (rc == MARROW_OK)
				a.out->iters_done = it + 1;
		}
		if (rc == MARROW_OK && gpu_ld_relaxed_sys_u64((const uint64_t *)a.dst_dev) != gr_data_word(total - 1u))
			atomicAdd(&a.out->payload_errors, 1ull);
	}
	if (rc != MARROW_OK) {
		st.status = rc;
		*(volatile int32_t *)&a.out->stop = 1;
	}
	a.st[blockIdx.x] = st;
}

/* Page ranges of host memory, sorted and merged, registered once each. */
struct host_ranges {
	struct range {
		uintptr_t lo, hi, dev;
		int owned;
	};
	std::vector<range> r;

	void add(const void *p, uint64_t len)
	{
		uintptr_t lo = (uintptr_t)p & ~(uintptr_t)4095;
		uintptr_t hi = ((uintptr_t)p + len + 4095) & ~(uintptr_t)4095;
		r.push_back({lo, hi, 0, 0});
	}

	void merge()
	{
		std::sort(r.begin(), r.end(), [](const range &x, const range &y) { return x.lo < y.lo; });
		std::vector<range> m;
		for (const range &x : r) {
			if (!m.empty() && x.lo <= m.back().hi)
				m.back().hi = std::max(m.back().hi, x.hi);
			else
				m.push_back(x);
		}
		r.swap(m);
	}

	template <typename T>
	T *dev(const void *p) const
	{
		uintptr_t a = (uintptr_t)p;
		auto it = std::upper_bound(r.begin(), r.end(), a, [](uintptr_t v, const range &x) { return v < x.lo; });
		if (it == r.begin())
			return nullptr;
		--it;
		return a < it->hi ? (T *)(it->dev + (a - it->lo)) : nullptr;
	}
};

int cuda_fail(const char *fn, struct marrow_gda_rate_result *res, cudaError_t e, const char *what)
{
	res->cuda_error = (int32_t)e;
	return res->status = marrow_cuda_fail(e, "%s: %s", fn, what);
}

int map_ranges(const char *fn, host_ranges &m, struct marrow_gda_rate_result *res)
{
	m.merge();
	for (auto &x : m.r) {
		cudaError_t e = cudaHostRegister((void *)x.lo, x.hi - x.lo, cudaHostRegisterMapped | cudaHostRegisterPortable);
		if (e == cudaErrorHostMemoryAlreadyRegistered)
			(void)cudaGetLastError();
		else if (e != cudaSuccess)
			return cuda_fail(fn, res, e, "cudaHostRegister of the queue/buffer memory");
		else
			x.owned = 1;
		void *d = nullptr;
		if ((e = cudaHostGetDevicePointer(&d, (void *)x.lo, 0)) != cudaSuccess)
			return cuda_fail(fn, res, e, "cudaHostGetDevicePointer");
		x.dev = (uintptr_t)d;
	}
	return MARROW_OK;
}

void unmap_ranges(host_ranges &m)
{
	for (auto &x : m.r)
		if (x.owned && cudaHostUnregister((void *)x.lo) != cudaSuccess)
			(void)cudaGetLastError();
}

int select_device(const char *fn, int dev, struct marrow_gda_rate_result *res)
{
	int ndev = 0;
	cudaError_t e = cudaGetDeviceCount(&ndev);
	if (e != cudaSuccess || ndev <= 0) {
		(void)cudaGetLastError();
		res->cuda_error = (int32_t)e;
		return res->status = marrow_fail(MARROW_ENODEV, "%s: no usable CUDA device (%s)", fn,
						 e != cudaSuccess ? cudaGetErrorString(e) : "device count 0");
	}
	if (dev < 0 || dev >= ndev)
		return res->status = marrow_fail(MARROW_ENODEV, "%s: CUDA device %d out of range (0..%d)", fn, dev,
						 ndev - 1);
	if ((e = cudaSetDevice(dev)) != cudaSuccess)
		return cuda_fail(fn, res, e, "cudaSetDevice");
	return MARROW_OK;
}

cudaError_t launch_rate(uint32_t pub, uint32_t blocks, uint32_t threads, const rate_kargs &a, cudaStream_t s)
{
	if (a.c.solo) {
		rate_solo_kernel<<<blocks, threads, 0, s>>>(a);
		return cudaGetLastError();
	}
	switch (pub) {
	case MARROW_GDA_RATE_PUB_LOCK: rate_kernel<MARROW_GDA_RATE_PUB_LOCK><<<blocks, threads, 0, s>>>(a); break;
	case MARROW_GDA_RATE_PUB_SLOT: rate_kernel<MARROW_GDA_RATE_PUB_SLOT><<<blocks, threads, 0, s>>>(a); break;
	default: rate_kernel<MARROW_GDA_RATE_PUB_WARP><<<blocks, threads, 0, s>>>(a); break;
	}
	return cudaGetLastError();
}

void add_stats(struct marrow_gda_rate_result *res, const struct gda_rate_tstats *s)
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

/* Synchronous copy on the run's stream (never the legacy stream's implicit
 * device-wide ordering when a device engine kernel is running). */
cudaError_t copy_sync(void *dst, const void *src, size_t n, cudaMemcpyKind k, cudaStream_t s)
{
	cudaError_t e = cudaMemcpyAsync(dst, src, n, k, s);
	return e == cudaSuccess ? cudaStreamSynchronize(s) : e;
}

/* A failed wait on GPU-resident queues: the runner's view of the QP plus
 * the device engine's (the host cannot read the queue words directly). */
int gpu_fail_dump(int status, const char *fn, struct gda_rate_gpu_queues *gq, uint32_t qi,
		  const struct gda_rate_qstate *qs, const struct gda_rate_tstats *st, uint32_t thread,
		  uint64_t bound_ns)
{
	char nic[1024];

	nic[0] = 0;
	gq->dump(gq->ctx, qi, nic, sizeof(nic));
	if (status == MARROW_EIO)
		return marrow_fail(status, "%s: thread %u got an error CQE on QP %u: opcode %u, syndrome 0x%02x; state: "
				   "thread=%u qp_index=%u %s", fn, thread, st->qp, st->cqe_opcode, st->cqe_syndrome,
				   thread, st->qp, nic);
	return marrow_fail(status, "%s: thread %u timed out after %llu ns waiting for %s on QP %u (saw %u, wanted %u); "
			   "was a doorbell lost or the NIC engine paused? state: waited_for=%s bound_ms=%llu thread=%u "
			   "qp_index=%u reserved_wqes=%u ready_head=%u complete_wqes=%u qp_total=%u %s", fn, thread,
			   (unsigned long long)bound_ns, gda_rate_wait_name(st->wait), st->qp, st->seen, st->want,
			   gda_rate_wait_name(st->wait), (unsigned long long)(bound_ns / 1000000u), thread, st->qp,
			   qs->resv, qs->ready, qs->ci, qs->total, nic);
}

} // namespace

extern "C" MARROW_API int marrow_gda_rate_cuda_run(const struct marrow_gda_rate_config *cfg,
						   const struct marrow_gda_endpoint *eps, uint32_t n_eps,
						   uint64_t *samples_ns, struct marrow_gda_rate_result *res)
{
	return gda_rate_cuda_run_on(cfg, eps, n_eps, samples_ns, res, nullptr);
}

int gda_rate_cuda_run_on(const struct marrow_gda_rate_config *cfg, const struct marrow_gda_endpoint *eps,
			 uint32_t n_eps, uint64_t *samples_ns, struct marrow_gda_rate_result *res,
			 struct gda_rate_gpu_queues *gq)
{
	static const char fn[] = "marrow_gda_rate_cuda_run";
	const int gpu = gq != nullptr;   /* GPU-resident queues: device addresses as they are */
	cudaStream_t s = gpu ? gq->stream : 0;
	int nic_started = 0;
	struct gda_rate_plan p;
	host_ranges m;
	std::vector<gda_rate_qdesc> qd;
	std::vector<gda_rate_qstate> qs;
	std::vector<void *> uar_dev;
	std::vector<uint32_t *> dbrec_h;
	std::vector<uint64_t *> uar_h;
	std::vector<uint32_t> qpn, last;
	std::vector<gda_rate_tstats> st;
	gda_rate_qdesc *d_qd = nullptr;
	gda_rate_qstate *d_qs = nullptr;
	gda_rate_tstats *d_st = nullptr;
	unsigned long long *d_span = nullptr, *d_samples = nullptr;
	rate_kout *d_out = nullptr, out;
	uint32_t *host_pi = nullptr, *host_pi_dev = nullptr;
	struct gda_rate_ringer ring;
	rate_kargs a;
	cudaEvent_t ev = nullptr;
	cudaError_t e;
	int rc, have_ring = 0, scope;
	uint32_t n_st;
	auto dv = [&](auto *ptr) { return gpu ? ptr : m.dev<std::remove_cv_t<std::remove_pointer_t<decltype(ptr)>>>(ptr); };

	if (res != nullptr && res->size == sizeof(*res)) {
		uint32_t sz = res->size;
		memset(res, 0, sizeof(*res));
		res->size = sz;
	}
	if ((rc = gda_rate_plan_make(fn, cfg, eps, n_eps, samples_ns, res,
				     gpu ? MARROW_GDA_PLACEMENT_GPU : MARROW_GDA_PLACEMENT_HOST, &p)) != MARROW_OK)
		return rc;
	if (gpu && cfg->doorbell == MARROW_GDA_RATE_DB_HOST)
		return gda_rate_bad(fn, res, "host-rung doorbells need host-visible doorbell records: the device "
				    "engine's live in GPU memory (use device doorbells)");
	if ((rc = select_device(fn, cfg->cuda_device, res)) != MARROW_OK)
		return rc;
	scope = cfg->experiment == MARROW_GDA_RATE_EXP_SCOPE;
	n_st = scope ? 2u : p.nthreads;
	memset(&ring, 0, sizeof(ring));

	for (uint32_t i = 0; i < (gpu ? 0u : n_eps); i++) {
		const struct marrow_gda_endpoint *ep = &eps[i];
		m.add(ep->qp->sq_buf, (uint64_t)ep->qp->sq_wqe_cnt * MX_WQEBB_SIZE);
		m.add(ep->qp->dbrec, 8);
		if (!(ep->flags & MARROW_GDA_EP_UAR_MMIO))
			m.add(ep->qp->uar, 8);
		m.add(ep->cq->buf, (uint64_t)ep->cq->cqe_cnt * MX_CQE_SIZE);
		m.add(ep->cq->dbrec, 8);
	}
	if (!gpu) {
		m.add((const void *)(uintptr_t)eps[0].remote_addr, eps[0].remote_len);
		if (!p.ctx.inl)
			m.add((const void *)(uintptr_t)eps[0].local_addr, eps[0].local_len);
		if ((rc = map_ranges(fn, m, res)) != MARROW_OK)
			goto done;
	}
	if ((e = cudaHostAlloc((void **)&host_pi, n_eps * sizeof(uint32_t), cudaHostAllocMapped | cudaHostAllocPortable)) != cudaSuccess ||
	    (e = cudaHostGetDevicePointer((void **)&host_pi_dev, host_pi, 0)) != cudaSuccess) {
		rc = cuda_fail(fn, res, e, "cudaHostAlloc of the host-visible producer indexes");
		goto done;
	}
	qd.resize(n_eps);
	qs.assign(n_eps, gda_rate_qstate());
	uar_dev.assign(n_eps, nullptr);
	for (uint32_t i = 0; i < n_eps; i++) {
		const struct marrow_gda_endpoint *ep = &eps[i];
		uint32_t log = 0, dbr[2] = {0, 0}, cq_dbr = 0;
		if (!gpu) {
			dbr[MX_DBR_SND] = ep->qp->dbrec[MX_DBR_SND];
			cq_dbr = ep->cq->dbrec[0];
		} else if ((e = copy_sync(dbr, ep->qp->dbrec, sizeof(dbr), cudaMemcpyDeviceToHost, s)) != cudaSuccess ||
			   (e = copy_sync(&cq_dbr, ep->cq->dbrec, sizeof(cq_dbr), cudaMemcpyDeviceToHost, s)) != cudaSuccess) {
			rc = cuda_fail(fn, res, e, "reading the GPU-resident doorbell records");
			goto done;
		}
		uint32_t sq_ctr = mx_be32toh(dbr[MX_DBR_SND]) & 0xffffu;
		while ((1u << log) < ep->cq->cqe_cnt)
			log++;
		if (sq_ctr % p.ctx.nbb != 0u) {
			rc = gda_rate_bad(fn, res, "a QP's SQ counter is not a whole number of this run's WQEs: use fresh "
					  "QPs per payload shape");
			goto done;
		}
		if (ep->flags & MARROW_GDA_EP_UAR_MMIO) {
			if ((rc = marrow_cuda_host_register(ep->qp->uar, 8, 1, &uar_dev[i])) != MARROW_OK) {
				res->status = rc;
				goto done;
			}
		}
		memset(&qd[i], 0, sizeof(qd[i]));
		qd[i].sq = dv((uint8_t *)ep->qp->sq_buf);
		qd[i].dbrec = dv((uint32_t *)ep->qp->dbrec);
		qd[i].uar = uar_dev[i] ? (uint64_t *)uar_dev[i] : dv((uint64_t *)ep->qp->uar);
		qd[i].cq = dv((uint8_t *)ep->cq->buf);
		qd[i].cq_dbrec = dv((uint32_t *)ep->cq->dbrec);
		qd[i].host_pi = host_pi_dev + i;
		qd[i].wqebb_cnt = ep->qp->sq_wqe_cnt;
		qd[i].qpn = ep->qp->qpn;
		qd[i].log_cq = log;
		if (!qd[i].sq || !qd[i].dbrec || !qd[i].uar || !qd[i].cq || !qd[i].cq_dbrec) {
			rc = res->status = marrow_fail(MARROW_EINVAL, "%s: a view address has no GPU mapping", fn);
			goto done;
		}
		memset(&qs[i], 0, sizeof(qs[i]));
		qs[i].resv = qs[i].ready = qs[i].ci = sq_ctr / p.ctx.nbb;
		qs[i].cq_ci = mx_be32toh(cq_dbr) & 0xffffffu;
		qs[i].cq_pi = qs[i].polled = qs[i].cq_ci;
		host_pi[i] = qs[i].resv;
		qpn.push_back(ep->qp->qpn);
		last.push_back(qs[i].resv);
		dbrec_h.push_back(ep->qp->dbrec);
		uar_h.push_back((uint64_t *)ep->qp->uar);
	}
	if (!scope) {
		std::vector<gda_rate_qstate> tot(n_eps);
		memset(tot.data(), 0, n_eps * sizeof(gda_rate_qstate));
		gda_rate_totals(cfg, &p, tot.data());
		for (uint32_t i = 0; i < n_eps; i++)
			qs[i].total = qs[i].resv + tot[i].total;
		if (!gpu)
			memset((void *)(uintptr_t)eps[0].remote_addr, 0, (size_t)p.ctx.spt * p.ctx.stride * p.nthreads);
		else if ((e = cudaMemsetAsync((void *)(uintptr_t)eps[0].remote_addr, 0,
					      (size_t)p.ctx.spt * p.ctx.stride * p.nthreads, s)) != cudaSuccess ||
			 (e = cudaStreamSynchronize(s)) != cudaSuccess) {
			rc = cuda_fail(fn, res, e, "clearing the destination");
			goto done;
		}
	} else {
		if (!gpu)
			memset((void *)(uintptr_t)eps[0].remote_addr, 0, 128);
		else if ((e = cudaMemsetAsync((void *)(uintptr_t)eps[0].remote_addr, 0, 128, s)) != cudaSuccess ||
			 (e = cudaStreamSynchronize(s)) != cudaSuccess) {
			rc = cuda_fail(fn, res, e, "clearing the destination");
			goto done;
		}
		for (uint32_t i = 0; i < n_eps; i++)
			qs[i].total = 0xffffffffu;
	}
	if ((e = cudaMalloc(&d_qd, n_eps * sizeof(*d_qd))) != cudaSuccess ||
	    (e = cudaMalloc(&d_qs, n_eps * sizeof(*d_qs))) != cudaSuccess ||
	    (e = cudaMalloc(&d_st, n_st * sizeof(*d_st))) != cudaSuccess ||
	    (e = cudaMalloc(&d_span, n_st * sizeof(*d_span))) != cudaSuccess ||
	    (e = cudaMalloc(&d_out, sizeof(*d_out))) != cudaSuccess ||
	    (scope && (e = cudaMalloc(&d_samples, cfg->messages * sizeof(*d_samples))) != cudaSuccess) ||
	    (e = cudaMemcpy(d_qd, qd.data(), n_eps * sizeof(*d_qd), cudaMemcpyHostToDevice)) != cudaSuccess ||
	    (e = cudaMemcpy(d_qs, qs.data(), n_eps * sizeof(*d_qs), cudaMemcpyHostToDevice)) != cudaSuccess ||
	    (e = cudaMemset(d_st, 0, n_st * sizeof(*d_st))) != cudaSuccess ||
	    (e = cudaMemset(d_span, 0, n_st * sizeof(*d_span))) != cudaSuccess) {
		rc = cuda_fail(fn, res, e, "cudaMalloc / cudaMemcpy of the run state");
		goto done;
	}
	memset(&out, 0, sizeof(out));
	out.t_start = ~0ull;
	if ((e = cudaMemcpy(d_out, &out, sizeof(out), cudaMemcpyHostToDevice)) != cudaSuccess) {
		rc = cuda_fail(fn, res, e, "cudaMemcpy of the result block");
		goto done;
	}
	memset(&a, 0, sizeof(a));
	a.c = p.ctx;
	a.c.q = d_qd;
	a.c.qs = d_qs;
	a.publication = cfg->publication;
	a.qp_map = cfg->qp_map;
	a.qps = cfg->qps;
	a.blocks = cfg->blocks;
	a.threads = cfg->threads;
	a.lanes = p.lanes;
	a.per = p.per;
	a.scope = cfg->scope;
	a.rounds = p.rounds;
	a.warm_rounds = p.warm_rounds;
	a.warmup = cfg->warmup;
	a.messages = cfg->messages;
	a.st = d_st;
	a.span_cycles = d_span;
	a.samples = d_samples;
	a.src_dev = p.ctx.inl ? nullptr : dv((uint8_t *)(uintptr_t)eps[0].local_addr);
	a.dst_dev = dv((const uint8_t *)(uintptr_t)eps[0].remote_addr);
	a.out = d_out;
	if (!p.ctx.inl) { /* untimed: the pointer sources */
		rate_stage_kernel<<<132, 256, 0, s>>>(a, (unsigned long long)p.ctx.spt * p.nthreads);
		if ((e = gpu ? cudaStreamSynchronize(s) : cudaDeviceSynchronize()) != cudaSuccess) {
			rc = cuda_fail(fn, res, e, "the staging kernel");
			goto done;
		}
	}
	if (cfg->doorbell == MARROW_GDA_RATE_DB_HOST) {
		ring.n = n_eps;
		ring.nbb = p.ctx.nbb;
		ring.host_pi = host_pi;
		ring.dbrec = dbrec_h.data();
		ring.uar = uar_h.data();
		ring.qpn = qpn.data();
		ring.last = last.data();
		ring.cpu = cfg->doorbell_cpu;
		if (pthread_create(&ring.tid, nullptr, gda_rate_ringer_main, &ring) != 0) {
			rc = res->status = marrow_fail(MARROW_ENOMEM, "%s: cannot start the doorbell thread", fn);
			goto done;
		}
		have_ring = 1;
	}
	if ((e = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming)) != cudaSuccess) {
		rc = cuda_fail(fn, res, e, "cudaEventCreate");
		goto stop_ring;
	}
	if (gpu) { /* the NIC runs from here to the stop below */
		/* Kernels launched while the engine runs are loaded first: a lazy
		 * first-launch load may wait for the device to be idle (cuda_host.h). */
		static const void *const k[] = {
			(const void *)rate_kernel<MARROW_GDA_RATE_PUB_LOCK>, (const void *)rate_kernel<MARROW_GDA_RATE_PUB_SLOT>,
			(const void *)rate_kernel<MARROW_GDA_RATE_PUB_WARP>, (const void *)rate_solo_kernel,
			(const void *)scope_kernel,
			(const void *)rate_check_kernel, (const void *)rate_stage_kernel,
		};
		if ((rc = marrow_cuda_preload(k, (int)(sizeof(k) / sizeof(k[0])), fn)) != MARROW_OK ||
		    (rc = gq->start(gq->ctx)) != MARROW_OK) {
			res->status = rc;
			goto stop_ring;
		}
		nic_started = 1;
	}
	if (scope) {
		scope_kernel<<<cfg->scope == MARROW_GDA_RATE_SCOPE_SIGNAL ? 2 : 1, 32, 0, s>>>(a);
		e = cudaGetLastError();
	} else {
		e = launch_rate(cfg->publication, cfg->blocks, cfg->threads, a, s);
	}
	if (e != cudaSuccess || (e = cudaEventRecord(ev, s)) != cudaSuccess) {
		rc = cuda_fail(fn, res, e, "launching the rate kernel");
		goto stop_ring;
	}
	/* every device wait is bounded by timeout_ns; a healthy run of this
	 * suite ends within seconds, so this bound only catches a stuck GPU */
	rc = marrow_cuda_wait_event(ev, marrow_sat_add(marrow_sat_mul(4, cfg->timeout_ns), 120000000000ull),
				    "marrow_gda_rate_cuda_run: the rate kernel", &e);
	if (rc != MARROW_OK) {
		res->cuda_error = (int32_t)e;
		res->status = rc;
		goto stop_ring;
	}
stop_ring:
	if (nic_started) {
		/* a failed kernel wait leaves the posters running: they end by their own bounded waits */
		int src = gq->stop(gq->ctx);
		if (src != MARROW_OK) {
			gq->stuck = 1;
			if (rc == MARROW_OK)
				rc = res->status = src;
		}
	}
	if (have_ring) {
		__atomic_store_n(&ring.stop, 1, __ATOMIC_RELEASE);
		pthread_join(ring.tid, nullptr);
		res->host_rings = ring.rings;
		res->host_polls = ring.polls;
		if (ring.pin_rc != 0 && rc == MARROW_OK)
			rc = gda_rate_bad(fn, res, "cannot pin the doorbell thread to doorbell_cpu");
	}
	if (rc != MARROW_OK)
		goto done;
	st.resize(n_st);
	{
		std::vector<unsigned long long> span(n_st);
		if ((e = copy_sync(&out, d_out, sizeof(out), cudaMemcpyDeviceToHost, s)) != cudaSuccess ||
		    (e = copy_sync(st.data(), d_st, n_st * sizeof(*d_st), cudaMemcpyDeviceToHost, s)) != cudaSuccess ||
		    (e = copy_sync(span.data(), d_span, n_st * sizeof(*d_span), cudaMemcpyDeviceToHost, s)) != cudaSuccess ||
		    (e = copy_sync(qs.data(), d_qs, n_eps * sizeof(*d_qs), cudaMemcpyDeviceToHost, s)) != cudaSuccess) {
			rc = cuda_fail(fn, res, e, "cudaMemcpy of the results");
			goto done;
		}
		for (uint32_t i = 0; i < n_st; i++) {
			add_stats(res, &st[i]);
			/* The shares' denominator is the posting threads' time. Under
			 * warp publication only each warp's leader reserves, waits and
			 * rings (the other lanes fill, then wait at the warp barrier), so
			 * only leaders count, as the CPU executor's one unit per warp
			 * does: with every lane counted, a leader waiting 60 % of its
			 * time for ring space showed as a 2 % share. */
			if (scope || cfg->publication != MARROW_GDA_RATE_PUB_WARP || (i % cfg->threads) % 32u == 0u)
				res->post_ticks += span[i];
		}
	}
	res->ticks_are_cycles = 1;
	{
		uint32_t fail = n_st;
		for (uint32_t i = 0; i < n_st; i++)
			if (st[i].status != MARROW_OK && st[i].status != MARROW_ECONNRESET) {
				fail = i;
				break;
			}
		if (fail == n_st)
			for (uint32_t i = 0; i < n_st; i++)
				if (st[i].status != MARROW_OK) {
					fail = i;
					break;
				}
		if (fail < n_st) {
			const gda_rate_tstats *fs = &st[fail];
			uint32_t qi = fs->qp < n_eps ? fs->qp : 0;
			rc = fs->status;
			res->status = rc;
			res->fail_thread = fail;
			res->fail_qp = fs->qp;
			res->fail_wait = fs->wait;
			if (gpu && (rc == MARROW_ETIMEDOUT || rc == MARROW_EIO))
				rc = gpu_fail_dump(rc, fn, gq, qi, &qs[qi], fs, fail, cfg->timeout_ns);
			else if (rc == MARROW_ETIMEDOUT || rc == MARROW_EIO)
				rc = gda_rate_fail_dump(rc, fn, &eps[qi], &qs[qi], p.ctx.nbb, fs, fail, cfg->timeout_ns);
			else
				rc = marrow_fail(rc, "%s: GPU thread %u failed: %s", fn, fail, marrow_status_name(rc));
			res->status = rc;
			goto done;
		}
	}
	if (scope) {
		res->messages = out.iters_done > cfg->warmup ? out.iters_done - cfg->warmup : 0;
		if ((e = copy_sync(samples_ns, d_samples, cfg->messages * sizeof(*d_samples), cudaMemcpyDeviceToHost, s)) != cudaSuccess) {
			rc = cuda_fail(fn, res, e, "cudaMemcpy of the samples");
			goto done;
		}
		res->slots_checked = 1;
		res->payload_errors = out.payload_errors;
		if (out.payload_errors != 0)
			rc = res->status = marrow_fail(MARROW_EPROTO, "%s: the destination word does not hold the last put", fn);
	} else {
		unsigned long long slots = (unsigned long long)p.ctx.spt * p.nthreads;
		res->messages = (uint64_t)p.nthreads * cfg->messages;
		res->elapsed_ns = out.t_end - out.t_start;
		rate_check_kernel<<<132, 256, 0, s>>>(a, slots);
		if ((e = gpu ? cudaStreamSynchronize(s) : cudaDeviceSynchronize()) != cudaSuccess ||
		    (e = copy_sync(&out, d_out, sizeof(out), cudaMemcpyDeviceToHost, s)) != cudaSuccess) {
			rc = cuda_fail(fn, res, e, "the check kernel");
			goto done;
		}
		res->slots_checked = slots;
		res->payload_errors = out.payload_errors;
		if (out.payload_errors != 0)
			rc = res->status = marrow_fail(MARROW_EPROTO, "%s: %llu of %llu destination slots hold wrong bytes",
						       fn, out.payload_errors, slots);
	}
done:
	if (ev)
		cudaEventDestroy(ev);
	if (gpu && gq->stuck)
		return rc;   /* the engine still runs over this memory: leave it (it ends by max_run_ns) */
	cudaFree(d_qd);
	cudaFree(d_qs);
	cudaFree(d_st);
	cudaFree(d_span);
	cudaFree(d_out);
	cudaFree(d_samples);
	for (uint32_t i = 0; i < uar_dev.size(); i++)
		if (uar_dev[i])
			(void)marrow_cuda_host_unregister(eps[i].qp->uar);
	if (host_pi)
		cudaFreeHost(host_pi);
	unmap_ranges(m);
	return rc;
}
