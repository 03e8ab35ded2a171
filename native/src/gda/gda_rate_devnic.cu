/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * marrow_gda_rate_devnic_run (marrow_gda_rate.h): the mini-gda rate kernels
 * against GPU-resident queues served by the software NIC's device engine.
 * Order matters because the engine is a persistent kernel: everything that
 * allocates or copies is done before the engine starts or after it stops,
 * the rate kernel runs on a non-blocking stream between the two
 * (gda_rate_cuda.h), and the engine's memory is never freed while it still
 * runs. docs/design/device-engine.md, docs/design/methods.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>
#include <cuda_runtime_api.h>

#include "common/marrow_common.h"
#include "cuda/cuda_host.h"
#include "marrow/marrow_gda_rate.h"
#include "marrow/marrow_softnic_device.h"
#include "gda/gda_rate_cuda.h"

namespace {

struct devnic_run {
	struct marrow_softnic_device *nic;
	struct marrow_gda_rate_devnic *dn;
	uint64_t stop_timeout_ns;
};

int nic_start(void *ctx)
{
	devnic_run *r = (devnic_run *)ctx;
	struct marrow_softnic_device_info info;
	int rc = marrow_softnic_device_start(r->nic);

	if (rc != MARROW_OK)
		return rc;
	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	/* start returns once every engine block reported its SM */
	if (marrow_softnic_device_info(r->nic, &info) == MARROW_OK) {
		r->dn->distinct_sms = info.distinct_sms;
		r->dn->max_blocks_per_sm = info.max_blocks_per_sm;
		r->dn->device_sms = info.device_sms;
		r->dn->exec_mode = info.exec_mode;
		r->dn->threads_per_sm_run = info.threads_per_sm;
	}
	return MARROW_OK;
}

int nic_stop(void *ctx)
{
	devnic_run *r = (devnic_run *)ctx;
	return marrow_softnic_device_stop(r->nic, r->stop_timeout_ns);
}

void nic_dump(void *ctx, uint32_t qp, char *buf, uint32_t len)
{
	devnic_run *r = (devnic_run *)ctx;
	if (marrow_softnic_device_dump(r->nic, qp, buf, len) != MARROW_OK)
		snprintf(buf, len, "engine_dump=unavailable");
}

int bad(const char *fn, struct marrow_gda_rate_result *res, const char *what)
{
	if (res != nullptr)
		res->status = MARROW_EINVAL;
	return marrow_fail(MARROW_EINVAL, "%s: %s", fn, what);
}

} // namespace

