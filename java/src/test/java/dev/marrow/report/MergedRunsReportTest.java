// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A record merged from process runs (X, X_min, X_max, runs) reads "median [min, max]" in docs and the report. */
class MergedRunsReportTest {
    static final String HEADER = "{\"record\":\"header\",\"schema\":\"marrow.result/1\",\"env\":{\"git_sha\":\"t\"}}\n";

    static Map<String, Object> merged() {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("putc_p50_ns", 4640);
        r.put("putc_p50_ns_min", 4576);
        r.put("putc_p50_ns_max", 4672);
        r.put("issue_p50_ns", 1408);
        r.put("runs", 3);
        return r;
    }

    @Test
    void oneHelperFormatsEveryRangedField() {
        Map<String, Object> r = merged();
        assertEquals("4640 [4576, 4672]", Fmt.ranged(r, "putc_p50_ns"));
        assertEquals("1408", Fmt.ranged(r, "issue_p50_ns"), "no min/max: the value alone");
        assertEquals("—", Fmt.ranged(r, "rtt_p50_ns"), "absent field");
        assertEquals("4.64 [4.58, 4.67]", Fmt.usRanged(r, "putc_p50_ns"));
        assertEquals(3, Fmt.runs(r));
        assertTrue(Fmt.merged(List.of(r)));
        assertFalse(Fmt.merged(List.of(Map.of("putc_p50_ns", 1))));
    }

    @Test
    void htmlReportShowsMedianMinMaxAndRuns(@TempDir Path tmp) throws Exception {
        Path gda = tmp.resolve("gda-latency-3runs.jsonl");
        Files.writeString(gda, HEADER + "{\"record\":\"result\",\"experiment\":\"gda.latency\",\"backend\":\"cuda+softnic\","
                + "\"hardware\":false,\"target\":\"cuda\",\"ordering\":\"release-sys\",\"payload\":\"inline\",\"size_bytes\":8,"
                + "\"issue_p50_ns\":1408,\"issue_p50_ns_min\":1344,\"issue_p50_ns_max\":1408,\"putc_p50_ns\":4640,"
                + "\"putc_p50_ns_min\":4576,\"putc_p50_ns_max\":4672,\"valid\":true,\"runs\":3}\n");
        Path other = tmp.resolve("other-3runs.jsonl");
        Files.writeString(other, HEADER + "{\"record\":\"result\",\"experiment\":\"x.thing\",\"backend\":\"cpu\","
                + "\"hardware\":false,\"rate_mmsg_s\":7.5,\"rate_mmsg_s_min\":7.1,\"rate_mmsg_s_max\":8.25,\"runs\":3}\n");
        String html = Files.readString(Report.write(List.of(gda, other), tmp.resolve("out"), "t"));
        assertTrue(html.contains("<td>1.41 [1.34, 1.41]</td>"), "gda issue p50 as median [min, max]");
        assertTrue(html.contains("<td>4.64 [4.58, 4.67]</td>"), "gda put+c p50 as median [min, max]");
        assertTrue(html.contains("<th>runs</th>") && html.contains("<td>3</td>"), "the number of runs");
        assertTrue(html.contains("<td>7.5 [7.1, 8.25]</td>"), "generic section folds X_min/X_max into X");
        assertFalse(html.contains("<th>rate_mmsg_s_min</th>"), "no column of its own for X_min");
        assertTrue(html.contains("median [min, max]"), "the note says what the cells are");
    }
}
