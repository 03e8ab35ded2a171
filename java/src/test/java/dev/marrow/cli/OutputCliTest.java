// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.BufferedWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * --output checked before the run, streamed, named at the end and kept on a
 * signal; merge-runs reading through the bounded streaming reader
 * (docs/design/records.md).
 */
class OutputCliTest {
    static final JsonMapper M = JsonMapper.builder().build();
    static final String[] QUICK = {"softnic", "latency", "--iters", "200", "--warmup", "10", "--poll", "idle"};

    static CliTest.Run quick(String... more) {
        List<String> a = new ArrayList<>(List.of(QUICK));
        a.addAll(List.of(more));
        return CliTest.run(a.toArray(String[]::new));
    }

    static List<String> names(Path dir) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void badDestinationsAreUsageErrorsBeforeAnythingRuns(@TempDir Path tmp) throws Exception {
        CliTest.Run empty = quick("-o", "");
        assertEquals(ExitCodes.USAGE, empty.code());
        assertEquals("marrow: --output: empty path (give a file name, or - for stdout)", firstLine(empty.err()));
        CliTest.Run dir = quick("-o", tmp.toString());
        assertEquals(ExitCodes.USAGE, dir.code());
        assertEquals("marrow: cannot write " + tmp + ": is a directory", firstLine(dir.err()));
        Path orphan = tmp.resolve("missing/r.jsonl");
        CliTest.Run missing = quick("-o", orphan.toString());
        assertEquals(ExitCodes.USAGE, missing.code());
        assertTrue(missing.err().strip().startsWith("marrow: cannot write " + orphan + ": directory "), missing.err());
        assertEquals(List.of(), names(tmp), "no DIR.1, no created directory, no partial file");
        assertEquals("", empty.out() + dir.out() + missing.out());
    }

    @Test
    void devNullAndDashAreWrittenAsTheyAre() {
        assumeTrue(Files.exists(Path.of("/dev/null")));
        CliTest.Run n = quick("-o", "/dev/null", "--format", "json");
        assertEquals(0, n.code(), n.err());
        assertFalse(Files.exists(Path.of("/dev/null.1")));
        CliTest.Run d = quick("-o", "-", "--format", "json");
        assertEquals(0, d.code(), d.err());
        assertTrue(d.out().contains("\"softnic.latency\"") && d.out().strip().endsWith("}"), d.out());
    }

    @Test
    void theHeaderCarriesTheCommandLineAndTheFooterTheEnd(@TempDir Path tmp) throws Exception {
        Path p = tmp.resolve("r.jsonl");
        CliTest.Run r = quick("-o", p.toString(), "--format", "json");
        assertEquals(0, r.code(), r.err());
        List<String> lines = Files.readAllLines(p);
        JsonNode env = M.readTree(lines.getFirst()).get("env");
        List<String> argv = new ArrayList<>();
        env.get("argv").forEach(a -> argv.add(a.asString()));
        List<String> expected = new ArrayList<>(List.of("marrow"));
        expected.addAll(List.of(QUICK));
        expected.addAll(List.of("-o", p.toString(), "--format", "json"));
        assertEquals(expected, argv);
        JsonNode footer = M.readTree(lines.getLast());
        assertEquals("complete", footer.get("status").asString());
        assertTrue(footer.get("ended_at").asString().compareTo(env.get("start_time").asString()) >= 0, footer.toString());
    }

