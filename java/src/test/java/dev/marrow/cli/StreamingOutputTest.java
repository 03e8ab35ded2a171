// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.dsm.SlowSyntheticDevice;
import dev.marrow.results.RecordSink;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import tools.jackson.databind.JsonNode;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Streaming output (docs/design/records.md): the commands that used to collect
 * their records and write them at the end write each as its point completes,
 * so a SIGKILL leaves complete, parseable lines.
 */
class StreamingOutputTest {

    @Test
    void proxyRateKilledMidwayLeavesCompleteLinesOnly(@TempDir Path tmp) throws Exception {
        // 8 points of about a second each; SIGKILL once the first row is in the file
        Path out = tmp.resolve("r.jsonl");
        List<String> cmd = OutputCliTest.javaCmd();
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "dev.marrow.cli.Main", "proxy", "rate",
                "--workers", "1", "--rings", "2", "--batch", "1,2,4,8,16,32,64,128", "--messages", "4000000",
                "--warmup", "1000", "--quiet", "--format", "json", "-o", out.toString()));
        Process p = new ProcessBuilder(cmd).redirectError(tmp.resolve("err").toFile())
                .redirectOutput(tmp.resolve("stdout").toFile()).start();
        Path partial = tmp.resolve(".r.jsonl.partial-" + p.pid());
        try {
            long deadline = System.nanoTime() + 90_000_000_000L;
            while (System.nanoTime() < deadline && p.isAlive()
                    && !(Files.exists(partial) && Files.readAllLines(partial).size() >= 2)) {
                Thread.sleep(10);
            }
            assertTrue(p.isAlive(), "the run ended before its first row was in the file (written at the end?): "
                    + Files.readString(tmp.resolve("err")));
            p.destroyForcibly(); // SIGKILL: no shutdown hook, no footer, no rename
            assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        } finally {
            p.destroyForcibly();
        }
        String text = Files.readString(partial);
        assertTrue(text.endsWith("\n"), "a cut line: " + text);
        List<JsonNode> results = new ArrayList<>();
        List<String> lines = text.lines().toList();
        for (String l : lines) {
            JsonNode n = OutputCliTest.M.readTree(l); // each line whole
            if ("result".equals(n.get("record").asString())) {
                results.add(n);
            }
        }
        assertEquals("header", OutputCliTest.M.readTree(lines.getFirst()).get("record").asString());
        assertTrue(results.size() >= 1 && results.size() < 8, "rows: " + results.size());
        assertEquals(1, results.getFirst().get("batch").asInt());
        assertFalse(text.contains("\"footer\""), "killed: no footer");
    }

    @Test
    void dsmWritesEachExperimentsRecordsWhenItCompletes() {
        SlowSyntheticDevice dev = new SlowSyntheticDevice(0);
        DsmCommand.Run run = new DsmCommand.Run();
        run.opener = d -> dev;
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        // what stdout held when the last native call (of E2) started: E0's records already
        List<String> seen = new ArrayList<>();
        dev.onCall = () -> seen.add(out.toString());
        CommandLine cl = new CommandLine(run);
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int code = cl.execute("--experiment", "E0,E2", "--reps", "3", "--warmup", "0", "--format", "json", "--quiet");
        assertEquals(0, code, err.toString());
        String during = seen.getLast();
        assertTrue(during.contains("\"record\":\"header\""), during);
        assertTrue(during.contains("\"experiment\":\"dsm.E0\""), "E0 not yet written while E2 ran: " + during);
        assertFalse(during.contains("\"experiment\":\"dsm.E2\""), during);
        assertTrue(out.toString().contains("\"experiment\":\"dsm.E2\""), out.toString());
    }

    @Test
    void dsmTableIsWrittenPerExperimentToo() {
        SlowSyntheticDevice dev = new SlowSyntheticDevice(0);
        DsmCommand.Run run = new DsmCommand.Run();
        run.opener = d -> dev;
        StringWriter out = new StringWriter();
        List<String> seen = new ArrayList<>();
        dev.onCall = () -> seen.add(out.toString());
        CommandLine cl = new CommandLine(run);
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(new StringWriter()));
        assertEquals(0, cl.execute("--experiment", "E0,E2", "--reps", "3", "--warmup", "0", "--quiet"));
        assertTrue(seen.getLast().contains("# DSM suite on"), seen.getLast());
        assertTrue(seen.getLast().contains("## dsm.E0"), seen.getLast());
        assertTrue(out.toString().contains("## dsm.E2"), out.toString());
        assertEquals(1, out.toString().split("# DSM suite on", -1).length - 1, "one title: " + out);
    }

    @Test
    void aDsmTableToAFileKeepsTheExperimentsDoneWhenALaterOneFails(@TempDir Path tmp) throws Exception {
        SlowSyntheticDevice device = new SlowSyntheticDevice(0);
        DsmCommand.Run run = new DsmCommand.Run();
        run.opener = d -> device;
        Path out = tmp.resolve("dsm.txt");
        device.onCall = () -> {
            try (var s = Files.list(tmp)) {
                for (Path p : s.toList()) {
                    if (Files.readString(p).contains("## dsm.E0")) {
                        throw new IllegalStateException("the GPU fell off the bus");
                    }
                }
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        };
        CommandLine cl = new CommandLine(run);
        cl.setOut(new PrintWriter(new StringWriter()));
        cl.setErr(new PrintWriter(new StringWriter()));
        assertEquals(ExitCodes.FAILED, cl.execute("--experiment", "E0,E2", "--reps", "3", "--warmup", "0", "-o",
                out.toString(), "--quiet"));
        // as Main's execution strategy does with the output a failed command left open
        RecordSink.finishOpenedBy(Thread.currentThread(), RecordSink.Status.FAILED, "the GPU fell off the bus");
        assertTrue(Files.readString(out).contains("## dsm.E0"), "E0's table kept");
        assertEquals(List.of("dsm.txt"), Files.list(tmp).map(p -> p.getFileName().toString()).toList());
    }

    @Test
    void clockSweepFitOnlyReadsLineByLine() {
        // the whole-file reader would never finish /dev/zero (it grows until OutOfMemoryError)
        CliTest.Run r = assertTimeoutPreemptively(Duration.ofSeconds(20),
                () -> CliTest.run("gda", "clock-sweep", "--fit-only", "/dev/zero"));
        assertEquals(ExitCodes.USAGE, r.code(), r.err());
        assertTrue(r.err().contains("cannot read /dev/zero: not a regular file"), r.err());
    }
}
