#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The Marrow authors
#
# The device engine's lane loop (sndev_lane_run) must keep its state in
# registers: with any local-memory reload on the WQE path, the doorbell's
# acquire (CCTL.IVALL on sm_90) turns each reload into an L2 round trip
# (docs/design/device-engine.md §2.6). ptxas reports the bytes each
# function spills; this fails when sndev_lane_run spills more than
# MAX_SPILL bytes either way. A call into the core added inside the loop, or
# its state grown past the registers, does that: the loop inside the kernel
# spilled 812 / 984 bytes; sndev_lane_run spills 20 / 56 (sm_90) and
# 8 / 56 (sm_100). Static: nothing runs on a GPU.
#
# usage: check_lane_registers.sh NVCC SOURCE_DIR ARCH[,ARCH...]
set -u
nvcc=$1 src=$2 archs=$3
MAX_SPILL=128

if ! command -v "$nvcc" >/dev/null 2>&1; then
	echo "check_lane_registers: SKIP (no nvcc at '$nvcc')"
	exit 77
fi
out=$(mktemp -d) || exit 1
trap 'rm -rf "$out"' EXIT
status=0
for arch in $(echo "$archs" | tr ';,' '  '); do
	if ! "$nvcc" -O3 -DNDEBUG -std=c++17 --expt-relaxed-constexpr -cubin -arch=sm_"$arch" -Xptxas -v \
		-I"$src/include" -I"$src/src" "$src/tests/lane_registers_tu.cu" -o "$out/lane.cubin" \
		>"$out/ptxas.txt" 2>&1; then
		cat "$out/ptxas.txt"
		echo "check_lane_registers: sm_$arch: the lane kernel does not compile"
		exit 1
	fi
	# "Function properties for <mangled sndev_lane_run...>" then
	# "N bytes stack frame, S bytes spill stores, L bytes spill loads".
	line=$(grep -A1 "Function properties for .*sndev_lane_run" "$out/ptxas.txt" | grep "spill stores" | head -1)
	if [ -z "$line" ]; then
		cat "$out/ptxas.txt"
		echo "check_lane_registers: sm_$arch: ptxas reported no sndev_lane_run (inlined or renamed?)"
		exit 1
	fi
	stores=$(echo "$line" | sed -n 's/.* \([0-9]*\) bytes spill stores.*/\1/p')
	loads=$(echo "$line" | sed -n 's/.* \([0-9]*\) bytes spill loads.*/\1/p')
	echo "sm_$arch sndev_lane_run: $stores bytes spill stores, $loads bytes spill loads (limit $MAX_SPILL each)"
	if [ "$stores" -gt "$MAX_SPILL" ] || [ "$loads" -gt "$MAX_SPILL" ]; then
		echo "check_lane_registers: sm_$arch: sndev_lane_run spills past $MAX_SPILL bytes"
		status=1
	fi
done
exit $status
