// SPDX-License-Identifier: Apache-2.0
package dev.marrow.results;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Merging N process runs of one command into medians with their spread. */
class RunMergeTest {
    static String run(long p50, boolean valid, int iters, String note) {
        return "{\"record\":\"header\",\"schema\":\"marrow.result/1\",\"env\":{}}\n"
                + "{\"record\":\"result\",\"experiment\":\"gda.latency\",\"backend\":\"cuda+softnic\",\"hardware\":false,"
                + "\"iters\":" + iters + ",\"putc_p50_ns\":" + p50 + ",\"posts\":11000,\"valid\":" + valid
                + ",\"note\":\"" + note + "\"}\n"
                + "{\"record\":\"result\",\"experiment\":\"gda.latency\",\"backend\":\"cuda+softnic\",\"hardware\":false,"
                + "\"iters\":" + iters + ",\"putc_p50_ns\":" + (2 * p50) + ",\"posts\":11000,\"valid\":true,\"note\":\"x\"}\n";
    }

    @Test
    void eachPointBecomesTheMedianOfTheRunsWithMinAndMax() {
        List<Map<String, Object>> m = RunMerge.merge(List.of(
                RunMerge.results(run(1300, true, 10000, "a")),
                RunMerge.results(run(1100, true, 10000, "a")),
                RunMerge.results(run(1900, true, 10000, "a"))));
        assertEquals(2, m.size());
        Map<String, Object> p = m.getFirst();
        assertEquals(1300L, p.get("putc_p50_ns"));
        assertEquals(1100L, p.get("putc_p50_ns_min"));
        assertEquals(1900L, p.get("putc_p50_ns_max"));
        assertEquals(2600L, m.get(1).get("putc_p50_ns"), "the second point is merged with the second points");
        assertEquals(10000, p.get("iters"), "a parameter that agrees stays as it was");
        assertEquals(11000, p.get("posts"), "an unsuffixed count that agrees stays as it was");
        assertEquals(true, p.get("valid"));
        assertEquals(3, p.get("runs"));
        assertEquals("a", p.get("note"));
        assertEquals(RunMerge.STATISTIC, p.get("repeat_statistic"));
    }

    @Test
    void oneInvalidRunMakesThePointInvalidAndDisagreementsAreKept() {
        List<Map<String, Object>> m = RunMerge.merge(List.of(
                RunMerge.results(run(1000, true, 10000, "a")),
                RunMerge.results(run(1000, false, 10000, "b"))));
        Map<String, Object> p = m.getFirst();
        assertEquals(false, p.get("valid"));
        assertEquals(List.of("a", "b"), p.get("note"));
        assertEquals(1000L, p.get("putc_p50_ns_min"), "a measured field gets its spread even when the runs agree");
    }

    @Test
    void aNumberThatDiffersIsTreatedAsMeasured() {
        Map<String, Object> p = RunMerge.merge(List.of(
                RunMerge.results(run(1000, true, 10000, "a")),
                RunMerge.results(run(1000, true, 20000, "a")))).getFirst();
        assertEquals(10000L, p.get("iters"));
        assertEquals(20000L, p.get("iters_max"));
    }

