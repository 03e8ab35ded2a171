// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A result file the curated report has no place for: linear in its records, parameters never plotted. */
class GenericSectionTest {
    static Path file(Path dir, int n, String extra) throws Exception {
        StringBuilder sb = new StringBuilder("{\"record\":\"header\",\"env\":{\"git_sha\":\"abc\"}}\n");
        for (int i = 0; i < n; i++) {
            sb.append("{\"record\":\"result\",\"experiment\":\"x.sweep\",\"hardware\":false,\"size_bytes\":")
                    .append(8 << (i % 4)).append(",\"ordering\":\"o").append(i % 2).append('"').append(extra)
                    .append("}\n");
        }
        Path f = dir.resolve("x-" + n + ".jsonl");
        Files.writeString(f, sb);
        return f;
    }

    @Test
    void aParameterIsNeverTheMetricAndBarsAreLabelledByVariant() {
        Map<String, Object> a = Map.of("size_bytes", 8, "ordering", "gpu-fence", "putc_p50_ns", 3000);
        Map<String, Object> b = Map.of("size_bytes", 64, "ordering", "gpu-fence", "putc_p50_ns", 3200);
        var cols = new LinkedHashSet<>(List.of("size_bytes", "ordering", "putc_p50_ns"));
        assertEquals("putc_p50_ns", GenericSection.headline(cols, List.of(a, b)));
        assertNull(GenericSection.headline(new LinkedHashSet<>(List.of("size_bytes", "ordering")), List.of(a, b)),
                "a size is a parameter, not a result");
        assertEquals(List.of("size_bytes"), GenericSection.varying(cols, List.of(a, b)));
        assertEquals("64", GenericSection.variant(b, List.of("size_bytes"), 2));
        assertEquals("putc_p50_ns (ns)", GenericSection.unitLabel("putc_p50_ns"));
    }

    @Test
    void manyRecordsAreLinear(@TempDir Path tmp) throws Exception {
        Path small = file(tmp, 5_000, ",\"putc_p50_ns\":3000");
        Path big = file(tmp, 50_000, ",\"putc_p50_ns\":3000");
        Report.write(List.of(small), tmp.resolve("warm"), "t"); // class loading and the JIT out of the timing
        long t0 = System.nanoTime();
        Report.write(List.of(small), tmp.resolve("s"), "t");
        long ts = System.nanoTime() - t0;
        t0 = System.nanoTime();
        Path index = Report.write(List.of(big), tmp.resolve("b"), "t");
        long tb = System.nanoTime() - t0;
        // 10x the records: linear is ~10x; the old per-record bar chart was ~100x (over 170 s at 100k lines)
        assertTrue(tb < 30 * Math.max(ts, 50_000_000L), "50k records took " + tb / 1e6 + " ms, 5k took " + ts / 1e6);
        String html = Files.readString(index);
        assertTrue(html.contains("too many for a bar each"), "no figure note");
        assertTrue(html.split("<td>x.sweep</td>", -1).length - 1 >= 50_000, "every record in the table");
    }
}
