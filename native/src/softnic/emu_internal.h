/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * softnic internals: object layouts shared by the control path (emu_device.c,
 * emu_mr.c, emu_cq.c, emu_qp.c) and the engine (emu_engine.c, emu_exec.c).
 *
 * Concurrency model:
 *  - control-path calls hold dev->ctl_lock and "quiesce" the engine (every
 *    engine thread parks at the top of its loop) before they change anything
 *    the engine reads: QP lists, the MR table, QP state and peer pointers.
 *    The one exception is MR registration, which fills a free slot and
 *    publishes its key last. The data path therefore takes no locks (a
 *    collapsed CQ written by several engine threads aside);
 *  - the only objects engine threads share with each other are CQs (atomic
 *    producer counter) and a peer QP's receive-queue consumer (CAS);
 *  - counters are per engine thread, published through a seqlock.
 */
#ifndef MARROW_EMU_INTERNAL_H
#define MARROW_EMU_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "common/marrow_common.h"
#include "marrow/marrow_softnic.h"
#include "marrow/mlx5_wqe.h"

/* The execution core (emu_exec_core.h) is also compiled by nvcc for the
 * device engine (docs/design/device-engine.md): these spellings keep this
 * header valid C++ and give the tiny load helpers a device form. */
#ifdef __cplusplus
#define EMU_STATIC_ASSERT(c, m) static_assert(c, m)
#define EMU_ALIGNOF(t) alignof(t)
#else
#define EMU_STATIC_ASSERT(c, m) _Static_assert(c, m)
#define EMU_ALIGNOF(t) _Alignof(t)
#endif
#if defined(__CUDACC__)
#define EMU_HD static __host__ __device__ __forceinline__
#else
#define EMU_HD static inline
#endif

#define EMU_LIKELY(x) __builtin_expect(!!(x), 1)
#define EMU_UNLIKELY(x) __builtin_expect(!!(x), 0)

enum {
	EMU_PAGE = 4096,
	EMU_QPN_BASE = 0x100,    /* first QPN; 24-bit space */
	EMU_CQN_BASE = 0x400,    /* first CQN */
	EMU_PDN_BASE = 0x10,
	EMU_MAX_THREADS = 64,
	EMU_MAX_DS = MX_MAX_WQE_DS,             /* ds is 6 bits on the wire */
	EMU_MAX_WQE_BBS = (EMU_MAX_DS + 3) / 4, /* 16: largest WQE */
	EMU_MAX_INLINE = MX_MAX_INLINE_RC_WRITE, /* 972 B: ds 63 */
	EMU_MAX_RQ_SGE = 64,
	EMU_SHADOW_MAX = 256,    /* WQEBBs copied ahead of execution, per QP */
	EMU_UAR_SIZE = 4096,     /* one doorbell page per QP unless shared */
	EMU_UAR_HALF = 256,      /* two BlueFlame halves at +0 and +256 */
	EMU_UAR_MAX_QPS = 16,    /* QPs that may share one doorbell page */
	EMU_MAX_MR_INDEX = 1 << 24,
	EMU_MSG_MAX = 0x80000000u, /* 2^31: transport message-length limit */
};

/* Emulator vendor syndromes (byte 54 of an error CQE). Firmware never uses
 * 0xE0..0xEF for these, so nobody mistakes them for real ConnectX codes.
 * Table of causes: docs/design/software-nic.md §7. */
