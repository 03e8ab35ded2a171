// SPDX-License-Identifier: Apache-2.0
package dev.marrow.results;

import tools.jackson.databind.json.JsonMapper;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Renders result records as JSON lines (a header line with the environment,
 * then one line per record), CSV (flattened records, stable column order) or
 * a fixed-width table. Emulated results are labelled as such in every format.
 * These render a finished list at once; a run streams through
 * {@link RecordSink} instead (docs/design/records.md).
 */
public final class ResultWriter {
    /** The record stream's version; its fields are listed in docs/design/records.md ("Schema"). */
    public static final String SCHEMA = "marrow.result/2";
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private ResultWriter() {
    }

    public static String render(OutputFormat format, List<ResultRecord> records, Map<String, Object> env) {
        return switch (format) {
            case JSON -> json(records, env);
            case CSV -> csv(records);
            case TABLE -> table(records, env);
        };
    }

    public static String json(List<ResultRecord> records, Map<String, Object> env) {
        StringBuilder sb = new StringBuilder();
        sb.append(JSON.writeValueAsString(RecordSink.header(env))).append('\n');
        for (ResultRecord r : records) {
            sb.append(JSON.writeValueAsString(r.flat())).append('\n');
        }
        return sb.toString();
    }

    public static String csv(List<ResultRecord> records) {
        List<String> cols = columns(records);
        StringBuilder sb = new StringBuilder(String.join(",", cols)).append('\n');
        for (ResultRecord r : records) {
            Map<String, Object> f = r.flat();
            List<String> cells = new ArrayList<>();
            for (String c : cols) {
                cells.add(csvCell(f.get(c)));
            }
            sb.append(String.join(",", cells)).append('\n');
        }
        return sb.toString();
    }

    public static String table(List<ResultRecord> records, Map<String, Object> env) {
        StringBuilder sb = new StringBuilder();
        boolean emulated = records.stream().anyMatch(r -> !r.hardware());
        if (!records.isEmpty()) {
            sb.append("# ").append(records.getFirst().experiment());
            sb.append(emulated ? "  [EMULATED NIC: software emulator, not hardware]" : "  [hardware]").append('\n');
        }
        if (env != null) {
            sb.append(hostLine(env));
        }
        List<String> cols = new ArrayList<>(columns(records));
        cols.removeAll(List.of("record", "experiment"));
        List<List<String>> rows = new ArrayList<>();
        for (ResultRecord r : records) {
            Map<String, Object> f = r.flat();
            List<String> row = new ArrayList<>();
            for (String c : cols) {
                Object v = f.get(c);
                row.add(v == null ? "-" : String.valueOf(v));
            }
            rows.add(row);
        }
        int[] w = new int[cols.size()];
        for (int i = 0; i < cols.size(); i++) {
            w[i] = cols.get(i).length();
            for (List<String> row : rows) {
                w[i] = Math.max(w[i], row.get(i).length());
            }
        }
        sb.append(row(cols, w)).append('\n');
        for (List<String> row : rows) {
            sb.append(row(row, w)).append('\n');
        }
        return sb.toString();
    }

    /** The table's second comment line: where and from what the numbers came. */
    static String hostLine(Map<String, Object> env) {
        return "# host " + env.get("host") + ", cpu " + env.get("cpu_model") + ", git " + env.get("git_sha")
                + (Boolean.TRUE.equals(env.get("git_dirty")) ? " (dirty tree)" : "") + "\n";
    }

    /** One table row, each cell right-aligned to its width (a wider cell pushes the rest of its row). */
    static String row(List<String> cells, int[] w) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < cells.size(); i++) {
            if (i > 0) {
                sb.append("  ");
            }
            sb.append(String.format("%" + w[i] + "s", cells.get(i)));
        }
        return sb.toString();
    }

    private static List<String> columns(List<ResultRecord> records) {
        Set<String> cols = new LinkedHashSet<>();
        for (ResultRecord r : records) {
            cols.addAll(r.flat().keySet());
        }
        return new ArrayList<>(cols);
    }

    static String csvCell(Object v) {
        if (v == null) {
            return "";
        }
        String s = String.valueOf(v);
        if (s.contains(",") || s.contains("\"") || s.contains("\n")) {
            return '"' + s.replace("\"", "\"\"") + '"';
        }
        return s;
    }

    /**
     * Writes text to path (null: stdout) as {@link RecordSink} writes a run:
     * checked first, through a temporary file, never replacing an existing
     * file (the first free "name.N.ext"). Returns the file written, or null
     * for stdout or a special file.
     */
    public static Path emit(String text, Path output, PrintWriter out, PrintWriter err) {
        RecordSink s = RecordSink.open(Destination.check(output), null, Map.of(), out, err);
        s.writeText(text);
        return s.finish(RecordSink.Status.COMPLETE, null, Map.of());
    }
}
