// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import dev.marrow.report.PaperReferences.Ref;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

import static dev.marrow.report.Fmt.num;
import static dev.marrow.report.Fmt.str;

/**
 * {@code gda.rate} and {@code gda.scope} (mini-gda message rate and completion
 * scope), read together from all their files, beside the paper's ("GPU-Initiated
 * Communication: Dissecting Down to the Bone") Table 5, Fig. 3b, Table 7 and its
 * host-rung doorbell rates. Paper values are reference marks, never ours.
 */
final class RateSections {
    private RateSections() {
    }

    static boolean handles(String experiment) {
        return experiment.equals("gda.rate") || experiment.equals("gda.scope");
    }

    /** The raw files of docs/results/h200-gda-rate.md, by path ending. */
    static final List<String> FILES = List.of(
            "h200-gda-rate/16x16.jsonl",
            "h200-gda-rate/1sm.1.jsonl",
            "h200-gda-rate/1sm.jsonl",
            "h200-gda-rate/1t-nqp.jsonl",
            "h200-gda-rate/64x64.jsonl",
            "h200-gda-rate/batching.jsonl",
            "h200-gda-rate/fig3b.1.jsonl",
            "h200-gda-rate/fig3b.jsonl",
            "h200-gda-rate/hostdb.1.jsonl",
            "h200-gda-rate/hostdb.2.jsonl",
            "h200-gda-rate/hostdb.jsonl",
            "h200-gda-rate/oneqp.1.jsonl",
            "h200-gda-rate/oneqp.2.jsonl",
            "h200-gda-rate/oneqp.3.jsonl",
            "h200-gda-rate/oneqp.4.jsonl",
            "h200-gda-rate/oneqp.jsonl",
            "h200-gda-rate/scale.1.jsonl",
            "h200-gda-rate/scale.2.jsonl",
            "h200-gda-rate/scale.3.jsonl",
            "h200-gda-rate/scale.4.jsonl",
            "h200-gda-rate/scale.5.jsonl",
            "h200-gda-rate/scale.6.jsonl",
            "h200-gda-rate/scale.7.jsonl",
            "h200-gda-rate/scale.jsonl",
            "h200-gda-rate/scope.jsonl");

    /** The doc's markdown tables, from its raw files. */
    static Map<String, String> docTables(DocTables.Inputs in) {
        List<ResultFile> files = FILES.stream().map(in::file).toList();
        Map<String, String> m = new LinkedHashMap<>();
        m.put("gda-rate", rateTable(files).markdown());
        m.put("gda-scope", scopeTable(files).markdown());
        List<String> limit = in.under(LIMIT);
        if (!limit.isEmpty()) {
            List<ResultFile> lf = limit.stream().map(n -> in.file(LIMIT + "/" + n)).toList();
            m.put("gda-rate.limit", limitTable(lf).markdown());
            m.put("gda-rate.stores", storeTable(lf).markdown());
        }
        return m;
    }

    /** The posters' stores alone (native/bench/sysmem_store_rate.cu): one row per record. */
    static Table storeTable(List<ResultFile> files) {
        Table.Builder t = new Table.Builder("SM stores into memory, no NIC (real GPU; sysmem_store_rate)")
                .col("file", "memory", "layout", "blocks", "threads", "4-byte words / msg", "store bytes", "fence every",
                        "CPU readers", "M msg/s", "G stores/s", "GB/s");
        for (Rec x : recs(files, "gpu.sysmem_store_rate")) {
            Map<String, Object> r = x.r();
            t.row(x.file(), str(r, "target"), str(r, "layout").isEmpty() ? "private" : str(r, "layout"), str(r, "blocks"),
                    str(r, "threads"), str(r, "words_per_msg"), str(r, "store_width_bytes"), str(r, "fence_every"),
                    r.containsKey("cpu_readers") ? str(r, "cpu_readers") : "0", Fmt.fixed(num(r, "msgs_per_s_m"), 1), Fmt.fixed(num(r, "stores_per_s_g"), 3),
                    Fmt.fixed(num(r, "gbytes_per_s"), 2));
        }
        return t.build();
    }

    /** The runs that look for where the rate stops growing (phase scope10), one folder beside the page. */
    static final String LIMIT = "h200-gda-rate/limit";

