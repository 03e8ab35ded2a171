// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.clock.ClockController;
import dev.marrow.clock.ClockFits;
import dev.marrow.clock.ClockGuard;
import dev.marrow.clock.ClockRecords;
import dev.marrow.clock.ClockSample;
import dev.marrow.clock.ClockSweep;
import dev.marrow.presets.PresetRules;
import dev.marrow.results.JsonLinesReader;
import dev.marrow.results.ResultRecord;
import dev.marrow.results.Stats;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/**
 * What `gda clock-sweep` and `proxy clock-sweep` share: consent, the clock
 * guard, the shuffled plan, the cell and fit records, and --fit-only. The
 * commands supply only how one cell is measured.
 */
final class ClockSweepDriver {
    /** Where the commands get their clock controller; tests put a fake here. */
    static IntFunction<ClockController> controllers = dev.marrow.clock.NvidiaSmiClockController::forDevice;

    private ClockSweepDriver() {
    }

    /** What a command measures; preset: what --preset set (every record carries it). */
    record Target(String family, String backend, boolean hardware, String group, int gpu,
                  Runnable ensureAvailable, Supplier<ClockSweep.Measurement> measurement, PresetRules.Applied preset) {
    }

    static int run(CommandSpec spec, OutputOptions out, ClockSweepOptions o, Target t) {
        out.format();
        if (o.fitOnly != null) {
            o.validateFitOnly();
            if (t.preset() != PresetRules.Applied.NONE) {
                throw new IllegalArgumentException("--fit-only measures nothing: --preset configures a sweep "
                        + "(the fitted records carry the preset they were run with)");
            }
            return fitOnly(spec, out, o.fitOnly, t.family());
        }
        o.validateSweep(); // usage errors, consent included, before anything is touched
        ClockController controller = controllers.apply(t.gpu());
        controller.checkCanLock(); // 77 with the reason: not root, no nvidia-smi
        t.ensureAvailable().run(); // 77 without a GPU
        long seed = o.seed != null ? o.seed : System.nanoTime();
        List<ClockSweep.Visit> plan = ClockSweep.plan(o.clocks, o.passes, seed);
        ClockSweep.Measurement m = t.measurement().get();
        PrintWriter err = spec.commandLine().getErr();
        ClockSweep.Outcome outcome;
        RunBounds.applyDefault(out, plan.size());
        RunProgress progress = out.progress(t.family() + " clock-sweep", plan.size());
        // streamed: each cell's record is written as the cell completes (a run cut by the bound is tagged
        // truncated from then on); the fits, which need every cell, come last
        List<ResultRecord> records = out.records(t.preset()::tag);
        List<ClockSample> samples = new ArrayList<>();
        try (ClockGuard guard = ClockGuard.open(controller)) {
            err.println("marrow: locking SM clocks through " + controller.describe() + "; restored at the end");
            err.flush();
            outcome = ClockSweep.run(guard, plan, m, o.settleMs, progress::expired, (v, c) -> {
                progress.step();
                records.add(cellRecord(t, v, c, seed, o));
                for (Map.Entry<String, Double> e : c.latencyUs().entrySet()) {
                    samples.add(new ClockSample(t.group(), e.getKey(), v.clockMhz(), c.clockMhz().get(e.getKey()),
                            e.getValue()));
                }
            });
        } finally {
            progress.close();
        }
        for (ClockFits.Outcome f : ClockFits.fit(samples)) {
            records.add(ClockFits.record(t.family() + ".clock_sweep.fit", t.backend(), t.hardware(), f)
                    .param("seed", seed).param("passes", o.passes).param("cells_run", outcome.cells().size())
                    .param("cells_planned", plan.size()));
        }
        out.emit(records, spec.commandLine().getOut(), err);
        return ExitCodes.OK;
    }

    private static ResultRecord cellRecord(Target t, ClockSweep.Visit v, ClockSweep.Cell c, long seed,
                                           ClockSweepOptions o) {
        ResultRecord r = new ResultRecord(t.family() + ".clock_sweep.cell", t.backend(), t.hardware());
        c.detail().params().forEach(r::param);
        r.param("pass", v.pass()).param("position", v.position()).param("locked_clock_mhz", v.clockMhz())
                .param("seed", seed).param("settle_ms", o.settleMs)
                .param("sm_clock_source", "measured: clock64 cycles / globaltimer ns over the timed kernel");
        c.latencyUs().forEach((seq, us) -> r.metric(seq + "_p50_us", ResultRecord.round(us, 4)));
        c.clockMhz().forEach((seq, mhz) -> r.metric(seq + "_sm_clock_mhz", ResultRecord.round(mhz, 1)));
        r.metric("sm_clock_mhz", ResultRecord.round(Stats.median(
                c.clockMhz().values().stream().mapToDouble(Double::doubleValue).toArray()), 1));
        c.detail().metrics().forEach((k, val) -> {
            if (!r.metrics().containsKey(k)) {
                r.metric(k, val);
            }
        });
        return r;
    }

    /** --fit-only: samples from existing records, one fit record per configuration and sequence. */
    static int fitOnly(CommandSpec spec, OutputOptions out, List<Path> files, String family) {
        PrintWriter err = spec.commandLine().getErr();
        List<ClockSample> samples = new ArrayList<>();
        int skipped = 0;
        int invalid = 0;
        String backend = null;
        boolean hardware = false;
        for (Path f : files) {
            // one line at a time (docs/design/records.md "Reading result files"): memory bounded by a line
            try (JsonLinesReader in = JsonLinesReader.open(f, false)) {
            while (in.hasNext()) {
                Map<String, Object> rec = in.next();
                Object kind = rec.get("record");
                if (!("result".equals(kind) || (kind == null && rec.containsKey("experiment")))) {
                    continue; // header, footer: not measurements
                }
                if (!ClockRecords.usable(rec) || !String.valueOf(rec.get("experiment")).startsWith(family + ".")) {
                    skipped++;
                    continue;
                }
                if (Boolean.FALSE.equals(rec.get("valid"))) {
                    invalid++;
                    continue;
                }
                samples.addAll(ClockRecords.samples(rec, f + ": line " + in.lineNumber()));
                backend = backend == null ? String.valueOf(rec.get("backend")) : backend;
                hardware |= Boolean.TRUE.equals(rec.get("hardware"));
            }
            }
        }
        if (skipped + invalid > 0) {
            err.println("marrow: --fit-only skipped " + skipped + " record(s) of other experiments and " + invalid
                    + " with valid=false");
        }
        if (samples.isEmpty()) {
            throw new IllegalArgumentException("--fit-only: no " + family + " latency records with a measured SM "
                    + "clock in " + files);
        }
        List<ResultRecord> records = out.records();
        boolean any = false;
        for (ClockFits.Outcome o : ClockFits.fit(samples)) {
            records.add(ClockFits.record(family + ".clock_sweep.fit", backend, hardware, o)
                    .param("source_files", files.stream().map(Path::toString).toList()));
            any |= o.fitted();
        }
        out.emit(records, spec.commandLine().getOut(), err);
        if (!any) {
            err.println("marrow: no configuration could be fitted (see not_fitted_reason): a fit needs "
                    + "records at several SM clocks");
            return ExitCodes.FAILED;
        }
        return ExitCodes.OK;
    }
}
