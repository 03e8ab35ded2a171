/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * marrow_gda_cuda_run (libmarrow_cuda.so): maps the host memory named by
 * the endpoints (SQ, CQ, both DBRs, UAR mailbox, source, destination, inbox)
 * into the GPU with cudaHostRegister(Mapped | Portable), launches the
 * kernel of the requested ordering variant, and copies samples back.
 *
 * Host placement: the NIC's queues stay in host memory, which is how the
 * software NIC's CPU engine (and a verbs QP from mlx5dv_init_obj) allocates
 * them; every GPU access to them crosses PCIe.
 *
 * GPU placement with an MMIO doorbell (DevX QPs on mlx5,
 * gda_gpu_queues_host_buffers): SQ, CQ and DBRs are GPU memory used as they
 * are, the DBRs read back with cudaMemcpy for the resume; the UAR and the
 * host data buffers are mapped as on host placement.
 *
 * GPU placement (the software NIC's device engine, gda_devnic.cu): the views
 * already hold GPU addresses; nothing is mapped, the producer/consumer
 * counters resume from DBRs copied with cudaMemcpyAsync (the host cannot
 * read GPU memory), and everything runs on a non-blocking stream with the
 * stream-ordered allocator, because the engine's persistent kernel is
 * running meanwhile: anything that synchronises the device (cudaFree, the
 * legacy stream's implicit waits) would wait for it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>

#include "cuda/cuda_host.h"
#include "marrow/marrow_cuda_map.h"
#include "gda/gda_dump.h"
#include "gda/gda_validate.h"
#include "gda/gda_kernels.cuh"

namespace {

const char *const ORDER_NAMES[GDA_ORD_COUNT] = {
	"none", "gpu-fence", "gpu-fence-dbrec", "release-gpu", "threadfence", "release-sys", "fence-sys",
};

/* A set of host ranges, page-rounded and merged so that overlapping views
 * (e.g. two small buffers in one page) are registered once. */
struct host_maps {
	enum { MAX = 24 };
	struct range {
		uintptr_t lo, hi;   /* page-aligned [lo, hi) */
		uintptr_t dev;      /* device address of lo */
		int owned;          /* we registered it (else it already was) */
	} r[MAX];
	int n = 0;
	long page = 4096;

	void add(const void *p, uint64_t len)
	{
		uintptr_t lo = (uintptr_t)p & ~(uintptr_t)(page - 1);
		uintptr_t hi = ((uintptr_t)p + (uintptr_t)len + (uintptr_t)page - 1) & ~(uintptr_t)(page - 1);
		for (int i = 0; i < n; i++) {
			if (lo < r[i].hi && r[i].lo < hi) { /* overlap: grow, then re-merge */
				lo = lo < r[i].lo ? lo : r[i].lo;
				hi = hi > r[i].hi ? hi : r[i].hi;
				r[i] = r[--n];
				add((const void *)lo, hi - lo);
				return;
			}
		}
		r[n].lo = lo;
		r[n].hi = hi;
		r[n].dev = 0;
		r[n].owned = 0;
		n++;
	}

	template <typename T>
	T *dev(const void *p) const
	{
		for (int i = 0; i < n; i++)
			if ((uintptr_t)p >= r[i].lo && (uintptr_t)p < r[i].hi)
				return (T *)(r[i].dev + ((uintptr_t)p - r[i].lo));
		return nullptr;
	}
};

/* The shared CUDA error mapping, plus the result fields Java reads. */
int cuda_fail(const char *fn, struct marrow_gda_result *res, cudaError_t e, const char *what)
{
	res->cuda_error = (int32_t)e;
	return res->status = marrow_cuda_fail(e, "%s: %s", fn, what);
}

int map_all(const char *fn, host_maps &m, struct marrow_gda_result *res)
{
	for (int i = 0; i < m.n; i++) {
		void *h = (void *)m.r[i].lo;
		cudaError_t e = cudaHostRegister(h, m.r[i].hi - m.r[i].lo,
						 cudaHostRegisterMapped | cudaHostRegisterPortable);
		if (e == cudaErrorHostMemoryAlreadyRegistered) {
			(void)cudaGetLastError();
		} else if (e != cudaSuccess) {
			return cuda_fail(fn, res, e, "cudaHostRegister of the queue/buffer memory");
		} else {
			m.r[i].owned = 1;
		}
		void *d = nullptr;
		e = cudaHostGetDevicePointer(&d, h, 0);
		if (e != cudaSuccess)
			return cuda_fail(fn, res, e, "cudaHostGetDevicePointer");
		m.r[i].dev = (uintptr_t)d;
	}
	return MARROW_OK;
}

void unmap_all(host_maps &m)
{
	for (int i = 0; i < m.n; i++)
		if (m.r[i].owned && cudaHostUnregister((void *)m.r[i].lo) != cudaSuccess)
			(void)cudaGetLastError();
}

void add_side(host_maps &m, const struct marrow_gda_endpoint *e, int payload)
{
	const struct marrow_qp_view *q = e->qp;
	const struct marrow_cq_view *c = e->cq;

	if (!gda_gpu_queues_host_buffers(e)) { /* GPU-resident queues need no mapping */
		m.add(q->sq_buf, (uint64_t)q->sq_wqe_cnt * MX_WQEBB_SIZE);
		m.add(q->dbrec, 8);
		m.add(c->buf, (uint64_t)c->cqe_cnt * MX_CQE_SIZE);
		m.add(c->dbrec, 8);
	}
	if (!(e->flags & MARROW_GDA_EP_UAR_MMIO))
		m.add(q->uar, 8);
	if (payload == MARROW_GDA_PAYLOAD_POINTER)
		m.add((const void *)(uintptr_t)e->local_addr, e->local_len);
	if (!gda_remote_dst(e)) /* another host's address: WQEs only, never mapped */
		m.add((const void *)(uintptr_t)e->remote_addr, e->remote_len);
	if (e->inbox_addr)
		m.add((const void *)(uintptr_t)e->inbox_addr, 8);
}

/* Device-side state of one side; the SQ/CQ counters resume from the DBRs. */
int make_side(const host_maps &m, const struct marrow_gda_endpoint *e, gda_kside *k, void *uar_dev)
{
	const struct marrow_qp_view *q = e->qp;
	const struct marrow_cq_view *c = e->cq;
	int gpu_queues = gda_gpu_queues_host_buffers(e);
	uint32_t sq_dbr[2] = {0, 0}, cq_dbr[2] = {0, 0};

	memset(k, 0, sizeof(*k));
	if (gpu_queues) {
		/* DevX queues in GPU memory: the host cannot load them, so the
		 * DBRs come over with cudaMemcpy (nothing else runs on the GPU
		 * here, so the synchronous copy is safe). */
		cudaError_t err = cudaMemcpy(sq_dbr, q->dbrec, sizeof(sq_dbr), cudaMemcpyDeviceToHost);

		if (err == cudaSuccess)
			err = cudaMemcpy(cq_dbr, c->dbrec, sizeof(cq_dbr), cudaMemcpyDeviceToHost);
		if (err != cudaSuccess)
			return marrow_cuda_fail(err, "marrow_gda_cuda_run: reading the GPU-resident doorbell "
						"records (cudaMemcpy)");
	}
	/* Counters resume from the DBRs, read on the host side... */
	gda_sq_init(&k->sq, q, (uint8_t *)q->sq_buf, gpu_queues ? sq_dbr : q->dbrec, (uint64_t *)q->uar);
	gda_cq_init(&k->cq, c, (uint8_t *)c->buf, gpu_queues ? cq_dbr : c->dbrec);
	/* ...then every pointer the kernel dereferences becomes a device one. */
	k->sq.buf = gpu_queues ? (uint8_t *)q->sq_buf : m.dev<uint8_t>(q->sq_buf);
	k->sq.dbrec = gpu_queues ? q->dbrec : m.dev<uint32_t>(q->dbrec);
	k->sq.uar = uar_dev ? (uint64_t *)uar_dev : m.dev<uint64_t>(q->uar);
	k->cq.buf = gpu_queues ? (uint8_t *)c->buf : m.dev<uint8_t>(c->buf);
	k->cq.dbrec = gpu_queues ? c->dbrec : m.dev<uint32_t>(c->dbrec);
	k->raddr = e->remote_addr;
	k->rkey = e->rkey;
	k->laddr = e->local_addr;
	k->lkey = e->lkey;
	k->src_dev = m.dev<uint32_t>((const void *)(uintptr_t)e->local_addr);
	k->dst_dev = gda_remote_dst(e) ? nullptr
				       : m.dev<const uint8_t>((const void *)(uintptr_t)e->remote_addr);
	k->inbox_dev = e->inbox_addr ? m.dev<const uint64_t>((const void *)(uintptr_t)e->inbox_addr) : nullptr;
	if (!k->sq.buf || !k->sq.dbrec || !k->sq.uar || !k->cq.buf || !k->cq.dbrec ||
	    (!k->dst_dev && !gda_remote_dst(e)) || (e->inbox_addr && !k->inbox_dev))
		return marrow_fail(MARROW_EINVAL, "marrow_gda_cuda_run: a view address has no GPU mapping");
	return MARROW_OK;
}

} // namespace

/* Every ordering's kernel, loaded before the device engine starts
 * (marrow_cuda_preload says why); gda_devnic.cu calls it. */
int gda_cuda_preload_kernels(void)
{
	static const void *const k[] = {
		(const void *)gda_kernel<GDA_ORD_NONE>, (const void *)gda_kernel<GDA_ORD_GPU_FENCE>,
		(const void *)gda_kernel<GDA_ORD_GPU_FENCE_DBREC>, (const void *)gda_kernel<GDA_ORD_RELEASE_GPU>,
		(const void *)gda_kernel<GDA_ORD_THREADFENCE>, (const void *)gda_kernel<GDA_ORD_RELEASE_SYS>,
		(const void *)gda_kernel<GDA_ORD_FENCE_SYS>,
	};
	return marrow_cuda_preload(k, (int)(sizeof(k) / sizeof(k[0])), "the mini-gda kernels");
}

namespace {

cudaError_t launch_kernel(int ord, int blocks, const gda_kargs &a, cudaStream_t st)
{
	switch (ord) {
	case GDA_ORD_NONE: gda_kernel<GDA_ORD_NONE><<<blocks, 1, 0, st>>>(a); break;
	case GDA_ORD_GPU_FENCE: gda_kernel<GDA_ORD_GPU_FENCE><<<blocks, 1, 0, st>>>(a); break;
	case GDA_ORD_GPU_FENCE_DBREC: gda_kernel<GDA_ORD_GPU_FENCE_DBREC><<<blocks, 1, 0, st>>>(a); break;
	case GDA_ORD_RELEASE_GPU: gda_kernel<GDA_ORD_RELEASE_GPU><<<blocks, 1, 0, st>>>(a); break;
	case GDA_ORD_THREADFENCE: gda_kernel<GDA_ORD_THREADFENCE><<<blocks, 1, 0, st>>>(a); break;
	case GDA_ORD_RELEASE_SYS: gda_kernel<GDA_ORD_RELEASE_SYS><<<blocks, 1, 0, st>>>(a); break;
	default: gda_kernel<GDA_ORD_FENCE_SYS><<<blocks, 1, 0, st>>>(a); break;
	}
	return cudaGetLastError();
}

/* Launches the variant's kernel and waits for it within a host deadline.
 * Each iteration has at most two device-side waits, each bounded by
 * timeout_ns, so a kernel that is still running after
 * (2 * iterations + 1) * timeout_ns + 10 s has stopped making progress. */
int run_kernel(const char *fn, int ord, int blocks, const gda_kargs &a, struct marrow_gda_result *res,
	       const char *what, cudaStream_t st = 0)
{
	uint64_t its = a.warmup + a.iters;
	uint64_t bound = marrow_sat_add(marrow_sat_mul(marrow_sat_add(marrow_sat_mul(2, its), 1), a.timeout_ns),
					10000000000ull);
	cudaEvent_t ev = nullptr;
	cudaError_t e;
	char msg[160];
	int rc;

	if ((e = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming)) != cudaSuccess)
		return cuda_fail(fn, res, e, "cudaEventCreate");
	if ((e = launch_kernel(ord, blocks, a, st)) != cudaSuccess || (e = cudaEventRecord(ev, st)) != cudaSuccess) {
		rc = cuda_fail(fn, res, e, what);
	} else {
		snprintf(msg, sizeof(msg), "%s: %s", fn, what);
		rc = marrow_cuda_wait_event(ev, bound, msg, &e);
		if (rc != MARROW_OK) {
			res->cuda_error = (int32_t)e;
			res->status = rc;
		}
	}
	cudaEventDestroy(ev);
	return rc;
}

/* The message for a failed device-side wait, as the CPU runner words it. */
int report(const char *who, int rc, uint32_t iter, const struct gda_err &e,
	   const struct marrow_gda_config *cfg, struct marrow_gda_result *res,
	   const struct marrow_gda_endpoint *ep)
{
	res->status = rc;
	res->fail_iter = iter;
	res->cqe_opcode = e.opcode;
	res->cqe_syndrome = e.syndrome;
	res->cqe_vendor_syndrome = e.vendor_syndrome;
	res->cqe_wqe_counter = e.wqe_counter;
	res->expected_wqe_counter = e.expected;
	if (rc == MARROW_ETIMEDOUT) {
		marrow_fail(rc, "marrow_gda_cuda_run: GPU %s timed out after %llu ns in iteration %u "
			    "(ordering %s): no %s arrived; was the doorbell lost or the NIC engine "
			    "paused? (CQ slot shows opcode %u, wqe_counter %u, expected %u)",
			    who, (unsigned long long)cfg->timeout_ns, iter, ORDER_NAMES[cfg->ordering],
			    strncmp(who, "peer", 4) == 0 ? "ping from the initiator or CQE"
			    : cfg->experiment == MARROW_GDA_EXP_ROUND_TRIP ? "reply or CQE" : "CQE",
			    e.opcode, e.wqe_counter, e.expected);
		/* The kernel has ended: the views' host memory shows where the queues stopped. */
		return ep != nullptr ? gda_fail_dump(rc, ep, &e, nullptr, nullptr, cfg->timeout_ns, iter, 0)
				     : rc;
	}
	if (rc == MARROW_EIO)
		return marrow_fail(rc, "marrow_gda_cuda_run: GPU %s got an error CQE in iteration %u: opcode %u, "
				   "syndrome 0x%02x, vendor syndrome 0x%02x, wqe_counter %u",
				   who, iter, e.opcode, e.syndrome, e.vendor_syndrome, e.wqe_counter);
	if (rc == MARROW_EPROTO)
		return marrow_fail(rc, "marrow_gda_cuda_run: GPU %s got an unexpected CQE in iteration %u: "
				   "wqe_counter %u, expected %u", who, iter, e.wqe_counter, e.expected);
	return marrow_fail(rc, "marrow_gda_cuda_run: GPU %s failed in iteration %u: %s", who, iter,
			   marrow_status_name(rc));
}

/* GPU placement: the view pointers are GPU addresses already. The counters
 * resume from the DBRs, copied to the host first (the host cannot read GPU
 * memory); then the kernel gets the GPU pointers. */
int make_side_gpu(const char *fn, const struct marrow_gda_endpoint *e, gda_kside *k, cudaStream_t st,
		  struct marrow_gda_result *res)
{
	const struct marrow_qp_view *q = e->qp;
	const struct marrow_cq_view *c = e->cq;
	uint32_t sq_dbr[2] = {0, 0}, cq_dbr[2] = {0, 0};
	cudaError_t err;

	if ((err = cudaMemcpyAsync(sq_dbr, q->dbrec, sizeof(sq_dbr), cudaMemcpyDeviceToHost, st)) != cudaSuccess ||
	    (err = cudaMemcpyAsync(cq_dbr, c->dbrec, sizeof(cq_dbr), cudaMemcpyDeviceToHost, st)) != cudaSuccess ||
	    (err = cudaStreamSynchronize(st)) != cudaSuccess)
		return cuda_fail(fn, res, err, "reading the GPU-resident doorbell records (cudaMemcpyAsync)");
	memset(k, 0, sizeof(*k));
	gda_sq_init(&k->sq, q, (uint8_t *)q->sq_buf, sq_dbr, (uint64_t *)q->uar);
	gda_cq_init(&k->cq, c, (uint8_t *)c->buf, cq_dbr);
	k->sq.dbrec = q->dbrec;
	k->cq.dbrec = c->dbrec;
	k->raddr = e->remote_addr;
	k->rkey = e->rkey;
	k->laddr = e->local_addr;
	k->lkey = e->lkey;
	k->src_dev = (uint32_t *)(uintptr_t)e->local_addr;
	k->dst_dev = (const uint8_t *)(uintptr_t)e->remote_addr;
	k->inbox_dev = e->inbox_addr ? (const uint64_t *)(uintptr_t)e->inbox_addr : nullptr;
	if (gda_remote_dst(e) || (e->flags & MARROW_GDA_EP_UAR_MMIO))
		return res->status = marrow_fail(MARROW_EINVAL, "%s: placement 'gpu' endpoints are one-process "
						 "software-NIC ones (no remote destination, no MMIO doorbell)", fn);
	return MARROW_OK;
}

/* marrow_gda_cuda_run for GPU-resident queues: no host mappings, a
 * non-blocking stream and stream-ordered allocations throughout. */
int run_gpu_placement(const char *fn, const struct marrow_gda_config *cfg, const struct marrow_gda_endpoint *ep,
		      const struct marrow_gda_endpoint *peer, int rtt, uint64_t *samples_ns, uint64_t *samples_cycles,
		      struct marrow_gda_result *res, gda_kout *out)
{
	cudaStream_t st = nullptr;
	gda_kargs a;
	unsigned long long *d_ns = nullptr, *d_cyc = nullptr;
	gda_kout *d_out = nullptr;
	cudaError_t e;
	int rc;

	if ((e = cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking)) != cudaSuccess)
		return cuda_fail(fn, res, e, "cudaStreamCreateWithFlags");
	memset(&a, 0, sizeof(a));
	rc = make_side_gpu(fn, ep, &a.me, st, res);
	if (rc == MARROW_OK && rtt)
		rc = make_side_gpu(fn, peer, &a.peer, st, res);
	if (rc != MARROW_OK)
		goto done;
	a.exp = cfg->experiment;
	a.payload = cfg->payload;
	a.msg_size = cfg->msg_size;
	a.iters = cfg->iters;
	a.warmup = cfg->warmup;
	a.timeout_ns = cfg->timeout_ns;
	if ((e = cudaMallocAsync((void **)&d_ns, cfg->iters * sizeof(*d_ns), st)) != cudaSuccess ||
	    (e = cudaMallocAsync((void **)&d_cyc, cfg->iters * sizeof(*d_cyc), st)) != cudaSuccess ||
	    (e = cudaMallocAsync((void **)&d_out, sizeof(*d_out), st)) != cudaSuccess ||
	    (e = cudaMemsetAsync(d_out, 0, sizeof(*d_out), st)) != cudaSuccess) {
		rc = cuda_fail(fn, res, e, "cudaMallocAsync of the sample buffers");
		goto done;
	}
	a.samples_ns = d_ns;
	a.samples_cycles = d_cyc;
	a.out = d_out;
	if ((rc = run_kernel(fn, (int)cfg->ordering, rtt ? 2 : 1, a, res, "the mini-gda kernel", st)) != MARROW_OK)
		goto done;
	if ((e = cudaMemcpyAsync(out, d_out, sizeof(*out), cudaMemcpyDeviceToHost, st)) != cudaSuccess ||
	    (e = cudaMemcpyAsync(samples_ns, d_ns, cfg->iters * sizeof(*d_ns), cudaMemcpyDeviceToHost, st)) !=
		    cudaSuccess ||
	    (samples_cycles != nullptr &&
	     (e = cudaMemcpyAsync(samples_cycles, d_cyc, cfg->iters * sizeof(*d_cyc), cudaMemcpyDeviceToHost, st)) !=
		     cudaSuccess) ||
	    (e = cudaStreamSynchronize(st)) != cudaSuccess)
		rc = cuda_fail(fn, res, e, "cudaMemcpyAsync of the samples");
done:
	if (rc != MARROW_ETIMEDOUT) {
		/* After a timeout the kernel may still run: its buffers stay. */
		if (d_ns)
			cudaFreeAsync(d_ns, st);
		if (d_cyc)
			cudaFreeAsync(d_cyc, st);
		if (d_out)
			cudaFreeAsync(d_out, st);
		cudaStreamSynchronize(st);
		cudaStreamDestroy(st);
	}
	(void)cudaGetLastError();
	return rc;
}

/* Selects the configured GPU; MARROW_ENODEV without one. */
int select_device(const char *fn, int dev, struct marrow_gda_result *res)
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
		return res->status = marrow_fail(MARROW_ENODEV, "%s: CUDA device %d out of range (0..%d)", fn,
						 dev, ndev - 1);
	if ((e = cudaSetDevice(dev)) != cudaSuccess)
		return cuda_fail(fn, res, e, "cudaSetDevice");
	return MARROW_OK;
}

} // namespace

