/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * The device engine's control path (marrow_softnic_device.h): objects are
 * built in host mirrors of the CPU engine's own structs (emu_internal.h),
 * with every pointer the engine follows already a device address, and are
 * copied to the GPU when the engine starts; stop copies them back, so
 * counters and snapshots of a stopped engine are exact.
 *
 * Never hang the process: the kernel runs on a non-blocking stream (the
 * legacy stream and its implicit synchronisation never wait for it), stop
 * is bounded, the kernel ends itself after max_run_ns, and start fails
 * (after asking the blocks that did run to stop) unless every block became
 * resident within a bound, because a persistent block that never gets an
 * SM would leave its QPs unserved for ever. docs/design/device-engine.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cuda_runtime_api.h>

#include "cuda/cuda_host.h"
#include "marrow/marrow_softnic_device.h"
#include "softnic_dev/sndev_kernel.cuh"
#include "softnic_dev/sndev_profile.h"

static_assert((int)SNDEV_PROFILE_STAGES == (int)SNDEV_STAGES && (int)SNDEV_PROFILE_HDR == (int)SNDEV_PROF_HDR,
	      "sndev_profile.h describes the kernel's profile buffer");

namespace {

enum { SNDEV_MAX_ALLOCS = 4 * 4096 + 16, SNDEV_MAX_THREADS = 8192, SNDEV_QPN_BASE = 0x100,
       SNDEV_CQN_BASE = 0x400 };

struct alloc_rec {
	void *p;
	int host;   /* cudaFreeHost, else cudaFree */
};

const char *state_name(uint32_t s)
{
	switch (s) {
	case MARROW_QPS_RESET: return "RESET";
	case MARROW_QPS_INIT: return "INIT";
	case MARROW_QPS_RTR: return "RTR";
	case MARROW_QPS_RTS: return "RTS";
	case MARROW_QPS_ERR: return "ERR";
	default: return "UNKNOWN";
	}
}

/* Eager module loading, unless the user chose a mode: a kernel's lazy first
 * launch may wait for the device to be idle, which never happens while the
 * persistent engine kernel runs (cuda_host.h, marrow_cuda_preload). Read by
 * the CUDA driver when it initialises, so this runs when the library loads,
 * before any CUDA call in the process that loaded it. */
__attribute__((constructor)) void sndev_eager_module_loading(void)
{
	setenv("CUDA_MODULE_LOADING", "EAGER", 0);
}

uint64_t host_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

} // namespace

struct marrow_softnic_device {
	struct marrow_softnic_device_attr attr;
	int running;
	int sys;                     /* system-scope kernel */
	uint32_t device_sms;
	uint32_t max_blocks_per_sm;
	cudaStream_t stream;         /* the engine kernel */
	cudaStream_t side;           /* copies while it runs */
	cudaEvent_t done;
	struct sndev_ctl *ctl;       /* mapped pinned host memory */
	struct sndev_ctl *ctl_dev;
	/* host mirrors */
	struct marrow_emu_qp *hqp;
	struct marrow_emu_cq *hcq;
	struct emu_uar *huar;
	struct emu_mr_slot *hmr;
	uint32_t *qp_cq;             /* send CQ index of each QP */
	uint32_t nqp, ncq, nmr;
	/* device copies */
	struct marrow_emu_qp *dqp;
	struct marrow_emu_cq *dcq;
	struct emu_uar *duar;
	struct emu_mr_slot *dmr;
	struct marrow_emu_device *ddev;
	struct marrow_emu_pd *dpd;
	struct emu_thread *dthr;
	uint32_t nthr;
	int lane;                    /* the lane layout (MARROW_SNDEV_EXEC_LANE) */
	unsigned long long *prof;    /* stage profile buffer (sndev_profile.h); nullptr = off */
	uint32_t prof_cap;
	struct alloc_rec allocs[SNDEV_MAX_ALLOCS];
	uint32_t nallocs;
};

