// SPDX-License-Identifier: Apache-2.0
package dev.marrow.mlx5;

import dev.marrow.internal.ffi.CStruct;
import dev.marrow.internal.ffi.NativeLib;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

import static dev.marrow.internal.ffi.CStruct.getInt;
import static dev.marrow.internal.ffi.CStruct.setInt;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * An opened mlx5 device, one port, and a protection domain. Close the QPs
 * and memory regions first (the C side answers EBUSY otherwise). Where no
 * mlx5 NIC exists, {@link #open} throws {@link dev.marrow.api.NativeException}
 * with status ENODEV and the probe's reason.
 */
public final class Mlx5Device implements AutoCloseable {
    private final MemorySegment handle;
    private final String name;
    private final int port;
    private final int gidIndex;
    private boolean closed;

    private Mlx5Device(MemorySegment handle, String name, int port, int gidIndex) {
        this.handle = handle;
        this.name = name;
        this.port = port;
        this.gidIndex = gidIndex;
    }

    /** The first mlx5 device, port 1, automatic GID index. */
    public static Mlx5Device open() {
        return open(null, 0, -1);
    }

    /**
     * @param name     e.g. "mlx5_0"; null or "" = the first mlx5 device
     * @param port     1-based; 0 = 1
     * @param gidIndex -1 = automatic (IB: 0; RoCE: a routable RoCE v2 GID)
     */
    public static Mlx5Device open(String name, int port, int gidIndex) {
        byte[] n = (name == null ? "" : name).getBytes(StandardCharsets.UTF_8);
        long room = CStruct.byteSize(Mlx5Ffi.DEVICE_ATTR, "name");
        if (n.length >= room) {
            throw new IllegalArgumentException("device name longer than " + (room - 1) + " bytes: " + name);
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment attr = CStruct.allocate(a, Mlx5Ffi.DEVICE_ATTR);
            CStruct.setString(attr, Mlx5Ffi.DEVICE_ATTR, "name", name == null ? "" : name);
            setInt(attr, Mlx5Ffi.DEVICE_ATTR, "port", port);
            setInt(attr, Mlx5Ffi.DEVICE_ATTR, "gid_index", gidIndex);
            MemorySegment out = a.allocate(ADDRESS);
            Mlx5Ffi.V.LIB.check((int) Mlx5Ffi.V.DEVICE_OPEN.invokeExact(attr, out), "marrow_mlx5_device_open");
            return new Mlx5Device(out.get(ADDRESS, 0), CStruct.getString(attr, Mlx5Ffi.DEVICE_ATTR, "name"),
                    getInt(attr, Mlx5Ffi.DEVICE_ATTR, "port"),
                    getInt(attr, Mlx5Ffi.DEVICE_ATTR, "gid_index"));
        } catch (Throwable t) {
            throw Mlx5Ffi.rethrow(t);
        }
    }

    public String name() {
        return name;
    }

    public int port() {
        return port;
    }

    public int gidIndex() {
        return gidIndex;
    }

    /** ibv_reg_mr over buffer (native memory that outlives the region); access: Access.* bits. */
    public Mlx5MemoryRegion register(MemorySegment buffer, int access) {
        if (!buffer.isNative()) {
            throw new IllegalArgumentException("only native memory can be registered with the NIC");
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(ADDRESS);
            MemorySegment lkey = a.allocate(JAVA_INT);
            MemorySegment rkey = a.allocate(JAVA_INT);
            Mlx5Ffi.V.LIB.check((int) Mlx5Ffi.V.MR_REG.invokeExact(handle, buffer, buffer.byteSize(), access, out,
                    lkey, rkey), "marrow_mlx5_mr_reg");
            return new Mlx5MemoryRegion(this, out.get(ADDRESS, 0), buffer, lkey.get(JAVA_INT, 0), rkey.get(JAVA_INT, 0));
        } catch (Throwable t) {
            throw Mlx5Ffi.rethrow(t);
        }
    }

    /**
     * Whether GPU-resident queues can be created on this device: its context was opened
     * with DevX and libmlx5 has the DevX entry points.
     *
     * @throws dev.marrow.api.NativeException with status ENODEV and the reason otherwise
     */
    public void requireDevx() {
        try {
            Mlx5Ffi.V.LIB.check((int) Mlx5Ffi.V.DEVX_CHECK.invokeExact(handle), "marrow_mlx5_devx_check");
        } catch (Throwable t) {
            throw Mlx5Ffi.rethrow(t);
        }
    }

    public Mlx5QueuePair createQueuePair(Mlx5QueuePair.Config config) {
        return Mlx5QueuePair.create(this, config);
    }

    /**
     * A DevX queue pair with its queues in GPU memory on CUDA device cudaDevice
     * (config.placement() must be GPU); see {@link Mlx5GpuQueuePair}.
     *
     * @throws dev.marrow.api.NativeException ENODEV without DevX or without a usable GPU (the reason in the
     *                                        message), EIO when a DevX command or registration fails
     */
    public Mlx5GpuQueuePair createGpuQueuePair(Mlx5QueuePair.Config config, int cudaDevice) {
        return Mlx5GpuQueuePair.open(this, config, cudaDevice);
    }

    MemorySegment handle() {
        return handle;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        try {
            Mlx5Ffi.V.LIB.check((int) Mlx5Ffi.V.DEVICE_CLOSE.invokeExact(handle), "marrow_mlx5_device_close");
            closed = true;
        } catch (Throwable t) {
            throw Mlx5Ffi.rethrow(t);
        }
    }
}