extern "C" MARROW_API int marrow_gda_rate_devnic_run(const struct marrow_gda_rate_config *cfg,
						     struct marrow_gda_rate_devnic *dn, uint64_t *samples_ns,
						     struct marrow_gda_rate_result *res, uint64_t *counters,
						     uint32_t n_counters)
{
	static const char fn[] = "marrow_gda_rate_devnic_run";
	struct marrow_softnic_device_attr attr;
	struct gda_rate_gpu_queues gq;
	devnic_run r;
	std::vector<struct marrow_qp_view> qv;
	std::vector<struct marrow_cq_view> cv;
	std::vector<struct marrow_gda_endpoint> eps;
	void *src = nullptr, *dst = nullptr;
	uint32_t n_eps, src_key = 0, dst_key = 0;
	uint64_t len;
	size_t stride, per_thread, threads;
	cudaError_t e;
	int rc, ndev = 0;

	if (cfg == nullptr || dn == nullptr || res == nullptr || res->size != sizeof(*res) ||
	    cfg->size != sizeof(*cfg) || dn->size != sizeof(*dn))
		return marrow_fail(MARROW_EINVAL, "%s: cfg, dn or res NULL or of the wrong size", fn);
	memset(res, 0, sizeof(*res));
	res->size = sizeof(*res);
	if (counters == nullptr || n_counters < (uint32_t)MARROW_EMU_CTR_COUNT)
		return bad(fn, res, "counters NULL or shorter than MARROW_EMU_CTR_COUNT");
	if (dn->nic_sms < 1 || dn->stop_timeout_ns == 0 || dn->log_sq < 1 || dn->log_sq > 15)
		return bad(fn, res, "nic_sms must be >= 1, stop_timeout_ns > 0 and log_sq 1..15");
	if (cfg->qps < 1 || cfg->qps > 512 || cfg->blocks < 1 || cfg->threads < 1 || cfg->threads > 1024 ||
	    cfg->msg_size < 8 || cfg->msg_size > 4096)
		return bad(fn, res, "qps must be 1..512, threads 1..1024 and size 8..4096");
	dn->distinct_sms = dn->max_blocks_per_sm = dn->device_sms = dn->shared_sms = 0;
	if ((e = cudaGetDeviceCount(&ndev)) != cudaSuccess || ndev <= 0) {
		(void)cudaGetLastError();
		res->cuda_error = (int32_t)e;
		return res->status = marrow_fail(MARROW_ENODEV, "%s: no usable CUDA device (%s)", fn,
						 e != cudaSuccess ? cudaGetErrorString(e) : "device count 0");
	}
	if (cfg->cuda_device < 0 || cfg->cuda_device >= ndev)
		return res->status = marrow_fail(MARROW_ENODEV, "%s: CUDA device %d out of range (0..%d)", fn,
						 cfg->cuda_device, ndev - 1);
	if ((e = cudaSetDevice(cfg->cuda_device)) != cudaSuccess) {
		res->cuda_error = (int32_t)e;
		return res->status = marrow_cuda_fail(e, "%s: cudaSetDevice", fn);
	}
	{
		int sms = 0;
		if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, cfg->cuda_device) == cudaSuccess) {
			dn->device_sms = (uint32_t)sms;
			if (dn->nic_sms >= (uint32_t)sms)
				return bad(fn, res, "--nic-sms must leave at least one SM to the rate kernel");
			/* blocks beyond the free SMs share SMs with the engine's blocks
			 * (occupancy permitting) or wait for one: every wait stays bounded */
			dn->shared_sms = cfg->blocks + dn->nic_sms > (uint32_t)sms;
		}
	}
	n_eps = cfg->qps + (cfg->experiment == MARROW_GDA_RATE_EXP_SCOPE ? 1u : 0u);
	/* destination: one slot per message per thread, 64-byte aligned, as on the other targets (bounded at 64 MiB,
	 * slots then wrap); the runner re-checks the exact layout */
	stride = ((size_t)cfg->msg_size + 63u) & ~(size_t)63u;
	threads = (size_t)cfg->blocks * cfg->threads;
	per_thread = (size_t)(cfg->messages + cfg->warmup);
	if (per_thread > ((size_t)64 << 20) / stride / threads)
		per_thread = ((size_t)64 << 20) / stride / threads;
	if (per_thread < 1)
		per_thread = 1;
	len = ((uint64_t)(per_thread * stride * threads) + 4095u) & ~(uint64_t)4095u;
	if (len < 4096)
		len = 4096;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.nic_sms = dn->nic_sms;
	attr.threads_per_sm = dn->threads_per_sm;
	attr.queue_memory = MARROW_SNDEV_QUEUES_GPU;
	attr.cuda_device = cfg->cuda_device;
	attr.max_qps = n_eps;
	attr.max_mrs = 2;
	attr.max_run_ns = marrow_sat_add(marrow_sat_mul(4, cfg->timeout_ns), 180000000000ull);
	attr.quiet = 1;
	memset(&r, 0, sizeof(r));
	r.dn = dn;
	r.stop_timeout_ns = dn->stop_timeout_ns;
	if ((rc = marrow_softnic_device_open(&attr, &r.nic)) != MARROW_OK) {
		res->status = rc;
		return rc;
	}
	if ((e = cudaMalloc(&src, len)) != cudaSuccess || (e = cudaMemset(src, 0, len)) != cudaSuccess ||
	    (e = cudaMalloc(&dst, len)) != cudaSuccess || (e = cudaMemset(dst, 0, len)) != cudaSuccess ||
	    (e = cudaDeviceSynchronize()) != cudaSuccess) {
		res->cuda_error = (int32_t)e;
		rc = res->status = marrow_cuda_fail(e, "%s: cudaMalloc of the source and destination", fn);
		goto out;
	}
	if ((rc = marrow_softnic_device_mr_reg(r.nic, (uint64_t)(uintptr_t)dst, len,
					       MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE, &dst_key)) ||
	    (rc = marrow_softnic_device_mr_reg(r.nic, (uint64_t)(uintptr_t)src, len, MARROW_ACCESS_LOCAL_WRITE,
					       &src_key))) {
		res->status = rc;
		goto out;
	}
	qv.resize(n_eps);
	cv.resize(n_eps);
	eps.resize(n_eps);
	for (uint32_t i = 0; i < n_eps; i++) {
		uint32_t cq, qp;
		/* twice the SQ's WQEBBs: a CQE per WQE of a full window plus the final one (as the CPU engine's) */
		if ((rc = marrow_softnic_device_cq_create(r.nic, dn->log_sq + 1, 0, &cq, &cv[i])) ||
		    (rc = marrow_softnic_device_qp_create(r.nic, cq, dn->log_sq, dn->max_inline_data,
							  MARROW_ACCESS_REMOTE_WRITE, &qp, &qv[i])) ||
		    (rc = marrow_softnic_device_qp_connect(r.nic, qp, qp))) {
			res->status = rc;
			goto out;
		}
		struct marrow_gda_endpoint *ep = &eps[i];
		memset(ep, 0, sizeof(*ep));
		ep->size = sizeof(*ep);
		ep->placement = MARROW_GDA_PLACEMENT_GPU;
		ep->lkey = src_key;
		ep->qp = &qv[i];
		ep->cq = &cv[i];
		ep->local_addr = (uint64_t)(uintptr_t)src;
		ep->local_len = len;
		ep->remote_addr = (uint64_t)(uintptr_t)dst;
		ep->remote_len = len;
		ep->rkey = dst_key;
	}
	memset(&gq, 0, sizeof(gq));
	if ((e = cudaStreamCreateWithFlags(&gq.stream, cudaStreamNonBlocking)) != cudaSuccess) {
		res->cuda_error = (int32_t)e;
		rc = res->status = marrow_cuda_fail(e, "%s: cudaStreamCreateWithFlags", fn);
		goto out;
	}
	gq.ctx = &r;
	gq.start = nic_start;
	gq.stop = nic_stop;
	gq.dump = nic_dump;
	rc = gda_rate_cuda_run_on(cfg, eps.data(), n_eps, samples_ns, res, &gq);
	if (gq.stuck) {
		/* the engine kernel did not stop: its memory and the buffers stay until the process ends */
		return rc;
	}
	cudaStreamDestroy(gq.stream);
	{
		int crc = marrow_softnic_device_counters(r.nic, counters, n_counters);
		if (crc != MARROW_OK && rc == MARROW_OK)
			rc = res->status = crc;
	}
out:
	{
		int close_rc = marrow_softnic_device_close(r.nic);
		if (close_rc == MARROW_ETIMEDOUT)
			return rc != MARROW_OK ? rc : close_rc;   /* still running: keep the buffers */
	}
	if (src)
		cudaFree(src);
	if (dst)
		cudaFree(dst);
	(void)cudaGetLastError();
	return rc;
}
