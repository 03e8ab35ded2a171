/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Device open/close, engine pause and the quiesce protocol that lets the
 * control path change what the lock-free engine reads.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "emu_internal.h"

enum { EMU_MR_CAP_INIT = 256 };

/* Static links (the ctest executables) pull the archive member that holds
 * the ABI table only when something references it before libmarrow_common
 * is scanned; this reference makes every user of the device do so. */
static const void *const emu_abi_anchor __attribute__((used)) = marrow_abi_table;

uint64_t emu_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Page-aligned, zeroed host memory: the caller may pin or map it into a GPU. */
void *emu_zalloc64(size_t bytes)
{
	size_t n = (bytes + 63) & ~(size_t)63;
	void *p = NULL;

	if (posix_memalign(&p, 64, n) != 0)
		return NULL;
	memset(p, 0, n);
	return p;
}

void *emu_alloc_pages(size_t bytes, size_t *out_bytes)
{
	size_t n = (bytes + EMU_PAGE - 1) & ~(size_t)(EMU_PAGE - 1);
	void *p = NULL;

	if (n == 0)
		n = EMU_PAGE;
	if (posix_memalign(&p, EMU_PAGE, n) != 0)
		return NULL;
	memset(p, 0, n);
	if (out_bytes)
		*out_bytes = n;
	return p;
}

void emu_free_pages(void *p)
{
	free(p);
}

int emu_dev_check(const struct marrow_emu_device *dev, const char *fn)
{
	if (dev == NULL)
		return marrow_fail(MARROW_EINVAL, "%s: device is NULL", fn);
	if (dev->magic != EMU_MAGIC_DEV)
		return marrow_fail(MARROW_EINVAL, "%s: not an open softnic device (bad magic 0x%08x)",
				   fn, dev->magic);
	return MARROW_OK;
}

/* Waits until every running engine thread sits parked. park_lock held. */
static void wait_parked(struct marrow_emu_device *dev)
{
	for (uint32_t i = 0; i < dev->nthreads; i++) {
		struct emu_thread *t = &dev->threads[i];

		while (t->started && !t->parked)
			pthread_cond_wait(&dev->park_cond, &dev->park_lock);
	}
}

void emu_quiesce(struct marrow_emu_device *dev)
{
	pthread_mutex_lock(&dev->park_lock);
	for (uint32_t i = 0; i < dev->nthreads; i++) {
		dev->threads[i].ctl_holds++;
		__atomic_store_n(&dev->threads[i].park_req, 1, __ATOMIC_RELEASE);
	}
	wait_parked(dev);
	pthread_mutex_unlock(&dev->park_lock);
}

/* Clears park requests that nobody holds any more. park_lock held. */
static void release_parked(struct marrow_emu_device *dev)
{
	for (uint32_t i = 0; i < dev->nthreads; i++) {
		struct emu_thread *t = &dev->threads[i];

		if (t->ctl_holds == 0 && !dev->user_paused && !dev->stop)
			__atomic_store_n(&t->park_req, 0, __ATOMIC_RELEASE);
	}
	pthread_cond_broadcast(&dev->park_cond);
}

void emu_unquiesce(struct marrow_emu_device *dev)
{
	pthread_mutex_lock(&dev->park_lock);
	for (uint32_t i = 0; i < dev->nthreads; i++)
		dev->threads[i].ctl_holds--;
	release_parked(dev);
	pthread_mutex_unlock(&dev->park_lock);
}

static void stop_threads(struct marrow_emu_device *dev)
{
	pthread_mutex_lock(&dev->park_lock);
	dev->stop = 1;
	for (uint32_t i = 0; i < dev->nthreads; i++)
		__atomic_store_n(&dev->threads[i].park_req, 1, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&dev->park_cond);
	pthread_mutex_unlock(&dev->park_lock);
	for (uint32_t i = 0; i < dev->nthreads; i++) {
		if (dev->threads[i].started)
			pthread_join(dev->threads[i].tid, NULL);
		dev->threads[i].started = 0;
	}
}

static void free_device(struct marrow_emu_device *dev)
{
	if (dev->threads) {
		for (uint32_t i = 0; i < dev->nthreads; i++) {
			free(dev->threads[i].qps);
			free(dev->threads[i].active);
		}
	}
	free(dev->threads);
	emu_wire_free(dev);
	free(dev->mrs);
	free(dev->mr_variant);
	free(dev->qps);
	free(dev->dcts);
	pthread_mutex_destroy(&dev->ctl_lock);
	pthread_mutex_destroy(&dev->park_lock);
	pthread_cond_destroy(&dev->park_cond);
	dev->magic = EMU_MAGIC_DEAD;
	free(dev);
}

