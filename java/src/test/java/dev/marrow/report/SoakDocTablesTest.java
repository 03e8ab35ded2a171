// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The soak drift statistic: medians of the first and last third of the runs, rounded as the doc prints them. */
class SoakDocTablesTest {
    static List<Map<String, Object>> runs(double... p50) {
        List<Map<String, Object>> l = new ArrayList<>();
        for (double v : p50) {
            l.add(Map.of("putc_p50_ns", v));
        }
        return l;
    }

    @Test
    void comparesTheMediansOfTheFirstAndLastThird() {
        // thirds of 7 runs are 2 runs: medians 101.5 and 98.5 (halves to even: 102, 98); the 1000s are in neither
        List<String> row = SoakDocTables.drift("s", runs(103, 100, 1000, 1000, 1000, 99, 98), "putc_p50_ns");
        assertEquals(List.of("s", "putc_p50_ns", "7", "102", "98", "-3.0 %"), row);
    }

    @Test
    void aHalfRoundsToEvenAndNoChangeIsSigned() {
        // medians 2500.5 and 2500.5: printed 2500 (half to even, as Python's format does), change +0.0 %
        List<String> row = SoakDocTables.drift("s", runs(2500, 2501, 7, 7, 2501, 2500), "putc_p50_ns");
        assertEquals(List.of("s", "putc_p50_ns", "6", "2500", "2500", "+0.0 %"), row);
    }

    @Test
    void tooFewRunsAreRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SoakDocTables.drift("s", runs(1, 2), "putc_p50_ns"));
        assertEquals("soak series 's' has 2 runs: a third of them is none", e.getMessage());
    }
}
