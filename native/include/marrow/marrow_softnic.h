/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Software NIC ("softnic"): an in-process emulator that consumes real mlx5
 * send WQEs from an SQ ring, watches the doorbell record and a per-QP UAR
 * mailbox, moves bytes between registered host buffers and writes real
 * CQE64s. Library: libmarrow_emu.so (gcc + pthreads only).
 *
 * Control path mirrors verbs (device, PD, MR, CQ, RC QP, modify QP). The data
 * path never calls this API: producers write WQEs into view.sq_buf, store the
 * exclusive WQEBB producer counter into the SQ dbrec word (BE32) and 8 bytes
 * (the first 8 bytes of a ctrl segment) into view.uar, exactly as on
 * ConnectX; the doorbell's index and QPN say what to run
 * (docs/design/softnic-fidelity.md); pollers read CQE64s from cq_view.buf
 * with the owner-bit rule.
 *
 * All queue and MR memory is plain host memory (page-aligned) that a caller
 * may additionally pin and map into a GPU. The model (engine threads, modes,
 * doorbells, errors, counters): docs/design/software-nic.md.
 *
 * Thread safety: control-path calls on one device are serialised internally;
 * destroy calls require that no producer touches the object any more.
 * Destroy order: QPs -> CQs -> MRs -> PD -> device (EBUSY otherwise).
 */
#ifndef MARROW_SOFTNIC_H
#define MARROW_SOFTNIC_H

#include "marrow/marrow_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

struct marrow_emu_device;
struct marrow_emu_pd;
struct marrow_emu_mr;
struct marrow_emu_cq;
struct marrow_emu_qp;
struct marrow_emu_dct;

/* ---- device ------------------------------------------------------------ */

enum marrow_emu_poll_mode {
	MARROW_EMU_POLL_IDLE = 0, /* bounded back-off: spin briefly, then nanosleep up to idle_sleep_max_ns */
	MARROW_EMU_POLL_HOT = 1,  /* spin with a pause instruction; for benchmarks */
};

struct marrow_emu_device_attr {
	uint32_t size;               /* sizeof(struct marrow_emu_device_attr) */
	uint32_t comp_mask;          /* 0 */
	uint32_t poll_mode;          /* enum marrow_emu_poll_mode */
	uint32_t engine_threads;     /* >= 1; QPs are spread over engine threads by QPN */
	uint32_t idle_sleep_max_ns;  /* upper bound of one idle sleep; 0 = default 50 us */
	uint32_t sweep_every;        /* full sweep of idle QPs every N passes; 0 = default 64 */
	int32_t engine_cpu;          /* pin engine thread 0 to this CPU (-1 = no pinning) */
	uint32_t quiet;              /* 1 = do not print the emulator banner */
};

/* Opens an emulated NIC and starts its engine thread(s). Prints one line to
 * stderr saying that this is a software emulator unless attr->quiet. */
MARROW_API int marrow_emu_device_open(const struct marrow_emu_device_attr *attr,
				      struct marrow_emu_device **out);
/* Stops and joins the engine, then frees the device. EBUSY if objects remain. */
MARROW_API int marrow_emu_device_close(struct marrow_emu_device *dev);

/* QP timers (ACK timeout, RNR timer) run `divisor` times faster than on a
 * ConnectX; 1 (the default) keeps a ConnectX's timing. For tests. */
MARROW_API int marrow_emu_device_time_divisor(struct marrow_emu_device *dev, uint32_t divisor);

/* Stops (paused = 1) or resumes the engine threads. While paused, doorbells
 * are not observed: used to test that producers' bounded waits expire. */
MARROW_API int marrow_emu_engine_pause(struct marrow_emu_device *dev, int paused);
/* Pins engine thread i to cpus[i] (-1 = leave it as it is); n must be the
 * device's engine thread count. Extends attr.engine_cpu (thread 0 only) to
 * every thread. A CPU that cannot be used fails the call (EINVAL); threads
 * before it stay pinned. */
