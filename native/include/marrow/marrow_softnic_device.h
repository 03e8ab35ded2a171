/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * The software NIC's device engine (libmarrow_cuda.so): the NIC's execution
 * loop as a persistent CUDA kernel on a chosen number of SMs, serving
 * mlx5-format SQs, CQs, doorbell records and doorbell pages that live in
 * GPU memory (cudaMalloc) or in mapped pinned host memory. It executes WQEs
 * with the same execution core as the CPU engine threads (emu_exec_core.h),
 * so WQE checks, error and flush CQEs and counters are the CPU engine's.
 * Design, limits and what it does not model: docs/design/device-engine.md.
 *
 * Life cycle: open -> create CQs and QPs, register MRs, connect QPs ->
 * start (launches the kernel) -> ... -> stop (bounded) -> close. Objects
 * are created and connected only while the engine is stopped (EBUSY
 * otherwise): the kernel reads a copy of them taken at start.
 *
 * Every result measured on it is emulated: records say "hardware": false and
 * "nic": "softnic-device".
 */
#ifndef MARROW_SOFTNIC_DEVICE_H
#define MARROW_SOFTNIC_DEVICE_H

#include <stdint.h>

#include "marrow/marrow_abi.h"
#include "marrow/marrow_softnic.h"

#ifdef __cplusplus
extern "C" {
#endif

struct marrow_softnic_device;

/* Where the queues (SQ, CQ, DBRs, doorbell pages) of the device live. */
enum marrow_softnic_device_memory {
	/* cudaMalloc: only GPU threads (and cudaMemcpy) reach them; the
	 * engine orders its accesses at GPU scope. */
	MARROW_SNDEV_QUEUES_GPU = 0,
	/* cudaHostAlloc(Mapped): CPU producers can drive the device engine
	 * (fidelity tests); the engine orders at system scope. */
	MARROW_SNDEV_QUEUES_HOST = 1,
};

/* How the engine kernel lays out its engine threads
 * (docs/design/device-engine.md §2, §2.4). */
enum marrow_softnic_device_exec {
	/* The default: the lane layout. */
	MARROW_SNDEV_EXEC_AUTO = 0,
	/* One GPU thread per engine thread, packed 32 to a warp: engine
	 * threads of one warp share its issue slots. threads_per_sm 1..1024
	 * (0 = 32). */
	MARROW_SNDEV_EXEC_THREAD = 1,
	/* One warp per engine thread (lane 0 works): threads_per_sm 1..8
	 * (0 = 8). An engine thread that owns one QP with a doorbell page of
	 * its own serves it on the lane path (its hot fields in registers; the
	 * same checks, CQEs and counters). */
	MARROW_SNDEV_EXEC_LANE = 2,
};

struct marrow_softnic_device_attr {
	uint32_t size;              /* sizeof(struct marrow_softnic_device_attr) */
	uint32_t comp_mask;         /* 0 */
	uint32_t nic_sms;           /* blocks of the engine kernel = SMs it takes (>= 1) */
	uint32_t threads_per_sm;    /* engine threads per block (exec_mode gives range and default) */
	uint32_t queue_memory;      /* enum marrow_softnic_device_memory */
	int32_t cuda_device;        /* CUDA ordinal */
	uint32_t max_qps;           /* QP capacity, 1..4096 (0 = 64) */
	uint32_t max_mrs;           /* MR capacity, 1..65535 (0 = 64) */
	uint64_t max_run_ns;        /* the kernel ends itself after this long (0 = 600 s) */
	uint32_t quiet;             /* 1 = no emulator banner on stderr */
	uint32_t exec_mode;         /* enum marrow_softnic_device_exec */
};

/* What the started engine reports about itself. */
struct marrow_softnic_device_info {
	uint32_t size;              /* sizeof(struct marrow_softnic_device_info) */
	uint32_t comp_mask;
	uint32_t nic_sms;           /* blocks launched */
	uint32_t threads_per_sm;
	uint32_t distinct_sms;      /* distinct %smid the blocks reported (0 before they ran) */
	uint32_t max_blocks_per_sm; /* occupancy of the engine kernel at this block size */
	uint32_t device_sms;        /* SMs of the GPU */
	uint32_t running;           /* 1 between start and stop */
	uint64_t passes;            /* engine passes of block 0 so far (heartbeat) */
	int32_t exit_reason;        /* 0 running/never ran, 1 stop request, 2 max_run_ns reached */
	uint32_t exec_mode;         /* enum marrow_softnic_device_exec, resolved (THREAD or LANE) */
};

MARROW_API int marrow_softnic_device_open(const struct marrow_softnic_device_attr *attr,
					  struct marrow_softnic_device **out);
/* Stops the engine (bounded as in _stop) and frees everything. */
MARROW_API int marrow_softnic_device_close(struct marrow_softnic_device *dev);

/* A CQ (log_cqe_cnt 0..16, flags of enum marrow_emu_cq_flags); *index names
 * it below. The view's pointers are addresses of queue_memory. */
MARROW_API int marrow_softnic_device_cq_create(struct marrow_softnic_device *dev, uint32_t log_cqe_cnt,
					       uint32_t flags, uint32_t *index, struct marrow_cq_view *view);
/* An RC QP without receive queue (log_sq_wqebb_cnt 1..15, max_inline_data
 * 0..972, access of enum marrow_emu_access), sending to CQ send_cq. */
MARROW_API int marrow_softnic_device_qp_create(struct marrow_softnic_device *dev, uint32_t send_cq,
					       uint32_t log_sq_wqebb_cnt, uint32_t max_inline_data,
					       uint32_t access, uint32_t *index, struct marrow_qp_view *view);
/* RESET -> RTS with peer (a QP of this device; itself for loopback). */
MARROW_API int marrow_softnic_device_qp_connect(struct marrow_softnic_device *dev, uint32_t qp, uint32_t peer);
/* Registers [addr, addr + len) of GPU memory or of mapped host memory (a
 * pointer the GPU can dereference); lkey = rkey = *key. */
MARROW_API int marrow_softnic_device_mr_reg(struct marrow_softnic_device *dev, uint64_t addr, uint64_t len,
					    uint32_t access, uint32_t *key);

/* Mapped pinned host memory (cudaHostAlloc, zeroed) that both the CPU and
 * the engine reach at the same address: payload buffers of CPU-driven
 * tests, or a destination in host memory. Freed by close. */
MARROW_API int marrow_softnic_device_host_alloc(struct marrow_softnic_device *dev, uint64_t bytes, void **out);

/* Launches the persistent engine kernel on its own non-blocking stream:
 * attr.nic_sms blocks of attr.threads_per_sm threads. EINVAL when more SMs
 * are asked than the GPU has or the kernel cannot be resident at that block
 * size (occupancy 0); EBUSY when already running. */
MARROW_API int marrow_softnic_device_start(struct marrow_softnic_device *dev);
/* Asks the kernel to stop and waits at most timeout_ns. ETIMEDOUT with the
 * engine's state in the message (docs/design/watchdog.md) when it did not;
 * the kernel still ends by max_run_ns. MARROW_OK when not running. */
MARROW_API int marrow_softnic_device_stop(struct marrow_softnic_device *dev, uint64_t timeout_ns);
MARROW_API int marrow_softnic_device_info(struct marrow_softnic_device *dev,
					  struct marrow_softnic_device_info *info);

/* Counters (MARROW_EMU_COUNTERS order, n >= MARROW_EMU_CTR_COUNT) summed
 * over engine threads: exact once stopped; while running, a live copy. */
MARROW_API int marrow_softnic_device_counters(struct marrow_softnic_device *dev, uint64_t *values, uint32_t n);
/* The engine's view of QP qp as one line of key=value pairs (watchdog). */
MARROW_API int marrow_softnic_device_dump(struct marrow_softnic_device *dev, uint32_t qp, char *buf,
					  uint32_t len);

/* ---- the device engine's ceiling ------------------------------------------
 * A feeder kernel (one GPU thread and block per QP) posts msgs_per_qp 8-byte
 * inline RDMA WRITEs on each of nqps loopback QPs, batch WQEs per doorbell,
 * the last of each batch signaled, at most the SQ (2^log_sq WQEBBs)
 * outstanding; the engine runs on nic_sms SMs. Timed on the GPU from the
 * first WQE to the last CQE. The engine's counters must show every WRITE
 * executed and no error CQE (else MARROW_EPROTO). Other producers (a
 * rate benchmark of their own) use the API above the same way. */
struct marrow_softnic_device_rate_config {
	uint32_t size;              /* sizeof(struct marrow_softnic_device_rate_config) */
	uint32_t comp_mask;         /* 0 */
	int32_t cuda_device;
	uint32_t nic_sms;
	uint32_t threads_per_sm;    /* 0 = exec_mode's default */
	uint32_t nqps;              /* 1..1024 */
	uint32_t log_sq;            /* 1..15 */
	uint32_t batch;             /* WQEs per doorbell, 1..2^log_sq */
	uint64_t msgs_per_qp;
	uint64_t timeout_ns;        /* bound of every feeder wait */
	uint32_t exec_mode;         /* enum marrow_softnic_device_exec */
	uint32_t reserved;          /* 0 */
};

struct marrow_softnic_device_rate_result {
	uint32_t size;              /* sizeof(struct marrow_softnic_device_rate_result) */
	uint32_t comp_mask;
	uint64_t messages;          /* WRITEs posted (and executed) */
	uint64_t elapsed_ns;        /* first WQE to last CQE, %globaltimer */
	uint64_t cqes;
	uint64_t engine_writes;     /* the engine's emu_wqe_rdma_write */
	uint64_t engine_error_cqes;
	uint64_t busy_passes, idle_passes;
	uint32_t nic_sms;
	uint32_t distinct_sms;      /* SMs the engine's blocks reported */
	uint32_t max_blocks_per_sm;
	uint32_t device_sms;
	int32_t status;
	uint32_t exec_mode;         /* as run (THREAD or LANE) */
	uint32_t threads_per_sm;    /* as run */
	uint32_t reserved;
};

MARROW_API int marrow_softnic_device_bench_rate(const struct marrow_softnic_device_rate_config *cfg,
						struct marrow_softnic_device_rate_result *res);

/* ---- where the device engine's latency goes ---------------------------------
 * One initiator thread (a block of its own) posts iters + warmup signaled
 * 8-byte RDMA WRITEs (inline, or one data segment from a registered GPU
 * buffer) one at a time on a loopback QP in GPU memory: WQE, DBR, then the
 * doorbell after a GPU-scope release fence (the gpu-fence ordering), then
 * it polls the CQE (acquire). It times each put+completion with %clock64
 * on its SM. The engine (nic_sms SMs) runs with its stage profile on:
 * engine thread 0 stamps %clock64 when it sees the doorbell slot non-zero,
 * takes the doorbell, has fetched the WQE, has executed it, and has written
 * the CQE (docs/design/device-engine.md §2.1). Medians of the measured
 * iterations (the warm-up's records are dropped), in SM cycles; the SM clock
 * for ns comes from %clock64 over %globaltimer across the profiled run. */
enum marrow_sndev_stage {
	MARROW_SNDEV_STAGE_TAKE = 0,     /* slot seen non-zero -> doorbell taken */
	MARROW_SNDEV_STAGE_FETCH = 1,    /* doorbell taken -> fetch done */
	MARROW_SNDEV_STAGE_EXEC = 2,     /* fetch done -> WQE executed */
	MARROW_SNDEV_STAGE_CQE = 3,      /* WQE executed -> CQE written */
	MARROW_SNDEV_STAGE_ENGINE = 4,   /* slot seen -> CQE written */
	MARROW_SNDEV_STAGE_COUNT = 5,
};

struct marrow_softnic_device_stages_config {
	uint32_t size;              /* sizeof(struct marrow_softnic_device_stages_config) */
	uint32_t comp_mask;         /* 0 */
	int32_t cuda_device;
	uint32_t nic_sms;           /* >= 1 */
	uint32_t pointer;           /* 0: inline payload, 1: one data segment */
	uint32_t iters;             /* measured WQEs, 1..60000 (and iters + warmup <= 65536) */
	uint32_t warmup;            /* WQEs before them */
	uint32_t exec_mode;         /* enum marrow_softnic_device_exec */
	uint64_t timeout_ns;        /* bound of each completion wait */
};

struct marrow_softnic_device_stages_result {
	uint32_t size;              /* sizeof(struct marrow_softnic_device_stages_result) */
	uint32_t comp_mask;
	uint32_t iters;             /* put+completions timed */
	uint32_t profiled;          /* engine records with all five stamps */
	uint64_t putc_p50_cycles;   /* initiator-visible put+completion, median */
	uint64_t putc_min_cycles;
	uint64_t stage_p50_cycles[MARROW_SNDEV_STAGE_COUNT];   /* enum marrow_sndev_stage */
	uint64_t sm_clock_khz;      /* %clock64 over %globaltimer on the engine's SM during the run */
	uint64_t sm_clock_khz_attribute;   /* cudaDevAttrClockRate (0 where the runtime has none) */
	uint64_t engine_writes;     /* the engine's emu_wqe_rdma_write */
	uint64_t engine_error_cqes;
	uint32_t initiator_smid, engine_smid;
	uint32_t device_sms;
	int32_t status;
};

MARROW_API int marrow_softnic_device_bench_stages(const struct marrow_softnic_device_stages_config *cfg,
						  struct marrow_softnic_device_stages_result *res);

#ifdef __cplusplus
}
#endif

#endif /* MARROW_SOFTNIC_DEVICE_H */
