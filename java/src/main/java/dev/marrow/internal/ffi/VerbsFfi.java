// SPDX-License-Identifier: Apache-2.0
package dev.marrow.internal.ffi;

import dev.marrow.api.MarrowException;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/** libmarrow_verbs.so (marrow_verbs.h): rdma-core probing, dlopened lazily by the C side. */
public final class VerbsFfi {
    private VerbsFfi() {
    }

    public static final StructLayout PROBE_INFO = MemoryLayout.structLayout(
            JAVA_INT.withName("size"),
            JAVA_INT.withName("comp_mask"),
            JAVA_INT.withName("libibverbs_loaded"),
            JAVA_INT.withName("libmlx5_loaded"),
            JAVA_INT.withName("device_count"),
            JAVA_INT.withName("mlx5_device_count"),
            MemoryLayout.sequenceLayout(64, JAVA_BYTE).withName("first_device"),
            MemoryLayout.sequenceLayout(256, JAVA_BYTE).withName("libibverbs_path"),
            MemoryLayout.sequenceLayout(32, JAVA_BYTE).withName("libibverbs_version"),
            MemoryLayout.sequenceLayout(256, JAVA_BYTE).withName("libmlx5_path"),
            MemoryLayout.sequenceLayout(32, JAVA_BYTE).withName("libmlx5_version")).withName("marrow_verbs_probe_info");

    public static final StructLayout DEVICE_INFO = MemoryLayout.structLayout(
            JAVA_INT.withName("size"),
            JAVA_INT.withName("comp_mask"),
            JAVA_LONG.withName("node_guid"),
            MemoryLayout.sequenceLayout(64, JAVA_BYTE).withName("name"),
            MemoryLayout.sequenceLayout(64, JAVA_BYTE).withName("fw_ver"),
            JAVA_INT.withName("vendor_id"),
            JAVA_INT.withName("vendor_part_id"),
            JAVA_INT.withName("is_mlx5"),
            JAVA_INT.withName("phys_port_cnt"),
            JAVA_INT.withName("port1_state"),
            JAVA_INT.withName("port1_link_layer"),
            JAVA_INT.withName("port1_active_mtu"),
            JAVA_INT.withName("port1_lid")).withName("marrow_verbs_device_info");

    /** Holder: loading it loads the library and runs the handshake. */
    static final class H {
        static final NativeLib LIB = load();
        static final MethodHandle PROBE = LIB.handle("marrow_verbs_probe", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        static final MethodHandle DEVICE_INFO_H = LIB.handle("marrow_verbs_device_info",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));

        private static NativeLib load() {
            NativeLib lib = NativeLib.load("verbs");
            lib.verifyLayouts(List.of(PROBE_INFO, DEVICE_INFO));
            return lib;
        }
    }

    /** rdma-core facts for doctor; never throws for "no NIC" (that is in the map). */
    public static Map<String, Object> probeInfo() {
        Map<String, Object> m = new LinkedHashMap<>();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = NativeLib.allocateSized(a, PROBE_INFO);
            int rc = (int) H.PROBE.invokeExact(s);
            m.put("status", rc == 0 ? "ok" : H.LIB.statusName(rc) + ": " + H.LIB.lastError());
            m.put("libibverbs", str(s, PROBE_INFO, "libibverbs_path") + " " + str(s, PROBE_INFO, "libibverbs_version"));
            m.put("libmlx5", str(s, PROBE_INFO, "libmlx5_path") + " " + str(s, PROBE_INFO, "libmlx5_version"));
            int n = s.get(JAVA_INT, PROBE_INFO.byteOffset(groupElement("device_count")));
            m.put("device_count", n);
            m.put("mlx5_device_count", s.get(JAVA_INT, PROBE_INFO.byteOffset(groupElement("mlx5_device_count"))));
            for (int i = 0; i < n; i++) {
                MemorySegment d = NativeLib.allocateSized(a, DEVICE_INFO);
                if ((int) H.DEVICE_INFO_H.invokeExact(i, d) == 0) {
                    m.put("nic" + i, str(d, DEVICE_INFO, "name") + " fw " + str(d, DEVICE_INFO, "fw_ver")
                            + " part " + d.get(JAVA_INT, DEVICE_INFO.byteOffset(groupElement("vendor_part_id")))
                            + " port1 state " + d.get(JAVA_INT, DEVICE_INFO.byteOffset(groupElement("port1_state")))
                            + " link_layer " + d.get(JAVA_INT, DEVICE_INFO.byteOffset(groupElement("port1_link_layer"))));
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
            MemorySegment s = NativeLib.allocateSized(a, PROBE_INFO);
            int rc = (int) H.PROBE.invokeExact(s);
            if (rc != 0) {
                return new MarrowException(H.LIB.lastError().isEmpty() ? "marrow_verbs_probe: " + H.LIB.statusName(rc)
                        : H.LIB.lastError());
            }
            if (s.get(JAVA_INT, PROBE_INFO.byteOffset(groupElement("mlx5_device_count"))) == 0) {
                return new MarrowException("RDMA devices found but none is driven by mlx5 (need a ConnectX NIC)");
            }
            return null;
        } catch (ExceptionInInitializerError e) {
            return e.getCause() != null ? e.getCause() : e;
        } catch (Throwable t) {
            return t;
        }
    }

    static String str(MemorySegment s, StructLayout l, String field) {
        return s.asSlice(l.byteOffset(groupElement(field))).getString(0);
    }
}