    /**
     * Where the rate stops growing: per record the poster shape, the engine threads and the
     * per-poster cost, so that a plateau that does not move with engine threads reads as poster-side.
     */
    static Table limitTable(List<ResultFile> files) {
        Table.Builder t = new Table.Builder("gda.rate at the largest shapes (EMULATED NIC: software NIC, CPU engine "
                + "threads; hardware=false, gpu_hardware=true)")
                .col("file", "blocks", "threads", "QPs", "publication", "B", "payload", "bytes", "engine threads",
                        "M msg/s", "ns/msg/thread", "limited_by", "engine busy", "SQ-full share", "publish share", "valid");
        for (Rec x : recs(files, "gda.rate")) {
            Map<String, Object> r = x.r();
            t.row(x.file(), str(r, "blocks"), str(r, "threads"), str(r, "qps"), str(r, "publication"), str(r, "batch"),
                    str(r, "payload"), str(r, "size_bytes"), str(r, "engine_threads"), Fmt.fixed(num(r, "rate_mmsg_s"), 3),
                    Fmt.fixed(num(r, "ns_per_msg_per_thread"), 1), str(r, "limited_by"),
                    Fmt.fixed(num(r, "engine_busy_ratio"), 4), Fmt.fixed(num(r, "sq_full_share"), 3),
                    Fmt.fixed(num(r, "publish_share"), 3), str(r, "valid"));
        }
        return t.build();
    }

    private record Rec(String file, Map<String, Object> r) {
    }

    private static List<Rec> recs(List<ResultFile> files, String experiment) {
        List<Rec> out = new ArrayList<>();
        for (ResultFile f : files) {
            for (Map<String, Object> r : f.records()) {
                if (experiment.equals(r.get("experiment"))) {
                    out.add(new Rec(f.name(), r));
                }
            }
        }
        return out;
    }

    private static int i(Map<String, Object> r, String k) {
        return (int) num(r, k);
    }

    /** One thread per block, one QP per block, 8-byte inline, device doorbells: the scaling family. */
    private static boolean perBlockQp(Map<String, Object> r) {
        return i(r, "threads") == 1 && i(r, "blocks") == i(r, "qps") && "inline".equals(str(r, "payload"))
                && i(r, "size_bytes") == 8 && "device".equals(str(r, "doorbell")) && "slot".equals(str(r, "publication"));
    }

    /** Table 5 row of the paper that a record reproduces, or null. */
    static Ref table5(Map<String, Object> r) {
        PaperReferences p = PaperReferences.get();
        int b = i(r, "blocks");
        int t = i(r, "threads");
        int q = i(r, "qps");
        int batch = i(r, "batch");
        String pub = str(r, "publication");
        if (!"inline".equals(str(r, "payload")) || i(r, "size_bytes") != 8 || !"device".equals(str(r, "doorbell"))) {
            return null;
        }
        if (b == 1 && t == 1 && q == 1) {
            return batch == 1 ? p.ref("t5.pib.minigda.1t1q_b1") : batch == 16 ? p.ref("t5.pib.minigda.1t1q_b16") : null;
        }
        if (b == 1 && t == 1 && q > 1 && batch == 1) {
            return p.ref("t5.pib.minigda.1t_nqp_b1");
        }
        if (b == 1 && q == 1) {
            if (pub.equals("lock") && t == 32) {
                return p.ref("t5.pib.minigda.oneqp_lock32");
            }
            if (pub.equals("slot") && t == 256) {
                return p.ref("t5.pib.minigda.oneqp_slot256");
            }
            if (pub.equals("warp")) {
                return t == 32 ? p.ref("t5.pib.minigda.oneqp_warp32") : t == 256 ? p.ref("t5.pib.minigda.oneqp_warp256") : null;
            }
            return null;
        }
        if (b == 1 && t == q && batch == 16) {
            return q == 32 ? p.ref("t5.pib.minigda.32q1sm") : q == 64 ? p.ref("t5.pib.minigda.64q1sm") : null;
        }
        if (t == 1 && b == q && q == 16) {
            return batch == 1 ? p.ref("t5.pib.minigda.16q16sm_b1") : batch == 16 ? p.ref("t5.pib.minigda.16q16sm_b16") : null;
        }
        if (t == 1 && b == q && q == 64 && batch == 16) {
            return p.ref("t5.pib.minigda.64q64sm_b16");
        }
        return null;
    }

