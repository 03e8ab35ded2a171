/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Where the device engine's put+completion latency goes
 * (marrow_softnic_device_bench_stages): one initiator thread posts signaled
 * 8-byte RDMA WRITEs one at a time on a loopback QP whose queues live in GPU
 * memory, and times each put+completion with %clock64; in the same run the
 * engine's stage profile stamps five points of its WQE path
 * (docs/design/device-engine.md §2.1). Initiator total minus the engine's
 * stages is what neither side's stamps cover: the doorbell store reaching
 * the engine's load and the CQE store reaching the initiator's poll.
 */
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>

#include "cuda/cuda_host.h"
#include "marrow/gpu_prims.h"
#include "marrow/marrow_softnic_device.h"
#include "marrow/mlx5_wqe.h"
#include "softnic_dev/sndev_profile.h"

namespace {

struct stg_q {
	uint8_t *sq;
	uint32_t *dbrec;
	uint64_t *uar;
	const uint8_t *cq;
	uint64_t raddr, saddr;
	uint32_t qpn, sq_cnt, log_cq, key, pointer, total;
};

struct stg_out {
	unsigned long long done;   /* iterations completed */
	int32_t err;               /* 0, 1 timeout, 2 error CQE, 3 wrong bytes */
	uint32_t smid;
};

__global__ void stages_initiator(stg_q q, unsigned long long timeout_ns, unsigned long long *cycles,
				 stg_out *o)
{
	o->smid = gpu_smid();
	for (uint32_t i = 0; i < q.total; i++) {
		const uint16_t pi = (uint16_t)i;
		uint8_t *w = q.sq + (size_t)(pi & (q.sq_cnt - 1u)) * MX_WQEBB_SIZE;
		const uint8_t *cqe = q.cq + (size_t)(i & ((1u << q.log_cq) - 1u)) * MX_CQE_SIZE;
		const uint32_t want_owner = (i >> q.log_cq) & 1u;
		const unsigned long long v = 0x5a00000000000000ull | i;
		unsigned long long t0 = gpu_clock64(), deadline = gpu_globaltimer_ns() + timeout_ns;
		uint32_t word;

		if (q.pointer) {
			/* The source holds this iteration's value before the WQE names it. */
			*(volatile unsigned long long *)(uintptr_t)q.saddr = v;
			mx_set_ctrl_seg(w, pi, MX_OPCODE_RDMA_WRITE, 0, q.qpn, MX_CTRL_CQ_UPDATE,
					(uint8_t)mx_ds_pointer_write(1), 0, 0);
			mx_set_raddr_seg(w + 16, q.raddr, q.key);
			mx_set_data_seg(w + 32, 8, q.key, q.saddr);
		} else {
			mx_set_ctrl_seg(w, pi, MX_OPCODE_RDMA_WRITE, 0, q.qpn, MX_CTRL_CQ_UPDATE,
					(uint8_t)mx_ds_inline_write(8), 0, 0);
			mx_set_raddr_seg(w + 16, q.raddr, q.key);
			mx_set_inline_hdr(w + 32, 8);
			((volatile uint32_t *)(w + 36))[0] = (uint32_t)v;
			((volatile uint32_t *)(w + 36))[1] = (uint32_t)(v >> 32);
		}
		/* gpu-fence: WQE and DBR before the doorbell for an observer on this GPU. */
		gpu_st_relaxed_gpu_u32(&q.dbrec[MX_DBR_SND], mx_dbrec_send_value((uint32_t)pi + 1u));
		gpu_mmio_write64_db_release_gpu(q.uar, mx_doorbell_value((uint16_t)(pi + 1u), 0, q.qpn, 0));
		for (;;) {
			word = gpu_ld_acquire_gpu_u32((const uint32_t *)(cqe + 60));
			uint32_t op_own = word >> 24;

			if ((op_own >> 4) != 0xF && (op_own & 1u) == want_owner)
				break;
			if (gpu_globaltimer_ns() > deadline) {
				o->err = 1;
				return;
			}
		}
		/* After the loop's test of the CQE word: the stamp follows its load. */
		unsigned long long t1 = gpu_clock64();

		if ((word >> 28) != MX_CQE_REQ) {
			o->err = 2;
			return;
		}
		if (*(volatile unsigned long long *)(uintptr_t)q.raddr != v) {
			o->err = 3;
			return;
		}
		cycles[i] = t1 - t0;
		o->done = i + 1;
	}
}

int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t median(uint64_t *v, size_t n)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[n / 2];
}

} // namespace

extern "C" MARROW_API int marrow_softnic_device_bench_stages(const struct marrow_softnic_device_stages_config *cfg,
							     struct marrow_softnic_device_stages_result *res)
{
	static const char fn[] = "marrow_softnic_device_bench_stages";
	struct marrow_softnic_device_attr attr;
	struct marrow_softnic_device *d = nullptr;
	struct marrow_softnic_device_info info;
	struct marrow_cq_view cv;
	struct marrow_qp_view qv;
	struct sndev_profile_hdr ph;
	stg_q q;
	stg_out ho, *dout = nullptr;
	unsigned long long *dcyc = nullptr;
	uint64_t *cyc = nullptr, *recs = nullptr, *tmp = nullptr;
	uint8_t *buf = nullptr;
	uint32_t key = 0, ci = 0, qi = 0, total;
	cudaStream_t st = nullptr;
	cudaEvent_t ev = nullptr;
	cudaError_t e;
	int rc, alive = 0;   /* alive: a kernel may still run (a bounded wait ran out): keep its memory */

