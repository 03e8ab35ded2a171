// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.fabric.Fabric;
import dev.marrow.fabric.LoopbackQueues;
import dev.marrow.fabric.Nic;
import dev.marrow.fabric.Placement;
import dev.marrow.fabric.Target;
import dev.marrow.api.Backend;
import dev.marrow.api.MarrowException;
import dev.marrow.api.NativeException;
import dev.marrow.api.softnic.Access;
import dev.marrow.api.softnic.CompletionQueue;
import dev.marrow.api.softnic.MemoryRegion;
import dev.marrow.api.softnic.QueuePair;
import dev.marrow.api.softnic.SoftNic;
import dev.marrow.gda.internal.GdaFfi;
import dev.marrow.gda.internal.GdaLayouts;
import dev.marrow.gda.internal.GoodputFfi;
import dev.marrow.internal.ffi.NativeLib;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The queues of a pipelined goodput run over several QPs (marrow_gda_goodput.h), built by the
 * {@link Fabric} ({@link LoopbackQueues}): {@code qps} RC QPs on one software NIC, each connected to itself
 * (loopback) with its own SQ and CQ, sharded over {@code engineThreads}
 * engine threads (QP n goes to thread qpn % threads: docs/design/software-nic.md),
 * and one registered source and one destination buffer that all QPs share
 * (the runner gives each QP its own slice of slots). The NIC is one device,
 * so its wire model is ONE port for all QPs (docs/design/wire-model.md §1).
 */
public final class GoodputQueues implements AutoCloseable {
    private final Target target;
    private final Nic nic;
    private final int cudaDevice;
    private final Fabric fabric;
    private final MemorySegment endpoints;
    private final int qps;
    private final int engineThreads;

    private GoodputQueues(Target target, Nic nic, int cudaDevice, Fabric fabric, MemorySegment endpoints, int qps,
                          int engineThreads) {
        this.target = target;
        this.nic = nic;
        this.cudaDevice = cudaDevice;
        this.fabric = fabric;
        this.endpoints = endpoints;
        this.qps = qps;
        this.engineThreads = engineThreads;
    }

    /** The most QPs one run takes (MARROW_GDA_GOODPUT_MAX_QPS). */
    public static int maxQps() {
        return GoodputFfi.MAX_QPS;
    }

    /**
     * Refuses a QP or engine-thread count out of range, or a CPU list of
     * another length than the engine threads, before anything is opened.
     */
    public static void check(int qps, int engineThreads, int[] engineCpus) {
        if (qps < 1 || qps > maxQps()) {
            throw new IllegalArgumentException("--qps " + qps + ": must be 1.." + maxQps());
        }
        if (engineThreads < 1 || engineThreads > qps) {
            throw new IllegalArgumentException("--engine-threads " + engineThreads + ": must be 1..--qps (" + qps
                    + "); a thread beyond the QP count would own no QP");
        }
        if (engineCpus != null && engineCpus.length != engineThreads) {
            throw new IllegalArgumentException("--engine-cpus names " + engineCpus.length + " CPUs for "
                    + engineThreads + " engine threads (one per thread)");
        }
    }

    /**
     * @param engineCpus engine thread i pinned to engineCpus[i] (null: none pinned; else one per thread)
     * @param bufferBytes each of source and destination (at least qps slots of the largest size)
     * @throws IllegalArgumentException for a QP or engine-thread count out of range, or a CPU list of
     *                                  another length or naming a CPU that cannot be pinned
     */
    public static GoodputQueues open(Target target, int cudaDevice, int qps, int engineThreads, int[] engineCpus,
                                     SoftNic.PollMode poll, long bufferBytes) {
        return open(Nic.SOFTNIC, target, cudaDevice, qps, engineThreads, engineCpus, poll, bufferBytes);
    }

    /** As above on the given NIC (mlx5: verbs QPs on a ConnectX, target cuda; the engine flags unused). */
    public static GoodputQueues open(Nic nic, Target target, int cudaDevice, int qps, int engineThreads,
                                     int[] engineCpus, SoftNic.PollMode poll, long bufferBytes) {
        check(qps, engineThreads, engineCpus);
        Fabric f = Fabric.open(Fabric.Options.softNic("mini-gda goodput", target).withCudaDevice(cudaDevice)
                .withNic(nic, Placement.HOST).withEngine(poll, engineThreads, -1, engineCpus));
        try {
            NativeLib lib = target == Target.CUDA ? GdaFfi.Cuda.LIB : GdaFfi.Host.LIB;
            if (lib == null) {
                throw new MarrowException("mini-gda runner library not loaded");
            }
            GdaSetup.Queues shape = GdaSetup.Queues.defaults();
            LoopbackQueues q = f.loopback(qps, new Fabric.QueueShape(shape.logSq(), shape.logCq(), shape.maxInline()),
                    LoopbackQueues.Buffers.shared(bufferBytes));
            return new GoodputQueues(target, nic, cudaDevice, f, q.endpoints(), qps, engineThreads);
        } catch (RuntimeException e) {
            f.closeAfter(e);
            throw e;
        }
    }

    /** The software NIC behind the queues; null on mlx5. */
    public SoftNic softNic() {
        return fabric.softNic();
    }

    public Target target() {
        return target;
    }

    public int cudaDevice() {
        return cudaDevice;
    }

    public int qps() {
        return qps;
    }

    public int engineThreads() {
        return engineThreads;
    }

    /** marrow_gda_endpoint[qps]. */
    MemorySegment endpoints() {
        return endpoints;
    }

    /** "cpu+softnic" / "cuda+softnic" as results name the backend. */
    public String backendName() {
        return target.label() + "+" + nic.label();
    }

    @Override
    public void close() {
        fabric.close();
    }
}
