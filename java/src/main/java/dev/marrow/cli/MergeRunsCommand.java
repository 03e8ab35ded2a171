// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.results.Destination;
import dev.marrow.results.JsonLinesReader;
import dev.marrow.results.OutputFormat;
import dev.marrow.results.RecordSink;
import dev.marrow.results.RunMerge;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

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
                + "every run was; each record says runs=N. Runs must list the same points in the same order.",
                "The files are read side by side, one point at a time (regular files only, - for stdin once; "
                        + "lines up to 1 MiB); the output is header, merged records, footer "
                        + "(docs/design/records.md)."})
public final class MergeRunsCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(arity = "1..*", paramLabel = "RUN.jsonl", description = "One file per process run (- : stdin)")
    List<Path> inputs;

    @Option(names = {"--output", "-o"}, description = "Write here instead of stdout (- : stdout). A file is written "
            + "under a temporary name and named at the end; it never replaces a file: RUN.jsonl exists -> RUN.1.jsonl, "
            + "RUN.2.jsonl, ...")
    Path output;

    @Override
    public Integer call() {
        Destination dest = Destination.check(output);
        if (inputs.stream().filter(p -> p.toString().equals("-")).count() > 1) {
            throw new IllegalArgumentException("- (stdin) given more than once");
        }
        List<JsonLinesReader> readers = new ArrayList<>();
        try {
            for (Path p : inputs) {
                readers.add(JsonLinesReader.open(p, true));
            }
            RunMerge.Lockstep merge = new RunMerge.Lockstep(readers);
            RecordSink sink = RecordSink.open(dest, OutputFormat.JSON, merge.header(),
                    spec.commandLine().getOut(), spec.commandLine().getErr());
            try {
                for (Map<String, Object> m = merge.next(); m != null; m = merge.next()) {
                    sink.write(m);
                }
            } catch (RuntimeException e) {
                sink.finish(RecordSink.Status.FAILED, e.getMessage(), Map.of());
                throw e;
            }
            sink.finish(RecordSink.Status.COMPLETE, null, Map.of());
        } finally {
            readers.forEach(JsonLinesReader::close);
        }
        return ExitCodes.OK;
    }
}
