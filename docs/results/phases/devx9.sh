# SPDX-License-Identifier: Apache-2.0
# Sourced by docs/results/h200-run.sh (helpers step, $M, $J, $OUT). Phase devx9
# (docs/design/mlx5-queue-formats.md §7): mlx5 with GPU-resident queues (DevX) on
# a machine with a GPU and no RDMA NIC, so what can run here is the GPU half:
#   1. JUnit Mlx5GpuMemOpsTest (gpu-tagged): libmarrow_cuda's memory operations
#      for DevX queues on the H200 -- cudaMalloc, copies both ways, the dma-buf
#      export of cudaMalloc memory (or the driver's refusal, printed), cudaFree --
#      and MiniGdaMlx5GpuQueuesTest (the CLI/API stop with exit 77, GPU present);
#   2. the CLI, one host and --peer: must exit 77 naming the missing mlx5 device
#      (not the GPU), before any exchange.
# Writes $OUT/devx9/results.jsonl: one line per step {"step","rc","expected_rc",
# "last_line"}. Nothing here is a measurement; no NIC is touched. About 1 minute.

devx9_line() { # step expected-rc log
  local rc last
  rc=$(sed -n "s/^$1 rc=\([0-9]*\) .*/\1/p" "$OUT/steps.txt" | tail -1)
  last=$(grep -v '^\s*$' "$3" 2>/dev/null | tail -1 | sed 's/\\/\\\\/g; s/"/\\"/g' | tr -d '\r\t')
  printf '{"record":"devx9","step":"%s","rc":%s,"expected_rc":%s,"gpu_hardware":true,"nic_hardware":false,"last_line":"%s"}\n' \
    "$1" "${rc:-null}" "$2" "$last" >>"$OUT/devx9/results.jsonl"
}

phase_devx9() {
  local d="$OUT/devx9"
  mkdir -p "$d"
  step devx9-junit 120 $J -jar .jrt/junit.jar execute -cp java/target/test-classes:java/target/marrow-cli.jar \
    --select-class dev.marrow.mlx5.Mlx5GpuMemOpsTest --select-class dev.marrow.gda.MiniGdaMlx5GpuQueuesTest \
    --details=tree --disable-banner
  cp "$OUT/devx9-junit.log" "$d/junit.log" 2>/dev/null
  devx9_line devx9-junit 0 "$d/junit.log"
  step devx9-cli-one-host 60 $M gda latency --target cuda --nic mlx5 --placement gpu --iters 10 --warmup 1 \
    --format json
  devx9_line devx9-cli-one-host 77 "$OUT/devx9-cli-one-host.log"
  step devx9-cli-peer 60 $M gda latency --target cuda --nic mlx5 --placement gpu --peer 127.0.0.1:9 \
    --iters 10 --warmup 1 --format json
  devx9_line devx9-cli-peer 77 "$OUT/devx9-cli-peer.log"
}
