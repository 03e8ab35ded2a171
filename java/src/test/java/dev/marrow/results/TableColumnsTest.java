// SPDX-License-Identifier: Apache-2.0
package dev.marrow.results;

import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** --format table: a curated column set within 120 characters; --columns all or a list for more. */
class TableColumnsTest {
    /** A record as wide as proxy.latency's: 60 fields, about 1,400 characters as a full table line. */
    static Map<String, Object> wide(String experiment, int handoff) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("record", "result");
        m.put("experiment", experiment);
        m.put("backend", "softnic");
        m.put("hardware", false);
        m.put("nic", "softnic (EMULATED)");
        m.put("producer", "cpu");
        m.put("handoff", handoff == 0 ? "baseline" : "tuned");
        m.put("workers", 1);
        m.put("batch", 16);
        m.put("size_bytes", 8);
        m.put("percentiles", "nearest-rank over the samples after the warm-up");
        for (String s : List.of("issue", "putc", "rtt")) {
            for (String p : List.of("min", "p50", "p90", "p99", "p999", "max", "mean", "stdev")) {
                m.put(s + "_" + p + "_ns", 123456789L);
            }
        }
        for (int i = 0; i < 30; i++) {
            m.put("extra_field_" + i, "some value " + i);
        }
        m.put("valid", true);
        return m;
    }

    static List<String> table(TableColumns c, List<Map<String, Object>> recs) {
        StringWriter out = new StringWriter();
        RecordSink s = RecordSink.open(Destination.check(null), OutputFormat.TABLE, RecordSink.header(Map.of()),
                new PrintWriter(out), new PrintWriter(new StringWriter())).columns(c);
        recs.forEach(s::write);
        s.finish(RecordSink.Status.COMPLETE, null, Map.of());
        return out.toString().lines().toList();
    }

    @Test
    void curatedTableFitsIn120ColumnsAndKeepsValid() {
        List<String> lines = table(TableColumns.CURATED, List.of(wide("proxy.latency", 0), wide("proxy.latency", 1)));
        for (String l : lines.subList(2, lines.size())) { // the two comment lines name experiment and host
            assertTrue(l.length() <= TableColumns.WIDTH, l.length() + ": " + l);
        }
        String head = lines.get(2);
        List<String> cols = List.of(head.strip().split(" +"));
        assertEquals(List.of("producer", "handoff", "workers", "batch", "size_bytes"), cols.subList(0, 5), head);
        assertTrue(cols.contains("putc_p50_ns") && cols.contains("issue_p50_ns"), head);
        assertEquals("valid", cols.getLast(), head);
        assertTrue(!cols.contains("extra_field_0") && !cols.contains("percentiles") && !cols.contains("nic"), head);
        assertEquals(5, lines.size(), "one column line for rows of one experiment: " + lines);
    }

    @Test
    void allPrintsEveryFieldAndAListOnlyThose() {
        List<String> all = table(TableColumns.ALL, List.of(wide("proxy.latency", 0)));
        assertTrue(all.get(2).length() > 500, all.get(2));
        assertTrue(all.get(2).contains("extra_field_29"), all.get(2));
        List<String> two = table(TableColumns.parse("rtt_p50_ns, handoff,nosuch"),
                List.of(wide("proxy.latency", 0), wide("proxy.latency", 1)));
        assertEquals(List.of("rtt_p50_ns", "handoff", "nosuch"), List.of(two.get(2).strip().split(" +")));
        assertEquals(List.of("123456789", "tuned", "-"), List.of(two.get(4).strip().split(" +")));
    }

    @Test
    void aNewExperimentStartsItsOwnColumnLine() {
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("record", "result");
        summary.put("experiment", "proxy.goodput.summary");
        summary.put("first_size_at_90pct_line_rate", 4096);
        List<String> lines = table(TableColumns.CURATED, List.of(wide("proxy.latency", 0), summary));
        assertEquals("# proxy.goodput.summary", lines.get(4), String.join("\n", lines));
        assertEquals("first_size_at_90pct_line_rate", lines.get(5).strip());
    }

    @Test
    void badColumnNamesAreUsageErrors() {
        assertThrows(IllegalArgumentException.class, () -> TableColumns.parse("a,,b"));
        assertThrows(IllegalArgumentException.class, () -> TableColumns.parse("a b"));
        assertEquals(TableColumns.ALL, TableColumns.parse("all"));
    }
}
