// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** CPU lists as the scaling tables write them. */
class SoftnicScalingDocTablesTest {
    @Test
    void threeOrMoreConsecutiveCpusAreARange() {
        assertEquals("0-7", SoftnicScalingDocTables.cpus(List.of(0, 1, 2, 3, 4, 5, 6, 7)));
        assertEquals("1,2", SoftnicScalingDocTables.cpus(List.of(1, 2)));
        assertEquals("1,3,5,7", SoftnicScalingDocTables.cpus(List.of(1, 3, 5, 7)));
        assertEquals("1", SoftnicScalingDocTables.cpus(List.of(1)));
    }

    @Test
    void aRecordWithoutItsCpusIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> SoftnicScalingDocTables.cpus(null));
        assertThrows(IllegalArgumentException.class, () -> SoftnicScalingDocTables.cpus(List.of()));
    }
}
