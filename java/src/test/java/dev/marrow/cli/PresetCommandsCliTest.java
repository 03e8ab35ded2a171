// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.api.Backend;
import dev.marrow.clock.ClockController;
import dev.marrow.clock.ClockSweep;
import dev.marrow.clock.FakeClockController;
import dev.marrow.gda.Ordering;
import dev.marrow.presets.PresetRules;
import dev.marrow.results.ResultRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import tools.jackson.databind.JsonNode;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.IntFunction;

import static dev.marrow.cli.GoodputPresetCliTest.with;
import static dev.marrow.cli.PresetsCliTest.results;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * --preset on gda timer-check, gda loaded, proxy loaded (cpu, software NIC, small runs), gda clock-sweep
 * and proxy clock-sweep (no GPU: the preset is resolved before the backend check, so a refusal is
 * exit 2 on any host and an applied preset shows in the parsed command before exit 77). For each:
 * the preset applied, an explicit flag over it, and a refusal naming the knob. No timing is asserted.
 */
class PresetCommandsCliTest {
    static final String[] TIMER = {"gda", "timer-check", "--target", "cpu", "--iters", "30", "--warmup", "5",
        "--delay-us", "20", "--tolerance-us", "1000000", "--format", "json", "--quiet"};
    static final String[] LOADED = {"gda", "loaded", "--target", "cpu", "--background", "0", "--queue", "shared",
        "--iters", "30", "--warmup", "5", "--format", "json", "--quiet"};
    static final String[] SWEEP = {"--clocks", "1980,1410,1005", "--lock-clocks", "--settle-ms", "0"};

    private final IntFunction<ClockController> saved = ClockSweepDriver.controllers;

    @AfterEach
    void restoreFactory() {
        ClockSweepDriver.controllers = saved;
    }

    private static FakeClockController install() {
        FakeClockController c = new FakeClockController();
        ClockSweepDriver.controllers = dev -> c;
        return c;
    }

    /** A run and the subcommand object it ran: the parsed configuration after the preset was applied. */
    record Kept<T>(CliTest.Run run, T command) {
    }

    static <T> Kept<T> runKeeping(Class<T> type, String... args) {
        CommandLine cl = Main.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int code = cl.execute(args);
        Object cmd = cl.getSubcommands().get(args[0]).getSubcommands().get(args[1]).getCommand();
        return new Kept<>(new CliTest.Run(code, out.toString(), err.toString()), type.cast(cmd));
    }

    static List<JsonNode> ok(String... args) {
        CliTest.Run r = CliTest.run(args);
        assertEquals(ExitCodes.OK, r.code(), r.err());
        List<JsonNode> recs = results(r.out());
        assertFalse(recs.isEmpty(), r.out());
        return recs;
    }

    static void assertRefused(CliTest.Run r, String... named) {
        assertEquals(ExitCodes.USAGE, r.code(), r.err());
        for (String s : named) {
            assertTrue(r.err().contains(s), "names " + s + ": " + r.err());
        }
        assertTrue(r.out().isEmpty(), "a refusal writes no records: " + r.out());
    }

    // gda timer-check

    @Test
    void timerCheckTakesThePresetsOrderingAndEveryRecordCarriesIt() {
        List<JsonNode> recs = ok(with(TIMER, "--preset", "nccl-gin-gdaki"));
        assertEquals(3, recs.size(), "two round-trip runs and the verdict");
        for (JsonNode n : recs) {
            assertEquals("nccl-gin-gdaki", n.get("preset").asString(), n.toString());
            assertEquals("gpu-fence", n.get("ordering").asString(), n.toString());
            assertTrue(n.get("preset_knobs").asString().contains("ordering=gpu-fence"), n.toString());
        }
        assertEquals("gda.timer-check", recs.getLast().get("experiment").asString());
        assertEquals("none", ok(TIMER).getFirst().get("preset").asString(), "without --preset records say none");
    }

    @Test
    void timerCheckExplicitOrderingOverridesThePreset() {
        for (JsonNode n : ok(with(TIMER, "--preset", "nccl-gin-gdaki", "--ordering", "release-sys"))) {
            assertEquals("release-sys", n.get("ordering").asString(), n.toString());
            assertEquals("--ordering", n.get("preset_overridden").asString(), n.toString());
        }
    }

    @Test
    void timerCheckRefusesAPresetNeedingAKnobItLacksEvenWithoutAGpu() {
        // --target cuda: the refusal comes before any backend is looked for
        assertRefused(CliTest.run("gda", "timer-check", "--target", "cuda", "--preset", "nvshmem-ibgda"),
                "qps_per_peer = 2", "gda timer-check");
        assertRefused(CliTest.run("gda", "timer-check", "--preset", "uccl-ep"), "use it with marrow proxy");
    }

    // gda loaded

    @Test
    void loadedTakesThePresetsOrderingAndTheRecordCarriesIt() {
        JsonNode n = ok(with(LOADED, "--preset", "nccl-gin-gdaki")).getFirst();
        assertEquals("gda.loaded", n.get("experiment").asString());
        assertEquals("nccl-gin-gdaki", n.get("preset").asString(), n.toString());
        assertEquals("gpu-fence", n.get("ordering").asString(), n.toString());
        assertTrue(n.get("preset_knobs").asString().contains("completion_scope=context"), n.toString());
        assertTrue(n.get("valid").asBoolean(), n.toString());
    }

