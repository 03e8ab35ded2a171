// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.api.MarrowException;
import dev.marrow.gda.internal.GdaFfi;
import dev.marrow.gda.internal.GdaLayouts;
import dev.marrow.gda.EngineLayout;
import dev.marrow.internal.ffi.CStruct;
import dev.marrow.internal.ffi.EmuFfi;
import dev.marrow.internal.ffi.NativeLib;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.LinkedHashMap;
import java.util.Map;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Queues in GPU memory on the software NIC's device engine (a persistent
 * CUDA kernel on {@code nicSms} SMs; docs/design/device-engine.md): the
 * native session (marrow_gda_devnic_*) owns the engine, both QPs and CQs
 * and the four data buffers, all in GPU memory, and fills the two endpoints
 * the CUDA runner takes. Closing stops the engine (bounded) and frees them.
 */
final class DeviceEngineSession implements AutoCloseable {
    private final MemorySegment handle;
    private final MemorySegment epA;
    private final MemorySegment epB;
    private final int blocksPerSm;
    private final GdaRun.DeviceEngine asRun;
    private boolean closed;

    private DeviceEngineSession(MemorySegment handle, MemorySegment epA, MemorySegment epB, int blocksPerSm,
                                GdaRun.DeviceEngine asRun) {
        this.handle = handle;
        this.epA = epA;
        this.epB = epB;
        this.blocksPerSm = blocksPerSm;
        this.asRun = asRun;
    }

    /** Opens and starts the engine; the endpoints live in {@code arena}. */
    static DeviceEngineSession open(GdaSetup s, Arena arena, int cqFlags) {
        MemorySegment epA = CStruct.allocate(arena, GdaLayouts.ENDPOINT);
        MemorySegment epB = CStruct.allocate(arena, GdaLayouts.ENDPOINT);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(ADDRESS);
            int rc = (int) GdaFfi.Cuda.DEVNIC_OPEN.invokeExact(s.cudaDevice(), s.nicSms(), s.logSq(), s.logCq(),
                    cqFlags, s.maxInline(), s.bufferBytes(), out, epA, epB);
            GdaFfi.Cuda.LIB.check(rc, "marrow_gda_devnic_open");
            MemorySegment h = out.get(ADDRESS, 0);
            MemorySegment distinct = a.allocate(JAVA_INT);
            MemorySegment occ = a.allocate(JAVA_INT);
            MemorySegment mode = a.allocate(JAVA_INT);
            MemorySegment perSm = a.allocate(JAVA_INT);
            int src = (int) GdaFfi.Cuda.DEVNIC_SMS.invokeExact(h, distinct, occ);
            int lrc = src != 0 ? 0 : (int) GdaFfi.Cuda.DEVNIC_LAYOUT.invokeExact(h, mode, perSm);
            DeviceEngineSession d = new DeviceEngineSession(h, epA, epB, occ.get(JAVA_INT, 0),
                    new GdaRun.DeviceEngine(distinct.get(JAVA_INT, 0), EngineLayout.labelOf(mode.get(JAVA_INT, 0)),
                            perSm.get(JAVA_INT, 0)));
            if (src != 0 || lrc != 0) {
                d.close();
                GdaFfi.Cuda.LIB.check(src, "marrow_gda_devnic_sms");
                GdaFfi.Cuda.LIB.check(lrc, "marrow_gda_devnic_layout");
            }
            return d;
        } catch (Throwable t) {
            throw NativeLib.rethrow(t);
        }
    }

    MemorySegment endpointA() {
        return epA;
    }

    MemorySegment endpointB() {
        return epB;
    }

    /** Distinct SMs the engine's blocks reported running on (= nic_sms when every block is resident). */
    int distinctSms() {
        return asRun.distinctSms();
    }

    /** What the records say of the engine as it ran: distinct SMs, layout, engine threads per SM. */
    GdaRun.DeviceEngine asRun() {
        return asRun;
    }

    /** The engine kernel's occupancy (blocks per SM) at its block size. */
    int blocksPerSm() {
        return blocksPerSm;
    }

    /** The engine's counters, by the CPU engine's names (emu_...). */
    Map<String, Long> counters() {
        try (Arena a = Arena.ofConfined()) {
            int n = (int) EmuFfi.COUNTER_COUNT.invokeExact();
            MemorySegment v = a.allocate(JAVA_LONG, n);
            MemorySegment dev = (MemorySegment) GdaFfi.Cuda.DEVNIC_DEVICE.invokeExact(handle);
            GdaFfi.Cuda.LIB.check((int) GdaFfi.Cuda.SNDEV_COUNTERS.invokeExact(dev, v, n),
                    "marrow_softnic_device_counters");
            Map<String, Long> m = new LinkedHashMap<>();
            for (int i = 0; i < n; i++) {
                MemorySegment name = (MemorySegment) EmuFfi.COUNTER_NAME.invokeExact(i);
                m.put(name.reinterpret(128).getString(0), v.getAtIndex(JAVA_LONG, i));
            }
            return m;
        } catch (Throwable t) {
            throw NativeLib.rethrow(t);
        }
    }

    /** The engine's view of QP 0 (A) or 1 (B) as watchdog key=value pairs. */
    String dump(int qp) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment buf = a.allocate(1024);
            MemorySegment dev = (MemorySegment) GdaFfi.Cuda.DEVNIC_DEVICE.invokeExact(handle);
            GdaFfi.Cuda.LIB.check((int) GdaFfi.Cuda.SNDEV_DUMP.invokeExact(dev, qp, buf, 1024),
                    "marrow_softnic_device_dump");
            return buf.getString(0);
        } catch (Throwable t) {
            throw NativeLib.rethrow(t);
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            GdaFfi.Cuda.LIB.check((int) GdaFfi.Cuda.DEVNIC_CLOSE.invokeExact(handle), "marrow_gda_devnic_close");
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new MarrowException("marrow_gda_devnic_close failed: " + t, t);
        }
    }
}
