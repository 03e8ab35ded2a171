// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import java.util.List;

/**
 * The three data-movement kinds and the one-way sweeps shared by E2-E6
 * (E5 reuses E2-E4's series from the context cache when they ran first).
 */
public enum OneWay {
    LOAD("load"), STORE("store"), TMA("tma");

    private final String label;

    OneWay(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    /** Spec in which data flows from rank src to rank dst by this kind. */
    public Spec add(Spec s, int src, int dst) {
        return switch (this) {
            case LOAD -> s.load(dst, src);     // the destination reads the source
            case STORE -> s.store(src, dst);   // the source writes the destination
            case TMA -> s.tma(src, dst);
        };
    }

    /** The stream of data src -> dst of this kind. */
    public Stream stream(int src, int dst, String label) {
        return switch (this) {
            case LOAD -> Stream.load(dst, label);
            case STORE -> Stream.store(src, label);
            case TMA -> Stream.tma(src, dst, label);
        };
    }

    /** "load 1->0": data direction, whatever the kind's initiator. */
    public String series(int src, int dst) {
        return label + " " + src + "->" + dst;
    }

    /** One-way sweep: data src -> dst in a cluster of n with all other ranks idle. */
    public Sweep.Result oneWay(DsmContext ctx, int n, int src, int dst) {
        // The cluster size is part of the label: E2-E4 sweep 1->0 in clusters of 2 and 16.
        String series = series(src, dst) + (n == 2 ? "" : " cl" + n);
        Spec spec = add(Spec.idle(series, n), src, dst);
        return Sweep.run(ctx, spec, List.of(stream(src, dst, series)));
    }

    public Reference.Ref oneWayReference() {
        return switch (this) {
            case LOAD -> Reference.LOAD;
            case STORE -> Reference.STORE;
            case TMA -> Reference.TMA;
        };
    }

    public Reference.Ref bidirReference() {
        return switch (this) {
            case LOAD -> Reference.BIDIR_LOAD;
            case STORE -> Reference.BIDIR_STORE;
            case TMA -> Reference.BIDIR_TMA;
        };
    }
}
