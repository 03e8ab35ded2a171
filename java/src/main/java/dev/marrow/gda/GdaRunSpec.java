// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import java.util.Objects;

/**
 * One measurement: experiment, ordering variant, payload form and size,
 * timed iterations, untimed warm-up iterations, the bound of every wait,
 * and (round trip only) how long the peer waits, by its own clock, after
 * seeing the ping before it answers (the timer check; 0 = at once).
 * The limits are the runners' (marrow_gda_config_check): a spec they would
 * refuse is refused here with their message, as an IllegalArgumentException.
 */
public record GdaRunSpec(Experiment experiment, Ordering ordering, Payload payload, int size, int iters, int warmup,
                         long timeoutNs, long responderDelayNs) {
    /** The largest responder delay the C config holds (uint32_t ns). */
    public static final long MAX_RESPONDER_DELAY_NS = 0xffff_ffffL;

    public GdaRunSpec {
        Objects.requireNonNull(experiment, "experiment");
        Objects.requireNonNull(ordering, "ordering");
        Objects.requireNonNull(payload, "payload");
        if (responderDelayNs < 0 || responderDelayNs > MAX_RESPONDER_DELAY_NS) {
            throw new IllegalArgumentException("the responder delay must be 0 .. " + MAX_RESPONDER_DELAY_NS
                    + " ns, not " + responderDelayNs + " ns");
        }
        GdaConfigs.check(experiment, ordering, payload, size, iters, warmup, timeoutNs, responderDelayNs);
    }

    public GdaRunSpec(Experiment experiment, Ordering ordering, Payload payload, int size, int iters, int warmup,
                      long timeoutNs) {
        this(experiment, ordering, payload, size, iters, warmup, timeoutNs, 0);
    }

    public static GdaRunSpec of(Experiment e, Ordering o, Payload p, int size) {
        return new GdaRunSpec(e, o, p, size, 1000, 100, 5_000_000_000L);
    }

    public GdaRunSpec withIters(int n, int w) {
        return new GdaRunSpec(experiment, ordering, payload, size, n, w, timeoutNs, responderDelayNs);
    }

    public GdaRunSpec withTimeoutNs(long t) {
        return new GdaRunSpec(experiment, ordering, payload, size, iters, warmup, t, responderDelayNs);
    }

    /** Another experiment; the responder delay is kept for a round trip and dropped otherwise. */
    public GdaRunSpec withExperiment(Experiment e) {
        return new GdaRunSpec(e, ordering, payload, size, iters, warmup, timeoutNs,
                e == Experiment.ROUND_TRIP ? responderDelayNs : 0);
    }

    public GdaRunSpec withResponderDelayNs(long ns) {
        return new GdaRunSpec(experiment, ordering, payload, size, iters, warmup, timeoutNs, ns);
    }
}
