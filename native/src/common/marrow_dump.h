/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Watchdog dumps (docs/design/watchdog.md): when a bounded wait times out,
 * the error message ends with one line of "key=value" pairs that says what
 * the queues looked like at that moment, so a timeout is diagnosable from
 * the message (and the result record) alone.
 *
 * The formatter reads mlx5-format queues through the same memory the views
 * name (struct marrow_qp_view / marrow_cq_view: SQ dbrec, CQ buffer and
 * dbrec), so the software NIC and a ConnectX QP are described alike; what
 * only a poster knows (its producer and consumer counters) is passed in.
 * The software NIC adds its engine's view (marrow_emu_qp_dump).
 *
 * Internal to the libraries; not part of the public ABI.
 */
#ifndef MARROW_DUMP_H
#define MARROW_DUMP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Separates the human-readable message from the dump. Java parses the
 * key=value pairs after the last occurrence of it (dev.marrow.results.TimeoutDump). */
#define MARROW_DUMP_MARK "; state:"

enum { MARROW_DUMP_MAX = 1024 };

struct marrow_dump {
	char text[MARROW_DUMP_MAX];
	size_t len;
};

void marrow_dump_init(struct marrow_dump *d);
/* Appends " key=<printf value>" (values carry no spaces). */
void marrow_dump_kv(struct marrow_dump *d, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* One SQ as its producer sees it. Pointers may be NULL (not readable). */
struct marrow_dump_sq {
	uint32_t qpn;
	uint32_t has_pi;          /* 1: pi is the producer's free-running WQEBB counter */
	uint32_t pi;
	uint32_t has_ci;          /* 1: ci is the first WQEBB not known complete */
	uint32_t ci;
	const uint32_t *dbrec;    /* QP doorbell record: [1] = SQ counter (BE32) */
	const char *qp_state;     /* "RTS", ... or NULL when unknown (a view has no state) */
};

/* One CQ as its poller sees it. */
struct marrow_dump_cq {
	uint32_t cqn;             /* 0 = unknown */
	const uint8_t *buf;       /* cqe_cnt x 64 bytes */
	const uint32_t *dbrec;    /* [0] = consumer index (BE32, low 24 bits) */
	uint32_t log_cnt;
	uint32_t collapsed;       /* cc = 1: every CQE lands in slot 0 */
	uint32_t has_ci;          /* 1: ci is the poller's consumer index; else the dbrec's */
	uint32_t ci;
};

/* qpn sq_pi sq_ci dbr last_db qp_state (what is known). last_db is the
 * 8-byte doorbell value the producer stored last (our poster rings once per
 * WQE with the exclusive producer index), shown only when pi is known
 * ("none" while pi is 0: nothing rung yet). */
void marrow_dump_sq(struct marrow_dump *d, const struct marrow_dump_sq *sq);
/* cqn cq_ci cq_dbr_ci last_cqe=<op>/<syndrome>/<wqe_counter> next_cqe=...:
 * last_cqe is the slot before the consumer index (slot 0 when collapsed),
 * next_cqe the slot the poller waits on ("invalid" while the NIC has not
 * written it, else op/owner bit/wqe_counter). */
void marrow_dump_cq(struct marrow_dump *d, const struct marrow_dump_cq *cq);

/* "RESET", "INIT", "RTR", "RTS", "ERR" or "UNKNOWN". */
const char *marrow_qp_state_name(int state);
/* "req", "resp_wr_imm", "resp_send", "req_err", "resp_err", "invalid" or "op<n>". */
const char *marrow_cqe_opcode_name(unsigned opcode, char tmp[8]);

/* The syndrome byte of an error CQE; 0 for any other (a good CQE keeps its
 * timestamp in those bytes). */
unsigned marrow_cqe_error_syndrome(const void *cqe);

/* Appends MARROW_DUMP_MARK and the dump to the calling thread's last error
 * (marrow_last_error) and returns status unchanged. */
int marrow_fail_dump(int status, const struct marrow_dump *d);
/* Appends printf text to the calling thread's last error; returns status. */
int marrow_fail_append(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#ifdef __cplusplus
}
#endif

#endif /* MARROW_DUMP_H */