MARROW_API int marrow_emu_engine_pin(struct marrow_emu_device *dev, const int32_t *cpus, uint32_t n);

/* ---- wire model (docs/design/wire-model.md) ---------------------------- */

/* The software NIC copies memory and has no wire. With a wire model set, a
 * port of bits_per_s serializes every executed WRITE (payload plus the
 * per-packet and per-message bytes below) in execution order, and a
 * successful CQE becomes visible no earlier than the modeled moment its
 * message's last byte leaves the port. bits_per_s == 0: no model (the
 * CQEs come as fast as the copy engine makes them). */
struct marrow_emu_wire_model {
	uint32_t size;               /* sizeof(struct marrow_emu_wire_model) */
	uint32_t comp_mask;          /* 0 */
	uint64_t bits_per_s;         /* port data rate; 0 = no model */
	uint32_t mtu;                /* payload bytes per packet (IB: 256..4096) */
	uint32_t packet_overhead;    /* header + trailer bytes of every packet */
	uint32_t write_overhead;     /* extra bytes of a WRITE's first packet */
	uint32_t imm_overhead;       /* extra bytes of a WRITE_IMM's last packet */
};

/* Fills *m with the InfiniBand RC model at bits_per_s: MTU 4096; per packet
 * LRH 8 + BTH 12 + ICRC 4 + VCRC 2 = 26 bytes; RETH 16 on a WRITE's first
 * packet; ImmDt 4 on a WRITE_IMM's last. EINVAL for a NULL m. */
MARROW_API int marrow_emu_wire_ib_defaults(struct marrow_emu_wire_model *m, uint64_t bits_per_s);
/* Bytes the model puts on the wire for one message of len payload bytes
 * (with_imm: WRITE_IMM), and the picoseconds they take at m->bits_per_s
 * (0 when bits_per_s is 0). For records and tests; the engine uses the same
 * arithmetic. */
MARROW_API uint64_t marrow_emu_wire_bytes(const struct marrow_emu_wire_model *m, uint64_t len, int with_imm);
MARROW_API uint64_t marrow_emu_wire_time_ps(const struct marrow_emu_wire_model *m, uint64_t len, int with_imm);
/* Sets (m->bits_per_s > 0) or clears (m == NULL or bits_per_s == 0) the
 * device's wire model; a control-path call (the engine is quiesced). The
 * port's clock and statistics restart. EINVAL for a bad model (mtu not a
 * power of two in 256..4096, rate above 10 Tb/s). */
MARROW_API int marrow_emu_device_set_wire(struct marrow_emu_device *dev, const struct marrow_emu_wire_model *m);
/* What the port carried since the model was set: out[0] messages, out[1]
 * payload bytes, out[2] wire bytes, out[3] packets, out[4] nanoseconds the
 * engine held CQEs back for the wire. n: entries wanted (<= 5). All zero
 * without a model. */
MARROW_API int marrow_emu_wire_stats(struct marrow_emu_device *dev, uint64_t *out, uint32_t n);

/* ---- protection domain and memory regions ------------------------------ */

MARROW_API int marrow_emu_pd_alloc(struct marrow_emu_device *dev, struct marrow_emu_pd **out);
MARROW_API int marrow_emu_pd_free(struct marrow_emu_pd *pd);

/* Access flags, same bit values as ibv_access_flags. Local read is implied. */
enum marrow_emu_access {
	MARROW_ACCESS_LOCAL_WRITE = 1,
	MARROW_ACCESS_REMOTE_WRITE = 2,
	MARROW_ACCESS_REMOTE_READ = 4,
	MARROW_ACCESS_REMOTE_ATOMIC = 8,
};

/* Registers [addr, addr+len). Keys are mlx5-mkey style: (index << 8) | variant,
 * so a stale key of a deregistered MR does not match a new one. */
