// SPDX-License-Identifier: Apache-2.0
package dev.marrow.proxy;

import dev.marrow.internal.ffi.CEnum;
import dev.marrow.internal.ffi.CStruct;
import dev.marrow.internal.ffi.NativeLib;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static dev.marrow.internal.ffi.CStruct.getInt;
import static dev.marrow.internal.ffi.CStruct.setAddress;
import static dev.marrow.internal.ffi.CStruct.setInt;
import static dev.marrow.internal.ffi.CStruct.setLong;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * GPU producer threads (libmarrow_cuda.so) publishing into a {@link MiniProxy}'s
 * rings, mapped into the GPU. Timed in-kernel (clock64 calibrated against
 * %globaltimer). Close it before the proxy (the GPU mappings go first).
 */
public final class GpuProducers implements AutoCloseable {
    /** Where the tuned completion counter lives: host, gdrcopy or mapped_pinned. */
    public enum CplKind implements CEnum {
        HOST, GDRCOPY, MAPPED_PINNED;

        @Override
        public String component() {
            return "host";
        }

        @Override
        public String cName() {
            return "MARROW_PROXY_CPL_" + name();
        }
    }

    private final MiniProxy proxy;
    private final MemorySegment ctx;
    private final Handoff handoff;
    private final CplKind cplKind;
    private final String note;
    private boolean closed;

    private GpuProducers(MiniProxy proxy, MemorySegment ctx, Handoff handoff, CplKind kind, String note) {
        this.proxy = proxy;
        this.ctx = ctx;
        this.handoff = handoff;
        this.cplKind = kind;
        this.note = note;
    }

