// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.api.softnic.WireModel;
import dev.marrow.gda.Ordering;
import dev.marrow.gda.Payload;
import dev.marrow.fabric.Target;
import dev.marrow.gda.rate.DoorbellMode;
import dev.marrow.gda.rate.GdaRate;
import dev.marrow.gda.rate.Publication;
import dev.marrow.gda.rate.QpMapping;
import dev.marrow.gda.rate.RateNic;
import dev.marrow.gda.rate.RateResult;
import dev.marrow.gda.rate.RateSpec;
import dev.marrow.results.ResultRecord;

import java.util.Arrays;
import java.util.List;

/**
 * gda goodput --posters: the many-poster pipelined mode. Each size of the
 * sweep is one run of the gda rate poster (gda_rate_post.h, the kernel of
 * `gda rate`) with pointer payloads: BLOCKS x THREADS posters (GPU threads
 * on cuda, pthreads on cpu), poster t on QP t mod --qps, --batch WQEs per
 * doorbell with slot publication, on fresh queues of the CPU software NIC
 * (--engine-threads) under the wire model. Timing and the byte check are
 * the rate runner's; the warm-up is cut here ({@link #WARMUP_RATIO})
 * (docs/design/methods.md §6.1, "Many posters").
 *
 * @param window      WQEs outstanding in all; window / qps per QP
 * @param signalEvery every Nth WQE of a QP signaled (min with the per-QP window)
 */
