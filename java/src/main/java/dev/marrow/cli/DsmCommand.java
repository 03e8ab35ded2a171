// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.dsm.DsmContext;
import dev.marrow.dsm.DsmDevice;
import dev.marrow.report.DsmPlots;
import dev.marrow.dsm.DsmTable;
import dev.marrow.dsm.Experiment;
import dev.marrow.dsm.Experiments;
import dev.marrow.dsm.KernelConfig;
import dev.marrow.dsm.NativeDsmDevice;
import dev.marrow.results.Environment;
import dev.marrow.results.OutputFormat;
import dev.marrow.results.ResultRecord;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.IntFunction;

/** SM-to-SM distributed shared memory experiments (E0-E10) on a Hopper-class GPU. */
@Command(name = "dsm", mixinStandardHelpOptions = true,
        description = "Distributed shared memory (SM-to-SM) bandwidth and topology on Hopper (sm_90+): experiments E0-E10.",
        subcommands = {DsmCommand.Run.class, DsmCommand.Plot.class, DsmModelCommand.class})
public final class DsmCommand {

    /** Exit code when no suitable GPU is present ({@link ExitCodes#UNAVAILABLE}). */
    public static final int EXIT_NO_GPU = ExitCodes.UNAVAILABLE;

    @Command(name = "run", mixinStandardHelpOptions = true,
            description = {"Run DSM experiments: " + "E0 preflight, E1 latency, E2-E4 one-way load/store/TMA, "
                    + "E5 bidirectional, E6 mixed, E7 ring scaling, E8 ring strides, E9 all pairs, E10 sharing.",
                    "Timed on the GPU only (%%clock64 and %%globaltimer inside the kernels); per size the median of"
                            + " --reps accepted launches, then a least-squares fit time = alpha + beta * bytes.",
                    "Published values are printed beside ours as reference_* (with their source).",
                    "Each experiment's records are written when it completes. Bounded: without --max-seconds no new "
                            + "experiment starts after " + RunBounds.DSM_SECONDS_PER_EXPERIMENT + " s x experiments; "
                            + "a run cut so ends with a dsm.run_summary record (truncated=true)."})
    public static final class Run implements Callable<Integer> {
        @Spec
        CommandSpec spec;
        @Mixin
        OutputOptions out;

        @Option(names = "--experiment", required = true,
                description = "all (E0..E10), probes (E11..E16), an id (E0..E16) or a name (preflight, latency, one-way-load, "
                        + "one-way-store, one-way-tma, bidirectional, mixed, ring-scaling, ring-strides, all-pairs, sharing, "
                        + "address-offset, smem-pressure, burst, store-variants, ring16-isolate, model); comma-separated")
        String experiment;

        @Option(names = "--device", defaultValue = "0", description = "CUDA device ordinal. Default: ${DEFAULT-VALUE}")
        int device;

        @Option(names = "--reps", defaultValue = "30", description = "Accepted launches per size. Default: ${DEFAULT-VALUE}")
        int reps;

        @Option(names = "--warmup", defaultValue = "3", description = "Discarded launches before each batch. Default: ${DEFAULT-VALUE}")
        int warmup;

        @Option(names = "--group-threads", defaultValue = "480",
                description = "Threads of the load and of the store group per CTA (multiple of 32, <= 480). Default: ${DEFAULT-VALUE}")
        int groupThreads;

        @Option(names = "--tma-chunk", defaultValue = "16384",
                description = "Bytes per TMA command (<= 16384, multiple of 16). Default: ${DEFAULT-VALUE}")
        int tmaChunk;

        @Option(names = "--load-kernel", defaultValue = "INFLIGHT",
                description = "Load kernel: INFLIGHT (all of a thread's loads in flight, default) or BATCHED "
                        + "(the first kernel, batches of 4 per thread; for comparison). Default: ${DEFAULT-VALUE}")
        DsmDevice.LoadKernel loadKernel;

        @Option(names = "--store-width", defaultValue = "16",
                description = "Bytes per remote store of the store group: 4 (st.shared::cluster.u32), 8 (.v2.u32) "
                        + "or 16 (.v4.u32). Default: ${DEFAULT-VALUE}")
        int storeWidth;

