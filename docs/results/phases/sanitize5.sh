# SPDX-License-Identifier: Apache-2.0
# GPU phase "sanitize5" (sourced by docs/results/h200-run.sh: step, $M, $CS, $OUT): compute-sanitizer
# memcheck, synccheck and racecheck over the mini-gda latency kernels after their per-iteration
# payload check changed (it samples long payloads; docs/design/methods.md 6.1), the kernel-cost
# callers that link the same code, and gda loaded. Small counts: correctness only.
# Reports in $OUT/sanitize5/<tool>-<family>.jsonl, the CLI's stderr in the .log beside it.
sanitize5_one() { # tool
  local t=$1 S="$CS --tool $1 --target-processes all --error-exitcode 99 --print-limit 20" d="$OUT/sanitize5"
  local G="--target cuda --quiet --format json"
  step "s5-$t-gda-sweep" 90 sh -c "$S $M gda latency $G --nic softnic --sweep ordering --iters 40 --warmup 4 \
    >$d/$t-gda-sweep.jsonl 2>$d/$t-gda-sweep.log"
  step "s5-$t-gda-rtt" 40 sh -c "$S $M gda latency $G --nic softnic --experiments rtt --iters 40 --warmup 4 \
    >$d/$t-gda-rtt.jsonl 2>$d/$t-gda-rtt.log"
  step "s5-$t-singleop" 40 sh -c "$S $M gda goodput $G --single-op --sizes 8,4096,65536 --iters 5 --warmup 1 \
    >$d/$t-singleop.jsonl 2>$d/$t-singleop.log"
  step "s5-$t-kcost" 40 sh -c "$S $M kernel-cost --quiet --format json --transport gda,proxy --arms dormant,send-wait \
    --live 32 --msgs 1 --sizes 8 --blocks 8 --launches 1 --warmup 0 >$d/$t-kcost.jsonl 2>$d/$t-kcost.log"
  step "s5-$t-loaded" 40 sh -c "$S $M gda loaded $G --background 0,4 --queue reserved --iters 50 --warmup 5 \
    >$d/$t-loaded.jsonl 2>$d/$t-loaded.log"
}
phase_sanitize5() {
  mkdir -p "$OUT/sanitize5"
  local t
  for t in memcheck synccheck racecheck; do sanitize5_one "$t"; done
}
