// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.gda.Ordering;
import dev.marrow.presets.Choice;
import dev.marrow.presets.Preset;
import dev.marrow.presets.PresetRules;
import dev.marrow.presets.Presets;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/** marrow presets list | show NAME: the library presets and what each command can run of them. */
@Command(name = "presets", mixinStandardHelpOptions = true,
        description = {"Library presets: the queue, posting and completion choices of one library, each citing "
                + "the table or section of \"GPU-Initiated Communication: Dissecting Down to the Bone\" it comes "
                + "from (docs/design/presets.md). Use one with gda/proxy --preset NAME.",
                "A preset that needs a knob a command lacks is refused by that command, naming the knob."},
        subcommands = {PresetsCommand.ListPresets.class, PresetsCommand.Show.class})
public final class PresetsCommand {

    static final String PAPER = "\"GPU-Initiated Communication: Dissecting Down to the Bone\"";

    /** The rules of every command that takes --preset, for "runs with". */
    static List<PresetRules> commandRules() {
        GdaCommand.Latency gl = new GdaCommand.Latency();
        ProxyCommand.Latency pl = new ProxyCommand.Latency();
        pl.common = new ProxyCommand.Common();
        ProxyCommand.Rate pr = new ProxyCommand.Rate();
        pr.common = new ProxyCommand.Common();
        ProxyGoodputCommand pg = new ProxyGoodputCommand();
        pg.common = new ProxyCommand.Common();
        return List.of(GdaCommand.Latency.presetRules(gl), GdaRateCommand.presetRules(new GdaRateCommand()),
                GdaGoodputCommand.presetRules(new GdaGoodputCommand()), GdaLoadedCommand.presetRules(new GdaLoadedCommand()),
                GdaTimerCheckCommand.presetRules(new GdaTimerCheckCommand()),
                GdaClockSweepCommand.presetRules(new GdaClockSweepCommand()), ProxyCommand.Latency.presetRules(pl),
                ProxyCommand.Rate.presetRules(pr), ProxyGoodputCommand.presetRules(pg),
                ProxyLoadedCommand.presetRules(new ProxyLoadedCommand()),
                ProxyClockSweepCommand.presetRules(new ProxyClockSweepCommand()));
    }

    /** The commands that can run p as it is; empty when none can yet. */
    static List<String> runsWith(Preset p) {
        List<String> ok = new ArrayList<>();
        for (PresetRules r : commandRules()) {
            if (r.whyNot(p) == null) {
                ok.add(r.command());
            }
        }
        return ok;
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "Every preset: name, suite, library, "
            + "and the commands that can run it today")
    static final class ListPresets implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            out.printf("%-20s %-6s %-50s %s%n", "preset", "suite", "library", "runs with");
            for (Preset p : Presets.all().values()) {
                List<String> ok = runsWith(p);
                out.printf("%-20s %-6s %-50s %s%n", p.name(), p.suite(), p.library(),
                        ok.isEmpty() ? "(none yet: marrow presets show " + p.name() + ")" : String.join(", ", ok));
            }
            out.flush();
            return ExitCodes.OK;
        }
    }

    @Command(name = "show", mixinStandardHelpOptions = true,
            description = "One preset: every choice with its value, its meaning and its source, then what each "
                    + "command does with it")
    static final class Show implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Parameters(paramLabel = "NAME", description = "A preset name (marrow presets list)")
        String name;

        @Override
        public Integer call() {
            Preset p = Presets.get(name);
            PrintWriter out = spec.commandLine().getOut();
            out.println(p.name() + ": " + p.library() + " (" + p.suite() + ")");
            out.println("  " + p.summary());
            out.println("choices (sources: " + PAPER + "):");
            for (Choice c : p.choices().values()) {
                out.println("  " + c.knob().key() + " = " + c.valueText() + "  -- " + c.knob().meaning()
                        + (c.value() instanceof Ordering o ? ": " + o.description() : ""));
                out.println("      source: " + c.source());
            }
            out.println("commands:");
            for (PresetRules r : commandRules()) {
                if (!r.suite().equals(p.suite())) {
                    continue;
                }
                String why = r.whyNot(p);
                out.println("  " + r.command() + ": " + (why == null ? "runs it" : "refuses: " + why));
            }
            out.flush();
            return ExitCodes.OK;
        }
    }
}