record GdaGoodputPosters(Target target, int blocks, int threads, int qps, int batch, int window, int signalEvery,
                         int engineThreads, int[] engineCpus, Ordering ordering, long warmup, int cudaDevice) {

    /** WQEs per QP the queues hold (RateSpec's SQ: 2^log_sq WQEBBs, one per pointer WRITE). */
    static int sqWqes() {
        return 1 << RateSpec.defaults(Target.CPU).logSq();
    }

    /** The default --window of this mode: 256 WQEs per QP. */
    static int defaultWindow(int qps) {
        return 256 * qps;
    }

    /** Parses BLOCKS or BLOCKSxTHREADS (blocks 1..132, threads per block 1..1024). */
    static int[] parseShape(String s) {
        String[] p = s.trim().toLowerCase(java.util.Locale.ROOT).split("x", -1);
        try {
            if (p.length == 1 || p.length == 2) {
                int b = Integer.parseInt(p[0].trim());
                int t = p.length == 2 ? Integer.parseInt(p[1].trim()) : 1;
                if (b >= 1 && b <= 132 && t >= 1 && t <= 1024) {
                    return new int[] {b, t};
                }
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new IllegalArgumentException("--posters \"" + s + "\": give BLOCKS or BLOCKSxTHREADS, blocks 1..132 "
                + "and threads per block 1..1024 (e.g. 16 or 16x1 or 4x32)");
    }

    int posters() {
        return blocks * threads;
    }

    int windowPerQp() {
        return window / qps;
    }

    int signalPerQp() {
        return Math.min(signalEvery, windowPerQp());
    }

    /** Busy host threads: the CPU posters (cpu target) and the engine threads. */
    int spinning() {
        return (target == Target.CPU ? posters() : 0) + engineThreads;
    }

    /** Refuses a shape the runner could not run as asked, before anything is opened. Messages name the flag. */
    GdaGoodputPosters check(List<Integer> sizes, long bytesPerPoint) {
        if (qps < 1 || qps > 512) {
            throw new IllegalArgumentException("--qps " + qps + ": must be 1..512 with --posters");
        }
        if (posters() < qps) {
            throw new IllegalArgumentException("--posters " + blocks + "x" + threads + " gives " + posters()
                    + " posting threads for --qps " + qps + ": poster t posts to QP t mod qps, so every QP needs "
                    + "a poster (give at least as many posters as QPs)");
        }
        if (engineThreads < 1 || engineThreads > Math.min(qps, 64)) {
            throw new IllegalArgumentException("--engine-threads " + engineThreads + ": must be 1.."
                    + Math.min(qps, 64) + " (at most --qps: a thread beyond the QP count would own no QP)");
        }
        if (engineCpus != null && engineCpus.length != engineThreads) {
            throw new IllegalArgumentException("--engine-cpus names " + engineCpus.length + " CPUs for "
                    + engineThreads + " engine threads (one per thread)");
        }
        if (batch < 1 || batch > 256) {
            throw new IllegalArgumentException("--batch " + batch + ": must be 1..256 WQEs per doorbell");
        }
        if (window < qps || windowPerQp() < batch || windowPerQp() > sqWqes()) {
            throw new IllegalArgumentException("--window " + window + " over --qps " + qps + " gives "
                    + windowPerQp() + " WQEs per QP: it must hold one --batch (" + batch + ") and fit the SQ ("
                    + sqWqes() + " WQEs)");
        }
        if (signalEvery < 1) {
            throw new IllegalArgumentException("--signal-every must be >= 1");
        }
        int max = RateSpec.maxPointerSize();
        for (int size : sizes) {
            if (size < 8 || size > max) {
                throw new IllegalArgumentException("--sizes: " + size + " bytes: --posters posts pointer WRITEs of "
                        + "8.." + max + " bytes (one data segment each)");
            }
            try {
                spec(size, bytesPerPoint, 1_000_000_000L).validate();
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--posters " + blocks + "x" + threads + " at --sizes " + size
                        + ": " + e.getMessage(), e);
            }
        }
        return this;
    }

    /**
     * The rate poster does not drain its warm-up before the timer starts, so the warm-up's bytes may
     * still be on the (modeled) wire inside the timed span: a poster's warm-up is at most
     * 1 / WARMUP_RATIO of its timed messages, which bounds that share of the span.
     */
    static final int WARMUP_RATIO = 32;

    /** Messages per poster: the point's total (as the one-poster mode) spread over the posters, whole batches. */
    long messagesPerPoster(int size, long bytesPerPoint) {
        return roundUp(GoodputMath.messagesFor(size, bytesPerPoint, 64, 1_000_000), posters(), batch);
    }

    /**
     * Warm-up per poster: --warmup spread over the posters in whole batches, cut to whole batches of
     * at most 1 / {@link #WARMUP_RATIO} of the poster's timed messages (0 for the largest sizes).
     */
    long warmupPerPoster(int size, long bytesPerPoint) {
        long asked = warmup == 0 ? 0 : roundUp(warmup, posters(), batch);
        long cap = messagesPerPoster(size, bytesPerPoint) / WARMUP_RATIO / batch * batch;
        return Math.min(asked, cap);
    }

    /** ceil(total / parts), rounded up to a multiple of unit. */
    private static long roundUp(long total, int parts, int unit) {
        long each = (total + parts - 1) / parts;
        return (each + unit - 1) / unit * unit;
    }

    RateSpec spec(int size, long bytesPerPoint, long timeoutNs) {
        return RateSpec.defaults(target).withNic(RateNic.SOFTNIC, engineThreads, engineCpus)
                .with(Publication.SLOT, QpMapping.PER_THREAD, blocks, threads, qps, batch)
                .withQueues(signalPerQp(), windowPerQp(), RateSpec.defaults(target).logSq())
                .withPayload(Payload.POINTER, size)
                .withMessages(messagesPerPoster(size, bytesPerPoint), warmupPerPoster(size, bytesPerPoint))
                .withDoorbell(DoorbellMode.DEVICE, -1).withRun(ordering, timeoutNs, cudaDevice)
                .withIdlePoll(CpuBudget.oversubscribed(spinning()));
    }

    /** One size: the run and its record ("gda.goodput", mode "many-poster"). */
    Point run(int size, long bytesPerPoint, long timeoutNs, WireModel wire, double wireGbps) {
        RateSpec s = spec(size, bytesPerPoint, timeoutNs);
        GdaRate.Wired w = GdaRate.runWired(s, wire);
        RateResult r = w.result();
        double gbs = r.elapsedNs() <= 0 ? 0 : (double) r.messages() * size / r.elapsedNs();
        ResultRecord rec = new ResultRecord("gda.goodput", target.label() + "+softnic", false)
                .param("target", target.label()).param("nic", "softnic").param("mode", "many-poster")
                .param("ordering", ordering.label()).param("payload", Payload.POINTER.label())
                .param("size_bytes", size).param("posters", blocks + "x" + threads)
                .param("poster_blocks", blocks).param("poster_threads_per_block", threads)
                .param("poster_threads", posters()).param("publication", Publication.SLOT.label())
                .param("qp_map", QpMapping.PER_THREAD.label()).param("batch", batch).param("qps", qps)
                .param("engine_threads", engineThreads)
                .param("engine_cpus", engineCpus == null ? List.of() : Arrays.stream(engineCpus).boxed().toList())
                .param("window", window).param("window_per_qp", windowPerQp())
                .param("signal_every", signalEvery).param("signal_every_per_qp", signalPerQp())
                .param("messages", r.messages()).param("warmup_asked", warmup)
                .param("log_sq", s.logSq())
                .metric("warmup", s.warmup() * posters())
                .metric("messages_per_poster", s.messages()).metric("warmup_per_poster", s.warmup())
                .metric("warmup_share", ResultRecord.round((double) s.warmup() / s.messages(), 4))
                .metric("signal_every_effective", r.signalPeriodEffective())
                .metric("window_effective", r.windowEffective())
                .metric("goodput_gbps", ResultRecord.round(gbs, 4))
                .metric("messages_per_s", Math.round(r.rateMmsgPerSec() * 1e6))
                .metric("timed_ns", r.elapsedNs()).metric("posts", r.posts()).metric("doorbells", r.doorbells())
                .metric("doorbells_per_message", ResultRecord.round(r.doorbellsPerMessage(), 4))
                .metric("cqes", r.cqes()).metric("slots_checked", r.slotsChecked())
                .metric("payload_errors", r.payloadErrors()).metric("valid", r.exactlyOnce())
                .metric("emu_wqe_rdma_write", r.emuCounters().getOrDefault("emu_wqe_rdma_write", 0L))
                .metric("sq_full_share", ResultRecord.round(r.sqFullShare(), 4))
                .metric("engine_busy_ratio", ResultRecord.round(r.engineBusyRatio(), 4))
                .metric("limited_by", r.limitedBy());
        GoodputMath.tagWire(rec, wire, size, gbs);
        if (wire.enabled()) {
            rec.param("wire_model_scope", "one port: the " + qps + " QP(s), " + posters() + " poster(s) and "
                    + engineThreads + " engine thread(s) of this software NIC serialise through one " + wireGbps
                    + " Gb/s link");
            rec.metric("wire_bytes", w.wireBytes()).metric("wire_cqe_hold_ns", w.wireHeldNs());
        }
        return new Point(rec, gbs, r.exactlyOnce());
    }

    record Point(ResultRecord record, double gbPerS, boolean valid) {
    }
}