MARROW_API int marrow_emu_mr_reg(struct marrow_emu_pd *pd, void *addr, uint64_t len,
				 uint32_t access, struct marrow_emu_mr **out,
				 uint32_t *lkey, uint32_t *rkey);
MARROW_API int marrow_emu_mr_dereg(struct marrow_emu_mr *mr);

/* ---- completion queue ---------------------------------------------------- */

enum marrow_emu_cq_flags {
	MARROW_EMU_CQ_COLLAPSED = 1,      /* cc = 1: every CQE goes to slot 0 */
	MARROW_EMU_CQ_OVERRUN_IGNORE = 2, /* oi = 1: never check the consumer index */
};

struct marrow_emu_cq_attr {
	uint32_t size;          /* sizeof(struct marrow_emu_cq_attr) */
	uint32_t comp_mask;     /* 0 */
	uint32_t log_cqe_cnt;   /* 0..16 (1..65536 entries) */
	uint32_t flags;         /* enum marrow_emu_cq_flags */
};

/* What a poller needs; same meaning as the fields of mlx5dv_cq. */
struct marrow_cq_view {
	uint32_t size;          /* sizeof(struct marrow_cq_view) */
	uint32_t comp_mask;
	uint32_t cqn;
	uint32_t cqe_cnt;
	uint32_t cqe_size;      /* 64 */
	uint32_t flags;         /* enum marrow_emu_cq_flags */
	void *buf;              /* cqe_cnt * 64 bytes, op_own initialised to 0xF0 */
	uint32_t *dbrec;        /* 2 x BE32: word 0 = consumer index (low 24 bits) */
};

MARROW_API int marrow_emu_cq_create(struct marrow_emu_device *dev,
				    const struct marrow_emu_cq_attr *attr,
				    struct marrow_emu_cq **out, struct marrow_cq_view *view);
MARROW_API int marrow_emu_cq_destroy(struct marrow_emu_cq *cq);

/* CQ error state: 1 after an overrun (oi = 0 and the consumer index fell
 * N entries behind); the CQ then accepts no more CQEs. */
MARROW_API int marrow_emu_cq_status(struct marrow_emu_cq *cq, int *in_error);

/* ---- RC queue pair ------------------------------------------------------ */

enum marrow_qp_state {
	MARROW_QPS_RESET = 0,
	MARROW_QPS_INIT = 1,
	MARROW_QPS_RTR = 2,
	MARROW_QPS_RTS = 3,
	MARROW_QPS_ERR = 6,
};

struct marrow_emu_qp_attr {
	uint32_t size;             /* sizeof(struct marrow_emu_qp_attr) */
	uint32_t comp_mask;        /* 0 */
	struct marrow_emu_cq *send_cq;
	struct marrow_emu_cq *recv_cq;   /* may be NULL when log_rq_wqe_cnt == 0 */
	uint32_t log_sq_wqebb_cnt; /* 1..15 (SQ depth <= 32768 WQEBBs) */
	uint32_t log_rq_wqe_cnt;   /* 0 = no RQ; else 1..15 */
	uint32_t max_rq_sge;       /* RQ stride = 16 * next_pow2(max_rq_sge), >= 1 */
	uint32_t max_inline_data;  /* bytes; 0..972 (ds <= 63); checked when posting */
	uint32_t access;           /* remote access allowed on this QP (enum marrow_emu_access) */
	uint32_t reserved;
};

/* What a producer needs; same meaning as the fields of mlx5dv_qp plus qpn. */
struct marrow_qp_view {
	uint32_t size;             /* sizeof(struct marrow_qp_view) */
	uint32_t comp_mask;
	uint32_t qpn;
	uint32_t sq_wqe_cnt;       /* WQEBBs in the SQ ring (power of two) */
	uint32_t sq_stride;        /* 64 */
	uint32_t rq_wqe_cnt;       /* 0 if no RQ */
	uint32_t rq_stride;        /* bytes per RQ entry */
	uint32_t max_inline_data;
	void *sq_buf;              /* sq_wqe_cnt * 64 bytes */
	void *rq_buf;              /* rq_wqe_cnt * rq_stride bytes, or NULL */
	uint32_t *dbrec;           /* 2 x BE32: [0] = RQ counter, [1] = SQ counter */
	void *uar;                 /* doorbell register: producers store 8 bytes here */
	uint64_t uar_size;         /* bytes of the mailbox page (two BlueFlame halves) */
};

