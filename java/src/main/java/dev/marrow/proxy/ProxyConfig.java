// SPDX-License-Identifier: Apache-2.0
package dev.marrow.proxy;

import dev.marrow.internal.ffi.NativeLib;

import java.util.Arrays;

/**
 * How to build a {@link MiniProxy}.
 *
 * @param nic            "softnic" or "verbs"
 * @param workers        T worker threads
 * @param rings          R descriptor rings (ring r belongs to worker r % T)
 * @param logSlots       log2 of slots per ring
 * @param batch          B: most requests chained into one post
 * @param handoff        protocol CPU producers use (GPU producers get theirs from {@link GpuProducers})
 * @param cpus           worker w pinned to cpus[w]; empty: the NIC's NUMA-node cores when known, else unpinned
 * @param checkOrder     workers verify that descriptors arrive in ring order (tests)
 * @param logSq          log2 of each worker's SQ depth (softnic)
 * @param minBufferBytes the registered buffer is at least this large
 * @param hotEngine      softnic engine spins (true) or backs off when idle
 * @param engineThreads  softnic engine threads
 * @param engineCpu      pin softnic engine thread 0 (-1: no)
 * @param verbsDevice    RDMA device name for verbs (null: first)
 * @param yieldIdle      workers, CPU producers and the round-trip responder yield the core when they find
 *                       nothing to do (for more spinning threads than cores; not for measuring the mechanism)
 */
public record ProxyConfig(String nic, int workers, int rings, int logSlots, int batch, Handoff handoff, int[] cpus,
                          boolean checkOrder, int logSq, long minBufferBytes, boolean hotEngine, int engineThreads,
                          int engineCpu, String verbsDevice, boolean yieldIdle) {

    public ProxyConfig {
        if (!nic.equals("softnic") && !nic.equals("verbs")) {
            throw new IllegalArgumentException("--nic must be softnic or verbs, not '" + nic + "'");
        }
        // The limits are marrow_proxy.h's (MARROW_PROXY_MAX_*), read from the library; checked here
        // too so that a bad command line is a usage error before anything is built.
        NativeLib lib = NativeLib.shared("host");
        int maxWorkers = lib.intConstant("MARROW_PROXY_MAX_WORKERS");
        int maxRings = lib.intConstant("MARROW_PROXY_MAX_RINGS");
        int maxBatch = lib.intConstant("MARROW_PROXY_MAX_BATCH");
        if (workers < 1 || workers > maxWorkers) {
            throw new IllegalArgumentException("workers must be 1.." + maxWorkers + ", not " + workers);
        }
        if (rings < workers || rings > maxRings) {
            throw new IllegalArgumentException("rings must be >= workers (" + workers + ") and <= " + maxRings + ", not "
                    + rings);
        }
        if (batch < 1 || batch > maxBatch) {
            throw new IllegalArgumentException("batch must be 1.." + maxBatch + ", not " + batch);
        }
        if (logSlots < 1 || logSlots > 20 || logSq < 2 || logSq > 15) {
            throw new IllegalArgumentException("log-slots must be 1..20 and log-sq 2..15");
        }
        cpus = cpus == null ? new int[0] : cpus.clone();
    }

    public static ProxyConfig softnic(int workers, int rings, int batch, Handoff handoff) {
        return new ProxyConfig("softnic", workers, rings, 10, batch, handoff, new int[0], false, 10, 0, true, 1, -1,
                null, false);
    }

    public ProxyConfig withLogSlots(int n) {
        return new ProxyConfig(nic, workers, rings, n, batch, handoff, cpus, checkOrder, logSq, minBufferBytes,
                hotEngine, engineThreads, engineCpu, verbsDevice, yieldIdle);
    }

    public ProxyConfig withLogSq(int n) {
        return new ProxyConfig(nic, workers, rings, logSlots, batch, handoff, cpus, checkOrder, n, minBufferBytes,
                hotEngine, engineThreads, engineCpu, verbsDevice, yieldIdle);
    }

    public ProxyConfig withCheckOrder(boolean b) {
        return new ProxyConfig(nic, workers, rings, logSlots, batch, handoff, cpus, b, logSq, minBufferBytes,
                hotEngine, engineThreads, engineCpu, verbsDevice, yieldIdle);
    }

    public ProxyConfig withMinBufferBytes(long n) {
        return new ProxyConfig(nic, workers, rings, logSlots, batch, handoff, cpus, checkOrder, logSq, n,
                hotEngine, engineThreads, engineCpu, verbsDevice, yieldIdle);
    }

    public ProxyConfig withEngine(boolean hot, int threads, int cpu) {
        return new ProxyConfig(nic, workers, rings, logSlots, batch, handoff, cpus, checkOrder, logSq, minBufferBytes,
                hot, threads, cpu, verbsDevice, yieldIdle);
    }

    public ProxyConfig withNic(String n, String device) {
        return new ProxyConfig(n, workers, rings, logSlots, batch, handoff, cpus, checkOrder, logSq, minBufferBytes,
                hotEngine, engineThreads, engineCpu, device, yieldIdle);
    }

    public ProxyConfig withCpus(int[] workerCpus) {
        return new ProxyConfig(nic, workers, rings, logSlots, batch, handoff, workerCpus, checkOrder, logSq,
                minBufferBytes, hotEngine, engineThreads, engineCpu, verbsDevice, yieldIdle);
    }

    public ProxyConfig withYieldIdle(boolean b) {
        return new ProxyConfig(nic, workers, rings, logSlots, batch, handoff, cpus, checkOrder, logSq, minBufferBytes,
                hotEngine, engineThreads, engineCpu, verbsDevice, b);
    }

    @Override
    public int[] cpus() {
        return cpus.clone();
    }

    @Override
    public String toString() {
        return "ProxyConfig[nic=" + nic + ", T=" + workers + ", R=" + rings + ", slots=2^" + logSlots + ", B=" + batch
                + ", handoff=" + handoff.label() + ", cpus=" + Arrays.toString(cpus) + "]";
    }
}
