// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The least-squares fit on data with known answers. */
class AffineFitTest {
    @Test
    void exactLineIsRecovered() {
        double[] x = DsmTestData.bytes();
        double[] y = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            y[i] = 1101 + x[i] / 21.25;
        }
        AffineFit f = AffineFit.of(x, y);
        assertEquals(1101, f.alpha(), 1e-6);
        assertEquals(21.25, f.rate(), 1e-9);
        assertEquals(0, f.rmse(), 1e-6);
        assertEquals(1.0, f.r2(), 1e-12);
    }

    @Test
    void knownResidualsGiveKnownRmseAndShare() {
        // y = 2 + 3x with residuals +1, -1, +1, -1: symmetric in x, so the fit
        // stays exact in slope and intercept and the RMSE is exactly 1.
        double[] x = {0, 1, 2, 3};
        double[] e = {1, -1, -1, 1};
        double[] y = new double[4];
        for (int i = 0; i < 4; i++) {
            y[i] = 2 + 3 * x[i] + e[i];
        }
        AffineFit f = AffineFit.of(x, y);
        assertEquals(3, f.beta(), 1e-12);
        assertEquals(2, f.alpha(), 1e-12);
        assertEquals(1.0, f.rmse(), 1e-12);
        // rise over [0, 3] is 9, so the RMSE is 1/9 of it
        assertEquals(1.0 / 9.0, f.rmseShareOfRise(), 1e-12);
        assertEquals(1.0, f.residuals()[0], 1e-12);
    }

    @Test
    void refusesDegenerateInput() {
        assertThrows(IllegalArgumentException.class, () -> AffineFit.of(new double[] {1}, new double[] {2}));
        assertThrows(IllegalArgumentException.class, () -> AffineFit.of(new double[] {1, 1}, new double[] {2, 3}));
        assertThrows(IllegalArgumentException.class, () -> AffineFit.of(new double[] {1, 2}, new double[] {2}));
    }
}
