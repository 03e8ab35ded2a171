// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.dsm.SlowSyntheticDevice;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * --max-seconds really bounds softnic and dsm runs: a run planned to take far
 * longer ends within the bound + 1 s, and its records say truncated=true and
 * what ran.
 */
class MaxSecondsTest {
    static final double BOUND_S = 0.5;
    static final JsonMapper JSON = JsonMapper.builder().build();

    record Timed(CliTest.Run run, double seconds) {
    }

    /** Loads the classes, the native libraries and the environment capture once, outside the timed runs. */
    @org.junit.jupiter.api.BeforeAll
    static void warmUp() {
        assertEquals(0, CliTest.run("softnic", "latency", "--iters", "100", "--warmup", "10", "--poll", "idle",
                "--format", "json").code());
        assertEquals(0, CliTest.run("softnic", "rate", "--messages", "1000", "--warmup", "100", "--repeats", "1",
                "--poll", "idle", "--format", "json").code());
    }

    /**
     * The bound covers the run, not the command's set-up and output (the
     * rig, the environment capture): those are measured by the same command
     * with a tiny workload and allowed on top of bound + 1 s. On a loaded
     * 2-core machine they alone can take a second.
     */
    static double overhead(String... tinyArgs) {
        return timed(tinyArgs).seconds();
    }

    static Timed timed(String... args) {
        long t0 = System.nanoTime();
        CliTest.Run r = CliTest.run(args);
        return new Timed(r, (System.nanoTime() - t0) / 1e9);
    }

    static List<JsonNode> records(String out) {
        List<JsonNode> l = new ArrayList<>();
        for (String line : out.strip().split("\n")) {
            JsonNode n = JSON.readTree(line);
            if ("result".equals(n.get("record").asString())) {
                l.add(n);
            }
        }
        return l;
    }

    @Test
    void softnicRateStopsInsideALongNativeRun() {
        // one repeat of 10^9 messages would take minutes: the native loop itself must stop
        Timed t = timed("softnic", "rate", "--messages", "1000000000", "--warmup", "1000", "--repeats", "3",
                "--batch", "16,32", "--poll", "idle", "--max-seconds", String.valueOf(BOUND_S), "--format", "json");
        double base = overhead("softnic", "rate", "--messages", "1000", "--warmup", "1000", "--repeats", "1",
                "--poll", "idle", "--format", "json");
        // no run completed, so no rate is reported, and a run with no record fails naming the bound
        // (docs/design/cli-errors.md), not an empty table with exit 0
        assertEquals(ExitCodes.FAILED, t.run().code(), t.run().err());
        assertTrue(t.seconds() < BOUND_S + 1.0 + base, "took " + t.seconds() + " s (set-up and output " + base + " s)");
        assertTrue(t.run().err().contains("marrow: no record: --max-seconds ended the run"), t.run().err());
        // the stream opened before the run: its header and a "failed" footer, no result (docs/design/records.md)
        assertTrue(!t.run().out().contains("\"record\":\"result\"")
                && t.run().out().contains("\"status\":\"failed\""), t.run().out());
    }

    @Test
    void softnicRateKeepsTheRepeatsThatFinished() {
        Timed t = timed("softnic", "rate", "--messages", "20000", "--warmup", "1000", "--repeats", "1000000",
                "--batch", "16", "--poll", "idle", "--max-seconds", String.valueOf(BOUND_S), "--format", "json");
        double base = overhead("softnic", "rate", "--messages", "20000", "--warmup", "1000", "--repeats", "1",
                "--poll", "idle", "--format", "json");
        assertEquals(0, t.run().code(), t.run().err());
        assertTrue(t.seconds() < BOUND_S + 1.0 + base, "took " + t.seconds() + " s (set-up and output " + base + " s)");
        List<JsonNode> recs = records(t.run().out());
        assertEquals(1, recs.size(), t.run().out());
        JsonNode r = recs.getFirst();
        assertTrue(r.get("truncated").asBoolean());
        int done = r.get("repeats_done").asInt();
        assertTrue(done >= 1 && done < 1000000, "repeats_done " + done);
        assertTrue(r.get("rate_mmsg_s").asDouble() > 0);
    }

