// SPDX-License-Identifier: Apache-2.0
package dev.marrow.launch;

import dev.marrow.api.Backend;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static dev.marrow.launch.TwoProcessSoftNicTest.await;
import static dev.marrow.launch.TwoProcessSoftNicTest.awaitLine;
import static dev.marrow.launch.TwoProcessSoftNicTest.env;
import static dev.marrow.launch.TwoProcessSoftNicTest.freePort;
import static dev.marrow.launch.TwoProcessSoftNicTest.read;
import static dev.marrow.launch.TwoProcessSoftNicTest.start;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * `gda loaded` across two JVM processes started as a launcher starts them
 * (docs/design/two-process.md section 11): rank 0's probe and background go
 * to rank 1, rank 1 answers and runs the same background back; each side's
 * bytes are checked by the other; one result file (rank 0's, both
 * environment headers); a peer killed mid-run ends the other side with a
 * clear error within the timeout. Small counts: CI has two cores.
 */
@Tag("hardening") // long: scripts/test leaves it out, .ci/run runs it (README "Tests")
class TwoProcessGdaLoadedTest {
    @BeforeAll
    static void softNic() {
        assumeTrue(Backend.SOFTNIC.isAvailable(), "software NIC library not loadable here");
    }

    static final String[] LOADED = {"gda", "loaded", "--target", "cpu", "--background", "0,1", "--queue", "both",
            "--iters", "100", "--warmup", "10", "--timeout-ms", "5000", "--peer-timeout-s", "30", "--format", "json",
            "-o", "result.json"};

    @ParameterizedTest
    @ValueSource(strings = {"torchrun", "slurm"})
    void bothEndpointsLoadedBytesCheckedOneResult(String launcher, @TempDir Path dir) throws Exception {
        int port = freePort();
        Process r1 = start(dir, "rank1", env(launcher, 1, port), LOADED);
        Process r0 = start(dir, "rank0", env(launcher, 0, port), LOADED);
        assertEquals(0, await(r0, 120, dir, "rank0"), read(dir, "rank0.err"));
        assertEquals(0, await(r1, 30, dir, "rank1"), read(dir, "rank1.err"));
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(List.of("result.json"), files.map(f -> f.getFileName().toString())
                    .filter(f -> f.startsWith("result")).toList(), "exactly one result file, rank 0's");
        }
        String[] lines = read(dir, "result.json").strip().split("\n");
        assertEquals(5, lines.length, String.join("\n", lines)); // header + idle, shared 1, reserved 1 + footer
        assertTrue(lines[0].contains("\"peer\":{") && lines[0].contains("\"host\""),
                "the header carries the responder's environment: " + lines[0]);
        for (int i = 1; i < lines.length - 1; i++) {
            String rec = lines[i];
            for (String k : new String[] {"\"experiment\":\"gda.loaded\"", "\"processes\":2", "\"hardware\":false",
                    "\"gpu_hardware\":false", "\"nic_hardware\":false", "\"role\":\"initiator\"",
                    "\"launcher\":\"" + launcher + "\"", "\"rank\":0", "\"world_size\":2", "shared-memory wire",
                    "\"peer\":\"", "\"responder_payload_errors\":0", "\"peer_background_slot_errors\":0",
                    "\"peer_pings_answered\":110", "\"valid\":true", "probe_p50_ns"}) {
                assertTrue(rec.contains(k), k + " missing in " + rec);
            }
        }
        assertTrue(lines[1].contains("\"queue\":\"idle\"") && lines[1].contains("\"peer_background_posted\":0"),
                lines[1]);
        assertTrue(lines[2].contains("\"queue\":\"shared\"") && lines[3].contains("\"queue\":\"reserved\""),
                lines[2] + "\n" + lines[3]);
        for (int i = 2; i <= 3; i++) { // both endpoints loaded: each side's single stream posted
            assertTrue(number(lines[i], "background_posted") > 0, lines[i]);
            assertTrue(number(lines[i], "peer_background_posted") > 0, lines[i]);
            assertTrue(lines[i].contains("\"background_streams\":1,") && lines[i].contains(
                    "\"peer_background_streams\":1"), lines[i]);
        }
        String served = read(dir, "rank1.err");
        assertEquals(3, served.split("inbox holds the final probe word and the initiator's background", -1).length - 1,
                served);
        assertTrue(served.contains("answered 110 pings"), served);
        assertEquals("", read(dir, "rank1.out"), "the responder prints no result");
    }

    private static long number(String rec, String key) {
        Matcher m = Pattern.compile("\"" + key + "\":(\\d+)").matcher(rec);
        assertTrue(m.find(), key + " missing in " + rec);
        return Long.parseLong(m.group(1));
    }

    /** Long enough that the kill lands inside the run. */
    static final String[] LONG = {"gda", "loaded", "--target", "cpu", "--background", "1", "--queue", "reserved",
            "--iters", "50000000", "--warmup", "0", "--timeout-ms", "3000", "--peer-timeout-s", "10",
            "--format", "json", "-o", "result.json"};

    @Test
    void responderKilledMidRunEndsTheInitiatorWithAClearError(@TempDir Path dir) throws Exception {
        int port = freePort();
        Process r1 = start(dir, "rank1", env("torchrun", 1, port), LONG);
        Process r0 = start(dir, "rank0", env("torchrun", 0, port), LONG);
        awaitLine(dir, "rank1.err", "serving the initiator's runs", 60);
        Thread.sleep(1500); // inside the run: 50 M probes last far longer
        r1.destroyForcibly().waitFor();
        long t0 = System.nanoTime();
        int rc = await(r0, 30, dir, "rank0");
        double s = (System.nanoTime() - t0) / 1e9;
        String err = read(dir, "rank0.err");
        assertNotEquals(0, rc, err);
        assertTrue(err.contains("ETIMEDOUT") || err.contains("TRANSPORT_RETRY_EXC") || err.contains("peer"), err);
        assertTrue(s < 20, "the initiator took " + s + " s to give up");
        assertTrue(!Files.exists(dir.resolve("result.json")), "a failed run wrote a result");
    }

    @Test
    void initiatorKilledMidRunEndsTheResponderWithAClearError(@TempDir Path dir) throws Exception {
        int port = freePort();
        Process r1 = start(dir, "rank1", env("openmpi", 1, port), LONG);
        Process r0 = start(dir, "rank0", env("openmpi", 0, port), LONG);
        awaitLine(dir, "rank0.err", "gda loaded initiator: connected", 60);
        Thread.sleep(1500); // inside the run
        r0.destroyForcibly().waitFor();
        long t0 = System.nanoTime();
        int rc = await(r1, 30, dir, "rank1");
        double s = (System.nanoTime() - t0) / 1e9;
        String err = read(dir, "rank1.err");
        assertNotEquals(0, rc, err);
        assertTrue(err.contains("closed the connection") || err.contains("peer"), err);
        assertTrue(s < 20, "the responder took " + s + " s to give up");
        assertTrue(!Files.exists(dir.resolve("result.json")), "the responder wrote a result");
    }
}