namespace {

int fail_cuda(cudaError_t e, const char *fn, const char *what)
{
	return marrow_cuda_fail(e, "%s: %s", fn, what);
}

/* Queue memory of the device's kind, zeroed; tracked for close. */
int queue_alloc(struct marrow_softnic_device *d, const char *fn, size_t bytes, void **out)
{
	void *p = nullptr;
	cudaError_t e;

	if (d->nallocs >= SNDEV_MAX_ALLOCS)
		return marrow_fail(MARROW_ENOSPC, "%s: too many queue allocations", fn);
	if (d->attr.queue_memory == MARROW_SNDEV_QUEUES_HOST) {
		e = cudaHostAlloc(&p, bytes, cudaHostAllocMapped | cudaHostAllocPortable);
		if (e != cudaSuccess)
			return fail_cuda(e, fn, "cudaHostAlloc of queue memory");
		memset(p, 0, bytes);
		void *dp = nullptr;
		if ((e = cudaHostGetDevicePointer(&dp, p, 0)) != cudaSuccess || dp != p) {
			cudaFreeHost(p);
			return e != cudaSuccess ? fail_cuda(e, fn, "cudaHostGetDevicePointer")
						: marrow_fail(MARROW_ENODEV, "%s: mapped host memory has another GPU "
							      "address (no unified addressing)", fn);
		}
		d->allocs[d->nallocs++] = {p, 1};
	} else {
		if ((e = cudaMalloc(&p, bytes)) != cudaSuccess)
			return fail_cuda(e, fn, "cudaMalloc of queue memory");
		if ((e = cudaMemset(p, 0, bytes)) != cudaSuccess) {
			cudaFree(p);
			return fail_cuda(e, fn, "cudaMemset of queue memory");
		}
		d->allocs[d->nallocs++] = {p, 0};
	}
	*out = p;
	return MARROW_OK;
}

int dev_alloc(struct marrow_softnic_device *d, const char *fn, size_t bytes, void **out)
{
	cudaError_t e;

	if (d->nallocs >= SNDEV_MAX_ALLOCS)
		return marrow_fail(MARROW_ENOSPC, "%s: too many allocations", fn);
	if ((e = cudaMalloc(out, bytes)) != cudaSuccess)
		return fail_cuda(e, fn, "cudaMalloc");
	if ((e = cudaMemset(*out, 0, bytes)) != cudaSuccess)
		return fail_cuda(e, fn, "cudaMemset");
	d->allocs[d->nallocs++] = {*out, 0};
	return MARROW_OK;
}

/* Threads per engine block: one per engine thread, or one warp each in the
 * lane layout. */
static uint32_t sndev_block_threads(const struct marrow_softnic_device *d)
{
	return d->lane ? d->attr.threads_per_sm * 32u : d->attr.threads_per_sm;
}

int check_dev(const struct marrow_softnic_device *d, const char *fn, int stopped)
{
	if (d == nullptr)
		return marrow_fail(MARROW_EINVAL, "%s: device is NULL", fn);
	if (stopped && d->running)
		return marrow_fail(MARROW_EBUSY, "%s: the device engine is running; stop it first "
				   "(objects change only while it is stopped)", fn);
	return MARROW_OK;
}

/* A copy of device memory while the engine may run: on the side stream. */
int side_copy(struct marrow_softnic_device *d, void *dst, const void *src, size_t bytes, const char *fn)
{
	cudaError_t e = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, d->side);

	if (e == cudaSuccess)
		e = cudaStreamSynchronize(d->side);
	return e == cudaSuccess ? MARROW_OK : fail_cuda(e, fn, "cudaMemcpyAsync from the device engine");
}

/* The running kernel's QP, CQ and counter state back into the mirrors. */
int pull_state(struct marrow_softnic_device *d, const char *fn)
{
	int rc = MARROW_OK;

	if (d->dqp == nullptr)
		return MARROW_OK;
	if (d->nqp)
		rc = side_copy(d, d->hqp, d->dqp, sizeof(*d->hqp) * d->nqp, fn);
	if (rc == MARROW_OK && d->ncq)
		rc = side_copy(d, d->hcq, d->dcq, sizeof(*d->hcq) * d->ncq, fn);
	return rc;
}

int sum_counters(struct marrow_softnic_device *d, uint64_t *v, const char *fn)
{
	memset(v, 0, sizeof(uint64_t) * MARROW_EMU_CTR_COUNT);
	if (d->dthr == nullptr)
		return MARROW_OK;
	size_t row = sizeof(uint64_t) * MARROW_EMU_CTR_COUNT;
	uint64_t *all = (uint64_t *)malloc(row * d->nthr);
	if (all == nullptr)
		return marrow_fail(MARROW_ENOMEM, "%s: out of memory", fn);
	cudaError_t e = cudaMemcpy2DAsync(all, row, &d->dthr[0].local[0], sizeof(struct emu_thread), row, d->nthr,
					  cudaMemcpyDeviceToHost, d->side);
	if (e == cudaSuccess)
		e = cudaStreamSynchronize(d->side);
	if (e != cudaSuccess) {
		free(all);
		return fail_cuda(e, fn, "cudaMemcpy2DAsync of the engine counters");
	}
	for (uint32_t t = 0; t < d->nthr; t++)
		for (int i = 0; i < MARROW_EMU_CTR_COUNT; i++)
			v[i] += all[(size_t)t * MARROW_EMU_CTR_COUNT + i];
	free(all);
	return MARROW_OK;
}

void format_state(struct marrow_softnic_device *d, uint32_t i, char *buf, size_t len)
{
	const struct marrow_emu_qp *q = &d->hqp[i];
	const struct marrow_emu_cq *c = &d->hcq[d->qp_cq[i]];
	uint32_t dbr[2] = {0, 0};
	uint64_t ctr[MARROW_EMU_CTR_COUNT];
	int have_ctr = sum_counters(d, ctr, "marrow_softnic_device_dump") == MARROW_OK;

	(void)side_copy(d, dbr, q->dbrec, sizeof(dbr), "marrow_softnic_device_dump");
	snprintf(buf, len,
		 "emu_engine=device emu_engine_running=%d emu_engine_passes=%llu emu_engine_exit=%u "
		 "emu_nic_sms=%u emu_qpn=0x%x emu_qp_state=%s emu_sq_pi=%u emu_sq_fetched=%u emu_sq_ci=%u "
		 "emu_dbr=%u emu_cqn=0x%x emu_cq_pi=%u emu_cq_error=%u emu_doorbells_observed=%llu "
		 "emu_wqebb_fetched=%llu emu_cqe_req=%llu emu_cqe_req_err=%llu emu_wqe_sanity_fail=%llu",
		 d->running, (unsigned long long)d->ctl->passes0, d->ctl->exit_reason, d->attr.nic_sms, q->qpn,
		 state_name(q->state), q->db_target, q->fetch_pi, q->exec_ci, mx_be32toh(dbr[MX_DBR_SND]) & 0xffff,
		 c->cqn, c->prod, c->in_error,
		 have_ctr ? (unsigned long long)ctr[MARROW_EMU_CTR_doorbells_observed] : 0ull,
		 have_ctr ? (unsigned long long)ctr[MARROW_EMU_CTR_wqebb_fetched] : 0ull,
		 have_ctr ? (unsigned long long)ctr[MARROW_EMU_CTR_cqe_req] : 0ull,
		 have_ctr ? (unsigned long long)ctr[MARROW_EMU_CTR_cqe_req_err] : 0ull,
		 have_ctr ? (unsigned long long)ctr[MARROW_EMU_CTR_wqe_sanity_fail] : 0ull);
}