static int check_attr(const struct marrow_emu_device_attr *a)
{
	const char *fn = "marrow_emu_device_open";

	if (a == NULL)
		return marrow_fail(MARROW_EINVAL, "%s: attr is NULL", fn);
	if (a->size != sizeof(*a))
		return marrow_fail(MARROW_EINVAL, "%s: attr->size %u != sizeof(struct marrow_emu_device_attr) %zu",
				   fn, a->size, sizeof(*a));
	if (a->comp_mask != 0)
		return marrow_fail(MARROW_EINVAL, "%s: attr->comp_mask 0x%x: no extensions are defined", fn,
				   a->comp_mask);
	if (a->poll_mode != MARROW_EMU_POLL_IDLE && a->poll_mode != MARROW_EMU_POLL_HOT)
		return marrow_fail(MARROW_EINVAL, "%s: poll_mode %u is neither IDLE (0) nor HOT (1)", fn,
				   a->poll_mode);
	if (a->engine_threads < 1 || a->engine_threads > EMU_MAX_THREADS)
		return marrow_fail(MARROW_EINVAL, "%s: engine_threads %u out of range 1..%d", fn,
				   a->engine_threads, EMU_MAX_THREADS);
	if (a->idle_sleep_max_ns > 100000000u)
		return marrow_fail(MARROW_EINVAL, "%s: idle_sleep_max_ns %u exceeds 100 ms", fn,
				   a->idle_sleep_max_ns);
	if (a->engine_cpu < -1)
		return marrow_fail(MARROW_EINVAL, "%s: engine_cpu %d (use -1 for no pinning)", fn,
				   a->engine_cpu);
	if (a->quiet > 1)
		return marrow_fail(MARROW_EINVAL, "%s: quiet must be 0 or 1, got %u", fn, a->quiet);
	return MARROW_OK;
}

MARROW_API int marrow_emu_device_open(const struct marrow_emu_device_attr *attr,
				      struct marrow_emu_device **out)
{
	struct marrow_emu_device *dev;
	void *threads = NULL;
	int rc;