MARROW_API int marrow_emu_qp_create(struct marrow_emu_pd *pd, const struct marrow_emu_qp_attr *attr,
				    struct marrow_emu_qp **out, struct marrow_qp_view *view);
MARROW_API int marrow_emu_qp_destroy(struct marrow_emu_qp *qp);

/* RESET->INIT->RTR->RTS, any->ERR, any->RESET. RTR needs the peer: a QP of
 * the same device (loopback: the QP itself, or a second "PE"'s QP).
 * Illegal transitions fail with EINVAL and leave the state unchanged. */
MARROW_API int marrow_emu_qp_modify(struct marrow_emu_qp *qp, int new_state, uint32_t peer_qpn);
MARROW_API int marrow_emu_qp_state(struct marrow_emu_qp *qp, int *state);

/* The retry attributes of ibv_modify_qp (RTR: min_rnr_timer; RTS: timeout,
 * retry_cnt, rnr_retry), with IB meanings: a WRITE to a silent peer ends in
 * TRANSPORT_RETRY_EXC after (retry_cnt + 1) x 4.096 us x 2^timeout
 * (timeout 0 = never); a WRITE_IMM without a receive WQE is retried every
 * min_rnr_timer (IB code) rnr_retry times (7 = forever), then ends in
 * RNR_RETRY_EXC. Defaults, as Marrow's verbs path sets them on a ConnectX:
 * timeout 14, retry_cnt 7, rnr_retry 6, min_rnr_timer 12 (0.64 ms). */
MARROW_API int marrow_emu_qp_set_timers(struct marrow_emu_qp *qp, uint32_t timeout, uint32_t retry_cnt,
					uint32_t rnr_retry, uint32_t min_rnr_timer);

/* Moves qp (in RESET, alone on its page) onto owner's UAR doorbell page, as
 * QPs of one verbs context share a BlueFlame register: producers of both
 * then store their doorbells to *uar; the QPN in each doorbell picks the QP. */
MARROW_API int marrow_emu_qp_share_uar(struct marrow_emu_qp *qp, struct marrow_emu_qp *owner,
				       void **uar);

/* Engine placement (docs/design/software-nic.md §2): a QP is served by
 * engine thread qpn % engine_threads unless set here. set_engine moves qp
 * (any state; the engine is quiesced for the move) to engine thread
 * `thread` (0 .. engine_threads-1); a QP sharing its doorbell page with
 * other QPs is refused (EINVAL: one engine thread polls a page).
 * marrow_emu_qp_engine reports the thread that serves qp now. */
MARROW_API int marrow_emu_qp_set_engine(struct marrow_emu_qp *qp, uint32_t thread);
MARROW_API int marrow_emu_qp_engine(struct marrow_emu_qp *qp, uint32_t *thread);

/* ---- DC transport (docs/design/dc-transport.md) ---------------------------- */

/* A DC target: any DCI of this device may write to it. Its number comes
 * from the QPN space (a DCI's WQE names it in the address vector, 24
 * bits); dc_key is the access key every such WQE must carry. */
struct marrow_emu_dct_attr {
	uint32_t size;          /* sizeof(struct marrow_emu_dct_attr) */
	uint32_t comp_mask;     /* 0 */
	uint64_t dc_key;        /* DC access key */
	uint32_t access;        /* remote access allowed (enum marrow_emu_access) */
	uint32_t reserved;      /* 0 */
};

/* Creates a DCT in pd (the PD its rkeys must belong to); *dctn gets its
 * number. It is ready at once (a DCT has no states to walk here). */
