// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

/**
 * Per-call knobs of the probes E11-E15 (the appended fields of
 * marrow_dsm_params; docs/design/methods.md §4.1). {@link #NONE} is the
 * kernel of every earlier result. groupThreads and storeWidth, when not 0,
 * override the device's KernelConfig for this call only.
 *
 * @param remoteOffset   bytes by which the tile's base moves in every CTA's source region and receive buffer (multiple of 16)
 * @param pressureWarps  local shared-memory pressure warps on each rank of pressureRanks (0..16)
 * @param pressureRanks  bit r: rank r runs the pressure warps
 * @param conflict       pressure pattern: true = 32-way bank conflicts, false = conflict-free
 * @param bursts         the load / store group moves its tile in this many bursts (1 = one)
 * @param burstGapCycles idle cycles between bursts
 * @param genericStore   stores through a generic address (st) instead of st.shared::cluster
 * @param storeUnroll    stores per thread per batch: 1 or 4 (0 = 4)
 * @param rendezvousEnd  the store interval ends after a cluster-wide barrier instead of the group's fence
 * @param groupThreads   threads per load/store group for this call (0 = the device's)
 * @param storeWidth     bytes per remote store for this call (0 = the device's)
 * @param probeBuild     run the probes' build of the kernel even with no knob set (every E11-E14 call does,
 *                       so that a probe's baseline runs the same code as its variants)
 */
public record Probe(int remoteOffset, int pressureWarps, int pressureRanks, boolean conflict, int bursts,
        long burstGapCycles, boolean genericStore, int storeUnroll, boolean rendezvousEnd, int groupThreads,
        int storeWidth, boolean probeBuild) {

    /** MARROW_DSM_MAX_PRESSURE_WARPS. */
    public static final int MAX_PRESSURE_WARPS = 16;
    /** MARROW_DSM_MAX_BURSTS. */
    public static final int MAX_BURSTS = 64;
    /** MARROW_DSM_DEFAULT_PRESSURE_CYCLES: how long each pressure warp runs from the start barrier. */
    public static final long PRESSURE_CYCLES = 50_000;

    /** The kernel of every earlier result (the default build). */
    public static final Probe NONE = new Probe(0, 0, 0, false, 1, 0, false, 0, false, 0, 0, false);
    /** No knob set, but the probes' build: the starting point of every probe. */
    public static final Probe BASELINE = new Probe(0, 0, 0, false, 1, 0, false, 0, false, 0, 0, true);

    public Probe {
        if (remoteOffset < 0 || remoteOffset % 16 != 0) {
            throw new IllegalArgumentException("remote offset " + remoteOffset + " must be a non-negative multiple of 16");
        }
        if (pressureWarps < 0 || pressureWarps > MAX_PRESSURE_WARPS || (pressureWarps == 0) != (pressureRanks == 0)) {
            throw new IllegalArgumentException("pressure warps " + pressureWarps + " (0..16) and ranks 0x"
                    + Integer.toHexString(pressureRanks) + " must be both 0 or both set");
        }
        if (bursts < 1 || bursts > MAX_BURSTS || burstGapCycles < 0) {
            throw new IllegalArgumentException("bursts " + bursts + " must be 1..64 with a gap >= 0");
        }
        if (storeUnroll != 0 && storeUnroll != 1 && storeUnroll != 4) {
            throw new IllegalArgumentException("store unroll " + storeUnroll + " must be 1 or 4");
        }
        if (rendezvousEnd && (pressureWarps > 0 || bursts > 1)) {
            throw new IllegalArgumentException("the rendezvous store end excludes pressure warps and bursts");
        }
        if (storeWidth != 0 && KernelConfig.widthProblem("store width", storeWidth) != null) {
            throw new IllegalArgumentException(KernelConfig.widthProblem("store width", storeWidth));
        }
    }

    public Probe withRemoteOffset(int bytes) {
        return new Probe(bytes, pressureWarps, pressureRanks, conflict, bursts, burstGapCycles, genericStore,
                storeUnroll, rendezvousEnd, groupThreads, storeWidth, probeBuild);
    }

    public Probe withPressure(int warps, int rankMask, boolean conflicting) {
        return new Probe(remoteOffset, warps, rankMask, conflicting, bursts, burstGapCycles, genericStore, storeUnroll,
                rendezvousEnd, groupThreads, storeWidth, probeBuild);
    }

    public Probe withBursts(int count, long gapCycles) {
        return new Probe(remoteOffset, pressureWarps, pressureRanks, conflict, count, gapCycles, genericStore,
                storeUnroll, rendezvousEnd, groupThreads, storeWidth, probeBuild);
    }

    public Probe withStore(boolean generic, int unroll, boolean rendezvous, int width) {
        return new Probe(remoteOffset, pressureWarps, pressureRanks, conflict, bursts, burstGapCycles, generic, unroll,
                rendezvous, groupThreads, width, probeBuild);
    }

    public Probe withGroupThreads(int threads) {
        return new Probe(remoteOffset, pressureWarps, pressureRanks, conflict, bursts, burstGapCycles, genericStore,
                storeUnroll, rendezvousEnd, threads, storeWidth, probeBuild);
    }

    /** Group threads of a call on a device configured with deviceThreads. */
    public int threads(int deviceThreads) {
        return groupThreads > 0 ? groupThreads : deviceThreads;
    }

    /** Store width of a call on a device configured with deviceWidth. */
    public int width(int deviceWidth) {
        return storeWidth > 0 ? storeWidth : deviceWidth;
    }

    /** Short text for series names and records, "" for NONE. */
    public String label() {
        StringBuilder sb = new StringBuilder();
        if (remoteOffset != 0) {
            sb.append(" offset=").append(remoteOffset);
        }
        if (pressureWarps != 0) {
            sb.append(" pressure=").append(pressureWarps).append("w@0x").append(Integer.toHexString(pressureRanks))
                    .append(conflict ? " conflict" : " spread");
        }
        if (bursts != 1) {
            sb.append(" bursts=").append(bursts).append(" gap=").append(burstGapCycles);
        }
        if (genericStore || storeUnroll != 0 || rendezvousEnd || storeWidth != 0) {
            sb.append(" store=").append(genericStore ? "generic" : "cluster").append(" u")
                    .append(storeUnroll == 0 ? 4 : storeUnroll).append(rendezvousEnd ? " rendezvous" : " fence");
            if (storeWidth != 0) {
                sb.append(" w").append(storeWidth);
            }
        }
        if (groupThreads != 0) {
            sb.append(" threads=").append(groupThreads);
        }
        if (probeBuild) {
            sb.append(" probe-build");
        }
        return sb.toString().trim();
    }
}