    static List<Section> build(List<ResultFile> files, Path outDir) {
        List<Section> out = new ArrayList<>();
        List<ResultFile> rateFiles = files.stream().filter(f -> f.records().stream()
                .anyMatch(r -> "gda.rate".equals(r.get("experiment")))).toList();
        List<ResultFile> scopeFiles = files.stream().filter(f -> f.records().stream()
                .anyMatch(r -> "gda.scope".equals(r.get("experiment")))).toList();
        if (!rateFiles.isEmpty()) {
            out.add(rate(rateFiles, outDir));
        }
        if (!scopeFiles.isEmpty()) {
            out.add(scope(scopeFiles, outDir));
        }
        return out;
    }

    /** Every gda.rate record, with the Table 5 row it reproduces where there is one. */
    static Table rateTable(List<ResultFile> files) {
        Table.Builder t = new Table.Builder("gda.rate, every record (EMULATED NIC: software NIC, CPU engine threads; "
                + "hardware=false, gpu_hardware=true). M msg/s = median of the repeats [min, max]; shares of the posters' "
                + "summed timed spans. Reference columns: the paper's Table 5 on P-IB (real ConnectX-7)")
                .col("file", "blocks", "threads", "QPs", "qp map", "publication", "B", "payload", "bytes", "doorbell",
                        "M msg/s", "[min, max]", "limited_by", "engine busy", "SQ-full share", "SQ-full waits",
                        "publish share", "valid")
                .ref("paper M msg/s", "paper source");
        for (Rec x : recs(files, "gda.rate")) {
            Map<String, Object> r = x.r();
            Ref ref = table5(r);
            t.row(x.file(), str(r, "blocks"), str(r, "threads"), str(r, "qps"), str(r, "qp_map"), str(r, "publication"),
                    str(r, "batch"), str(r, "payload"), str(r, "size_bytes"), str(r, "doorbell"),
                    Fmt.fixed(num(r, "rate_mmsg_s"), 3),
                    "[" + Fmt.fixed(num(r, "rate_min_mmsg_s"), 3) + ", " + Fmt.fixed(num(r, "rate_max_mmsg_s"), 3) + "]",
                    str(r, "limited_by"), Fmt.fixed(num(r, "engine_busy_ratio"), 4), Fmt.fixed(num(r, "sq_full_share"), 3),
                    str(r, "sq_full_waits"), Fmt.fixed(num(r, "publish_share"), 3), str(r, "valid"),
                    ref == null ? "" : Fmt.plain(ref.value()), ref == null ? "" : ref.citation());
        }
        return t.build();
    }

    /** gda.scope put+completion per scope and QP count, with the paper's P-RoCE all-QP row (Table 7). */
    static Table scopeTable(List<ResultFile> files) {
        Map<String, Map<Integer, Map<String, Object>>> by = byScope(files, "device");
        Table.Builder t = new Table.Builder("gda.scope put+completion, µs, nearest-rank p50 / p99 (EMULATED NIC: "
                + "software NIC, one CPU engine thread; hardware=false, gpu_hardware=true). Reference column: the paper's "
                + "NVSHMEM 3.7.2 all-QP quiet p50 on P-RoCE (Table 7), a different NIC and library")
                .col("QPs");
        by.keySet().forEach(s -> t.col(s + " p50", s + " p99"));
        t.ref("paper all-QP p50 (P-RoCE, Table 7)");
        TreeMap<Integer, Boolean> qs = new TreeMap<>();
        by.values().forEach(m -> m.keySet().forEach(q -> qs.put(q, true)));
        for (int q : qs.keySet()) {
            List<String> cells = new ArrayList<>(List.of(String.valueOf(q)));
            for (Map<Integer, Map<String, Object>> m : by.values()) {
                Map<String, Object> r = m.get(q);
                cells.add(r == null ? "" : Fmt.us(r.get("putc_p50_ns")));
                cells.add(r == null ? "" : Fmt.us(r.get("putc_p99_ns")));
            }
            Ref ref = PaperReferences.get().find("t7.proce.allqp.q" + q);
            cells.add(ref == null ? "" : Fmt.fixed(ref.value(), 2));
            t.row(cells);
        }
        return t.build();
    }

