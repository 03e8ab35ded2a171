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
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * `marrow report` reads JMH result files (scripts/run-bench.sh's JSON array): one record per benchmark and
 * parameter set, the score under a name with its unit, and the provenance block bench/'s BenchMain writes
 * (git SHA, EMULATED label, hardware false) carried into the records and the header.
 */
class JmhResultsTest {
    /** Two elements as JMH 1.37 writes them; the first with the provenance block, the second without. */
    static final String JMH = """
            [
                {
                    "jmhVersion" : "1.37",
                    "benchmark" : "dev.marrow.bench.SoftNicRateBenchmark.inline8",
                    "mode" : "thrpt",
                    "threads" : 1,
                    "forks" : 3,
                    "params" : { "batch" : "16" },
                    "primaryMetric" : { "score" : 1.25E7, "scoreError" : 2.5E5, "scoreUnit" : "ops/s" },
                    "secondaryMetrics" : { },
                    "marrow" : { "git_sha" : "0123456789ab", "git_dirty" : false, "hardware" : false,
                                 "nic" : "softnic", "label" : "EMULATED",
                                 "env" : { "git_sha" : "0123456789ab", "host" : "h" } }
                },
                {
                    "jmhVersion" : "1.37",
                    "benchmark" : "dev.marrow.bench.WqeEncodeBenchmark.encode",
                    "mode" : "avgt",
                    "threads" : 1,
                    "forks" : 1,
                    "primaryMetric" : { "score" : 3.5, "scoreError" : "NaN", "scoreUnit" : "ns/op" }
                }
            ]
            """;

    @Test
    void readsEveryBenchmarkWithItsUnitAndProvenance(@TempDir Path tmp) throws Exception {
        Path f = tmp.resolve("jmh-20260101T000000Z.json");
        Files.writeString(f, JMH);
        ResultFile rf = ResultFile.read(f);
        assertEquals("jmh", rf.experiment());
        assertEquals("0123456789ab", rf.env().get("git_sha"));
        List<Map<String, Object>> rs = rf.records();
        assertEquals(2, rs.size());
        Map<String, Object> rate = rs.get(0);
        assertEquals("SoftNicRate.inline8", rate.get("benchmark"));
        assertEquals("16", rate.get("batch"));
        assertEquals(1.25e7, ((Number) rate.get("ops_per_s")).doubleValue());
        assertEquals(2.5e5, ((Number) rate.get("ops_per_s_ci999")).doubleValue());
        assertEquals(Boolean.FALSE, rate.get("hardware"));
        assertEquals("EMULATED", rate.get("label"));
        assertEquals("0123456789ab", rate.get("git_sha"));
        assertTrue(Provenance.emulated(rate));
        Map<String, Object> enc = rs.get(1);
        assertEquals("WqeEncode.encode", enc.get("benchmark"));
        assertEquals(3.5, ((Number) enc.get("ns_per_op")).doubleValue());
        assertFalse(enc.containsKey("hardware"), "no provenance block: nothing invented");
    }

    @Test
    void theReportShowsThemAsEmulated(@TempDir Path tmp) throws Exception {
        Path f = tmp.resolve("jmh.json");
        Files.writeString(f, JMH);
        String html = Files.readString(Report.write(List.of(f), tmp.resolve("r"), "t"));
        assertTrue(html.contains("SoftNicRate.inline8"), "the benchmark's row");
        assertTrue(html.contains("EMULATED"), "the EMULATED label");
        assertTrue(html.contains("0123456789ab"), "the git SHA");
    }

    @Test
    void anArrayThatIsNotJmhOutputIsRefusedWithItsFile(@TempDir Path tmp) throws Exception {
        Path f = tmp.resolve("x.json");
        Files.writeString(f, "[1, 2]");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ResultFile.read(f));
        assertTrue(e.getMessage().startsWith(f + ": element 1 is not a JMH result"), e.getMessage());
        Files.writeString(f, "[");
        e = assertThrows(IllegalArgumentException.class, () -> ResultFile.read(f));
        assertTrue(e.getMessage().startsWith(f + ": not a JMH result file"), e.getMessage());
    }
}