enum {
	EMU_VSYND_BAD_LKEY = 0xE1,       /* LOCAL_PROT: unknown/stale lkey or other PD */
	EMU_VSYND_LKEY_RANGE = 0xE2,     /* LOCAL_PROT: gather outside the MR */
	EMU_VSYND_LKEY_RIGHTS = 0xE3,    /* LOCAL_PROT: MR lacks a local right */
	EMU_VSYND_BAD_RKEY = 0xE4,       /* REMOTE_ACCESS: unknown/stale rkey or other PD */
	EMU_VSYND_RKEY_RANGE = 0xE5,     /* REMOTE_ACCESS: target outside the MR */
	EMU_VSYND_RKEY_RIGHTS = 0xE6,    /* REMOTE_ACCESS: MR lacks REMOTE_WRITE */
	EMU_VSYND_QP_RIGHTS = 0xE7,      /* REMOTE_ACCESS: peer QP or DCT lacks REMOTE_WRITE, or
					  * the DC key differs from the DCT's: the target refuses */
	EMU_VSYND_MALFORMED = 0xE8,      /* LOCAL_QP_OP: ds/qpn/index/segment check */
	EMU_VSYND_BAD_OPCODE = 0xE9,     /* LOCAL_QP_OP: opcode not emulated */
	/* 0xEA unused: inline > max_inline_data is a posting-side check */
	EMU_VSYND_MSG_LEN = 0xEB,        /* LOCAL_LENGTH: message > 2^31 bytes */
	EMU_VSYND_SQ_OVERFLOW = 0xEC,    /* LOCAL_QP_OP: producer ran > SQ size ahead */
	EMU_VSYND_PEER_DOWN = 0xED,      /* TRANSPORT_RETRY_EXC: peer gone / not RTR,RTS */
	EMU_VSYND_RNR = 0xE0,            /* RNR_RETRY_EXC: no receive WQE after rnr_retry */
	EMU_VSYND_PEER_NO_RQ = 0xEE,     /* REMOTE_INVAL_REQ: WRITE_IMM to a QP without RQ */
	EMU_VSYND_FLUSH = 0xEF,          /* WR_FLUSH: QP in ERR */
};

#define EMU_MAGIC_DEV 0x454d5544u
#define EMU_MAGIC_PD 0x454d5550u
#define EMU_MAGIC_MR 0x454d554du
#define EMU_MAGIC_CQ 0x454d5543u
#define EMU_MAGIC_QP 0x454d5551u
#define EMU_MAGIC_DCT 0x454d5554u
#define EMU_MAGIC_DEAD 0xdeadbeefu

/* ---- counters ------------------------------------------------------------ */

/* Published copy of one engine thread's counters (single writer). */
struct emu_ctr_block {
	uint32_t seq;
	uint32_t pad;
	uint64_t v[MARROW_EMU_CTR_COUNT];
} __attribute__((aligned(64)));

#define CTR(t, name) ((t)->local[MARROW_EMU_CTR_##name])

/* ---- objects ---------------------------------------------------------------- */

/* One MR-table entry, indexed by key >> 8. key == 0 means free. */
struct emu_mr_slot {
	uint64_t base;
	uint64_t len;
	const struct marrow_emu_pd *pd;
	uint32_t key;
	uint32_t access;
};

struct marrow_emu_pd {
	uint32_t magic;
	uint32_t pdn;
	struct marrow_emu_device *dev;
	uint32_t n_mr;
	uint32_t n_qp;
};

/* A DC target (docs/design/dc-transport.md): what a DCI's WQE is checked
 * against. Read by the engine; created and destroyed only while the
 * engine is quiesced. */
struct marrow_emu_dct {
	uint32_t magic;
	uint32_t dctn;
	uint64_t dc_key;
	struct marrow_emu_pd *pd;
	uint32_t access;
};

struct marrow_emu_mr {
	uint32_t magic;
	uint32_t index;
	uint32_t key;
	struct marrow_emu_pd *pd;
};

struct marrow_emu_cq {
	/* read by the engine */
	uint8_t *buf;
	uint32_t *dbrec;
	uint32_t log_n;
	uint32_t mask;
	uint32_t flags;
	uint32_t cqn;
	uint32_t multi_writer;                       /* engine_threads > 1 */
	uint32_t prod __attribute__((aligned(64))); /* CQEs written (free-running) */
	uint32_t in_error;
	uint32_t lock;                               /* collapsed-CQ writers */
	uint32_t ci_seen;                            /* last consumer index read */
	/* control path */
	uint32_t magic __attribute__((aligned(64)));
	uint32_t refcnt;                             /* QPs using this CQ */
	struct marrow_emu_device *dev;
};

/* A doorbell page. Each QP gets its own unless it joins another QP's page
 * (marrow_emu_qp_share_uar); the QPN in a doorbell picks the QP. */
struct emu_uar {
	uint8_t *page;             /* EMU_UAR_SIZE; doorbell slots at +0 and +EMU_UAR_HALF */
	uint32_t nqps;
	struct marrow_emu_qp *qps[EMU_UAR_MAX_QPS];
} __attribute__((aligned(64)));   /* read every poll: no line shared with written data */

/* Why the WQE at exec_ci waits (timers from the QP's attributes). */
enum { EMU_WAIT_NONE = 0, EMU_WAIT_RNR = 1, EMU_WAIT_ACK = 2 };

