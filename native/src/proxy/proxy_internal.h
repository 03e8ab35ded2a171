/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * mini-proxy internals shared by the core (proxy_core.c), the worker loop
 * (proxy_worker.c), the backends (proxy_softnic.c, proxy_verbs.c), the CPU
 * producers (proxy_producer.c) and the experiments (proxy_bench.c).
 */
#ifndef MARROW_PROXY_INTERNAL_H
#define MARROW_PROXY_INTERNAL_H

#include <pthread.h>
#include <stdint.h>

#include "common/marrow_common.h"
#include "common/marrow_dump.h"
#include "marrow/marrow_proxy.h"
#include "marrow/proxy_ring.h"
#include "marrow/mlx5_wqe.h"

#define PX_LIKELY(x) __builtin_expect(!!(x), 1)
#define PX_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* A descriptor taken from a ring, decoded, plus where it came from. */
struct px_req {
	uint32_t local_off;
	uint32_t remote_off;
	uint32_t size;
	uint16_t lring;      /* index into the worker's ring list */
};

/* One QP of one worker, as the worker loop sees any backend. post() builds
 * n requests into the send queue as one chain whose last request is
 * signaled (wr index base = free-running WQE number of reqs[0]) and rings
 * once; poll() consumes CQEs and returns through *retired the free-running
 * count of WQEs known complete. Both return 0 or a negative status with
 * marrow_fail() text. */
struct px_backend_ops {
	const char *name;
	int (*post)(void *be, const struct px_req *reqs, uint32_t n, uint64_t base);
	int (*poll)(void *be, uint64_t *retired, uint64_t *cqes);
	void (*destroy)(void *be);
	/* Optional: the QP's queues for a watchdog dump (docs/design/watchdog.md);
	 * reads only memory other threads may read (dbrecs, CQ buffer). */
	void (*describe)(void *be, struct marrow_dump *d);
};

struct px_ring {
	struct mpr_ctl *ctl;
	struct mpr_desc *slots;
	uint64_t *cpl_target;        /* where the worker publishes completions */
	int cpl_flush;               /* target may be write-combining (GDRCopy BAR): sfence after stores */
	/* CPU producer state for tuned (single producer per ring) */
	uint64_t prod_head __attribute__((aligned(64)));
	uint64_t prod_cached_tail;
	uint64_t full_waits;
	uint64_t refreshes;
};

struct px_worker {
	struct marrow_proxy *px;
	uint32_t index;
	int32_t cpu_req;             /* requested pin, -1 none */
	pthread_t tid;
	int started;
	uint32_t stop;               /* atomic */
	/* rings owned: r = index, index + T, ... */
	uint32_t nrings;
	uint32_t *rings;
	uint64_t *tails;             /* local consumer positions */
	uint64_t *cpl;               /* local completion counts */
	/* backend */
	const struct px_backend_ops *ops;
	void *be;
	uint32_t sq_depth;           /* WQEs the backend can hold outstanding */
	uint16_t *wqe_ring;          /* per SQ position: lring of that WQE */
	uint64_t pi;                 /* WQEs posted */
	uint64_t ci;                 /* WQEs retired */
	struct px_req *batch;
	char errmsg[256];
	/* stats, single writer (this worker), read with relaxed atomics */
	struct marrow_proxy_worker_stats st __attribute__((aligned(64)));
	struct marrow_proxy_worker_stats mark[2]; /* snapshots at marrow_proxy_mark(0/1) */
};

struct marrow_proxy {
	struct marrow_proxy_config cfg;
	struct marrow_proxy_memory mem;
	uint32_t slots;              /* 1 << log_slots */
	int remote_dst;              /* a worker WRITEs into another process's memory: no local destination to verify */
	void *arena;
	uint64_t arena_bytes;
	struct px_ring *rings;
	struct px_worker *workers;
	uint32_t backend;            /* enum marrow_proxy_backend */
	void *verbs;                 /* proxy_verbs.c device state */
	int verbs_peer;              /* verbs QPs wait for marrow_proxy_verbs_connect (two hosts) */
	int running;
	/* responder (PE 1) for RTT with GPU producers */
	pthread_t resp_tid;
	int resp_started;
	uint32_t resp_stop;
	uint32_t resp_ring;
	uint32_t resp_size;
	uint64_t resp_last;          /* PE 1 flag value before the responder started */
	int resp_error;
};

/* proxy_sys.c */
uint64_t px_now_ns(void);
void px_relax(void);
/* A poller that found nothing: px_relax, or sched_yield when cfg.yield_idle
 * (more spinning threads than cores: let the thread that has work run). */
void px_idle(const struct marrow_proxy *px);
int px_pin_self(int cpu);
uint64_t px_cpu_freq_khz(int cpu);

/* proxy_worker.c */
void *px_worker_main(void *arg);
int px_worker_setup(struct px_worker *w, const struct px_backend_ops *ops, void *be, uint32_t sq_depth);

/* proxy_softnic.c */
int px_softnic_create(const struct marrow_proxy_softnic_qp *qp, const struct marrow_proxy_memory *mem,
		      void **out, uint32_t *sq_depth);
extern const struct px_backend_ops px_softnic_ops;

/* proxy_verbs.c. The verbs QPs ask for max_inline_data PX_VERBS_INLINE; an
 * SQ of 2^log_sq WQEBBs is asked of verbs as px_verbs_send_wr(log_sq) work
 * requests (the largest WRITE, 64 B inline, takes 2 WQEBBs). The old entry
 * point (no log_sq) keeps its 1024 WRs: log_sq PX_VERBS_LOG_SQ_DEFAULT. */
enum { PX_VERBS_INLINE = 64, PX_VERBS_LOG_SQ_DEFAULT = 11 };

static inline uint32_t px_verbs_send_wr(uint32_t log_sq)
{
	return mx_send_wr_for_wqebbs(1u << log_sq, PX_VERBS_INLINE);
}

/* *send_wr = what was asked, *send_wr_granted = the smallest max_send_wr
 * verbs granted over the workers' QPs (either may be NULL). */
/* loopback 1: each QP connected to itself; 0: QPs left in RESET for px_verbs_connect (two hosts). */
int px_verbs_attach(struct marrow_proxy *px, const char *device, uint32_t log_sq, char *chosen,
		    uint32_t chosen_len, uint32_t *send_wr, uint32_t *send_wr_granted, int loopback);
int px_verbs_local(struct marrow_proxy *px, uint32_t worker, struct marrow_mlx5_peer_info *out);
int px_verbs_connect(struct marrow_proxy *px, uint32_t worker, const struct marrow_mlx5_peer_info *peer);
int px_verbs_probe(const char *device, char *chosen, uint32_t chosen_len);
void px_verbs_release(struct marrow_proxy *px);

/* proxy_producer.c: one enqueue with an explicit handoff; a ring-full wait
 * lasts at most timeout_ns (the clock is read only once waiting starts). */
int px_enqueue(struct marrow_proxy *px, uint32_t ring, uint32_t handoff, uint64_t w0, uint64_t w1,
	       uint64_t timeout_ns, uint64_t *ticket);
int px_wait_cpl(struct marrow_proxy *px, uint32_t ring, uint64_t count, uint64_t timeout_ns);
/* Text describing why ring's worker made no progress (for timeouts). */
const char *px_worker_state_name(uint64_t s);

static inline uint64_t px_ld_acq(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static inline void px_st_rel(uint64_t *p, uint64_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }

#endif /* MARROW_PROXY_INTERNAL_H */
