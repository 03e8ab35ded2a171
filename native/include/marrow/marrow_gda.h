/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * mini-gda: single-operation costs of RDMA WRITEs submitted by the thread
 * that owns an mlx5 RC queue pair (§4.1 and Tables 3-4 of the paper
 * "GPU-Initiated Communication: Dissecting Down to the Bone"). What each
 * experiment times: docs/design/methods.md §2.
 *
 * The queues are described by views (struct marrow_qp_view / marrow_cq_view
 * of marrow_softnic.h), so any backend that owns mlx5-format queues plugs
 * in: the software NIC, and a ConnectX QP of libmarrow_verbs.so whose views
 * come from mlx5dv_init_obj (marrow_mlx5.h; docs/design/mlx5-queue-formats.md
 * §5.1). A backend fills one struct marrow_gda_endpoint per QP; the runners
 * below only ever touch the memory the views and addresses name.
 *
 * Runners (the timed loops stay in C/CUDA, never in Java):
 *  - marrow_gda_cpu_run (libmarrow_host.so): CPU threads play the device
 *    threads, timing with CLOCK_MONOTONIC_RAW;
 *  - marrow_gda_cuda_run (libmarrow_cuda.so): one GPU thread posts, timing
 *    with %globaltimer, plus %clock64 for the effective SM clock; the host
 *    memory of the views is cudaHostRegister'ed (mapped, portable) per run.
 * Both run the algorithm of gda_post.h.
 *
 * Experiments (one thread, at most one outstanding put):
 *  ISSUE       t0 before the WQE is built, t1 after the doorbell store;
 *              the completion is then awaited untimed.
 *  PUT_COMPLETION  t0 as above, t1 after the CQE was polled and consumed.
 *  ROUND_TRIP  t0 as above, t1 when the peer's write-back of the data word
 *              is seen in the initiator's inbox. The peer (a second thread:
 *              a CPU thread / a second GPU block) polls its inbox for the
 *              word and writes it back through its own QP; it needs
 *              msg_size == 8.
 *  DB2CQE      doorbell to CQE: t0 right after the doorbell store, t1 when
 *              the posting thread's poll first sees the valid CQE (owner bit
 *              flipped / counter reached), before it is consumed; what the
 *              doorbell's delivery, the NIC's work and the CQE write take.
 * ROUND_TRIP's peer waits responder_delay_ns after seeing the ping, by its
 * own clock, before answering (0: at once): the timer check shifts the
 * round trip by a known delay.
 * Untimed in every experiment: writing the iteration's payload (into the
 * inline staging words or the registered source buffer) before t0, and
 * after t1 the rest of the completion plus validation of the destination
 * bytes, the CQE (opcode, QPN, wqe_counter) and, for round trip, the reply.
 *
 * Every wait is bounded by cfg->timeout_ns: MARROW_ETIMEDOUT, with the
 * iteration and what was seen in its library's last error (marrow_abi.h);
 * a kernel never hangs.
 */
#ifndef MARROW_GDA_H
#define MARROW_GDA_H

#include "marrow/marrow_abi.h"
#include "marrow/marrow_softnic.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The paper's Table 4 (docs/design/orderings.md); same values as enum
 * gda_ordering in gda_post.h. */
enum marrow_gda_ordering {
	MARROW_GDA_ORD_NONE = 0,
	MARROW_GDA_ORD_GPU_FENCE = 1,
	MARROW_GDA_ORD_GPU_FENCE_DBREC = 2,
	MARROW_GDA_ORD_RELEASE_GPU = 3,
	MARROW_GDA_ORD_THREADFENCE = 4,
	MARROW_GDA_ORD_RELEASE_SYS = 5,
	MARROW_GDA_ORD_FENCE_SYS = 6,
};

enum marrow_gda_payload {
	MARROW_GDA_PAYLOAD_INLINE = 0,
	MARROW_GDA_PAYLOAD_POINTER = 1,
};