void free_all(struct marrow_softnic_device *d)
{
	for (uint32_t i = d->nallocs; i-- > 0;) {
		if (d->allocs[i].host)
			cudaFreeHost(d->allocs[i].p);
		else
			cudaFree(d->allocs[i].p);
	}
	d->nallocs = 0;
	if (d->ctl)
		cudaFreeHost(d->ctl);
	if (d->done)
		cudaEventDestroy(d->done);
	if (d->stream)
		cudaStreamDestroy(d->stream);
	if (d->side)
		cudaStreamDestroy(d->side);
	(void)cudaGetLastError();
	free(d->hqp);
	free(d->hcq);
	free(d->huar);
	free(d->hmr);
	free(d->qp_cq);
	free(d);
}

} // namespace

extern "C" MARROW_API int marrow_softnic_device_open(const struct marrow_softnic_device_attr *attr,
						     struct marrow_softnic_device **out)
{
	static const char fn[] = "marrow_softnic_device_open";
	struct marrow_softnic_device *d;
	int ndev = 0, sms = 0;
	cudaError_t e;
	int rc;

	if (attr == nullptr || out == nullptr)
		return marrow_fail(MARROW_EINVAL, "%s: attr and out must not be NULL", fn);
	*out = nullptr;
	if (attr->size != sizeof(*attr) || attr->comp_mask != 0)
		return marrow_fail(MARROW_EINVAL, "%s: attr size %u != %zu, or comp_mask not 0", fn, attr->size,
				   sizeof(*attr));
	if (attr->exec_mode > MARROW_SNDEV_EXEC_LANE)
		return marrow_fail(MARROW_EINVAL, "%s: exec_mode %u is none of AUTO (0), THREAD (1), LANE (2)", fn,
				   attr->exec_mode);
	if (attr->exec_mode != MARROW_SNDEV_EXEC_THREAD && attr->threads_per_sm > SNDEV_LANE_MAX_PER_SM)
		return marrow_fail(MARROW_EINVAL, "%s: threads_per_sm %u: the lane layout runs at most %d engine "
				   "threads per SM (one warp each); use exec_mode THREAD for more", fn,
				   attr->threads_per_sm, (int)SNDEV_LANE_MAX_PER_SM);
	if (attr->queue_memory != MARROW_SNDEV_QUEUES_GPU && attr->queue_memory != MARROW_SNDEV_QUEUES_HOST)
		return marrow_fail(MARROW_EINVAL, "%s: queue_memory %u is neither GPU (0) nor HOST (1)", fn,
				   attr->queue_memory);
	if (attr->nic_sms == 0 || attr->nic_sms > SNDEV_MAX_BLOCKS || attr->threads_per_sm > 1024 ||
	    attr->max_qps > 4096 || attr->max_mrs > 65535)
		return marrow_fail(MARROW_EINVAL, "%s: nic_sms %u (1..%d), threads_per_sm %u (0..1024), max_qps %u "
				   "(0..4096) or max_mrs %u (0..65535) out of range", fn, attr->nic_sms,
				   (int)SNDEV_MAX_BLOCKS, attr->threads_per_sm, attr->max_qps, attr->max_mrs);
	e = cudaGetDeviceCount(&ndev);
	if (e != cudaSuccess || ndev <= 0) {
		(void)cudaGetLastError();
		return marrow_fail(MARROW_ENODEV, "%s: the device engine needs a GPU: no usable CUDA device (%s)", fn,
				   e != cudaSuccess ? cudaGetErrorString(e) : "device count 0");
	}
	if (attr->cuda_device < 0 || attr->cuda_device >= ndev)
		return marrow_fail(MARROW_ENODEV, "%s: CUDA device %d out of range (0..%d)", fn, attr->cuda_device,
				   ndev - 1);
	if ((e = cudaSetDevice(attr->cuda_device)) != cudaSuccess ||
	    (e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, attr->cuda_device)) != cudaSuccess)
		return fail_cuda(e, fn, "cudaSetDevice / SM count");
	if (attr->nic_sms > (uint32_t)sms)
		return marrow_fail(MARROW_EINVAL, "%s: nic_sms %u exceeds the GPU's %d SMs", fn, attr->nic_sms, sms);

	d = (struct marrow_softnic_device *)calloc(1, sizeof(*d));
	if (d == nullptr)
		return marrow_fail(MARROW_ENOMEM, "%s: out of memory", fn);
	d->attr = *attr;
	if (d->attr.exec_mode == MARROW_SNDEV_EXEC_AUTO)
		d->attr.exec_mode = MARROW_SNDEV_EXEC_LANE;
	d->lane = d->attr.exec_mode == MARROW_SNDEV_EXEC_LANE;
	if (d->attr.threads_per_sm == 0)
		d->attr.threads_per_sm = d->lane ? SNDEV_LANE_MAX_PER_SM : 32;
	if (d->attr.max_qps == 0)
		d->attr.max_qps = 64;
	if (d->attr.max_mrs == 0)
		d->attr.max_mrs = 64;
	if (d->attr.max_run_ns == 0)
		d->attr.max_run_ns = 600ull * 1000000000ull;
	d->nthr = d->attr.nic_sms * d->attr.threads_per_sm;
	if (d->nthr > SNDEV_MAX_THREADS) {
		uint32_t n = d->nthr;
		free(d);
		return marrow_fail(MARROW_EINVAL, "%s: nic_sms x threads_per_sm = %u engine threads; at most %d", fn,
				   n, (int)SNDEV_MAX_THREADS);
	}
	d->sys = d->attr.queue_memory == MARROW_SNDEV_QUEUES_HOST;
	d->device_sms = (uint32_t)sms;
	uint32_t nq = d->attr.max_qps, nm = d->attr.max_mrs + 1;
	d->hqp = (struct marrow_emu_qp *)aligned_alloc(64, sizeof(*d->hqp) * nq);
	d->hcq = (struct marrow_emu_cq *)aligned_alloc(64, sizeof(*d->hcq) * nq);
	d->huar = (struct emu_uar *)aligned_alloc(64, sizeof(*d->huar) * nq);
	d->hmr = (struct emu_mr_slot *)calloc(nm, sizeof(*d->hmr));
	d->qp_cq = (uint32_t *)calloc(nq, sizeof(uint32_t));
	if (!d->hqp || !d->hcq || !d->huar || !d->hmr || !d->qp_cq) {
		free_all(d);
		return marrow_fail(MARROW_ENOMEM, "%s: out of memory", fn);
	}
	memset(d->hqp, 0, sizeof(*d->hqp) * nq);
	memset(d->hcq, 0, sizeof(*d->hcq) * nq);
	memset(d->huar, 0, sizeof(*d->huar) * nq);
	if ((e = cudaStreamCreateWithFlags(&d->stream, cudaStreamNonBlocking)) != cudaSuccess ||
	    (e = cudaStreamCreateWithFlags(&d->side, cudaStreamNonBlocking)) != cudaSuccess ||
	    (e = cudaEventCreateWithFlags(&d->done, cudaEventDisableTiming)) != cudaSuccess ||
	    (e = cudaHostAlloc((void **)&d->ctl, sizeof(*d->ctl), cudaHostAllocMapped | cudaHostAllocPortable)) !=
		    cudaSuccess ||
	    (e = cudaHostGetDevicePointer((void **)&d->ctl_dev, d->ctl, 0)) != cudaSuccess) {
		rc = fail_cuda(e, fn, "streams, event or the control block");
		free_all(d);
		return rc;
	}
	memset(d->ctl, 0, sizeof(*d->ctl));
	if ((rc = dev_alloc(d, fn, sizeof(*d->dqp) * nq, (void **)&d->dqp)) ||
	    (rc = dev_alloc(d, fn, sizeof(*d->dcq) * nq, (void **)&d->dcq)) ||
	    (rc = dev_alloc(d, fn, sizeof(*d->duar) * nq, (void **)&d->duar)) ||
	    (rc = dev_alloc(d, fn, sizeof(*d->dmr) * nm, (void **)&d->dmr)) ||
	    (rc = dev_alloc(d, fn, sizeof(*d->ddev), (void **)&d->ddev)) ||
	    (rc = dev_alloc(d, fn, sizeof(*d->dpd), (void **)&d->dpd)) ||
	    (rc = dev_alloc(d, fn, sizeof(*d->dthr) * d->nthr, (void **)&d->dthr))) {
		free_all(d);
		return rc;
	}
	int occ = 0;
	const int bs = (int)sndev_block_threads(d);
	if (d->lane)
		e = d->sys ? cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, sndev_engine_kernel<1, 0, 1>, bs, 0)
			   : cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, sndev_engine_kernel<0, 0, 1>, bs, 0);
	else
		e = d->sys ? cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, sndev_engine_kernel<1, 0, 0>, bs, 0)
			   : cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, sndev_engine_kernel<0, 0, 0>, bs, 0);
	if (e != cudaSuccess) {
		rc = fail_cuda(e, fn, "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
		free_all(d);
		return rc;
	}
	if (occ < 1) {
		free_all(d);
		return marrow_fail(MARROW_EINVAL, "%s: the engine kernel cannot be resident with %u threads per block "
				   "(occupancy 0); use fewer threads_per_sm", fn, attr->threads_per_sm);
	}
	d->max_blocks_per_sm = (uint32_t)occ;
	if (!attr->quiet)
		fprintf(stderr, "marrow: software NIC device engine (an emulator on %u of %d GPU SMs, not hardware)\n",
			d->attr.nic_sms, sms);
	*out = d;
	return MARROW_OK;
}

