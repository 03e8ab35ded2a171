// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.marrow.report.Fmt.fixed;
import static dev.marrow.report.Fmt.str;
import static dev.marrow.report.Fmt.us;

/**
 * Tables of docs/results/h200-softnic-gda-latency.md: three runs of the
 * ordering sweep (headline: median of the three p50s, as the paper
 * "GPU-Initiated Communication: Dissecting Down to the Bone" reports),
 * the size sweep, the round trip, the earlier run and the CPU executor.
 */
final class GdaLatencyDocTables {
    private GdaLatencyDocTables() {
    }

    static final String DIR = "h200-softnic-gda-latency/";
    static final String OLD = DIR + "run1-dbrec-triggered/";
    static final List<String> FILES = List.of(DIR + "cuda-ordering.jsonl", DIR + "cuda-ordering-run2.jsonl",
            DIR + "cuda-ordering-run3.jsonl", DIR + "cuda-size.jsonl", DIR + "cuda-rtt.jsonl", OLD + "cuda-ordering.jsonl",
            OLD + "cuda-rtt.jsonl", OLD + "cpu-ordering.jsonl");
    static final List<String> ORDERINGS = List.of("none", "gpu-fence", "gpu-fence-dbrec", "release-gpu", "threadfence",
            "release-sys", "fence-sys");
    static final List<String> PAYLOADS = List.of("inline", "pointer");
    static final long ISSUE_TARGET_NS = 800;
    static final long PUTC_TARGET_NS = 3600;

    private record Data(List<Map<String, Map<String, Object>>> runs, List<Map<String, Object>> size,
                        List<Map<String, Object>> rtt, List<Map<String, Object>> oldOrd,
                        List<Map<String, Object>> oldRtt, List<Map<String, Object>> cpu,
                        List<List<Map<String, Object>>> runLists) {
        Map<String, Object> cell(int i, String o, String p) {
            return runs.get(i).get(o + "/" + p);
        }

        /** The three p50s of a cell; null where that run's cell is invalid. */
        Long[] p50s(String o, String p, String metric) {
            Long[] v = new Long[3];
            for (int i = 0; i < 3; i++) {
                Map<String, Object> c = cell(i, o, p);
                v[i] = valid(c) ? ((Number) c.get(metric + "_p50_ns")).longValue() : null;
            }
            return v;
        }

        Long med3(String o, String p, String metric) {
            Long[] v = p50s(o, p, metric);
            for (Long x : v) {
                if (x == null) {
                    return null;
                }
            }
            long[] s = {v[0], v[1], v[2]};
            java.util.Arrays.sort(s);
            return s[1];
        }
    }

    static boolean valid(Map<String, Object> r) {
        return Boolean.TRUE.equals(r.get("valid"));
    }

    static String key(Map<String, Object> r) {
        return str(r, "ordering") + "/" + str(r, "payload");
    }

    private static Data load(DocTables.Inputs in) {
        List<Map<String, Map<String, Object>>> runs = new ArrayList<>();
        List<List<Map<String, Object>>> lists = new ArrayList<>();
        for (String n : List.of("cuda-ordering.jsonl", "cuda-ordering-run2.jsonl", "cuda-ordering-run3.jsonl")) {
            List<Map<String, Object>> rs = in.records(DIR + n);
            List<String> expect = new ArrayList<>();
            ORDERINGS.forEach(o -> PAYLOADS.forEach(p -> expect.add(o + "/" + p)));
            if (!rs.stream().map(GdaLatencyDocTables::key).toList().equals(expect)) {
                throw new IllegalArgumentException(DIR + n + ": expected one record per ordering × payload, in order");
            }
            Map<String, Map<String, Object>> by = new LinkedHashMap<>();
            rs.forEach(r -> by.put(key(r), r));
            runs.add(by);
            lists.add(rs);
        }
        return new Data(runs, in.records(DIR + "cuda-size.jsonl"), in.records(DIR + "cuda-rtt.jsonl"),
                in.records(OLD + "cuda-ordering.jsonl"), in.records(OLD + "cuda-rtt.jsonl"),
                in.records(OLD + "cpu-ordering.jsonl"), lists);
    }

    static String failure(Map<String, Object> r) {
        if (r.get("error") != null && !str(r, "error").isEmpty()) {
            return str(r, "error").replace("marrow_gda_cuda_run failed: ", "").replace("|", "\\|");
        }
        if (r.get("payload_errors") instanceof Number n && n.longValue() != 0) {
            return n.longValue() + " of " + (Fmt.lng(r, "iters") + Fmt.lng(r, "warmup"))
                    + " iterations delivered wrong bytes";
        }
        return "";
    }

    static Map<String, String> tables(DocTables.Inputs in) {
        Data d = load(in);
        Map<String, String> t = new LinkedHashMap<>();
        t.put("gda.T_ISSUE", ordering(d, "issue"));
        t.put("gda.T_PUTC", ordering(d, "putc"));
        t.put("gda.T_FAILED", failed(d));
        t.put("gda.T_SIZE", size(d));
        t.put("gda.T_RTT", rtt(d));
        t.put("gda.T_TARGET", target(d));
        t.put("gda.T_SCOPE", scope(d));
        t.put("gda.T_PAPER_ISSUE", issueVsPaper(d));
        t.put("gda.T_OLD", old(d));
        t.put("gda.T_CPU", cpu(d));
        return t;
    }

