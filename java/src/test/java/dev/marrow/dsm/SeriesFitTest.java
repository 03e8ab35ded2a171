// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Medians per size, then separate cycle and ns fits whose slope ratio is the clock. */
class SeriesFitTest {
    @Test
    void mediansIgnoreOutliersAndSlopeRatioIsTheClock() {
        double[] b = DsmTestData.bytes();
        double clock = 1.8; // cycles per ns
        double[][] cyc = new double[b.length][];
        double[][] ns = new double[b.length][];
        for (int i = 0; i < b.length; i++) {
            double t = 900 + b[i] / 20.0;
            // 30 runs: 29 exact, one far outlier that the median must ignore
            cyc[i] = new double[30];
            ns[i] = new double[30];
            for (int k = 0; k < 30; k++) {
                cyc[i][k] = k == 7 ? t * 5 : t;
                ns[i][k] = (k == 3 ? t * 9 : t) / clock;
            }
        }
        SeriesFit f = SeriesFit.of("synthetic", b, cyc, ns, 330, 2);
        assertEquals(20.0, f.bytesPerCycle(), 1e-9);
        assertEquals(36.0, f.gbPerS(), 1e-9);
        assertEquals(1.8, f.clockGhz(), 1e-9);
        assertEquals(900, f.cycles().alpha(), 1e-6);
        assertEquals(500, f.ns().alpha(), 1e-6);
        assertEquals(0, f.cycles().rmseShareOfRise(), 1e-12);
    }
}