extern "C" MARROW_API int marrow_softnic_device_cq_create(struct marrow_softnic_device *d, uint32_t log_cqe_cnt,
							  uint32_t flags, uint32_t *index,
							  struct marrow_cq_view *view)
{
	static const char fn[] = "marrow_softnic_device_cq_create";
	int rc = check_dev(d, fn, 1);
	uint8_t *buf = nullptr;
	uint32_t *dbrec = nullptr;

	if (rc)
		return rc;
	if (index == nullptr || view == nullptr)
		return marrow_fail(MARROW_EINVAL, "%s: index and view must not be NULL", fn);
	if (log_cqe_cnt > 16 || (flags & ~(uint32_t)(MARROW_EMU_CQ_COLLAPSED | MARROW_EMU_CQ_OVERRUN_IGNORE)))
		return marrow_fail(MARROW_EINVAL, "%s: log_cqe_cnt %u (0..16) or flags 0x%x invalid", fn, log_cqe_cnt,
				   flags);
	if (d->ncq >= d->attr.max_qps)
		return marrow_fail(MARROW_ENOSPC, "%s: %u CQs already (max_qps)", fn, d->ncq);
	uint32_t n = 1u << log_cqe_cnt;
	if ((rc = queue_alloc(d, fn, (size_t)n * MX_CQE_SIZE, (void **)&buf)) ||
	    (rc = queue_alloc(d, fn, 64, (void **)&dbrec)))
		return rc;
	/* op_own 0xF0 in every slot: invalid opcode, owner 0 (as a fresh CQ). */
	uint8_t *init = (uint8_t *)calloc(n, MX_CQE_SIZE);
	if (init == nullptr)
		return marrow_fail(MARROW_ENOMEM, "%s: out of memory", fn);
	for (uint32_t i = 0; i < n; i++)
		init[(size_t)i * MX_CQE_SIZE + MX_CQE_OFF_OP_OWN] = MX_CQE_OP_OWN_INIT;
	cudaError_t e = cudaMemcpy(buf, init, (size_t)n * MX_CQE_SIZE, cudaMemcpyDefault);   /* GPU or mapped host memory */
	free(init);
	if (e != cudaSuccess)
		return fail_cuda(e, fn, "initialising the CQ");
	struct marrow_emu_cq *c = &d->hcq[d->ncq];
	memset(c, 0, sizeof(*c));
	c->buf = buf;
	c->dbrec = dbrec;
	c->log_n = log_cqe_cnt;
	c->mask = n - 1;
	c->flags = flags;
	c->cqn = SNDEV_CQN_BASE + d->ncq;
	c->magic = EMU_MAGIC_CQ;
	memset(view, 0, sizeof(*view));
	view->size = sizeof(*view);
	view->cqn = c->cqn;
	view->cqe_cnt = n;
	view->cqe_size = MX_CQE_SIZE;
	view->flags = flags;
	view->buf = buf;
	view->dbrec = dbrec;
	*index = d->ncq++;
	return MARROW_OK;
}

