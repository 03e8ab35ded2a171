// SPDX-License-Identifier: Apache-2.0
// "The study" below: "How does Hopper distributed shared memory actually move data?"
package dev.marrow.dsm;

import java.util.ArrayList;
import java.util.List;

/**
 * The registry: E0..E10 (the study's experiments, in the order `--experiment
 * all` runs them) and the probes E11..E16 (`--experiment probes`), which
 * test single claims of the study and our two open gaps.
 */
public final class Experiments {
    private Experiments() {
    }

    public static List<Experiment> all() {
        return List.of(new E0Preflight(), new E1Latency(), new E2E4OneWay(OneWay.LOAD), new E2E4OneWay(OneWay.STORE),
                new E2E4OneWay(OneWay.TMA), new E5Bidirectional(), new E6Mixed(), new E7RingScaling(),
                new E8RingStrides(), new E9AllPairs(), new E10Sharing());
    }

    /** E11..E16, in the order `--experiment probes` runs them. */
    public static List<Experiment> probes() {
        return List.of(new E11AddressOffset(), new E12SmemPressure(), new E13Burst(), new E14StoreVariants(),
                new E15RingIsolate(), new E16Model());
    }

    private static List<Experiment> known() {
        List<Experiment> l = new ArrayList<>(all());
        l.addAll(probes());
        return l;
    }

    /** "all", "probes", an id ("E4", case-insensitive) or a name ("one-way-tma"); comma-separated lists allowed. */
    public static List<Experiment> select(String spec) {
        if (spec.equalsIgnoreCase("all")) {
            return all();
        }
        if (spec.equalsIgnoreCase("probes")) {
            return probes();
        }
        List<Experiment> all = known();
        List<Experiment> chosen = new ArrayList<>();
        for (String s : spec.split(",")) {
            String t = s.trim();
            Experiment e = all.stream().filter(x -> x.id().equalsIgnoreCase(t) || x.name().equalsIgnoreCase(t))
                    .findFirst().orElseThrow(() -> new IllegalArgumentException("unknown experiment '" + t
                            + "'; one of: all, probes, " + names()));
            if (!chosen.contains(e)) {
                chosen.add(e);
            }
        }
        return chosen;
    }

    public static String names() {
        List<String> l = new ArrayList<>();
        for (Experiment e : known()) {
            l.add(e.id() + " (" + e.name() + ")");
        }
        return String.join(", ", l);
    }
}