extern "C" MARROW_API int marrow_gda_cuda_run(const struct marrow_gda_config *cfg,
					      const struct marrow_gda_endpoint *ep,
					      const struct marrow_gda_endpoint *peer,
					      uint64_t *samples_ns, uint64_t *samples_cycles,
					      struct marrow_gda_result *res)
{
	static const char fn[] = "marrow_gda_cuda_run";
	int rc = gda_check_args(fn, cfg, ep, peer, samples_ns, res);
	int rtt;
	host_maps m;
	void *uar_dev[2] = {nullptr, nullptr};
	gda_kargs a;
	gda_kout out;
	unsigned long long *d_ns = nullptr, *d_cyc = nullptr;
	gda_kout *d_out = nullptr;
	cudaError_t e;

	if (rc)
		return rc;
	/* rtt: the peer is block 1 here, unless it runs on the other host */
	rtt = cfg->experiment == MARROW_GDA_EXP_ROUND_TRIP && !gda_remote_dst(ep);
	if ((rc = select_device(fn, cfg->cuda_device, res)) != MARROW_OK)
		return rc;
	if (rtt && (ep->placement != peer->placement ||
		    gda_gpu_queues_host_buffers(ep) != gda_gpu_queues_host_buffers(peer)))
		return res->status = marrow_fail(MARROW_EINVAL, "%s: initiator and peer endpoints have different "
						 "queue placements", fn);
	/* The device engine's endpoints; DevX ones (GPU queues, MMIO doorbell,
	 * host buffers) take the mapped path below. */
	if (ep->placement == MARROW_GDA_PLACEMENT_GPU && !gda_gpu_queues_host_buffers(ep)) {
		memset(&out, 0, sizeof(out));
		rc = run_gpu_placement(fn, cfg, ep, peer, rtt, samples_ns, samples_cycles, res, &out);
		if (rc != MARROW_OK)
			return res->status = rc;
		goto results;
	}

