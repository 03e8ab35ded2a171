/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * The device engine's ceiling as JSON lines (scripts/device-run.sh, phase family devengine):
 *   softnic_device_rate LIBMARROW_CUDA_SO NQPS NIC_SMS BATCH MSGS_PER_QP [REPEATS]
 * One line per repeat: M msg/s, SMs asked and seen, occupancy, counters.
 * It dlopens libmarrow_cuda.so by path (as Java does) and calls
 * marrow_softnic_device_bench_rate; no GPU -> exit 77 with the reason.
 * Every record is emulated: "hardware": false, "nic": "softnic-device".
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "marrow/marrow_softnic_device.h"

typedef int (*rate_fn)(const struct marrow_softnic_device_rate_config *, struct marrow_softnic_device_rate_result *);
typedef const char *(*err_fn)(void);

static unsigned long long arg(const char *s, const char *what)
{
	char *end = NULL;
	unsigned long long v = strtoull(s, &end, 10);

	if (end == s || *end != 0 || v == 0) {
		fprintf(stderr, "softnic_device_rate: %s '%s' is not a positive integer\n", what, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	if (argc < 6 || argc > 8) {
		fprintf(stderr, "usage: softnic_device_rate LIBMARROW_CUDA_SO NQPS NIC_SMS BATCH MSGS_PER_QP [REPEATS] "
			"[auto|thread|lane]\n");
		return 2;
	}
	uint32_t exec = MARROW_SNDEV_EXEC_AUTO;
	if (argc == 8) {
		if (strcmp(argv[7], "thread") == 0)
			exec = MARROW_SNDEV_EXEC_THREAD;
		else if (strcmp(argv[7], "lane") == 0)
			exec = MARROW_SNDEV_EXEC_LANE;
		else if (strcmp(argv[7], "auto") != 0) {
			fprintf(stderr, "softnic_device_rate: engine layout '%s' is none of auto, thread, lane\n", argv[7]);
			return 2;
		}
	}
	struct marrow_softnic_device_rate_config cfg = {
		.size = sizeof(cfg), .cuda_device = 0, .nic_sms = (uint32_t)arg(argv[3], "NIC_SMS"),
		.threads_per_sm = 0, .nqps = (uint32_t)arg(argv[2], "NQPS"), .log_sq = 10,
		.batch = (uint32_t)arg(argv[4], "BATCH"), .msgs_per_qp = arg(argv[5], "MSGS_PER_QP"),
		.timeout_ns = 2000000000ull, .exec_mode = exec,
	};
	unsigned long long repeats = argc >= 7 ? arg(argv[6], "REPEATS") : 3;
	void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);

	if (h == NULL) {
		fprintf(stderr, "softnic_device_rate: SKIP: cannot load %s: %s\n", argv[1], dlerror());
		return 77;
	}
	rate_fn rate = (rate_fn)dlsym(h, "marrow_softnic_device_bench_rate");
	err_fn last = (err_fn)dlsym(h, "marrow_cuda_last_error");
	if (rate == NULL || last == NULL) {
		fprintf(stderr, "softnic_device_rate: %s lacks marrow_softnic_device_bench_rate\n", argv[1]);
		return 1;
	}
	for (unsigned long long r = 0; r < repeats; r++) {
		struct marrow_softnic_device_rate_result res = {.size = sizeof(res)};
		int rc = rate(&cfg, &res);

		if (rc == MARROW_ENODEV) {
			fprintf(stderr, "softnic_device_rate: SKIP: %s\n", last());
			return 77;
		}
		if (rc != 0) {
			printf("{\"experiment\":\"softnic.device_rate\",\"backend\":\"cuda+softnic-device\",\"hardware\":false,"
			       "\"valid\":false,\"status\":%d,\"error\":\"", rc);
			for (const char *p = last(); *p; p++)
				putchar(*p == '"' || *p == '\\' ? '\'' : *p);
			printf("\"}\n");
			fflush(stdout);
			return 1;
		}
		double mmsg = res.elapsed_ns ? (double)res.messages * 1e3 / (double)res.elapsed_ns : 0.0;
		printf("{\"experiment\":\"softnic.device_rate\",\"backend\":\"cuda+softnic-device\",\"hardware\":false,"
		       "\"gpu_hardware\":true,\"nic_hardware\":false,\"nic\":\"softnic-device\",\"size_bytes\":8,"
		       "\"payload\":\"inline\",\"qps\":%u,\"nic_sms\":%u,\"nic_sms_distinct\":%u,\"threads_per_sm\":%u,\"engine_layout\":\"%s\","
		       "\"engine_blocks_per_sm_max\":%u,\"device_sms\":%u,\"batch\":%u,\"sq_wqebbs\":%u,"
		       "\"msgs_per_qp\":%llu,\"repeat\":%llu,\"messages\":%llu,\"elapsed_ns\":%llu,\"rate_mmsg_s\":%.3f,"
		       "\"cqes\":%llu,\"emu_wqe_rdma_write\":%llu,\"emu_cqe_req_err\":%llu,\"emu_busy_passes\":%llu,"
		       "\"emu_idle_passes\":%llu,\"valid\":true}\n",
		       cfg.nqps, res.nic_sms, res.distinct_sms, res.threads_per_sm,
		       res.exec_mode == MARROW_SNDEV_EXEC_LANE ? "lane" : "thread", res.max_blocks_per_sm, res.device_sms,
		       cfg.batch, 1u << cfg.log_sq, (unsigned long long)cfg.msgs_per_qp, r,
		       (unsigned long long)res.messages, (unsigned long long)res.elapsed_ns, mmsg,
		       (unsigned long long)res.cqes, (unsigned long long)res.engine_writes,
		       (unsigned long long)res.engine_error_cqes, (unsigned long long)res.busy_passes,
		       (unsigned long long)res.idle_passes);
		fflush(stdout);
	}
	return 0;
}
