// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import dev.marrow.report.PaperReferences.Ref;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.marrow.report.Fmt.num;
import static dev.marrow.report.Fmt.str;

/**
 * {@code proxy.latency} and {@code proxy.rate} (mini-proxy), beside the paper's
 * ("GPU-Initiated Communication: Dissecting Down to the Bone")
 * Table 3 (cold) / Table 9 (warm) latencies and Table 10 / Figure 7 rates.
 */
final class ProxySections {
    private ProxySections() {
    }

    static boolean warm(Map<String, Object> r) {
        return r.get("precondition_s") instanceof Number n && n.doubleValue() > 0;
    }

    /** Table 3 for cold workers; Table 9 has warm put+c and round trip (its enqueue equals Table 3's). */
    static Ref latencyRef(Map<String, Object> r, String metric) {
        PaperReferences p = PaperReferences.get();
        String h = str(r, "handoff");
        if (warm(r) && !metric.equals("issue")) {
            return p.find("t9.pib.proxy." + h + "." + metric + "_warm");
        }
        return p.find("t3.pib.proxy." + h + "." + metric);
    }

    static Section latency(ResultFile f, Path outDir, String figPrefix) {
        boolean merged = Fmt.merged(f.records());
        Table.Builder t = new Table.Builder("µs; nearest-rank p50/p99. Reference columns: the paper's mini-proxy on "
                + "P-IB (real ConnectX-7), Table 3 for cold workers, Table 9 for warm ones")
                .col("producer", "handoff", "warm", "completion counter", "issue p50", "issue p99", "put+c p50",
                        "put+c p99", "rtt p50", "rtt p99");
        if (merged) {
            t.col("runs");
        }
        t.ref("paper issue", "paper put+c", "paper rtt", "paper source");
        Charts.Bars b = new Charts.Bars(f.name() + ": p50 per handoff" + Provenance.tag(f.records()), "producer / handoff", "µs");
        for (Map<String, Object> r : f.records()) {
            Ref ri = latencyRef(r, "issue");
            Ref rp = latencyRef(r, "putc");
            Ref rr = latencyRef(r, "rtt");
            List<String> row = new ArrayList<>(List.of(str(r, "producer"), str(r, "handoff"), warm(r) ? "yes" : "no",
                    str(r, "completion_counter")));
            for (String k : List.of("issue_p50_ns", "issue_p99_ns", "putc_p50_ns", "putc_p99_ns", "rtt_p50_ns", "rtt_p99_ns")) {
                row.add(Fmt.usRanged(r, k));
            }
            if (merged) {
                row.add(String.valueOf(Fmt.runs(r)));
            }
            row.addAll(List.of(ri == null ? "" : Fmt.fixed(ri.value(), 2), rp == null ? "" : Fmt.fixed(rp.value(), 2),
                    rr == null ? "" : Fmt.fixed(rr.value(), 2),
                    rp == null ? "" : "paper P-IB, " + (ri != null && !ri.source().equals(rp.source())
                            ? ri.source() + " / " + rp.source() : rp.source())));
            t.row(row);
            String cat = str(r, "producer") + " / " + str(r, "handoff");
            for (String m : List.of("issue", "putc", "rtt")) {
                String lbl = m.equals("putc") ? "put+c" : m;
                if (r.get(m + "_p50_ns") instanceof Number n) {
                    b.ours(lbl + " p50 (ours)", cat, n.doubleValue() / 1000);
                }
                Ref ref = latencyRef(r, m);
                if (ref != null) {
                    b.reference("paper " + lbl + " (reference)", cat, ref.value());
                }
            }
        }
        String fig = figPrefix + ".png";
        b.write(outDir.resolve(fig));
        return Section.of(figPrefix, "mini-proxy latency — " + f.name(), "proxy.latency", List.of(f),
                Fmt.mergedNote(f.records()),
                List.of(t.build()), List.of(new Section.Figure(fig, "p50 per producer and handoff (bars: ours). "
                        + "Hollow squares: the paper's P-IB values (Table 3 cold, Table 9 warm), references only.")));
    }

    static int workers(Map<String, Object> r) {
        return r.get("workers") instanceof List<?> l ? l.size() : (int) num(r, "workers");
    }