extern "C" MARROW_API int marrow_softnic_device_qp_create(struct marrow_softnic_device *d, uint32_t send_cq,
							  uint32_t log_sq, uint32_t max_inline, uint32_t access,
							  uint32_t *index, struct marrow_qp_view *view)
{
	static const char fn[] = "marrow_softnic_device_qp_create";
	int rc = check_dev(d, fn, 1);
	uint8_t *sq = nullptr, *shadow = nullptr, *page = nullptr;
	uint32_t *dbrec = nullptr;

	if (rc)
		return rc;
	if (index == nullptr || view == nullptr)
		return marrow_fail(MARROW_EINVAL, "%s: index and view must not be NULL", fn);
	if (send_cq >= d->ncq || log_sq < 1 || log_sq > 15 || max_inline > EMU_MAX_INLINE ||
	    (access & ~(uint32_t)(MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE | MARROW_ACCESS_REMOTE_READ |
				  MARROW_ACCESS_REMOTE_ATOMIC)))
		return marrow_fail(MARROW_EINVAL, "%s: send_cq %u (of %u), log_sq_wqebb_cnt %u (1..15), "
				   "max_inline_data %u (0..%d) or access 0x%x invalid", fn, send_cq, d->ncq, log_sq,
				   max_inline, (int)EMU_MAX_INLINE, access);
	if (d->nqp >= d->attr.max_qps)
		return marrow_fail(MARROW_ENOSPC, "%s: %u QPs already (max_qps)", fn, d->nqp);
	uint32_t cnt = 1u << log_sq, sh = cnt < EMU_SHADOW_MAX ? cnt : EMU_SHADOW_MAX;
	/* GPU-resident queues with a shadow window as large as the SQ: the
	 * shadow is the SQ itself, and fetch() copies nothing (its counters and
	 * window are unchanged: docs/design/device-engine.md §2.3). */
	const bool shadow_is_sq = !d->sys && sh == cnt;
	if ((rc = queue_alloc(d, fn, (size_t)cnt * MX_WQEBB_SIZE, (void **)&sq)) ||
	    (rc = queue_alloc(d, fn, 64, (void **)&dbrec)) || (rc = queue_alloc(d, fn, EMU_UAR_SIZE, (void **)&page)) ||
	    (!shadow_is_sq && (rc = dev_alloc(d, fn, (size_t)sh * MX_WQEBB_SIZE, (void **)&shadow))))
		return rc;
	if (shadow_is_sq)
		shadow = sq;
	uint32_t i = d->nqp;
	struct marrow_emu_qp *q = &d->hqp[i];
	memset(q, 0, sizeof(*q));
	q->qpn = SNDEV_QPN_BASE + i;
	q->state = MARROW_QPS_RESET;
	q->uar = &d->duar[i];
	q->dbrec = dbrec;
	q->sq = sq;
	q->shadow = shadow;
	q->sq_cnt = cnt;
	q->sq_mask = cnt - 1;
	q->sh_cnt = sh;
	q->sh_mask = sh - 1;
	q->scq = &d->dcq[send_cq];
	q->pd = d->dpd;
	q->max_inline = max_inline;
	q->access = access;
	q->uidx = i;
	q->timeout = 14;
	q->retry_cnt = 7;
	q->rnr_retry = 6;
	q->min_rnr_timer = 12;
	q->magic = EMU_MAGIC_QP;
	q->dbrec_page = dbrec;
	d->huar[i].page = page;
	d->huar[i].nqps = 1;
	d->huar[i].qps[0] = &d->dqp[i];
	d->qp_cq[i] = send_cq;
	memset(view, 0, sizeof(*view));
	view->size = sizeof(*view);
	view->qpn = q->qpn;
	view->sq_wqe_cnt = cnt;
	view->sq_stride = MX_WQEBB_SIZE;
	view->max_inline_data = max_inline;
	view->sq_buf = sq;
	view->dbrec = dbrec;
	view->uar = page;
	view->uar_size = EMU_UAR_SIZE;
	*index = d->nqp++;
	return MARROW_OK;
}

