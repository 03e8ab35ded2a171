# SPDX-License-Identifier: Apache-2.0
# Sourced by docs/results/h200-run.sh (helpers step, $M, $OUT). Phase twoproc
# (docs/design/two-process.md): gda latency between two processes on the H200
# host over the software NIC's shared-memory wire -- a GPU initiator
# (--target cuda, rank 0) and a CPU responder (rank 1) -- and, in the same
# call, the one-process numbers with the same flags. JSON lines in
# $OUT/twoproc/. About 1-2 minutes; every step is bounded.
# Records: "hardware": false (emulated NIC), the GPU is real on cuda rows.

twoproc_pair() { # name rank0-target port
  local name=$1 target=$2 port=$3 d="$OUT/twoproc"
  local flags="--nic softnic --iters 20000 --warmup 2000 --timeout-ms 5000 --peer-timeout-s 30"
  # rank 1 first: it retries its connection until rank 0 listens
  ( env RANK=1 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT="$port" timeout 100 \
      $M gda latency --target cpu --engine-cpu 4 $flags >"$d/$name-responder.log" 2>&1
    echo "twoproc-$name-responder rc=$?" >>"$OUT/steps.txt" ) &
  local rpid=$!
  step "twoproc-$name" 100 env RANK=0 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT="$port" \
    $M gda latency --target "$target" --engine-cpu 2 $flags --format json -o "$d/$name.jsonl"
  wait "$rpid"
}

phase_twoproc() {
  local d="$OUT/twoproc"
  mkdir -p "$d"
  step twoproc-single-cuda 60 $M gda latency --target cuda --nic softnic --engine-cpu 2 --iters 20000 \
    --warmup 2000 --format json -o "$d/single-cuda.jsonl"
  step twoproc-single-cpu 60 $M gda latency --target cpu --nic softnic --engine-cpu 2 --iters 20000 \
    --warmup 2000 --format json -o "$d/single-cpu.jsonl"
  twoproc_pair pair-cuda cuda 29611
  twoproc_pair pair-cpu cpu 29613
  ls /dev/shm | grep -c marrow-wire >"$d/leftover-shm-segments.txt" 2>&1
}
