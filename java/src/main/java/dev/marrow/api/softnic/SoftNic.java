// SPDX-License-Identifier: Apache-2.0
package dev.marrow.api.softnic;

import dev.marrow.api.NativeException;
import dev.marrow.internal.ffi.CEnum;
import dev.marrow.internal.ffi.CStruct;
import dev.marrow.internal.ffi.NativeLib;
import dev.marrow.api.Backend;
import dev.marrow.internal.ffi.EmuFfi;
import dev.marrow.internal.ffi.EmuLayouts;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.foreign.StructLayout;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Map;

import static dev.marrow.internal.ffi.CStruct.setInt;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * An emulated mlx5 NIC: a device with one protection domain, plus its engine
 * thread(s). Everything it creates is closed with it, in the order the native
 * side requires (queue pairs, completion queues, memory regions, PD, device).
 *
 * <p>Not thread-safe for control operations; the data path is the producer's
 * own memory traffic on the queue views.
 */
public final class SoftNic implements AutoCloseable {
    /** Engine polling policy. */
    public enum PollMode implements CEnum {
        IDLE, HOT;

        @Override
        public String component() {
            return "emu";
        }

        @Override
        public String cName() {
            return "MARROW_EMU_POLL_" + name();
        }
    }

    /** Options for {@link #open(Options)}. */
    public record Options(PollMode pollMode, int engineThreads, int engineCpu, boolean quiet) {
        public static Options defaults() {
            return new Options(PollMode.IDLE, 1, -1, false);
        }

        public Options withPollMode(PollMode m) {
            return new Options(m, engineThreads, engineCpu, quiet);
        }

        public Options withQuiet(boolean q) {
            return new Options(pollMode, engineThreads, engineCpu, q);
        }

        public Options withEngineCpu(int cpu) {
            return new Options(pollMode, engineThreads, cpu, quiet);
        }

        public Options withEngineThreads(int n) {
            return new Options(pollMode, n, engineCpu, quiet);
        }
    }

    private final MemorySegment dev;
    private final MemorySegment pd;
    private final Deque<AutoCloseable> children = new ArrayDeque<>();
    private boolean closed;

    private SoftNic(MemorySegment dev, MemorySegment pd) {
        this.dev = dev;
        this.pd = pd;
    }