        @Option(names = "--load-width", defaultValue = "16",
                description = "Bytes per remote load of the INFLIGHT load kernel: 4 (ld.shared::cluster.u32), 8 "
                        + "(.v2.u32) or 16 (.v4.u32); BATCHED loads only 16. Default: ${DEFAULT-VALUE}")
        int loadWidth;

        @Option(names = "--sanitize",
                description = {"A small configuration for compute-sanitizer (memcheck, racecheck, synccheck): "
                        + "--reps " + Sanitize.REPS + ", --warmup 0, tiles of " + Sanitize.FROM_KIB + " and "
                        + Sanitize.TO_KIB + " KiB, a latency chase of " + Sanitize.HOPS + " hops x "
                        + Sanitize.LAUNCHES + " launch, and a host watchdog of " + Sanitize.WATCHDOG_MS / 1000
                        + " s per native call. Records say profile=sanitize: correctness only, no measurement"})
        boolean sanitize;

        /** The --sanitize profile: every loop short enough for a sanitizer's instrumentation. */
        static final class Sanitize {
            static final int REPS = 2;
            static final int FROM_KIB = 16;
            static final int TO_KIB = 24;
            static final int HOPS = 32;
            static final int LAUNCHES = 1;
            static final int WATCHDOG_MS = 180_000;
        }

        /** How the device is opened; tests replace it to run without a GPU. */
        IntFunction<DsmDevice> opener = dev -> NativeDsmDevice.open(dev, config())
                .withWatchdogMs(sanitize ? Sanitize.WATCHDOG_MS : 0);

        /**
         * The kernel knobs of the parsed options; IllegalArgumentException
         * naming the flag if one is not valid.
         */
        public KernelConfig config() {
            String bad = KernelConfig.widthProblem("--store-width", storeWidth);
            if (bad == null) {
                bad = KernelConfig.widthProblem("--load-width", loadWidth);
            }
            if (bad == null && loadWidth != KernelConfig.DEFAULT_WIDTH && loadKernel == DsmDevice.LoadKernel.BATCHED) {
                bad = "--load-width " + loadWidth + " needs --load-kernel INFLIGHT (BATCHED loads 16 B)";
            }
            if (bad != null) {
                throw new IllegalArgumentException(bad);
            }
            return new KernelConfig(groupThreads, tmaChunk, loadKernel, storeWidth, loadWidth);
        }

        @Override
        public Integer call() {
            return CliErrors.guard(spec.commandLine(), this::run);
        }

        private int run() {
            PrintWriter err = spec.commandLine().getErr();
            List<Experiment> chosen = Experiments.select(experiment);
            OutputFormat format = out.format();
            if (reps < 2) {
                throw new IllegalArgumentException("--reps must be at least 2");
            }
            config();
            String bound = RunBounds.applyDefault(out, chosen.size(), RunBounds.DSM_SECONDS_PER_EXPERIMENT);
            RunProgress progress = out.progress("dsm run", chosen.size()); // checks --max-seconds before the GPU
            DsmDevice dev = opener.apply(device);
            DsmContext ctx = new DsmContext(dev, sanitize ? Sanitize.REPS : reps, sanitize ? 0 : warmup,
                    sanitize ? DsmContext.sizes(Sanitize.FROM_KIB, Sanitize.TO_KIB, 8) : DsmContext.DEFAULT_SIZES,
                    out.run.quiet ? null : err).withDeadline(progress::expired);
            if (sanitize) {
                ctx.withLatencyChase(Sanitize.HOPS, Sanitize.LAUNCHES);
            }
            // streamed per experiment: an experiment's records (its fits need every series) are written when
            // it completes; the table as DsmTable's blocks, the same at the end
            List<ResultRecord> records = new ArrayList<>();
            DsmStream stream = new DsmStream(format, err);
            List<String> done = new ArrayList<>();
            String cut = null;
            for (Experiment e : chosen) {
                if (progress.expired()) {
                    break;
                }
                ctx.progress(e.id() + " " + e.name() + ": " + e.title());
                try {
                    List<ResultRecord> rs = e.run(ctx);
                    records.addAll(rs);
                    stream.write(rs);
                } catch (DsmContext.OutOfTime t) {
                    cut = e.id(); // its partial series are dropped: an experiment's records come from all of them
                    break;
                }
                done.add(e.id());
                progress.step();
            }
            progress.close();
            if (!ctx.rejections().isEmpty()) {
                ctx.progress("rejected launches by reason: " + ctx.rejections());
            }
            if (progress.truncated()) {
                List<String> notRun = chosen.stream().map(Experiment::id)
                        .filter(id -> !done.contains(id)).toList();
                ResultRecord summary = new ResultRecord("dsm.run_summary", dev.backend(), dev.hardware())
                        .param("row", "summary")
                        .param("max_seconds", out.run.maxSeconds)
                        .metric("experiments_done", done).metric("experiment_cut", cut == null ? "none" : cut)
                        .metric("experiments_not_run", notRun);
                records.add(summary);
                stream.write(List.of(summary));
                err.println("marrow: dsm: " + bound + " reached: done " + done + ", not run " + notRun
                        + (cut == null ? "" : " (" + cut + " was cut short; its partial series are dropped)"));
            }
            stream.finish(records);
            return ExitCodes.OK;
        }

