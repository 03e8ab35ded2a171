// SPDX-License-Identifier: Apache-2.0
package dev.marrow.launch;

import dev.marrow.api.Backend;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static dev.marrow.launch.TwoProcessSoftNicTest.await;
import static dev.marrow.launch.TwoProcessSoftNicTest.env;
import static dev.marrow.launch.TwoProcessSoftNicTest.freePort;
import static dev.marrow.launch.TwoProcessSoftNicTest.read;
import static dev.marrow.launch.TwoProcessSoftNicTest.start;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The mini-proxy across two JVM processes (docs/design/two-process.md
 * section 9), started the way a launcher starts them: rank 0 runs the
 * proxy, its workers' WRITEs land in rank 1's inbox over the shared-memory
 * wire; one result file, written by rank 0, with both environment headers
 * and the bytes the responder saw arrive.
 */
class TwoProcessProxyTest {
    @BeforeAll
    static void softNic() {
        assumeTrue(Backend.SOFTNIC.isAvailable(), "software NIC library not loadable here");
    }

    static void checkPair(Path dir, String launcher, String[] cmd, String... expected) throws Exception {
        int port = freePort();
        Process r1 = start(dir, "rank1", env(launcher, 1, port), cmd);
        Process r0 = start(dir, "rank0", env(launcher, 0, port), cmd);
        assertEquals(0, await(r0, 60, dir, "rank0"), read(dir, "rank0.err"));
        assertEquals(0, await(r1, 30, dir, "rank1"), read(dir, "rank1.err"));
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(List.of("result.json"), files.map(f -> f.getFileName().toString())
                    .filter(f -> f.startsWith("result")).toList(), "exactly one result file, the initiator's");
        }
        String[] lines = read(dir, "result.json").strip().split("\n");
        assertEquals(2, lines.length, String.join("\n", lines));
        assertTrue(lines[0].contains("\"peer\":{") && lines[0].contains("\"host\""),
                "the header carries the responder's environment: " + lines[0]);
        String rec = lines[1];
        for (String k : expected) {
            assertTrue(rec.contains(k), k + " missing in " + rec);
        }
        for (String k : new String[] {"\"launcher\":\"" + launcher + "\"", "\"rank\":0", "\"world_size\":2",
                "\"hardware\":false", "\"nic_hardware\":false", "\"role\":\"initiator\"",
                "\"transport\":\"softnic shared-memory wire (two processes, one host)\""}) {
            assertTrue(rec.contains(k), k + " missing in " + rec);
        }
        Matcher m = Pattern.compile("\"peer_inbox_nonzero_bytes\":(\\d+)").matcher(rec);
        assertTrue(m.find(), rec);
        assertTrue(Long.parseLong(m.group(1)) >= 8, "the responder saw the WRITEs' bytes: " + rec);
        assertTrue(read(dir, "rank1.err").contains("initiator done after 1 session(s)"), read(dir, "rank1.err"));
        assertEquals("", read(dir, "rank1.out"), "the responder prints no result");
    }

    @Test
    void latencyPutAndCompletionAcrossProcesses(@TempDir Path dir) throws Exception {
        checkPair(dir, "torchrun", new String[] {"proxy", "latency", "--producer", "cpu", "--handoff", "baseline",
                "--iters", "200", "--warmup", "20", "--timeout-ms", "5000", "--peer-timeout-s", "20",
                "--poll", "idle", "--format", "json", "-o", "result.json"}, "putc_p50_ns");
        assertTrue(!read(dir, "result.json").contains("rtt_p50_ns"), "no round trip across processes");
    }

    @Test
    void rateAcrossProcesses(@TempDir Path dir) throws Exception {
        checkPair(dir, "slurm", new String[] {"proxy", "rate", "--workers", "2", "--rings", "2", "--batch", "8",
                "--messages", "20000", "--warmup", "1000", "--timeout-ms", "5000", "--peer-timeout-s", "20",
                "--poll", "idle", "--format", "json", "-o", "result.json"}, "rate_mmsg_s");
    }
}
