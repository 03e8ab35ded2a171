# SPDX-License-Identifier: Apache-2.0
# Sourced by docs/results/h200-run.sh (uses step, $M, $CS, $OUT). Under 4 minutes in all.
#   OUT=$OUT bash docs/results/h200-run.sh harden
# 1. compute-sanitizer memcheck, racecheck and synccheck over the DSM kernels (timer, latency
#    chase, load/store/TMA traffic: E0-E4) in the `dsm run --sanitize` configuration, which keeps
#    every loop short enough for racecheck (the earlier run hit the 20 s watchdog in E1). Each
#    run also carries --max-seconds below its timeout, so a slow tool ends the run cleanly
#    (truncated=true, dsm.run_summary says what ran) instead of being killed.
# 2. gda clock-sweep --fit-only over two gda latency runs at the DEFAULT clock: checks that GPU
#    records carry a measured SM clock the fit can read. One clock cannot carry a fit, so the
#    expected outcome is rc=1 with fitted=false and the reason. Clocks are never locked here.
harden_cs() { # tool timeout_s max_seconds
  local t=$1
  step "harden-cs-$t-dsm" "$2" $CS --tool "$t" --target-processes all --error-exitcode 99 --print-limit 20 \
    $M dsm run --experiment E0,E1,E2,E3,E4 --sanitize --max-seconds "$3" --quiet --format json \
    -o "$OUT/harden-cs-$t-dsm.jsonl"
}
phase_harden() {
  harden_cs memcheck 50 40
  harden_cs racecheck 90 75
  harden_cs synccheck 50 40
  local i
  for i in 1 2; do
    step "harden-gda-default-clock-$i" 20 $M gda latency --target cuda --nic softnic --experiments issue,putc \
      --iters 2000 --warmup 200 --format json -o "$OUT/harden-gda-default-clock-$i.jsonl"
  done
  step harden-clock-fit-only 15 $M gda clock-sweep --fit-only "$OUT/harden-gda-default-clock-1.jsonl" \
    "$OUT/harden-gda-default-clock-2.jsonl" --format json -o "$OUT/harden-clock-fit-only.jsonl"
}
