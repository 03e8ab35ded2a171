// SPDX-License-Identifier: Apache-2.0
package dev.marrow.launch;

import dev.marrow.proxy.ProxyPeer;
import dev.marrow.api.Backend;
import dev.marrow.peer.PeerExchange;
import dev.marrow.peer.PeerMessages;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static dev.marrow.launch.TwoProcessSoftNicTest.await;
import static dev.marrow.launch.TwoProcessSoftNicTest.awaitLine;
import static dev.marrow.launch.TwoProcessSoftNicTest.refusedBy;
import static dev.marrow.launch.TwoProcessSoftNicTest.versionTwoFrame;
import static dev.marrow.launch.TwoProcessSoftNicTest.env;
import static dev.marrow.launch.TwoProcessSoftNicTest.freePort;
import static dev.marrow.launch.TwoProcessSoftNicTest.read;
import static dev.marrow.launch.TwoProcessSoftNicTest.start;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The mini-proxy across two JVM processes (docs/design/two-process.md
 * section 9), started the way a launcher starts them: rank 0 runs the
 * proxy, its workers' WRITEs land in rank 1's inbox over the shared-memory
 * wire; one result file, written by rank 0, with both environment headers
 * and the bytes the responder saw arrive.
 */
@Tag("hardening") // long: scripts/test leaves it out, .ci/run runs it (README "Tests")
class TwoProcessProxyTest {
    @BeforeAll
    static void softNic() {
        assumeTrue(Backend.SOFTNIC.isAvailable(), "software NIC library not loadable here");
    }

    static void checkPair(Path dir, String launcher, String[] cmd, String... expected) throws Exception {
        checkPair(dir, launcher, 1, cmd, expected);
    }

