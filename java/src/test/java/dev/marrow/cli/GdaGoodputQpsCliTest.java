// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * gda goodput's window spread over several QPs on the cpu target and the
 * software NIC: every point's bytes were checked, the records carry qps,
 * engine_threads, the per-QP window and the wire model with its one-port
 * scope, and under a slow modeled port no point beats the port's line rate
 * (the model serialises every QP through one link). Bad combinations are
 * usage errors with the flag named. No timing is asserted beyond the model's
 * bound. proxy goodput's QPs are its workers': its records say so too.
 */
class GdaGoodputQpsCliTest {

    @Test
    void twoQpsOneEngineThreadValidateBytesAndStayUnderOnePort() throws Exception {
        // 2 Gb/s: 0.25 GB/s of line rate, far below what the copy engine does, so the model binds
        List<JsonNode> recs = GoodputLoadedCliTest.records(CliTest.run("gda", "goodput", "--target", "cpu",
                "--qps", "2", "--engine-threads", "1", "--sizes", "8,512,4096", "--bytes-per-point", "131072",
                "--window", "32", "--signal-every", "8", "--warmup", "16", "--wire-gbps", "2",
                "--format", "json", "--quiet"));
        assertEquals(4, recs.size());
        for (JsonNode n : recs.subList(0, 3)) {
            assertEquals("gda.goodput", n.get("experiment").asString());
            assertFalse(n.get("hardware").asBoolean());
            assertEquals(2, n.get("qps").asInt());
            assertEquals(1, n.get("engine_threads").asInt());
            assertEquals(32, n.get("window").asInt());
            assertEquals(16, n.get("window_per_qp").asInt());
            assertEquals(8, n.get("signal_every_per_qp").asInt());
            assertEquals(0, n.get("payload_errors").asLong(), n.toString());
            assertTrue(n.get("valid").asBoolean());
            assertEquals("infiniband-rc", n.get("wire_model").get("name").asString());
            assertTrue(n.get("wire_model_scope").asString().contains("one port"), n.toString());
            assertEquals(0.25, n.get("line_rate_gbps").asDouble(), 1e-9);
            double g = n.get("goodput_gbps").asDouble();
            assertTrue(g > 0, n.toString());
            assertTrue(g <= n.get("line_rate_gbps").asDouble(), "beat the modeled port: " + n);
            assertTrue(g <= n.get("wire_ceiling_gbps").asDouble() * 1.001, "beat the size's ceiling: " + n);
            // both QPs' bytes went through the one port
            assertTrue(n.get("wire_bytes").asLong() >= n.get("messages").asLong() * n.get("size_bytes").asLong());
            assertTrue(n.get("doorbells").asLong() >= n.get("messages").asLong());
        }
        JsonNode s = recs.get(3);
        assertEquals("gda.goodput.summary", s.get("experiment").asString());
        assertEquals(2, s.get("qps").asInt());
        assertEquals(1, s.get("engine_threads").asInt());
        assertTrue(s.get("first_size_at_90pct_line_rate").isNull() || s.get("first_size_at_90pct_line_rate").isInt());
    }

    @Test
    void twoQpsOnTwoEngineThreadsWithoutAModel() throws Exception {
        List<JsonNode> recs = GoodputLoadedCliTest.records(CliTest.run("gda", "goodput", "--qps", "2",
                "--engine-threads", "2", "--sizes", "64", "--bytes-per-point", "65536", "--window", "16",
                "--signal-every", "4", "--wire-gbps", "0", "--format", "json", "--quiet"));
        JsonNode n = recs.getFirst();
        assertEquals(2, n.get("engine_threads").asInt());
        assertEquals(0, n.get("payload_errors").asLong());
        assertEquals("none", n.get("wire_model").get("name").asString());
        assertFalse(n.has("wire_model_scope"));
    }

    @Test
    void proxyGoodputRecordsItsQpsAndEngineThreadsAndStaysUnderOnePort() throws Exception {
        List<JsonNode> recs = GoodputLoadedCliTest.records(CliTest.run("proxy", "goodput", "--workers", "2",
                "--rings", "2", "--engine-threads", "2", "--sizes", "64,4096", "--bytes-per-point", "65536",
                "--wire-gbps", "2", "--poll", "idle", "--format", "json", "--quiet"));
        assertEquals(3, recs.size());
        for (JsonNode n : recs.subList(0, 2)) {
            assertEquals(2, n.get("qps").asInt());
            assertEquals(2, n.get("engine_threads").asInt());
            assertEquals(0, n.get("verify_errors").asLong(), n.toString());
            assertTrue(n.get("wire_model_scope").asString().contains("one port"), n.toString());
            double g = n.get("goodput_gbps").asDouble();
            assertTrue(g > 0 && g <= n.get("line_rate_gbps").asDouble(), "beat the modeled port: " + n);
        }
    }

    @Test
    void badCombinationsAreUsageErrorsNamingTheFlag() {
        expectUsage("--qps", "--qps", "0");
        expectUsage("--qps", "--qps", "17");
        expectUsage("--engine-threads", "--qps", "2", "--engine-threads", "3");
        expectUsage("--engine-cpus", "--qps", "2", "--engine-threads", "2", "--engine-cpus", "0");
        expectUsage("--single-op", "--single-op", "--qps", "2");
        expectUsage("--window", "--qps", "4", "--window", "2", "--signal-every", "1");
        expectUsage("--engine-cpus", "--engine-cpu", "0", "--engine-cpus", "0");
        expectUsage("--engine-cpus", "--engine-cpu", "0", "--qps", "2", "--engine-threads", "2");
    }

    private static void expectUsage(String named, String... flags) {
        String[] args = new String[flags.length + 6];
        args[0] = "gda";
        args[1] = "goodput";
        System.arraycopy(flags, 0, args, 2, flags.length);
        args[flags.length + 2] = "--sizes";
        args[flags.length + 3] = "64";
        args[flags.length + 4] = "--quiet";
        args[flags.length + 5] = "--bytes-per-point=4096";
        CliTest.Run r = CliTest.run(args);
        assertEquals(ExitCodes.USAGE, r.code(), String.join(" ", args) + ": " + r.err());
        assertTrue(r.err().contains(named), String.join(" ", args) + ": " + r.err());
    }
}
