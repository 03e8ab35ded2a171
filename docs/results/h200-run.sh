#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# One batched H200 call (device tool), run from the repository root with a
# build made on the development machine (java/target/marrow-cli.jar,
# java/target/test-classes, native/target/stage/lib) and a jlinked runtime
# in .jrt/jrt plus the JUnit console in .jrt/junit.jar:
#   OUT=$OUT bash docs/results/h200-run.sh PHASE...
# scripts/device-prep.sh builds the carried helpers (.jrt/bin, .jrt/jrt), moves what the call does not
# need out of the tree and checks the jar's provenance and the carry limit before the call.
# Phases (any subset, in order):
#   env        nvidia-smi, CPU, doctor
#   junit      every GPU-tagged JUnit test (tree output)
#   sanitize   compute-sanitizer memcheck, racecheck and synccheck over every
#              kernel family (gda orderings x payloads, gda round trip, proxy
#              latency and rate producers, DSM timer/latency/one-way/TMA),
#              with small counts: correctness, not timing
#   scaling    softnic rate, 8 B inline, batch 16, P producers = E engines,
#              P in 1 2 4 8 (pinned where the CLI supports it)
#   gda        gda latency ordering sweep + put+completion (no-regression rows)
#   proxy      proxy rate, CUDA producers (no-regression rows)
#   dsm        docs/results/h200-dsm-run2.sh when present
#   soak       SOAK_SECONDS (default 570) of back-to-back gda put+completion
#              runs (cuda, 10^6 iterations each) and, at the same time, proxy
#              latency runs (cuda producers, tuned handoff), on disjoint CPUs;
#              one JSON file per run, for the percentile-drift check
#   fuzz       the software-NIC libFuzzer harness built here (scripts/fuzz.sh,
#              carried as .jrt/fuzz/softnic_fuzz): 15 jobs x 666,667 runs =
#              10^7 executions over a copy of the committed corpus
# Every step is bounded by `timeout`; each writes its log under $OUT and one
# line to $OUT/steps.txt (name, exit code, milliseconds). Clocks and GPU
# settings are never touched.
set -u
OUT="${OUT:-out}"
mkdir -p "$OUT"
export JAVA_HOME="$PWD/.jrt/jrt"
J="$JAVA_HOME/bin/java --enable-native-access=ALL-UNNAMED -Dmarrow.native.dir=native/target/stage/lib"
M="$J -jar java/target/marrow-cli.jar"
CS=compute-sanitizer
command -v $CS >/dev/null || CS=/usr/local/cuda/bin/compute-sanitizer

# HARD_END_S (seconds since this script started): no step starts after it, and every step's
# limit is cut to what is left, so one device call ends inside its own limit with its files.
step() { local name=$1 limit=$2; shift 2; local t0; t0=$(date +%s%N)
  if [ -n "${HARD_END_S:-}" ]; then
    local rem=$((HARD_END_S - SECONDS))
    if [ "$rem" -lt 5 ]; then echo "$name skipped (HARD_END_S)" | tee -a "$OUT/steps.txt"; return 0; fi
    [ "$rem" -lt "$limit" ] && limit=$rem
  fi
  # -k: a child that survives SIGTERM (a JVM whose shutdown waits on a stuck CUDA call, say)
  # is killed 10 s later, so no orphan competes with the steps after it.
  timeout -k 10 "$limit" "$@" >"$OUT/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( ($(date +%s%N) - t0) / 1000000 )) ms" | tee -a "$OUT/steps.txt"; }

phase_env() {
  { nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,pcie.link.gen.current,pcie.link.width.current --format=csv
    lscpu | grep -E "Model name|^CPU\(s\)|NUMA|MHz"; $CS --version 2>&1 | head -3; } >"$OUT/env.txt" 2>&1
  step doctor 60 $M doctor
}

phase_junit() {
  step junit-gpu 300 $J -jar .jrt/junit.jar execute -cp java/target/test-classes:java/target/marrow-cli.jar \
    --include-tag gpu --scan-classpath --details=tree --disable-banner
}

sanitize_one() { # tool
  local t=$1 S="$CS --tool $1 --target-processes all --error-exitcode 99 --print-limit 20"
  step "cs-$t-gda-sweep" 240 $S $M gda latency --target cuda --nic softnic --sweep ordering --iters 40 --warmup 4 --format json
  step "cs-$t-gda-rtt" 120 $S $M gda latency --target cuda --nic softnic --experiments rtt --iters 40 --warmup 4 --format json
  step "cs-$t-proxy-latency" 120 $S $M proxy latency --producer cuda --handoff both --iters 200 --warmup 20 --format json
  step "cs-$t-proxy-rate" 120 $S $M proxy rate --producer cuda --handoff both --workers 1 --rings 4 --batch 4 --messages 20000 --warmup 1000 --format json
  step "cs-$t-dsm" 240 $S $M dsm run --experiment E0,E1,E2,E4 --reps 2 --warmup 0 --format json --quiet
}
phase_sanitize() { for t in memcheck racecheck synccheck; do sanitize_one $t; done; }

