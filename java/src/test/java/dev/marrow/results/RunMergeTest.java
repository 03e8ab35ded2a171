// SPDX-License-Identifier: Apache-2.0
package dev.marrow.results;

import org.junit.jupiter.api.Test;

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
}
