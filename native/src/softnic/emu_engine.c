/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Engine threads. Each owns the QPs with qpn % nthreads == its index
 * (unless marrow_emu_qp_set_engine placed one explicitly) and loops over
 * passes:
 *  - the active set (QPs that showed activity recently) is polled every pass;
 *  - every sweep_every passes, and after every sleep or park, all other QPs
 *    are polled too, and those with news join the active set;
 *  - a QP leaves the active set after EMU_ACTIVE_HOLD passes without news.
 * hot mode spins with a pause instruction between idle passes; idle mode
 * spins EMU_IDLE_SPIN passes, then sleeps with exponential back-off up to
 * idle_sleep_max_ns, which bounds the extra latency a producer can see
 * (GPU producers cannot wake a sleeping thread). docs/design/software-nic.md
 * §2-3 describes the model.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <stdlib.h>
#include <time.h>

#include "emu_internal.h"

enum {
	EMU_ACTIVE_HOLD = 4096,   /* idle passes before a QP leaves the active set */
	EMU_IDLE_SPIN = 2048,     /* idle passes spun before the first sleep */
	EMU_IDLE_PUBLISH = 4096,  /* publish pass counters at least this often */
	EMU_SLEEP_MIN_NS = 1000,
};

int emu_engine_add_qp(struct emu_thread *t, struct marrow_emu_qp *qp)
{
	if (t->nqps == t->qps_cap) {
		uint32_t cap = t->qps_cap ? t->qps_cap * 2 : 16;
		struct marrow_emu_qp **q = realloc(t->qps, cap * sizeof(*q));
		struct marrow_emu_qp **a;

		if (q == NULL)
			return marrow_fail(MARROW_ENOMEM, "marrow_emu_qp_create: out of memory");
		t->qps = q;
		a = realloc(t->active, cap * sizeof(*a));
		if (a == NULL)
			return marrow_fail(MARROW_ENOMEM, "marrow_emu_qp_create: out of memory");
		t->active = a;
		t->qps_cap = cap;
	}
	qp->in_active = 0;
	qp->idle_passes = 0;
	t->qps[t->nqps++] = qp;
	return MARROW_OK;
}

void emu_engine_remove_qp(struct emu_thread *t, struct marrow_emu_qp *qp)
{
	for (uint32_t i = 0; i < t->nqps; i++) {
		if (t->qps[i] == qp) {
			t->qps[i] = t->qps[--t->nqps];
			break;
		}
	}
	for (uint32_t i = 0; i < t->nactive; i++) {
		if (t->active[i] == qp) {
			t->active[i] = t->active[--t->nactive];
			break;
		}
	}
	qp->in_active = 0;
}

MARROW_API int marrow_emu_qp_set_engine(struct marrow_emu_qp *qp, uint32_t thread)
{
	const char *fn = "marrow_emu_qp_set_engine";
	struct marrow_emu_device *dev;
	int rc = emu_qp_check(qp, fn);

	if (rc)
		return rc;
	dev = qp->pd->dev;
	if (thread >= dev->nthreads)
		return marrow_fail(MARROW_EINVAL, "%s: QP 0x%x: engine thread %u out of range 0..%u", fn, qp->qpn,
				   thread, dev->nthreads - 1);
	pthread_mutex_lock(&dev->ctl_lock);
	if (qp->thread == thread) {
		rc = MARROW_OK;
	} else if (qp->uar->nqps > 1) {
		/* one engine thread polls a doorbell page: its QPs move together or not at all */
		rc = marrow_fail(MARROW_EINVAL, "%s: QP 0x%x shares its doorbell page with %u other QP(s); "
				 "one engine thread serves a page", fn, qp->qpn, qp->uar->nqps - 1);
	} else {
		/* Quiesced: no engine thread is inside a pass, so the QP's progress
		 * state (fetch/exec indexes, shadow) simply travels with it. */
		emu_quiesce(dev);
		emu_engine_remove_qp(&dev->threads[qp->thread], qp);
		rc = emu_engine_add_qp(&dev->threads[thread], qp);
		if (rc == MARROW_OK)
			qp->thread = thread;
		else
			emu_engine_add_qp(&dev->threads[qp->thread], qp); /* back where it was: lists only shrank */
		emu_unquiesce(dev);
	}
	pthread_mutex_unlock(&dev->ctl_lock);
	return rc;
}

