// SPDX-License-Identifier: Apache-2.0
package dev.marrow.results;

import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Renders result records as JSON lines (a header line with the environment,
 * then one line per record), CSV (flattened records, stable column order) or
 * a fixed-width table. Emulated results are labelled as such in every format.
 */
public final class ResultWriter {
    public static final String SCHEMA = "marrow.result/1";
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
        Map<String, Object> header = new LinkedHashMap<>();
        header.put("record", "header");
        header.put("schema", SCHEMA);
        header.put("env", env);
        sb.append(JSON.writeValueAsString(header)).append('\n');
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
            sb.append("# host ").append(env.get("host")).append(", cpu ").append(env.get("cpu_model"))
                    .append(", git ").append(env.get("git_sha"))
                    .append(Boolean.TRUE.equals(env.get("git_dirty")) ? " (dirty tree)" : "").append('\n');
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
        appendRow(sb, cols, w);
        for (List<String> row : rows) {
            appendRow(sb, row, w);
        }
        return sb.toString();
    }

    private static void appendRow(StringBuilder sb, List<String> cells, int[] w) {
        for (int i = 0; i < cells.size(); i++) {
            if (i > 0) {
                sb.append("  ");
            }
            sb.append(String.format("%" + w[i] + "s", cells.get(i)));
        }
        sb.append('\n');
    }

    private static List<String> columns(List<ResultRecord> records) {
        Set<String> cols = new LinkedHashSet<>();
        for (ResultRecord r : records) {
            cols.addAll(r.flat().keySet());
        }
        return new ArrayList<>(cols);
    }

    private static String csvCell(Object v) {
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
     * Writes text to path without ever replacing an existing file: if path
     * exists, the first free "name.N.ext" is used. Returns the path written.
     */
    public static Path writeNew(Path path, String text) {
        Path target = path;
        String name = path.getFileName().toString();
        int dot = name.lastIndexOf('.');
        String stem = dot > 0 ? name.substring(0, dot) : name;
        String ext = dot > 0 ? name.substring(dot) : "";
        for (int i = 1; Files.exists(target); i++) {
            target = path.resolveSibling(stem + "." + i + ext);
        }
        try {
            if (target.getParent() != null) {
                Files.createDirectories(target.getParent());
            }
            Files.writeString(target, text, java.nio.file.StandardOpenOption.CREATE_NEW);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + target, e);
        }
        return target;
    }

    /** Prints to out, or writes a new file (and says where on err) when output is given. */
    public static void emit(String text, Path output, PrintWriter out, PrintWriter err) {
        if (output == null) {
            out.print(text);
            out.flush();
            return;
        }
        Path written = writeNew(output, text);
        if (!written.equals(output)) {
            err.println("marrow: " + output + " exists; wrote " + written + " instead (never overwrites)");
        } else {
            err.println("marrow: wrote " + written);
        }
        err.flush();
    }
}
