// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.marrow.report.Fmt.fixed;
import static dev.marrow.report.Fmt.str;

/**
 * Tables of docs/results/h200-softnic-proxy.md: run 2 (doorbell-triggered
 * software NIC) in the folder, run 1 (engine acting on the doorbell record) in
 * run1-dbrec-triggered/. Run 1's records carry the per-worker list under
 * "workers" (it shadowed T); run 2's under "per_worker", with "workers" = T.
 */
final class ProxyDocTables {
    private ProxyDocTables() {
    }

    static final String DIR = "h200-softnic-proxy/";
    static final String RUN1 = DIR + "run1-dbrec-triggered/";
    static final List<String> NAMES = List.of("latency_cuda", "latency_cuda_warm", "latency_cpu", "rate_sweep_tuned",
            "rate_sweep_baseline", "rate_engine4");
    static final List<String> FILES;
    /** |run 2 / run 1 - 1| above this is marked as a difference (single runs). */
    static final double MATERIAL = 0.10;

    static {
        List<String> f = new ArrayList<>();
        for (String n : NAMES) {
            f.add(DIR + n + ".json");
            f.add(RUN1 + n + ".json");
        }
        FILES = List.copyOf(f);
    }

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> perWorker(Map<String, Object> r) {
        if (r.get("per_worker") instanceof List<?> l) {
            return (List<Map<String, Object>>) l;
        }
        if (r.get("workers") instanceof List<?> l) {
            return (List<Map<String, Object>>) l;
        }
        return List.of();
    }

    static long sqFull(Map<String, Object> r) {
        return perWorker(r).stream().mapToLong(w -> Fmt.lng(w, "sq_full_passes")).sum();
    }

    static double sqFullPerPost(Map<String, Object> r) {
        long c = perWorker(r).stream().mapToLong(w -> Fmt.lng(w, "chains")).sum();
        return c == 0 ? 0.0 : (double) sqFull(r) / c;
    }

    static String key(Map<String, Object> r) {
        return ProxySections.workers(r) + "/" + str(r, "rings") + "/" + str(r, "batch");
    }

    static String eprCell(Map<String, Object> r) {
        List<Double> ws = perWorker(r).stream().map(w -> Fmt.num(w, "empty_poll_ratio")).toList();
        String own = fixed(Fmt.num(r, "empty_poll_ratio"), 3);
        if (ws.size() <= 1) {
            return own;
        }
        double min = ws.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
        double max = ws.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
        return own + " (" + fixed(min, 3) + "–" + fixed(max, 3) + ")";
    }

    static Map<String, String> tables(DocTables.Inputs in) {
        Map<String, List<Map<String, Object>>> r1 = new LinkedHashMap<>();
        Map<String, List<Map<String, Object>>> r2 = new LinkedHashMap<>();
        for (String n : NAMES) {
            r1.put(n, in.records(RUN1 + n + ".json"));
            r2.put(n, in.records(DIR + n + ".json"));
        }
        Map<String, String> t = new LinkedHashMap<>();
        t.put("proxy.latency", latency(r2));
        t.put("proxy.latency_compare", latencyCompare(r1, r2));
        t.put("proxy.rate_tuned", rate(r1, r2, "rate_sweep_tuned"));
        t.put("proxy.rate_baseline", rate(r1, r2, "rate_sweep_baseline"));
        t.put("proxy.rate_engine4", rate(r1, r2, "rate_engine4"));
        return t;
    }

    private static final String[][] LATENCY_RUNS = {{"latency_cuda", "cold"},
        {"latency_cuda_warm", "warm (--precondition-seconds 2)"}, {"latency_cpu", "cold"}};

