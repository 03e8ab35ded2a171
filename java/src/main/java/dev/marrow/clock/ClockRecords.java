// SPDX-License-Identifier: Apache-2.0
package dev.marrow.clock;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads clock samples out of result records (as parsed from JSON lines) for
 * `clock-sweep --fit-only`. Usable records: clock-sweep cells
 * ("*.clock_sweep.cell": SEQ_p50_us, SEQ_sm_clock_mhz or sm_clock_mhz,
 * locked_clock_mhz) and GPU latency records ("gda.latency": SEQ_p50_ns,
 * SEQ_sm_clock_ghz; "proxy.latency": SEQ_p50_ns, sm_clock_mhz). Every clock
 * used is one measured during the run (clock64 cycles over globaltimer ns);
 * a usable record without one is an error, never a guess.
 */
public final class ClockRecords {
    private static final Pattern P50_US = Pattern.compile("(.+)_p50_us");
    private static final Pattern P50_NS = Pattern.compile("(.+)_p50_ns");
    /** Parameters that tell two configurations apart (a fit never mixes them). */
    static final List<String> CONFIG_KEYS = List.of("target", "nic", "producer", "handoff", "ordering", "payload",
            "size_bytes", "transport");

    private ClockRecords() {
    }

    /** True for the experiments this reader takes samples from. */
    public static boolean usable(Map<String, Object> rec) {
        String e = String.valueOf(rec.get("experiment"));
        return e.endsWith(".clock_sweep.cell") || e.equals("gda.latency") || e.equals("proxy.latency");
    }

    /** The configuration a record belongs to: its family and the parameters that distinguish configurations. */
    public static String group(Map<String, Object> rec) {
        String e = String.valueOf(rec.get("experiment"));
        StringBuilder sb = new StringBuilder(e.substring(0, Math.max(0, e.indexOf('.'))));
        sb.append(' ').append(rec.get("backend"));
        Map<String, Object> cfg = new TreeMap<>();
        for (String k : CONFIG_KEYS) {
            if (rec.containsKey(k)) {
                cfg.put(k, rec.get(k));
            }
        }
        cfg.forEach((k, v) -> sb.append(' ').append(k).append('=').append(v));
        return sb.toString();
    }

    /** The samples of one usable record; `where` (file:record) names it in errors. */
    public static List<ClockSample> samples(Map<String, Object> rec, String where) {
        String e = String.valueOf(rec.get("experiment"));
        boolean cell = e.endsWith(".clock_sweep.cell");
        String group = group(rec);
        int locked = rec.get("locked_clock_mhz") instanceof Number n ? n.intValue() : -1;
        List<ClockSample> out = new ArrayList<>();
        for (Map.Entry<String, Object> m : rec.entrySet()) {
            Matcher mt = (cell ? P50_US : P50_NS).matcher(m.getKey());
            if (!mt.matches() || !(m.getValue() instanceof Number v)) {
                continue;
            }
            String seq = mt.group(1);
            double latencyUs = cell ? v.doubleValue() : v.doubleValue() / 1000.0;
            double mhz = clockMhz(rec, seq);
            if (!(mhz > 0)) {
                throw new IllegalArgumentException(where + ": " + e + " record carries no measured SM clock for "
                        + seq + " (needs sm_clock_mhz or " + seq + "_sm_clock_ghz: a GPU run; CPU-side runs have "
                        + "no SM clock to fit)");
            }
            out.add(new ClockSample(group, seq, locked, mhz, latencyUs));
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException(where + ": " + e + " record has no p50 latency to fit");
        }
        return out;
    }

    private static double clockMhz(Map<String, Object> rec, String seq) {
        if (rec.get(seq + "_sm_clock_mhz") instanceof Number n) {
            return n.doubleValue();
        }
        if (rec.get(seq + "_sm_clock_ghz") instanceof Number n) {
            return n.doubleValue() * 1000.0;
        }
        if (rec.get("sm_clock_mhz") instanceof Number n) {
            return n.doubleValue();
        }
        return Double.NaN;
    }
}
