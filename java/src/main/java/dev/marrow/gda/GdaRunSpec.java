// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

/**
 * One measurement: experiment, ordering variant, payload form and size,
 * timed iterations, untimed warm-up iterations, and the bound of every wait.
 */
public record GdaRunSpec(Experiment experiment, Ordering ordering, Payload payload, int size, int iters, int warmup,
                         long timeoutNs) {
    public GdaRunSpec {
        if (size < 1) {
            throw new IllegalArgumentException("size must be >= 1 byte, not " + size);
        }
        if (iters < 1 || warmup < 0) {
            throw new IllegalArgumentException("iters must be >= 1 and warmup >= 0 (got " + iters + ", " + warmup + ")");
        }
        if (timeoutNs <= 0) {
            throw new IllegalArgumentException("timeout must be positive");
        }
        if (experiment == Experiment.ROUND_TRIP && size != 8) {
            throw new IllegalArgumentException("round trip polls one 8-byte data word: size must be 8, not " + size);
        }
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
