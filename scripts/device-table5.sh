#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Table 5 of "GPU-Initiated Communication: Dissecting Down to the Bone" (mini-gda message rate, 8 B
# inline) on one H200, every row, before and after the single-poster path (docs/results/h200-table5.md,
# method: docs/design/methods.md §2.1). Run from the repository root on the GPU machine with the
# jar and native libraries built on the development machine and a jlinked runtime in .jrt/jrt
# (as docs/results/h200-run.sh):
#   OUT=$OUT bash scripts/device-table5.sh
# Variants (JSON lines in $OUT/table5/VARIANT/ROW.jsonl; a log per step in $OUT/table5/logs):
#   dev-after     --nic softnic-device (device engine, GPU-resident queues), --rate-path auto, ordering
#                 by placement (gpu-fence)
#   dev-before    the same rows on the shared-state path with release-sys (the path and ordering of
#                 the runs before this change: --rate-path shared --ordering release-sys)
#   dev-shared-gf the shared-state path with gpu-fence (the ordering's share of the change alone),
#                 rows 1t-1qp-b1, 1t-1qp-b16, 16x16, 64x64 only
#   host-after    --nic softnic (CPU engine threads, host queues), --rate-path auto (release-sys)
#   host-before   the same on --rate-path shared
# Knobs: NIC_SMS (device engine SMs, default 8), HARD_END_S (no step starts after it; default 470,
# so the call ends within 8 minutes), VARIANTS (default "dev-after dev-before dev-shared-gf
# host-after host-before"). Every step is bounded by `timeout`; $OUT/table5/steps.txt lists each
# step's exit code and milliseconds. Clocks and GPU settings are never touched.
set -u
OUT="${OUT:-out}"
T="$OUT/table5"
mkdir -p "$T/logs"
export JAVA_HOME="$PWD/.jrt/jrt"
J="$JAVA_HOME/bin/java --enable-native-access=ALL-UNNAMED -Dmarrow.native.dir=native/target/stage/lib"
M="$J -jar java/target/marrow-cli.jar"
NIC_SMS="${NIC_SMS:-8}"
HARD_END_S="${HARD_END_S:-470}"
VARIANTS="${VARIANTS:-dev-after dev-before dev-shared-gf host-after host-before}"

step() { local name=$1 limit=$2; shift 2; local t0 rem; t0=$(date +%s%N)
  rem=$((HARD_END_S - SECONDS))
  if [ "$rem" -lt 5 ]; then echo "$name skipped (HARD_END_S)" | tee -a "$T/steps.txt"; return 0; fi
  [ "$rem" -lt "$limit" ] && limit=$rem
  timeout -k 10 "$limit" "$@" >"$T/logs/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( ($(date +%s%N) - t0) / 1000000 )) ms" | tee -a "$T/steps.txt"; }

# Table 5's rows: name, then the flags of the row (8 B inline, K = 16, window 512, 2^10-WQEBB SQs).
ROWS=(
  "1t-1qp-b1|--blocks 1 --threads 1 --qps 1 --batch 1 --messages 400000 --warmup 40000 --repeats 3"
  "1t-1qp-b16|--blocks 1 --threads 1 --qps 1 --batch 16 --messages 800000 --warmup 80000 --repeats 3"
  "1t-nqp-b1|--blocks 1 --threads 1 --qp-map shared --qps 2,4,8,16,32 --batch 1 --messages 200000 --warmup 20000"
  "1qp-lock32|--threads 32 --qps 1 --publication lock --batch 1 --messages 5000 --warmup 500 --repeats 3"
  "1qp-slot256|--threads 256 --qps 1 --publication slot --batch 1 --messages 2000 --warmup 200"
  "1qp-warp32|--threads 32 --qps 1 --publication warp --batch 32 --messages 20000 --warmup 2000 --repeats 3"
  "1qp-warp256|--threads 256 --qps 1 --publication warp --batch 32 --messages 5000 --warmup 500"
  "16x16|--blocks 16 --threads 1 --qps 16 --qp-map block --batch 1,16 --messages 200000 --warmup 19200 --repeats 3"
  "1sm-32q|--blocks 1 --threads 32 --qps 32 --qp-map thread --batch 16 --messages 100000 --warmup 9600 --repeats 3"
  "1sm-64q|--blocks 1 --threads 64 --qps 64 --qp-map thread --batch 16 --messages 100000 --warmup 9600 --repeats 3"
  "64x64|--blocks 64 --threads 1 --qps 64 --qp-map block --batch 16 --messages 200000 --warmup 19200 --repeats 3"
)

DEV="gda rate --target cuda --nic softnic-device --nic-sms $NIC_SMS --format json --quiet --timeout-ms 5000"
HOST="gda rate --target cuda --nic softnic --format json --quiet --timeout-ms 5000"
E8="--engine-threads 8 --engine-cpus 1,2,3,4,5,6,7,8"
E1="--engine-threads 1 --engine-cpus 1"

{ nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm --format=csv
  git log -1 --format='build %H %s' 2>/dev/null; } >"$T/env.txt" 2>&1

run_variant() { local v=$1 base extra rows=("${ROWS[@]}"); mkdir -p "$T/$v"
  case $v in
    dev-after) base=$DEV; extra="" ;;
    dev-before) base=$DEV; extra="--rate-path shared --ordering release-sys" ;;
    dev-shared-gf) base=$DEV; extra="--rate-path shared --ordering gpu-fence" ;;
    host-after) base=$HOST; extra="" ;;
    host-before) base=$HOST; extra="--rate-path shared" ;;
    *) echo "unknown variant $v" | tee -a "$T/steps.txt"; return ;;
  esac
  local r name flags eng
  for r in "${rows[@]}"; do
    name=${r%%|*}; flags=${r#*|}
    if [ "$v" = dev-shared-gf ]; then
      case $name in 1t-1qp-b1|1t-1qp-b16|16x16|64x64) ;; *) continue ;; esac
    fi
    eng=""
    if [ "$base" = "$HOST" ]; then # CPU engines: one for a single QP, eight for many (as phases/rate.sh)
      case $name in 1t-1qp-*|1qp-*) eng=$E1 ;; *) eng=$E8 ;; esac
    fi
    step "$v-$name" 60 $M $base $eng $flags $extra -o "$T/$v/$name.jsonl"
  done
}

# a stuck first device step (the engine, module loading) skips the device variants, not the host ones
step smoke 60 $M $DEV --blocks 1 --threads 1 --qps 1 --batch 16 --messages 16000 --warmup 1600 -o "$T/smoke.jsonl"
for v in $VARIANTS; do
  if [ "${v#dev-}" != "$v" ] && grep -q "^smoke rc=124" "$T/steps.txt"; then
    echo "$v skipped: the device-engine smoke step hit its time limit" | tee -a "$T/steps.txt"
    continue
  fi
  run_variant "$v"
done
