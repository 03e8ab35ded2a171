// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.api.Backend;
import dev.marrow.clock.ClockController;
import dev.marrow.clock.FakeClockController;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/** `gda|proxy clock-sweep` without a GPU: consent, refusal, --fit-only. Nothing here changes a clock. */
class ClockSweepCliTest {
    private final IntFunction<ClockController> saved = ClockSweepDriver.controllers;

    @AfterEach
    void restoreFactory() {
        ClockSweepDriver.controllers = saved;
    }

    private static FakeClockController install(FakeClockController c) {
        ClockSweepDriver.controllers = dev -> c;
        return c;
    }

    @Test
    void withoutConsentTheSweepRefusesAndTouchesNothing() {
        for (String family : new String[] {"gda", "proxy"}) {
            FakeClockController c = install(new FakeClockController());
            CliTest.Run r = CliTest.run(family, "clock-sweep", "--clocks", "1980,1410,1005");
            assertEquals(ExitCodes.USAGE, r.code(), r.err());
            assertTrue(r.err().contains("--lock-clocks"), r.err());
            assertTrue(c.calls.isEmpty(), "the controller was not even asked: " + c.calls);
        }
    }

    @Test
    void aControllerThatCannotLockExits77WithTheReason() {
        FakeClockController c = install(new FakeClockController("cannot lock the SM clock: nvidia-smi -lgc needs root", -1));
        CliTest.Run r = CliTest.run("gda", "clock-sweep", "--clocks", "1980,1410,1005", "--lock-clocks");
        assertEquals(ExitCodes.UNAVAILABLE, r.code(), r.err());
        assertTrue(r.err().contains("needs root"), r.err());
        assertEquals(List.of("check"), c.calls);
    }

    @Test
    void withoutAGpuNothingIsLocked() {
        assumeFalse(Backend.CUDA.isAvailable(), "this host has a GPU; the sweep would really measure");
        FakeClockController c = install(new FakeClockController());
        CliTest.Run r = CliTest.run("proxy", "clock-sweep", "--clocks", "1980,1410,1005", "--lock-clocks");
        assertEquals(ExitCodes.UNAVAILABLE, r.code(), r.err());
        assertEquals(0, c.locks());
        assertEquals(0, c.restores());
    }

    @Test
    void badSweepOptionsAreUsageErrors() {
        install(new FakeClockController());
        assertEquals(ExitCodes.USAGE, CliTest.run("gda", "clock-sweep", "--clocks", "1980,1410", "--lock-clocks").code());
        assertEquals(ExitCodes.USAGE, CliTest.run("gda", "clock-sweep", "--clocks", "1980,1410,5", "--lock-clocks").code());
        assertEquals(ExitCodes.USAGE, CliTest.run("gda", "clock-sweep", "--clocks", "1980,1410,1005", "--passes", "0",
                "--lock-clocks").code());
        CliTest.Run r = CliTest.run("gda", "clock-sweep", "--fit-only", "x.jsonl", "--lock-clocks");
        assertEquals(ExitCodes.USAGE, r.code());
        assertTrue(r.err().contains("locks and measures nothing"), r.err());
    }

    /** Cells as a locked sweep writes them: issue = 2929/f + 0.27 us, put+c = 5683/f + 3.3 us. */
    private static Path cells(Path dir) throws Exception {
        List<String> lines = new ArrayList<>();
        lines.add("{\"record\":\"header\",\"env\":{}}");
        int[] clocks = {1980, 1755, 1410, 1005, 705};
        for (int pass = 0; pass < 3; pass++) {
            for (int f : clocks) {
                double measured = f - 2 + pass;
                lines.add(String.format(java.util.Locale.ROOT,
                        "{\"record\":\"result\",\"experiment\":\"gda.clock_sweep.cell\",\"backend\":\"cuda+softnic\","
                                + "\"hardware\":false,\"target\":\"cuda\",\"nic\":\"softnic\",\"ordering\":\"gpu-fence\","
                                + "\"payload\":\"inline\",\"size_bytes\":8,\"pass\":%d,\"locked_clock_mhz\":%d,"
                                + "\"issue_p50_us\":%.6f,\"putc_p50_us\":%.6f,\"issue_sm_clock_mhz\":%.1f,"
                                + "\"putc_sm_clock_mhz\":%.1f,\"sm_clock_mhz\":%.1f,\"valid\":true}",
                        pass, f, 2929.0 / measured + 0.27, 5683.0 / measured + 3.3, measured, measured, measured));
            }
        }
        Path p = dir.resolve("cells.jsonl");
        Files.write(p, lines);
        return p;
    }

