// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.gda.internal.GdaFfi;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The ordering labels are C's: marrow_gda_ordering_name names every Java value by its label, and nothing more. */
class OrderingLabelsTest {
    @Test
    void everyOrderingIsNamedByTheLibrary() {
        for (Ordering o : Ordering.values()) {
            assertEquals(o.label(), GdaFfi.Host.orderingName(o.code()), o.name());
        }
        assertNull(GdaFfi.Host.orderingName(-1), "C names no ordering -1");
    }
}