phase_scaling() {
  local p
  for p in ${SCALING_POINTS:-1 2 4 8}; do
    local pin=""
    if $M softnic rate --help 2>&1 | grep -q -- "--producer-cpus"; then
      local base=1; [ $((2 * p + 1)) -gt "$(nproc)" ] && base=0   # 8+8 on 16 CPUs: use CPU 0 too
      pin="--engine-cpus $(seq -s, $base $((base + p - 1))) --producer-cpus $(seq -s, $((base + p)) $((base + 2 * p - 1)))"
    fi
    step "scaling-p$p" 180 $M softnic rate --size 8 --batch 16 --producers $p --engine-threads $p --poll hot \
      $pin --repeats 5 --format json -o "$OUT/scaling-p$p.jsonl"
  done
}

phase_gda() {
  step gda-ordering 300 $M gda latency --target cuda --nic softnic --engine-cpu 3 --sweep ordering \
    --iters 20000 --warmup 2000 --format json -o "$OUT/gda-ordering.jsonl"
}

phase_proxy() {
  step proxy-rate 240 $M proxy rate --producer cuda --handoff tuned --workers 1,2,4 --rings 32 --batch 16,32 \
    --engine-threads 4 --messages 2000000 --warmup 100000 --engine-cpu 1 --cpus 2,3,4,5 --format json \
    -o "$OUT/proxy-rate.jsonl"
}

phase_dsm() {
  [ -f docs/results/h200-dsm-run2.sh ] || return 0
  mkdir -p "$OUT/dsm"
  step dsm-run2 300 env J="$J" OUT="$OUT/dsm" bash docs/results/h200-dsm-run2.sh
}

soak_loop() { # name seconds command...: runs the command back to back until the time is up
  local name=$1 secs=$2 i=0 end; shift 2; end=$((SECONDS + secs))
  while [ $SECONDS -lt "$end" ]; do
    timeout 60 "$@" --format json -o "$OUT/soak/$name-$(printf %04d $i).jsonl" >>"$OUT/soak/$name.log" 2>&1
    echo "$name $i rc=$? t=$SECONDS" >>"$OUT/soak/$name.log"; i=$((i + 1))
  done
}
phase_soak() {
  local secs=${SOAK_SECONDS:-570}; mkdir -p "$OUT/soak"
  soak_loop gda "$secs" $M gda latency --target cuda --nic softnic --engine-cpu 3 --ordering gpu-fence \
    --experiments putc --iters 1000000 --warmup 2000 &
  soak_loop proxy "$secs" $M proxy latency --producer cuda --handoff tuned --iters 200000 --warmup 2000 \
    --engine-cpu 5 --cpus 6,7 &
  wait
  echo "soak rc=0 ${secs} s" | tee -a "$OUT/steps.txt"
}

phase_fuzz() {
  local root="$PWD" c="$OUT/fuzz-corpus"
  mkdir -p "$c" "$OUT/fuzz-artifacts" "$OUT/fuzz-logs"
  cp native/fuzz/corpus/softnic/* "$c/"
  (cd "$OUT/fuzz-logs" && step fuzz-1e7 540 "$root/.jrt/fuzz/softnic_fuzz" -jobs=15 -workers=15 -runs=666667 \
    -artifact_prefix="$OUT/fuzz-artifacts/" -print_final_stats=1 "$c")
  rm -rf "$c"   # grown corpus: not kept (the seeds are in the repository)
}

# Further phases live one file per experiment family in docs/results/phases/*.sh,
# each defining phase_<name>() with the helpers above (step, $M, $J, $OUT).
for f in docs/results/phases/*.sh; do [ -f "$f" ] && source "$f"; done
for ph in "$@"; do
  if [ -n "${HARD_END_S:-}" ] && [ $((HARD_END_S - SECONDS)) -lt 5 ]; then
    echo "phase $ph skipped (HARD_END_S)" | tee -a "$OUT/steps.txt"; continue
  fi
  echo "phase $ph start t=${SECONDS}s" | tee -a "$OUT/steps.txt"; "phase_$ph"
  # What still runs after the phase: a leftover process would compete with the next phases.
  { echo "after phase $ph t=${SECONDS}s"; ps -eo pid,ppid,stat,etime,pcpu,args --sort=-pcpu | head -8; } >>"$OUT/ps.txt" 2>&1
done
tar -C "$OUT" -czf /tmp/h200-run.tgz . && rm -rf "${OUT:?}"/* && mv /tmp/h200-run.tgz "$OUT/"