struct marrow_emu_qp {
	/* read by the engine on every pass */
	uint32_t qpn;
	uint32_t state;            /* enum marrow_qp_state; atomic */
	struct emu_uar *uar;
	const uint32_t *dbrec;
	uint8_t *sq;
	uint8_t *shadow;           /* engine-private copy of fetched WQEBBs */
	uint32_t sq_cnt;
	uint32_t sq_mask;
	uint32_t sh_cnt;
	uint32_t sh_mask;
	uint16_t fetch_pi;         /* WQEBBs copied into the shadow */
	uint16_t exec_ci;          /* WQEBBs executed / retired */
	uint16_t last_target;      /* last doorbell target acted on */
	uint16_t db_target;        /* furthest exclusive WQEBB index any doorbell named */
	uint16_t rnr_wait;         /* WQE at exec_ci waits (wait_kind says why) */
	uint8_t wait_kind;         /* EMU_WAIT_* */
	uint8_t tries_left;        /* retries left before the error (7 = RNR forever) */
	uint64_t retry_at_ns;      /* next retry of the waiting WQE */
	uint32_t dbr_seen;         /* recovery: DBR send counter at the last sweep, +1<<16 if valid */
	struct marrow_emu_qp *peer;
	struct emu_shmwire_link *shmwire; /* peer in another process (emu_shmwire.c), else NULL */
	struct marrow_emu_cq *scq;
	struct marrow_emu_cq *rcq;
	struct marrow_emu_pd *pd;
	uint32_t max_inline;
	uint32_t access;
	uint32_t uidx;             /* user index written into CQE srqn_uidx */
	uint32_t dci;              /* 1: a DC initiator; its WQEs carry an AV, peer is NULL */
	uint8_t timeout;           /* ack timeout exponent: 4.096 us << timeout; 0 = forever */
	uint8_t retry_cnt;
	uint8_t rnr_retry;         /* 7 = forever */
	uint8_t min_rnr_timer;     /* IB RNR timer code */
	uint32_t rq_cnt;
	uint32_t rq_ci;            /* RQ WQEs consumed; CAS (peers consume it) */
	/* engine bookkeeping (owner thread only) */
	uint32_t idle_passes;
	uint32_t in_active;
	uint32_t thread;
	/* control path */
	uint32_t magic;
	uint32_t rq_stride;
	uint8_t *rq;
	uint32_t *dbrec_page;
	size_t sq_bytes;
	size_t rq_bytes;
} __attribute__((aligned(64)));   /* one owner engine writes it: lines of its own */

struct emu_piece {
	const uint8_t *src;
	uint32_t len;
};

/* One engine thread. Fields above `local` change only while it is parked. */
struct emu_thread {
	struct marrow_emu_device *dev;
	pthread_t tid;
	uint32_t index;
	int started;
	uint32_t park_req;         /* atomic: park at the top of the next pass */
	int parked;                /* under dev->park_lock */
	int ctl_holds;             /* under dev->park_lock */
	struct marrow_emu_qp **qps;
	uint32_t nqps;
	uint32_t qps_cap;
	struct marrow_emu_qp **active;
	uint32_t nactive;
	/* Running totals, written on every WQE; published by copy. Own lines,
	 * apart from park_req (written by the control path). */
	uint64_t local[MARROW_EMU_CTR_COUNT] __attribute__((aligned(64)));
	struct emu_ctr_block pub;
	uint8_t wrapbuf[EMU_MAX_WQE_BBS * MX_WQEBB_SIZE] __attribute__((aligned(64)));
	struct emu_piece pieces[EMU_MAX_DS];
};