    @Test
    void fitOnlyRecoversTheCoefficientsOfRecordedCells(@TempDir Path dir) throws Exception {
        FakeClockController c = install(new FakeClockController());
        CliTest.Run r = CliTest.run("gda", "clock-sweep", "--fit-only", cells(dir).toString(), "--format", "json");
        assertEquals(ExitCodes.OK, r.code(), r.err());
        assertTrue(c.calls.isEmpty(), "--fit-only never touches the controller");
        JsonMapper m = JsonMapper.builder().build();
        String[] lines = r.out().strip().split("\n");
        assertEquals(4, lines.length, r.out()); // header + issue + putc + footer
        for (int i = 1; i < lines.length - 1; i++) {
            JsonNode n = m.readTree(lines[i]);
            assertEquals("gda.clock_sweep.fit", n.get("experiment").asString());
            assertTrue(n.get("fitted").asBoolean());
            assertEquals(5, n.get("n_points").asInt(), "one median point per locked clock");
            boolean issue = n.get("sequence").asString().equals("issue");
            assertEquals(issue ? 2929 : 5683, n.get("c_cycles").asDouble(), 1.0);
            assertEquals(issue ? 0.27 : 3.3, n.get("b_us").asDouble(), 1e-3);
            assertTrue(n.get("r2").asDouble() > 0.9999);
            double top = n.get("top_clock_mhz").asDouble();
            double sens = (issue ? 2929 : 5683) / top;
            assertEquals(sens / (sens + (issue ? 0.27 : 3.3)), n.get("clock_sensitive_share_at_top").asDouble(), 1e-3);
            assertFalse(n.get("hardware").asBoolean());
        }
    }

    @Test
    void fitOnlyRefusesRecordsWithoutAMeasuredClock(@TempDir Path dir) throws Exception {
        Path p = dir.resolve("cpu.jsonl");
        Files.write(p, List.of("{\"record\":\"header\",\"env\":{}}",
                "{\"record\":\"result\",\"experiment\":\"gda.latency\",\"backend\":\"cpu+softnic\",\"hardware\":false,"
                        + "\"target\":\"cpu\",\"issue_p50_ns\":700,\"putc_p50_ns\":4000,\"valid\":true}"));
        CliTest.Run r = CliTest.run("gda", "clock-sweep", "--fit-only", p.toString());
        assertEquals(ExitCodes.USAGE, r.code(), r.err());
        assertTrue(r.err().contains("carries no measured SM clock"), r.err());
    }

    @Test
    void fitOnlyAtOneClockSaysWhyThereIsNoFit(@TempDir Path dir) throws Exception {
        Path p = dir.resolve("default-clock.jsonl");
        List<String> lines = new ArrayList<>(List.of("{\"record\":\"header\",\"env\":{}}"));
        for (int i = 0; i < 3; i++) {
            lines.add("{\"record\":\"result\",\"experiment\":\"proxy.latency\",\"backend\":\"softnic\",\"hardware\":false,"
                    + "\"producer\":\"cuda\",\"handoff\":\"tuned\",\"sm_clock_mhz\":" + (1975 + i)
                    + ",\"issue_p50_ns\":130,\"putc_p50_ns\":4100}");
        }
        Files.write(p, lines);
        CliTest.Run r = CliTest.run("proxy", "clock-sweep", "--fit-only", p.toString(), "--format", "json");
        assertEquals(ExitCodes.FAILED, r.code(), r.err());
        assertTrue(r.out().contains("\"fitted\":false") && r.out().contains("at least 3 points at distinct clocks")
                || r.out().contains("span only"), r.out());
    }
}