        /** The run's output, written per experiment (docs/design/records.md). */
        private final class DsmStream {
            private final OutputFormat format;
            private final PrintWriter err;
            private List<ResultRecord> sink;
            private dev.marrow.results.RecordSink text;

            DsmStream(OutputFormat format, PrintWriter err) {
                this.format = format;
                this.err = err;
            }

            void write(List<ResultRecord> rs) {
                for (ResultRecord r : rs) {
                    if (sanitize) {
                        r.param("profile", "sanitize (correctness only: not a measurement)");
                    }
                }
                if (format != OutputFormat.TABLE) {
                    if (sink == null) {
                        sink = out.records();
                    }
                    sink.addAll(rs);
                    return;
                }
                // the table: DsmTable's blocks, one experiment at a time, the title lines first
                if (text == null) {
                    text = dev.marrow.results.RecordSink.open(dev.marrow.results.Destination.check(out.output), null,
                            Map.of(), spec.commandLine().getOut(), err);
                    text.writeText(DsmTable.title(Environment.capture()));
                }
                text.writeText(DsmTable.blocks(rs));
            }

            void finish(List<ResultRecord> all) {
                if (format != OutputFormat.TABLE) {
                    out.emit(sink == null ? out.records() : sink, spec.commandLine().getOut(), err);
                    return;
                }
                if (text == null) {
                    write(List.of());
                }
                text.finish(dev.marrow.results.RecordSink.Status.COMPLETE, null, Map.of());
            }
        }
    }

    @Command(name = "plot", mixinStandardHelpOptions = true,
            description = "Render PNGs from `dsm run --format json` output: affine fits with residuals (E2-E4), "
                    + "per-direction bars (E5), ring scaling (E7), sharing (E10).")
    public static final class Plot implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = {"--input", "-i"}, required = true, description = "JSON-lines file written by `dsm run --format json`")
        Path input;

        @Option(names = {"--output-dir", "-d"}, defaultValue = "dsm-plots",
                description = "Directory for the PNG files. Default: ${DEFAULT-VALUE}")
        Path outputDir;

        @Override
        public Integer call() {
            return CliErrors.guard(spec.commandLine(), this::plot);
        }

        private int plot() {
            if (!Files.isRegularFile(input)) {
                throw new IllegalArgumentException("--input " + input + " is not a file");
            }
            List<Path> files = DsmPlots.render(DsmPlots.read(input), outputDir);
            PrintWriter o = spec.commandLine().getOut();
            if (files.isEmpty()) {
                spec.commandLine().getErr().println("marrow dsm plot: no plottable DSM records in " + input);
                return ExitCodes.USAGE; // bad input: nothing in the file to plot
            }
            for (Path f : files) {
                o.println(f);
            }
            o.flush();
            return ExitCodes.OK;
        }
    }
}