struct marrow_emu_device {
	uint32_t magic;
	uint32_t poll_mode;
	uint32_t nthreads;
	uint32_t idle_sleep_max_ns;
	uint32_t sweep_every;
	int32_t engine_cpu;
	uint32_t time_divisor;     /* QP timers run this many times faster (1 = ConnectX) */
	struct emu_wire *wire;     /* wire model (emu_wire.c) or NULL; set while quiesced */
	/* MR table: read by the engine, resized only while quiesced */
	struct emu_mr_slot *mrs;
	uint32_t mr_cap;
	/* DC targets: read by the engine (DCI WQEs), changed only while quiesced */
	struct marrow_emu_dct **dcts;
	uint32_t dcts_len;
	uint32_t dcts_cap;
	/* control path */
	uint32_t mr_hint;          /* where the next free-slot scan starts */
	/* The locks change whenever the control path runs: off the lines the
	 * engines read on every WQE (mrs, mr_cap). */
	pthread_mutex_t ctl_lock __attribute__((aligned(64)));
	pthread_mutex_t park_lock;
	pthread_cond_t park_cond;
	int stop;                  /* under park_lock */
	int user_paused;           /* under park_lock */
	uint32_t n_pd;
	uint32_t n_cq;
	uint32_t n_qp;
	uint32_t next_pdn;
	uint32_t next_cqn;
	uint32_t next_qpn;
	uint32_t next_uidx;
	uint8_t *mr_variant;       /* per slot: last key variant handed out */
	struct marrow_emu_qp **qps; /* all QPs, for peer lookup */
	uint32_t qps_len;
	uint32_t qps_cap;
	struct emu_thread *threads;
};

/* No false sharing on the hot path (docs/design/softnic-fidelity.md §5):
 * per-engine and per-QP state written by one engine thread sits on cache
 * lines of its own, as do a CQ's producer fields and each counter block. */
EMU_STATIC_ASSERT(sizeof(struct emu_thread) % 64 == 0, "engine threads share a line");
EMU_STATIC_ASSERT(offsetof(struct emu_thread, local) % 64 == 0, "counters share a line");
EMU_STATIC_ASSERT(offsetof(struct emu_thread, pub) % 64 == 0, "counter block shares a line");
EMU_STATIC_ASSERT(EMU_ALIGNOF(struct marrow_emu_qp) == 64 && sizeof(struct marrow_emu_qp) % 64 == 0,
	       "QPs share a line");
EMU_STATIC_ASSERT(EMU_ALIGNOF(struct emu_uar) == 64, "doorbell page descriptors share a line");
EMU_STATIC_ASSERT(offsetof(struct marrow_emu_cq, prod) % 64 == 0 &&
	       offsetof(struct marrow_emu_cq, magic) - offsetof(struct marrow_emu_cq, prod) >= 64 &&
	       sizeof(struct marrow_emu_cq) % 64 == 0, "CQ producer fields share a line");
EMU_STATIC_ASSERT(sizeof(struct emu_ctr_block) % 64 == 0, "counter blocks share a line");

/* ---- helpers ---------------------------------------------------------------- */

static inline void emu_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

/* p is 4-byte aligned wherever the engine reads a WQE or doorbell field. */
EMU_HD uint32_t emu_ld32(const void *p)
{
#if defined(__CUDA_ARCH__)
	return *(const uint32_t *)p;
#else
	uint32_t v;
	__builtin_memcpy(&v, p, 4);
	return v;
#endif
}

EMU_HD uint32_t emu_be32(const void *p)
{
	return mx_be32toh(emu_ld32(p));
}

EMU_HD uint64_t emu_be64(const void *p)
{
	return ((uint64_t)emu_be32(p) << 32) | emu_be32((const uint8_t *)p + 4);
}

/* Copies 1..32 bytes without a library call: at most four loads, all done
 * before any store (head and tail pieces may overlap). src and dst must not
 * overlap. For the one-WQEBB inline payloads of the hot paths. */
static inline void emu_copy_small(uint8_t *dst, const uint8_t *src, uint32_t n)
{
	if (n >= 16) {
		uint64_t a, b, c, d;

		__builtin_memcpy(&a, src, 8);
		__builtin_memcpy(&b, src + 8, 8);
		__builtin_memcpy(&c, src + n - 16, 8);
		__builtin_memcpy(&d, src + n - 8, 8);
		__builtin_memcpy(dst, &a, 8);
		__builtin_memcpy(dst + 8, &b, 8);
		__builtin_memcpy(dst + n - 16, &c, 8);
		__builtin_memcpy(dst + n - 8, &d, 8);
	} else if (n >= 8) {
		uint64_t a, b;

		__builtin_memcpy(&a, src, 8);
		__builtin_memcpy(&b, src + n - 8, 8);
		__builtin_memcpy(dst, &a, 8);
		__builtin_memcpy(dst + n - 8, &b, 8);
	} else if (n >= 4) {
		uint32_t a, b;

		__builtin_memcpy(&a, src, 4);
		__builtin_memcpy(&b, src + n - 4, 4);
		__builtin_memcpy(dst, &a, 4);
		__builtin_memcpy(dst + n - 4, &b, 4);
	} else {
		uint8_t a = src[0], b = src[n / 2], c = src[n - 1];

		dst[0] = a;
		dst[n / 2] = b;
		dst[n - 1] = c;
	}
}

