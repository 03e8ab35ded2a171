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
  step s3-memcheck-rate-devnic 60 sh -c "$S --tool memcheck $M gda rate $G --nic softnic-device --nic-sms 1 \
    --blocks 1 --threads 32 --qps 1 --batch 4 --messages 2000 --warmup 0 --repeats 1 \
    >$d/memcheck-rate-devnic.jsonl 2>$d/memcheck-rate-devnic.log"
  step s3-memcheck-devengine 60 sh -c "$S --tool memcheck $M gda latency $G --nic softnic --placement gpu \
    --nic-sms 1 --experiments issue,putc --iters 100 --warmup 10 >$d/memcheck-devengine.jsonl 2>$d/memcheck-devengine.log"
  if [ -n "${SANITIZE3_DSM:-}" ]; then
    step s3-racecheck-dsm 150 sh -c "$S --tool racecheck $M dsm run --experiment E0,E1,E2,E3,E4 --sanitize \
      --format json --quiet >$d/racecheck-dsm.jsonl 2>$d/racecheck-dsm.log"
  fi
}
