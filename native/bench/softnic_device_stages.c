/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Where the device engine's put+completion goes, as JSON lines
 * (scripts/device-run.sh, phase family devlat2, docs/design/device-engine.md §2.1):
 *   softnic_device_stages LIBMARROW_CUDA_SO inline|pointer [ITERS] [WARMUP] [NIC_SMS]
 * One line per engine stage (median SM cycles and ns), one for the
 * initiator-visible put+completion of the same run, and one for their
 * difference (doorbell and CQE visibility: what no engine stamp covers).
 * It dlopens libmarrow_cuda.so by path (as Java does) and calls
 * marrow_softnic_device_bench_stages; no GPU -> exit 77 with the reason.
 * Every record is emulated: "hardware": false, "nic": "softnic-device".
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "marrow/marrow_softnic_device.h"

typedef int (*stages_fn)(const struct marrow_softnic_device_stages_config *,
			 struct marrow_softnic_device_stages_result *);
typedef const char *(*err_fn)(void);

static unsigned long long arg(const char *s, const char *what, int zero_ok)
{
	char *end = NULL;
	unsigned long long v = strtoull(s, &end, 10);

	if (end == s || *end != 0 || (v == 0 && !zero_ok) || v > 65536) {
		fprintf(stderr, "softnic_device_stages: %s '%s' is not an integer in %d..65536\n", what, s, !zero_ok);
		exit(2);
	}
	return v;
}

static void record(const struct marrow_softnic_device_stages_config *cfg,
		   const struct marrow_softnic_device_stages_result *r, const char *stage, const char *covers,
		   long long cycles)
{
	double ns = r->sm_clock_khz ? (double)cycles * 1e6 / (double)r->sm_clock_khz : 0.0;

	printf("{\"experiment\":\"softnic.device_stages\",\"backend\":\"cuda+softnic-device\",\"hardware\":false,"
	       "\"gpu_hardware\":true,\"nic_hardware\":false,\"nic\":\"softnic-device\",\"queues\":\"gpu\","
	       "\"ordering\":\"gpu-fence\",\"payload\":\"%s\",\"size_bytes\":8,\"nic_sms\":%u,\"iters\":%u,"
	       "\"warmup\":%u,\"profiled\":%u,\"stage\":\"%s\",\"covers\":\"%s\",\"p50_cycles\":%lld,"
	       "\"p50_ns\":%.1f,\"sm_clock_khz\":%llu,\"sm_clock_source\":\"clock64 over globaltimer, engine SM, "
	       "during the run\",\"sm_clock_khz_attribute\":%llu,\"putc_min_cycles\":%llu,\"initiator_smid\":%u,"
	       "\"engine_smid\":%u,\"device_sms\":%u,\"emu_wqe_rdma_write\":%llu,\"emu_cqe_req_err\":%llu,"
	       "\"valid\":true}\n",
	       cfg->pointer ? "pointer" : "inline", cfg->nic_sms, r->iters, cfg->warmup, r->profiled, stage, covers,
	       cycles, ns, (unsigned long long)r->sm_clock_khz, (unsigned long long)r->sm_clock_khz_attribute,
	       (unsigned long long)r->putc_min_cycles, r->initiator_smid, r->engine_smid, r->device_sms,
	       (unsigned long long)r->engine_writes, (unsigned long long)r->engine_error_cqes);
}

int main(int argc, char **argv)
{
	if (argc < 3 || argc > 6 || (strcmp(argv[2], "inline") != 0 && strcmp(argv[2], "pointer") != 0)) {
		fprintf(stderr, "usage: softnic_device_stages LIBMARROW_CUDA_SO inline|pointer [ITERS] [WARMUP] [NIC_SMS]\n");
		return 2;
	}
	struct marrow_softnic_device_stages_config cfg = {
		.size = sizeof(cfg), .cuda_device = 0, .nic_sms = argc > 5 ? (uint32_t)arg(argv[5], "NIC_SMS", 0) : 1,
		.pointer = strcmp(argv[2], "pointer") == 0, .iters = argc > 3 ? (uint32_t)arg(argv[3], "ITERS", 0) : 4000,
		.warmup = argc > 4 ? (uint32_t)arg(argv[4], "WARMUP", 1) : 96, .timeout_ns = 2000000000ull,
	};
	struct marrow_softnic_device_stages_result res = {.size = sizeof(res)};
	void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);

	if (h == NULL) {
		fprintf(stderr, "softnic_device_stages: SKIP: cannot load %s: %s\n", argv[1], dlerror());
		return 77;
	}
	stages_fn run = (stages_fn)dlsym(h, "marrow_softnic_device_bench_stages");
	err_fn last = (err_fn)dlsym(h, "marrow_cuda_last_error");
	if (run == NULL || last == NULL) {
		fprintf(stderr, "softnic_device_stages: %s lacks marrow_softnic_device_bench_stages\n", argv[1]);
		return 1;
	}
	int rc = run(&cfg, &res);

	if (rc == MARROW_ENODEV) {
		fprintf(stderr, "softnic_device_stages: SKIP: %s\n", last());
		return 77;
	}
	if (rc != 0) {
		printf("{\"experiment\":\"softnic.device_stages\",\"backend\":\"cuda+softnic-device\",\"hardware\":false,"
		       "\"valid\":false,\"status\":%d,\"error\":\"", rc);
		for (const char *p = last(); *p; p++)
			putchar(*p == '"' || *p == '\\' ? '\'' : *p);
		printf("\"}\n");
		return 1;
	}
	const long long *s = (const long long *)res.stage_p50_cycles;
	record(&cfg, &res, "take", "slot seen non-zero -> doorbell taken", s[MARROW_SNDEV_STAGE_TAKE]);
	record(&cfg, &res, "fetch", "doorbell taken -> fetch done", s[MARROW_SNDEV_STAGE_FETCH]);
	record(&cfg, &res, "execute", "fetch done -> WQE executed", s[MARROW_SNDEV_STAGE_EXEC]);
	record(&cfg, &res, "cqe", "WQE executed -> CQE written", s[MARROW_SNDEV_STAGE_CQE]);
	record(&cfg, &res, "engine", "slot seen -> CQE written (median of the sums)", s[MARROW_SNDEV_STAGE_ENGINE]);
	record(&cfg, &res, "putc", "initiator: WQE build -> CQE seen (same run)", (long long)res.putc_p50_cycles);
	record(&cfg, &res, "visibility", "putc p50 - engine p50: doorbell store to slot seen, CQE store to CQE "
	       "seen, WQE build and doorbell issue", (long long)res.putc_p50_cycles - s[MARROW_SNDEV_STAGE_ENGINE]);
	fflush(stdout);
	return 0;
}