enum marrow_gda_experiment {
	MARROW_GDA_EXP_ISSUE = 0,
	MARROW_GDA_EXP_PUT_COMPLETION = 1,
	MARROW_GDA_EXP_ROUND_TRIP = 2,
	MARROW_GDA_EXP_DB2CQE = 3,
};

/* Where the SQ/CQ/DBR memory lives. HOST: host memory (the software NIC's
 * CPU engine, verbs QPs). GPU: GPU memory: the software NIC's device engine
 * (marrow_gda_devnic_open; its data buffers are GPU memory too), or DevX QPs
 * on mlx5 (marrow_mlx5_gpu_qp_open), recognised by MARROW_GDA_EP_UAR_MMIO,
 * whose data buffers are host memory the runner maps as on HOST. Only the
 * CUDA runner reaches GPU placement (the CPU runner answers MARROW_EINVAL). */
enum marrow_gda_placement {
	MARROW_GDA_PLACEMENT_HOST = 0,
	MARROW_GDA_PLACEMENT_GPU = 1,
};

enum marrow_gda_endpoint_flags {
	/* qp->uar is device MMIO (a ConnectX UAR), not host RAM: the CUDA runner
	 * maps it with marrow_cuda_host_register(io_memory = 1), which needs the
	 * PeerMappingOverride=1 driver regkey. The software NIC's mailbox is RAM. */
	MARROW_GDA_EP_UAR_MMIO = 1,
	/* remote_addr lies in ANOTHER HOST's address space (two PEs, --peer):
	 * the runner puts it into WQEs only; it never maps it into the GPU nor
	 * reads it, so the initiator skips its per-iteration payload check
	 * (payload_errors stays 0: the destination's owner validates the final
	 * bytes, see marrow_gda_*_serve). For ROUND_TRIP the peer endpoint must
	 * then be NULL: the peer role runs on the other host. */
	MARROW_GDA_EP_REMOTE_DST = 2,
};

/* One QP as a poster sees it. The data buffers are host memory that the
 * backend registered: local (lkey) is the pointer-form source and also
 * where the peer's writes arrive (inbox, round trip); remote (rkey) is the
 * write target. */
struct marrow_gda_endpoint {
	uint32_t size;              /* sizeof(struct marrow_gda_endpoint) */
	uint32_t comp_mask;         /* 0 */
	uint32_t placement;         /* enum marrow_gda_placement of qp/cq memory */
	uint32_t lkey;
	const struct marrow_qp_view *qp;
	const struct marrow_cq_view *cq;  /* the QP's send CQ */
	uint64_t local_addr;        /* source buffer (pointer form) */
	uint64_t local_len;
	uint64_t inbox_addr;        /* 8-byte word the peer writes (round trip) */
	uint64_t remote_addr;       /* destination of this endpoint's writes */
	uint64_t remote_len;
	uint32_t rkey;
	uint32_t flags;             /* enum marrow_gda_endpoint_flags */
};

struct marrow_gda_config {
	uint32_t size;              /* sizeof(struct marrow_gda_config) */
	uint32_t comp_mask;         /* 0 */
	uint32_t experiment;        /* enum marrow_gda_experiment */
	uint32_t ordering;          /* enum marrow_gda_ordering */
	uint32_t payload;           /* enum marrow_gda_payload */
	uint32_t msg_size;          /* bytes per WRITE (>= 1) */
	uint64_t iters;             /* timed iterations (>= 1) */
	uint64_t warmup;            /* untimed iterations first */
	uint64_t timeout_ns;        /* bound of every single wait (> 0) */
	int32_t cuda_device;        /* CUDA ordinal (cuda runner only) */
	uint32_t responder_delay_ns; /* ROUND_TRIP: the peer's wait before answering (timer check) */
};

