// SPDX-License-Identifier: Apache-2.0
package dev.marrow.results;

import tools.jackson.databind.json.JsonMapper;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Merges the JSON-lines output of N process runs of one command into one
 * record per point: every published latency point is the median of several
 * process runs, with their spread (docs/design/methods.md, "Repetition").
 *
 * Runs of one command produce the same points in the same order, so the
 * k-th result record of every run is the same point; experiment and
 * backend must agree (else the runs are not of one command and the merge
 * refuses). For each field: a measured number (a numeric field whose name
 * carries a unit or loss suffix, or any numeric field whose value differs
 * between runs) becomes the nearest-rank median of the runs, with NAME_min
 * and NAME_max beside it; a boolean is the AND of the runs (valid only when
 * every run was); anything else must agree and is kept, or, when it does
 * not, kept as the list of the runs' values. Each merged record says
 * "runs": N and "repeat_statistic".
 */
public final class RunMerge {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String[] MEASURED_SUFFIXES = {"_ns", "_ms", "_us", "_cycles", "_mmsg_s", "_gb_s", "_ghz",
            "_loss", "slowdown"};
    public static final String STATISTIC = "nearest-rank median of the process runs; _min and _max beside it";

    private RunMerge() {
    }

    /** Parses JSON lines; returns the result records (header, footer and other record kinds dropped). */
    public static List<Map<String, Object>> results(String jsonLines) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (String line : jsonLines.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> m = JSON.readValue(line, LinkedHashMap.class);
            if (isResult(m)) {
                out.add(m);
            }
        }
        return out;
    }

    /** A result record: "record":"result", or no "record" at all (bare records of the C benches). */
    static boolean isResult(Map<String, Object> m) {
        Object kind = m.get("record");
        return kind == null || "result".equals(kind);
    }

    /**
     * The streaming merge: reads the runs side by side, one point at a time,
     * so memory holds one record per run whatever the files' size and time
     * is linear in the records (docs/design/records.md). The runs' readers
     * stay open; the caller closes them.
     */
    public static final class Lockstep {
        private final List<JsonLinesReader> runs;
        private Map<String, Object> header;
        private List<Map<String, Object>> pending;
        private long k;

        /** Reads the first point of every run (and run 1's header, which comes before it). */
        public Lockstep(List<JsonLinesReader> runs) {
            if (runs.isEmpty()) {
                throw new IllegalArgumentException("no runs to merge");
            }
            this.runs = runs;
            pending = readPoint();
            if (pending == null) {
                throw new IllegalArgumentException(runs.getFirst().name() + " holds no result records (did that run fail?)");
            }
        }

        /** Run 1's header record (null when it has none). */
        public Map<String, Object> header() {
            return header;
        }

        /** The next merged point, or null after the last. */
        public Map<String, Object> next() {
            if (pending == null) {
                return null;
            }
            Map<String, Object> m = mergePoint((int) k, pending);
            k++;
            pending = readPoint();
            return m;
        }

        /** The k-th result of every run; null when all ended; refuses runs that end apart. */
        private List<Map<String, Object>> readPoint() {
            List<Map<String, Object>> point = new ArrayList<>(runs.size());
            for (int i = 0; i < runs.size(); i++) {
                point.add(nextResult(runs.get(i), i == 0));
            }
            long ended = point.stream().filter(java.util.Objects::isNull).count();
            if (ended == 0) {
                return point;
            }
            if (ended < runs.size() || k == 0) {
                long[] counts = new long[runs.size()];
                for (int i = 0; i < runs.size(); i++) {
                    counts[i] = k + (point.get(i) == null ? 0 : 1);
                    while (point.get(i) != null && nextResult(runs.get(i), false) != null) {
                        counts[i]++;
                    }
                }
                for (int i = 0; i < runs.size(); i++) {
                    if (counts[i] == 0) {
                        throw new IllegalArgumentException(runs.get(i).name()
                                + " holds no result records (did that run fail?)");
                    }
                }
                for (int i = 1; i < runs.size(); i++) {
                    if (counts[i] != counts[0]) {
                        throw new IllegalArgumentException("run " + (i + 1) + " (" + runs.get(i).name() + ") has "
                                + counts[i] + " result records, run 1 has " + counts[0]
                                + ": not runs of one command (or one was cut short)");
                    }
                }
            }
            return null;
        }

        private Map<String, Object> nextResult(JsonLinesReader r, boolean first) {
            while (r.hasNext()) {
                Map<String, Object> m = r.next();
                if (isResult(m)) {
                    return m;
                }
                if (first && k == 0 && header == null && "header".equals(m.get("record"))) {
                    header = m;
                }
            }
            return null;
        }
    }

    /** The first header line of a run's output, or null. */
    public static String header(String jsonLines) {
        for (String line : jsonLines.split("\n")) {
            if (line.contains("\"record\":\"header\"")) {
                return line;
            }
        }
        return null;
    }

    public static boolean measured(String name) {
        for (String s : MEASURED_SUFFIXES) {
            if (name.endsWith(s)) {
                return true;
            }
        }
        return false;
    }

    /** Merges runs (each the result records of one process run). */
    public static List<Map<String, Object>> merge(List<List<Map<String, Object>>> runs) {
        if (runs.isEmpty()) {
            throw new IllegalArgumentException("no runs to merge");
        }
        int n = runs.getFirst().size();
        for (int r = 1; r < runs.size(); r++) {
            if (runs.get(r).size() != n) {
                throw new IllegalArgumentException("run " + (r + 1) + " has " + runs.get(r).size()
                        + " result records, run 1 has " + n + ": not runs of one command (or one was cut short)");
            }
        }
        List<Map<String, Object>> merged = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            List<Map<String, Object>> point = new ArrayList<>();
            for (List<Map<String, Object>> run : runs) {
                point.add(run.get(k));
            }
            merged.add(mergePoint(k, point));
        }
        return merged;
    }

    private static Map<String, Object> mergePoint(int k, List<Map<String, Object>> recs) {
        Map<String, Object> first = recs.getFirst();
        for (String id : List.of("experiment", "backend")) {
            for (Map<String, Object> r : recs) {
                if (!java.util.Objects.equals(first.get(id), r.get(id))) {
                    throw new IllegalArgumentException("record " + (k + 1) + ": " + id + " differs between runs ("
                            + first.get(id) + " vs " + r.get(id) + "): not runs of one command");
                }
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        for (String name : first.keySet()) {
            List<Object> vals = new ArrayList<>();
            for (Map<String, Object> r : recs) {
                vals.add(r.get(name));
            }
            boolean allNumbers = vals.stream().allMatch(v -> v instanceof Number);
            boolean allSame = vals.stream().allMatch(v -> java.util.Objects.equals(v, vals.getFirst()));
            if (allNumbers && (measured(name) || !allSame)) {
                double[] d = vals.stream().mapToDouble(v -> ((Number) v).doubleValue()).toArray();
                boolean integral = vals.stream().allMatch(v -> v instanceof Integer || v instanceof Long);
                out.put(name, number(median(d), integral));
                out.put(name + "_min", number(Arrays.stream(d).min().orElseThrow(), integral));
                out.put(name + "_max", number(Arrays.stream(d).max().orElseThrow(), integral));
            } else if (vals.stream().allMatch(v -> v instanceof Boolean)) {
                out.put(name, vals.stream().allMatch(Boolean.TRUE::equals));
            } else if (allSame) {
                out.put(name, vals.getFirst());
            } else {
                out.put(name, vals);
            }
        }
        out.put("runs", recs.size());
        out.put("repeat_statistic", STATISTIC);
        return out;
    }

    /** Nearest-rank median: the smallest value with at least half of the values at or below it. */
    public static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s[(int) Math.ceil(0.5 * s.length) - 1];
    }

    private static Object number(double d, boolean integral) {
        return integral ? (Object) (long) d : (Object) d;
    }

    /** One JSON line per merged record, after the given header line (may be null). */
    public static String render(String header, List<Map<String, Object>> merged) {
        StringBuilder sb = new StringBuilder();
        if (header != null) {
            sb.append(header).append('\n');
        }
        for (Map<String, Object> m : merged) {
            sb.append(JSON.writeValueAsString(m)).append('\n');
        }
        return sb.toString();
    }
}
