/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * The device engine's ceiling (marrow_softnic_device_bench_rate): a feeder
 * kernel with one GPU thread per QP (one block each, so feeders sit on SMs
 * of their own) posts 8-byte inline RDMA WRITEs in batches of `batch`
 * WQEs, one doorbell per batch, only the batch's last WQE signaled, keeping
 * at most the SQ size outstanding; the engine runs on nic_sms SMs. Timed:
 * from the first feeder's first WQE to the last feeder's last CQE
 * (%globaltimer); messages / that span is the rate. Everything lives in GPU
 * memory, so the orderings are GPU scope: a release fence between the WQE
 * stores and the doorbell (docs/design/device-engine.md §5).
 */
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>

#include "cuda/cuda_host.h"
#include "marrow/gpu_prims.h"
#include "marrow/marrow_softnic_device.h"
#include "marrow/mlx5_wqe.h"

namespace {

struct feed_q {
	uint8_t *sq;
	uint32_t *dbrec;
	uint64_t *uar;
	const uint8_t *cq;
	uint64_t raddr;
	uint32_t qpn, sq_cnt, log_cq, rkey;
};

struct feed_out {
	unsigned long long t0, t1, cqes;
	int32_t err;            /* 0, 1 timeout, 2 error CQE */
	uint32_t pad;
};

/* Waits for the next CQE of q (bounded); returns the WQEBB after the one it
 * retires, or -1 on timeout / error CQE (recorded in *o). */
__device__ int64_t feed_poll(const feed_q &q, uint32_t *cq_ci, uint64_t deadline, feed_out *o)
{
	const uint8_t *cqe = q.cq + (size_t)(*cq_ci & ((1u << q.log_cq) - 1u)) * MX_CQE_SIZE;
	uint32_t want_owner = (*cq_ci >> q.log_cq) & 1u;

	for (;;) {
		uint32_t w = gpu_ld_acquire_gpu_u32((const uint32_t *)(cqe + 60));
		uint32_t op_own = w >> 24;

		if ((op_own >> 4) != 0xF && (op_own & 1u) == want_owner) {
			(*cq_ci)++;
			o->cqes++;
			if ((op_own >> 4) != MX_CQE_REQ) {
				o->err = 2;
				return -1;
			}
			return (int64_t)(uint16_t)((((w & 0xffu) << 8) | ((w >> 8) & 0xffu)) + 1u);
		}
		if (gpu_globaltimer_ns() > deadline) {
			o->err = 1;
			return -1;
		}
	}
}

__global__ void feeder_kernel(const feed_q *qs, unsigned long long per_qp, uint32_t batch,
			      unsigned long long timeout_ns, feed_out *outs)
{
	const feed_q q = qs[blockIdx.x];
	feed_out *o = &outs[blockIdx.x];
	uint16_t pi = 0, done = 0;
	uint32_t cq_ci = 0;

	o->t0 = gpu_globaltimer_ns();
	for (unsigned long long sent = 0; sent < per_qp;) {
		uint32_t n = per_qp - sent < batch ? (uint32_t)(per_qp - sent) : batch;

		while ((uint32_t)(uint16_t)(pi - done) + n > q.sq_cnt) {
			int64_t d = feed_poll(q, &cq_ci, gpu_globaltimer_ns() + timeout_ns, o);
			if (d < 0)
				return;
			done = (uint16_t)d;
		}
		for (uint32_t i = 0; i < n; i++) {
			uint8_t *w = q.sq + (size_t)(pi & (q.sq_cnt - 1u)) * MX_WQEBB_SIZE;
			unsigned long long v = sent + i;

			mx_set_ctrl_seg(w, pi, MX_OPCODE_RDMA_WRITE, 0, q.qpn, i + 1 == n ? MX_CTRL_CQ_UPDATE : 0,
					(uint8_t)mx_ds_inline_write(8), 0, 0);
			mx_set_raddr_seg(w + 16, q.raddr, q.rkey);
			mx_set_inline_hdr(w + 32, 8);
			((uint32_t *)(w + 36))[0] = (uint32_t)v;
			((uint32_t *)(w + 36))[1] = (uint32_t)(v >> 32);
			pi++;
		}
		/* WQEs and DBR before the doorbell, for an observer on this GPU. */
		gpu_st_relaxed_gpu_u32(&q.dbrec[MX_DBR_SND], mx_dbrec_send_value(pi));
		gpu_mmio_write64_db_release_gpu(q.uar, mx_doorbell_value(pi, 0, q.qpn, 0));
		sent += n;
	}
	while (done != pi) {
		int64_t d = feed_poll(q, &cq_ci, gpu_globaltimer_ns() + timeout_ns, o);
		if (d < 0)
			return;
		done = (uint16_t)d;
	}
	o->t1 = gpu_globaltimer_ns();
}

} // namespace

