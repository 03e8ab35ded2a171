// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda.rate;

import java.util.Map;

/**
 * What one rate or scope run observed (struct marrow_gda_rate_result), the
 * software NIC's counter deltas over it, and, for scope, the latency
 * samples; deviceEngine is null unless --nic softnic-device. fenceTicks: the posters' time in the publication
 * (the ordering's fence, doorbell record, doorbell); wqeTicks: building and storing WQEs; pathRun: the posting
 * path the run took (shared or solo). Ticks are GPU %clock64 cycles on the cuda target and
 * nanoseconds on the cpu target ({@link #ticksAreCycles}).
 */
public record RateResult(RateSpec spec, long messages, long posts, long doorbells, long signaled, long cqes,
                         long elapsedNs, long sqFullWaits, long sqFullTicks, long publishTicks, long reapTicks,
                         long postTicks, long slotsChecked, long payloadErrors, long hostRings, long hostPolls,
                         boolean ticksAreCycles, int signalPeriodEffective, int windowEffective, int wqebbsPerWqe,
                         long fenceTicks, long wqeTicks, RatePath pathRun, long[] samplesNs, Map<String, Long> emuCounters, DeviceEngineUse deviceEngine) {

    /** Timed messages per second, in millions (rate runs). */
    public double rateMmsgPerSec() {
        return elapsedNs <= 0 ? 0 : messages * 1e3 / elapsedNs;
    }

    /** Nanoseconds one thread spends per message: elapsed x threads / messages. */
    public double nsPerMessagePerThread() {
        return messages <= 0 ? 0 : (double) elapsedNs * spec.totalThreads() / messages;
    }

    public double doorbellsPerMessage() {
        return posts <= 0 ? 0 : (double) doorbells / posts;
    }

    /** Fraction of the posters' time spent waiting for ring space (0..1, summed over threads). */
    public double sqFullShare() {
        return postTicks <= 0 ? 0 : (double) sqFullTicks / postTicks;
    }

    /** Fraction of the posters' time spent on the lock or the ready head. */
    public double publishShare() {
        return postTicks <= 0 ? 0 : (double) publishTicks / postTicks;
    }

    /** Fraction of the posters' time in the publication (fence + doorbell record + doorbell). */
    public double fenceShare() {
        return postTicks <= 0 ? 0 : (double) fenceTicks / postTicks;
    }

    /** Fraction of the posters' time building and storing WQEs (issue: the stores drain in the fence). */
    public double wqeShare() {
        return postTicks <= 0 ? 0 : (double) wqeTicks / postTicks;
    }

    /** Fraction of the posters' time reaping CQEs (polls included). */
    public double reapShare() {
        return postTicks <= 0 ? 0 : (double) reapTicks / postTicks;
    }

    /**
     * The poster's stage with the largest share of its time (fence, wqe, reap, sq-full, publish), or "other"
     * when none of them holds a quarter: the loop's own work (the round's bookkeeping, the clock reads).
     * It says where a "poster"-limited rate goes (docs/design/methods.md).
     */
    public String posterStage() {
        String[] names = {"fence", "wqe", "reap", "sq-full", "publish"};
        double[] shares = {fenceShare(), wqeShare(), reapShare(), sqFullShare(), publishShare()};
        int best = 0;
        for (int i = 1; i < shares.length; i++) {
            if (shares[i] > shares[best]) {
                best = i;
            }
        }
        return shares[best] >= 0.25 ? names[best] : "other";
    }

    /** The software NIC engine: busy passes / all passes over the run (-1 when not a software NIC). */
    public double engineBusyRatio() {
        long busy = emuCounters.getOrDefault("emu_busy_passes", -1L);
        long idle = emuCounters.getOrDefault("emu_idle_passes", -1L);
        return busy < 0 || idle < 0 || busy + idle == 0 ? -1 : (double) busy / (busy + idle);
    }

    /**
     * Which side held the rate back, by a rule stated in docs/design/methods.md:
     * "nic" when posters spent over half their time waiting for ring space
     * or the engine was busy in over 90 % of its passes; "publication" when
     * they spent over half on the lock or the ready head; else "poster".
     */
    public String limitedBy() {
        if (sqFullShare() > 0.5 || engineBusyRatio() > 0.9) {
            return "nic";
        }
        return publishShare() > 0.5 ? "publication" : "poster";
    }

    /** True when every message arrived exactly once with its bytes (the NIC's WRITE count, where known). */
    public boolean exactlyOnce() {
        Long writes = emuCounters.get("emu_wqe_rdma_write");
        return payloadErrors == 0 && (writes == null || writes == posts);
    }
}