extern "C" MARROW_API int marrow_softnic_device_qp_connect(struct marrow_softnic_device *d, uint32_t qp,
							   uint32_t peer)
{
	static const char fn[] = "marrow_softnic_device_qp_connect";
	int rc = check_dev(d, fn, 1);

	if (rc)
		return rc;
	if (qp >= d->nqp || peer >= d->nqp)
		return marrow_fail(MARROW_EINVAL, "%s: QP %u or peer %u is not one of the %u QPs", fn, qp, peer, d->nqp);
	d->hqp[qp].peer = &d->dqp[peer];
	d->hqp[qp].state = MARROW_QPS_RTS;
	return MARROW_OK;
}

extern "C" MARROW_API int marrow_softnic_device_mr_reg(struct marrow_softnic_device *d, uint64_t addr,
						       uint64_t len, uint32_t access, uint32_t *key)
{
	static const char fn[] = "marrow_softnic_device_mr_reg";
	int rc = check_dev(d, fn, 1);

	if (rc)
		return rc;
	if (key == nullptr || addr == 0 || len == 0 || addr + len < addr)
		return marrow_fail(MARROW_EINVAL, "%s: key NULL, or empty / wrapping range", fn);
	if ((access & (MARROW_ACCESS_REMOTE_WRITE | MARROW_ACCESS_REMOTE_ATOMIC)) && !(access & MARROW_ACCESS_LOCAL_WRITE))
		return marrow_fail(MARROW_EINVAL, "%s: REMOTE_WRITE/REMOTE_ATOMIC require LOCAL_WRITE (as in verbs)", fn);
	if (d->nmr >= d->attr.max_mrs)
		return marrow_fail(MARROW_ENOSPC, "%s: %u MRs already (max_mrs)", fn, d->nmr);
	uint32_t idx = ++d->nmr;   /* slot 0 is never used: no key is below 0x100 */
	struct emu_mr_slot *s = &d->hmr[idx];
	s->base = addr;
	s->len = len;
	s->pd = d->dpd;
	s->access = access;
	s->key = (idx << 8) | 1u;
	*key = s->key;
	return MARROW_OK;
}

extern "C" MARROW_API int marrow_softnic_device_host_alloc(struct marrow_softnic_device *d, uint64_t bytes,
							   void **out)
{
	static const char fn[] = "marrow_softnic_device_host_alloc";
	int rc = check_dev(d, fn, 1);
	uint32_t saved;

	if (rc)
		return rc;
	if (out == nullptr || bytes == 0)
		return marrow_fail(MARROW_EINVAL, "%s: out NULL or bytes 0", fn);
	saved = d->attr.queue_memory;
	d->attr.queue_memory = MARROW_SNDEV_QUEUES_HOST;
	rc = queue_alloc(d, fn, (size_t)bytes, out);
	d->attr.queue_memory = saved;
	return rc;
}