    @Test
    void theTableIsCuratedWithin120ColumnsUnlessAskedForMore() {
        // proxy latency: the widest records (about 60 fields, a 1,400-character line with every field)
        String[] run = {"proxy", "latency", "--iters", "200", "--warmup", "10", "--handoff", "tuned", "--quiet"};
        CliTest.Run r = CliTest.run(run);
        assertEquals(0, r.code(), r.err());
        List<String> lines = r.out().lines().toList();
        assertTrue(lines.getFirst().startsWith("# proxy.latency"), r.out());
        for (String l : lines) {
            assertTrue(l.length() <= dev.marrow.results.TableColumns.WIDTH, l.length() + " characters: " + l);
        }
        assertTrue(lines.get(2).contains("putc_p50_ns") && lines.get(2).contains("handoff"), lines.get(2));

        List<String> more = new ArrayList<>(List.of(run));
        more.addAll(List.of("--columns", "all"));
        CliTest.Run a = CliTest.run(more.toArray(String[]::new));
        assertEquals(0, a.code(), a.err());
        assertTrue(a.out().lines().skip(2).findFirst().orElseThrow().contains("putc_stdev_ns"), a.out());

        more.set(more.size() - 1, "handoff,putc_p99_ns");
        CliTest.Run n = CliTest.run(more.toArray(String[]::new));
        assertEquals(0, n.code(), n.err());
        assertEquals(List.of("handoff", "putc_p99_ns"), List.of(n.out().lines().skip(2).findFirst().orElseThrow()
                .strip().split(" +")));

        CliTest.Run j = quick("--format", "json", "--columns", "all");
        assertEquals(ExitCodes.USAGE, j.code(), j.err());
        assertTrue(firstLine(j.err()).contains("--columns chooses the fields of --format table"), j.err());
    }

    @Test
    void everyProxyRecordSaysWhetherItIsValid() {
        for (String[] run : List.of(
                new String[] {"proxy", "latency", "--iters", "200", "--warmup", "10", "--handoff", "tuned"},
                new String[] {"proxy", "rate", "--rings", "2", "--messages", "20000", "--warmup", "100"},
                new String[] {"proxy", "goodput", "--sizes", "64,128"})) {
            List<String> a = new ArrayList<>(List.of(run));
            a.addAll(List.of("--quiet", "--format", "json"));
            CliTest.Run r = CliTest.run(a.toArray(String[]::new));
            assertEquals(0, r.code(), r.err());
            int results = 0;
            for (String l : r.out().lines().toList()) {
                JsonNode n = M.readTree(l);
                if ("result".equals(n.get("record").asString())) {
                    results++;
                    assertTrue(n.has("valid") && n.get("valid").asBoolean(), String.join(" ", run) + ": " + l);
                }
            }
            assertTrue(results > 0, r.out());
        }
    }