MARROW_API int marrow_emu_qp_engine(struct marrow_emu_qp *qp, uint32_t *thread)
{
	struct marrow_emu_device *dev;
	int rc = emu_qp_check(qp, "marrow_emu_qp_engine");

	if (rc)
		return rc;
	if (thread == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_emu_qp_engine: thread is NULL");
	dev = qp->pd->dev;
	pthread_mutex_lock(&dev->ctl_lock);
	*thread = qp->thread;
	pthread_mutex_unlock(&dev->ctl_lock);
	return MARROW_OK;
}

/* Parks until nobody asks any more; returns 1 when the device stops. */
static int engine_park(struct emu_thread *t)
{
	struct marrow_emu_device *dev = t->dev;
	int stop;

	emu_counters_publish(t);
	pthread_mutex_lock(&dev->park_lock);
	t->parked = 1;
	pthread_cond_broadcast(&dev->park_cond);
	while (!dev->stop && (t->ctl_holds || dev->user_paused))
		pthread_cond_wait(&dev->park_cond, &dev->park_lock);
	t->parked = 0;
	stop = dev->stop;
	pthread_mutex_unlock(&dev->park_lock);
	return stop;
}

static void pin_thread(struct emu_thread *t)
{
	cpu_set_t set;
	int cpu = t->dev->engine_cpu;

	if (t->index != 0 || cpu < 0 || cpu >= CPU_SETSIZE)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set) != 0)
		fprintf(stderr, "marrow softnic: could not pin engine thread 0 to CPU %d\n", cpu);
}

void emu_engine_activate(struct emu_thread *t, struct marrow_emu_qp *qp)
{
	qp->idle_passes = 0;
	if (qp->in_active)
		return;
	qp->in_active = 1;
	t->active[t->nactive++] = qp;
}

/* Polls every QP that is not in the active set; adopts those with news.
 * Runs doorbell recovery for QPs on shared pages. */
static int sweep(struct emu_thread *t)
{
	int work = 0;

	for (uint32_t i = 0; i < t->nqps; i++) {
		struct marrow_emu_qp *qp = t->qps[i];

		if (EMU_UNLIKELY(qp->uar->nqps > 1) && emu_qp_recover(t, qp)) {
			emu_engine_activate(t, qp);
			work = 1;
		}
		if (qp->in_active)
			continue;
		if (emu_qp_poll(t, qp)) {
			emu_engine_activate(t, qp);
			work = 1;
		}
	}
	return work;
}

static int poll_active(struct emu_thread *t)
{
	int work = 0;

	for (uint32_t i = 0; i < t->nactive;) {
		struct marrow_emu_qp *qp = t->active[i];

		if (emu_qp_poll(t, qp)) {
			qp->idle_passes = 0;
			work = 1;
			i++;
		} else if (++qp->idle_passes > EMU_ACTIVE_HOLD) {
			qp->in_active = 0;
			t->active[i] = t->active[--t->nactive];
		} else {
			i++;
		}
	}
	return work;
}

void *emu_engine_main(void *arg)
{
	struct emu_thread *t = arg;
	struct marrow_emu_device *dev = t->dev;
	const int hot = dev->poll_mode == MARROW_EMU_POLL_HOT;
	uint32_t pass = 0, idle_run = 0, unpublished = 0;
	uint64_t sleep_ns = 0;
	int need_sweep = 1;
	char name[16];

	snprintf(name, sizeof(name), "marrow-emu%u", t->index);
	pthread_setname_np(pthread_self(), name);
	pin_thread(t);
	/* The default 50 us timer slack would double the bounded sleep. */
	prctl(PR_SET_TIMERSLACK, dev->idle_sleep_max_ns / 8 + 1, 0, 0, 0);

	for (;;) {
		int work;

		if (EMU_UNLIKELY(__atomic_load_n(&t->park_req, __ATOMIC_ACQUIRE))) {
			if (engine_park(t))
				break;
			need_sweep = 1;
		}
		work = poll_active(t);
		if (need_sweep || ++pass >= dev->sweep_every) {
			pass = 0;
			need_sweep = 0;
			work |= sweep(t);
		}
		if (work) {
			/* Messages executed without a CQE in this pass go on the port now. */
			EMU_WIRE_FLUSH(t);
			CTR(t, busy_passes)++;
			emu_counters_publish(t);
			idle_run = 0;
			unpublished = 0;
			sleep_ns = 0;
			continue;
		}
		CTR(t, idle_passes)++;
		if (++unpublished >= EMU_IDLE_PUBLISH) {
			emu_counters_publish(t);
			unpublished = 0;
		}
		if (hot || ++idle_run < EMU_IDLE_SPIN) {
			emu_cpu_relax();
			continue;
		}
		/* Idle mode: back off into sleeps; sweep everything after each. */
		emu_counters_publish(t);
		unpublished = 0;
		sleep_ns = sleep_ns ? sleep_ns * 2 : EMU_SLEEP_MIN_NS;
		if (sleep_ns > dev->idle_sleep_max_ns)
			sleep_ns = dev->idle_sleep_max_ns;
		struct timespec ts = { 0, (long)sleep_ns };

		while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
			;
		need_sweep = 1;
	}
	emu_counters_publish(t);
	return NULL;
}
