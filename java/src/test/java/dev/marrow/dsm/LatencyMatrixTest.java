// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The additive latency model recovers known per-SM terms; medians per pair; rejected chases are dropped. */
class LatencyMatrixTest {
    @Test
    void additiveModelRecoversTerms() {
        int n = 5;
        double[] d = {90, 95, 100, 105, 110};
        int hops = 1000;
        List<LatSample> s = new ArrayList<>();
        for (int rep = 0; rep < 3; rep++) {
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < n; j++) {
                    long cyc = (long) ((i == j ? 33 : d[i] + d[j]) * hops);
                    s.add(new LatSample(rep, i, j, 2 * i, 2 * j, 0, cyc, 7, 7));
                }
            }
        }
        // a rejected chase with an absurd value must not count
        s.add(new LatSample(3, 0, 1, 0, 2, Sample.F_LOAD_SUM, 999_999_999L, 1, 7));
        LatencyMatrix m = LatencyMatrix.of(n, s, hops);
        assertEquals(75, m.accepted());
        assertEquals(1, m.rejected());
        assertEquals(33, m.self(), 1e-9);
        assertEquals(185, m.cyclesPerHop()[0][1], 1e-9);
        double[] fit = m.additiveTerms();
        for (int i = 0; i < n; i++) {
            assertEquals(d[i], fit[i], 1e-9);
        }
        assertEquals(0, m.additiveRmse(), 1e-9);
        assertEquals(0, m.maxAsymmetry(), 1e-9);
        assertEquals(0, m.ranksWithTpcPartner()); // smids 0,2,4,6,8: no (2k, 2k+1) pair
    }
}
