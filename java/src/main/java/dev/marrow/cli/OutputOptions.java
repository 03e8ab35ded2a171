// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.results.Destination;
import dev.marrow.results.Environment;
import dev.marrow.results.OutputFormat;
import dev.marrow.results.RecordSink;
import dev.marrow.results.ResultRecord;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * --format and --output (and {@link RunOptions}), shared by every measuring
 * command. The destination is checked when the command first asks for the
 * format (before anything runs); a command that streams takes its record
 * list from {@link #records()}, whose add() writes each record as its point
 * completes (docs/design/records.md); {@link #emit} ends the output.
 */
public final class OutputOptions {
    @Option(names = "--format", defaultValue = "table", converter = CliNames.Formats.class,
            completionCandidates = CliNames.Formats.class,
            description = "table, json (JSON lines: header, one record per point as it completes, footer; "
                    + "docs/design/records.md) or csv. Default: ${DEFAULT-VALUE}")
    OutputFormat format;

    @Option(names = {"--output", "-o"}, paramLabel = "FILE",
            description = "Write to FILE instead of stdout (- : stdout; /dev/null and other special files are "
                    + "written as they are). Checked before the run; written as .FILE.partial-PID beside it and "
                    + "named FILE when the run ends, fails or is interrupted. Never replaces a file: if FILE exists, "
                    + "the first free name.N.ext is used (run.jsonl -> run.1.jsonl, run.2.jsonl, ...)")
    Path output;

    @Option(names = "--columns", paramLabel = "all|a,b,c",
            description = "--format table: which fields. Default: a curated set per experiment (the point's "
                    + "parameters, its headline metrics, valid) within " + dev.marrow.results.TableColumns.WIDTH
                    + " characters; all: every field; a,b,c: those fields (names as --format json writes them)")
    String columns;

    @Mixin
    RunOptions run;

    @Spec(Spec.Target.MIXEE)
    CommandSpec mixee;

    private Destination dest;
    private dev.marrow.results.TableColumns tableColumns;
    private Instant started;
    private RunProgress progress;
    private RecordSink sink;
    private Streamed streamed;

    /** Progress and the --max-seconds deadline of a run of `steps` points or repetitions. */
    RunProgress progress(String task, long steps) {
        progress = run.start(task, steps);
        return progress;
    }

    /** The format; the first call checks --output (IllegalArgumentException naming the path and the reason). */
    public OutputFormat format() {
        if (dest == null) {
            started = Instant.now();
            tableColumns = dev.marrow.results.TableColumns.parse(columns);
            if (columns != null && format != OutputFormat.TABLE) {
                throw new IllegalArgumentException("--columns chooses the fields of --format table; " + format.name()
                        .toLowerCase(java.util.Locale.ROOT) + " writes every field");
            }
            dest = Destination.check(output);
        }
        return format;
    }

    /** The command line as typed after "marrow" (empty when it cannot be known). */
    List<String> argv() {
        List<String> a = new ArrayList<>(List.of("marrow"));
        try {
            a.addAll(mixee.root().commandLine().getParseResult().originalArgs());
        } catch (RuntimeException e) {
            // a command run on its own (tests): only its name
            a.add(mixee.name());
        }
        return a;
    }

    private Map<String, Object> env(Map<String, Object> peerEnv) {
        Map<String, Object> env = new LinkedHashMap<>(Environment.capture(argv()));
        env.put("start_time", started.toString());
        if (!peerEnv.isEmpty()) {
            env.put("peer", peerEnv);
        }
        return env;
    }

    private RecordSink open(PrintWriter out, PrintWriter err, Map<String, Object> peerEnv) {
        format();
        return RecordSink.open(dest, format, RecordSink.header(env(peerEnv)), out, err).columns(tableColumns);
    }

    /**
     * Opens the output now (header first) and returns the run's record list:
     * each add() writes its record at once, whole lines, tagged truncated=true
     * when --max-seconds has ended the run by then. For commands whose
     * records are final when added (never changed, removed or reordered).
     */
    List<ResultRecord> records() {
        return records(r -> { });
    }

    /**
     * As {@link #records()}, with fields every record of the run carries
     * (e.g. the CPU budget) added by each before the record is written.
     */
    List<ResultRecord> records(java.util.function.Consumer<ResultRecord> each) {
        List<ResultRecord> l = records(each, null);
        openSink(Map.of());
        return l;
    }

    /**
     * As {@link #records(java.util.function.Consumer)} for a run whose header
     * carries the other process's environment (two processes or hosts), known
     * only once the first session has met the peer: the output is opened
     * (header first) when the first record is added, or at {@link #emit}.
     * peerEnv null: no peer.
     */
    List<ResultRecord> records(java.util.function.Consumer<ResultRecord> each,
                               java.util.function.Supplier<Map<String, Object>> peerEnv) {
        if (mixee == null) {
            throw new IllegalStateException("records() needs the command's spec");
        }
        format();
        streamed = new Streamed(each, peerEnv == null ? Map::of : peerEnv);
        return streamed;
    }

    private void openSink(Map<String, Object> peerEnv) {
        if (sink == null) {
            sink = open(mixee.commandLine().getOut(), mixee.commandLine().getErr(), peerEnv);
        }
    }

    public void emit(List<ResultRecord> records, PrintWriter out, PrintWriter err) {
        emit(records, out, err, Map.of());
    }

    /**
     * Ends the output: for a streamed list, the footer and the file's name;
     * otherwise the whole list at once, written as a stream would be.
     * peerEnv: the other process's environment header (two processes or
     * hosts), under "peer" in ours.
     */
    public void emit(List<ResultRecord> records, PrintWriter out, PrintWriter err, Map<String, Object> peerEnv) {
        RecordSink s;
        if (records == streamed && streamed != null) {
            openSink(peerEnv.isEmpty() ? streamed.peerEnv.get() : peerEnv);
            s = sink;
        } else {
            s = open(out, err, peerEnv);
            for (ResultRecord r : records) {
                s.write(r);
            }
        }
        Map<String, Object> extra = new LinkedHashMap<>();
        if (progress != null) {
            extra.put("truncated", progress.truncated());
        }
        s.finish(RecordSink.Status.COMPLETE, null, extra);
    }

    /** A record list that writes each record when it is added. */
    private final class Streamed extends AbstractList<ResultRecord> {
        private final List<ResultRecord> list = new ArrayList<>();
        private final java.util.function.Consumer<ResultRecord> each;
        private final java.util.function.Supplier<Map<String, Object>> peerEnv;

        Streamed(java.util.function.Consumer<ResultRecord> each, java.util.function.Supplier<Map<String, Object>> peerEnv) {
            this.each = each;
            this.peerEnv = peerEnv;
        }

        @Override
        public boolean add(ResultRecord r) {
            each.accept(r);
            if (progress != null && progress.truncated()) {
                r.param("truncated", true);
            }
            openSink(peerEnv.get());
            sink.write(r);
            return list.add(r);
        }

        @Override
        public ResultRecord get(int i) {
            return list.get(i);
        }

        @Override
        public int size() {
            return list.size();
        }
    }
}
