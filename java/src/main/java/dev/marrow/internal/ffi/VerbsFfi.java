// SPDX-License-Identifier: Apache-2.0
package dev.marrow.internal.ffi;

import dev.marrow.api.MarrowException;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.util.LinkedHashMap;
import java.util.Map;

import static dev.marrow.internal.ffi.CStruct.bytes;
import static dev.marrow.internal.ffi.CStruct.getInt;
import static dev.marrow.internal.ffi.CStruct.getString;
import static dev.marrow.internal.ffi.CStruct.i32;
import static dev.marrow.internal.ffi.CStruct.i64;
import static dev.marrow.internal.ffi.CStruct.layout;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/** libmarrow_verbs.so (marrow_verbs.h): rdma-core probing, dlopened lazily by the C side. */
public final class VerbsFfi {
    private VerbsFfi() {
    }

    private static final NativeLib LIB = NativeLib.shared("verbs");

    public static final StructLayout PROBE_INFO = layout(LIB, "marrow_verbs_probe_info",
            i32("libibverbs_loaded"), i32("libmlx5_loaded"), i32("device_count"), i32("mlx5_device_count"),
            bytes("first_device"), bytes("libibverbs_path"), bytes("libibverbs_version"), bytes("libmlx5_path"),
            bytes("libmlx5_version"));

    public static final StructLayout DEVICE_INFO = layout(LIB, "marrow_verbs_device_info",
            i64("node_guid"), bytes("name"), bytes("fw_ver"), i32("vendor_id"), i32("vendor_part_id"), i32("is_mlx5"),
            i32("phys_port_cnt"), i32("port1_state"), i32("port1_link_layer"), i32("port1_active_mtu"), i32("port1_lid"));

    /** Holder: loading it loads the library and runs the handshake. */
    static final class H {
        static final NativeLib LIB = load();
        static final MethodHandle PROBE = LIB.handle("marrow_verbs_probe", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        static final MethodHandle DEVICE_INFO_H = LIB.handle("marrow_verbs_device_info",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));

        private static NativeLib load() {
            return VerbsFfi.LIB; // the layouts above were built from it: the layout handshake
        }
    }

    /** rdma-core facts for doctor; never throws for "no NIC" (that is in the map). */
    public static Map<String, Object> probeInfo() {
        Map<String, Object> m = new LinkedHashMap<>();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = CStruct.allocate(a, PROBE_INFO);
            int rc = (int) H.PROBE.invokeExact(s);
            m.put("status", rc == 0 ? "ok" : H.LIB.statusName(rc) + ": " + H.LIB.lastError());
            m.put("libibverbs", getString(s, PROBE_INFO, "libibverbs_path") + " " + getString(s, PROBE_INFO, "libibverbs_version"));
            m.put("libmlx5", getString(s, PROBE_INFO, "libmlx5_path") + " " + getString(s, PROBE_INFO, "libmlx5_version"));
            int n = getInt(s, PROBE_INFO, "device_count");
            m.put("device_count", n);
            m.put("mlx5_device_count", getInt(s, PROBE_INFO, "mlx5_device_count"));
            for (int i = 0; i < n; i++) {
                MemorySegment d = CStruct.allocate(a, DEVICE_INFO);
                if ((int) H.DEVICE_INFO_H.invokeExact(i, d) == 0) {
                    m.put("nic" + i, getString(d, DEVICE_INFO, "name") + " fw " + getString(d, DEVICE_INFO, "fw_ver")
                            + " part " + getInt(d, DEVICE_INFO, "vendor_part_id")
                            + " port1 state " + getInt(d, DEVICE_INFO, "port1_state")
                            + " link_layer " + getInt(d, DEVICE_INFO, "port1_link_layer"));
                }
            }
        } catch (Throwable t) {
            m.put("status", "error: " + t.getMessage());
        }
        return m;
    }

    /** Null when a NIC is usable; else the reason. */
    static Throwable probe() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = CStruct.allocate(a, PROBE_INFO);
            int rc = (int) H.PROBE.invokeExact(s);
            if (rc != 0) {
                return new MarrowException(H.LIB.lastError().isEmpty() ? "marrow_verbs_probe: " + H.LIB.statusName(rc)
                        : H.LIB.lastError());
            }
            if (getInt(s, PROBE_INFO, "mlx5_device_count") == 0) {
                return new MarrowException("RDMA devices found but none is driven by mlx5 (need a ConnectX NIC)");
            }
            return null;
        } catch (ExceptionInInitializerError e) {
            return e.getCause() != null ? e.getCause() : e;
        } catch (Throwable t) {
            return t;
        }
    }
}
