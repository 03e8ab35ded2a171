/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Copyright (c) 2026 The Marrow authors
 *
 * DSM suite (part of libmarrow_cuda.so): SM-to-SM distributed shared memory
 * microbenchmarks on Hopper-class GPUs (sm_90+). Every call launches exactly
 * one thread-block cluster; each CTA takes MARROW_DSM_SMEM_BYTES of dynamic
 * shared memory so that no two CTAs can share an SM.
 *
 * Conventions (marrow_abi.h): every function returns 0 or a negative
 * MARROW_E* status and fills marrow_cuda_last_error() on failure. Structs start
 * with {size, comp_mask}: the caller sets size = sizeof(struct) and
 * comp_mask = 0. Layouts have no implicit padding; the sizes are frozen by
 * _Static_asserts below and exported through marrow_abi_query().
 *
 * Without a usable GPU every function answers MARROW_ENODEV with a message
 * beginning "needs a Hopper-class GPU (sm_90+), found ...".
 *
 * This header is included by C (cuda_abi.c, gcc) and by CUDA C++.
 */
#ifndef MARROW_DSM_H
#define MARROW_DSM_H

#include "marrow/marrow_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MARROW_DSM_MAX_RANKS 16
/* Largest tile per active SM; the source tile and the receive buffer sit at
 * fixed offsets so that a local offset names the same slot in every CTA. */
#define MARROW_DSM_MAX_TILE_BYTES (96u * 1024u)
#define MARROW_DSM_SRC_OFFSET 0u
#define MARROW_DSM_RECV_OFFSET (96u * 1024u)
#define MARROW_DSM_CTRL_OFFSET (192u * 1024u)
/* 200 KiB per CTA: two of them exceed an SM's 228 KiB, so one CTA per SM. */
#define MARROW_DSM_SMEM_BYTES (200u * 1024u)
/* Largest TMA command; the study "How does Hopper distributed shared memory
 * actually move data?" used 16 KiB commands. */
#define MARROW_DSM_MAX_TMA_CHUNK 16384u
#define MARROW_DSM_DEFAULT_GROUP_THREADS 480u
/* Device-side spin budget for an mbarrier wait (~0.5 s at 2 GHz). */
#define MARROW_DSM_DEFAULT_WAIT_CYCLES 1000000000ull
#define MARROW_DSM_DEFAULT_TIMEOUT_MS 20000u

/* Sample rejection reasons (marrow_dsm_sample.flags, marrow_dsm_lat_sample.flags). */
enum marrow_dsm_flag {
	MARROW_DSM_F_TIMEOUT = 1u << 0,     /* a bounded device wait expired */
	MARROW_DSM_F_SMID_MOVED = 1u << 1,  /* %smid differs between start and end */
	MARROW_DSM_F_SMID_SHARED = 1u << 2, /* two ranks of the launch on one SM */
	MARROW_DSM_F_LOAD_SUM = 1u << 3,    /* checksum of loaded data is wrong */
	MARROW_DSM_F_RECV_SUM = 1u << 4,    /* checksum of the receive buffer is wrong */
	MARROW_DSM_F_TIME = 1u << 5,        /* an end stamp is not after its start */
};

/* Roles of one rank in a sample (marrow_dsm_sample.roles). */
enum marrow_dsm_role {
	MARROW_DSM_ROLE_LOAD = 1u << 0,     /* ld.shared::cluster from load_from's source tile */
	MARROW_DSM_ROLE_STORE = 1u << 1,    /* st.shared::cluster into store_to's receive buffer */
	MARROW_DSM_ROLE_TMA = 1u << 2,      /* cp.async.bulk into tma_to's receive buffer */
	MARROW_DSM_ROLE_RECV_STORE = 1u << 3, /* some rank stores into this rank */
	MARROW_DSM_ROLE_RECV_TMA = 1u << 4, /* some rank TMA-puts into this rank; it waits */
	/* Some rank stores into this rank's *source* region: it also receives a
	 * TMA (into the receive buffer), so a second buffer is needed; allowed
	 * only when nobody reads this rank's source (no load from it, no store
	 * or TMA by it). load_sum / load_expect then hold the fold of that
	 * region after the end stamps (this rank has no load role). */
	MARROW_DSM_ROLE_RECV_STORE_SRC = 1u << 5,
};

