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

struct marrow_gda_loaded_config {
	uint32_t size;              /* sizeof(struct marrow_gda_loaded_config) */
	uint32_t comp_mask;         /* 0 */
	uint32_t ordering;          /* enum marrow_gda_ordering */
	uint32_t queue;             /* enum marrow_gda_loaded_queue */
	uint32_t bg_streams;        /* 0 .. MARROW_GDA_LOADED_MAX_STREAMS */
	uint32_t bg_window;         /* WQEs outstanding per background QP */
	uint32_t bg_signal_every;   /* every Nth WQE of a QP is signaled (1 .. bg_window) */
	uint32_t reserved;          /* 0 */
	uint64_t pace_msgs_per_s;   /* total background target; 0 = unpaced */
	uint64_t iters;             /* timed probe round trips */
	uint64_t warmup;            /* untimed probe round trips first */
	uint64_t timeout_ns;        /* bound of every single wait */
	uint64_t bg_dst_addr;       /* background destination: streams * 64 * 8 bytes */
	uint64_t bg_dst_len;
	uint32_t bg_dst_rkey;
	int32_t cuda_device;
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

/* Same on a GPU (libmarrow_cuda.so): block 0 / thread 0 is the probe,
 * block 1 the peer, blocks 2 .. bg_streams+1 the background streams (one
 * thread each; a shared QP's counters live in GPU memory under one lock).
 * The queues' host memory is mapped per run. Software NIC queues only (a
 * UAR in device MMIO is refused). MARROW_ENODEV without a GPU. */
MARROW_API int marrow_gda_loaded_cuda_run(const struct marrow_gda_loaded_config *cfg,
					  const struct marrow_gda_endpoint *probe,
					  const struct marrow_gda_endpoint *peer,
					  const struct marrow_gda_endpoint *bg_eps,
					  uint64_t *samples_ns, struct marrow_gda_loaded_result *res);

#ifdef __cplusplus
}
#endif

#endif /* MARROW_GDA_LOADED_H */