	rc = check_attr(attr);
	if (rc)
		return rc;
	if (out == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_emu_device_open: out is NULL");
	*out = NULL;

	dev = emu_zalloc64(sizeof(*dev));   /* its locks sit on lines of their own */
	if (dev == NULL)
		return marrow_fail(MARROW_ENOMEM, "marrow_emu_device_open: out of memory");
	dev->magic = EMU_MAGIC_DEV;
	dev->poll_mode = attr->poll_mode;
	dev->nthreads = attr->engine_threads;
	dev->idle_sleep_max_ns = attr->idle_sleep_max_ns ? attr->idle_sleep_max_ns : 50000;
	dev->sweep_every = attr->sweep_every ? attr->sweep_every : 64;
	dev->engine_cpu = attr->engine_cpu;
	dev->time_divisor = 1;
	dev->next_pdn = EMU_PDN_BASE;
	dev->next_cqn = EMU_CQN_BASE;
	dev->next_qpn = EMU_QPN_BASE;
	pthread_mutex_init(&dev->ctl_lock, NULL);
	pthread_mutex_init(&dev->park_lock, NULL);
	pthread_cond_init(&dev->park_cond, NULL);

	dev->mr_cap = EMU_MR_CAP_INIT;
	dev->mrs = calloc(dev->mr_cap, sizeof(*dev->mrs));
	dev->mr_variant = calloc(dev->mr_cap, 1);
	if (posix_memalign(&threads, 64, sizeof(struct emu_thread) * dev->nthreads) == 0) {
		memset(threads, 0, sizeof(struct emu_thread) * dev->nthreads);
		dev->threads = threads;
	}
	if (dev->mrs == NULL || dev->mr_variant == NULL || dev->threads == NULL) {
		free_device(dev);
		return marrow_fail(MARROW_ENOMEM, "marrow_emu_device_open: out of memory");
	}

	for (uint32_t i = 0; i < dev->nthreads; i++) {
		struct emu_thread *t = &dev->threads[i];

		t->dev = dev;
		t->index = i;
	}
	for (uint32_t i = 0; i < dev->nthreads; i++) {
		struct emu_thread *t = &dev->threads[i];

		rc = pthread_create(&t->tid, NULL, emu_engine_main, t);
		if (rc != 0) {
			stop_threads(dev);
			free_device(dev);
			return marrow_fail(MARROW_ENOMEM, "marrow_emu_device_open: pthread_create: %s",
					   strerror(rc));
		}
		t->started = 1;
	}

	if (!attr->quiet)
		fprintf(stderr,
			"marrow softnic: software emulator of an mlx5 RC NIC (no hardware); engine threads=%u mode=%s\n",
			dev->nthreads, dev->poll_mode == MARROW_EMU_POLL_HOT ? "hot" : "idle");
	*out = dev;
	return MARROW_OK;
}

MARROW_API int marrow_emu_device_close(struct marrow_emu_device *dev)
{
	int rc = emu_dev_check(dev, "marrow_emu_device_close");

	if (rc)
		return rc;
	pthread_mutex_lock(&dev->ctl_lock);
	if (dev->n_pd || dev->n_cq || dev->n_qp) {
		rc = marrow_fail(MARROW_EBUSY,
				 "marrow_emu_device_close: device still has %u PD(s), %u CQ(s), %u QP(s); destroy QPs, CQs, MRs and PDs first",
				 dev->n_pd, dev->n_cq, dev->n_qp);
		pthread_mutex_unlock(&dev->ctl_lock);
		return rc;
	}
	pthread_mutex_unlock(&dev->ctl_lock);
	stop_threads(dev);
	free_device(dev);
	return MARROW_OK;
}

MARROW_API int marrow_emu_engine_pause(struct marrow_emu_device *dev, int paused)
{
	int rc = emu_dev_check(dev, "marrow_emu_engine_pause");

	if (rc)
		return rc;
	if (paused != 0 && paused != 1)
		return marrow_fail(MARROW_EINVAL, "marrow_emu_engine_pause: paused must be 0 or 1, got %d",
				   paused);
	pthread_mutex_lock(&dev->ctl_lock);
	pthread_mutex_lock(&dev->park_lock);
	dev->user_paused = paused;
	if (paused) {
		for (uint32_t i = 0; i < dev->nthreads; i++)
			__atomic_store_n(&dev->threads[i].park_req, 1, __ATOMIC_RELEASE);
		/* Returns only once no thread can observe a doorbell any more. */
		wait_parked(dev);
	} else {
		release_parked(dev);
	}
	pthread_mutex_unlock(&dev->park_lock);
	pthread_mutex_unlock(&dev->ctl_lock);
	return MARROW_OK;
}

MARROW_API int marrow_emu_engine_pin(struct marrow_emu_device *dev, const int32_t *cpus, uint32_t n)
{
	const char *fn = "marrow_emu_engine_pin";
	int rc = emu_dev_check(dev, fn);

	if (rc)
		return rc;
	if (cpus == NULL && n != 0)
		return marrow_fail(MARROW_EINVAL, "%s: cpus is NULL", fn);
	if (n != dev->nthreads)
		return marrow_fail(MARROW_EINVAL, "%s: %u CPU(s) given for %u engine thread(s)", fn, n,
				   dev->nthreads);
	for (uint32_t i = 0; i < n; i++) {
		cpu_set_t set;
		int err;

		if (cpus[i] == -1)
			continue;
		if (cpus[i] < 0 || cpus[i] >= CPU_SETSIZE)
			return marrow_fail(MARROW_EINVAL, "%s: CPU %d for engine thread %u out of range 0..%d",
					   fn, cpus[i], i, CPU_SETSIZE - 1);
		CPU_ZERO(&set);
		CPU_SET(cpus[i], &set);
		err = pthread_setaffinity_np(dev->threads[i].tid, sizeof(set), &set);
		if (err)
			return marrow_fail(MARROW_EINVAL, "%s: cannot pin engine thread %u to CPU %d: %s", fn,
					   i, cpus[i], strerror(err));
	}
	return MARROW_OK;
}

MARROW_API int marrow_emu_device_time_divisor(struct marrow_emu_device *dev, uint32_t divisor)
{
	int rc = emu_dev_check(dev, "marrow_emu_device_time_divisor");

	if (rc)
		return rc;
	if (divisor < 1 || divisor > 1000000)
		return marrow_fail(MARROW_EINVAL, "marrow_emu_device_time_divisor: divisor %u out of range 1..1000000",
				   divisor);
	pthread_mutex_lock(&dev->ctl_lock);
	emu_quiesce(dev);
	dev->time_divisor = divisor;
	emu_unquiesce(dev);
	pthread_mutex_unlock(&dev->ctl_lock);
	return MARROW_OK;
}

MARROW_API int marrow_emu_noop(void)
{
	return MARROW_OK;
}
