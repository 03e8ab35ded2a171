// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import java.util.ArrayList;
import java.util.List;

/** The registry of E0..E10, in the order `--experiment all` runs them. */
public final class Experiments {
    private Experiments() {
    }

    public static List<Experiment> all() {
        return List.of(new E0Preflight(), new E1Latency(), new E2E4OneWay(OneWay.LOAD), new E2E4OneWay(OneWay.STORE),
                new E2E4OneWay(OneWay.TMA), new E5Bidirectional(), new E6Mixed(), new E7RingScaling(),
                new E8RingStrides(), new E9AllPairs(), new E10Sharing());
    }

    /** "all", an id ("E4", case-insensitive) or a name ("one-way-tma"); comma-separated lists allowed. */
    public static List<Experiment> select(String spec) {
        List<Experiment> all = all();
        if (spec.equalsIgnoreCase("all")) {
            return all;
        }
        List<Experiment> chosen = new ArrayList<>();
        for (String s : spec.split(",")) {
            String t = s.trim();
            Experiment e = all.stream().filter(x -> x.id().equalsIgnoreCase(t) || x.name().equalsIgnoreCase(t))
                    .findFirst().orElseThrow(() -> new IllegalArgumentException("unknown experiment '" + t
                            + "'; one of: all, " + names()));
            if (!chosen.contains(e)) {
                chosen.add(e);
            }
        }
        return chosen;
    }

    public static String names() {
        List<String> l = new ArrayList<>();
        for (Experiment e : all()) {
            l.add(e.id() + " (" + e.name() + ")");
        }
        return String.join(", ", l);
    }
}
