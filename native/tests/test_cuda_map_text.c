/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Copyright (c) 2026 The Marrow authors
 *
 * Wording of marrow_cuda_host_register failures, checked without a GPU:
 * a refused IO-memory mapping (cudaErrorNotPermitted, 800) must answer
 * MARROW_EPERM and name PeerMappingOverride=1 and the regkey line, say that
 * a privileged process maps without it and that GPU<->NIC peer-to-peer
 * must work; other
 * errors map to their statuses and name the CUDA error.
 */
#include <stdio.h>
#include <string.h>
#include "cuda/uar_map_text.c"

/* marrow_common.c reads a layout table; this test has none to offer. */
const struct marrow_abi_entry marrow_abi_table[] = { MARROW_ABI_END };

static int failures;

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			failures++;					\
			fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__,	\
				__LINE__, #cond);			\
			fprintf(stderr, __VA_ARGS__);			\
			fputc('\n', stderr);				\
		}							\
	} while (0)

#define HAS(s) (strstr(marrow_last_error(), (s)) != NULL)

int main(void)
{
	void *uar = (void *)0x7f0000000800;
	int rc;

	rc = uar_map_fail(800, "cudaErrorNotPermitted", "operation not permitted", 1, uar, 256);
	printf("%s\n", marrow_last_error());
	CHECK(rc == MARROW_EPERM, "800 on IO memory -> %d", rc);
	CHECK(HAS("PeerMappingOverride=1") && HAS("NVreg_RegistryDwords=\"PeerMappingOverride=1;\""),
	      "regkey named: %s", marrow_last_error());
	CHECK(HAS("cudaErrorNotPermitted") && HAS("800") && HAS("IoMemory") && HAS("UAR"),
	      "error and flags named: %s", marrow_last_error());
	CHECK(HAS("unprivileged") && HAS("privileged process (root) maps without it"),
	      "privileged alternative named: %s", marrow_last_error());
	CHECK(HAS("GPU<->NIC peer-to-peer must work"), "P2P requirement named: %s", marrow_last_error());
	CHECK(strlen(marrow_last_error()) < 511, "message truncated");

	rc = uar_map_fail(801, "cudaErrorNotSupported", "operation not supported", 1, uar, 256);
	CHECK(rc == MARROW_ENOSYS && HAS("PeerMappingOverride=1") && HAS("801") && HAS("peer-to-peer must work") &&
	      HAS("maps without it"), "801 on IO memory: %s", marrow_last_error());
	CHECK(strlen(marrow_last_error()) < 511, "801 message truncated");
	rc = uar_map_fail(1, "cudaErrorInvalidValue", "invalid argument", 1, uar, 8);
	CHECK(rc == MARROW_EIO && HAS("PeerMappingOverride=1"), "other IO error: %s", marrow_last_error());

	rc = uar_map_fail(100, "cudaErrorNoDevice", "no CUDA-capable device is detected", 1, uar, 8);
	CHECK(rc == MARROW_ENODEV && HAS("no usable GPU") && !HAS("PeerMappingOverride") && !HAS("peer-to-peer"),
	      "no device: %s",
	      marrow_last_error());
	rc = uar_map_fail(35, "cudaErrorInsufficientDriver", "driver too old", 0, uar, 8);
	CHECK(rc == MARROW_ENODEV, "old driver -> %d", rc);

	/* Ordinary memory: no regkey advice, which would mislead. */
	rc = uar_map_fail(800, "cudaErrorNotPermitted", "operation not permitted", 0, uar, 4096);
	CHECK(rc == MARROW_EPERM && !HAS("PeerMappingOverride") && HAS("Portable|Mapped)"),
	      "800 on host memory: %s", marrow_last_error());
	rc = uar_map_fail(2, "cudaErrorMemoryAllocation", "out of memory", 0, uar, 4096);
	CHECK(rc == MARROW_ENOMEM && HAS("ulimit"), "ENOMEM: %s", marrow_last_error());
	rc = uar_map_fail(1, "cudaErrorInvalidValue", "invalid argument", 0, uar, 4096);
	CHECK(rc == MARROW_EINVAL && HAS("cudaErrorInvalidValue (1"), "EINVAL: %s", marrow_last_error());
	rc = uar_map_fail(999, NULL, NULL, 0, uar, 4096);
	CHECK(rc == MARROW_EIO && HAS("999"), "unknown: %s", marrow_last_error());

	if (failures) {
		fprintf(stderr, "%d check(s) failed\n", failures);
		return 1;
	}
	printf("test_cuda_map_text: all checks passed\n");
	return 0;
}