/* marrow_dsm_params.load_kernel: how the load group issues its loads. */
enum marrow_dsm_load_kernel {
	/* Every thread issues all of its 16-B loads of the tile before it waits
	 * for any (up to MARROW_DSM_LOAD_INFLIGHT_MAX per thread; beyond that in
	 * batches of that many, each waited for before the next). */
	MARROW_DSM_LOAD_INFLIGHT = 0,
	/* The first kernel (results of commit 4f8f2c4): software-pipelined
	 * batches of 4 loads per thread; waiting for one batch also waits for
	 * the next one already in flight, so the stream drains every 4 x group
	 * x 16 B. Kept for comparison. */
	MARROW_DSM_LOAD_BATCHED = 1,
	/* As INFLIGHT, but with the same *bytes* in flight per thread at every
	 * width: MARROW_DSM_LOAD_INFLIGHT_BYTES_MAX / load_width loads per wait
	 * (13 x 16 B, 26 x 8 B, 52 x 4 B). At 16 B it is the INFLIGHT kernel. */
	MARROW_DSM_LOAD_INFLIGHT_BYTES = 2,
};
#define MARROW_DSM_LOAD_INFLIGHT_MAX 13u
#define MARROW_DSM_LOAD_INFLIGHT_BYTES_MAX (MARROW_DSM_LOAD_INFLIGHT_MAX * 16u)

/* marrow_dsm_params.store_kernel: how the store group addresses its peer. */
enum marrow_dsm_store_kernel {
	MARROW_DSM_STORE_CLUSTER = 0, /* st.shared::cluster to a mapa'd shared::cluster address */
	/* Plain generic st through the generic address of the peer's slot (what
	 * a C++ pointer from cluster.map_shared_rank() compiles to). */
	MARROW_DSM_STORE_GENERIC = 1,
};

/* marrow_dsm_params.store_end: where the store group's interval ends. */
enum marrow_dsm_store_end {
	/* The group's fence.acq_rel.cluster, then a named barrier of the group. */
	MARROW_DSM_STORE_END_FENCE = 0,
	/* A cluster-wide barrier.cluster.arrive.release / wait.acquire that every
	 * thread of every CTA joins ("one cluster completion rendezvous after the
	 * complete tile"); stamped after the wait. */
	MARROW_DSM_STORE_END_RENDEZVOUS = 1,
};

/* Shared-memory pressure warps (marrow_dsm_params.pressure_*): extra warps
 * appended after the control warp that read-modify-write local shared
 * memory during the timed region. */
#define MARROW_DSM_MAX_PRESSURE_WARPS 16u
enum marrow_dsm_pressure_pattern {
	MARROW_DSM_PRESSURE_SPREAD = 0,   /* lane l of warp w: word 32 w + l (no bank conflict) */
	MARROW_DSM_PRESSURE_CONFLICT = 1, /* lane l of warp w: word 32 l + w (32-way bank conflict) */
};
#define MARROW_DSM_DEFAULT_PRESSURE_CYCLES 50000ull
/* Most bursts per launch (marrow_dsm_params.bursts). */
#define MARROW_DSM_MAX_BURSTS 64u
/* marrow_dsm_params.store_width / load_width: bytes per st/ld.shared::cluster
 * (4 = .u32, 8 = .v2.u32, 16 = .v4.u32); 0 = MARROW_DSM_DEFAULT_ACCESS_WIDTH,
 * the width of every result before these fields existed. */
#define MARROW_DSM_DEFAULT_ACCESS_WIDTH 16u

/* sizeof = 192 */
struct marrow_dsm_device_info {
	uint32_t size;
	uint32_t comp_mask;
	int32_t ordinal;
	int32_t cc_major;
	int32_t cc_minor;
	int32_t sm_count;
	int32_t max_smem_optin;     /* bytes per block after opt-in (sm_90: 232448) */
	int32_t smem_per_cta;       /* what the suite requests: MARROW_DSM_SMEM_BYTES */
	int32_t clock_rate_khz;     /* peak clock as reported; never used for a rate */
	int32_t driver_version;
	int32_t runtime_version;
	/* cudaOccupancyMaxActiveClusters for cluster sizes 2, 4, 8, 16 with the
	 * traffic kernel's block size and smem_per_cta; -1 if the query failed. */
	int32_t max_active_clusters[4];
	int32_t reserved;
	char name[128];
};

/* sizeof = 48 */
struct marrow_dsm_timer_info {
	uint32_t size;
	uint32_t comp_mask;
	uint64_t gt_min_step_ns;    /* smallest non-zero %globaltimer increment seen */
	uint64_t gt_steps;          /* how many increments were seen */
	uint64_t clk_delta;         /* %clock64 over the window (one SM) */
	uint64_t gt_delta_ns;       /* %globaltimer over the same window */
	uint32_t smid;
	uint32_t reads;             /* timer reads performed */
};

