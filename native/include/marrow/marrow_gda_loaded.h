/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * mini-gda round trip under load (Fig. 6 / Table 11 of
 * "GPU-Initiated Communication: Dissecting Down to the Bone", for
 * mini-gda): an 8-byte probe measures the round trip (initiator QP -> peer
 * QP -> back into the initiator's inbox, as marrow_gda_cpu_run's ROUND_TRIP)
 * while bg_streams background posters stream 8-byte inline WRITEs.
 *
 *  SHARED:   the background posts on the probe's own QP; every poster
 *            (probe included) takes one lock around reserve+build+doorbell,
 *            and whoever needs room reaps CQEs for everybody.
 *  RESERVED: background stream k posts on its own QP (bg_eps[k]); the
 *            probe's QP carries only the probe.
 * pace_msgs_per_s > 0 holds the background at that total rate (each stream
 * posts at its share, never faster). All background WRITEs land in one
 * destination (bg_dst_*): stream k owns slots [k*64, k*64+64) of 8 bytes,
 * checked after the run against the last value each slot was sent.
 * What is timed: docs/design/methods.md ("Loaded round trip").
 */
#ifndef MARROW_GDA_LOADED_H
#define MARROW_GDA_LOADED_H

#include "marrow/marrow_gda.h"

#ifdef __cplusplus
extern "C" {
#endif

enum marrow_gda_loaded_queue {
	MARROW_GDA_LOADED_SHARED = 0,
	MARROW_GDA_LOADED_RESERVED = 1,
};

enum { MARROW_GDA_LOADED_SLOTS = 64, MARROW_GDA_LOADED_MAX_STREAMS = 256 };

/* Which side of the round trip this process plays (docs/design/two-process.md §11).
 *  BOTH:      one process: the probe, the peer thread and the background.
 *  INITIATOR: two processes, rank 0: the probe (its ping goes to the other
 *             process, whose answer lands in probe->inbox_addr) and the
 *             background; peer is NULL; bg_dst_* is the other process's
 *             memory (written, never read or cleared here).
 *  RESPONDER: two processes, rank 1: the calling thread answers warmup +
 *             iters pings arriving in probe->inbox_addr by writing the same
 *             word back through probe's QP, while the background streams
 *             post toward the initiator (bg_dst_* remote) until the last
 *             answer; peer is NULL, samples_ns is not written. */
enum marrow_gda_loaded_role {
	MARROW_GDA_LOADED_BOTH = 0,
	MARROW_GDA_LOADED_INITIATOR = 1,
	MARROW_GDA_LOADED_RESPONDER = 2,
};

struct marrow_gda_loaded_config {
	uint32_t size;              /* sizeof(struct marrow_gda_loaded_config) */
	uint32_t comp_mask;         /* 0 */
	uint32_t ordering;          /* enum marrow_gda_ordering */
	uint32_t queue;             /* enum marrow_gda_loaded_queue */
	uint32_t bg_streams;        /* 0 .. MARROW_GDA_LOADED_MAX_STREAMS */
	uint32_t bg_window;         /* WQEs outstanding per background QP */
	uint32_t bg_signal_every;   /* every Nth WQE of a QP is signaled (1 .. bg_window) */
	uint32_t role;              /* enum marrow_gda_loaded_role */
	uint64_t pace_msgs_per_s;   /* total background target; 0 = unpaced */
	uint64_t iters;             /* timed probe round trips */
	uint64_t warmup;            /* untimed probe round trips first */
	uint64_t timeout_ns;        /* bound of every single wait */
	uint64_t bg_dst_addr;       /* background destination: streams * 64 * 8 bytes */
	uint64_t bg_dst_len;
	uint32_t bg_dst_rkey;
	int32_t cuda_device;
	uint64_t bg_posted_addr;    /* 0, or bg_streams uint64_t: WRITEs each stream posted (all completed) */
};

struct marrow_gda_loaded_result {
	uint32_t size;              /* sizeof(struct marrow_gda_loaded_result) */
	uint32_t comp_mask;
	uint64_t probes_done;       /* round trips, warm-up included */
	uint64_t timed_ns;          /* first timed probe start .. last timed probe end */
	uint64_t bg_in_window;      /* background WRITEs posted inside the timed span */
	uint64_t bg_posted;         /* all background WRITEs */
	uint64_t bg_slot_errors;    /* background destination slots holding a wrong value */
	uint64_t probe_errors;      /* probes whose reply was not the word sent (never expected) */
	int32_t status;
	uint32_t fail_iter;
	int32_t cuda_error;
	uint32_t pad;
};

/* probe: the initiator (its inbox receives the reply); peer: the responder
 * QP connected to it; bg_eps: bg_streams endpoints (RESERVED) or NULL
 * (SHARED); only their qp/cq views are used. samples_ns[iters]. MARROW_EINVAL
 * before anything runs; ETIMEDOUT / EIO / EPROTO from the run; EPROTO with
 * bg_slot_errors or probe_errors > 0 when bytes were wrong. */
MARROW_API int marrow_gda_loaded_cpu_run(const struct marrow_gda_loaded_config *cfg,
					 const struct marrow_gda_endpoint *probe,
					 const struct marrow_gda_endpoint *peer,
					 const struct marrow_gda_endpoint *bg_eps,
					 uint64_t *samples_ns, struct marrow_gda_loaded_result *res);

/* The receiver's check of a background destination it owns (two processes:
 * the sender's per-stream counts came over the exchange): slot s of stream
 * k must hold the last value stream k sent there. Returns the number of
 * wrong slots; dst_addr must cover streams x MARROW_GDA_LOADED_SLOTS x 8 bytes. */
MARROW_API uint64_t marrow_gda_loaded_check_slots(uint64_t dst_addr, uint32_t streams, const uint64_t *posted);

/* Same on a GPU (libmarrow_cuda.so): block 0 / thread 0 is the probe,
 * block 1 the peer, blocks 2 .. bg_streams+1 the background streams (one
 * thread each; a shared QP's counters live in GPU memory under one lock).
 * The queues' host memory is mapped per run. Software NIC queues only (a
 * UAR in device MMIO is refused). MARROW_ENODEV without a GPU. Roles BOTH
 * and INITIATOR (block 1 then idles: the peer is the other process); the
 * RESPONDER runs on the CPU runner (EINVAL names it). */
MARROW_API int marrow_gda_loaded_cuda_run(const struct marrow_gda_loaded_config *cfg,
					  const struct marrow_gda_endpoint *probe,
					  const struct marrow_gda_endpoint *peer,
					  const struct marrow_gda_endpoint *bg_eps,
					  uint64_t *samples_ns, struct marrow_gda_loaded_result *res);

#ifdef __cplusplus
}
#endif

#endif /* MARROW_GDA_LOADED_H */
