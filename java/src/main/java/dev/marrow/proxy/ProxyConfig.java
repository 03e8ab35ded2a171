// SPDX-License-Identifier: Apache-2.0
package dev.marrow.proxy;

import java.util.Arrays;

/**
 * How to build a {@link MiniProxy}. Start from {@link #softnic} and change
 * one group with the {@code with*} methods. The ring geometry's limits are
 * marrow_proxy.h's: the library checks them ({@code marrow_proxy_config_check})
 * when the config is made, and its message is the usage error.
 *
 * @param nic            "softnic" or "verbs"
 * @param verbsDevice    RDMA device name for verbs (null: first)
 * @param geometry       the rings, their workers and the batch limit
 * @param handoff        protocol CPU producers use (GPU producers get theirs from {@link GpuProducers})
 * @param workerOptions  pinning, order checks and idling of the workers
 * @param logSq          log2 of each worker's SQ depth (softnic; the software NIC checks it)
 * @param minBufferBytes the registered buffer is at least this large
 * @param engine         the software NIC's engine threads
 */
public record ProxyConfig(String nic, String verbsDevice, Geometry geometry, Handoff handoff, WorkerOptions workerOptions,
                          int logSq, long minBufferBytes, Engine engine) {

    /**
     * @param workers  T worker threads
     * @param rings    R descriptor rings (ring r belongs to worker r % T)
     * @param logSlots log2 of slots per ring
     * @param batch    B: most requests chained into one post
     */
    public record Geometry(int workers, int rings, int logSlots, int batch) {
    }

    /**
     * @param cpus       worker w pinned to cpus[w]; empty: the NIC's NUMA-node cores when known, else unpinned
     * @param checkOrder workers verify that descriptors arrive in ring order (tests)
     * @param yieldIdle  workers, CPU producers and the round-trip responder yield the core when they find
     *                   nothing to do (for more spinning threads than cores; not for measuring the mechanism)
     */
    public record WorkerOptions(int[] cpus, boolean checkOrder, boolean yieldIdle) {
        public WorkerOptions {
            cpus = cpus == null ? new int[0] : cpus.clone();
        }

        @Override
        public int[] cpus() {
            return cpus.clone();
        }
    }

    /**
     * @param hot     the engine spins (true) or backs off when idle
     * @param threads engine threads
     * @param cpu     pin engine thread 0 (-1: no)
     */
    public record Engine(boolean hot, int threads, int cpu) {
    }

    public ProxyConfig {
        if (!"softnic".equals(nic) && !"verbs".equals(nic)) {
            throw new IllegalArgumentException("--nic must be softnic or verbs, not '" + nic + "'");
        }
        workerOptions = workerOptions == null ? new WorkerOptions(null, false, false) : workerOptions;
        ProxyFfi.checkConfig(geometry, handoff, workerOptions);
    }

    public static ProxyConfig softnic(int workers, int rings, int batch, Handoff handoff) {
        return new ProxyConfig("softnic", null, new Geometry(workers, rings, 10, batch), handoff,
                new WorkerOptions(null, false, false), 10, 0, new Engine(true, 1, -1));
    }

    public int workers() {
        return geometry.workers();
    }

    public int rings() {
        return geometry.rings();
    }

    public int logSlots() {
        return geometry.logSlots();
    }

    public int batch() {
        return geometry.batch();
    }

    public int[] cpus() {
        return workerOptions.cpus();
    }

    public boolean checkOrder() {
        return workerOptions.checkOrder();
    }

    public boolean yieldIdle() {
        return workerOptions.yieldIdle();
    }

    public ProxyConfig withLogSlots(int n) {
        return new ProxyConfig(nic, verbsDevice, new Geometry(workers(), rings(), n, batch()), handoff,
                workerOptions, logSq, minBufferBytes, engine);
    }

    public ProxyConfig withLogSq(int n) {
        return new ProxyConfig(nic, verbsDevice, geometry, handoff, workerOptions, n, minBufferBytes, engine);
    }

    public ProxyConfig withCheckOrder(boolean b) {
        return withWorkerOptions(new WorkerOptions(cpus(), b, yieldIdle()));
    }

    public ProxyConfig withMinBufferBytes(long n) {
        return new ProxyConfig(nic, verbsDevice, geometry, handoff, workerOptions, logSq, n, engine);
    }

    public ProxyConfig withEngine(boolean hot, int threads, int cpu) {
        return new ProxyConfig(nic, verbsDevice, geometry, handoff, workerOptions, logSq, minBufferBytes,
                new Engine(hot, threads, cpu));
    }

    public ProxyConfig withNic(String n, String device) {
        return new ProxyConfig(n, device, geometry, handoff, workerOptions, logSq, minBufferBytes, engine);
    }

    public ProxyConfig withCpus(int[] workerCpus) {
        return withWorkerOptions(new WorkerOptions(workerCpus, checkOrder(), yieldIdle()));
    }

    public ProxyConfig withYieldIdle(boolean b) {
        return withWorkerOptions(new WorkerOptions(cpus(), checkOrder(), b));
    }

    public ProxyConfig withWorkerOptions(WorkerOptions w) {
        return new ProxyConfig(nic, verbsDevice, geometry, handoff, w, logSq, minBufferBytes, engine);
    }

    @Override
    public String toString() {
        return "ProxyConfig[nic=" + nic + ", T=" + workers() + ", R=" + rings() + ", slots=2^" + logSlots()
                + ", B=" + batch() + ", handoff=" + handoff.label() + ", cpus=" + Arrays.toString(cpus()) + "]";
    }
}
