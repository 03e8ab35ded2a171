// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.api.Backend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CliTest {
    record Run(int code, String out, String err) {
    }

    static Run run(String... args) {
        CommandLine cl = Main.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int code = cl.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void doctorSaysWhyEachMissingBackendIsUnavailable() {
        Run r = run("doctor");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("softnic") && r.out().contains("available"), r.out());
        for (Backend b : Backend.values()) {
            Throwable cause = b.unavailabilityCause();
            if (cause != null) {
                assertTrue(r.out().contains(b.displayName() + " ") && r.out().contains("UNAVAILABLE"), r.out());
                assertFalse(cause.getMessage() == null || cause.getMessage().isBlank(), b + " has an empty cause");
                assertTrue(r.out().contains(cause.getMessage()), "doctor must print the cause of " + b + ":\n" + r.out());
            }
        }
        assertTrue(r.out().contains("cpu_model"), r.out());
    }

    @Test
    void doctorJsonIsParseableAndComplete() throws Exception {
        Run r = run("doctor", "--format", "json");
        assertEquals(0, r.code(), r.err());
        JsonNode n = JsonMapper.builder().build().readTree(r.out());
        for (Backend b : Backend.values()) {
            JsonNode e = n.get("backends").get(b.displayName());
            assertEquals(b.isAvailable(), e.get("available").asBoolean());
            if (!b.isAvailable()) {
                assertFalse(e.get("cause").asString().isBlank());
            }
        }
        assertTrue(n.get("backends").get("softnic").get("available").asBoolean());
    }

    @Test
    void softnicRateEmitsAJsonRecordLabelledEmulated() throws Exception {
        Run r = run("softnic", "rate", "--size", "8", "--batch", "16", "--messages", "20000", "--warmup", "1000",
                "--repeats", "2", "--poll", "idle", "--format", "json");
        assertEquals(0, r.code(), r.err());
        String[] lines = r.out().strip().split("\n");
        assertEquals(3, lines.length, r.out()); // header, the record, footer (docs/design/records.md)
        JsonMapper m = JsonMapper.builder().build();
        JsonNode footer = m.readTree(lines[2]);
        assertEquals("footer", footer.get("record").asString());
        assertEquals("complete", footer.get("status").asString());
        assertEquals(1, footer.get("records").asInt());
        JsonNode header = m.readTree(lines[0]);
        assertEquals("header", header.get("record").asString());
        assertTrue(header.get("env").has("cpu_model") && header.get("env").has("git_sha"));
        JsonNode rec = m.readTree(lines[1]);
        assertEquals("softnic.rate", rec.get("experiment").asString());
        assertEquals("softnic", rec.get("backend").asString());
        assertFalse(rec.get("hardware").asBoolean());
        assertEquals(16, rec.get("batch").asInt());
        assertTrue(rec.get("rate_mmsg_s").asDouble() > 0);
    }

    @Test
    void softnicRateWithSeveralProducersAndEngineThreads() throws Exception {
        Run r = run("softnic", "rate", "--size", "8", "--batch", "16", "--messages", "5000", "--warmup", "500",
                "--repeats", "1", "--poll", "idle", "--producers", "2", "--engine-threads", "2", "--format", "json");
        assertEquals(0, r.code(), r.err());
        JsonNode rec = JsonMapper.builder().build().readTree(r.out().strip().split("\n")[1]);
        assertEquals(2, rec.get("producers").asInt());
        assertEquals(2, rec.get("engine_threads").asInt());
        assertFalse(rec.get("hardware").asBoolean());
        assertTrue(rec.get("rate_mmsg_s").asDouble() > 0);
        assertEquals(2 * ((5000 + 15) / 16), rec.get("doorbells_rung").asLong(),
                "one doorbell per batch of 16 per producer in the timed region");
        Run bad = run("softnic", "rate", "--producers", "0");
        assertEquals(2, bad.code());
        assertTrue(bad.err().contains("--producers"), bad.err());
    }

    @Test
    void softnicRatePinningIsCheckedAndRecorded() throws Exception {
        Run r = run("softnic", "rate", "--size", "8", "--batch", "16", "--messages", "5000", "--warmup", "500",
                "--repeats", "1", "--poll", "idle", "--producers", "2", "--engine-threads", "2",
                "--producer-cpus", "-1,-1", "--engine-cpus", "-1,-1", "--format", "json");
        assertEquals(0, r.code(), r.err());
        JsonNode rec = JsonMapper.builder().build().readTree(r.out().strip().split("\n")[1]);
        assertEquals(2, rec.get("producer_cpus").size(), rec.toString());
        assertEquals(-1, rec.get("producer_cpus").get(1).asInt());
        assertEquals(2, rec.get("engine_cpus").size(), rec.toString());
        assertEquals(5000 * 2, rec.get("messages").asLong() * 2);
        Run unpinned = run("softnic", "rate", "--messages", "2000", "--warmup", "0", "--repeats", "1", "--poll", "idle",
                "--format", "json");
        assertEquals(0, unpinned.code(), unpinned.err());
        JsonNode u = JsonMapper.builder().build().readTree(unpinned.out().strip().split("\n")[1]);
        assertEquals("none", u.get("producer_cpus").asString());
        assertEquals("none", u.get("engine_cpus").asString());
        Run count = run("softnic", "rate", "--producers", "2", "--producer-cpus", "0");
        assertEquals(2, count.code());
        assertTrue(count.err().contains("--producer-cpus"), count.err());
        Run both = run("softnic", "rate", "--engine-cpu", "0", "--engine-cpus", "0");
        assertEquals(2, both.code());
        assertTrue(both.err().contains("--engine-cpus"), both.err());
        Run badCpu = run("softnic", "rate", "--messages", "100", "--warmup", "0", "--repeats", "1", "--poll", "idle",
                "--producer-cpus", "5000");
        assertTrue(badCpu.code() != 0, badCpu.out());
        assertTrue(badCpu.err().contains("CPU 5000"), badCpu.err());
    }

    @Test
    void busyPollingRunsSayWhenTheyOutnumberTheCpus() throws Exception {
        Run r = run("gda", "latency", "--target", "cpu", "--iters", "200", "--warmup", "20", "--format", "json");
        assertEquals(0, r.code(), r.err());
        JsonNode rec = JsonMapper.builder().build().readTree(r.out().strip().split("\n")[1]);
        assertEquals(3, rec.get("spinning_threads").asInt(), "initiator, round-trip peer and NIC engine");
        boolean over = 3 > Runtime.getRuntime().availableProcessors();
        assertEquals(over, rec.get("cpu_oversubscribed").asBoolean());
        assertEquals(over, r.err().contains("busy-polling threads"), r.err());
    }

    @Test
    void gdaLogSqCountsWqebbsAndIsRangeCheckedByC() throws Exception {
        Run r = run("gda", "latency", "--target", "cpu", "--experiments", "putc", "--log-sq", "6", "--iters", "100",
                "--warmup", "10", "--format", "json");
        assertEquals(0, r.code(), r.err());
        JsonNode rec = JsonMapper.builder().build().readTree(r.out().strip().split("\n")[1]);
        assertEquals(64, rec.get("sq_wqebbs").asInt(), rec.toString());
        for (String bad : new String[] {"0", "16"}) {
            Run b = run("gda", "latency", "--target", "cpu", "--log-sq", bad);
            assertEquals(2, b.code(), b.err());
            assertTrue(b.err().contains("--log-sq " + bad) && b.err().contains("out of range 1..15"), b.err());
        }
    }

    @Test
    void proxyRecordsItsSqShape() throws Exception {
        Run r = run("proxy", "latency", "--log-sq", "9", "--iters", "200", "--warmup", "20", "--format", "json");
        assertEquals(0, r.code(), r.err());
        JsonNode rec = JsonMapper.builder().build().readTree(r.out().strip().split("\n")[1]);
        assertEquals(9, rec.get("log_sq").asInt(), rec.toString());
        assertEquals(512, rec.get("sq_wqebbs").asInt(), rec.toString());
        assertFalse(rec.has("max_send_wr"), "no verbs QP on the software NIC: " + rec);
    }

    @Test
    void softnicLatencyTableSaysEmulated() {
        Run r = run("softnic", "latency", "--iters", "500", "--warmup", "50", "--poll", "idle");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("EMULATED"), r.out());
        assertTrue(r.out().contains("putc_p50_ns"), r.out());
    }

    @Test
    void badFlagsGiveUsageErrorsBeforeAnyWork() {
        Run unknown = run("softnic", "rate", "--bogus");
        assertEquals(2, unknown.code());
        assertTrue(unknown.err().contains("--bogus"), unknown.err());
        Run badFormat = run("softnic", "rate", "--format", "xml");
        assertEquals(2, badFormat.code());
        assertTrue(badFormat.err().contains("--format"), badFormat.err());
        Run badBatch = run("softnic", "rate", "--batch", "0");
        assertEquals(2, badBatch.code());
        assertTrue(badBatch.err().contains("--batch"), badBatch.err());
        Run badPoll = run("softnic", "latency", "--poll", "lukewarm");
        assertEquals(2, badPoll.code());
        assertTrue(badPoll.err().contains("--poll"), badPoll.err());
        // 1e9 s would spin the proxy workers for decades (the CLI fuzz test passes it as junk)
        Run longWarm = run("proxy", "latency", "--precondition-seconds", "1e9");
        assertEquals(2, longWarm.code(), longWarm.err());
        assertTrue(longWarm.err().contains("--precondition-seconds"), longWarm.err());
    }

    @Test
    void outputFilesAreNeverOverwritten(@TempDir Path tmp) throws Exception {
        Path f = tmp.resolve("lat.csv");
        Files.writeString(f, "precious");
        Run r = run("softnic", "latency", "--iters", "100", "--warmup", "10", "--poll", "idle", "--format", "csv",
                "--output", f.toString());
        assertEquals(0, r.code(), r.err());
        assertEquals("precious", Files.readString(f));
        Path alt = tmp.resolve("lat.1.csv");
        // after the header's comment lines (docs/design/records.md), the column line
        assertTrue(Files.readAllLines(alt).stream().filter(l -> !l.startsWith("#")).findFirst().orElse("")
                .startsWith("record,experiment,backend,hardware"), Files.readString(alt));
        assertTrue(r.err().contains("lat.1.csv"), r.err());
    }
}
