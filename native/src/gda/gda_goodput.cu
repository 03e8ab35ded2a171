/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * marrow_gda_goodput_cuda_run (libmarrow_cuda.so): one GPU thread runs
 * gda_window.h on cfg->qps QPs. The host memory the endpoint names (SQ, CQ, DBRs,
 * UAR mailbox, source, destination) is registered and mapped per run; the
 * source is staged and the destination cleared and checked on the host,
 * before and after the kernel (gda_goodput_host.h), as on the CPU.
 */
#include <stdio.h>
#include <string.h>
#include <cuda_runtime_api.h>

#include "cuda/cuda_host.h"
#include "marrow/marrow_cuda_map.h"
#include "gda/gda_goodput_host.h"

namespace {

/* Page-rounded host ranges, merged so that views sharing a page are
 * registered once. */
struct gp_maps {
	enum { MAX = 6 * MARROW_GDA_GOODPUT_MAX_QPS };
	struct { uintptr_t lo, hi, dev; int owned; } r[MAX];
	int n = 0;

	void add(const void *p, uint64_t len)
	{
		uintptr_t lo = (uintptr_t)p & ~(uintptr_t)4095, hi = ((uintptr_t)p + len + 4095) & ~(uintptr_t)4095;

		for (int i = 0; i < n; i++)
			if (lo < r[i].hi && r[i].lo < hi) {
				lo = lo < r[i].lo ? lo : r[i].lo;
				hi = hi > r[i].hi ? hi : r[i].hi;
				r[i] = r[--n];
				add((const void *)lo, hi - lo);
				return;
			}
		r[n].lo = lo;
		r[n].hi = hi;
		r[n].dev = 0;
		r[n].owned = 0;
		n++;
	}
	template <typename T> T *dev(const void *p) const
	{
		for (int i = 0; i < n; i++)
			if ((uintptr_t)p >= r[i].lo && (uintptr_t)p < r[i].hi)
				return (T *)(r[i].dev + ((uintptr_t)p - r[i].lo));
		return nullptr;
	}
};

int gp_cuda_fail(const char *fn, struct marrow_gda_goodput_result *res, cudaError_t e, const char *what)
{
	res->cuda_error = (int32_t)e;
	return res->status = marrow_cuda_fail(e, "%s: %s", fn, what);
}

/* The device views of every QP, passed by value (about 1.3 KB at 16 QPs). */
struct gp_queues {
	struct gda_sq sq[GDA_WINDOW_MAX_QPS];
	struct gda_cq cq[GDA_WINDOW_MAX_QPS];
};

template <int ORD>
__global__ void gp_kernel(struct gp_queues qs, struct gda_window_args a, struct gda_window_out *out)
{
	struct gda_window_out o;

	if (blockIdx.x != 0 || threadIdx.x != 0)
		return;
	memset(&o, 0, sizeof(o));
	gda_window_run(qs.sq, qs.cq, ORD, &a, &o);
	*out = o;
}

cudaError_t gp_launch(int ord, const gp_queues &qs, const gda_window_args &a, gda_window_out *out)
{
	switch (ord) {
	case GDA_ORD_NONE: gp_kernel<GDA_ORD_NONE><<<1, 1>>>(qs, a, out); break;
	case GDA_ORD_GPU_FENCE: gp_kernel<GDA_ORD_GPU_FENCE><<<1, 1>>>(qs, a, out); break;
	case GDA_ORD_GPU_FENCE_DBREC: gp_kernel<GDA_ORD_GPU_FENCE_DBREC><<<1, 1>>>(qs, a, out); break;
	case GDA_ORD_RELEASE_GPU: gp_kernel<GDA_ORD_RELEASE_GPU><<<1, 1>>>(qs, a, out); break;
	case GDA_ORD_THREADFENCE: gp_kernel<GDA_ORD_THREADFENCE><<<1, 1>>>(qs, a, out); break;
	case GDA_ORD_RELEASE_SYS: gp_kernel<GDA_ORD_RELEASE_SYS><<<1, 1>>>(qs, a, out); break;
	default: gp_kernel<GDA_ORD_FENCE_SYS><<<1, 1>>>(qs, a, out); break;
	}
	return cudaGetLastError();
}

} // namespace

extern "C" MARROW_API int marrow_gda_goodput_cuda_run(const struct marrow_gda_goodput_config *cfg,
						      const struct marrow_gda_endpoint *ep,
						      struct marrow_gda_goodput_result *res)
{
	static const char fn[] = "marrow_gda_goodput_cuda_run";
	int rc = gp_check_args(fn, cfg, ep, res), ndev = 0;
	gp_maps m;
	void *uar_dev = nullptr;
	struct gda_window_args a;
	struct gda_window_out o, *d_out = nullptr;
	gp_queues qs, hq;
	uint32_t nq = gp_qps(cfg);
	cudaEvent_t ev = nullptr;
	cudaError_t e;
	uint32_t slots;

	if (rc)
		return rc;
	if ((e = cudaGetDeviceCount(&ndev)) != cudaSuccess || ndev <= 0 || cfg->cuda_device < 0 ||
	    cfg->cuda_device >= ndev) {
		(void)cudaGetLastError();
		res->cuda_error = (int32_t)e;
		return res->status = marrow_fail(MARROW_ENODEV, "%s: no usable CUDA device %d (%d found)", fn,
						 cfg->cuda_device, ndev);
	}
	if ((e = cudaSetDevice(cfg->cuda_device)) != cudaSuccess)
		return gp_cuda_fail(fn, res, e, "cudaSetDevice");
	slots = gp_slots(cfg, ep);
	gp_stage(cfg, ep, slots * nq);
	memset(&o, 0, sizeof(o));
	memset(&qs, 0, sizeof(qs));
	memset(&hq, 0, sizeof(hq));

