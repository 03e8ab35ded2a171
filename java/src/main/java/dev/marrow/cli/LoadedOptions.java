// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import picocli.CommandLine.Option;

import java.util.ArrayList;
import java.util.List;

/** Options shared by gda loaded and proxy loaded: background counts, queue choice, pacing, wire. */
final class LoadedOptions {
    @Option(names = "--background", split = ",", defaultValue = "0,1,4,16,64",
            description = "Background streams (CTAs; CPU threads on the cpu target), a list. Default: ${DEFAULT-VALUE}")
    int[] background;

    @Option(names = "--queue", defaultValue = "both", paramLabel = "shared|reserved|both",
            description = "shared: the background uses the probe's queue; reserved: queues of its own. Default: ${DEFAULT-VALUE}")
    String queue;

    @Option(names = "--pace", defaultValue = "0", paramLabel = "RATE",
            description = "Hold the background at this total rate in messages/s (suffix k or M; 0 = unpaced). Default: ${DEFAULT-VALUE}")
    String pace;

    @Option(names = "--wire-gbps", defaultValue = "200", paramLabel = "GBPS",
            description = "Wire model rate in Gb/s (0: no model). Default: ${DEFAULT-VALUE}")
    double wireGbps;

    /** The queue modes asked for, in order (shared first). */
    List<String> queues() {
        return switch (queue) {
            case "shared" -> List.of("shared");
            case "reserved" -> List.of("reserved");
            case "both" -> List.of("shared", "reserved");
            default -> throw new IllegalArgumentException("--queue must be shared, reserved or both, not \"" + queue + "\"");
        };
    }

    long paceMsgsPerS() {
        String p = pace.trim();
        double mult = 1;
        if (p.endsWith("M") || p.endsWith("m")) {
            mult = 1e6;
            p = p.substring(0, p.length() - 1);
        } else if (p.endsWith("k") || p.endsWith("K")) {
            mult = 1e3;
            p = p.substring(0, p.length() - 1);
        }
        double v;
        try {
            v = Double.parseDouble(p) * mult;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--pace: \"" + pace + "\" is not a rate (e.g. 30M, 500k, 0)");
        }
        if (!(v >= 0) || v > 1e10) {
            throw new IllegalArgumentException("--pace must be 0..1e10 messages/s, not " + pace);
        }
        return Math.round(v);
    }

    List<Integer> backgrounds(int max) {
        List<Integer> l = new ArrayList<>();
        for (int b : background) {
            if (b < 0 || b > max) {
                throw new IllegalArgumentException("--background: " + b + " is outside 0.." + max);
            }
            l.add(b);
        }
        return l;
    }
}