	add_side(m, ep, (int)cfg->payload);
	if (rtt)
		add_side(m, peer, (int)cfg->payload);
	rc = map_all(fn, m, res);
	/* A hardware UAR is IO memory: the shared helper maps it (and names
	 * PeerMappingOverride=1 when the driver refuses). */
	if (rc == MARROW_OK && (ep->flags & MARROW_GDA_EP_UAR_MMIO))
		rc = marrow_cuda_host_register(ep->qp->uar, 8, 1, &uar_dev[0]);
	if (rc == MARROW_OK && rtt && (peer->flags & MARROW_GDA_EP_UAR_MMIO))
		rc = marrow_cuda_host_register(peer->qp->uar, 8, 1, &uar_dev[1]);
	memset(&a, 0, sizeof(a));
	if (rc == MARROW_OK)
		rc = make_side(m, ep, &a.me, uar_dev[0]);
	if (rc == MARROW_OK && rtt)
		rc = make_side(m, peer, &a.peer, uar_dev[1]);
	if (rc != MARROW_OK) {
		res->status = rc;
		goto done;
	}
	a.exp = cfg->experiment;
	a.payload = cfg->payload;
	a.msg_size = cfg->msg_size;
	a.iters = cfg->iters;
	a.warmup = cfg->warmup;
	a.timeout_ns = cfg->timeout_ns;
	a.responder_delay_ns = cfg->responder_delay_ns;

