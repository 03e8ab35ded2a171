# SPDX-License-Identifier: Apache-2.0
# Sourced by docs/results/h200-run.sh (helpers step, $M, $OUT). Phase gdaload2p
# (docs/design/two-process.md section 11, docs/design/methods.md 6.3): gda loaded between
# two processes of the H200 host over the software NIC's shared-memory wire,
# both endpoints loaded (rank 1 answers the probe and runs the same background
# toward rank 0), background 0,1,4, queue shared and reserved; beside it the
# one-process numbers with the same flags. Two processes run on the CPU
# runner only (--target cpu): the step gdaload2p-cuda-refused records that
# --target cuda is refused (exit 2) rather than run. JSON lines in
# $OUT/gdaload2p/. About 1 minute; every step is bounded.
# Records: "hardware": false, "gpu_hardware": false (CPU threads, emulated NIC).

phase_gdaload2p() {
  local d="$OUT/gdaload2p" port=29621
  mkdir -p "$d"
  local flags="--target cpu --background 0,1,4 --queue both --iters 20000 --warmup 2000 --timeout-ms 5000"
  step gdaload2p-single 60 $M gda loaded $flags --engine-cpu 2 --format json -o "$d/single-cpu.jsonl"
  # rank 1 first: it retries its connection until rank 0 listens
  ( env RANK=1 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT="$port" timeout -k 10 75 \
      $M gda loaded $flags --engine-cpu 4 --peer-timeout-s 30 >"$d/pair-responder.log" 2>&1
    echo "gdaload2p-pair-responder rc=$?" >>"$OUT/steps.txt" ) &
  local rpid=$!
  step gdaload2p-pair 75 env RANK=0 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT="$port" \
    $M gda loaded $flags --engine-cpu 2 --peer-timeout-s 30 --format json -o "$d/pair-cpu.jsonl"
  wait "$rpid"
  # the GPU runner is one process only: rank 0 with --target cuda must be a usage error (exit 2), not a run
  step gdaload2p-cuda-refused 20 env RANK=0 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$((port + 2)) \
    $M gda loaded --target cuda --background 1 --iters 100 --peer-timeout-s 5
  grep -o 'marrow: .*' "$OUT/gdaload2p-cuda-refused.log" >"$d/cuda-refused.txt" 2>&1
  ls /dev/shm | grep -c marrow-wire >"$d/leftover-shm-segments.txt" 2>&1
}
