// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.marrow.report.Fmt.py;
import static dev.marrow.report.Fmt.ranged;

/**
 * One table per three-run file of a results doc: every {@code *.jsonl} of a
 * {@code medians/} folder among the inputs ({@code scripts/repeat-runs.sh} +
 * {@code marrow merge-runs}), named {@code medians.<file name without .jsonl>}
 * (and the same for the folders of {@link #FOLDERS}).
 * A row is one point, labelled by the knobs its records carry; each latency
 * percentile is "median [min, max]" of the runs (docs/design/methods.md,
 * "Repetition").
 */
final class MediansDocTables {
    private MediansDocTables() {
    }

    /** The knobs that name a point, in the order they label it. */
    static final List<String> POINT_KEYS = List.of("preset", "producer", "handoff", "ordering", "payload", "queue",
            "background_streams", "pace_msgs_per_s", "size_bytes", "producers", "engine_threads", "engine_cpus",
            "producer_cpus", "workers", "processes", "scope", "qps", "doorbell", "role");

    /** The measured columns, where present: latency percentiles, then the background rate actually carried. */
    static final List<String> METRIC_SUFFIXES = List.of("_p50_ns", "_p99_ns");

    /**
     * Folders whose files get one generic table each: the three-run files, and the single-pass
     * two-process proxy runs (phase twoproc2; "runs" 1 there).
     */
    static final List<String> FOLDERS = List.of("medians", "twoproc2", "gdaload2p");

    /** A message rate (software NIC rate runs): its median over the runs, like a percentile. */
    static final String RATE = "rate_mmsg_s";

    static Map<String, String> tables(DocTables.Inputs in) {
        Map<String, String> t = new LinkedHashMap<>();
        for (String folder : FOLDERS) {
            for (String dir : in.folders(folder)) {
                for (String name : in.under(dir)) {
                    t.put(folder + "." + name.substring(0, name.length() - ".jsonl".length()),
                            table(name, in.records(dir + "/" + name)));
                }
            }
        }
        return t;
    }

    /**
     * "median [min, max]"; where a run lacks the value (a FAILED run of an invalid point),
     * merge-runs keeps the runs' values as a list: shown run by run, "—" for the missing one.
     */
    static String cell(Map<String, Object> r, String key) {
        if (r.get(key) instanceof List<?> perRun) {
            List<String> vs = new ArrayList<>();
            for (Object v : perRun) {
                vs.add(v == null ? "—" : py(v));
            }
            return "runs: " + String.join(" / ", vs);
        }
        return ranged(r, key);
    }

    static String table(String name, List<Map<String, Object>> recs) {
        List<String> keys = new ArrayList<>();
        List<String> metrics = new ArrayList<>();
        for (Map<String, Object> r : recs) {
            for (String k : POINT_KEYS) {
                // "preset": "none" on every row names no preset: no column for it
                if (r.containsKey(k) && !keys.contains(k) && !("preset".equals(k) && "none".equals(r.get(k)))) {
                    keys.add(k);
                }
            }
            for (String k : r.keySet()) {
                if ((METRIC_SUFFIXES.stream().anyMatch(k::endsWith) || RATE.equals(k)) && !metrics.contains(k)) {
                    metrics.add(k);
                }
            }
        }
        for (String rate : List.of("background_mmsg_s", "peer_background_mmsg_s", "shift_ns", "shift_error_ns")) {
            if (recs.stream().anyMatch(r -> r.containsKey(rate))) {
                metrics.add(rate);
            }
        }
        List<String> header = new ArrayList<>(keys);
        metrics.forEach(m -> header.add(m.replace("_ns", " ns").replace("_mmsg_s", " M msg/s").replace('_', ' ')));
        header.add("valid");
        header.add("runs");
        Table.Builder b = new Table.Builder(name).col(header.toArray(String[]::new));
        for (Map<String, Object> r : recs) {
            List<String> row = new ArrayList<>();
            for (String k : keys) {
                row.add(r.containsKey(k) ? py(r.get(k)) : "");
            }
            for (String m : metrics) {
                row.add(cell(r, m));
            }
            row.add(py(r.get("valid")));
            row.add(Integer.toString(Fmt.runs(r)));
            b.row(row.toArray(String[]::new));
        }
        return b.build().markdown();
    }
}