	memset(&out, 0, sizeof(out));
	if ((e = cudaMalloc(&d_ns, cfg->iters * sizeof(*d_ns))) != cudaSuccess ||
	    (e = cudaMalloc(&d_cyc, cfg->iters * sizeof(*d_cyc))) != cudaSuccess ||
	    (e = cudaMalloc(&d_out, sizeof(*d_out))) != cudaSuccess ||
	    (e = cudaMemset(d_out, 0, sizeof(*d_out))) != cudaSuccess) {
		rc = cuda_fail(fn, res, e, "cudaMalloc of the sample buffers");
		goto done;
	}
	a.samples_ns = d_ns;
	a.samples_cycles = d_cyc;
	a.out = d_out;
	/* Every device wait is bounded, so the kernel ends. */
	if ((rc = run_kernel(fn, (int)cfg->ordering, rtt ? 2 : 1, a, res, "the mini-gda kernel")) != MARROW_OK)
		goto done;
	if ((e = cudaMemcpy(&out, d_out, sizeof(out), cudaMemcpyDeviceToHost)) != cudaSuccess ||
	    (e = cudaMemcpy(samples_ns, d_ns, cfg->iters * sizeof(*d_ns), cudaMemcpyDeviceToHost)) != cudaSuccess ||
	    (samples_cycles != nullptr &&
	     (e = cudaMemcpy(samples_cycles, d_cyc, cfg->iters * sizeof(*d_cyc), cudaMemcpyDeviceToHost)) != cudaSuccess)) {
		rc = cuda_fail(fn, res, e, "cudaMemcpy of the samples");
		goto done;
	}
results:
	res->iters_done = out.iters_done;
	res->posts = out.posts;
	res->doorbells = out.posts;
	res->cqes = out.cqes;
	res->peer_posts = out.peer_posts;
	res->payload_errors = out.payload_errors;
	res->timed_ns = out.timed_ns;
	res->timed_cycles = out.timed_cycles;
	res->ds = cfg->payload == MARROW_GDA_PAYLOAD_INLINE ? mx_ds_inline_write(cfg->msg_size)
							   : mx_ds_pointer_write(1);
	res->wqebbs_per_wqe = mx_wqebbs(res->ds);
	/* The dump reads the queues through the views: host memory only. */
	if (rtt && out.peer_rc != MARROW_OK &&
	    (out.rc == MARROW_OK || out.rc == MARROW_ETIMEDOUT || out.rc == MARROW_ECONNRESET))
		rc = report("peer", out.peer_rc, out.peer_fail_iter, out.peer_err, cfg, res,
			    peer->placement == MARROW_GDA_PLACEMENT_GPU ? nullptr : peer); /* the dump reads host memory */
	else if (out.rc != MARROW_OK)
		rc = report("initiator", out.rc, out.fail_iter, out.err, cfg, res,
			    ep->placement == MARROW_GDA_PLACEMENT_GPU ? nullptr : ep);
	else if (out.payload_errors != 0)
		rc = res->status = marrow_fail(MARROW_EPROTO,
					       "%s: payload validation failed in %llu of %llu iterations "
					       "(ordering %s): the destination did not hold the bytes posted",
					       fn, out.payload_errors, out.iters_done, ORDER_NAMES[cfg->ordering]);
	else
		rc = MARROW_OK;
done:
	/* Only what this path allocated (the GPU-placement path allocates its
	 * own): cudaFree synchronises, and the device engine may be running. */
	if (d_ns)
		cudaFree(d_ns);
	if (d_cyc)
		cudaFree(d_cyc);
	if (d_out)
		cudaFree(d_out);
	if (uar_dev[0])
		(void)marrow_cuda_host_unregister(ep->qp->uar);
	if (uar_dev[1])
		(void)marrow_cuda_host_unregister(peer->qp->uar);
	unmap_all(m);
	return rc;
}

