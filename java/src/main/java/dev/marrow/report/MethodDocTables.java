// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.marrow.report.Fmt.py;
import static dev.marrow.report.Fmt.ranged;

/**
 * Tables of docs/results/h200-method.md from h200-method/*.jsonl: doorbell to
 * CQE, the timer check, and the three-run records of {@code marrow merge-runs}
 * (each cell "median [min, max]" of the runs' values).
 */
final class MethodDocTables {
    private MethodDocTables() {
    }

    static final String DIR = "h200-method/";
    static final List<String> FILES = List.of(DIR + "db2cqe.jsonl", DIR + "timer-check.jsonl",
            DIR + "gda-latency-3runs.jsonl", DIR + "proxy-latency-3runs.jsonl");

    static Map<String, String> tables(DocTables.Inputs in) {
        Map<String, String> t = new LinkedHashMap<>();
        if (!FILES.stream().allMatch(in::has)) {
            return t;
        }
        Map<String, Object> r = in.first(DIR + "db2cqe.jsonl");
        Table.Builder d = new Table.Builder("doorbell to CQE").col("quantity", "p50 ns", "p99 ns", "min ns", "max ns",
                "iters", "valid");
        for (String q : List.of("db2cqe", "putc")) {
            d.row(q, ranged(r, q + "_p50_ns"), ranged(r, q + "_p99_ns"), ranged(r, q + "_min_ns"),
                    ranged(r, q + "_max_ns"), py(r.get("iters")), py(r.get("valid")));
        }
        t.put("method.db2cqe", d.build().markdown());
        Map<String, Object> x = in.records(DIR + "timer-check.jsonl").stream()
                .filter(m -> "gda.timer-check".equals(m.get("experiment"))).findFirst()
                .orElseThrow(() -> new IllegalArgumentException(DIR + "timer-check.jsonl has no gda.timer-check record"));
        t.put("method.timer", new Table.Builder("timer check").col("RTT p50 ns (no delay)", "RTT p50 ns (50 µs delay)",
                "shift ns", "error ns", "tolerance ns", "pass").row(ranged(x, "rtt_p50_ns"), ranged(x, "rtt_delayed_p50_ns"),
                ranged(x, "shift_ns"), ranged(x, "shift_error_ns"), ranged(x, "tolerance_ns"), py(x.get("pass")))
                .build().markdown());
        Table.Builder m = new Table.Builder("three process runs").col("file", "path", "issue p50 ns",
                "put+completion p50 ns", "RTT p50 ns", "runs");
        for (String f : List.of("gda-latency-3runs", "proxy-latency-3runs")) {
            for (Map<String, Object> y : in.records(DIR + f + ".jsonl")) {
                Object path = y.containsKey("handoff") ? y.get("handoff") : y.getOrDefault("payload", "");
                m.row(f, py(path) + " " + Fmt.size(Fmt.lng(y, "size_bytes")), ranged(y, "issue_p50_ns"),
                        ranged(y, "putc_p50_ns"), ranged(y, "rtt_p50_ns"), py(y.get("runs")));
            }
        }
        t.put("method.3runs", m.build().markdown());
        return t;
    }
}