    @Test
    void mergeRunsRefusesDevZeroAndAFifoAtOnce(@TempDir Path tmp) throws Exception {
        assumeTrue(Files.exists(Path.of("/dev/zero")));
        CliTest.Run z = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> CliTest.run("merge-runs", "/dev/zero"));
        assertEquals(ExitCodes.USAGE, z.code());
        assertEquals("marrow: cannot read /dev/zero: not a regular file (a FIFO, device or socket); give a result file",
                firstLine(z.err()));
        Path fifo = tmp.resolve("f");
        Process p = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assumeTrue(p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0, "mkfifo");
        CliTest.Run f = assertTimeoutPreemptively(Duration.ofSeconds(10),
                () -> CliTest.run("merge-runs", fifo.toString()));
        assertEquals(ExitCodes.USAGE, f.code());
        assertTrue(f.err().strip().startsWith("marrow: cannot read " + fifo + ": not a regular file"), f.err());
    }

    static List<String> javaCmd() {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-Djava.awt.headless=true"));
        for (String p : List.of("marrow.native.dir", "marrow.native.workdir")) {
            if (System.getProperty(p) != null) {
                cmd.add("-D" + p + "=" + System.getProperty(p));
            }
        }
        return cmd;
    }

    @Test
    void mergeRunsStreamsFilesLargerThanItsHeap(@TempDir Path tmp) throws Exception {
        // 2 x 200k records (about 17 MB each) through a 24 MB heap: reading either file whole would not fit
        int n = 200_000;
        List<String> cmd = javaCmd();
        cmd.addAll(List.of("-Xmx24m", "-cp", System.getProperty("java.class.path"), "dev.marrow.cli.Main",
                "merge-runs", "-o", tmp.resolve("merged.jsonl").toString()));
        for (String run : List.of("a", "b")) {
            Path f = tmp.resolve(run + ".jsonl");
            try (BufferedWriter w = Files.newBufferedWriter(f)) {
                w.write("{\"record\":\"header\",\"schema\":\"marrow.result/1\",\"env\":{}}\n");
                for (int k = 0; k < n; k++) {
                    w.write("{\"record\":\"result\",\"experiment\":\"e\",\"backend\":\"b\",\"hardware\":false,\"k\":" + k
                            + ",\"t_ns\":" + (run.equals("a") ? k : 2 * k) + ",\"note\":\"" + "x".repeat(40) + "\"}\n");
                }
            }
            cmd.add(f.toString());
        }
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(tmp.resolve("log").toFile()).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
        }
        assertEquals(0, p.exitValue(), Files.readString(tmp.resolve("log")));
        long results = 0;
        String last = null;
        try (java.io.BufferedReader r = Files.newBufferedReader(tmp.resolve("merged.jsonl"))) {
            for (String l = r.readLine(); l != null; l = r.readLine()) {
                if (l.contains("\"record\":\"result\"")) {
                    results++;
                }
                last = l;
            }
        }
        assertEquals(n, results);
        JsonNode footer = M.readTree(last);
        assertEquals(n, footer.get("records").asInt());
    }

    @Test
    void sigtermKeepsTheRowsAlreadyMeasured(@TempDir Path tmp) throws Exception {
        // 8 points of about a second each; stopped (SIGTERM, as Ctrl-C's SIGINT would) after the first row
        Path out = tmp.resolve("r.jsonl");
        List<String> cmd = javaCmd();
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "dev.marrow.cli.Main", "softnic", "rate",
                "--messages", "2000000", "--warmup", "1000", "--repeats", "1", "--batch", "1,2,4,8,16,32,64,128",
                "--poll", "idle", "--quiet", "--format", "json", "-o", out.toString()));
        Process p = new ProcessBuilder(cmd).redirectError(tmp.resolve("err").toFile())
                .redirectOutput(tmp.resolve("stdout").toFile()).start();
        try {
            Path partial = tmp.resolve(".r.jsonl.partial-" + p.pid());
            long deadline = System.nanoTime() + 90_000_000_000L;
            while (System.nanoTime() < deadline && p.isAlive()
                    && !(Files.exists(partial) && Files.readAllLines(partial).size() >= 2)) {
                Thread.sleep(20);
            }
            assertTrue(p.isAlive(), "the run ended before the first row was seen: " + Files.readString(tmp.resolve("err")));
            p.destroy(); // SIGTERM
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "did not stop on SIGTERM");
        } finally {
            p.destroyForcibly();
        }
        assertEquals(List.of("err", "r.jsonl", "stdout"), names(tmp), "named at the end, no partial file left");
        List<String> lines = Files.readAllLines(out);
        assertTrue(Files.readString(out).endsWith("\n"));
        List<JsonNode> results = new ArrayList<>();
        for (String l : lines) {
            JsonNode n = M.readTree(l); // complete lines only
            if ("result".equals(n.get("record").asString())) {
                results.add(n);
            }
        }
        assertEquals("header", M.readTree(lines.getFirst()).get("record").asString());
        JsonNode footer = M.readTree(lines.getLast());
        assertEquals("interrupted", footer.get("status").asString(), lines.getLast());
        assertTrue(results.size() >= 1 && results.size() < 8, "rows: " + results.size());
        assertEquals(results.size(), footer.get("records").asInt());
        assertEquals(1, results.getFirst().get("batch").asInt());
        assertTrue(Files.readString(tmp.resolve("err")).contains("interrupted; the " + results.size()
                + " record(s) written are in " + out), Files.readString(tmp.resolve("err")));
    }

    /** The error line; the line after it points at --help (docs/design/cli-errors.md). */
    private static String firstLine(String err) {
        return err.strip().lines().findFirst().orElse("");
    }
}
