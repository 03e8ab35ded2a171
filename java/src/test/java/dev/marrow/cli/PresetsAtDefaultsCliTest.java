// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.presets.Preset;
import dev.marrow.presets.PresetRules;
import dev.marrow.presets.Presets;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every preset that `marrow presets list` says a command runs, run by that
 * command at its default settings (only the counts made small, to multiples
 * every preset's batch divides): it runs (exit 0) or the backend is absent
 * (77), never a usage error. gda rate at the default --warmup 2000 with
 * nvshmem-ibgda's doorbell batch of 32 exited 2.
 */
class PresetsAtDefaultsCliTest {
    /** Each command's small counts (and the flags it needs to run here: the CPU target, consent). */
    static final Map<String, List<String>> SMALL = Map.ofEntries(
            Map.entry("gda latency", List.of("--target", "cpu", "--iters", "64", "--warmup", "8")),
            Map.entry("gda rate", List.of("--target", "cpu", "--messages", "256")),
            Map.entry("gda goodput", List.of("--target", "cpu", "--sizes", "64", "--bytes-per-point", "65536")),
            Map.entry("gda loaded", List.of("--target", "cpu", "--background", "0", "--queue", "shared", "--iters",
                    "30", "--warmup", "5")),
            Map.entry("gda timer-check", List.of("--target", "cpu", "--iters", "30", "--warmup", "5", "--delay-us",
                    "20", "--tolerance-us", "1000000")),
            Map.entry("gda clock-sweep", List.of(PresetCommandsCliTest.SWEEP)),
            Map.entry("proxy latency", List.of("--iters", "64", "--warmup", "8")),
            Map.entry("proxy rate", List.of("--messages", "20000", "--warmup", "100")),
            Map.entry("proxy goodput", List.of("--sizes", "64", "--bytes-per-point", "65536")),
            Map.entry("proxy loaded", List.of("--background", "0", "--queue", "shared", "--iters", "30", "--warmup",
                    "5")),
            Map.entry("proxy clock-sweep", List.of(PresetCommandsCliTest.SWEEP)));

    @Test
    void everyListedPresetRunsAtDefaultsInEveryCommandThatTakesIt() {
        List<String> ran = new ArrayList<>();
        for (Preset p : Presets.all().values()) {
            for (PresetRules rules : PresetsCommand.commandRules()) {
                if (rules.whyNot(p) != null) {
                    continue; // presets list does not name this command for p
                }
                List<String> small = SMALL.get(rules.command());
                assertTrue(small != null, "no small counts for " + rules.command() + ": add it to SMALL");
                List<String> a = new ArrayList<>(List.of(rules.command().split(" ")));
                a.addAll(List.of("--preset", p.name()));
                a.addAll(small);
                a.addAll(List.of("--quiet", "--format", "json"));
                CliTest.Run r = CliTest.run(a.toArray(String[]::new));
                assertTrue(r.code() == ExitCodes.OK || r.code() == ExitCodes.UNAVAILABLE,
                        String.join(" ", a) + " exited " + r.code() + ": " + r.err());
                if (r.code() == ExitCodes.OK) {
                    assertTrue(r.out().contains("\"preset\":\"" + p.name() + "\""), r.out());
                }
                ran.add(p.name() + " @ " + rules.command());
            }
        }
        assertTrue(ran.contains("nvshmem-ibgda @ gda rate"), ran.toString());
        assertTrue(ran.size() >= 10, ran.toString());
    }

    @Test
    void aPresetAdjustsTheDefaultsItConflictsWithAndTheRecordSaysSo() {
        CliTest.Run r = CliTest.run("gda", "rate", "--target", "cpu", "--preset", "nvshmem-ibgda", "--messages", "256",
                "--quiet", "--format", "json");
        assertEquals(0, r.code(), r.err());
        String rec = r.out().lines().filter(l -> l.contains("\"record\":\"result\"")).findFirst().orElseThrow();
        assertTrue(rec.contains("\"preset_adjusted\":\"--warmup 2000->2016\""), rec);
        assertTrue(rec.contains("\"warmup_per_thread\":2016"), rec);
    }

    @Test
    void anExplicitFlagWinsAndTheRefusalNamesThePresetAndTheKnob() {
        CliTest.Run r = CliTest.run("gda", "rate", "--target", "cpu", "--preset", "nvshmem-ibgda", "--messages", "256",
                "--warmup", "100", "--quiet");
        assertEquals(ExitCodes.USAGE, r.code(), r.err());
        String line = r.err().strip().lines().findFirst().orElse("");
        assertTrue(line.contains("--warmup must be multiples of 32") || line.contains("multiples of 32"), line);
        assertTrue(line.contains("preset nvshmem-ibgda") && line.contains("doorbell_batch = 32"), line);
    }
}