    public static SoftNic open(Options o) {
        Backend.SOFTNIC.ensureAvailability();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment attr = deviceAttr(a, o);
            MemorySegment out = a.allocate(ADDRESS);
            EmuFfi.LIB.check((int) EmuFfi.DEVICE_OPEN.invokeExact(attr, out), "marrow_emu_device_open");
            MemorySegment dev = out.get(ADDRESS, 0);
            int rc = (int) EmuFfi.PD_ALLOC.invokeExact(dev, out);
            if (rc != 0) {
                NativeException e = EmuFfi.LIB.exception(rc, "marrow_emu_pd_alloc");
                int ignored = (int) EmuFfi.DEVICE_CLOSE.invokeExact(dev);
                throw e;
            }
            return new SoftNic(dev, out.get(ADDRESS, 0));
        } catch (Throwable t) {
            throw NativeLib.rethrow(t);
        }
    }

    /**
     * Sets the wire model ({@link WireModel#NONE} clears it); the port's
     * clock and statistics restart. docs/design/wire-model.md.
     */
    public void setWire(WireModel w) {
        ensureOpen();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment m = w.enabled() ? w.segment(a) : MemorySegment.NULL;
            EmuFfi.LIB.check((int) EmuFfi.DEVICE_SET_WIRE.invokeExact(dev, m), "marrow_emu_device_set_wire");
        } catch (Throwable t) {
            throw NativeLib.rethrow(t);
        }
    }

    /** What the modeled port carried since the model was set (all zero without one). */
    public record WireStats(long messages, long payloadBytes, long wireBytes, long packets, long heldNs) {
    }

    public WireStats wireStats() {
        ensureOpen();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(JAVA_LONG, 5);
            EmuFfi.LIB.check((int) EmuFfi.WIRE_STATS.invokeExact(dev, out, 5), "marrow_emu_wire_stats");
            return new WireStats(out.getAtIndex(JAVA_LONG, 0), out.getAtIndex(JAVA_LONG, 1),
                    out.getAtIndex(JAVA_LONG, 2), out.getAtIndex(JAVA_LONG, 3), out.getAtIndex(JAVA_LONG, 4));
        } catch (Throwable t) {
            throw NativeLib.rethrow(t);
        }
    }

    /** The native device, for the C benchmarks of this package. */
    MemorySegment deviceHandle() {
        ensureOpen();
        return dev;
    }

    /** The marrow_emu_device_attr for these options (also the backend probe's). */
    public static MemorySegment deviceAttr(SegmentAllocator a, Options o) {
        StructLayout l = EmuLayouts.DEVICE_ATTR;
        MemorySegment attr = CStruct.allocate(a, l);
        setInt(attr, l, "poll_mode", o.pollMode().code());
        setInt(attr, l, "engine_threads", Math.max(1, o.engineThreads()));
        setInt(attr, l, "engine_cpu", o.engineCpu());
        setInt(attr, l, "quiet", o.quiet() ? 1 : 0);
        return attr;
    }

    /** Registers host memory; the segment must stay alive until the region is closed. */
    public MemoryRegion registerMemory(MemorySegment memory, int access) {
        ensureOpen();
        MemoryRegion mr = MemoryRegion.register(pd, memory, access);
        children.push(mr);
        return mr;
    }

    /** A CQ of 2^logEntries CQE64s. */
    public CompletionQueue createCompletionQueue(int logEntries, boolean collapsed, boolean overrunIgnore) {
        ensureOpen();
        CompletionQueue cq = CompletionQueue.create(dev, logEntries, collapsed, overrunIgnore);
        children.push(cq);
        return cq;
    }

    public QueuePair createQueuePair(QueuePair.Config config) {
        ensureOpen();
        QueuePair qp = QueuePair.create(pd, config);
        children.push(qp);
        return qp;
    }

    /**
     * Pins engine thread {@code i} to CPU {@code cpus[i]} (-1: leave it); one
     * entry per engine thread. Extends {@link Options#engineCpu()} (thread 0
     * only) to every engine thread.
     */
    public void pinEngines(int[] cpus) {
        ensureOpen();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment c = a.allocateFrom(JAVA_INT, cpus);
            EmuFfi.LIB.check((int) EmuFfi.ENGINE_PIN.invokeExact(dev, c, cpus.length), "marrow_emu_engine_pin");
        } catch (Throwable t) {
            throw NativeLib.rethrow(t);
        }
    }

    /**
     * The engine's view of the open QP with this QPN as watchdog-dump pairs
     * ({@link QueuePair#watchdogDump}), or "" when this NIC has no such QP.
     */
    public String watchdogDump(long qpn) {
        ensureOpen();
        for (AutoCloseable c : children) {
            if (c instanceof QueuePair q && q.isOpen() && q.qpn() == qpn) {
                return q.watchdogDump();
            }
        }
        return "";
    }

    /** A shared-memory wire with heapBytes of memory the peer process may write (ShmWire). */
    public ShmWire createWire(long heapBytes) {
        ensureOpen();
        ShmWire w = ShmWire.create(dev, heapBytes);
        children.push(w);
        return w;
    }

    /** Maps the peer process's wire by name (ShmWire.Peer). */
    public ShmWire.Peer attachWire(String name, int deadAfterMs) {
        ensureOpen();
        ShmWire.Peer p = ShmWire.Peer.attach(dev, name, deadAfterMs);
        children.push(p);
        return p;
    }

    /** Stops (true) or resumes (false) the engine: doorbells go unobserved while paused. */
    public void pauseEngine(boolean paused) {
        ensureOpen();
        try {
            EmuFfi.LIB.check((int) EmuFfi.ENGINE_PAUSE.invokeExact(dev, paused ? 1 : 0), "marrow_emu_engine_pause");
        } catch (Throwable t) {
            throw NativeLib.rethrow(t);
        }
    }

    public SoftNicCounters counters() {
        ensureOpen();
        try (Arena a = Arena.ofConfined()) {
            int n = (int) EmuFfi.COUNTER_COUNT.invokeExact();
            MemorySegment out = a.allocate(JAVA_LONG, n);
            EmuFfi.LIB.check((int) EmuFfi.COUNTERS_READ.invokeExact(dev, out, n), "marrow_emu_counters_read");
            Map<String, Long> m = new LinkedHashMap<>();
            for (int i = 0; i < n; i++) {
                MemorySegment name = (MemorySegment) EmuFfi.COUNTER_NAME.invokeExact(i);
                m.put(name.reinterpret(128).getString(0), out.getAtIndex(JAVA_LONG, i));
            }
            return new SoftNicCounters(m);
        } catch (Throwable t) {
            throw NativeLib.rethrow(t);
        }
    }

    MemorySegment device() {
        return dev;
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("SoftNic is closed");
        }
    }

    /** Closes every child (newest first), then the PD and the device. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        RuntimeException first = null;
        // Children were pushed in creation order; QPs must go before the CQs
        // and MRs they use, so close QPs first, then CQs, then MRs.
        // A wire first: its thread reads the QPs it exports, and the peer may
        // write into its MRs until it is withdrawn (ShmWire).
        for (Class<?> kind : new Class<?>[] {ShmWire.class, ShmWire.Peer.class, QueuePair.class,
                CompletionQueue.class, MemoryRegion.class}) {
            for (AutoCloseable c : children) {
                if (kind.isInstance(c)) {
                    try {
                        c.close();
                    } catch (Exception e) {
                        if (first == null) {
                            first = e instanceof RuntimeException r ? r : new RuntimeException(e);
                        }
                    }
                }
            }
        }
        children.clear();
        try {
            EmuFfi.LIB.check((int) EmuFfi.PD_FREE.invokeExact(pd), "marrow_emu_pd_free");
            EmuFfi.LIB.check((int) EmuFfi.DEVICE_CLOSE.invokeExact(dev), "marrow_emu_device_close");
        } catch (Throwable t) {
            if (first == null) {
                first = NativeLib.rethrow(t);
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