/* sizeof = 168. Rank roles: -1 = none, otherwise a peer rank != self. */
struct marrow_dsm_params {
	uint32_t size;
	uint32_t comp_mask;
	int32_t device;
	uint32_t cluster_size;      /* 2..16 CTAs; > 8 uses the non-portable size */
	uint32_t tile_bytes;        /* per active SM; multiple of 512, <= 96 KiB */
	uint32_t reps;              /* measured launches; out has reps * cluster_size */
	uint32_t warmup;            /* launches run first and discarded */
	uint32_t group_threads;     /* threads of the load and of the store group; 0 = 480 */
	uint32_t tma_chunk_bytes;   /* bytes per cp.async.bulk; 0 = 16384 */
	uint32_t run_id;            /* pattern seed of measured rep 0 (rep k: run_id + k) */
	uint32_t timeout_ms;        /* host watchdog for the whole call; 0 = 20000 */
	uint32_t load_kernel;       /* marrow_dsm_load_kernel; 0 = MARROW_DSM_LOAD_INFLIGHT */
	uint64_t wait_budget_cycles; /* device spin budget per mbarrier wait; 0 = default */
	int8_t load_from[MARROW_DSM_MAX_RANKS];
	int8_t store_to[MARROW_DSM_MAX_RANKS];
	int8_t tma_to[MARROW_DSM_MAX_RANKS];
	/* Bytes per remote store of the store group: 4, 8 or 16; 0 = 16. Each
	 * thread stores 4 accesses of this width per batch; a warp's access
	 * covers 32 x width contiguous bytes. */
	uint32_t store_width;
	/* Bytes per remote load of the INFLIGHT load kernel: 4, 8 or 16; 0 = 16
	 * (the BATCHED kernel accepts only 16). Up to
	 * MARROW_DSM_LOAD_INFLIGHT_MAX loads per thread in flight at any width. */
	uint32_t load_width;
	/* --- appended for the probes (E11-E14); 0 keeps every earlier result's kernel --- */
	/* Bytes by which the tile's base moves in the source region and in the
	 * receive buffer of every CTA (so every remote address of every role
	 * moves by it): a multiple of 16, remote_offset + tile_bytes <= 96 KiB. */
	uint32_t remote_offset;
	uint32_t pressure_warps;    /* 0..16 pressure warps on each rank in pressure_ranks */
	uint32_t pressure_ranks;    /* bit r: rank r runs the pressure warps */
	uint32_t pressure_pattern;  /* marrow_dsm_pressure_pattern */
	/* The load and store groups move their tile in this many equal bursts
	 * (0 or 1 = one), each waited for (loads returned / stores fenced)
	 * before an idle gap of burst_gap_cycles and the next burst. tile_bytes
	 * must be a multiple of 16 x bursts; no TMA role with bursts > 1. */
	uint32_t bursts;
	uint32_t store_kernel;      /* marrow_dsm_store_kernel */
	uint64_t burst_gap_cycles;
	uint64_t pressure_cycles;   /* each pressure warp runs this long from the start barrier; 0 = default */
	uint32_t store_unroll;      /* accesses per store thread per batch: 1 or 4; 0 = 4 */
	uint32_t store_end;         /* marrow_dsm_store_end */
	/* 1: run the probes' build of the kernel even if no probe knob is set,
	 * so that a probe's baseline runs the same code as its variants (the
	 * default build is the kernel of every earlier result). */
	uint32_t probe_build;
	uint32_t reserved2;         /* 0 */
};

/* sizeof = 176. One rank of one launch. Stamps are raw: clk_* are %clock64
 * of this rank's SM (subtract only within one sample of one rank),
 * gt_* are %globaltimer ns (comparable across ranks). 0 = not recorded. */
