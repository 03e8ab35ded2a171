// SPDX-License-Identifier: Apache-2.0
package dev.marrow.kcost;

import dev.marrow.fabric.Nic;

/**
 * What every point of one kernel-cost run shares: launch shape, work per
 * thread of each caller, launches, the device wait bound, the GPU, and the
 * proxy's shape (four workers and 32 rings by default).
 *
 * @param computeWork FMAs per thread of the compute caller
 * @param streamWork  streamed floats per thread of the streaming caller
 * @param segments    MARROW_KCOST_SEGMENTS (from the library)
 * @param nic         the NIC behind the mini-gda arms' queues (the proxy arms run on the software NIC)
 */
public record KcostSettings(int blocks, int threads, long computeWork, long streamWork, int launches, int warmup,
                            long timeoutNs, int cudaDevice, int proxyWorkers, int proxyRings, int segments,
                            int engineCpu, Nic nic) {
    public KcostSettings {
        nic = nic == null ? Nic.SOFTNIC : nic;
        if (blocks < 1 || threads < 32 || threads > 1024 || threads % 32 != 0) {
            throw new IllegalArgumentException("--blocks must be >= 1 and --threads 32..1024, a multiple of 32");
        }
        if (launches < 1 || warmup < 0 || timeoutNs <= 0 || computeWork < 1 || streamWork < 1) {
            throw new IllegalArgumentException("--launches must be >= 1, --warmup >= 0, --timeout-ms > 0, work > 0");
        }
    }

    /** On the software NIC. */
    public KcostSettings(int blocks, int threads, long computeWork, long streamWork, int launches, int warmup,
                         long timeoutNs, int cudaDevice, int proxyWorkers, int proxyRings, int segments,
                         int engineCpu) {
        this(blocks, threads, computeWork, streamWork, launches, warmup, timeoutNs, cudaDevice, proxyWorkers,
                proxyRings, segments, engineCpu, Nic.SOFTNIC);
    }

    /** The NIC behind point p's messages: the settings' for mini-gda, the software NIC for the proxy. */
    public Nic nicOf(KcostPoint p) {
        return p.transport() == Transport.GDA ? nic : Nic.SOFTNIC;
    }

    /** The fabric of the mini-gda arms: blocks loopback QPs on the settings' NIC, target cuda. */
    public dev.marrow.fabric.Fabric.Options fabricOptions() {
        return dev.marrow.fabric.Fabric.Options.softNic("kernel-cost", dev.marrow.fabric.Target.CUDA)
                .withNic(nic, dev.marrow.fabric.Placement.HOST).withCudaDevice(cudaDevice)
                .withEngine(dev.marrow.api.softnic.SoftNic.PollMode.HOT, 1, engineCpu, null);
    }

    public long workFor(Caller c) {
        return c == Caller.COMPUTE ? computeWork : streamWork;
    }
}