extern "C" MARROW_API int marrow_gda_cuda_serve(const struct marrow_gda_config *cfg,
						const struct marrow_gda_endpoint *ep,
						struct marrow_gda_result *res)
{
	static const char fn[] = "marrow_gda_cuda_serve";
	int rc = gda_check_serve_args(fn, cfg, ep, res);

	if (rc == MARROW_OK && !gda_gpu_queues_host_buffers(ep)) /* DevX queues: served like verbs ones */
		rc = gda_refuse_gpu_placement(fn, "the two-host responder serves verbs or DevX queues only, not "
					      "the software NIC's device engine", ep, nullptr, res);
	host_maps m;
	void *uar_dev = nullptr;
	gda_kargs a;
	gda_kout out;
	gda_kout *d_out = nullptr;
	cudaError_t e;

	if (rc)
		return rc;
	if ((rc = select_device(fn, cfg->cuda_device, res)) != MARROW_OK)
		return rc;
	/* SQ/CQ/DBRs, UAR (RAM case), source, inbox; the destination is the
	 * initiator's inbox on the other host and is never mapped. */
	add_side(m, ep, (int)cfg->payload);
	rc = map_all(fn, m, res);
	if (rc == MARROW_OK && (ep->flags & MARROW_GDA_EP_UAR_MMIO))
		rc = marrow_cuda_host_register(ep->qp->uar, 8, 1, &uar_dev);
	memset(&a, 0, sizeof(a));
	if (rc == MARROW_OK)
		rc = make_side(m, ep, &a.peer, uar_dev);
	if (rc != MARROW_OK) {
		res->status = rc;
		goto done;
	}
	a.exp = cfg->experiment;
	a.payload = cfg->payload;
	a.msg_size = cfg->msg_size;
	a.serve = 1;
	a.iters = cfg->iters;
	a.warmup = cfg->warmup;
	a.timeout_ns = cfg->timeout_ns;
	a.responder_delay_ns = cfg->responder_delay_ns;
	memset(&out, 0, sizeof(out));
	if ((e = cudaMalloc(&d_out, sizeof(*d_out))) != cudaSuccess ||
	    (e = cudaMemset(d_out, 0, sizeof(*d_out))) != cudaSuccess) {
		rc = cuda_fail(fn, res, e, "cudaMalloc of the result block");
		goto done;
	}
	a.out = d_out;
	/* One block: thread 0 runs gda_peer_loop; every wait in it is bounded
	 * and it stops after warmup + iters pings, so the synchronize returns. */
	if ((rc = run_kernel(fn, (int)cfg->ordering, 1, a, res, "the mini-gda peer kernel")) != MARROW_OK)
		goto done;
	if ((e = cudaMemcpy(&out, d_out, sizeof(out), cudaMemcpyDeviceToHost)) != cudaSuccess) {
		rc = cuda_fail(fn, res, e, "cudaMemcpy of the peer's result");
		goto done;
	}
	res->peer_posts = out.peer_posts;
	res->posts = out.peer_posts;
	res->doorbells = out.peer_posts;
	res->iters_done = out.peer_rc == MARROW_OK ? cfg->warmup + cfg->iters : out.peer_fail_iter;
	res->cqes = res->iters_done; /* one CQE per ping answered */
	res->ds = cfg->payload == MARROW_GDA_PAYLOAD_INLINE ? mx_ds_inline_write(cfg->msg_size)
							   : mx_ds_pointer_write(1);
	res->wqebbs_per_wqe = mx_wqebbs(res->ds);
	rc = out.peer_rc == MARROW_OK ? MARROW_OK
				      : report("peer (serving the remote initiator)", out.peer_rc, out.peer_fail_iter,
					       out.peer_err, cfg, res,
					       ep->placement == MARROW_GDA_PLACEMENT_GPU ? nullptr : ep);
done:
	cudaFree(d_out);
	if (uar_dev)
		(void)marrow_cuda_host_unregister(ep->qp->uar);
	unmap_all(m);
	return rc;
}

extern "C" MARROW_API int marrow_gda_cuda_prepare(int cuda_device)
{
	static const char fn[] = "marrow_gda_cuda_prepare";
	struct marrow_gda_result res;
	cudaError_t e;
	int rc;

	memset(&res, 0, sizeof(res));
	if ((rc = select_device(fn, cuda_device, &res)) != MARROW_OK)
		return rc;
	/* cudaFree(0) creates the primary context now rather than in the first run */
	if ((e = cudaFree(nullptr)) != cudaSuccess)
		return cuda_fail(fn, &res, e, "creating the CUDA context (cudaFree(0))");
	return MARROW_OK;
}
