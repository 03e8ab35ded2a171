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
        for (int i = 0; i < names.length; i++) {
            if ((flags & (1 << i)) != 0) {
                sb.append(sb.isEmpty() ? "" : "+").append(names[i]);
            }
        }
        return sb.isEmpty() ? "none" : sb.toString();
    }
}
