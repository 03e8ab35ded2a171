/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * The device engine's stage profile, inside libmarrow_cuda (not exported):
 * engine thread 0 stamps %clock64 at five stages of the WQE path of QP 0
 * (sndev_kernel.cuh, docs/design/device-engine.md §2.1). Its user is the
 * stage benchmark (sndev_stages.cu).
 */
#ifndef MARROW_SNDEV_PROFILE_H
#define MARROW_SNDEV_PROFILE_H

#include <stdint.h>

struct marrow_softnic_device;

/* Records of the stage profile: the header's words, then SNDEV_STAGES per record. */
enum { SNDEV_PROFILE_STAGES = 5, SNDEV_PROFILE_HDR = 8 };

struct sndev_profile_hdr {
	uint64_t records;                 /* records written (at most the armed capacity) */
	uint64_t clock_first, gtimer_first;   /* %clock64, %globaltimer at the first record */
	uint64_t clock_last, gtimer_last;     /* ... and at the last */
	uint32_t engine_smid;             /* %smid of engine block 0 */
};

/* Profiles the first cap signaled WQEs of QP 0 from the next start on
 * (stopped engine only; cap 1..65536). The buffer lives until close. */
int sndev_profile_arm(struct marrow_softnic_device *d, uint32_t cap);
/* After stop: the header and min(records, cap) records (SNDEV_PROFILE_STAGES
 * words each, %clock64 of engine thread 0; 0 = stage not seen). */
int sndev_profile_read(struct marrow_softnic_device *d, struct sndev_profile_hdr *hdr, uint64_t *recs,
		       uint32_t cap);

#endif /* MARROW_SNDEV_PROFILE_H */
