/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * One instance of the device engine's lane kernel (GPU scope, no profile),
 * compiled alone by check_lane_registers.sh so that ptxas reports the
 * registers and spills of its functions (docs/design/device-engine.md §2.6).
 */
#include "softnic_dev/sndev_kernel.cuh"

template __global__ void sndev_engine_kernel<0, 0, 1>(sndev_kargs);
