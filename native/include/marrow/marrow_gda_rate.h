/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * mini-gda throughput: many posting threads over many RC QPs, batched
 * doorbells, unsignaled WQEs with periodic reclamation, three ways of
 * publishing WQEs on a shared SQ, the completion scope of a quiet, and
 * doorbells rung by a host thread for GPU-built WQEs (§4.3.1, Table 5,
 * Fig. 3b, Fig. 4 of "GPU-Initiated Communication: Dissecting Down to the
 * Bone"). What each experiment times: docs/design/methods.md ("mini-gda
 * message rate"). The posting algorithms are gda_rate_post.h (one source,
 * compiled for CUDA and for host C).
 *
 * Queues come as an array of struct marrow_gda_endpoint (marrow_gda.h), one
 * per QP, any backend's (software NIC, ConnectX views). Every QP must be
 * connected so that its writes land in [remote_addr, remote_addr+remote_len)
 * (all endpoints of one run name the same destination and source buffers);
 * the runner partitions that buffer into one slot range per posting thread
 * and checks every slot after the run (payload_errors).
 *
 * Every wait is bounded by cfg->timeout_ns; a timeout returns
 * MARROW_ETIMEDOUT with a watchdog dump (docs/design/watchdog.md) of the QP
 * it waited on in its library's last error (marrow_abi.h).
 */
#ifndef MARROW_GDA_RATE_H
#define MARROW_GDA_RATE_H

#include "marrow/marrow_gda.h"
#include "marrow/marrow_softnic_device.h"   /* enum marrow_softnic_device_exec (struct marrow_gda_rate_devnic) */