    @Test
    void loadedExplicitOrderingOverridesThePreset() {
        JsonNode n = ok(with(LOADED, "--preset", "nccl-gin-gdaki", "--ordering", "fence-sys")).getFirst();
        assertEquals("fence-sys", n.get("ordering").asString());
        assertEquals("--ordering", n.get("preset_overridden").asString());
        assertFalse(n.get("preset_knobs").asString().contains("ordering="), n.toString());
    }

    @Test
    void loadedRefusesAPresetNeedingAKnobItLacksEvenWithoutAGpu() {
        assertRefused(CliTest.run("gda", "loaded", "--target", "cuda", "--preset", "deepep-v1"),
                "doorbell_batch = 4", "gda loaded");
        assertRefused(CliTest.run("gda", "loaded", "--preset", "nvshmem-ibgda-16qp"), "qps_per_peer = 16");
    }

    // proxy loaded

    static final String[] PROXY_LOADED = {"proxy", "loaded", "--background", "0", "--queue", "shared", "--iters", "30",
        "--warmup", "5", "--format", "json", "--quiet"};

    @Test
    void proxyLoadedTakesThePresetsWorkersAndBatch() {
        JsonNode n = ok(with(PROXY_LOADED, "--preset", "fabric-lib")).getFirst();
        assertEquals("proxy.loaded", n.get("experiment").asString());
        assertEquals("fabric-lib", n.get("preset").asString(), n.toString());
        assertEquals(4, n.get("batch").asInt(), "chains of up to 4");
        assertEquals(1, n.get("workers").asInt());
        assertEquals("workers=1,batch=4,producer=cpu", n.get("preset_knobs").asString());
    }

    @Test
    void proxyLoadedExplicitBatchOverridesThePreset() {
        JsonNode n = ok(with(PROXY_LOADED, "--preset", "fabric-lib", "--batch", "8")).getFirst();
        assertEquals(8, n.get("batch").asInt());
        assertEquals("--batch", n.get("preset_overridden").asString());
    }

    @Test
    void proxyLoadedRefusesAPresetNeedingAKnobItLacks() {
        assertRefused(CliTest.run(with(PROXY_LOADED, "--preset", "uccl-ep")),
                "proxy loaded has no rings_per_worker knob");
        assertRefused(CliTest.run(with(PROXY_LOADED, "--preset", "nccl-gin-proxy")), "rings_per_context");
    }

    // gda clock-sweep

    @Test
    void gdaClockSweepResolvesThePresetBeforeTheGpuIsLookedFor() {
        assumeFalse(Backend.CUDA.isAvailable(), "this host has a GPU; the sweep would really measure");
        install();
        String[] args = with(new String[] {"gda", "clock-sweep", "--preset", "nccl-gin-gdaki"}, SWEEP);
        Kept<GdaClockSweepCommand> k = runKeeping(GdaClockSweepCommand.class, args);
        assertEquals(ExitCodes.UNAVAILABLE, k.run().code(), k.run().err());
        assertEquals(Ordering.GPU_FENCE, k.command().ordering);
        assertEquals("nccl-gin-gdaki", k.command().presetApplied.preset());
        assertEquals("gpu-fence", k.command().presetApplied.applied().get("ordering"));
    }

    @Test
    void gdaClockSweepExplicitOrderingOverridesThePreset() {
        assumeFalse(Backend.CUDA.isAvailable(), "this host has a GPU; the sweep would really measure");
        install();
        String[] args = with(new String[] {"gda", "clock-sweep", "--preset", "nccl-gin-gdaki", "--ordering",
            "release-sys"}, SWEEP);
        Kept<GdaClockSweepCommand> k = runKeeping(GdaClockSweepCommand.class, args);
        assertEquals(ExitCodes.UNAVAILABLE, k.run().code(), k.run().err());
        assertEquals(Ordering.RELEASE_SYS, k.command().ordering);
        assertEquals(List.of("--ordering"), k.command().presetApplied.overridden());
    }

    @Test
    void gdaClockSweepRefusesAPresetAndTouchesNoClock() {
        FakeClockController c = install();
        assertRefused(CliTest.run(with(new String[] {"gda", "clock-sweep", "--preset", "nvshmem-ibgda"}, SWEEP)),
                "qps_per_peer = 2", "gda clock-sweep");
        assertTrue(c.calls.isEmpty(), "the controller was not even asked: " + c.calls);
        assertRefused(CliTest.run("gda", "clock-sweep", "--preset", "nccl-gin-gdaki", "--fit-only", "x.jsonl"),
                "--fit-only measures nothing");
    }

    // proxy clock-sweep