    private static String latency(Map<String, List<Map<String, Object>>> r2) {
        List<String> out = new ArrayList<>(List.of("| producer | handoff | completion counter | issue p50 | issue p99 | "
                + "put+c p50 | put+c p99 | RTT p50 | RTT p99 | run |", "|---|---|---|---:|---:|---:|---:|---:|---:|---|"));
        for (String[] nl : LATENCY_RUNS) {
            for (Map<String, Object> r : r2.get(nl[0])) {
                out.add("| " + str(r, "producer") + " | " + str(r, "handoff") + " | " + str(r, "completion_counter")
                        + " | " + str(r, "issue_p50_ns") + " | " + str(r, "issue_p99_ns") + " | " + str(r, "putc_p50_ns")
                        + " | " + str(r, "putc_p99_ns") + " | " + str(r, "rtt_p50_ns") + " | " + str(r, "rtt_p99_ns")
                        + " | " + nl[1] + " |");
            }
        }
        return String.join("\n", out) + "\n";
    }

    private static Map<String, Object> lat(List<Map<String, Object>> rs, String handoff) {
        return rs.stream().filter(r -> handoff.equals(r.get("handoff"))).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no " + handoff + " latency record"));
    }

    private static String latencyCompare(Map<String, List<Map<String, Object>>> r1, Map<String, List<Map<String, Object>>> r2) {
        List<String> out = new ArrayList<>(List.of("| producer | handoff | run | issue p50 (run 1 → run 2) | put+c p50 | "
                + "RTT p50 | put+c p99 | RTT p99 |", "|---|---|---|---:|---:|---:|---:|---:|"));
        String[][] runs = {{"latency_cuda", "cold"}, {"latency_cuda_warm", "warm"}, {"latency_cpu", "cold"}};
        for (String[] nl : runs) {
            for (Map<String, Object> a : r1.get(nl[0])) {
                Map<String, Object> b = lat(r2.get(nl[0]), str(a, "handoff"));
                List<String> cells = new ArrayList<>();
                for (String k : List.of("issue_p50_ns", "putc_p50_ns", "rtt_p50_ns", "putc_p99_ns", "rtt_p99_ns")) {
                    cells.add(str(a, k) + " → " + str(b, k));
                }
                out.add("| " + str(a, "producer") + " | " + str(a, "handoff") + " | " + nl[1] + " | "
                        + String.join(" | ", cells) + " |");
            }
        }
        return String.join("\n", out) + "\n";
    }

    private static String rate(Map<String, List<Map<String, Object>>> r1, Map<String, List<Map<String, Object>>> r2,
                               String name) {
        Map<String, Map<String, Object>> aBy = new LinkedHashMap<>();
        r1.get(name).forEach(r -> aBy.put(key(r), r));
        List<String> out = new ArrayList<>(List.of("| T | R | B | M msg/s run 2 | run 1 | run 2 / run 1 | mean chain | "
                + "posts/s (M) | empty-poll ratio (workers min–max) | SQ-full passes (sum) | SQ-full passes per post |",
                "|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|"));
        for (Map<String, Object> r : r2.get(name)) {
            Map<String, Object> a = aBy.get(key(r));
            if (a == null) {
                throw new IllegalArgumentException(name + ": run 1 has no point T/R/B = " + key(r));
            }
            double ratio = Fmt.num(r, "rate_mmsg_s") / Fmt.num(a, "rate_mmsg_s");
            String mark = Math.abs(ratio - 1) > MATERIAL ? "**" : "";
            out.add("| " + ProxySections.workers(r) + " | " + str(r, "rings") + " | " + str(r, "batch") + " | "
                    + fixed(Fmt.num(r, "rate_mmsg_s"), 2) + " | " + fixed(Fmt.num(a, "rate_mmsg_s"), 2) + " | " + mark
                    + fixed(ratio, 2) + mark + " | " + fixed(Fmt.num(r, "chain_len_mean"), 2) + " | "
                    + fixed(Fmt.num(r, "posts_per_s") / 1e6, 2) + " | " + eprCell(r) + " | " + Fmt.grouped(sqFull(r))
                    + " | " + fixed(sqFullPerPost(r), 2) + " |");
        }
        return String.join("\n", out) + "\n";
    }
}