MARROW_API int marrow_emu_dct_create(struct marrow_emu_pd *pd, const struct marrow_emu_dct_attr *attr,
				     struct marrow_emu_dct **out, uint32_t *dctn);
/* Removes the DCT; WQEs that name it afterwards find no target. */
MARROW_API int marrow_emu_dct_destroy(struct marrow_emu_dct *dct);

/* Creates a DC initiator (DCI): a send-only QP (attr->log_rq_wqe_cnt must
 * be 0) whose RDMA WRITE WQEs carry an address vector between the ctrl and
 * the remote-address segment (mx_set_dc_av_seg) and so may name a
 * different DCT in every WQE. The views and doorbells are those of an RC
 * QP; marrow_emu_qp_modify walks it RESET -> INIT -> RTR -> RTS with the
 * peer_qpn argument ignored. Errors (docs/design/dc-transport.md): a wrong
 * DC key ends in REMOTE_ACCESS; a DCT number nobody answers to ends in
 * TRANSPORT_RETRY_EXC after the ACK-timeout retries (qp_set_timers). */
MARROW_API int marrow_emu_dci_create(struct marrow_emu_pd *pd, const struct marrow_emu_qp_attr *attr,
				     struct marrow_emu_qp **out, struct marrow_qp_view *view);

/* ---- watchdog snapshot (docs/design/watchdog.md) -------------------------- */

/* What the engine knows about one QP and its send CQ, taken with the engine
 * parked (consistent; works while it is paused). Indexes are the 16-bit
 * WQEBB counters of the wire format. */
struct marrow_emu_qp_snapshot {
	uint32_t size;               /* sizeof(struct marrow_emu_qp_snapshot) */
	uint32_t comp_mask;
	uint32_t qpn;
	uint32_t state;              /* enum marrow_qp_state */
	uint32_t sq_wqebb_cnt;
	uint32_t sq_db_index;        /* SQ producer index as the engine saw it: furthest doorbell index */
	uint32_t sq_fetch_pi;        /* WQEBBs copied from the SQ */
	uint32_t sq_exec_ci;         /* SQ consumer index: WQEBBs executed */
	uint32_t dbr_send;           /* the SQ dbrec counter value (host order, 16 bits) */
	uint32_t wait_kind;          /* 0 none, 1 RNR retry, 2 ACK timeout of the WQE at sq_exec_ci */
	uint64_t db_pending[2];      /* raw 8-byte doorbells stored but not yet taken (two slots; 0 = empty) */
	uint32_t cqn;                /* the send CQ */
	uint32_t cq_ci;              /* consumer index from the CQ dbrec (24 bits) */
	uint32_t cq_pi;              /* CQEs the engine wrote (free-running) */
	uint32_t cq_in_error;        /* overrun */
	uint32_t last_cqe_valid;     /* 1: the fields below describe the engine's last CQE */
	uint32_t last_cqe_opcode;    /* op_own >> 4 */
	uint32_t last_cqe_syndrome;  /* error CQEs; 0 otherwise */
	uint32_t last_cqe_wqe_counter;
	uint32_t engine_paused;      /* marrow_emu_engine_pause(dev, 1) in force */
	uint32_t reserved;
	/* device-wide engine counters (sums over engine threads) */
	uint64_t doorbells_observed;
	uint64_t doorbells_dropped;
	uint64_t doorbells_stale;
	uint64_t doorbell_recoveries;
	uint64_t wqebb_fetched;
	uint64_t cqe_req;
	uint64_t cqe_req_err;
	uint64_t wqe_sanity_fail;
};

/* Fills *out (out->size must be sizeof(*out)). */
MARROW_API int marrow_emu_qp_snapshot(struct marrow_emu_qp *qp, struct marrow_emu_qp_snapshot *out);

/* Renders the snapshot as one line of " key=value" pairs, every key with
 * the emu_ prefix (emu_qp_state=RTS emu_sq_pi=6 emu_sq_ci=5 ...), into
 * buf[0..len) (NUL-terminated, truncated at a pair boundary). */