    static Section rate(ResultFile f, Path outDir, String figPrefix) {
        PaperReferences p = PaperReferences.get();
        Table.Builder t = new Table.Builder("8-byte WRITEs; T workers, R rings, B = most requests per chain")
                .col("producer", "handoff", "T", "R", "B", "M msg/s", "mean chain", "posts/s (M)", "empty-poll ratio",
                        "verify errors");
        Map<String, List<double[]>> series = new LinkedHashMap<>();
        Map<String, Double> t1r32 = new LinkedHashMap<>();
        for (Map<String, Object> r : f.records()) {
            int w = workers(r);
            t.row(str(r, "producer"), str(r, "handoff"), String.valueOf(w), str(r, "rings"), str(r, "batch"),
                    Fmt.fixed(num(r, "rate_mmsg_s"), 2), Fmt.fixed(num(r, "chain_len_mean"), 2),
                    Fmt.fixed(num(r, "posts_per_s") / 1e6, 2), Fmt.fixed(num(r, "empty_poll_ratio"), 3),
                    str(r, "verify_errors"));
            series.computeIfAbsent("T=" + w + " R=" + str(r, "rings"), k -> new ArrayList<>())
                    .add(new double[] {num(r, "batch"), num(r, "rate_mmsg_s")});
            if (w == 1 && "32".equals(str(r, "rings"))) {
                t1r32.put(str(r, "batch"), num(r, "rate_mmsg_s"));
            }
        }
        Charts.Xy xy = new Charts.Xy(f.name() + ": message rate vs batch limit B" + Provenance.tag(f.records()), "B (requests per chain, log2)",
                "M msg/s").logX();
        series.forEach((k, pts) -> xy.ours(k + " (ours)", GdaLatencySections.xs(pts), GdaLatencySections.ys(pts)));
        Ref b1 = p.ref("t10.pib.proxy.b1_cold");
        Ref b16 = p.ref("t10.pib.proxy.b16_cold");
        xy.reference("paper P-IB, one worker, cold, Table 10 (reference)", new double[] {1, 16},
                new double[] {b1.value(), b16.value()});
        String fig = figPrefix + ".png";
        xy.write(outDir.resolve(fig));
        Table.Builder cmp = new Table.Builder("Batching gain and ceilings: ours beside the paper's")
                .col("quantity", "ours").ref("paper", "paper source");
        Ref gain = p.ref("s431.proxy.batch_gain_1_16");
        String ourGain = t1r32.containsKey("1") && t1r32.containsKey("16")
                ? Fmt.fixed(t1r32.get("16") / t1r32.get("1"), 2) + "×" : "— (no T=1, R=32 points at B=1 and 16)";
        cmp.row("rate at B = 16 over B = 1, T = 1, R = 32", ourGain, Fmt.plain(gain.value()) + "×", gain.citation());
        cmp.row("mini-proxy, one worker, B = 1 (M msg/s)", t1r32.containsKey("1") ? Fmt.fixed(t1r32.get("1"), 2)
                + " (R = 32)" : "—", Fmt.plain(b1.value()) + " cold / " + Fmt.plain(p.ref("t10.pib.proxy.b1_warm").value())
                + " warm", b1.citation());
        cmp.row("mini-proxy, one worker, B = 16 (M msg/s)", t1r32.containsKey("16") ? Fmt.fixed(t1r32.get("16"), 2)
                + " (R = 32)" : "—", Fmt.plain(b16.value()) + " cold / " + Fmt.plain(p.ref("t10.pib.proxy.b16_warm").value())
                + " warm", b16.citation());
        Ref ib = p.ref("s431.pib.ibgda_ceiling");
        Ref gb = p.ref("s431.gb200.proxy.t8_b16");
        cmp.row("NVSHMEM IBGDA message rate (the paper's ceiling)", "not measured here", Fmt.plain(ib.value()) + " M msg/s",
                ib.citation());
        cmp.row("mini-proxy T = 8, B = 16 on GB200", "not measured here", Fmt.plain(gb.value()) + " M msg/s", gb.citation());
        return Section.of(figPrefix, "mini-proxy message rate — " + f.name(), "proxy.rate", List.of(f), List.of(),
                List.of(cmp.build(), t.build()), List.of(new Section.Figure(fig, "Message rate against B, one line per "
                        + "(T, R) (ours). Hollow squares: the paper's one-worker mini-proxy rates at B = 1 and B = 16 on "
                        + "P-IB (Table 10, cold), references only.")));
    }
}
