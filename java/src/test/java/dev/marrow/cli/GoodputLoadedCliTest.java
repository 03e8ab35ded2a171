// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * gda/proxy goodput and loaded on the cpu target over the software NIC,
 * small: every point's bytes were checked (payload/slot errors 0, valid),
 * records say hardware=false and name the wire model (or none), the
 * goodput summary names the first size at 90 % only under a model, and
 * bad flags are usage errors. No timing is asserted.
 */
class GoodputLoadedCliTest {
    private static final JsonMapper M = JsonMapper.builder().build();

    static List<JsonNode> records(CliTest.Run r) throws Exception {
        assertEquals(0, r.code(), r.err() + r.out());
        List<JsonNode> l = new ArrayList<>();
        String[] lines = r.out().strip().split("\n");
        assertEquals("header", M.readTree(lines[0]).get("record").asString());
        for (int i = 1; i < lines.length; i++) {
            JsonNode n = M.readTree(lines[i]);
            if (!"footer".equals(n.get("record").asString())) {
                l.add(n);
            }
        }
        return l;
    }

    @Test
    void gdaGoodputUnderTheWireModelValidatesBytesAndSummarises() throws Exception {
        List<JsonNode> recs = records(CliTest.run("gda", "goodput", "--sizes", "8,4096", "--bytes-per-point", "262144",
                "--window", "32", "--signal-every", "8", "--warmup", "32", "--format", "json", "--quiet"));
        assertEquals(3, recs.size());
        for (JsonNode n : recs.subList(0, 2)) {
            assertEquals("gda.goodput", n.get("experiment").asString());
            assertFalse(n.get("hardware").asBoolean());
            assertEquals(0, n.get("payload_errors").asLong());
            assertTrue(n.get("valid").asBoolean());
            assertTrue(n.get("goodput_gbps").asDouble() > 0);
            assertEquals("infiniband-rc", n.get("wire_model").get("name").asString());
            assertEquals(200.0, n.get("wire_model").get("gbps").asDouble());
            assertEquals(25.0, n.get("line_rate_gbps").asDouble());
            // the modeled port bounds what any size can carry
            assertTrue(n.get("goodput_gbps").asDouble() <= n.get("wire_ceiling_gbps").asDouble() * 1.001, n.toString());
            assertTrue(n.get("wire_bytes").asLong() > 0);
        }
        JsonNode s = recs.get(2);
        assertEquals("gda.goodput.summary", s.get("experiment").asString());
        assertEquals(2, s.get("goodput_gbps").size());
        assertTrue(s.has("first_size_at_90pct_line_rate"));
    }

    @Test
    void gdaGoodputWithoutAModelSaysSo() throws Exception {
        List<JsonNode> recs = records(CliTest.run("gda", "goodput", "--sizes", "64", "--bytes-per-point", "65536",
                "--wire-gbps", "0", "--format", "json", "--quiet"));
        assertEquals("none", recs.get(0).get("wire_model").get("name").asString());
        assertFalse(recs.get(0).has("line_rate_gbps"));
        JsonNode s = recs.get(1);
        assertTrue(s.get("first_size_at_90pct_line_rate").isNull());
        assertTrue(s.get("note").asString().contains("no wire model"));
    }

    @Test
    void gdaSingleOpSweepIsPutCompletionPerSize() throws Exception {
        List<JsonNode> recs = records(CliTest.run("gda", "goodput", "--single-op", "--sizes", "8,65536", "--iters", "50",
                "--warmup", "5", "--format", "json", "--quiet"));
        assertEquals(2, recs.size());
        assertEquals(65536, recs.get(1).get("size_bytes").asInt());
        assertEquals("pointer", recs.get(1).get("payload").asString());
        assertTrue(recs.get(1).get("putc_p50_ns").asLong() > 0);
        assertEquals(0, recs.get(1).get("payload_errors").asLong());
        assertEquals("infiniband-rc", recs.get(1).get("wire_model").get("name").asString());
    }

    @Test
    void proxyGoodputValidatesBytes() throws Exception {
        List<JsonNode> recs = records(CliTest.run("proxy", "goodput", "--sizes", "8,8192", "--bytes-per-point", "262144",
                "--poll", "idle", "--format", "json", "--quiet"));
        assertEquals(3, recs.size());
        for (JsonNode n : recs.subList(0, 2)) {
            assertEquals("proxy.goodput", n.get("experiment").asString());
            assertFalse(n.get("hardware").asBoolean());
            assertEquals(0, n.get("verify_errors").asLong());
            assertTrue(n.get("goodput_gbps").asDouble() > 0);
        }
        assertEquals("proxy.goodput.summary", recs.get(2).get("experiment").asString());
    }

