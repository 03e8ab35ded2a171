// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.results.Stats;

import java.util.Map;

/**
 * What one run measured and observed.
 *
 * @param samples     the timed samples and the span of the timed loop
 * @param counters    what the initiator (and the round-trip peer) did
 * @param wqe         the shape of one posted WQE
 * @param emuCounters software NIC counter deltas over the run (empty on hardware)
 */
public record GdaRun(GdaSetup setup, GdaRunSpec spec, Samples samples, Counters counters, WqeShape wqe,
                     Map<String, Long> emuCounters, DeviceEngine deviceEngine) {

    /** A run on any NIC but the software NIC's device engine (deviceEngine null). */
    public GdaRun(GdaSetup setup, GdaRunSpec spec, Samples samples, Counters counters, WqeShape wqe,
                  Map<String, Long> emuCounters) {
        this(setup, spec, samples, counters, wqe, emuCounters, null);
    }

    /**
     * The software NIC's device engine as it ran (docs/design/device-engine.md §2, §2.4): the
     * distinct SMs its blocks reported, its layout (thread or lane) and its engine threads per SM.
     */
    public record DeviceEngine(int distinctSms, String layout, int threadsPerSm) {
    }

    /**
     * Samples are nanoseconds (CLOCK_MONOTONIC_RAW on the CPU, %globaltimer on
     * the GPU); cycles are the %clock64 span of each sample (GPU only, else
     * null); timedNs/timedCycles span the whole timed loop.
     */
    public record Samples(long[] ns, long[] cycles, long timedNs, long timedCycles) {
    }

    /**
     * @param posts         WQEs the initiator posted (warm-up included)
     * @param doorbells     doorbell stores of the initiator
     * @param cqes          CQEs the initiator consumed
     * @param peerPosts     WQEs of the round-trip peer
     * @param payloadErrors iterations whose destination bytes were wrong (one host: validated after every
     *                      iteration; two hosts: 0 or 1, the responder's check of the final iteration)
     */
    public record Counters(long posts, long doorbells, long cqes, long peerPosts, long payloadErrors) {
    }

    /** ds: 16-byte segments of one WQE; wqebbs: 64-byte basic blocks it occupies. */
    public record WqeShape(int ds, int wqebbs) {
    }

    /**
     * Two hosts: the same run with what the responder reported (its posts
     * of the round trip's replies, and 0 or 1 payload errors from its check
     * of the final iteration's bytes in its inbox).
     */
    public GdaRun withPeerReport(long responderPosts, long responderPayloadErrors) {
        Counters c = new Counters(counters.posts(), counters.doorbells(), counters.cqes(), responderPosts,
                counters.payloadErrors() + responderPayloadErrors);
        return new GdaRun(setup, spec, samples, c, wqe, emuCounters, deviceEngine);
    }

    public long[] samplesNs() {
        return samples.ns();
    }

    public long[] samplesCycles() {
        return samples.cycles();
    }

    public long posts() {
        return counters.posts();
    }

    public long doorbells() {
        return counters.doorbells();
    }

    public long cqes() {
        return counters.cqes();
    }

    public long peerPosts() {
        return counters.peerPosts();
    }

    public long payloadErrors() {
        return counters.payloadErrors();
    }

    public int wqebbsPerWqe() {
        return wqe.wqebbs();
    }

    public Stats stats() {
        return Stats.of(samples.ns());
    }

    /** True when every iteration delivered exactly the posted bytes. */
    public boolean valid() {
        return counters.payloadErrors() == 0;
    }

    /** Effective SM clock over the timed loop (cycles per ns = GHz); NaN off the GPU. */
    public double smClockGhz() {
        return samples.cycles() == null || samples.timedNs() <= 0 ? Double.NaN
                : (double) samples.timedCycles() / samples.timedNs();
    }

    /** Median %clock64 cycles of one sample; -1 off the GPU. */
    public long p50Cycles() {
        return samples.cycles() == null ? -1 : Stats.of(samples.cycles()).p50();
    }
}
