/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * mini-proxy: CPU-proxy submission. Producers (GPU threads, or CPU threads
 * standing in for them) publish 16-byte descriptors (proxy_ring.h) into R
 * rings in pinned host memory; T pinned worker threads drain them, post up
 * to B requests as one chain on their QP (software NIC: B WQEs + one
 * doorbell; verbs: one ibv_post_send of linked WRs), signal the last WQE of
 * each chain, poll their CQ and publish per-ring completion counters.
 *
 * Library: libmarrow_host.so (workers, CPU producers, both backends).
 * GPU producers live in libmarrow_cuda.so (marrow_proxy_cuda_* below).
 *
 * Memory model of the experiments: one registered buffer (loopback). Its
 * first half stands for PE 0, its second half for PE 1; descriptors carry
 * offsets from the buffer base for both the local and the remote side.
 * Inside each half: [0, 8192) latency area (64 source slots of 64 B, then a
 * flag word at 4096), [8192, ...) rate windows (ring r, slot j at
 * 8192 + (r * slots + j) * msg_size). marrow_proxy_buffer_bytes() sizes it.
 *
 * Object lifetime: create -> attach (one QP per worker) -> [set_cpl_target]
 * -> start -> produce/measure -> stop -> destroy. stop joins the workers
 * before destroy releases backend queues, so no worker touches a QP, CQ or
 * the memory after they are gone.
 */
#ifndef MARROW_PROXY_H
#define MARROW_PROXY_H

#include "marrow/marrow_abi.h"
#include "marrow/marrow_mlx5.h" /* struct marrow_mlx5_peer_info: the peer exchange of verbs QPs */