MARROW_API int marrow_emu_qp_dump(struct marrow_emu_qp *qp, char *buf, uint32_t len);

/* ---- counters ------------------------------------------------------------ */

/* X-macro: the one list of emulator counters; names carry the emu_ prefix. */
#define MARROW_EMU_COUNTERS(X) \
	X(doorbells_observed)      \
	X(dbrec_advances)          \
	X(wqebb_fetched)           \
	X(fetch_runs)              \
	X(wqe_nop)                 \
	X(wqe_rdma_write)          \
	X(wqe_rdma_write_imm)      \
	X(wqe_other)               \
	X(inline_bytes)            \
	X(gather_bytes)            \
	X(payload_bytes_tx)        \
	X(payload_bytes_rx)        \
	X(cqe_req)                 \
	X(cqe_resp_wr_imm)         \
	X(cqe_req_err)             \
	X(cqe_resp_err)            \
	X(synd_local_length)       \
	X(synd_local_qp_op)        \
	X(synd_local_prot)         \
	X(synd_wr_flush)           \
	X(synd_remote_access)      \
	X(synd_remote_inval_req)   \
	X(rnr_waits)               \
	X(wqe_sanity_fail)         \
	X(sq_overflow)             \
	X(cq_overruns)             \
	X(busy_passes)             \
	X(idle_passes)             \
	X(doorbells_dropped)       \
	X(doorbells_stale)         \
	X(doorbell_recoveries)     \
	X(rnr_naks)                \
	X(ack_timeouts)            \
	X(synd_rnr_retry_exc)      \
	X(synd_transport_retry_exc)

enum marrow_emu_counter_id {
#define MARROW_EMU_COUNTER_ENUM(n) MARROW_EMU_CTR_##n,
	MARROW_EMU_COUNTERS(MARROW_EMU_COUNTER_ENUM)
#undef MARROW_EMU_COUNTER_ENUM
	MARROW_EMU_CTR_COUNT
};

/* Number of counters and the name ("emu_doorbells_observed", ...) of each. */
MARROW_API int marrow_emu_counter_count(void);
MARROW_API const char *marrow_emu_counter_name(int id);

/* Copies a consistent snapshot of the device-wide counters into out[0..n). */
MARROW_API int marrow_emu_counters_read(struct marrow_emu_device *dev, uint64_t *out, uint32_t n);

/* ---- CPU-producer micro-benchmarks (timed loops stay in C) --------------- */

struct marrow_emu_bench_result {
	uint32_t size;             /* sizeof(struct marrow_emu_bench_result) */
	uint32_t comp_mask;
	uint64_t messages;         /* WQEs completed in the timed region */
	uint64_t doorbells;        /* doorbells rung in the timed region */
	uint64_t elapsed_ns;       /* CLOCK_MONOTONIC_RAW */
	uint64_t cqes;             /* CQEs polled in the timed region */
	uint32_t cut_short;        /* 1: the budget (marrow_emu_bench_set_budget) ended the run early;
				    * messages counts what completed (0 when it ended in the warm-up) */
	uint32_t reserved;
};

/* Bounds the rate benchmarks called later on THIS thread (their producer
 * threads inherit it): once budget_ns has passed from now, a run posts no
 * further WQE, retires what it posted and returns MARROW_OK with
 * out->cut_short = 1. 0 removes the bound. Checked every few hundred
 * passes of the posting loop, so a run ends within microseconds of it. */
MARROW_API int marrow_emu_bench_set_budget(uint64_t budget_ns);

/* Message rate: one CPU producer (the calling thread) streams RDMA WRITEs of
 * msg_size bytes (inline if msg_size <= max_inline_data, else pointer from
 * local_addr/lkey) to remote_addr/rkey, `batch` WQEs per doorbell, the last
 * WQE of each batch signaled, keeping the SQ as full as it allows. Runs
 * `warmup` untimed messages first. Validates that every CQE is a success.
 * timeout_ns bounds every wait (ETIMEDOUT). */
