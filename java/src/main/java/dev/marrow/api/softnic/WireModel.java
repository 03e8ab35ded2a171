// SPDX-License-Identifier: Apache-2.0
package dev.marrow.api.softnic;

import dev.marrow.api.Backend;
import dev.marrow.internal.ffi.CStruct;
import dev.marrow.internal.ffi.EmuFfi;
import dev.marrow.internal.ffi.EmuLayouts;
import dev.marrow.internal.ffi.NativeLib;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.foreign.StructLayout;
import java.util.LinkedHashMap;
import java.util.Map;

import static dev.marrow.internal.ffi.CStruct.getInt;
import static dev.marrow.internal.ffi.CStruct.getLong;
import static dev.marrow.internal.ffi.CStruct.setInt;
import static dev.marrow.internal.ffi.CStruct.setLong;

/**
 * The software NIC's wire model (docs/design/wire-model.md): a port of
 * {@code bitsPerSecond} that serializes every WRITE with its packet and
 * message overheads; a completion is not visible before its message left
 * the modeled port. {@link #NONE} (rate 0): no model, completions come as
 * fast as the copy engine makes them. The IB byte counts come from the C
 * library ({@code marrow_emu_wire_ib_defaults}), never from Java literals.
 */
public record WireModel(String name, long bitsPerSecond, int mtu, int packetOverhead, int writeOverhead,
                        int immOverhead) {

    /** No wire: the copy engine's goodput. */
    public static final WireModel NONE = new WireModel("none", 0, 0, 0, 0, 0);

    /** The ConnectX-7 InfiniBand port rate of "GPU-Initiated Communication: Dissecting Down to the Bone", in Gb/s (the CLI default). */
    public static final double DEFAULT_GBPS = 200;

    /** InfiniBand RC at {@code gbps} Gb/s, MTU 4096 (values from the C library). */
    public static WireModel infiniband(double gbps) {
        if (!(gbps > 0) || gbps > 10_000) {
            throw new IllegalArgumentException("wire rate must be in (0, 10000] Gb/s, not " + gbps);
        }
        Backend.SOFTNIC.ensureAvailability();
        try (Arena a = Arena.ofConfined()) {
            StructLayout l = EmuLayouts.WIRE_MODEL;
            MemorySegment m = CStruct.allocate(a, l);
            long bps = Math.round(gbps * 1e9);
            EmuFfi.LIB.check((int) EmuFfi.WIRE_IB_DEFAULTS.invokeExact(m, bps), "marrow_emu_wire_ib_defaults");
            return new WireModel("infiniband-rc", getLong(m, l, "bits_per_s"), getInt(m, l, "mtu"),
                    getInt(m, l, "packet_overhead"), getInt(m, l, "write_overhead"), getInt(m, l, "imm_overhead"));
        } catch (Throwable t) {
            throw NativeLib.rethrow(t);
        }
    }

    /** --wire-gbps: 0 means no model. */
    public static WireModel ofGbps(double gbps) {
        return gbps == 0 ? NONE : infiniband(gbps);
    }

    public boolean enabled() {
        return bitsPerSecond > 0;
    }

    /** Payload line rate: bytes per second of the port, before overheads, in GB/s (0 without a model). */
    public double lineRateGBps() {
        return bitsPerSecond / 8e9;
    }

    /** Picoseconds one WRITE of {@code len} payload bytes occupies the port (0 without a model). */
    public long timePs(long len) {
        if (!enabled()) {
            return 0;
        }
        try (Arena a = Arena.ofConfined()) {
            return (long) EmuFfi.WIRE_TIME_PS.invokeExact(segment(a), len, 0);
        } catch (Throwable t) {
            throw NativeLib.rethrow(t);
        }
    }

    /** The most payload GB/s a stream of {@code len}-byte WRITEs can carry on this wire (0 without a model). */
    public double ceilingGBps(long len) {
        long ps = timePs(len);
        return ps == 0 ? 0 : len * 1000.0 / ps;
    }

    /** The struct for marrow_emu_device_set_wire. */
    MemorySegment segment(SegmentAllocator a) {
        StructLayout l = EmuLayouts.WIRE_MODEL;
        MemorySegment m = CStruct.allocate(a, l);
        setLong(m, l, "bits_per_s", bitsPerSecond);
        setInt(m, l, "mtu", mtu);
        setInt(m, l, "packet_overhead", packetOverhead);
        setInt(m, l, "write_overhead", writeOverhead);
        setInt(m, l, "imm_overhead", immOverhead);
        return m;
    }

    /** What records carry under "wire_model": the name and every parameter. */
    public Map<String, Object> describe() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", name);
        if (enabled()) {
            m.put("gbps", bitsPerSecond / 1e9);
            m.put("mtu", mtu);
            m.put("packet_overhead_bytes", packetOverhead);
            m.put("write_overhead_bytes", writeOverhead);
            m.put("imm_overhead_bytes", immOverhead);
            m.put("modeled", "serialization at one shared port; CQE not before the last byte left");
        } else {
            m.put("modeled", "nothing: goodput is the software NIC copy engine's");
        }
        return m;
    }
}
