// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import dev.marrow.results.ResultRecord;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * E10: does an SM own a fixed share of DSM bandwidth, or do the SMs of a
 * group draw from a shared pool? k = 1..8 concurrent one-way streams (TMA
 * puts, then loads: the receiver reads the sender's tile, so data flows the
 * same way) to distinct receivers, with the senders (a) packed: the k lowest %smid
 * of the cluster (TPC pairs, then neighbours), or (b) spread: every other
 * SM in %smid order. Receivers are taken from the other end of the order.
 * A fixed per-SM cap keeps per-sender 1/beta flat in k for both layouts; a
 * shared pool makes the packed layout fall once k exceeds the pool.
 */
public final class E10Sharing implements Experiment {
    static final int N = 16;

    public String id() {
        return "E10";
    }

    public String name() {
        return "sharing";
    }

    public String title() {
        return "k = 1..8 concurrent TMA / load streams, senders packed vs spread by %smid: per-sender 1/beta vs k";
    }

    public List<ResultRecord> run(DsmContext ctx) {
        List<ResultRecord> out = new ArrayList<>();
        Launch probe = ctx.collect(Spec.idle("placement probe", N), 512, 1).accepted().getFirst();
        Integer[] bySmid = new Integer[N];
        for (int r = 0; r < N; r++) {
            bySmid[r] = r;
        }
        Arrays.sort(bySmid, Comparator.comparingInt(r -> probe.rank(r).smidStart()));
        for (OneWay kind : List.of(OneWay.TMA, OneWay.LOAD)) {
            out.addAll(sweepKind(ctx, kind, probe, bySmid));
        }
        return out;
    }

    private List<ResultRecord> sweepKind(DsmContext ctx, OneWay kind, Launch probe, Integer[] bySmid) {
        List<ResultRecord> out = new ArrayList<>();
        double[][] perSender = new double[2][9];
        for (int layout = 0; layout < 2; layout++) {
            String lname = layout == 0 ? "packed" : "spread";
            for (int k = 1; k <= 8; k++) {
                int[] senders = new int[k];
                int[] receivers = new int[k];
                for (int i = 0; i < k; i++) {
                    senders[i] = bySmid[layout == 0 ? i : 2 * i];
                    receivers[i] = bySmid[layout == 0 ? N - 1 - i : N - 1 - 2 * i];
                }
                Spec spec = Spec.idle(kind.label() + " " + lname + " k=" + k, N);
                List<Stream> streams = new ArrayList<>();
                for (int i = 0; i < k; i++) {
                    spec = kind.add(spec, senders[i], receivers[i]);
                    streams.add(kind.stream(senders[i], receivers[i], kind.series(senders[i], receivers[i])));
                }
                Sweep.Result res = Sweep.run(ctx, spec, streams);
                double mean = 0;
                double min = Double.MAX_VALUE;
                for (SeriesFit f : res.fits().values()) {
                    mean += f.bytesPerCycle() / k;
                    min = Math.min(min, f.bytesPerCycle());
                }
                perSender[layout][k] = mean;
                ResultRecord r = Report.record(ctx, id(), "summary", spec.name())
                        .param("kind", kind.label()).param("layout", lname).param("k", k)
                        .param("senders_smid", smids(probe, senders))
                        .param("receivers_smid", smids(probe, receivers))
                        .param("placement", res.placement())
                        .metric("per_sender_b_per_cycle", Report.round(mean, 3))
                        .metric("min_sender_b_per_cycle", Report.round(min, 3))
                        .metric("aggregate_b_per_cycle", Report.round(mean * k, 3));
                Report.reference(r, "per_sender_b_per_cycle", mean,
                        kind == OneWay.TMA ? Reference.MODEL_PER_SM : Reference.LOAD);
                out.add(r);
                ctx.progress(String.format("E10 %s %s k=%d: %.2f B/cycle per sender, aggregate %.1f", kind.label(), lname, k, mean,
                        mean * k));
            }
        }
        for (int layout = 0; layout < 2; layout++) {
            // TMA rows keep their first names ("packed k=8 vs k=1").
            String prefix = kind == OneWay.TMA ? "" : kind.label() + " ";
            out.add(Report.record(ctx, id(), "summary", prefix + (layout == 0 ? "packed" : "spread") + " k=8 vs k=1")
                    .param("kind", kind.label())
                    .param("layout", layout == 0 ? "packed" : "spread")
                    .metric("per_sender_k8_over_k1", Report.round(perSender[layout][8] / perSender[layout][1], 4))
                    .metric("interpretation_hint", "~1.0: fixed per-SM share or cap; < 1 in packed only: shared pool"));
        }
        return out;
    }

    private static String smids(Launch probe, int[] ranks) {
        StringBuilder sb = new StringBuilder();
        for (int r : ranks) {
            sb.append(sb.isEmpty() ? "" : " ").append(probe.rank(r).smidStart());
        }
        return sb.toString();
    }
}
