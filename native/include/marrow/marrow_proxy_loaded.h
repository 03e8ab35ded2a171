/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * mini-proxy round trip under load (Fig. 6 / Table 11 of
 * "GPU-Initiated Communication: Dissecting Down to the Bone", for
 * mini-proxy) with CPU producers: an 8-byte probe round trip on ring 0 (the
 * PE-1 responder answers on ring 1, as marrow_proxy_cpu_latency) while
 * bg_streams producer threads stream 8-byte WRITEs:
 *  SHARED:   into ring 0, the probe's ring (needs the baseline handoff:
 *            several producers on one ring);
 *  RESERVED: into rings 2 .. R-1 (stream k -> ring 2 + k % (R - 2)); the
 *            tuned handoff needs bg_streams <= R - 2.
 * pace_msgs_per_s > 0 holds the background at that total rate (each stream
 * at its share, never faster). Stream k's WRITEs copy its 64 source slots
 * (8 bytes each, after the latency area) to the same places in PE 1's half;
 * every written slot is checked after the run.
 */
#ifndef MARROW_PROXY_LOADED_H
#define MARROW_PROXY_LOADED_H

#include "marrow/marrow_proxy.h"

#ifdef __cplusplus
extern "C" {
#endif

enum marrow_proxy_loaded_queue {
	MARROW_PROXY_LOADED_SHARED = 0,
	MARROW_PROXY_LOADED_RESERVED = 1,
};

enum { MARROW_PROXY_LOADED_SLOTS = 64, MARROW_PROXY_LOADED_MAX_STREAMS = 256 };

struct marrow_proxy_loaded_params {
	uint32_t size;             /* sizeof(struct marrow_proxy_loaded_params) */
	uint32_t comp_mask;        /* 0 */
	uint32_t queue;            /* enum marrow_proxy_loaded_queue */
	uint32_t bg_streams;       /* 0 .. MARROW_PROXY_LOADED_MAX_STREAMS */
	uint64_t pace_msgs_per_s;  /* total background target; 0 = unpaced */
	uint64_t iters;            /* timed probe round trips */
	uint64_t warmup;
	uint64_t timeout_ns;       /* bound of every wait */
};

struct marrow_proxy_loaded_result {
	uint32_t size;             /* sizeof(struct marrow_proxy_loaded_result) */
	uint32_t comp_mask;
	uint64_t probes_done;
	uint64_t timed_ns;         /* first timed probe start .. last timed probe end */
	uint64_t bg_in_window;     /* background WRITEs enqueued inside the timed span */
	uint64_t bg_posted;        /* all background WRITEs */
	uint64_t bg_slot_errors;   /* destination slots differing from their source */
};

/* Bytes of proxy buffer the experiment needs for bg_streams. */
MARROW_API uint64_t marrow_proxy_loaded_buffer_bytes(uint32_t bg_streams);

/* rtt_ns[iters]: enqueue start -> the reply in PE 0's flag word. The
 * workers must be running; rings >= 2 (RESERVED with streams: >= 3).
 * MARROW_EINVAL before anything runs; ETIMEDOUT naming the probe; EPROTO
 * when background bytes were wrong (bg_slot_errors > 0). */
MARROW_API int marrow_proxy_cpu_loaded(struct marrow_proxy *px, const struct marrow_proxy_loaded_params *p,
				       uint64_t *rtt_ns, struct marrow_proxy_loaded_result *res);

#ifdef __cplusplus
}
#endif

#endif /* MARROW_PROXY_LOADED_H */
