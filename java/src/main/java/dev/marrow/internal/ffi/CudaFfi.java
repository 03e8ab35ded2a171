// SPDX-License-Identifier: Apache-2.0
package dev.marrow.internal.ffi;

import dev.marrow.api.MarrowException;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/** libmarrow_cuda.so device probing (marrow_cuda.h). */
public final class CudaFfi {
    private CudaFfi() {
    }

    public static final StructLayout PROBE_INFO = MemoryLayout.structLayout(
            JAVA_INT.withName("size"),
            JAVA_INT.withName("comp_mask"),
            JAVA_INT.withName("device_count"),
            JAVA_INT.withName("driver_version"),
            JAVA_INT.withName("runtime_version"),
            JAVA_INT.withName("cuda_error")).withName("marrow_cuda_probe_info");

    public static final StructLayout DEVICE_INFO = MemoryLayout.structLayout(
            JAVA_INT.withName("size"),
            JAVA_INT.withName("comp_mask"),
            JAVA_LONG.withName("total_mem_bytes"),
            MemoryLayout.sequenceLayout(256, JAVA_BYTE).withName("name"),
            MemoryLayout.sequenceLayout(32, JAVA_BYTE).withName("pci_bus_id"),
            MemoryLayout.sequenceLayout(16, JAVA_BYTE).withName("uuid"),
            JAVA_INT.withName("ordinal"),
            JAVA_INT.withName("cc_major"),
            JAVA_INT.withName("cc_minor"),
            JAVA_INT.withName("sm_count"),
            JAVA_INT.withName("clock_rate_khz"),
            JAVA_INT.withName("mem_clock_khz"),
            JAVA_INT.withName("mem_bus_width_bits"),
            JAVA_INT.withName("l2_bytes"),
            JAVA_INT.withName("max_shared_per_block_optin"),
            JAVA_INT.withName("cluster_launch"),
            JAVA_INT.withName("gpudirect_rdma_supported"),
            JAVA_INT.withName("gpudirect_rdma_writes_ordering"),
            JAVA_INT.withName("host_register_supported"),
            JAVA_INT.withName("reserved")).withName("marrow_cuda_device_info");

    /** One GPU as the CUDA runtime describes it. */
    public record Gpu(int ordinal, String name, String pciBusId, String uuid, int ccMajor, int ccMinor, int smCount,
                      int clockKhz, int memClockKhz, long totalMemBytes, boolean clusterLaunch) {
    }

    static final class H {
        static final NativeLib LIB = load();
        static final MethodHandle PROBE = LIB.handle("marrow_cuda_probe", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        static final MethodHandle DEVICE_INFO_H = LIB.handle("marrow_cuda_device_info",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));

        private static NativeLib load() {
            NativeLib lib = NativeLib.load("cuda");
            lib.verifyLayouts(List.of(PROBE_INFO, DEVICE_INFO));
            return lib;
        }
    }

    static Throwable probe() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = NativeLib.allocateSized(a, PROBE_INFO);
            int rc = (int) H.PROBE.invokeExact(s);
            if (rc != 0) {
                return new MarrowException(H.LIB.lastError().isEmpty() ? "marrow_cuda_probe: " + H.LIB.statusName(rc)
                        : H.LIB.lastError());
            }
            return s.get(JAVA_INT, 8) > 0 ? null : new MarrowException("no CUDA device is visible");
        } catch (ExceptionInInitializerError e) {
            return e.getCause() != null ? e.getCause() : e;
        } catch (Throwable t) {
            return t;
        }
    }

    /** Driver and runtime versions as "13.0"-style strings. */
    public static Map<String, Object> versions() {
        Map<String, Object> m = new LinkedHashMap<>();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = NativeLib.allocateSized(a, PROBE_INFO);
            int rc = (int) H.PROBE.invokeExact(s);
            m.put("cuda_driver", version(s.get(JAVA_INT, 12)));
            m.put("cuda_runtime", version(s.get(JAVA_INT, 16)));
            m.put("gpu_count", rc == 0 ? s.get(JAVA_INT, 8) : 0);
        } catch (Throwable t) {
            m.put("cuda", "unavailable: " + t.getMessage());
        }
        return m;
    }

    static String version(int v) {
        return v <= 0 ? "none" : (v / 1000) + "." + (v % 1000) / 10;
    }

    public static List<Gpu> gpus() {
        List<Gpu> out = new ArrayList<>();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = NativeLib.allocateSized(a, PROBE_INFO);
            H.LIB.check((int) H.PROBE.invokeExact(s), "marrow_cuda_probe");
            int n = s.get(JAVA_INT, 8);
            for (int i = 0; i < n; i++) {
                MemorySegment d = NativeLib.allocateSized(a, DEVICE_INFO);
                H.LIB.check((int) H.DEVICE_INFO_H.invokeExact(i, d), "marrow_cuda_device_info");
                out.add(new Gpu(i, VerbsFfi.str(d, DEVICE_INFO, "name"), VerbsFfi.str(d, DEVICE_INFO, "pci_bus_id"),
                        HexFormat.of().formatHex(d.asSlice(DEVICE_INFO.byteOffset(groupElement("uuid")), 16).toArray(JAVA_BYTE)),
                        i32(d, "cc_major"), i32(d, "cc_minor"), i32(d, "sm_count"), i32(d, "clock_rate_khz"),
                        i32(d, "mem_clock_khz"), d.get(JAVA_LONG, 8), i32(d, "cluster_launch") != 0));
            }
        } catch (Throwable t) {
            throw NativeLib.rethrow(t);
        }
        return out;
    }

    private static int i32(MemorySegment d, String f) {
        return d.get(JAVA_INT, DEVICE_INFO.byteOffset(groupElement(f)));
    }
}