extern "C" MARROW_API int marrow_softnic_device_start(struct marrow_softnic_device *d)
{
	static const char fn[] = "marrow_softnic_device_start";
	int rc = check_dev(d, fn, 1);
	struct marrow_emu_device img;
	cudaError_t e;

	if (rc)
		return rc;
	if (d->nqp == 0)
		return marrow_fail(MARROW_EINVAL, "%s: no QPs to serve", fn);
	/* A CQ written by QPs of more than one engine thread needs the atomic
	 * producer counter (and, collapsed, the lock), as on the CPU. */
	for (uint32_t c = 0; c < d->ncq; c++) {
		int32_t owner = -1;
		d->hcq[c].multi_writer = 0;
		for (uint32_t q = 0; q < d->nqp; q++) {
			if (d->qp_cq[q] != c)
				continue;
			int32_t o = (int32_t)(q % d->nthr);
			if (owner >= 0 && owner != o)
				d->hcq[c].multi_writer = 1;
			owner = o;
		}
	}
	memset(&img, 0, sizeof(img));
	img.magic = EMU_MAGIC_DEV;
	img.nthreads = d->nthr;
	img.time_divisor = 1;
	img.mrs = d->dmr;
	img.mr_cap = d->attr.max_mrs + 1;
	struct emu_thread *th = (struct emu_thread *)aligned_alloc(64, sizeof(*th) * d->nthr);
	if (th == nullptr)
		return marrow_fail(MARROW_ENOMEM, "%s: out of memory", fn);
	memset(th, 0, sizeof(*th) * d->nthr);
	for (uint32_t i = 0; i < d->nthr; i++) {
		th[i].dev = d->ddev;
		th[i].index = i;
	}
	if ((e = cudaMemcpy(d->dqp, d->hqp, sizeof(*d->hqp) * d->nqp, cudaMemcpyHostToDevice)) != cudaSuccess ||
	    (e = cudaMemcpy(d->dcq, d->hcq, sizeof(*d->hcq) * d->ncq, cudaMemcpyHostToDevice)) != cudaSuccess ||
	    (e = cudaMemcpy(d->duar, d->huar, sizeof(*d->huar) * d->nqp, cudaMemcpyHostToDevice)) != cudaSuccess ||
	    (e = cudaMemcpy(d->dmr, d->hmr, sizeof(*d->hmr) * (d->attr.max_mrs + 1), cudaMemcpyHostToDevice)) !=
		    cudaSuccess ||
	    (e = cudaMemcpy(d->ddev, &img, sizeof(img), cudaMemcpyHostToDevice)) != cudaSuccess ||
	    (e = cudaMemcpy(d->dthr, th, sizeof(*th) * d->nthr, cudaMemcpyHostToDevice)) != cudaSuccess) {
		free(th);
		return fail_cuda(e, fn, "copying the objects to the GPU");
	}
	free(th);
	if (d->prof != nullptr &&
	    (e = cudaMemset(d->prof, 0, sizeof(*d->prof) * (SNDEV_PROF_HDR + (size_t)d->prof_cap * SNDEV_STAGES))) !=
		    cudaSuccess)
		return fail_cuda(e, fn, "clearing the stage profile");
	memset(d->ctl, 0, sizeof(*d->ctl));
	__atomic_thread_fence(__ATOMIC_SEQ_CST);

	sndev_kargs a;
	a.qps = d->dqp;
	a.threads = d->dthr;
	a.ctl = d->ctl_dev;
	a.prof = d->prof;
	a.prof_cap = d->prof_cap;
	a.nqps = d->nqp;
	a.check_every = 256;   /* a stop request is seen within 256 passes */
	a.max_run_ns = d->attr.max_run_ns;
	const dim3 grid(d->attr.nic_sms), block(sndev_block_threads(d));
	if (d->lane) {
		if (d->sys)
			sndev_engine_kernel<1, 0, 1><<<grid, block, 0, d->stream>>>(a);
		else if (d->prof != nullptr)
			sndev_engine_kernel<0, 1, 1><<<grid, block, 0, d->stream>>>(a);
		else
			sndev_engine_kernel<0, 0, 1><<<grid, block, 0, d->stream>>>(a);
	} else if (d->sys)
		sndev_engine_kernel<1, 0, 0><<<grid, block, 0, d->stream>>>(a);
	else if (d->prof != nullptr)
		sndev_engine_kernel<0, 1, 0><<<grid, block, 0, d->stream>>>(a);
	else
		sndev_engine_kernel<0, 0, 0><<<grid, block, 0, d->stream>>>(a);
	if ((e = cudaGetLastError()) != cudaSuccess || (e = cudaEventRecord(d->done, d->stream)) != cudaSuccess)
		return fail_cuda(e, fn, "launching the device engine kernel");
	d->running = 1;
	/* Every block must become resident: a block left waiting for an SM would
	 * leave its QPs unserved while the others spin. */
	uint64_t t0 = host_now_ns();
	for (;;) {
		uint32_t up = 0;
		for (uint32_t b = 0; b < d->attr.nic_sms; b++)
			up += __atomic_load_n(&d->ctl->smid[b], __ATOMIC_ACQUIRE) != 0;
		if (up == d->attr.nic_sms)
			break;
		if (cudaEventQuery(d->done) != cudaErrorNotReady) {
			(void)cudaGetLastError();
			d->running = 0;
			return marrow_fail(MARROW_EIO, "%s: the device engine kernel ended at once (%u of %u blocks "
					   "ran; exit reason %u)", fn, up, d->attr.nic_sms, d->ctl->exit_reason);
		}
		if (host_now_ns() - t0 > 5000000000ull) {
			(void)marrow_softnic_device_stop(d, 5000000000ull);
			return marrow_fail(MARROW_EBUSY, "%s: only %u of %u engine blocks became resident within 5 s "
					   "(other kernels hold the SMs?); engine stopped", fn, up, d->attr.nic_sms);
		}
		struct timespec ts = {0, 20000};
		nanosleep(&ts, nullptr);
	}
	return MARROW_OK;
}

extern "C" MARROW_API int marrow_softnic_device_stop(struct marrow_softnic_device *d, uint64_t timeout_ns)
{
	static const char fn[] = "marrow_softnic_device_stop";
	int rc = check_dev(d, fn, 0);
	cudaError_t e = cudaSuccess;
	char msg[160];

	if (rc)
		return rc;
	if (!d->running)
		return MARROW_OK;
	__atomic_store_n(&d->ctl->stop, 1u, __ATOMIC_RELEASE);
	snprintf(msg, sizeof(msg), "%s: the device engine kernel did not stop", fn);
	rc = marrow_cuda_wait_event(d->done, timeout_ns, msg, &e);
	if (rc == MARROW_ETIMEDOUT) {
		char st[768];
		/* Still running: the mirrors get a live copy for the dump. */
		(void)pull_state(d, fn);
		format_state(d, 0, st, sizeof(st));
		return marrow_fail(rc, "%s: the device engine kernel did not stop within %llu ns (it ends by itself "
				   "after max_run_ns); state: waited_for=kernel bound_ms=%llu %s", fn,
				   (unsigned long long)timeout_ns, (unsigned long long)(timeout_ns / 1000000), st);
	}
	d->running = 0;
	if (rc != MARROW_OK)
		return rc;
	return pull_state(d, fn);
}

extern "C" MARROW_API int marrow_softnic_device_info(struct marrow_softnic_device *d,
						     struct marrow_softnic_device_info *info)
{
	int rc = check_dev(d, "marrow_softnic_device_info", 0);
	uint8_t seen[SNDEV_MAX_BLOCKS] = {0};

