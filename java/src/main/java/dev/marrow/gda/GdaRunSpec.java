// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import java.util.Objects;

/**
 * One measurement: experiment, ordering variant, payload form and size,
 * timed iterations, untimed warm-up iterations, and the bound of every wait.
 * The limits are the runners' (marrow_gda_config_check): a spec they would
 * refuse is refused here with their message, as an IllegalArgumentException.
 */
public record GdaRunSpec(Experiment experiment, Ordering ordering, Payload payload, int size, int iters, int warmup,
                         long timeoutNs) {
    public GdaRunSpec {
        Objects.requireNonNull(experiment, "experiment");
        Objects.requireNonNull(ordering, "ordering");
        Objects.requireNonNull(payload, "payload");
        GdaConfigs.check(experiment, ordering, payload, size, iters, warmup, timeoutNs);
    }

    public static GdaRunSpec of(Experiment e, Ordering o, Payload p, int size) {
        return new GdaRunSpec(e, o, p, size, 1000, 100, 5_000_000_000L);
    }

    public GdaRunSpec withIters(int n, int w) {
        return new GdaRunSpec(experiment, ordering, payload, size, n, w, timeoutNs);
    }

    public GdaRunSpec withTimeoutNs(long t) {
        return new GdaRunSpec(experiment, ordering, payload, size, iters, warmup, t);
    }

    public GdaRunSpec withExperiment(Experiment e) {
        return new GdaRunSpec(e, ordering, payload, size, iters, warmup, timeoutNs);
    }
}
