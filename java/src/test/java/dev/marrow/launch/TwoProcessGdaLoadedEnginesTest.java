// SPDX-License-Identifier: Apache-2.0
package dev.marrow.launch;

import dev.marrow.api.Backend;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static dev.marrow.launch.TwoProcessSoftNicTest.await;
import static dev.marrow.launch.TwoProcessSoftNicTest.env;
import static dev.marrow.launch.TwoProcessSoftNicTest.freePort;
import static dev.marrow.launch.TwoProcessSoftNicTest.read;
import static dev.marrow.launch.TwoProcessSoftNicTest.start;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * `gda loaded` across two processes with several software-NIC engine threads per side
 * (docs/design/two-process.md section 11, docs/design/methods.md section 6.3 "Engine placement"): each side's
 * --engine-threads / --probe-engine govern its own NIC, the QPs move between engine threads while
 * connected over the shared-memory wire, both sides' bytes are checked, and rank 0's record carries
 * both sides' placement as each NIC reported it. Small counts: CI has two cores.
 */
@Tag("hardening") // long: scripts/test leaves it out, .ci/run runs it (README "Tests")
class TwoProcessGdaLoadedEnginesTest {
    @BeforeAll
    static void softNic() {
        assumeTrue(Backend.SOFTNIC.isAvailable(), "software NIC library not loadable here");
    }

    /** Three reserved background streams per side (more than the cores: --oversubscribe). */
    static String[] args(String... engine) {
        List<String> a = new ArrayList<>(List.of("gda", "loaded", "--target", "cpu", "--background", "3", "--queue",
                "reserved", "--oversubscribe", "--iters", "100", "--warmup", "10", "--timeout-ms", "5000",
                "--peer-timeout-s", "30", "--format", "json", "-o", "result.json"));
        a.addAll(List.of(engine));
        return a.toArray(String[]::new);
    }

    private static JsonNode runPair(Path dir, String[] rank0, String[] rank1) throws Exception {
        int port = freePort();
        Process r1 = start(dir, "rank1", env("torchrun", 1, port), rank1);
        Process r0 = start(dir, "rank0", env("torchrun", 0, port), rank0);
        assertEquals(0, await(r0, 120, dir, "rank0"), read(dir, "rank0.err"));
        assertEquals(0, await(r1, 30, dir, "rank1"), read(dir, "rank1.err"));
        String[] lines = read(dir, "result.json").strip().split("\n");
        assertEquals(3, lines.length, String.join("\n", lines)); // header + the reserved point + footer
        JsonNode rec = JsonMapper.builder().build().readTree(lines[1]);
        JsonNode p = rec; // records are flat: parameters and metrics side by side
        JsonNode m = rec;
        assertEquals("reserved", p.get("queue").asString(), lines[1]);
        assertEquals(3, p.get("background_streams").asInt(), lines[1]);
        // bytes validated both ways while QPs sat on (and had moved to) several engine threads per side
        assertTrue(m.get("valid").asBoolean(), lines[1]);
        assertEquals(0, m.get("responder_payload_errors").asLong(), lines[1]);
        assertEquals(0, m.get("peer_background_slot_errors").asLong(), lines[1]);
        assertEquals(110, m.get("peer_pings_answered").asLong(), lines[1]);
        assertTrue(m.get("background_posted").asLong() > 0 && m.get("peer_background_posted").asLong() > 0, lines[1]);
        return p;
    }

    @Test
    void dedicatedOnBothSidesKeepsEachSessionQpAloneAsBothNicsReport(@TempDir Path dir) throws Exception {
        String[] a = args("--engine-threads", "3", "--probe-engine", "dedicated");
        JsonNode p = runPair(dir, a, a);
        for (String side : new String[] {"", "peer_"}) {
            assertEquals(3, p.get(side + "engine_threads").asInt(), side + p);
            assertEquals("dedicated", p.get(side + "probe_engine").asString(), side + p);
            assertEquals("dedicated", p.get(side + "probe_engine_requested").asString(), side + p);
            assertTrue(p.get(side + "probe_engine_alone").asBoolean(), side + p);
            // background QPs 0, 1, 2 on threads 1, 2, 1
            assertEquals(2, p.get(side + "background_engine_threads").asInt(), side + p);
            assertEquals(2, p.get(side + "background_qps_per_engine_max").asInt(), side + p);
        }
        assertEquals(0, p.get("probe_engine_thread").asInt(), p.toString());
        assertEquals(0, p.get("peer_engine_thread").asInt(), p.toString());
        assertTrue(p.get("spinning_threads").asInt() >= 3 + 3 + 1 + 3 + 1 + 3, p.toString());
        String served = read(dir, "rank1.err");
        assertTrue(served.contains("engine threads 3, answering QP on thread 0, background on 2 thread(s), none on "
                + "the answering QP's"), served);
    }

    @Test
    void eachSideKeepsItsOwnFlagsAndTheRecordReadsTheResponderBack(@TempDir Path dir) throws Exception {
        JsonNode p = runPair(dir, args("--engine-threads", "3"), // dedicated: the default with threads > 1
                args("--engine-threads", "2", "--probe-engine", "shared"));
        assertEquals(3, p.get("engine_threads").asInt(), p.toString());
        assertEquals("dedicated", p.get("probe_engine").asString(), p.toString());
        assertTrue(p.get("probe_engine_alone").asBoolean(), p.toString());
        assertEquals(2, p.get("peer_engine_threads").asInt(), p.toString());
        assertEquals("shared", p.get("peer_probe_engine").asString(), p.toString());
        // responder: background QPs 0, 1, 2 on threads 0, 1, 0 of its two: two share the answering QP's thread
        assertFalse(p.get("peer_probe_engine_alone").asBoolean(), p.toString());
        assertEquals(2, p.get("peer_background_engine_threads").asInt(), p.toString());
        assertEquals(2, p.get("peer_background_qps_per_engine_max").asInt(), p.toString());
    }
}
