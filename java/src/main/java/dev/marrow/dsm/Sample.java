// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

/**
 * One rank of one launch (struct marrow_dsm_sample). clk* values are
 * %clock64 of this rank's own SM; gt* values are %globaltimer ns.
 * pressureOps and burst* are the probes' fields (Probe): shared-memory
 * accesses of this rank's pressure warps, and the sum / first / shortest
 * per-burst duration of its load or store group, in its own cycles.
 */
public record Sample(int rep, int rank, int smidStart, int smidEnd, int flags, int roles,
                     long clkStart, long gtStart, long clkLoadEnd, long gtLoadEnd,
                     long clkStoreEnd, long gtStoreEnd, long clkRecvEnd, long gtRecvEnd,
                     long clkTmaIssued, long waitPolls,
                     long loadSum, long loadExpect, long recvSum, long recvExpect,
                     long pressureOps, long burstBusyCycles, long burstFirstCycles, long burstMinCycles) {

    /** A sample without probe fields (no pressure warps ran, one burst). */
    public Sample(int rep, int rank, int smidStart, int smidEnd, int flags, int roles,
                  long clkStart, long gtStart, long clkLoadEnd, long gtLoadEnd,
                  long clkStoreEnd, long gtStoreEnd, long clkRecvEnd, long gtRecvEnd,
                  long clkTmaIssued, long waitPolls,
                  long loadSum, long loadExpect, long recvSum, long recvExpect) {
        this(rep, rank, smidStart, smidEnd, flags, roles, clkStart, gtStart, clkLoadEnd, gtLoadEnd, clkStoreEnd,
                gtStoreEnd, clkRecvEnd, gtRecvEnd, clkTmaIssued, waitPolls, loadSum, loadExpect, recvSum, recvExpect,
                0, 0, 0, 0);
    }

    // The flag and role bits of marrow_dsm.h (MARROW_DSM_F_*, MARROW_DSM_ROLE_*). Samples are also made
    // without the library (the synthetic device of the tests), so the values are Java's here;
    // DsmFfi refuses a library whose values differ (MIRRORED_CONSTANTS).
    public static final int F_TIMEOUT = 1;
    public static final int F_SMID_MOVED = 1 << 1;
    public static final int F_SMID_SHARED = 1 << 2;
    public static final int F_LOAD_SUM = 1 << 3;
    public static final int F_RECV_SUM = 1 << 4;
    public static final int F_TIME = 1 << 5;

    public static final int ROLE_LOAD = 1;
    public static final int ROLE_STORE = 1 << 1;
    public static final int ROLE_TMA = 1 << 2;
    public static final int ROLE_RECV_STORE = 1 << 3;
    public static final int ROLE_RECV_TMA = 1 << 4;
    /** A peer stores into this rank's source region; loadSum/loadExpect hold that region's fold. */
    public static final int ROLE_RECV_STORE_SRC = 1 << 5;

    /** C name -> this class's value, checked against libmarrow_cuda.so when it loads. */
    static final java.util.Map<String, Integer> MIRRORED_CONSTANTS = java.util.Map.ofEntries(
            java.util.Map.entry("MARROW_DSM_F_TIMEOUT", F_TIMEOUT),
            java.util.Map.entry("MARROW_DSM_F_SMID_MOVED", F_SMID_MOVED),
            java.util.Map.entry("MARROW_DSM_F_SMID_SHARED", F_SMID_SHARED),
            java.util.Map.entry("MARROW_DSM_F_LOAD_SUM", F_LOAD_SUM),
            java.util.Map.entry("MARROW_DSM_F_RECV_SUM", F_RECV_SUM),
            java.util.Map.entry("MARROW_DSM_F_TIME", F_TIME),
            java.util.Map.entry("MARROW_DSM_ROLE_LOAD", ROLE_LOAD),
            java.util.Map.entry("MARROW_DSM_ROLE_STORE", ROLE_STORE),
            java.util.Map.entry("MARROW_DSM_ROLE_TMA", ROLE_TMA),
            java.util.Map.entry("MARROW_DSM_ROLE_RECV_STORE", ROLE_RECV_STORE),
            java.util.Map.entry("MARROW_DSM_ROLE_RECV_TMA", ROLE_RECV_TMA),
            java.util.Map.entry("MARROW_DSM_ROLE_RECV_STORE_SRC", ROLE_RECV_STORE_SRC),
            java.util.Map.entry("MARROW_DSM_MAX_RANKS", DsmLayouts.MAX_RANKS));

    /**
     * Accepted when the native side raised no flag and, checked again here,
     * the checksums match and the SM did not change.
     */
    public boolean ok() {
        return flags == 0 && smidStart == smidEnd
                && ((roles & (ROLE_LOAD | ROLE_RECV_STORE_SRC)) == 0 || loadSum == loadExpect)
                && recvSum == recvExpect;
    }

    /** Names of the raised flags, for rejection counts. */
    public static String flagNames(int flags) {
        StringBuilder sb = new StringBuilder();
        String[] names = {"timeout", "smid_moved", "smid_shared", "load_checksum", "recv_checksum", "time_order"};
        int[] bits = {F_TIMEOUT, F_SMID_MOVED, F_SMID_SHARED, F_LOAD_SUM, F_RECV_SUM, F_TIME};
        for (int i = 0; i < names.length; i++) {
            if ((flags & bits[i]) != 0) {
                sb.append(sb.isEmpty() ? "" : "+").append(names[i]);
            }
        }
        return sb.isEmpty() ? "none" : sb.toString();
    }
}
