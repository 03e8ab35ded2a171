// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import dev.marrow.report.PaperReferences.Ref;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static dev.marrow.report.Fmt.num;
import static dev.marrow.report.Fmt.str;

/**
 * {@code gda.latency} (mini-gda issue, put+completion, round trip): one section
 * per file, beside the paper's Table 4 (ordering) and Table 3 (mini-gda) values
 * ("GPU-Initiated Communication: Dissecting Down to the Bone").
 */
final class GdaLatencySections {
    private GdaLatencySections() {
    }

    static Section build(ResultFile f, Path outDir, String figPrefix) {
        PaperReferences p = PaperReferences.get();
        List<Map<String, Object>> rs = f.records();
        boolean sizes = rs.stream().map(r -> r.get("size_bytes")).distinct().count() > 1;
        boolean rtt = rs.stream().anyMatch(r -> r.containsKey("rtt_p50_ns"));
        boolean putc = rs.stream().anyMatch(r -> r.containsKey("putc_p50_ns"));
        Table.Builder t = new Table.Builder("µs; p50/p99 nearest-rank over the run's samples; "
                + "reference columns are the paper's P-IB values (real ConnectX-7), not ours")
                .col("target", "ordering", "payload", "size B", "issue p50", "issue p99");
        if (putc) {
            t.col("put+c p50", "put+c p99");
        }
        if (rtt) {
            t.col("rtt p50", "rtt p99");
        }
        t.col("valid");
        boolean merged = Fmt.merged(rs);
        if (merged) {
            t.col("runs");
        }
        t.ref("paper issue", "paper put+c");
        if (rtt) {
            t.ref("paper rtt");
        }
        t.ref("paper source");
        Charts.Bars bars = new Charts.Bars(f.name() + ": p50 per ordering and payload" + Provenance.tag(rs), "ordering / payload", "µs");
        Charts.Xy xy = new Charts.Xy(f.name() + ": p50 vs inline size" + Provenance.tag(rs), "payload bytes", "µs");
        List<double[]> issuePts = new ArrayList<>();
        List<double[]> putcPts = new ArrayList<>();
        for (Map<String, Object> r : rs) {
            boolean valid = !Boolean.FALSE.equals(r.get("valid"));
            Ref ri = issueRef(p, r);
            Ref rp = putcRef(p, r);
            Ref rr = rttRef(p, r);
            List<String> row = new ArrayList<>(List.of(str(r, "target"), str(r, "ordering"), str(r, "payload"),
                    str(r, "size_bytes"), v(r, valid, "issue_p50_ns"), v(r, valid, "issue_p99_ns")));
            if (putc) {
                row.addAll(List.of(v(r, valid, "putc_p50_ns"), v(r, valid, "putc_p99_ns")));
            }
            if (rtt) {
                row.addAll(List.of(v(r, valid, "rtt_p50_ns"), v(r, valid, "rtt_p99_ns")));
            }
            row.add(valid ? "yes" : "**no**" + (r.get("error") != null ? ": " + str(r, "error") : ""));
            if (merged) {
                row.add(String.valueOf(Fmt.runs(r)));
            }
            row.add(ri == null ? "" : Fmt.fixed(ri.value(), 2));
            row.add(rp == null ? "" : Fmt.fixed(rp.value(), 2));
            if (rtt) {
                row.add(rr == null ? "" : Fmt.fixed(rr.value(), 2));
            }
            row.add(ri == null && rp == null ? "" : (ri != null ? ri : rp).citation());
            t.row(row);
            String cat = str(r, "ordering") + " / " + str(r, "payload");
            if (valid) {
                if (sizes) {
                    double x = num(r, "size_bytes");
                    // a put+completion-only sweep (Fig. 11's single-op runs) has no issue column
                    if (r.get("issue_p50_ns") instanceof Number n) {
                        issuePts.add(new double[] {x, n.doubleValue() / 1000});
                    }
                    if (putc && r.get("putc_p50_ns") instanceof Number n) {
                        putcPts.add(new double[] {x, n.doubleValue() / 1000});
                    }
                } else {
                    for (String m : List.of("issue", "putc", "rtt")) {
                        if (r.get(m + "_p50_ns") instanceof Number n) {
                            bars.ours(label(m) + " p50 (ours)", cat, n.doubleValue() / 1000);
                        }
                    }
                }
            }
            if (!sizes) {
                if (ri != null) {
                    bars.reference("paper issue (reference)", cat, ri.value());
                }
                if (rp != null && putc) {
                    bars.reference("paper put+c (reference)", cat, rp.value());
                }
                if (rr != null && rtt) {
                    bars.reference("paper rtt (reference)", cat, rr.value());
                }
            }
        }
        String fig = figPrefix + ".png";
        String caption;
        if (sizes) {
            xy.ours("issue p50 (ours)", xs(issuePts), ys(issuePts));
            if (!putcPts.isEmpty()) {
                xy.ours("put+c p50 (ours)", xs(putcPts), ys(putcPts));
            }
            Ref i8 = p.ref("t3.pib.minigda.inline.issue");
            Ref p8 = p.ref("t3.pib.minigda.inline.putc");
            xy.reference("paper P-IB 8 B inline, Table 3 (reference)", new double[] {8, 8},
                    new double[] {i8.value(), p8.value()});
            xy.write(outDir.resolve(fig));
            caption = "p50 against inline payload size (filled marks: ours). Hollow squares: the paper's 8 B inline "
                    + "issue and put+completion on P-IB (Table 3), references only; the paper's Figure 3a reports about "
                    + Fmt.plain(p.ref("s41.inline.issue_per_16b").value()) + " µs more issue per 16 B.";
        } else {
            bars.write(outDir.resolve(fig));
            caption = "p50 per ordering and payload (bars: ours; invalid points have no bar). Hollow squares: the "
                    + "paper's P-IB values (Table 4 per ordering, Table 3 round trip), references only.";
        }
        return Section.of(figPrefix, "mini-gda latency — " + f.name(), "gda.latency", List.of(f),
                Fmt.mergedNote(rs), List.of(t.build()), List.of(new Section.Figure(fig, caption)));
    }

