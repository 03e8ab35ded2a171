// SPDX-License-Identifier: Apache-2.0
package dev.marrow.clock;

import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ClockFitTest {
    static final double[] CLOCKS = {502, 746, 995, 1245, 1500, 1845};

    static double[] latencies(double c, double b, double[] f, double noise, long seed) {
        Random r = new Random(seed);
        double[] t = new double[f.length];
        for (int i = 0; i < f.length; i++) {
            double exact = c / f[i] + b;
            t[i] = exact * (1 + noise * r.nextGaussian());
        }
        return t;
    }

    @Test
    void recoversAKnownCoefficientAndInterceptExactly() {
        ClockFit f = ClockFit.of(CLOCKS, latencies(2929, 0.27, CLOCKS, 0, 1));
        assertEquals(2929, f.cCycles(), 1e-6);
        assertEquals(0.27, f.bUs(), 1e-9);
        assertEquals(1.0, f.r2(), 1e-12);
        assertEquals(1845, f.topClockMhz());
        assertEquals(502, f.bottomClockMhz());
        // share at the top clock: (C/f_top) / (C/f_top + B)
        double sens = 2929 / 1845.0;
        assertEquals(sens / (sens + 0.27), f.sensitiveShareAtTop(), 1e-9);
        assertEquals(2929 / 700.0 + 0.27, f.predictUs(700), 1e-9);
    }

    @Test
    void noisyDataStaysWithinTolerance() {
        // 1 % Gaussian noise on each point, 6 clocks x 3 passes
        double[] f = new double[CLOCKS.length * 3];
        for (int i = 0; i < f.length; i++) {
            f[i] = CLOCKS[i % CLOCKS.length];
        }
        for (long seed = 1; seed <= 20; seed++) {
            ClockFit fit = ClockFit.of(f, latencies(10313, 1.44, f, 0.01, seed));
            assertEquals(10313, fit.cCycles(), 10313 * 0.05, "seed " + seed);
            assertEquals(1.44, fit.bUs(), 0.4, "seed " + seed);
            assertTrue(fit.r2() > 0.99 && fit.r2() < 1.0, "seed " + seed + ": R^2 " + fit.r2());
        }
    }

    @Test
    void aFlatLatencyHasNoClockSensitivePart() {
        ClockFit f = ClockFit.of(CLOCKS, new double[] {3.5, 3.5, 3.5, 3.5, 3.5, 3.5});
        assertEquals(0, f.cCycles(), 1e-9);
        assertEquals(3.5, f.bUs(), 1e-12);
        assertEquals(0, f.sensitiveShareAtTop(), 1e-12);
    }

    @Test
    void refusesTooFewClocksOrTooNarrowASpan() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ClockFit.of(new double[] {1980, 1980, 1410}, new double[] {1, 1, 2}));
        assertTrue(e.getMessage().contains("at least 3 points at distinct clocks"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> ClockFit.of(new double[] {1962, 1970, 1980}, new double[] {1, 1.01, 1.02}));
        assertTrue(e.getMessage().contains("span only"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ClockFit.of(new double[] {0, 1000, 1500},
                new double[] {1, 1, 1}));
        assertThrows(IllegalArgumentException.class, () -> ClockFit.of(CLOCKS, new double[] {1, 2}));
    }

    @Test
    void lockedSweepsAreReducedToOneMedianPointPerClock() {
        java.util.List<ClockSample> s = new java.util.ArrayList<>();
        for (int pass = 0; pass < 3; pass++) {
            for (double c : CLOCKS) {
                // measured clock a little off the lock, one outlier pass at 995
                double t = 2929 / c + 0.27 + (pass == 1 && c == 995 ? 5.0 : 0);
                s.add(new ClockSample("g", "issue", (int) c, c - 3, t));
            }
        }
        java.util.List<ClockFits.Outcome> out = ClockFits.fit(s);
        assertEquals(1, out.size());
        ClockFits.Outcome o = out.getFirst();
        assertEquals(CLOCKS.length, o.clockMhz().length, "one point per locked clock");
        assertEquals(502 - 3, o.clockMhz()[0], 1e-9, "the fit uses the measured clock");
        // medians drop the outlier pass: the fit on measured clocks is exact for C/(f+3)... close to C
        assertTrue(o.fitted());
        assertTrue(o.fit().r2() > 0.999, "R^2 " + o.fit().r2());
        assertEquals(2929, o.fit().cCycles(), 2929 * 0.01);
    }
}
