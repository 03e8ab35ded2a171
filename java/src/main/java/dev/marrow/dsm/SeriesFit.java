// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import dev.marrow.results.Stats;

/**
 * One traffic stream swept over sizes: per-size medians of the per-run times,
 * fitted separately in cycles (%clock64) and ns (%globaltimer).
 * beta_cycles / beta_ns = cycles per ns = the effective SM clock.
 */
public record SeriesFit(String label, double[] bytes, double[] medianCycles, double[] medianNs,
                        AffineFit cycles, AffineFit ns, int accepted, int rejected) {

    public static SeriesFit of(String label, double[] bytes, double[][] cyclesPerSize, double[][] nsPerSize,
                               int accepted, int rejected) {
        double[] mc = new double[bytes.length];
        double[] mn = new double[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            mc[i] = Stats.median(cyclesPerSize[i]);
            mn[i] = Stats.median(nsPerSize[i]);
        }
        return new SeriesFit(label, bytes, mc, mn, AffineFit.of(bytes, mc), AffineFit.of(bytes, mn), accepted, rejected);
    }

    /** Marginal bandwidth, bytes per SM cycle. */
    public double bytesPerCycle() {
        return cycles.rate();
    }

    /** Marginal bandwidth, GB/s (decimal: bytes per ns). */
    public double gbPerS() {
        return ns.rate();
    }

    /** Effective SM clock, GHz, from the ratio of the two slopes. */
    public double clockGhz() {
        return cycles.beta() / ns.beta();
    }
}