    /** records: lines after the header (goodput adds its summary line). */
    static void checkPair(Path dir, String launcher, int records, String[] cmd, String... expected) throws Exception {
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
        assertEquals(2 + records, lines.length, String.join("\n", lines));
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

    @Test
    void loadedRoundTripThroughTheResponderProcess(@TempDir Path dir) throws Exception {
        checkPair(dir, "openmpi", new String[] {"proxy", "loaded", "--background", "2", "--queue", "reserved",
                "--iters", "100", "--warmup", "10", "--wire-gbps", "0", "--timeout-ms", "5000",
                "--peer-timeout-s", "20", "--poll", "idle", "--format", "json", "-o", "result.json"},
                "probe_p50_ns", "\"probe_round_trip\":\"PE 1 is the responder process", "\"processes\":2",
                "\"background_streams\":2", "\"valid\":true");
        String rec = read(dir, "result.json").strip().split("\n")[1];
        Matcher m = Pattern.compile("\"background_posted\":(\\d+)").matcher(rec);
        assertTrue(m.find() && Long.parseLong(m.group(1)) > 0, "the background streamed: " + rec);
        // the probes' replies came from the other process: its log says it answered
        assertTrue(read(dir, "rank1.err").contains("answering round trips"), read(dir, "rank1.err"));
    }

    @Test
    void goodputAcrossProcesses(@TempDir Path dir) throws Exception {
        checkPair(dir, "torchrun", 2, new String[] {"proxy", "goodput", "--sizes", "64", "--bytes-per-point", "65536",
                "--workers", "1", "--rings", "2", "--wire-gbps", "0", "--timeout-ms", "5000", "--peer-timeout-s", "20",
                "--poll", "idle", "--format", "json", "-o", "result.json"}, "goodput_gbps", "\"valid\":true",
                "\"size_bytes\":64");
        assertTrue(!read(dir, "result.json").contains("verify_errors"),
                "no local destination check across processes");
    }

    /** A rate run long enough that a kill lands inside it (2e9 messages take minutes at any rate here). */
    static final String[] LONG_RATE = {"proxy", "rate", "--workers", "1", "--rings", "2", "--batch", "8",
            "--messages", "2000000000", "--warmup", "0", "--timeout-ms", "3000", "--peer-timeout-s", "10",
            "--poll", "idle", "--format", "json", "-o", "result.json"};

    @Test
    void responderKilledMidRunEndsTheInitiatorWithAClearError(@TempDir Path dir) throws Exception {
        int port = freePort();
        Process r1 = start(dir, "rank1", env("torchrun", 1, port), LONG_RATE);
        Process r0 = start(dir, "rank0", env("torchrun", 0, port), LONG_RATE);
        awaitLine(dir, "rank1.err", "proxy responder: session 1", 30);
        Thread.sleep(1500); // inside the run
        r1.destroyForcibly().waitFor();
        long t0 = System.nanoTime();
        int rc = await(r0, 20, dir, "rank0");
        double s = (System.nanoTime() - t0) / 1e9;
        String err = read(dir, "rank0.err");
        System.out.printf("proxy initiator gave up %.1f s after the kill: %s%n", s, err);
        assertNotEquals(0, rc, err);
        // the worker's WRITE found no live responder: the transport's retries ran out (or the exchange saw it)
        assertTrue(err.contains("TRANSPORT_RETRY_EXC") || err.contains("peer closed"), err);
        assertTrue(s < 15, "the initiator took " + s + " s to give up");
        assertTrue(!Files.exists(dir.resolve("result.json")) || read(dir, "result.json").isBlank(),
                "a failed run wrote a result");
    }

    @Test
    void initiatorKilledMidRunEndsTheResponderWithAClearError(@TempDir Path dir) throws Exception {
        int port = freePort();
        Process r1 = start(dir, "rank1", env("slurm", 1, port), LONG_RATE);
        Process r0 = start(dir, "rank0", env("slurm", 0, port), LONG_RATE);
        awaitLine(dir, "rank1.err", "proxy responder: session 1", 30);
        Thread.sleep(1500); // inside the run
        r0.destroyForcibly().waitFor();
        long t0 = System.nanoTime();
        int rc = await(r1, 20, dir, "rank1");
        double s = (System.nanoTime() - t0) / 1e9;
        String err = read(dir, "rank1.err");
        assertNotEquals(0, rc, err);
        assertTrue(err.contains("closed the connection"), err);
        assertTrue(s < 15, "the responder took " + s + " s to give up");
        assertTrue(!Files.exists(dir.resolve("result.json")), "the responder wrote a result");
    }

    static final String[] RATE_SHORT = {"proxy", "rate", "--messages", "1000", "--warmup", "0",
            "--peer-timeout-s", "20", "--poll", "idle", "--format", "json", "-o", "result.json"};

    /** The exchange is PeerExchange, tested with gda; here only that the proxy's responder goes through it. */
    @Test
    void theProxyResponderRefusesAnExchangeOfAnotherVersion(@TempDir Path dir) throws Exception {
        String err = refusedBy(dir, versionTwoFrame(), true, RATE_SHORT);
        assertTrue(err.contains("exchange version 2") && err.contains("same Marrow version"), err);
        assertTrue(!Files.exists(dir.resolve("result.json")), "the responder wrote a result");
    }

    @Test
    void theProxyResponderRefusesAMalformedExchangeMessage(@TempDir Path dir) throws Exception {
        String err = refusedBy(dir, "GET / HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.US_ASCII), false, RATE_SHORT);
        assertTrue(err.contains("is another program on that port"), err);
    }

    /** A fake initiator (rank 0 listens): a software-NIC proxy responder connects and gets the given setup. */
    private static String responderRefusesSetup(Path dir, String setup) throws Exception {
        PeerExchange.Listener l = PeerExchange.bind(0);
        Process r1 = start(dir, "rank1", env("torchrun", 1, l.port()), RATE_SHORT);
        try (PeerExchange x = l.accept(Duration.ofSeconds(30))) {
            assertEquals("ready", x.exchangeText(ProxyPeer.TYPE_SETUP, setup, "proxy setup"));
            assertNotEquals(0, await(r1, 20, dir, "rank1"));
        }
        return read(dir, "rank1.err");
    }

    @Test
    void aSessionOverVerbsIsRefusedByASoftNicResponder(@TempDir Path dir) throws Exception {
        String err = responderRefusesSetup(dir, "workers=1 bytes=65536 nic=verbs");
        assertTrue(err.contains("runs --nic verbs, this side --nic softnic: run the same command on both"), err);
    }

    @Test
    void aSetupWithAnUnknownWordIsRefused(@TempDir Path dir) throws Exception {
        String err = responderRefusesSetup(dir, "workers=1 bytes=65536 colour=blue");
        assertTrue(err.contains("malformed proxy setup") && err.contains("colour=blue"), err);
    }

    /** Two hosts over verbs, on a host without an RDMA device: both ranks exit 77 with the reason, before any rendezvous. */
    @Test
    void verbsAcrossHostsWithoutADeviceExits77OnBothRanks(@TempDir Path dir) throws Exception {
        String[] cmd = {"proxy", "rate", "--nic", "verbs", "--messages", "1000", "--peer-timeout-s", "20",
                "--format", "json", "-o", "result.json"};
        int port = freePort();
        Process r1 = start(dir, "rank1", env("openmpi", 1, port), cmd);
        Process r0 = start(dir, "rank0", env("openmpi", 0, port), cmd);
        int rc0 = await(r0, 20, dir, "rank0");
        int rc1 = await(r1, 20, dir, "rank1");
        String err0 = read(dir, "rank0.err");
        assumeTrue(!(rc0 == 0 && rc1 == 0), "an RDMA device is present: the two-host run worked");
        assertEquals(77, rc0, err0);
        assertEquals(77, rc1, read(dir, "rank1.err"));
        assertTrue(err0.contains("verbs backend unavailable"), err0);
        assertTrue(!err0.contains("connected to"), "refused before the rendezvous: " + err0);
        assertTrue(!Files.exists(dir.resolve("result.json")), "a result was written");
    }
}