	if (cfg == nullptr || res == nullptr || cfg->size != sizeof(*cfg) || res->size != sizeof(*res))
		return marrow_fail(MARROW_EINVAL, "%s: cfg/res NULL or size mismatch", fn);
	if (cfg->comp_mask != 0 || cfg->nic_sms < 1 || cfg->pointer > 1 || cfg->iters < 1 || cfg->iters > 60000 ||
	    (uint64_t)cfg->iters + cfg->warmup > 65536 || cfg->timeout_ns == 0)
		return marrow_fail(MARROW_EINVAL, "%s: nic_sms >= 1, pointer 0/1, iters 1..60000, iters + warmup <= "
				   "65536, timeout_ns > 0 (got %u, %u, %u, %u, %llu)", fn, cfg->nic_sms, cfg->pointer,
				   cfg->iters, cfg->warmup, (unsigned long long)cfg->timeout_ns);
	total = cfg->iters + cfg->warmup;
	uint32_t res_size = res->size;
	memset(res, 0, sizeof(*res));
	res->size = res_size;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.nic_sms = cfg->nic_sms;
	attr.exec_mode = cfg->exec_mode;   /* checked by open */
	attr.queue_memory = MARROW_SNDEV_QUEUES_GPU;
	attr.cuda_device = cfg->cuda_device;
	attr.max_qps = 1;
	attr.max_mrs = 1;
	attr.quiet = 1;
	if ((rc = marrow_softnic_device_open(&attr, &d)) != MARROW_OK)
		return res->status = rc;
	cyc = (uint64_t *)calloc(total, sizeof(*cyc));
	recs = (uint64_t *)calloc((size_t)total * SNDEV_PROFILE_STAGES, sizeof(*recs));
	tmp = (uint64_t *)calloc(total, sizeof(*tmp));
	if (cyc == nullptr || recs == nullptr || tmp == nullptr) {
		rc = marrow_fail(MARROW_ENOMEM, "%s: out of memory", fn);
		goto done;
	}
	{
		int khz = 0;

		if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, cfg->cuda_device) == cudaSuccess && khz > 0)
			res->sm_clock_khz_attribute = (uint64_t)khz;
		(void)cudaGetLastError();
	}
	/* [0, 64): the destination; [64, 128): the pointer WRITE's source. */
	if ((e = cudaMalloc(&buf, 128)) != cudaSuccess || (e = cudaMemset(buf, 0, 128)) != cudaSuccess ||
	    (e = cudaMalloc(&dcyc, sizeof(*dcyc) * total)) != cudaSuccess ||
	    (e = cudaMalloc(&dout, sizeof(*dout))) != cudaSuccess ||
	    (e = cudaMemset(dout, 0, sizeof(*dout))) != cudaSuccess ||
	    (e = cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking)) != cudaSuccess ||
	    (e = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming)) != cudaSuccess) {
		rc = marrow_cuda_fail(e, "%s: buffers, stream or event", fn);
		goto done;
	}
	if ((rc = marrow_softnic_device_mr_reg(d, (uint64_t)(uintptr_t)buf, 128,
					       MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE, &key)) ||
	    (rc = marrow_softnic_device_cq_create(d, 6, MARROW_EMU_CQ_OVERRUN_IGNORE, &ci, &cv)) ||
	    (rc = marrow_softnic_device_qp_create(d, ci, 6, 32, MARROW_ACCESS_REMOTE_WRITE, &qi, &qv)) ||
	    (rc = marrow_softnic_device_qp_connect(d, qi, qi)) || (rc = sndev_profile_arm(d, total)))
		goto done;
	memset(&q, 0, sizeof(q));
	q.sq = (uint8_t *)qv.sq_buf;
	q.dbrec = qv.dbrec;
	q.uar = (uint64_t *)qv.uar;
	q.cq = (const uint8_t *)cv.buf;
	q.raddr = (uint64_t)(uintptr_t)buf;
	q.saddr = (uint64_t)(uintptr_t)(buf + 64);
	q.qpn = qv.qpn;
	q.sq_cnt = qv.sq_wqe_cnt;
	q.log_cq = 6;
	q.key = key;
	q.pointer = cfg->pointer;
	q.total = total;
	{
		/* the initiator launches while the engine runs: load it first (cuda_host.h) */
		static const void *const k[] = {(const void *)stages_initiator};
		if ((rc = marrow_cuda_preload(k, 1, fn)) != MARROW_OK || (rc = marrow_softnic_device_start(d)) != MARROW_OK)
			goto done;
	}
	stages_initiator<<<1, 1, 0, st>>>(q, cfg->timeout_ns, dcyc, dout);
	if ((e = cudaGetLastError()) != cudaSuccess || (e = cudaEventRecord(ev, st)) != cudaSuccess) {
		rc = marrow_cuda_fail(e, "%s: launching the initiator", fn);
	} else {
		/* Each completion wait is bounded by timeout_ns. */
		uint64_t bound = marrow_sat_add(marrow_sat_mul(total, cfg->timeout_ns), 5000000000ull);
		if (bound > 120000000000ull)
			bound = 120000000000ull;
		rc = marrow_cuda_wait_event(ev, bound, "marrow_softnic_device_bench_stages: the initiator kernel", &e);
		alive = rc == MARROW_ETIMEDOUT;
	}
	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	(void)marrow_softnic_device_info(d, &info);
	res->device_sms = info.device_sms;
	if (rc == MARROW_OK) {
		e = cudaMemcpyAsync(&ho, dout, sizeof(ho), cudaMemcpyDeviceToHost, st);
		if (e == cudaSuccess)
			e = cudaMemcpyAsync(cyc, dcyc, sizeof(*cyc) * total, cudaMemcpyDeviceToHost, st);
		if (e == cudaSuccess)
			e = cudaStreamSynchronize(st);
		if (e != cudaSuccess)
			rc = marrow_cuda_fail(e, "%s: reading the initiator's results", fn);
	}
	{
		int stop_rc = marrow_softnic_device_stop(d, 5000000000ull);
		alive |= stop_rc == MARROW_ETIMEDOUT;
		if (rc == MARROW_OK)
			rc = stop_rc;
	}
	if (rc == MARROW_OK && ho.err != 0)
		rc = marrow_fail(ho.err == 1 ? MARROW_ETIMEDOUT : MARROW_EIO, "%s: iteration %llu: %s", fn, ho.done,
				 ho.err == 1 ? "no CQE within timeout_ns" : ho.err == 2 ? "error CQE"
										: "destination bytes wrong");
	if (rc == MARROW_OK && (rc = sndev_profile_read(d, &ph, recs, total)) == MARROW_OK) {
		uint64_t ctr[MARROW_EMU_CTR_COUNT];
		uint64_t nrec = ph.records < total ? ph.records : total;

		res->iters = cfg->iters;
		res->initiator_smid = ho.smid;
		res->engine_smid = ph.engine_smid;
		res->putc_min_cycles = UINT64_MAX;
		for (uint32_t i = cfg->warmup; i < total; i++)
			res->putc_min_cycles = cyc[i] < res->putc_min_cycles ? cyc[i] : res->putc_min_cycles;
		res->putc_p50_cycles = median(cyc + cfg->warmup, cfg->iters);
		if (ph.gtimer_last > ph.gtimer_first)
			res->sm_clock_khz = (ph.clock_last - ph.clock_first) * 1000000ull / (ph.gtimer_last - ph.gtimer_first);
		/* Records of the measured iterations with every stage stamped, in order. */
		static const int from[MARROW_SNDEV_STAGE_COUNT] = {0, 1, 2, 3, 0};
		static const int to[MARROW_SNDEV_STAGE_COUNT] = {1, 2, 3, 4, 4};
		for (int s = 0; s < MARROW_SNDEV_STAGE_COUNT; s++) {
			size_t m = 0;
			for (uint64_t r = cfg->warmup; r < nrec; r++) {
				const uint64_t *x = recs + r * SNDEV_PROFILE_STAGES;
				int ok = 1;
				for (int k = 0; k < SNDEV_PROFILE_STAGES; k++)
					ok &= x[k] != 0 && (k == 0 || x[k] >= x[k - 1]);
				if (ok)
					tmp[m++] = x[to[s]] - x[from[s]];
			}
			if (s == 0)
				res->profiled = (uint32_t)m;
			res->stage_p50_cycles[s] = median(tmp, m);
		}
		if ((rc = marrow_softnic_device_counters(d, ctr, MARROW_EMU_CTR_COUNT)) == MARROW_OK) {
			res->engine_writes = ctr[MARROW_EMU_CTR_wqe_rdma_write];
			res->engine_error_cqes = ctr[MARROW_EMU_CTR_cqe_req_err];
			if (res->engine_writes != total || res->engine_error_cqes != 0)
				rc = marrow_fail(MARROW_EPROTO, "%s: the engine executed %llu WRITEs (%llu error CQEs) for "
						 "%u posted", fn, (unsigned long long)res->engine_writes,
						 (unsigned long long)res->engine_error_cqes, total);
		}
	}
done:
	if (!alive) {
		/* A kernel still running after a timeout keeps its memory. */
		if (marrow_softnic_device_close(d) == MARROW_OK) {
			cudaFree(buf);
			cudaFree(dcyc);
			cudaFree(dout);
		}
		if (st)
			cudaStreamDestroy(st);
		if (ev)
			cudaEventDestroy(ev);
	}
	(void)cudaGetLastError();
	free(cyc);
	free(recs);
	free(tmp);
	return res->status = rc;
}
