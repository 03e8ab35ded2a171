# SPDX-License-Identifier: Apache-2.0
# GPU phase "sanitize3" (sourced by docs/results/h200-run.sh: step, $M, $CS, $OUT): the device
# engine under compute-sanitizer memcheck again, after the fix of its system-scope atomic on
# pinned host memory (docs/results/h200-compute-sanitizer.md), and racecheck of the DSM
# sanitize profile (the touch-word fix). Same small counts as phase sanitize2. Tool reports go
# to the .jsonl beside each log (compute-sanitizer prints to stdout). $OUT/sanitize3/.
phase_sanitize3() {
  local S="$CS --target-processes all --error-exitcode 99 --print-limit 20" d="$OUT/sanitize3"
  local G="--target cuda --quiet --format json"
  mkdir -p "$d"
  # (gda latency --placement gpu is not run: under compute-sanitizer its initiator kernel did not
  # run beside the engine's persistent kernel and the run sat until the step's bound -- memcheck in
  # this phase's first run, synccheck and racecheck in phase sanitize2. gda rate's device-engine
  # path finishes under the tools, and runs the same engine kernel.)
  [ -z "${SANITIZE3_SKIP_MEMCHECK:-}" ] && step s3-memcheck-rate-devnic 60 sh -c "$S --tool memcheck $M gda rate $G --nic softnic-device --nic-sms 1 \
    --blocks 1 --threads 32 --qps 1 --batch 4 --messages 2000 --warmup 0 --repeats 1 \
    >$d/memcheck-rate-devnic.jsonl 2>$d/memcheck-rate-devnic.log"
  if [ -n "${SANITIZE3_DSM:-}" ]; then
    step s3-racecheck-dsm 150 sh -c "$S --tool racecheck $M dsm run --experiment E0,E1,E2,E3,E4 --sanitize \
      --format json --quiet >$d/racecheck-dsm.jsonl 2>$d/racecheck-dsm.log"
  fi
}
