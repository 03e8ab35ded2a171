// SPDX-License-Identifier: Apache-2.0
package dev.marrow.kcost;

import dev.marrow.api.Backend;
import dev.marrow.api.MarrowException;
import dev.marrow.fabric.Fabric;
import dev.marrow.gda.KernelCostQueues;
import dev.marrow.internal.ffi.CStruct;
import dev.marrow.proxy.GpuProducers;
import dev.marrow.proxy.Handoff;
import dev.marrow.proxy.MiniProxy;
import dev.marrow.proxy.ProxyConfig;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.util.ArrayList;
import java.util.List;

import static dev.marrow.internal.ffi.CStruct.getInt;
import static dev.marrow.internal.ffi.CStruct.getLong;
import static dev.marrow.internal.ffi.CStruct.setInt;
import static dev.marrow.internal.ffi.CStruct.setLong;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

/**
 * Runs kernel-cost points (marrow_kcost.h) on one GPU. The NIC side of the
 * sending arms is opened on first need and kept for the session: 'blocks'
 * QPs of the settings' fabric for mini-gda ({@link KernelCostQueues}), a mini-proxy of
 * the default shape (baseline handoff: blocks share rings) for mini-proxy.
 * Close it after the last point; it frees the proxy's GPU mapping, then the
 * proxy, then the QPs.
 */
public final class KernelCost implements AutoCloseable {
    private final KcostSettings s;
    private final int maxMsgSize;
    private KernelCostQueues queues;
    private MiniProxy proxy;
    private GpuProducers producers;

    private KernelCost(KcostSettings s, int maxMsgSize) {
        this.s = s;
        this.maxMsgSize = maxMsgSize;
    }

    /** Needs a CUDA GPU (BackendUnavailableException otherwise: exit 77 in the CLI). */
    public static KernelCost open(KcostSettings s, int maxMsgSize) {
        Fabric.check(s.fabricOptions()); // the NIC first (--nic mlx5 without a ConnectX: exit 77), then the GPU
        Backend.CUDA.ensureAvailability();
        return new KernelCost(s, maxMsgSize);
    }

    /** MARROW_KCOST_SEGMENTS of the library. */
    public static int segments() {
        return KcostFfi.LIB.intConstant("MARROW_KCOST_SEGMENTS");
    }

    /** The live-value counts the library was built with, ascending. */
    public static List<Integer> liveValues() {
        try {
            int n = (int) KcostFfi.LIVE_COUNT.invokeExact();
            List<Integer> v = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                v.add((int) KcostFfi.LIVE_VALUE.invokeExact(i));
            }
            return v;
        } catch (Throwable t) {
            throw new MarrowException("marrow_kcost_live_value failed: " + t, t);
        }
    }

    public KcostMeasurement run(KcostPoint p) {
        MemorySegment eps = MemorySegment.NULL;
        int nEps = 0;
        MemorySegment px = MemorySegment.NULL;
        if (p.arm().sends() && p.transport() == Transport.GDA) {
            if (queues == null) {
                queues = KernelCostQueues.open(s.fabricOptions(), s.blocks(), maxMsgSize);
            }
            eps = queues.endpoints();
            nEps = queues.count();
        } else if (p.arm().sends() && p.transport() == Transport.PROXY) {
            if (producers == null) {
                openProxy();
            }
            px = producers.nativeContext();
        }
        StructLayout C = KcostFfi.CONFIG;
        StructLayout R = KcostFfi.RESULT;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cfg = CStruct.allocate(a, C);
            setInt(cfg, C, "caller", p.caller().code());
            setInt(cfg, C, "transport", p.transport().code());
            setInt(cfg, C, "live", p.live());
            setInt(cfg, C, "blocks", s.blocks());
            setInt(cfg, C, "threads", s.threads());
            setInt(cfg, C, "msgs", p.msgs());
            setInt(cfg, C, "msg_size", p.msgSize());
            setInt(cfg, C, "wait", p.arm().waits() ? 1 : 0);
            setInt(cfg, C, "launches", s.launches());
            setInt(cfg, C, "warmup", s.warmup());
            setLong(cfg, C, "work", s.workFor(p.caller()));
            setLong(cfg, C, "timeout_ns", s.timeoutNs());
            setInt(cfg, C, "cuda_device", s.cudaDevice());
            MemorySegment res = CStruct.allocate(a, R);
            MemorySegment times = a.allocate(JAVA_FLOAT, s.launches());
            int rc = (int) KcostFfi.RUN.invokeExact(cfg, eps, nEps, px, times, res);
            KcostFfi.LIB.check(rc, "marrow_kcost_run");
            float[] f = times.toArray(JAVA_FLOAT);
            double[] ms = new double[f.length];
            for (int i = 0; i < f.length; i++) {
                ms[i] = f[i];
            }
            return new KcostMeasurement(p, getInt(res, R, "regs_per_thread"), getInt(res, R, "local_bytes"),
                    getInt(res, R, "blocks_per_sm"), getInt(res, R, "sm_count"), ms,
                    getLong(res, R, "messages"), getLong(res, R, "completions"));
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new MarrowException("marrow_kcost_run failed: " + t, t);
        }
    }

    private void openProxy() {
        // two halves of (latency area + the largest message), at least the library's own minimum
        long half = 8192L + ((maxMsgSize + 4095L) / 4096) * 4096;
        ProxyConfig c = ProxyConfig.softnic(s.proxyWorkers(), s.proxyRings(), 16, Handoff.BASELINE)
                .withMinBufferBytes(2 * half)
                // its own software NIC; next to the mini-gda queues' engine when that one is pinned
                .withEngine(true, 1, s.engineCpu() < 0 ? -1 : s.engineCpu() + 1);
        proxy = MiniProxy.open(c);
        try {
            producers = proxy.openGpu(s.cudaDevice(), Handoff.BASELINE, false);
            proxy.start();
        } catch (RuntimeException e) {
            if (producers != null) {
                producers.close();
                producers = null;
            }
            proxy.close();
            proxy = null;
            throw e;
        }
    }

    @Override
    public void close() {
        if (producers != null) {
            producers.close();
        }
        if (proxy != null) {
            proxy.close();
        }
        if (queues != null) {
            queues.close();
        }
    }
}