    static GpuProducers open(MiniProxy px, int gpu, Handoff handoff, boolean gdrcopy) {
        ProxyConfig c = px.config();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment[] arena = px.arena();
            java.lang.foreign.StructLayout L = ProxyFfi.CUDA_OPEN_ARGS;
            MemorySegment args = CStruct.allocate(a, L);
            setAddress(args, L, "arena", arena[0]);
            setLong(args, L, "arena_bytes", arena[1].address());
            setAddress(args, L, "buffer", px.buffer());
            setLong(args, L, "buffer_len", px.buffer().byteSize());
            setInt(args, L, "rings", c.rings());
            setInt(args, L, "log_slots", c.logSlots());
            setInt(args, L, "handoff", handoff.code());
            setInt(args, L, "gpu", gpu);
            setInt(args, L, "use_gdrcopy", gdrcopy ? 1 : 0);
            MemorySegment out = a.allocate(ADDRESS);
            MemorySegment targets = a.allocate(ADDRESS, c.rings());
            MemorySegment info = CStruct.allocate(a, ProxyFfi.CUDA_INFO);
            ProxyFfi.Cuda.check((int) ProxyFfi.Cuda.OPEN.invokeExact(args, out, targets, info), "marrow_proxy_cuda_open");
            MemorySegment ctx = out.get(ADDRESS, 0);
            for (int r = 0; r < c.rings(); r++) {
                MemorySegment t = targets.getAtIndex(ADDRESS, r);
                if (!t.equals(MemorySegment.NULL)) {
                    px.setCplTarget(r, t);
                }
            }
            int code = getInt(info, ProxyFfi.CUDA_INFO, "cpl_kind");
            CplKind kind = CEnum.byCode(CplKind.values(), code);
            if (kind == null) {
                throw new dev.marrow.api.MarrowException("marrow_proxy_cuda_open reported an unknown completion kind " + code);
            }
            String note = CStruct.getString(info, ProxyFfi.CUDA_INFO, "note");
            return new GpuProducers(px, ctx, handoff, kind, note);
        } catch (Throwable t) {
            throw ProxyFfi.rethrow(t);
        }
    }

    /**
     * The native struct marrow_proxy_cuda_ctx, for other GPU code that
     * enqueues into the same rings (the kernel-cost callers). Valid until close.
     */
    public MemorySegment nativeContext() {
        if (closed) {
            throw new IllegalStateException("GpuProducers is closed");
        }
        return ctx;
    }

    public Handoff handoff() {
        return handoff;
    }

    public CplKind cplKind() {
        return cplKind;
    }

    /** Why this completion-counter placement was used (e.g. why GDRCopy was not). */
    public String note() {
        return note;
    }

    /** SM clock (kHz) measured over the last latency kernel. */
    public int smClockKhz() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment info = CStruct.allocate(a, ProxyFfi.CUDA_INFO);
            ProxyFfi.Cuda.check((int) ProxyFfi.Cuda.QUERY.invokeExact(ctx, info), "marrow_proxy_cuda_query");
            return getInt(info, ProxyFfi.CUDA_INFO, "sm_clock_khz");
        } catch (Throwable t) {
            throw ProxyFfi.rethrow(t);
        }
    }

    /** One GPU thread; putc phase and/or round-trip phase (the latter starts PE 1's responder on ring 1). */
    public LatencySamples latency(int iters, int warmup, long timeoutNs, boolean putc, boolean rtt) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = MiniProxy.latencyParams(a, iters, warmup, 8, timeoutNs);
            MemorySegment is = putc ? a.allocate(JAVA_LONG, iters) : MemorySegment.NULL;
            MemorySegment pc = putc ? a.allocate(JAVA_LONG, iters) : MemorySegment.NULL;
            MemorySegment rt = rtt ? a.allocate(JAVA_LONG, iters) : MemorySegment.NULL;
            if (putc) {
                ProxyFfi.Cuda.check((int) ProxyFfi.Cuda.LATENCY.invokeExact(ctx, p, is, pc, MemorySegment.NULL),
                        "marrow_proxy_cuda_latency");
            }
            if (rtt) {
                proxy.responder(true, 1, 8);
                try {
                    ProxyFfi.Cuda.check((int) ProxyFfi.Cuda.LATENCY.invokeExact(ctx, p, MemorySegment.NULL,
                            MemorySegment.NULL, rt), "marrow_proxy_cuda_latency");
                } finally {
                    proxy.responder(false, 1, 8);
                }
            }
            return new LatencySamples(MiniProxy.arr(is), MiniProxy.arr(pc), MiniProxy.arr(rt));
        } catch (Throwable t) {
            throw ProxyFfi.rethrow(t);
        }
    }

    /** producers GPU threads, messages each; an untimed warm-up launch first; worker stats cover the timed launch. */
    public RateResult rate(int producers, long messagesPerProducer, long warmupPerProducer, int msgSize, long timeoutNs) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment r = a.allocate(ProxyFfi.RATE_RESULT);
            if (warmupPerProducer > 0) {
                setInt(r, ProxyFfi.RATE_RESULT, "size", (int) ProxyFfi.RATE_RESULT.byteSize());
                MemorySegment w = MiniProxy.rateParams(a, producers, warmupPerProducer, 0, msgSize, timeoutNs);
                ProxyFfi.Cuda.check((int) ProxyFfi.Cuda.RATE.invokeExact(ctx, w, r), "marrow_proxy_cuda_rate");
            }
            MemorySegment p = MiniProxy.rateParams(a, producers, messagesPerProducer, 0, msgSize, timeoutNs);
            setInt(r, ProxyFfi.RATE_RESULT, "size", (int) ProxyFfi.RATE_RESULT.byteSize());
            proxy.mark(false);
            int rc = (int) ProxyFfi.Cuda.RATE.invokeExact(ctx, p, r);
            proxy.mark(true);
            ProxyFfi.Cuda.check(rc, "marrow_proxy_cuda_rate");
            return MiniProxy.rateResult(r, proxy.window());
        } catch (Throwable t) {
            throw ProxyFfi.rethrow(t);
        }
    }

    /** Unmaps from the GPU; the proxy's completion counters go back to host memory. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            proxy.stop();
            for (int r = 0; r < proxy.config().rings(); r++) {
                proxy.setCplTarget(r, MemorySegment.NULL);
            }
            ProxyFfi.Cuda.check((int) ProxyFfi.Cuda.CLOSE.invokeExact(ctx), "marrow_proxy_cuda_close");
        } catch (Throwable t) {
            throw ProxyFfi.rethrow(t);
        }
    }
}