    @Test
    void gdaLoadedSharedAndReservedCarryBackgroundAndCheckIt() throws Exception {
        List<JsonNode> recs = records(CliTest.run("gda", "loaded", "--background", "0,1", "--iters", "40", "--warmup",
                "4", "--format", "json", "--quiet"));
        assertEquals(3, recs.size()); // idle once, then shared and reserved with one stream
        assertEquals("idle", recs.get(0).get("queue").asString());
        assertEquals("shared", recs.get(1).get("queue").asString());
        assertEquals("reserved", recs.get(2).get("queue").asString());
        for (JsonNode n : recs) {
            assertEquals("gda.loaded", n.get("experiment").asString());
            assertFalse(n.get("hardware").asBoolean());
            assertTrue(n.get("valid").asBoolean());
            assertEquals(0, n.get("background_slot_errors").asLong());
            assertTrue(n.get("probe_p50_ns").asLong() > 0 && n.get("probe_p999_ns").asLong() >= n.get("probe_p50_ns").asLong());
        }
        assertTrue(recs.get(1).get("background_posted").asLong() > 0);
        assertTrue(recs.get(2).get("background_posted").asLong() > 0);
    }

    @Test
    void gdaLoadedCpuCapsBackgroundThreadsAtTheCoresAndSaysSo() throws Exception {
        int cap = GdaLoadedCommand.cpuStreamCap(Runtime.getRuntime().availableProcessors());
        int asked = cap + 5;
        CliTest.Run r = CliTest.run("gda", "loaded", "--background", cap + "," + asked, "--queue", "reserved",
                "--iters", "20", "--warmup", "2", "--format", "json", "--quiet");
        List<JsonNode> recs = records(r);
        assertEquals(1, recs.size(), "the capped point equals the first and is not measured twice");
        assertEquals(cap, recs.get(0).get("background_streams").asInt());
        assertFalse(recs.get(0).get("background_streams_capped").asBoolean());
        assertTrue(r.err().contains("capped at " + cap), r.err());
        assertTrue(recs.get(0).get("valid").asBoolean());
        assertEquals(1, GdaLoadedCommand.cpuStreamCap(2));
        assertEquals(13, GdaLoadedCommand.cpuStreamCap(16));
    }

    @Test
    void proxyLoadedPacedRunHoldsItsRate() throws Exception {
        List<JsonNode> recs = records(CliTest.run("proxy", "loaded", "--background", "2", "--queue", "reserved",
                "--pace", "20k", "--iters", "40", "--warmup", "4", "--poll", "idle", "--format", "json", "--quiet"));
        JsonNode n = recs.get(0);
        assertEquals("proxy.loaded", n.get("experiment").asString());
        assertEquals(20000, n.get("pace_msgs_per_s").asLong());
        assertEquals(0, n.get("background_slot_errors").asLong());
        // pacing never posts faster than asked: at most one extra message per stream and edge
        double windowS = n.get("background_in_window").asLong() == 0 ? 0
                : n.get("background_in_window").asLong() / (n.get("background_mmsg_s").asDouble() * 1e6);
        assertTrue(n.get("background_in_window").asLong() <= 20000 * windowS + 4, n.toString());
    }

    @Test
    void badFlagsAreUsageErrors() {
        assertEquals(ExitCodes.USAGE, CliTest.run("gda", "goodput", "--sizes", "8-x").code());
        assertEquals(ExitCodes.USAGE, CliTest.run("gda", "goodput", "--window", "8", "--signal-every", "16").code());
        assertEquals(ExitCodes.USAGE, CliTest.run("gda", "loaded", "--pace", "fast").code());
        assertEquals(ExitCodes.USAGE, CliTest.run("gda", "loaded", "--queue", "both-ways").code());
        assertEquals(ExitCodes.USAGE, CliTest.run("proxy", "goodput", "--sizes", "12").code());
        assertEquals(ExitCodes.USAGE, CliTest.run("proxy", "loaded", "--handoff", "magic").code());
        assertEquals(ExitCodes.USAGE, CliTest.run("gda", "goodput", "--wire-gbps", "-5").code());
    }
}
