// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.results.Stats;

import java.util.Map;

/**
 * What one run measured and observed. Samples are nanoseconds
 * (CLOCK_MONOTONIC_RAW on the CPU, %globaltimer on the GPU); cycles are the
 * %clock64 span of each sample (GPU only, else null).
 *
 * @param posts          WQEs the initiator posted (warm-up included)
 * @param doorbells      doorbell stores of the initiator
 * @param cqes           CQEs the initiator consumed
 * @param peerPosts      WQEs of the round-trip peer
 * @param payloadErrors  iterations whose destination bytes were wrong (one host: validated after every
 *                       iteration; two hosts: 0 or 1, the responder's check of the final iteration)
 * @param emuCounters    software NIC counter deltas over the run (empty on hardware)
 */
public record GdaRun(GdaSetup setup, GdaRunSpec spec, long[] samplesNs, long[] samplesCycles, long posts,
                     long doorbells, long cqes, long peerPosts, long payloadErrors, long timedNs, long timedCycles,
                     int ds, int wqebbsPerWqe, Map<String, Long> emuCounters) {

    /**
     * Two hosts: the same run with what the responder reported (its posts
     * of the round trip's replies, and 0 or 1 payload errors from its check
     * of the final iteration's bytes in its inbox).
     */
    public GdaRun withPeerReport(long responderPosts, long responderPayloadErrors) {
        return new GdaRun(setup, spec, samplesNs, samplesCycles, posts, doorbells, cqes, responderPosts,
                payloadErrors + responderPayloadErrors, timedNs, timedCycles, ds, wqebbsPerWqe, emuCounters);
    }

    public Stats stats() {
        return Stats.of(samplesNs);
    }

    /** True when every iteration delivered exactly the posted bytes. */
    public boolean valid() {
        return payloadErrors == 0;
    }

    /** Effective SM clock over the timed loop (cycles per ns = GHz); NaN off the GPU. */
    public double smClockGhz() {
        return samplesCycles == null || timedNs <= 0 ? Double.NaN : (double) timedCycles / timedNs;
    }

    /** Median %clock64 cycles of one sample; -1 off the GPU. */
    public long p50Cycles() {
        return samplesCycles == null ? -1 : Stats.of(samplesCycles).p50();
    }
}
