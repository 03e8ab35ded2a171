// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import dev.marrow.results.ResultRecord;

import java.util.ArrayList;
import java.util.List;

/**
 * E2 (load), E3 (store), E4 (TMA put): one SM moves a tile to one other SM.
 * Both directions of a 2-CTA cluster, plus 1->0 inside a 16-CTA cluster with
 * the other 14 ranks idle (does cluster size matter for one stream?).
 */
public final class E2E4OneWay implements Experiment {
    private final OneWay kind;

    public E2E4OneWay(OneWay kind) {
        this.kind = kind;
    }

    public String id() {
        return switch (kind) {
            case LOAD -> "E2";
            case STORE -> "E3";
            case TMA -> "E4";
        };
    }

    public String name() {
        return "one-way-" + kind.label();
    }

    public String title() {
        return "one-way " + kind.label() + ": 1/beta per SM, alpha, RMSE (both directions; also in a 16-CTA cluster)";
    }

    public List<ResultRecord> run(DsmContext ctx) {
        List<ResultRecord> out = new ArrayList<>();
        int[][] cases = {{2, 1, 0}, {2, 0, 1}, {16, 1, 0}};
        for (int[] c : cases) {
            Sweep.Result r = kind.oneWay(ctx, c[0], c[1], c[2]);
            for (SeriesFit f : r.fits().values()) {
                ResultRecord rec = Report.fit(ctx, id(), r.spec(), f, kind.oneWayReference())
                        .param("placement", r.placement());
                if (kind == OneWay.TMA && c[0] == 2) {
                    rec.metric("reference_alpha_cycles", Reference.TMA_ALPHA_2SM.value());
                }
                out.add(rec);
                out.addAll(Report.points(ctx, id(), f));
                ctx.progress(String.format("%s %s cluster %d: %.2f B/cycle (%.1f GB/s), alpha %.0f cycles; reference %.2f B/cycle",
                        id(), f.label(), c[0], f.bytesPerCycle(), f.gbPerS(), f.cycles().alpha(),
                        kind.oneWayReference().value()));
            }
        }
        return out;
    }
}