/* What the runner observed; filled on success and on failure. */
struct marrow_gda_result {
	uint32_t size;              /* sizeof(struct marrow_gda_result) */
	uint32_t comp_mask;
	uint64_t iters_done;        /* iterations completed, warm-up included */
	uint64_t posts;             /* WQEs posted by the initiator */
	uint64_t doorbells;         /* doorbell stores by the initiator */
	uint64_t cqes;              /* CQEs consumed by the initiator */
	uint64_t peer_posts;        /* round trip: WQEs (= doorbells = CQEs) of the peer */
	uint64_t payload_errors;    /* iterations whose destination bytes were wrong */
	uint64_t timed_ns;          /* globaltimer/CLOCK_MONOTONIC_RAW span of the timed loop */
	uint64_t timed_cycles;      /* %clock64 span of the timed loop (GPU; 0 on CPU) */
	uint32_t wqebbs_per_wqe;
	uint32_t ds;                /* ds of each WQE */
	int32_t status;             /* 0 or the failing status */
	uint32_t fail_iter;         /* iteration that failed (when status != 0) */
	uint32_t cqe_opcode;        /* what the failed wait saw */
	uint32_t cqe_syndrome;
	uint32_t cqe_vendor_syndrome;
	uint32_t cqe_wqe_counter;
	uint32_t expected_wqe_counter;
	int32_t cuda_error;         /* cudaError_t of a failed CUDA call (cuda runner) */
};

/*
 * Runs one experiment on the CPU. samples_ns[0..iters) receives one sample
 * per timed iteration. peer is required for ROUND_TRIP (its QP connected to
 * ep's), ignored otherwise; with MARROW_GDA_EP_REMOTE_DST on ep it must be
 * NULL for ROUND_TRIP (the peer answers from the other host). Returns MARROW_OK; MARROW_EINVAL / MARROW_ERANGE
 * (inline longer than the QP's max_inline_data) / MARROW_ENOSYS (placement
 * gpu) before anything is posted; MARROW_ETIMEDOUT, MARROW_EIO (error CQE),
 * MARROW_EPROTO (unexpected CQE) or MARROW_EPROTO with payload_errors > 0
 * (wrong bytes delivered) from the run. *res is filled in every case.
 */
/* Checks a run's parameters alone (experiment, ordering, payload, size, iters, warm-up, timeout):
 * MARROW_EINVAL with the reason. Both runners run the same check first; it is the one place these
 * limits are enforced (libmarrow_host.so). */
MARROW_API int marrow_gda_config_check(const struct marrow_gda_config *cfg);

MARROW_API int marrow_gda_cpu_run(const struct marrow_gda_config *cfg,
				  const struct marrow_gda_endpoint *ep,
				  const struct marrow_gda_endpoint *peer,
				  uint64_t *samples_ns, struct marrow_gda_result *res);

/*
 * Same on a GPU (libmarrow_cuda.so): block 0 / thread 0 posts; for
 * ROUND_TRIP block 1 / thread 0 is the peer. samples_cycles (may be NULL)
 * receives the %clock64 span of each sample. MARROW_ENODEV without a GPU,
 * MARROW_EIO with res->cuda_error set when a CUDA call fails.
 */
MARROW_API int marrow_gda_cuda_run(const struct marrow_gda_config *cfg,
				   const struct marrow_gda_endpoint *ep,
				   const struct marrow_gda_endpoint *peer,
				   uint64_t *samples_ns, uint64_t *samples_cycles,
				   struct marrow_gda_result *res);

