// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The numbers of "GPU-Initiated Communication: Dissecting Down to the Bone" are one data file (paper-references.json): every table and figure the report compares
 * with is in it, library rows included, each value with its source and platform.
 */
class PaperReferencesTest {
    private final PaperReferences p = PaperReferences.get();

    @Test
    void everyComparedTableAndFigureHasValues() {
        for (String s : List.of("Table 3", "Table 4", "Table 5", "Table 6", "Table 7", "Table 8", "Table 9", "Table 10",
                "Table 11", "Table 12", "Table 13", "Table 14", "Section 4.1, Figure 3a", "Section 4.3.3, Figure 8",
                "Section 4.6, Figure 9", "Section 5, Figure 10a", "Section 5, Figure 10b")) {
            assertFalse(p.bySource(s).isEmpty(), s + " has no value");
        }
        for (int b = 3; b <= 13; b++) {
            assertFalse(p.bySource("DSM B" + b).isEmpty(), "DSM B" + b + " has no value");
        }
    }

    @Test
    void everyValueNamesItsPlatformSourceAndUnit() {
        for (PaperReferences.Ref r : p.all()) {
            assertFalse(r.platform().isBlank(), r.id());
            assertFalse(r.source().isBlank(), r.id());
            assertFalse(r.unit().isBlank(), r.id());
            assertTrue(Double.isFinite(r.value()) && r.value() > 0, r.id());
        }
    }

    @Test
    void libraryRowsAreDataNotProse() {
        assertEquals(6.02, p.forPreset("Table 3", "nccl-gin-gdaki", ".putc").value());
        assertEquals(6.40, p.forPreset("Table 3", "nvshmem-ibrc", ".putc").value());
        assertEquals(34.0, p.forPreset("Table 10", "uccl-ep", ".cold").value());
        assertEquals(60.8, p.forPreset("Table 10", "uccl-ep", ".warm").value());
        assertEquals(null, p.forPreset("Table 10", "nvshmem-ibrc", ".cold")); // IBRC has no Table 10 row
    }

    @Test
    void everySourceIsATableAPageCanEmbed() {
        var tables = DocTables.paperTables();
        assertEquals(p.sources().size(), tables.size());
        String t11 = tables.get("paper.table-11");
        assertNotNull(t11);
        assertTrue(t11.contains("| 2190 µs |") && t11.contains("P-GB200"), t11);
        assertEquals("section-4-3-3-figure-8", PaperReferences.slug("Section 4.3.3, Figure 8"));
    }
}
