// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The probes' statistics on hand-made numbers. */
class SpreadAndSlopesTest {
    @Test
    void theStudysPressureRangeIsAboutATenthOfAPercent() {
        double[] v = {3628, 3633};
        assertEquals(100.0 * 5 / 3630.5, Spread.rangePct(v), 1e-9);
        assertEquals(100.0 * 5 / 3628, Spread.maxDeviationPct(v, 3628), 1e-9);
        assertEquals(1, Spread.argMax(v));
        assertThrows(IllegalArgumentException.class, () -> Spread.rangePct(new double[0]));
        assertThrows(IllegalArgumentException.class, () -> Spread.maxDeviationPct(v, 0));
    }

    @Test
    void windowedSlopesFindTheFastStretch() {
        // 0..8 KiB at 40 B/cycle, then 20 B/cycle: the first window is the fastest.
        double[] x = new double[16];
        double[] y = new double[16];
        for (int i = 0; i < 16; i++) {
            x[i] = 1024.0 * (i + 1);
            y[i] = x[i] <= 8192 ? 100 + x[i] / 40 : 100 + 8192 / 40.0 + (x[i] - 8192) / 20;
        }
        WindowedSlopes.Max m = WindowedSlopes.max(x, y, 8);
        assertEquals(40.0, m.rate(), 1e-9);
        assertEquals(1024, m.fromBytes());
        assertEquals(8192, m.toBytes());
        double[] r = WindowedSlopes.rates(x, y, 8);
        assertEquals(9, r.length);
        assertEquals(20.0, r[8], 1e-9);
        assertThrows(IllegalArgumentException.class, () -> WindowedSlopes.rates(x, y, 17));
    }
}