    private static String join(List<String> lines) {
        return String.join("\n", lines) + "\n";
    }

    private static String ordering(Data d, String metric) {
        List<String> out = new ArrayList<>(List.of("| ordering | payload | run 1 p50 | run 1 p99 | run 1 min | run 1 max | "
                + "run 2 p50 | run 3 p50 | **median of 3 p50** | valid (runs 1/2/3) |", "|---|---|---|---|---|---|---|---|---|---|"));
        for (String o : ORDERINGS) {
            for (String p : PAYLOADS) {
                Map<String, Object> r1 = d.cell(0, o, p);
                boolean ok = valid(r1);
                Long[] p50s = d.p50s(o, p, metric);
                Long m = d.med3(o, p, metric);
                List<String> v = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    v.add(valid(d.cell(i, o, p)) ? "yes" : "**no**");
                }
                out.add("| " + o + " | " + p + " | " + us(ok ? r1.get(metric + "_p50_ns") : null) + " | "
                        + us(ok ? r1.get(metric + "_p99_ns") : null) + " | " + us(ok ? r1.get(metric + "_min_ns") : null)
                        + " | " + us(ok ? r1.get(metric + "_max_ns") : null) + " | " + us(p50s[1]) + " | " + us(p50s[2])
                        + " | " + (m != null ? "**" + us(m) + "**" : "—") + " | " + String.join("/", v) + " |");
            }
        }
        return join(out);
    }

    private static String failed(Data d) {
        List<String> out = new ArrayList<>(List.of("| sweep | run | ordering | payload | failure (the record's `error` / "
                + "`payload_errors`) |", "|---|---|---|---|---|"));
        for (int i = 0; i < 3; i++) {
            for (Map<String, Object> r : d.runLists().get(i)) {
                if (!valid(r)) {
                    out.add("| ordering | " + (i + 1) + " | " + str(r, "ordering") + " | " + str(r, "payload") + " | "
                            + failure(r) + " |");
                }
            }
        }
        for (Map<String, Object> r : d.size()) {
            if (!valid(r)) {
                out.add("| size | 1 | " + str(r, "ordering") + " | " + str(r, "payload") + " " + str(r, "size_bytes")
                        + " B | " + failure(r) + " |");
            }
        }
        for (Map<String, Object> r : d.rtt()) {
            if (!valid(r)) {
                out.add("| rtt | 1 | " + str(r, "ordering") + " | " + str(r, "payload") + " | " + failure(r) + " |");
            }
        }
        return join(out);
    }

    private static String size(Data d) {
        List<String> out = new ArrayList<>(List.of("| size B | WQEBBs | issue p50 | issue p99 | issue min | issue max | "
                + "put+c p50 | put+c p99 | put+c min | put+c max | valid |", "|---|---|---|---|---|---|---|---|---|---|---|"));
        for (Map<String, Object> r : d.size()) {
            boolean ok = valid(r);
            List<String> c = new ArrayList<>();
            for (String x : List.of("issue", "putc")) {
                for (String s : List.of("p50", "p99", "min", "max")) {
                    c.add(us(ok ? r.get(x + "_" + s + "_ns") : null));
                }
            }
            out.add("| " + str(r, "size_bytes") + " | " + str(r, "wqebbs") + " | " + String.join(" | ", c) + " | "
                    + (ok ? "yes" : "**no**: " + failure(r)) + " |");
        }
        return join(out);
    }

    private static String rtt(Data d) {
        List<String> out = new ArrayList<>(List.of("| ordering | payload | rtt p50 | rtt p99 | rtt min | rtt max | "
                + "put+c p50 (median of 3) | rtt p50 / put+c p50 | valid |", "|---|---|---|---|---|---|---|---|---|"));
        for (Map<String, Object> r : d.rtt()) {
            String o = str(r, "ordering");
            String p = str(r, "payload");
            Long m = d.med3(o, p, "putc");
            if (!valid(r)) {
                out.add("| " + o + " | " + p + " | — | — | — | — | " + us(m) + " | — | **no** (see failed cells) |");
                continue;
            }
            String rs = "—";
            if (m != null && m != 0) {
                double ratio = Fmt.num(r, "rtt_p50_ns") / m;
                rs = ratio > 2 ? "**" + fixed(ratio, 2) + "×**" : fixed(ratio, 2) + "×";
            }
            List<String> c = new ArrayList<>();
            for (String s : List.of("p50", "p99", "min", "max")) {
                c.add(us(r.get("rtt_" + s + "_ns")));
            }
            out.add("| " + o + " | " + p + " | " + String.join(" | ", c) + " | " + us(m) + " | " + rs + " | yes |");
        }
        return join(out);
    }

    private static String old(Data d) {
        Map<String, Map<String, Object>> oldRtt = new LinkedHashMap<>();
        d.oldRtt().forEach(r -> oldRtt.put(key(r), r));
        List<String> out = new ArrayList<>(List.of("| ordering | payload | issue p50 | put+c p50 | rtt p50 | valid | failure |",
                "|---|---|---|---|---|---|---|"));
        for (Map<String, Object> r : d.oldOrd()) {
            Map<String, Object> rt = oldRtt.get(key(r));
            // the old none/inline cell has numbers but wrong bytes: shown, it is the finding
            out.add("| " + str(r, "ordering") + " | " + str(r, "payload") + " | " + us(r.get("issue_p50_ns")) + " | "
                    + us(r.get("putc_p50_ns")) + " | " + (valid(rt) ? us(rt.get("rtt_p50_ns")) : "—") + " | "
                    + (valid(r) ? "yes" : "**no**") + " | " + failure(r) + " |");
        }
        return join(out);
    }

    private static String cpu(Data d) {
        List<String> out = new ArrayList<>(List.of("| ordering | payload | issue p50 | issue p99 | put+c p50 | put+c p99 | valid |",
                "|---|---|---|---|---|---|---|"));
        for (Map<String, Object> r : d.cpu()) {
            out.add("| " + str(r, "ordering") + " | " + str(r, "payload") + " | " + us(r.get("issue_p50_ns")) + " | "
                    + us(r.get("issue_p99_ns")) + " | " + us(r.get("putc_p50_ns")) + " | " + us(r.get("putc_p99_ns"))
                    + " | " + (valid(r) ? "yes" : "no") + " |");
        }
        return join(out);
    }

    private static String met(double v, long target) {
        return v <= target ? "met" : "**missed**";
    }

    private static String targetRow(String label, Map<String, Object> r) {
        long i = Fmt.lng(r, "issue_p50_ns");
        long p = Fmt.lng(r, "putc_p50_ns");
        return "| " + label + " | " + i + " ns | " + met(i, ISSUE_TARGET_NS) + " | " + p + " ns | "
                + met(p, PUTC_TARGET_NS) + " | " + (PUTC_TARGET_NS - p) + " ns |";
    }

    private static String target(Data d) {
        List<String> out = new ArrayList<>(List.of("| run | issue p50 | ≤ 800 ns? | put+c p50 | ≤ 3600 ns? | margin to 3600 ns |",
                "|---|---|---|---|---|---|"));
        for (int i = 0; i < 3; i++) {
            out.add(targetRow("ordering run " + (i + 1), d.cell(i, "gpu-fence", "inline")));
        }
        Map<String, Object> s8 = d.size().stream().filter(r -> Fmt.lng(r, "size_bytes") == 8).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("size sweep has no 8-byte point"));
        out.add(targetRow("size sweep (run 1 process), 8 B", s8));
        long i3 = d.med3("gpu-fence", "inline", "issue");
        long p3 = d.med3("gpu-fence", "inline", "putc");
        out.add("| **median of the 3 ordering runs** | **" + i3 + " ns** | " + met(i3, ISSUE_TARGET_NS) + " | **" + p3
                + " ns** | " + met(p3, PUTC_TARGET_NS) + " | " + (PUTC_TARGET_NS - p3) + " ns |");
        return join(out);
    }

    private static double paperIssue(String ordering) {
        return PaperReferences.get().ref("t4.pib." + ordering + ".issue").value();
    }

    private static String scope(Data d) {
        List<String> out = new ArrayList<>(List.of("| payload | pair | GPU scope issue p50 | system scope issue p50 | "
                + "system / GPU | paper P-IB (Table 4), reference |", "|---|---|---|---|---|---|"));
        for (String p : PAYLOADS) {
            for (String[] gs : new String[][] {{"release-gpu", "release-sys"}, {"gpu-fence", "fence-sys"}}) {
                long a = d.med3(gs[0], p, "issue");
                long b = d.med3(gs[1], p, "issue");
                double pa = paperIssue(gs[0]);
                double pb = paperIssue(gs[1]);
                out.add("| " + p + " | " + gs[0] + " → " + gs[1] + " | " + us(a) + " | " + us(b) + " | "
                        + fixed((double) b / a, 2) + "× | " + fixed(pa, 2) + " → " + fixed(pb, 2) + " µs ("
                        + fixed(pb / pa, 2) + "×) |");
            }
        }
        return join(out);
    }

    private static String issueVsPaper(Data d) {
        List<String> out = new ArrayList<>(List.of("| ordering | ours: issue p50, inline, median of 3 | ours: pointer | "
                + "paper P-IB issue (Table 4), reference |", "|---|---|---|---|"));
        for (String o : ORDERINGS) {
            out.add("| " + o + " | " + us(d.med3(o, "inline", "issue")) + " | " + us(d.med3(o, "pointer", "issue")) + " | "
                    + fixed(paperIssue(o), 2) + " |");
        }
        return join(out);
    }
}
