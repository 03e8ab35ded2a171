// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.results.Compare;
import dev.marrow.results.JsonLinesReader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/** Two result files, point by point: what got better, worse or stayed (dev.marrow.results.Compare). */
@Command(name = "compare", mixinStandardHelpOptions = true,
        description = {"Compares two result files of one command (JSON lines as --format json writes them, or "
                + "merge-runs output) point by point and prints, per metric, A, B, the change and a verdict: "
                + "better, worse or same by the metric's direction (latencies and times lower, rates and "
                + "bandwidths higher). Points match by experiment, backend and their size/shape parameters (size, "
                + "blocks, threads, QPs, producers, ...), in order where those repeat, as merge-runs matches runs.",
                "Exit 1 when a metric got worse by more than the threshold (or a valid point became invalid), "
                        + "0 otherwise, 2 on a usage error or files that share no point."})
public final class CompareCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "A", description = "The baseline result file")
    Path a;

    @Parameters(index = "1", paramLabel = "B", description = "The result file to judge against A")
    Path b;

    @Option(names = "--threshold", defaultValue = "5%", paramLabel = "PCT", description = "A change within this "
            + "share of A's value is 'same'. Default: ${DEFAULT-VALUE}")
    String threshold;

    @Option(names = "--changes-only", description = "Print only the metrics that got better or worse")
    boolean changesOnly;

    @Override
    public Integer call() {
        double pct = Compare.parseThreshold(threshold);
        if (a.toString().equals("-") && b.toString().equals("-")) {
            throw new IllegalArgumentException("- (stdin) given for both A and B");
        }
        Compare.Result r;
        try (JsonLinesReader ra = JsonLinesReader.open(a, true); JsonLinesReader rb = JsonLinesReader.open(b, true)) {
            r = Compare.compare(ra, rb, pct);
        }
        PrintWriter out = spec.commandLine().getOut();
        print(r, changesOnly, out);
        out.flush();
        List<Compare.Row> worse = r.regressions();
        if (worse.isEmpty()) {
            return ExitCodes.OK;
        }
        List<String> named = new ArrayList<>();
        for (Compare.Row w : worse.subList(0, Math.min(3, worse.size()))) {
            named.add(w.point() + " " + w.metric() + " " + change(w));
        }
        PrintWriter err = spec.commandLine().getErr();
        err.println("marrow: compare: " + worse.size() + " metric(s) worse by more than " + fmt(pct) + "%: "
                + String.join("; ", named) + (worse.size() > 3 ? "; ..." : ""));
        err.flush();
        return ExitCodes.FAILED;
    }

    static void print(Compare.Result r, boolean changesOnly, PrintWriter out) {
        String[] head = {"point", "metric", "A", "B", "change", "verdict"};
        List<String[]> cells = new ArrayList<>();
        for (Compare.Row row : r.rows()) {
            if (changesOnly && row.verdict() == Compare.Verdict.SAME) {
                continue;
            }
            cells.add(new String[] {row.point(), row.metric(), String.valueOf(row.a()), String.valueOf(row.b()),
                change(row), row.verdict().label()});
        }
        int[] w = new int[head.length];
        for (int i = 0; i < head.length; i++) {
            w[i] = head[i].length();
            for (String[] c : cells) {
                w[i] = Math.max(w[i], c[i].length());
            }
        }
        line(out, head, w);
        for (String[] c : cells) {
            line(out, c, w);
        }
        out.printf("%d point(s) matched, %d only in A, %d only in B; %d better, %d worse, %d same (threshold %s%%)%n",
                r.matched(), r.onlyA(), r.onlyB(), r.count(Compare.Verdict.BETTER), r.count(Compare.Verdict.WORSE),
                r.count(Compare.Verdict.SAME), fmt(r.thresholdPct()));
    }

    private static void line(PrintWriter out, String[] c, int[] w) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < c.length; i++) {
            String s = c[i];
            boolean right = i >= 2 && i <= 4;
            sb.append(right ? " ".repeat(w[i] - s.length()) + s : s + " ".repeat(Math.max(0, w[i] - s.length())));
            sb.append(i + 1 < c.length ? "  " : "");
        }
        out.println(sb.toString().stripTrailing());
    }

    static String change(Compare.Row r) {
        if (r.metric().equals("valid")) {
            return "invalid";
        }
        return Double.isNaN(r.changePct()) ? "from 0" : String.format(Locale.ROOT, "%+.1f%%", r.changePct());
    }

    private static String fmt(double pct) {
        return pct == Math.rint(pct) ? String.valueOf((long) pct) : String.valueOf(pct);
    }
}