#ifdef __cplusplus
extern "C" {
#endif

/* How posting threads put WQEs on a (possibly shared) SQ. */
enum marrow_gda_rate_publication {
	/* per-thread, one SQ lock held from reservation to doorbell */
	MARROW_GDA_RATE_PUB_LOCK = 0,
	/* per-thread slot reservation (atomic add on the reservation counter),
	 * then in-order publication through the ready head before the doorbell */
	MARROW_GDA_RATE_PUB_SLOT = 1,
	/* warp-cooperative: one lane reserves the warp's run of slots, every
	 * lane fills its own, one lane publishes and rings once */
	MARROW_GDA_RATE_PUB_WARP = 2,
};

/* Which QP a posting thread uses. */
enum marrow_gda_rate_qp_map {
	MARROW_GDA_RATE_QP_PER_BLOCK = 0,  /* block b -> QP b % qps */
	MARROW_GDA_RATE_QP_PER_WARP = 1,   /* global warp w -> QP w % qps */
	MARROW_GDA_RATE_QP_PER_THREAD = 2, /* global thread t -> QP t % qps */
	MARROW_GDA_RATE_QP_SHARED = 3,     /* every poster rotates over all QPs, one QP per round */
};

/* Who stores the doorbell record and rings the doorbell. */
enum marrow_gda_rate_doorbell {
	MARROW_GDA_RATE_DB_DEVICE = 0, /* the posting thread */
	MARROW_GDA_RATE_DB_HOST = 1,   /* the poster publishes a host-visible producer index; a CPU thread rings */
};

enum marrow_gda_rate_experiment {
	/* message rate: every thread posts warmup + messages WQEs */
	MARROW_GDA_RATE_EXP_RATE = 0,
	/* completion scope: one thread, one signaled put per iteration on QP 0,
	 * then the scope's completion; one latency sample per iteration */
	MARROW_GDA_RATE_EXP_SCOPE = 1,
};

enum marrow_gda_rate_scope {
	MARROW_GDA_RATE_SCOPE_ALL_QP = 0,  /* walk every configured QP's completion state */
	MARROW_GDA_RATE_SCOPE_USED_QP = 1, /* only the QPs posted to since the last quiet */
	MARROW_GDA_RATE_SCOPE_PER_QP = 2,  /* the one QP named by the caller (QP 0) */
	MARROW_GDA_RATE_SCOPE_SIGNAL = 3,  /* signal round trip: a peer thread echoes a word (endpoint[qps]) */
};

/* Which posting path the rate kernels take (docs/design/methods.md, "mini-gda
 * message rate": the single-poster path). */
enum marrow_gda_rate_path {
	/* single-poster when every QP has at most one posting thread (known at
	 * launch from the QP mapping: LOCK/SLOT publication, not SHARED with
	 * several threads), else the shared-state path */
	MARROW_GDA_RATE_PATH_AUTO = 0,
	/* always the shared-state path (atomic reservation, ready head, reap
	 * try-lock): the path of every run before the single-poster one */
	MARROW_GDA_RATE_PATH_SHARED = 1,
	/* out only: the run took the single-poster path (queue state in the
	 * poster's registers, no atomics, amortised reclamation) */
	MARROW_GDA_RATE_PATH_SOLO = 2,
};

/* The largest pointer WRITE the rate runners post (gda goodput --posters
 * sweeps to it): one data segment; the destination must still hold one
 * slot per posting thread. The device engine (marrow_gda_rate_devnic_run)
 * keeps its own bound of 4096. */
#define MARROW_GDA_RATE_MAX_POINTER_SIZE (4u << 20)

struct marrow_gda_rate_config {
	uint32_t size;            /* sizeof(struct marrow_gda_rate_config) */
	uint32_t comp_mask;       /* 0 */
	uint32_t experiment;      /* enum marrow_gda_rate_experiment */
	uint32_t publication;     /* enum marrow_gda_rate_publication */
	uint32_t qp_map;          /* enum marrow_gda_rate_qp_map */
	uint32_t doorbell;        /* enum marrow_gda_rate_doorbell */
	uint32_t blocks;          /* 1..132 */
	uint32_t threads;         /* per block, 1..1024 */
	uint32_t qps;             /* 1..512 */
	uint32_t batch;           /* WQEs per doorbell, 1..256 */
	uint32_t signal_period;   /* every K-th WQE of a QP is signaled (>= 1) */
	uint32_t window;          /* outstanding WQEs per QP (>= batch; clipped to the SQ) */
	uint32_t payload;         /* enum marrow_gda_payload */
	uint32_t msg_size;        /* inline 8..220, pointer 8..MARROW_GDA_RATE_MAX_POINTER_SIZE */
	uint32_t scope;           /* enum marrow_gda_rate_scope (EXP_SCOPE) */
	uint32_t ordering;        /* enum marrow_gda_ordering of each publication */
	uint64_t messages;        /* RATE: timed WQEs per thread; SCOPE: timed iterations */
	uint64_t warmup;          /* untimed WQEs per thread / iterations first */
	uint64_t timeout_ns;      /* bound of every single wait (> 0) */
	int32_t cuda_device;      /* CUDA ordinal (cuda runner) */
	int32_t doorbell_cpu;     /* DB_HOST: pin the ringing thread to this CPU (-1: not pinned) */
	uint32_t path;            /* enum marrow_gda_rate_path: AUTO or SHARED */
	uint32_t reserved;        /* 0 */
};

struct marrow_gda_rate_result {
	uint32_t size;             /* sizeof(struct marrow_gda_rate_result) */
	uint32_t comp_mask;
	uint64_t messages;         /* timed WQEs posted (all threads) */
	uint64_t posts;            /* every WQE posted, warm-up included */
	uint64_t doorbells;        /* doorbells rung, warm-up included */
	uint64_t signaled;         /* signaled WQEs, warm-up included */
	uint64_t cqes;             /* CQEs consumed */
	uint64_t elapsed_ns;       /* RATE: first timed post of any thread -> last QP drained */
	uint64_t sq_full_waits;    /* reservations that had to wait for ring space / the window */
	uint64_t sq_full_ticks;    /* summed over threads: time spent in those waits */
	uint64_t publish_ticks;    /* summed: waiting for the lock (LOCK) or the ready head (SLOT, WARP) */
	uint64_t reap_ticks;       /* summed: reaping CQEs (polls included) */
	uint64_t post_ticks;       /* summed: each posting thread's timed span (the denominator of the
				    * shares; under WARP publication each warp's leader only) */
	uint64_t slots_checked;    /* destination slots compared after the run */
	uint64_t payload_errors;   /* slots holding wrong bytes */
	uint64_t host_rings;       /* DB_HOST: doorbells the CPU thread wrote */
	uint64_t host_polls;       /* DB_HOST: passes of the CPU thread over the producer indexes */
	uint32_t ticks_are_cycles; /* 1: *_ticks are GPU %clock64 cycles; 0: CPU nanoseconds */
	uint32_t signal_period_effective; /* min(signal_period, window - batch + 1): see gda_rate_post.h */
	uint32_t window_effective; /* min(window, SQ WQEs) */
	uint32_t wqebbs_per_wqe;
	int32_t status;            /* 0 or the failing status */
	uint32_t fail_thread;      /* global thread id whose wait failed */
	uint32_t fail_qp;          /* QP index it waited on */
	uint32_t fail_wait;        /* enum gda_rate_wait of gda_rate_post.h */
	int32_t cuda_error;
	uint32_t path;             /* enum marrow_gda_rate_path as run: SHARED or SOLO */
	uint64_t fence_ticks;      /* summed: the publication (the ordering's fence, doorbell record, doorbell) */
	uint64_t wqe_ticks;        /* summed: building and storing the WQEs (issue only: the stores drain
				    * in the fence after them) */
};

/*
 * CPU executor (libmarrow_host.so): each GPU warp of the configuration is
 * one pthread (WARP publication: it plays the warp's lanes in lock step)
 * or, for LOCK and SLOT, each GPU thread is one pthread; they run the same
 * gda_rate_post.h steps against the same queues. eps[0..n_eps): n_eps ==
 * qps (RATE) or qps + 1 (SCOPE; endpoint[qps] is the signal peer's QP).
 * samples_ns: SCOPE only, cfg->messages entries. MARROW_EINVAL for a bad
 * configuration (named in the message) before anything is posted;
 * MARROW_ETIMEDOUT / MARROW_EIO / MARROW_EPROTO from the run.
 */
MARROW_API int marrow_gda_rate_cpu_run(const struct marrow_gda_rate_config *cfg,
				       const struct marrow_gda_endpoint *eps, uint32_t n_eps,
				       uint64_t *samples_ns, struct marrow_gda_rate_result *res);

/* The same on a GPU (libmarrow_cuda.so): blocks x threads, the queue
 * memory mapped into the GPU per run; SCOPE runs the signal peer in
 * block 1. MARROW_ENODEV without a GPU. */
MARROW_API int marrow_gda_rate_cuda_run(const struct marrow_gda_rate_config *cfg,
					const struct marrow_gda_endpoint *eps, uint32_t n_eps,
					uint64_t *samples_ns, struct marrow_gda_rate_result *res);


/* ---- the rate kernels against the software NIC's device engine ----------
 * marrow_gda_rate_devnic_run (libmarrow_cuda.so) builds the queues itself:
 * qps loopback RC QPs (qps + 1 for SCOPE), one send CQ each, and the source
 * and destination buffers, all in cudaMalloc memory, served by the device
 * engine (marrow_softnic_device.h) on nic_sms SMs. It starts the engine,
 * runs the rate kernel on a non-blocking stream (nothing waits on the
 * persistent engine kernel), stops the engine within stop_timeout_ns and
 * checks every destination slot as the other targets do. Doorbells are rung
 * by the posting GPU threads (DB_HOST is refused: the doorbell records live
 * in GPU memory). Results are emulated NIC on a real GPU. */
struct marrow_gda_rate_devnic {
	uint32_t size;              /* sizeof(struct marrow_gda_rate_devnic) */
	uint32_t comp_mask;         /* 0 */
	uint32_t nic_sms;           /* in: SMs (blocks) of the engine kernel, >= 1 */
	uint32_t threads_per_sm;    /* in: engine threads per block (0 = the engine layout's default) */
	uint32_t log_sq;            /* in: SQ WQEBBs per QP = 2^log_sq (1..15) */
	uint32_t max_inline_data;   /* in: of every QP (>= msg_size when inline) */
	uint64_t stop_timeout_ns;   /* in: bound of the engine stop (> 0) */
	uint32_t distinct_sms;      /* out: distinct SMs the engine blocks reported */
	uint32_t max_blocks_per_sm; /* out: engine kernel occupancy */
	uint32_t device_sms;        /* out: SMs of the GPU */
	uint32_t shared_sms;        /* out: 1 when blocks + nic_sms > device_sms (rate blocks share SMs with the engine) */
	uint32_t exec_mode;         /* out: the engine layout as run (enum marrow_softnic_device_exec) */
	uint32_t threads_per_sm_run; /* out: engine threads per SM as run */
};

/* counters: n_counters >= MARROW_EMU_CTR_COUNT, the engine's counters
 * (MARROW_EMU_COUNTERS order) after the stop. MARROW_ENODEV without a GPU,
 * MARROW_EINVAL for a bad configuration (named), else as the cuda runner. */
MARROW_API int marrow_gda_rate_devnic_run(const struct marrow_gda_rate_config *cfg,
					  struct marrow_gda_rate_devnic *dn, uint64_t *samples_ns,
					  struct marrow_gda_rate_result *res, uint64_t *counters,
					  uint32_t n_counters);

#ifdef __cplusplus
}
#endif

#endif /* MARROW_GDA_RATE_H */
