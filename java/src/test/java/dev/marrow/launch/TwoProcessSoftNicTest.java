// SPDX-License-Identifier: Apache-2.0
package dev.marrow.launch;

import dev.marrow.api.Backend;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Two JVM processes, started as a launcher would start them (the same
 * command, different rank variables), run `gda latency` over the two-process
 * software NIC (docs/design/two-process.md): bytes delivered, one result file
 * (the initiator's, with both environment headers); a peer killed mid-run
 * ends the other side with a clear error; a wrong version or malformed
 * exchange message is refused.
 */
@Tag("hardening") // long: scripts/test leaves it out, .ci/run runs it (README "Tests")
class TwoProcessSoftNicTest {
    /** Variables of every launcher: a test sets its own and nothing leaks in from the build's environment. */
    private static final List<String> LAUNCH_VARS = List.of("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT",
            "MARROW_PORT", "TORCHELASTIC_RUN_ID", "LOCAL_RANK", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "PMI_RANK", "PMI_SIZE", "PMIX_RANK",
            "SLURM_PROCID", "SLURM_NTASKS", "SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST");

    @BeforeAll
    static void softNic() {
        assumeTrue(Backend.SOFTNIC.isAvailable(), "software NIC library not loadable here");
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    static Process start(Path dir, String name, Map<String, String> env, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-Djava.awt.headless=true", "-cp",
                System.getProperty("java.class.path"), "dev.marrow.cli.Main"));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile())
                .redirectOutput(dir.resolve(name + ".out").toFile()).redirectError(dir.resolve(name + ".err").toFile());
        LAUNCH_VARS.forEach(pb.environment()::remove);
        pb.environment().putAll(env);
        return pb.start();
    }

    static String read(Path dir, String file) throws IOException {
        return Files.readString(dir.resolve(file));
    }

    static int await(Process p, int seconds, Path dir, String name) throws Exception {
        if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            throw new AssertionError(name + " still running after " + seconds + " s; stderr:\n" + read(dir, name + ".err"));
        }
        return p.exitValue();
    }

    static final String[] GDA = {"gda", "latency", "--target", "cpu", "--nic", "softnic", "--iters", "300",
            "--warmup", "20", "--timeout-ms", "3000", "--peer-timeout-s", "20", "--format", "json", "-o", "result.json"};

    static Map<String, String> env(String launcher, int rank, int port) {
        String r = Integer.toString(rank);
        String p = Integer.toString(port);
        return switch (launcher) {
            case "slurm" -> Map.of("SLURM_PROCID", r, "SLURM_NTASKS", "2", "SLURM_STEP_NODELIST", "localhost",
                    "MASTER_PORT", p);
            case "openmpi" -> Map.of("OMPI_COMM_WORLD_RANK", r, "OMPI_COMM_WORLD_SIZE", "2",
                    "MASTER_ADDR", "127.0.0.1", "MASTER_PORT", p);
            case "torchrun" -> Map.of("RANK", r, "WORLD_SIZE", "2", "LOCAL_RANK", r, "MASTER_ADDR", "127.0.0.1",
                    "MASTER_PORT", p);
            default -> throw new IllegalArgumentException(launcher);
        };
    }

    @ParameterizedTest
    @ValueSource(strings = {"slurm", "openmpi", "torchrun"})
    void sameCommandOnTwoRanksDeliversAndWritesOneResult(String launcher, @TempDir Path dir) throws Exception {
        int port = freePort();
        Process r1 = start(dir, "rank1", env(launcher, 1, port), GDA); // the responder may start first
        Process r0 = start(dir, "rank0", env(launcher, 0, port), GDA);
        assertEquals(0, await(r0, 60, dir, "rank0"), read(dir, "rank0.err"));
        assertEquals(0, await(r1, 30, dir, "rank1"), read(dir, "rank1.err"));

        try (Stream<Path> files = Files.list(dir)) {
            List<String> results = files.map(f -> f.getFileName().toString()).filter(f -> f.startsWith("result"))
                    .toList();
            assertEquals(List.of("result.json"), results, "exactly one result file, the initiator's");
        }
        String[] lines = read(dir, "result.json").strip().split("\n");
        assertEquals(3, lines.length, lines[0]); // header, the record, footer
        assertTrue(lines[0].contains("\"peer\":{") && lines[0].contains("\"host\""),
                "the header carries the responder's environment: " + lines[0]);
        String rec = lines[1];
        for (String k : new String[] {"\"launcher\":\"" + launcher + "\"", "\"rank\":0", "\"world_size\":2",
                "\"hardware\":false", "\"gpu_hardware\":false", "\"nic_hardware\":false", "\"valid\":true",
                "\"payload_errors\":0", "\"role\":\"initiator\"",
                "shared-memory wire", "rtt_p50_ns"}) {
            assertTrue(rec.contains(k), k + " missing in " + rec);
        }
        // issue + put+completion + round trip: 3 x 320 WRITEs of this side through the wire
        assertTrue(rec.contains("\"emu_wqe_rdma_write\":960"), rec);
        String served = read(dir, "rank1.err");
        assertEquals(3, served.split("inbox holds the final iteration's bytes", -1).length - 1, served);
        assertTrue(served.contains("answered 320 pings"), served);
        assertEquals("", read(dir, "rank1.out"), "the responder prints no result");
    }

    /** Long enough that the kill lands inside the run. */
    static final String[] LONG = {"gda", "latency", "--target", "cpu", "--nic", "softnic", "--experiments", "putc",
            "--iters", "50000000", "--warmup", "0", "--timeout-ms", "3000", "--peer-timeout-s", "10",
            "--format", "json", "-o", "result.json"};

    static void awaitLine(Path dir, String file, String text, int seconds) throws Exception {
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        while (System.nanoTime() < end) {
            if (Files.exists(dir.resolve(file)) && read(dir, file).contains(text)) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("'" + text + "' not in " + file + " within " + seconds + " s: " + read(dir, file));
    }

    @Test
    void responderKilledMidRunEndsTheInitiatorWithATransportError(@TempDir Path dir) throws Exception {
        int port = freePort();
        Process r1 = start(dir, "rank1", env("torchrun", 1, port), LONG);
        Process r0 = start(dir, "rank0", env("torchrun", 0, port), LONG);
        awaitLine(dir, "rank1.err", "serving the initiator's runs", 30);
        Thread.sleep(1500); // inside the run: 50 M puts last minutes
        r1.destroyForcibly().waitFor();
        long t0 = System.nanoTime();
        int rc = await(r0, 20, dir, "rank0");
        double s = (System.nanoTime() - t0) / 1e9;
        String err = read(dir, "rank0.err");
        System.out.printf("initiator gave up %.1f s after the kill: %s%n", s, err);
        assertNotEquals(0, rc, err);
        assertTrue(err.contains("TRANSPORT_RETRY_EXC") || err.contains("peer"), err);
        assertTrue(s < 15, "the initiator took " + s + " s to give up");
    }

    @Test
    void initiatorKilledMidRunEndsTheResponderWithAClearError(@TempDir Path dir) throws Exception {
        int port = freePort();
        Process r1 = start(dir, "rank1", env("openmpi", 1, port), LONG);
        Process r0 = start(dir, "rank0", env("openmpi", 0, port), LONG);
        awaitLine(dir, "rank0.err", "gda initiator: connected", 30);
        Thread.sleep(1500); // inside the run
        r0.destroyForcibly().waitFor();
        int rc = await(r1, 20, dir, "rank1");
        String err = read(dir, "rank1.err");
        assertNotEquals(0, rc, err);
        assertTrue(err.contains("closed the connection") || err.contains("peer"), err);
        assertTrue(!Files.exists(dir.resolve("result.json")), "the responder wrote a result");
    }

    /** A rendezvous peer that answers the responder's first frame with the given frame body. */
    private static String refusedBy(Path dir, byte[] reply, boolean withLength) throws Exception {
        return refusedBy(dir, reply, withLength, GDA);
    }

    /** As above for any command whose responder sends one frame first (gda: INFO; proxy: PROXY_SETUP). */
    static String refusedBy(Path dir, byte[] reply, boolean withLength, String... cmd) throws Exception {
        try (ServerSocket server = new ServerSocket(0)) {
            Process r1 = start(dir, "rank1", env("torchrun", 1, server.getLocalPort()), cmd);
            server.setSoTimeout(30_000);
            try (Socket s = server.accept()) {
                DataInputStream in = new DataInputStream(s.getInputStream());
                byte[] info = new byte[in.readInt()];
                in.readFully(info); // the responder's first frame
                OutputStream out = s.getOutputStream();
                if (withLength) {
                    out.write(ByteBuffer.allocate(4).putInt(reply.length).array());
                }
                out.write(reply);
                out.flush();
                int rc = await(r1, 20, dir, "rank1");
                assertNotEquals(0, rc);
            }
            return read(dir, "rank1.err");
        }
    }

    /** A frame of exchange version 2 (magic MRW5, version, type 1). */
    static byte[] versionTwoFrame() {
        return ByteBuffer.allocate(56).putInt(0x4d525735).putShort((short) 2).putShort((short) 1).array();
    }

    @Test
    void anExchangeOfAnotherVersionIsRefused(@TempDir Path dir) throws Exception {
        String err = refusedBy(dir, versionTwoFrame(), true);
        assertTrue(err.contains("exchange version 2") && err.contains("same Marrow version"), err);
    }

    @Test
    void aMalformedExchangeMessageIsRefused(@TempDir Path dir) throws Exception {
        String err = refusedBy(dir, "GET / HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.US_ASCII), false);
        assertTrue(err.contains("is another program on that port"), err);
    }
}