struct marrow_dsm_sample {
	uint32_t size;
	uint32_t comp_mask;
	uint32_t rep;
	uint32_t rank;
	uint32_t smid_start;
	uint32_t smid_end;
	uint32_t flags;             /* MARROW_DSM_F_*; 0 = accepted */
	uint32_t roles;             /* MARROW_DSM_ROLE_* */
	uint64_t clk_start;         /* right after the start cluster barrier */
	uint64_t gt_start;
	uint64_t clk_load_end;      /* load group: all loads returned */
	uint64_t gt_load_end;
	uint64_t clk_store_end;     /* store group: fence.acq_rel.cluster done */
	uint64_t gt_store_end;
	uint64_t clk_recv_end;      /* TMA receiver: mbarrier phase complete */
	uint64_t gt_recv_end;
	uint64_t clk_tma_issued;    /* TMA sender: last command issued */
	uint64_t wait_polls;        /* try_wait calls of the TMA receiver */
	uint64_t load_sum;          /* fold of the loaded words (after end stamps); see ROLE_RECV_STORE_SRC */
	uint64_t load_expect;       /* host-computed */
	uint64_t recv_sum;          /* fold of the receive buffer (after end stamps) */
	uint64_t recv_expect;       /* host-computed */
	/* --- appended for the probes --- */
	uint64_t pressure_ops;      /* shared-memory accesses of this rank's pressure warps (0 = none ran) */
	/* Bursts (params.bursts > 1) of this rank's load or store group, its own
	 * %clock64: sum, first and shortest of the per-burst durations (from the
	 * group barrier that starts a burst to the one that ends it). */
	uint64_t burst_busy_cycles;
	uint64_t burst_first_cycles;
	uint64_t burst_min_cycles;
};

/* sizeof = 32 */
struct marrow_dsm_lat_params {
	uint32_t size;
	uint32_t comp_mask;
	int32_t device;
	uint32_t cluster_size;      /* 2..16 */
	uint32_t hops;              /* dependent loads per (src, dst); 0 = 1024 */
	uint32_t reps;              /* launches; out has reps * n * n entries */
	uint32_t stride_words;      /* odd word stride between ring slots; 0 = 33 */
	uint32_t timeout_ms;        /* host watchdog for the whole call; 0 = 20000 (was reserved, 0) */
};

/* sizeof = 56. Index in out: (rep * n + src) * n + dst. */
struct marrow_dsm_lat_sample {
	uint32_t size;
	uint32_t comp_mask;
	uint32_t rep;
	uint32_t src;
	uint32_t dst;
	uint32_t smid_src;
	uint32_t smid_dst;
	uint32_t flags;
	uint64_t cycles;            /* %clock64 on src for all hops */
	uint64_t final_index;       /* where the chase ended */
	uint64_t expect_index;      /* host-computed */
};

#ifndef __cplusplus
_Static_assert(sizeof(struct marrow_dsm_device_info) == 192, "dsm_device_info layout");
_Static_assert(sizeof(struct marrow_dsm_timer_info) == 48, "dsm_timer_info layout");
_Static_assert(sizeof(struct marrow_dsm_params) == 168, "dsm_params layout");
_Static_assert(sizeof(struct marrow_dsm_sample) == 176, "dsm_sample layout");
_Static_assert(sizeof(struct marrow_dsm_lat_params) == 32, "dsm_lat_params layout");
_Static_assert(sizeof(struct marrow_dsm_lat_sample) == 56, "dsm_lat_sample layout");
#endif

/*
 * Describes device dev for the suite and checks that it can run it: sm_90+,
 * cluster launch, enough opt-in shared memory. MARROW_ENODEV ("needs a
 * Hopper-class GPU (sm_90+), found ...") otherwise; out is still filled as
 * far as known.
 */
MARROW_API int marrow_dsm_device_info(int dev, struct marrow_dsm_device_info *out);

/*
 * Reads %globaltimer and %clock64 in one thread for about window_us
 * microseconds (0 = 2000): the timer's step and the effective SM clock
 * (clk_delta / gt_delta_ns GHz). One warm-up launch precedes the measured one.
 */
MARROW_API int marrow_dsm_timer_probe(int dev, uint32_t window_us, struct marrow_dsm_timer_info *out);

/*
 * Runs warmup + reps launches of one cluster, each moving tile_bytes per
 * role as described by the params, and validates every sample on the host
 * (checksums, SM placement, stamp order): rejected samples are returned with
 * flags != 0, never dropped. out must hold reps * cluster_size samples,
 * index rep * cluster_size + rank. MARROW_EINVAL for an impossible
 * configuration (e.g. a rank receiving from two senders), MARROW_ETIMEDOUT
 * when the host watchdog expires, MARROW_EIO for a CUDA error.
 */
MARROW_API int marrow_dsm_run(const struct marrow_dsm_params *p, struct marrow_dsm_sample *out,
			      uint32_t out_count);

/*
 * Latency matrix: in each launch every rank chases a dependent chain of
 * ld.shared::cluster.u32 loads through every rank's ring (itself included),
 * one destination after another in a staggered order.
 */
MARROW_API int marrow_dsm_latency(const struct marrow_dsm_lat_params *p, struct marrow_dsm_lat_sample *out,
				  uint32_t out_count);

#ifdef __cplusplus
}
#endif

#endif /* MARROW_DSM_H */
