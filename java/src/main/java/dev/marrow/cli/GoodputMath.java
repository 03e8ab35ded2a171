// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.api.softnic.WireModel;
import dev.marrow.results.ResultRecord;

import java.util.ArrayList;
import java.util.List;

/** Shared by the gda and proxy goodput commands: size lists, line-rate fractions, the 90 % crossing. */
final class GoodputMath {
    private GoodputMath() {
    }

    /** The fraction of line rate the stars of Fig. 8 of "GPU-Initiated Communication: Dissecting Down to the Bone" mark. */
    static final double CROSSING = 0.90;

    /** Powers of two from lo to hi bytes, both included when they are powers of two. */
    static List<Integer> powersOfTwo(int lo, int hi) {
        List<Integer> l = new ArrayList<>();
        for (long s = Integer.highestOneBit(Math.max(1, lo)); s <= hi; s *= 2) {
            if (s >= lo) {
                l.add((int) s);
            }
        }
        return l;
    }

    /** Parses "8,64,4096" or "8-4194304" (powers of two); every size within 1..max. */
    static List<Integer> sizes(String spec, int max) {
        List<Integer> out = new ArrayList<>();
        try {
            if (spec.contains("-")) {
                String[] p = spec.split("-", 2);
                out = powersOfTwo(Integer.parseInt(p[0].trim()), Integer.parseInt(p[1].trim()));
            } else {
                for (String s : spec.split(",")) {
                    out.add(Integer.parseInt(s.trim()));
                }
            }
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--sizes: \"" + spec + "\" is not a list (8,64,4096) or a power-of-two "
                    + "range (8-4194304)");
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("--sizes: \"" + spec + "\" names no size");
        }
        for (int s : out) {
            if (s < 1 || s > max) {
                throw new IllegalArgumentException("--sizes: " + s + " is outside 1.." + max);
            }
        }
        return out;
    }

    /** Messages per point: enough for `bytes` of payload, within [min, max]. */
    static long messagesFor(int size, long bytes, long min, long max) {
        return Math.max(min, Math.min(max, bytes / size));
    }

    /** Fields every goodput point record carries about the wire. */
    static void tagWire(ResultRecord r, WireModel w, int size, double gbPerS) {
        r.param("wire_model", w.describe());
        if (w.enabled()) {
            double line = w.lineRateGBps();
            r.metric("line_rate_gbps", ResultRecord.round(line, 3))
                    .metric("wire_ceiling_gbps", ResultRecord.round(w.ceilingGBps(size), 3))
                    .metric("fraction_of_line_rate", ResultRecord.round(gbPerS / line, 4));
        }
    }

    /**
     * One summary record: the first size whose goodput reached 90 % of the
     * wire model's line rate, or null with the reason; valid when every
     * size record it summarises is.
     */
    static ResultRecord summary(String experiment, String backend, WireModel w, List<Integer> sizes,
                                List<Double> gbPerS, List<ResultRecord> of) {
        ResultRecord like = of.getFirst();
        ResultRecord s = new ResultRecord(experiment + ".summary", backend, false);
        like.params().forEach((k, v) -> {
            if (!k.equals("size_bytes") && !k.equals("messages")) {
                s.param(k, v);
            }
        });
        s.param("sizes", sizes).param("crossing_fraction", CROSSING);
        Integer first = null;
        if (w.enabled()) {
            double line = w.lineRateGBps();
            for (int i = 0; i < sizes.size(); i++) {
                if (gbPerS.get(i) >= CROSSING * line) {
                    first = sizes.get(i);
                    break;
                }
            }
            s.metric("line_rate_gbps", ResultRecord.round(line, 3));
            s.metric("first_size_at_90pct_line_rate", first);
            if (first == null) {
                s.metric("note", "no size reached 90 % of the modeled line rate");
            }
        } else {
            s.metric("first_size_at_90pct_line_rate", null);
            s.metric("note", "no wire model: line rate undefined; goodput is the copy engine's");
        }
        List<Double> rounded = new ArrayList<>();
        gbPerS.forEach(g -> rounded.add(ResultRecord.round(g, 3)));
        s.metric("goodput_gbps", rounded);
        s.metric("valid", of.stream().allMatch(r -> Boolean.TRUE.equals(r.metric("valid"))));
        return s;
    }
}
