// SPDX-License-Identifier: Apache-2.0
package dev.marrow.internal.ffi;

import dev.marrow.api.MarrowException;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.marrow.internal.ffi.CStruct.bytes;
import static dev.marrow.internal.ffi.CStruct.getInt;
import static dev.marrow.internal.ffi.CStruct.getLong;
import static dev.marrow.internal.ffi.CStruct.getString;
import static dev.marrow.internal.ffi.CStruct.i32;
import static dev.marrow.internal.ffi.CStruct.i64;
import static dev.marrow.internal.ffi.CStruct.layout;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/** libmarrow_cuda.so device probing (marrow_cuda.h). */
public final class CudaFfi {
    private CudaFfi() {
    }

    private static final NativeLib LIB = NativeLib.shared("cuda");

    public static final StructLayout PROBE_INFO = layout(LIB, "marrow_cuda_probe_info",
            i32("device_count"), i32("driver_version"), i32("runtime_version"), i32("cuda_error"));

    public static final StructLayout DEVICE_INFO = layout(LIB, "marrow_cuda_device_info",
            i64("total_mem_bytes"), bytes("name"), bytes("pci_bus_id"), bytes("uuid"), i32("ordinal"), i32("cc_major"),
            i32("cc_minor"), i32("sm_count"), i32("clock_rate_khz"), i32("mem_clock_khz"), i32("mem_bus_width_bits"),
            i32("l2_bytes"), i32("max_shared_per_block_optin"), i32("cluster_launch"), i32("gpudirect_rdma_supported"),
            i32("gpudirect_rdma_writes_ordering"), i32("host_register_supported"));

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
            return CudaFfi.LIB; // the layouts above were built from it: the layout handshake
        }
    }

    static Throwable probe() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = CStruct.allocate(a, PROBE_INFO);
            int rc = (int) H.PROBE.invokeExact(s);
            if (rc != 0) {
                String text = H.LIB.lastError().isEmpty() ? "marrow_cuda_probe: " + H.LIB.statusName(rc)
                        : H.LIB.lastError();
                return new MarrowException(describeFailure(text, getInt(s, PROBE_INFO, "cuda_error"),
                        getInt(s, PROBE_INFO, "driver_version"), hasNvidiaDeviceNodes()));
            }
            return getInt(s, PROBE_INFO, "device_count") > 0 ? null : new MarrowException("no CUDA device is visible");
        } catch (ExceptionInInitializerError e) {
            return e.getCause() != null ? e.getCause() : e;
        } catch (Throwable t) {
            return t;
        }
    }

    /** cudaErrorInsufficientDriver and cudaErrorNoDevice (cuda_runtime_api.h's cudaError_t). */
    static final int CUDA_ERROR_INSUFFICIENT_DRIVER = 35;
    static final int CUDA_ERROR_NO_DEVICE = 100;

    /**
     * The probe's failure in words. Without a driver the CUDA runtime reports "driver version is
     * insufficient" (it reads a missing libcuda.so.1 as version 0), which sends a user looking for a
     * driver upgrade on a machine that has no GPU: when libcuda.so.1 did not load (driver version 0)
     * or no /dev/nvidia* node exists, the cause is said plainly and CUDA's text follows.
     */
    static String describeFailure(String cudaText, int cudaError, int driverVersion, boolean deviceNodes) {
        boolean driverMissing = driverVersion == 0;
        if ((cudaError == CUDA_ERROR_INSUFFICIENT_DRIVER || cudaError == CUDA_ERROR_NO_DEVICE)
                && (driverMissing || !deviceNodes)) {
            return "no NVIDIA driver/GPU found (" + (driverMissing ? "libcuda.so.1 not loadable" : "libcuda.so.1 loads")
                    + (deviceNodes ? "" : "; no /dev/nvidia* device node") + "); CUDA runtime said: " + cudaText;
        }
        return cudaText;
    }

    /** Whether the kernel exposes an NVIDIA GPU (/dev/nvidia0, /dev/nvidia1, ...). */
    static boolean hasNvidiaDeviceNodes() {
        java.io.File[] f = new java.io.File("/dev").listFiles((d, n) -> n.matches("nvidia[0-9]+"));
        return f != null && f.length > 0;
    }

    /** Driver and runtime versions as "13.0"-style strings. */
    public static Map<String, Object> versions() {
        Map<String, Object> m = new LinkedHashMap<>();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = CStruct.allocate(a, PROBE_INFO);
            int rc = (int) H.PROBE.invokeExact(s);
            m.put("cuda_driver", version(getInt(s, PROBE_INFO, "driver_version")));
            m.put("cuda_runtime", version(getInt(s, PROBE_INFO, "runtime_version")));
            m.put("gpu_count", rc == 0 ? getInt(s, PROBE_INFO, "device_count") : 0);
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
            MemorySegment s = CStruct.allocate(a, PROBE_INFO);
            H.LIB.check((int) H.PROBE.invokeExact(s), "marrow_cuda_probe");
            int n = getInt(s, PROBE_INFO, "device_count");
            for (int i = 0; i < n; i++) {
                MemorySegment d = CStruct.allocate(a, DEVICE_INFO);
                H.LIB.check((int) H.DEVICE_INFO_H.invokeExact(i, d), "marrow_cuda_device_info");
                out.add(new Gpu(i, getString(d, DEVICE_INFO, "name"), getString(d, DEVICE_INFO, "pci_bus_id"),
                        HexFormat.of().formatHex(CStruct.slice(d, DEVICE_INFO, "uuid").toArray(JAVA_BYTE)),
                        getInt(d, DEVICE_INFO, "cc_major"), getInt(d, DEVICE_INFO, "cc_minor"), getInt(d, DEVICE_INFO, "sm_count"), getInt(d, DEVICE_INFO, "clock_rate_khz"),
                        getInt(d, DEVICE_INFO, "mem_clock_khz"), getLong(d, DEVICE_INFO, "total_mem_bytes"), getInt(d, DEVICE_INFO, "cluster_launch") != 0));
            }
        } catch (Throwable t) {
            throw NativeLib.rethrow(t);
        }
        return out;
    }
}
