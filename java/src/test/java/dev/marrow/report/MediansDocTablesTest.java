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

class MediansDocTablesTest {
    private static final String HEADER = "{\"record\":\"header\",\"schema\":\"marrow.result/1\",\"env\":{}}\n";

    @Test
    void aMergedFileBecomesOneTableNamedAfterIt(@TempDir Path dir) throws Exception {
        Path med = Files.createDirectories(dir.resolve("h200-page/medians"));
        Path f = med.resolve("gda-ordering.jsonl");
        Files.writeString(f, HEADER
                + "{\"record\":\"result\",\"experiment\":\"gda.latency\",\"backend\":\"cuda\",\"hardware\":false,"
                + "\"preset\":\"none\",\"ordering\":\"gpu-fence\",\"payload\":\"inline\",\"size_bytes\":8,"
                + "\"putc_p50_ns\":3552,\"putc_p50_ns_min\":3456,\"putc_p50_ns_max\":3616,\"valid\":true,\"runs\":3}\n"
                + "{\"record\":\"result\",\"experiment\":\"gda.latency\",\"backend\":\"cuda\",\"hardware\":false,"
                + "\"preset\":\"none\",\"ordering\":\"none\",\"payload\":\"pointer\",\"size_bytes\":8,"
                + "\"putc_p50_ns\":[3008,null,2944],\"valid\":false,\"runs\":3}\n");
        // a per-run file in the runs folder is not a table of its own
        Path runs = Files.createDirectories(med.resolve("gda-ordering-runs"));
        Files.writeString(runs.resolve("run-1.jsonl"), HEADER);
        Map<String, String> t = MediansDocTables.tables(new DocTables.Inputs(List.of(f, runs.resolve("run-1.jsonl"))));
        assertEquals(List.of("medians.gda-ordering"), List.copyOf(t.keySet()));
        String md = t.get("medians.gda-ordering");
        assertTrue(md.contains("| gpu-fence | inline | 8 | 3552 [3456, 3616] | True | 3 |"), md);
        assertTrue(md.contains("runs: 3008 / — / 2944"), "a run without the value is shown run by run: " + md);
        assertFalse(md.contains("preset"), "a preset column that only says none is left out: " + md);
    }

    @Test
    void noMediansFolderMeansNoTables(@TempDir Path dir) throws Exception {
        Path f = Files.createDirectories(dir.resolve("h200-page")).resolve("x.jsonl");
        Files.writeString(f, HEADER);
        assertTrue(MediansDocTables.tables(new DocTables.Inputs(List.of(f))).isEmpty());
    }
}
