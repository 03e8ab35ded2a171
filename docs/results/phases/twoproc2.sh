# SPDX-License-Identifier: Apache-2.0
# Sourced by docs/results/h200-run.sh (helpers step, $M, $OUT). Phase twoproc2
# (docs/design/two-process.md section 9): the mini-proxy across two processes
# of the H200 host over the software NIC's shared-memory wire. Rank 0 is the
# initiator (it runs the proxy and writes the JSON), rank 1 the responder
# (a CPU process whose inbox receives the WRITEs; for proxy loaded its own
# proxy answers the probe round trips). Steps:
#   latency-cuda   proxy latency, CUDA producer (real GPU), baseline + tuned
#   latency-cpu    the same with a CPU producer (the row beside it)
#   single-cuda    proxy latency, CUDA producer, one process (same flags)
#   rate           proxy rate, CPU producers, T=2 workers, R=8, B=16
#   loaded         proxy loaded, CPU producers, 0/1/4 background streams,
#                  reserved rings, probe round trip through the responder
# JSON lines in $OUT/twoproc2/; each step is bounded (about 3 minutes in all).
# Records: "hardware": false, "nic_hardware": false (emulated NIC);
# "gpu_hardware": true on the CUDA-producer rows only.

twoproc2_pair() { # name port limit_s rank0-pinning -- args... (both ranks run args, as under a launcher)
  local name=$1 port=$2 limit=$3 pin0=$4 d="$OUT/twoproc2"
  shift 5
  # rank 1 first: it retries its connection until rank 0 listens; its engine on its own core
  ( env RANK=1 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT="$port" timeout "$limit" \
      $M "$@" --engine-cpu 8 --peer-timeout-s 30 >"$d/$name-responder.log" 2>&1
    echo "twoproc2-$name-responder rc=$?" >>"$OUT/steps.txt" ) &
  local rpid=$!
  step "twoproc2-$name" "$limit" env RANK=0 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT="$port" \
    $M "$@" $pin0 --peer-timeout-s 30 --format json -o "$d/$name.jsonl"
  wait "$rpid"
}

phase_twoproc2() {
  local d="$OUT/twoproc2"
  local lat="--handoff both --iters 20000 --warmup 2000 --timeout-ms 5000"
  mkdir -p "$d"
  step twoproc2-single-cuda 40 $M proxy latency --producer cuda $lat --engine-cpu 2 --cpus 4 --format json \
    -o "$d/single-cuda.jsonl"
  twoproc2_pair latency-cuda 29621 45 "--engine-cpu 2 --cpus 4" -- proxy latency --producer cuda $lat
  twoproc2_pair latency-cpu 29623 40 "--engine-cpu 2 --cpus 4" -- proxy latency --producer cpu $lat
  twoproc2_pair rate 29625 40 "--engine-cpu 2 --cpus 4,5" -- proxy rate --producer cpu --workers 2 --rings 8 \
    --batch 16 --messages 2000000 --warmup 200000 --timeout-ms 5000
  twoproc2_pair loaded 29627 50 "--engine-cpu 2 --cpus 4" -- proxy loaded --background 0,1,4 --queue reserved \
    --iters 5000 --warmup 500 --wire-gbps 0 --timeout-ms 5000
  ls /dev/shm | grep -c marrow-wire >"$d/leftover-shm-segments.txt" 2>&1
}
