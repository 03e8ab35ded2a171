# SPDX-License-Identifier: Apache-2.0
# GPU phase "sanitize4" (sourced by docs/results/h200-run.sh: step, $M, $CS, $OUT): compute-sanitizer
# memcheck, synccheck and racecheck over the kernels changed on 2026-12-01 evening: the device
# engine's loop (quiet-QP skipping, private counters, acquire atomics), gda goodput's round-robin
# window over several QPs, and the DSM traffic kernel (per-lane touch words, the barrier between
# the mbarrier init and the arrival; racecheck of it ran in phase sanitize3). Small counts:
# correctness only. Reports in $OUT/sanitize4/<tool>-<family>.jsonl (the tool prints to stdout),
# the CLI's stderr in the .log beside it. About 2 minutes.
sanitize4_one() { # tool
  local t=$1 S="$CS --tool $1 --target-processes all --error-exitcode 99 --print-limit 20" d="$OUT/sanitize4"
  local G="--target cuda --quiet --format json"
  step "s4-$t-rate-devnic" 40 sh -c "$S $M gda rate $G --nic softnic-device --nic-sms 2 --blocks 2 --threads 32 \
    --qps 2 --batch 4 --messages 2000 --warmup 0 --repeats 1 >$d/$t-rate-devnic.jsonl 2>$d/$t-rate-devnic.log"
  step "s4-$t-goodput-qps" 40 sh -c "$S $M gda goodput $G --qps 4 --engine-threads 2 --sizes 8,4096 \
    --bytes-per-point 65536 --warmup 2 >$d/$t-goodput-qps.jsonl 2>$d/$t-goodput-qps.log"
}
phase_sanitize4() {
  mkdir -p "$OUT/sanitize4"
  local t
  for t in memcheck synccheck racecheck; do sanitize4_one "$t"; done
  for t in memcheck synccheck; do
    step "s4-$t-dsm" 60 sh -c "$CS --tool $t --target-processes all --error-exitcode 99 --print-limit 20 $M dsm run \
      --experiment E0,E1,E2,E3,E4 --sanitize --format json --quiet >$OUT/sanitize4/$t-dsm.jsonl \
      2>$OUT/sanitize4/$t-dsm.log"
  done
}