	for (uint32_t q = 0; q < nq; q++) {
		if ((ep[q].flags & MARROW_GDA_EP_UAR_MMIO) && nq > 1) {
			rc = res->status = marrow_fail(MARROW_EINVAL, "%s: more than one QP with an MMIO doorbell "
						       "(mlx5) is not supported by the goodput runner", fn);
			goto done;
		}
		m.add(ep[q].qp->sq_buf, (uint64_t)ep[q].qp->sq_wqe_cnt * MX_WQEBB_SIZE);
		m.add(ep[q].qp->dbrec, 8);
		if (!(ep[q].flags & MARROW_GDA_EP_UAR_MMIO))
			m.add(ep[q].qp->uar, 8);
		m.add(ep[q].cq->buf, (uint64_t)ep[q].cq->cqe_cnt * MX_CQE_SIZE);
		m.add(ep[q].cq->dbrec, 8);
	}
	for (int i = 0; i < m.n; i++) {
		void *d = nullptr;

		e = cudaHostRegister((void *)m.r[i].lo, m.r[i].hi - m.r[i].lo,
				     cudaHostRegisterMapped | cudaHostRegisterPortable);
		if (e == cudaErrorHostMemoryAlreadyRegistered)
			(void)cudaGetLastError();
		else if (e != cudaSuccess) {
			rc = gp_cuda_fail(fn, res, e, "cudaHostRegister of the queue memory");
			goto done;
		} else
			m.r[i].owned = 1;
		if ((e = cudaHostGetDevicePointer(&d, (void *)m.r[i].lo, 0)) != cudaSuccess) {
			rc = gp_cuda_fail(fn, res, e, "cudaHostGetDevicePointer");
			goto done;
		}
		m.r[i].dev = (uintptr_t)d;
	}
	if ((ep->flags & MARROW_GDA_EP_UAR_MMIO) &&
	    (rc = marrow_cuda_host_register(ep->qp->uar, 8, 1, &uar_dev)) != MARROW_OK) {
		res->status = rc;
		goto done;
	}
	/* Counters resume from the DBRs (host side), pointers become device ones.
	 * The NIC reads source and destination by address: they need no mapping. */
	for (uint32_t q = 0; q < nq; q++) {
		gda_sq_init(&hq.sq[q], ep[q].qp, (uint8_t *)ep[q].qp->sq_buf, ep[q].qp->dbrec,
			    (uint64_t *)ep[q].qp->uar);
		gda_cq_init(&hq.cq[q], ep[q].cq, (uint8_t *)ep[q].cq->buf, ep[q].cq->dbrec);
		qs.sq[q] = hq.sq[q];
		qs.cq[q] = hq.cq[q];
		qs.sq[q].buf = m.dev<uint8_t>(ep[q].qp->sq_buf);
		qs.sq[q].dbrec = m.dev<uint32_t>(ep[q].qp->dbrec);
		qs.sq[q].uar = uar_dev ? (uint64_t *)uar_dev : m.dev<uint64_t>(ep[q].qp->uar);
		qs.cq[q].buf = m.dev<uint8_t>(ep[q].cq->buf);
		qs.cq[q].dbrec = m.dev<uint32_t>(ep[q].cq->dbrec);
	}
	gp_args(cfg, ep, slots, &a);
	if ((e = cudaMalloc(&d_out, sizeof(*d_out))) != cudaSuccess ||
	    (e = cudaMemset(d_out, 0, sizeof(*d_out))) != cudaSuccess) {
		rc = gp_cuda_fail(fn, res, e, "cudaMalloc of the result block");
		goto done;
	}
	if ((e = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming)) != cudaSuccess) {
		rc = gp_cuda_fail(fn, res, e, "cudaEventCreate");
		goto done;
	}
	if ((e = gp_launch((int)cfg->ordering, qs, a, d_out)) != cudaSuccess ||
	    (e = cudaEventRecord(ev, 0)) != cudaSuccess) {
		rc = gp_cuda_fail(fn, res, e, "the goodput kernel");
		goto done;
	}
	{
		/* Every device wait is bounded: one per signaled CQE at most. */
		uint64_t waits = (cfg->messages + cfg->warmup) / cfg->signal_every + 3u * nq;
		uint64_t bound = marrow_sat_add(marrow_sat_mul(waits, cfg->timeout_ns), 10000000000ull);
		char what[96];

		snprintf(what, sizeof(what), "%s: the goodput kernel", fn);
		if ((rc = marrow_cuda_wait_event(ev, bound, what, &e)) != MARROW_OK) {
			res->cuda_error = (int32_t)e;
			res->status = rc;
			goto done;
		}
	}
	if ((e = cudaMemcpy(&o, d_out, sizeof(o), cudaMemcpyDeviceToHost)) != cudaSuccess) {
		rc = gp_cuda_fail(fn, res, e, "cudaMemcpy of the result");
		goto done;
	}
	/* The dump reads the host views; the kernel's counters are in o.err. */
	rc = gp_finish(fn, cfg, ep, &o, slots, nullptr, nullptr, res);
done:
	if (ev)
		cudaEventDestroy(ev);
	cudaFree(d_out);
	if (uar_dev)
		(void)marrow_cuda_host_unregister(ep->qp->uar);
	for (int i = 0; i < m.n; i++)
		if (m.r[i].owned && cudaHostUnregister((void *)m.r[i].lo) != cudaSuccess)
			(void)cudaGetLastError();
	return rc;
}
