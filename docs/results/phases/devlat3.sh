#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU phase "devlat3" (sourced by docs/results/h200-run.sh; uses its step, $M, $OUT): the device
# engine's put+completion and stage profile after own-page doorbells are taken by comparison
# (no exchange) and the QP fields, L1 lines and first relaxed reads cross the acquire
# (docs/design/device-engine.md §2.3; before: §2.2's numbers, phase devlat2).
#   1. stage profile (native/bench/softnic_device_stages.c): one initiator thread, 8 B WRITEs on
#      GPU-resident queues, 1 engine SM, gpu-fence; median SM cycles and ns per engine stage
#      (slot seen -> taken -> fetched -> executed -> CQE written) beside the initiator-visible
#      put+completion of the same run, inline and pointer. Also the canary: a hang skips the rest.
#   2. gda put+completion, GPU-resident queues, 1 engine SM, gpu-fence: inline and pointer 8 B
#   3. the same, size sweep
#   4. gda rate on the device engine: 64 QPs, 8 SMs, batch 16 (no-regression row)
#   5. the fidelity test (CPU engine vs device engine CQE streams), built as phase devlat2 does
# JSON lines in $OUT/devlat3/; step bounds sum to 200 s, plus 35 s for the two builds when
# .jrt/bin does not carry the binaries.
phase_devlat3() { devlat_stage_steps devlat3; }   # the steps of docs/results/phases/devlat2.sh
