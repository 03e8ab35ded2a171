// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import java.util.Arrays;

/**
 * What every rank of one cluster does in a sample: load a peer's source tile,
 * store into a peer's receive buffer, TMA-put into a peer's receive buffer
 * (-1 = no such role), and the probes' per-call knobs ({@link Probe}, NONE
 * unless an E11-E15 probe sets them). Immutable; the with* methods return a copy.
 */
public final class Spec {
    private final String name;
    private final int clusterSize;
    private final int[] loadFrom;
    private final int[] storeTo;
    private final int[] tmaTo;
    private final Probe probe;

    private Spec(String name, int clusterSize, int[] loadFrom, int[] storeTo, int[] tmaTo) {
        this(name, clusterSize, loadFrom, storeTo, tmaTo, Probe.NONE);
    }

    private Spec(String name, int clusterSize, int[] loadFrom, int[] storeTo, int[] tmaTo, Probe probe) {
        if (clusterSize < 2 || clusterSize > DsmLayouts.MAX_RANKS) {
            throw new IllegalArgumentException("cluster size must be 2..16, not " + clusterSize);
        }
        this.name = name;
        this.clusterSize = clusterSize;
        this.loadFrom = loadFrom;
        this.storeTo = storeTo;
        this.tmaTo = tmaTo;
        this.probe = probe;
    }

    /** A cluster of n idle ranks. */
    public static Spec idle(String name, int n) {
        int[] none = new int[DsmLayouts.MAX_RANKS];
        Arrays.fill(none, -1);
        return new Spec(name, n, none, none.clone(), none.clone());
    }

    public Spec named(String newName) {
        return new Spec(newName, clusterSize, loadFrom, storeTo, tmaTo, probe);
    }

    /** The same roles with these probe knobs. */
    public Spec withProbe(Probe p) {
        return new Spec(name, clusterSize, loadFrom, storeTo, tmaTo, p);
    }

    public Probe probe() {
        return probe;
    }

    /** reader loads peer's source tile (data flows peer to reader). */
    public Spec load(int reader, int peer) {
        return with(0, reader, peer);
    }

    /** writer stores its tile into peer's receive buffer. */
    public Spec store(int writer, int peer) {
        return with(1, writer, peer);
    }

    /** src TMA-puts its tile into dst's receive buffer. */
    public Spec tma(int src, int dst) {
        return with(2, src, dst);
    }

    private Spec with(int kind, int rank, int peer) {
        check(rank);
        check(peer);
        if (rank == peer) {
            throw new IllegalArgumentException("rank " + rank + " cannot target itself");
        }
        int[] l = loadFrom.clone();
        int[] s = storeTo.clone();
        int[] t = tmaTo.clone();
        (kind == 0 ? l : kind == 1 ? s : t)[rank] = peer;
        return new Spec(name, clusterSize, l, s, t, probe);
    }

    private void check(int r) {
        if (r < 0 || r >= clusterSize) {
            throw new IllegalArgumentException("rank " + r + " outside the cluster of " + clusterSize);
        }
    }

    public String name() {
        return name;
    }

    public int clusterSize() {
        return clusterSize;
    }

    public int loadFrom(int r) {
        return loadFrom[r];
    }

    public int storeTo(int r) {
        return storeTo[r];
    }

    public int tmaTo(int r) {
        return tmaTo[r];
    }

    /** Ranks that move data in this spec (load, store or TMA send). */
    public int activeRanks() {
        int n = 0;
        for (int r = 0; r < clusterSize; r++) {
            if (loadFrom[r] >= 0 || storeTo[r] >= 0 || tmaTo[r] >= 0) {
                n++;
            }
        }
        return n;
    }

    @Override
    public String toString() {
        String p = probe.label();
        return name + " (cluster " + clusterSize + (p.isEmpty() ? "" : ", " + p) + ")";
    }
}