    private static Map<String, Map<Integer, Map<String, Object>>> byScope(List<ResultFile> files, String doorbell) {
        Map<String, Map<Integer, Map<String, Object>>> by = new LinkedHashMap<>();
        for (Rec x : recs(files, "gda.scope")) {
            if (doorbell.equals(str(x.r(), "doorbell")) && x.file().startsWith("scope")) {
                by.computeIfAbsent(str(x.r(), "scope"), k -> new TreeMap<>()).put(i(x.r(), "qps"), x.r());
            }
        }
        return by;
    }

    private static double[][] points(List<Rec> rs, Predicate<Map<String, Object>> keep, String xKey, String yKey) {
        List<double[]> pts = new ArrayList<>();
        for (Rec x : rs) {
            if (keep.test(x.r())) {
                pts.add(new double[] {num(x.r(), xKey), num(x.r(), yKey)});
            }
        }
        pts.sort(Comparator.comparingDouble(a -> a[0]));
        return new double[][] {GdaLatencySections.xs(pts), GdaLatencySections.ys(pts)};
    }

    private static Section rate(List<ResultFile> files, Path outDir) {
        PaperReferences p = PaperReferences.get();
        List<Rec> rs = recs(files, "gda.rate");
        String tag = Provenance.tag(rs.stream().map(Rec::r).toList());
        List<Section.Figure> figs = new ArrayList<>();

        double[][] batch = points(rs, r -> i(r, "blocks") == 1 && i(r, "threads") == 1 && i(r, "qps") == 1
                && perBlockQp(r), "batch", "rate_mmsg_s");
        Charts.Xy fb = new Charts.Xy("mini-gda rate vs WQEs per doorbell, 1 thread, 1 QP" + tag, "B (WQEs per doorbell, log2)",
                "M msg/s").logX();
        fb.ours("1 thread, 1 QP (ours, emulated NIC)", batch[0], batch[1]);
        fb.reference("paper P-IB, Table 5 (reference)", new double[] {1, 16},
                new double[] {p.ref("t5.pib.minigda.1t1q_b1").value(), p.ref("t5.pib.minigda.1t1q_b16").value()});
        fb.write(outDir.resolve("rate-vs-batch.png"));
        figs.add(new Section.Figure("rate-vs-batch.png", "Rate against B, 1 thread, 1 QP (ours). Hollow squares: the "
                + "paper's Table 5 on P-IB, references only."));

        double[][] scale = points(rs, r -> i(r, "batch") == 16 && perBlockQp(r), "qps", "rate_mmsg_s");
        Charts.Xy fs = new Charts.Xy("mini-gda rate vs QPs = SMs (1 thread and 1 QP per block, B = 16)" + tag,
                "QPs = blocks (log2)", "M msg/s").logX();
        fs.ours("N QPs on N blocks (ours, emulated NIC)", scale[0], scale[1]);
        fs.reference("paper P-IB, Table 5 (reference)", new double[] {1, 16, 64},
                new double[] {p.ref("t5.pib.minigda.1t1q_b16").value(), p.ref("t5.pib.minigda.16q16sm_b16").value(),
                    p.ref("t5.pib.minigda.64q64sm_b16").value()});
        fs.write(outDir.resolve("rate-vs-qps.png"));
        figs.add(new Section.Figure("rate-vs-qps.png", "Rate against QPs, one QP and one thread per block (ours; "
                + "duplicate points are separate runs of one configuration). Hollow squares: the paper's Table 5 on "
                + "P-IB (1x1, 16x16, 64x64), references only."));

        Charts.Xy f3 = new Charts.Xy("mini-gda rate vs payload size, 16 QPs, B = 16 (Fig. 3b setup)" + tag,
                "payload bytes (log2)", "M msg/s").logX();
        for (String payload : List.of("inline", "pointer")) {
            double[][] pts = points(rs, r -> i(r, "blocks") == 16 && i(r, "qps") == 16 && i(r, "threads") == 1
                    && i(r, "batch") == 16 && payload.equals(str(r, "payload")) && "device".equals(str(r, "doorbell")), "size_bytes", "rate_mmsg_s");
            f3.ours(payload + " (ours, emulated NIC)", pts[0], pts[1]);
        }
        f3.reference("paper P-IB, 8 B inline, Table 5 (reference)", new double[] {8},
                new double[] {p.ref("t5.pib.minigda.16q16sm_b16").value()});
        f3.write(outDir.resolve("rate-vs-size.png"));
        figs.add(new Section.Figure("rate-vs-size.png", "Rate against payload size at 16 QPs / 16 blocks, B = 16, "
                + "inline and pointer (ours; the 8 B inline point appears once per run of that configuration). Hollow "
                + "square: the paper's 8 B inline rate at this setup (Table 5), reference only; its Fig. 3b curve has "
                + "no tabulated values."));

        return Section.of("gda-rate", "mini-gda message rate (gda.rate)", "gda.rate", files,
                List.of("EMULATED NIC: software NIC with CPU engine threads; hardware=false, gpu_hardware=true."),
                List.of(rateTable(files)), figs);
    }

