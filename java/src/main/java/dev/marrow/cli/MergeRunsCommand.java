// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.results.ResultWriter;
import dev.marrow.results.RunMerge;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/** Merges the JSON lines of N process runs of one command: per point the median, min and max. */
@Command(name = "merge-runs", mixinStandardHelpOptions = true,
        description = {"Merges the JSON-lines files of N separate process runs of one command (as "
                + "scripts/repeat-runs.sh writes them) into one record per point: every measured number is the "
                + "nearest-rank median of the runs with NAME_min and NAME_max beside it; valid is true only when "
                + "every run was; each record says runs=N. Runs must list the same points in the same order."})
public final class MergeRunsCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(arity = "1..*", paramLabel = "RUN.jsonl", description = "One file per process run")
    List<Path> inputs;

    @Option(names = {"--output", "-o"}, description = "Write here instead of stdout (never overwrites: adds .N)")
    Path output;

    @Override
    public Integer call() {
        List<List<Map<String, Object>>> runs = new ArrayList<>();
        String header = null;
        for (Path p : inputs) {
            String text;
            try {
                text = Files.readString(p);
            } catch (IOException | UncheckedIOException e) {
                throw new IllegalArgumentException("cannot read " + p + ": " + e.getMessage(), e);
            }
            if (header == null) {
                header = RunMerge.header(text);
            }
            List<Map<String, Object>> recs;
            try {
                recs = RunMerge.results(text);
            } catch (RuntimeException e) { // not JSON lines
                throw new IllegalArgumentException(p + " is not marrow JSON lines: " + e.getMessage(), e);
            }
            if (recs.isEmpty()) {
                throw new IllegalArgumentException(p + " holds no result records (did that run fail?)");
            }
            runs.add(recs);
        }
        String text = RunMerge.render(header, RunMerge.merge(runs));
        ResultWriter.emit(text, output, spec.commandLine().getOut(), spec.commandLine().getErr());
        return ExitCodes.OK;
    }
}
