// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda.rate;

import dev.marrow.gda.Ordering;
import dev.marrow.gda.Payload;
import dev.marrow.fabric.Target;
import dev.marrow.gda.rate.internal.RateLayouts;

import java.util.Arrays;

/**
 * One point of the mini-gda rate suite: who posts (target, blocks x
 * threads), onto which queues (QPs, mapping, SQ size, window, signal
 * period), how (publication, batch, doorbell, ordering), what (payload,
 * size, messages per thread) and, for {@link RateExperiment#SCOPE}, which
 * completion scope. {@link #validate()} names the CLI flag of a bad value.
 *
 * @param engineCpus  pin software NIC engine thread i to engineCpus[i] (null: not pinned)
 * @param doorbellCpu pin the host doorbell thread to this CPU (-1: not pinned)
 * @param idlePoll    software NIC engine in idle (back-off) polling instead of hot: for oversubscribed hosts
 * @param nicSms      --nic softnic-device: SMs the device engine kernel takes
 * @param path        auto (the single-poster path where every QP has one poster) or shared
 */
public record RateSpec(Target target, RateNic nic, RateExperiment experiment, Publication publication,
                       QpMapping qpMapping, DoorbellMode doorbell, CompletionScope scope, Ordering ordering,
                       int blocks, int threads, int qps, int batch, int signalPeriod, int window, Payload payload,
                       int size, long messages, long warmup, long timeoutNs, int logSq, int engineThreads,
                       int[] engineCpus, int doorbellCpu, int cudaDevice, boolean idlePoll, int nicSms,
                       RatePath path) {

    /** The most bytes of pointer-payload slots (one per posting thread at least) a point may take, each buffer. */
    public static final long MAX_POINTER_BUFFER_BYTES = 1L << 30;

    /** The largest pointer WRITE (MARROW_GDA_RATE_MAX_POINTER_SIZE; the device engine keeps 4096). */
    public static int maxPointerSize() {
        return RateLayouts.MAX_POINTER_SIZE;
    }

    /** One thread, one QP, one WQE per doorbell, 8-byte inline WRITEs on the software NIC. */
    public static RateSpec defaults(Target target) {
        return new RateSpec(target, RateNic.SOFTNIC, RateExperiment.RATE, Publication.SLOT, QpMapping.PER_BLOCK,
                DoorbellMode.DEVICE, CompletionScope.ALL_QP, Ordering.RELEASE_SYS, 1, 1, 1, 1, 16, 256,
                Payload.INLINE, 8, 100_000, 10_000, 5_000_000_000L, 10, 1, null, -1, 0, false, 8, RatePath.AUTO);
    }

    public RateSpec with(Publication p, QpMapping m, int blocks, int threads, int qps, int batch) {
        return new RateSpec(target, nic, experiment, p, m, doorbell, scope, ordering, blocks, threads, qps, batch,
                signalPeriod, window, payload, size, messages, warmup, timeoutNs, logSq, engineThreads, engineCpus,
                doorbellCpu, cudaDevice, idlePoll, nicSms, path);
    }

    public RateSpec withScope(RateExperiment e, CompletionScope s) {
        return new RateSpec(target, nic, e, publication, qpMapping, doorbell, s, ordering, blocks, threads, qps,
                batch, signalPeriod, window, payload, size, messages, warmup, timeoutNs, logSq, engineThreads,
                engineCpus, doorbellCpu, cudaDevice, idlePoll, nicSms, path);
    }

    public RateSpec withMessages(long messages, long warmup) {
        return new RateSpec(target, nic, experiment, publication, qpMapping, doorbell, scope, ordering, blocks,
                threads, qps, batch, signalPeriod, window, payload, size, messages, warmup, timeoutNs, logSq,
                engineThreads, engineCpus, doorbellCpu, cudaDevice, idlePoll, nicSms, path);
    }

    public RateSpec withQueues(int signalPeriod, int window, int logSq) {
        return new RateSpec(target, nic, experiment, publication, qpMapping, doorbell, scope, ordering, blocks,
                threads, qps, batch, signalPeriod, window, payload, size, messages, warmup, timeoutNs, logSq,
                engineThreads, engineCpus, doorbellCpu, cudaDevice, idlePoll, nicSms, path);
    }

    public RateSpec withPayload(Payload p, int size) {
        return new RateSpec(target, nic, experiment, publication, qpMapping, doorbell, scope, ordering, blocks,
                threads, qps, batch, signalPeriod, window, p, size, messages, warmup, timeoutNs, logSq,
                engineThreads, engineCpus, doorbellCpu, cudaDevice, idlePoll, nicSms, path);
    }

    public RateSpec withDoorbell(DoorbellMode d, int doorbellCpu) {
        return new RateSpec(target, nic, experiment, publication, qpMapping, d, scope, ordering, blocks, threads,
                qps, batch, signalPeriod, window, payload, size, messages, warmup, timeoutNs, logSq, engineThreads,
                engineCpus, doorbellCpu, cudaDevice, idlePoll, nicSms, path);
    }

    public RateSpec withNic(RateNic n, int engineThreads, int[] engineCpus) {
        return new RateSpec(target, n, experiment, publication, qpMapping, doorbell, scope, ordering, blocks,
                threads, qps, batch, signalPeriod, window, payload, size, messages, warmup, timeoutNs, logSq,
                engineThreads, engineCpus == null ? null : engineCpus.clone(), doorbellCpu, cudaDevice, idlePoll, nicSms, path);
    }

    /** --nic softnic-device: the SMs its engine kernel takes. */
    public RateSpec withNicSms(int sms) {
        return new RateSpec(target, nic, experiment, publication, qpMapping, doorbell, scope, ordering, blocks,
                threads, qps, batch, signalPeriod, window, payload, size, messages, warmup, timeoutNs, logSq,
                engineThreads, engineCpus, doorbellCpu, cudaDevice, idlePoll, sms, path);
    }

    public RateSpec withRun(Ordering o, long timeoutNs, int cudaDevice) {
        return new RateSpec(target, nic, experiment, publication, qpMapping, doorbell, scope, o, blocks, threads,
                qps, batch, signalPeriod, window, payload, size, messages, warmup, timeoutNs, logSq, engineThreads,
                engineCpus, doorbellCpu, cudaDevice, idlePoll, nicSms, path);
    }

    public RateSpec withIdlePoll(boolean idle) {
        return new RateSpec(target, nic, experiment, publication, qpMapping, doorbell, scope, ordering, blocks,
                threads, qps, batch, signalPeriod, window, payload, size, messages, warmup, timeoutNs, logSq,
                engineThreads, engineCpus, doorbellCpu, cudaDevice, idle, nicSms, path);
    }

    /** The posting path: auto, or shared to measure the shared-state path on any shape. */
    public RateSpec withPath(RatePath p) {
        return new RateSpec(target, nic, experiment, publication, qpMapping, doorbell, scope, ordering, blocks,
                threads, qps, batch, signalPeriod, window, payload, size, messages, warmup, timeoutNs, logSq,
                engineThreads, engineCpus, doorbellCpu, cudaDevice, idlePoll, nicSms, p);
    }

    /** WQEs one thread posts per doorbell round (warp publication: batch / lanes). */
    public int perThreadRound() {
        if (experiment == RateExperiment.SCOPE) {
            return 1;
        }
        return publication == Publication.WARP ? batch / Math.min(threads, 32) : batch;
    }

    /** Total posting threads (scope: one, plus the signal peer). */
    public int totalThreads() {
        return experiment == RateExperiment.SCOPE ? 1 : blocks * threads;
    }

    /** Endpoints the runner needs: one per QP, plus the signal peer's for scope. */
    public int endpoints() {
        return qps + (experiment == RateExperiment.SCOPE ? 1 : 0);
    }

    /** Checks every range; the message names the CLI flag. */
    public RateSpec validate() {
        req(blocks >= 1 && blocks <= 132, "--blocks must be 1..132, not " + blocks);
        req(threads >= 1 && threads <= 1024, "--threads must be 1..1024, not " + threads);
        req(qps >= 1 && qps <= 512, "--qps must be 1..512, not " + qps);
        req(batch >= 1 && batch <= 256, "--batch must be 1..256, not " + batch);
        req(signalPeriod >= 1, "--signal-period must be >= 1, not " + signalPeriod);
        req(window >= batch, "--window (" + window + ") must hold at least one batch (" + batch + ")");
        req(logSq >= 4 && logSq <= 15, "--log-sq must be 4..15, not " + logSq);
        req(messages >= 1 && warmup >= 0, "--messages must be >= 1 and --warmup >= 0");
        req(timeoutNs > 0, "--timeout-ms must be > 0");
        req(engineThreads >= 1 && engineThreads <= 64, "--engine-threads must be 1..64, not " + engineThreads);
        req(engineCpus == null || engineCpus.length == engineThreads, "--engine-cpus lists "
                + (engineCpus == null ? 0 : engineCpus.length) + " CPU(s) for --engine-threads " + engineThreads);
        req(engineCpus == null || Arrays.stream(engineCpus).allMatch(c -> c >= -1), "--engine-cpus: CPUs are >= -1");
        req(doorbellCpu >= -1, "--doorbell-cpu must be >= -1");
        if (payload == Payload.INLINE) {
            req(size >= 8 && size <= 220, "--size must be 8..220 bytes inline, not " + size);
        } else {
            int max = maxPointerSize();
            req(size >= 8 && size <= max, "--size must be 8.." + max + " bytes pointer, not " + size);
            long stride = (size + 63L) & ~63L;
            req(totalThreads() * stride <= MAX_POINTER_BUFFER_BYTES, "pointer payloads need one " + stride
                    + "-byte slot per posting thread in each of source and destination: " + totalThreads()
                    + " threads x --size " + size + " exceed " + (MAX_POINTER_BUFFER_BYTES >> 20) + " MiB");
        }
        if (experiment == RateExperiment.RATE && publication == Publication.WARP) {
            int lanes = Math.min(threads, 32);
            req(threads <= 32 || threads % 32 == 0, "--publication warp needs --threads <= 32 or a multiple of 32");
            req(batch % lanes == 0, "--publication warp: --batch " + batch + " must be a multiple of the " + lanes
                    + " lanes of a warp (each lane fills batch / lanes WQEs per doorbell)");
            req(qpMapping != QpMapping.PER_THREAD, "--publication warp puts a warp's lanes on one QP: --qp-map "
                    + "block, warp or shared");
        }
        int per = perThreadRound();
        req(messages % per == 0 && warmup % per == 0, "--messages and --warmup must be multiples of " + per
                + " (WQEs one thread posts per doorbell)");
        req((long) totalThreads() * (messages + warmup) < (1L << 31), "threads x (--warmup + --messages) must stay "
                + "below 2^31 WQEs");
        req(target != Target.CPU || nic == RateNic.SOFTNIC, "--target cpu runs on --nic softnic only");
        req(path != RatePath.SOLO, "--rate-path must be auto or shared (solo is what auto takes where it can)");
        req(nicSms >= 1 && nicSms <= 132, "--nic-sms must be 1..132, not " + nicSms);
        req(nic != RateNic.SOFTNIC_DEVICE || doorbell == DoorbellMode.DEVICE, "--nic softnic-device keeps its "
                + "doorbell records in GPU memory: --doorbell device only");
        return this;
    }

    private static void req(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RateSpec r && toString().equals(r.toString());
    }

    @Override
    public int hashCode() {
        return toString().hashCode();
    }

    @Override
    public String toString() {
        return "RateSpec[" + target + "+" + nic + " " + experiment + " " + publication + " " + qpMapping + " db="
                + doorbell + " scope=" + scope + " " + ordering + " " + blocks + "x" + threads + " qps=" + qps
                + " B=" + batch + " K=" + signalPeriod + " W=" + window + " " + payload + " " + size + " B msgs="
                + messages + "+" + warmup + " logSq=" + logSq + " engines=" + engineThreads + " "
                + Arrays.toString(engineCpus) + " dbcpu=" + doorbellCpu + (idlePoll ? " idle" : "") + " nicSms=" + nicSms
                + " path=" + path + "]";
    }
}