    private static Section scope(List<ResultFile> files, Path outDir) {
        Map<String, Map<Integer, Map<String, Object>>> by = byScope(files, "device");
        String tag = Provenance.tag(recs(files, "gda.scope").stream().map(Rec::r).toList());
        Charts.Xy fx = new Charts.Xy("mini-gda put+completion p50 vs configured QPs, per completion scope" + tag,
                "QPs (log2)", "µs").logX();
        by.forEach((s, m) -> {
            List<double[]> pts = new ArrayList<>();
            m.forEach((q, r) -> pts.add(new double[] {q, num(r, "putc_p50_ns") / 1000}));
            fx.ours(s + " (ours, emulated NIC)", GdaLatencySections.xs(pts), GdaLatencySections.ys(pts));
        });
        List<double[]> ref = new ArrayList<>();
        for (int q : List.of(1, 2, 4, 8, 16, 32)) {
            ref.add(new double[] {q, PaperReferences.get().ref("t7.proce.allqp.q" + q).value()});
        }
        fx.reference("paper NVSHMEM all-QP, P-RoCE, Table 7 (reference)", GdaLatencySections.xs(ref),
                GdaLatencySections.ys(ref));
        fx.write(outDir.resolve("scope-vs-qps.png"));
        List<Section.Figure> figs = new ArrayList<>(List.of(new Section.Figure("scope-vs-qps.png", "put+completion p50 "
                + "against configured QPs, one line per scope (ours, the first single pass). Hollow squares: the paper's "
                + "NVSHMEM 3.7.2 all-QP quiet on P-RoCE (Table 7), a different NIC and library, references only.")));
        // The three-run medians after used-QP quiet became a walk over the used bitmap (phase scope10).
        Map<String, Map<Integer, Map<String, Object>>> latest = new LinkedHashMap<>();
        for (Rec x : recs(files, "gda.scope")) {
            if (x.file().equals(SCOPE_LATEST)) {
                latest.computeIfAbsent(str(x.r(), "scope"), k -> new TreeMap<>()).put(i(x.r(), "qps"), x.r());
            }
        }
        if (!latest.isEmpty()) {
            Charts.Xy fl = new Charts.Xy("mini-gda put+completion p50 vs configured QPs, per scope, median of 3 runs"
                    + tag, "QPs (log2)", "µs").logX();
            latest.forEach((sc, m) -> {
                List<double[]> pts = new ArrayList<>();
                m.forEach((q, r) -> pts.add(new double[] {q, num(r, "putc_p50_ns") / 1000}));
                fl.ours(sc + " (ours, emulated NIC)", GdaLatencySections.xs(pts), GdaLatencySections.ys(pts));
            });
            fl.reference("paper NVSHMEM all-QP, P-RoCE, Table 7 (reference)", GdaLatencySections.xs(ref),
                    GdaLatencySections.ys(ref));
            fl.write(outDir.resolve("scope-vs-qps-3runs.png"));
            figs.add(new Section.Figure("scope-vs-qps-3runs.png", "The same, median of three process runs, after "
                    + "used-QP quiet became a walk over the used-QP bitmap (" + SCOPE_LATEST + "). Hollow squares as above."));
        }
        return Section.of("gda-scope", "mini-gda completion scope (gda.scope)", "gda.scope", files,
                List.of("EMULATED NIC: software NIC with one CPU engine thread; hardware=false, gpu_hardware=true."),
                List.of(scopeTable(files)), figs);
    }

    /** The latest completion-scope file: three-run medians of phase scope10. */
    static final String SCOPE_LATEST = "gda-rate-scope2.jsonl";
}