    @Test
    void proxyClockSweepTakesThePresetsLayout() {
        assumeFalse(Backend.CUDA.isAvailable(), "this host has a GPU; the sweep would really measure");
        install();
        Kept<ProxyClockSweepCommand> k = runKeeping(ProxyClockSweepCommand.class,
                with(new String[] {"proxy", "clock-sweep", "--preset", "nvshmem-ibrc"}, SWEEP));
        assertEquals(ExitCodes.UNAVAILABLE, k.run().code(), k.run().err());
        assertEquals(Map.of("workers", "1", "rings_per_pe", "1"), k.command().presetApplied.applied());
        assertEquals(1, k.command().workers);
    }

    @Test
    void proxyClockSweepExplicitWorkersOverrideThePreset() {
        assumeFalse(Backend.CUDA.isAvailable(), "this host has a GPU; the sweep would really measure");
        install();
        Kept<ProxyClockSweepCommand> k = runKeeping(ProxyClockSweepCommand.class,
                with(new String[] {"proxy", "clock-sweep", "--preset", "nvshmem-ibrc", "--workers", "2"}, SWEEP));
        assertEquals(ExitCodes.UNAVAILABLE, k.run().code(), k.run().err());
        assertEquals(2, k.command().workers);
        assertEquals(List.of("--workers"), k.command().presetApplied.overridden());
        assertFalse(k.command().presetApplied.applied().containsKey("workers"));
    }

    @Test
    void proxyClockSweepRefusesAPresetAndTouchesNoClock() {
        FakeClockController c = install();
        assertRefused(CliTest.run(with(new String[] {"proxy", "clock-sweep", "--preset", "fabric-lib"}, SWEEP)),
                "producer = cpu", "proxy clock-sweep");
        assertRefused(CliTest.run(with(new String[] {"proxy", "clock-sweep", "--preset", "uccl-ep"}, SWEEP)),
                "proxy clock-sweep has no rings_per_worker knob");
        assertRefused(CliTest.run(with(new String[] {"proxy", "clock-sweep", "--preset", "deepep-v1"}, SWEEP)),
                "use it with marrow gda");
        assertTrue(c.calls.isEmpty(), "the controller was not even asked: " + c.calls);
    }

    /** The sweep driver with a fake measurement: every cell and fit record carries the preset. */
    @Command(name = "fake-sweep")
    static final class FakeSweep implements Callable<Integer> {
        @Spec
        CommandSpec spec;
        @Mixin
        OutputOptions out;
        @Mixin
        ClockSweepOptions sweep;

        @Override
        public Integer call() {
            PresetRules.Applied applied = new PresetRules.Applied("nccl-gin-gdaki", Map.of("ordering", "gpu-fence"),
                    List.of());
            return ClockSweepDriver.run(spec, out, sweep, new ClockSweepDriver.Target("gda", "softnic", false, "fake",
                    0, () -> {
                    }, () -> mhz -> new ClockSweep.Cell(Map.of("issue", 1.0 + 1000.0 / mhz),
                    Map.of("issue", (double) mhz), new ResultRecord("gda.latency", "softnic", false)), applied));
        }
    }

    @Test
    void everySweepRecordCarriesThePreset() {
        install();
        CommandLine cl = new CommandLine(new FakeSweep());
        StringWriter out = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(new StringWriter()));
        assertEquals(ExitCodes.OK, cl.execute(with(SWEEP, "--passes", "1", "--format", "json", "--quiet")));
        List<JsonNode> recs = results(out.toString());
        assertEquals(4, recs.size(), "three cells and one fit: " + out);
        for (JsonNode n : recs) {
            assertEquals("nccl-gin-gdaki", n.get("preset").asString(), n.toString());
            assertEquals("ordering=gpu-fence", n.get("preset_knobs").asString(), n.toString());
        }
        assertEquals("gda.clock_sweep.fit", recs.getLast().get("experiment").asString());
    }

    // presets list / show

    @Test
    void listAndShowNameTheNewCommands() {
        CliTest.Run r = CliTest.run("presets", "list");
        assertEquals(ExitCodes.OK, r.code(), r.err());
        String gdaki = r.out().lines().filter(l -> l.startsWith("nccl-gin-gdaki")).findFirst().orElseThrow();
        for (String c : List.of("gda loaded", "gda timer-check", "gda clock-sweep")) {
            assertTrue(gdaki.contains(c), gdaki);
        }
        String ibrc = r.out().lines().filter(l -> l.startsWith("nvshmem-ibrc")).findFirst().orElseThrow();
        assertTrue(ibrc.contains("proxy clock-sweep") && ibrc.contains("proxy loaded"), ibrc);
        String fabric = r.out().lines().filter(l -> l.startsWith("fabric-lib")).findFirst().orElseThrow();
        assertFalse(fabric.contains("proxy clock-sweep"), "a CPU producer: " + fabric);
        CliTest.Run show = CliTest.run("presets", "show", "fabric-lib");
        assertTrue(show.out().contains("proxy clock-sweep: refuses: preset fabric-lib sets producer = cpu"), show.out());
        CliTest.Run deepep = CliTest.run("presets", "show", "deepep-v1");
        for (String c : List.of("gda loaded", "gda timer-check", "gda clock-sweep")) {
            assertTrue(deepep.out().contains(c + ": refuses: preset deepep-v1 sets doorbell_batch = 4"), deepep.out());
        }
    }
}
