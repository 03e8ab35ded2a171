// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The curated report's charts (report-sections.json, key chart): drawn from a generated table, rules checked. */
class SectionChartTest {
    private static SectionChart chart(List<String> y, String xAxis, String yAxis) {
        return new SectionChart("t", "bars", List.of("queue"), y, null, 1.0, false, "T", xAxis, yAxis, Map.of(),
                List.of(), null);
    }

    @Test
    void aParameterIsNeverPlottedAsAMetric() {
        assertFalse(chart(List.of("background_streams"), "queue (variant)", "streams (count)").check().isEmpty());
        assertTrue(chart(List.of("probe p50 ns"), "queue (variant)", "probe p50 (µs)").check().isEmpty());
    }

    @Test
    void axisTitlesNeedUnits() {
        assertFalse(chart(List.of("probe p50 ns"), "queue", "probe p50").check().isEmpty());
    }

    @Test
    void cellsReadAsTheirLeadingNumber() {
        assertEquals(3360, SectionChart.number("3360 [3328, 3392]"));
        assertEquals(2.496, SectionChart.number("**2.496**"));
        assertEquals(1024, SectionChart.number("1 KiB"));
        assertEquals(8, SectionChart.number("8 B"));
        assertTrue(Double.isNaN(SectionChart.number("None")));
    }

    @Test
    void barsComeFromTheTableRowsTheSpecSelects(@TempDir Path tmp) throws Exception {
        String md = "| queue | background_streams | probe p50 ns |\n|---|---|---|\n| shared | 64 | 27000 [1, 2] |\n"
                + "| reserved | 64 | 14000 |\n| shared | 1 | 9000 |\n";
        SectionChart c = new SectionChart("t", "bars", List.of("background_streams"), List.of("probe p50 ns"), "queue",
                0.001, false, "T", "streams (count)", "p50 (µs)", Map.of("background_streams", "64"),
                List.of(new SectionChart.Ref("t11.pib.gdaki.shared", "64", "shared")), null);
        assertEquals(3, SectionChart.rows(md).size());
        Path png = tmp.resolve("c.png");
        assertTrue(c.write(md, png, " — EMULATED NIC"));
        assertTrue(Files.size(png) > 1000);
        SectionChart none = new SectionChart("t", "bars", List.of("background_streams"), List.of("probe p50 ns"),
                "queue", 1.0, false, "T", "streams (count)", "p50 (µs)", Map.of("background_streams", "2"), List.of(),
                null);
        assertFalse(none.write(md, tmp.resolve("none.png"), ""), "no row selected: nothing is drawn");
        assertFalse(Files.exists(tmp.resolve("none.png")));
    }
}
