# SPDX-License-Identifier: Apache-2.0
# GPU phase "devlat4dbg": the device-engine fidelity test under compute-sanitizer memcheck (it found the
# system-scope CAS on a host-memory doorbell slot at the engine's exit; docs/results/h200-gpu-resident.md).
# Output: $OUT/devlat4dbg/memcheck.txt. Bounded at 120 s.
phase_devlat4dbg() {
  local D="$OUT/devlat4dbg"
  mkdir -p "$D"
  step devlat4dbg-memcheck 120 sh -c "$CS --tool memcheck --show-backtrace device --print-limit 20 \
    .jrt/bin/test_softnic_device_fidelity >\"$D/memcheck.txt\" 2>&1"
}