uint64_t emu_now_ns(void);
void *emu_alloc_pages(size_t bytes, size_t *out_bytes);
/* Zeroed memory on cache lines of its own (size rounded up to 64 B); free(). */
void *emu_zalloc64(size_t bytes);
void emu_free_pages(void *p);

/* emu_device.c: engine quiescence around control-path changes. Callers hold
 * dev->ctl_lock. */
void emu_quiesce(struct marrow_emu_device *dev);
void emu_unquiesce(struct marrow_emu_device *dev);
int emu_dev_check(const struct marrow_emu_device *dev, const char *fn);

/* emu_engine.c */
void *emu_engine_main(void *arg);
int emu_engine_add_qp(struct emu_thread *t, struct marrow_emu_qp *qp);
void emu_engine_remove_qp(struct emu_thread *t, struct marrow_emu_qp *qp);

/* emu_exec.c: one poll of one QP; nonzero if anything changed. */
int emu_qp_poll(struct emu_thread *t, struct marrow_emu_qp *qp);
/* Doorbell recovery for a QP on a shared page (full sweeps only). */
int emu_qp_recover(struct emu_thread *t, struct marrow_emu_qp *qp);
/* emu_engine.c: makes sure the owner polls qp every pass for a while. */
void emu_engine_activate(struct emu_thread *t, struct marrow_emu_qp *qp);
/* Nanoseconds of the IB timers, scaled by the device's time divisor. */
uint64_t emu_ack_timeout_ns(const struct marrow_emu_device *dev, uint32_t timeout);
uint64_t emu_rnr_timer_ns(const struct marrow_emu_device *dev, uint32_t code);

/* emu_exec_core.h (compiled into emu_exec.c for the CPU engine) */
void emu_cqe_post(struct emu_thread *t, struct marrow_emu_cq *cq, uint8_t cqe_opcode,
		  uint8_t sop, const struct marrow_emu_qp *qp, uint16_t wqe_counter,
		  uint32_t byte_cnt, uint32_t imm_be, uint8_t synd, uint8_t vsynd);
/* The CQE timestamp: a free-running counter (TSC on x86-64). */
uint64_t emu_cqe_clock(void);
const char *emu_syndrome_name(uint8_t synd);
int emu_cq_check(const struct marrow_emu_cq *cq, const char *fn);

/* emu_mr.c */
int emu_pd_check(const struct marrow_emu_pd *pd, const char *fn);

/* emu_qp.c */
int emu_qp_check(const struct marrow_emu_qp *qp, const char *fn);

/* emu_wire.c: the wire model (docs/design/wire-model.md). EMU_WIRE_SENT
 * after every executed message (adds it to the thread's burst);
 * emu_wire_hold before a successful CQE (puts the burst on the port, then
 * waits for it to leave); EMU_WIRE_FLUSH at the end of an engine pass that
 * did work (puts the burst on the port). */
struct emu_wire;
void emu_wire_account(struct emu_thread *t, uint64_t len, int with_imm);
void emu_wire_flush(struct emu_thread *t);
void emu_wire_hold(struct emu_thread *t);
void emu_wire_free(struct marrow_emu_device *dev);
#define EMU_WIRE_SENT(t, len, imm)                                        \
	do {                                                              \
		if (EMU_UNLIKELY((t)->dev->wire != NULL))                 \
			emu_wire_account((t), (len), (imm));              \
	} while (0)
#define EMU_WIRE_FLUSH(t)                                                 \
	do {                                                              \
		if (EMU_UNLIKELY((t)->dev->wire != NULL))                 \
			emu_wire_flush(t);                                \
	} while (0)

/* emu_counters.c */
void emu_counters_publish(struct emu_thread *t);

/* emu_snapshot.c: appends the engine's view of qp (emu_ keys) to a
 * watchdog dump; a control-path call (parks the engine briefly). */
struct marrow_dump;
int emu_qp_dump(struct marrow_emu_qp *qp, struct marrow_dump *d);

#endif /* MARROW_EMU_INTERNAL_H */