    @Test
    void runsOfDifferentCommandsAreRefused() {
        String other = run(1000, true, 10000, "a").replace("gda.latency", "proxy.latency");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RunMerge.merge(List.of(
                RunMerge.results(run(1000, true, 10000, "a")), RunMerge.results(other))));
        assertTrue(e.getMessage().contains("experiment"), e.getMessage());
        String shorter = run(1000, true, 10000, "a").lines().limit(2).reduce("", (x, y) -> x + y + "\n");
        assertThrows(IllegalArgumentException.class, () -> RunMerge.merge(List.of(
                RunMerge.results(run(1000, true, 10000, "a")), RunMerge.results(shorter))));
        assertThrows(IllegalArgumentException.class, () -> RunMerge.merge(List.of()));
    }

    @Test
    void headerIsKeptAndResultsRenderAsJsonLines() {
        String text = run(1000, true, 10000, "a");
        String h = RunMerge.header(text);
        assertTrue(h.contains("\"header\""));
        String out = RunMerge.render(h, RunMerge.merge(List.of(RunMerge.results(text))));
        assertEquals(3, out.lines().count());
        assertTrue(out.lines().skip(1).allMatch(l -> l.contains("\"runs\":1")), out);
    }

    @Test
    void measuredNamesAreRecognisedBySuffix() {
        assertTrue(RunMerge.measured("rtt_p50_ns"));
        assertTrue(RunMerge.measured("kernel_p50_ms"));
        assertTrue(RunMerge.measured("throughput_loss"));
        assertTrue(!RunMerge.measured("iters"));
        assertTrue(!RunMerge.measured("size_bytes"));
    }

    static JsonLinesReader reader(Path dir, String name, String text) throws Exception {
        Path f = dir.resolve(name);
        Files.writeString(f, text);
        return JsonLinesReader.open(f, false);
    }

    /** A run of n small points, as a file: header, n results, footer. */
    static Path bigRun(Path dir, String name, int n, long base) throws Exception {
        Path f = dir.resolve(name);
        try (java.io.BufferedWriter w = Files.newBufferedWriter(f)) {
            w.write("{\"record\":\"header\",\"schema\":\"marrow.result/1\",\"env\":{\"host\":\"" + name + "\"}}\n");
            for (int k = 0; k < n; k++) {
                w.write("{\"record\":\"result\",\"experiment\":\"e\",\"backend\":\"b\",\"hardware\":false,\"k\":" + k
                        + ",\"t_ns\":" + (base + k) + "}\n");
            }
            w.write("{\"record\":\"footer\",\"records\":" + n + "}\n");
        }
        return f;
    }

    @Test
    void theStreamingMergeReadsOnePointAheadAndKeepsRunOnesHeader(@TempDir Path tmp) throws Exception {
        int n = 50_000; // merge-runs over 2 x 200k records in a small heap: OutputCliTest
        List<JsonLinesReader> rs = List.of(JsonLinesReader.open(bigRun(tmp, "a.jsonl", n, 100), false),
                JsonLinesReader.open(bigRun(tmp, "b.jsonl", n, 300), false),
                JsonLinesReader.open(bigRun(tmp, "c.jsonl", n, 200), false));
        RunMerge.Lockstep m = new RunMerge.Lockstep(rs);
        assertEquals("a.jsonl", ((Map<?, ?>) m.header().get("env")).get("host"));
        // after the first point: every reader has read its header and one record, nothing more
        Map<String, Object> first = m.next();
        assertEquals(200L, first.get("t_ns"));
        assertEquals(100L, first.get("t_ns_min"));
        assertEquals(300L, first.get("t_ns_max"));
        for (JsonLinesReader r : rs) {
            assertEquals(3, r.lineNumber(), "streaming: the reader holds the next point only");
        }
        long count = 1;
        Map<String, Object> last = first;
        for (Map<String, Object> p = m.next(); p != null; p = m.next()) {
            last = p;
            count++;
        }
        assertEquals(n, count);
        assertEquals(200L + n - 1, last.get("t_ns"));
        assertEquals(n - 1, last.get("k"), "the footer is not a point");
        rs.forEach(JsonLinesReader::close);
    }

    @Test
    void theStreamingMergeRefusesRunsThatEndApart(@TempDir Path tmp) throws Exception {
        String full = run(1000, true, 10000, "a");
        String cut = full.lines().limit(2).reduce("", (x, y) -> x + y + "\n");
        RunMerge.Lockstep m = new RunMerge.Lockstep(List.of(reader(tmp, "1.jsonl", full), reader(tmp, "2.jsonl", cut)));
        // the first point is merged, and reading the second finds run 2 at its end
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, m::next);
        assertEquals("run 2 (" + tmp.resolve("2.jsonl") + ") has 1 result records, run 1 has 2: not runs of one "
                + "command (or one was cut short)", e.getMessage());
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class, () -> new RunMerge.Lockstep(
                List.of(reader(tmp, "3.jsonl", full), reader(tmp, "4.jsonl", "{\"record\":\"header\"}\n"))));
        assertEquals(tmp.resolve("4.jsonl") + " holds no result records (did that run fail?)", none.getMessage());
    }
}
