#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The experiments of "GPU-Initiated Communication: Dissecting Down to the Bone" on a Slurm cluster.
# Two nodes under one allocation: preflight on both, the paper's matrix on each node, then the
# points that need two nodes (mini-gda and the mini-proxy across the fabric).
#   salloc -N 2 --ntasks-per-node=1 --gpus-per-node=1 --exclusive --time=01:30:00
#   packaging/slurm/two-node-srun.sh            # from the Marrow checkout, inside the allocation
# marrow paper's matrix runs on one node (each point in one process); the cross-node numbers come
# from the two-rank commands, which read their rank from Slurm (README "Two processes, two nodes").
set -euo pipefail

[ -n "${SLURM_JOB_ID:-}" ] || { echo "two-node-srun: run inside an allocation (salloc -N 2 ...)" >&2; exit 2; }
nic=${MARROW_NIC:-mlx5}
budget=${MARROW_BUDGET:-30m}
out=${MARROW_OUT:-paper-$SLURM_JOB_ID}
mkdir -p "$out"

# Both nodes must pass: one bad node makes every pair point fail. --label prefixes each line with its task.
srun -N 2 --ntasks-per-node=1 --label scripts/marrow preflight

# The per-node matrix, one directory per node (rerun the script with the same MARROW_OUT to resume).
srun -N 2 --ntasks-per-node=1 bash -c \
  'scripts/marrow paper --nic "$0" --budget "$1" --output "$2/$SLURMD_NODENAME"' "$nic" "$budget" "$out"

# The pair points: rank 0 (first node) initiates and writes the result. Both ranks need one token.
export MARROW_JOB_TOKEN=${MARROW_JOB_TOKEN:-$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')}
srun -N 2 -n 2 scripts/marrow gda latency --target cuda --nic mlx5 --format json -o "$out/gda-2node.jsonl"
srun -N 2 -n 2 scripts/marrow proxy rate --nic verbs --workers 2 --format json -o "$out/proxy-2node.jsonl"

# The two nodes against each other: a difference beyond 5% is worth a look before trusting either.
nodes=($(scontrol show hostnames "$SLURM_JOB_NODELIST"))
for f in "$out/${nodes[0]}"/points/*.jsonl; do
  g="$out/${nodes[1]}/points/$(basename "$f")"
  [ -f "$g" ] && { scripts/marrow compare --changes-only "$f" "$g" || true; }
done
