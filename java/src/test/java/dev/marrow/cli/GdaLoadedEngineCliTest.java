// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * gda loaded on several software-NIC engine threads (cpu target, small):
 * the placement in the records is what the software NIC reported per QP;
 * with reserved queues and a dedicated probe engine no background QP is
 * served by the probe's engine thread; a shared queue says it shares the
 * probe's thread; bytes are still checked; bad engine flags are usage
 * errors that name the flag. No timing is asserted.
 */
class GdaLoadedEngineCliTest {
    private static List<JsonNode> run(String... extra) throws Exception {
        String[] base = {"gda", "loaded", "--iters", "30", "--warmup", "3", "--format", "json",
                "--quiet", "--oversubscribe"};
        String[] args = new String[base.length + extra.length];
        System.arraycopy(base, 0, args, 0, base.length);
        System.arraycopy(extra, 0, args, base.length, extra.length);
        return GoodputLoadedCliTest.records(CliTest.run(args));
    }

    private static void checkBytesAndBudget(JsonNode n, int engines) {
        assertTrue(n.get("valid").asBoolean(), n.toString());
        assertEquals(0, n.get("background_slot_errors").asLong(), n.toString());
        int spinning = 2 + engines + n.get("background_streams").asInt(); // cpu target: probe, peer, engines, streams
        assertEquals(spinning, n.get("spinning_threads").asInt(), n.toString());
        assertEquals(spinning > Runtime.getRuntime().availableProcessors(), n.get("cpu_oversubscribed").asBoolean());
    }

    @Test
    void reservedWithADedicatedProbeEngineKeepsEveryBackgroundQpOffTheProbesThread() throws Exception {
        List<JsonNode> recs = run("--background", "2", "--queue", "reserved", "--engine-threads", "3",
                "--probe-engine", "dedicated");
        assertEquals(1, recs.size());
        JsonNode n = recs.get(0);
        assertEquals("reserved", n.get("queue").asString());
        assertEquals(3, n.get("engine_threads").asInt());
        assertEquals("dedicated", n.get("probe_engine").asString());
        // reported by the NIC: QPNs would shard A and B onto different threads; both were placed on 0
        assertEquals(0, n.get("probe_engine_thread").asInt());
        assertEquals(0, n.get("peer_engine_thread").asInt());
        assertTrue(n.get("probe_engine_alone").asBoolean(), n.toString());
        assertEquals(2, n.get("background_engine_threads").asInt(), "2 QPs over threads 1 and 2");
        assertEquals(1, n.get("background_qps_per_engine_max").asInt());
        assertTrue(n.get("background_posted").asLong() > 0);
        checkBytesAndBudget(n, 3);
    }

    @Test
    void sharedProbeEngineSpreadsTheBackgroundOverTheProbesThreadToo() throws Exception {
        List<JsonNode> recs = run("--background", "2", "--queue", "reserved", "--engine-threads", "2",
                "--probe-engine", "shared");
        JsonNode n = recs.get(0);
        assertEquals("shared", n.get("probe_engine").asString());
        assertFalse(n.get("probe_engine_alone").asBoolean(), "background QP 0 is on thread 0: " + n);
        assertEquals(2, n.get("background_engine_threads").asInt());
        checkBytesAndBudget(n, 2);
    }

    @Test
    void aSharedQueueSharesTheProbesEngineThreadWhateverIsAsked() throws Exception {
        List<JsonNode> recs = run("--background", "0,1", "--queue", "shared", "--engine-threads", "2");
        assertEquals("idle", recs.get(0).get("queue").asString());
        assertTrue(recs.get(0).get("probe_engine_alone").asBoolean());
        JsonNode n = recs.get(1);
        assertEquals("shared", n.get("queue").asString());
        assertEquals("dedicated", n.get("probe_engine_requested").asString(), "the default with 2 threads");
        assertEquals("shared", n.get("probe_engine").asString());
        assertFalse(n.get("probe_engine_alone").asBoolean());
        checkBytesAndBudget(n, 2);
    }

    @Test
    void withoutEngineFlagsOneThreadServesEverything() throws Exception {
        JsonNode n = run("--background", "1", "--queue", "reserved").get(0);
        assertEquals(1, n.get("engine_threads").asInt());
        assertEquals("shared", n.get("probe_engine").asString());
        assertFalse(n.get("probe_engine_alone").asBoolean());
        checkBytesAndBudget(n, 1);
    }

    @Test
    void badEngineFlagsAreUsageErrorsThatNameTheFlag() {
        String[][] bad = {
                {"--engine-threads", "0"}, {"--engine-threads", "65"}, {"--probe-engine", "own"},
                {"--probe-engine", "dedicated"}, // one engine thread: nothing to dedicate
                {"--engine-threads", "2", "--engine-cpus", "0"},
                {"--engine-threads", "2", "--engine-cpus", "0,0", "--engine-cpu", "0"},
                {"--peer", "127.0.0.1:1", "--probe-engine", "dedicated"}, // two processes: each side's own NIC,
                {"--peer", ":1", "--engine-threads", "2", "--engine-cpus", "0"}, // checked before connecting
                {"--engine-threads", "2", "--engine-cpus", "1000,0"}, // no such CPU: the NIC refuses the pin
        };
        String[] flag = {"--engine-threads", "--engine-threads", "--probe-engine", "--probe-engine",
                "--engine-cpus", "--engine-cpu", "--probe-engine", "--engine-cpus", "--engine-cpus"};
        for (int i = 0; i < bad.length; i++) {
            String[] args = new String[bad[i].length + 4];
            args[0] = "gda";
            args[1] = "loaded";
            args[2] = "--background";
            args[3] = "0";
            System.arraycopy(bad[i], 0, args, 4, bad[i].length);
            CliTest.Run r = CliTest.run(args);
            assertEquals(ExitCodes.USAGE, r.code(), String.join(" ", bad[i]) + ": " + r.err());
            assertTrue(r.err().contains(flag[i]), String.join(" ", bad[i]) + ": " + r.err());
        }
    }
}