MARROW_API int marrow_emu_bench_rate(struct marrow_emu_qp *qp, struct marrow_emu_cq *cq,
				     uint32_t msg_size, uint32_t batch, uint64_t messages,
				     uint64_t warmup, uint64_t local_addr, uint32_t lkey,
				     uint64_t remote_addr, uint32_t rkey, uint64_t timeout_ns,
				     struct marrow_emu_bench_result *out);

/* Message rate of `producers` CPU threads, each streaming to its own
 * loopback QP (log_sq, max_inline) and send CQ, created here on dev and
 * freed before returning. Consecutive QPNs spread the QPs over the device's
 * engine threads. `messages` and `warmup` are per producer; out->messages
 * is the total and out->elapsed_ns runs from the common start to the last
 * producer's last CQE. */
MARROW_API int marrow_emu_bench_rate_parallel(struct marrow_emu_device *dev, uint32_t producers,
					      uint32_t msg_size, uint32_t batch, uint32_t log_sq,
					      uint32_t max_inline, uint64_t messages, uint64_t warmup,
					      uint64_t timeout_ns, struct marrow_emu_bench_result *out);

/* As marrow_emu_bench_rate_parallel; producer_cpus, when not NULL, holds
 * `producers` CPU numbers: producer i runs pinned to producer_cpus[i]
 * (-1 = not pinned). A CPU that cannot be used fails the call (EINVAL). */
MARROW_API int marrow_emu_bench_rate_parallel_pinned(struct marrow_emu_device *dev, uint32_t producers,
						     uint32_t msg_size, uint32_t batch, uint32_t log_sq,
						     uint32_t max_inline, uint64_t messages, uint64_t warmup,
						     uint64_t timeout_ns, const int32_t *producer_cpus,
						     struct marrow_emu_bench_result *out);

/* Put+completion latency: `iters` times, post one signaled RDMA WRITE of
 * msg_size bytes, ring, spin on the CQE; samples_ns[i] = post start -> CQE
 * seen. `warmup` untimed iterations first. */
MARROW_API int marrow_emu_bench_latency(struct marrow_emu_qp *qp, struct marrow_emu_cq *cq,
					uint32_t msg_size, uint64_t iters, uint64_t warmup,
					uint64_t local_addr, uint32_t lkey, uint64_t remote_addr,
					uint32_t rkey, uint64_t timeout_ns, uint64_t *samples_ns);

/* WQE encoding alone, the host-side cost JMH's WqeEncodeBenchmark measures:
 * writes `wqes` RC RDMA WRITE WQEs of msg_size bytes (inline when msg_size <=
 * max_inline, else one pointer segment) into the ring sq of 2^log_sq WQEBBs
 * (sq_bytes: the memory at sq, at least the ring) with the producer code marrow_emu_bench_rate times (emu_producer.h), at
 * WQEBB counters 0, n, 2n, ... (n WQEBBs per WQE), the last one signaled.
 * No dbrec, doorbell or engine: the encoding and its stores only. Inline
 * payloads come from a zeroed static buffer; a pointer WQE names local
 * address 0x1000, lkey 1; every WQE remote address 0x2000, rkey 2.
 * MARROW_EINVAL when sq is NULL or smaller than the ring, log_sq is out of range, max_inline exceeds
 * what one WQE can carry, qpn exceeds 24 bits or one WQE does not fit. */
MARROW_API int marrow_emu_bench_encode(void *sq, uint64_t sq_bytes, uint32_t log_sq, uint32_t qpn,
				       uint32_t msg_size, uint32_t max_inline, uint64_t wqes);

/* An empty function, for the FFM downcall-overhead benchmark. */
MARROW_API int marrow_emu_noop(void);

#ifdef __cplusplus
}
#endif

#endif /* MARROW_SOFTNIC_H */
