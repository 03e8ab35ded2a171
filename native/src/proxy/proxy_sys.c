/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * mini-proxy host helpers: clock, pause, pinning, core frequency and the
 * NIC's NUMA-local CPUs, all read from Linux interfaces that may be absent
 * (containers often hide cpufreq): absence is reported as 0 / ENOENT, never
 * guessed.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "proxy_internal.h"

uint64_t px_now_ns(void)
{
	struct timespec ts;

	/* MONOTONIC_RAW: not slewed by NTP while a run is timed. */
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void px_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

void px_idle(const struct marrow_proxy *px)
{
	if (px->cfg.yield_idle)
		sched_yield();
	else
		px_relax();
}

int px_pin_self(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return MARROW_OK;
	if (cpu >= CPU_SETSIZE)
		return marrow_fail(MARROW_EINVAL, "cpu %d out of range", cpu);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set) != 0)
		return marrow_fail(MARROW_EINVAL, "cannot pin to cpu %d (not in this process's cpuset?)", cpu);
	return MARROW_OK;
}

uint64_t px_cpu_freq_khz(int cpu)
{
	char path[96];
	unsigned long long khz = 0;
	FILE *f;

	if (cpu < 0)
		return 0;
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", cpu);
	f = fopen(path, "r");
	if (f == NULL)
		return 0;
	if (fscanf(f, "%llu", &khz) != 1)
		khz = 0;
	fclose(f);
	return khz;
}

/* Parses a sysfs cpulist ("0-3,8,10-11"). */
static uint32_t parse_cpulist(const char *s, int32_t *cpus, uint32_t max)
{
	uint32_t n = 0;

	while (*s && n < max) {
		char *end;
		long a = strtol(s, &end, 10), b;

		if (end == s)
			break;
		b = a;
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			s = end;
		}
		for (long c = a; c <= b && n < max; c++)
			cpus[n++] = (int32_t)c;
		if (*s == ',')
			s++;
		else
			break;
	}
	return n;
}

MARROW_API int marrow_proxy_nic_cpus(const char *ibdev, int32_t *cpus, uint32_t max, uint32_t *n)
{
	char path[256], buf[1024];
	int node = -1;
	FILE *f;

	if (ibdev == NULL || cpus == NULL || n == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_nic_cpus: NULL argument");
	*n = 0;
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device/numa_node", ibdev);
	f = fopen(path, "r");
	if (f == NULL)
		return marrow_fail(MARROW_ENOENT, "NUMA node of %s unknown (%s not readable)", ibdev, path);
	if (fscanf(f, "%d", &node) != 1)
		node = -1;
	fclose(f);
	if (node < 0)
		return marrow_fail(MARROW_ENOENT, "%s reports no NUMA node (numa_node = -1)", ibdev);
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", node);
	f = fopen(path, "r");
	if (f == NULL)
		return marrow_fail(MARROW_ENOENT, "cpulist of NUMA node %d not readable", node);
	if (fgets(buf, sizeof(buf), f) == NULL)
		buf[0] = '\0';
	fclose(f);
	*n = parse_cpulist(buf, cpus, max);
	return *n ? MARROW_OK : marrow_fail(MARROW_ENOENT, "NUMA node %d lists no CPUs", node);
}

MARROW_API int marrow_proxy_buffer_bytes(uint32_t rings, uint32_t log_slots, uint32_t msg_size, uint64_t *out)
{
	uint64_t half;

	if (out == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_buffer_bytes: out is NULL");
	/* the same limits and words as the proxy's config check (proxy_core.c): a run sized here
	 * before the proxy opens is refused as the run itself would be */
	if (log_slots < 1 || log_slots > MPR_MAX_LOG_SLOTS)
		return marrow_fail(MARROW_EINVAL, "log-slots %d must be 1..%d", (int)log_slots, MPR_MAX_LOG_SLOTS);
	if (rings == 0)
		return marrow_fail(MARROW_EINVAL, "rings 0 must be >= 1");
	if (msg_size == 0)
		return marrow_fail(MARROW_EINVAL, "size 0 must be >= 1");
	half = MARROW_PROXY_AREA_LAT + (uint64_t)rings * (1ull << log_slots) * msg_size;
	*out = (2 * half + 4095) & ~4095ull;
	return MARROW_OK;
}