#ifdef __cplusplus
extern "C" {
#endif

struct marrow_proxy;

enum {
	MARROW_PROXY_MAX_WORKERS = 64,
	MARROW_PROXY_MAX_RINGS = 1024,
	MARROW_PROXY_MAX_BATCH = 256,
	MARROW_PROXY_AREA_LAT = 8192,   /* bytes of latency area per PE half */
	MARROW_PROXY_FLAG_OFF = 4096,   /* flag word inside the latency area */
};

enum marrow_proxy_handoff {
	MARROW_PROXY_BASELINE = 0, /* atomic slot reservation, progress read every time, release publish */
	MARROW_PROXY_TUNED = 1,    /* one producer per ring, cached progress, one 16-byte store */
};

enum marrow_proxy_backend {
	MARROW_PROXY_BACKEND_NONE = 0,
	MARROW_PROXY_BACKEND_SOFTNIC = 1,
	MARROW_PROXY_BACKEND_VERBS = 2,
};

struct marrow_proxy_config {
	uint32_t size;             /* sizeof(struct marrow_proxy_config) */
	uint32_t comp_mask;        /* 0 */
	uint32_t workers;          /* T: 1..64 */
	uint32_t rings;            /* R: >= T; ring r is drained by worker r % T */
	uint32_t log_slots;        /* slots per ring = 2^log_slots (1..20) */
	uint32_t batch;            /* B: most requests chained into one post (1..256) */
	uint32_t handoff;          /* enum marrow_proxy_handoff (CPU producers) */
	uint32_t check_order;      /* 1: worker checks desc tag == ring position & 0x7fff */
	int32_t cpus[MARROW_PROXY_MAX_WORKERS]; /* worker w pinned to cpus[w]; -1 = not pinned */
	uint32_t yield_idle;       /* 1: workers, CPU producers and the responder sched_yield() instead of
				    * spinning when they find nothing to do (more spinners than cores) */
};

/* The registered buffer (loopback: local and remote are the same memory). */
struct marrow_proxy_memory {
	uint32_t size;             /* sizeof(struct marrow_proxy_memory) */
	uint32_t comp_mask;
	uint64_t base;             /* host address */
	uint64_t len;
	uint32_t lkey;             /* softnic keys; verbs registers the buffer itself */
	uint32_t rkey;
};

/* One software-NIC QP and its send CQ, as marrow_qp_view / marrow_cq_view give them. */
struct marrow_proxy_softnic_qp {
	uint32_t size;             /* sizeof(struct marrow_proxy_softnic_qp) */
	uint32_t comp_mask;
	uint32_t qpn;
	uint32_t sq_wqe_cnt;       /* WQEBBs, power of two */
	uint32_t max_inline;
	uint32_t cqe_cnt;          /* power of two, >= sq_wqe_cnt */
	void *sq_buf;
	uint32_t *sq_dbrec;        /* 2 x BE32, [1] = SQ counter */
	void *uar;
	void *cq_buf;
	uint32_t *cq_dbrec;        /* [0] = consumer index */
	/* Target of the WRITEs when remote_len > 0: memory of another process
	 * (its address and rkey, e.g. an inbox exported over the shared-memory
	 * wire, docs/design/two-process.md section 9). remote_len must cover
	 * the registered buffer, since remote offsets range over it. 0: loopback,
	 * the WRITEs land in the registered buffer itself. */
	uint64_t remote_base;
	uint64_t remote_len;
	uint32_t remote_rkey;
	uint32_t reserved;
};

struct marrow_proxy_worker_stats {
	uint32_t size;             /* sizeof(struct marrow_proxy_worker_stats) */
	uint32_t comp_mask;
	int32_t cpu;               /* core the worker ran on (sched_getcpu at start) */
	uint32_t state;            /* enum mpr_worker_state */
	uint64_t requests;         /* descriptors posted */
	uint64_t chains;           /* posts (doorbells / ibv_post_send calls) */
	uint64_t polls;            /* loop passes */
	uint64_t empty_polls;      /* passes that found no descriptor */
	uint64_t cqes;             /* CQEs consumed */
	uint64_t sq_full;          /* passes that found the SQ full */
	uint64_t freq_before_khz;  /* scaling_cur_freq at the last marrow_proxy_mark(0); 0 = not exposed */
	uint64_t freq_after_khz;   /* ... at the last marrow_proxy_mark(1) */
	int32_t error;             /* status that stopped the worker, 0 if none */
	uint32_t reserved;
};

/* Checks a configuration against the limits above (MARROW_EINVAL with the reason); marrow_proxy_create
 * runs the same check. The one place these limits are enforced. */
MARROW_API int marrow_proxy_config_check(const struct marrow_proxy_config *cfg);
MARROW_API int marrow_proxy_create(const struct marrow_proxy_config *cfg,
				   const struct marrow_proxy_memory *mem, struct marrow_proxy **out);
/* Gives worker `worker` its software-NIC QP (connected, RTS). */
MARROW_API int marrow_proxy_attach_softnic(struct marrow_proxy *px, uint32_t worker,
					   const struct marrow_proxy_softnic_qp *qp);
/* Opens `device` (NULL: the first) through a dlopened libibverbs, registers
 * the buffer and gives every worker a loopback RC QP. ENODEV with the reason
 * when there is no library or no device. chosen (may be NULL) receives the
 * device name. */
MARROW_API int marrow_proxy_attach_verbs(struct marrow_proxy *px, const char *device,
					 char *chosen, uint32_t chosen_len);
/* The same with the SQ size: 2^log_sq WQEBBs (MARROW_LOG_SQ_MIN..MAX, as on
 * the software NIC), asked of verbs as max_send_wr = 2^log_sq / 2 (the
 * largest WRITE a worker posts, 64 B inline, takes 2 WQEBBs; 0 WRs: EINVAL).
 * *send_wr (may be NULL) = the max_send_wr asked; *send_wr_granted (may be
 * NULL) = the smallest max_send_wr ibv_create_qp granted over the workers
 * (it may round up). Workers keep at most the asked number outstanding.
 * marrow_proxy_attach_verbs asks for log_sq 11 (1024 WRs). */
MARROW_API int marrow_proxy_attach_verbs_sq(struct marrow_proxy *px, const char *device, uint32_t log_sq,
					    char *chosen, uint32_t chosen_len, uint32_t *send_wr,
					    uint32_t *send_wr_granted);
/*
 * Two hosts over verbs (docs/design/two-process.md section 10): as
 * marrow_proxy_attach_verbs_sq, but every worker's RC QP stays in RESET until
 * marrow_proxy_verbs_connect joins it to a QP of the other host's proxy.
 * marrow_proxy_verbs_local describes worker w's QP and the registered buffer
 * (qpn, psn, lid or gid, mtu, and addr/len/rkey of the buffer the peer may
 * write) for the peer exchange; marrow_proxy_verbs_connect takes the peer's
 * description: INIT -> RTR -> RTS towards its QP, and the worker's WRITEs
 * then go to the peer's buffer (peer->addr + remote offset, peer->rkey), so
 * peer->len must cover this side's buffer. ENODEV with the reason when there
 * is no library or no device; EINVAL when the proxy has no verbs peer QPs.
 */
MARROW_API int marrow_proxy_attach_verbs_peer(struct marrow_proxy *px, const char *device, uint32_t log_sq,
					      char *chosen, uint32_t chosen_len, uint32_t *send_wr,
					      uint32_t *send_wr_granted);
MARROW_API int marrow_proxy_verbs_local(struct marrow_proxy *px, uint32_t worker,
					struct marrow_mlx5_peer_info *out);
MARROW_API int marrow_proxy_verbs_connect(struct marrow_proxy *px, uint32_t worker,
					  const struct marrow_mlx5_peer_info *peer);
/* Whether `device` (NULL: the first) can be opened with an ACTIVE port 1,
 * before any rendezvous: ENODEV with the reason if not. chosen (may be NULL)
 * receives the device name. */
MARROW_API int marrow_proxy_verbs_probe(const char *device, char *chosen, uint32_t chosen_len);
/* Redirects ring `ring`'s completion counter to *target (e.g. GPU memory
 * mapped through GDRCopy). Before start only. NULL restores the default. */
MARROW_API int marrow_proxy_set_cpl_target(struct marrow_proxy *px, uint32_t ring, uint64_t *target);
/* Pins worker w to cpus[w] (n entries; -1 = not pinned). Before start only. */
MARROW_API int marrow_proxy_set_cpus(struct marrow_proxy *px, const int32_t *cpus, uint32_t n);
MARROW_API int marrow_proxy_start(struct marrow_proxy *px);
/* Stops and joins every worker (bounded: workers check the flag every pass). Idempotent. */
MARROW_API int marrow_proxy_stop(struct marrow_proxy *px);
/* Stops, then releases backend queues, then the arena. */
MARROW_API int marrow_proxy_destroy(struct marrow_proxy *px);

/* The ring arena (proxy_ring.h layout) for GPU producers to map. */
MARROW_API int marrow_proxy_arena(struct marrow_proxy *px, void **base, uint64_t *bytes);
MARROW_API int marrow_proxy_worker_stats(struct marrow_proxy *px, uint32_t worker,
					 struct marrow_proxy_worker_stats *out);
/* Marks the start (end = 0) or the end (1) of a measured window: snapshots
 * every worker's counters and reads its core's scaling_cur_freq into
 * freq_before_khz / freq_after_khz. The CPU experiments mark their timed
 * region themselves; callers timing GPU producers mark around the call. */
MARROW_API int marrow_proxy_mark(struct marrow_proxy *px, int end);
/* Worker counters between the last two marks (freq fields as recorded). */
MARROW_API int marrow_proxy_worker_window(struct marrow_proxy *px, uint32_t worker,
					  struct marrow_proxy_worker_stats *out);
/* Lets the workers spin for ns before measuring (warm cores). */
MARROW_API int marrow_proxy_precondition(struct marrow_proxy *px, uint64_t ns);
/* Bytes of buffer the experiments need for these parameters. */
MARROW_API int marrow_proxy_buffer_bytes(uint32_t rings, uint32_t log_slots, uint32_t msg_size,
					 uint64_t *out);
/* CPUs of the NUMA node of RDMA device `ibdev` (sysfs); ENOENT when unknown. */
MARROW_API int marrow_proxy_nic_cpus(const char *ibdev, int32_t *cpus, uint32_t max, uint32_t *n);

/* ---- CPU producers ------------------------------------------------------- */

/* Publishes one WRITE descriptor on `ring` with the proxy's handoff. tuned
 * requires that only one thread ever produces on this ring. Waits at most
 * timeout_ns for a free slot (ETIMEDOUT, naming the worker's state).
 * *ticket (may be NULL) = the request's ring position. A baseline enqueue
 * that times out has already reserved its position, which stays unpublished:
 * the ring cannot deliver past it (the worker would wait there), so treat
 * that timeout as fatal for the ring. */
MARROW_API int marrow_proxy_enqueue(struct marrow_proxy *px, uint32_t ring, uint32_t local_off,
				    uint32_t remote_off, uint32_t size, uint32_t tag,
				    uint64_t timeout_ns, uint64_t *ticket);
/* Waits until ring's completion counter >= count (ETIMEDOUT after timeout_ns). */
MARROW_API int marrow_proxy_wait(struct marrow_proxy *px, uint32_t ring, uint64_t count,
				 uint64_t timeout_ns);
MARROW_API int marrow_proxy_ring_counters(struct marrow_proxy *px, uint32_t ring, uint64_t *tail,
					  uint64_t *cpl);

struct marrow_proxy_latency_params {
	uint32_t size;             /* sizeof(struct marrow_proxy_latency_params) */
	uint32_t comp_mask;
	uint32_t iters;
	uint32_t warmup;
	uint32_t msg_size;         /* 8 .. 64 */
	uint32_t reserved;
	uint64_t timeout_ns;       /* bound of every wait */
};

/* One CPU producer thread, one request at a time, on ring 0; the responder
 * (PE 1) answers on ring 1, so rings >= 2. Timed in C with CLOCK_MONOTONIC_RAW.
 *  issue_ns[i]: enqueue call (reserve + write + publish);
 *  putc_ns[i]:  enqueue start -> ring 0 completion counter covers it;
 *  rtt_ns[i]:   enqueue start -> PE 1's reply lands in PE 0's flag word.
 * Any of the sample arrays may be NULL to skip that phase. */
MARROW_API int marrow_proxy_cpu_latency(struct marrow_proxy *px,
					const struct marrow_proxy_latency_params *p,
					uint64_t *issue_ns, uint64_t *putc_ns, uint64_t *rtt_ns);

struct marrow_proxy_rate_params {
	uint32_t size;             /* sizeof(struct marrow_proxy_rate_params) */
	uint32_t comp_mask;
	uint32_t producers;        /* CPU producer threads; tuned: <= rings */
	uint32_t msg_size;         /* bytes per WRITE (8 in the mini-proxy experiment of
	                              "GPU-Initiated Communication: Dissecting Down to the Bone") */
	uint64_t messages;         /* per producer, timed */
	uint64_t warmup;           /* per producer, before the timed region */
	uint64_t timeout_ns;
};

/* The one check of an experiment's parameters (the runners call it too): MARROW_EINVAL with the
 * reason. gpu_producer 1: the limits of the GPU producers (8-byte messages). For a rate check before
 * the producers are counted, pass producers 1 and the totals. */
MARROW_API int marrow_proxy_latency_check(const struct marrow_proxy_latency_params *p, uint32_t gpu_producer);
MARROW_API int marrow_proxy_rate_check(const struct marrow_proxy_rate_params *p);

struct marrow_proxy_rate_result {
	uint32_t size;             /* sizeof(struct marrow_proxy_rate_result) */
	uint32_t comp_mask;
	uint64_t messages;         /* completed in the timed region */
	uint64_t elapsed_ns;       /* first enqueue -> last completion */
	uint64_t ring_full_waits;  /* enqueues that found the ring full */
	uint64_t cache_refreshes;  /* tuned: reloads of the worker's progress */
	uint64_t verify_errors;    /* destination bytes differing from the source after the run */
};

/* Many producers, many outstanding requests, 8-byte writes into per-ring
 * windows; verifies the destination windows afterwards. */
MARROW_API int marrow_proxy_cpu_rate(struct marrow_proxy *px, const struct marrow_proxy_rate_params *p,
				     struct marrow_proxy_rate_result *r);

/* Starts/stops PE 1's responder thread used by RTT measurements of GPU
 * producers: it watches PE 1's flag word and, on each new value, writes the
 * value back to PE 0's flag word through ring `ring` (CPU producer). */
MARROW_API int marrow_proxy_responder_start(struct marrow_proxy *px, uint32_t ring, uint32_t msg_size);
MARROW_API int marrow_proxy_responder_stop(struct marrow_proxy *px);

/* ---- GPU producers (libmarrow_cuda.so) ---------------------------------- */

struct marrow_proxy_cuda_ctx;

enum marrow_proxy_cpl_kind {
	MARROW_PROXY_CPL_HOST = 0,         /* counter in pinned host memory (GPU reads over PCIe) */
	MARROW_PROXY_CPL_GDRCOPY = 1,      /* counter in GPU memory, written by the CPU through GDRCopy */
	MARROW_PROXY_CPL_MAPPED_PINNED = 2,/* tuned fallback: separate mapped pinned counter */
};

struct marrow_proxy_cuda_open_args {
	uint32_t size;             /* sizeof(struct marrow_proxy_cuda_open_args) */
	uint32_t comp_mask;
	void *arena;               /* marrow_proxy_arena() */
	uint64_t arena_bytes;
	void *buffer;              /* marrow_proxy_memory.base */
	uint64_t buffer_len;
	uint32_t rings;
	uint32_t log_slots;
	uint32_t handoff;          /* enum marrow_proxy_handoff */
	int32_t gpu;               /* CUDA ordinal */
	uint32_t use_gdrcopy;      /* 1: try GDRCopy for tuned completion counters */
	uint32_t reserved;
};

struct marrow_proxy_cuda_info {
	uint32_t size;             /* sizeof(struct marrow_proxy_cuda_info) */
	uint32_t comp_mask;
	uint32_t cpl_kind;         /* enum marrow_proxy_cpl_kind */
	int32_t sm_clock_khz;      /* measured during the last run (clock64 / globaltimer) */
	char note[160];            /* why GDRCopy was not used, etc. */
};

/* Maps the arena and the buffer into the GPU; for tuned, allocates the
 * completion counters the GPU polls. cpl_targets[r] (R entries) receives
 * the host pointer the proxy must write ring r's counter to (pass each to
 * marrow_proxy_set_cpl_target), or NULL for "keep the arena's counter". */
MARROW_API int marrow_proxy_cuda_open(const struct marrow_proxy_cuda_open_args *a,
				      struct marrow_proxy_cuda_ctx **out, uint64_t **cpl_targets,
				      struct marrow_proxy_cuda_info *info);
/* One GPU thread: issue/putc/rtt samples (ns, from %globaltimer) with the
 * same meaning as marrow_proxy_cpu_latency; rtt needs the responder. */
MARROW_API int marrow_proxy_cuda_latency(struct marrow_proxy_cuda_ctx *c,
					 const struct marrow_proxy_latency_params *p,
					 uint64_t *issue_ns, uint64_t *putc_ns, uint64_t *rtt_ns);
/* producers GPU threads (tuned: one per ring, producers <= rings). */
MARROW_API int marrow_proxy_cuda_rate(struct marrow_proxy_cuda_ctx *c,
				      const struct marrow_proxy_rate_params *p,
				      struct marrow_proxy_rate_result *r);
/* cpl_kind, note, and the SM clock measured by the last latency run. */
MARROW_API int marrow_proxy_cuda_query(struct marrow_proxy_cuda_ctx *c, struct marrow_proxy_cuda_info *info);
MARROW_API int marrow_proxy_cuda_close(struct marrow_proxy_cuda_ctx *c);

#ifdef __cplusplus
}
#endif

#endif /* MARROW_PROXY_H */