    private static String label(String m) {
        return m.equals("putc") ? "put+c" : m;
    }

    private static String v(Map<String, Object> r, boolean valid, String k) {
        return valid ? Fmt.usRanged(r, k) : "—";
    }

    /** Table 4 has one row per ordering for the inline 8 B put; Table 3 adds the non-inline gpu-fence row. */
    private static Ref issueRef(PaperReferences p, Map<String, Object> r) {
        if (!"8".equals(str(r, "size_bytes"))) {
            return null;
        }
        if ("inline".equals(r.get("payload"))) {
            return p.find("t4.pib." + str(r, "ordering") + ".issue");
        }
        return "gpu-fence".equals(r.get("ordering")) ? p.find("t3.pib.minigda.pointer.issue") : null;
    }

    private static Ref putcRef(PaperReferences p, Map<String, Object> r) {
        if (!"8".equals(str(r, "size_bytes"))) {
            return null;
        }
        if ("inline".equals(r.get("payload"))) {
            return p.find("t4.pib." + str(r, "ordering") + ".putc");
        }
        return "gpu-fence".equals(r.get("ordering")) ? p.find("t3.pib.minigda.pointer.putc") : null;
    }

    private static Ref rttRef(PaperReferences p, Map<String, Object> r) {
        return "gpu-fence".equals(r.get("ordering")) && "inline".equals(r.get("payload"))
                && "8".equals(str(r, "size_bytes")) ? p.find("t3.pib.minigda.inline.rtt") : null;
    }

    static double[] xs(List<double[]> pts) {
        return pts.stream().mapToDouble(a -> a[0]).toArray();
    }

    static double[] ys(List<double[]> pts) {
        return pts.stream().mapToDouble(a -> a[1]).toArray();
    }
}
