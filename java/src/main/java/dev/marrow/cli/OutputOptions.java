// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.results.Environment;
import dev.marrow.results.OutputFormat;
import dev.marrow.results.ResultRecord;
import dev.marrow.results.ResultWriter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;

/** --format and --output (and {@link RunOptions}), shared by every measuring command. */
public final class OutputOptions {
    @Option(names = "--format", defaultValue = "table", converter = CliNames.Formats.class,
            completionCandidates = CliNames.Formats.class,
            description = "table, json (JSON lines: header + one record per point) or csv. Default: ${DEFAULT-VALUE}")
    OutputFormat format;

    @Option(names = {"--output", "-o"}, description = "Write to this file instead of stdout (never overwrites: adds .N)")
    Path output;

    @Mixin
    RunOptions run;

    /** Progress and the --max-seconds deadline of a run of `steps` points or repetitions. */
    RunProgress progress(String task, long steps) {
        return run.start(task, steps);
    }

    public OutputFormat format() {
        return format;
    }

    public void emit(List<ResultRecord> records, PrintWriter out, PrintWriter err) {
        emit(records, out, err, java.util.Map.of());
    }

    /** peerEnv: the other process's environment header (two processes or hosts), under "peer" in ours. */
    public void emit(List<ResultRecord> records, PrintWriter out, PrintWriter err, java.util.Map<String, Object> peerEnv) {
        OutputFormat f = format();
        java.util.Map<String, Object> env = new java.util.LinkedHashMap<>(Environment.capture());
        if (!peerEnv.isEmpty()) {
            env.put("peer", peerEnv);
        }
        String text = ResultWriter.render(f, records, env);
        ResultWriter.emit(text, output, out, err);
    }
}