/*
 * The peer role alone (two hosts): the round-trip responder. For iteration
 * it = 0 .. warmup+iters-1 it polls ep->inbox_addr for the data word of it
 * (the initiator's ping), writes the same 8 bytes back through ep's QP to
 * ep->remote_addr (the initiator's inbox, normally flagged
 * MARROW_GDA_EP_REMOTE_DST; it is never mapped or read here) and waits for
 * its CQE. The known iteration count is the stop condition; every wait is
 * bounded by cfg->timeout_ns (MARROW_ETIMEDOUT naming the iteration when the
 * initiator's ping does not come). cfg->experiment must be ROUND_TRIP and
 * msg_size 8. res: iters_done (pings answered), peer_posts (= posts = CQEs),
 * status, fail_iter, the CQE fields of a failed wait. The CPU twin
 * (libmarrow_host.so) runs it on the calling thread; the CUDA one
 * (libmarrow_cuda.so) in one GPU thread, the same device code as the
 * one-process peer (block 1 of marrow_gda_cuda_run).
 */
MARROW_API int marrow_gda_cpu_serve(const struct marrow_gda_config *cfg,
				    const struct marrow_gda_endpoint *ep,
				    struct marrow_gda_result *res);
MARROW_API int marrow_gda_cuda_serve(const struct marrow_gda_config *cfg,
				     const struct marrow_gda_endpoint *ep,
				     struct marrow_gda_result *res);

/* Selects the CUDA device and creates its primary context, so that the first
 * timed run (or a responder's first serve) does not pay for it inside a
 * peer's bounded wait. MARROW_ENODEV without a usable GPU. */
MARROW_API int marrow_gda_cuda_prepare(int cuda_device);

/*
 * GPU-resident queues on the software NIC's device engine
 * (marrow_softnic_device.h; docs/design/device-engine.md), libmarrow_cuda.so:
 * opens a device engine on nic_sms SMs, two QPs A <-> B with one send CQ
 * each (log sizes as given; cq_flags of enum marrow_emu_cq_flags), their
 * SQ, CQ, DBRs and doorbell pages in cudaMalloc memory, four buffers of
 * buffer_bytes in GPU memory (A's and B's source and inbox, registered),
 * starts the engine and fills *a and *b (placement GPU) for
 * marrow_gda_cuda_run. MARROW_ENODEV without a GPU.
 */
struct marrow_gda_devnic;
MARROW_API int marrow_gda_devnic_open(int32_t cuda_device, uint32_t nic_sms, uint32_t log_sq_wqebb_cnt,
				      uint32_t log_cqe_cnt, uint32_t cq_flags, uint32_t max_inline_data,
				      uint64_t buffer_bytes, struct marrow_gda_devnic **out,
				      struct marrow_gda_endpoint *a, struct marrow_gda_endpoint *b);
/* Stops the engine (bounded) and frees everything. */
MARROW_API int marrow_gda_devnic_close(struct marrow_gda_devnic *n);
/* The engine under the session, for marrow_softnic_device_counters/_info/_dump. */
MARROW_API struct marrow_softnic_device *marrow_gda_devnic_device(struct marrow_gda_devnic *n);
/* The SMs the engine's blocks ran on (distinct %smid) and the engine
 * kernel's occupancy (blocks per SM) at its block size. */
MARROW_API int marrow_gda_devnic_sms(struct marrow_gda_devnic *n, uint32_t *distinct_sms,
				     uint32_t *max_blocks_per_sm);
/* How the engine laid out its engine threads, as run: *exec_mode is enum
 * marrow_softnic_device_exec resolved (THREAD or LANE), *threads_per_sm the
 * engine threads per SM (docs/design/device-engine.md §2.4). */
MARROW_API int marrow_gda_devnic_layout(struct marrow_gda_devnic *n, uint32_t *exec_mode, uint32_t *threads_per_sm);
/* Copies len bytes of GPU buffer 0..3 (A source, B source, A inbox, B inbox)
 * to dst (validation from the host). */
MARROW_API int marrow_gda_devnic_read(struct marrow_gda_devnic *n, uint32_t buffer, void *dst, uint64_t len);

/* Name of an ordering variant ("gpu-fence", ...) or NULL. */
MARROW_API const char *marrow_gda_ordering_name(int ordering);

#ifdef __cplusplus
}
#endif

#endif /* MARROW_GDA_H */