    @Test
    void softnicLatencyStopsBetweenChunks() {
        Timed t = timed("softnic", "latency", "--iters", "100000000", "--warmup", "100", "--poll", "idle",
                "--max-seconds", String.valueOf(BOUND_S), "--format", "json");
        double base = overhead("softnic", "latency", "--iters", "100", "--warmup", "100", "--poll", "idle",
                "--format", "json");
        assertEquals(0, t.run().code(), t.run().err());
        assertTrue(t.seconds() < BOUND_S + 1.0 + base, "took " + t.seconds() + " s (set-up and output " + base + " s)");
        List<JsonNode> recs = records(t.run().out());
        assertEquals(1, recs.size(), t.run().out());
        JsonNode r = recs.getFirst();
        assertTrue(r.get("truncated").asBoolean());
        assertEquals(r.get("iters_done").asLong(), r.get("samples").asLong());
        assertTrue(r.get("iters_done").asLong() < 100000000L);
    }

    @Test
    void anUnboundedRunIsNotTruncated() {
        CliTest.Run r = CliTest.run("softnic", "rate", "--messages", "20000", "--warmup", "1000", "--repeats", "2",
                "--poll", "idle", "--max-seconds", "120", "--format", "json");
        assertEquals(0, r.code(), r.err());
        JsonNode rec = records(r.out()).getFirst();
        assertFalse(rec.has("truncated"), r.out());
        assertEquals(2, rec.get("repeats_done").asInt());
    }

    @Test
    void dsmStopsBetweenNativeCallsAndSaysWhatRan() {
        SlowSyntheticDevice dev = new SlowSyntheticDevice(40);
        DsmCommand.Run run = new DsmCommand.Run();
        run.opener = d -> dev;
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(run);
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        long t0 = System.nanoTime();
        // E2..E4 at 9 sizes x 40 ms and E7 after them: several seconds without the bound
        int code = cl.execute("--experiment", "E0,E2,E3,E4,E7", "--reps", "3", "--warmup", "0", "--format", "json",
                "--quiet", "--max-seconds", String.valueOf(BOUND_S));
        double s = (System.nanoTime() - t0) / 1e9;
        assertEquals(0, code, err.toString());
        assertTrue(s < BOUND_S + 1.0, "took " + s + " s");
        List<JsonNode> recs = records(out.toString());
        JsonNode summary = recs.getLast();
        assertEquals("dsm.run_summary", summary.get("experiment").asString(), out.toString());
        assertTrue(summary.get("truncated").asBoolean());
        assertEquals("E0", summary.get("experiments_done").get(0).asString());
        assertFalse(summary.get("experiment_cut").asString().equals("none"), summary.toString());
        assertTrue(summary.get("experiments_not_run").toString().contains("E7"), summary.toString());
        // streamed: E0's records were written before the bound cut the run, untagged; the summary after it
        for (JsonNode r : recs) {
            assertEquals(!r.get("experiment").asString().equals("dsm.E0"), r.has("truncated"), r.toString());
        }
        assertTrue(out.toString().strip().lines().reduce((a, b) -> b).orElseThrow().contains("\"truncated\":true"),
                "the footer says the bound cut the run: " + out);
        assertTrue(err.toString().contains("--max-seconds reached"), err.toString());
    }

    @Test
    void dsmSanitizeProfileIsSmallAndLabelled() {
        SlowSyntheticDevice dev = new SlowSyntheticDevice(0);
        DsmCommand.Run run = new DsmCommand.Run();
        run.opener = d -> dev;
        StringWriter out = new StringWriter();
        CommandLine cl = new CommandLine(run);
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(new StringWriter()));
        int code = cl.execute("--experiment", "E1,E2", "--sanitize", "--format", "json", "--quiet");
        assertEquals(0, code);
        List<JsonNode> recs = records(out.toString());
        assertFalse(recs.isEmpty());
        for (JsonNode r : recs) {
            assertTrue(r.get("profile").asString().startsWith("sanitize"), r.toString());
        }
        JsonNode e1 = recs.stream().filter(r -> r.get("experiment").asString().contains("E1")
                && r.has("hops")).findFirst().orElseThrow();
        assertEquals(DsmCommand.Run.Sanitize.HOPS, e1.get("hops").asInt());
        assertEquals(DsmCommand.Run.Sanitize.LAUNCHES, e1.get("launches").asInt());
        // 2 sizes x (E2 only) + 2 E1 chases (clusters 16 and 2): a handful of native calls
        assertTrue(dev.calls <= 8, "native calls " + dev.calls);
    }
}