	if (rc)
		return rc;
	if (info == nullptr || info->size != sizeof(*info))
		return marrow_fail(MARROW_EINVAL, "marrow_softnic_device_info: info NULL or size not %zu", sizeof(*info));
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	info->nic_sms = d->attr.nic_sms;
	info->threads_per_sm = d->attr.threads_per_sm;
	info->exec_mode = d->attr.exec_mode;
	info->max_blocks_per_sm = d->max_blocks_per_sm;
	info->device_sms = d->device_sms;
	info->running = (uint32_t)d->running;
	info->passes = __atomic_load_n(&d->ctl->passes0, __ATOMIC_ACQUIRE);
	info->exit_reason = (int32_t)__atomic_load_n(&d->ctl->exit_reason, __ATOMIC_ACQUIRE);
	for (uint32_t b = 0; b < d->attr.nic_sms; b++) {
		uint32_t s = __atomic_load_n(&d->ctl->smid[b], __ATOMIC_ACQUIRE);
		if (s != 0 && s - 1 < SNDEV_MAX_BLOCKS && !seen[s - 1]) {
			seen[s - 1] = 1;
			info->distinct_sms++;
		}
	}
	return MARROW_OK;
}

extern "C" MARROW_API int marrow_softnic_device_counters(struct marrow_softnic_device *d, uint64_t *values,
							 uint32_t n)
{
	static const char fn[] = "marrow_softnic_device_counters";
	int rc = check_dev(d, fn, 0);

	if (rc)
		return rc;
	if (values == nullptr || n < (uint32_t)MARROW_EMU_CTR_COUNT)
		return marrow_fail(MARROW_EINVAL, "%s: values NULL or n %u < %d", fn, n, (int)MARROW_EMU_CTR_COUNT);
	return sum_counters(d, values, fn);
}

extern "C" MARROW_API int marrow_softnic_device_dump(struct marrow_softnic_device *d, uint32_t qp, char *buf,
						     uint32_t len)
{
	static const char fn[] = "marrow_softnic_device_dump";
	int rc = check_dev(d, fn, 0);

	if (rc)
		return rc;
	if (buf == nullptr || len == 0 || qp >= d->nqp)
		return marrow_fail(MARROW_EINVAL, "%s: buf NULL, len 0 or QP %u not one of %u", fn, qp, d->nqp);
	if (d->running && (rc = pull_state(d, fn)) != MARROW_OK)
		return rc;
	format_state(d, qp, buf, len);
	return MARROW_OK;
}

int sndev_profile_arm(struct marrow_softnic_device *d, uint32_t cap)
{
	static const char fn[] = "sndev_profile_arm";
	int rc = check_dev(d, fn, 1);
	void *p = nullptr;

	if (rc)
		return rc;
	if (cap < 1 || cap > 65536)
		return marrow_fail(MARROW_EINVAL, "%s: cap must be 1..65536 (got %u)", fn, cap);
	if (d->prof != nullptr)
		return marrow_fail(MARROW_EBUSY, "%s: the profile is already armed", fn);
	if (d->sys)
		return marrow_fail(MARROW_EINVAL, "%s: the stage profile needs GPU-resident queues "
				   "(MARROW_SNDEV_QUEUES_GPU)", fn);
	if ((rc = dev_alloc(d, fn, sizeof(*d->prof) * (SNDEV_PROF_HDR + (size_t)cap * SNDEV_STAGES), &p)))
		return rc;
	d->prof = (unsigned long long *)p;
	d->prof_cap = cap;
	return MARROW_OK;
}

int sndev_profile_read(struct marrow_softnic_device *d, struct sndev_profile_hdr *hdr, uint64_t *recs,
		       uint32_t cap)
{
	static const char fn[] = "sndev_profile_read";
	int rc = check_dev(d, fn, 1);
	unsigned long long h[SNDEV_PROF_HDR];
	cudaError_t e;

	if (rc)
		return rc;
	if (d->prof == nullptr || hdr == nullptr || (recs == nullptr && cap != 0))
		return marrow_fail(MARROW_EINVAL, "%s: profile not armed, or hdr/recs NULL", fn);
	if ((e = cudaMemcpy(h, d->prof, sizeof(h), cudaMemcpyDeviceToHost)) != cudaSuccess)
		return fail_cuda(e, fn, "reading the stage profile");
	hdr->records = h[0];
	hdr->clock_first = h[1];
	hdr->gtimer_first = h[2];
	hdr->clock_last = h[3];
	hdr->gtimer_last = h[4];
	hdr->engine_smid = d->ctl->smid[0] ? d->ctl->smid[0] - 1u : UINT32_MAX;
	uint64_t n = h[0] < cap ? h[0] : cap;
	if (n > 0 && (e = cudaMemcpy(recs, d->prof + SNDEV_PROF_HDR, sizeof(*recs) * n * SNDEV_STAGES,
				     cudaMemcpyDeviceToHost)) != cudaSuccess)
		return fail_cuda(e, fn, "reading the stage profile");
	return MARROW_OK;
}

extern "C" MARROW_API int marrow_softnic_device_close(struct marrow_softnic_device *d)
{
	int rc;

	if (d == nullptr)
		return MARROW_OK;
	rc = marrow_softnic_device_stop(d, 5000000000ull);
	if (rc == MARROW_ETIMEDOUT)
		return rc;   /* the kernel may still touch the memory: keep it (leak) rather than free under it */
	free_all(d);
	return rc;
}
