// SPDX-License-Identifier: Apache-2.0
package dev.marrow.results;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which columns `--format table` prints (docs/design/records.md, "The table"):
 * by default a curated set per experiment, the one the report's page tables
 * choose (the point's parameters, then its headline metrics, then valid and
 * truncated), cut to {@link #WIDTH} characters; `--columns all` every field,
 * `--columns a,b,c` those named. JSON and CSV always carry every field.
 */
public final class TableColumns {
    /** The widest line a curated table prints. */
    public static final int WIDTH = 120;

    /** What --columns asked for: null names = curated; ALL = every field. */
    private final List<String> names;
    private final boolean all;

    private TableColumns(List<String> names, boolean all) {
        this.names = names;
        this.all = all;
    }

    public static final TableColumns CURATED = new TableColumns(null, false);
    public static final TableColumns ALL = new TableColumns(null, true);

    /** --columns: "all", or a comma list of field names (IllegalArgumentException for an empty one). */
    public static TableColumns parse(String s) {
        if (s == null || s.isBlank() || s.strip().equals("curated")) {
            return CURATED;
        }
        if (s.strip().equalsIgnoreCase("all")) {
            return ALL;
        }
        List<String> l = new ArrayList<>();
        for (String c : s.split(",")) {
            String n = c.strip();
            if (n.isEmpty() || !n.matches("[A-Za-z0-9_.\\-]+")) {
                throw new IllegalArgumentException("--columns: '" + c + "' is not a field name (all, or a comma list "
                        + "of the names --format json writes)");
            }
            l.add(n);
        }
        return new TableColumns(List.copyOf(l), false);
    }

    /**
     * The parameters that tell a point from its neighbours, in the report's
     * order (MediansDocTables, RateSections, KernelCostDocTables); a field
     * every point shares (iters, percentiles, the host's CPUs) is left to JSON.
     */
    static final List<String> POINT_KEYS = List.of("preset", "target", "caller", "transport", "arm", "live_values",
            "producer", "handoff", "ordering", "placement", "payload", "queue", "background_streams", "blocks",
            "threads", "qps", "qp_map", "publication", "workers", "rings", "batch", "producers", "poster_threads",
            "window", "engine_threads", "msgs_per_block", "msg_size_bytes", "size_bytes", "doorbell", "scope", "role",
            "responder_delay_ns", "pass", "locked_clock_mhz", "group", "sequence", "row");

    /** Headline metrics first (medians, rates, goodput), then their spread, then what limited them. */
    static final List<String> METRIC_ORDER = List.of("_p50_ns", "_p50_us", "_p50_ms", "rate_mmsg_s", "goodput_gbps",
            "messages_per_s", "fraction_of_line_rate", "background_mmsg_s", "slowdown", "throughput_loss",
            "waiting_loss", "shift_ns", "shift_error_ns", "pass", "sm_clock_mhz", "c_cycles", "b_us", "r2",
            "first_size_at_90pct_line_rate", "line_rate_gbps", "rate_min_mmsg_s", "rate_max_mmsg_s", "_p99_ns",
            "limited_by", "cpu_oversubscribed");

    /** Kept whatever the width: whether the row can be trusted. */
    static final List<String> FLAGS = List.of("valid", "truncated");

    /**
     * The columns of a table whose first record is flat: the asked-for names
     * (all fields, the list given, or the curated set fitted to WIDTH with the
     * first row's cells).
     */
    public List<String> choose(Map<String, Object> flat) {
        List<String> keys = new ArrayList<>(flat.keySet());
        keys.removeAll(List.of("record", "experiment"));
        if (all) {
            return keys;
        }
        if (names != null) {
            return names;
        }
        return curated(flat);
    }

    /** Curated: the set is chosen again (a new column line) when the experiment changes. */
    boolean perExperiment() {
        return !all && names == null;
    }

    /** Every field: a record bringing fields the column line lacks starts a new one. */
    boolean everyField() {
        return all;
    }

    static List<String> curated(Map<String, Object> flat) {
        List<String> points = new ArrayList<>();
        for (String k : POINT_KEYS) {
            Object v = flat.get(k);
            if (v != null && !(v instanceof Map<?, ?>) && !(v instanceof List<?>)
                    && !("preset".equals(k) && "none".equals(v))) {
                points.add(k);
            }
        }
        Set<String> metrics = new LinkedHashSet<>();
        for (String m : METRIC_ORDER) {
            for (String k : flat.keySet()) {
                if ((m.startsWith("_") ? k.endsWith(m) : k.equals(m)) && !points.contains(k)
                        && !(flat.get(k) instanceof Map<?, ?>) && !(flat.get(k) instanceof List<?>)) {
                    metrics.add(k);
                }
            }
        }
        List<String> flags = FLAGS.stream().filter(flat::containsKey).toList();
        // drop the last metric, then the last parameter, until the line fits (never the flags or the first metric)
        List<String> m = new ArrayList<>(metrics);
        while (width(flat, points, m, flags) > WIDTH) {
            if (m.size() > 1) {
                m.removeLast();
            } else if (points.size() > 1) {
                points.removeLast();
            } else {
                break;
            }
        }
        List<String> cols = new ArrayList<>(points);
        cols.addAll(m);
        cols.addAll(flags);
        return cols;
    }

    private static int width(Map<String, Object> flat, List<String> a, List<String> b, List<String> c) {
        int w = 0;
        int n = 0;
        for (List<String> l : List.of(a, b, c)) {
            for (String k : l) {
                w += Math.max(k.length(), cell(flat.get(k)).length());
                n++;
            }
        }
        return w + 2 * Math.max(0, n - 1);
    }

    /** A table cell: "-" for a missing field, anything else as JSON would show a scalar. */
    public static String cell(Object v) {
        return v == null ? "-" : String.valueOf(v);
    }
}