extern "C" MARROW_API int marrow_softnic_device_bench_rate(const struct marrow_softnic_device_rate_config *cfg,
							   struct marrow_softnic_device_rate_result *res)
{
	static const char fn[] = "marrow_softnic_device_bench_rate";
	struct marrow_softnic_device_attr attr;
	struct marrow_softnic_device *d = nullptr;
	struct marrow_softnic_device_info info;
	feed_q *hq = nullptr, *dq = nullptr;
	feed_out *ho = nullptr, *dout = nullptr;
	uint8_t *dst = nullptr;
	uint32_t key = 0;
	cudaStream_t st = nullptr;
	cudaEvent_t ev = nullptr;
	cudaError_t e;
	int rc;

	if (cfg == nullptr || res == nullptr || cfg->size != sizeof(*cfg) || res->size != sizeof(*res))
		return marrow_fail(MARROW_EINVAL, "%s: cfg/res NULL or size mismatch", fn);
	if (cfg->nqps < 1 || cfg->nqps > 1024 || cfg->batch < 1 || cfg->log_sq < 1 || cfg->log_sq > 15 ||
	    cfg->batch > (1u << cfg->log_sq) || cfg->msgs_per_qp < 1 || cfg->timeout_ns == 0)
		return marrow_fail(MARROW_EINVAL, "%s: nqps 1..1024, log_sq 1..15, batch 1..SQ size, msgs_per_qp >= 1, "
				   "timeout_ns > 0 (got %u, %u, %u, %llu, %llu)", fn, cfg->nqps, cfg->log_sq, cfg->batch,
				   (unsigned long long)cfg->msgs_per_qp, (unsigned long long)cfg->timeout_ns);
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.nic_sms = cfg->nic_sms;
	attr.threads_per_sm = cfg->threads_per_sm;
	attr.exec_mode = cfg->exec_mode;   /* checked by open */
	attr.queue_memory = MARROW_SNDEV_QUEUES_GPU;
	attr.cuda_device = cfg->cuda_device;
	attr.max_qps = cfg->nqps;
	attr.max_mrs = 1;
	attr.quiet = 1;
	uint32_t res_size = res->size;
	memset(res, 0, sizeof(*res));
	res->size = res_size;
	if ((rc = marrow_softnic_device_open(&attr, &d)) != MARROW_OK)
		return res->status = rc;
	hq = (feed_q *)calloc(cfg->nqps, sizeof(*hq));
	ho = (feed_out *)calloc(cfg->nqps, sizeof(*ho));
	if (hq == nullptr || ho == nullptr) {
		rc = marrow_fail(MARROW_ENOMEM, "%s: out of memory", fn);
		goto done;
	}
	if ((e = cudaMalloc(&dst, (size_t)cfg->nqps * 64)) != cudaSuccess ||
	    (e = cudaMemset(dst, 0, (size_t)cfg->nqps * 64)) != cudaSuccess ||
	    (e = cudaMalloc(&dq, sizeof(*dq) * cfg->nqps)) != cudaSuccess ||
	    (e = cudaMalloc(&dout, sizeof(*dout) * cfg->nqps)) != cudaSuccess ||
	    (e = cudaMemset(dout, 0, sizeof(*dout) * cfg->nqps)) != cudaSuccess ||
	    (e = cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking)) != cudaSuccess ||
	    (e = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming)) != cudaSuccess) {
		rc = marrow_cuda_fail(e, "%s: buffers, stream or event", fn);
		goto done;
	}
	if ((rc = marrow_softnic_device_mr_reg(d, (uint64_t)(uintptr_t)dst, (uint64_t)cfg->nqps * 64,
					       MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE, &key)))
		goto done;
	for (uint32_t i = 0; i < cfg->nqps; i++) {
		struct marrow_cq_view cv;
		struct marrow_qp_view qv;
		uint32_t ci, qi;

		if ((rc = marrow_softnic_device_cq_create(d, cfg->log_sq, MARROW_EMU_CQ_OVERRUN_IGNORE, &ci, &cv)) ||
		    (rc = marrow_softnic_device_qp_create(d, ci, cfg->log_sq, 32, MARROW_ACCESS_REMOTE_WRITE, &qi, &qv)) ||
		    (rc = marrow_softnic_device_qp_connect(d, qi, qi)))
			goto done;
		hq[i].sq = (uint8_t *)qv.sq_buf;
		hq[i].dbrec = qv.dbrec;
		hq[i].uar = (uint64_t *)qv.uar;
		hq[i].cq = (const uint8_t *)cv.buf;
		hq[i].raddr = (uint64_t)(uintptr_t)(dst + (size_t)i * 64);
		hq[i].qpn = qv.qpn;
		hq[i].sq_cnt = qv.sq_wqe_cnt;
		hq[i].log_cq = cfg->log_sq;
		hq[i].rkey = key;
	}
	if ((e = cudaMemcpy(dq, hq, sizeof(*dq) * cfg->nqps, cudaMemcpyHostToDevice)) != cudaSuccess) {
		rc = marrow_cuda_fail(e, "%s: cudaMemcpy of the feeder queues", fn);
		goto done;
	}
	{
		/* the feeder launches while the engine runs: load it first (cuda_host.h) */
		static const void *const k[] = {(const void *)feeder_kernel};
		if ((rc = marrow_cuda_preload(k, 1, fn)) != MARROW_OK || (rc = marrow_softnic_device_start(d)) != MARROW_OK)
			goto done;
	}
	feeder_kernel<<<cfg->nqps, 1, 0, st>>>(dq, cfg->msgs_per_qp, cfg->batch, cfg->timeout_ns, dout);
	if ((e = cudaGetLastError()) != cudaSuccess || (e = cudaEventRecord(ev, st)) != cudaSuccess) {
		rc = marrow_cuda_fail(e, "%s: launching the feeder", fn);
	} else {
		/* Every feeder wait is bounded by timeout_ns; add slack for the run itself. */
		uint64_t bound = marrow_sat_add(marrow_sat_mul(4, cfg->timeout_ns), 60000000000ull);
		rc = marrow_cuda_wait_event(ev, bound, "marrow_softnic_device_bench_rate: the feeder kernel", &e);
	}
	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	(void)marrow_softnic_device_info(d, &info);
	if (rc == MARROW_OK) {
		e = cudaMemcpyAsync(ho, dout, sizeof(*ho) * cfg->nqps, cudaMemcpyDeviceToHost, st);
		if (e == cudaSuccess)
			e = cudaStreamSynchronize(st);
		if (e != cudaSuccess)
			rc = marrow_cuda_fail(e, "%s: reading the feeder results", fn);
	}
	{
		int stop_rc = marrow_softnic_device_stop(d, 5000000000ull);
		if (rc == MARROW_OK)
			rc = stop_rc;
	}
	if (rc == MARROW_OK) {
		uint64_t t0 = UINT64_MAX, t1 = 0, ctr[MARROW_EMU_CTR_COUNT];

		for (uint32_t i = 0; i < cfg->nqps; i++) {
			if (ho[i].err != 0) {
				rc = marrow_fail(ho[i].err == 1 ? MARROW_ETIMEDOUT : MARROW_EIO,
						 "%s: feeder of QP %u: %s after %llu CQEs", fn, i,
						 ho[i].err == 1 ? "no CQE within timeout_ns" : "error CQE",
						 (unsigned long long)ho[i].cqes);
				break;
			}
			t0 = ho[i].t0 < t0 ? ho[i].t0 : t0;
			t1 = ho[i].t1 > t1 ? ho[i].t1 : t1;
			res->cqes += ho[i].cqes;
		}
		if (rc == MARROW_OK && (rc = marrow_softnic_device_counters(d, ctr, MARROW_EMU_CTR_COUNT)) == MARROW_OK) {
			res->messages = (uint64_t)cfg->nqps * cfg->msgs_per_qp;
			res->elapsed_ns = t1 > t0 ? t1 - t0 : 0;
			res->engine_writes = ctr[MARROW_EMU_CTR_wqe_rdma_write];
			res->engine_error_cqes = ctr[MARROW_EMU_CTR_cqe_req_err];
			res->busy_passes = ctr[MARROW_EMU_CTR_busy_passes];
			res->idle_passes = ctr[MARROW_EMU_CTR_idle_passes];
			if (res->engine_writes != res->messages || res->engine_error_cqes != 0)
				rc = marrow_fail(MARROW_EPROTO, "%s: the engine executed %llu WRITEs (%llu error CQEs) for %llu "
						 "posted", fn, (unsigned long long)res->engine_writes,
						 (unsigned long long)res->engine_error_cqes, (unsigned long long)res->messages);
		}
	}
	res->nic_sms = cfg->nic_sms;
	res->distinct_sms = info.distinct_sms;
	res->exec_mode = info.exec_mode;
	res->threads_per_sm = info.threads_per_sm;
	res->max_blocks_per_sm = info.max_blocks_per_sm;
	res->device_sms = info.device_sms;
done:
	if (rc != MARROW_ETIMEDOUT) {
		/* A kernel still running after a timeout keeps its memory. */
		if (marrow_softnic_device_close(d) == MARROW_OK) {
			cudaFree(dst);
			cudaFree(dq);
			cudaFree(dout);
		}
		if (st)
			cudaStreamDestroy(st);
		if (ev)
			cudaEventDestroy(ev);
	}
	(void)cudaGetLastError();
	free(hq);
	free(ho);
	return res->status = rc;
}
