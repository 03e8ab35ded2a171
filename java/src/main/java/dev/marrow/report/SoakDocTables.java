// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The drift table of docs/results/h200-soak.md ({@code soak.drift}) from the
 * per-run files of h200-soak/ (gda-NNNN.jsonl, proxy-NNNN.jsonl, in name order):
 * for each series and statistic, the median of the per-run values over the
 * first and over the last third of the runs (a third is runs / 3, rounded
 * down), and the change from the first to the last in percent.
 */
final class SoakDocTables {
    private SoakDocTables() {
    }

    static final String FOLDER = "h200-soak";

    static final String GDA = "gda put+completion (cuda, gpu-fence, 10^6 iters/run)";
    static final String PROXY = "proxy latency (cuda producers, tuned, 2x10^5 iters/run)";

    static Map<String, String> tables(DocTables.Inputs in) {
        Map<String, String> t = new LinkedHashMap<>();
        List<Map<String, Object>> gda = series(in, "gda-");
        List<Map<String, Object>> proxy = series(in, "proxy-");
        if (gda.isEmpty() || proxy.isEmpty()) {
            return t;
        }
        Table.Builder b = new Table.Builder("percentile drift over the soak")
                .col("series", "statistic", "runs", "first third (median, ns)", "last third (median, ns)", "change")
                .align("| --- | --- | --- | --- | --- | --- |");
        for (String k : List.of("putc_p50_ns", "putc_p99_ns")) {
            b.row(drift(GDA, gda, k));
        }
        for (String k : List.of("issue_p50_ns", "putc_p50_ns", "putc_p99_ns", "rtt_p50_ns", "rtt_p99_ns")) {
            b.row(drift(PROXY, proxy, k));
        }
        t.put("soak.drift", b.build().markdown());
        return t;
    }

    /** Every record of the runs whose file name starts with prefix, run after run. */
    private static List<Map<String, Object>> series(DocTables.Inputs in, String prefix) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (String name : in.under(FOLDER)) {
            if (name.startsWith(prefix)) {
                out.addAll(in.records(FOLDER + "/" + name));
            }
        }
        return out;
    }

    static List<String> drift(String name, List<Map<String, Object>> rows, String key) {
        int n = rows.size() / 3;
        if (n == 0) {
            throw new IllegalArgumentException("soak series '" + name + "' has " + rows.size()
                    + " runs: a third of them is none");
        }
        double first = median(rows.subList(0, n), key);
        double last = median(rows.subList(rows.size() - n, rows.size()), key);
        String change = Fmt.fixed(100 * (last - first) / first, 1);
        return List.of(name, key, Integer.toString(rows.size()), Fmt.fixed(first, 0), Fmt.fixed(last, 0),
                (change.startsWith("-") ? "" : "+") + change + " %");
    }

    /** The median as Python's statistics.median takes it: the middle value, or the mean of the middle two. */
    static double median(List<Map<String, Object>> rows, String key) {
        return dev.marrow.results.Stats.median(rows.stream().mapToDouble(r -> Fmt.num(r, key)).toArray());
    }
}
